// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Requester window: sending, ACK/NAK processing, go-back-N over the
 * sender scoreboard, timers.
 */
#include "mroce_core.h"
#include "mroce_reqwin.h"
#include "mroce_timer.h"
#include "mroce_hdr.h"
#include "mroce_test.h"

#define ACK	mroce_aeth_ack_syndrome(MROCE_AETH_CREDITS_INVALID)
#define NAK(c)	mroce_aeth_nak_syndrome(c)
#define RTO	(4096ULL << 14)

static void setup(struct mroce_reqwin *w, u32 psn, u32 wnd)
{
	struct mroce_reqwin_cfg cfg = {
		.psn = psn, .wnd = wnd, .retry_cnt = 2, .rnr_retry = 1,
		.timeout = 14,
	};

	mroce_reqwin_init(w, &cfg);
}

static u32 send_n(struct mroce_reqwin *w, u32 n, u64 now)
{
	u32 psn = 0, first = 0, i;

	for (i = 0; i < n; i++) {
		if (mroce_reqwin_sent(w, 1, now, 100 + i, &psn))
			break;
		if (!i)
			first = psn;
	}
	return first;
}

TEST(timer_ack_timeout)
{
	EXPECT_EQ(mroce_ack_timeout_ns(0), 0);
	EXPECT_EQ(mroce_ack_timeout_ns(1), 8192);
	EXPECT_EQ(mroce_ack_timeout_ns(14), 67108864);
	EXPECT_EQ(mroce_ack_timeout_ns(31), 4096ULL << 31);
	EXPECT_EQ(mroce_ack_timeout_ns(200), 4096ULL << 31);
}

TEST(timer_rnr_table)
{
	unsigned int c;

	EXPECT_EQ(mroce_rnr_timeout_ns(0), 655360000ULL);
	EXPECT_EQ(mroce_rnr_timeout_ns(1), 10000);
	EXPECT_EQ(mroce_rnr_timeout_ns(14), 1280000);
	EXPECT_EQ(mroce_rnr_timeout_ns(18), 5120000);
	EXPECT_EQ(mroce_rnr_timeout_ns(31), 491520000ULL);
	EXPECT_EQ(mroce_rnr_timeout_ns(32 + 1), 10000);
	for (c = 2; c <= 31; c++)
		EXPECT_TRUE(mroce_rnr_timeout_ns(c) >
			    mroce_rnr_timeout_ns(c - 1));
	EXPECT_EQ(mroce_rnr_code_for_ns(0), 1);
	EXPECT_EQ(mroce_rnr_code_for_ns(10000), 1);
	EXPECT_EQ(mroce_rnr_code_for_ns(10001), 2);
	EXPECT_EQ(mroce_rnr_code_for_ns(1000000), 14);
	EXPECT_EQ(mroce_rnr_code_for_ns(491520000ULL), 31);
	EXPECT_EQ(mroce_rnr_code_for_ns(500000000ULL), 0);
}

TEST(reqwin_init_clamps)
{
	struct mroce_reqwin w;
	struct mroce_reqwin_cfg cfg = {
		.psn = 0x1abcdef, .wnd = 0, .retry_cnt = 9, .rnr_retry = 200,
	};
	u64 at;

	mroce_reqwin_init(&w, &cfg);
	EXPECT_EQ(w.una, 0xabcdef);
	EXPECT_EQ(mroce_reqwin_next_psn(&w), 0xabcdef);
	EXPECT_EQ(w.wnd, MROCE_SB_SLOTS);
	EXPECT_EQ(w.retry_cnt, 7);
	EXPECT_EQ(w.rnr_retry, 7);
	EXPECT_EQ(w.rto, 0);
	cfg.wnd = MROCE_SB_SLOTS + 1;
	mroce_reqwin_init(&w, &cfg);
	EXPECT_EQ(w.wnd, MROCE_SB_SLOTS);
	cfg.wnd = 16;
	mroce_reqwin_init(&w, &cfg);
	EXPECT_EQ(w.wnd, 16);
	EXPECT_EQ(mroce_reqwin_inflight(&w), 0);
	EXPECT_FALSE(mroce_reqwin_next_event(&w, &at));
	/* No Local ACK Timeout: sending arms no timer. */
	EXPECT_EQ(send_n(&w, 1, 5), 0xabcdef);
	EXPECT_FALSE(mroce_reqwin_next_event(&w, &at));
}

