/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* Host shim: NULL, size_t and offsetof, as the kernel's <linux/stddef.h>. */
#ifndef MROCE_SHIM_LINUX_STDDEF_H
#define MROCE_SHIM_LINUX_STDDEF_H

#include_next <linux/stddef.h>
#include <stddef.h>

#endif /* MROCE_SHIM_LINUX_STDDEF_H */
