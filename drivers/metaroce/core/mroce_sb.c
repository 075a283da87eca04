// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Sender scoreboard: per-PSN records of the units a requester has in
 * flight (see mroce_sb.h).
 */
#include "mroce_core.h"
#include "mroce_psn.h"
#include "mroce_sb.h"

static struct mroce_sb_ent *mroce_sb_slot(struct mroce_sb *sb, u32 psn)
{
	return &sb->ent[psn & (MROCE_SB_SLOTS - 1)];
}

/*
 * First PSN after the unit holding @psn.  A record that does not cover
 * @psn (a caller that broke the window's rules) ends the unit at @psn + 1,
 * so that every walk over the slots terminates.
 */
static u32 mroce_sb_end(const struct mroce_sb_ent *e, u32 psn)
{
	u32 end = mroce_psn_add(e->head, e->npsn);

	return mroce_psn_in_window(psn, e->head, e->npsn) ? end :
	       mroce_psn_add(psn, 1);
}

/*
 * Is the unit ending at @end lost?  A unit is lost from some PSN to its
 * end (its slots before that PSN may already be reused), so its last slot
 * tells.
 */
static bool mroce_sb_unit_lost(struct mroce_sb *sb, u32 end)
{
	return mroce_sb_slot(sb, mroce_psn_sub(end, 1))->state ==
	       MROCE_SB_LOST;
}

/*
 * Every change of a slot's state goes through here, which keeps @sacked
 * the number of slots in state SACKED, whatever record a slot held before.
 */
static void mroce_sb_state(struct mroce_sb *sb, struct mroce_sb_ent *e,
			   u8 state)
{
	sb->sacked += (state == MROCE_SB_SACKED) -
		      (e->state == MROCE_SB_SACKED);
	e->state = state;
}

/* Write @u into the slots of its unit (all of them when it is wider). */
static void mroce_sb_write(struct mroce_sb *sb, const struct mroce_sb_ent *u)
{
	u32 i, n = min_t(u32, u->npsn, MROCE_SB_SLOTS);

	for (i = 0; i < n; i++) {
		struct mroce_sb_ent *e = mroce_sb_slot(sb,
						       mroce_psn_add(u->head, i));

		mroce_sb_state(sb, e, u->state);
		*e = *u;
	}
}

/*
 * Set the state of the slots of PSNs [@from, @to), and add @flags; a loss
 * first forgets how the unit was lost before (MROCE_SB_F_BULK).
 */
static void mroce_sb_set(struct mroce_sb *sb, u32 from, u32 to, u8 state,
			 u8 flags)
{
	u32 i, n = min_t(u32, mroce_psn_dist(from, to), MROCE_SB_SLOTS);
	struct mroce_sb_ent *e;

	for (i = 0; i < n; i++) {
		e = mroce_sb_slot(sb, mroce_psn_add(from, i));
		mroce_sb_state(sb, e, state);
		if (state == MROCE_SB_LOST)
			e->flags &= ~MROCE_SB_F_BULK;
		e->flags |= flags;
	}
}

void mroce_sb_init(struct mroce_sb *sb)
{
	memset(sb, 0, sizeof(*sb));
}

/* The record of @psn's slot; the caller knows @psn is in flight. */
const struct mroce_sb_ent *mroce_sb_at(const struct mroce_sb *sb, u32 psn)
{
	return &sb->ent[psn & (MROCE_SB_SLOTS - 1)];
}

/**
 * mroce_sb_sent() - a new unit went out
 * @sb: the scoreboard
 * @psn: its first PSN (the window's max before it was sent)
 * @npsn: PSNs it takes, at least 1
 * @wqe: the caller's index of its WQE
 * @now: current time
 */
void mroce_sb_sent(struct mroce_sb *sb, u32 psn, u32 npsn, u32 wqe, u64 now)
{
	struct mroce_sb_ent u = {
		.sent = now, .first = now, .wqe = wqe, .head = psn,
		.npsn = npsn,
		.state = MROCE_SB_INFLIGHT,
	};

	mroce_sb_write(sb, &u);
}

/**
 * mroce_sb_resent() - a lost unit went out again
 * @sb: the scoreboard
 * @una: first PSN in flight
 * @max: first PSN never sent
 * @psn: where it starts now: the PSN mroce_sb_next_lost() gave, which is
 *	past the unit's head when the start of a READ's responses arrived
 * @npsn: PSNs from @psn to the end of the unit
 * @now: current time
 *
 * From then on [@psn, @psn + @npsn) is a unit of its own.
 *
 * Return: 0, or -EINVAL when @psn is not a lost PSN in flight or @npsn
 * does not reach exactly the end of its unit.
 */
int mroce_sb_resent(struct mroce_sb *sb, u32 una, u32 max, u32 psn,
		    u32 npsn, u64 now)
{
	const struct mroce_sb_ent *e = mroce_sb_slot(sb, psn);
	struct mroce_sb_ent u;

	if (!mroce_psn_in_window(psn, una, mroce_psn_dist(una, max)) ||
	    e->state != MROCE_SB_LOST || !npsn ||
	    mroce_psn_add(psn, npsn) != mroce_sb_end(e, psn))
		return -EINVAL;
	u = *e;
	u.sent = now;
	u.head = psn;
	u.npsn = npsn;
	u.state = MROCE_SB_RESENT;
	if (u.retx != 0xff)
		u.retx++;
	mroce_sb_write(sb, &u);
	sb->lost--;
	sb->rtx = mroce_psn_add(psn, npsn);
	return 0;
}