TEST(reqwin_window_full)
{
	struct mroce_reqwin w;
	u32 psn;

	setup(&w, 0xfffffe, 4);
	EXPECT_EQ(send_n(&w, 4, 0), 0xfffffe);
	EXPECT_EQ(w.max, 2);
	EXPECT_EQ(mroce_reqwin_inflight(&w), 4);
	EXPECT_FALSE(mroce_reqwin_can_send(&w, 1, 0));
	EXPECT_EQ(mroce_reqwin_sent(&w, 1, 0, 0, &psn), -EAGAIN);
	EXPECT_EQ(mroce_reqwin_sent(&w, 0, 0, 0, &psn), -EINVAL);
	/* An ACK across the wrap opens the window again. */
	struct mroce_reqwin_res r;

	EXPECT_EQ(mroce_reqwin_on_aeth(&w, 0, ACK, 10, &r), 0);
	EXPECT_EQ(r.verdict, MROCE_REQWIN_ACKED);
	EXPECT_EQ(r.acked, 3);
	EXPECT_EQ(w.una, 1);
	EXPECT_TRUE(mroce_reqwin_can_send(&w, 3, 10));
	EXPECT_FALSE(mroce_reqwin_can_send(&w, 4, 10));
}

TEST(reqwin_large_read_alone)
{
	struct mroce_reqwin w;
	u32 psn;

	setup(&w, 100, 8);
	/* A READ of 20 response packets fits only in an empty window. */
	EXPECT_TRUE(mroce_reqwin_can_send(&w, 20, 0));
	EXPECT_EQ(mroce_reqwin_sent(&w, 20, 0, 0, &psn), 0);
	EXPECT_EQ(psn, 100);
	EXPECT_EQ(w.max, 120);
	EXPECT_FALSE(mroce_reqwin_can_send(&w, 1, 0));
	/* Never more than half the PSN space. */
	setup(&w, 0, 0);
	EXPECT_FALSE(mroce_reqwin_can_send(&w, 0x800000, 0));
	EXPECT_TRUE(mroce_reqwin_can_send(&w, 0x7fffff, 0));
}

TEST(reqwin_ack_stale_and_ghost)
{
	struct mroce_reqwin w;
	struct mroce_reqwin_res r;

	setup(&w, 10, 16);
	send_n(&w, 5, 0);		/* 10..14 */
	EXPECT_EQ(mroce_reqwin_on_aeth(&w, 11, ACK, 1, &r), 0);
	EXPECT_EQ(r.verdict, MROCE_REQWIN_ACKED);
	EXPECT_EQ(r.acked, 2);
	/* Duplicate ACK of something already acknowledged. */
	EXPECT_EQ(mroce_reqwin_on_aeth(&w, 11, ACK, 2, &r), 0);
	EXPECT_EQ(r.verdict, MROCE_REQWIN_STALE);
	EXPECT_EQ(mroce_reqwin_on_aeth(&w, 5, ACK, 2, &r), 0);
	EXPECT_EQ(r.verdict, MROCE_REQWIN_STALE);
	/* Ghost: a PSN never sent. */
	EXPECT_EQ(mroce_reqwin_on_aeth(&w, 15, ACK, 2, &r), 0);
	EXPECT_EQ(r.verdict, MROCE_REQWIN_STALE);
	EXPECT_EQ(mroce_reqwin_on_aeth(&w, 15, NAK(0), 2, &r), 0);
	EXPECT_EQ(r.verdict, MROCE_REQWIN_STALE);
	/* Reserved syndromes. */
	EXPECT_EQ(mroce_reqwin_on_aeth(&w, 12, 0x40, 2, &r), -EPROTO);
	EXPECT_EQ(mroce_reqwin_on_aeth(&w, 12, 0x80, 2, &r), -EPROTO);
	EXPECT_EQ(w.una, 12);
	EXPECT_EQ(mroce_reqwin_on_aeth(&w, 14, ACK, 3, &r), 0);
	EXPECT_EQ(r.acked, 3);
	EXPECT_EQ(mroce_reqwin_inflight(&w), 0);
}

