// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Selective repeat for a MetaRoCE-mode requester window.
 *
 * The receiver's ACKs carry the cumulative point and a SACK bitmap
 * (Documentation/wire.rst, SACKH).  Units it reports arrived become SACKED
 * and are never resent; units are declared lost one by one, by:
 *
 *  - RACK (mroce_rack.h), on every ACK and when its reorder deadline
 *    passes: a unit sent before one that was delivered, one RTT plus the
 *    reorder window ago;
 *  - a tail-loss probe, when nothing was heard for the probe timeout (two
 *    smoothed RTTs): the last unit in flight is resent, so that its ACK
 *    shows RACK what else is missing;
 *  - the RTT-based timeout (mroce_rtt.h) after the probe: every unit in
 *    flight that is not SACKED, with exponential backoff (verdict RETRY,
 *    as a go-back-N timeout: a READ among them is asked again whole).
 *
 * None of these consumes the QP's retry count.  The IBTA Local ACK Timeout
 * (mroce_reqwin.c) keeps running beside them, restarted by every advance
 * of the cumulative point, and alone decides RETRY_EXC_ERR: a peer that is
 * gone still fails after retry_cnt + 1 of the timeouts the application
 * set, however fast the RTO resends.
 */
#include "mroce_core.h"
#include "mroce_hdr.h"
#include "mroce_psn.h"
#include "mroce_reqwin.h"

void mroce_sr_init(struct mroce_reqwin *w, const struct mroce_reqwin_cfg *cfg)
{
	w->selective = true;
	w->sr_psn = mroce_psn(cfg->psn);
	w->pipe = cfg->pipe;
	w->ack_delay = cfg->ack_delay;
	mroce_rtt_init(&w->rtt, &cfg->rtt);
	mroce_rack_init(&w->rack);
}

/*
 * The probe timeout: two SRTTs (RFC 8985), or, while the READ at una is
 * asked again for lost responses, two minimum RTTs after the last
 * delivery.  A READ's SRTT includes its wait behind the READs before it
 * at the responder, milliseconds with a window of 64 KiB READs; but every
 * response kept restarts this timer (mroce_reqwin_read_placed()), so when
 * it fires the responder has been silent that long, and a READ asked
 * again that a silent responder has not answered was lost.  A probe then
 * costs a small request and the hole's responses (the module asks for the
 * hole alone); waiting two SRTTs for it cost 5-10 ms per lost request at
 * 5% loss.
 */
static u64 mroce_sr_pto(const struct mroce_reqwin *w)
{
	const struct mroce_sb_ent *e = mroce_sb_at(&w->sb, w->una);
	bool one = mroce_reqwin_inflight(w) == 1;
	u64 pto = mroce_rtt_pto(&w->rtt, one, w->ack_delay);

	if (w->una != w->max && e->state == MROCE_SB_RESENT &&
	    (e->flags & MROCE_SB_F_ANSWER) && w->rtt.min_rtt)
		pto = min_t(u64, pto, max_t(u64, 2 * w->rtt.min_rtt,
					    MROCE_RTT_GRANULARITY_NS));
	return pto;
}

/* The probe or retransmission timeout from now, whichever is next. */
static void mroce_sr_arm(struct mroce_reqwin *w, u64 now)
{
	w->rec_armed = true;
	w->rec_at = now + (w->tlp_out ? mroce_rtt_rto(&w->rtt) :
			   mroce_sr_pto(w));
}

/* A request went out, new or again. */
void mroce_sr_out(struct mroce_reqwin *w, u64 now)
{
	/*
	 * The probe timeout restarts with every transmission (RFC 8985
	 * section 7.2); the RTO after a probe only starts if it is not
	 * running, or if it came due while resends were pending (it does not
	 * fire then, mroce_sr_next_event()).
	 */
	if (!w->tlp_out || !w->rec_armed || w->rec_at <= now)
		mroce_sr_arm(w, now);
}

/* The receiver acknowledged or SACKED something: restart the clock. */
void mroce_sr_progress(struct mroce_reqwin *w, u64 now)
{
	w->tlp_out = false;
	if (w->in_rec && !mroce_psn_before(w->una, w->recover)) {
		w->in_rec = false;
		mroce_rack_recovered(&w->rack);
	}
	if (w->una == w->max) {
		w->rec_armed = false;
		w->reo_at = 0;
		return;
	}
	mroce_sr_arm(w, now);
}

