/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Sender scoreboard of an RC requester: for every PSN in flight, the unit
 * (request packet) that carries it, the caller's WQE index, when the unit
 * was last sent, whether it is in flight, lost or resent, and how often it
 * was resent.  A unit takes one PSN, except a READ request, which takes one
 * per response packet (IBTA 9.7.4.1.4).
 *
 * The entries form a ring indexed by PSN modulo MROCE_SB_SLOTS, so a PSN
 * finds its WQE in O(1) and nothing is ever shifted.  Every slot of a unit
 * holds the unit's whole record; a record changes only when the unit is
 * sent, lost or resent, never per acknowledged PSN.  The owner (the
 * requester window, mroce_reqwin.c) keeps the PSNs in flight [una, max)
 * within MROCE_SB_SLOTS, except for one unit alone in flight that is
 * wider: then every slot belongs to that unit, and the aliasing is
 * harmless.
 *
 * What is lost is decided by a policy on top: go-back-N (RoCEv2, IBTA
 * 9.7.5.2.1) loses every unit from one PSN on; selective repeat (MetaRoCE
 * mode, mroce_sr.c) marks units the receiver reported in a SACK as SACKED
 * and loses single units (mroce_sb_lose_unit()), and a go-back-N loss
 * passes over SACKED units.  The sender resends lost
 * units in PSN order (mroce_sb_next_lost()), each rebuilt from its WQE.
 */
#ifndef MROCE_SB_H
#define MROCE_SB_H

#include "mroce_core.h"

/*
 * Power of two; no window may be wider (mroce_reqwin_init()).  1024: a
 * selective window as wide as the receiver's hold ring and SACK bitmap
 * (MROCE_SACK_BITS), four times what it keeps unreported in flight (its
 * pipe), so that it keeps sending while a hole is repaired.
 */
#define MROCE_SB_SLOTS		1024

enum mroce_sb_state {
	MROCE_SB_ACKED,		/* nothing in flight (initial state) */
	MROCE_SB_INFLIGHT,	/* sent once, not acknowledged */
	MROCE_SB_LOST,		/* must be sent again */
	MROCE_SB_RESENT,	/* sent again, not acknowledged */
	MROCE_SB_SACKED,	/* selectively acknowledged: arrived, but
				 * not yet covered by the cumulative ACK */
};

struct mroce_sb_ent {
	u64 sent;	/* when the unit was last put on the wire (ns) */
	u64 first;	/* and when first */
	u32 wqe;	/* the caller's index of the WQE the unit belongs to */
	u32 head;	/* first PSN of the unit */
	u32 npsn;	/* PSNs of the unit */
	u8 state;	/* enum mroce_sb_state */
	u8 retx;	/* times the unit was resent */
	u8 flags;	/* MROCE_SB_F_* */
};

/*
 * The unit was lost because its answer was (a READ's responses,
 * mroce_sb_lose_answer()): the request itself arrived, so its delivery
 * after a resend says nothing of reordering (mroce_rack_delivered()).
 */
#define MROCE_SB_F_ANSWER	0x01
/*
 * The unit was lost with every other unit from some PSN on (go back N: a
 * timeout or a NAK), not found missing by itself: nothing says it was the
 * one the network dropped (the path selector does not charge its path).
 * A unit lost by itself later clears it, and so does mroce_sb_holes()
 * for units that later ones overtook.
 */
#define MROCE_SB_F_BULK		0x02

struct mroce_sb {
	u32 lost;	/* units in state LOST */
	u32 sacked;	/* slots (PSNs) in state SACKED */
	u32 rtx;	/* while @lost: no lost unit before this PSN */
	struct mroce_sb_ent ent[MROCE_SB_SLOTS];
};

void mroce_sb_init(struct mroce_sb *sb);
const struct mroce_sb_ent *mroce_sb_at(const struct mroce_sb *sb, u32 psn);
void mroce_sb_sent(struct mroce_sb *sb, u32 psn, u32 npsn, u32 wqe, u64 now);
int mroce_sb_resent(struct mroce_sb *sb, u32 una, u32 max, u32 psn,
		    u32 npsn, u64 now);
u32 mroce_sb_lose(struct mroce_sb *sb, u32 psn, u32 max);
void mroce_sb_acked(struct mroce_sb *sb, u32 una, u32 new_una);
bool mroce_sb_next_lost(struct mroce_sb *sb, u32 una, u32 max, u32 *psn);
u32 mroce_sb_unit_end(const struct mroce_sb *sb, u32 psn);
bool mroce_sb_sack(struct mroce_sb *sb, u32 una, u32 max, u32 psn);
bool mroce_sb_lose_unit(struct mroce_sb *sb, u32 psn);
bool mroce_sb_lose_answer(struct mroce_sb *sb, u32 psn);
void mroce_sb_reported(struct mroce_sb *sb, u32 from, u32 to);
void mroce_sb_holes(struct mroce_sb *sb, u32 from, u32 to);

#endif /* MROCE_SB_H */