TEST(reqwin_nak_seq_go_back_n)
{
	struct mroce_reqwin w;
	struct mroce_reqwin_res r;
	u32 psn, wqe, i;

	setup(&w, 0, 16);
	send_n(&w, 8, 0);		/* 0..7 */
	/* Responder expects 3: 0..2 are acknowledged, resend from 3. */
	EXPECT_EQ(mroce_reqwin_on_aeth(&w, 3, NAK(MROCE_NAK_PSN_SEQ_ERROR),
				       5, &r), 0);
	EXPECT_EQ(r.verdict, MROCE_REQWIN_RETRY);
	EXPECT_EQ(r.psn, 3);
	EXPECT_EQ(r.acked, 3);
	EXPECT_EQ(mroce_reqwin_next_psn(&w), 3);
	EXPECT_EQ(mroce_reqwin_lost(&w), 5);
	EXPECT_EQ(w.retry_left, 1);
	/* Resends go first, in PSN order, with their WQEs; no new PSN. */
	EXPECT_FALSE(mroce_reqwin_can_send(&w, 1, 5));
	EXPECT_EQ(mroce_reqwin_sent(&w, 1, 5, 0, &psn), -EAGAIN);
	for (i = 3; i < 8; i++) {
		EXPECT_TRUE(mroce_reqwin_resend(&w, 6, &psn, &wqe));
		EXPECT_EQ(psn, i);
		EXPECT_EQ(wqe, 100 + i);
		EXPECT_EQ(mroce_reqwin_resent(&w, psn, 1, 6), 0);
	}
	EXPECT_FALSE(mroce_reqwin_resend(&w, 6, &psn, &wqe));
	EXPECT_EQ(mroce_reqwin_lost(&w), 0);
	EXPECT_EQ(w.max, 8);
	EXPECT_TRUE(mroce_reqwin_can_send(&w, 1, 6));
	EXPECT_EQ(mroce_sb_at(&w.sb, 5)->retx, 1);
	EXPECT_EQ(mroce_sb_at(&w.sb, 5)->state, MROCE_SB_RESENT);
	/* Second NAK for the same PSN spends the last retry ... */
	EXPECT_EQ(mroce_reqwin_on_aeth(&w, 3, NAK(0), 7, &r), 0);
	EXPECT_EQ(r.verdict, MROCE_REQWIN_RETRY);
	EXPECT_EQ(r.acked, 0);
	EXPECT_EQ(w.retry_left, 0);
	/* ... and the third exceeds the retry count. */
	EXPECT_EQ(mroce_reqwin_on_aeth(&w, 3, NAK(0), 8, &r), 0);
	EXPECT_EQ(r.verdict, MROCE_REQWIN_RETRY_EXCEEDED);
	/*
	 * A late ACK of lost packets spares their resend and restores the
	 * budget.
	 */
	setup(&w, 0, 16);
	send_n(&w, 8, 0);
	mroce_reqwin_on_aeth(&w, 2, NAK(0), 1, &r);
	EXPECT_EQ(mroce_reqwin_lost(&w), 6);
	EXPECT_EQ(mroce_reqwin_on_aeth(&w, 5, ACK, 2, &r), 0);
	EXPECT_EQ(mroce_reqwin_next_psn(&w), 6);
	EXPECT_EQ(mroce_reqwin_lost(&w), 2);
	EXPECT_TRUE(mroce_reqwin_resend(&w, 3, &psn, &wqe));
	EXPECT_EQ(psn, 6);
	EXPECT_EQ(wqe, 106);
	EXPECT_EQ(w.retry_left, 2);
	/* Only the PSN it was given may be resent, and only whole. */
	EXPECT_EQ(mroce_reqwin_resent(&w, 7, 1, 3), 0);
	EXPECT_EQ(mroce_reqwin_resent(&w, 7, 1, 3), -EINVAL);
	EXPECT_EQ(mroce_reqwin_resent(&w, 6, 2, 3), -EINVAL);
	EXPECT_EQ(mroce_reqwin_resent(&w, 8, 1, 3), -EINVAL);
	EXPECT_EQ(mroce_reqwin_resent(&w, 6, 1, 3), 0);
	EXPECT_EQ(mroce_reqwin_lost(&w), 0);
}

