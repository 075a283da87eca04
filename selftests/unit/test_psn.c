// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * 24-bit PSN arithmetic and the byte-order accessors.
 */
#include "mroce_core.h"
#include "mroce_psn.h"
#include "mroce_raw.h"
#include "mroce_test.h"

TEST(psn_add_sub_wrap)
{
	EXPECT_EQ(mroce_psn(0x12345678), 0x345678);
	EXPECT_EQ(mroce_psn_add(0xffffff, 1), 0);
	EXPECT_EQ(mroce_psn_add(0xfffffe, 5), 3);
	EXPECT_EQ(mroce_psn_add(5, 0), 5);
	EXPECT_EQ(mroce_psn_sub(0, 1), 0xffffff);
	EXPECT_EQ(mroce_psn_sub(3, 5), 0xfffffe);
	EXPECT_EQ(mroce_psn_dist(0xfffff0, 0x10), 0x20);
	EXPECT_EQ(mroce_psn_dist(0x10, 0xfffff0), 0xffffe0);
	EXPECT_EQ(mroce_psn_dist(7, 7), 0);
}

TEST(psn_diff_edges)
{
	EXPECT_EQ(mroce_psn_diff(0, 0xffffff), 1);
	EXPECT_EQ(mroce_psn_diff(0xffffff, 0), -1);
	EXPECT_EQ(mroce_psn_diff(100, 100), 0);
	/* Exactly half the space apart: the distance reads as negative. */
	EXPECT_EQ(mroce_psn_diff(0x800000, 0), -0x800000);
	EXPECT_EQ(mroce_psn_diff(0x7fffff, 0), 0x7fffff);
	EXPECT_EQ(mroce_psn_diff(0, 0x7fffff), -0x7fffff);
	EXPECT_EQ(mroce_psn_diff(0x7fffff + 0x10, 0x10), 0x7fffff);
	/* Bits above 24 are ignored. */
	EXPECT_EQ(mroce_psn_diff(0xff000001, 0), 1);
}

TEST(psn_order)
{
	EXPECT_TRUE(mroce_psn_before(0xffffff, 0));
	EXPECT_FALSE(mroce_psn_before(0, 0xffffff));
	EXPECT_TRUE(mroce_psn_after(0, 0xffffff));
	EXPECT_FALSE(mroce_psn_after(5, 5));
	EXPECT_TRUE(mroce_psn_before_eq(5, 5));
	EXPECT_TRUE(mroce_psn_before_eq(4, 5));
	EXPECT_FALSE(mroce_psn_before_eq(6, 5));
	EXPECT_TRUE(mroce_psn_after_eq(5, 5));
	EXPECT_TRUE(mroce_psn_after_eq(2, 0xfffffe));
	EXPECT_FALSE(mroce_psn_after_eq(0xfffffe, 2));
	EXPECT_TRUE(mroce_psn_before(0x10, 0x10 + 0x7fffff));
	/*
	 * Exactly half the space apart each PSN reads as before the other:
	 * the one ambiguous distance, which is why windows stay below 2^23.
	 */
	EXPECT_TRUE(mroce_psn_before(0x10, 0x10 + 0x800000));
	EXPECT_TRUE(mroce_psn_before(0x10 + 0x800000, 0x10));
}

TEST(psn_window_edges)
{
	EXPECT_TRUE(mroce_psn_in_window(10, 10, 1));
	EXPECT_FALSE(mroce_psn_in_window(11, 10, 1));
	EXPECT_FALSE(mroce_psn_in_window(9, 10, 1));
	EXPECT_FALSE(mroce_psn_in_window(10, 10, 0));
	EXPECT_TRUE(mroce_psn_in_window(0xffffff, 0xfffffe, 4));
	EXPECT_TRUE(mroce_psn_in_window(1, 0xfffffe, 4));
	EXPECT_FALSE(mroce_psn_in_window(2, 0xfffffe, 4));
	EXPECT_FALSE(mroce_psn_in_window(0xfffffd, 0xfffffe, 4));
	EXPECT_TRUE(mroce_psn_in_window(0x123456, 0, 1U << 24));
}

TEST(raw_accessors)
{
	u8 b[8];
	static const u8 be[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

	EXPECT_EQ(mroce_get_be16(be), 0x0102);
	EXPECT_EQ(mroce_get_be24(be), 0x010203);
	EXPECT_EQ(mroce_get_be32(be), 0x01020304);
	EXPECT_EQ(mroce_get_be64(be), 0x0102030405060708ULL);
	EXPECT_EQ(mroce_get_le32(be), 0x04030201);
	memset(b, 0, sizeof(b));
	mroce_put_be64(b, 0x0102030405060708ULL);
	EXPECT_MEM(b, be, 8);
	mroce_put_be32(b, 0xa1b2c3d4);
	EXPECT_EQ(mroce_get_be32(b), 0xa1b2c3d4);
	mroce_put_be24(b, 0xffabcdef);
	EXPECT_EQ(mroce_get_be24(b), 0xabcdef);
	mroce_put_be16(b, 0xbeef);
	EXPECT_EQ(b[0], 0xbe);
	EXPECT_EQ(b[1], 0xef);
	mroce_put_le32(b, 0x11223344);
	EXPECT_EQ(b[0], 0x44);
	EXPECT_EQ(b[3], 0x11);
	EXPECT_EQ(mroce_get_le32(b), 0x11223344);
}
