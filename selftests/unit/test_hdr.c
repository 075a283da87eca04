// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Opcode table and transport header encode/decode: every opcode, every
 * truncation, malformed fields.
 */
#include "mroce_core.h"
#include "mroce_hdr.h"
#include "mroce_raw.h"
#include "mroce_test.h"

/* Fill every field of every header with a distinct value. */
static void fill_hdr(struct mroce_hdr *h, u8 opcode)
{
	memset(h, 0, sizeof(*h));
	h->bth.opcode = opcode;
	h->bth.se = true;
	h->bth.mig = true;
	h->bth.pad = 0;
	h->bth.pkey = 0xffff;
	h->bth.fecn = true;
	h->bth.becn = false;
	h->bth.resv6 = 0x15;
	h->bth.dqpn = 0xabcdef;
	h->bth.ackreq = true;
	h->bth.resv7 = 0x2a;
	h->bth.psn = 0xfedcba;
	h->deth.qkey = 0x11111111;
	h->deth.resv8 = 0x22;
	h->deth.sqpn = 0x333333;
	h->reth.va = 0x0102030405060708ULL;
	h->reth.rkey = 0x090a0b0c;
	h->reth.len = 0x0d0e0f10;
	h->atmeth.va = 0x8877665544332211ULL;
	h->atmeth.rkey = 0xcafebabe;
	h->atmeth.swap_add = 0x1122334455667788ULL;
	h->atmeth.compare = 0x99aabbccddeeff00ULL;
	h->aeth.syndrome = 0x1f;
	h->aeth.msn = 0x123456;
	h->atmack.orig = 0xdeadbeef0badf00dULL;
	h->imm = 0x76543210;
	h->ieth_rkey = 0x13579bdf;
}

/* Clear the fields of extension headers the opcode does not have. */
static void mask_hdr(struct mroce_hdr *h, u16 hdrs)
{
	if (!(hdrs & MROCE_HDRF_DETH))
		memset(&h->deth, 0, sizeof(h->deth));
	if (!(hdrs & MROCE_HDRF_RETH))
		memset(&h->reth, 0, sizeof(h->reth));
	if (!(hdrs & MROCE_HDRF_ATMETH))
		memset(&h->atmeth, 0, sizeof(h->atmeth));
	if (!(hdrs & MROCE_HDRF_AETH))
		memset(&h->aeth, 0, sizeof(h->aeth));
	if (!(hdrs & MROCE_HDRF_ATMACK))
		memset(&h->atmack, 0, sizeof(h->atmack));
	if (!(hdrs & MROCE_HDRF_IMMDT))
		h->imm = 0;
	if (!(hdrs & MROCE_HDRF_IETH))
		h->ieth_rkey = 0;
}

static bool hdr_equal(const struct mroce_hdr *a, const struct mroce_hdr *b)
{
	return !memcmp(&a->bth, &b->bth, sizeof(a->bth)) &&
	       !memcmp(&a->deth, &b->deth, sizeof(a->deth)) &&
	       !memcmp(&a->reth, &b->reth, sizeof(a->reth)) &&
	       !memcmp(&a->atmeth, &b->atmeth, sizeof(a->atmeth)) &&
	       !memcmp(&a->aeth, &b->aeth, sizeof(a->aeth)) &&
	       a->atmack.orig == b->atmack.orig && a->imm == b->imm &&
	       a->ieth_rkey == b->ieth_rkey;
}

