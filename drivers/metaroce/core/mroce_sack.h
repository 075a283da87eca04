/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Receive scoreboard for MetaRoCE mode: which PSNs of a window have
 * arrived, so that the receiver can return a cumulative ACK plus SACK
 * blocks and the sender resends only the holes (IRN, SIGCOMM'18; Falcon).
 *
 * The scoreboard covers MROCE_SACK_BITS PSNs starting at base, the first
 * PSN not yet received; everything before base has arrived.  The map is a
 * ring indexed by PSN modulo its size, so advancing base never shifts it.
 *
 * The module's responder builds its SACK bitmap from its ring of held
 * requests (mroce_hold.c), as wide as this map; this scoreboard is the
 * codec's model of one (mroce_ext_sack_from_board()), tested on the host
 * (selftests/unit, selftests/fuzz).
 */
#ifndef MROCE_SACK_H
#define MROCE_SACK_H

#include "mroce_core.h"

#define MROCE_SACK_BITS		1024
#define MROCE_SACK_WORDS	(MROCE_SACK_BITS / 64)

struct mroce_sack {
	u32 base;
	u64 map[MROCE_SACK_WORDS];
};

/* A run of received PSNs [start, end) beyond the cumulative point. */
struct mroce_sack_block {
	u32 start;
	u32 end;
};

enum mroce_sack_verdict {
	MROCE_SACK_NEW,		/* first arrival: place the data */
	MROCE_SACK_DUP,		/* already received: drop, re-ACK */
	MROCE_SACK_BEYOND,	/* past the window: drop, no state kept */
};

void mroce_sack_init(struct mroce_sack *s, u32 base);
enum mroce_sack_verdict mroce_sack_mark(struct mroce_sack *s, u32 psn);
bool mroce_sack_test(const struct mroce_sack *s, u32 psn);
unsigned int mroce_sack_blocks(const struct mroce_sack *s,
			       struct mroce_sack_block *blk, unsigned int max);

#endif /* MROCE_SACK_H */
