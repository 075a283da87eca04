/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* Host shim: compile-time assertions, as the kernel's <linux/build_bug.h>. */
#ifndef MROCE_SHIM_LINUX_BUILD_BUG_H
#define MROCE_SHIM_LINUX_BUILD_BUG_H

#define BUILD_BUG_ON(cond) _Static_assert(!(cond), "BUILD_BUG_ON(" #cond ")")

#endif /* MROCE_SHIM_LINUX_BUILD_BUG_H */
