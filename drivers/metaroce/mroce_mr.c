// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Memory regions: user memory pinned through ib_umem, and the DMA MR that
 * gives kernel consumers access to all of kernel memory.
 *
 * Keys are index << 8 | a random byte (IBTA 10.6.3.1 "key" portion), the
 * index naming the region in res.mr_xa; the index range bounds the number of
 * regions to the advertised max_mr.
 */
#include <linux/random.h>

#include "mroce_verbs.h"

#define MROCE_MR_ACCESS (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC | \
			 IB_ACCESS_RELAXED_ORDERING)

static int mroce_mr_check_access(int access)
{
	/* Features not offered (ODP, memory windows) are not bad input. */
	if (access & ~MROCE_MR_ACCESS)
		return access & (IB_ACCESS_ON_DEMAND | IB_ACCESS_MW_BIND) ?
		       -EOPNOTSUPP : -EINVAL;
	/* IBTA 10.6.3.1: remote write or atomic needs local write. */
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	return 0;
}

/* Reserve an index; the region is published by mroce_mr_publish(). */
static int mroce_mr_reserve(struct mroce_dev *mdev, struct mroce_mr *mr)
{
	u32 key;
	int err;

	err = xa_alloc_cyclic(&mdev->res.mr_xa, &mr->index, NULL,
			      XA_LIMIT(1, MROCE_MAX_MR), &mdev->res.next_mr,
			      GFP_KERNEL);
	if (err < 0)
		return err == -EBUSY ? -ENOMEM : err;
	atomic_inc(&mdev->res.num_mr);
	key = mr->index << 8 | get_random_u8();
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	return 0;
}

static void mroce_mr_publish(struct mroce_dev *mdev, struct mroce_mr *mr)
{
	xa_store(&mdev->res.mr_xa, mr->index, mr, GFP_KERNEL);
}

struct ib_mr *mroce_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct mroce_dev *mdev = to_mdev(ibpd->device);
	struct mroce_mr *mr;
	int err;

	err = mroce_mr_check_access(access);
	if (err)
		return ERR_PTR(err);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	err = mroce_mr_reserve(mdev, mr);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	mr->access = access;
	mr->ibmr.iova = 0;
	mr->ibmr.length = U64_MAX;
	mroce_mr_publish(mdev, mr);
	return &mr->ibmr;
}

struct ib_mr *mroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mdev(ibpd->device);
	struct mroce_mr *mr;
	int err;

	if (!length || length > MROCE_MAX_MR_SIZE)
		return ERR_PTR(-EINVAL);
	if (iova + length < iova)
		return ERR_PTR(-EINVAL);
	err = mroce_mr_check_access(access);
	if (err)
		return ERR_PTR(err);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->umem = ib_umem_get(&mdev->ibdev, start, length, access);
	if (IS_ERR(mr->umem)) {
		err = PTR_ERR(mr->umem);
		goto err_free;
	}
	err = mroce_mr_reserve(mdev, mr);
	if (err)
		goto err_umem;
	mr->access = access;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	mroce_mr_publish(mdev, mr);
	return &mr->ibmr;

err_umem:
	ib_umem_release(mr->umem);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

int mroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mdev(ibmr->device);
	struct mroce_mr *mr = to_mmr(ibmr);

	xa_erase(&mdev->res.mr_xa, mr->index);
	/* The data path looks regions up under RCU (mroce_mem.c). */
	synchronize_rcu();
	ib_umem_release(mr->umem);
	kfree(mr);
	atomic_dec(&mdev->res.num_mr);
	return 0;
}

/**
 * mroce_mr_invalidate() - remote invalidation of @rkey (IBTA 10.6.6)
 * @mdev: the device
 * @pd: protection domain of the QP that received the SEND with Invalidate
 * @rkey: the R_Key its IETH names
 *
 * Only a region made invalidatable, one of ib_alloc_mr() for fast
 * registration (IB_MR_TYPE_MEM_REG), may be invalidated; a region of an
 * ordinary registration may not (rdma_rxe refuses the same).  Only the
 * region's state changes: the data path then refuses its keys.
 *
 * Return: 0, or -EINVAL when no region of @pd carries @rkey or the region
 * cannot be invalidated.
 */
int mroce_mr_invalidate(struct mroce_dev *mdev, struct ib_pd *pd, u32 rkey)
{
	struct mroce_mr *mr;
	int err = -EINVAL;

	/* Regions are freed after a grace period (mroce_dereg_mr()). */
	rcu_read_lock();
	mr = xa_load(&mdev->res.mr_xa, rkey >> 8);
	if (mr && mr->ibmr.rkey == rkey && mr->ibmr.pd == pd &&
	    mr->ibmr.type == IB_MR_TYPE_MEM_REG) {
		WRITE_ONCE(mr->invalid, true);
		err = 0;
	}
	rcu_read_unlock();
	return err;
}
