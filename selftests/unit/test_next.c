// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Interfaces for MetaRoCE mode: SACK scoreboard (the path selector:
 * test_path.c).
 */
#include "mroce_core.h"
#include "mroce_sack.h"
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
