// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ICRC, IPv4/IPv6/UDP headers and whole-packet encode/decode.
 */
#include "mroce_core.h"
#include "mroce_icrc.h"
#include "mroce_ipudp.h"
#include "mroce_raw.h"
#include "mroce_test.h"

/* Bit-at-a-time CRC-32, independent of the core's table. */
static u32 crc32_bitwise(u32 crc, const u8 *p, size_t len)
{
	int k;

	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320U & -(crc & 1));
	}
	return crc;
}

static void make_pkt(struct mroce_pkt *pkt, bool ipv6, u8 opcode,
		     u32 pay_len)
{
	static const u8 s4[4] = { 192, 168, 122, 1 };
	static const u8 d4[4] = { 192, 168, 122, 2 };
	unsigned int i;

	memset(pkt, 0, sizeof(*pkt));
	pkt->net.ipv6 = ipv6;
	pkt->net.tos = 0x02;
	pkt->net.ttl = 64;
	pkt->net.id = 0x1234;
	pkt->net.frag_off = MROCE_IPV4_DF;
	pkt->net.flow_label = 0xabcde;
	if (ipv6) {
		for (i = 0; i < 16; i++) {
			pkt->net.saddr[i] = 0xfe - i;
			pkt->net.daddr[i] = i;
		}
	} else {
		memcpy(pkt->net.saddr, s4, 4);
		memcpy(pkt->net.daddr, d4, 4);
	}
	pkt->net.sport = 0xc123;
	pkt->net.dport = MROCE_ROCEV2_UDP_PORT;
	pkt->hdr.bth.opcode = opcode;
	pkt->hdr.bth.pkey = 0xffff;
	pkt->hdr.bth.dqpn = 0x11;
	pkt->hdr.bth.psn = 0xfffffe;
	pkt->hdr.reth.len = pay_len;
	pkt->hdr.aeth.syndrome = 0x1f;
	pkt->lo.pay_len = pay_len;
}

TEST(crc32_known_values)
{
	static const u8 check[] = "123456789";
	u8 ff[8];

	/* The CRC-32 check value (IEEE 802.3, as zlib's crc32). */
	EXPECT_EQ(~mroce_crc32_le(~0U, check, 9), 0xcbf43926);
	EXPECT_EQ(mroce_crc32_le(~0U, check, 0), ~0U);
	/* The seed stands for ~0 followed by the 8 masked LRH bytes. */
	memset(ff, 0xff, sizeof(ff));
	EXPECT_EQ(mroce_crc32_le(~0U, ff, 8), MROCE_ICRC_SEED);
	EXPECT_EQ(crc32_bitwise(~0U, ff, 8), MROCE_ICRC_SEED);
}

/* The ICRC equals a bitwise CRC over an explicitly masked copy. */
TEST(icrc_matches_reference)
{
	unsigned int v;

	for (v = 0; v < 2; v++) {
		struct mroce_pkt pkt;
		u8 buf[256], ref[256], payload[40];
		u32 crc, icrc;
		int len, ip = v ? 40 : 20;

		for (len = 0; len < (int)sizeof(payload); len++)
			payload[len] = len * 7;
		make_pkt(&pkt, v, MROCE_OP_RC_RDMA_WRITE_ONLY, 37);
		len = mroce_pkt_encode(buf, sizeof(buf), &pkt, payload);
		ASSERT_EQ(len, ip + 8 + 28 + 40 + 4);
		memcpy(ref, buf, len);
		if (v) {
			ref[0] |= 0x0f;
			ref[1] = ref[2] = ref[3] = 0xff;
			ref[7] = 0xff;
		} else {
			ref[1] = ref[8] = ref[10] = ref[11] = 0xff;
		}
		ref[ip + 6] = ref[ip + 7] = 0xff;
		ref[ip + 8 + 4] = 0xff;
		crc = crc32_bitwise(MROCE_ICRC_SEED, ref, len - 4);
		EXPECT_EQ(~crc, pkt.icrc);
		EXPECT_EQ(mroce_get_le32(buf + len - 4), ~crc);
		EXPECT_EQ(mroce_icrc_compute(buf, len - 4, v, &icrc), 0);
		EXPECT_EQ(icrc, ~crc);
		EXPECT_EQ(mroce_icrc_compute(buf, ip + 8 + 11, v, &icrc),
			  -EMSGSIZE);
	}
}

