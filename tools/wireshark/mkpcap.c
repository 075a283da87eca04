// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Writes a pcap of MetaRoCE extension packets, one of each kind
 * (Documentation/wire.rst), built with the core's encoders and a correct
 * ICRC, for the dissector test (tools/wireshark/test.sh):
 *
 *   mkpcap OUT.pcap [IP_PACKET_HEX...]
 *
 * After the MetaRoCE packets come a RoCEv2 ACK carrying the capability
 * mark, each IP packet given in hex (e.g. a captured rxe packet from
 * selftests/vectors), and then the MetaRoCE ACK again, first with a wrong
 * ICRC, then with a reserved MXH flag bit set; last the marked RoCEv2 ACK
 * in the UDP checksum form, with a checksum and without; all in Ethernet
 * frames.
 */
#include <stdio.h>
#include <stdlib.h>

#include "mroce_core.h"
#include "mroce_ext.h"
#include "mroce_icrc.h"
#include "mroce_ipudp.h"
#include "mroce_raw.h"

#define ETH_HLEN	14
#define FRAME_MAX	2048

static FILE *out;
static u32 frames;
static u32 icrc_xor;	/* non-zero: write a wrong ICRC */
static u8 mxh_flags_or;	/* set in the MXH flags byte after encoding */

static void put32(u32 v)
{
	fwrite(&v, 4, 1, out);	/* pcap headers are in host order */
}

static void pcap_begin(const char *path)
{
	static const u16 ver[2] = { 2, 4 };

	out = fopen(path, "wb");
	if (!out) {
		perror(path);
		exit(1);
	}
	put32(0xa1b2c3d4);
	fwrite(ver, 2, 2, out);
	put32(0);		/* thiszone */
	put32(0);		/* sigfigs */
	put32(65535);		/* snaplen */
	put32(1);		/* LINKTYPE_ETHERNET */
}

/* One Ethernet frame around the IP packet at @ip. */
static void pcap_frame(const u8 *ip, size_t len, bool ipv6)
{
	u8 eth[ETH_HLEN] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1 };

	mroce_put_be16(eth + 12, ipv6 ? 0x86dd : 0x0800);
	put32(1700000000 + frames);
	put32(0);
	put32(ETH_HLEN + len);
	put32(ETH_HLEN + len);
	fwrite(eth, 1, ETH_HLEN, out);
	fwrite(ip, 1, len, out);
	frames++;
}

/* IPv4/UDP headers for @tlen transport bytes (BTH..ICRC) at @ip. */
static size_t ipudp(u8 *ip, u32 tlen, u16 sport)
{
	struct mroce_ipudp net = {
		.ttl = 64, .frag_off = MROCE_IPV4_DF,
		.saddr = { 10, 77, 0, 1 }, .daddr = { 10, 77, 0, 2 },
		.sport = sport, .dport = MROCE_ROCEV2_UDP_PORT,
	};
	size_t hl = MROCE_IPV4_HDR_LEN + MROCE_UDP_HDR_LEN;

	net.ip_len = hl + tlen;
	net.udp_len = MROCE_UDP_HDR_LEN + tlen;
	mroce_ipudp_encode(ip, FRAME_MAX, &net);
	mroce_put_be16(ip + 10, mroce_ipv4_csum(ip));
	return hl;
}

/* Finish the packet: payload bytes, pad, ICRC; write the frame. */
static void emit(u8 *ip, size_t hl, int xlen, u32 pay, u8 pad)
{
	u8 *q = ip + hl + xlen;
	size_t len = hl + xlen + pay + pad;
	u32 icrc;

	if (xlen < 0) {
		fprintf(stderr, "mkpcap: encode failed: %d\n", xlen);
		exit(1);
	}
	memset(q, 0xa5, pay);
	memset(q + pay, 0, pad);
	mroce_icrc_compute(ip, len, false, &icrc);
	mroce_put_le32(ip + len, icrc ^ icrc_xor);
	pcap_frame(ip, len + MROCE_ICRC_LEN, false);
}

