// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Queue pairs: creation against the advertised limits, the IBTA queue pair
 * state machine (IBTA vol 1 10.3.1, table 91 for the attribute masks), work
 * queue flushing in the error state, and the post entry points.  RC, UC
 * (IBTA 9.7, no acknowledgements: ib_modify_qp_is_ok() refuses the ACK
 * attributes for it) and UD/GSI QPs share all of it.
 *
 * Work requests live in the SQ and RQ rings whatever the consumer: a user
 * QP's rings are filled by the provider in userspace and kicked with a
 * POST_SEND / POST_RECV command carrying no work request (the doorbell); a
 * kernel consumer's rings are filled by mroce_post_send()/mroce_post_recv().
 * Executing work requests on the wire is the requester's and responder's
 * job; this file only keeps the queues and flushes them.
 *
 * Locks: qp->state_lock (mutex) serialises modify/query/destroy;
 * qp->sq_lock and qp->rq_lock (spinlocks, taken inside state_lock) protect
 * the kernel's side of each ring; a CQ's lock nests inside them.
 */
#include <linux/random.h>

#include "mroce_verbs.h"

static const char * const mroce_qps_names[] = {
	[IB_QPS_RESET] = "RESET",
	[IB_QPS_INIT] = "INIT",
	[IB_QPS_RTR] = "RTR",
	[IB_QPS_RTS] = "RTS",
	[IB_QPS_SQD] = "SQD",
	[IB_QPS_SQE] = "SQE",
	[IB_QPS_ERR] = "ERR",
};

/* Completion opcode of a flushed send work request, by work request opcode. */
static const u8 mroce_wr_to_wc_opcode[] = {
	[IB_UVERBS_WR_RDMA_WRITE] = IB_WC_RDMA_WRITE,
	[IB_UVERBS_WR_RDMA_WRITE_WITH_IMM] = IB_WC_RDMA_WRITE,
	[IB_UVERBS_WR_SEND] = IB_WC_SEND,
	[IB_UVERBS_WR_SEND_WITH_IMM] = IB_WC_SEND,
	[IB_UVERBS_WR_RDMA_READ] = IB_WC_RDMA_READ,
	[IB_UVERBS_WR_ATOMIC_CMP_AND_SWP] = IB_WC_COMP_SWAP,
	[IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD] = IB_WC_FETCH_ADD,
	[IB_UVERBS_WR_SEND_WITH_INV] = IB_WC_SEND,
	[IB_UVERBS_WR_LOCAL_INV] = IB_WC_LOCAL_INV,
	[IB_UVERBS_WR_BIND_MW] = IB_WC_BIND_MW,
};

static void mroce_qp_flush_work(struct work_struct *work);

static u32 mroce_send_wqe_size(u32 max_sge, u32 max_inline)
{
	return roundup_pow_of_two(sizeof(struct metaroce_send_wqe) +
		max_t(u32, max_sge * sizeof(struct metaroce_sge), max_inline));
}

static u32 mroce_recv_wqe_size(u32 max_sge)
{
	return roundup_pow_of_two(sizeof(struct metaroce_recv_wqe) +
		max_t(u32, max_sge, 1) * sizeof(struct metaroce_sge));
}

/* Every limit checked here is the one query_device advertises. */
static int mroce_qp_check_cap(const struct ib_qp_init_attr *init)
{
	const struct ib_qp_cap *cap = &init->cap;

	if (cap->max_send_wr > MROCE_MAX_QP_WR ||
	    cap->max_send_sge > MROCE_MAX_SGE ||
	    cap->max_inline_data > MROCE_MAX_INLINE_DATA)
		return -EINVAL;
	if (!init->srq && (cap->max_recv_wr > MROCE_MAX_QP_WR ||
			   cap->max_recv_sge > MROCE_MAX_SGE))
		return -EINVAL;
	return 0;
}

/* Random draws before the QPN search gives up (the space is 2^24). */
#define MROCE_QPN_TRIES		64

