// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE extension packets (Documentation/wire.rst): every kind round
 * trips, boundary values survive, and every malformed input is rejected.
 */
#include <stdlib.h>

#include "mroce_core.h"
#include "mroce_ext.h"
#include "mroce_psn.h"
#include "mroce_raw.h"
#include "mroce_test.h"

/* the longest header: data's, or an MR_ACK with every SACK word */
#define PKT_ROOM	(32 + 8 * MROCE_SACKH_MAX_WORDS + 64 + 3 + MROCE_ICRC_LEN)

static const u8 all_xops[] = {
	MROCE_XOP_SEND, MROCE_XOP_SEND_IMM, MROCE_XOP_SEND_INV,
	MROCE_XOP_WRITE, MROCE_XOP_WRITE_IMM, MROCE_XOP_READ_REQ,
	MROCE_XOP_READ_RESP, MROCE_XOP_ACK,
};

/* A valid header of kind @op whose message holds @pay bytes at @off. */
static void fill_xhdr(struct mroce_xhdr *h, u8 op, u32 off, u32 pay)
{
	/* Static storage: padding is zero, so whole structures compare. */
	static const struct mroce_xhdr base = {
		.bth = { .pkey = 0xffff, .dqpn = 0xabcdef, .psn = 0xfffffe,
			 .ackreq = true },
		.mxh = { .ver = MROCE_XVER, .path = 0xbeef, .ts = 0xffffffff,
			 .tse = 0x01020304 },
	};
	const struct mroce_xop_info *info = mroce_xop_info(op);

	memcpy(h, &base, sizeof(*h));
	h->bth.opcode = op;
	if (info->hdrs & MROCE_XHF(MROCE_XEXT_MSGH)) {
		h->mxh.flags = MROCE_MXH_F_LAST;
		h->msgh.msn = 0xffffff;
		h->msgh.off = off;
		h->msgh.len = off + pay;
	}
	if (info->hdrs & MROCE_XHF(MROCE_XEXT_RETH)) {
		h->reth.va = 0x0102030405060708ULL;
		h->reth.rkey = 0x090a0b0c;
		h->reth.len = (info->hdrs & MROCE_XHF(MROCE_XEXT_MSGH)) ?
			      off + pay : 0xffffffff;
	}
	if (info->flags & MROCE_OPF_ACK) {
		h->mxh.flags = MROCE_MXH_F_ECE;
		h->aeth.syndrome = mroce_aeth_ack_syndrome(0x1f);
		h->aeth.msn = 0x123456;
		h->sack.words = 4;
		h->sack.map[0] = 0x8000000000000002ULL;
		h->sack.map[3] = 0xffffffffffffffffULL;
	}
	if (info->flags & MROCE_OPF_IMM)
		h->imm = 0x76543210;
	if (info->flags & MROCE_OPF_INV)
		h->ieth_rkey = 0x13579bdf;
}

/* Encode @h with @pay payload bytes, pad and a (zero) ICRC. */
static int build(u8 *buf, const struct mroce_xhdr *h, u32 pay)
{
	int n = mroce_xhdr_encode(buf, PKT_ROOM, h);

	if (n < 0)
		return n;
	memset(buf + n, 0x7b, pay + h->bth.pad + MROCE_ICRC_LEN);
	return n + pay + h->bth.pad + MROCE_ICRC_LEN;
}

static int decode(const u8 *buf, int len)
{
	struct mroce_xlayout lo;
	struct mroce_xhdr h;

	return mroce_xhdr_decode(buf, len, &h, &lo);
}

