/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Raw wire accessors: the only code in the core that knows byte order.
 *
 * Headers are read and written a byte at a time, so that neither alignment
 * nor host byte order matters and no kernel unaligned helpers are needed.
 * RoCE headers are big-endian (IBTA 1.4 "bit and byte ordering"); only the
 * ICRC trailer is stored least significant byte first (IBTA A17.8 / rxe).
 */
#ifndef MROCE_RAW_H
#define MROCE_RAW_H

#include "mroce_core.h"

static inline u16 mroce_get_be16(const u8 *p)
{
	return (u16)((p[0] << 8) | p[1]);
}

static inline u32 mroce_get_be24(const u8 *p)
{
	return ((u32)p[0] << 16) | ((u32)p[1] << 8) | p[2];
}

static inline u32 mroce_get_be32(const u8 *p)
{
	return ((u32)p[0] << 24) | mroce_get_be24(p + 1);
}

static inline u64 mroce_get_be64(const u8 *p)
{
	return ((u64)mroce_get_be32(p) << 32) | mroce_get_be32(p + 4);
}

static inline u32 mroce_get_le32(const u8 *p)
{
	return ((u32)p[3] << 24) | ((u32)p[2] << 16) | ((u32)p[1] << 8) | p[0];
}

static inline void mroce_put_be16(u8 *p, u16 v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static inline void mroce_put_be24(u8 *p, u32 v)
{
	p[0] = v >> 16;
	p[1] = v >> 8;
	p[2] = v;
}

static inline void mroce_put_be32(u8 *p, u32 v)
{
	p[0] = v >> 24;
	mroce_put_be24(p + 1, v);
}

static inline void mroce_put_be64(u8 *p, u64 v)
{
	mroce_put_be32(p, v >> 32);
	mroce_put_be32(p + 4, (u32)v);
}

static inline void mroce_put_le32(u8 *p, u32 v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

#endif /* MROCE_RAW_H */
