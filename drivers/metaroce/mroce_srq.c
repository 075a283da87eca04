// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Shared receive queues (IBTA 10.2.9): a ring of receive work requests
 * shared by the QPs attached to it, numbered in res.srq_xa.  The limit
 * (IBTA 10.2.9.4) is armed by modify_srq and reported as
 * IB_EVENT_SRQ_LIMIT_REACHED by the responder when it consumes a WQE that
 * leaves fewer than the limit; resizing is not supported
 * (IB_DEVICE_SRQ_RESIZE is not advertised).
 */
#include "mroce_verbs.h"

int mroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mdev(ibsrq->device);
	struct metaroce_create_srq_resp resp = {};
	struct mroce_srq *srq = to_msrq(ibsrq);
	struct ib_srq_attr *attr = &init->attr;
	u32 num, esz;
	int err;

	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (attr->max_wr < 1 || attr->max_wr > MROCE_MAX_SRQ_WR ||
	    attr->max_sge > MROCE_MAX_SGE || attr->srq_limit > attr->max_wr)
		return -EINVAL;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;
	err = mroce_res_take(&mdev->res, &mdev->res.num_srq, MROCE_LIM_SRQ);
	if (err)
		return err;

	spin_lock_init(&srq->lock);
	num = roundup_pow_of_two(attr->max_wr);
	esz = roundup_pow_of_two(sizeof(struct metaroce_recv_wqe) +
				 max_t(u32, attr->max_sge, 1) *
				 sizeof(struct metaroce_sge));
	err = xa_alloc_cyclic_irq(&mdev->res.srq_xa, &srq->srq_num, NULL,
				  XA_LIMIT(1, MROCE_MAX_SRQ),
				  &mdev->res.next_srq, GFP_KERNEL);
	if (err < 0)
		goto err_count;
	err = mroce_kring_alloc(mdev, &srq->ring, num, esz, udata, &resp.rq);
	if (err)
		goto err_num;
	attr->max_wr = num;
	attr->max_sge = min_t(u32, MROCE_MAX_SGE,
			      (esz - sizeof(struct metaroce_recv_wqe)) /
			      sizeof(struct metaroce_sge));
	srq->max_sge = attr->max_sge;
	srq->limit = attr->srq_limit;
	if (udata) {
		resp.srq_num = srq->srq_num;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_ring;
	}
	xa_store_irq(&mdev->res.srq_xa, srq->srq_num, srq, GFP_KERNEL);
	return 0;

err_ring:
	mroce_kring_free(&srq->ring);
err_num:
	xa_erase_irq(&mdev->res.srq_xa, srq->srq_num);
err_count:
	atomic_dec(&mdev->res.num_srq);
	return err;
}

int mroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct mroce_srq *srq = to_msrq(ibsrq);
	unsigned long flags;

	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EINVAL;
	if (mask & IB_SRQ_MAX_WR)
		return -EINVAL;
	if (mask & IB_SRQ_LIMIT) {
		if (attr->srq_limit > srq->ring.num)
			return -EINVAL;
		spin_lock_irqsave(&srq->lock, flags);
		srq->limit = attr->srq_limit;
		spin_unlock_irqrestore(&srq->lock, flags);
	}
	return 0;
}

int mroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct mroce_srq *srq = to_msrq(ibsrq);

	attr->max_wr = srq->ring.num;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = READ_ONCE(srq->limit);
	return 0;
}

int mroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mdev(ibsrq->device);
	struct mroce_srq *srq = to_msrq(ibsrq);

	xa_erase_irq(&mdev->res.srq_xa, srq->srq_num);
	mroce_kring_free(&srq->ring);
	atomic_dec(&mdev->res.num_srq);
	return 0;
}

/* Kernel consumers only: the provider posts to a user SRQ's ring itself. */
int mroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr)
{
	struct mroce_srq *srq = to_msrq(ibsrq);
	unsigned long flags;
	int err;

	if (ibsrq->uobject) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&srq->lock, flags);
	err = mroce_recv_ring_post(&srq->ring, srq->max_sge, wr, bad_wr);
	spin_unlock_irqrestore(&srq->lock, flags);
	return err;
}
