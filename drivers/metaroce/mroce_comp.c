// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completer: processes what the responder of an RC connection sends back
 * (ACK, NAK, RNR NAK, RDMA READ responses, atomic ACKs; IBTA 9.7.5), feeds
 * it to the requester's window and retires send WQEs in order with their
 * completions (IBTA 10.8.3.3).  A READ or atomic WQE completes when its
 * response data has arrived, any other RC WQE when the window says all of
 * its PSNs are acknowledged; a UC WQE once its last packet was sent (IBTA
 * 9.7: no acknowledgements), a UD WQE as soon as it was sent.
 *
 * All functions run in the QP's task: caller holds dp->run_lock.
 */
#include "mroce_dp.h"
#include "core/mroce_psn.h"

#define CREATE_TRACE_POINTS
#include "mroce_trace.h"

static bool mroce_comp_signaled(struct mroce_dpqp *dp, struct mroce_swqe *s)
{
	return (s->wqe.send_flags & IB_SEND_SIGNALED) ||
	       dp->qp->sq_sig_type == IB_SIGNAL_ALL_WR;
}

/*
 * Retire the oldest WQE, with a completion when @post.  The ring is
 * touched under qp->sq_lock and only outside ERR: in ERR the verbs layer
 * flushes the ring from its head (mroce_qp.c), and must not see the head
 * move under it.
 */
