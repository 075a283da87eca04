// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Responder: PSN checks, opcode sequence, duplicates, READ/atomic replay.
 */
#include "mroce_core.h"
#include "mroce_respwin.h"
#include "mroce_test.h"

static struct mroce_hdr req(u8 opcode, u32 psn)
{
	struct mroce_hdr h;

	memset(&h, 0, sizeof(h));
	h.bth.opcode = opcode;
	h.bth.psn = psn;
	return h;
}

/* Check and, if new, accept: what a responder does with a packet. */
static enum mroce_resp_verdict feed(struct mroce_respwin *w,
				    const struct mroce_hdr *h)
{
	enum mroce_resp_verdict v = mroce_respwin_check(w, &h->bth);

	if (v == MROCE_RESP_NEW)
		mroce_respwin_accept(w, h, 1024);
	return v;
}

TEST(respwin_new_dup_nak)
{
	/*
	 * Behind the expected PSN (also across the wrap) is a duplicate;
	 * ahead of it gets one NAK, then silence until the expected PSN.
	 */
	static const struct { u32 psn; enum mroce_resp_verdict v; } steps[] = {
		{ 0xffffff, MROCE_RESP_DUP }, { 0x800001, MROCE_RESP_DUP },
		{ 2, MROCE_RESP_NAK_SEQ }, { 3, MROCE_RESP_DROP },
		{ 0x7fffff, MROCE_RESP_DROP }, { 0, MROCE_RESP_NEW },
		{ 2, MROCE_RESP_NAK_SEQ },
	};
	struct mroce_respwin w;
	struct mroce_hdr h;
	unsigned int i;

	mroce_respwin_init(&w, 0xffffff, NULL, 4);
	EXPECT_EQ(w.nres, 0);
	h = req(MROCE_OP_RC_SEND_ONLY, 0xffffff);
	EXPECT_EQ(feed(&w, &h), MROCE_RESP_NEW);
	EXPECT_EQ(w.epsn, 0);
	EXPECT_EQ(w.msn, 1);
	EXPECT_EQ(mroce_respwin_ack_psn(&w), 0xffffff);
	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		h.bth.psn = steps[i].psn;
		if (!MROCE_CHECK(feed(&w, &h) == steps[i].v, "step %u", i))
			return;
	}
	EXPECT_EQ(w.msn, 2);
}

TEST(respwin_drops_non_rc_requests)
{
	struct mroce_respwin w;
	struct mroce_hdr h;

	mroce_respwin_init(&w, 0, NULL, 0);
	h = req(MROCE_OP_RC_ACKNOWLEDGE, 0);
	EXPECT_EQ(mroce_respwin_check(&w, &h.bth), MROCE_RESP_DROP);
	h = req(MROCE_OP_UC_SEND_ONLY, 0);
	EXPECT_EQ(mroce_respwin_check(&w, &h.bth), MROCE_RESP_DROP);
	h = req(MROCE_OP_UD_SEND_ONLY, 0);
	EXPECT_EQ(mroce_respwin_check(&w, &h.bth), MROCE_RESP_DROP);
	h = req(0x15, 0);
	EXPECT_EQ(mroce_respwin_check(&w, &h.bth), MROCE_RESP_DROP);
	EXPECT_TRUE(mroce_respwin_accept(&w, &h, 1024) == NULL);
	EXPECT_EQ(w.epsn, 0);
	/* READ and atomics without responder resources. */
	h = req(MROCE_OP_RC_RDMA_READ_REQUEST, 0);
	EXPECT_EQ(mroce_respwin_check(&w, &h.bth), MROCE_RESP_NAK_INVALID);
	h = req(MROCE_OP_RC_FETCH_ADD, 0);
	EXPECT_EQ(mroce_respwin_check(&w, &h.bth), MROCE_RESP_NAK_INVALID);
	EXPECT_TRUE(mroce_respwin_accept(&w, &h, 1024) == NULL);
	EXPECT_EQ(w.epsn, 1);
	/* Accepted anyway, a READ still takes one PSN per response. */
	h = req(MROCE_OP_RC_RDMA_READ_REQUEST, 1);
	h.reth.len = 3000;
	EXPECT_TRUE(mroce_respwin_accept(&w, &h, 1024) == NULL);
	EXPECT_EQ(w.epsn, 4);
}

