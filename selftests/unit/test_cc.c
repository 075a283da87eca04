// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Delay-based window controller (core mroce_cc.c) against scripted ACK,
 * RTT, CNP and loss sequences: growth below the target, decrease scaled
 * by the excess delay and capped, once per round trip, windows below one
 * packet kept by pacing, the cap.
 */
#include "mroce_core.h"
#include "mroce_cc.h"
#include "mroce_test.h"

#define US	1000ULL
#define LINE	1250000000ULL	/* 10 Gb/s in bytes per second */

static const struct mroce_cc_cfg cfg = {
	.line_rate = LINE, .mss = 1000, .min_cwnd = 10, .max_cwnd = 64000,
	.target_ns = 10 * US, .ai = 1000, .beta = 800, .max_mdf = 512,
};

static void feed(struct mroce_cc *cc, u64 now, u32 ev, u32 acked, u64 rtt)
{
	struct mroce_cc_sample s = {
		.now = now, .events = ev, .acked_bytes = acked, .rtt_ns = rtt,
	};

	mroce_cc_update(cc, &s);
}

/* A controller with the test's cfg whose first RTT sample was @base. */
static u64 start(struct mroce_cc *cc, u64 base)
{
	mroce_cc_init(cc, &mroce_cc_delay, &cfg);
	feed(cc, 1000 * US, MROCE_CC_EV_ACK, 0, base);
	return 1000 * US;
}

TEST(cc_delay_init)
{
	struct mroce_cc_cfg c = { 0 };
	struct mroce_cc cc;

	mroce_cc_init(&cc, &mroce_cc_delay, &cfg);
	EXPECT_EQ(strcmp(cc.ops->name, "delay"), 0);
	EXPECT_EQ(cc.cwnd, 10000);
	/* No RTT yet: the line rate paces, the window is below its cap. */
	EXPECT_EQ(cc.rate, LINE);
	EXPECT_EQ(mroce_cc_gap_ns(&cc, 1250), 1000);
	/* A zero configuration is made usable. */
	mroce_cc_init(&cc, &mroce_cc_delay, &c);
	EXPECT_EQ(cc.cfg.mss, 1);
	EXPECT_EQ(cc.cfg.min_cwnd, 1);
	EXPECT_EQ(cc.cfg.max_cwnd, 1);
	EXPECT_EQ(cc.cwnd, 1);
	EXPECT_EQ(cc.rate, 1);
	/* At the cap nothing is paced. */
	EXPECT_EQ(mroce_cc_gap_ns(&cc, 1000), 0);
	c.max_mdf = 5000;
	c.init_cwnd = 100;
	c.max_cwnd = 50;
	mroce_cc_init(&cc, &mroce_cc_delay, &c);
	EXPECT_EQ(cc.cfg.max_mdf, MROCE_CC_ONE);
	EXPECT_EQ(cc.cwnd, 50);
}

TEST(cc_delay_grows_below_target)
{
	struct mroce_cc cc;
	u64 t = start(&cc, 20 * US);
	int i;

	/* base = srtt = 20 us; slow start adds what is acked. */
	feed(&cc, t, MROCE_CC_EV_ACK, 10000, 20 * US);
	EXPECT_EQ(cc.base_rtt, 20 * US);
	EXPECT_EQ(cc.srtt, 20 * US);
	EXPECT_EQ(cc.cwnd, 20000);
	/* 20000 bytes at 20 us, 5/4 headroom: 1.25 GB/s, the line rate. */
	EXPECT_EQ(cc.rate, LINE);
	feed(&cc, t + 5 * US, MROCE_CC_EV_ACK, 1000, 20 * US);
	EXPECT_EQ(cc.cwnd, 21000);
	/* An ACK without bytes or RTT changes nothing. */
	feed(&cc, t + 6 * US, MROCE_CC_EV_ACK, 0, 0);
	EXPECT_EQ(cc.cwnd, 21000);
	/* It stops at the cap, where pacing ends. */
	for (i = 0; i < 10; i++)
		feed(&cc, t + (10 + i) * US, MROCE_CC_EV_ACK, 64000, 20 * US);
	EXPECT_EQ(cc.cwnd, 64000);
	EXPECT_EQ(mroce_cc_gap_ns(&cc, 1000), 0);
	EXPECT_EQ(cc.cuts, 0);
	/* After a decrease: ai per window acked, by bytes acked. */
	feed(&cc, t + 100 * US, MROCE_CC_EV_CNP, 0, 0);
	EXPECT_EQ(cc.cwnd, 48000);
	/* 48000 bytes at 20 us, 5/4 headroom: 3 GB/s, over the line rate. */
	EXPECT_EQ(cc.rate, LINE);
	feed(&cc, t + 110 * US, MROCE_CC_EV_ACK, 24000, 29 * US);
	EXPECT_EQ(cc.cwnd, 48500);
	feed(&cc, t + 120 * US, MROCE_CC_EV_ACK, 48500, 20 * US);
	EXPECT_EQ(cc.cwnd, 49500);
	EXPECT_EQ(cc.rate, LINE);
	EXPECT_EQ(mroce_cc_gap_ns(&cc, 1250), 1000);
}

