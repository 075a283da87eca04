// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * DCQCN reaction point (core mroce_dcqcn.c) against scripted CNP and
 * send sequences: cut, monitor period, alpha, the three increase stages,
 * catching up after idle time, unthrottling.
 */
#include "mroce_core.h"
#include "mroce_dcqcn.h"
#include "mroce_test.h"

#define US	1000ULL
#define MB	1000000ULL
#define LINE	(10000 * MB)	/* 10 Gb/s */

static void setup(struct mroce_dcqcn *d, struct mroce_dcqcn_params *p)
{
	mroce_dcqcn_params_default(p);
	mroce_dcqcn_init(d, LINE, p);
}

TEST(dcqcn_defaults_unthrottled)
{
	struct mroce_dcqcn_params p;
	struct mroce_dcqcn d;

	setup(&d, &p);
	EXPECT_EQ(p.dce_tcp_g, 1019);
	EXPECT_EQ(p.rpg_gd, 11);
	EXPECT_EQ(p.rpg_min_dec_fac, 50);
	EXPECT_EQ(p.initial_alpha_value, 1023);
	EXPECT_FALSE(d.active);
	EXPECT_EQ(d.rc, LINE);
	/* Unthrottled: no pacing, sending changes nothing. */
	EXPECT_EQ(mroce_dcqcn_gap_ns(&d, 4096), 0);
	mroce_dcqcn_sent(&d, &p, 1 << 20, 1000 * US);
	EXPECT_EQ(d.rc, LINE);
	EXPECT_EQ(d.bc_stage, 0);
	/* rpg_max_rate below the line rate caps it; 0 line rate: the cap. */
	p.rpg_max_rate_mbps = 2000;
	mroce_dcqcn_init(&d, LINE, &p);
	EXPECT_EQ(d.max_rate, 2000 * MB);
	mroce_dcqcn_init(&d, 0, &p);
	EXPECT_EQ(d.max_rate, 2000 * MB);
}

TEST(dcqcn_first_cnp_cuts_half)
{
	struct mroce_dcqcn_params p;
	struct mroce_dcqcn d;
	u64 t = 5000 * US;

	setup(&d, &p);
	EXPECT_TRUE(mroce_dcqcn_cnp(&d, &p, t));
	EXPECT_TRUE(d.active);
	EXPECT_EQ(d.rt, LINE);
	/* alpha 1023: rc * 1023 >> 11, just under half; the floor is half. */
	EXPECT_EQ(d.rc, LINE - (LINE >> 11) * 1023);
	EXPECT_TRUE(d.rc >= LINE / 2 && d.rc < LINE / 2 + LINE / 1000);
	/* 4 KiB at ~5 Gb/s: ~6.5 us. */
	EXPECT_EQ(mroce_dcqcn_gap_ns(&d, 4096), 4096ULL * 8 * 1000000000 / d.rc);
	/* Within the 4 us monitor period: counted, no cut. */
	EXPECT_FALSE(mroce_dcqcn_cnp(&d, &p, t + 3 * US));
	EXPECT_EQ(d.cuts, 1);
	EXPECT_EQ(d.cnps, 2);
	/* After it: cut again, the target takes the current rate. */
	{
		u64 before = d.rc;

		EXPECT_TRUE(mroce_dcqcn_cnp(&d, &p, t + 4 * US));
		EXPECT_EQ(d.rt, before);
		EXPECT_TRUE(d.rc < before && d.rc >= before / 2);
	}
}

TEST(dcqcn_min_dec_fac_and_floor)
{
	struct mroce_dcqcn_params p;
	struct mroce_dcqcn d;
	u64 t = 0;
	int i;

	setup(&d, &p);
	/* A cut keeps at least 75%: 100 - 25. */
	p.rpg_min_dec_fac = 75;
	mroce_dcqcn_cnp(&d, &p, t);
	EXPECT_EQ(d.rc, LINE / 100 * 75);
	/* Many cuts end at the 1 Mb/s floor, never 0. */
	p.rpg_min_dec_fac = 0;
	for (i = 0; i < 100; i++) {
		t += 5 * US;
		mroce_dcqcn_cnp(&d, &p, t);
	}
	EXPECT_EQ(d.rc, 1 * MB);
	/* rate_to_set_on_first_cnp: the first CNP sets both rates. */
	setup(&d, &p);
	p.rate_to_set_on_first_cnp_mbps = 4000;
	mroce_dcqcn_cnp(&d, &p, 0);
	EXPECT_EQ(d.rt, 4000 * MB);
	EXPECT_EQ(d.rc, 4000 * MB - ((4000 * MB) >> 11) * 1023);
}

