// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Path (entropy) selector of MetaRoCE mode (core/mroce_path.c): modes,
 * retirement with fresh entropies, probes, the PSN-to-path map.
 */
#include "mroce_core.h"
#include "mroce_path.h"
#include "mroce_test.h"

static struct mroce_path p[MROCE_PATHS_MAX];
static u16 map[MROCE_PATH_PSNS];

static void setup(struct mroce_pathset *ps, u8 n, u8 mode)
{
	struct mroce_path_cfg cfg = {
		.n = n, .mode = mode, .seed = 7,
		.hold_ns = 1000, .flowlet_gap_ns = 50,
	};

	mroce_pathset_init(ps, p, map, &cfg);
}

TEST(path_spray_round_robin_and_retire)
{
	struct mroce_pathset ps;
	unsigned int i;

	setup(&ps, 4, MROCE_PATH_SPRAY);
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(p[i].entropy & 0xc000, 0xc000);
		if (i)
			EXPECT_NE(p[i].entropy, p[i - 1].entropy);
	}
	for (i = 0; i < 8; i++)
		EXPECT_EQ(mroce_path_select(&ps, 0), i % 4);
	EXPECT_EQ(p[2].sent, 2);
	/* ECN on path 1, loss on path 2: skipped while retired. */
	mroce_path_on_ecn(&ps, 1, 100);
	mroce_path_on_loss(&ps, 2, 100);
	EXPECT_EQ(p[1].ecn, 1);
	EXPECT_EQ(p[2].lost, 1);
	EXPECT_EQ(ps.retired, 2);
	EXPECT_TRUE(p[1].retired);
	EXPECT_EQ(mroce_path_select(&ps, 200), 0);
	EXPECT_EQ(mroce_path_select(&ps, 200), 3);
	EXPECT_EQ(mroce_path_select(&ps, 200), 0);
	/* Both recover at 1100: probed again, in turn. */
	EXPECT_EQ(mroce_path_select(&ps, 1100), 1);
	EXPECT_FALSE(p[1].retired);
	EXPECT_EQ(ps.probed, 1);
	EXPECT_EQ(mroce_path_select(&ps, 1100), 2);
	EXPECT_EQ(ps.probed, 2);
	/* A second loss while retired extends the hold, counts once. */
	mroce_path_on_loss(&ps, 3, 2000);
	mroce_path_on_loss(&ps, 3, 2500);
	EXPECT_EQ(ps.retired, 3);
	EXPECT_EQ(p[3].avoid_until, 3500);
	/* All retired: the one that recovers first. */
	mroce_path_on_loss(&ps, 0, 2000);
	mroce_path_on_loss(&ps, 1, 1900);
	mroce_path_on_loss(&ps, 2, 2200);
	EXPECT_EQ(mroce_path_select(&ps, 2100), 1);
	/* Out-of-range indexes are ignored. */
	mroce_path_on_ecn(&ps, 4, 0);
	mroce_path_on_loss(&ps, 9, 0);
	mroce_path_on_rtt(&ps, 4, 10, 0);
	/* Empty set. */
	mroce_pathset_init(&ps, NULL, NULL, &(struct mroce_path_cfg){ .n = 4 });
	EXPECT_EQ(mroce_path_select(&ps, 0), -ENOENT);
	EXPECT_EQ(mroce_path_tx(&ps, 1, 0), -ENOENT);
	EXPECT_EQ(mroce_path_of(&ps, 1), -ENOENT);
}

TEST(path_retire_takes_fresh_entropy)
{
	struct mroce_pathset ps;
	u16 old, seen[3];

	setup(&ps, 2, MROCE_PATH_SPRAY);
	seen[0] = p[0].entropy;
	seen[1] = old = p[1].entropy;
	EXPECT_EQ(mroce_path_tx(&ps, 7, 0), 0);
	EXPECT_EQ(mroce_path_tx(&ps, 8, 0), 1);
	mroce_path_on_rtt(&ps, 1, 500, 0);
	mroce_path_on_loss(&ps, 1, 0);
	/* a fresh entropy, distinct from every one before; no RTT yet */
	EXPECT_NE(p[1].entropy, old);
	EXPECT_NE(p[1].entropy, p[0].entropy);
	EXPECT_EQ(p[1].gen, 1);
	EXPECT_EQ(p[1].srtt_ns, 0);
	seen[2] = p[1].entropy;
	/* what PSN 8 did says nothing of the new entropy */
	EXPECT_EQ(mroce_path_of(&ps, 8), -ENOENT);
	EXPECT_EQ(mroce_path_of(&ps, 7), 0);
	/* a loss during the hold extends it, keeps the entropy */
	mroce_path_on_loss(&ps, 1, 500);
	EXPECT_EQ(p[1].entropy, seen[2]);
	EXPECT_EQ(p[1].avoid_until, 1500);
	/* the probe after the hold, then a loss: yet another entropy */
	EXPECT_EQ(mroce_path_select(&ps, 1500), 0);
	EXPECT_EQ(mroce_path_select(&ps, 1500), 1);
	EXPECT_EQ(ps.probed, 1);
	mroce_path_on_ecn(&ps, 1, 1600);
	EXPECT_NE(p[1].entropy, seen[0]);
	EXPECT_NE(p[1].entropy, seen[1]);
	EXPECT_NE(p[1].entropy, seen[2]);
	EXPECT_EQ(p[1].gen, 2);
	EXPECT_EQ(ps.retired, 2);
}

