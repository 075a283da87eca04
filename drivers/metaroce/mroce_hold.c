// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Selective repeat at the responder of a MetaRoCE-mode RC connection.
 *
 * A request that arrives ahead of the expected PSN, in the peer's MetaRoCE
 * span, is held instead of being dropped behind a NAK (RoCEv2's go-back-N,
 * IBTA 9.7.5.2.1): its skb and decoded headers wait in a ring of
 * MROCE_HOLD_SLOTS slots indexed by PSN.  When the missing request comes,
 * it and the held ones behind it run in PSN order, so memory, receive
 * WQEs, atomics and completions see exactly RC order (mroce_hold_drain()).
 * The ACKs of such a connection are MR_ACKs (Documentation/wire.rst): the
 * cumulative point in the BTH, and in the SACK header a bitmap of the PSNs
 * held past it, so the requester resends only the holes (core mroce_sr.c).
 * A duplicate is answered at once with the D flag set.
 *
 * A held packet that continues the SEND or WRITE message in progress is
 * placed when it arrives (mroce_resp_place_ahead(): the MetaRoCE request
 * kinds, mroce_xdata.c, say where it belongs) and only its headers wait;
 * the others are placed when they run.
 *
 * Caller holds dp->run_lock in everything here.
 */
#include "mroce_dp.h"
#include "mroce_param.h"
#include "core/mroce_psn.h"

static_assert(MROCE_ACK_EVERY_MAX <= MROCE_HOLD_SLOTS);

int mroce_hold_init(struct mroce_dpqp *dp)
{
	dp->hold.pkt = kcalloc(MROCE_HOLD_SLOTS, sizeof(*dp->hold.pkt),
			       GFP_KERNEL);
	return dp->hold.pkt ? 0 : -ENOMEM;
}

static void mroce_hold_free(struct mroce_rxpkt *h)
{
	consume_skb(h->skb);
	kfree(h);
}

/* Let go of everything held (QP reset, error, destroy). */
void mroce_hold_reset(struct mroce_dpqp *dp)
{
	u32 i;

	if (!dp->hold.pkt)
		return;
	for (i = 0; i < MROCE_HOLD_SLOTS && dp->hold.n; i++) {
		if (!dp->hold.pkt[i])
			continue;
		mroce_hold_free(dp->hold.pkt[i]);
		dp->hold.pkt[i] = NULL;
		dp->hold.n--;
	}
	dp->hold.dup = false;
	dp->hold.ts_echo = 0;
	dp->hold.path_echo = 0;
	dp->hold.ce_echo = false;
	dp->hold.unacked = 0;
	dp->hold.ack_due = 0;
	mroce_rqahead_reset(dp);
}

void mroce_hold_fini(struct mroce_dpqp *dp)
{
	mroce_hold_reset(dp);
	kfree(dp->hold.pkt);
	dp->hold.pkt = NULL;
}

/*
 * Does this connection hold requests?  In MetaRoCE mode it holds those of
 * the peer's span (the switch bit), also before the switch PSN itself has
 * come in turn (rx_on): its requester resends only what comes before that
 * PSN when the gap there is NAKed (core mroce_reqwin.c, "nak_end").
 */
static bool mroce_hold_takes(const struct mroce_dpqp *dp)
{
	return dp->hold.pkt && mroce_nego_metaroce(&dp->nego);
}

/* Does it answer with MR_ACKs: past the switch PSN, or holding already? */
static bool mroce_hold_on(const struct mroce_dpqp *dp)
{
	return mroce_hold_takes(dp) && (dp->nego.rx_on || dp->hold.n);
}

/*
 * A duplicate arrived: the next ACK, at once, says so, and echoes its
 * timestamp (the requester tells a resend of its own from a copy the
 * network made by it).
 */
void mroce_hold_dup(struct mroce_dpqp *dp, const struct mroce_rxpkt *pkt)
{
	if (!dp->hold.dup && pkt->x && pkt->ts) {
		dp->hold.ts_echo = pkt->ts;
		dp->hold.path_echo = pkt->path;
		dp->hold.ce_echo = pkt->ce;
	}
	dp->hold.dup = true;
	dp->ack_pending = true;
}