TEST(ext_table)
{
	unsigned int op, n = 0;

	for (op = 0; op < 256; op++) {
		const struct mroce_xop_info *info = mroce_xop_info(op);

		if (!info)
			continue;
		n++;
		EXPECT_TRUE(mroce_xop_is_ext(op));
		EXPECT_TRUE(info->hdrs & MROCE_XHF(MROCE_XEXT_MXH));
		EXPECT_EQ(!!(info->flags & MROCE_OPF_IMM),
			  !!(info->hdrs & MROCE_XHF(MROCE_XEXT_IMMDT)));
		EXPECT_EQ(!!(info->flags & MROCE_OPF_INV),
			  !!(info->hdrs & MROCE_XHF(MROCE_XEXT_IETH)));
		/* The RoCEv2 codec (and so the module) rejects every one. */
		EXPECT_TRUE(mroce_opcode_info(op) == NULL);
	}
	EXPECT_EQ(n, ARRAY_SIZE(all_xops));
	EXPECT_FALSE(mroce_xop_is_ext(MROCE_OP_CNP));
	EXPECT_FALSE(mroce_xop_is_ext(0xe0));
	EXPECT_TRUE(mroce_xop_info(0xc8) == NULL);
	EXPECT_TRUE(mroce_xop_info(0xdf) == NULL);
	EXPECT_TRUE(mroce_xop_info(MROCE_OP_RC_SEND_ONLY) == NULL);
}

/* Header lengths of Documentation/wire.rst's "Byte totals" table. */
TEST(ext_lengths)
{
	static const u8 want[] = { 36, 40, 40, 52, 56, 40, 36, 64 };
	struct mroce_xhdr h;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(all_xops); i++) {
		fill_xhdr(&h, all_xops[i], 0, 0);
		EXPECT_EQ(mroce_xhdr_len(&h), want[i]);
	}
	fill_xhdr(&h, MROCE_XOP_ACK, 0, 0);
	h.sack.words = 0;
	EXPECT_EQ(mroce_xhdr_len(&h), 32);
	EXPECT_TRUE(MROCE_XMAX_HDR_LEN == 56);
}

static void round_trip(int *_failed, u8 op, u32 off, u32 pay, u8 pad)
{
	const struct mroce_xop_info *info = mroce_xop_info(op);
	struct mroce_xhdr h, d;
	struct mroce_xlayout lo;
	u8 buf[PKT_ROOM], again[PKT_ROOM];
	int len, hlen;

	if (!(info->flags & MROCE_OPF_PAYLOAD))
		pay = pad = 0;
	fill_xhdr(&h, op, off, pay);
	h.bth.pad = pad;
	len = build(buf, &h, pay);
	ASSERT_TRUE(len > 0);
	hlen = mroce_xhdr_len(&h);
	ASSERT_EQ(mroce_xhdr_decode(buf, len, &d, &lo), 0);
	EXPECT_TRUE(lo.op == info);
	EXPECT_EQ(lo.hdr_len, hlen);
	EXPECT_EQ(lo.pay_len, pay);
	EXPECT_EQ(lo.pad, pad);
	EXPECT_MEM(&d, &h, sizeof(h));
	EXPECT_EQ(mroce_xhdr_encode(again, sizeof(again), &d), hlen);
	EXPECT_MEM(again, buf, hlen);
}

TEST(ext_round_trip_every_kind)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(all_xops); i++) {
		round_trip(_failed, all_xops[i], 0, 0, 0);
		round_trip(_failed, all_xops[i], 0, 64, 0);
		round_trip(_failed, all_xops[i], 4096, 61, 3);
		/* Offset at the top of the 32-bit range. */
		round_trip(_failed, all_xops[i], 0xffffffffU - 64, 64, 0);
	}
}

TEST(ext_sack_words)
{
	struct mroce_xhdr h, d;
	struct mroce_xlayout lo;
	u8 buf[PKT_ROOM];
	unsigned int w;
	int len;

	for (w = 0; w <= MROCE_SACKH_MAX_WORDS; w++) {
		fill_xhdr(&h, MROCE_XOP_ACK, 0, 0);
		memset(h.sack.map, 0, sizeof(h.sack.map));
		h.sack.words = w;
		if (w)
			h.sack.map[w - 1] = 1ULL << 63;
		len = build(buf, &h, 0);
		EXPECT_EQ(len, 32 + 8 * w + MROCE_ICRC_LEN);
		ASSERT_EQ(mroce_xhdr_decode(buf, len, &d, &lo), 0);
		EXPECT_EQ(d.sack.words, w);
		EXPECT_MEM(d.sack.map, h.sack.map, sizeof(h.sack.map));
		/* The last byte of the last word is bit 63 of that word. */
		if (w)
			EXPECT_EQ(buf[32 + 8 * w - 8], 0x80);
	}
	h.sack.words = MROCE_SACKH_MAX_WORDS + 1;
	EXPECT_EQ(mroce_xhdr_len(&h), -EINVAL);
	EXPECT_EQ(mroce_xhdr_encode(buf, sizeof(buf), &h), -EINVAL);
}

