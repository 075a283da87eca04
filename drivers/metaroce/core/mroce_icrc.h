/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * RoCEv2 invariant CRC (IBTA A17.8, C17-x; the IB ICRC of IBTA 7.8.1).
 *
 * The ICRC is the IEEE 802.3 CRC-32 (reflected polynomial 0xedb88320,
 * initial value ~0, final inversion) over a pseudo-packet: 8 bytes of 0xff
 * standing for the LRH that RoCEv2 does not carry, the IP header with the
 * fields routers may change masked to ones, the UDP header with its checksum
 * masked to ones, the BTH with byte 4 (FECN, BECN, resv6a) masked to ones,
 * then the rest of the transport headers, the payload and the pad.  It is
 * stored least significant byte first.
 *
 * The computation is split (begin / update / finish) so that the kernel can
 * feed the payload fragment by fragment.
 */
#ifndef MROCE_ICRC_H
#define MROCE_ICRC_H

#include "mroce_core.h"

/* CRC-32 register after ~0 and the 8 masked LRH bytes (IBTA A17.8). */
#define MROCE_ICRC_SEED	0xdebb20e3U

/*
 * Raw reflected CRC-32 update: no initial or final inversion.  The module
 * provides it (mroce_crc.c); host builds use the core's table.
 */
u32 mroce_crc32_le(u32 crc, const u8 *p, size_t len);

/*
 * Start an ICRC over the masked IP header at @ip, the UDP header after it
 * and the BTH after that; @ipv6 selects a 40-byte IPv6 or 20-byte IPv4
 * header (IPv4 options are not supported by RoCEv2 senders).  The caller
 * guarantees the three headers are readable.
 */
u32 mroce_icrc_begin(const u8 *ip, bool ipv6);

static inline u32 mroce_icrc_update(u32 crc, const u8 *p, size_t len)
{
	return mroce_crc32_le(crc, p, len);
}

static inline u32 mroce_icrc_finish(u32 crc)
{
	return ~crc;
}

int mroce_icrc_compute(const u8 *ip, size_t len, bool ipv6, u32 *icrc);

#endif /* MROCE_ICRC_H */