TEST(reqwin_fatal_naks)
{
	static const u8 codes[] = {
		MROCE_NAK_INVALID_REQUEST, MROCE_NAK_REMOTE_ACCESS_ERROR,
		MROCE_NAK_REMOTE_OP_ERROR, MROCE_NAK_INVALID_RD_REQUEST,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(codes); i++) {
		struct mroce_reqwin w;
		struct mroce_reqwin_res r;
		u64 at;

		setup(&w, 0, 16);
		send_n(&w, 4, 0);
		EXPECT_EQ(mroce_reqwin_on_aeth(&w, 2, NAK(codes[i]), 1, &r),
			  0);
		EXPECT_EQ(r.verdict, MROCE_REQWIN_NAK_FATAL);
		EXPECT_EQ(r.nak, codes[i]);
		EXPECT_EQ(r.psn, 2);
		EXPECT_EQ(r.acked, 2);
		EXPECT_FALSE(mroce_reqwin_next_event(&w, &at));
	}
}

TEST(reqwin_rnr)
{
	struct mroce_reqwin w;
	struct mroce_reqwin_res r;
	u64 at;
	u32 psn, wqe;

	setup(&w, 0, 16);
	send_n(&w, 4, 0);
	EXPECT_EQ(mroce_reqwin_on_aeth(&w, 1, mroce_aeth_rnr_syndrome(1),
				       100, &r), 0);
	EXPECT_EQ(r.verdict, MROCE_REQWIN_RNR_WAIT);
	EXPECT_EQ(r.psn, 1);
	EXPECT_EQ(r.acked, 1);
	EXPECT_EQ(r.at, 100 + 10000);
	EXPECT_TRUE(mroce_reqwin_next_event(&w, &at));
	EXPECT_EQ(at, 10100);
	EXPECT_FALSE(mroce_reqwin_resend(&w, 10099, &psn, &wqe));
	EXPECT_FALSE(mroce_reqwin_can_send(&w, 1, 10100));
	EXPECT_TRUE(mroce_reqwin_resend(&w, 10100, &psn, &wqe));
	EXPECT_EQ(psn, 1);
	EXPECT_EQ(mroce_reqwin_resent(&w, psn, 1, 10100), 0);
	EXPECT_TRUE(mroce_reqwin_next_event(&w, &at));
	EXPECT_EQ(at, 10100 + RTO);
	/* rnr_retry 1: a second RNR with no progress is one too many. */
	EXPECT_EQ(mroce_reqwin_on_aeth(&w, 1, mroce_aeth_rnr_syndrome(1),
				       20000, &r), 0);
	EXPECT_EQ(r.verdict, MROCE_REQWIN_RNR_EXCEEDED);

	/* rnr_retry 7 retries forever. */
	struct mroce_reqwin_cfg cfg = { .rnr_retry = 7, .timeout = 14 };
	unsigned int i;

	mroce_reqwin_init(&w, &cfg);
	send_n(&w, 1, 0);
	for (i = 0; i < 20; i++) {
		mroce_reqwin_on_aeth(&w, 0, mroce_aeth_rnr_syndrome(0), 0, &r);
		EXPECT_EQ(r.verdict, MROCE_REQWIN_RNR_WAIT);
		EXPECT_EQ(r.at, 655360000ULL);
	}
	/* An ACK arriving during the wait re-arms the ACK timer. */
	mroce_reqwin_init(&w, &cfg);
	send_n(&w, 4, 0);
	mroce_reqwin_on_aeth(&w, 1, mroce_aeth_rnr_syndrome(1), 0, &r);
	mroce_reqwin_on_aeth(&w, 1, ACK, 0, &r);
	EXPECT_EQ(r.verdict, MROCE_REQWIN_ACKED);
	EXPECT_TRUE(mroce_reqwin_next_event(&w, &at));
	EXPECT_EQ(at, 10000);
	mroce_reqwin_on_aeth(&w, 2, mroce_aeth_rnr_syndrome(0), 0, &r);
	mroce_reqwin_on_aeth(&w, 2, ACK, 0, &r);
	EXPECT_TRUE(mroce_reqwin_next_event(&w, &at));
	EXPECT_EQ(at, RTO);
	/*
	 * An ACK of everything the RNR NAK held back ends the wait: no
	 * deadline stays due with nothing to resend (a timer that would fire
	 * again and again).
	 */
	mroce_reqwin_on_aeth(&w, 3, mroce_aeth_rnr_syndrome(1), 0, &r);
	EXPECT_EQ(r.verdict, MROCE_REQWIN_RNR_WAIT);
	mroce_reqwin_on_aeth(&w, 3, ACK, 1, &r);
	EXPECT_EQ(mroce_reqwin_lost(&w), 0);
	EXPECT_FALSE(w.rnr_wait);
	EXPECT_FALSE(mroce_reqwin_next_event(&w, &at));
}