/*
 * A QP number is drawn at random: numbers handed out in sequence would let
 * any host that reaches UDP port 4791 guess the QPN of a new connection
 * (the first check a forged packet has to pass, with the PSN).  With at
 * most MROCE_MAX_QP of 2^24 numbers in use, a draw collides with
 * probability under 1/256, so MROCE_QPN_TRIES draws practically never all
 * fail; if they do, the QP is refused with -ENOSPC.
 */
static int mroce_qp_alloc_qpn(struct mroce_dev *mdev, struct mroce_qp *qp,
			      enum ib_qp_type type)
{
	struct mroce_res *res = &mdev->res;
	int i, err = -ENOSPC;
	u32 qpn;

	if (type == IB_QPT_GSI) {
		qpn = MROCE_GSI_QPN;
		err = xa_insert_irq(&res->qp_xa, qpn, NULL, GFP_KERNEL);
	} else {
		for (i = 0; i < MROCE_QPN_TRIES; i++) {
			qpn = get_random_u32_inclusive(MROCE_FIRST_QPN,
						       MROCE_MAX_QPN);
			err = xa_insert_irq(&res->qp_xa, qpn, NULL,
					    GFP_KERNEL);
			if (err != -EBUSY)
				break;
		}
		if (err == -EBUSY)
			err = -ENOSPC;
	}
	if (err)
		return err;
	qp->ibqp.qp_num = qpn;
	return 0;
}

static int mroce_qp_alloc_rings(struct mroce_dev *mdev, struct mroce_qp *qp,
				struct ib_qp_init_attr *init,
				struct ib_udata *udata,
				struct metaroce_create_qp_resp *resp)
{
	struct ib_qp_cap *cap = &init->cap;
	u32 num, esz;
	int err;

	num = roundup_pow_of_two(max_t(u32, cap->max_send_wr, 1));
	esz = mroce_send_wqe_size(cap->max_send_sge, cap->max_inline_data);
	err = mroce_kring_alloc(mdev, &qp->sq, num, esz, udata, &resp->sq);
	if (err)
		return err;
	cap->max_send_wr = num;
	cap->max_send_sge = min_t(u32, MROCE_MAX_SGE,
				  (esz - sizeof(struct metaroce_send_wqe)) /
				  sizeof(struct metaroce_sge));
	cap->max_inline_data = min_t(u32, MROCE_MAX_INLINE_DATA,
				     esz - sizeof(struct metaroce_send_wqe));
	resp->max_inline_data = cap->max_inline_data;

	if (init->srq) {
		cap->max_recv_wr = 0;
		cap->max_recv_sge = 0;
		return 0;
	}
	num = roundup_pow_of_two(max_t(u32, cap->max_recv_wr, 1));
	esz = mroce_recv_wqe_size(cap->max_recv_sge);
	err = mroce_kring_alloc(mdev, &qp->rq, num, esz, udata, &resp->rq);
	if (err) {
		mroce_kring_free(&qp->sq);
		return err;
	}
	cap->max_recv_wr = num;
	cap->max_recv_sge = min_t(u32, MROCE_MAX_SGE,
				  (esz - sizeof(struct metaroce_recv_wqe)) /
				  sizeof(struct metaroce_sge));
	return 0;
}

int mroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mdev(ibqp->device);
	struct metaroce_create_qp_resp resp = {};
	struct mroce_qp *qp = to_mqp(ibqp);
	int err;

	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		break;
	case IB_QPT_GSI:
		if (udata)
			return -EINVAL;
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (init->create_flags)
		return -EOPNOTSUPP;
	err = mroce_qp_check_cap(init);
	if (err)
		return err;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;
	err = mroce_res_take(&mdev->res, &mdev->res.num_qp, MROCE_LIM_QP);
	if (err)
		return err;

	mutex_init(&qp->state_lock);
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->rq_lock);
	INIT_WORK(&qp->flush_work, mroce_qp_flush_work);
	qp->is_user = !!udata;
	qp->state = IB_QPS_RESET;
	qp->sq_sig_type = init->sq_sig_type;
	qp->attr.port_num = 1;
	qp->attr.path_mtu = IB_MTU_1024;

	err = mroce_qp_alloc_qpn(mdev, qp, init->qp_type);
	if (err)
		goto err_count;
	err = mroce_qp_alloc_rings(mdev, qp, init, udata, &resp);
	if (err)
		goto err_qpn;
	qp->cap = init->cap;
	err = mroce_dp_qp_create(qp, init);
	if (err)
		goto err_rings;
	if (udata) {
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_dp;
	}
	xa_store_irq(&mdev->res.qp_xa, ibqp->qp_num, qp, GFP_KERNEL);
	ibdev_dbg(&mdev->ibdev, "qp %u created\n", ibqp->qp_num);
	return 0;

