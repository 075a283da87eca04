// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Responder: executes the requests an RC peer sends (IBTA 9.7.4 responder
 * side, 9.7.5 ACK generation), places UC sends and writes (IBTA 9.7, no
 * ACKs: see mroce_resp_uc()) and UD sends (IBTA 9.8).
 *
 *  - PSN checks, duplicates and the READ/atomic resources are the core's
 *    mroce_respwin; this file does the memory side of each request.
 *  - SEND places into receive WQEs taken from the RQ or the SRQ (copied out
 *    of the ring first); none posted is an RNR NAK with the QP's
 *    min_rnr_timer (IBTA 9.7.5.2.8).
 *  - ACKs are coalesced: a request with AckReq only marks an ACK pending,
 *    and one ACK for the newest in-order PSN goes out at the end of the
 *    task's run or before any other response (IBTA 9.7.5.1.x).
 *  - Errors the IBTA classes as responder errors (9.9.3.1.2: invalid
 *    request, remote access, remote operation) are NAKed with the PSN of
 *    the failing request, complete the receive WQE in progress in error and
 *    move the QP to ERR.
 *
 * All functions run in the QP's task: caller holds dp->run_lock.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>

#include "mroce_dp.h"
#include "core/mroce_psn.h"

int mroce_resp_init(struct mroce_dpqp *dp, struct ib_qp_init_attr *init)
{
	u32 esz = init->srq ? to_msrq(init->srq)->ring.entry_size :
			      dp->qp->rq.entry_size;

	dp->rwqe_size = max_t(u32, esz, sizeof(struct metaroce_recv_wqe));
	dp->rwqe = kzalloc(dp->rwqe_size, GFP_KERNEL);
	if (!dp->rwqe)
		return -ENOMEM;
	if (init->qp_type != IB_QPT_RC)
		return 0;
	dp->nres = MROCE_MAX_RD_ATOMIC;
	dp->res = kcalloc(dp->nres, sizeof(*dp->res), GFP_KERNEL);
	if (!dp->res)
		goto err_rwqe;
	if (mroce_hold_init(dp))
		goto err_res;
	if (mroce_rqahead_init(dp, init->srq))
		goto err_hold;
	return 0;

err_hold:
	mroce_hold_fini(dp);
err_res:
	kfree(dp->res);
	dp->res = NULL;
err_rwqe:
	kfree(dp->rwqe);
	dp->rwqe = NULL;
	return -ENOMEM;
}

void mroce_resp_fini(struct mroce_dpqp *dp)
{
	mroce_rqahead_fini(dp);
	mroce_hold_fini(dp);
	kfree(dp->res);
	kfree(dp->rwqe);
}

void mroce_resp_reset(struct mroce_dpqp *dp)
{
	lockdep_assert_held(&dp->run_lock);
	mroce_respwin_init(&dp->rwin, 0, dp->res, 0);
	memset(&dp->msg, 0, sizeof(dp->msg));
	memset(&dp->rd, 0, sizeof(dp->rd));
	dp->ack_pending = false;
	mroce_hold_reset(dp);
}

/* INIT to RTR: expect rq_psn, with max_dest_rd_atomic resources. */
void mroce_resp_start(struct mroce_dpqp *dp)
{
	u32 n = min_t(u32, dp->qp->attr.max_dest_rd_atomic, dp->nres);

	lockdep_assert_held(&dp->run_lock);
	mroce_respwin_init(&dp->rwin, dp->qp->attr.rq_psn, dp->res, n);
	memset(&dp->msg, 0, sizeof(dp->msg));
	memset(&dp->rd, 0, sizeof(dp->rd));
	dp->ack_pending = false;
	mroce_hold_reset(dp);
}

/*
 * Complete the receive WQE the responder holds with @cqe.  A receive CQ
 * that overruns loses the completion and has reported IB_EVENT_CQ_ERR; the
 * QP goes to ERR (IBTA 11.4.2.1 lets the QPs of an overrun CQ go there; rxe
 * does the same), since its consumer can no longer tell which receives
 * completed.
 */
static void mroce_resp_post_rcqe(struct mroce_dpqp *dp,
				 struct metaroce_cqe *cqe, bool solicited)
{
	struct mroce_qp *qp = dp->qp;

	cqe->wr_id = dp->rwqe->wr_id;
	cqe->qp_num = qp->ibqp.qp_num;
	cqe->port_num = 1;
	dp->msg.have_rwqe = false;
	if (mroce_cq_post(to_mcq(qp->ibqp.recv_cq), cqe, solicited))
		mroce_task_fatal(dp);
}

static void mroce_resp_recv_done(struct mroce_dpqp *dp, u8 status, u8 opcode,
				 u32 byte_len, u32 wc_flags, u32 ex,
				 u32 src_qp, bool solicited)
{
	struct metaroce_cqe cqe = {};

	cqe.status = status;
	cqe.opcode = opcode;
	cqe.byte_len = byte_len;
	cqe.ex = ex;
	cqe.src_qp = src_qp;
	cqe.wc_flags = wc_flags;
	mroce_resp_post_rcqe(dp, &cqe, solicited);
}

/*
 * Entering ERR: the receive WQE the responder holds is flushed, then those
 * it reserved from an SRQ for later messages, in their order.
 */
void mroce_resp_flush(struct mroce_dpqp *dp)
{
	lockdep_assert_held(&dp->run_lock);
	dp->rd.active = false;
	if (dp->msg.have_rwqe)
		mroce_resp_recv_done(dp, IB_WC_WR_FLUSH_ERR, IB_WC_RECV, 0, 0,
				     0, 0, false);
	while (mroce_rqahead_pop(dp))
		mroce_resp_recv_done(dp, IB_WC_WR_FLUSH_ERR, IB_WC_RECV, 0, 0,
				     0, 0, false);
}

