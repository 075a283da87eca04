// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * libFuzzer target: the requester window driven by an arbitrary stream of
 * sends, ACKs, NAKs, READ responses and timer expiries.  The PSN pointers
 * must stay ordered (una <= nxt <= max) and in flight never exceeds half
 * the PSN space, whatever the peer sends.
 */
#include <stdlib.h>

#include "mroce_core.h"
#include "mroce_psn.h"
#include "mroce_reqwin.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

static void check(const struct mroce_reqwin *w)
{
	u32 inflight = mroce_psn_dist(w->una, w->max);

	if (mroce_psn_dist(w->una, w->nxt) > inflight ||
	    inflight >= MROCE_PSN_HALF || w->retry_left > w->retry_cnt ||
	    w->rnr_left > w->rnr_retry || (w->una | w->nxt | w->max) >> 24)
		abort();
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct mroce_reqwin_cfg cfg;
	struct mroce_reqwin_res r;
	struct mroce_reqwin w;
	u64 now = 0, at;
	size_t i;
	u32 psn;

	if (size < 8)
		return 0;
	cfg.psn = data[0] << 16 | data[1] << 8 | data[2];
	cfg.wnd = data[3] << 8 | data[4];
	cfg.retry_cnt = data[5] & 7;
	cfg.rnr_retry = data[5] >> 3 & 7;
	cfg.timeout = data[6] & 31;
	mroce_reqwin_init(&w, &cfg);
	check(&w);
	for (i = 7; i + 3 < size; i += 4) {
		const u8 *op = data + i;
		/* PSNs near the window, to hit its edges. */
		u32 p = mroce_psn_add(w.una, (op[1] | op[2] << 8) - 0x100);

		now += op[3] * 1000ULL;
		switch (op[0] & 7) {
		case 0:
		case 1:
			mroce_reqwin_sent(&w, 1 + (op[1] & 15), now, &psn);
			break;
		case 2:
			mroce_reqwin_on_aeth(&w, p, op[0] & 0xe0, now, &r);
			break;
		case 3:
			mroce_reqwin_on_aeth(&w, p, op[3], now, &r);
			break;
		case 4:
			mroce_reqwin_on_read_resp(&w, p,
						  mroce_psn_add(w.una, op[3]),
						  now, &r);
			break;
		case 5:
			if (mroce_reqwin_next_event(&w, &at) && at > now)
				now = at;
			mroce_reqwin_on_timer(&w, now, &r);
			break;
		default:
			mroce_reqwin_can_send(&w, op[1], now);
			mroce_reqwin_verdict_name(op[1] % 12);
			break;
		}
		check(&w);
	}
	return 0;
}