err_dp:
	mroce_dp_qp_destroy(qp);
err_rings:
	mroce_kring_free(&qp->rq);
	mroce_kring_free(&qp->sq);
err_qpn:
	xa_erase_irq(&mdev->res.qp_xa, ibqp->qp_num);
err_count:
	atomic_dec(&mdev->res.num_qp);
	return err;
}

int mroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mdev(ibqp->device);
	struct mroce_qp *qp = to_mqp(ibqp);

	xa_erase_irq(&mdev->res.qp_xa, ibqp->qp_num);
	mroce_dp_qp_destroy(qp);
	/* The data path may have queued it on its way to ERR. */
	cancel_work_sync(&qp->flush_work);
	mroce_kring_free(&qp->rq);
	mroce_kring_free(&qp->sq);
	mutex_destroy(&qp->state_lock);
	atomic_dec(&mdev->res.num_qp);
	return 0;
}

/* An affiliated asynchronous event of @qp (IBTA 11.6.3). */
void mroce_qp_event(struct mroce_qp *qp, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = type,
	};

	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

static void mroce_ring_set_flags(struct mroce_kring *ring, u32 set, u32 clear)
{
	u32 flags = READ_ONCE(ring->hdr->flags);

	WRITE_ONCE(ring->hdr->flags, (flags & ~clear) | set);
}

/*
 * Complete the oldest posted work request of @ring with IB_WC_WR_FLUSH_ERR.
 * Returns what mroce_cq_add() returned: on -ENOSPC (CQ overrun, reported
 * there) the completion is lost, as IBTA 11.4.2.1 allows.  Caller holds the
 * ring's lock.
 */
static int mroce_qp_flush_one(struct mroce_qp *qp, struct mroce_kring *ring,
			      struct mroce_cq *cq, bool send)
{
	const void *slot = mroce_kring_slot(ring, ring->head);
	struct metaroce_cqe cqe = {};

	cqe.status = IB_WC_WR_FLUSH_ERR;
	cqe.qp_num = qp->ibqp.qp_num;
	cqe.port_num = 1;
	if (send) {
		const struct metaroce_send_wqe *w = slot;
		u32 op = READ_ONCE(w->opcode);

		cqe.wr_id = READ_ONCE(w->wr_id);
		cqe.opcode = op < ARRAY_SIZE(mroce_wr_to_wc_opcode) ?
			     mroce_wr_to_wc_opcode[op] : IB_WC_SEND;
	} else {
		const struct metaroce_recv_wqe *w = slot;

		cqe.wr_id = READ_ONCE(w->wr_id);
		cqe.opcode = IB_WC_RECV;
	}
	/* Slot first, completion second (see mroce_comp.c). */
	smp_store_release(&ring->hdr->consumer, ++ring->head);
	return mroce_cq_add(cq, &cqe, false);
}

/*
 * Complete posted work requests of @ring with IB_WC_WR_FLUSH_ERR (IBTA
 * 10.3.1: in the error state, posted and newly posted work requests
 * complete in error).  The producer index belongs to the provider, which
 * may keep moving it while this runs with interrupts off, or write garbage:
 * one call takes at most ring->num entries, and stops at a full CQ (the
 * rest waits for the next doorbell).  The KBUSY handshake tells the
 * provider that no doorbell is needed while the loop runs.
 *
 * Caller holds the ring's lock, and calls mroce_qp_flushed() once it is
 * released.  Sets *@notify when the CQ's handler is due; returns true when
 * entries are left for mroce_qp_flush_work().
 */
