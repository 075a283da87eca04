// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * dma-buf memory regions (ibv_reg_dmabuf_mr, the reg_user_mr_dmabuf verb):
 * the pages of a region come from a dma-buf, e.g. GPU memory exported by
 * its DRM driver.  Documentation/verbs.rst, "dma-buf memory regions", says
 * why it is done this way; in short:
 *
 *  - MetaRoCE copies with the CPU, so it needs a kernel mapping, not DMA
 *    addresses: it takes the exporter's own CPU mapping, dma_buf_vmap(),
 *    the dma-buf interface for kernel CPU access.  The scatterlist of a
 *    mapped attachment carries DMA addresses; its struct pages are the
 *    exporter's business (CONFIG_DMABUF_DEBUG scrambles them) and do not
 *    exist for device memory.
 *  - ib_umem_dmabuf_get() cannot be used: it attaches ib_device.dma_device,
 *    which is NULL on a virtual-DMA device like MetaRoCE (kernel consumers
 *    get kernel addresses from ib_dma_map_*()), and dma_buf_dynamic_attach()
 *    refuses a NULL device.  MetaRoCE attaches its ib_device's own struct
 *    device, which mroce_dmabuf_dev_setup() gives a 64-bit DMA mask so that
 *    an exporter that maps at attach time (every static exporter) can.
 *  - The attachment is dynamic, so that the exporter can tell us it takes
 *    the memory away (move_notify), and pinned, as ib_umem_dmabuf_get_pinned()
 *    does for devices without on-demand paging: a registered region must not
 *    move under a peer's RDMA.  allow_peer2peer stays false: the CPU cannot
 *    reach another device's BAR through a DMA mapping, and an exporter then
 *    keeps the buffer in system memory.
 *  - A move notification on a pinned attachment is a revocation: the region
 *    stops granting any access from the moment the callback returns
 *    (mroce_dmabuf_move_notify()), and stays so until deregistered.
 *
 * Locking: @vaddr is published and cleared under the buffer's reservation
 * lock (the lock the exporter holds around move_notify) and read by the data
 * path under rcu_read_lock() (mroce_mem.c); the revocation waits for a grace
 * period, so no copy that saw the mapping is still running when the exporter
 * goes on to move or free the memory.
 */
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>

#include "mroce_verbs.h"

MODULE_IMPORT_NS(DMA_BUF);

/**
 * mroce_dmabuf_dev_setup() - let @ibdev's struct device attach to dma-bufs
 * @ibdev: before registration
 *
 * A static exporter maps the buffer for the attaching device as soon as a
 * dynamic importer attaches (dma_buf_dynamic_attach()), and the DMA API
 * refuses a device without a DMA mask.  MetaRoCE never uses the DMA
 * addresses (it copies through dma_buf_vmap()); the mask only lets that
 * mapping succeed.  ib_device.dma_device stays NULL: kernel consumers keep
 * virtual DMA (ib_uses_virt_dma()).
 */
void mroce_dmabuf_dev_setup(struct ib_device *ibdev)
{
	if (dma_coerce_mask_and_coherent(&ibdev->dev, DMA_BIT_MASK(64)))
		ibdev_warn(ibdev, "no DMA mask: dma-buf regions unavailable\n");
}

/* The exporter moves or takes away the buffer; the reservation is held. */
static void mroce_dmabuf_move_notify(struct dma_buf_attachment *attach)
{
	struct mroce_dmabuf *mdb = attach->importer_priv;

	dma_resv_assert_held(attach->dmabuf->resv);
	mdb->revoked = true;
	if (!rcu_access_pointer(mdb->vaddr))
		return;
	RCU_INIT_POINTER(mdb->vaddr, NULL);
	/* Copies that saw the mapping run under RCU (mroce_mem.c). */
	synchronize_rcu();
	ibdev_info_ratelimited(mdb->ibdev,
			       "dma-buf region revoked by its exporter: later accesses fail\n");
}

static const struct dma_buf_attach_ops mroce_dmabuf_attach_ops = {
	.allow_peer2peer = false,
	.move_notify = mroce_dmabuf_move_notify,
};

