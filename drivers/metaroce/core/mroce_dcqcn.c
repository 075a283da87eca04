// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * DCQCN reaction point (mroce_dcqcn.h).
 *
 * On a CNP, at most once per rate_reduce_monitor_period: the target rate
 * takes the current one, and the current rate drops by rc * alpha / 2
 * (alpha of 1023, shifted by rpg_gd = 11), never below rpg_min_dec_fac
 * percent of itself nor below rpg_min_rate; both increase counters start
 * over.
 *
 * Alpha, every dce_tcp_rtt: alpha = alpha * g / 1024 + (1024 - g) when a
 * CNP came in the period, else alpha * g / 1024 (g = dce_tcp_g).
 *
 * Increase events: every rpg_time_reset (timer stage T) and every
 * rpg_byte_reset bytes sent (byte-counter stage BC), each followed by
 * rc = (rt + rc) / 2 after the target moved: not at all while both
 * stages are below rpg_threshold (fast recovery), by rpg_ai_rate while
 * one is (additive increase), by (min(T, BC) - threshold) * rpg_hai_rate
 * once both are past it (hyper increase).  The target never exceeds the
 * maximum; once the current rate is back there the QP is unthrottled.
 */
#include "mroce_core.h"
#include "mroce_dcqcn.h"

#define MBPS		1000000ULL
#define NSEC_PER_SEC	1000000000ULL
/*
 * Timer events caught up in one call at most: a QP idle longer than this
 * many increase periods (1.2 s by default) goes back to the maximum rate,
 * which the events would have reached by then with any sane steps.  Also
 * the bound of the stage counters and of byte-counter events per call.
 */
#define DCQCN_CATCH_UP	4096

void mroce_dcqcn_params_default(struct mroce_dcqcn_params *p)
{
	p->rpg_time_reset_us = 300;
	p->rpg_byte_reset = 32767;
	p->rpg_threshold = 5;
	p->rpg_max_rate_mbps = 0;
	p->rpg_ai_rate_mbps = 5;
	p->rpg_hai_rate_mbps = 50;
	p->rpg_gd = 11;
	p->rpg_min_dec_fac = 50;
	p->rpg_min_rate_mbps = 1;
	p->rate_to_set_on_first_cnp_mbps = 0;
	p->dce_tcp_g = 1019;
	p->dce_tcp_rtt_us = 1;
	p->rate_reduce_monitor_period_us = 4;
	p->initial_alpha_value = 1023;
}

static u64 mroce_dcqcn_max(u64 line_rate_bps,
			   const struct mroce_dcqcn_params *p)
{
	u64 max = p->rpg_max_rate_mbps * MBPS;

	if (!max || (line_rate_bps && max > line_rate_bps))
		max = line_rate_bps;
	return max ? max : 100000 * MBPS;
}

void mroce_dcqcn_init(struct mroce_dcqcn *d, u64 line_rate_bps,
		      const struct mroce_dcqcn_params *p)
{
	memset(d, 0, sizeof(*d));
	d->max_rate = mroce_dcqcn_max(line_rate_bps, p);
	d->rc = d->max_rate;
	d->rt = d->max_rate;
}

/* x * (g / 1024)^n, by squaring: n may be large after an idle time. */
static u32 mroce_dcqcn_decay(u32 x, u32 g, u64 n)
{
	u64 f = (u64)g << 6, r = 1ULL << 16;	/* fixed point, 16 bits */

	while (n && r) {
		if (n & 1)
			r = r * f >> 16;
		f = f * f >> 16;
		n >>= 1;
	}
	return (u32)((u64)x * r >> 16);
}

static void mroce_dcqcn_alpha(struct mroce_dcqcn *d,
			      const struct mroce_dcqcn_params *p, u64 now)
{
	u64 period = (u64)max_t(u32, p->dce_tcp_rtt_us, 1) *
		     MROCE_NSEC_PER_USEC;
	u64 n = (now - d->alpha_at) / period;
	u32 g = min_t(u32, p->dce_tcp_g, 1024);

	if (!n)
		return;
	d->alpha_at += n * period;
	if (d->cnp_seen) {
		d->alpha = (d->alpha * g + (1024 - g) * 1024) / 1024;
		d->alpha = min_t(u32, d->alpha, 1023);
		d->cnp_seen = false;
		n--;
	}
	d->alpha = mroce_dcqcn_decay(d->alpha, g, n);
}