/* Fields routers may rewrite do not change the ICRC; others do. */
TEST(icrc_masked_fields)
{
	static const struct { bool v6; int off; bool masked; } f[] = {
		{ false, 1, true },	/* TOS */
		{ false, 8, true },	/* TTL */
		{ false, 10, true },	/* header checksum */
		{ false, 26, true },	/* UDP checksum */
		{ false, 32, true },	/* BTH byte 4: FECN, BECN, resv6a */
		{ false, 4, false },	/* IP id */
		{ false, 12, false },	/* source address */
		{ false, 20, false },	/* UDP source port */
		{ false, 28, false },	/* BTH opcode */
		{ false, 33, false },	/* BTH destination QP */
		{ false, 45, false },	/* payload */
		{ true, 0, true },	/* traffic class, low nibble */
		{ true, 2, true },	/* flow label */
		{ true, 7, true },	/* hop limit */
		{ true, 46, true },	/* UDP checksum */
		{ true, 52, true },	/* BTH byte 4 */
		{ true, 5, false },	/* payload length */
		{ true, 8, false },	/* source address */
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(f); i++) {
		struct mroce_pkt pkt;
		u8 buf[256], payload[16] = { 1, 2, 3 };
		u32 a, b;
		int len;

		make_pkt(&pkt, f[i].v6, MROCE_OP_RC_SEND_ONLY, 16);
		len = mroce_pkt_encode(buf, sizeof(buf), &pkt, payload);
		ASSERT_TRUE(len > 0);
		mroce_icrc_compute(buf, len - 4, f[i].v6, &a);
		buf[f[i].off] ^= f[i].v6 && f[i].off == 0 ? 0x05 : 0x41;
		mroce_icrc_compute(buf, len - 4, f[i].v6, &b);
		if (!MROCE_CHECK((a == b) == f[i].masked, "field %u", i))
			return;
	}
}

/* Feeding the payload in pieces gives the same ICRC as in one go. */
TEST(icrc_incremental)
{
	struct mroce_pkt pkt;
	u8 buf[512], payload[300];
	u32 crc, icrc;
	int len, hl;

	for (len = 0; len < (int)sizeof(payload); len++)
		payload[len] = len ^ 0x5a;
	make_pkt(&pkt, false, MROCE_OP_RC_SEND_ONLY, sizeof(payload));
	len = mroce_pkt_encode(buf, sizeof(buf), &pkt, payload);
	hl = 20 + 8 + 12;
	crc = mroce_icrc_begin(buf, false);
	crc = mroce_icrc_update(crc, buf + hl, 100);
	crc = mroce_icrc_update(crc, buf + hl + 100, 1);
	crc = mroce_icrc_update(crc, buf + hl + 101, len - 4 - hl - 101);
	icrc = mroce_icrc_finish(crc);
	EXPECT_EQ(icrc, pkt.icrc);
}

TEST(ipv4_checksum)
{
	/* RFC 1071-style worked example, checksum 0xb861. */
	static const u8 ip[20] = {
		0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00,
		0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01,
		0xc0, 0xa8, 0x00, 0xc7,
	};
	u8 b[20];

	EXPECT_EQ(mroce_ipv4_csum(ip), 0xb861);
	memcpy(b, ip, 20);
	b[10] = 0xb8;
	b[11] = 0x61;
	EXPECT_EQ(mroce_ipv4_csum(b), 0xb861);
	/* A sum that carries twice. */
	memset(b, 0xff, sizeof(b));
	EXPECT_EQ(mroce_ipv4_csum(b), 0);
}

