/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Time-based loss detection for selective repeat, after RACK (RFC 8985):
 * a unit in flight is lost when a unit sent after it has been delivered
 * (acknowledged or SACKED) and, since it was sent, one RTT of that
 * delivery plus a reorder window has passed.  Counting by time rather
 * than by duplicate ACKs tolerates reordering of any depth up to the
 * window, loses resent units as readily as first transmissions, and needs
 * nothing from the receiver but the SACK scoreboard.
 *
 * The reorder window, while the path has never reordered, is a quarter
 * of the minimum RTT until MROCE_RACK_DUPTHRESH units are SACKED, then 0
 * (a clean path recovers in one RTT; RFC 8985 section 6.2).  Once a unit
 * never resent is delivered below the highest one delivered, the path
 * reorders, and the window is the larger of a quarter of the minimum RTT
 * (at least the clock granularity) times a multiplier and the reordering
 * measured: how much later than RACK would have allowed that unit came,
 * at most the largest recent RTT.  Each spurious resend the receiver
 * reports (a duplicate arrival) doubles the multiplier, up to
 * MROCE_RACK_MULT_MAX; after MROCE_RACK_CALM loss recoveries without one
 * the multiplier falls back to 1 and the measure is halved.
 */
#ifndef MROCE_RACK_H
#define MROCE_RACK_H

#include "mroce_core.h"
#include "mroce_rtt.h"
#include "mroce_sb.h"

#define MROCE_RACK_MULT_MAX	256
#define MROCE_RACK_CALM		16
#define MROCE_RACK_DUPTHRESH	3

struct mroce_rack {
	u64 xmit;	/* send time of the latest-sent unit delivered */
	u64 rtt;	/* its RTT */
	u32 end;	/* its end PSN, to order units sent at one time */
	u32 fack;	/* end PSN of the highest unit delivered */
	u64 fack_sent;	/* when that unit was sent */
	u64 fack_at;	/* and delivered */
	u64 extent;	/* reordering measured, ns */
	bool valid;	/* a delivery has been seen */
	bool reordered;	/* a delivery below fack has been seen */
	u16 mult;	/* reorder window in quarters of the minimum RTT */
	u8 calm;	/* recoveries since the last spurious resend */
};

void mroce_rack_init(struct mroce_rack *k);
void mroce_rack_delivered(struct mroce_rack *k, const struct mroce_rtt *r,
			  const struct mroce_sb_ent *u, u32 end, u64 now);
u64 mroce_rack_reo_wnd(const struct mroce_rack *k, const struct mroce_rtt *r,
		       u32 sacked);
u32 mroce_rack_detect(struct mroce_rack *k, struct mroce_sb *sb,
		      const struct mroce_rtt *r, u32 una, u32 max, u64 now,
		      u64 *deadline);
void mroce_rack_spurious(struct mroce_rack *k);
void mroce_rack_late(struct mroce_rack *k, const struct mroce_rtt *r, u64 rtt);
void mroce_rack_recovered(struct mroce_rack *k);

#endif /* MROCE_RACK_H */