static bool mroce_qp_flush_ring(struct mroce_qp *qp, struct mroce_kring *ring,
				struct mroce_cq *cq, bool send, bool *notify)
{
	u32 budget = ring->num, n;
	int ret;

	mroce_ring_set_flags(ring, METAROCE_RING_F_KBUSY, 0);
	for (;;) {
		n = mroce_kring_pending(ring);
		if (n > ring->num) {
			/* The provider corrupted its producer index. */
			ibdev_dbg(qp->ibqp.device, "qp %u: bad producer index\n",
				  qp->ibqp.qp_num);
			break;
		}
		for (n = min(n, budget); n; n--, budget--) {
			ret = mroce_qp_flush_one(qp, ring, cq, send);
			if (ret < 0)
				goto out;
			*notify |= ret > 0;
		}
		mroce_ring_set_flags(ring, 0, METAROCE_RING_F_KBUSY);
		/* Pairs with the provider's barrier after its producer store. */
		smp_mb();
		if (!mroce_kring_pending(ring))
			return false;
		if (!budget)
			return true;
		mroce_ring_set_flags(ring, METAROCE_RING_F_KBUSY, 0);
	}
out:
	mroce_ring_set_flags(ring, 0, METAROCE_RING_F_KBUSY);
	return false;
}

/*
 * After a flush, with no lock held: the completion handler (a kernel
 * consumer may post from it), and another round from a work item when the
 * budget of one call ran out.
 */
static void mroce_qp_flushed(struct mroce_qp *qp, struct ib_cq *cq, bool more,
			     bool notify)
{
	if (notify)
		mroce_cq_notify(to_mcq(cq));
	if (more)
		queue_work(system_wq, &qp->flush_work);
}

/* Caller holds qp->sq_lock. */
static bool mroce_qp_kick_sq(struct mroce_qp *qp, bool *notify)
{
	lockdep_assert_held(&qp->sq_lock);
	if (READ_ONCE(qp->state) != IB_QPS_ERR)
		return false;
	return mroce_qp_flush_ring(qp, &qp->sq, to_mcq(qp->ibqp.send_cq), true,
				   notify);
}

/* Caller holds qp->rq_lock. */
static bool mroce_qp_kick_rq(struct mroce_qp *qp, bool *notify)
{
	lockdep_assert_held(&qp->rq_lock);
	if (!qp->rq.hdr || READ_ONCE(qp->state) != IB_QPS_ERR)
		return false;
	return mroce_qp_flush_ring(qp, &qp->rq, to_mcq(qp->ibqp.recv_cq),
				   false, notify);
}

static void mroce_qp_flush_sq(struct mroce_qp *qp, u32 set_flags)
{
	bool notify = false, more;
	unsigned long flags;

	spin_lock_irqsave(&qp->sq_lock, flags);
	mroce_ring_set_flags(&qp->sq, set_flags, 0);
	more = mroce_qp_kick_sq(qp, &notify);
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	mroce_qp_flushed(qp, qp->ibqp.send_cq, more, notify);
}

static void mroce_qp_flush_rq(struct mroce_qp *qp, u32 set_flags)
{
	bool notify = false, more;
	unsigned long flags;

	if (!qp->rq.hdr)
		return;
	spin_lock_irqsave(&qp->rq_lock, flags);
	mroce_ring_set_flags(&qp->rq, set_flags, 0);
	more = mroce_qp_kick_rq(qp, &notify);
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	mroce_qp_flushed(qp, qp->ibqp.recv_cq, more, notify);
}

/* The rest of a flush that ran out of budget (see mroce_qp_flush_ring()). */
static void mroce_qp_flush_work(struct work_struct *work)
{
	struct mroce_qp *qp = container_of(work, struct mroce_qp, flush_work);

	mroce_qp_flush_sq(qp, 0);
	mroce_qp_flush_rq(qp, 0);
}

/* Entering ERR.  Caller holds qp->state_lock. */
static void mroce_qp_enter_err(struct mroce_qp *qp)
{
	lockdep_assert_held(&qp->state_lock);
	mroce_qp_flush_sq(qp, METAROCE_RING_F_FLUSH);
	mroce_qp_flush_rq(qp, METAROCE_RING_F_FLUSH);

	/* IBTA 11.6.3.1: an SRQ's QP in error reports its last WQE. */
	if (qp->ibqp.srq)
		mroce_qp_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
}