/*
 * ACK coalescing.  A held request is acknowledged at once when it opens a
 * gap (the PSN before it is missing): the requester's RACK learns of the
 * loss one round trip after it, as without coalescing.  The others extend
 * a run of held requests the requester already knows is past a hole, and
 * are acknowledged together: at the latest every ack_every of them or
 * ack_delay after the first, whichever comes first (the task's timer,
 * mroce_task_arm()), even when they ask for an ACK.  What an ACK request
 * is for, the cumulative point that completes a message and opens the
 * requester's window, does not move while a hole is open; the ACK that
 * moves it goes out when the hole is filled and the held requests run
 * (mroce_hold_drain()).  Under loss this cuts the packets of a connection
 * by about a quarter (64 KiB WRITEs, both directions' packets per message:
 * 102 to 78 at 1% loss, 134 to 94 at 5%, make bench's matrix).
 */
static bool mroce_hold_ack_now(struct mroce_dpqp *dp,
			       const struct mroce_rxpkt *pkt)
{
	u32 prev = mroce_psn_sub(pkt->hdr.bth.psn, 1);
	const struct mroce_rxpkt *h = dp->hold.pkt[prev % MROCE_HOLD_SLOTS];

	if (!h || h->hdr.bth.psn != prev)
		return true;
	if (++dp->hold.unacked >= READ_ONCE(dp->mdev->ack_every))
		return true;
	if (!dp->hold.ack_due)
		dp->hold.ack_due = mroce_dp_now(dp) +
				   READ_ONCE(dp->mdev->ack_delay_ns);
	return false;
}

/**
 * mroce_hold_ack_check() - is the deadline of coalesced ACKs past?
 * @dp: the QP's data path
 *
 * Makes the ACK pending when it is (mroce_resp_flush_acks() sends it).
 */
void mroce_hold_ack_check(struct mroce_dpqp *dp)
{
	if (dp->hold.ack_due && mroce_dp_now(dp) >= dp->hold.ack_due) {
		dp->hold.ack_due = 0;
		dp->ack_pending = true;
	}
}

/**
 * mroce_hold_rx() - hold a request that came ahead of its turn
 * @dp: the QP's data path (RC)
 * @pkt: a checked request; its skb is the caller's, who frees it after
 *
 * Return: true when the packet was taken care of here (held, or dropped
 * and counted); false when it goes through the normal responder.
 */
bool mroce_hold_rx(struct mroce_dpqp *dp, struct mroce_rxpkt *pkt)
{
	u32 psn = pkt->hdr.bth.psn;
	struct mroce_rxpkt **slot, *h;
	s32 d;

	if (!mroce_hold_takes(dp) ||
	    !(pkt->hdr.bth.resv7 & MROCE_BTH_MR_SWITCHED))
		return false;
	d = mroce_psn_diff(psn, dp->rwin.epsn);
	if (d <= 0)
		return false;
	if (d >= MROCE_HOLD_SLOTS) {
		dp->ack_pending = true;
		mroce_count(dp->mdev, MROCE_CNT_RX_DROP_SEQ);
		return true;
	}
	slot = &dp->hold.pkt[psn % MROCE_HOLD_SLOTS];
	if (*slot && (*slot)->hdr.bth.psn == psn) {
		mroce_count(dp->mdev, MROCE_CNT_RX_DUPS);
		mroce_hold_dup(dp, pkt);
		return true;
	}
	h = kmalloc(sizeof(*h), GFP_ATOMIC);
	if (!h) {
		/* dropped: the requester resends it */
		dp->ack_pending = true;
		mroce_count(dp->mdev, MROCE_CNT_RX_DROP_SEQ);
		return true;
	}
	if (mroce_hold_ack_now(dp, pkt))
		dp->ack_pending = true;
	if (*slot) {
		/* left behind by a request that covered several PSNs */
		mroce_hold_free(*slot);
		dp->hold.n--;
	}
	*h = *pkt;
	/* placed now: only its headers wait, the skb goes */
	if (mroce_resp_place_ahead(dp, h, d)) {
		h->skb = NULL;
		h->payload = NULL;
	} else {
		skb_get(h->skb);
	}
	*slot = h;
	dp->hold.n++;
	mroce_count(dp->mdev, MROCE_CNT_OOO);
	return true;
}

/* Is the request the responder expects next held? */
bool mroce_hold_ready(const struct mroce_dpqp *dp)
{
	const struct mroce_rxpkt *h;

	if (!dp->hold.n)
		return false;
	h = dp->hold.pkt[dp->rwin.epsn % MROCE_HOLD_SLOTS];
	return h && h->hdr.bth.psn == dp->rwin.epsn;
}

/**
 * mroce_hold_drain() - run the held requests that are now in order
 * @dp: the QP's data path, after a request ran at the expected PSN
 *
 * Stops at the first gap, when a request does not move the expected PSN
 * (no receive WQE: RNR NAK; an error), or once a READ is being answered:
 * the requests behind it wait until its responses are out
 * (mroce_resp_read_continue()), as those still in the receive queue do.
 * At most MROCE_HOLD_DRAIN runs: the task's next run goes on
 * (mroce_hold_ready()).
 */