TEST(cc_delay_cut_scaled_once_per_rtt)
{
	struct mroce_cc cc;
	u64 t = start(&cc, 10 * US), fp;

	EXPECT_EQ(cc.cwnd, 10000);
	/*
	 * Target 20 us.  One 40 us sample is a spike: srtt goes to 13.75 us,
	 * the smaller of the two is under the target, no cut.
	 */
	feed(&cc, t + 1 * US, MROCE_CC_EV_ACK, 0, 40 * US);
	EXPECT_EQ(cc.srtt, 13750);
	EXPECT_EQ(cc.cuts, 0);
	feed(&cc, t + 2 * US, MROCE_CC_EV_ACK, 0, 40 * US);
	feed(&cc, t + 3 * US, MROCE_CC_EV_ACK, 0, 40 * US);
	EXPECT_EQ(cc.srtt, 19903);
	EXPECT_EQ(cc.cuts, 0);
	/*
	 * Sustained: srtt 22.416 us, past the target: the cut is beta times
	 * the excess share, 800 * 2416 / 22416 = 86/1024 of the window.
	 */
	fp = cc.cwnd_fp;
	feed(&cc, t + 4 * US, MROCE_CC_EV_ACK, 1000, 40 * US);
	EXPECT_EQ(cc.srtt, 22416);
	EXPECT_EQ(cc.cwnd_fp, fp - fp * 86 / 1024);
	EXPECT_EQ(cc.cuts, 1);
	/* Not again within srtt. */
	feed(&cc, t + 20 * US, MROCE_CC_EV_ACK, 1000, 40 * US);
	EXPECT_EQ(cc.cuts, 1);
	/*
	 * A round trip later a huge delay cuts by max_mdf only (srtt is
	 * then 146.5 us: 800 * 126.5 / 146.5 would be 690/1024).
	 */
	fp = cc.cwnd_fp;
	feed(&cc, t + 200 * US, MROCE_CC_EV_ACK, 1000, 1000 * US);
	EXPECT_EQ(cc.cwnd_fp, fp - fp * 512 / 1024);
	EXPECT_EQ(cc.cuts, 2);
}

TEST(cc_delay_signals)
{
	struct mroce_cc cc;
	u64 t = start(&cc, 10 * US);
	u32 w;

	/* A CNP: half of max_mdf. */
	feed(&cc, t + 1 * US, MROCE_CC_EV_CNP, 0, 0);
	EXPECT_EQ(cc.cwnd, 10000 - 10000 * 256 / 1024);
	/* A loss in the same round trip: no further cut. */
	w = cc.cwnd;
	feed(&cc, t + 2 * US, MROCE_CC_EV_LOSS, 0, 0);
	EXPECT_EQ(cc.cwnd, w);
	/* The next round trip's loss: max_mdf. */
	feed(&cc, t + 20 * US, MROCE_CC_EV_LOSS | MROCE_CC_EV_ACK, 1000, 0);
	EXPECT_EQ(cc.cwnd, w / 2);
	/* A timeout is never held back. */
	w = cc.cwnd;
	feed(&cc, t + 21 * US, MROCE_CC_EV_RTO, 0, 0);
	EXPECT_EQ(cc.cwnd, w / 2);
	EXPECT_EQ(cc.cuts, 3);
}

TEST(cc_delay_below_one_packet)
{
	struct mroce_cc cc;
	u64 t = start(&cc, 10 * US);
	int i;

	/* Timeouts halve it down to min_cwnd, well below a packet. */
	for (i = 0; i < 20; i++)
		feed(&cc, t + i * US, MROCE_CC_EV_RTO, 0, 0);
	EXPECT_EQ(cc.cwnd, 10);
	/* Below one packet the rate is cwnd / srtt, without headroom. */
	EXPECT_EQ(cc.rate, 10ULL * 1000000000 / (10 * US));
	EXPECT_EQ(mroce_cc_gap_ns(&cc, 1000), 1000 * 1000ULL);
	/*
	 * It grows back by ai per packet's worth: 1000 acked adds 1000
	 * (after decreases: no slow start).
	 */
	feed(&cc, t + 100 * US, MROCE_CC_EV_ACK, 1000, 10 * US);
	EXPECT_EQ(cc.cwnd, 1010);
	EXPECT_EQ(cc.rate, 1010ULL * 1000000000 / (10 * US) * 5 / 4);
}