/* Entering RESET: the work queues are emptied without completions. */
static void mroce_qp_enter_reset(struct mroce_qp *qp)
{
	unsigned long flags;

	lockdep_assert_held(&qp->state_lock);
	spin_lock_irqsave(&qp->sq_lock, flags);
	mroce_kring_reset(&qp->sq);
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	spin_lock_irqsave(&qp->rq_lock, flags);
	mroce_kring_reset(&qp->rq);
	spin_unlock_irqrestore(&qp->rq_lock, flags);
}

/* Value checks that ib_modify_qp_is_ok() (masks only) leaves to drivers. */
static int mroce_qp_check_attr(struct mroce_qp *qp, struct ib_qp_attr *attr,
			       int mask)
{
	if ((mask & IB_QP_PORT) && attr->port_num != 1)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index != 0)
		return -EINVAL;
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > MROCE_MAX_MTU))
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > MROCE_MAX_RD_ATOMIC)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > MROCE_MAX_RD_ATOMIC)
		return -EINVAL;
	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7)
		return -EINVAL;
	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7)
		return -EINVAL;
	if ((mask & IB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
		return -EINVAL;
	if ((mask & IB_QP_TIMEOUT) && attr->timeout > 31)
		return -EINVAL;
	if ((mask & IB_QP_DEST_QPN) && attr->dest_qp_num > MROCE_MAX_QPN)
		return -EINVAL;
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~(IB_ACCESS_LOCAL_WRITE |
				       IB_ACCESS_REMOTE_WRITE |
				       IB_ACCESS_REMOTE_READ |
				       IB_ACCESS_REMOTE_ATOMIC)))
		return -EINVAL;
	/* No automatic path migration (IB_DEVICE_AUTO_PATH_MIG unset). */
	if (mask & IB_QP_ALT_PATH)
		return -EINVAL;
	if ((mask & IB_QP_PATH_MIG_STATE) &&
	    attr->path_mig_state != IB_MIG_MIGRATED)
		return -EINVAL;
	return 0;
}

static void mroce_qp_store_attr(struct mroce_qp *qp,
				const struct ib_qp_attr *attr, int mask)
{
	struct ib_qp_attr *a = &qp->attr;

	if (mask & IB_QP_PKEY_INDEX)
		a->pkey_index = attr->pkey_index;
	if (mask & IB_QP_PORT)
		a->port_num = attr->port_num;
	if (mask & IB_QP_QKEY)
		a->qkey = attr->qkey;
	if (mask & IB_QP_ACCESS_FLAGS)
		a->qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_PATH_MTU)
		a->path_mtu = attr->path_mtu;
	if (mask & IB_QP_TIMEOUT)
		a->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		a->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		a->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_RQ_PSN)
		a->rq_psn = attr->rq_psn & 0xffffff;
	if (mask & IB_QP_SQ_PSN)
		a->sq_psn = attr->sq_psn & 0xffffff;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		a->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		a->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_MIN_RNR_TIMER)
		a->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_DEST_QPN)
		a->dest_qp_num = attr->dest_qp_num;
	if (mask & IB_QP_PATH_MIG_STATE)
		a->path_mig_state = attr->path_mig_state;
	if (mask & IB_QP_EN_SQD_ASYNC_NOTIFY)
		a->en_sqd_async_notify = attr->en_sqd_async_notify;
}

/*
 * The provider's transport mode request and ECE agreement (struct
 * metaroce_modify_qp), kept for the next RTR.  Kernel consumers and
 * providers that send none leave them as they are.  Caller holds
 * qp->state_lock.
 */
static int mroce_qp_mode_from_udata(struct mroce_qp *qp,
				    struct ib_udata *udata)
{
	struct metaroce_modify_qp cmd;