TEST(ext_encode_errors)
{
	struct mroce_xhdr h;
	u8 buf[PKT_ROOM];

	fill_xhdr(&h, MROCE_XOP_WRITE_IMM, 0, 0);
	EXPECT_EQ(mroce_xhdr_encode(buf, 55, &h), -EMSGSIZE);
	EXPECT_EQ(mroce_xhdr_encode(buf, 56, &h), 56);
	h.bth.opcode = 0xc8;
	EXPECT_EQ(mroce_xhdr_encode(buf, sizeof(buf), &h), -EOPNOTSUPP);
	h.bth.opcode = MROCE_OP_RC_SEND_ONLY;
	EXPECT_EQ(mroce_xhdr_len(&h), -EOPNOTSUPP);
}

/* Every prefix of every valid packet is rejected, never read past. */
TEST(ext_truncated)
{
	struct mroce_xhdr h;
	u8 buf[PKT_ROOM];
	unsigned int i;
	int len, l;

	for (i = 0; i < ARRAY_SIZE(all_xops); i++) {
		fill_xhdr(&h, all_xops[i], 0, 0);
		len = build(buf, &h, 0);
		ASSERT_EQ(decode(buf, len), 0);
		for (l = 0; l < len; l++) {
			u8 *cut = malloc(l ? l : 1);

			memcpy(cut, buf, l);
			EXPECT_NE(decode(cut, l), 0);
			free(cut);
		}
	}
}

/* Corrupt one byte of a valid packet of kind @op; expect @err. */
static int corrupt(u8 op, unsigned int at, u8 val)
{
	struct mroce_xhdr h;
	u8 buf[PKT_ROOM];
	int len;

	fill_xhdr(&h, op, 0, 8);
	len = build(buf, &h, mroce_xop_info(op)->flags & MROCE_OPF_PAYLOAD ?
		    8 : 0);
	buf[at] = val;
	return decode(buf, len);
}

TEST(ext_reserved_and_versions)
{
	/* BTH TVer, MXH version 0 and 2, MXH reserved nibble and flags. */
	EXPECT_EQ(corrupt(MROCE_XOP_SEND, 1, 0x01), -EOPNOTSUPP);
	EXPECT_EQ(corrupt(MROCE_XOP_SEND, 12, 0x00), -EOPNOTSUPP);
	EXPECT_EQ(corrupt(MROCE_XOP_SEND, 12, 0x20), -EOPNOTSUPP);
	EXPECT_EQ(corrupt(MROCE_XOP_SEND, 12, 0x11), -EPROTO);
	EXPECT_EQ(corrupt(MROCE_XOP_SEND, 13, 0x41), -EPROTO);
	/* MSGH reserved byte; SACKH reserved bytes and word count. */
	EXPECT_EQ(corrupt(MROCE_XOP_SEND, 24, 0x01), -EPROTO);
	EXPECT_EQ(corrupt(MROCE_XOP_ACK, 29, 0x01), -EPROTO);
	EXPECT_EQ(corrupt(MROCE_XOP_ACK, 31, 0x80), -EPROTO);
	EXPECT_EQ(corrupt(MROCE_XOP_ACK, 28, MROCE_SACKH_MAX_WORDS + 1),
		  -EPROTO);
	EXPECT_EQ(corrupt(MROCE_XOP_ACK, 28, 0xff), -EPROTO);
	/* SACK bit 0 (the first missing PSN) set: last byte of word 0. */
	EXPECT_EQ(corrupt(MROCE_XOP_ACK, 39, 0x03), -EPROTO);
	/* AETH reserved bit and reserved type. */
	EXPECT_EQ(corrupt(MROCE_XOP_ACK, 24, 0x80), -EPROTO);
	EXPECT_EQ(corrupt(MROCE_XOP_ACK, 24, 0x40), -EPROTO);
	/* Opcodes MetaRoCE reserves or RoCEv2's. */
	EXPECT_EQ(corrupt(MROCE_XOP_SEND, 0, 0xc8), -EOPNOTSUPP);
	EXPECT_EQ(corrupt(MROCE_XOP_SEND, 0, 0xdf), -EOPNOTSUPP);
	EXPECT_EQ(corrupt(MROCE_XOP_SEND, 0, MROCE_OP_RC_SEND_ONLY),
		  -EOPNOTSUPP);
}