TEST(opcode_table_consistent)
{
	unsigned int op, n = 0;

	for (op = 0; op < 256; op++) {
		const struct mroce_opcode_info *info = mroce_opcode_info(op);
		unsigned int e, len = MROCE_BTH_LEN;
		u32 pos;

		if (!info)
			continue;
		n++;
		for (e = 0; e < MROCE_NUM_EXT; e++)
			if (info->hdrs & MROCE_HDRF(e))
				len += mroce_ext_len(e);
		EXPECT_EQ(info->hdr_len, len);
		EXPECT_TRUE(info->hdr_len <= MROCE_MAX_HDR_LEN);
		/* Exactly one position in the message. */
		pos = info->flags & (MROCE_OPF_FIRST | MROCE_OPF_MIDDLE |
				     MROCE_OPF_LAST | MROCE_OPF_ONLY);
		if (!(info->flags & MROCE_OPF_CNP))
			EXPECT_TRUE(pos && !(pos & (pos - 1)));
		/* Requests and responses never mix. */
		EXPECT_FALSE((info->flags & MROCE_OPF_REQ) &&
			     (info->flags & MROCE_OPF_RESP));
		EXPECT_EQ(!!(info->flags & MROCE_OPF_IMM),
			  !!(info->hdrs & MROCE_HDRF_IMMDT));
		EXPECT_EQ(!!(info->flags & MROCE_OPF_INV),
			  !!(info->hdrs & MROCE_HDRF_IETH));
	}
	/* RC 23, UC 12, UD 2, CNP 1. */
	EXPECT_EQ(n, 38);
	EXPECT_TRUE(mroce_opcode_info(0x15) == NULL);
	EXPECT_TRUE(mroce_opcode_info(0x40) == NULL);
	EXPECT_TRUE(mroce_opcode_info(0xa0) == NULL);
	EXPECT_EQ(mroce_ext_len(MROCE_NUM_EXT), 0);
}

/* One position helper for every FIRST/MIDDLE/LAST/ONLY decision. */
TEST(opcode_positions)
{
	const struct mroce_opcode_info *op;

	EXPECT_EQ(mroce_pos(0, 0), MROCE_POS_ONLY);
	EXPECT_EQ(mroce_pos(0, 1), MROCE_POS_ONLY);
	EXPECT_EQ(mroce_pos(0, 2), MROCE_POS_FIRST);
	EXPECT_EQ(mroce_pos(1, 2), MROCE_POS_LAST);
	EXPECT_EQ(mroce_pos(1, 3), MROCE_POS_MIDDLE);
	EXPECT_EQ(mroce_pos(2, 3), MROCE_POS_LAST);
	EXPECT_EQ(mroce_pos_flag(MROCE_POS_FIRST), MROCE_OPF_FIRST);
	EXPECT_EQ(mroce_pos_flag(MROCE_POS_MIDDLE), MROCE_OPF_MIDDLE);
	EXPECT_EQ(mroce_pos_flag(MROCE_POS_LAST), MROCE_OPF_LAST);
	EXPECT_EQ(mroce_pos_flag(MROCE_POS_ONLY), MROCE_OPF_ONLY);
	/* The middle response of a 3-packet READ, by the table. */
	op = mroce_opcode_info(MROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE);
	EXPECT_TRUE(op->flags & mroce_pos_flag(mroce_pos(1, 3)));
}

TEST(opcode_known_layouts)
{
	/* IBTA 9.3 Table 36-42 spot checks. */
	EXPECT_EQ(mroce_opcode_info(MROCE_OP_RC_SEND_ONLY)->hdr_len, 12);
	EXPECT_EQ(mroce_opcode_info(MROCE_OP_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE)
		  ->hdr_len, 32);
	EXPECT_EQ(mroce_opcode_info(MROCE_OP_RC_RDMA_READ_REQUEST)->hdr_len,
		  28);
	EXPECT_EQ(mroce_opcode_info(MROCE_OP_RC_COMPARE_SWAP)->hdr_len, 40);
	EXPECT_EQ(mroce_opcode_info(MROCE_OP_RC_ATOMIC_ACKNOWLEDGE)->hdr_len,
		  24);
	EXPECT_EQ(mroce_opcode_info(MROCE_OP_UD_SEND_ONLY_WITH_IMMEDIATE)
		  ->hdr_len, 24);
	EXPECT_EQ(mroce_opcode_ext_offset(MROCE_OP_RC_ATOMIC_ACKNOWLEDGE,
					  MROCE_EXT_ATMACK), 16);
	EXPECT_EQ(mroce_opcode_ext_offset(MROCE_OP_UD_SEND_ONLY_WITH_IMMEDIATE,
					  MROCE_EXT_IMMDT), 20);
	EXPECT_EQ(mroce_opcode_ext_offset(
			MROCE_OP_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE,
			MROCE_EXT_IMMDT), 28);
	EXPECT_EQ(mroce_opcode_ext_offset(MROCE_OP_RC_SEND_ONLY,
					  MROCE_EXT_RETH), -EINVAL);
	EXPECT_EQ(mroce_opcode_ext_offset(0x15, MROCE_EXT_RETH), -EINVAL);
	EXPECT_EQ(mroce_opcode_ext_offset(MROCE_OP_RC_SEND_ONLY,
					  MROCE_NUM_EXT), -EINVAL);
}