/* A MetaRoCE packet of @h with @pay payload bytes. */
static void xpacket(struct mroce_xhdr *h, u32 pay)
{
	u8 ip[FRAME_MAX];
	u8 pad = -pay & 3;
	size_t hl;
	int xlen;

	h->bth.pad = pad;
	h->bth.pkey = 0xffff;
	h->bth.dqpn = 0x000011;
	h->mxh.ver = MROCE_XVER;
	xlen = mroce_xhdr_len(h);
	hl = ipudp(ip, xlen + pay + pad + MROCE_ICRC_LEN, 0xc000 + h->mxh.path);
	xlen = mroce_xhdr_encode(ip + hl, FRAME_MAX - hl, h);
	ip[hl + MROCE_BTH_LEN + 1] |= mxh_flags_or;
	emit(ip, hl, xlen, pay, pad);
}

static void data_packets(void)
{
	const u8 F = MROCE_MXH_F_FIRST, L = MROCE_MXH_F_LAST;
	struct mroce_xhdr h = { 0 };

	h = (struct mroce_xhdr){ .bth.opcode = MROCE_XOP_SEND,
		.bth.psn = 0x100, .mxh = { .flags = F, .path = 2, .ts = 1000 },
		.msgh = { .msn = 7, .off = 0, .len = 300 } };
	xpacket(&h, 100);
	h = (struct mroce_xhdr){ .bth.opcode = MROCE_XOP_SEND_IMM,
		.bth.psn = 0x102, .mxh = { .flags = L, .path = 3, .ts = 1200,
		.tse = 900 }, .msgh = { .msn = 7, .off = 200, .len = 300 },
		.imm = 0xdeadbeef };
	xpacket(&h, 100);
	h = (struct mroce_xhdr){ .bth.opcode = MROCE_XOP_SEND_INV,
		.bth.psn = 0x103, .mxh = { .flags = F | L },
		.msgh = { .msn = 8, .len = 5 }, .ieth_rkey = 0x1234 };
	xpacket(&h, 5);
	h = (struct mroce_xhdr){ .bth.opcode = MROCE_XOP_WRITE,
		.bth.psn = 0x200, .mxh = { .path = 65535, .ts = 0xffffffff },
		.reth = { .va = 0x7f0000001000ULL, .rkey = 0xabcd, .len = 8192 },
		.msgh = { .msn = 9, .off = 4096, .len = 8192 } };
	xpacket(&h, 64);
	h = (struct mroce_xhdr){ .bth.opcode = MROCE_XOP_WRITE_IMM,
		.bth.psn = 0x201, .mxh = { .flags = L },
		.reth = { .va = 0x7f0000001000ULL, .rkey = 0xabcd, .len = 8192 },
		.msgh = { .msn = 10, .off = 8128, .len = 8192 }, .imm = 42 };
	xpacket(&h, 64);
	h = (struct mroce_xhdr){ .bth.opcode = MROCE_XOP_READ_REQ,
		.bth.psn = 0x300, .reth = { .va = 0x5000, .rkey = 0x77,
		.len = 1024 } };
	xpacket(&h, 0);
	h = (struct mroce_xhdr){ .bth.opcode = MROCE_XOP_READ_RESP,
		.bth.psn = 0x300, .mxh = { .flags = F | L },
		.msgh = { .msn = 11, .len = 16 } };
	xpacket(&h, 16);
}

/* An ACK up to PSN 0xffffff (so PSN 0 is missing): 1, 2 and 69 arrived. */
static void ack_packet(void)
{
	struct mroce_xhdr h = {
		.bth = { .opcode = MROCE_XOP_ACK, .psn = 0xffffff },
		.mxh = { .flags = MROCE_MXH_F_ECE, .path = 2, .ts = 5000,
			 .tse = 1000 },
		.aeth = { .syndrome = 0x1f, .msn = 7 },
		.sack = { .words = 2, .map = { 0x6, 1ULL << 5 } },
	};

	xpacket(&h, 0);
}