TEST(ext_flags_by_kind)
{
	/* F or L on kinds without a message; ECE on data. */
	EXPECT_EQ(corrupt(MROCE_XOP_ACK, 13, MROCE_MXH_F_LAST), -EPROTO);
	EXPECT_EQ(corrupt(MROCE_XOP_READ_REQ, 13, MROCE_MXH_F_FIRST),
		  -EPROTO);
	EXPECT_EQ(corrupt(MROCE_XOP_SEND, 13,
			  MROCE_MXH_F_LAST | MROCE_MXH_F_ECE), -EPROTO);
	EXPECT_EQ(corrupt(MROCE_XOP_WRITE, 13,
			  MROCE_MXH_F_LAST | MROCE_MXH_F_DUP), -EPROTO);
	/* DUP on an ACK; reserved bits nowhere */
	EXPECT_EQ(corrupt(MROCE_XOP_ACK, 13, MROCE_MXH_F_DUP), 0);
	EXPECT_EQ(corrupt(MROCE_XOP_ACK, 13, 0x08), -EPROTO);
	/* Immediate and invalidate only on the last packet. */
	EXPECT_EQ(corrupt(MROCE_XOP_SEND_IMM, 13, 0), -EPROTO);
	EXPECT_EQ(corrupt(MROCE_XOP_WRITE_IMM, 13, MROCE_MXH_F_FIRST),
		  -EPROTO);
	EXPECT_EQ(corrupt(MROCE_XOP_SEND_INV, 13, 0), -EPROTO);
	/* A middle packet of a plain SEND is fine. */
	EXPECT_EQ(corrupt(MROCE_XOP_SEND, 13, 0), 0);
	EXPECT_EQ(corrupt(MROCE_XOP_SEND, 13, MROCE_MXH_F_FIRST |
			  MROCE_MXH_F_LAST), 0);
}

static int msg_case(u8 op, u8 flags, u32 off, u32 len, u32 pay)
{
	struct mroce_xhdr h;
	u8 buf[PKT_ROOM];

	fill_xhdr(&h, op, 0, 0);
	h.mxh.flags = flags;
	h.msgh.off = off;
	h.msgh.len = len;
	h.reth.len = len;
	return decode(buf, build(buf, &h, pay));
}

TEST(ext_message_bounds)
{
	const u8 L = MROCE_MXH_F_LAST, F = MROCE_MXH_F_FIRST;

	EXPECT_EQ(msg_case(MROCE_XOP_SEND, 0, 100, 108, 8), 0);
	EXPECT_EQ(msg_case(MROCE_XOP_SEND, 0, 100, 107, 8), -EPROTO);
	EXPECT_EQ(msg_case(MROCE_XOP_SEND, L, 100, 109, 8), -EPROTO);
	EXPECT_EQ(msg_case(MROCE_XOP_SEND, F, 100, 200, 8), -EPROTO);
	EXPECT_EQ(msg_case(MROCE_XOP_SEND, F, 0, 200, 8), 0);
	/* offset + payload must not wrap 32 bits into the message. */
	EXPECT_EQ(msg_case(MROCE_XOP_READ_RESP, 0, 0xfffffffcU, 0xffffffffU,
			   8), -EPROTO);
	EXPECT_EQ(msg_case(MROCE_XOP_WRITE, L, 0, 8, 8), 0);
}

TEST(ext_write_reth_matches_msgh)
{
	struct mroce_xhdr h;
	u8 buf[PKT_ROOM];

	fill_xhdr(&h, MROCE_XOP_WRITE, 0, 8);
	h.reth.len = 9;
	EXPECT_EQ(decode(buf, build(buf, &h, 8)), -EPROTO);
	h.reth.len = 8;
	EXPECT_EQ(decode(buf, build(buf, &h, 8)), 0);
}