/* Every opcode: encode, decode, re-encode, compare structures and bytes. */
TEST(every_opcode_round_trip)
{
	unsigned int op;

	for (op = 0; op < 256; op++) {
		const struct mroce_opcode_info *info = mroce_opcode_info(op);
		u8 buf[128], buf2[128];
		struct mroce_hdr h, d;
		struct mroce_hdr_layout lo;
		u32 pay = (info && (info->flags & MROCE_OPF_PAYLOAD)) ? 7 : 0;
		int len, i;

		if (!info)
			continue;
		fill_hdr(&h, op);
		h.bth.pad = pay ? 1 : 0;
		mask_hdr(&h, info->hdrs);
		memset(buf, 0x5a, sizeof(buf));
		len = mroce_hdr_encode(buf, sizeof(buf), &h);
		ASSERT_EQ(len, info->hdr_len);
		ASSERT_EQ(mroce_hdr_decode(buf, len + pay + MROCE_ICRC_LEN,
					   &d, &lo), 0);
		EXPECT_TRUE(hdr_equal(&h, &d));
		EXPECT_TRUE(lo.op == info);
		EXPECT_EQ(lo.hdr_len, info->hdr_len);
		EXPECT_EQ(lo.pad, h.bth.pad);
		EXPECT_EQ(lo.pay_len, pay ? pay - 1 : 0);
		EXPECT_EQ(mroce_hdr_encode(buf2, sizeof(buf2), &d), len);
		EXPECT_MEM(buf, buf2, len);
		for (i = 0; i < MROCE_NUM_EXT; i++) {
			int off = mroce_opcode_ext_offset(op, i);

			if (info->hdrs & MROCE_HDRF(i))
				EXPECT_TRUE(off >= MROCE_BTH_LEN &&
					    off + mroce_ext_len(i) <= len);
			else
				EXPECT_EQ(off, -EINVAL);
		}
		if (*_failed) {
			printf("# opcode 0x%02x %s\n", op, info->name);
			return;
		}
	}
}

TEST(bth_fields_bytes)
{
	struct mroce_bth bth;
	static const u8 want[12] = {
		0x04, 0xb0, 0xff, 0xff, 0x40, 0x00, 0x00, 0x11,
		0x80, 0x00, 0x01, 0x02,
	};
	struct mroce_bth back;
	u8 b[12];

	/* memset first: the structures are compared with their padding. */
	memset(&bth, 0, sizeof(bth));
	bth.opcode = MROCE_OP_RC_SEND_ONLY;
	bth.se = true;
	bth.pad = 3;
	bth.pkey = 0xffff;
	bth.becn = true;
	bth.dqpn = 0x11;
	bth.ackreq = true;
	bth.psn = 0x102;
	mroce_bth_encode(b, &bth);
	EXPECT_MEM(b, want, sizeof(want));
	memset(&back, 0, sizeof(back));
	mroce_bth_decode(b, &back);
	EXPECT_MEM(&back, &bth, sizeof(bth));
	/* Encode masks out-of-range values into their fields. */
	bth.pad = 0xff;
	bth.tver = 0xff;
	bth.resv6 = 0xff;
	bth.resv7 = 0xff;
	bth.dqpn = 0xff000001;
	mroce_bth_encode(b, &bth);
	EXPECT_EQ(b[1], 0xbf);
	EXPECT_EQ(b[4], 0x7f);
	EXPECT_EQ(b[8], 0xff);
	EXPECT_EQ(mroce_get_be24(b + 5), 1);
}

TEST(hdr_truncated_every_length)
{
	unsigned int op;

	for (op = 0; op < 256; op++) {
		const struct mroce_opcode_info *info = mroce_opcode_info(op);
		struct mroce_hdr h, d;
		struct mroce_hdr_layout lo;
		u8 buf[128];
		unsigned int len;

		if (!info)
			continue;
		fill_hdr(&h, op);
		mroce_hdr_encode(buf, sizeof(buf), &h);
		for (len = 0; len < info->hdr_len + 4U; len++)
			EXPECT_EQ(mroce_hdr_decode(buf, len, &d, &lo),
				  -EMSGSIZE);
		EXPECT_EQ(mroce_hdr_decode(buf, len, &d, &lo), 0);
		EXPECT_EQ(mroce_hdr_encode(buf, info->hdr_len - 1, &h),
			  -EMSGSIZE);
	}
}

