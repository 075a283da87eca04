// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completion queues.  The kernel produces struct metaroce_cqe entries into
 * the CQ ring; a user CQ is consumed by the provider's poll_cq in
 * userspace, a kernel CQ by mroce_poll_cq().  Notification (IBTA 11.4.2.2)
 * is armed through req_notify_cq and fires once per arming.
 */
#include "mroce_verbs.h"

int mroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mdev(ibcq->device);
	struct metaroce_create_cq_resp resp = {};
	struct mroce_cq *cq = to_mcq(ibcq);
	u32 num;
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->cqe < 1 || attr->cqe > mroce_limit(&mdev->res, MROCE_LIM_CQE))
		return -EINVAL;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;
	err = mroce_res_take(&mdev->res, &mdev->res.num_cq, MROCE_LIM_CQ);
	if (err)
		return err;

	spin_lock_init(&cq->lock);
	num = roundup_pow_of_two(attr->cqe);
	err = mroce_kring_alloc(mdev, &cq->ring, num,
				sizeof(struct metaroce_cqe), udata, &resp.cq);
	if (err)
		goto err_count;
	if (udata) {
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_ring;
	}
	cq->ibcq.cqe = num;
	return 0;

err_ring:
	mroce_kring_free(&cq->ring);
err_count:
	atomic_dec(&mdev->res.num_cq);
	return err;
}

int mroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct mroce_cq *cq = to_mcq(ibcq);

	mroce_kring_free(&cq->ring);
	atomic_dec(&to_mdev(ibcq->device)->res.num_cq);
	return 0;
}

/*
 * Move the unconsumed entries to a ring of @cqe entries.  The provider holds
 * its CQ lock across the command, so the consumer index is stable.
 */
int mroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct metaroce_resize_cq_resp resp = {};
	struct mroce_cq *cq = to_mcq(ibcq);
	struct mroce_kring ring, old;
	unsigned long flags;
	u32 num, cons, n, i;
	int err;

	if (cqe < 1 ||
	    cqe > mroce_limit(&to_mdev(ibcq->device)->res, MROCE_LIM_CQE))
		return -EINVAL;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;
	num = roundup_pow_of_two(cqe);
	err = mroce_kring_alloc(to_mdev(ibcq->device), &ring, num,
				sizeof(struct metaroce_cqe), udata, &resp.cq);
	if (err)
		return err;
	if (udata) {
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_ring;
	}

	spin_lock_irqsave(&cq->lock, flags);
	cons = READ_ONCE(cq->ring.hdr->consumer);
	n = cq->ring.head - cons;
	if (n > num) {
		spin_unlock_irqrestore(&cq->lock, flags);
		err = -EINVAL;
		goto err_ring;
	}
	for (i = 0; i < n; i++)
		memcpy(mroce_kring_slot(&ring, i),
		       mroce_kring_slot(&cq->ring, cons + i),
		       sizeof(struct metaroce_cqe));
	ring.head = n;
	smp_store_release(&ring.hdr->producer, n);
	old = cq->ring;
	cq->ring = ring;
	cq->ibcq.cqe = num;
	cq->overflowed = false;
	spin_unlock_irqrestore(&cq->lock, flags);

	mroce_kring_free(&old);
	return 0;

err_ring:
	mroce_kring_free(&ring);
	return err;
}

static void mroce_cq_overflow(struct mroce_cq *cq)
{
	struct ib_event ev = {
		.device = cq->ibcq.device,
		.element.cq = &cq->ibcq,
		.event = IB_EVENT_CQ_ERR,
	};

	if (cq->ibcq.event_handler)
		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
}

/* libibverbs' IBV_WC_WITH_INV; the kernel's IB_WC_WITH_INVALIDATE differs. */
#define MROCE_UWC_WITH_INV	(1U << 3)

/**
 * mroce_cq_add() - add one completion, without calling the handler
 * @cq: the CQ
 * @cqe: the completion
 * @solicited: it completes a solicited event (IBTA 11.4.2.2)
 *
 * For callers that hold a spinlock of a work queue: a kernel consumer's
 * completion handler may post work requests, which takes those locks, so
 * the handler is called with mroce_cq_notify() once they are released.
 * A user CQ carries libibverbs flag values, which the provider copies
 * through unchanged.
 *
 * Return: 1 when the consumer asked to be notified, 0, or -ENOSPC when the
 * CQ is full (IBTA 11.4.2.1: CQ overrun; IB_EVENT_CQ_ERR is reported once,
 * here, through the CQ's event handler, which must not post).  A consumer
 * index the provider corrupted reads as a full CQ.
 */