TEST(reqwin_timer)
{
	struct mroce_reqwin w;
	struct mroce_reqwin_res r;
	u64 at;

	setup(&w, 0, 16);
	mroce_reqwin_on_timer(&w, 0, &r);
	EXPECT_EQ(r.verdict, MROCE_REQWIN_NONE);
	send_n(&w, 3, 1000);
	EXPECT_TRUE(mroce_reqwin_next_event(&w, &at));
	EXPECT_EQ(at, 1000 + RTO);
	mroce_reqwin_on_timer(&w, 1000 + RTO - 1, &r);
	EXPECT_EQ(r.verdict, MROCE_REQWIN_NOT_DUE);
	EXPECT_EQ(r.at, 1000 + RTO);
	/* Progress re-arms from the time of the ACK. */
	mroce_reqwin_on_aeth(&w, 0, ACK, 2000, &r);
	EXPECT_TRUE(mroce_reqwin_next_event(&w, &at));
	EXPECT_EQ(at, 2000 + RTO);
	mroce_reqwin_on_timer(&w, 2000 + RTO, &r);
	EXPECT_EQ(r.verdict, MROCE_REQWIN_RETRY);
	EXPECT_EQ(r.psn, 1);
	EXPECT_EQ(mroce_reqwin_next_psn(&w), 1);
	EXPECT_EQ(mroce_reqwin_lost(&w), 2);
	mroce_reqwin_on_timer(&w, 2000 + 2 * RTO, &r);
	EXPECT_EQ(r.verdict, MROCE_REQWIN_RETRY);
	mroce_reqwin_on_timer(&w, 2000 + 3 * RTO, &r);
	EXPECT_EQ(r.verdict, MROCE_REQWIN_RETRY_EXCEEDED);
	EXPECT_FALSE(mroce_reqwin_next_event(&w, &at));
	/* Everything acknowledged: the timer stops. */
	setup(&w, 0, 16);
	send_n(&w, 2, 0);
	mroce_reqwin_on_aeth(&w, 1, ACK, 10, &r);
	EXPECT_FALSE(mroce_reqwin_next_event(&w, &at));
	mroce_reqwin_on_timer(&w, 10 * RTO, &r);
	EXPECT_EQ(r.verdict, MROCE_REQWIN_NONE);
}