/* A RoCEv2 RC ACK of @psn whose BTH carries the MetaRoCE capability mark. */
static void marked_ack(struct mroce_pkt *pkt, u32 psn)
{
	memset(pkt, 0, sizeof(*pkt));
	pkt->net.ttl = 64;
	pkt->net.frag_off = MROCE_IPV4_DF;
	memcpy(pkt->net.saddr, (u8[]){ 10, 77, 0, 2 }, 4);
	memcpy(pkt->net.daddr, (u8[]){ 10, 77, 0, 1 }, 4);
	pkt->net.sport = 0xc001;
	pkt->net.dport = MROCE_ROCEV2_UDP_PORT;
	pkt->hdr.bth.opcode = MROCE_OP_RC_ACKNOWLEDGE;
	pkt->hdr.bth.pkey = 0xffff;
	pkt->hdr.bth.dqpn = 0x12;
	pkt->hdr.bth.psn = psn;
	mroce_bth_set_mark(&pkt->hdr.bth, MROCE_XVER);
	pkt->hdr.aeth.syndrome = 0x1f;
}

/* The marked ACK, as RoCEv2 (with its ICRC). */
static void marked_roce_ack(void)
{
	struct mroce_pkt pkt;
	u8 ip[FRAME_MAX];
	int len;

	marked_ack(&pkt, 0x42);
	len = mroce_pkt_encode(ip, sizeof(ip), &pkt, NULL);
	if (len < 0)
		exit(1);
	pcap_frame(ip, len, false);
}

/* Ones' complement sum of @len bytes (RFC 1071), not folded. */
static u32 sum16(u32 sum, const u8 *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += mroce_get_be16(p + i);
	if (len & 1)
		sum += p[len - 1] << 8;
	return sum;
}

/*
 * The marked ACK in the UDP checksum form (wire.rst, "Integrity"): the
 * mark offers the option, the ICRC field is zero and, when @csum, the UDP
 * checksum covers the packet; without it the checksum is zero, so the
 * zero ICRC is what a receiver must check (and finds bad).
 */
static void csum_roce_ack(bool csum)
{
	struct mroce_pkt pkt;
	u8 ip[FRAME_MAX];
	u32 sum;
	int len;

	marked_ack(&pkt, 0x43);
	pkt.hdr.bth.resv7 |= MROCE_BTH_MR_CSUM;
	len = mroce_pkt_encode(ip, sizeof(ip), &pkt, NULL);
	if (len < 0)
		exit(1);
	memset(ip + len - MROCE_ICRC_LEN, 0, MROCE_ICRC_LEN);
	mroce_put_be16(ip + MROCE_IPV4_HDR_LEN + 6, 0);
	if (csum) {
		/* Pseudo-header: addresses, protocol, UDP length. */
		sum = sum16(0, ip + 12, 8) + 17 + (len - MROCE_IPV4_HDR_LEN);
		sum = sum16(sum, ip + MROCE_IPV4_HDR_LEN,
			    len - MROCE_IPV4_HDR_LEN);
		while (sum >> 16)
			sum = (sum & 0xffff) + (sum >> 16);
		sum = ~sum & 0xffff;
		mroce_put_be16(ip + MROCE_IPV4_HDR_LEN + 6, sum ? sum : 0xffff);
	}
	pcap_frame(ip, len, false);
}

static void hex_packet(const char *hex)
{
	u8 ip[FRAME_MAX];
	size_t n = 0;
	unsigned int b;

	while (hex[2 * n] && n < sizeof(ip) && sscanf(hex + 2 * n, "%2x", &b))
		ip[n++] = b;
	pcap_frame(ip, n, (ip[0] >> 4) == 6);
}

int main(int argc, char **argv)
{
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: %s OUT.pcap [IP_PACKET_HEX...]\n",
			argv[0]);
		return 2;
	}
	pcap_begin(argv[1]);
	data_packets();
	ack_packet();
	marked_roce_ack();
	for (i = 2; i < argc; i++)
		hex_packet(argv[i]);
	/* Then the MR_ACK again with one ICRC bit flipped. */
	icrc_xor = 1;
	ack_packet();
	/* Last, with a good ICRC, an MR_ACK with a reserved MXH flag set. */
	icrc_xor = 0;
	mxh_flags_or = 0x01;
	ack_packet();
	/* The marked ACK protected by the UDP checksum, then without it. */
	csum_roce_ack(true);
	csum_roce_ack(false);
	return fclose(out) ? 1 : 0;
}
