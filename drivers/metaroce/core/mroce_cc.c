// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Congestion-control hook and the two built-in controllers.
 */
#include "mroce_core.h"
#include "mroce_cc.h"

void mroce_cc_init(struct mroce_cc *cc, const struct mroce_cc_ops *ops,
		   const struct mroce_cc_cfg *cfg)
{
	memset(cc, 0, sizeof(*cc));
	cc->ops = ops;
	cc->cfg = *cfg;
	if (!cc->cfg.mss)
		cc->cfg.mss = 1;
	if (cc->cfg.min_cwnd < cc->cfg.mss)
		cc->cfg.min_cwnd = cc->cfg.mss;
	if (cc->cfg.max_cwnd < cc->cfg.min_cwnd)
		cc->cfg.max_cwnd = cc->cfg.min_cwnd;
	cc->rate = cc->cfg.line_rate;
	cc->cwnd = cc->cfg.max_cwnd;
	ops->init(cc);
}

void mroce_cc_update(struct mroce_cc *cc, const struct mroce_cc_sample *s)
{
	cc->ops->update(cc, s);
}

static void mroce_cc_fixed_init(struct mroce_cc *cc)
{
}

static void mroce_cc_fixed_update(struct mroce_cc *cc,
				  const struct mroce_cc_sample *s)
{
}

const struct mroce_cc_ops mroce_cc_fixed = {
	.name	= "fixed",
	.init	= mroce_cc_fixed_init,
	.update	= mroce_cc_fixed_update,
};

/* AIMD private state. */
#define AIMD_ACKED	0	/* bytes acked since the last increase */
#define AIMD_LAST_CUT	1	/* time of the last decrease */
#define AIMD_CUT_VALID	2	/* a decrease has happened */

static void mroce_cc_aimd_init(struct mroce_cc *cc)
{
	/* Start like TCP's initial window: ten packets. */
	cc->cwnd = clamp_t(u32, 10 * cc->cfg.mss, cc->cfg.min_cwnd,
			   cc->cfg.max_cwnd);
}

/*
 * One decrease per target RTT at most: the marks of one window reflect a
 * single congestion episode (DCQCN and TCP both cut once per RTT).
 */
static void mroce_cc_aimd_cut(struct mroce_cc *cc, u64 now, unsigned int sh)
{
	u32 cut;

	if (cc->priv[AIMD_CUT_VALID] &&
	    now - cc->priv[AIMD_LAST_CUT] < cc->cfg.target_rtt_ns)
		return;
	cc->priv[AIMD_CUT_VALID] = 1;
	cc->priv[AIMD_LAST_CUT] = now;
	cc->priv[AIMD_ACKED] = 0;
	cut = cc->cwnd >> sh;
	cc->cwnd = max_t(u32, cc->cwnd - cut, cc->cfg.min_cwnd);
}

static void mroce_cc_aimd_update(struct mroce_cc *cc,
				 const struct mroce_cc_sample *s)
{
	if (s->events & MROCE_CC_EV_LOSS) {
		mroce_cc_aimd_cut(cc, s->now, 1);
		return;
	}
	if ((s->events & (MROCE_CC_EV_ECN | MROCE_CC_EV_CNP)) ||
	    (s->rtt_ns && cc->cfg.target_rtt_ns &&
	     s->rtt_ns > cc->cfg.target_rtt_ns)) {
		mroce_cc_aimd_cut(cc, s->now, 3);
		return;
	}
	if (!(s->events & MROCE_CC_EV_ACK))
		return;
	/* One mss per window of acked bytes (RFC 5681 byte counting). */
	cc->priv[AIMD_ACKED] += s->acked_bytes;
	while (cc->priv[AIMD_ACKED] >= cc->cwnd) {
		cc->priv[AIMD_ACKED] -= cc->cwnd;
		cc->cwnd = min_t(u32, cc->cwnd + cc->cfg.mss,
				 cc->cfg.max_cwnd);
		if (cc->cwnd == cc->cfg.max_cwnd) {
			cc->priv[AIMD_ACKED] = 0;
			break;
		}
	}
}

const struct mroce_cc_ops mroce_cc_aimd = {
	.name	= "aimd",
	.init	= mroce_cc_aimd_init,
	.update	= mroce_cc_aimd_update,
};