/* @n units were just lost: resend from the first. */
static void mroce_sr_lost(struct mroce_reqwin *w, u32 n,
			  struct mroce_reqwin_res *res)
{
	if (!n)
		return;
	if (!w->in_rec) {
		w->in_rec = true;
		w->recover = w->max;
	}
	res->verdict = MROCE_REQWIN_LOSS;
	mroce_sb_next_lost(&w->sb, w->una, w->max, &res->psn);
}

static void mroce_sr_rack(struct mroce_reqwin *w, u64 now,
			  struct mroce_reqwin_res *res)
{
	u32 n = mroce_rack_detect(&w->rack, &w->sb, &w->rtt, w->una, w->max,
				  now, &w->reo_at);

	w->st.rack_losses += n;
	mroce_sr_lost(w, n, res);
}

/*
 * The unit at @psn, sent at @prev, went out again at @now: remember both,
 * and whether it was the tail-loss probe, for mroce_sr_resent_at().
 */
void mroce_sr_resent(struct mroce_reqwin *w, u32 psn, u64 now, u64 prev)
{
	u32 i = w->rtx_hist_i++ % MROCE_SR_HIST;

	w->st.sack_retransmits++;
	w->rtx_hist[i] = now;
	w->rtx_prev[i] = prev;
	w->rtx_psn[i] = psn;
	w->rtx_probe[i] = w->probe_due && psn == w->probe_psn;
	if (w->rtx_probe[i])
		w->probe_due = false;
}

/* How a duplicate arrival relates to the resends (mroce_sr_resent_at()). */
enum mroce_sr_dup {
	MROCE_SR_DUP_NONE,	/* a copy the network made */
	MROCE_SR_DUP_RESEND,	/* a resend arrived after an earlier copy */
	MROCE_SR_DUP_LATE,	/* an earlier copy arrived after a resend */
	MROCE_SR_DUP_PROBE,	/* a tail-loss probe arrived after an
				 * earlier copy (only its ACK was late) */
};

/*
 * The copy that arrived twice was sent at @sent: was it a resend, or the
 * copy a resend replaced?  Either way the resend was spurious.  The last
 * MROCE_SR_HIST resends are remembered apart from the scoreboard: by the
 * time the duplicate is reported, the unit is usually acknowledged and its
 * slot used again.  Each resend is counted once.
 */
static enum mroce_sr_dup mroce_sr_resent_at(struct mroce_reqwin *w,
					    u64 sent, u32 *psn)
{
	u32 i;

	if (!sent)
		return MROCE_SR_DUP_NONE;
	for (i = 0; i < MROCE_SR_HIST; i++) {
		if (w->rtx_hist[i] == sent) {
			*psn = w->rtx_psn[i];
			w->rtx_hist[i] = 0;
			w->rtx_prev[i] = 0;
			return w->rtx_probe[i] ? MROCE_SR_DUP_PROBE :
						 MROCE_SR_DUP_RESEND;
		}
	}
	for (i = 0; i < MROCE_SR_HIST; i++) {
		if (w->rtx_prev[i] == sent && w->rtx_hist[i]) {
			*psn = w->rtx_psn[i];
			w->rtx_hist[i] = 0;
			w->rtx_prev[i] = 0;
			return MROCE_SR_DUP_LATE;
		}
	}
	return MROCE_SR_DUP_NONE;
}

/* Note a delivery for RACK, and for the RTT when it was sent once. */
static void mroce_sr_delivered(struct mroce_reqwin *w,
			       const struct mroce_sb_ent *e, u32 end, u64 now,
			       u64 *karn)
{
	mroce_rack_delivered(&w->rack, &w->rtt, e, end, now);
	if (!e->retx && e->sent > *karn)
		*karn = e->sent;
}

/* The units of the cumulative advance to @next were delivered. */
static void mroce_sr_cum(struct mroce_reqwin *w, u32 next, u64 now,
			 u64 *karn)
{
	u32 p = w->una, i;

	for (i = 0; i < MROCE_SB_SLOTS && mroce_psn_before(p, next); i++) {
		const struct mroce_sb_ent *e = mroce_sb_at(&w->sb, p);
		u32 end = mroce_sb_unit_end(&w->sb, p);

		if (mroce_psn_after(end, next))
			break;
		if (e->state != MROCE_SB_SACKED && e->head == p)
			mroce_sr_delivered(w, e, end, now, karn);
		p = end;
	}
}

/*
 * Mark what the bitmap reports; the number of units newly SACKED.  Bit 0
 * is the first PSN missing, by definition not arrived (wire.rst): a set
 * bit 0 is ignored.
 */
