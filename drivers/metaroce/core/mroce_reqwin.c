// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Requester send window: PSNs in flight, acknowledgements, timers, and
 * go-back-N over the sender scoreboard, as IBTA 9.7 requires of RoCEv2 RC.
 */
#include "mroce_core.h"
#include "mroce_reqwin.h"
#include "mroce_hdr.h"
#include "mroce_psn.h"
#include "mroce_timer.h"

static const char * const mroce_reqwin_verdict_names[] = {
	[MROCE_REQWIN_NONE]		= "none",
	[MROCE_REQWIN_NOT_DUE]		= "not-due",
	[MROCE_REQWIN_STALE]		= "stale",
	[MROCE_REQWIN_ACKED]		= "acked",
	[MROCE_REQWIN_RETRY]		= "retry",
	[MROCE_REQWIN_RNR_WAIT]		= "rnr-wait",
	[MROCE_REQWIN_NAK_FATAL]	= "nak-fatal",
	[MROCE_REQWIN_RETRY_EXCEEDED]	= "retry-exceeded",
	[MROCE_REQWIN_RNR_EXCEEDED]	= "rnr-exceeded",
	[MROCE_REQWIN_LOSS]		= "loss",
	[MROCE_REQWIN_READ_AHEAD]	= "read-ahead",
};

const char *mroce_reqwin_verdict_name(enum mroce_reqwin_verdict v)
{
	BUILD_BUG_ON(ARRAY_SIZE(mroce_reqwin_verdict_names) !=
		     MROCE_NUM_REQWIN_VERDICTS);
	return mroce_enum_name(mroce_reqwin_verdict_names, MROCE_NUM_REQWIN_VERDICTS, v);
}

void mroce_reqwin_init(struct mroce_reqwin *w,
		       const struct mroce_reqwin_cfg *cfg)
{
	memset(w, 0, sizeof(*w));
	w->una = mroce_psn(cfg->psn);
	w->max = w->una;
	/*
	 * The scoreboard has a slot per PSN of the window.  (A READ wider
	 * than the window goes alone; PSN order is only defined within half
	 * the PSN space, IBTA 9.7.4.1.2, which bounds it.)
	 */
	w->wnd = cfg->wnd;
	if (!w->wnd || w->wnd > MROCE_SB_SLOTS)
		w->wnd = MROCE_SB_SLOTS;
	w->retry_cnt = min_t(u8, cfg->retry_cnt, MROCE_RETRY_CNT_MAX);
	w->retry_left = w->retry_cnt;
	w->rnr_retry = min_t(u8, cfg->rnr_retry, MROCE_RNR_RETRY_INFINITE);
	w->rnr_left = w->rnr_retry;
	w->rto = mroce_ack_timeout_ns(cfg->timeout);
	if (cfg->selective)
		mroce_sr_init(w, cfg);
}

u32 mroce_reqwin_inflight(const struct mroce_reqwin *w)
{
	return mroce_psn_dist(w->una, w->max);
}

/* PSNs in flight the receiver has not reported (not SACKED). */
u32 mroce_reqwin_unreported(const struct mroce_reqwin *w)
{
	u32 inflight = mroce_reqwin_inflight(w);

	return inflight - min_t(u32, w->sb.sacked, inflight);
}

/*
 * May a new request of @npsn PSNs go out now?  Not before the lost ones
 * are resent, nor during an RNR wait; it must fit in the window, except
 * that a request wider than the whole window may go alone (a large READ
 * reserves one PSN per response packet, IBTA 9.7.4.1.4).  A selective
 * window with a pipe counts against it only the PSNs the receiver has not
 * reported (SACKED ones arrived: they no longer queue on the path), so
 * that while a hole is repaired, a round trip behind what is queued, new
 * requests keep going out as far as the receiver can hold (wnd).  A
 * congestion window (cwnd, set by the transport from its controller)
 * bounds the same count.
 */