	BUILD_BUG_ON((int)METAROCE_QP_MODE_DEVICE != MROCE_POLICY_DEVICE ||
		     (int)METAROCE_QP_MODE_AUTO != MROCE_POLICY_AUTO ||
		     (int)METAROCE_QP_MODE_ROCE != MROCE_POLICY_ROCE ||
		     (int)METAROCE_QP_MODE_METAROCE != MROCE_POLICY_METAROCE);
	lockdep_assert_held(&qp->state_lock);
	if (!udata || !udata->inlen)
		return 0;
	if (udata->inlen < sizeof(cmd))
		return -EINVAL;
	if (ib_copy_from_udata(&cmd, udata, sizeof(cmd)))
		return -EFAULT;
	if (cmd.mode >= MROCE_NUM_POLICIES ||
	    cmd.ece_ver > METAROCE_ECE_VER_MASK)
		return -EINVAL;
	qp->mode_policy = cmd.mode;
	qp->ece_ver = cmd.ece_ver;
	return 0;
}

/*
 * IBTA 10.3.1 state machine.  ib_modify_qp_is_ok() holds the table of
 * legal transitions and of required/optional attributes per transition and
 * QP type; the actions on entering a state are ours.
 */
int mroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata)
{
	struct mroce_qp *qp = to_mqp(ibqp);
	enum ib_qp_state cur, next;
	struct mroce_av av = {};
	int err;

	BUILD_BUG_ON(ARRAY_SIZE(mroce_qps_names) != IB_QPS_ERR + 1);
	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;

	mutex_lock(&qp->state_lock);
	cur = (mask & IB_QP_CUR_STATE) ? attr->cur_qp_state : qp->state;
	next = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	err = -EINVAL;
	if (cur > IB_QPS_ERR || next > IB_QPS_ERR)
		goto out;
	/* IBTA 11.2.4.2: a current state that is not the QP's is an error. */
	if (cur != qp->state)
		goto out;
	if (!ib_modify_qp_is_ok(cur, next, ibqp->qp_type, mask))
		goto out;
	err = mroce_qp_check_attr(qp, attr, mask);
	if (err)
		goto out;
	if (mask & IB_QP_AV) {
		err = mroce_av_from_attr(&av, &attr->ah_attr);
		if (err)
			goto out;
	}

	err = mroce_qp_mode_from_udata(qp, udata);
	if (err)
		goto out;
	mroce_qp_store_attr(qp, attr, mask);
	if (mask & IB_QP_AV)
		qp->av = av;
	WRITE_ONCE(qp->state, next);
	if (cur != next)
		ibdev_dbg(ibqp->device, "qp %u %s -> %s\n", ibqp->qp_num,
			  mroce_qps_names[cur], mroce_qps_names[next]);
	mroce_dp_modify(qp, cur, next, mask);

	switch (next) {
	case IB_QPS_RESET:
		if (cur != IB_QPS_RESET)
			mroce_qp_enter_reset(qp);
		break;
	case IB_QPS_ERR:
		if (cur != IB_QPS_ERR)
			mroce_qp_enter_err(qp);
		break;
	default:
		break;
	}
	err = 0;
out:
	mutex_unlock(&qp->state_lock);
	return err;
}

int mroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init)
{
	struct mroce_qp *qp = to_mqp(ibqp);

	mutex_lock(&qp->state_lock);
	memcpy(attr, &qp->attr, sizeof(*attr));
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->cap = qp->cap;
	attr->sq_draining = 0;
	if (qp->av.valid)
		mroce_av_to_attr(&qp->av, &attr->ah_attr);

	memset(init, 0, sizeof(*init));
	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = qp->cap;
	init->sq_sig_type = qp->sq_sig_type;
	init->port_num = 1;
	mutex_unlock(&qp->state_lock);
	return 0;
}

