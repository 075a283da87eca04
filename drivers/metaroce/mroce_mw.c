// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Memory windows (IBTA vol 1 10.6.7) and fast registration.
 *
 * A memory window gives remote access, through
 * its own R_Key, to a range of a memory region registered with
 * IB_ACCESS_MW_BIND, with rights of its own.
 *
 *  - Type 1: bound and rebound by a Bind Memory Window work request that
 *    libibverbs' ibv_bind_mw() posts for the consumer; binding with length
 *    0 leaves it unbound.  Any QP of its PD may use it.
 *  - Type 2 (2B): bound by an IBV_WR_BIND_MW work request while free,
 *    freed again by Local Invalidate or by a Send with Invalidate naming
 *    it; only the QP that bound it may use it.
 *
 * Every bind gives the window a new R_Key: same index, the key byte the
 * consumer chose (ibv_inc_rkey()), so accesses with an earlier R_Key fail.
 *
 * The memory operations of kernel consumers' fast registration (FRWR)
 * are here too: IB_WR_REG_MR puts in force the mapping of a region from
 * ib_alloc_mr() (mroce_mr.c), IB_WR_LOCAL_INV or a SEND with invalidate
 * take it out.
 *
 * Binding, registration and invalidation run in the task of the QP whose
 * send queue holds the work request (mroce_req.c), in order with its other
 * work requests; remote accesses look windows and regions up under RCU
 * from any QP's task (mroce_mem.c).  A window names its region by index and serial, never by
 * pointer, so deregistering the region makes the window useless without
 * a reference between the two.
 */
#include "mroce_dp.h"

#define MROCE_MW_ACCESS (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ | \
			 IB_ACCESS_REMOTE_ATOMIC)

int mroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mdev(ibmw->device);
	struct mroce_mw *mw = to_mmw(ibmw);
	int err;

	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EINVAL;
	err = mroce_res_take(&mdev->res, &mdev->res.num_mw, MROCE_LIM_MW);
	if (err)
		return err;
	spin_lock_init(&mw->lock);
	err = mroce_key_reserve(&mdev->res.mw_xa, MROCE_KEY_MW, &mw->index);
	if (err)
		goto err_count;
	ibmw->rkey = mw->index << 8 | get_random_u8();
	xa_store(&mdev->res.mw_xa, mw->index, mw, GFP_KERNEL);
	return 0;

err_count:
	atomic_dec(&mdev->res.num_mw);
	return err;
}

int mroce_dealloc_mw(struct ib_mw *ibmw)
{
	struct mroce_dev *mdev = to_mdev(ibmw->device);
	struct mroce_mw *mw = to_mmw(ibmw);

	xa_erase(&mdev->res.mw_xa, mw->index);
	/* Remote accesses find windows under RCU; the core frees @mw next. */
	synchronize_rcu();
	atomic_dec(&mdev->res.num_mw);
	return 0;
}

/* The window @rkey names, if it is current.  Caller holds RCU. */
static struct mroce_mw *mroce_mw_find(struct mroce_dev *mdev, u32 rkey)
{
	struct mroce_mw *mw = xa_load(&mdev->res.mw_xa, rkey >> 8);

	return mw && READ_ONCE(mw->ibmw.rkey) == rkey ? mw : NULL;
}

/*
 * The region a bind names by L_Key, if it may carry the window: same PD as
 * the QP, IB_ACCESS_MW_BIND, local write under remote write or atomic
 * rights (IBTA 10.6.7), the range inside it.  Caller holds RCU.
 */
static struct mroce_mr *mroce_mw_bind_mr(struct mroce_dpqp *dp, u32 lkey,
					 u64 va, u64 len, int access)
{
	struct mroce_mr *mr;

	if (mroce_key_is_mw(lkey))
		return NULL;
	mr = xa_load(&dp->mdev->res.mr_xa, lkey >> 8);
	if (!mr || mr->ibmr.lkey != lkey || !mr->umem ||
	    mr->ibmr.pd != dp->qp->ibqp.pd)
		return NULL;
	if (!(mr->access & IB_ACCESS_MW_BIND))
		return NULL;
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(mr->access & IB_ACCESS_LOCAL_WRITE))
		return NULL;
	if (!mroce_range_in(va, len, mr->iova, mr->length))
		return NULL;
	return mr;
}