bool mroce_reqwin_can_send(const struct mroce_reqwin *w, u32 npsn, u64 now)
{
	u32 inflight = mroce_reqwin_inflight(w), unreported;

	if (w->rnr_wait && now < w->rnr_until)
		return false;
	if (w->sb.lost)
		return false;
	if (npsn >= MROCE_PSN_HALF - inflight)
		return false;
	if (!inflight)
		return true;
	if (inflight + npsn > w->wnd)
		return false;
	unreported = mroce_reqwin_unreported(w);
	if (w->cwnd && unreported + npsn > w->cwnd)
		return false;
	return !w->pipe || unreported + npsn <= w->pipe;
}

static void mroce_reqwin_arm(struct mroce_reqwin *w, u64 now)
{
	w->timer_armed = w->rto != 0;
	w->timer_at = now + w->rto;
}

/* A request went out (first time or again). */
static void mroce_reqwin_out(struct mroce_reqwin *w, u64 now)
{
	w->rnr_wait = false;
	/* IBTA 9.7.6.1.3: the timer runs while a request awaits its ACK. */
	if (!w->timer_armed)
		mroce_reqwin_arm(w, now);
	if (w->selective)
		mroce_sr_out(w, now);
}

/**
 * mroce_reqwin_sent() - account for a new request packet put on the wire
 * @w: the window
 * @npsn: PSNs it takes: 1, or the response packets of a READ request
 * @now: current time
 * @wqe: the caller's index of its WQE, for mroce_reqwin_find()
 * @psn: its first PSN
 *
 * Return: 0; -EINVAL if @npsn is 0; -EAGAIN when mroce_reqwin_can_send()
 * says no.
 */
int mroce_reqwin_sent(struct mroce_reqwin *w, u32 npsn, u64 now, u32 wqe,
		      u32 *psn)
{
	if (!npsn)
		return -EINVAL;
	if (!mroce_reqwin_can_send(w, npsn, now))
		return -EAGAIN;
	*psn = w->max;
	mroce_sb_sent(&w->sb, w->max, npsn, wqe, now);
	w->max = mroce_psn_add(w->max, npsn);
	mroce_reqwin_out(w, now);
	return 0;
}

/**
 * mroce_reqwin_resend() - what to send again now, if anything
 * @w: the window
 * @now: current time
 * @psn: the first PSN to send again (see mroce_sb_next_lost())
 * @wqe: the WQE it belongs to
 *
 * Return: false when nothing is lost or an RNR wait runs.
 */
bool mroce_reqwin_resend(struct mroce_reqwin *w, u64 now, u32 *psn, u32 *wqe)
{
	if (w->rnr_wait && now < w->rnr_until)
		return false;
	if (!mroce_sb_next_lost(&w->sb, w->una, w->max, psn))
		return false;
	*wqe = mroce_sb_at(&w->sb, *psn)->wqe;
	return true;
}

/**
 * mroce_reqwin_resent() - the request mroce_reqwin_resend() named went out
 * @w: the window
 * @psn: its first PSN
 * @npsn: PSNs it takes (a READ resent from inside asks for the rest)
 * @now: current time
 *
 * Return: 0, or -EINVAL (see mroce_sb_resent()).
 */
int mroce_reqwin_resent(struct mroce_reqwin *w, u32 psn, u32 npsn, u64 now)
{
	u64 prev = mroce_sb_at(&w->sb, psn)->sent;
	int err = mroce_sb_resent(&w->sb, w->una, w->max, psn, npsn, now);

	if (err)
		return err;
	if (w->selective)
		mroce_sr_resent(w, psn, now, prev);
	mroce_reqwin_out(w, now);
	return 0;
}

