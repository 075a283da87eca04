// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * SEND packets of later messages placed when they arrive (RC, MetaRoCE
 * mode, receive queue of the QP's own).
 *
 * A SEND kind's MSGH names the receive WQE its message consumes: its
 * message number counts the receive-consuming messages (SENDs and WRITEs
 * with immediate) the requester started before it (Documentation/
 * wire.rst, "MSGH").  The responder counts the WQEs it takes the same way
 * (dp->msg.rq_msn), and a SEND held behind a hole for a message that has
 * not started here yet lands in the WQE that many places past the
 * receive queue's head, which only this responder moves: the WQE the
 * message will take when it runs in order.  So its payload is placed at
 * once, at its MSGH offset, and only its headers wait for their turn
 * (mroce_hold.c); completions still follow RC order.
 *
 * The two counts are trusted once they were seen to agree: a SEND of a
 * MetaRoCE kind that ran in order took the WQE its message number names
 * (mroce_rqahead_sync()).  Until then, and for a QP on an SRQ (whose
 * WQEs other QPs take too), later messages are placed when they run.  A
 * WQE that is not posted yet, or too small, leaves the packet unplaced:
 * when it runs it gets the RNR NAK or the error it would get anyway.
 *
 * Caller holds dp->run_lock in everything here.
 */
#include "mroce_dp.h"
#include "core/mroce_psn.h"

int mroce_rqahead_init(struct mroce_dpqp *dp)
{
	dp->hold.ahead = kzalloc(dp->rwqe_size, GFP_KERNEL);
	return dp->hold.ahead ? 0 : -ENOMEM;
}

void mroce_rqahead_fini(struct mroce_dpqp *dp)
{
	kfree(dp->hold.ahead);
	dp->hold.ahead = NULL;
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
	/* as mroce_resp_take_rwqe(): too many SGEs, no buffer at all */
	if (w->num_sge > qp->cap.max_recv_sge ||
	    w->num_sge > (ring->entry_size - sizeof(*w)) /
			 sizeof(struct metaroce_sge))
		w->num_sge = 0;
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
	const struct metaroce_recv_wqe *w = dp->hold.ahead;
	u32 k;

	if (!m->rq_sync || !w || dp->qp->ibqp.srq)
		return false;
	/* how many WQEs past the next one to take */
	k = (pkt->mmsn - m->rq_msn) & MROCE_PSN_MASK;
	if (k >= MROCE_HOLD_SLOTS || !mroce_rqahead_wqe(dp, k))
		return false;
	return !mroce_sge_place(dp, (const void *)((const u8 *)w + sizeof(*w)),
				w->num_sge, pkt->moff, pkt, pkt->lo.pay_len);
}
