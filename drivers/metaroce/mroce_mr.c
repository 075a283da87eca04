// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Memory regions: user memory pinned through ib_umem, dma-buf memory
 * (mroce_dmabuf.c), and the DMA MR that gives kernel consumers access to
 * all of kernel memory.
 *
 * Keys are index << 8 | a random byte (IBTA 10.6.3.1 "key" portion), the
 * index naming the region in res.mr_xa.  Indices are drawn at random from a
 * sparse space (mroce_key_reserve()), so that a remote peer cannot predict
 * the R_Key of a region from the keys it was given for others.
 */
#include <linux/random.h>

#include "mroce_verbs.h"

#define MROCE_MR_ACCESS (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC | \
			 IB_ACCESS_MW_BIND | IB_ACCESS_RELAXED_ORDERING)

static int mroce_mr_check_access(int access)
{
	/* A feature not offered (ODP) is not bad input. */
	if (access & ~MROCE_MR_ACCESS)
		return access & IB_ACCESS_ON_DEMAND ? -EOPNOTSUPP : -EINVAL;
	/* IBTA 10.6.3.1: remote write or atomic needs local write. */
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	return 0;
}

/**
 * mroce_key_reserve() - reserve a random key index in @xa
 * @xa: res.mr_xa or res.mw_xa
 * @kind: MROCE_KEY_MR or MROCE_KEY_MW: the top bit of the index
 * @index: the index reserved (a NULL entry until the object is published)
 *
 * A key is index << 8 | key byte.  The index is drawn uniformly from the
 * 2^23 - 1 values of its kind, so with n objects alive a guessed 32-bit
 * key names one with probability n / 2^31 instead of the near certainty a
 * sequential index gives (rxe's keys are consecutive).  A drawn index that
 * is taken is drawn again; with at most max_mr objects of a kind
 * (2^16 of 2^23) a draw collides with probability below 1/128, so
 * MROCE_KEY_TRIES draws all colliding does not happen in practice.
 *
 * Return: 0 or -ENOMEM.
 */
int mroce_key_reserve(struct xarray *xa, u32 kind, u32 *index)
{
	unsigned int i;
	int err = -EBUSY;
	u32 idx;

	for (i = 0; i < MROCE_KEY_TRIES && err == -EBUSY; i++) {
		idx = kind | get_random_u32_inclusive(1, MROCE_KEY_IDX_MASK);
		err = xa_insert(xa, idx, NULL, GFP_KERNEL);
	}
	if (err)
		return err == -EBUSY ? -ENOMEM : err;
	*index = idx;
	return 0;
}

/* Reserve an index; the region is published by mroce_mr_publish(). */
static int mroce_mr_reserve(struct mroce_dev *mdev, struct mroce_mr *mr)
{
	u32 key;
	int err;

	err = mroce_res_take(&mdev->res, &mdev->res.num_mr, MROCE_LIM_MR);
	if (err)
		return err;
	err = mroce_key_reserve(&mdev->res.mr_xa, MROCE_KEY_MR, &mr->index);
	if (err) {
		atomic_dec(&mdev->res.num_mr);
		return err;
	}
	key = mr->index << 8 | get_random_u8();
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	return 0;
}

static void mroce_mr_publish(struct mroce_dev *mdev, struct mroce_mr *mr)
{
	mr->serial = atomic64_inc_return(&mdev->res.mr_serial);
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
	mr->length = U64_MAX;
	mroce_mr_publish(mdev, mr);
	return &mr->ibmr;
}

/*
 * The page array of a user region: one pointer per pinned page (2 MiB for
 * 1 GiB of 4 KiB pages), built once here instead of walking the
 * scatterlist from its start for every packet.
 */
static int mroce_mr_map_pages(struct mroce_mr *mr)
{
	struct sg_table *sgt = &mr->umem->sgt_append.sgt;
	size_t n = ib_umem_num_pages(mr->umem), i = 0;
	struct sg_page_iter iter;

	mr->pages = kvmalloc_array(n, sizeof(*mr->pages), GFP_KERNEL);
	if (!mr->pages)
		return -ENOMEM;
	for_each_sgtable_page(sgt, &iter, 0) {
		if (i == n)
			break;
		mr->pages[i++] = sg_page_iter_page(&iter);
	}
	mr->npages = i;
	return 0;
}

/* A user region, once its length, address space and rights check out. */
static struct mroce_mr *mroce_mr_alloc_user(struct mroce_dev *mdev,
					    u64 length, u64 iova, int access)
{
	struct mroce_mr *mr;
	int err;

	if (!length || length > mroce_limit(&mdev->res, MROCE_LIM_MR_SIZE))
		return ERR_PTR(-EINVAL);
	if (iova + length < iova)
		return ERR_PTR(-EINVAL);
	err = mroce_mr_check_access(access);
	if (err)
		return ERR_PTR(err);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	return mr ? mr : ERR_PTR(-ENOMEM);
}