TEST(path_retx_avoids_the_lost_path)
{
	struct mroce_pathset ps;

	setup(&ps, 3, MROCE_PATH_SPRAY);
	EXPECT_EQ(mroce_path_tx(&ps, 0xffffff, 0), 0);
	EXPECT_EQ(mroce_path_tx(&ps, 0, 0), 1);
	EXPECT_EQ(mroce_path_tx(&ps, 1, 0), 2);
	EXPECT_EQ(mroce_path_of(&ps, 0xffffff), 0);
	EXPECT_EQ(mroce_path_of(&ps, 1), 2);
	EXPECT_EQ(mroce_path_of(&ps, 2), -ENOENT);
	/* PSN 0 lost on path 1: resent on another path, charged when due */
	EXPECT_EQ(mroce_path_retx(&ps, 0, 10, 5), 0);
	EXPECT_EQ(mroce_path_of(&ps, 0), 0);
	EXPECT_EQ(p[1].lost, 0);
	EXPECT_EQ(mroce_path_confirm(&ps, 14), -ENOENT);
	EXPECT_EQ(mroce_path_confirm(&ps, 15), 1);
	EXPECT_EQ(p[1].lost, 1);
	EXPECT_TRUE(p[1].retired);
	EXPECT_EQ(mroce_path_confirm(&ps, 15), -ENOENT);
	/* a probe charges nothing, still moves */
	EXPECT_EQ(mroce_path_retx(&ps, 1, 20, 0), 0);
	EXPECT_EQ(mroce_path_confirm(&ps, 100), -ENOENT);
	EXPECT_EQ(p[2].lost, 0);
	/* the map is by PSN modulo its size */
	EXPECT_EQ(mroce_path_of(&ps, 1 + MROCE_PATH_PSNS), 0);
	/* one path: the resend takes it again, never retired */
	setup(&ps, 1, MROCE_PATH_SPRAY);
	EXPECT_EQ(mroce_path_tx(&ps, 5, 0), 0);
	EXPECT_EQ(mroce_path_retx(&ps, 5, 1, 1), 0);
	EXPECT_EQ(mroce_path_confirm(&ps, 2), 0);
	EXPECT_EQ(p[0].lost, 1);
	EXPECT_EQ(ps.retired, 0);
	EXPECT_EQ(p[0].avoid_until, 0);
}

TEST(path_spurious_loss_not_charged)
{
	struct mroce_pathset ps;
	unsigned int i;

	setup(&ps, 4, MROCE_PATH_SPRAY);
	for (i = 0; i < 4; i++)
		EXPECT_EQ(mroce_path_tx(&ps, 10 + i, 0), i);
	/* PSN 12 (path 2) looked lost, but the receiver had it */
	EXPECT_EQ(mroce_path_retx(&ps, 12, 100, 50), 0);
	mroce_path_spurious(&ps, 12);
	mroce_path_spurious(&ps, 99);
	EXPECT_EQ(ps.cleared, 1);
	EXPECT_EQ(mroce_path_confirm(&ps, 200), -ENOENT);
	EXPECT_EQ(p[2].lost, 0);
	EXPECT_EQ(ps.retired, 0);
	/* the path took a fresh entropy meanwhile: the loss is dropped */
	EXPECT_EQ(mroce_path_tx(&ps, 20, 300), 1);
	EXPECT_EQ(mroce_path_retx(&ps, 20, 300, 50), 2);
	mroce_path_on_ecn(&ps, 1, 310);
	EXPECT_EQ(mroce_path_confirm(&ps, 400), -ESRCH);
	EXPECT_EQ(mroce_path_confirm(&ps, 400), -ENOENT);
	EXPECT_EQ(p[1].lost, 0);
	/*
	 * More losses than slots (a burst of resends): the one past them is
	 * neither held nor charged, now or later; the held ones charge
	 * their paths when due.
	 */
	setup(&ps, 4, MROCE_PATH_SPRAY);
	for (i = 0; i < MROCE_PATH_SUSPECTS; i++) {
		mroce_path_tx(&ps, 100 + i, 0);
		mroce_path_retx(&ps, 100 + i, 500 + i, 1000);
	}
	EXPECT_EQ(ps.retired, 0);
	mroce_path_tx(&ps, 200, 0);
	mroce_path_retx(&ps, 200, 600, 1000);
	EXPECT_EQ(ps.retired, 0);
	EXPECT_EQ(ps.unheld, 1);
	EXPECT_EQ(ps.nsuspects, MROCE_PATH_SUSPECTS);
	for (i = 0; i < MROCE_PATH_SUSPECTS; i++)
		mroce_path_spurious(&ps, 100 + i);
	EXPECT_EQ(ps.nsuspects, 0);
	EXPECT_EQ(mroce_path_confirm(&ps, 5000), -ENOENT);
	EXPECT_EQ(ps.retired, 0);
	/* a slot freed holds the next loss again */
	mroce_path_tx(&ps, 300, 0);
	mroce_path_retx(&ps, 300, 6000, 1000);
	EXPECT_EQ(ps.nsuspects, 1);
	EXPECT_EQ(ps.unheld, 1);
}