/**
 * mroce_mw_bind() - execute a Bind Memory Window work request
 * @dp: the QP's data path (its PD must own the window and the region)
 * @w: the WQE, copied out of the send queue
 *
 * The new R_Key (@w->ex) keeps the window's index (@w->wr.bind.mw_rkey
 * names the window).  A type 2 window must be free; a type 1 window is
 * rebound, or unbound by a length of 0.
 *
 * Return: IB_WC_SUCCESS or IB_WC_MW_BIND_ERR.  Caller holds dp->run_lock.
 */
u8 mroce_mw_bind(struct mroce_dpqp *dp, const struct metaroce_send_wqe *w)
{
	u32 new_rkey = w->ex, mr_index = 0;
	int access = w->wr.bind.access;
	u64 va = w->wr.bind.addr, len = w->wr.bind.length, serial = 0;
	struct mroce_mr *mr = NULL;
	struct mroce_mw *mw;
	u8 status = IB_WC_MW_BIND_ERR;

	lockdep_assert_held(&dp->run_lock);
	/* Local write means nothing to a window; consumers pass it anyway. */
	access &= ~IB_ACCESS_LOCAL_WRITE;
	if (access & ~MROCE_MW_ACCESS || (new_rkey ^ w->wr.bind.mw_rkey) >> 8)
		return status;
	/*
	 * The window by index only: libibverbs does not tell the provider
	 * when a type 2 bind took effect, so its copy of the R_Key may be
	 * an older one.  The PD check is what restricts binds.
	 */
	rcu_read_lock();
	mw = xa_load(&dp->mdev->res.mw_xa, w->wr.bind.mw_rkey >> 8);
	if (!mw || mw->ibmw.pd != dp->qp->ibqp.pd)
		goto out;
	if (len) {
		mr = mroce_mw_bind_mr(dp, w->wr.bind.mr_lkey, va, len, access);
		if (!mr)
			goto out;
		mr_index = mr->index;
		serial = mr->serial;
	} else if (mw->ibmw.type == IB_MW_TYPE_2) {
		goto out;
	}

	spin_lock_bh(&mw->lock);
	if (mw->ibmw.type == IB_MW_TYPE_1 || !mw->bound) {
		mw->bound = len != 0;
		mw->mr_index = mr_index;
		mw->mr_serial = serial;
		mw->qpn = dp->qp->ibqp.qp_num;
		mw->va = va;
		mw->length = len;
		mw->access = access;
		WRITE_ONCE(mw->ibmw.rkey, new_rkey);
		status = IB_WC_SUCCESS;
	}
	spin_unlock_bh(&mw->lock);
out:
	rcu_read_unlock();
	return status;
}

/**
 * mroce_mw_invalidate() - free a type 2 window (IBTA 10.6.7)
 * @dp: the QP that executes the invalidation
 * @rkey: the window's R_Key
 * @remote: from a Send with Invalidate (the window must have been bound
 *	through @dp's QP), else a Local Invalidate work request
 *
 * Return: 0, or -EINVAL if @rkey names no bound type 2 window of the QP's
 * PD.  Caller holds dp->run_lock.
 */
int mroce_mw_invalidate(struct mroce_dpqp *dp, u32 rkey, bool remote)
{
	u32 qpn = dp->qp->ibqp.qp_num;
	struct mroce_mw *mw;
	int err = -EINVAL;

	lockdep_assert_held(&dp->run_lock);
	rcu_read_lock();
	mw = mroce_mw_find(dp->mdev, rkey);
	if (mw && mw->ibmw.type == IB_MW_TYPE_2 &&
	    mw->ibmw.pd == dp->qp->ibqp.pd) {
		spin_lock_bh(&mw->lock);
		if (mw->bound && (!remote || mw->qpn == qpn)) {
			mw->bound = false;
			err = 0;
		}
		spin_unlock_bh(&mw->lock);
	}
	rcu_read_unlock();
	return err;
}

/**
 * mroce_mw_lookup() - the region behind a remote access through a window
 * @dp: the QP that received the request
 * @rkey: the R_Key of the request, a window's
 * @access: IB_ACCESS_REMOTE_* right needed
 * @va: first byte
 * @len: bytes
 *
 * The window must be current (@rkey), bound, of the QP's PD, for type 2
 * bound through this QP, grant @access and hold the range; the region it
 * names must still be the one it was bound to, and hold the range too.
 *
 * Return: the region, valid until rcu_read_unlock(), or NULL.  Caller
 * holds RCU.
 */