TEST(reqwin_read_response)
{
	struct mroce_reqwin w;
	struct mroce_reqwin_res r;
	u32 psn, wqe;

	setup(&w, 0xfffffd, 16);
	send_n(&w, 1, 0);				/* SEND at fffffd */
	mroce_reqwin_sent(&w, 4, 0, 7, &psn);		/* READ fffffe..1 */
	EXPECT_EQ(psn, 0xfffffe);
	/* First response implicitly acknowledges the SEND. */
	mroce_reqwin_on_read_resp(&w, 0xfffffe, 0xfffffe, 1, &r);
	EXPECT_EQ(r.verdict, MROCE_REQWIN_ACKED);
	EXPECT_EQ(r.acked, 2);
	/* Response for 0 while 0xffffff is expected: go back to it. */
	mroce_reqwin_on_read_resp(&w, 0, 0xffffff, 2, &r);
	EXPECT_EQ(r.verdict, MROCE_REQWIN_RETRY);
	EXPECT_EQ(r.psn, 0xffffff);
	EXPECT_EQ(mroce_reqwin_next_psn(&w), 0xffffff);
	/* The READ goes again from there, asking for the 3 others. */
	EXPECT_TRUE(mroce_reqwin_resend(&w, 2, &psn, &wqe));
	EXPECT_EQ(psn, 0xffffff);
	EXPECT_EQ(wqe, 7);
	EXPECT_EQ(mroce_reqwin_resent(&w, psn, 4, 2), -EINVAL);
	EXPECT_EQ(mroce_reqwin_resent(&w, psn, 3, 2), 0);
	EXPECT_EQ(mroce_sb_at(&w.sb, 1)->head, 0xffffff);
	/* Old duplicates and PSNs outside the window are stale. */
	mroce_reqwin_on_read_resp(&w, 0xfffffe, 0xffffff, 3, &r);
	EXPECT_EQ(r.verdict, MROCE_REQWIN_STALE);
	mroce_reqwin_on_read_resp(&w, 5, 5, 3, &r);
	EXPECT_EQ(r.verdict, MROCE_REQWIN_STALE);
	mroce_reqwin_on_read_resp(&w, 0, 0xfffffe, 3, &r);
	EXPECT_EQ(r.verdict, MROCE_REQWIN_STALE);
	mroce_reqwin_on_read_resp(&w, 0xffffff, 0xffffff, 3, &r);
	mroce_reqwin_on_read_resp(&w, 0, 0, 3, &r);
	mroce_reqwin_on_read_resp(&w, 1, 1, 3, &r);
	EXPECT_EQ(r.verdict, MROCE_REQWIN_ACKED);
	EXPECT_EQ(mroce_reqwin_inflight(&w), 0);
}

TEST(reqwin_find_wqe)
{
	struct mroce_reqwin w;
	u32 psn, wqe, p;

	setup(&w, 0xfffffe, 16);
	mroce_reqwin_sent(&w, 1, 0, 10, &psn);		/* SEND fffffe */
	mroce_reqwin_sent(&w, 5, 0, 11, &psn);		/* READ ffffff..3 */
	mroce_reqwin_sent(&w, 1, 0, 12, &psn);		/* WRITE 4 */
	EXPECT_TRUE(mroce_reqwin_find(&w, 0xfffffe, &wqe));
	EXPECT_EQ(wqe, 10);
	for (p = 0xffffff; p != 4; p = (p + 1) & 0xffffff) {
		EXPECT_TRUE(mroce_reqwin_find(&w, p, &wqe));
		EXPECT_EQ(wqe, 11);
		EXPECT_EQ(mroce_sb_at(&w.sb, p)->head, 0xffffff);
		EXPECT_EQ(mroce_sb_at(&w.sb, p)->npsn, 5);
	}
	EXPECT_TRUE(mroce_reqwin_find(&w, 4, &wqe));
	EXPECT_EQ(wqe, 12);
	/* Not in flight: never sent, or acknowledged. */
	EXPECT_FALSE(mroce_reqwin_find(&w, 5, &wqe));
	EXPECT_FALSE(mroce_reqwin_find(&w, 0xfffffd, &wqe));
}

/*
 * A READ wider than the scoreboard goes alone; once most of it is answered
 * new requests join it, and every PSN in flight still finds its WQE.
 */
