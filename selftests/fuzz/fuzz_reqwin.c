// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * libFuzzer target: the requester window driven by an arbitrary stream of
 * sends, resends, ACKs, NAKs, READ responses, reopenings and timer
 * expiries, in go-back-N or in selective-repeat mode (then also SACK
 * bitmaps, RTT samples and duplicate reports).  Whatever the peer sends,
 * in flight never exceeds half the PSN space, the next PSN to send stays
 * in [una, max], no more units are lost or SACKED than PSNs are in flight,
 * every PSN in flight finds the WQE it was sent for, and a timer deadline
 * is never in the past after the timer ran.
 */
#include <stdlib.h>

#include "mroce_core.h"
#include "mroce_psn.h"
#include "mroce_reqwin.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

/*
 * The WQE index the target gave the unit sent at a PSN (modulo the size:
 * fewer PSNs than that are ever in flight here).
 */
#define WQE_OF_SIZE	(1 << 16)
static u32 wqe_of[WQE_OF_SIZE];
#define WQE_OF(psn)	wqe_of[(psn) & (WQE_OF_SIZE - 1)]

static void check(const struct mroce_reqwin *w)
{
	u32 inflight = mroce_psn_dist(w->una, w->max), i, wqe;
	u32 next = mroce_reqwin_next_psn(w);

	if (mroce_psn_dist(w->una, next) > inflight ||
	    mroce_reqwin_lost(w) > inflight ||
	    w->sb.lost + w->sb.sacked > inflight ||
	    (!w->selective && w->sb.sacked) ||
	    inflight >= MROCE_PSN_HALF || w->retry_left > w->retry_cnt ||
	    w->rnr_left > w->rnr_retry || (w->una | w->max) >> 24)
		abort();
	for (i = 0; i < inflight && i < 2 * MROCE_SB_SLOTS; i++) {
		u32 p = mroce_psn_add(w->una, i);

		if (!mroce_reqwin_find(w, p, &wqe) || wqe != WQE_OF(p))
			abort();
	}
}