/* Pin the buffer where it is (system memory: allow_peer2peer is false). */
static int mroce_dmabuf_pin(struct mroce_dmabuf *mdb)
{
	int err;

	dma_resv_lock(mdb->dbuf->resv, NULL);
	err = dma_buf_pin(mdb->attach);
	dma_resv_unlock(mdb->dbuf->resv);
	if (!err)
		mdb->pinned = true;
	return err;
}

/*
 * Map the whole buffer for the CPU and publish the region's part of it,
 * unless a revocation came first.  I/O memory (a BAR) is refused: the data
 * path copies with memcpy(), and its atomics need ordinary memory.
 */
static int mroce_dmabuf_vmap(struct mroce_dmabuf *mdb, u64 offset)
{
	int err;

	err = dma_buf_begin_cpu_access(mdb->dbuf, DMA_BIDIRECTIONAL);
	if (err)
		return err;
	mdb->cpu_access = true;
	err = dma_buf_vmap(mdb->dbuf, &mdb->map);
	if (err)
		return err;
	mdb->vmapped = true;
	if (mdb->map.is_iomem)
		return -EOPNOTSUPP;

	dma_resv_lock(mdb->dbuf->resv, NULL);
	if (mdb->revoked)
		err = -EAGAIN;
	else
		rcu_assign_pointer(mdb->vaddr, (u8 *)mdb->map.vaddr + offset);
	dma_resv_unlock(mdb->dbuf->resv);
	return err;
}

/**
 * mroce_dmabuf_put() - release what mroce_dmabuf_get() took
 * @mdb: no longer reachable by the data path (the region is unpublished
 *	and a grace period has passed)
 */
void mroce_dmabuf_put(struct mroce_dmabuf *mdb)
{
	struct dma_buf *dbuf = mdb->dbuf;

	if (mdb->vmapped)
		dma_buf_vunmap(dbuf, &mdb->map);
	if (mdb->cpu_access)
		dma_buf_end_cpu_access(dbuf, DMA_BIDIRECTIONAL);
	if (mdb->pinned) {
		dma_resv_lock(dbuf->resv, NULL);
		dma_buf_unpin(mdb->attach);
		dma_resv_unlock(dbuf->resv);
	}
	/* No move_notify reaches @mdb after this. */
	dma_buf_detach(dbuf, mdb->attach);
	dma_buf_put(dbuf);
	kfree(mdb);
}

/**
 * mroce_dmabuf_get() - attach, pin and map bytes of a dma-buf
 * @ibdev: the device that attaches
 * @fd: the dma-buf's file descriptor
 * @offset: first byte of the region in the buffer
 * @length: bytes of the region
 *
 * Return: the mapping, or an ERR_PTR: -EBADF / -EINVAL for a bad @fd, -EINVAL
 * if the region does not lie inside the buffer, -EOPNOTSUPP if the exporter
 * only offers an I/O memory mapping, -EAGAIN if it revoked the buffer during
 * the registration, or what the exporter returns.
 */
struct mroce_dmabuf *mroce_dmabuf_get(struct ib_device *ibdev, int fd,
				      u64 offset, u64 length)
{
	struct mroce_dmabuf *mdb;
	struct dma_buf *dbuf;
	u64 end;
	int err;

	dbuf = dma_buf_get(fd);
	if (IS_ERR(dbuf))
		return ERR_CAST(dbuf);
	if (check_add_overflow(offset, length, &end) || end > dbuf->size) {
		dma_buf_put(dbuf);
		return ERR_PTR(-EINVAL);
	}
	mdb = kzalloc(sizeof(*mdb), GFP_KERNEL);
	if (!mdb) {
		dma_buf_put(dbuf);
		return ERR_PTR(-ENOMEM);
	}
	mdb->dbuf = dbuf;
	mdb->ibdev = ibdev;
	mdb->attach = dma_buf_dynamic_attach(dbuf, &ibdev->dev,
					     &mroce_dmabuf_attach_ops, mdb);
	if (IS_ERR(mdb->attach)) {
		err = PTR_ERR(mdb->attach);
		kfree(mdb);
		dma_buf_put(dbuf);
		return ERR_PTR(err);
	}
	err = mroce_dmabuf_pin(mdb);
	if (!err)
		err = mroce_dmabuf_vmap(mdb, offset);
	if (err) {
		mroce_dmabuf_put(mdb);
		return ERR_PTR(err);
	}
	return mdb;
}