static u32 mroce_sr_map(struct mroce_reqwin *w, const struct mroce_sr_ack *a,
			u64 now, u64 *karn)
{
	u32 base = mroce_psn_add(a->psn, 1), n = 0, i;

	for (i = 1; i < a->words * 64u; i++) {
		u32 psn = mroce_psn_add(base, i);
		struct mroce_sb_ent e;

		if (!(a->map[i / 64] & (1ULL << (i % 64))))
			continue;
		if (!mroce_psn_in_window(psn, w->una, mroce_reqwin_inflight(w)))
			continue;
		e = *mroce_sb_at(&w->sb, psn);
		if (!mroce_sb_sack(&w->sb, w->una, w->max, psn))
			continue;
		mroce_sr_delivered(w, &e, mroce_psn_add(psn, 1), now, karn);
		n++;
	}
	return n;
}

/**
 * mroce_reqwin_on_sack() - process an ACK of a selective-repeat window
 * @w: the window
 * @a: the ACK: cumulative point, SACK bitmap, RTT sample, duplicate flag
 * @now: current time
 * @res: MROCE_REQWIN_LOSS (units to resend, the first at .psn), ACKED,
 *	 STALE, or what mroce_reqwin_on_aeth() says of a NAK; .spurious
 *	 when the ACK reports a resend of the unit at .spurious_psn spurious
 *
 * The RTT sample is the ACK's timestamp echo (@a->rtt); without one, the
 * newest unit it reports delivered that was sent once gives it (Karn).
 *
 * An ACK whose cumulative point does not move may still report arrivals
 * past it; its BTH PSN is then una - 1.  NAKs and RNR NAKs keep their
 * IBTA handling (mroce_reqwin_on_aeth()), as does every ACK of a window
 * that is not selective.
 *
 * Return: 0, -EPROTO for a reserved syndrome, -EINVAL for a bitmap longer
 * than MROCE_SR_ACK_WORDS words.
 */
int mroce_reqwin_on_sack(struct mroce_reqwin *w, const struct mroce_sr_ack *a,
			 u64 now, struct mroce_reqwin_res *res)
{
	enum mroce_aeth_kind kind = mroce_aeth_kind(a->syndrome);
	u32 next = mroce_psn_add(a->psn, 1), sacked;
	enum mroce_sr_dup dup;
	bool spurious = false, widen = true;
	u64 karn = 0;
	u32 dup_psn = 0;

	if (a->words > MROCE_SR_ACK_WORDS || (a->words && !a->map))
		return -EINVAL;
	if (a->rtt && w->selective)
		mroce_rtt_sample(&w->rtt, a->rtt);
	if (!w->selective || kind != MROCE_AETH_ACK)
		return mroce_reqwin_on_aeth(w, a->psn, a->syndrome, now, res);

	memset(res, 0, sizeof(*res));
	res->verdict = MROCE_REQWIN_STALE;
	res->psn = mroce_psn(a->psn);
	/* next must be in [una, max] */
	if (!mroce_psn_in_window(next, w->una, mroce_reqwin_inflight(w) + 1))
		return 0;
	/*
	 * A duplicate tells of a spurious resend only if the copy that
	 * triggered the ACK was one; its echoed send time says which (a copy
	 * the network made is none).  Without an echo: if resends are out.
	 */
	if (a->dup && !a->rtt) {
		spurious = w->in_rec;
	} else if (a->dup) {
		dup = mroce_sr_resent_at(w, now - a->rtt, &dup_psn);
		spurious = dup != MROCE_SR_DUP_NONE;
		/* which unit: its path's loss was not one (mroce_path.c) */
		res->spurious = spurious;
		res->spurious_psn = dup_psn;
		/*
		 * A probe that was not needed says the ACK was slow, not
		 * that the path reorders (RFC 8985 section 7.4).
		 */
		widen = dup != MROCE_SR_DUP_PROBE;
		/* the late copy's RTT measures the reordering */
		if (dup == MROCE_SR_DUP_LATE)
			mroce_rack_late(&w->rack, &w->rtt, a->rtt);
	}
	mroce_sr_cum(w, next, now, &karn);
	res->acked = mroce_reqwin_advance(w, next, now);
	sacked = mroce_sr_map(w, a, now, &karn);
	if (!a->rtt && karn && now > karn)
		mroce_rtt_sample(&w->rtt, now - karn);
	w->st.sacked += sacked;
	if (spurious) {
		w->st.spurious++;
		if (widen)
			mroce_rack_spurious(&w->rack);
	}
	if (sacked && !res->acked)
		mroce_sr_progress(w, now);
	if (res->acked || sacked)
		res->verdict = MROCE_REQWIN_ACKED;
	mroce_sr_rack(w, now, res);
	return 0;
}

