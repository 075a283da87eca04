// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * RACK-style loss detection over the sender scoreboard (see mroce_rack.h).
 */
#include "mroce_core.h"
#include "mroce_psn.h"
#include "mroce_rack.h"

void mroce_rack_init(struct mroce_rack *k)
{
	memset(k, 0, sizeof(*k));
	k->mult = 1;
}

/* Was the unit sent at @sent ending at @end sent before the RACK unit? */
static bool mroce_rack_sent_before(const struct mroce_rack *k, u64 sent,
				   u32 end)
{
	return sent < k->xmit ||
	       (sent == k->xmit && mroce_psn_before(end, k->end));
}

/**
 * mroce_rack_delivered() - a unit was acknowledged or SACKED
 * @k: the RACK state
 * @r: the RTT estimator (for the minimum RTT)
 * @u: the unit's record, as it was before the delivery
 * @end: first PSN after the unit
 * @now: current time
 *
 * A resent unit delivered sooner than the minimum RTT after its resend
 * was most likely delivered by an earlier transmission: its send time says
 * nothing and is not used (RFC 8985 section 6.2 step 2).
 */
void mroce_rack_delivered(struct mroce_rack *k, const struct mroce_rtt *r,
			  const struct mroce_sb_ent *u, u32 end, u64 now)
{
	/* see below: a READ asked again was delivered as first sent */
	u64 sent = u->retx && (u->flags & MROCE_SB_F_ANSWER) ? u->first :
							       u->sent;
	u64 rtt = now > sent ? now - sent : 0;

	if (!u->retx && k->valid && mroce_psn_before(end, k->fack)) {
		/*
		 * RACK would have lost this unit at sent + fack's RTT +
		 * window; it came at now.  What the window lacked, at least.
		 */
		u64 due = u->sent + (k->fack_at - k->fack_sent);

		k->reordered = true;
		if (now > due && now - due > k->extent)
			k->extent = now - due;
	}
	if (!k->valid || mroce_psn_after(end, k->fack)) {
		k->fack = end;
		k->fack_sent = u->sent;
		k->fack_at = now;
	}
	/*
	 * Not a READ asked again for its lost responses: its request
	 * arrived the first time (MROCE_SB_F_ANSWER), and a READ's minimum
	 * RTT includes its wait behind other READs at the responder, so
	 * every such READ looked delivered early (extents of milliseconds
	 * at 1% loss).
	 */
	if (u->retx && !(u->flags & MROCE_SB_F_ANSWER) && r->samples &&
	    rtt < r->min_rtt) {
		/*
		 * Its first copy came, late: that measures the reordering
		 * as well, from when it was first sent.
		 */
		u64 due = u->first + (k->fack_at - k->fack_sent);

		k->reordered = true;
		if (now > due && now - due > k->extent)
			k->extent = now - due;
		return;
	}
	/*
	 * Nor is the resend of such a READ what was delivered: its request
	 * arrived the first time, and an ACK past it, which may have left
	 * before the READ was asked again, says no more.  Taken as sent when
	 * it was asked again, it lost every READ sent before that and not
	 * yet acknowledged, whose responses were on the way: at 1% loss,
	 * 64 KiB READs were asked again whole some 50 times a second.
	 */
	if (!k->valid || !mroce_rack_sent_before(k, sent, end)) {
		k->xmit = sent;
		k->end = end;
		k->rtt = rtt;
		k->valid = true;
	}
}

/* The reorder window now, with @sacked PSNs SACKED. */
u64 mroce_rack_reo_wnd(const struct mroce_rack *k, const struct mroce_rtt *r,
		       u32 sacked)
{
	u64 wnd;

	if (!k->reordered)
		return sacked >= MROCE_RACK_DUPTHRESH ? 0 : r->min_rtt / 4;
	/*
	 * The multiplier's part at most the larger of SRTT and the largest
	 * recent RTT; the reordering measured as it is (at most the largest
	 * RTO): when RACK resends the late units before they arrive, the RTT
	 * samples come from the early ones only and say nothing of it.
	 */
	wnd = max_t(u64, r->min_rtt / 4, MROCE_RTT_GRANULARITY_NS) * k->mult;
	if (r->samples)
		wnd = min_t(u64, wnd, max_t(u64, r->srtt, r->max_rtt));
	return max_t(u64, wnd, min_t(u64, k->extent, r->max_rto));
}

/**
 * mroce_rack_detect() - lose the units that RACK says are lost
 * @k: the RACK state
 * @sb: the scoreboard
 * @r: the RTT estimator
 * @una: first PSN in flight
 * @max: first PSN never sent
 * @now: current time
 * @deadline: set to the earliest time a unit not yet lost will be, or 0
 *
 * Units go out first in PSN order, so their first send times grow with
 * the PSN, and every send of a unit is at or after its first: the walk
 * from una stops at the first unit first sent after the latest-sent unit
 * delivered, as nothing from there on was sent before it.  With nothing
 * reordered or lost that is the unit at una: RACK runs on every ACK, and
 * walking the whole window (256 units and more) each time cost more than
 * the rest of the ACK's processing.
 *
 * Return: the units newly marked lost.
 */
u32 mroce_rack_detect(struct mroce_rack *k, struct mroce_sb *sb,
		      const struct mroce_rtt *r, u32 una, u32 max, u64 now,
		      u64 *deadline)
{
	u64 wait = mroce_rack_reo_wnd(k, r, sb->sacked) + k->rtt;
	u32 p = una, n = 0, i;

	*deadline = 0;
	if (!k->valid)
		return 0;
	for (i = 0; i < MROCE_SB_SLOTS && mroce_psn_before(p, max); i++) {
		const struct mroce_sb_ent *e = mroce_sb_at(sb, p);
		u32 end;
		u64 at;

		if (e->first > k->xmit)
			break;
		end = mroce_sb_unit_end(sb, p);
		at = e->sent + wait;
		if ((e->state == MROCE_SB_INFLIGHT ||
		     e->state == MROCE_SB_RESENT) && e->head == p &&
		    mroce_rack_sent_before(k, e->sent, end)) {
			if (now >= at) {
				n += mroce_sb_lose_unit(sb, p);
			} else if (!*deadline || at < *deadline) {
				*deadline = at;
			}
		}
		p = end;
	}
	return n;
}

/*
 * The receiver got a unit twice: a resend was spurious.  Widen, doubling:
 * a unit resent too early gives no measure of the reordering (its first
 * copy's arrival is taken for the resend's), so only this feedback can
 * open the window when RACK fires before the late units arrive.
 */
void mroce_rack_spurious(struct mroce_rack *k)
{
	k->reordered = true;
	k->mult = min_t(u32, 2 * k->mult, MROCE_RACK_MULT_MAX);
	BUILD_BUG_ON(MROCE_RACK_MULT_MAX > 0xffff);
	k->calm = 0;
}

/*
 * A unit's copy that a resend replaced arrived after all, @rtt after it
 * was sent (the receiver echoed its timestamp): it was that much later
 * than the fastest units, which is the reordering RACK must wait out.
 */
void mroce_rack_late(struct mroce_rack *k, const struct mroce_rtt *r, u64 rtt)
{
	k->reordered = true;
	if (r->samples && rtt > r->min_rtt && rtt - r->min_rtt > k->extent)
		k->extent = rtt - r->min_rtt;
}

/* A loss recovery ended; after enough calm ones, narrow again. */
void mroce_rack_recovered(struct mroce_rack *k)
{
	if (++k->calm >= MROCE_RACK_CALM) {
		k->calm = 0;
		k->mult = 1;
		k->extent /= 2;
	}
}
