// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Test fixture for selftests/verbs/dmabuf.sh: a dma-buf exporter that can
 * revoke.  vgem, the exporter Debian's kernel has, is a static exporter (no
 * pin/unpin) and never calls dma_buf_move_notify(); the exporters that do
 * (amdgpu in 6.1) need their hardware.  This one exports system memory as a
 * dynamic exporter (pin/unpin, mappings under the reservation lock) and
 * sends move_notify to the importers of a buffer on request, which is what
 * an exporter does before it moves or takes away the memory.  It also says
 * how many attachments, pins and mappings of a buffer are alive, so that a
 * test sees an importer release all of them.
 */
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "mroce_dbx.h"

MODULE_IMPORT_NS(DMA_BUF);

#define MROCE_DBX_MAX_SIZE	(64UL << 20)

struct mroce_dbx_buf {
	struct page **pages;
	unsigned long npages;
	atomic_t pins;
	atomic_t vmaps;
	atomic_t maps;
};

static int mroce_dbx_pin(struct dma_buf_attachment *attach)
{
	struct mroce_dbx_buf *b = attach->dmabuf->priv;

	atomic_inc(&b->pins);
	return 0;
}

static void mroce_dbx_unpin(struct dma_buf_attachment *attach)
{
	struct mroce_dbx_buf *b = attach->dmabuf->priv;

	atomic_dec(&b->pins);
}

static struct sg_table *mroce_dbx_map(struct dma_buf_attachment *attach,
				      enum dma_data_direction dir)
{
	struct mroce_dbx_buf *b = attach->dmabuf->priv;
	struct sg_table *sgt;
	int err;

	dma_resv_assert_held(attach->dmabuf->resv);
	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	err = sg_alloc_table_from_pages(sgt, b->pages, b->npages, 0,
					b->npages << PAGE_SHIFT, GFP_KERNEL);
	if (err)
		goto err_free;
	err = dma_map_sgtable(attach->dev, sgt, dir, 0);
	if (err)
		goto err_table;
	atomic_inc(&b->maps);
	return sgt;

err_table:
	sg_free_table(sgt);
err_free:
	kfree(sgt);
	return ERR_PTR(err);
}

static void mroce_dbx_unmap(struct dma_buf_attachment *attach,
			    struct sg_table *sgt, enum dma_data_direction dir)
{
	struct mroce_dbx_buf *b = attach->dmabuf->priv;

	dma_unmap_sgtable(attach->dev, sgt, dir, 0);
	sg_free_table(sgt);
	kfree(sgt);
	atomic_dec(&b->maps);
}

static void mroce_dbx_free(struct mroce_dbx_buf *b)
{
	unsigned long i;

	for (i = 0; i < b->npages && b->pages[i]; i++)
		__free_page(b->pages[i]);
	kvfree(b->pages);
	kfree(b);
}

static void mroce_dbx_release(struct dma_buf *dbuf)
{
	mroce_dbx_free(dbuf->priv);
}

static int mroce_dbx_mmap(struct dma_buf *dbuf, struct vm_area_struct *vma)
{
	struct mroce_dbx_buf *b = dbuf->priv;

	return vm_map_pages(vma, b->pages, b->npages);
}

static int mroce_dbx_vmap(struct dma_buf *dbuf, struct iosys_map *map)
{
	struct mroce_dbx_buf *b = dbuf->priv;
	void *va = vmap(b->pages, b->npages, VM_MAP, PAGE_KERNEL);

	if (!va)
		return -ENOMEM;
	iosys_map_set_vaddr(map, va);
	atomic_inc(&b->vmaps);
	return 0;
}

static void mroce_dbx_vunmap(struct dma_buf *dbuf, struct iosys_map *map)
{
	struct mroce_dbx_buf *b = dbuf->priv;

	vunmap(map->vaddr);
	atomic_dec(&b->vmaps);
}

