/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The ioctls of mroce_dbx.ko (/dev/mroce_dbx), a selftest dma-buf exporter:
 * shared by the module and the tests (selftests/verbs/dmabuf_xfer.c).
 */
#ifndef MROCE_DBX_H
#define MROCE_DBX_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* Export a new buffer of @size bytes (page multiple); @fd is returned. */
struct mroce_dbx_create {
	__u64 size;
	__s32 fd;
	__u32 reserved;
};

/*
 * For the buffer @fd: REVOKE sends move_notify to its importers (as an
 * exporter does before it moves or takes away the memory); both return
 * the exporter's view of it.
 */
struct mroce_dbx_state {
	__s32 fd;
	__u32 attachments;	/* importers attached */
	__u32 notified;		/* of them dynamic: told by REVOKE */
	__u32 pins;		/* dma_buf_pin() not undone */
	__u32 vmaps;		/* CPU mappings not undone */
	__u32 maps;		/* attachment mappings not undone */
};

#define MROCE_DBX_CREATE	_IOWR('M', 0xd0, struct mroce_dbx_create)
#define MROCE_DBX_REVOKE	_IOWR('M', 0xd1, struct mroce_dbx_state)
#define MROCE_DBX_QUERY		_IOWR('M', 0xd2, struct mroce_dbx_state)

#endif /* MROCE_DBX_H */
