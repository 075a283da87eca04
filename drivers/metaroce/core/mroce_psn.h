/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * 24-bit packet sequence number arithmetic (IBTA 9.7.1).
 *
 * PSNs wrap modulo 2^24.  Two PSNs are ordered by the sign of their
 * difference taken in 24 bits, so that "a is before b" holds whenever b is
 * less than 2^23 ahead of a: IBTA 9.7.4.1.2 splits the PSN space into a
 * valid half ahead of the expected PSN and a duplicate half behind it, which
 * is exactly this rule.  Windows are half-open ranges [start, start + len).
 */
#ifndef MROCE_PSN_H
#define MROCE_PSN_H

#include "mroce_core.h"

#define MROCE_PSN_HALF	(1U << (MROCE_PSN_BITS - 1))

static inline u32 mroce_psn(u32 v)
{
	return v & MROCE_PSN_MASK;
}

static inline u32 mroce_psn_add(u32 psn, u32 n)
{
	return (psn + n) & MROCE_PSN_MASK;
}

static inline u32 mroce_psn_sub(u32 psn, u32 n)
{
	return (psn - n) & MROCE_PSN_MASK;
}

/* Forward distance from @from to @to, in [0, 2^24). */
static inline u32 mroce_psn_dist(u32 from, u32 to)
{
	return (to - from) & MROCE_PSN_MASK;
}

/* Signed distance @a - @b in [-2^23, 2^23): sign-extend the 24-bit result. */
static inline s32 mroce_psn_diff(u32 a, u32 b)
{
	return (s32)(((a - b) & MROCE_PSN_MASK) << 8) >> 8;
}

static inline bool mroce_psn_before(u32 a, u32 b)
{
	return mroce_psn_diff(a, b) < 0;
}

static inline bool mroce_psn_after(u32 a, u32 b)
{
	return mroce_psn_diff(a, b) > 0;
}

static inline bool mroce_psn_before_eq(u32 a, u32 b)
{
	return mroce_psn_diff(a, b) <= 0;
}

static inline bool mroce_psn_after_eq(u32 a, u32 b)
{
	return mroce_psn_diff(a, b) >= 0;
}

/* True when @psn lies in [@start, @start + @len); @len may be up to 2^24. */
static inline bool mroce_psn_in_window(u32 psn, u32 start, u32 len)
{
	return mroce_psn_dist(start, psn) < len;
}

#endif /* MROCE_PSN_H */