/* An ACK with a SACK bitmap made from the op's bytes. */
static void sack(struct mroce_reqwin *w, const u8 *op, u64 now,
		 struct mroce_reqwin_res *r)
{
	u64 map[MROCE_SR_ACK_WORDS + 1];
	struct mroce_sr_ack a = {
		/* the cumulative point: mostly inside the window */
		.psn = mroce_psn_add(w->una, op[1] % 24 - 2),
		.syndrome = op[0] & 0x80 ? 0 : op[3],
		/* 0..21: past MROCE_SR_ACK_WORDS too */
		.words = (op[0] >> 3 & 7) * 3,
		.dup = op[0] & 0x40,
		.rtt = op[2] * 997ULL,
		.map = map,
	};
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(map); k++)
		map[k] = (op[2] * 0x0101010101010101ULL) ^
			 ((u64)op[3] << (k % 8 * 8)) ^ (op[1] & 1 ? ~0ULL : 0);
	if (mroce_reqwin_on_sack(w, &a, now, r) == -EINVAL &&
	    a.words <= MROCE_SR_ACK_WORDS)
		abort();
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct mroce_reqwin_cfg cfg;
	struct mroce_reqwin_res r;
	struct mroce_reqwin w;
	u64 now = 0, at;
	u32 psn, wqe, j, n, first;
	size_t i;

	if (size < 8)
		return 0;
	cfg.psn = data[0] << 16 | data[1] << 8 | data[2];
	cfg.wnd = data[3] << 8 | data[4];
	cfg.retry_cnt = data[5] & 7;
	cfg.rnr_retry = data[5] >> 3 & 7;
	cfg.timeout = data[6] & 31;
	/* a pipe narrower than the window, or none */
	cfg.pipe = data[5] & 0x40 ? data[3] + 1 : 0;
	memset(&cfg.rtt, 0, sizeof(cfg.rtt));
	cfg.selective = data[6] & 0x80;
	cfg.ack_delay = (data[6] >> 5 & 3) * 10000ULL;
	mroce_reqwin_init(&w, &cfg);
	first = w.una;
	check(&w);
	for (i = 7; i + 3 < size; i += 4) {
		const u8 *op = data + i;
		/* PSNs near the window, to hit its edges. */
		u32 p = mroce_psn_add(w.una, (op[1] | op[2] << 8) - 0x100);

		now += op[3] * 1000ULL;
		switch (op[0] % 8) {
		case 0:
			/* Mostly single PSNs; now and then a wide READ. */
			n = op[1] & 0x80 ? 1 + op[1] * 2 : 1 + (op[1] & 15);
			if (!mroce_reqwin_sent(&w, n, now, op[2], &psn))
				for (j = 0; j < n; j++)
					WQE_OF(mroce_psn_add(psn, j)) = op[2];
			break;
		case 1:
			/* Resend what is lost, whole units as the kernel does. */
			if (mroce_reqwin_resend(&w, now, &psn, &wqe)) {
				const struct mroce_sb_ent *e =
					mroce_sb_at(&w.sb, psn);

				if (wqe != WQE_OF(psn))
					abort();
				n = mroce_psn_dist(psn, mroce_psn_add(e->head,
								      e->npsn));
				if (mroce_reqwin_resent(&w, psn, n, now))
					abort();
			}
			/*
			 * Take back acknowledged PSNs of this run whose slots
			 * no later PSN reused, as the kernel does at once.
			 */
			if ((op[1] & 1) && op[2] <= mroce_psn_dist(first, w.una) &&
			    op[2] + mroce_reqwin_inflight(&w) <= MROCE_SB_SLOTS)
				mroce_reqwin_reopen(&w, mroce_psn_sub(w.una,
								      op[2]),
						    op[1] & 2, now);
			break;
		case 2:
			mroce_reqwin_on_aeth(&w, p, op[0] & 0xe0, now, &r);
			break;
		case 3:
			mroce_reqwin_on_aeth(&w, p, op[3], now, &r);
			break;
		case 4:
			/* a READ response: in turn, past a hole, or kept */
			switch (op[0] >> 3 & 3) {
			case 0:
				mroce_reqwin_on_read_kept(&w, p, now, &r);
				break;
			case 1:
				mroce_reqwin_on_read_resp(&w, p,
						mroce_psn_add(w.una, op[3]),
						now, &r);
				break;
			case 2:
				if (op[3] & 1)
					mroce_reqwin_on_read_reasked(&w, p,
						mroce_psn_add(w.una, op[3] >> 1),
						now, &r);
				else
					mroce_reqwin_on_read_behind(&w, p,
						mroce_psn_add(w.una, op[3] >> 1),
						now, &r);
				break;
			default:
				mroce_reqwin_read_placed(&w, p, now);
				mroce_reqwin_read_gap_lost(&w, p, now);
				break;
			}
			break;
		case 5:
			if (mroce_reqwin_next_event(&w, &at) && at > now)
				now = at;
			mroce_reqwin_on_timer(&w, now, &r);
			/* It ran at its deadline: what it left is later. */
			if (r.verdict == MROCE_REQWIN_NOT_DUE && r.at <= now)
				abort();
			break;
		case 6:
			sack(&w, op, now, &r);
			break;
		default:
			mroce_reqwin_can_send(&w, op[1], now);
			mroce_reqwin_verdict_name(op[1] % 12);
			/*
			 * A go-back-N window turns selective at its next
			 * PSN, as a connection's MetaRoCE span starts.
			 */
			if (!w.selective && (op[2] & 0xf0) == 0xf0) {
				cfg.psn = w.max;
				cfg.pipe = op[3];
				mroce_sr_init(&w, &cfg);
			}
			break;
		}
		check(&w);
	}
	return 0;
}