static void mroce_srq_event(struct mroce_srq *srq)
{
	struct ib_event ev = {
		.device = srq->ibsrq.device,
		.element.srq = &srq->ibsrq,
		.event = IB_EVENT_SRQ_LIMIT_REACHED,
	};

	if (srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
}

/**
 * mroce_resp_take_wqe() - take the next receive WQE of the RQ or the SRQ
 * @dp: the QP's data path
 * @w: where to copy it, dp->rwqe_size bytes
 *
 * Fires the SRQ's limit event when the WQE leaves fewer than the limit.
 *
 * Return: 0, -EAGAIN if none is posted, -EINVAL if the ring is broken.
 */
int mroce_resp_take_wqe(struct mroce_dpqp *dp, struct metaroce_recv_wqe *w)
{
	struct mroce_qp *qp = dp->qp;
	struct mroce_srq *srq = qp->ibqp.srq ? to_msrq(qp->ibqp.srq) : NULL;
	struct mroce_kring *ring = srq ? &srq->ring : &qp->rq;
	spinlock_t *lock = srq ? &srq->lock : &qp->rq_lock;
	bool limit = false;
	unsigned long flags;
	int err = 0;
	u32 n;

	if (!ring->hdr || ring->entry_size > dp->rwqe_size)
		return -EINVAL;
	spin_lock_irqsave(lock, flags);
	/* In ERR the verbs layer flushes the RQ: leave it alone. */
	if (!srq && READ_ONCE(qp->state) == IB_QPS_ERR) {
		err = -EAGAIN;
		goto out;
	}
	n = mroce_kring_pending(ring);
	if (!n || n > ring->num) {
		err = n ? -EINVAL : -EAGAIN;
		goto out;
	}
	memcpy(w, mroce_kring_slot(ring, ring->head), ring->entry_size);
	ring->head++;
	smp_store_release(&ring->hdr->consumer, ring->head);
	/* IBTA 10.2.9.4: the limit event fires once, then disarms. */
	if (srq && srq->limit && n - 1 < srq->limit) {
		srq->limit = 0;
		limit = true;
	}
out:
	spin_unlock_irqrestore(lock, flags);
	if (err)
		return err;
	if (limit)
		mroce_srq_event(srq);
	mroce_rwqe_check_sges(w, srq ? srq->max_sge : qp->cap.max_recv_sge,
			      ring->entry_size);
	return 0;
}

/*
 * Take the receive WQE of the message that starts into dp->rwqe: the one
 * reserved for it (a QP on an SRQ, mroce_rqahead.c), else the next of the
 * RQ or SRQ.  Returns as mroce_resp_take_wqe().
 */
static int mroce_resp_take_rwqe(struct mroce_dpqp *dp)
{
	int err = 0;

	if (!mroce_rqahead_pop(dp))
		err = mroce_resp_take_wqe(dp, dp->rwqe);
	if (err)
		return err;
	dp->msg.have_rwqe = true;
	dp->msg.rcv_off = 0;
	return 0;
}

static struct metaroce_sge *mroce_rwqe_sges(struct mroce_dpqp *dp)
{
	return (void *)((u8 *)dp->rwqe + sizeof(*dp->rwqe));
}

/*
 * Send a packet with an AETH on the connection: ACK, NAK, RNR NAK or
 * atomic ACK.  Returns -ENOMEM when no skb could be had: for a NAK or an
 * atomic ACK the requester's timer recovers, as from a lost packet; a plain
 * ACK stays pending (mroce_resp_flush_acks()).
 */
static int mroce_resp_send_aeth(struct mroce_dpqp *dp, u8 opcode,
				u8 syndrome, u32 psn, u32 msn, u64 orig)
{
	struct mroce_hdr h = {};
	struct sk_buff *skb;
	u8 *payload;

	skb = mroce_tx_alloc(dp->mdev, &dp->av, opcode, 0, &payload,
			     GFP_ATOMIC);
	if (!skb)
		return -ENOMEM;
	h.bth.opcode = opcode;
	h.bth.pkey = IB_DEFAULT_PKEY_FULL;
	h.bth.dqpn = dp->dqpn;
	h.bth.psn = psn;
	h.aeth.syndrome = syndrome;
	h.aeth.msn = msn;
	h.atmack.orig = orig;
	mroce_dp_xmit(dp, &h, skb);
	return 0;
}

/*
 * One ACK for everything received in order so far (IBTA 9.7.5.1.x): an
 * MR_ACK with the SACK bitmap on a connection that holds requests ahead of
 * their turn (mroce_hold.c), else a RoCEv2 ACK.  Returns true when it
 * could not be sent and stays pending: the task tries again in its next
 * run.
 */
bool mroce_resp_flush_acks(struct mroce_dpqp *dp)
{
	int err;

	lockdep_assert_held(&dp->run_lock);
	mroce_hold_ack_check(dp);
	/*
	 * Not while a READ is answered: the ACK would name PSNs only its
	 * responses may acknowledge (IBTA 9.7.5.1.x); the task runs again
	 * until the READ is answered, and sends it then.
	 */
	if (!dp->ack_pending || dp->rd.active)
		return false;
	err = mroce_hold_ack(dp);
	if (err != -EAGAIN) {
		dp->ack_pending = err == -ENOMEM;
		return dp->ack_pending;
	}
	dp->ack_pending = mroce_resp_send_aeth(dp, MROCE_OP_RC_ACKNOWLEDGE,
			mroce_aeth_ack_syndrome(MROCE_AETH_CREDITS_INVALID),
			mroce_respwin_ack_psn(&dp->rwin), dp->rwin.msn, 0) != 0;
	return dp->ack_pending;
}

static void mroce_resp_nak(struct mroce_dpqp *dp, u8 code, u32 psn)
{
	mroce_resp_flush_acks(dp);
	mroce_count(dp->mdev, MROCE_CNT_TX_NAKS);
	mroce_resp_send_aeth(dp, MROCE_OP_RC_ACKNOWLEDGE,
			     mroce_aeth_nak_syndrome(code), psn, dp->rwin.msn,
			     0);
}

/*
 * IBTA 9.7.5.2.8: no receive WQE.  The requester resends @psn after the
 * delay; later packets already on the way are dropped without another NAK
 * (the window's nak_sent stays set until @psn arrives again).
 */
static void mroce_resp_rnr(struct mroce_dpqp *dp, u32 psn)
{
	mroce_resp_flush_acks(dp);
	mroce_count(dp->mdev, MROCE_CNT_TX_RNR_NAKS);
	dp->rwin.nak_sent = true;
	mroce_resp_send_aeth(dp, MROCE_OP_RC_ACKNOWLEDGE,
		mroce_aeth_rnr_syndrome(dp->qp->attr.min_rnr_timer),
		psn, dp->rwin.msn, 0);
}

/*
 * The connection's first request is refused (mroce_nego.c): NAK Invalid
 * Request, so the requester fails at once instead of retrying, then ERR.
 */
void mroce_resp_refuse(struct mroce_dpqp *dp, u32 psn)
{
	mroce_resp_nak(dp, MROCE_NAK_INVALID_REQUEST, psn);
	mroce_task_fatal(dp);
}

/* A responder error (IBTA 9.9.3.1.2): NAK, fail the receive WQE, to ERR. */
static void mroce_resp_fatal(struct mroce_dpqp *dp, struct mroce_rxpkt *pkt,
			     u8 nak, u8 status)
{
	mroce_resp_nak(dp, nak, pkt->hdr.bth.psn);
	if (dp->msg.have_rwqe)
		mroce_resp_recv_done(dp, status, IB_WC_RECV, 0, 0, 0, dp->dqpn,
				     false);
	mroce_task_fatal(dp);
}

/*
 * Answer a READ from memory: one response packet per PSN (IBTA 9.7.4.1.4),
 * FIRST..LAST or ONLY from @psn on.  The responses go out from the task
 * (mroce_resp_read_continue()); requests that arrive meanwhile wait in the
 * QP's receive queue until the last response is out (mroce_task_run()).
 */
static void mroce_resp_read_reply(struct mroce_dpqp *dp, u32 rkey, u64 va,
				  u32 len, u32 psn, u32 msn, bool again)
{
	struct mroce_resp_read *rd = &dp->rd;

	rd->active = true;
	rd->again = again;
	rd->rkey = rkey;
	rd->va = va;
	rd->len = len;
	rd->psn = psn;
	rd->msn = msn;
	rd->next = 0;
	rd->npkt = mroce_read_npsn(len, dp->pmtu);
}

static u8 mroce_resp_read_opcode(u32 i, u32 n)
{
	static const u8 ops[] = {
		[MROCE_POS_FIRST] = MROCE_OP_RC_RDMA_READ_RESPONSE_FIRST,
		[MROCE_POS_MIDDLE] = MROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE,
		[MROCE_POS_LAST] = MROCE_OP_RC_RDMA_READ_RESPONSE_LAST,
		[MROCE_POS_ONLY] = MROCE_OP_RC_RDMA_READ_RESPONSE_ONLY,
	};

	return ops[mroce_pos(i, n)];
}

/*
 * The skb of READ response @opcode carrying bytes [@off, @off + @plen) of
 * the READ being answered: attached by reference when the region and the
 * netdev allow it (the responder completes nothing, so the application
 * owns the timing of its READ-exposed memory as on any RDMA device),
 * copied otherwise.  NULL and *@err: -ENOMEM, or -EACCES/-EFAULT when the
 * region no longer grants the READ.
 */
static struct sk_buff *mroce_resp_read_skb(struct mroce_dpqp *dp, u8 opcode,
					   u32 off, u32 plen, int *err)
{
	struct mroce_resp_read *rd = &dp->rd;
	struct sk_buff *skb;
	u8 *payload;

	if (mroce_tx_zcopy_ok(dp->mdev, plen)) {
		skb = mroce_tx_alloc(dp->mdev, &dp->av, opcode, plen, NULL,
				     GFP_ATOMIC);
		if (!skb) {
			*err = -ENOMEM;
			return NULL;
		}
		*err = mroce_rkey_frags(dp, rd->rkey, rd->va + off, skb, plen,
					IB_ACCESS_REMOTE_READ);
		skb = mroce_tx_zcopy_done(dp->mdev, skb, plen, err);
		/* A region that cannot go by reference is copied. */
		if (skb || *err != -EOPNOTSUPP)
			return skb;
	}
	skb = mroce_tx_alloc(dp->mdev, &dp->av, opcode, plen, &payload,
			     GFP_ATOMIC);
	if (!skb) {
		*err = -ENOMEM;
		return NULL;
	}
	*err = mroce_rkey_copy(dp, rd->rkey, rd->va + off, payload, plen,
			       IB_ACCESS_REMOTE_READ, false);
	if (*err) {
		kfree_skb(skb);
		return NULL;
	}
	return skb;
}

/*
 * Send the next response of the READ being answered.  Returns 0, -ENOMEM
 * (try again in a later run) or -EFAULT (the region went away under the
 * READ: NAKed, the QP goes to ERR).
 */
static int mroce_resp_read_one(struct mroce_dpqp *dp)
{
	struct mroce_resp_read *rd = &dp->rd;
	u32 off = rd->next * dp->pmtu, plen = min(dp->pmtu, rd->len - off);
	u32 psn = mroce_psn_add(rd->psn, rd->next);
	struct mroce_hdr h = {};
	struct sk_buff *skb;
	int err;

	h.bth.opcode = mroce_resp_read_opcode(rd->next, rd->npkt);
	skb = mroce_resp_read_skb(dp, h.bth.opcode, off, plen, &err);
	if (!skb && err == -ENOMEM)
		return -ENOMEM;
	if (!skb) {
		rd->active = false;
		mroce_resp_nak(dp, MROCE_NAK_REMOTE_ACCESS_ERROR, psn);
		mroce_task_fatal(dp);
		return -EFAULT;
	}
	h.bth.pkey = IB_DEFAULT_PKEY_FULL;
	h.bth.dqpn = dp->dqpn;
	h.bth.psn = psn;
	h.bth.pad = mroce_padcnt(plen);
	h.aeth.syndrome = mroce_aeth_ack_syndrome(MROCE_AETH_CREDITS_INVALID);
	h.aeth.msn = rd->msn;
	mroce_dp_xmit(dp, &h, skb);
	mroce_rp_sent(dp, plen + MROCE_BTH_LEN + MROCE_AETH_LEN,
		      mroce_dp_now(dp));
	if (rd->again)
		mroce_count(dp->mdev, MROCE_CNT_TX_READ_RESENDS);
	if (++rd->next == rd->npkt)
		rd->active = false;
	return 0;
}

/**
 * mroce_resp_read_continue() - send responses of the READ being answered
 * @dp: the QP's data path
 * @budget: packets this run may still send; decremented
 *
 * Stops when the READ is answered, the budget is spent or no skb can be
 * had (the task runs again: dp->rd stays active).  Caller holds run_lock.
 */
void mroce_resp_read_continue(struct mroce_dpqp *dp, int *budget)
{
	lockdep_assert_held(&dp->run_lock);
	while (dp->rd.active && *budget > 0 && !dp->error) {
		/* A QP throttled by DCQCN paces its responses too. */
		if (mroce_rp_wait(dp, mroce_dp_now(dp)) ||
		    mroce_resp_read_one(dp))
			break;
		(*budget)--;
	}
	if (dp->error)
		dp->rd.active = false;
}

/*
 * A message that consumes a receive WQE starts: take one, or answer RNR
 * NAK (none posted) or fail (broken ring).  Returns true when one is held.
 */
static bool mroce_resp_need_rwqe(struct mroce_dpqp *dp,
				 struct mroce_rxpkt *pkt)
{
	int err = mroce_resp_take_rwqe(dp);

	if (!err)
		mroce_rqahead_sync(dp, pkt);
	if (err == -EAGAIN)
		mroce_resp_rnr(dp, pkt->hdr.bth.psn);
	else if (err)
		mroce_resp_fatal(dp, pkt, MROCE_NAK_REMOTE_OP_ERROR,
				 IB_WC_LOC_QP_OP_ERR);
	return !err;
}

static void mroce_resp_read(struct mroce_dpqp *dp, struct mroce_rxpkt *pkt)
{
	const struct mroce_reth *reth = &pkt->hdr.reth;

	if (!(dp->qp->attr.qp_access_flags & IB_ACCESS_REMOTE_READ) ||
	    mroce_rkey_check(dp, reth->rkey, reth->va, reth->len,
			     IB_ACCESS_REMOTE_READ)) {
		mroce_resp_fatal(dp, pkt, MROCE_NAK_REMOTE_ACCESS_ERROR,
				 IB_WC_REM_ACCESS_ERR);
		return;
	}
	if (reth->len > MROCE_MAX_MSG_SIZE) {
		mroce_resp_fatal(dp, pkt, MROCE_NAK_INVALID_REQUEST,
				 IB_WC_REM_INV_REQ_ERR);
		return;
	}
	/*
	 * A pending ACK goes out first: once the READ is accepted it would
	 * carry the READ's PSN, which only its responses may acknowledge
	 * (IBTA 9.7.5.1.x).
	 */
	mroce_resp_flush_acks(dp);
	mroce_respwin_accept(&dp->rwin, &pkt->hdr, dp->pmtu);
	mroce_resp_read_reply(dp, reth->rkey, reth->va, reth->len,
			      pkt->hdr.bth.psn, dp->rwin.msn, false);
}

static void mroce_resp_atomic(struct mroce_dpqp *dp, struct mroce_rxpkt *pkt)
{
	const struct mroce_atmeth *a = &pkt->hdr.atmeth;
	bool cmp = pkt->hdr.bth.opcode == MROCE_OP_RC_COMPARE_SWAP;
	struct mroce_respwin_res *res;
	u64 orig = 0;
	int err;

	if (!(dp->qp->attr.qp_access_flags & IB_ACCESS_REMOTE_ATOMIC)) {
		err = -EACCES;
	} else if (a->va & 7) {
		/* IBTA 9.4.5: atomics need naturally aligned addresses. */
		err = -EINVAL;
	} else {
		err = mroce_rkey_atomic(dp, a->rkey, a->va, cmp,
					cmp ? a->compare : a->swap_add,
					a->swap_add, &orig);
	}
	if (err) {
		mroce_resp_fatal(dp, pkt, err == -EACCES ?
				 MROCE_NAK_REMOTE_ACCESS_ERROR :
				 MROCE_NAK_INVALID_REQUEST,
				 IB_WC_REM_ACCESS_ERR);
		return;
	}
	/* As for READ: the ACK must not carry the atomic's PSN. */
	mroce_resp_flush_acks(dp);
	res = mroce_respwin_accept(&dp->rwin, &pkt->hdr, dp->pmtu);
	if (res)
		res->orig = orig;
	mroce_resp_send_aeth(dp, MROCE_OP_RC_ATOMIC_ACKNOWLEDGE,
		mroce_aeth_ack_syndrome(MROCE_AETH_CREDITS_INVALID),
		pkt->hdr.bth.psn, dp->rwin.msn, orig);
}

/*
 * An RDMA WRITE packet of an RC or UC message: a FIRST or ONLY packet
 * checks its RETH (the QP and the R_Key grant writing the whole range) and
 * starts the message; every packet must fit in what the RETH announced and
 * the last must fill it (IBTA 9.7.4.1.5, C9-90).  0, -EACCES (no access)
 * or -EINVAL (wrong length).
 */
static int mroce_resp_write_check(struct mroce_dpqp *dp,
				  const struct mroce_rxpkt *pkt)
{
	const struct mroce_hdr *h = &pkt->hdr;
	u32 flags = pkt->lo.op->flags, plen = pkt->lo.pay_len;
	struct mroce_resp_msg *m = &dp->msg;

	if (flags & (MROCE_OPF_FIRST | MROCE_OPF_ONLY)) {
		if (!(dp->qp->attr.qp_access_flags & IB_ACCESS_REMOTE_WRITE) ||
		    mroce_rkey_check(dp, h->reth.rkey, h->reth.va, h->reth.len,
				     IB_ACCESS_REMOTE_WRITE))
			return -EACCES;
		m->wr_va = h->reth.va;
		m->wr_rkey = h->reth.rkey;
		m->wr_left = h->reth.len;
		m->wr_len = h->reth.len;
	}
	if (plen > m->wr_left ||
	    ((flags & (MROCE_OPF_LAST | MROCE_OPF_ONLY)) && plen != m->wr_left))
		return -EINVAL;
	return 0;
}

/* Place a checked WRITE packet's payload where the message is; 0 or -EACCES. */
static int mroce_resp_write_place(struct mroce_dpqp *dp,
				  struct mroce_rxpkt *pkt)
{
	struct mroce_resp_msg *m = &dp->msg;
	u32 plen = pkt->lo.pay_len;

	/* placed when it arrived (mroce_hold_place()) */
	if (!pkt->placed &&
	    mroce_rkey_place(dp, m->wr_rkey, m->wr_va, pkt, plen,
			     IB_ACCESS_REMOTE_WRITE))
		return -EACCES;
	m->wr_va += plen;
	m->wr_left -= plen;
	return 0;
}

/*
 * Place a SEND packet's payload in the receive WQE the message fills (RC
 * and UC).  0, or mroce_sge_place()'s error: -EMSGSIZE when the buffers are
 * too small, another errno for a bad local key.
 */
static int mroce_resp_send_place(struct mroce_dpqp *dp,
				 struct mroce_rxpkt *pkt)
{
	int err = 0;

	/* placed when it arrived (mroce_hold_place()) */
	if (!pkt->placed)
		err = mroce_sge_place(dp, mroce_rwqe_sges(dp),
				      dp->rwqe->num_sge, dp->msg.rcv_off, pkt,
				      pkt->lo.pay_len);
	if (!err)
		dp->msg.rcv_off += pkt->lo.pay_len;
	return err;
}

/**
 * mroce_resp_place_ahead() - place a request that came ahead of its turn
 * @dp: the QP's data path (RC, MetaRoCE mode)
 * @pkt: a checked MetaRoCE SEND or WRITE kind, @d PSNs ahead of the one
 *	expected, about to be held (mroce_hold_rx())
 * @d: that distance, at least 1
 *
 * A later packet of the message in progress is placed when it arrives:
 * the message's first packet already checked the R_Key range (WRITE) or
 * took the receive WQE (SEND), and IBTA leaves the order of placement
 * inside a message open (only its completion is ordered).  It belongs to
 * that message when its MSGH says so: same length, and the offset that
 * @d packets of one path MTU past the bytes placed so far give.  A SEND
 * packet of a later message is placed in the receive WQE its message
 * will take (mroce_rqahead_place()).  WRITE packets of later messages are
 * not placed ahead: an earlier message could still write the same bytes,
 * read them, invalidate the R_Key, or fail.  Each placed packet is
 * counted in ooo_placed; when it runs in PSN order only the cursors move.
 *
 * Return: true when the payload was placed.
 */
bool mroce_resp_place_ahead(struct mroce_dpqp *dp, struct mroce_rxpkt *pkt,
			    u32 d)
{
	u32 flags = pkt->lo.op->flags, plen = pkt->lo.pay_len;
	const struct mroce_resp_msg *m = &dp->msg;
	bool cont = !(flags & (MROCE_OPF_FIRST | MROCE_OPF_ONLY));
	u64 ahead = (u64)d * dp->pmtu;
	u32 done;

	lockdep_assert_held(&dp->run_lock);
	if (!pkt->x || !plen || dp->error || dp->rd.active)
		return false;
	if (cont && dp->rwin.seq == MROCE_RESP_SEQ_WRITE &&
	    (flags & MROCE_OPF_WRITE)) {
		done = m->wr_len - m->wr_left;
		if (pkt->mlen != m->wr_len || pkt->moff != done + ahead ||
		    ahead + plen > m->wr_left ||
		    mroce_rkey_place(dp, m->wr_rkey, m->wr_va + ahead, pkt,
				     plen, IB_ACCESS_REMOTE_WRITE))
			return false;
	} else if (cont && dp->rwin.seq == MROCE_RESP_SEQ_SEND &&
		   (flags & MROCE_OPF_SEND) && m->have_rwqe &&
		   (!m->rq_sync ||
		    pkt->mmsn == ((m->rq_msn - 1) & MROCE_PSN_MASK))) {
		if (pkt->moff != m->rcv_off + ahead ||
		    pkt->moff + plen > pkt->mlen ||
		    mroce_sge_place(dp, mroce_rwqe_sges(dp), dp->rwqe->num_sge,
				    pkt->moff, pkt, plen))
			return false;
	} else if (!(flags & MROCE_OPF_SEND) ||
		   !mroce_rqahead_place(dp, pkt)) {
		return false;
	}
	pkt->placed = true;
	mroce_count(dp->mdev, MROCE_CNT_OOO_PLACED);
	return true;
}

static void mroce_resp_write(struct mroce_dpqp *dp, struct mroce_rxpkt *pkt)
{
	const struct mroce_hdr *h = &pkt->hdr;
	u32 flags = pkt->lo.op->flags;
	struct mroce_resp_msg *m = &dp->msg;
	int err;

	err = mroce_resp_write_check(dp, pkt);
	if (err) {
		if (err == -EACCES)
			mroce_resp_fatal(dp, pkt,
					 MROCE_NAK_REMOTE_ACCESS_ERROR,
					 IB_WC_REM_ACCESS_ERR);
		else
			mroce_resp_fatal(dp, pkt, MROCE_NAK_INVALID_REQUEST,
					 IB_WC_REM_INV_REQ_ERR);
		return;
	}
	if ((flags & MROCE_OPF_IMM) && !m->have_rwqe &&
	    !mroce_resp_need_rwqe(dp, pkt))
		return;
	if (mroce_resp_write_place(dp, pkt)) {
		mroce_resp_fatal(dp, pkt, MROCE_NAK_REMOTE_ACCESS_ERROR,
				 IB_WC_REM_ACCESS_ERR);
		return;
	}
	mroce_respwin_accept(&dp->rwin, h, dp->pmtu);
	if (flags & MROCE_OPF_IMM)
		mroce_resp_recv_done(dp, IB_WC_SUCCESS, IB_WC_RECV_RDMA_WITH_IMM,
				     m->wr_len, IB_WC_WITH_IMM,
				     (__force u32)cpu_to_be32(h->imm),
				     dp->dqpn, h->bth.se);
}

static void mroce_resp_sendop(struct mroce_dpqp *dp, struct mroce_rxpkt *pkt)
{
	const struct mroce_hdr *h = &pkt->hdr;
	u32 flags = pkt->lo.op->flags;
	struct mroce_resp_msg *m = &dp->msg;
	u32 wc_flags = 0, ex = 0;
	int err;

	if ((flags & (MROCE_OPF_FIRST | MROCE_OPF_ONLY)) &&
	    !mroce_resp_need_rwqe(dp, pkt))
		return;
	if (!m->have_rwqe) {
		mroce_resp_fatal(dp, pkt, MROCE_NAK_INVALID_REQUEST,
				 IB_WC_REM_INV_REQ_ERR);
		return;
	}
	err = mroce_resp_send_place(dp, pkt);
	if (err) {
		/* IBTA 9.7.5.2.2 / 9.7.5.2.4: too long, or a bad local key. */
		if (err == -EMSGSIZE)
			mroce_resp_fatal(dp, pkt, MROCE_NAK_INVALID_REQUEST,
					 IB_WC_LOC_LEN_ERR);
		else
			mroce_resp_fatal(dp, pkt, MROCE_NAK_REMOTE_OP_ERROR,
					 IB_WC_LOC_PROT_ERR);
		return;
	}
	/* The R_Key of a Send with Invalidate is invalid at its completion. */
	if ((flags & MROCE_OPF_INV) &&
	    mroce_key_invalidate(dp, h->ieth_rkey, true)) {
		mroce_resp_fatal(dp, pkt, MROCE_NAK_INVALID_REQUEST,
				 IB_WC_REM_INV_REQ_ERR);
		return;
	}
	mroce_respwin_accept(&dp->rwin, h, dp->pmtu);
	if (!(flags & (MROCE_OPF_LAST | MROCE_OPF_ONLY)))
		return;
	if (flags & MROCE_OPF_IMM) {
		wc_flags = IB_WC_WITH_IMM;
		ex = (__force u32)cpu_to_be32(h->imm);
	} else if (flags & MROCE_OPF_INV) {
		wc_flags = IB_WC_WITH_INVALIDATE;
		ex = h->ieth_rkey;
	}
	mroce_resp_recv_done(dp, IB_WC_SUCCESS, IB_WC_RECV, m->rcv_off,
			     wc_flags, ex, dp->dqpn, h->bth.se);
}

void mroce_resp_execute(struct mroce_dpqp *dp, struct mroce_rxpkt *pkt)
{
	u32 flags = pkt->lo.op->flags, plen = pkt->lo.pay_len;
	u32 epsn = dp->rwin.epsn;

	if (flags & MROCE_OPF_READ) {
		mroce_resp_read(dp, pkt);
		return;
	}
	if (flags & MROCE_OPF_ATOMIC) {
		mroce_resp_atomic(dp, pkt);
		return;
	}
	/*
	 * IBTA 9.7.4.1.x (C9-73, C9-80): FIRST and MIDDLE packets carry
	 * exactly one path MTU, LAST and ONLY at most one.
	 */
	if ((flags & (MROCE_OPF_FIRST | MROCE_OPF_MIDDLE)) ?
	    plen != dp->pmtu : plen > dp->pmtu) {
		mroce_resp_fatal(dp, pkt, MROCE_NAK_INVALID_REQUEST,
				 IB_WC_REM_INV_REQ_ERR);
		return;
	}
	if (flags & MROCE_OPF_WRITE)
		mroce_resp_write(dp, pkt);
	else
		mroce_resp_sendop(dp, pkt);
	/*
	 * Only an executed request is acknowledged: one answered with an RNR
	 * NAK (no receive WQE) was not, and an ACK now would repeat the
	 * previous PSN right behind the NAK (IBTA 9.7.5.1.x, 9.7.5.2.8).
	 */
	if (pkt->hdr.bth.ackreq && !dp->error && dp->rwin.epsn != epsn)
		dp->ack_pending = true;
}

/* A request seen before (IBTA 9.7.5.1.x C9-104..C9-112). */
static void mroce_resp_dup(struct mroce_dpqp *dp, struct mroce_rxpkt *pkt)
{
	const struct mroce_hdr *h = &pkt->hdr;
	u32 flags = pkt->lo.op->flags;
	const struct mroce_respwin_res *res;

	mroce_count(dp->mdev, MROCE_CNT_RX_DUPS);
	if (!(flags & (MROCE_OPF_READ | MROCE_OPF_ATOMIC))) {
		/* Re-acknowledge: the requester lost our ACK. */
		mroce_hold_dup(dp, pkt);
		return;
	}
	res = mroce_respwin_find(&dp->rwin, h->bth.psn);
	if (!res)
		return;
	mroce_resp_flush_acks(dp);
	if (flags & MROCE_OPF_READ) {
		if (!mroce_respwin_dup_read_check(res, h, dp->pmtu))
			mroce_resp_read_reply(dp, h->reth.rkey, h->reth.va,
					      h->reth.len, h->bth.psn,
					      res->msn, true);
		return;
	}
	/* An atomic is never executed twice: replay its result. */
	if (res->kind == MROCE_RES_ATOMIC && res->first_psn == h->bth.psn)
		mroce_resp_send_aeth(dp, MROCE_OP_RC_ATOMIC_ACKNOWLEDGE,
			mroce_aeth_ack_syndrome(MROCE_AETH_CREDITS_INVALID),
			h->bth.psn, res->msn, res->orig);
}

/*
 * A UD send (IBTA 9.8.3): GRH in the first 40 bytes, then the payload.  The
 * GSI QP (QP1) receives MADs this way too; its Q_Key is IB_QP1_QKEY, set by
 * ib_mad at INIT, so the one Q_Key check serves both.
 */
static void mroce_resp_ud(struct mroce_dpqp *dp, struct mroce_rxpkt *pkt)
{
	const struct mroce_hdr *h = &pkt->hdr;
	u32 plen = pkt->lo.pay_len;
	union rdma_network_hdr grh;
	struct metaroce_cqe cqe = {};
	int err;

	if ((h->bth.opcode & MROCE_OPT_MASK) != MROCE_OPT_UD ||
	    h->deth.qkey != dp->qp->attr.qkey) {
		/* IBTA 10.2.4 (C10-15): a wrong Q_Key is dropped silently. */
		mroce_count(dp->mdev, MROCE_CNT_RX_DROP_MALFORMED);
		return;
	}
	if (mroce_resp_take_rwqe(dp)) {
		mroce_count(dp->mdev, MROCE_CNT_RX_DROP_NO_RECV);
		return;
	}
	memset(&grh, 0, sizeof(grh));
	if (pkt->ipv6)
		memcpy(&grh.ibgrh, ipv6_hdr(pkt->skb), sizeof(grh.ibgrh));
	else
		memcpy(&grh.roce4grh, ip_hdr(pkt->skb), sizeof(grh.roce4grh));
	err = mroce_sge_copy(dp, mroce_rwqe_sges(dp), dp->rwqe->num_sge, 0,
			     &grh, sizeof(grh), true);
	if (!err)
		err = mroce_sge_place(dp, mroce_rwqe_sges(dp),
				      dp->rwqe->num_sge, sizeof(grh), pkt,
				      plen);
	if (err)
		cqe.status = err == -EMSGSIZE ? IB_WC_LOC_LEN_ERR :
						IB_WC_LOC_PROT_ERR;
	cqe.opcode = IB_WC_RECV;
	cqe.byte_len = sizeof(grh) + plen;
	cqe.wc_flags = IB_WC_GRH;
	if (pkt->lo.op->flags & MROCE_OPF_IMM) {
		cqe.wc_flags |= IB_WC_WITH_IMM;
		cqe.ex = (__force u32)cpu_to_be32(h->imm);
	}
	cqe.src_qp = h->deth.sqpn;
	cqe.network_hdr_type = pkt->ipv6 ? RDMA_NETWORK_IPV6 :
					   RDMA_NETWORK_IPV4;
	mroce_resp_post_rcqe(dp, &cqe, h->bth.se);
}

/*
 * UC (IBTA 9.7): the message in progress is given up, silently.  A receive
 * WQE it had started to fill stays with the QP, for the next message
 * (IBTA 9.9.3.1, class D1: an unreliable message that cannot be delivered
 * is not completed).
 */
static void mroce_resp_uc_abort(struct mroce_dpqp *dp)
{
	dp->msg.uc_op = 0;
	dp->msg.rcv_off = 0;
	dp->msg.wr_left = 0;
}

/* UC: drop this packet and the rest of its message. */
static void mroce_resp_uc_drop(struct mroce_dpqp *dp, enum mroce_counter cnt)
{
	mroce_count(dp->mdev, cnt);
	mroce_resp_uc_abort(dp);
	dp->msg.uc_drop = true;
}

/* A UC SEND packet, in sequence.  Returns false when the message is lost. */
static bool mroce_resp_uc_send(struct mroce_dpqp *dp, struct mroce_rxpkt *pkt)
{
	struct mroce_resp_msg *m = &dp->msg;
	u32 flags = pkt->lo.op->flags;

	if ((flags & (MROCE_OPF_FIRST | MROCE_OPF_ONLY)) && !m->have_rwqe &&
	    mroce_resp_take_rwqe(dp)) {
		/* No receive WQE: the message is dropped, no RNR NAK. */
		mroce_resp_uc_drop(dp, MROCE_CNT_RX_DROP_NO_RECV);
		return false;
	}
	if (mroce_resp_send_place(dp, pkt)) {
		mroce_resp_uc_drop(dp, MROCE_CNT_RX_DROP_MALFORMED);
		return false;
	}
	return true;
}

/* A UC RDMA WRITE packet, in sequence.  False when the message is lost. */
static bool mroce_resp_uc_write(struct mroce_dpqp *dp,
				struct mroce_rxpkt *pkt)
{
	struct mroce_resp_msg *m = &dp->msg;

	if (mroce_resp_write_check(dp, pkt) || mroce_resp_write_place(dp, pkt)) {
		mroce_resp_uc_drop(dp, MROCE_CNT_RX_DROP_MALFORMED);
		return false;
	}
	/* The data is placed; with immediate it also needs a receive WQE. */
	if ((pkt->lo.op->flags & MROCE_OPF_IMM) && !m->have_rwqe &&
	    mroce_resp_take_rwqe(dp)) {
		mroce_resp_uc_drop(dp, MROCE_CNT_RX_DROP_NO_RECV);
		return false;
	}
	return true;
}

/**
 * mroce_resp_uc() - a request packet for a UC QP (IBTA 9.7)
 * @dp: the QP's data path
 * @pkt: the checked packet
 *
 * Packets are accepted in PSN order only.  A PSN gap, a packet that does
 * not continue the message in progress, or any error (no receive WQE, bad
 * R_Key, wrong length) loses the current message: the rest of it is
 * dropped until a FIRST or ONLY packet starts a new one, whatever its PSN
 * (the expected PSN then resynchronises on it).  Nothing is acknowledged
 * or NAKed.
 */
static void mroce_resp_uc(struct mroce_dpqp *dp, struct mroce_rxpkt *pkt)
{
	const struct mroce_hdr *h = &pkt->hdr;
	u32 flags = pkt->lo.op->flags, plen = pkt->lo.pay_len;
	struct mroce_resp_msg *m = &dp->msg;
	bool start = flags & (MROCE_OPF_FIRST | MROCE_OPF_ONLY);
	u32 op = flags & (MROCE_OPF_SEND | MROCE_OPF_WRITE);
	u32 wc_flags = 0, ex = 0;
	bool ok;

	if ((h->bth.opcode & MROCE_OPT_MASK) != MROCE_OPT_UC || !op) {
		mroce_count(dp->mdev, MROCE_CNT_RX_DROP_MALFORMED);
		return;
	}
	if (!start && (m->uc_drop || h->bth.psn != dp->rwin.epsn ||
		       m->uc_op != op)) {
		mroce_resp_uc_drop(dp, MROCE_CNT_RX_DROP_SEQ);
		return;
	}
	if (start) {
		/* An unfinished message before this one is lost. */
		if (m->uc_op || h->bth.psn != dp->rwin.epsn)
			mroce_count(dp->mdev, MROCE_CNT_RX_DROP_SEQ);
		mroce_resp_uc_abort(dp);
		m->uc_drop = false;
		m->uc_op = op;
	}
	dp->rwin.epsn = mroce_psn_add(h->bth.psn, 1);

	/* As for RC (C9-73, C9-80): FIRST and MIDDLE carry a whole MTU. */
	if ((flags & (MROCE_OPF_FIRST | MROCE_OPF_MIDDLE)) ?
	    plen != dp->pmtu : plen > dp->pmtu) {
		mroce_resp_uc_drop(dp, MROCE_CNT_RX_DROP_MALFORMED);
		return;
	}
	ok = op == MROCE_OPF_WRITE ? mroce_resp_uc_write(dp, pkt) :
				     mroce_resp_uc_send(dp, pkt);
	if (!ok || !(flags & (MROCE_OPF_LAST | MROCE_OPF_ONLY)))
		return;

	m->uc_op = 0;
	if (flags & MROCE_OPF_IMM) {
		wc_flags = IB_WC_WITH_IMM;
		ex = (__force u32)cpu_to_be32(h->imm);
	}
	if (op == MROCE_OPF_WRITE) {
		if (flags & MROCE_OPF_IMM)
			mroce_resp_recv_done(dp, IB_WC_SUCCESS,
					     IB_WC_RECV_RDMA_WITH_IMM,
					     m->wr_len, wc_flags, ex,
					     dp->dqpn, h->bth.se);
		return;
	}
	mroce_resp_recv_done(dp, IB_WC_SUCCESS, IB_WC_RECV, m->rcv_off,
			     wc_flags, ex, dp->dqpn, h->bth.se);
	m->rcv_off = 0;
}

/**
 * mroce_resp_rx() - a request packet arrived for this QP
 * @dp: the QP's data path (RTR or later)
 * @pkt: the checked packet (opcode with MROCE_OPF_REQ)
 */
void mroce_resp_rx(struct mroce_dpqp *dp, struct mroce_rxpkt *pkt)
{
	lockdep_assert_held(&dp->run_lock);
	if (dp->qp->ibqp.qp_type == IB_QPT_UC) {
		mroce_resp_uc(dp, pkt);
		return;
	}
	if (!mroce_qp_is_rc(dp->qp)) {
		mroce_resp_ud(dp, pkt);
		return;
	}
	if (mroce_hold_rx(dp, pkt))
		return;
	switch (mroce_respwin_check(&dp->rwin, &pkt->hdr.bth)) {
	case MROCE_RESP_NEW:
		mroce_resp_execute(dp, pkt);
		mroce_hold_drain(dp);
		break;
	case MROCE_RESP_DUP:
		mroce_resp_dup(dp, pkt);
		break;
	case MROCE_RESP_NAK_SEQ:
		/* IBTA 9.7.5.2.1: ask for what is missing, once. */
		mroce_resp_nak(dp, MROCE_NAK_PSN_SEQ_ERROR, dp->rwin.epsn);
		break;
	case MROCE_RESP_NAK_INVALID:
		mroce_resp_fatal(dp, pkt, MROCE_NAK_INVALID_REQUEST,
				 IB_WC_REM_INV_REQ_ERR);
		break;
	default:
		mroce_count(dp->mdev, MROCE_CNT_RX_DROP_SEQ);
		break;
	}
}
