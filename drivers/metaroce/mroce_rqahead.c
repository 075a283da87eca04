// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * SEND packets of later messages placed when they arrive (RC, MetaRoCE
 * mode).
 *
 * A SEND kind's MSGH names the receive WQE its message consumes: its
 * message number counts the receive-consuming messages (SENDs and WRITEs
 * with immediate) the requester started before it (Documentation/
 * wire.rst, "MSGH").  The responder counts the WQEs it takes the same way
 * (dp->msg.rq_msn), so a SEND held behind a hole for a message that has
 * not started here yet knows which WQE it will take: the one k = (message
 * number - rq_msn) after the next.  Its payload is placed there at once,
 * at its MSGH offset, and only its headers wait for their turn
 * (mroce_hold.c); completions still follow RC order.
 *
 *  - A receive queue of the QP's own: only this responder moves its head,
 *    so that WQE is the one k places past the head.  It is read in place,
 *    not taken (a copy is cached in dp->hold.ahead).
 *  - An SRQ: other QPs take from it too, so the WQEs of the next k + 1
 *    messages are taken now, in their order, and kept for them
 *    (dp->srq_ahead, up to MROCE_SRQ_AHEAD): mroce_resp_take_rwqe() hands
 *    them out before it takes another from the SRQ.  Taking them early
 *    fires the SRQ limit event as taking them later would.  A QP that
 *    enters ERR completes them with IB_WC_WR_FLUSH_ERR after the one in
 *    progress (mroce_resp_flush()); one reset without going through ERR
 *    drops them, as it drops the one in progress.
 *
 * The two counts are trusted once they were seen to agree: a SEND of a
 * MetaRoCE kind that ran in order took the WQE its message number names
 * (mroce_rqahead_sync()).  Until then later messages are placed when they
 * run.  A WQE that is not posted yet, or too small, leaves the packet
 * unplaced: when it runs it gets the RNR NAK or the error it would get
 * anyway.
 *
 * Caller holds dp->run_lock in everything here.
 */
#include "mroce_dp.h"
#include "core/mroce_psn.h"

/* @srq: the QP takes its receive WQEs from an SRQ. */
int mroce_rqahead_init(struct mroce_dpqp *dp, bool srq)
{
	if (srq) {
		dp->srq_ahead.buf = kcalloc(MROCE_SRQ_AHEAD, dp->rwqe_size,
					    GFP_KERNEL);
		return dp->srq_ahead.buf ? 0 : -ENOMEM;
	}
	dp->hold.ahead = kzalloc(dp->rwqe_size, GFP_KERNEL);
	return dp->hold.ahead ? 0 : -ENOMEM;
}

void mroce_rqahead_fini(struct mroce_dpqp *dp)
{
	kfree(dp->hold.ahead);
	dp->hold.ahead = NULL;
	kfree(dp->srq_ahead.buf);
	dp->srq_ahead.buf = NULL;
}

/* The WQE reserved for the message @i after the next one. */
static struct metaroce_recv_wqe *mroce_srq_ahead_wqe(struct mroce_dpqp *dp,
						     u32 i)
{
	struct mroce_srq_ahead *r = &dp->srq_ahead;

	return (void *)(r->buf +
			(r->head + i) % MROCE_SRQ_AHEAD * dp->rwqe_size);
}

/*
 * QP reset (mroce_hold_reset()): the cached RQ copy is stale, the reserved
 * SRQ WQEs are dropped with the rest of the QP's state.
 */
void mroce_rqahead_reset(struct mroce_dpqp *dp)
{
	dp->hold.ahead_ok = false;
	dp->srq_ahead.head = 0;
	dp->srq_ahead.n = 0;
}

/**
 * mroce_rqahead_pop() - hand out the WQE reserved for the next message
 * @dp: the QP's data path
 *
 * Return: true when one was reserved; it is in dp->rwqe now.
 */
bool mroce_rqahead_pop(struct mroce_dpqp *dp)
{
	struct mroce_srq_ahead *r = &dp->srq_ahead;

	if (!r->n)
		return false;
	memcpy(dp->rwqe, mroce_srq_ahead_wqe(dp, 0), dp->rwqe_size);
	r->head = (r->head + 1) % MROCE_SRQ_AHEAD;
	r->n--;
	return true;
}