/* The WQE of a PSN in flight, in O(1).  False when @psn is not in flight. */
bool mroce_reqwin_find(const struct mroce_reqwin *w, u32 psn, u32 *wqe)
{
	if (!mroce_psn_in_window(psn, w->una, mroce_reqwin_inflight(w)))
		return false;
	*wqe = mroce_sb_at(&w->sb, psn)->wqe;
	return true;
}

/* Is the unit that carries @psn, a PSN in flight, lost (to be resent)? */
bool mroce_reqwin_is_lost(const struct mroce_reqwin *w, u32 psn)
{
	return mroce_sb_at(&w->sb, psn)->state == MROCE_SB_LOST;
}

/*
 * Is the next resend of the unit at @psn (its first PSN) the tail-loss
 * probe?  A READ probes with its last response only (mroce_req.c).
 */
bool mroce_reqwin_is_probe(const struct mroce_reqwin *w, u32 psn)
{
	return w->selective && w->probe_due && w->probe_psn == psn;
}

/*
 * The unit at @psn went missing with all after it (go back N), not alone:
 * MROCE_SB_F_BULK; still true once it is resent.
 */
bool mroce_reqwin_lost_in_bulk(const struct mroce_reqwin *w, u32 psn)
{
	return mroce_sb_at(&w->sb, psn)->flags & MROCE_SB_F_BULK;
}

/* Units waiting to be resent. */
u32 mroce_reqwin_lost(const struct mroce_reqwin *w)
{
	return w->sb.lost;
}

/* The next PSN the requester will send: a lost one, else a new one. */
u32 mroce_reqwin_next_psn(const struct mroce_reqwin *w)
{
	if (w->sb.lost &&
	    mroce_psn_in_window(w->sb.rtx, w->una, mroce_reqwin_inflight(w)))
		return w->sb.rtx;
	return w->sb.lost ? w->una : w->max;
}

/* Everything before @psn is acknowledged. */
u32 mroce_reqwin_advance(struct mroce_reqwin *w, u32 psn, u64 now)
{
	u32 acked = mroce_psn_dist(w->una, psn);

	if (!acked)
		return 0;
	mroce_sb_acked(&w->sb, w->una, psn);
	w->una = psn;
	/*
	 * An RNR wait holds back resends; with nothing left to resend it is
	 * over (its deadline would otherwise stay due with nothing to do).
	 */
	if (!w->sb.lost)
		w->rnr_wait = false;
	/* Forward progress restores the retry budgets, as rxe does. */
	w->retry_left = w->retry_cnt;
	w->rnr_left = w->rnr_retry;
	if (w->una == w->max)
		w->timer_armed = false;
	else
		mroce_reqwin_arm(w, now);
	if (w->selective)
		mroce_sr_progress(w, now);
	return acked;
}

/*
 * Go back N from una, over what is SACKED, except a SACKED unit at una:
 * only a READ request the receiver reported but whose responses never
 * all came can be one there (anything else the receiver has is covered
 * by its cumulative ACK once everything before it is), and nothing else
 * would ever ask it again.  Of a selective window's units, those below
 * the highest one delivered were overtaken, so they went missing by
 * themselves (an RTO fired before RACK's reorder window let them go);
 * the rest are lost in bulk.  Returns the units newly lost.
 */
u32 mroce_reqwin_lose_all(struct mroce_reqwin *w)
{
	u32 n = mroce_sb_lose(&w->sb, w->una, w->max);

	if (w->una != w->max &&
	    mroce_sb_at(&w->sb, w->una)->state == MROCE_SB_SACKED)
		n += mroce_sb_lose_answer(&w->sb, w->una);
	if (w->selective && w->rack.valid &&
	    mroce_psn_after(w->rack.fack, w->una))
		mroce_sb_holes(&w->sb, w->una,
			       mroce_psn_before(w->rack.fack, w->max) ?
			       w->rack.fack : w->max);
	return n;
}