TEST(dcqcn_alpha)
{
	struct mroce_dcqcn_params p;
	struct mroce_dcqcn d;
	u32 a;

	setup(&d, &p);
	mroce_dcqcn_cnp(&d, &p, 0);
	EXPECT_EQ(d.alpha, 1023);
	/* The period with the CNP ends: alpha = 1023 * 1019 / 1024 + 5. */
	mroce_dcqcn_advance(&d, &p, 1 * US);
	EXPECT_EQ(d.alpha, (1023 * 1019 + 5 * 1024) / 1024);
	/* One quiet period: alpha * 1019 / 1024. */
	a = d.alpha;
	mroce_dcqcn_advance(&d, &p, 2 * US);
	EXPECT_TRUE(d.alpha == a * 1019 / 1024 || d.alpha == a * 1019 / 1024 - 1);
	/* 1000 quiet periods at once: ~1023 * 0.99512^1000, about 7.7. */
	mroce_dcqcn_advance(&d, &p, 1002 * US);
	EXPECT_TRUE(d.alpha >= 5 && d.alpha <= 10);
	/* A CNP raises it again at its period's end. */
	a = d.alpha;
	mroce_dcqcn_cnp(&d, &p, 1002 * US + 500);
	mroce_dcqcn_advance(&d, &p, 1003 * US);
	EXPECT_EQ(d.alpha, (a * 1019 + 5 * 1024) / 1024);
	/* A small alpha cuts little: rc * alpha / 2048. */
	{
		u64 before;

		mroce_dcqcn_advance(&d, &p, 1010 * US);
		before = d.rc;
		a = d.alpha;
		EXPECT_TRUE(mroce_dcqcn_cnp(&d, &p, 1010 * US));
		EXPECT_EQ(d.rc, before - (before >> 11) * a);
	}
}

TEST(dcqcn_increase_stages)
{
	struct mroce_dcqcn_params p;
	struct mroce_dcqcn d;
	u64 rc, rt, t = 0;
	int i;

	setup(&d, &p);
	p.rpg_min_dec_fac = 0;
	/* Three cuts 5 us apart: well below the line rate. */
	for (i = 0; i < 3; i++, t += 5 * US)
		mroce_dcqcn_cnp(&d, &p, t);
	t -= 5 * US;
	rt = d.rt;
	/* Fast recovery: 4 timer events, rc halves its way to rt. */
	for (i = 1; i <= 4; i++) {
		rc = d.rc;
		mroce_dcqcn_advance(&d, &p, t + i * 300 * US);
		EXPECT_EQ(d.t_stage, i);
		EXPECT_EQ(d.rt, rt);
		EXPECT_EQ(d.rc, (rt + rc + 1) / 2);
	}
	/* T reaches F = 5: additive increase, rt + 5 Mb/s. */
	rc = d.rc;
	mroce_dcqcn_advance(&d, &p, t + 5 * 300 * US);
	EXPECT_EQ(d.rt, rt + 5 * MB);
	EXPECT_EQ(d.rc, (rt + 5 * MB + rc + 1) / 2);
	rt = d.rt;
	/* Byte counter: 6 events of 32767 bytes; BC = 6, T = 5: still AI. */
	for (i = 0; i < 6; i++)
		mroce_dcqcn_sent(&d, &p, 32767, t + 5 * 300 * US);
	EXPECT_EQ(d.bc_stage, 6);
	EXPECT_EQ(d.rt, rt + 6 * 5 * MB);
	rt = d.rt;
	/* T = 6 too: both past F, hyper increase by (6 - 5) * 50 Mb/s. */
	mroce_dcqcn_advance(&d, &p, t + 6 * 300 * US);
	EXPECT_EQ(d.rt, rt + 50 * MB);
	/* Time alone brings it back to the line rate, then unthrottled. */
	mroce_dcqcn_advance(&d, &p, t + 1000000 * US);
	EXPECT_FALSE(d.active);
	EXPECT_EQ(d.rc, LINE);
	EXPECT_EQ(mroce_dcqcn_gap_ns(&d, 4096), 0);
	/* The next CNP starts over from alpha 1023. */
	mroce_dcqcn_cnp(&d, &p, t + 1000001 * US);
	EXPECT_EQ(d.alpha, 1023);
	EXPECT_EQ(d.rc, LINE - (LINE >> 11) * 1023);
}

TEST(dcqcn_idle_catch_up_bounded)
{
	struct mroce_dcqcn_params p;
	struct mroce_dcqcn d;

	setup(&d, &p);
	mroce_dcqcn_cnp(&d, &p, 0);
	/* Ten hours later in one call: bounded work, back at the top. */
	mroce_dcqcn_advance(&d, &p, 36000ULL * 1000000 * US);
	EXPECT_EQ(d.rc, LINE);
	EXPECT_FALSE(d.active);
	EXPECT_TRUE(d.t_stage <= 4096);
	/* One huge send: bounded byte-counter events. */
	mroce_dcqcn_cnp(&d, &p, 36000ULL * 1000000 * US + 1);
	mroce_dcqcn_sent(&d, &p, 0xffffffffU, 36000ULL * 1000000 * US + 2);
	EXPECT_TRUE(d.bc_stage <= 4096);
	EXPECT_TRUE(d.bytes < p.rpg_byte_reset);
}