/**
 * mroce_sb_lose() - every unit from @psn to @max is lost (go back N)
 * @sb: the scoreboard
 * @psn: first PSN to resend; the unit holding it is resent from there
 * @max: first PSN never sent
 *
 * Return: the units newly marked lost.
 */
u32 mroce_sb_lose(struct mroce_sb *sb, u32 psn, u32 max)
{
	u32 n = 0, p = psn, i;

	if (!sb->lost || mroce_psn_before(psn, sb->rtx))
		sb->rtx = psn;
	for (i = 0; i < MROCE_SB_SLOTS && mroce_psn_before(p, max); i++) {
		struct mroce_sb_ent *e = mroce_sb_slot(sb, p);
		u32 end = mroce_sb_end(e, p);

		if (mroce_psn_after(end, max))
			end = max;
		/* The receiver has it: nothing to resend. */
		if (e->state == MROCE_SB_SACKED) {
			p = end;
			continue;
		}
		if (!mroce_sb_unit_lost(sb, end))
			n++;
		mroce_sb_set(sb, p, end, MROCE_SB_LOST, MROCE_SB_F_BULK);
		p = end;
	}
	sb->lost += n;
	return n;
}

/**
 * mroce_sb_acked() - PSNs [@una, @new_una) are acknowledged
 * @sb: the scoreboard
 * @una: the old first PSN in flight
 * @new_una: the new one
 *
 * A lost unit acknowledged whole needs no resend.  Only lost units and
 * SACKED slots are looked at: nothing else counts.  SACKED slots are
 * cleared one by one, not by unit: after a READ was resent from its
 * middle, an older record may still span the PSNs of the newer unit.
 */
void mroce_sb_acked(struct mroce_sb *sb, u32 una, u32 new_una)
{
	u32 p = una, i;

	for (i = 0; i < MROCE_SB_SLOTS && sb->lost &&
	     mroce_psn_before(p, new_una); i++) {
		struct mroce_sb_ent *e = mroce_sb_slot(sb, p);
		u32 end = mroce_sb_end(e, p);

		if (mroce_psn_after(end, new_una))
			break;
		if (mroce_sb_unit_lost(sb, end)) {
			mroce_sb_set(sb, p, end, MROCE_SB_ACKED, 0);
			sb->lost--;
		}
		p = end;
	}
	p = una;
	for (i = 0; i < MROCE_SB_SLOTS && sb->sacked &&
	     mroce_psn_before(p, new_una); i++, p = mroce_psn_add(p, 1)) {
		struct mroce_sb_ent *e = mroce_sb_slot(sb, p);

		if (e->state == MROCE_SB_SACKED)
			mroce_sb_state(sb, e, MROCE_SB_ACKED);
	}
}

/* First PSN after the unit holding @psn, which the caller knows is in
 * flight. */
u32 mroce_sb_unit_end(const struct mroce_sb *sb, u32 psn)
{
	return mroce_sb_end(mroce_sb_at(sb, psn), psn);
}

/**
 * mroce_sb_sack() - the receiver reported @psn as arrived (SACK)
 * @sb: the scoreboard
 * @una: first PSN in flight
 * @max: first PSN never sent
 * @psn: the PSN
 *
 * A unit is SACKED once the last of its PSNs is reported (a READ request
 * only when its last response PSN is); a lost unit SACKED needs no resend.
 *
 * Return: true when this made a unit SACKED.
 */
bool mroce_sb_sack(struct mroce_sb *sb, u32 una, u32 max, u32 psn)
{
	struct mroce_sb_ent *e = mroce_sb_slot(sb, psn);
	u32 end;

	if (!mroce_psn_in_window(psn, una, mroce_psn_dist(una, max)))
		return false;
	end = mroce_sb_end(e, psn);
	if (end != mroce_psn_add(psn, 1) || mroce_psn_after(end, max) ||
	    !mroce_psn_in_window(e->head, una, mroce_psn_dist(una, max)))
		return false;
	switch (e->state) {
	case MROCE_SB_LOST:
		sb->lost--;
		break;
	case MROCE_SB_INFLIGHT:
	case MROCE_SB_RESENT:
		break;
	default:
		return false;
	}
	mroce_sb_set(sb, e->head, end, MROCE_SB_SACKED, 0);
	return true;
}

/**
 * mroce_sb_lose_unit() - the unit starting at @psn is lost (selective)
 * @sb: the scoreboard
 * @psn: the unit's head PSN, in flight
 *
 * Return: true when the unit was in flight (sent or resent) and is now
 * lost; false when it is lost, SACKED or acknowledged already.
 */
