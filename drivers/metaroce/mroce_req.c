// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Requester: takes send WQEs out of the SQ ring, splits messages into
 * path-MTU packets (IBTA 9.7.2), numbers them with the core's window
 * (mroce_reqwin) and transmits them.  An RC packet is built from its WQE
 * and its PSN alone ("packet k of WQE w", mroce_req_build()), so the first
 * transmission and a resend are the same code: the window's scoreboard
 * names the lost PSNs and their WQEs, and they go out again before
 * anything new.  UC messages (IBTA 9.7) are
 * split the same way but numbered by a plain counter: nothing is
 * acknowledged or resent, and a WQE completes once its last packet is sent.
 * UD sends (IBTA 9.8) go out as single packets and complete at once.
 *
 * WQEs are copied out of the ring into dp->swqe before they are used, so
 * a provider that rewrites a posted entry cannot change a request that is in
 * flight.  The ring's consumer index only moves when the completer retires
 * a WQE, so the slot of every outstanding WQE stays reserved.
 *
 * Indices (free-running, like the ring's):
 *	comp_idx ........ req_idx ........ req_max ........ producer
 *	oldest outstanding  being sent       next new WQE      posted
 * req_idx and req_off only move forward, over packets sent for the first
 * time; WQEs keep the PSNs they were given then.
 *
 * All functions run in the QP's task: caller holds dp->run_lock.
 */
#include "mroce_dp.h"
#include "core/mroce_psn.h"

int mroce_req_init(struct mroce_dpqp *dp)
{
	struct mroce_kring *sq = &dp->qp->sq;

	dp->sq_stride = ALIGN(offsetof(struct mroce_swqe, wqe) +
			      sq->entry_size, 8);
	dp->swqe = kvcalloc(sq->num, dp->sq_stride, GFP_KERNEL);
	return dp->swqe ? 0 : -ENOMEM;
}

void mroce_req_fini(struct mroce_dpqp *dp)
{
	kvfree(dp->swqe);
	dp->swqe = NULL;
}

void mroce_req_reset(struct mroce_dpqp *dp)
{
	lockdep_assert_held(&dp->run_lock);
	dp->req_idx = 0;
	dp->req_off = 0;
	dp->req_max = 0;
	dp->comp_idx = 0;
	dp->rd_atomic = 0;
	dp->pkts_noack = 0;
	dp->req_msn = 0;
	dp->peer_ts = 0;
	memset(&dp->rd_map, 0, sizeof(dp->rd_map));
	dp->rd_gap = false;
	dp->req_failed = false;
	memset(&dp->win, 0, sizeof(dp->win));
	mroce_rp_reset(dp);
	mroce_spray_reset(dp);
}

/* RTR to RTS: the requester starts at sq_psn (IBTA 10.3.1, table 91). */
void mroce_req_start(struct mroce_dpqp *dp)
{
	const struct ib_qp_attr *a = &dp->qp->attr;
	struct mroce_reqwin_cfg cfg = {
		.psn = a->sq_psn,
		.wnd = MROCE_REQ_WINDOW,
		.retry_cnt = a->retry_cnt,
		.rnr_retry = a->rnr_retry,
		.timeout = a->timeout,
	};

	lockdep_assert_held(&dp->run_lock);
	mroce_reqwin_init(&dp->win, &cfg);
	dp->next_psn_ud = a->sq_psn;
	dp->req_idx = dp->qp->sq.head;
	dp->req_max = dp->req_idx;
	dp->comp_idx = dp->req_idx;
	dp->req_off = 0;
	dp->rd_atomic = 0;
	dp->pkts_noack = 0;
	dp->req_failed = false;
}

/*
 * Check a WQE copied from the ring and derive what the requester needs.
 * Returns IB_WC_SUCCESS or the status it completes with.
 */
static u8 mroce_req_validate(struct mroce_dpqp *dp, struct mroce_swqe *s)
{
	const struct metaroce_send_wqe *w = &s->wqe;
	struct mroce_qp *qp = dp->qp;
	u32 room = qp->sq.entry_size - sizeof(*w);
	bool rc = mroce_qp_is_rc(qp), conn = mroce_qp_connected(qp);
	u64 len;

	s->rd_atomic = false;
	s->npsn = 1;
	s->length = 0;
	switch (w->opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
		s->wc_opcode = IB_WC_SEND;
		break;
	case IB_WR_SEND_WITH_INV:
		s->wc_opcode = IB_WC_SEND;
		if (!rc)
			return IB_WC_LOC_QP_OP_ERR;
		break;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		s->wc_opcode = IB_WC_RDMA_WRITE;
		if (!conn)
			return IB_WC_LOC_QP_OP_ERR;
		break;
	case IB_WR_RDMA_READ:
		s->wc_opcode = IB_WC_RDMA_READ;
		s->rd_atomic = true;
		if (!rc)
			return IB_WC_LOC_QP_OP_ERR;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		s->wc_opcode = w->opcode == IB_WR_ATOMIC_CMP_AND_SWP ?
			       IB_WC_COMP_SWAP : IB_WC_FETCH_ADD;
		s->rd_atomic = true;
		if (!rc)
			return IB_WC_LOC_QP_OP_ERR;
		break;
	case IB_WR_REG_MR:
		/* Kernel consumers only: the WQE names a region by key. */
		s->wc_opcode = IB_WC_REG_MR;
		s->npsn = 0;
		return conn && !qp->is_user ? IB_WC_SUCCESS :
		       IB_WC_LOC_QP_OP_ERR;
	case IB_WR_BIND_MW:
	case IB_WR_LOCAL_INV:
		/* Local operations (mroce_req_local()): no packet. */
		s->wc_opcode = w->opcode == IB_WR_BIND_MW ? IB_WC_BIND_MW :
			       IB_WC_LOCAL_INV;
		s->npsn = 0;
		return conn ? IB_WC_SUCCESS : IB_WC_LOC_QP_OP_ERR;
	default:
		s->wc_opcode = IB_WC_SEND;
		return IB_WC_LOC_QP_OP_ERR;
	}

	if (w->send_flags & IB_SEND_INLINE) {
		if (s->rd_atomic || w->inline_len > room ||
		    w->inline_len > qp->cap.max_inline_data)
			return IB_WC_LOC_QP_OP_ERR;
		len = w->inline_len;
	} else {
		if (w->num_sge > qp->cap.max_send_sge ||
		    w->num_sge > room / sizeof(struct metaroce_sge))
			return IB_WC_LOC_QP_OP_ERR;
		len = mroce_sge_total(mroce_swqe_sges(s), w->num_sge);
	}
	if (len > MROCE_MAX_MSG_SIZE)
		return IB_WC_LOC_LEN_ERR;
	s->length = len;

	if (!conn) {
		/* IBTA 9.8.2: a UD message is one packet. */
		return len > dp->pmtu ? IB_WC_LOC_LEN_ERR : IB_WC_SUCCESS;
	}
	if (w->opcode == IB_WR_RDMA_READ) {
		s->npsn = mroce_read_npsn(len, dp->pmtu);
	} else if (s->rd_atomic) {
		/* The original value lands in the first 8 bytes (IBTA 9.4.5). */
		if (len < sizeof(u64))
			return IB_WC_LOC_LEN_ERR;
		s->length = sizeof(u64);
	} else {
		s->npsn = max_t(u32, 1, DIV_ROUND_UP(len, dp->pmtu));
	}
	return IB_WC_SUCCESS;
}

/*
 * Copy the WQE at req_max out of the SQ ring.  Returns 1 when there was
 * one, 0 when the ring is empty, -EINVAL when the producer index is broken.
 */
static int mroce_req_fetch(struct mroce_dpqp *dp, struct mroce_swqe *s)
{
	struct mroce_kring *sq = &dp->qp->sq;
	u32 prod = smp_load_acquire(&sq->hdr->producer);

	if (prod == dp->req_max)
		return 0;
	/*
	 * More than a ring ahead of the oldest outstanding WQE, or behind a
	 * WQE already taken: a producer moved backwards would have the
	 * provider rewrite slots the kernel still owns.
	 */
	if (prod - dp->comp_idx > sq->num ||
	    prod - dp->comp_idx < dp->req_max - dp->comp_idx)
		return -EINVAL;
	/* The WQE and its SGEs or inline data: a whole ring entry. */
	memcpy(mroce_swqe_entry(s), mroce_kring_slot(sq, dp->req_max),
	       sq->entry_size);
	s->started = false;
	s->done = false;
	s->rd_done = 0;
	s->rd_base = 0;
	s->status = mroce_req_validate(dp, s);
	return 1;
}

/*
 * A WQE that never went out failed: it completes in error once every
 * earlier WQE has completed (IBTA 10.8.3.3: completions in order).
 */
static void mroce_req_fail_new(struct mroce_dpqp *dp, struct mroce_swqe *s,
			       u8 status)
{
	dp->req_failed = true;
	s->status = status;
	s->started = true;
	s->npsn = 0;
	s->rd_atomic = false;
	if (dp->req_idx == dp->req_max)
		dp->req_max++;
	dp->req_idx = dp->req_max;
	dp->req_off = 0;
	mroce_comp_complete(dp);
}

static bool mroce_req_is_local(const struct mroce_swqe *s)
{
	return s->wqe.opcode == IB_WR_BIND_MW ||
	       s->wqe.opcode == IB_WR_LOCAL_INV ||
	       s->wqe.opcode == IB_WR_REG_MR;
}

/*
 * Bind Memory Window, Fast Register and Local Invalidate act on this device
 * only (IBTA 10.6.7, 10.8.2): they execute when they reach the requester, after the WQEs
 * before them were sent, and complete in order after those (a failure
 * completes in error and moves the QP to ERR, as any failed WQE).
 */
static void mroce_req_local(struct mroce_dpqp *dp, struct mroce_swqe *s)
{
	if (s->wqe.opcode == IB_WR_BIND_MW)
		s->status = mroce_mw_bind(dp, &s->wqe);
	else if (s->wqe.opcode == IB_WR_REG_MR)
		s->status = mroce_mr_fast_reg(dp, &s->wqe);
	else if (mroce_key_invalidate(dp, s->wqe.ex, false))
		s->status = IB_WC_LOC_QP_OP_ERR;
	s->started = true;
	s->done = true;
	dp->req_max++;
	dp->req_idx = dp->req_max;
	dp->req_off = 0;
	mroce_comp_complete(dp);
}

/*
 * IBTA 9.2 Table 35: the opcode of packet @k of a SEND or WRITE @s (of
 * s->npsn packets).
 */
static u8 mroce_req_opcode(const struct mroce_swqe *s, u32 k)
{
#define MROCE_REQ_OPS(first, middle, last, only) {	\
	[MROCE_POS_FIRST] = MROCE_OP_RC_ ## first,	\
	[MROCE_POS_MIDDLE] = MROCE_OP_RC_ ## middle,	\
	[MROCE_POS_LAST] = MROCE_OP_RC_ ## last,	\
	[MROCE_POS_ONLY] = MROCE_OP_RC_ ## only }
	static const u8 ops[][4] = {
		[IB_WR_SEND] = MROCE_REQ_OPS(SEND_FIRST, SEND_MIDDLE,
					     SEND_LAST, SEND_ONLY),
		[IB_WR_SEND_WITH_IMM] =
			MROCE_REQ_OPS(SEND_FIRST, SEND_MIDDLE,
				      SEND_LAST_WITH_IMMEDIATE,
				      SEND_ONLY_WITH_IMMEDIATE),
		[IB_WR_SEND_WITH_INV] =
			MROCE_REQ_OPS(SEND_FIRST, SEND_MIDDLE,
				      SEND_LAST_WITH_INVALIDATE,
				      SEND_ONLY_WITH_INVALIDATE),
		[IB_WR_RDMA_WRITE] =
			MROCE_REQ_OPS(RDMA_WRITE_FIRST, RDMA_WRITE_MIDDLE,
				      RDMA_WRITE_LAST, RDMA_WRITE_ONLY),
		[IB_WR_RDMA_WRITE_WITH_IMM] =
			MROCE_REQ_OPS(RDMA_WRITE_FIRST, RDMA_WRITE_MIDDLE,
				      RDMA_WRITE_LAST_WITH_IMMEDIATE,
				      RDMA_WRITE_ONLY_WITH_IMMEDIATE),
	};
#undef MROCE_REQ_OPS

	return ops[s->wqe.opcode][mroce_pos(k, s->npsn)];
}

/* Put the payload of bytes [off, off + len) of @s at @p. */
static int mroce_req_gather(struct mroce_dpqp *dp, struct mroce_swqe *s,
			    u32 off, u8 *p, u32 len)
{
	if (!len)
		return 0;
	if (s->wqe.send_flags & IB_SEND_INLINE) {
		memcpy(p, mroce_swqe_inline(s) + off, len);
		return 0;
	}
	return mroce_sge_copy(dp, mroce_swqe_sges(s), s->wqe.num_sge, off, p,
			      len, false);
}

static u8 mroce_req_copy_status(int err)
{
	return err == -EACCES ? IB_WC_LOC_PROT_ERR : IB_WC_LOC_LEN_ERR;
}

/*
 * The skb of a packet of RC WQE @s with its @plen payload bytes from
 * @off attached by reference (mroce_sge_frags()), when that is
 * allowed and possible; NULL and *@err otherwise: -EOPNOTSUPP (copy
 * instead), -ENOMEM, or the protection/length error of the SGE list.
 * Only RC: its WQE completes when the ACK shows the peer has the data, so
 * the pages are no longer the packet's business by the time the
 * application may reuse them (a UC or UD WQE completes once sent, possibly
 * before the skb has left a queue).
 */
static struct sk_buff *mroce_req_skb_zcopy(struct mroce_dpqp *dp,
					   struct mroce_swqe *s, u8 opcode,
					   u32 off, u32 plen, int *err)
{
	struct sk_buff *skb;

	*err = -EOPNOTSUPP;
	if (!mroce_qp_is_rc(dp->qp) || (s->wqe.send_flags & IB_SEND_INLINE) ||
	    !mroce_tx_zcopy_ok(dp->mdev, plen))
		return NULL;
	skb = mroce_tx_alloc(dp->mdev, &dp->av, opcode, plen, NULL,
			     GFP_ATOMIC);
	if (!skb) {
		*err = -ENOMEM;
		return NULL;
	}
	*err = mroce_sge_frags(dp, mroce_swqe_sges(s), s->wqe.num_sge,
			       off, skb, plen);
	return mroce_tx_zcopy_done(dp->mdev, skb, plen, err);
}

/*
 * The skb of a packet of connected-QP WQE @s: @plen payload bytes from
 * @off.  A local protection or length error completes the WQE
 * in error (a receiver that saw the message start gets no LAST and drops
 * it).  Returns the skb, ERR_PTR(-ENOMEM) to retry in a later run, or
 * ERR_PTR(-EAGAIN) when the WQE failed.
 */
static struct sk_buff *mroce_req_skb(struct mroce_dpqp *dp,
				     struct mroce_swqe *s, bool start,
				     u8 opcode, u32 off, u32 plen)
{
	struct sk_buff *skb;
	u8 *payload;
	int err;

	skb = mroce_req_skb_zcopy(dp, s, opcode, off, plen, &err);
	if (skb)
		return skb;
	if (err == -ENOMEM)
		return ERR_PTR(-ENOMEM);
	if (err != -EOPNOTSUPP)
		goto fail;
	skb = mroce_tx_alloc(dp->mdev, &dp->av, opcode, plen, &payload,
			     GFP_ATOMIC);
	if (!skb)
		return ERR_PTR(-ENOMEM);
	err = mroce_req_gather(dp, s, off, payload, plen);
	if (!err)
		return skb;
	kfree_skb(skb);
fail:
	if (start) {
		mroce_req_fail_new(dp, s, mroce_req_copy_status(err));
	} else {
		dp->req_failed = true;
		s->status = mroce_req_copy_status(err);
		mroce_comp_complete(dp);
	}
	return ERR_PTR(-EAGAIN);
}

/*
 * The headers of packet @k of connected-QP WQE @s (for a READ, a request
 * for its responses from packet @k on, IBTA 9.7.4.1.4 o9-30): everything
 * but the BTH's PSN and AckReq (RC opcodes: UC changes the transport).
 * Sets *@off and *@plen to the payload's offset in the message and its
 * length, and returns the PSNs the packet takes.
 */
static u32 mroce_req_build(struct mroce_dpqp *dp, struct mroce_swqe *s,
			   u32 k, struct mroce_hdr *h, u32 *off, u32 *plen)
{
	const struct metaroce_send_wqe *w = &s->wqe;
	bool last;

	*off = 0;
	*plen = 0;
	switch (w->opcode) {
	case IB_WR_RDMA_READ:
		*off = k * dp->pmtu;
		h->bth.opcode = MROCE_OP_RC_RDMA_READ_REQUEST;
		h->reth.va = w->wr.rdma.remote_addr + *off;
		h->reth.rkey = w->wr.rdma.rkey;
		h->reth.len = s->length - *off;
		s->rd_base = k;
		return mroce_read_npsn(s->length - *off, dp->pmtu);
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		h->bth.opcode = w->opcode == IB_WR_ATOMIC_CMP_AND_SWP ?
				MROCE_OP_RC_COMPARE_SWAP : MROCE_OP_RC_FETCH_ADD;
		h->atmeth.va = w->wr.atomic.remote_addr;
		h->atmeth.rkey = w->wr.atomic.rkey;
		if (w->opcode == IB_WR_ATOMIC_CMP_AND_SWP) {
			h->atmeth.swap_add = w->wr.atomic.swap;
			h->atmeth.compare = w->wr.atomic.compare_add;
		} else {
			h->atmeth.swap_add = w->wr.atomic.compare_add;
		}
		return 1;
	}
	*off = k * dp->pmtu;
	*plen = min(dp->pmtu, s->length - *off);
	last = *off + *plen == s->length;
	h->bth.opcode = mroce_req_opcode(s, k);
	if (!k && (w->opcode == IB_WR_RDMA_WRITE ||
		      w->opcode == IB_WR_RDMA_WRITE_WITH_IMM)) {
		h->reth.va = w->wr.rdma.remote_addr;
		h->reth.rkey = w->wr.rdma.rkey;
		h->reth.len = s->length;
	}
	if (w->opcode == IB_WR_SEND_WITH_INV)
		h->ieth_rkey = w->ex;
	else
		h->imm = be32_to_cpu((__force __be32)w->ex);
	h->bth.se = last && (w->send_flags & IB_SEND_SOLICITED);
	return 1;
}

/* What a request packet is to the path selector (mroce_spray.c). */
enum mroce_req_tx {
	MROCE_REQ_TX_NEW,	/* first sent */
	MROCE_REQ_TX_LOST,	/* resent: its path lost it */
	/* resent, its path not to blame (a probe, a READ whose responses
	 * were lost, a unit lost with all after it by a timeout)
	 */
	MROCE_REQ_TX_AGAIN,
};

/*
 * Fill in the BTH of the packet of RC WQE @s at @psn, whose payload is
 * [@off, @off + @plen) of the message, and put it on the wire (@tx: enum
 * mroce_req_tx).
 */
static void mroce_req_xmit_rc(struct mroce_dpqp *dp, struct mroce_swqe *s,
			      struct mroce_hdr *h, u32 psn, u32 off, u32 plen,
			      struct sk_buff *skb, int tx)
{
	bool ackreq;
	u8 kind, pos;

	/*
	 * Ask for an ACK at the end of each message and regularly inside
	 * long ones, so the responder can coalesce the rest (IBTA 9.7.4.1.x);
	 * more often, every eighth of that, while the window is nearly full,
	 * so that it opens again before it stops the sender.  Asking with
	 * every packet there doubled the packets of a path whose round trip
	 * keeps the window full (netem delay 1 ms: one ACK per request).
	 * A congestion window (mroce_wcc.c) asks every half of it: a
	 * sender held to a packet or two otherwise waited for the
	 * responder's ACK delay or its own probe timeout in every message.
	 */
	++dp->pkts_noack;
	ackreq = s->rd_atomic || off + plen == s->length ||
		 dp->pkts_noack >= MROCE_REQ_ACKREQ_EVERY ||
		 (mroce_reqwin_inflight(&dp->win) + MROCE_REQ_ACKREQ_EVERY >=
		  dp->win.wnd && dp->pkts_noack >= MROCE_REQ_ACKREQ_EVERY / 8) ||
		 (dp->win.cwnd &&
		  dp->pkts_noack >= max_t(u32, dp->win.cwnd / 2, 1));
	if (ackreq)
		dp->pkts_noack = 0;
	h->bth.ackreq = ackreq;
	h->bth.psn = psn;
	h->bth.dqpn = dp->dqpn;
	h->bth.pkey = IB_DEFAULT_PKEY_FULL;
	h->bth.pad = mroce_padcnt(plen);
	mroce_nego_mark(dp, h);
	kind = mroce_xdata_kind(dp, h, &pos);
	if (kind)
		mroce_xdata_xmit(dp, s, h, kind, pos, off, skb,
				 mroce_spray_pick(dp, psn, plen,
						  tx != MROCE_REQ_TX_NEW,
						  tx != MROCE_REQ_TX_LOST));
	else
		mroce_dp_send(dp, h, skb);
}

/*
 * Send the next new packet of RC WQE @s.  0, -EBUSY when the window, lost
 * packets or an RNR wait hold it, -EAGAIN when it failed, -ENOMEM without
 * an skb.
 */
static int mroce_req_send_rc(struct mroce_dpqp *dp, struct mroce_swqe *s)
{
	bool start = dp->req_idx == dp->req_max;
	u64 now = mroce_dp_now(dp);
	struct mroce_hdr h = {};
	u32 npsn, off, plen, psn;
	struct sk_buff *skb;

	if (s->status)
		return -EAGAIN;
	npsn = mroce_req_build(dp, s, dp->req_off / dp->pmtu, &h, &off, &plen);
	if (!mroce_reqwin_can_send(&dp->win, npsn, now) ||
	    mroce_rp_wait(dp, now))
		return -EBUSY;

	skb = mroce_req_skb(dp, s, start, h.bth.opcode, off, plen);
	if (IS_ERR(skb))
		return PTR_ERR(skb);

	mroce_reqwin_sent(&dp->win, npsn, now, dp->req_idx, &psn);
	if (start) {
		s->first_psn = psn;
		s->started = true;
		/* MSGH message number: which receive WQE a SEND takes */
		s->msn = dp->req_msn & MROCE_PSN_MASK;
		if (s->wqe.opcode == IB_WR_SEND ||
		    s->wqe.opcode == IB_WR_SEND_WITH_IMM ||
		    s->wqe.opcode == IB_WR_SEND_WITH_INV ||
		    s->wqe.opcode == IB_WR_RDMA_WRITE_WITH_IMM)
			dp->req_msn++;
		dp->req_max++;
		if (s->rd_atomic)
			dp->rd_atomic++;
	}
	mroce_req_xmit_rc(dp, s, &h, psn, off, plen, skb, MROCE_REQ_TX_NEW);
	mroce_rp_sent(dp, plen + MROCE_BTH_LEN, now);

	if (s->rd_atomic || off + plen == s->length) {
		dp->req_idx++;
		dp->req_off = 0;
	} else {
		dp->req_off = off + plen;
	}
	return 0;
}

/*
 * A selective window asks READ @s again from *@psn (@h built for that):
 * only for the responses neither received in order (s->rd_done) nor kept
 * past a hole (mroce_comp_read_span()), which moves the request's PSN,
 * RETH and rd_base forward and shortens it (the responder takes a shorter
 * request, core mroce_respwin.c).  The window counts the READ as asked
 * again whole from *@psn: a hole further in it is asked for when found
 * (mroce_comp_read_walk()).  As the tail-loss probe (@probe) it asks for
 * a hole's responses without the kept one after it, and for the tail of
 * a READ partly answered with its last response only, as a TCP probe
 * resends its last segment: a responder that was merely slow costs one
 * duplicate, not up to a whole READ of them, and a response that comes
 * without the ones before it opens the hole that asks for them
 * (mroce_reqwin_on_read_resp()).
 * False when every response is in: nothing to send.
 */
static bool mroce_req_read_short(struct mroce_dpqp *dp, struct mroce_swqe *s,
				 struct mroce_hdr *h, u32 *psn, bool probe)
{
	u32 k = mroce_psn_dist(s->first_psn, *psn), n, first;
	bool kept;

	first = mroce_comp_read_span(dp, s, max(k, s->rd_done), &n, &kept);
	if (!n)
		return false;
	if (probe && kept) {
		/* a hole: its own responses, the kept one is no news */
		n--;
	} else if (probe && first) {
		/*
		 * The tail, once a response of the READ is in: before, the
		 * responder may not have the request, and a request for its
		 * last response would be a new one, ahead of the READ's PSN.
		 */
		first += n - 1;
		n = 1;
	}
	if (first == k && first + n == s->npsn)
		return true;
	*psn = mroce_psn_add(s->first_psn, first);
	h->reth.va = s->wqe.wr.rdma.remote_addr + (u64)first * dp->pmtu;
	h->reth.len = min_t(u64, (u64)(first + n) * dp->pmtu, s->length) -
		      (u64)first * dp->pmtu;
	s->rd_base = first;
	return true;
}

/*
 * The holes of READ @s after the one just asked for, from its response @k
 * on, each with responses kept past it: asked for at once, each in a
 * request of its own for its missing responses only, up to
 * MROCE_REQ_READ_HOLES of them.  The responder answers requests in turn,
 * behind the READ it is answering, so a hole asked for when the first
 * one is filled cost another wait behind it (and the window's floor for
 * a READ asked again, mroce_sr_read_ahead()): 64 KiB READs at 5% loss
 * have three holes on average.  A hole with nothing kept past it, the
 * READ's tail, may still be on the way and is not asked for.  The window
 * counts the READ as resent once (the request before these).
 */
static void mroce_req_read_holes(struct mroce_dpqp *dp, struct mroce_swqe *s,
				 u32 k)
{
	u32 i, first, n, off, plen;
	struct sk_buff *skb;
	struct mroce_hdr h;
	bool kept;

	for (i = 0; i < MROCE_REQ_READ_HOLES && k < s->npsn; i++) {
		first = mroce_comp_read_span(dp, s, k, &n, &kept);
		if (!n || !kept)
			return;
		memset(&h, 0, sizeof(h));
		mroce_req_build(dp, s, first, &h, &off, &plen);
		/* whole packets: a kept response follows */
		h.reth.len = (n - 1) * dp->pmtu;
		skb = mroce_req_skb(dp, s, false, h.bth.opcode, off, plen);
		if (IS_ERR(skb))
			return;
		mroce_count(dp->mdev, MROCE_CNT_SACK_RETX);
		mroce_req_xmit_rc(dp, s, &h, mroce_psn_add(s->first_psn, first),
				  off, plen, skb, MROCE_REQ_TX_AGAIN);
		k = first + n;
	}
}

/*
 * Every response of the READ the window resends was kept: what holds the
 * window is a hole in an older READ (the tail-loss probe resends the last
 * unit in flight, the RTO every one).  Ask for that hole instead, so that
 * the probe brings what is missing, once per run: the RTO's other kept
 * READs would ask for it again.  On success *@sp, @h and *@psn are the
 * older READ's request.
 */
static bool mroce_req_read_probe(struct mroce_dpqp *dp,
				 struct mroce_swqe **sp, struct mroce_hdr *h,
				 u32 *psn)
{
	struct mroce_swqe *o;
	u32 p, off, plen;

	o = mroce_comp_read_hole(dp, &p);
	if (!o || o == *sp || o->status ||
	    (dp->rd_probe_psn == p && dp->rd_probe_now == dp->now))
		return false;
	memset(h, 0, sizeof(*h));
	mroce_req_build(dp, o, mroce_psn_dist(o->first_psn, p), h, &off,
			&plen);
	*psn = p;
	if (!mroce_req_read_short(dp, o, h, psn, false))
		return false;
	*sp = o;
	return true;
}

/*
 * Send again the first packet the window says is lost.  1 when one went
 * out, 0 when nothing is lost, -EBUSY during an RNR wait, -EAGAIN when its
 * WQE failed, -ENOMEM without an skb.
 */
static int mroce_req_resend_rc(struct mroce_dpqp *dp)
{
	struct mroce_hdr h = {};
	u32 psn, idx, npsn, off, plen, tpsn, end;
	struct mroce_swqe *s, *ts;
	struct sk_buff *skb = NULL;
	bool read, probe;
	u64 now;

	/* Most runs have nothing to resend: no clock read for them. */
	if (!mroce_reqwin_lost(&dp->win))
		return 0;
	now = mroce_dp_now(dp);
	if (mroce_rp_wait(dp, now))
		return -EBUSY;
	if (!mroce_reqwin_resend(&dp->win, now, &psn, &idx))
		return mroce_reqwin_lost(&dp->win) ? -EBUSY : 0;
	s = mroce_swqe(dp, idx);
	if (s->status)
		return -EAGAIN;
	npsn = mroce_req_build(dp, s, mroce_psn_dist(s->first_psn, psn), &h,
			       &off, &plen);
	/*
	 * A READ asked again in a selective window asks for its hole only,
	 * or for an older READ's hole when all its responses were kept, or
	 * for nothing (the unit still counts as resent).
	 */
	ts = s;
	tpsn = psn;
	read = dp->win.selective && s->wqe.opcode == IB_WR_RDMA_READ;
	probe = mroce_reqwin_is_probe(&dp->win, psn);
	if (!read || mroce_req_read_short(dp, s, &h, &tpsn, probe) ||
	    mroce_req_read_probe(dp, &ts, &h, &tpsn)) {
		skb = mroce_req_skb(dp, ts, false, h.bth.opcode, off, plen);
		if (IS_ERR(skb))
			return PTR_ERR(skb);
	}
	if (WARN_ON_ONCE(mroce_reqwin_resent(&dp->win, psn, npsn, now))) {
		kfree_skb(skb);
		mroce_task_fatal(dp);
		return -EAGAIN;
	}
	if (dp->win.selective) {
		/* its ACK tells RACK at once what else is missing */
		dp->pkts_noack = MROCE_REQ_ACKREQ_EVERY;
		if (!skb)
			return 1;
		if (read) {
			dp->rd_probe_psn = tpsn;
			dp->rd_probe_now = now;
		}
		mroce_count(dp->mdev, MROCE_CNT_SACK_RETX);
	}
	end = read ? ts->rd_base + mroce_read_npsn(h.reth.len, dp->pmtu) : 0;
	/* only a unit lost alone tells which path lost it */
	mroce_req_xmit_rc(dp, ts, &h, tpsn, off, plen, skb,
			  probe || read || mroce_reqwin_lost_in_bulk(&dp->win, psn) ?
			  MROCE_REQ_TX_AGAIN : MROCE_REQ_TX_LOST);
	mroce_rp_sent(dp, plen + MROCE_BTH_LEN, now);
	if (read && !probe)
		mroce_req_read_holes(dp, ts, end);
	return 1;
}

/**
 * mroce_req_selective() - the requester's MetaRoCE span starts
 * @dp: the QP's data path (RC)
 *
 * From the span's first PSN (nego.tx_psn) on, the responder holds what
 * arrives ahead of its turn and answers with MR_ACKs (mroce_hold.c): the
 * window repeats selectively (core mroce_sr.c), with the default RTO
 * limits; a NAK for a gap before that PSN goes back to it only.
 */
void mroce_req_selective(struct mroce_dpqp *dp)
{
	/*
	 * The responder's ACK delay bound, for the probe timeout with one
	 * request in flight (its ACK leaves at the end of a task run, which a
	 * worker may start a scheduler tick late), and an RTO of at least
	 * metaroce_rto_min_us, 1 ms by default (the probe timeout is never
	 * later than the RTO).  A deadline
	 * of tens of microseconds fired on every message of a ping-pong,
	 * since the timer is left to fire rather than reprogrammed per ACK
	 * (mroce_task_arm()): 2 B ib_write_lat took 47 us instead of 25.
	 * Until the first RTT sample, the RTO (and the probe timeout) is the
	 * QP's Local ACK Timeout, the wait for an ACK its user chose, at most
	 * MROCE_REQ_INIT_RTO_MAX: the first ACK of a window may be ms away
	 * (the window's packets queue ahead of it), and an RTO that fired
	 * before it resent the whole window, again at each backoff (64 KiB
	 * WRITEs over a 1 ms delay: 1000 spurious resends, 0.2 s of a run).
	 */
	struct mroce_reqwin_cfg cfg = {
		.psn = dp->nego.tx_psn,
		.pipe = READ_ONCE(dp->mdev->sr_pipe),
		.ack_delay = MROCE_NSEC_PER_MSEC,
		.rtt.min_rto = READ_ONCE(dp->mdev->rto_min_ns),
		.rtt.init_rto = MROCE_REQ_INIT_RTO_MAX,
	};

	if (dp->win.rto)
		cfg.rtt.init_rto = min_t(u64, dp->win.rto,
					 MROCE_REQ_INIT_RTO_MAX);
	BUILD_BUG_ON(MROCE_RTO_MIN_US_MIN * NSEC_PER_USEC <
		     MROCE_RTT_MIN_RTO_NS ||
		     MROCE_RTO_MIN_US_MAX * NSEC_PER_USEC >
		     MROCE_REQ_INIT_RTO_MAX);
	BUILD_BUG_ON(MROCE_SR_WINDOW > MROCE_SB_SLOTS ||
		     MROCE_SR_WINDOW > MROCE_HOLD_SLOTS ||
		     MROCE_SR_WINDOW > MROCE_RD_MAP_BITS);
	lockdep_assert_held(&dp->run_lock);
	if (mroce_qp_is_rc(dp->qp) && !dp->win.selective) {
		mroce_sr_init(&dp->win, &cfg);
		dp->win.wnd = MROCE_SR_WINDOW;
		mroce_wcc_start(dp);
		mroce_spray_start(dp);
	}
}

/*
 * Send the next packet of UC WQE @s (IBTA 9.7): the RC opcodes' UC twins,
 * PSNs from a counter, no AckReq.  The WQE completes with its last packet.
 * 0, or -EAGAIN to stop for now.
 */
static int mroce_req_send_uc(struct mroce_dpqp *dp, struct mroce_swqe *s)
{
	bool start = dp->req_idx == dp->req_max;
	struct mroce_hdr h = {};
	struct sk_buff *skb;
	u32 off, plen;
	bool last;

	/* A UC WQE is a SEND or WRITE (mroce_req_validate()). */
	mroce_req_build(dp, s, dp->req_off / dp->pmtu, &h, &off, &plen);
	last = off + plen == s->length;
	/* IBTA 9.2 Table 35: UC opcodes are RC's with the UC transport bits. */
	h.bth.opcode = MROCE_OPT_UC | (h.bth.opcode & ~MROCE_OPT_MASK);

	skb = mroce_req_skb(dp, s, start, h.bth.opcode, off, plen);
	if (IS_ERR(skb))
		return PTR_ERR(skb);
	if (start) {
		s->first_psn = dp->next_psn_ud;
		s->started = true;
		dp->req_max++;
	}
	h.bth.psn = dp->next_psn_ud;
	h.bth.dqpn = dp->dqpn;
	h.bth.pkey = IB_DEFAULT_PKEY_FULL;
	h.bth.pad = mroce_padcnt(plen);
	dp->next_psn_ud = mroce_psn_add(dp->next_psn_ud, 1);
	mroce_dp_xmit(dp, &h, skb);

	if (!last) {
		dp->req_off = off + plen;
		return 0;
	}
	dp->req_idx++;
	dp->req_off = 0;
	s->done = true;
	mroce_comp_complete(dp);
	return 0;
}

/* Send UD WQE @s (IBTA 9.8): one packet, complete at once. */
static int mroce_req_send_ud(struct mroce_dpqp *dp, struct mroce_swqe *s)
{
	const struct metaroce_send_wqe *w = &s->wqe;
	struct mroce_qp *qp = dp->qp;
	struct xarray *ah_xa = &dp->mdev->res.ah_xa;
	struct mroce_hdr h = {};
	struct sk_buff *skb;
	struct mroce_ah *ah;
	struct mroce_av av;
	unsigned long flags;
	bool found = false;
	u8 *payload;
	int err;

	/* destroy_ah erases under the same lock: the AH cannot go away. */
	xa_lock_irqsave(ah_xa, flags);
	ah = xa_load(ah_xa, w->wr.ud.ah_num);
	if (ah && ah->ibah.pd == qp->ibqp.pd) {
		av = ah->av;
		found = true;
	}
	xa_unlock_irqrestore(ah_xa, flags);
	if (!found) {
		mroce_req_fail_new(dp, s, IB_WC_LOC_QP_OP_ERR);
		return -EAGAIN;
	}

	h.bth.opcode = w->opcode == IB_WR_SEND_WITH_IMM ?
		       MROCE_OP_UD_SEND_ONLY_WITH_IMMEDIATE :
		       MROCE_OP_UD_SEND_ONLY;
	skb = mroce_tx_alloc(dp->mdev, &av, h.bth.opcode, s->length, &payload,
			     GFP_ATOMIC);
	if (!skb)
		return -ENOMEM;
	err = mroce_req_gather(dp, s, 0, payload, s->length);
	if (err) {
		kfree_skb(skb);
		mroce_req_fail_new(dp, s, mroce_req_copy_status(err));
		return -EAGAIN;
	}
	h.bth.se = !!(w->send_flags & IB_SEND_SOLICITED);
	h.bth.pkey = IB_DEFAULT_PKEY_FULL;
	h.bth.dqpn = w->wr.ud.remote_qpn & MROCE_QPN_MASK;
	h.bth.psn = dp->next_psn_ud;
	h.bth.pad = mroce_padcnt(s->length);
	dp->next_psn_ud = mroce_psn_add(dp->next_psn_ud, 1);
	/* IBTA 10.2.4: a Q_Key with the high bit set means the QP's own. */
	h.deth.qkey = (w->wr.ud.remote_qkey & 0x80000000) ? qp->attr.qkey :
		      w->wr.ud.remote_qkey;
	h.deth.sqpn = qp->ibqp.qp_num;
	h.imm = be32_to_cpu((__force __be32)w->ex);
	mroce_tx_send(dp->mdev, &av, NULL,
		      rdma_get_udp_sport(av.flow_label, qp->ibqp.qp_num,
					 h.bth.dqpn),
		      &h, skb);

	s->first_psn = h.bth.psn;
	s->started = true;
	s->done = true;
	dp->req_max++;
	dp->req_idx++;
	mroce_comp_complete(dp);
	return 0;
}

/**
 * mroce_req_lost() - the window lost the PSNs from @psn on (go back N)
 * @dp: the QP's data path
 * @psn: first PSN to send again
 *
 * The lost packets go out again with the PSNs they had, from their WQEs
 * (mroce_req_resend_rc()).  A READ among them receives its responses again
 * from the lost PSN, the READs after it all of them.  A READ the window
 * did not lose keeps what it received: a NAK before a selective span goes
 * back to the span only (core mroce_reqwin.c), and a go-back-N passes
 * over what the receiver SACKED.
 */
void mroce_req_lost(struct mroce_dpqp *dp, u32 psn)
{
	u32 idx;

	lockdep_assert_held(&dp->run_lock);
	mroce_count(dp->mdev, MROCE_CNT_RETRIES);
	dp->pkts_noack = 0;
	if (!mroce_reqwin_find(&dp->win, psn, &idx))
		return;
	for (; idx != dp->req_max; idx++) {
		struct mroce_swqe *s = mroce_swqe(dp, idx);

		if (!s->started || s->wqe.opcode != IB_WR_RDMA_READ ||
		    !mroce_reqwin_is_lost(&dp->win,
					  mroce_psn_add(s->first_psn,
							s->npsn - 1)))
			continue;
		s->rd_done = mroce_psn_in_window(psn, s->first_psn, s->npsn) ?
			     mroce_psn_dist(s->first_psn, psn) : 0;
		s->done = false;
	}
}

/*
 * Must the requester run?  It has something to send, or it left KBUSY set
 * (a post may be waiting that rang no doorbell).  Caller holds run_lock.
 */
bool mroce_req_pending(struct mroce_dpqp *dp)
{
	struct metaroce_ring *hdr = dp->qp->sq.hdr;

	lockdep_assert_held(&dp->run_lock);
	return dp->req_idx != dp->req_max || mroce_reqwin_lost(&dp->win) ||
	       smp_load_acquire(&hdr->producer) != dp->req_max ||
	       (dp->qp->is_user &&
		(READ_ONCE(hdr->flags) & METAROCE_RING_F_KBUSY));
}

/*
 * Is nothing of this QP on the wire, so that it may start sending from
 * another CPU without its packets overtaking each other?  RC: no PSN is
 * unacknowledged and no READ is being answered.  UC has no acknowledgements, and a veth may still hold
 * the last message's packets in the old CPU's backlog (processing it can
 * be deferred to ksoftirqd): a UC QP never moves, since one packet that
 * overtakes another loses both messages (IBTA 9.7).  Caller holds run_lock.
 */
bool mroce_req_idle(struct mroce_dpqp *dp)
{
	lockdep_assert_held(&dp->run_lock);
	if (mroce_qp_is_rc(dp->qp))
		return !mroce_reqwin_inflight(&dp->win) && !dp->rd.active;
	return false;
}

/*
 * Is fetching new posts of a user QP all the requester has to do, with a
 * doorbell certain for them?  With KBUSY clear the provider rings after
 * publishing (it reads the flag after the producer, with a full barrier;
 * a run that cleared KBUSY read the producer again after, with one too).
 * Not for UC: a UC QP never moves to the doorbell's CPU (mroce_req_idle()),
 * so a doorbell elsewhere would hand its posts to the worker.  Caller
 * holds run_lock.
 */
bool mroce_req_doorbell_due(struct mroce_dpqp *dp)
{
	lockdep_assert_held(&dp->run_lock);
	return dp->qp->is_user && dp->qp->ibqp.qp_type != IB_QPT_UC &&
	       dp->req_idx == dp->req_max &&
	       !mroce_reqwin_lost(&dp->win) &&
	       !(READ_ONCE(dp->qp->sq.hdr->flags) & METAROCE_RING_F_KBUSY);
}

/*
 * Doorbell elision (the KBUSY handshake of the ABI header): while the
 * requester of a user QP works the SQ, KBUSY tells the provider that the
 * kernel will look at the ring again, so a post needs no system call.
 * Only the task writes KBUSY while the QP is in RTS or SQD (it runs under
 * run_lock, which a move to ERR or RESET takes first: mroce_dp_modify()
 * clears it); the verbs layer's flush writes it only in ERR.
 */
static void mroce_req_kbusy(struct mroce_dpqp *dp, bool busy)
{
	struct metaroce_ring *hdr = dp->qp->sq.hdr;
	u32 flags = READ_ONCE(hdr->flags);

	WRITE_ONCE(hdr->flags, busy ? flags | METAROCE_RING_F_KBUSY :
				      flags & ~METAROCE_RING_F_KBUSY);
}

/*
 * The QP leaves RTS/SQD (to ERR or RESET): the requester will not look at
 * the SQ again, so the provider must ring (in ERR, to have its posts
 * flushed).  Caller holds run_lock.
 */
void mroce_req_stop(struct mroce_dpqp *dp)
{
	lockdep_assert_held(&dp->run_lock);
	if (dp->qp->is_user && dp->qp->sq.hdr)
		mroce_req_kbusy(dp, false);
}

/*
 * Has the requester sent everything it was given: no WQE started and not
 * fully sent, no packet lost and not resent, none posted and not fetched?
 */
static bool mroce_req_drained(struct mroce_dpqp *dp)
{
	return dp->req_idx == dp->req_max && !mroce_reqwin_lost(&dp->win) &&
	       smp_load_acquire(&dp->qp->sq.hdr->producer) == dp->req_max;
}

/*
 * May KBUSY stay set when the requester stops?  Only when a post could not
 * go out now anyway and another run is certain without a doorbell: the
 * budget is spent (the task runs again at once), or the requester is
 * blocked (window, READ/atomic limit, fence, RNR wait) by requests on the
 * wire, whose ACK, response or timeout runs it and fetches what was posted
 * meanwhile.  With room to send, posts ring and leave at once: waiting for
 * the next ACK would tie them to it, and to its timeout if it is lost.
 */
static bool mroce_req_will_run(struct mroce_dpqp *dp, int budget,
			       bool blocked, bool sqd)
{
	if (budget <= 0 || dp->pace_wait)
		return true;
	return blocked && !dp->error && !dp->req_failed && !sqd &&
	       mroce_qp_is_rc(dp->qp) && mroce_reqwin_inflight(&dp->win);
}

static bool mroce_req_loop(struct mroce_dpqp *dp, int *budget, bool sqd);

/**
 * mroce_req_run() - send what the SQ and the window allow
 * @dp: the QP's data path
 * @budget: packets this run may still send; decremented
 *
 * Stops when the SQ is empty, the window or the READ/atomic limit
 * (max_rd_atomic, IBTA 9.7.4.1.x) is full, a fenced WQE waits for earlier
 * READs and atomics (IBTA 10.8.3.3), in SQD (no new WQE starts), or on
 * a fatal error.  Caller holds dp->run_lock.
 */
void mroce_req_run(struct mroce_dpqp *dp, int *budget)
{
	bool sqd = READ_ONCE(dp->qp->state) == IB_QPS_SQD;

	lockdep_assert_held(&dp->run_lock);
	if (!dp->qp->is_user) {
		mroce_req_loop(dp, budget, sqd);
		if (*budget <= 0 && mroce_req_drained(dp))
			*budget = 1;
		return;
	}
	for (;;) {
		bool blocked;

		mroce_req_kbusy(dp, true);
		blocked = mroce_req_loop(dp, budget, sqd);
		/*
		 * A budget spent on exactly what there was to send (one
		 * 64-packet message) leaves nothing for another run: without
		 * this, every 64 KiB SEND at MTU 1024 cost a worker run.
		 */
		if (*budget <= 0 && mroce_req_drained(dp))
			*budget = 1;
		if (mroce_req_will_run(dp, *budget, blocked, sqd))
			return;
		mroce_req_kbusy(dp, false);
		/* Pairs with the provider's barrier after its producer store. */
		smp_mb();
		if (dp->error || dp->req_failed || sqd ||
		    smp_load_acquire(&dp->qp->sq.hdr->producer) == dp->req_max)
			return;
	}
}

/*
 * The requester proper: see mroce_req_run().  Returns true when it stopped
 * blocked by what is on the wire (window, READ/atomic limit, fence, RNR).
 */
static bool mroce_req_loop(struct mroce_dpqp *dp, int *budget, bool sqd)
{
	struct mroce_qp *qp = dp->qp;
	u32 max_rd = max_t(u32, qp->attr.max_rd_atomic, 1);
	int err;

	while (*budget > 0 && !dp->error) {
		struct mroce_swqe *s;

		if (mroce_qp_is_rc(qp)) {
			/* Lost packets go before anything new. */
			err = mroce_req_resend_rc(dp);
			if (err > 0) {
				(*budget)--;
				continue;
			}
			if (err == -ENOMEM) {
				*budget = 0;
				break;
			}
			if (err)
				return err == -EBUSY;
		}
		s = mroce_swqe(dp, dp->req_idx);

		if (dp->req_idx == dp->req_max) {
			/*
			 * Nothing new starts behind a WQE that failed
			 * locally: the peer must not execute requests the
			 * application will see flushed (IBTA 10.8.3.3).
			 */
			if (sqd || dp->req_failed)
				break;
			err = mroce_req_fetch(dp, s);
			if (err < 0) {
				/* The provider broke its producer index. */
				mroce_task_fatal(dp);
				break;
			}
			if (!err)
				break;
			if (s->status) {
				mroce_req_fail_new(dp, s, s->status);
				break;
			}
			if ((s->wqe.send_flags & IB_SEND_FENCE) && dp->rd_atomic)
				return true;
			if (s->rd_atomic && dp->rd_atomic >= max_rd)
				return true;
			if (mroce_req_is_local(s)) {
				mroce_req_local(dp, s);
				(*budget)--;
				continue;
			}
		}
		if (mroce_qp_is_rc(qp))
			err = mroce_req_send_rc(dp, s);
		else if (qp->ibqp.qp_type == IB_QPT_UC)
			err = mroce_req_send_uc(dp, s);
		else
			err = mroce_req_send_ud(dp, s);
		if (err == -ENOMEM) {
			/* Out of skbs: try again from a fresh run. */
			*budget = 0;
			break;
		}
		if (err)
			return err == -EBUSY;
		(*budget)--;
	}
	return false;
}