TEST(ipudp_round_trip)
{
	unsigned int v;

	for (v = 0; v < 2; v++) {
		struct mroce_pkt pkt;
		struct mroce_ipudp d;
		u8 buf[128], buf2[128];
		int len, hl = v ? 48 : 28;

		make_pkt(&pkt, v, MROCE_OP_RC_SEND_ONLY, 0);
		len = mroce_pkt_encode(buf, sizeof(buf), &pkt, NULL);
		ASSERT_EQ(len, hl + 16);
		ASSERT_EQ(mroce_ipudp_decode(buf, len, &d), 0);
		EXPECT_EQ(d.ipv6, v);
		EXPECT_EQ(d.hdr_len, hl);
		EXPECT_EQ(d.ip_len, len);
		EXPECT_EQ(d.udp_len, len - hl + 8);
		EXPECT_EQ(d.sport, 0xc123);
		EXPECT_EQ(d.dport, 4791);
		EXPECT_EQ(d.tos, 0x02);
		EXPECT_EQ(d.ttl, 64);
		EXPECT_EQ(d.flow_label, v ? 0xabcde : 0);
		EXPECT_EQ(d.id, v ? 0 : 0x1234);
		EXPECT_MEM(d.saddr, pkt.net.saddr, v ? 16 : 4);
		EXPECT_MEM(d.daddr, pkt.net.daddr, v ? 16 : 4);
		EXPECT_EQ(mroce_ipudp_encode(buf2, sizeof(buf2), &d), hl);
		EXPECT_MEM(buf, buf2, hl);
		EXPECT_EQ(mroce_ipudp_encode(buf2, hl - 1, &d), -EMSGSIZE);
		/* Trailing Ethernet padding is allowed. */
		EXPECT_EQ(mroce_ipudp_decode(buf, sizeof(buf), &d), 0);
	}
}

TEST(ipudp_malformed)
{
	struct mroce_pkt pkt;
	struct mroce_ipudp d;
	u8 buf[128], b[128];
	int len, i;

	make_pkt(&pkt, false, MROCE_OP_RC_SEND_ONLY, 0);
	len = mroce_pkt_encode(buf, sizeof(buf), &pkt, NULL);
	for (i = 0; i < 28; i++)
		EXPECT_EQ(mroce_ipudp_decode(buf, i, &d), -EMSGSIZE);
	/* IP length longer than the buffer, shorter than the headers. */
	EXPECT_EQ(mroce_ipudp_decode(buf, len - 1, &d), -EMSGSIZE);
	memcpy(b, buf, len);
	mroce_put_be16(b + 2, 27);
	EXPECT_EQ(mroce_ipudp_decode(b, len, &d), -EMSGSIZE);
	/* UDP length disagreeing with the IP length. */
	memcpy(b, buf, len);
	mroce_put_be16(b + 24, mroce_get_be16(b + 24) + 1);
	EXPECT_EQ(mroce_ipudp_decode(b, len, &d), -EMSGSIZE);
	/* IP options, fragments, versions, protocols. */
	memcpy(b, buf, len);
	b[0] = 0x46;
	EXPECT_EQ(mroce_ipudp_decode(b, len, &d), -EOPNOTSUPP);
	memcpy(b, buf, len);
	b[6] |= 0x20;
	EXPECT_EQ(mroce_ipudp_decode(b, len, &d), -EOPNOTSUPP);
	memcpy(b, buf, len);
	b[7] = 1;
	EXPECT_EQ(mroce_ipudp_decode(b, len, &d), -EOPNOTSUPP);
	memcpy(b, buf, len);
	b[9] = 6;
	EXPECT_EQ(mroce_ipudp_decode(b, len, &d), -EPROTO);
	memcpy(b, buf, len);
	b[0] = 0x55;
	EXPECT_EQ(mroce_ipudp_decode(b, len, &d), -EOPNOTSUPP);

	make_pkt(&pkt, true, MROCE_OP_RC_SEND_ONLY, 0);
	len = mroce_pkt_encode(buf, sizeof(buf), &pkt, NULL);
	for (i = 1; i < 48; i++)
		EXPECT_EQ(mroce_ipudp_decode(buf, i, &d), -EMSGSIZE);
	memcpy(b, buf, len);
	b[6] = 0;	/* hop-by-hop options header */
	EXPECT_EQ(mroce_ipudp_decode(b, len, &d), -EOPNOTSUPP);
	memcpy(b, buf, len);
	mroce_put_be16(b + 4, 200);
	EXPECT_EQ(mroce_ipudp_decode(b, len, &d), -EMSGSIZE);
}