TEST(ext_payload_and_pad)
{
	struct mroce_xhdr h;
	u8 buf[PKT_ROOM];
	int len;

	/* An ACK and a READ request carry nothing after their headers. */
	fill_xhdr(&h, MROCE_XOP_ACK, 0, 0);
	len = build(buf, &h, 0);
	EXPECT_EQ(decode(buf, len + 1), -EPROTO);
	fill_xhdr(&h, MROCE_XOP_READ_REQ, 0, 0);
	len = build(buf, &h, 0);
	EXPECT_EQ(decode(buf, len + 4), -EPROTO);
	/* PadCnt larger than what follows the headers. */
	fill_xhdr(&h, MROCE_XOP_SEND, 0, 0);
	h.bth.pad = 3;
	len = build(buf, &h, 0);
	EXPECT_EQ(decode(buf, len - 1), -EMSGSIZE);
	EXPECT_EQ(decode(buf, len), 0);
}

TEST(ext_sack_from_board)
{
	static const u32 bases[] = { 0, 1000, MROCE_PSN_MASK - 5 };
	struct mroce_sackh x;
	struct mroce_sack s;
	unsigned int b, i;

	for (b = 0; b < ARRAY_SIZE(bases); b++) {
		mroce_sack_init(&s, bases[b]);
		mroce_ext_sack_from_board(&s, &x);
		EXPECT_EQ(x.words, 0);
		/* Holes at base and base + 2; arrivals up to base + 130. */
		mroce_sack_mark(&s, mroce_psn_add(bases[b], 1));
		mroce_sack_mark(&s, mroce_psn_add(bases[b], 3));
		mroce_sack_mark(&s, mroce_psn_add(bases[b], 130));
		mroce_ext_sack_from_board(&s, &x);
		EXPECT_EQ(x.words, 3);
		for (i = 0; i < MROCE_SACK_BITS; i++)
			EXPECT_EQ(mroce_ext_sack_test(&x, i),
				  i && mroce_sack_test(&s,
					mroce_psn_add(s.base, i)));
		EXPECT_EQ(x.map[0], 0xaULL);
		EXPECT_EQ(x.map[2], 1ULL << 2);
		/* The last PSN of the window lands in the last word. */
		mroce_sack_mark(&s, mroce_psn_add(s.base, 255));
		mroce_ext_sack_from_board(&s, &x);
		EXPECT_EQ(x.words, 4);
		EXPECT_TRUE(mroce_ext_sack_test(&x, 255));
		EXPECT_FALSE(mroce_ext_sack_test(&x, 256));
	}
}

TEST(ext_capability_mark)
{
	struct mroce_bth bth = { 0 };
	u8 p[MROCE_BTH_LEN];

	EXPECT_EQ(mroce_bth_mark_ver(&bth), 0);
	mroce_bth_set_mark(&bth, MROCE_XVER);
	EXPECT_EQ(mroce_bth_mark_ver(&bth), MROCE_XVER);
	/* It travels in byte 8 next to AckReq, outside the masked byte 4. */
	bth.ackreq = true;
	mroce_bth_encode(p, &bth);
	EXPECT_EQ(p[8], 0x80 | MROCE_BTH_MR_CAPABLE | MROCE_XVER);
	EXPECT_EQ(p[MROCE_BTH_ICRC_MASKED_BYTE], 0);
	memset(&bth, 0, sizeof(bth));
	mroce_bth_decode(p, &bth);
	EXPECT_EQ(mroce_bth_mark_ver(&bth), MROCE_XVER);
	/* The switch bit leaves the version readable. */
	bth.resv7 |= MROCE_BTH_MR_SWITCHED;
	EXPECT_EQ(mroce_bth_mark_ver(&bth), MROCE_XVER);
	EXPECT_FALSE(mroce_bth_mark_csum(&bth));
	/* The UDP checksum option leaves the version readable too. */
	bth.resv7 |= MROCE_BTH_MR_CSUM;
	EXPECT_EQ(mroce_bth_mark_ver(&bth), MROCE_XVER);
	EXPECT_TRUE(mroce_bth_mark_csum(&bth));
	mroce_bth_encode(p, &bth);
	EXPECT_EQ(p[8], 0x80 | MROCE_BTH_MR_CAPABLE | MROCE_BTH_MR_SWITCHED |
		  MROCE_BTH_MR_CSUM | MROCE_XVER);
	/* Without bit 6 nothing is a mark, the option bit included. */
	bth.resv7 = MROCE_BTH_MR_CSUM | MROCE_XVER;
	EXPECT_EQ(mroce_bth_mark_ver(&bth), 0);
	EXPECT_FALSE(mroce_bth_mark_csum(&bth));
	/* A mark without a version is no mark either. */
	bth.resv7 = MROCE_BTH_MR_CAPABLE | MROCE_BTH_MR_CSUM;
	EXPECT_FALSE(mroce_bth_mark_csum(&bth));
	bth.resv7 = MROCE_XVER;
	EXPECT_EQ(mroce_bth_mark_ver(&bth), 0);
}