static int mroce_check_send_wr(struct mroce_qp *qp, const struct ib_send_wr *wr,
			       u32 *inline_len)
{
	u32 len = 0;
	int i;

	switch (wr->opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
		break;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		/* IBTA 9.7: UC carries SEND and RDMA WRITE only. */
		if (!mroce_qp_connected(qp))
			return -EINVAL;
		break;
	case IB_WR_RDMA_READ:
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
	case IB_WR_SEND_WITH_INV:
		if (qp->ibqp.qp_type != IB_QPT_RC)
			return -EINVAL;
		break;
	case IB_WR_REG_MR:
	case IB_WR_LOCAL_INV:
		/* Fast registration (mroce_mw.c): no SGEs. */
		if (!mroce_qp_connected(qp) || wr->num_sge)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	if (wr->num_sge < 0 || wr->num_sge > qp->cap.max_send_sge)
		return -EINVAL;
	if (!mroce_qp_connected(qp) && !ud_wr(wr)->ah)
		return -EINVAL;
	if (wr->send_flags & IB_SEND_INLINE) {
		/* Against what is left, so no sum of lengths can wrap. */
		for (i = 0; i < wr->num_sge; i++) {
			if (wr->sg_list[i].length > qp->cap.max_inline_data - len)
				return -EINVAL;
			len += wr->sg_list[i].length;
		}
	}
	*inline_len = len;
	return 0;
}

static void mroce_build_send_wqe(struct mroce_qp *qp,
				 const struct ib_send_wr *wr, u32 inline_len,
				 struct metaroce_send_wqe *wqe)
{
	u8 *payload = (u8 *)(wqe + 1);
	struct metaroce_sge *sge = (struct metaroce_sge *)payload;
	int i;

	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr->wr_id;
	wqe->opcode = wr->opcode;
	wqe->send_flags = wr->send_flags;
	wqe->num_sge = wr->num_sge;
	if (wr->opcode == IB_WR_SEND_WITH_INV ||
	    wr->opcode == IB_WR_LOCAL_INV)
		wqe->ex = wr->ex.invalidate_rkey;
	else
		wqe->ex = (__force u32)wr->ex.imm_data;

	switch (wr->opcode) {
	case IB_WR_REG_MR:
		wqe->ex = reg_wr(wr)->key;
		wqe->wr.bind.mr_lkey = reg_wr(wr)->mr->lkey;
		wqe->wr.bind.access = reg_wr(wr)->access;
		break;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		wqe->wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		wqe->wr.rdma.rkey = rdma_wr(wr)->rkey;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		wqe->wr.atomic.remote_addr = atomic_wr(wr)->remote_addr;
		wqe->wr.atomic.compare_add = atomic_wr(wr)->compare_add;
		wqe->wr.atomic.swap = atomic_wr(wr)->swap;
		wqe->wr.atomic.rkey = atomic_wr(wr)->rkey;
		break;
	default:
		if (!mroce_qp_connected(qp)) {
			wqe->wr.ud.ah_num = to_mah(ud_wr(wr)->ah)->ah_num;
			wqe->wr.ud.remote_qpn = ud_wr(wr)->remote_qpn;
			wqe->wr.ud.remote_qkey = ud_wr(wr)->remote_qkey;
		}
		break;
	}

	if (wr->send_flags & IB_SEND_INLINE) {
		/* Kernel consumers pass kernel virtual addresses. */
		for (i = 0; i < wr->num_sge; i++) {
			memcpy(payload, (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			payload += wr->sg_list[i].length;
		}
		wqe->inline_len = inline_len;
		wqe->num_sge = 0;
		return;
	}
	for (i = 0; i < wr->num_sge; i++) {
		sge[i].addr = wr->sg_list[i].addr;
		sge[i].length = wr->sg_list[i].length;
		sge[i].lkey = wr->sg_list[i].lkey;
	}
}

/*
 * A user QP calls this with no work request: the doorbell of its SQ ring.
 * A kernel QP posts into the ring here.
 */
int mroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr)
{
	struct mroce_qp *qp = to_mqp(ibqp);
	struct mroce_kring *sq = &qp->sq;
	bool notify = false, more;
	unsigned long flags;
	u32 prod, inline_len;
	int err = 0;

	if (qp->is_user) {
		if (wr) {
			*bad_wr = wr;
			return -EINVAL;
		}
		mroce_count(to_mdev(ibqp->device), MROCE_CNT_SQ_DOORBELLS);
		/*
		 * Outside ERR the lock below is only for the flush: a move
		 * to ERR flushes what the ring holds then, this post's
		 * entries included.
		 */
		if (READ_ONCE(qp->state) != IB_QPS_ERR) {
			mroce_dp_kick_sq(qp);
			return 0;
		}
	} else {
		switch (READ_ONCE(qp->state)) {
		case IB_QPS_RESET:
		case IB_QPS_INIT:
		case IB_QPS_RTR:
			*bad_wr = wr;
			return -EINVAL;
		default:
			break;
		}
	}

	spin_lock_irqsave(&qp->sq_lock, flags);
	prod = sq->hdr->producer;
	for (; wr; wr = wr->next) {
		if (prod - sq->head >= sq->num) {
			err = -ENOMEM;
			break;
		}
		err = mroce_check_send_wr(qp, wr, &inline_len);
		if (err)
			break;
		mroce_build_send_wqe(qp, wr, inline_len,
				     mroce_kring_slot(sq, prod));
		smp_store_release(&sq->hdr->producer, ++prod);
	}
	if (err)
		*bad_wr = wr;
	more = mroce_qp_kick_sq(qp, &notify);
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	mroce_qp_flushed(qp, ibqp->send_cq, more, notify);
	mroce_dp_kick_sq(qp);
	return err;
}

/*
 * Post receive work requests into a ring the kernel produces (a kernel QP's
 * RQ or a kernel SRQ).  Caller holds the ring's lock.
 */
int mroce_recv_ring_post(struct mroce_kring *ring, u32 max_sge,
			 const struct ib_recv_wr *wr,
			 const struct ib_recv_wr **bad_wr)
{
	u32 prod = ring->hdr->producer;
	int i;

	for (; wr; wr = wr->next) {
		struct metaroce_recv_wqe *wqe;
		struct metaroce_sge *sge;

		if (prod - ring->head >= ring->num) {
			*bad_wr = wr;
			return -ENOMEM;
		}
		if (wr->num_sge < 0 || wr->num_sge > max_sge) {
			*bad_wr = wr;
			return -EINVAL;
		}
		wqe = mroce_kring_slot(ring, prod);
		wqe->wr_id = wr->wr_id;
		wqe->num_sge = wr->num_sge;
		wqe->reserved = 0;
		sge = (struct metaroce_sge *)(wqe + 1);
		for (i = 0; i < wr->num_sge; i++) {
			sge[i].addr = wr->sg_list[i].addr;
			sge[i].length = wr->sg_list[i].length;
			sge[i].lkey = wr->sg_list[i].lkey;
		}
		smp_store_release(&ring->hdr->producer, ++prod);
	}
	return 0;
}

/* As mroce_post_send(): a doorbell for user QPs, a post for kernel QPs. */
int mroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr)
{
	struct mroce_qp *qp = to_mqp(ibqp);
	bool notify = false, more;
	unsigned long flags;
	int err = 0;

	if ((qp->is_user && wr) || !qp->rq.hdr ||
	    READ_ONCE(qp->state) == IB_QPS_RESET) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->rq_lock, flags);
	if (wr)
		err = mroce_recv_ring_post(&qp->rq, qp->cap.max_recv_sge, wr,
					   bad_wr);
	more = mroce_qp_kick_rq(qp, &notify);
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	mroce_qp_flushed(qp, ibqp->recv_cq, more, notify);
	return err;
}

/*
 * The data path found a fatal error (IBTA 10.3.1, 9.9.3): the QP enters
 * ERR unless the consumer reset it meanwhile.  Process context.
 */
void mroce_qp_error(struct mroce_qp *qp)
{
	enum ib_qp_state cur;

	mutex_lock(&qp->state_lock);
	cur = qp->state;
	if (cur != IB_QPS_RESET && cur != IB_QPS_ERR) {
		WRITE_ONCE(qp->state, IB_QPS_ERR);
		ibdev_dbg(qp->ibqp.device, "qp %u %s -> ERR (transport error)\n",
			  qp->ibqp.qp_num, mroce_qps_names[cur]);
		mroce_dp_modify(qp, cur, IB_QPS_ERR, 0);
		mroce_qp_enter_err(qp);
	}
	mutex_unlock(&qp->state_lock);
}