/* Give a user region its key and publish it. */
static int mroce_mr_finish_user(struct mroce_dev *mdev, struct mroce_mr *mr,
				u64 iova, u64 length, int access)
{
	int err = mroce_mr_reserve(mdev, mr);

	if (err)
		return err;
	mr->access = access;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	mr->iova = iova;
	mr->length = length;
	mroce_mr_publish(mdev, mr);
	return 0;
}

struct ib_mr *mroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mdev(ibpd->device);
	struct mroce_mr *mr;
	int err;

	mr = mroce_mr_alloc_user(mdev, length, iova, access);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->umem = ib_umem_get(&mdev->ibdev, start, length, access);
	if (IS_ERR(mr->umem)) {
		err = PTR_ERR(mr->umem);
		goto err_free;
	}
	err = mroce_mr_map_pages(mr);
	if (err)
		goto err_umem;
	err = mroce_mr_finish_user(mdev, mr, iova, length, access);
	if (err)
		goto err_pages;
	return &mr->ibmr;

err_pages:
	kvfree(mr->pages);
err_umem:
	ib_umem_release(mr->umem);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

/**
 * mroce_reg_user_mr_dmabuf() - a region of a dma-buf (ibv_reg_dmabuf_mr)
 * @ibpd: its protection domain
 * @offset: first byte in the buffer (same offset in its page as @iova:
 *	checked by the RDMA core)
 * @length: bytes
 * @iova: the address of byte @offset in the region's address space
 * @fd: the dma-buf
 * @access: IB_ACCESS_* rights
 * @udata: unused
 *
 * The data path reaches the bytes through the exporter's CPU mapping and
 * stops at the first access after the exporter revokes the buffer
 * (mroce_dmabuf.c).
 */
struct ib_mr *mroce_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset,
				       u64 length, u64 iova, int fd,
				       int access, struct ib_udata *udata)
{
	struct mroce_mr *mr = mroce_mr_alloc_user(to_mdev(ibpd->device),
						  length, iova, access);
	int err;

	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->dmabuf = mroce_dmabuf_get(ibpd->device, fd, offset, length);
	if (IS_ERR(mr->dmabuf)) {
		err = PTR_ERR(mr->dmabuf);
		goto err_free;
	}
	err = mroce_mr_finish_user(to_mdev(ibpd->device), mr, iova, length,
				   access);
	if (err)
		goto err_put;
	return &mr->ibmr;

err_put:
	mroce_dmabuf_put(mr->dmabuf);
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
	kvfree(mr->pages);
	kfree(mr->fr_pages);
	ib_umem_release(mr->umem);
	if (mr->dmabuf)
		mroce_dmabuf_put(mr->dmabuf);
	kfree(mr);
	atomic_dec(&mdev->res.num_mr);
	return 0;
}

/**
 * mroce_alloc_mr() - a region for fast registration (FRWR)
 * @ibpd: its protection domain
 * @type: IB_MR_TYPE_MEM_REG only
 * @max_num_sg: pages map_mr_sg may map
 *
 * Kernel consumers map a scatterlist into it (mroce_map_mr_sg()), then
 * register it with an IB_WR_REG_MR work request and invalidate it with
 * IB_WR_LOCAL_INV or a peer's SEND with invalidate (IBTA 10.6.3.x fast
 * registration, 10.8.2 memory management extensions); it grants no access
 * before the first registration executes.
 */
struct ib_mr *mroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg)
{
	struct mroce_dev *mdev = to_mdev(ibpd->device);
	struct mroce_mr *mr;
	int err;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EINVAL);
	if (!max_num_sg || max_num_sg > MROCE_MAX_FR_PAGES)
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->fr_pages = kcalloc(max_num_sg, sizeof(u64), GFP_KERNEL);
	if (!mr->fr_pages) {
		err = -ENOMEM;
		goto err_free;
	}
	mr->fr_max = max_num_sg;
	err = mroce_mr_reserve(mdev, mr);
	if (err)
		goto err_pages;
	mr->fr_key = mr->ibmr.lkey;
	mroce_mr_publish(mdev, mr);
	return &mr->ibmr;

err_pages:
	kfree(mr->fr_pages);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

static int mroce_mr_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct mroce_mr *mr = to_mmr(ibmr);

	if (mr->fr_npages == mr->fr_max)
		return -ENOMEM;
	mr->fr_pages[mr->fr_npages++] = addr;
	return 0;
}

/*
 * ib_map_mr_sg(): ib_sg_to_pages() sets ibmr.iova, ibmr.length and
 * ibmr.page_size and hands us each page; the registration in force is only
 * replaced when IB_WR_REG_MR executes.
 */
int mroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset)
{
	to_mmr(ibmr)->fr_npages = 0;
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, mroce_mr_set_page);
}