/* Every RC request has one kind and position, and they map back to it. */
TEST(ext_kind_of_requests)
{
	unsigned int op, n = 0;
	u8 pos, xop;

	for (op = 0; op < 0x20; op++) {
		const struct mroce_opcode_info *info = mroce_opcode_info(op);
		u32 want = MROCE_OPF_SEND | MROCE_OPF_WRITE | MROCE_OPF_READ;

		pos = 0xff;
		xop = mroce_ext_kind(op, &pos);
		if (!info || !(info->flags & MROCE_OPF_REQ) ||
		    !(info->flags & want)) {
			EXPECT_EQ(xop, 0);
			continue;
		}
		n++;
		EXPECT_TRUE(mroce_xop_is_ext(xop));
		EXPECT_EQ(mroce_ext_roce_op(xop, pos), (int)op);
		/* the kind has the opcode's semantics ... */
		EXPECT_EQ(mroce_xop_info(xop)->flags & (want | MROCE_OPF_IMM |
							MROCE_OPF_INV),
			  info->flags & (want | MROCE_OPF_IMM | MROCE_OPF_INV));
		/* ... and its position */
		EXPECT_EQ(!!(pos & MROCE_MXH_F_FIRST),
			  !!(info->flags & (MROCE_OPF_FIRST | MROCE_OPF_ONLY)) &&
			  !(info->flags & MROCE_OPF_READ));
		EXPECT_EQ(!!(pos & MROCE_MXH_F_LAST),
			  !!(info->flags & (MROCE_OPF_LAST | MROCE_OPF_ONLY)) &&
			  !(info->flags & MROCE_OPF_READ));
	}
	EXPECT_EQ(n, 15u);
	/* Atomics and responses keep RoCEv2; other positions do not exist. */
	EXPECT_EQ(mroce_ext_kind(MROCE_OP_RC_FETCH_ADD, &pos), 0);
	EXPECT_EQ(mroce_ext_kind(MROCE_OP_RC_ACKNOWLEDGE, &pos), 0);
	EXPECT_EQ(mroce_ext_roce_op(MROCE_XOP_READ_RESP, MROCE_MXH_F_FIRST),
		  -EOPNOTSUPP);
	EXPECT_EQ(mroce_ext_roce_op(MROCE_XOP_ACK, 0), -EOPNOTSUPP);
	EXPECT_EQ(mroce_ext_roce_op(MROCE_XOP_SEND_IMM, MROCE_MXH_F_FIRST),
		  -EOPNOTSUPP);
	EXPECT_EQ(mroce_ext_roce_op(MROCE_XOP_READ_REQ, MROCE_MXH_F_LAST),
		  -EOPNOTSUPP);
	/* Flags other than the position do not change the opcode. */
	EXPECT_EQ(mroce_ext_roce_op(MROCE_XOP_WRITE, MROCE_MXH_F_LAST |
				    MROCE_MXH_F_ECE),
		  MROCE_OP_RC_RDMA_WRITE_LAST);
}