bool mroce_sb_lose_unit(struct mroce_sb *sb, u32 psn)
{
	struct mroce_sb_ent *e = mroce_sb_slot(sb, psn);

	if (e->head != psn || (e->state != MROCE_SB_INFLIGHT &&
			       e->state != MROCE_SB_RESENT))
		return false;
	if (!sb->lost || mroce_psn_before(psn, sb->rtx))
		sb->rtx = psn;
	mroce_sb_set(sb, psn, mroce_sb_end(e, psn), MROCE_SB_LOST, 0);
	sb->lost++;
	return true;
}

/**
 * mroce_sb_holes() - lost units in [@from, @to) were holes
 * @sb: the scoreboard
 * @from: the first PSN
 * @to: the first PSN after them
 *
 * Something sent after them was delivered: those lost in bulk went
 * missing by themselves after all (MROCE_SB_F_BULK is cleared).
 */
void mroce_sb_holes(struct mroce_sb *sb, u32 from, u32 to)
{
	u32 p = from, i;

	for (i = 0; i < MROCE_SB_SLOTS && mroce_psn_before(p, to); i++) {
		struct mroce_sb_ent *e = mroce_sb_slot(sb, p);

		if (e->state == MROCE_SB_LOST)
			e->flags &= ~MROCE_SB_F_BULK;
		p = mroce_psn_add(p, 1);
	}
}

/**
 * mroce_sb_reported() - the receiver has PSNs [@from, @to) after all
 * @sb: the scoreboard
 * @from: the first
 * @to: the first after them
 *
 * The units in them are SACKED again, unless lost: an ACK passed a READ
 * whose responses did not all come (mroce_reqwin_reopen()), and the
 * requests it acknowledged are what the receiver reported.
 */
void mroce_sb_reported(struct mroce_sb *sb, u32 from, u32 to)
{
	u32 p = from, i;

	for (i = 0; i < MROCE_SB_SLOTS && mroce_psn_before(p, to); i++) {
		u32 end = mroce_sb_end(mroce_sb_slot(sb, p), p);

		/* a unit past @to is in flight; a lost one stays lost */
		if (mroce_psn_after(end, to))
			break;
		if (!mroce_sb_unit_lost(sb, end))
			mroce_sb_set(sb, p, end, MROCE_SB_SACKED, 0);
		p = end;
	}
}

/**
 * mroce_sb_lose_answer() - the answer to the unit holding @psn is lost
 * @sb: the scoreboard
 * @psn: a PSN in flight: the unit is lost from there to its end
 *
 * A READ request that the receiver reported (SACKED: it arrived, and was
 * held) may still have lost responses: unlike mroce_sb_lose_unit() and
 * mroce_sb_lose(), this loses a SACKED unit too.
 *
 * A unit already lost from a later PSN on (its tail) is lost from @psn
 * now, and still counts once in @lost.
 *
 * Return: true when the unit is now lost from @psn and was not; false also
 * when @psn's slot holds no unit that takes @psn (a unit wider than the
 * ring alone in flight is on it).
 */
bool mroce_sb_lose_answer(struct mroce_sb *sb, u32 psn)
{
	struct mroce_sb_ent *e = mroce_sb_slot(sb, psn);
	bool was_lost;
	u32 end;

	if (!mroce_psn_in_window(psn, e->head, e->npsn) ||
	    (e->state != MROCE_SB_INFLIGHT && e->state != MROCE_SB_RESENT &&
	     e->state != MROCE_SB_SACKED))
		return false;
	end = mroce_sb_end(e, psn);
	/* lost already from a later PSN on: lost from @psn now, counted once */
	was_lost = mroce_sb_unit_lost(sb, end);
	if (!sb->lost || mroce_psn_before(psn, sb->rtx))
		sb->rtx = psn;
	mroce_sb_set(sb, psn, end, MROCE_SB_LOST, MROCE_SB_F_ANSWER);
	if (!was_lost)
		sb->lost++;
	return true;
}

/**
 * mroce_sb_next_lost() - the first lost PSN to resend
 * @sb: the scoreboard
 * @una: first PSN in flight
 * @max: first PSN never sent
 * @psn: where the resend starts: a unit's head, or @una inside a lost
 *	READ whose first responses arrived since
 *
 * Return: false when nothing is lost.
 */
bool mroce_sb_next_lost(struct mroce_sb *sb, u32 una, u32 max, u32 *psn)
{
	u32 inflight = mroce_psn_dist(una, max), p = una, i;

	if (!sb->lost)
		return false;
	if (mroce_psn_in_window(sb->rtx, una, inflight))
		p = sb->rtx;
	for (i = 0; i < MROCE_SB_SLOTS && mroce_psn_before(p, max); i++) {
		u32 end = mroce_sb_end(mroce_sb_slot(sb, p), p);

		if (mroce_sb_unit_lost(sb, end)) {
			/* Where in the unit the loss starts. */
			while (mroce_sb_slot(sb, p)->state != MROCE_SB_LOST)
				p = mroce_psn_add(p, 1);
			sb->rtx = p;
			*psn = p;
			return true;
		}
		p = end;
	}
	/* Whatever was lost is no longer in flight. */
	sb->lost = 0;
	return false;
}
