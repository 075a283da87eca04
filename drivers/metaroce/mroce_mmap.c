// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Rings shared with the provider (layout and ordering contract in
 * include/uapi/rdma/metaroce-abi.h) and their user mappings.
 *
 * A ring is one vmalloc_user() buffer.  For a user object it is owned by an
 * rdma_user_mmap_entry: destroying the object removes the entry, and the
 * RDMA core then calls mroce_mmap_free(), which vfree()s the buffer.  The
 * memory never disappears under a process that still maps it: the mapping
 * (remap_vmalloc_range(), which inserts each page with its own reference)
 * keeps the pages until it is unmapped.  A kernel consumer's ring is freed
 * directly.
 *
 * The same holds when the device goes away under a process (netdev or
 * namespace deleted, module unloaded): the RDMA core destroys the objects
 * of every user context (uverbs disassociation) while the process keeps
 * its mappings.  Before a user ring is given up its LIVE flag is cleared,
 * so the provider fails later posts and polls on it instead of trusting
 * indices nobody moves any more.  (The core's own zapping of mappings,
 * zap_vma_ptes(), is for PFN mappings of device memory that vanishes;
 * these pages cannot vanish while mapped.)
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
	ring->hdr->flags = METAROCE_RING_F_LIVE;
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
		/* The process may still map it (see the top of the file). */
		smp_store_release(&ring->hdr->flags, 0);
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
	WRITE_ONCE(ring->hdr->flags, METAROCE_RING_F_LIVE);
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

/*
 * The device is going away under the process owning @ibuc.  Before calling
 * this the RDMA core destroyed every object of the context, which stopped
 * their data paths and marked their rings dead (mroce_kring_free()):
 * nothing of the context is left running in the kernel, and the process
 * gets IB_EVENT_DEVICE_FATAL and EIO from every later command.  Offering
 * this operation is what lets the core do so at once instead of waiting,
 * in device removal, for the process to close the device.
 */
void mroce_disassociate_ucontext(struct ib_ucontext *ibuc)
{
	ibdev_dbg(ibuc->device, "user context disassociated\n");
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