struct mroce_mr *mroce_mw_lookup(struct mroce_dpqp *dp, u32 rkey, int access,
				 u64 va, u64 len)
{
	struct mroce_mw *mw = mroce_mw_find(dp->mdev, rkey);
	struct mroce_mr *mr;
	bool ok;
	u32 idx;
	u64 serial;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "mroce_mw_lookup without RCU");
	if (!mw || mw->ibmw.pd != dp->qp->ibqp.pd)
		return NULL;
	spin_lock_bh(&mw->lock);
	ok = mw->bound && mw->ibmw.rkey == rkey &&
	     (mw->access & access) == access &&
	     (mw->ibmw.type == IB_MW_TYPE_1 ||
	      mw->qpn == dp->qp->ibqp.qp_num) &&
	     mroce_range_in(va, len, mw->va, mw->length);
	idx = mw->mr_index;
	serial = mw->mr_serial;
	spin_unlock_bh(&mw->lock);
	if (!ok)
		return NULL;
	mr = xa_load(&dp->mdev->res.mr_xa, idx);
	if (!mr || mr->serial != serial ||
	    !mroce_range_in(va, len, mr->iova, mr->length))
		return NULL;
	return mr;
}

/* The fast-registration region of @dp's PD at key index @index. */
static struct mroce_mr *mroce_fr_find(struct mroce_dpqp *dp, u32 index)
{
	struct mroce_mr *mr = xa_load(&dp->mdev->res.mr_xa, index);

	if (!mr || !mr->fr_pages || mr->ibmr.pd != dp->qp->ibqp.pd)
		return NULL;
	return mr;
}

/**
 * mroce_key_invalidate() - Local Invalidate, or the invalidation a Send
 * with Invalidate asks for (IBTA 10.6.7, 9.4.1.1.x)
 * @dp: the QP that executes it
 * @key: the key to invalidate
 * @remote: from a Send with Invalidate
 *
 * Type 2 windows and fast-registration regions of the QP's PD can be
 * invalidated; a memory region registered otherwise cannot.
 *
 * Return: 0 or -EINVAL.  Caller holds dp->run_lock.
 */
int mroce_key_invalidate(struct mroce_dpqp *dp, u32 key, bool remote)
{
	struct mroce_mr *mr;
	int err = -EINVAL;

	lockdep_assert_held(&dp->run_lock);
	if (mroce_key_is_mw(key))
		return mroce_mw_invalidate(dp, key, remote);
	rcu_read_lock();
	mr = mroce_fr_find(dp, key >> 8);
	if (mr && mr->fr_key == key) {
		WRITE_ONCE(mr->fr_valid, false);
		err = 0;
	}
	rcu_read_unlock();
	return err;
}

/**
 * mroce_mr_fast_reg() - execute IB_WR_REG_MR (kernel consumers)
 * @dp: the QP's data path (its PD must own the region)
 * @w: the WQE: wr.bind.mr_lkey names the region, ex holds the new key
 *	(its low byte is the key portion), wr.bind.access the rights
 *
 * Puts in force the mapping map_mr_sg made: the region then grants
 * @access to [ibmr.iova, ibmr.iova + ibmr.length) under the new key.
 *
 * Return: IB_WC_SUCCESS or IB_WC_LOC_QP_OP_ERR.  Caller holds
 * dp->run_lock.
 */
u8 mroce_mr_fast_reg(struct mroce_dpqp *dp, const struct metaroce_send_wqe *w)
{
	u8 status = IB_WC_LOC_QP_OP_ERR;
	struct mroce_mr *mr;

	lockdep_assert_held(&dp->run_lock);
	rcu_read_lock();
	mr = mroce_fr_find(dp, w->wr.bind.mr_lkey >> 8);
	if (mr && !is_power_of_2(mr->ibmr.page_size))
		mr = NULL;
	if (mr) {
		WRITE_ONCE(mr->fr_valid, false);
		mr->fr_key = mr->index << 8 | (w->ex & 0xff);
		mr->access = w->wr.bind.access;
		mr->iova = mr->ibmr.iova;
		mr->length = mr->ibmr.length;
		mr->fr_shift = ilog2(mr->ibmr.page_size);
		smp_store_release(&mr->fr_valid, true);
		status = IB_WC_SUCCESS;
	}
	rcu_read_unlock();
	return status;
}