static void mroce_comp_retire(struct mroce_dpqp *dp, struct mroce_swqe *s,
			      u8 status, bool post)
{
	struct mroce_cq *cq = to_mcq(dp->qp->ibqp.send_cq);
	struct mroce_qp *qp = dp->qp;
	struct metaroce_cqe cqe = {};
	bool notify = false;
	unsigned long flags;

	lockdep_assert_held(&dp->run_lock);
	cqe.wr_id = s->wqe.wr_id;
	cqe.status = status;
	cqe.opcode = s->wc_opcode;
	cqe.byte_len = s->length;
	cqe.qp_num = qp->ibqp.qp_num;
	cqe.port_num = 1;

	spin_lock_irqsave(&qp->sq_lock, flags);
	if (READ_ONCE(qp->state) != IB_QPS_ERR) {
		/*
		 * Free the ring slot before the completion is visible: an
		 * application that reposts as soon as it polls the CQE must
		 * find the slot free, or its post fails with a full queue.
		 */
		qp->sq.head = dp->comp_idx + 1;
		smp_store_release(&qp->sq.hdr->consumer, qp->sq.head);
		if (post)
			notify = mroce_cq_add(cq, &cqe, false) > 0;
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	/* Outside sq_lock: a kernel consumer's handler may post sends. */
	if (notify)
		mroce_cq_notify(cq);
	dp->comp_idx++;
	if (s->rd_atomic)
		dp->rd_atomic--;
}

/**
 * mroce_comp_complete() - retire every WQE that is finished
 * @dp: the QP's data path
 *
 * A WQE that failed completes in error when it is the oldest, and the QP
 * then goes to ERR (IBTA 10.3.1), which flushes the others.
 */
void mroce_comp_complete(struct mroce_dpqp *dp)
{
	bool rc = mroce_qp_is_rc(dp->qp);

	lockdep_assert_held(&dp->run_lock);
	while (dp->comp_idx != dp->req_max && !dp->error) {
		struct mroce_swqe *s = mroce_swqe(dp, dp->comp_idx);

		if (s->status) {
			mroce_comp_retire(dp, s, s->status, true);
			mroce_task_fatal(dp);
			return;
		}
		if (!s->started)
			break;
		if (!rc && !s->done)
			break;
		/* A local operation (npsn 0) has no PSN to wait for. */
		if (rc && s->npsn) {
			u32 last = mroce_psn_add(s->first_psn, s->npsn - 1);

			if (!mroce_psn_before(last, dp->win.una))
				break;
			if (s->rd_atomic && !s->done) {
				/*
				 * IBTA 9.7.5.1.x: an ACK past a READ or atomic
				 * whose response never came means that
				 * response was lost: ask again from it.  A
				 * selective window waits for a READ's
				 * responses instead (core mroce_reqwin.c).
				 */
				u32 psn = mroce_psn_add(s->first_psn,
							s->rd_done);
				bool keep = s->wqe.opcode == IB_WR_RDMA_READ;

				if (mroce_reqwin_reopen(&dp->win, psn, keep,
							mroce_dp_now(dp))) {
					mroce_task_fatal(dp);
					return;
				}
				if (mroce_reqwin_lost(&dp->win))
					mroce_req_lost(dp, psn);
				break;
			}
		}
		mroce_comp_retire(dp, s, IB_WC_SUCCESS,
				  mroce_comp_signaled(dp, s));
	}
}

/* The oldest WQE fails with @status (retries exhausted). */
void mroce_comp_fail(struct mroce_dpqp *dp, enum ib_wc_status status)
{
	lockdep_assert_held(&dp->run_lock);
	if (dp->comp_idx == dp->req_max) {
		mroce_task_fatal(dp);
		return;
	}
	mroce_swqe(dp, dp->comp_idx)->status = status;
	mroce_comp_complete(dp);
}

/* The WQE whose request holds @psn, a PSN in flight (O(1)). */
static struct mroce_swqe *mroce_comp_find(struct mroce_dpqp *dp, u32 psn)
{
	u32 idx;

	if (!mroce_reqwin_find(&dp->win, psn, &idx))
		return NULL;
	return mroce_swqe(dp, idx);
}

/* IBTA 9.7.5.2.x NAK codes to completion status (IBTA 10.8.3.2 / 11.6.2). */
static enum ib_wc_status mroce_comp_nak_status(u8 nak)
{
	switch (nak) {
	case MROCE_NAK_INVALID_REQUEST:
		return IB_WC_REM_INV_REQ_ERR;
	case MROCE_NAK_REMOTE_ACCESS_ERROR:
		return IB_WC_REM_ACCESS_ERR;
	case MROCE_NAK_INVALID_RD_REQUEST:
		return IB_WC_REM_INV_RD_REQ_ERR;
	default:
		return IB_WC_REM_OP_ERR;
	}
}

/*
 * Is a READ response opcode right for packet @k of @n (IBTA 9.7.4.1.4)?
 * A READ resent from packet @base (o9-30) is a request of its own, so its
 * first response may open a response sequence of its own: FIRST, or ONLY
 * for the last packet, at @base (what MetaRoCE's responder sends, and what
 * rdma_rxe's requester accepts).  rdma_rxe's responder instead keeps the
 * positions of the original READ (MIDDLE or LAST at @base): both are taken.
 */
static bool mroce_comp_read_pos_ok(u32 flags, u32 k, u32 n, u32 base)
{
	if (base && k == base && (flags & mroce_pos_flag(mroce_pos(0, n - k))))
		return true;
	return flags & mroce_pos_flag(mroce_pos(k, n));
}

/*
 * Selective windows: the oldest READ whose responses are not all in, or
 * NULL.  Its response at mroce_comp_read_expect() is the one the window
 * waits for: a READ response acknowledges every request before it (IBTA
 * 9.7.5.1.x), so no later response may be fed to the window before it.
 */
static struct mroce_swqe *mroce_comp_read_oldest(struct mroce_dpqp *dp)
{
	u32 idx;

	for (idx = dp->comp_idx; idx != dp->req_max; idx++) {
		struct mroce_swqe *o = mroce_swqe(dp, idx);

		if (!o->started)
			return NULL;
		if (o->wqe.opcode == IB_WR_RDMA_READ && !o->done)
			return o;
	}
	return NULL;
}

static u32 mroce_comp_read_expect(const struct mroce_swqe *s)
{
	return mroce_psn_add(s->first_psn, s->rd_done);
}

/* Move the map's base to @psn, forgetting the responses before it. */
static void mroce_rd_map_rebase(struct mroce_rd_map *m, u32 psn)
{
	u32 k = mroce_psn_dist(m->base, psn);

	if (!k || mroce_psn_before(psn, m->base))
		return;
	if (k >= MROCE_RD_MAP_BITS) {
		memset(m, 0, sizeof(*m));
	} else {
		bitmap_shift_right(m->map, m->map, k, MROCE_RD_MAP_BITS);
		m->n = bitmap_weight(m->map, MROCE_RD_MAP_BITS);
	}
	m->base = psn;
}

/*
 * A READ response of a selective window past the response the window
 * waits for (@o's, at @expect): placed now, by its PSN's offset in its own
 * READ @s (@o or a later one), and noted, so that it counts once every
 * response before it is in (mroce_comp_read_walk()).  0, or -ERANGE when
 * it is too far ahead to be noted (dropped: a request asked again brings
 * it).
 */
static int mroce_comp_read_ahead(struct mroce_dpqp *dp, struct mroce_swqe *s,
				 struct mroce_rxpkt *pkt, u32 expect, u32 off,
				 u32 want)
{
	struct mroce_rd_map *m = &dp->rd_map;
	u32 psn = pkt->hdr.bth.psn, i;

	if (!m->n)
		m->base = expect;
	else
		mroce_rd_map_rebase(m, expect);
	i = mroce_psn_dist(m->base, psn);
	if (mroce_psn_before(psn, m->base) || i >= MROCE_RD_MAP_BITS)
		return -ERANGE;
	if (test_bit(i, m->map)) {
		mroce_count(dp->mdev, MROCE_CNT_RX_DUPS);
		return 0;
	}
	if (want && mroce_sge_place(dp, mroce_swqe_sges(s), s->wqe.num_sge,
				    off, pkt, want))
		s->status = IB_WC_LOC_PROT_ERR;
	__set_bit(i, m->map);
	m->n++;
	mroce_count(dp->mdev, MROCE_CNT_OOO_PLACED);
	mroce_reqwin_read_placed(&dp->win, psn, mroce_dp_now(dp));
	return 0;
}

/*
 * Forget that the response at @psn was placed ahead, if it was: it came
 * again in its turn.
 */
static void mroce_comp_read_unnote(struct mroce_dpqp *dp, u32 psn)
{
	struct mroce_rd_map *m = &dp->rd_map;
	u32 i = mroce_psn_dist(m->base, psn);

	if (m->n && !mroce_psn_before(psn, m->base) &&
	    i < MROCE_RD_MAP_BITS && __test_and_clear_bit(i, m->map))
		m->n--;
}

/*
 * A response came that the window waited for: feed it the ones placed
 * ahead that follow in PSN order, across READs (a later READ's response
 * acknowledges the requests between).  If some remain past a new hole,
 * that hole's reorder window starts: they say it was lost or is late,
 * unless the READ was asked again since (dp->rd_gap).
 */
static void mroce_comp_read_walk(struct mroce_dpqp *dp, u64 now)
{
	struct mroce_rd_map *m = &dp->rd_map;
	struct mroce_reqwin_res res;
	struct mroce_swqe *o, *s;
	u32 psn, i;

	o = mroce_comp_read_oldest(dp);
	while (m->n) {
		if (!o) {
			memset(m, 0, sizeof(*m));
			return;
		}
		psn = mroce_comp_read_expect(o);
		if (mroce_psn_before(psn, m->base))
			return;
		mroce_rd_map_rebase(m, psn);
		if (!m->n || !test_bit(0, m->map))
			break;
		mroce_reqwin_on_read_kept(&dp->win, psn, now, &res);
		if (res.verdict != MROCE_REQWIN_ACKED)
			return;
		__clear_bit(0, m->map);
		m->n--;
		if (++o->rd_done == o->npsn) {
			o->done = true;
			o = mroce_comp_read_oldest(dp);
		}
	}
	if (!m->n || !o)
		return;
	i = find_first_bit(m->map, MROCE_RD_MAP_BITS);
	psn = mroce_psn_add(m->base, i);
	s = mroce_comp_find(dp, psn);
	if (s == o && !dp->rd_gap)
		mroce_reqwin_on_read_resp(&dp->win, psn,
					  mroce_comp_read_expect(o), now, &res);
	else if (s != o)
		mroce_reqwin_on_read_behind(&dp->win, psn,
					    mroce_comp_read_expect(o), now,
					    &res);
}

/* Was the READ response at @psn placed ahead (mroce_comp_read_ahead())? */
static bool mroce_comp_read_noted(const struct mroce_rd_map *m, u32 psn)
{
	u32 i = mroce_psn_dist(m->base, psn);

	return m->n && !mroce_psn_before(psn, m->base) &&
	       i < MROCE_RD_MAP_BITS && test_bit(i, m->map);
}

/**
 * mroce_comp_read_hole() - the oldest READ with responses missing
 * @dp: the QP's data path (selective window)
 * @psn: set to its first response missing, the one the window waits for
 *
 * Return: the READ, or NULL when no READ waits for responses.
 */
struct mroce_swqe *mroce_comp_read_hole(struct mroce_dpqp *dp, u32 *psn)
{
	struct mroce_swqe *o = mroce_comp_read_oldest(dp);

	if (o)
		*psn = mroce_comp_read_expect(o);
	return o;
}

/**
 * mroce_comp_read_span() - what a READ asked again from a hole asks for
 * @dp: the QP's data path (selective window)
 * @s: the READ
 * @k: the first of its responses the window resends from
 * @n: set to the number of responses to ask for
 * @kept: set when the last of them was kept (the probe below)
 *
 * Not those kept past a hole (mroce_comp_read_ahead()): the request starts
 * at the first response from @k that was not kept and stops after the
 * next one that was, so that a hole costs its own packets, not the rest
 * of the READ.  That kept response, asked for again, is the probe: its
 * second copy can only come from this request, and coming without the
 * hole's it says the hole's was lost again (mroce_comp_read_resp()),
 * where nothing else would before the tail-loss probe.  A hole further in
 * the READ is found once the walk reaches it (mroce_comp_read_walk()) and
 * asked for then.
 *
 * Return: the first response to ask for; s->npsn (and *@n 0) when every
 * one from @k on was kept.
 */
u32 mroce_comp_read_span(struct mroce_dpqp *dp, const struct mroce_swqe *s,
			 u32 k, u32 *n, bool *kept)
{
	const struct mroce_rd_map *m = &dp->rd_map;
	u32 q = s->npsn, j;
	s32 d;

	*kept = false;
	while (k < s->npsn &&
	       mroce_comp_read_noted(m, mroce_psn_add(s->first_psn, k)))
		k++;
	if (m->n && k < s->npsn) {
		d = mroce_psn_diff(mroce_psn_add(s->first_psn, k), m->base);
		if (d < MROCE_RD_MAP_BITS) {
			j = find_next_bit(m->map, MROCE_RD_MAP_BITS, max(d, 0));
			/* up to the next kept one, the probe, included */
			if (j < MROCE_RD_MAP_BITS && k + (j - d) < q) {
				q = k + (j - d) + 1;
				*kept = true;
			}
		}
	}
	*n = q - k;
	return k;
}

/*
 * The window found the READ hole at @hole lost: every other READ with a
 * response missing before one that was kept is asked again from there
 * too (core mroce_reqwin_read_gap_lost()), so that the holes of a window
 * are repaired in one round trip.
 */
static void mroce_comp_read_gaps_lost(struct mroce_dpqp *dp, u32 hole,
				      u64 now)
{
	struct mroce_rd_map *m = &dp->rd_map;
	u32 idx, last, p, end;

	if (!m->n)
		return;
	last = mroce_psn_add(m->base, find_last_bit(m->map,
						   MROCE_RD_MAP_BITS));
	for (idx = dp->comp_idx; idx != dp->req_max; idx++) {
		struct mroce_swqe *s = mroce_swqe(dp, idx);

		if (!s->started || !mroce_psn_before(s->first_psn, last))
			break;
		if (s->wqe.opcode != IB_WR_RDMA_READ || s->done)
			continue;
		end = mroce_psn_add(s->first_psn, s->npsn);
		for (p = mroce_comp_read_expect(s); p != end &&
		     mroce_comp_read_noted(m, p); p = mroce_psn_add(p, 1))
			;
		if (p == end || !mroce_psn_before(p, last))
			continue;
		if (p != hole)
			mroce_reqwin_read_gap_lost(&dp->win, p, now);
	}
}

static void mroce_comp_read_resp(struct mroce_dpqp *dp,
				 struct mroce_rxpkt *pkt, u64 now)
{
	u32 psn = pkt->hdr.bth.psn, expect, k, off, want;
	struct mroce_reqwin_res res;
	struct mroce_swqe *s, *o = NULL;

	s = mroce_comp_find(dp, psn);
	if (!s || s->wqe.opcode != IB_WR_RDMA_READ || s->done) {
		mroce_count(dp->mdev, MROCE_CNT_RX_DROP_SEQ);
		return;
	}
	expect = mroce_comp_read_expect(s);
	if (dp->win.selective) {
		o = mroce_comp_read_oldest(dp);
		if (!o || mroce_psn_before(psn, expect)) {
			mroce_count(dp->mdev, MROCE_CNT_RX_DROP_SEQ);
			return;
		}
	}
	k = mroce_psn_dist(s->first_psn, psn);
	off = k * dp->pmtu;
	want = min(dp->pmtu, s->length - off);
	/*
	 * A selective window asks for parts of a READ (mroce_comp_read_span()),
	 * several at once: each part's responses start with FIRST and end
	 * with LAST, at any packet.  The length alone is checked there.
	 */
	if ((psn == expect || dp->win.selective) &&
	    (pkt->lo.pay_len != want ||
	     (!dp->win.selective &&
	      !mroce_comp_read_pos_ok(pkt->lo.op->flags, k, s->npsn,
				      s->rd_base)))) {
		/* A malformed response is dropped; the timer recovers. */
		mroce_count(dp->mdev, MROCE_CNT_RX_DROP_MALFORMED);
		return;
	}
	/*
	 * Selective: a response of a later READ than the oldest unfinished
	 * one, or of that READ past the response it waits for, is placed
	 * and kept for its turn.  It tells the window what is missing before
	 * it (the hole's reorder window starts), except a response of the
	 * READ just asked again (dp->rd_gap): those of its first answer still
	 * on the way say nothing new.  (Those of a later READ that could
	 * answer a copy sent before are told apart by their send times:
	 * mroce_reqwin_on_read_behind().)
	 */
	if (o && (o != s || psn != expect)) {
		if (o == s && dp->rd_gap &&
		    mroce_comp_read_noted(&dp->rd_map, psn)) {
			/*
			 * A second copy of a kept response: the answer to the
			 * READ asked again (its probe, mroce_comp_read_span())
			 * came past the hole without the hole's response.
			 */
			dp->rd_gap = false;
			mroce_reqwin_on_read_reasked(&dp->win, psn, expect, now,
						     &res);
		} else if (o == s && dp->rd_gap) {
			res.verdict = MROCE_REQWIN_STALE;
		} else if (o == s) {
			mroce_reqwin_on_read_resp(&dp->win, psn, expect, now,
						  &res);
		} else {
			mroce_reqwin_on_read_behind(&dp->win, psn,
						    mroce_comp_read_expect(o),
						    now, &res);
		}
		if (res.verdict == MROCE_REQWIN_RETRY_EXCEEDED) {
			mroce_comp_fail(dp, IB_WC_RETRY_EXC_ERR);
			return;
		}
		if (mroce_comp_read_ahead(dp, s, pkt,
					  mroce_comp_read_expect(o), off,
					  want))
			mroce_count(dp->mdev, MROCE_CNT_RX_DROP_SEQ);
		return;
	}
	/*
	 * After a gap the READ was asked again from @expect: the responses
	 * behind the gap are still arriving and say nothing new (the
	 * requester-side twin of the responder's single NAK, C9-84).
	 */
	if (dp->rd_gap && psn != expect) {
		mroce_count(dp->mdev, MROCE_CNT_RX_DROP_SEQ);
		return;
	}
	mroce_reqwin_on_read_resp(&dp->win, psn, expect, now, &res);
	switch (res.verdict) {
	case MROCE_REQWIN_ACKED:
		dp->rd_gap = false;
		if (want && mroce_sge_place(dp, mroce_swqe_sges(s),
					    s->wqe.num_sge, off, pkt, want))
			s->status = IB_WC_LOC_PROT_ERR;
		mroce_comp_read_unnote(dp, psn);
		if (++s->rd_done == s->npsn)
			s->done = true;
		mroce_comp_read_walk(dp, now);
		break;
	case MROCE_REQWIN_RETRY:
		mroce_req_lost(dp, res.psn);
		dp->rd_gap = true;
		break;
	case MROCE_REQWIN_RETRY_EXCEEDED:
		mroce_comp_fail(dp, IB_WC_RETRY_EXC_ERR);
		return;
	default:
		mroce_count(dp->mdev, MROCE_CNT_RX_DROP_SEQ);
		break;
	}
	mroce_comp_complete(dp);
}

/*
 * Can an ACK, NAK or atomic ACK carry @psn while a READ is outstanding?  A
 * responder that executed a READ moved its expected PSN past the READ's
 * last PSN at once, so no acknowledgement can name a PSN inside it: an ACK
 * at most the one before it or its last PSN (a coalesced ACK behind lost
 * responses, see mroce_comp_complete()), a NAK at most its first PSN (the
 * READ request itself was lost).  Anything between would move the window
 * into the READ and mark responses as received that never arrived.
 */
static bool mroce_comp_aeth_in_read(const struct mroce_swqe *s, u32 psn,
				    u8 syndrome)
{
	u32 last;

	if (!s || s->wqe.opcode != IB_WR_RDMA_READ || s->done)
		return false;
	last = mroce_psn_add(s->first_psn, s->npsn - 1);
	if (mroce_aeth_kind(syndrome) == MROCE_AETH_ACK)
		return psn != last;
	return psn != s->first_psn;
}

/* Trace what selective repeat declared lost since @was (mroce_trace.h). */
static void mroce_comp_sr_trace(struct mroce_dpqp *dp,
				const struct mroce_sr_stats *was,
				const struct mroce_reqwin_res *res)
{
	const struct mroce_reqwin *w = &dp->win;
	u32 qpn = dp->qp->ibqp.qp_num, n = mroce_reqwin_inflight(w);
	u64 reo = mroce_rack_reo_wnd(&w->rack, &w->rtt, w->sb.sacked);
	u64 rto = mroce_rtt_rto(&w->rtt), srtt = w->rtt.srtt;

	if (w->st.rack_losses != was->rack_losses)
		trace_mroce_sr_loss(qpn, MROCE_TRACE_LOSS_RACK,
				    w->st.rack_losses - was->rack_losses,
				    res->psn, w->una, n, srtt, rto, reo);
	if (w->st.tlp_probes != was->tlp_probes)
		trace_mroce_sr_loss(qpn, MROCE_TRACE_LOSS_TLP,
				    w->st.tlp_probes - was->tlp_probes,
				    res->psn, w->una, n, srtt, rto, reo);
	if (w->st.rto_fires != was->rto_fires)
		trace_mroce_sr_rto(qpn, MROCE_TRACE_LOSS_RTO,
				   mroce_reqwin_lost(w), res->psn, w->una, n,
				   srtt, rto, reo);
}

/*
 * Add what selective repeat did since @was, which left @res, to the
 * device's counters and the trace.
 */
static void mroce_comp_sr_count(struct mroce_dpqp *dp,
				const struct mroce_sr_stats *was,
				const struct mroce_reqwin_res *res)
{
	const struct mroce_sr_stats *st = &dp->win.st;
	struct mroce_dev *mdev = dp->mdev;

	if (!dp->win.selective)
		return;
	mroce_count_n(mdev, MROCE_CNT_RACK_LOSSES,
		      st->rack_losses - was->rack_losses);
	mroce_count_n(mdev, MROCE_CNT_TLP_PROBES,
		      st->tlp_probes - was->tlp_probes);
	mroce_count_n(mdev, MROCE_CNT_RTO_FIRES, st->rto_fires - was->rto_fires);
	mroce_count_n(mdev, MROCE_CNT_SPURIOUS, st->spurious - was->spurious);
	if (st->rack_losses != was->rack_losses ||
	    st->tlp_probes != was->tlp_probes ||
	    st->rto_fires != was->rto_fires)
		mroce_comp_sr_trace(dp, was, res);
}

/* The AETH of an ACK, NAK or MR_ACK, through the requester window. */
static int mroce_comp_aeth(struct mroce_dpqp *dp, struct mroce_rxpkt *pkt,
			   u64 now, struct mroce_reqwin_res *res)
{
	struct mroce_sr_ack a = {
		.psn = pkt->hdr.bth.psn,
		.syndrome = pkt->hdr.aeth.syndrome,
		.words = pkt->sack.words,
		.dup = pkt->xflags & MROCE_MXH_F_DUP,
		.rtt = mroce_xdata_rtt(dp, pkt),
		.map = pkt->sack.map,
	};
	struct mroce_sr_stats was = dp->win.st;
	u32 unreported;
	int err;

	if (!pkt->x)
		return mroce_reqwin_on_aeth(&dp->win, a.psn, a.syndrome, now,
					    res);
	unreported = mroce_reqwin_unreported(&dp->win);
	err = mroce_reqwin_on_sack(&dp->win, &a, now, res);
	mroce_comp_sr_count(dp, &was, res);
	if (!err) {
		mroce_wcc_ack(dp, unreported, a.rtt,
			      dp->win.st.rack_losses != was.rack_losses, now);
		mroce_spray_ack(dp, pkt, a.rtt, res);
	}
	return err;
}

/**
 * mroce_comp_rx() - a response packet arrived for this requester
 * @dp: the QP's data path
 * @pkt: the checked packet (opcode with MROCE_OPF_RESP)
 */
void mroce_comp_rx(struct mroce_dpqp *dp, struct mroce_rxpkt *pkt)
{
	const struct mroce_hdr *h = &pkt->hdr;
	u32 flags = pkt->lo.op->flags;
	u64 now = mroce_dp_now(dp);
	struct mroce_reqwin_res res;
	struct mroce_swqe *s;

	lockdep_assert_held(&dp->run_lock);
	if (flags & MROCE_OPF_READ) {
		mroce_comp_read_resp(dp, pkt, now);
		return;
	}
	/* Looked up now: an ACK moves the window past its PSN. */
	s = mroce_comp_find(dp, h->bth.psn);
	if (mroce_comp_aeth_in_read(s, h->bth.psn, h->aeth.syndrome)) {
		mroce_count(dp->mdev, MROCE_CNT_RX_DROP_SEQ);
		return;
	}
	if (mroce_comp_aeth(dp, pkt, now, &res)) {
		mroce_count(dp->mdev, MROCE_CNT_RX_DROP_MALFORMED);
		return;
	}
	switch (res.verdict) {
	case MROCE_REQWIN_LOSS:
		/* selective: the requester resends the lost units next */
		break;
	case MROCE_REQWIN_ACKED:
		if (!(flags & MROCE_OPF_ATOMIC))
			break;
		if (s && s->rd_atomic && s->wqe.opcode != IB_WR_RDMA_READ &&
		    !s->done) {
			u64 orig = h->atmack.orig;

			if (mroce_sge_copy(dp, mroce_swqe_sges(s),
					   s->wqe.num_sge, 0, &orig,
					   sizeof(orig), true))
				s->status = IB_WC_LOC_PROT_ERR;
			s->done = true;
		}
		break;
	case MROCE_REQWIN_RETRY:
		/* a NAK PSN sequence error */
		mroce_count(dp->mdev, MROCE_CNT_PACKET_SEQ_ERR);
		mroce_req_lost(dp, res.psn);
		break;
	case MROCE_REQWIN_RNR_WAIT:
		mroce_count(dp->mdev, MROCE_CNT_RNR_WAITS);
		mroce_req_lost(dp, res.psn);
		break;
	case MROCE_REQWIN_NAK_FATAL:
		/* Everything before the NAKed PSN was acknowledged. */
		mroce_comp_complete(dp);
		if (!dp->error)
			mroce_comp_fail(dp, mroce_comp_nak_status(res.nak));
		return;
	case MROCE_REQWIN_RETRY_EXCEEDED:
		mroce_comp_fail(dp, IB_WC_RETRY_EXC_ERR);
		return;
	case MROCE_REQWIN_RNR_EXCEEDED:
		mroce_count(dp->mdev, MROCE_CNT_RNR_RETRY_ERR);
		mroce_comp_fail(dp, IB_WC_RNR_RETRY_EXC_ERR);
		return;
	default:
		mroce_count(dp->mdev, MROCE_CNT_RX_DROP_SEQ);
		return;
	}
	mroce_comp_complete(dp);
}

/*
 * The hrtimer fired: Local ACK Timeout (IBTA 9.7.6.1.3), RNR wait over, or
 * a selective window's RACK, probe or RTO deadline (LOSS: the requester
 * resends the lost units next; RETRY after an RTO, as after a timeout).
 */
void mroce_comp_timer(struct mroce_dpqp *dp)
{
	struct mroce_sr_stats was = dp->win.st;
	struct mroce_reqwin_res res;

	lockdep_assert_held(&dp->run_lock);
	mroce_reqwin_on_timer(&dp->win, mroce_dp_now(dp), &res);
	mroce_comp_sr_count(dp, &was, &res);
	if (dp->win.st.rto_fires != was.rto_fires)
		mroce_wcc_rto(dp, mroce_dp_now(dp));
	/* the Local ACK Timeout, not a selective window's RTO or READ hole */
	if ((res.verdict == MROCE_REQWIN_RETRY &&
	     dp->win.st.rto_fires == was.rto_fires &&
	     dp->win.st.read_holes == was.read_holes) ||
	    res.verdict == MROCE_REQWIN_RETRY_EXCEEDED) {
		mroce_count(dp->mdev, MROCE_CNT_LOCAL_ACK_TIMEOUT);
		trace_mroce_local_ack_timeout(dp->qp->ibqp.qp_num, res.psn,
					      dp->win.retry_left);
	}
	if (res.verdict == MROCE_REQWIN_RETRY) {
		/*
		 * A READ hole found lost: the READ is asked again from it,
		 * and the responses of its first answer still on the way
		 * say nothing new (they are still placed).
		 */
		dp->rd_gap = dp->win.st.read_holes != was.read_holes;
		mroce_req_lost(dp, res.psn);
		if (dp->rd_gap)
			mroce_comp_read_gaps_lost(dp, res.psn,
						  mroce_dp_now(dp));
	} else if (res.verdict == MROCE_REQWIN_RETRY_EXCEEDED)
		mroce_comp_fail(dp, IB_WC_RETRY_EXC_ERR);
}