/* A READ hole's reorder window. */
static u64 mroce_sr_read_wait(const struct mroce_reqwin *w)
{
	u64 wait = max_t(u64, MROCE_RTT_GRANULARITY_NS,
			 mroce_rack_reo_wnd(&w->rack, &w->rtt, w->sb.sacked));

	if (w->rtt.srtt)
		wait = min_t(u64, wait, w->rtt.srtt);
	return wait;
}

/**
 * mroce_sr_read_hole() - a READ response came past the one expected
 * @w: the window (selective)
 * @expect: the response PSN the READ waits for
 * @now: current time
 * @answered: it answers the READ asked again from @expect
 *	(mroce_sr_read_answered()): the hole's window has no floor
 * @res: MROCE_REQWIN_READ_AHEAD, with the hole's deadline in .at
 *
 * READ responses reorder like requests: the ones between may only be late.
 * The caller keeps the response; the hole at @expect counts as lost (the
 * READ is asked again from it) only if it is still open after a reorder
 * window: RACK's, at least twice the RTT variation and a quarter of the
 * minimum RTT, at most SRTT; or, while no reordering was seen, once
 * MROCE_RACK_DUPTHRESH responses came past the hole (RACK's duplicate
 * threshold, RFC 8985 section 6.2 step 4, as a selective window does with
 * SACKED units: mroce_rack_reo_wnd()).  A READ asked again also waits,
 * RACK's rule, until one SRTT and that window have passed since it was: a
 * READ just asked again from the hole cannot have answered.  A READ sent
 * once does not: the responder answers in PSN order, so the response past
 * the hole says the one at the hole was sent before it.  (A READ's RTT
 * includes its wait behind the READs before it at the responder: with
 * 64 KiB READs filling the window, its minimum and SRTT are milliseconds,
 * and each hole waited that long with the window full and the responder
 * idle.)
 */
static void mroce_sr_read_hole(struct mroce_reqwin *w, u32 expect, u64 now,
			       bool answered, struct mroce_reqwin_res *res)
{
	const struct mroce_sb_ent *e;
	u64 wait;

	/* the window is worked out only when it is set: once per hole */
	if (!w->rd_hole || w->rd_hole_psn != expect) {
		wait = mroce_sr_read_wait(w);
		e = mroce_sb_at(&w->sb, expect);
		w->rd_hole_min = e->retx && !answered ?
				 e->sent + w->rtt.srtt + wait : 0;
		w->rd_hole = true;
		w->rd_hole_psn = expect;
		w->rd_hole_since = now;
		w->rd_hole_past = 0;
		w->rd_hole_at = max_t(u64, now + wait, w->rd_hole_min);
	} else if (answered && w->rd_hole_min) {
		w->rd_hole_min = 0;
		w->rd_hole_at = min_t(u64, w->rd_hole_at,
				      now + mroce_sr_read_wait(w));
	}
	if (w->rd_hole_past < MROCE_RACK_DUPTHRESH &&
	    ++w->rd_hole_past == MROCE_RACK_DUPTHRESH && !w->rack.reordered)
		w->rd_hole_at = min_t(u64, w->rd_hole_at,
				      max_t(u64, now, w->rd_hole_min));
	res->verdict = MROCE_REQWIN_READ_AHEAD;
	res->at = w->rd_hole_at;
}

void mroce_sr_read_ahead(struct mroce_reqwin *w, u32 expect, u64 now,
			 struct mroce_reqwin_res *res)
{
	mroce_sr_read_hole(w, expect, now, false, res);
}

/*
 * The answer to the READ asked again from @expect came past it
 * (mroce_reqwin_on_read_reasked()): the hole's window, with no floor.
 */
void mroce_sr_read_answered(struct mroce_reqwin *w, u32 expect, u64 now,
			    struct mroce_reqwin_res *res)
{
	mroce_sr_read_hole(w, expect, now, true, res);
}

/*
 * The READ response at @psn came: if it filled the hole in time, it was
 * late by as much as the responses after it came earlier, which is
 * reordering measured.
 */
void mroce_sr_read_filled(struct mroce_reqwin *w, u32 psn, u64 now)
{
	if (!w->rd_hole || psn != w->rd_hole_psn)
		return;
	w->rd_hole = false;
	/*
	 * A READ asked again may have brought it (another READ's hole asked
	 * for with this one, mroce_reqwin_read_gap_lost()): no measure.
	 */
	if (mroce_sb_at(&w->sb, psn)->retx)
		return;
	w->rack.reordered = true;
	if (now - w->rd_hole_since > w->rack.extent)
		w->rack.extent = now - w->rd_hole_since;
}