TEST(path_flow_and_flowlet)
{
	struct mroce_pathset ps;
	unsigned int i;

	setup(&ps, 4, MROCE_PATH_FLOW);
	for (i = 0; i < 5; i++)
		EXPECT_EQ(mroce_path_select(&ps, i * 1000), 0);
	mroce_path_on_loss(&ps, 0, 0);
	EXPECT_EQ(ps.retired, 0);
	EXPECT_EQ(mroce_path_tx(&ps, 3, 5), 0);
	EXPECT_EQ(mroce_path_retx(&ps, 3, 10, 1), 0);
	EXPECT_EQ(mroce_path_confirm(&ps, 11), 0);
	EXPECT_EQ(p[0].lost, 2);
	EXPECT_TRUE(!strcmp(mroce_path_mode_name(MROCE_PATH_FLOW), "flow"));
	EXPECT_TRUE(!strcmp(mroce_path_mode_name(MROCE_NUM_PATH_MODES), "?"));

	setup(&ps, 4, MROCE_PATH_FLOWLET);
	EXPECT_EQ(mroce_path_select(&ps, 100), 1);
	/* back to back: the same path */
	EXPECT_EQ(mroce_path_select(&ps, 120), 1);
	EXPECT_EQ(mroce_path_select(&ps, 160), 1);
	/* a gap of 50 or more: the next flowlet, the next path */
	EXPECT_EQ(mroce_path_select(&ps, 210), 2);
	/* the flowlet's path retired: moves at once */
	mroce_path_on_ecn(&ps, 2, 215);
	EXPECT_EQ(mroce_path_select(&ps, 220), 3);
	/* a resend leaves the lost packet's path even inside a flowlet */
	EXPECT_EQ(mroce_path_tx(&ps, 9, 225), 3);
	EXPECT_EQ(mroce_path_retx(&ps, 9, 230, 0), 0);
	EXPECT_EQ(mroce_path_select(&ps, 240), 0);
	/* an unknown mode is spray */
	mroce_pathset_init(&ps, p, NULL,
			   &(struct mroce_path_cfg){ .n = 2, .mode = 9 });
	EXPECT_EQ(ps.mode, MROCE_PATH_SPRAY);
	/* more paths than a set holds: capped */
	mroce_pathset_init(&ps, p, NULL,
			   &(struct mroce_path_cfg){ .n = 200 });
	EXPECT_EQ(ps.n, MROCE_PATHS_MAX);
}

/* A fresh set from @cfg; 8 RTT samples of @rtt0 on path 0, @rtt1 on 1. */
static void two_paths_rtts(struct mroce_pathset *ps,
			   const struct mroce_path_cfg *cfg, u32 rtt0, u32 rtt1)
{
	unsigned int i;

	mroce_pathset_init(ps, p, map, cfg);
	for (i = 0; i < 8; i++) {
		mroce_path_on_rtt(ps, 0, rtt0, 0);
		mroce_path_on_rtt(ps, 1, rtt1, 0);
	}
}