/* Go back from @psn to @end (w->max: everything), on the retry budget. */
static void mroce_reqwin_back(struct mroce_reqwin *w, u32 psn, u32 end,
			      u64 now, struct mroce_reqwin_res *res)
{
	res->psn = psn;
	if (!w->retry_left) {
		w->timer_armed = false;
		res->verdict = MROCE_REQWIN_RETRY_EXCEEDED;
		return;
	}
	w->retry_left--;
	if (psn == w->una && end == w->max)
		mroce_reqwin_lose_all(w);
	else
		mroce_sb_lose(&w->sb, psn, end);
	mroce_reqwin_arm(w, now);
	res->verdict = MROCE_REQWIN_RETRY;
}

void mroce_reqwin_retry(struct mroce_reqwin *w, u32 psn, u64 now,
			struct mroce_reqwin_res *res)
{
	mroce_reqwin_back(w, psn, w->max, now, res);
}

/*
 * Where the go-back-N of a NAK sequence error at @psn ends.  A selective
 * window's receiver holds the requests of the selective span that come
 * ahead of their turn and NAKs only a gap before the span's first PSN
 * (sr_psn, the requests sent before the peer was known to be MetaRoCE):
 * those are resent, not the span, whose holes its SACKs and RACK repair.
 * Anything else goes back to the last PSN sent, as IBTA says.
 */
static u32 mroce_reqwin_nak_end(const struct mroce_reqwin *w, u32 psn)
{
	if (w->selective &&
	    mroce_psn_in_window(w->sr_psn, w->una, mroce_reqwin_inflight(w)) &&
	    mroce_psn_before(psn, w->sr_psn))
		return w->sr_psn;
	return w->max;
}

static void mroce_reqwin_rnr(struct mroce_reqwin *w, u32 psn, u8 code,
			     u64 now, struct mroce_reqwin_res *res)
{
	res->psn = psn;
	/* No ACK can come while we wait: the RNR timer replaces it. */
	w->timer_armed = false;
	if (!w->rnr_left) {
		res->verdict = MROCE_REQWIN_RNR_EXCEEDED;
		return;
	}
	if (w->rnr_retry != MROCE_RNR_RETRY_INFINITE)
		w->rnr_left--;
	mroce_sb_lose(&w->sb, psn, w->max);
	w->rnr_wait = true;
	w->rnr_until = now + mroce_rnr_timeout_ns(code);
	res->at = w->rnr_until;
	res->verdict = MROCE_REQWIN_RNR_WAIT;
}

/**
 * mroce_reqwin_on_aeth() - process the AETH of an ACK, NAK or atomic ACK
 * @w: the window
 * @psn: the BTH PSN of the response
 * @syndrome: the AETH syndrome
 * @now: current time
 * @res: what to do
 *
 * An ACK acknowledges every PSN up to and including @psn (IBTA 9.7.5.1).
 * A NAK or RNR NAK carries the PSN the responder expects: everything before
 * it is acknowledged, and it is the PSN to resend or the one that failed
 * (IBTA 9.7.5.2).  A response for a PSN outside [una, max) is a duplicate
 * or a ghost and is ignored (IBTA 9.7.5.1.x C9-114).
 *
 * Return: 0, or -EPROTO for a reserved syndrome.
 */
