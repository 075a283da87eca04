// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Interfaces for MetaRoCE mode: SACK scoreboard and path selector.
 */
#include "mroce_core.h"
#include "mroce_sack.h"
#include "mroce_path.h"
#include "mroce_test.h"

TEST(sack_in_order)
{
	struct mroce_sack s;
	struct mroce_sack_block b[4];
	u32 i;

	mroce_sack_init(&s, 0x1fffffa);
	EXPECT_EQ(s.base, 0xfffffa);
	for (i = 0; i < 300; i++)
		EXPECT_EQ(mroce_sack_mark(&s, 0xfffffa + i), MROCE_SACK_NEW);
	EXPECT_EQ(s.base, (0xfffffa + 300) & 0xffffff);
	EXPECT_EQ(mroce_sack_blocks(&s, b, 4), 0);
	EXPECT_TRUE(mroce_sack_test(&s, 0xfffffa));
	EXPECT_FALSE(mroce_sack_test(&s, s.base));
	EXPECT_EQ(mroce_sack_mark(&s, 0xfffffa), MROCE_SACK_DUP);
}

TEST(sack_holes_and_blocks)
{
	struct mroce_sack s;
	struct mroce_sack_block b[4];

	mroce_sack_init(&s, 0xfffffe);
	/* Received: 0, 1, 5, 7, 8; missing fffffe, ffffff, 2..4, 6. */
	EXPECT_EQ(mroce_sack_mark(&s, 0), MROCE_SACK_NEW);
	EXPECT_EQ(mroce_sack_mark(&s, 1), MROCE_SACK_NEW);
	EXPECT_EQ(mroce_sack_mark(&s, 5), MROCE_SACK_NEW);
	EXPECT_EQ(mroce_sack_mark(&s, 7), MROCE_SACK_NEW);
	EXPECT_EQ(mroce_sack_mark(&s, 8), MROCE_SACK_NEW);
	EXPECT_EQ(mroce_sack_mark(&s, 5), MROCE_SACK_DUP);
	EXPECT_EQ(s.base, 0xfffffe);
	ASSERT_EQ(mroce_sack_blocks(&s, b, 4), 3);
	EXPECT_EQ(b[0].start, 0);
	EXPECT_EQ(b[0].end, 2);
	EXPECT_EQ(b[1].start, 5);
	EXPECT_EQ(b[1].end, 6);
	EXPECT_EQ(b[2].start, 7);
	EXPECT_EQ(b[2].end, 9);
	EXPECT_EQ(mroce_sack_blocks(&s, b, 2), 2);
	EXPECT_TRUE(mroce_sack_test(&s, 7));
	EXPECT_FALSE(mroce_sack_test(&s, 6));
	/* Filling the first hole moves the cumulative point to 2. */
	mroce_sack_mark(&s, 0xfffffe);
	mroce_sack_mark(&s, 0xffffff);
	EXPECT_EQ(s.base, 2);
	EXPECT_EQ(mroce_sack_blocks(&s, b, 4), 2);
	/* Beyond the window. */
	EXPECT_EQ(mroce_sack_mark(&s, 2 + MROCE_SACK_BITS), MROCE_SACK_BEYOND);
	EXPECT_FALSE(mroce_sack_test(&s, 2 + MROCE_SACK_BITS));
	/* A run up to the end of the window. */
	EXPECT_EQ(mroce_sack_mark(&s, 2 + MROCE_SACK_BITS - 1),
		  MROCE_SACK_NEW);
	ASSERT_EQ(mroce_sack_blocks(&s, b, 4), 3);
	EXPECT_EQ(b[2].start, 2 + MROCE_SACK_BITS - 1);
	EXPECT_EQ(b[2].end, 2 + MROCE_SACK_BITS);
}

TEST(path_round_robin_and_avoid)
{
	struct mroce_path p[4];
	struct mroce_pathset ps;
	unsigned int i;

	mroce_pathset_init(&ps, p, 4, 7, 1000, 5000);
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(p[i].entropy & 0xc000, 0xc000);
		if (i)
			EXPECT_NE(p[i].entropy, p[i - 1].entropy);
	}
	for (i = 0; i < 8; i++)
		EXPECT_EQ(mroce_path_select(&ps, 0), i % 4);
	EXPECT_EQ(p[2].sent, 2);
	/* ECN on path 1, loss on path 2: skipped while avoided. */
	mroce_path_on_ecn(&ps, 1, 100);
	mroce_path_on_loss(&ps, 2, 100);
	EXPECT_EQ(p[1].ecn, 1);
	EXPECT_EQ(p[2].lost, 1);
	EXPECT_EQ(mroce_path_select(&ps, 200), 0);
	EXPECT_EQ(mroce_path_select(&ps, 200), 3);
	EXPECT_EQ(mroce_path_select(&ps, 200), 0);
	/* Path 1 recovers at 1100, path 2 at 5100. */
	EXPECT_EQ(mroce_path_select(&ps, 1100), 1);
	/* All avoided: the one that recovers first. */
	mroce_path_on_loss(&ps, 0, 2000);
	mroce_path_on_loss(&ps, 1, 1000);
	mroce_path_on_loss(&ps, 3, 3000);
	EXPECT_EQ(mroce_path_select(&ps, 2000), 2);
	mroce_path_on_loss(&ps, 2, 4000);
	EXPECT_EQ(mroce_path_select(&ps, 2000), 1);
	/* Out-of-range indexes are ignored. */
	mroce_path_on_ecn(&ps, 4, 0);
	mroce_path_on_loss(&ps, 9, 0);
	mroce_path_on_rtt(&ps, 4, 10);
	/* Empty set. */
	mroce_pathset_init(&ps, NULL, 4, 0, 0, 0);
	EXPECT_EQ(mroce_path_select(&ps, 0), -ENOENT);
}

TEST(path_rtt_smoothing)
{
	struct mroce_path p[1];
	struct mroce_pathset ps;

	mroce_pathset_init(&ps, p, 1, 0, 0, 0);
	mroce_path_on_rtt(&ps, 0, 8000);
	EXPECT_EQ(p[0].srtt_ns, 8000);
	EXPECT_EQ(p[0].rttvar_ns, 4000);
	mroce_path_on_rtt(&ps, 0, 16000);
	EXPECT_EQ(p[0].srtt_ns, 9000);
	EXPECT_EQ(p[0].rttvar_ns, 5000);
	mroce_path_on_rtt(&ps, 0, 1000);
	EXPECT_EQ(p[0].srtt_ns, 9000 - 1125 + 125);
	EXPECT_EQ(p[0].rttvar_ns, 5000 - 1250 + 2000);
}
