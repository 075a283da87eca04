// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Discrete-event simulator of a selective-repeat connection (srsim.h).
 */
#include "mroce_core.h"
#include "mroce_ext.h"
#include "mroce_hdr.h"
#include "mroce_psn.h"
#include "mroce_reqwin.h"
#include "mroce_sack.h"
#include "srsim.h"

#define SRSIM_EVENTS	8192

enum srsim_ev_type { EV_DATA, EV_ACK, EV_FLUSH };

struct srsim_ev {
	u64 t;
	u64 seq;	/* ties: first scheduled, first run */
	u8 type;
	bool dup;
	bool resend;	/* EV_DATA: a resend of the unit */
	u8 words;
	u32 psn;	/* EV_DATA: its PSN; EV_ACK: the cumulative PSN */
	u64 ts;		/* EV_DATA: when sent; EV_ACK: that, echoed */
	u64 map[MROCE_SACKH_MAX_WORDS];
};

struct srsim {
	const struct srsim_cfg *c;
	struct srsim_res *r;
	struct srsim_ev ev[SRSIM_EVENTS];
	u32 nev;
	u64 seq;
	u64 rng;
	u64 now;
	u64 link_free;	/* the sender's link is busy until then */
	struct mroce_reqwin w;
	u32 next;	/* units sent for the first time */
	/* receiver */
	struct mroce_sack rx;
	u32 since_ack;
	bool flush_armed;
	bool dead;
};

static u64 srsim_rand(struct srsim *s)
{
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return s->rng * 0x2545f4914f6cdd1dULL;
}

static bool srsim_chance(struct srsim *s, u32 ppm)
{
	return ppm && srsim_rand(s) % 1000000 < ppm;
}

