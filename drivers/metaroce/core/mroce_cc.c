// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Congestion-control hook and the delay-based window controller.
 */
#include "mroce_core.h"
#include "mroce_cc.h"

/* Pacing headroom over cwnd / srtt once the window is a packet or more. */
#define MROCE_CC_PACE_GAIN_NUM	5
#define MROCE_CC_PACE_GAIN_DEN	4

void mroce_cc_init(struct mroce_cc *cc, const struct mroce_cc_ops *ops,
		   const struct mroce_cc_cfg *cfg)
{
	memset(cc, 0, sizeof(*cc));
	cc->ops = ops;
	cc->cfg = *cfg;
	if (!cc->cfg.mss)
		cc->cfg.mss = 1;
	if (!cc->cfg.line_rate)
		cc->cfg.line_rate = 1;
	if (!cc->cfg.min_cwnd)
		cc->cfg.min_cwnd = 1;
	if (cc->cfg.max_cwnd < cc->cfg.min_cwnd)
		cc->cfg.max_cwnd = cc->cfg.min_cwnd;
	if (!cc->cfg.init_cwnd)
		cc->cfg.init_cwnd = 10 * cc->cfg.mss;
	cc->cfg.init_cwnd = clamp_t(u32, cc->cfg.init_cwnd, cc->cfg.min_cwnd,
				    cc->cfg.max_cwnd);
	if (cc->cfg.max_mdf > MROCE_CC_ONE)
		cc->cfg.max_mdf = MROCE_CC_ONE;
	cc->rate = cc->cfg.line_rate;
	cc->cwnd = cc->cfg.max_cwnd;
	ops->init(cc);
}

void mroce_cc_update(struct mroce_cc *cc, const struct mroce_cc_sample *s)
{
	cc->ops->update(cc, s);
}

/**
 * mroce_cc_gap_ns() - how long after a packet of @bytes the next may leave
 * @cc: the controller
 * @bytes: the packet's length
 *
 * Return: 0 while the window is at its cap (not paced), else the packet's
 * time at the pacing rate.
 */
u64 mroce_cc_gap_ns(const struct mroce_cc *cc, u32 bytes)
{
	if (cc->cwnd >= cc->cfg.max_cwnd || !cc->rate)
		return 0;
	return (u64)bytes * MROCE_NSEC_PER_SEC / cc->rate;
}

/* Window and rate from cwnd_fp, within the configured bounds. */
static void mroce_cc_delay_set(struct mroce_cc *cc)
{
	const struct mroce_cc_cfg *c = &cc->cfg;
	u64 rate;

	cc->cwnd_fp = clamp_t(u64, cc->cwnd_fp, (u64)c->min_cwnd * MROCE_CC_ONE,
			      (u64)c->max_cwnd * MROCE_CC_ONE);
	cc->cwnd = cc->cwnd_fp / MROCE_CC_ONE;
	if (!cc->srtt) {
		cc->rate = c->line_rate;
		return;
	}
	rate = (u64)cc->cwnd * MROCE_NSEC_PER_SEC / cc->srtt;
	if (cc->cwnd >= c->mss)
		rate = rate * MROCE_CC_PACE_GAIN_NUM / MROCE_CC_PACE_GAIN_DEN;
	cc->rate = clamp_t(u64, rate, 1, c->line_rate);
}

static void mroce_cc_delay_init(struct mroce_cc *cc)
{
	cc->cwnd_fp = (u64)cc->cfg.init_cwnd * MROCE_CC_ONE;
	mroce_cc_delay_set(cc);
}

/*
 * Shrink the window by @mdf / MROCE_CC_ONE of itself; @gated: at most once
 * per smoothed RTT, since the signals of one window describe one episode.
 */
static void mroce_cc_delay_cut(struct mroce_cc *cc, u64 now, u32 mdf,
			       bool gated)
{
	if (gated && cc->cuts && now - cc->last_cut < cc->srtt)
		return;
	mdf = min_t(u32, mdf, cc->cfg.max_mdf);
	cc->cwnd_fp -= cc->cwnd_fp * mdf / MROCE_CC_ONE;
	cc->last_cut = now;
	cc->cuts++;
}

static void mroce_cc_delay_rtt(struct mroce_cc *cc, u64 rtt)
{
	if (!cc->base_rtt || rtt < cc->base_rtt)
		cc->base_rtt = rtt;
	if (!cc->srtt)
		cc->srtt = rtt;
	else
		cc->srtt = cc->srtt - cc->srtt / 8 + rtt / 8;
	cc->last_rtt = rtt;
}

static void mroce_cc_delay_update(struct mroce_cc *cc,
				  const struct mroce_cc_sample *s)
{
	const struct mroce_cc_cfg *c = &cc->cfg;
	u64 target, delay = 0;

	if (s->rtt_ns) {
		mroce_cc_delay_rtt(cc, s->rtt_ns);
		/* a lone spike is noise: both it and srtt must be high */
		delay = min_t(u64, s->rtt_ns, cc->srtt);
	}
	target = cc->base_rtt + c->target_ns;
	if (s->events & MROCE_CC_EV_RTO) {
		mroce_cc_delay_cut(cc, s->now, c->max_mdf, false);
	} else if (s->events & MROCE_CC_EV_LOSS) {
		mroce_cc_delay_cut(cc, s->now, c->max_mdf, true);
	} else if (s->events & MROCE_CC_EV_CNP) {
		mroce_cc_delay_cut(cc, s->now, c->max_mdf / 2, true);
	} else if (delay > target) {
		/* beta times the share of the RTT that is excess delay */
		u64 mdf = (u64)c->beta * (delay - target) / delay;

		mroce_cc_delay_cut(cc, s->now, min_t(u64, mdf, MROCE_CC_ONE),
				   true);
	} else if ((s->events & MROCE_CC_EV_ACK) && s->acked_bytes) {
		/*
		 * Until the first decrease, the window grows by what is
		 * delivered (doubles per round trip, TCP's slow start); then
		 * by ai bytes per window of delivered bytes, or per packet's
		 * worth below one packet, so a tiny window grows back in RTTs.
		 */
		u64 per = max_t(u64, cc->cwnd, c->mss);

		if (!cc->cuts)
			cc->cwnd_fp += (u64)s->acked_bytes * MROCE_CC_ONE;
		else
			cc->cwnd_fp += (u64)c->ai * s->acked_bytes *
				       MROCE_CC_ONE / per;
	}
	mroce_cc_delay_set(cc);
}

const struct mroce_cc_ops mroce_cc_delay = {
	.name	= "delay",
	.init	= mroce_cc_delay_init,
	.update	= mroce_cc_delay_update,
};
