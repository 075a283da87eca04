/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The check of a received RoCEv2 packet's transport part, one code path for
 * the kernel module (packets in skbs, payload possibly in page fragments)
 * and the host's whole-packet decoder (mroce_pkt_decode(), in one buffer),
 * so the fuzzers and unit tests run what the kernel runs: the headers
 * against the opcode table, the ICRC, the P_Key.
 *
 * The caller describes where the bytes are: the IP header, then the UDP
 * header and the transport headers back to back and readable, and the
 * rest (payload, pad, ICRC) through two functions that read by offset from
 * the BTH.  Two steps: the headers first (mroce_rx_decode()), then the
 * integrity and the partition (mroce_rx_verify()), so that the kernel can
 * decide in between, from the headers and the QP, whether the UDP checksum
 * stands for the ICRC.
 */
#ifndef MROCE_RX_H
#define MROCE_RX_H

#include "mroce_core.h"
#include "mroce_hdr.h"

struct mroce_rx_view {
	const u8 *ip;	/* IP header; the UDP header and the BTH follow */
	bool ipv6;
	u32 len;	/* bytes from the BTH to the end of the ICRC */
	/* CRC-32 update (mroce_icrc_update()) over bytes [off, off + n) */
	u32 (*crc)(const void *ctx, u32 off, u32 n, u32 crc);
	/* copy bytes [off, off + n) to @buf: 0, or -EFAULT */
	int (*copy)(const void *ctx, u32 off, void *buf, u32 n);
	const void *ctx;
};

/* The BTH of @v: after the IP and UDP headers. */
static inline const u8 *mroce_rx_bth(const struct mroce_rx_view *v)
{
	return v->ip + (v->ipv6 ? MROCE_IPV6_HDR_LEN : MROCE_IPV4_HDR_LEN) +
	       MROCE_UDP_HDR_LEN;
}

int mroce_rx_decode(const struct mroce_rx_view *v, struct mroce_hdr *h,
		    struct mroce_hdr_layout *lo);
int mroce_rx_verify(const struct mroce_rx_view *v, const struct mroce_hdr *h,
		    bool icrc);

#endif /* MROCE_RX_H */