/*
 * The READ hole's window passed: ask that READ again from the hole, and
 * only it: the caller keeps the responses that came past the hole, of
 * this READ and of later ones, and feeds them to the window in PSN order
 * once the hole is filled, so nothing after it needs asking again.  Like
 * a RACK loss, and unlike IBTA's NAK sequence error, this spends no
 * retry_cnt and leaves the Local ACK Timeout running as it was: a
 * response after the hole came, so the peer is there, and only the
 * timeout may end the connection (wire.rst, "Selective repeat").
 */
static void mroce_sr_read_lost(struct mroce_reqwin *w, u64 now,
			       struct mroce_reqwin_res *res)
{
	u32 hole = w->rd_hole_psn;

	w->rd_hole = false;
	if (!mroce_psn_in_window(hole, w->una, mroce_reqwin_inflight(w)))
		return;
	w->st.read_holes++;
	res->acked = mroce_reqwin_advance(w, hole, now);
	if (!mroce_sb_lose_answer(&w->sb, hole))
		return;
	res->psn = hole;
	res->verdict = MROCE_REQWIN_RETRY;
}

/* The last unit in flight that the receiver has not reported. */
static bool mroce_sr_last(struct mroce_reqwin *w, u32 *head)
{
	u32 p = w->una, i;
	bool found = false;

	for (i = 0; i < MROCE_SB_SLOTS && mroce_psn_before(p, w->max); i++) {
		const struct mroce_sb_ent *e = mroce_sb_at(&w->sb, p);

		if (e->head == p && (e->state == MROCE_SB_INFLIGHT ||
				     e->state == MROCE_SB_RESENT)) {
			*head = p;
			found = true;
		}
		p = mroce_sb_unit_end(&w->sb, p);
	}
	return found;
}

/*
 * The timers of selective repeat, once the Local ACK Timeout is not due
 * (mroce_reqwin_on_timer()).
 */
void mroce_sr_on_timer(struct mroce_reqwin *w, u64 now,
		       struct mroce_reqwin_res *res)
{
	u32 head;

	if (w->rd_hole && now >= w->rd_hole_at) {
		mroce_sr_read_lost(w, now, res);
		if (res->verdict != MROCE_REQWIN_NONE)
			return;
	}
	if (w->reo_at && now >= w->reo_at)
		mroce_sr_rack(w, now, res);
	if (res->verdict == MROCE_REQWIN_LOSS)
		return;
	if (w->rec_armed && now >= w->rec_at && !w->sb.lost) {
		if (!w->tlp_out && mroce_sr_last(w, &head)) {
			w->tlp_out = true;
			w->st.tlp_probes++;
			w->probe_due = true;
			w->probe_psn = head;
			mroce_sr_lost(w, mroce_sb_lose_unit(&w->sb, head),
				      res);
		} else {
			w->st.rto_fires++;
			mroce_rtt_backoff(&w->rtt);
			mroce_sr_lost(w, mroce_reqwin_lose_all(w), res);
			/* go back N, over what is not SACKED */
			if (res->verdict == MROCE_REQWIN_LOSS) {
				res->verdict = MROCE_REQWIN_RETRY;
				return;
			}
		}
		/* The resend rearms it (mroce_sr_out()). */
		w->rec_armed = false;
		if (res->verdict == MROCE_REQWIN_LOSS)
			return;
		mroce_sr_arm(w, now);
	}
	if (mroce_sr_next_event(w, &res->at))
		res->verdict = MROCE_REQWIN_NOT_DUE;
}

/* The earliest of the Local ACK Timeout, the TLP/RTO and RACK deadlines. */
bool mroce_sr_next_event(const struct mroce_reqwin *w, u64 *at)
{
	bool any = false;
	u64 t = 0;

	if (w->timer_armed) {
		t = w->timer_at;
		any = true;
	}
	if (w->rec_armed && !w->sb.lost && (!any || w->rec_at < t)) {
		t = w->rec_at;
		any = true;
	}
	if (w->reo_at && (!any || w->reo_at < t)) {
		t = w->reo_at;
		any = true;
	}
	if (w->rd_hole && (!any || w->rd_hole_at < t)) {
		t = w->rd_hole_at;
		any = true;
	}
	if (any)
		*at = t;
	return any;
}