int mroce_cq_add(struct mroce_cq *cq, const struct metaroce_cqe *cqe,
		 bool solicited)
{
	struct mroce_kring *ring = &cq->ring;
	struct metaroce_cqe *slot;
	bool overflow = false;
	unsigned long flags;
	int ret = 0;
	u32 used;

	spin_lock_irqsave(&cq->lock, flags);
	used = ring->head - smp_load_acquire(&ring->hdr->consumer);
	if (used >= ring->num) {
		overflow = !cq->overflowed;
		cq->overflowed = true;
		spin_unlock_irqrestore(&cq->lock, flags);
		if (overflow)
			mroce_cq_overflow(cq);
		return -ENOSPC;
	}
	slot = mroce_kring_slot(ring, ring->head);
	memcpy(slot, cqe, sizeof(*cqe));
	if (cq->ibcq.uobject && (cqe->wc_flags & IB_WC_WITH_INVALIDATE))
		slot->wc_flags = (cqe->wc_flags & ~IB_WC_WITH_INVALIDATE) |
				 MROCE_UWC_WITH_INV;
	smp_store_release(&ring->hdr->producer, ++ring->head);
	if (cq->notify == MROCE_CQ_NOTIFY_NEXT ||
	    (cq->notify == MROCE_CQ_NOTIFY_SOLICITED && solicited)) {
		cq->notify = MROCE_CQ_NOTIFY_NONE;
		ret = 1;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return ret;
}

/* Call the completion handler; no lock of ours may be held. */
void mroce_cq_notify(struct mroce_cq *cq)
{
	if (cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
}

/*
 * Add one completion and notify: mroce_cq_add() for callers without locks.
 * Returns 0, or -ENOSPC when the CQ overran.
 */
int mroce_cq_post(struct mroce_cq *cq, const struct metaroce_cqe *cqe,
		  bool solicited)
{
	int ret = mroce_cq_add(cq, cqe, solicited);

	if (ret > 0)
		mroce_cq_notify(cq);
	return min(ret, 0);
}

static void mroce_cqe_to_wc(struct mroce_dev *mdev,
			    const struct metaroce_cqe *cqe, struct ib_wc *wc)
{
	struct mroce_qp *qp;

	memset(wc, 0, sizeof(*wc));
	wc->wr_id = cqe->wr_id;
	wc->status = cqe->status;
	wc->opcode = cqe->opcode;
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = cqe->byte_len;
	wc->ex.imm_data = (__force __be32)cqe->ex;
	qp = xa_load(&mdev->res.qp_xa, cqe->qp_num);
	wc->qp = qp ? &qp->ibqp : NULL;
	wc->src_qp = cqe->src_qp;
	wc->wc_flags = cqe->wc_flags;
	wc->pkey_index = cqe->pkey_index;
	wc->slid = cqe->slid;
	wc->sl = cqe->sl;
	wc->dlid_path_bits = cqe->dlid_path_bits;
	wc->port_num = cqe->port_num;
	/*
	 * ib_init_ah_attr_from_wc() builds the reply's AH of a MAD (ib_cm)
	 * from the GRH; the header type says whether it holds IPv4 or IPv6.
	 */
	if (cqe->network_hdr_type) {
		wc->network_hdr_type = cqe->network_hdr_type;
		wc->wc_flags |= IB_WC_WITH_NETWORK_HDR_TYPE;
	}
}

/* Kernel consumers only: user CQs are polled in userspace. */
int mroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct mroce_dev *mdev = to_mdev(ibcq->device);
	struct mroce_cq *cq = to_mcq(ibcq);
	struct mroce_kring *ring = &cq->ring;
	unsigned long flags;
	u32 cons;
	int n = 0;

	spin_lock_irqsave(&cq->lock, flags);
	cons = ring->hdr->consumer;
	while (n < num_entries && cons != ring->head) {
		mroce_cqe_to_wc(mdev, mroce_kring_slot(ring, cons), &wc[n]);
		cons++;
		n++;
	}
	smp_store_release(&ring->hdr->consumer, cons);
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

int mroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct mroce_cq *cq = to_mcq(ibcq);
	unsigned long irqflags;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	if ((flags & IB_CQ_SOLICITED_MASK) == IB_CQ_NEXT_COMP)
		cq->notify = MROCE_CQ_NOTIFY_NEXT;
	else if (cq->notify != MROCE_CQ_NOTIFY_NEXT)
		cq->notify = MROCE_CQ_NOTIFY_SOLICITED;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) &&
	    cq->ring.head != READ_ONCE(cq->ring.hdr->consumer))
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}