TEST(respwin_opcode_sequence)
{
	static const struct { u8 op; enum mroce_resp_verdict v; } seq[] = {
		{ MROCE_OP_RC_SEND_MIDDLE, MROCE_RESP_NAK_INVALID },
		{ MROCE_OP_RC_RDMA_WRITE_LAST, MROCE_RESP_NAK_INVALID },
		{ MROCE_OP_RC_SEND_FIRST, MROCE_RESP_NEW },
		{ MROCE_OP_RC_SEND_MIDDLE, MROCE_RESP_NEW },
		{ MROCE_OP_RC_RDMA_WRITE_MIDDLE, MROCE_RESP_NAK_INVALID },
		{ MROCE_OP_RC_SEND_ONLY, MROCE_RESP_NAK_INVALID },
		{ MROCE_OP_RC_SEND_LAST_WITH_INVALIDATE, MROCE_RESP_NEW },
		{ MROCE_OP_RC_RDMA_WRITE_FIRST, MROCE_RESP_NEW },
		{ MROCE_OP_RC_SEND_LAST, MROCE_RESP_NAK_INVALID },
		{ MROCE_OP_RC_RDMA_READ_REQUEST, MROCE_RESP_NAK_INVALID },
		{ MROCE_OP_RC_RDMA_WRITE_MIDDLE, MROCE_RESP_NEW },
		{ MROCE_OP_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE, MROCE_RESP_NEW },
		{ MROCE_OP_RC_RDMA_WRITE_ONLY, MROCE_RESP_NEW },
		{ MROCE_OP_RC_SEND_ONLY_WITH_IMMEDIATE, MROCE_RESP_NEW },
	};
	struct mroce_respwin_res res[2];
	struct mroce_respwin w;
	unsigned int i;

	mroce_respwin_init(&w, 0, res, 2);
	for (i = 0; i < ARRAY_SIZE(seq); i++) {
		struct mroce_hdr h = req(seq[i].op, w.epsn);

		if (!MROCE_CHECK(feed(&w, &h) == seq[i].v, "step %u", i))
			return;
	}
	EXPECT_EQ(w.epsn, 8);
	/* Messages completed: SEND, WRITE(imm), WRITE only, SEND imm. */
	EXPECT_EQ(w.msn, 4);
	EXPECT_EQ(w.seq, MROCE_RESP_SEQ_NONE);
}

TEST(respwin_read_resources)
{
	struct mroce_respwin_res res[2];
	const struct mroce_respwin_res *r;
	struct mroce_respwin w;
	struct mroce_hdr h, d;

	mroce_respwin_init(&w, 0xfffffe, res, 2);
	h = req(MROCE_OP_RC_RDMA_READ_REQUEST, 0xfffffe);
	h.reth.va = 0x10000;
	h.reth.rkey = 0x77;
	h.reth.len = 4096 + 1;
	EXPECT_EQ(mroce_respwin_check(&w, &h.bth), MROCE_RESP_NEW);
	EXPECT_TRUE(mroce_respwin_accept(&w, &h, 1024) == &res[0]);
	/* Five response packets: PSNs fffffe .. 2. */
	EXPECT_EQ(w.epsn, 3);
	EXPECT_EQ(res[0].kind, MROCE_RES_READ);
	EXPECT_EQ(res[0].first_psn, 0xfffffe);
	EXPECT_EQ(res[0].last_psn, 2);
	EXPECT_EQ(res[0].msn, 1);

	/* The duplicate restarted at PSN 0 (third packet). */
	d = h;
	d.bth.psn = 0;
	EXPECT_EQ(mroce_respwin_check(&w, &d.bth), MROCE_RESP_DUP);
	r = mroce_respwin_find(&w, 0);
	ASSERT_TRUE(r == &res[0]);
	d.reth.va = 0x10000 + 2048;
	d.reth.len = 4097 - 2048;
	EXPECT_EQ(mroce_respwin_dup_read_check(r, &d, 1024), 0);
	d.reth.va += 1;
	EXPECT_EQ(mroce_respwin_dup_read_check(r, &d, 1024), -EINVAL);
	d.reth.va -= 1;
	d.reth.len += 1;
	EXPECT_EQ(mroce_respwin_dup_read_check(r, &d, 1024), -EINVAL);
	d.reth.len -= 1;
	/* Shorter: whole packets only, at least one. */
	d.reth.len = 1024;
	EXPECT_EQ(mroce_respwin_dup_read_check(r, &d, 1024), 0);
	d.reth.len = 1000;
	EXPECT_EQ(mroce_respwin_dup_read_check(r, &d, 1024), -EINVAL);
	d.reth.len = 0;
	EXPECT_EQ(mroce_respwin_dup_read_check(r, &d, 1024), -EINVAL);
	d.reth.len = 4097 - 2048;
	d.reth.rkey = 0x78;
	EXPECT_EQ(mroce_respwin_dup_read_check(r, &d, 1024), -EINVAL);
	d.bth.opcode = MROCE_OP_RC_FETCH_ADD;
	EXPECT_EQ(mroce_respwin_dup_read_check(r, &d, 1024), -EINVAL);
	/* A PSN past the resource's range in offset terms. */
	d = h;
	d.bth.psn = 2;
	d.reth.len = 0;
	EXPECT_EQ(mroce_respwin_dup_read_check(r, &d, 4096), -EINVAL);

	EXPECT_TRUE(mroce_respwin_find(&w, 3) == NULL);
	EXPECT_TRUE(mroce_respwin_find(&w, 0xfffffd) == NULL);
}