TEST(path_slow_path_retired)
{
	struct mroce_pathset ps;
	struct mroce_path_cfg cfg = {
		.n = 3, .mode = MROCE_PATH_SPRAY, .seed = 1,
		.hold_ns = 1000, .slow_ns = 500,
	};
	unsigned int i;
	u16 old;

	mroce_pathset_init(&ps, p, map, &cfg);
	old = p[2].entropy;
	/* too few samples to judge: nothing happens */
	for (i = 0; i < 3; i++) {
		mroce_path_on_rtt(&ps, 0, 100, 0);
		mroce_path_on_rtt(&ps, 1, 120, 0);
		mroce_path_on_rtt(&ps, 2, 5000, 0);
	}
	EXPECT_EQ(ps.retired, 0);
	/* the fourth sample of each: path 2 is 3x and 500 ns over path 0 */
	mroce_path_on_rtt(&ps, 0, 100, 0);
	mroce_path_on_rtt(&ps, 1, 120, 0);
	EXPECT_EQ(p[1].samples, 4);
	EXPECT_EQ(ps.retired, 0);
	mroce_path_on_rtt(&ps, 2, 5000, 7);
	EXPECT_EQ(ps.retired, 1);
	EXPECT_TRUE(p[2].retired);
	EXPECT_NE(p[2].entropy, old);
	EXPECT_EQ(p[2].samples, 0);
	EXPECT_EQ(p[2].avoid_until, 1007);
	/* with slow_ns 0 no path is judged on delay */
	cfg.slow_ns = 0;
	two_paths_rtts(&ps, &cfg, 100, 90000);
	EXPECT_EQ(ps.retired, 0);
	/* within 3x of the fastest: kept, however many ns over */
	cfg.slow_ns = 10;
	two_paths_rtts(&ps, &cfg, 1000, 2900);
	EXPECT_EQ(ps.retired, 0);
	/* past it: retired */
	mroce_path_on_rtt(&ps, 1, 9000, 0);
	EXPECT_EQ(ps.retired, 1);
	/*
	 * Judged against most paths, not the fastest: one fast outlier
	 * (100) does not make the 450 of a path among 400s slow; 5000 is.
	 */
	cfg.n = 5;
	cfg.slow_ns = 200;
	mroce_pathset_init(&ps, p, map, &cfg);
	for (i = 0; i < 4; i++) {
		mroce_path_on_rtt(&ps, 0, 100, 0);
		mroce_path_on_rtt(&ps, 1, 400, 0);
		mroce_path_on_rtt(&ps, 2, 400, 0);
		mroce_path_on_rtt(&ps, 3, 450, 0);
	}
	EXPECT_EQ(ps.retired, 0);
	for (i = 0; i < 4; i++)
		mroce_path_on_rtt(&ps, 4, 5000, 0);
	EXPECT_EQ(ps.retired, 1);
	EXPECT_TRUE(p[4].retired);
}

TEST(path_plan_keeps_its_entropies)
{
	static const u16 plan[3] = { 49152, 50000, 61000 };
	struct mroce_pathset ps;
	struct mroce_path_cfg cfg = {
		.n = 3, .mode = MROCE_PATH_SPRAY, .seed = 1, .hold_ns = 100,
		.plan = plan,
	};

	mroce_pathset_init(&ps, p, map, &cfg);
	EXPECT_TRUE(ps.planned);
	EXPECT_EQ(p[0].entropy, 49152);
	EXPECT_EQ(p[2].entropy, 61000);
	/* retired and probed on the entropy the plan gave it */
	mroce_path_on_loss(&ps, 1, 0);
	EXPECT_EQ(ps.retired, 1);
	EXPECT_EQ(p[1].entropy, 50000);
	EXPECT_EQ(p[1].gen, 0);
	EXPECT_EQ(mroce_path_select(&ps, 10), 0);
	EXPECT_EQ(mroce_path_select(&ps, 10), 2);
	EXPECT_EQ(mroce_path_select(&ps, 100), 0);
	EXPECT_EQ(mroce_path_select(&ps, 100), 1);
	EXPECT_EQ(ps.probed, 1);
	/* an empty set ignores the plan */
	mroce_pathset_init(&ps, NULL, NULL, &cfg);
	EXPECT_FALSE(ps.planned);
}

TEST(path_rtt_smoothing)
{
	struct mroce_pathset ps;

	setup(&ps, 1, MROCE_PATH_SPRAY);
	mroce_path_on_rtt(&ps, 0, 8000, 0);
	EXPECT_EQ(p[0].srtt_ns, 8000);
	EXPECT_EQ(p[0].rttvar_ns, 4000);
	mroce_path_on_rtt(&ps, 0, 16000, 0);
	EXPECT_EQ(p[0].srtt_ns, 9000);
	EXPECT_EQ(p[0].rttvar_ns, 5000);
	mroce_path_on_rtt(&ps, 0, 1000, 0);
	EXPECT_EQ(p[0].srtt_ns, 9000 - 1125 + 125);
	EXPECT_EQ(p[0].rttvar_ns, 5000 - 1250 + 2000);
}