void mroce_hold_drain(struct mroce_dpqp *dp)
{
	u32 i, ran = 0;

	for (i = 0; i < MROCE_HOLD_DRAIN && dp->hold.n && !dp->error &&
	     !dp->rd.active; i++) {
		u32 epsn = dp->rwin.epsn;
		struct mroce_rxpkt **slot = &dp->hold.pkt[epsn %
							  MROCE_HOLD_SLOTS];
		struct mroce_rxpkt *h = *slot;

		if (!h)
			break;
		*slot = NULL;
		dp->hold.n--;
		if (h->hdr.bth.psn == epsn &&
		    mroce_respwin_check(&dp->rwin, &h->hdr.bth) ==
		    MROCE_RESP_NEW) {
			mroce_nego_rx_switch(&dp->nego, epsn);
			mroce_resp_execute(dp, h);
			ran++;
		}
		mroce_hold_free(h);
		if (dp->rwin.epsn == epsn)
			break;
	}
	if (ran)
		dp->ack_pending = true;
}

/* PSNs a held request covers: a READ one per response packet. */
static u32 mroce_hold_npsn(const struct mroce_dpqp *dp,
			   const struct mroce_rxpkt *h)
{
	if (!(h->lo.op->flags & MROCE_OPF_READ) || !h->hdr.reth.len)
		return 1;
	return DIV_ROUND_UP(h->hdr.reth.len, dp->pmtu);
}

/* The SACK bitmap: bit i is PSN epsn + i, held. */
static void mroce_hold_sack(const struct mroce_dpqp *dp,
			    struct mroce_sackh *x)
{
	u32 epsn = dp->rwin.epsn, i, k, n, seen = 0;

	memset(x, 0, sizeof(*x));
	/* up to the last one held, not the whole ring */
	for (i = 1; i < MROCE_HOLD_SLOTS && seen < dp->hold.n; i++) {
		const struct mroce_rxpkt *h =
			dp->hold.pkt[(epsn + i) % MROCE_HOLD_SLOTS];

		if (!h || h->hdr.bth.psn != mroce_psn_add(epsn, i))
			continue;
		seen++;
		n = mroce_hold_npsn(dp, h);
		for (k = i; k < i + n && k < MROCE_HOLD_SLOTS; k++) {
			x->map[k / 64] |= 1ULL << (k % 64);
			x->words = k / 64 + 1;
		}
	}
}

/**
 * mroce_hold_ack() - send the ACK of a connection that holds requests
 * @dp: the QP's data path
 *
 * Return: -EAGAIN when the connection does not (a RoCEv2 ACK is due
 * instead), -ENOMEM when no skb could be had (the ACK stays pending), else
 * 0 (the packet went to the IP layer, whatever became of it).
 */
int mroce_hold_ack(struct mroce_dpqp *dp)
{
	struct mroce_xhdr x = {};
	int err;

	if (!mroce_hold_on(dp))
		return -EAGAIN;
	x.bth.opcode = MROCE_XOP_ACK;
	x.bth.pkey = IB_DEFAULT_PKEY_FULL;
	x.bth.dqpn = dp->dqpn;
	x.bth.psn = mroce_respwin_ack_psn(&dp->rwin);
	x.mxh.ver = MROCE_XVER;
	x.mxh.flags = (dp->hold.dup ? MROCE_MXH_F_DUP : 0) |
		      (dp->hold.ce_echo ? MROCE_MXH_F_ECE : 0);
	x.mxh.path = dp->hold.path_echo;
	/*
	 * No TS (0, none): nothing measures with an ACK's send time, and a
	 * clock read per ACK costs a microsecond or more in a VM whose
	 * clock source is the HPET.
	 */
	x.mxh.ts = 0;
	x.mxh.tse = dp->hold.ts_echo;
	x.aeth.syndrome = mroce_aeth_ack_syndrome(MROCE_AETH_CREDITS_INVALID);
	x.aeth.msn = dp->rwin.msn;
	mroce_hold_sack(dp, &x.sack);
	err = mroce_dp_xmit_x(dp, &x);
	if (err == -ENOMEM)
		return err;
	dp->hold.dup = false;
	dp->hold.ts_echo = 0;
	dp->hold.path_echo = 0;
	dp->hold.ce_echo = false;
	dp->hold.unacked = 0;
	dp->hold.ack_due = 0;
	mroce_count(dp->mdev, MROCE_CNT_TX_SACK_ACKS);
	return 0;
}