TEST(respwin_atomic_resources_ring)
{
	struct mroce_respwin_res res[2];
	const struct mroce_respwin_res *r;
	struct mroce_respwin_res *nr;
	struct mroce_respwin w;
	unsigned int i;

	mroce_respwin_init(&w, 10, res, 2);
	for (i = 0; i < 3; i++) {
		struct mroce_hdr h = req(i == 1 ? MROCE_OP_RC_COMPARE_SWAP :
					 MROCE_OP_RC_FETCH_ADD, 10 + i);

		h.atmeth.va = 0x1000 + i;
		h.atmeth.rkey = 5;
		EXPECT_EQ(mroce_respwin_check(&w, &h.bth), MROCE_RESP_NEW);
		nr = mroce_respwin_accept(&w, &h, 1024);
		ASSERT_TRUE(nr != NULL);
		nr->orig = 100 + i;
	}
	/* Two resources: the oldest (PSN 10) was overwritten. */
	EXPECT_TRUE(mroce_respwin_find(&w, 10) == NULL);
	r = mroce_respwin_find(&w, 11);
	ASSERT_TRUE(r != NULL);
	EXPECT_EQ(r->kind, MROCE_RES_ATOMIC);
	EXPECT_EQ(r->opcode, MROCE_OP_RC_COMPARE_SWAP);
	EXPECT_EQ(r->orig, 101);
	EXPECT_EQ(r->va, 0x1001);
	r = mroce_respwin_find(&w, 12);
	ASSERT_TRUE(r != NULL);
	EXPECT_EQ(r->orig, 102);
	EXPECT_EQ(r->msn, 3);
	{
		struct mroce_hdr rd = req(MROCE_OP_RC_RDMA_READ_REQUEST, 11);

		EXPECT_EQ(mroce_respwin_dup_read_check(r, &rd, 1024),
			  -EINVAL);
	}
}

TEST(respwin_read_npsn)
{
	static const struct { u32 len, pmtu, npsn; } c[] = {
		{ 0, 1024, 1 }, { 1, 1024, 1 }, { 1024, 1024, 1 },
		{ 1025, 1024, 2 }, { 0xffffffff, 256, 0x1000000 },
		{ 5000, 0, 1 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c); i++)
		MROCE_CHECK(mroce_read_npsn(c[i].len, c[i].pmtu) == c[i].npsn,
			    "case %u", i);
}

TEST(respwin_msn_wraps)
{
	struct mroce_respwin w;
	struct mroce_hdr h = req(MROCE_OP_RC_RDMA_WRITE_ONLY, 0);

	mroce_respwin_init(&w, 0, NULL, 0);
	w.msn = 0xffffff;
	EXPECT_EQ(feed(&w, &h), MROCE_RESP_NEW);
	EXPECT_EQ(w.msn, 0);
}

TEST(respwin_verdict_names)
{
	unsigned int v;

	for (v = 0; v < MROCE_NUM_RESP_VERDICTS; v++)
		EXPECT_TRUE(mroce_resp_verdict_name(v)[0] != '?');
	EXPECT_EQ(mroce_resp_verdict_name(MROCE_NUM_RESP_VERDICTS)[0], '?');
}