/* Every opcode, IPv4 and IPv6, payload lengths 0..5: encode and decode. */
TEST(pkt_every_opcode_round_trip)
{
	unsigned int op, v, pay;

	for (op = 0; op < 256; op++) {
		const struct mroce_opcode_info *info = mroce_opcode_info(op);

		if (!info)
			continue;
		for (v = 0; v < 2; v++) {
			for (pay = 0; pay <= 5; pay++) {
				struct mroce_pkt pkt, d;
				u8 buf[256], buf2[256], payload[8] = {
					9, 8, 7, 6, 5, 4, 3, 2 };
				int len;

				if (pay && !(info->flags & MROCE_OPF_PAYLOAD))
					break;
				make_pkt(&pkt, v, op, pay);
				len = mroce_pkt_encode(buf, sizeof(buf), &pkt,
						       payload);
				ASSERT_TRUE(len > 0);
				EXPECT_EQ(pkt.lo.pad, -pay & 3);
				ASSERT_EQ(mroce_pkt_decode(buf, len, &d), 0);
				EXPECT_EQ(d.lo.pay_len, pay);
				EXPECT_EQ(d.pay_off, pkt.pay_off);
				EXPECT_MEM(buf + d.pay_off, payload, pay);
				EXPECT_EQ(d.icrc, pkt.icrc);
				EXPECT_EQ(mroce_pkt_encode(buf2, sizeof(buf2),
							   &d, buf + d.pay_off),
					  len);
				EXPECT_MEM(buf, buf2, len);
				if (*_failed) {
					printf("# opcode 0x%02x v%u pay %u\n",
					       op, v ? 6 : 4, pay);
					return;
				}
			}
		}
	}
}

TEST(pkt_errors)
{
	struct mroce_pkt pkt, d;
	u8 buf[256], b[256], payload[64] = { 0 };
	int len;

	make_pkt(&pkt, false, MROCE_OP_RC_SEND_ONLY, 5);
	len = mroce_pkt_encode(buf, sizeof(buf), &pkt, payload);
	ASSERT_EQ(len, 20 + 8 + 12 + 8 + 4);
	/* ICRC corrupted. */
	memcpy(b, buf, len);
	b[len - 1] ^= 1;
	EXPECT_EQ(mroce_pkt_decode(b, len, &d), -EBADMSG);
	/* IPv4 header checksum corrupted. */
	memcpy(b, buf, len);
	b[10] ^= 1;
	EXPECT_EQ(mroce_pkt_decode(b, len, &d), -EBADMSG);
	/* Not RoCEv2's port. */
	memcpy(b, buf, len);
	mroce_put_be16(b + 22, 4792);
	EXPECT_EQ(mroce_pkt_decode(b, len, &d), -EPROTO);
	/* Headers errors come through. */
	EXPECT_EQ(mroce_pkt_decode(buf, 10, &d), -EMSGSIZE);
	memcpy(b, buf, len);
	b[28] = 0x15;
	EXPECT_EQ(mroce_pkt_decode(b, len, &d), -EOPNOTSUPP);
	/*
	 * A partition other than the default one (C9-41), with a good
	 * ICRC: refused; the limited-member bit alone is accepted.
	 */
	pkt.hdr.bth.pkey = 0x1234;
	len = mroce_pkt_encode(b, sizeof(b), &pkt, payload);
	EXPECT_EQ(mroce_pkt_decode(b, len, &d), -EACCES);
	pkt.hdr.bth.pkey = 0x7fff;
	len = mroce_pkt_encode(b, sizeof(b), &pkt, payload);
	EXPECT_EQ(mroce_pkt_decode(b, len, &d), 0);
	pkt.hdr.bth.pkey = 0xffff;
	len = mroce_pkt_encode(buf, sizeof(buf), &pkt, payload);

	/* Encode errors. */
	EXPECT_EQ(mroce_pkt_encode(b, len - 1, &pkt, payload), -EMSGSIZE);
	pkt.lo.pay_len = 70000;
	EXPECT_EQ(mroce_pkt_encode(b, sizeof(b), &pkt, payload), -EMSGSIZE);
	pkt.lo.pay_len = 0xffff - 30;
	EXPECT_EQ(mroce_pkt_encode(b, sizeof(b), &pkt, payload), -EMSGSIZE);
	pkt.lo.pay_len = 4;
	pkt.hdr.bth.opcode = MROCE_OP_RC_ACKNOWLEDGE;
	EXPECT_EQ(mroce_pkt_encode(b, sizeof(b), &pkt, payload), -EPROTO);
	pkt.hdr.bth.opcode = 0x15;
	EXPECT_EQ(mroce_pkt_encode(b, sizeof(b), &pkt, payload), -EOPNOTSUPP);
}