static bool srsim_before(const struct srsim_ev *a, const struct srsim_ev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static int srsim_push(struct srsim *s, const struct srsim_ev *e)
{
	u32 i;

	if (s->nev == SRSIM_EVENTS)
		return -ENOSPC;
	i = s->nev++;
	s->ev[i] = *e;
	s->ev[i].seq = s->seq++;
	while (i && srsim_before(&s->ev[i], &s->ev[(i - 1) / 2])) {
		struct srsim_ev tmp = s->ev[i];

		s->ev[i] = s->ev[(i - 1) / 2];
		s->ev[(i - 1) / 2] = tmp;
		i = (i - 1) / 2;
	}
	return 0;
}

static void srsim_pop(struct srsim *s, struct srsim_ev *e)
{
	u32 i = 0;

	*e = s->ev[0];
	s->ev[0] = s->ev[--s->nev];
	for (;;) {
		u32 l = 2 * i + 1, r = l + 1, m = i;
		struct srsim_ev tmp;

		if (l < s->nev && srsim_before(&s->ev[l], &s->ev[m]))
			m = l;
		if (r < s->nev && srsim_before(&s->ev[r], &s->ev[m]))
			m = r;
		if (m == i)
			break;
		tmp = s->ev[i];
		s->ev[i] = s->ev[m];
		s->ev[m] = tmp;
		i = m;
	}
}

/* Put request @psn on the wire: the link decides what arrives, when. */
static int srsim_xmit(struct srsim *s, u32 psn, bool resend)
{
	const struct srsim_cfg *c = s->c;
	struct srsim_ev e = { .type = EV_DATA, .psn = psn, .resend = resend };
	int copies = 1 + srsim_chance(s, c->dup_ppm), err = 0;
	u64 at;

	s->link_free = (s->link_free > s->now ? s->link_free : s->now) +
		       c->tx_ns;
	e.ts = s->now;
	s->r->sent++;
	if (srsim_chance(s, c->loss_ppm))
		return 0;
	while (copies-- && !err) {
		at = s->link_free;
		if (!srsim_chance(s, c->reorder_ppm))
			at += c->delay_ns;
		if (c->jitter_ns)
			at += srsim_rand(s) % (c->jitter_ns + 1);
		e.t = at;
		err = srsim_push(s, &e);
	}
	return err;
}

/* Send what the window allows while the link is free. */
static int srsim_pump(struct srsim *s)
{
	u32 psn, wqe;
	bool resend;
	int err;

	while (s->link_free <= s->now) {
		resend = mroce_reqwin_resend(&s->w, s->now, &psn, &wqe);
		if (resend) {
			if (mroce_reqwin_resent(&s->w, psn, 1, s->now))
				return -EPROTO;
			s->r->resent++;
		} else if (s->next < s->c->units &&
			   !mroce_reqwin_sent(&s->w, 1, s->now, s->next, &psn)) {
			s->next++;
		} else {
			return 0;
		}
		err = srsim_xmit(s, psn, resend);
		if (err)
			return err;
	}
	return 0;
}

/* The receiver answers: cumulative point, SACK bitmap, duplicate flag. */
static int srsim_ack(struct srsim *s, u64 ts, bool dup)
{
	struct srsim_ev e = { .type = EV_ACK, .dup = dup, .ts = ts };
	struct mroce_sackh x;

	s->since_ack = 0;
	s->r->acks++;
	if (srsim_chance(s, s->c->ack_loss_ppm))
		return 0;
	mroce_ext_sack_from_board(&s->rx, &x);
	e.psn = mroce_psn_sub(s->rx.base, 1);
	e.words = x.words;
	memcpy(e.map, x.map, sizeof(e.map));
	e.t = s->now;
	if (!s->c->ack_reorder || !srsim_chance(s, s->c->reorder_ppm))
		e.t += s->c->delay_ns;
	return srsim_push(s, &e);
}

/* Has the receiver anything beyond its cumulative point? */
static bool srsim_holes(const struct srsim *s)
{
	struct mroce_sackh x;

	mroce_ext_sack_from_board(&s->rx, &x);
	return x.words;
}

static int srsim_rx_data(struct srsim *s, const struct srsim_ev *e)
{
	u32 base = s->rx.base;
	struct srsim_ev f = { .type = EV_FLUSH };

	if (s->dead)
		return 0;
	switch (mroce_sack_mark(&s->rx, e->psn)) {
	case MROCE_SACK_DUP:
		s->r->rx_dups++;
		s->r->spurious += e->resend;
		return srsim_ack(s, e->ts, true);
	case MROCE_SACK_BEYOND:
		return srsim_ack(s, e->ts, false);
	default:
		break;
	}
	s->r->delivered = mroce_psn_dist(s->c->psn, s->rx.base);
	if (s->c->dead_after && s->r->delivered >= s->c->units / 2)
		s->dead = true;
	/* a gap, or a gap filled: at once */
	if (e->psn != base || mroce_psn_dist(base, s->rx.base) != 1 ||
	    srsim_holes(s))
		return srsim_ack(s, e->ts, false);
	if (++s->since_ack >= s->c->ack_every)
		return srsim_ack(s, e->ts, false);
	if (s->flush_armed)
		return 0;
	s->flush_armed = true;
	f.t = s->now + s->c->ack_delay_ns;
	f.ts = e->ts;
	return srsim_push(s, &f);
}

static void srsim_tx_ack(struct srsim *s, const struct srsim_ev *e)
{
	struct mroce_sr_ack a = {
		.psn = e->psn,
		.syndrome = mroce_aeth_ack_syndrome(MROCE_AETH_CREDITS_INVALID),
		.words = e->words,
		.dup = e->dup,
		.rtt = s->c->no_echo ? 0 : s->now - e->ts,
		.map = e->map,
	};
	struct mroce_reqwin_res res;

	mroce_reqwin_on_sack(&s->w, &a, s->now, &res);
}

static int srsim_event(struct srsim *s, const struct srsim_ev *e)
{
	switch (e->type) {
	case EV_DATA:
		return srsim_rx_data(s, e);
	case EV_ACK:
		srsim_tx_ack(s, e);
		return 0;
	default:
		s->flush_armed = false;
		return s->since_ack ? srsim_ack(s, e->ts, false) : 0;
	}
}

/* The sender has something to send once the link is free. */
static bool srsim_wants(struct srsim *s)
{
	return mroce_reqwin_lost(&s->w) ||
	       (s->next < s->c->units &&
		mroce_reqwin_can_send(&s->w, 1, s->now));
}

void srsim_defaults(struct srsim_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->units = 20000;
	c->psn = 0xfff000;		/* crosses the PSN wrap */
	c->tx_ns = 1000;		/* 4 KiB at ~33 Gb/s */
	c->delay_ns = 20000;
	c->ack_every = 4;
	c->ack_delay_ns = 5000;
	c->wnd = MROCE_SB_SLOTS;
	c->pipe = 256;			/* the module's MROCE_SR_PIPE */
	c->timeout = 14;		/* 67 ms */
	c->retry_cnt = 7;
	c->seed = 1;
	c->time_limit_ns = 60ULL * 1000 * MROCE_NSEC_PER_MSEC;
}

/**
 * srsim_run() - simulate until every unit is delivered and acknowledged
 * @c: the connection and the link
 * @r: what happened
 *
 * Return: 0, or a negative errno when the simulator itself failed (event
 * queue full, a window call refused what it offered).
 */
int srsim_run(const struct srsim_cfg *c, struct srsim_res *r)
{
	static struct srsim sim;
	struct srsim *s = &sim;
	struct mroce_reqwin_cfg wc = {
		.psn = c->psn, .wnd = c->wnd, .retry_cnt = c->retry_cnt,
		.rnr_retry = 0, .timeout = c->timeout, .selective = true,
		.ack_delay = c->ack_delay_ns, .pipe = c->pipe,
	};
	struct mroce_reqwin_res res;
	struct srsim_ev e;
	u64 at, t;
	int err = 0;

	memset(s, 0, sizeof(*s));
	memset(r, 0, sizeof(*r));
	s->c = c;
	s->r = r;
	s->rng = c->seed * 0x9e3779b97f4a7c15ULL + 1;
	mroce_reqwin_init(&s->w, &wc);
	mroce_sack_init(&s->rx, c->psn);
	while (!err && s->now < c->time_limit_ns) {
		if (mroce_psn_dist(c->psn, s->w.una) == c->units) {
			r->done = true;
			break;
		}
		err = srsim_pump(s);
		if (err)
			break;
		/* the next thing to happen */
		t = c->time_limit_ns;
		if (s->nev && s->ev[0].t < t)
			t = s->ev[0].t;
		if (mroce_reqwin_next_event(&s->w, &at) && at < t)
			t = at;
		if (srsim_wants(s) && s->link_free < t)
			t = s->link_free;
		if (t > s->now)
			s->now = t;
		if (s->nev && s->ev[0].t <= s->now) {
			srsim_pop(s, &e);
			err = srsim_event(s, &e);
			continue;
		}
		if (mroce_reqwin_next_event(&s->w, &at) && at <= s->now) {
			mroce_reqwin_on_timer(&s->w, s->now, &res);
			if (res.verdict == MROCE_REQWIN_RETRY_EXCEEDED) {
				r->retry_exceeded = true;
				break;
			}
		}
	}
	r->elapsed_ns = s->now;
	r->spurious_seen = s->w.st.spurious;
	r->rack_losses = s->w.st.rack_losses;
	r->tlp_probes = s->w.st.tlp_probes;
	r->rto_fires = s->w.st.rto_fires;
	r->srtt_ns = s->w.rtt.srtt;
	return err;
}

u32 srsim_ratio(const struct srsim_res *r, const struct srsim_res *clean)
{
	if (!r->done || !r->elapsed_ns)
		return 0;
	return (u32)(100 * clean->elapsed_ns / r->elapsed_ns);
}