int mroce_reqwin_on_aeth(struct mroce_reqwin *w, u32 psn, u8 syndrome,
			 u64 now, struct mroce_reqwin_res *res)
{
	enum mroce_aeth_kind kind = mroce_aeth_kind(syndrome);
	u8 value = syndrome & MROCE_AETH_VALUE_MASK;

	memset(res, 0, sizeof(*res));
	res->verdict = MROCE_REQWIN_STALE;
	res->psn = mroce_psn(psn);
	if (kind == MROCE_AETH_INVALID)
		return -EPROTO;
	if (!mroce_psn_in_window(psn, w->una, mroce_reqwin_inflight(w)))
		return 0;

	if (kind == MROCE_AETH_ACK) {
		res->acked = mroce_reqwin_advance(w, mroce_psn_add(psn, 1),
						  now);
		res->verdict = MROCE_REQWIN_ACKED;
		return 0;
	}
	res->acked = mroce_reqwin_advance(w, res->psn, now);
	if (kind == MROCE_AETH_RNR_NAK) {
		mroce_reqwin_rnr(w, res->psn, value, now, res);
	} else if (value == MROCE_NAK_PSN_SEQ_ERROR) {
		/* IBTA 9.7.5.2.1: go back to the PSN the responder expects. */
		mroce_reqwin_back(w, res->psn, mroce_reqwin_nak_end(w, res->psn),
				  now, res);
	} else {
		w->timer_armed = false;
		res->nak = value;
		res->verdict = MROCE_REQWIN_NAK_FATAL;
	}
	return 0;
}

/* The READ response at @psn (unit @e) came at @now: an RTT sample if it
 * is the first response of a READ sent once. */
static void mroce_reqwin_read_rtt(struct mroce_reqwin *w,
				  const struct mroce_sb_ent *e, u32 psn,
				  u64 now)
{
	if (psn == e->head && !e->retx && now > e->sent)
		mroce_rtt_sample(&w->rtt, now - e->sent);
}

/* A READ response at @psn, the window waiting for @expect; @kept: see
 * mroce_reqwin_on_read_kept(). */
static void mroce_reqwin_read_resp(struct mroce_reqwin *w, u32 psn,
				   u32 expect, u64 now, bool kept,
				   struct mroce_reqwin_res *res)
{
	u32 inflight = mroce_reqwin_inflight(w);
	const struct mroce_sb_ent *e;

	memset(res, 0, sizeof(*res));
	res->verdict = MROCE_REQWIN_STALE;
	res->psn = mroce_psn(psn);
	if (!mroce_psn_in_window(psn, w->una, inflight) ||
	    !mroce_psn_in_window(expect, w->una, inflight) ||
	    mroce_psn_before(psn, expect))
		return;
	/*
	 * The READ was found lost and is to be asked again from a PSN at or
	 * before this one: the request not yet resent will bring it.  Taking
	 * it would move una past the unit to resend.
	 */
	e = mroce_sb_at(&w->sb, psn);
	if (e->state == MROCE_SB_LOST)
		return;
	/*
	 * Selective: a later READ's responses wait while an earlier READ
	 * has a hole.  Taking them would acknowledge the hole implicitly
	 * (IBTA 9.7.5.1.x), and asking that READ again would then move una
	 * back by more than the scoreboard holds.  If the hole is found lost,
	 * the later READs are asked again with it.
	 */
	if (w->selective && w->rd_hole &&
	    mroce_psn_before(w->rd_hole_psn, expect))
		return;
	/*
	 * The first response of a READ sent once is an RTT sample (Karn):
	 * a connection that only reads gets no other.  One past a hole is
	 * sampled as it is kept (mroce_reqwin_read_placed()).
	 */
	if (w->selective && !kept && psn == mroce_psn(expect))
		mroce_reqwin_read_rtt(w, e, psn, now);
	if (psn == mroce_psn(expect)) {
		if (w->selective)
			mroce_sr_read_filled(w, psn, now);
		res->acked = mroce_reqwin_advance(w, mroce_psn_add(psn, 1),
						  now);
		res->verdict = MROCE_REQWIN_ACKED;
		return;
	}
	if (w->selective) {
		mroce_sr_read_ahead(w, mroce_psn(expect), now, res);
		return;
	}
	res->acked = mroce_reqwin_advance(w, mroce_psn(expect), now);
	mroce_reqwin_retry(w, mroce_psn(expect), now, res);
}