TEST(hdr_malformed)
{
	struct mroce_hdr h, d;
	struct mroce_hdr_layout lo;
	u8 buf[64];
	int len;

	memset(buf, 0, sizeof(buf));
	fill_hdr(&h, MROCE_OP_RC_SEND_ONLY);
	len = mroce_hdr_encode(buf, sizeof(buf), &h);
	ASSERT_EQ(len, 12);

	/* Unknown opcodes, on decode and encode. */
	buf[0] = 0x15;
	EXPECT_EQ(mroce_hdr_decode(buf, 32, &d, &lo), -EOPNOTSUPP);
	EXPECT_TRUE(lo.op == NULL);
	h.bth.opcode = 0x1f;
	EXPECT_EQ(mroce_hdr_encode(buf, sizeof(buf), &h), -EOPNOTSUPP);
	buf[0] = MROCE_OP_RC_SEND_ONLY;

	/* Transport version other than 0 (IBTA 9.2 C9-?: drop). */
	buf[1] |= 1;
	EXPECT_EQ(mroce_hdr_decode(buf, 32, &d, &lo), -EOPNOTSUPP);
	buf[1] &= ~MROCE_BTH_TVER_MASK;

	/* Pad count larger than what follows the headers. */
	buf[1] = (buf[1] & ~MROCE_BTH_PAD_MASK) | (3 << MROCE_BTH_PAD_SHIFT);
	EXPECT_EQ(mroce_hdr_decode(buf, 12 + 2 + 4, &d, &lo), -EMSGSIZE);
	EXPECT_EQ(mroce_hdr_decode(buf, 12 + 3 + 4, &d, &lo), 0);
	EXPECT_EQ(lo.pay_len, 0);
	EXPECT_EQ(lo.pad, 3);

	/* Payload on an opcode that carries none. */
	h.bth.opcode = MROCE_OP_RC_ACKNOWLEDGE;
	h.bth.pad = 0;
	len = mroce_hdr_encode(buf, sizeof(buf), &h);
	EXPECT_EQ(mroce_hdr_decode(buf, len + 4, &d, &lo), 0);
	EXPECT_EQ(mroce_hdr_decode(buf, len + 4 + 4, &d, &lo), -EPROTO);
	buf[1] |= 1 << MROCE_BTH_PAD_SHIFT;
	EXPECT_EQ(mroce_hdr_decode(buf, len + 4 + 1, &d, &lo), -EPROTO);
}

TEST(aeth_syndromes)
{
	unsigned int s, acks = 0, rnrs = 0, naks = 0, bad = 0;

	for (s = 0; s < 256; s++) {
		switch (mroce_aeth_kind(s)) {
		case MROCE_AETH_ACK:
			acks++;
			break;
		case MROCE_AETH_RNR_NAK:
			rnrs++;
			break;
		case MROCE_AETH_NAK:
			naks++;
			break;
		default:
			bad++;
		}
	}
	EXPECT_EQ(acks, 32);
	EXPECT_EQ(rnrs, 32);
	EXPECT_EQ(naks, 32);
	EXPECT_EQ(bad, 160);
	EXPECT_EQ(mroce_aeth_ack_syndrome(MROCE_AETH_CREDITS_INVALID), 0x1f);
	EXPECT_EQ(mroce_aeth_ack_syndrome(0xff), 0x1f);
	EXPECT_EQ(mroce_aeth_rnr_syndrome(14), 0x2e);
	EXPECT_EQ(mroce_aeth_nak_syndrome(MROCE_NAK_PSN_SEQ_ERROR), 0x60);
	EXPECT_EQ(mroce_aeth_nak_syndrome(MROCE_NAK_REMOTE_ACCESS_ERROR),
		  0x62);
	EXPECT_EQ(mroce_aeth_kind(0x40), MROCE_AETH_INVALID);
	EXPECT_EQ(mroce_aeth_kind(0x80), MROCE_AETH_INVALID);
}