static const struct dma_buf_ops mroce_dbx_ops = {
	.pin = mroce_dbx_pin,
	.unpin = mroce_dbx_unpin,
	.map_dma_buf = mroce_dbx_map,
	.unmap_dma_buf = mroce_dbx_unmap,
	.release = mroce_dbx_release,
	.mmap = mroce_dbx_mmap,
	.vmap = mroce_dbx_vmap,
	.vunmap = mroce_dbx_vunmap,
};

static int mroce_dbx_create(struct mroce_dbx_create __user *uarg)
{
	DEFINE_DMA_BUF_EXPORT_INFO(info);
	struct mroce_dbx_create arg;
	struct mroce_dbx_buf *b;
	struct dma_buf *dbuf;
	unsigned long i;
	int fd;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	if (!arg.size || arg.size > MROCE_DBX_MAX_SIZE ||
	    !PAGE_ALIGNED(arg.size))
		return -EINVAL;
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	b->npages = arg.size >> PAGE_SHIFT;
	b->pages = kvcalloc(b->npages, sizeof(*b->pages), GFP_KERNEL);
	if (!b->pages)
		goto err_free;
	for (i = 0; i < b->npages; i++) {
		b->pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!b->pages[i])
			goto err_free;
	}
	info.ops = &mroce_dbx_ops;
	info.size = arg.size;
	info.flags = O_RDWR;
	info.priv = b;
	dbuf = dma_buf_export(&info);
	if (IS_ERR(dbuf)) {
		mroce_dbx_free(b);
		return PTR_ERR(dbuf);
	}
	/* From here on the dma-buf's release frees @b. */
	fd = dma_buf_fd(dbuf, O_CLOEXEC);
	if (fd < 0) {
		dma_buf_put(dbuf);
		return fd;
	}
	arg.fd = fd;
	/* The fd is the caller's now, even if it cannot learn its number. */
	return copy_to_user(uarg, &arg, sizeof(arg)) ? -EFAULT : 0;

err_free:
	mroce_dbx_free(b);
	return -ENOMEM;
}

static int mroce_dbx_state(struct mroce_dbx_state __user *uarg, bool revoke)
{
	struct dma_buf_attachment *attach;
	struct mroce_dbx_state arg;
	struct mroce_dbx_buf *b;
	struct dma_buf *dbuf;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	dbuf = dma_buf_get(arg.fd);
	if (IS_ERR(dbuf))
		return PTR_ERR(dbuf);
	if (dbuf->ops != &mroce_dbx_ops) {
		dma_buf_put(dbuf);
		return -EINVAL;
	}
	b = dbuf->priv;
	arg.attachments = 0;
	arg.notified = 0;
	dma_resv_lock(dbuf->resv, NULL);
	list_for_each_entry(attach, &dbuf->attachments, node) {
		arg.attachments++;
		if (attach->importer_ops && revoke)
			arg.notified++;
	}
	if (revoke)
		dma_buf_move_notify(dbuf);
	dma_resv_unlock(dbuf->resv);
	arg.pins = atomic_read(&b->pins);
	arg.vmaps = atomic_read(&b->vmaps);
	arg.maps = atomic_read(&b->maps);
	dma_buf_put(dbuf);
	return copy_to_user(uarg, &arg, sizeof(arg)) ? -EFAULT : 0;
}

static long mroce_dbx_ioctl(struct file *f, unsigned int cmd,
			    unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case MROCE_DBX_CREATE:
		return mroce_dbx_create(uarg);
	case MROCE_DBX_REVOKE:
		return mroce_dbx_state(uarg, true);
	case MROCE_DBX_QUERY:
		return mroce_dbx_state(uarg, false);
	}
	return -ENOTTY;
}

static const struct file_operations mroce_dbx_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = mroce_dbx_ioctl,
};

static struct miscdevice mroce_dbx_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "mroce_dbx",
	.fops = &mroce_dbx_fops,
};

module_misc_device(mroce_dbx_misc);

MODULE_DESCRIPTION("MetaRoCE selftest fixture: a dma-buf exporter that revokes on request");
MODULE_LICENSE("Dual BSD/GPL");