static void mroce_dcqcn_increase(struct mroce_dcqcn *d,
				 const struct mroce_dcqcn_params *p)
{
	u32 f = p->rpg_threshold;
	u32 lo = min_t(u32, d->t_stage, d->bc_stage);
	u32 hi = max_t(u32, d->t_stage, d->bc_stage);

	if (lo > f)
		d->rt += (u64)(lo - f) * p->rpg_hai_rate_mbps * MBPS;
	else if (hi >= f)
		d->rt += (u64)p->rpg_ai_rate_mbps * MBPS;
	d->rt = min_t(u64, d->rt, d->max_rate);
	d->rc = (d->rt + d->rc + 1) / 2;
	if (d->rc >= d->max_rate) {
		/* Back at the maximum: unthrottled until the next CNP. */
		d->rc = d->max_rate;
		d->active = false;
	}
}

/**
 * mroce_dcqcn_advance() - catch the periodic events up to @now
 * @d: the QP's state
 * @p: its device's parameters
 * @now: the clock
 */
void mroce_dcqcn_advance(struct mroce_dcqcn *d,
			 const struct mroce_dcqcn_params *p, u64 now)
{
	u64 period, n;

	if (!d->active)
		return;
	mroce_dcqcn_alpha(d, p, now);
	period = (u64)max_t(u32, p->rpg_time_reset_us, 1) *
		 MROCE_NSEC_PER_USEC;
	n = (now - d->inc_at) / period;
	d->inc_at += n * period;
	if (n > DCQCN_CATCH_UP) {
		d->rc = d->max_rate;
		d->rt = d->max_rate;
		d->active = false;
		return;
	}
	while (n-- && d->active) {
		if (d->t_stage < DCQCN_CATCH_UP)
			d->t_stage++;
		mroce_dcqcn_increase(d, p);
	}
}

/**
 * mroce_dcqcn_cnp() - a CNP arrived for the QP
 * @d: the QP's state
 * @p: its device's parameters
 * @now: the clock
 *
 * Return: true when it cut the rate (false: within the monitor period of
 * the last cut, which it still counts towards alpha).
 */
bool mroce_dcqcn_cnp(struct mroce_dcqcn *d,
		     const struct mroce_dcqcn_params *p, u64 now)
{
	u64 floor, cut, first;

	d->cnps++;
	if (!d->active) {
		/* The first CNP of a QP sending at the maximum. */
		d->active = true;
		d->alpha = min_t(u32, p->initial_alpha_value, 1023);
		d->alpha_at = now;
		d->inc_at = now;
		d->cut_valid = false;
		first = (u64)p->rate_to_set_on_first_cnp_mbps * MBPS;
		if (first && first < d->max_rate) {
			d->rc = first;
			d->rt = first;
		}
	} else {
		mroce_dcqcn_advance(d, p, now);
	}
	d->cnp_seen = true;
	if (d->cut_valid && now - d->cut_at <
	    (u64)p->rate_reduce_monitor_period_us * MROCE_NSEC_PER_USEC)
		return false;
	d->rt = d->rc;
	cut = (d->rc >> min_t(u32, p->rpg_gd, 63)) * d->alpha;
	floor = d->rc / 100 * min_t(u32, p->rpg_min_dec_fac, 100);
	d->rc = d->rc - min_t(u64, cut, d->rc);
	d->rc = max_t(u64, d->rc, floor);
	d->rc = max_t(u64, d->rc, (u64)p->rpg_min_rate_mbps * MBPS);
	d->rc = max_t(u64, d->rc, 1);
	d->t_stage = 0;
	d->bc_stage = 0;
	d->bytes = 0;
	d->inc_at = now;
	d->cut_at = now;
	d->cut_valid = true;
	d->cuts++;
	return true;
}

/**
 * mroce_dcqcn_sent() - @bytes of the QP's requests went out
 * @d: the QP's state
 * @p: its device's parameters
 * @bytes: their length on the wire
 * @now: the clock
 */
void mroce_dcqcn_sent(struct mroce_dcqcn *d,
		      const struct mroce_dcqcn_params *p, u32 bytes, u64 now)
{
	u32 events = 0;

	if (!d->active)
		return;
	mroce_dcqcn_advance(d, p, now);
	d->bytes += bytes;
	while (d->active && p->rpg_byte_reset &&
	       d->bytes >= p->rpg_byte_reset && events++ < DCQCN_CATCH_UP) {
		d->bytes -= p->rpg_byte_reset;
		if (d->bc_stage < DCQCN_CATCH_UP)
			d->bc_stage++;
		mroce_dcqcn_increase(d, p);
	}
	if (!d->active || d->bytes >= p->rpg_byte_reset)
		d->bytes = 0;
}

/* Time @bytes take at the current rate (0 when not throttled). */
u64 mroce_dcqcn_gap_ns(const struct mroce_dcqcn *d, u32 bytes)
{
	if (!d->active || !d->rc)
		return 0;
	return (u64)bytes * 8 * NSEC_PER_SEC / d->rc;
}
