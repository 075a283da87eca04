// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * libmetaroce: registration with libibverbs, device matching, user context
 * and the device/port queries.
 *
 * Matching: the kernel driver leaves driver_id at RDMA_DRIVER_UNKNOWN, so
 * libibverbs cannot match it by id, and a name prefix breaks as soon as the
 * user picks another name in `rdma link add` or renames the device.  Every
 * MetaRoCE ib_device carries a read-only sysfs attribute of its own,
 * METAROCE_SYSFS_ABI_ATTR; match_device() claims exactly the devices that
 * have it.  The uverbs ABI range check of libibverbs then applies as usual.
 *
 * Loading: the private provider ABI (IBVERBS_PRIVATE_34) kept its version
 * from rdma-core 34 to 56 while its layouts changed, so the symbol version
 * check of the dynamic loader does not tell whether the libibverbs in the
 * process is the one mroce_pabi.h restates.  The constructor reads that
 * libibverbs' release from its file name and registers the provider only
 * for the release it was built for (mroce_pabi_release_ok()).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* dladdr() */
#endif
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mroce_u.h"

static bool mroce_match_device(struct verbs_sysfs_dev *sdev)
{
	char path[IBV_SYSFS_PATH_MAX + sizeof(METAROCE_SYSFS_ABI_ATTR) + 1];
	char buf[16];
	ssize_t n;
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", sdev->ibdev_path,
		     METAROCE_SYSFS_ABI_ATTR) >= (int)sizeof(path))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return strtoul(buf, NULL, 10) == METAROCE_UVERBS_ABI_VERSION;
}

static struct verbs_device *mroce_alloc_device(struct verbs_sysfs_dev *sdev)
{
	struct mroce_udev *dev = calloc(1, sizeof(*dev));

	return dev ? &dev->vdev : NULL;
}

static void mroce_uninit_device(struct verbs_device *vdev)
{
	free((struct mroce_udev *)vdev);
}

static struct verbs_context *mroce_alloc_context(struct ibv_device *ibdev,
						 int cmd_fd, void *private_data)
{
	struct mroce_get_context_resp resp = {};
	struct ibv_get_context cmd = {};
	struct mroce_uctx *ctx;

	ctx = _verbs_init_and_alloc_context(ibdev, cmd_fd, sizeof(*ctx),
			(struct verbs_context *)offsetof(struct mroce_uctx, vctx),
			0 /* RDMA_DRIVER_UNKNOWN */);
	if (!ctx)
		return NULL;

	if (ibv_cmd_get_context(&ctx->vctx, &cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp)))
		goto err_free;
	if (resp.drv.abi_version != METAROCE_UVERBS_ABI_VERSION ||
	    resp.drv.ring_hdr_size != METAROCE_RING_HDR_SIZE ||
	    resp.drv.cqe_size != sizeof(struct metaroce_cqe)) {
		fprintf(stderr, "libmetaroce: kernel ring ABI %u (header %u, cqe %u) does not match the provider's %u\n",
			resp.drv.abi_version, resp.drv.ring_hdr_size,
			resp.drv.cqe_size, METAROCE_UVERBS_ABI_VERSION);
		errno = EPROTO;
		goto err_free;
	}
	ctx->max_inline_data = resp.drv.max_inline_data;
	verbs_set_ops(&ctx->vctx, &mroce_uctx_ops);
	return &ctx->vctx;

err_free:
	verbs_uninit_context(&ctx->vctx);
	free(ctx);
	return NULL;
}

/*
 * No table entry matches: match_device() decides.  libibverbs walks the
 * table of every provider for every device that reports a driver id (rxe,
 * mlx5, ...), so the table must exist even when empty.
 */
static const struct verbs_match_ent mroce_match_table[] = {
	{}
};

static const struct verbs_device_ops mroce_dev_ops = {
	.name = MROCE_U_DRV_NAME,
	.match_min_abi_version = METAROCE_UVERBS_ABI_VERSION,
	.match_max_abi_version = METAROCE_UVERBS_ABI_VERSION,
	.match_table = mroce_match_table,
	.match_device = mroce_match_device,
	.alloc_device = mroce_alloc_device,
	.uninit_device = mroce_uninit_device,
	.alloc_context = mroce_alloc_context,
};

/* Is @dev one of ours (a QP handed to metaroce_dv_*() may not be)? */
bool mroce_is_mroce_device(struct ibv_device *dev)
{
	return ((struct verbs_device *)dev)->ops == &mroce_dev_ops;
}

#ifndef MROCE_IN_RDMA_CORE
/*
 * The libibverbs this process runs is the release mroce_pabi.h describes:
 * its real file name (libibverbs.so.1 is a link) ends in
 * ".so.<MROCE_PABI_LIBIBVERBS>", as rdma-core names it (1.14.<release>).
 * Otherwise say so once and return false.
 */
static bool mroce_pabi_release_ok(void)
{
	static const char want[] = ".so." MROCE_PABI_LIBIBVERBS;
	char real[PATH_MAX];
	Dl_info info;
	size_t n;

	if (!dladdr((void *)verbs_set_ops, &info) || !info.dli_fname ||
	    !realpath(info.dli_fname, real)) {
		fprintf(stderr, "libmetaroce: cannot tell which libibverbs this process uses: not registering the MetaRoCE provider\n");
		return false;
	}
	n = strlen(real);
	if (n >= sizeof(want) - 1 &&
	    !strcmp(real + n - (sizeof(want) - 1), want))
		return true;
	fprintf(stderr, "libmetaroce: built for libibverbs %s (its private provider ABI), but this process uses %s: not registering the MetaRoCE provider (rebuild it against this libibverbs)\n",
		MROCE_PABI_LIBIBVERBS, real);
	return false;
}
#else
/* Built inside rdma-core: its own driver.h, nothing to check. */
static bool mroce_pabi_release_ok(void)
{
	return true;
}
#endif

static __attribute__((constructor)) void mroce_register_driver(void)
{
	if (mroce_pabi_release_ok())
		verbs_register_driver(&mroce_dev_ops);
}
