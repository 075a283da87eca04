/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The only environment the portable transport core depends on.
 *
 * Every core file includes this header and nothing else from outside
 * drivers/metaroce/core/ and include/metaroce/.  In the kernel these are the
 * kernel's own headers; host programs (unit tests, fuzzers) put
 * selftests/unit/shim/ first on the include path, which provides the same
 * few names (u8..u64, bool, size_t, NULL, memcpy/memset, errno values,
 * ARRAY_SIZE, BUILD_BUG_ON) for a hosted C library.  Keep the list short:
 * each name used here must exist in the shim too.
 */
#ifndef MROCE_CORE_H
#define MROCE_CORE_H

#include <linux/types.h>
#include <linux/stddef.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/build_bug.h>
#include <linux/kernel.h>

#include <metaroce/mroce_wire.h>

/* Time in the core is always a u64 count of nanoseconds from any origin. */
#define MROCE_NSEC_PER_USEC	1000ULL
#define MROCE_NSEC_PER_MSEC	1000000ULL
#define MROCE_NSEC_PER_SEC	1000000000ULL

/* Name of @v in a designated-initializer table of @n names, or "?". */
static inline const char *mroce_enum_name(const char * const *names,
					  unsigned int n, unsigned int v)
{
	return v < n && names[v] ? names[v] : "?";
}

#endif /* MROCE_CORE_H */
