/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Host shim: the kernel-internal type names the transport core uses, on
 * top of the UAPI <linux/types.h> (which gives __u8.. with the kernel's
 * exact definitions, so u64 is unsigned long long as in the kernel).
 */
#ifndef MROCE_SHIM_LINUX_TYPES_H
#define MROCE_SHIM_LINUX_TYPES_H

#include_next <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s8 s8;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;

#endif /* MROCE_SHIM_LINUX_TYPES_H */
