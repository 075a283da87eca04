// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Receive scoreboard (SACK) over a fixed PSN window.
 */
#include "mroce_core.h"
#include "mroce_sack.h"
#include "mroce_psn.h"

static bool mroce_sack_bit(const struct mroce_sack *s, u32 psn)
{
	u32 i = psn % MROCE_SACK_BITS;

	return s->map[i / 64] & (1ULL << (i % 64));
}

static void mroce_sack_set(struct mroce_sack *s, u32 psn, bool on)
{
	u32 i = psn % MROCE_SACK_BITS;

	if (on)
		s->map[i / 64] |= 1ULL << (i % 64);
	else
		s->map[i / 64] &= ~(1ULL << (i % 64));
}

void mroce_sack_init(struct mroce_sack *s, u32 base)
{
	memset(s, 0, sizeof(*s));
	s->base = mroce_psn(base);
}

/* Has @psn arrived?  Everything before base has. */
bool mroce_sack_test(const struct mroce_sack *s, u32 psn)
{
	s32 d = mroce_psn_diff(psn, s->base);

	if (d < 0)
		return true;
	return d < MROCE_SACK_BITS && mroce_sack_bit(s, psn);
}

/**
 * mroce_sack_mark() - record the arrival of @psn
 * @s: the scoreboard
 * @psn: PSN of the packet
 *
 * Return: whether the packet is new, a duplicate, or too far ahead to be
 * tracked (the sender broke its window; IRN's BDP cap prevents this).
 */
enum mroce_sack_verdict mroce_sack_mark(struct mroce_sack *s, u32 psn)
{
	s32 d = mroce_psn_diff(psn, s->base);

	if (d < 0)
		return MROCE_SACK_DUP;
	if (d >= MROCE_SACK_BITS)
		return MROCE_SACK_BEYOND;
	if (mroce_sack_bit(s, psn))
		return MROCE_SACK_DUP;
	mroce_sack_set(s, psn, true);
	while (mroce_sack_bit(s, s->base)) {
		mroce_sack_set(s, s->base, false);
		s->base = mroce_psn_add(s->base, 1);
	}
	return MROCE_SACK_NEW;
}

/**
 * mroce_sack_blocks() - the received runs beyond the cumulative point
 * @s: the scoreboard
 * @blk: filled with up to @max blocks, lowest PSNs first
 * @max: room in @blk
 *
 * Return: the number of blocks written.
 */
unsigned int mroce_sack_blocks(const struct mroce_sack *s,
			       struct mroce_sack_block *blk, unsigned int max)
{
	unsigned int n = 0;
	bool in_run = false;
	u32 i;

	for (i = 1; i < MROCE_SACK_BITS && n < max; i++) {
		u32 psn = mroce_psn_add(s->base, i);
		bool got = mroce_sack_bit(s, psn);

		if (got && !in_run) {
			blk[n].start = psn;
			in_run = true;
		} else if (!got && in_run) {
			blk[n++].end = psn;
			in_run = false;
		}
	}
	if (in_run)
		blk[n++].end = mroce_psn_add(s->base, MROCE_SACK_BITS);
	return n;
}