/**
 * mroce_reqwin_on_read_resp() - process an RDMA READ response packet
 * @w: the window
 * @psn: its PSN
 * @expect: the PSN the caller's READ WQE expects next
 * @now: current time
 * @res: what to do
 *
 * A READ response implicitly acknowledges all earlier requests (IBTA
 * 9.7.5.1.x C9-116).  A response past @expect means responses were lost:
 * the READ is resent from @expect (IBTA 9.7.5.2.x o9-30), counted against
 * the retry count like a NAK sequence error.  A selective window waits a
 * reorder window first (MROCE_REQWIN_READ_AHEAD, mroce_sr_read_ahead()):
 * the caller keeps such responses and feeds them in PSN order once the
 * hole is filled (mroce_reqwin_on_read_kept()).
 */
void mroce_reqwin_on_read_resp(struct mroce_reqwin *w, u32 psn, u32 expect,
			       u64 now, struct mroce_reqwin_res *res)
{
	mroce_reqwin_read_resp(w, psn, expect, now, false, res);
}

/**
 * mroce_reqwin_on_read_kept() - a READ response kept past a hole, in turn
 * @w: the window (selective)
 * @psn: its PSN, the one the window waits for now
 * @now: current time
 * @res: what to do, as mroce_reqwin_on_read_resp() says
 *
 * The same as a response arriving at @psn now, except that its arrival
 * time is not now: it is no RTT sample (that was taken when it came,
 * mroce_reqwin_read_placed()).  Sampling it here charged the READ the
 * whole repair of the hole before it, and the SRTT that grew from it
 * widened every hole's window after: 64 KiB READs at 1% loss ran with
 * an SRTT of 10-24 ms and waited that long per hole.
 */
void mroce_reqwin_on_read_kept(struct mroce_reqwin *w, u32 psn, u64 now,
			       struct mroce_reqwin_res *res)
{
	mroce_reqwin_read_resp(w, psn, psn, now, true, res);
}

/**
 * mroce_reqwin_on_read_reasked() - the answer to a READ asked again came
 *	past its hole
 * @w: the window (selective; otherwise nothing happens)
 * @psn: a response of that answer past the hole (the caller knows it is
 *	one: a second copy of a response it kept)
 * @expect: the response PSN the READ waits for
 * @now: current time
 * @res: MROCE_REQWIN_READ_AHEAD with the hole's deadline in .at, or
 *	MROCE_REQWIN_STALE
 *
 * The response at @expect, asked for in the same request and sent before
 * @psn, was lost again (or is late): the hole's window starts, without the
 * SRTT a READ just asked again otherwise waits (mroce_sr_read_ahead()):
 * its answer is here.
 */
void mroce_reqwin_on_read_reasked(struct mroce_reqwin *w, u32 psn,
				  u32 expect, u64 now,
				  struct mroce_reqwin_res *res)
{
	u32 inflight = mroce_reqwin_inflight(w);

	memset(res, 0, sizeof(*res));
	res->verdict = MROCE_REQWIN_STALE;
	res->psn = mroce_psn(psn);
	if (!w->selective || !mroce_psn_in_window(psn, w->una, inflight) ||
	    !mroce_psn_in_window(expect, w->una, inflight) ||
	    !mroce_psn_before(expect, psn) ||
	    mroce_sb_at(&w->sb, expect)->state == MROCE_SB_LOST)
		return;
	mroce_sr_read_answered(w, mroce_psn(expect), now, res);
}