TEST(reqwin_wide_read)
{
	struct mroce_reqwin w;
	struct mroce_reqwin_res r;
	const u32 wide = MROCE_SB_SLOTS + 44, ans = MROCE_SB_SLOTS - 6;
	const u32 end = 1000 + wide, cum = 1000 + ans;
	u32 psn, wqe, p, i, n = 0;

	setup(&w, 1000, 0);
	EXPECT_EQ(mroce_reqwin_sent(&w, wide, 0, 1, &psn), 0);
	EXPECT_FALSE(mroce_reqwin_can_send(&w, 1, 0));
	for (p = 1000; p < end; p++) {
		EXPECT_TRUE(mroce_reqwin_find(&w, p, &wqe));
		EXPECT_EQ(wqe, 1);
	}
	for (p = 1000; p < cum; p++)
		mroce_reqwin_on_read_resp(&w, p, p, 1, &r);
	EXPECT_EQ(w.una, cum);
	while (mroce_reqwin_sent(&w, 1, 2, 2 + n, &psn) == 0)
		n++;
	EXPECT_EQ(n, MROCE_SB_SLOTS - (wide - ans));
	for (p = cum; p < end; p++) {
		EXPECT_TRUE(mroce_reqwin_find(&w, p, &wqe));
		EXPECT_EQ(wqe, 1);
	}
	for (i = 0; i < n; i++) {
		EXPECT_TRUE(mroce_reqwin_find(&w, end + i, &wqe));
		EXPECT_EQ(wqe, 2 + i);
	}
	/* A timeout loses the rest of the READ and everything after it. */
	mroce_reqwin_on_timer(&w, 3 + RTO, &r);
	EXPECT_EQ(r.verdict, MROCE_REQWIN_RETRY);
	EXPECT_EQ(mroce_reqwin_lost(&w), 1 + n);
	EXPECT_TRUE(mroce_reqwin_resend(&w, 4 + RTO, &psn, &wqe));
	EXPECT_EQ(psn, cum);
	EXPECT_EQ(wqe, 1);
	EXPECT_EQ(mroce_reqwin_resent(&w, psn, wide - ans, 4 + RTO), 0);
	for (i = 0; i < n; i++) {
		EXPECT_TRUE(mroce_reqwin_resend(&w, 4 + RTO, &psn, &wqe));
		EXPECT_EQ(psn, end + i);
		EXPECT_EQ(mroce_reqwin_resent(&w, psn, 1, 4 + RTO), 0);
	}
	EXPECT_FALSE(mroce_reqwin_resend(&w, 4 + RTO, &psn, &wqe));
}

/* An ACK that passed a READ whose responses were lost is taken back. */
TEST(reqwin_reopen)
{
	struct mroce_reqwin w;
	struct mroce_reqwin_res r;
	u32 psn, wqe;
	u64 at;

	setup(&w, 0, 16);
	mroce_reqwin_sent(&w, 1, 0, 0, &psn);		/* SEND 0 */
	mroce_reqwin_sent(&w, 4, 0, 1, &psn);		/* READ 1..4 */
	mroce_reqwin_sent(&w, 1, 0, 2, &psn);		/* SEND 5 */
	mroce_reqwin_on_read_resp(&w, 1, 1, 1, &r);
	mroce_reqwin_on_aeth(&w, 5, ACK, 2, &r);
	EXPECT_EQ(mroce_reqwin_inflight(&w), 0);
	EXPECT_FALSE(mroce_reqwin_next_event(&w, &at));
	EXPECT_EQ(mroce_reqwin_reopen(&w, 7, false, 3), -EINVAL);
	EXPECT_EQ(mroce_reqwin_reopen(&w, 2, false, 3), 0);
	EXPECT_EQ(w.una, 2);
	EXPECT_TRUE(mroce_reqwin_next_event(&w, &at));
	EXPECT_EQ(at, 3 + RTO);
	EXPECT_EQ(mroce_reqwin_lost(&w), 2);
	EXPECT_TRUE(mroce_reqwin_resend(&w, 3, &psn, &wqe));
	EXPECT_EQ(psn, 2);
	EXPECT_EQ(wqe, 1);
	EXPECT_EQ(mroce_reqwin_resent(&w, 2, 3, 3), 0);
	EXPECT_TRUE(mroce_reqwin_resend(&w, 3, &psn, &wqe));
	EXPECT_EQ(psn, 5);
	EXPECT_EQ(wqe, 2);
	/* Half the PSN space away is not the last window. */
	EXPECT_EQ(mroce_reqwin_reopen(&w, 0x800002, false, 3), -EINVAL);
}

TEST(reqwin_verdict_names)
{
	unsigned int v;

	for (v = 0; v < MROCE_NUM_REQWIN_VERDICTS; v++)
		EXPECT_TRUE(mroce_reqwin_verdict_name(v)[0] != '?');
	EXPECT_EQ(mroce_reqwin_verdict_name(MROCE_NUM_REQWIN_VERDICTS)[0],
		  '?');
	EXPECT_EQ(strcmp(mroce_reqwin_verdict_name(MROCE_REQWIN_RETRY),
			 "retry"), 0);
}
