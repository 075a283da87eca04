/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Host shim: the few helpers of the kernel's <linux/kernel.h> and
 * <linux/minmax.h> that the transport core uses.
 */
#ifndef MROCE_SHIM_LINUX_KERNEL_H
#define MROCE_SHIM_LINUX_KERNEL_H

#include <linux/types.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define min_t(t, a, b)	((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b)	((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define clamp_t(t, v, lo, hi)	min_t(t, max_t(t, v, lo), hi)

#endif /* MROCE_SHIM_LINUX_KERNEL_H */