/**
 * mroce_reqwin_on_read_behind() - a later READ's response, an earlier READ
 *	still waiting
 * @w: the window (selective; otherwise nothing happens)
 * @psn: the later READ's response, which the caller drops
 * @expect: the response PSN the earlier READ waits for
 * @now: current time
 * @res: MROCE_REQWIN_READ_AHEAD with the hole's deadline in .at, or
 *	MROCE_REQWIN_STALE when the response says nothing of the hole
 *
 * A responder answers READs in PSN order, so a response of a later READ
 * means the one at @expect was lost or is late, as a response of the same
 * READ past it would (mroce_sr_read_ahead()); once the reorder window
 * passes, the earlier READ is asked again from @expect with everything
 * after it.  Without this a lost last response, or a lost READ request,
 * waits for the tail-loss probe or the RTO.  But only if the later READ
 * was first sent after the request that asks for @expect was last sent:
 * otherwise the response may answer a copy sent before that request
 * (Karn's ambiguity), and taking it as news would ask the earlier READ
 * again each time one of those arrives, faster than its answer can come.
 * Nor if the later READ was asked again itself: a responder answers a READ
 * asked again (a duplicate) at once, ahead of the requests it holds behind
 * a lost one, so its responses say nothing of the earlier READ's.
 */
void mroce_reqwin_on_read_behind(struct mroce_reqwin *w, u32 psn,
				 u32 expect, u64 now,
				 struct mroce_reqwin_res *res)
{
	u32 inflight = mroce_reqwin_inflight(w);
	const struct mroce_sb_ent *hole, *later;

	memset(res, 0, sizeof(*res));
	res->verdict = MROCE_REQWIN_STALE;
	res->psn = mroce_psn(psn);
	if (!w->selective || !mroce_psn_in_window(psn, w->una, inflight) ||
	    !mroce_psn_in_window(expect, w->una, inflight) ||
	    !mroce_psn_before(expect, psn))
		return;
	hole = mroce_sb_at(&w->sb, expect);
	later = mroce_sb_at(&w->sb, psn);
	if (hole->state == MROCE_SB_LOST || later->first < hole->sent ||
	    later->retx)
		return;
	mroce_sr_read_ahead(w, mroce_psn(expect), now, res);
}

/**
 * mroce_reqwin_read_gap_lost() - another READ hole is lost with the one
 *	the window found lost
 * @w: the window (selective)
 * @psn: the first response missing of a READ, with responses kept past it
 * @now: current time
 *
 * The window times one READ hole at a time (mroce_sr_read_ahead()): the
 * oldest.  When it is found lost, the caller, which knows what it kept,
 * names the other holes with responses past them, and each READ is asked
 * again at once, not one round trip after the other: from una when the
 * hole is in the READ una is in, else whole (a unit is resent from one
 * PSN to its end, and its PSNs before that one must not be in flight).
 * Not one sent again less than one SRTT ago: its answer may be on the
 * way.
 *
 * Return: true when the READ is now to be asked again.
 */
bool mroce_reqwin_read_gap_lost(struct mroce_reqwin *w, u32 psn, u64 now)
{
	u32 inflight = mroce_reqwin_inflight(w);
	const struct mroce_sb_ent *e;

	if (!w->selective || !mroce_psn_in_window(psn, w->una, inflight))
		return false;
	e = mroce_sb_at(&w->sb, psn);
	if (!mroce_psn_in_window(psn, e->head, e->npsn) ||
	    (e->state == MROCE_SB_RESENT && e->sent + w->rtt.srtt > now))
		return false;
	psn = mroce_psn_in_window(e->head, w->una, inflight) ? e->head : w->una;
	if (!mroce_sb_lose_answer(&w->sb, psn))
		return false;
	w->st.read_holes++;
	return true;
}

/**
 * mroce_reqwin_read_placed() - a READ response past a hole was kept
 * @w: the window
 * @psn: its PSN
 * @now: current time
 *
 * Delivery, as a SACK is: the tail-loss probe and the RTO restart.  A
 * hole's own window (mroce_sr_read_ahead()) asks for what is missing; a
 * probe or RTO while responses keep coming would ask again for READs
 * whose responses are already kept.  The first response of a READ sent
 * once is an RTT sample now, when it came, not when it is fed to the
 * window (mroce_reqwin_on_read_kept()).
 */
