/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * IPv4/IPv6 and UDP headers of RoCEv2 packets (IBTA A17.4, RFC 791,
 * RFC 8200, RFC 768), and whole-packet encode/decode with ICRC.
 *
 * The kernel module builds its own IP and UDP headers (mroce_net.c) and
 * lets the IP stack check received ones, so this codec is not linked into
 * metaroce.ko (see Kbuild); it serves the unit tests, the rxe test vectors
 * and the fuzzers, which see packets as flat buffers starting at the IP
 * header.
 */
#ifndef MROCE_IPUDP_H
#define MROCE_IPUDP_H

#include "mroce_core.h"
#include "mroce_hdr.h"

struct mroce_ipudp {
	bool ipv6;
	u8 tos;		/* IPv4 TOS or IPv6 traffic class (DSCP and ECN) */
	u8 ttl;		/* IPv4 TTL or IPv6 hop limit */
	u16 id;		/* IPv4 identification */
	u16 frag_off;	/* IPv4 flags and fragment offset: only DF allowed */
	u16 ip_csum;	/* IPv4 header checksum, as read */
	u32 flow_label;	/* IPv6 flow label (20 bits) */
	u8 saddr[16];	/* IPv4 uses the first 4 bytes */
	u8 daddr[16];
	u32 ip_len;	/* whole IP packet: IPv4 total length, IPv6 40 + plen */
	u16 sport;	/* UDP source port: the path entropy (IBTA A17.5) */
	u16 dport;
	u16 udp_len;
	u16 udp_csum;
	u8 hdr_len;	/* IP and UDP header bytes */
};

/* ECN field of tos (RFC 3168); CE is what DCQCN reacts to. */
#define MROCE_ECN_MASK	0x03
#define MROCE_ECN_CE	0x03

#define MROCE_IPV4_DF	0x4000

int mroce_ipudp_decode(const u8 *p, size_t len, struct mroce_ipudp *h);
int mroce_ipudp_encode(u8 *p, size_t len, const struct mroce_ipudp *h);
u16 mroce_ipv4_csum(const u8 *iph);

/* A whole RoCEv2 packet, IP header to ICRC. */
struct mroce_pkt {
	struct mroce_ipudp net;
	struct mroce_hdr hdr;
	struct mroce_hdr_layout lo;
	u32 pay_off;	/* payload offset from the IP header */
	u32 icrc;
};

int mroce_pkt_decode(const u8 *p, size_t len, struct mroce_pkt *pkt);
int mroce_pkt_encode(u8 *p, size_t len, struct mroce_pkt *pkt,
		     const u8 *payload);

#endif /* MROCE_IPUDP_H */
