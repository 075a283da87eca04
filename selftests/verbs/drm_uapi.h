/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The three DRM ioctls dmabuf_xfer.c uses, restated from the kernel's uapi
 * (include/uapi/drm/drm.h and drm_mode.h): Debian ships those headers only
 * with libdrm-dev, which the tests do not need otherwise.
 */
#ifndef MROCE_DRM_UAPI_H
#define MROCE_DRM_UAPI_H

#include <fcntl.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <linux/types.h>

struct mroce_drm_version {
	int version_major;
	int version_minor;
	int version_patchlevel;
	size_t name_len;
	char *name;
	size_t date_len;
	char *date;
	size_t desc_len;
	char *desc;
};

struct mroce_drm_create_dumb {
	__u32 height;
	__u32 width;
	__u32 bpp;
	__u32 flags;
	__u32 handle;	/* out */
	__u32 pitch;	/* out */
	__u64 size;	/* out */
};

struct mroce_drm_prime_handle {
	__u32 handle;
	__u32 flags;	/* O_CLOEXEC, O_RDWR */
	__s32 fd;	/* out */
};

#define MROCE_DRM_IOCTL_VERSION		_IOWR('d', 0x00, struct mroce_drm_version)
#define MROCE_DRM_IOCTL_PRIME_HANDLE_TO_FD \
	_IOWR('d', 0x2d, struct mroce_drm_prime_handle)
#define MROCE_DRM_IOCTL_MODE_CREATE_DUMB \
	_IOWR('d', 0xb2, struct mroce_drm_create_dumb)

_Static_assert(sizeof(struct mroce_drm_version) == 64, "drm_version");
_Static_assert(sizeof(struct mroce_drm_create_dumb) == 32, "create_dumb");
_Static_assert(sizeof(struct mroce_drm_prime_handle) == 12, "prime_handle");

#endif /* MROCE_DRM_UAPI_H */