void mroce_reqwin_read_placed(struct mroce_reqwin *w, u32 psn, u64 now)
{
	if (!w->selective)
		return;
	if (mroce_psn_in_window(psn, w->una, mroce_reqwin_inflight(w)))
		mroce_reqwin_read_rtt(w, mroce_sb_at(&w->sb, psn), psn, now);
	mroce_sr_progress(w, now);
}

/**
 * mroce_reqwin_reopen() - take back an acknowledgement that passed a READ
 * @w: the window
 * @psn: the first response PSN of the READ that never arrived
 * @keep: it is a READ's (not an atomic's): see below
 * @now: current time
 *
 * A responder that answers a READ moves past its PSNs at once, so its ACK
 * of a later request covers READ responses that were lost on the way
 * (IBTA 9.7.5.1.x): everything from @psn is in flight again, and lost.  The
 * caller calls this as soon as the ACK was processed, before anything new
 * is sent.
 *
 * A selective window loses nothing by it (@keep, for a READ): the
 * requests it acknowledged arrived, and are SACKED again, as a READ
 * request the receiver reported whose responses may not all have come
 * (mroce_sb_lose_answer()).  The READ's holes are asked for as its
 * responses past them say (mroce_sr_read_ahead()), its tail by the RTO.
 * Going back N from it asked again for every READ after it, whose
 * responses were on the way behind the ACK: a third of the responses of
 * 64 KiB READs at 1% loss were sent twice.
 *
 * Return: 0, or -EINVAL when @psn is not within the last window.
 */
int mroce_reqwin_reopen(struct mroce_reqwin *w, u32 psn, bool keep, u64 now)
{
	u32 back = mroce_psn_dist(psn, w->una), old = w->una;

	if (mroce_psn_after(psn, w->una) ||
	    back + mroce_reqwin_inflight(w) >= MROCE_PSN_HALF)
		return -EINVAL;
	w->una = mroce_psn(psn);
	if (keep && w->selective &&
	    mroce_reqwin_inflight(w) <= MROCE_SB_SLOTS) {
		mroce_sb_reported(&w->sb, w->una, old);
		mroce_sr_progress(w, now);
	} else {
		mroce_sb_lose(&w->sb, w->una, w->max);
	}
	mroce_reqwin_arm(w, now);
	return 0;
}

/**
 * mroce_reqwin_on_timer() - the transport timer fired
 * @w: the window
 * @now: current time
 * @res: MROCE_REQWIN_RETRY from una, RETRY_EXCEEDED, NOT_DUE (early call,
 *	 deadline in .at) or NONE (no timer armed); for a selective window
 *	 also LOSS (mroce_sr_on_timer())
 *
 * IBTA 9.7.6.1.3: on Local ACK Timeout the requester resends from the
 * oldest unacknowledged PSN and decrements its retry count.  A selective
 * window's own timers (RACK, probe, RTO) run when that one is not due.
 */
void mroce_reqwin_on_timer(struct mroce_reqwin *w, u64 now,
			   struct mroce_reqwin_res *res)
{
	memset(res, 0, sizeof(*res));
	res->verdict = MROCE_REQWIN_NONE;
	if (w->timer_armed && now >= w->timer_at) {
		mroce_reqwin_retry(w, w->una, now, res);
		return;
	}
	if (w->selective) {
		mroce_sr_on_timer(w, now, res);
		return;
	}
	if (!w->timer_armed)
		return;
	res->verdict = MROCE_REQWIN_NOT_DUE;
	res->at = w->timer_at;
}

/* The earliest time at which the caller must call back, if any. */
bool mroce_reqwin_next_event(const struct mroce_reqwin *w, u64 *at)
{
	if (w->rnr_wait && w->sb.lost &&
	    (!w->timer_armed || w->rnr_until < w->timer_at)) {
		*at = w->rnr_until;
		return true;
	}
	if (w->selective)
		return mroce_sr_next_event(w, at);
	if (w->timer_armed) {
		*at = w->timer_at;
		return true;
	}
	return false;
}
