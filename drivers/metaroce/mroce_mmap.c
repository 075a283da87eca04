// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Rings shared with the provider (layout and ordering contract in
 * include/uapi/rdma/metaroce-abi.h) and their user mappings.
 *
 * A ring is one vmalloc_user() buffer.  For a user object it is owned by an
 * rdma_user_mmap_entry: destroying the object removes the entry, and the
 * RDMA core calls mroce_mmap_free() once the last mapping is gone, so the
 * memory never disappears under a process that still maps it.  A kernel
 * consumer's ring is freed directly.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/uverbs_ioctl.h>

#include "mroce_verbs.h"

static struct mroce_mmap_entry *to_mentry(struct rdma_user_mmap_entry *e)
{
	return container_of(e, struct mroce_mmap_entry, rdma);
}

/*
 * Allocate a ring of @num entries (a power of two) of @entry_size bytes.
 * With @udata, also make it mappable and describe the mapping in @mi.
 */
int mroce_kring_alloc(struct mroce_dev *mdev, struct mroce_kring *ring,
		      u32 num, u32 entry_size, struct ib_udata *udata,
		      struct metaroce_mmap *mi)
{
	struct mroce_ucontext *uc;
	struct mroce_mmap_entry *me;
	size_t size;
	void *buf;
	int err;

	if (WARN_ON(!is_power_of_2(num) || !is_power_of_2(entry_size)))
		return -EINVAL;
	size = PAGE_ALIGN(METAROCE_RING_HDR_SIZE + (size_t)num * entry_size);
	if (size > U32_MAX)
		return -EINVAL;
	buf = vmalloc_user(size);
	if (!buf)
		return -ENOMEM;

	memset(ring, 0, sizeof(*ring));
	ring->hdr = buf;
	ring->data = (u8 *)buf + METAROCE_RING_HDR_SIZE;
	ring->num = num;
	ring->entry_size = entry_size;
	ring->size = size;
	ring->mdev = mdev;
	atomic_inc(&mdev->res.num_ring);
	if (!udata)
		return 0;

	me = kzalloc(sizeof(*me), GFP_KERNEL);
	if (!me) {
		err = -ENOMEM;
		goto err_buf;
	}
	me->buf = buf;
	me->mdev = mdev;
	uc = rdma_udata_to_drv_context(udata, struct mroce_ucontext, ibuc);
	err = rdma_user_mmap_entry_insert(&uc->ibuc, &me->rdma, size);
	if (err)
		goto err_entry;
	ring->mentry = me;
	atomic_inc(&mdev->res.num_mmap);
	mi->offset = rdma_user_mmap_get_offset(&me->rdma);
	mi->size = size;
	mi->num_entries = num;
	mi->entry_size = entry_size;
	return 0;

err_entry:
	kfree(me);
err_buf:
	vfree(buf);
	atomic_dec(&mdev->res.num_ring);
	ring->hdr = NULL;
	return err;
}

void mroce_kring_free(struct mroce_kring *ring)
{
	if (!ring->hdr)
		return;
	if (ring->mentry) {
		rdma_user_mmap_entry_remove(&ring->mentry->rdma);
	} else {
		vfree(ring->hdr);
		atomic_dec(&ring->mdev->res.num_ring);
	}
	ring->hdr = NULL;
	ring->mentry = NULL;
}

/* Empty the ring (QP to RESET).  Caller holds the ring's lock. */
void mroce_kring_reset(struct mroce_kring *ring)
{
	if (!ring->hdr)
		return;
	ring->head = 0;
	WRITE_ONCE(ring->hdr->flags, 0);
	smp_store_release(&ring->hdr->consumer, 0);
	smp_store_release(&ring->hdr->producer, 0);
}

/*
 * Entries waiting for the kernel in a ring the provider produces.  A value
 * above ring->num means the producer index is garbage; callers treat the
 * queue as broken.  Caller holds the ring's lock.
 */
u32 mroce_kring_pending(struct mroce_kring *ring)
{
	return smp_load_acquire(&ring->hdr->producer) - ring->head;
}

int mroce_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *e;
	int err;

	e = rdma_user_mmap_entry_get(ibuc, vma);
	if (!e)
		return -EINVAL;
	err = remap_vmalloc_range(vma, to_mentry(e)->buf, 0);
	rdma_user_mmap_entry_put(e);
	return err;
}

void mroce_mmap_free(struct rdma_user_mmap_entry *rdma_entry)
{
	struct mroce_mmap_entry *me = to_mentry(rdma_entry);
	struct mroce_res *res = &me->mdev->res;

	vfree(me->buf);
	kfree(me);
	atomic_dec(&res->num_ring);
	atomic_dec(&res->num_mmap);
}