/*
 * Take from the SRQ the WQEs of the next @k + 1 messages that are not
 * reserved yet.  Returns that of the message @k after the next, or NULL
 * when the SRQ has too few (those it had stay reserved, for the messages
 * they belong to).
 */
static struct metaroce_recv_wqe *mroce_srq_reserve(struct mroce_dpqp *dp,
						   u32 k)
{
	struct mroce_srq_ahead *r = &dp->srq_ahead;

	/*
	 * In ERR the QP's WQEs are flushed (under run_lock, after the state
	 * changed): it takes no more.
	 */
	if (k >= MROCE_SRQ_AHEAD || READ_ONCE(dp->qp->state) == IB_QPS_ERR)
		return NULL;
	while (r->n <= k) {
		if (mroce_resp_take_wqe(dp, mroce_srq_ahead_wqe(dp, r->n)))
			return NULL;
		r->n++;
	}
	return mroce_srq_ahead_wqe(dp, k);
}

/**
 * mroce_rqahead_sync() - a receive WQE was taken for a message
 * @dp: the QP's data path (RC)
 * @pkt: the packet that took it: the first of a SEND, the last of a WRITE
 *	with immediate
 *
 * Counts the WQE, and tells whether the message number of a MetaRoCE
 * kind matched the count (a packet of the RoCEv2 kinds carries none).
 */
void mroce_rqahead_sync(struct mroce_dpqp *dp, const struct mroce_rxpkt *pkt)
{
	struct mroce_resp_msg *m = &dp->msg;

	if (pkt->x)
		m->rq_sync = pkt->mmsn == (m->rq_msn & MROCE_PSN_MASK);
	m->rq_msn++;
}

/*
 * Copy the receive WQE @k places past the head of the RQ into
 * dp->hold.ahead, unless it is there already.  False when fewer are posted.
 */
static bool mroce_rqahead_wqe(struct mroce_dpqp *dp, u32 k)
{
	struct mroce_qp *qp = dp->qp;
	struct mroce_kring *ring = &qp->rq;
	struct metaroce_recv_wqe *w = dp->hold.ahead;
	unsigned long flags;
	bool ok = false, fresh = false;
	u32 n, pos;

	if (!ring->hdr || ring->entry_size > dp->rwqe_size)
		return false;
	spin_lock_irqsave(&qp->rq_lock, flags);
	pos = ring->head + k;
	if (dp->hold.ahead_ok && dp->hold.ahead_pos == pos) {
		ok = true;
	} else if (READ_ONCE(qp->state) != IB_QPS_ERR) {
		n = mroce_kring_pending(ring);
		if (k < n && n <= ring->num) {
			memcpy(w, mroce_kring_slot(ring, pos),
			       ring->entry_size);
			dp->hold.ahead_pos = pos;
			fresh = true;
			ok = true;
		}
	}
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	if (!fresh)
		return ok;
	mroce_rwqe_check_sges(w, qp->cap.max_recv_sge, ring->entry_size);
	dp->hold.ahead_ok = true;
	return true;
}

/**
 * mroce_rqahead_place() - place a held SEND packet of a later message
 * @dp: the QP's data path (RC, MetaRoCE mode)
 * @pkt: a SEND kind about to be held, with payload
 *
 * Return: true when the payload was placed in the receive WQE its
 * message will take.
 */
bool mroce_rqahead_place(struct mroce_dpqp *dp, const struct mroce_rxpkt *pkt)
{
	const struct mroce_resp_msg *m = &dp->msg;
	const struct metaroce_recv_wqe *w = NULL;
	u32 k;

	if (!m->rq_sync)
		return false;
	/* how many WQEs past the next one to take */
	k = (pkt->mmsn - m->rq_msn) & MROCE_PSN_MASK;
	if (dp->srq_ahead.buf)
		w = mroce_srq_reserve(dp, k);
	else if (dp->hold.ahead && k < MROCE_HOLD_SLOTS &&
		 mroce_rqahead_wqe(dp, k))
		w = dp->hold.ahead;
	if (!w)
		return false;
	return !mroce_sge_place(dp, (const void *)((const u8 *)w + sizeof(*w)),
				w->num_sge, pkt->moff, pkt, pkt->lo.pay_len);
}
