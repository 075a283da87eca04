// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Delay-based window of a MetaRoCE-mode RC requester on a lossy fabric
 * (Documentation/core.rst, "Delay-based window"; the controller: core
 * mroce_cc.c).  When the device's fabric policy (sysfs metaroce_fabric)
 * is lossy as the QP's MetaRoCE span starts, every MR_ACK gives the
 * controller the bytes it reports delivered, the RTT of its timestamp
 * echo and whether selective repeat found a loss; RTOs and CNPs count
 * too.  The window, in path-MTU packets, bounds the PSNs the requester
 * keeps unreported (core mroce_reqwin.c), and while it is below its cap
 * request packets leave paced at its rate (mroce_rp_wait()).  A READ's
 * responses are RoCEv2 packets without timestamps: its PSNs count in the
 * window, its responses give no RTT.  RoCE-mode QPs (no timestamps) keep
 * DCQCN (mroce_rp.c) whatever the policy.
 */
#include "mroce_dp.h"
#include "mroce_trace.h"

/* The pacing ceiling, bytes per second: 100 Gb/s, as DCQCN's. */
#define MROCE_WCC_LINE_RATE	(100000000000ULL / 8)

/* Off: a new connection, a reset QP, a lossless fabric. */
void mroce_wcc_reset(struct mroce_dpqp *dp)
{
	lockdep_assert_held(&dp->run_lock);
	dp->cc_on = false;
	dp->win.cwnd = 0;
}

/* The controller's window to the requester's, traced on a change. */
static void mroce_wcc_apply(struct mroce_dpqp *dp, u64 cuts, u32 cwnd)
{
	const struct mroce_cc *cc = &dp->cc;
	bool cut = cc->cuts != cuts;

	dp->win.cwnd = max_t(u32, DIV_ROUND_UP(cc->cwnd, dp->pmtu), 1);
	if (cut || (cc->cwnd == cc->cfg.max_cwnd && cwnd != cc->cwnd))
		trace_mroce_cc_window(dp->qp->ibqp.qp_num, cut, cc->cwnd,
				      dp->win.cwnd,
				      div_u64(cc->rate * 8, 1000000),
				      div_u64(cc->last_rtt, NSEC_PER_USEC),
				      div_u64(cc->base_rtt, NSEC_PER_USEC));
}

/**
 * mroce_wcc_start() - the requester's MetaRoCE span starts
 * @dp: the QP's data path (RC, its window just made selective)
 *
 * On a lossy fabric the window starts at metaroce_cc_init_window.
 */
void mroce_wcc_start(struct mroce_dpqp *dp)
{
	const struct mroce_wcc_params *p = &dp->mdev->wcc;
	struct mroce_cc_cfg cfg = {
		.line_rate = MROCE_WCC_LINE_RATE,
		.mss = dp->pmtu,
		.min_cwnd = READ_ONCE(p->min_window),
		.max_cwnd = READ_ONCE(p->max_window),
		.init_cwnd = READ_ONCE(p->init_window),
		.target_ns = READ_ONCE(p->target_delay_ns),
		.ai = READ_ONCE(p->ai_bytes),
		.beta = READ_ONCE(p->beta),
		.max_mdf = READ_ONCE(p->max_mdf),
	};

	mroce_wcc_reset(dp);
	if (READ_ONCE(dp->mdev->fabric) != MROCE_FABRIC_LOSSY)
		return;
	dp->cc_on = true;
	mroce_cc_init(&dp->cc, &mroce_cc_delay, &cfg);
	mroce_wcc_apply(dp, 0, 0);
}

static void mroce_wcc_update(struct mroce_dpqp *dp,
			     const struct mroce_cc_sample *s)
{
	u64 cuts = dp->cc.cuts;
	u32 cwnd = dp->cc.cwnd;

	mroce_cc_update(&dp->cc, s);
	mroce_wcc_apply(dp, cuts, cwnd);
}

/**
 * mroce_wcc_ack() - an MR_ACK went through the selective window
 * @dp: the QP's data path
 * @unreported: PSNs in flight and not SACKED before it
 *	(mroce_reqwin_unreported())
 * @rtt: its timestamp echo's RTT sample, 0 if none
 * @loss: selective repeat declared units lost on it
 * @now: the clock
 */
void mroce_wcc_ack(struct mroce_dpqp *dp, u32 unreported, u64 rtt,
		   bool loss, u64 now)
{
	u32 left = mroce_reqwin_unreported(&dp->win);
	struct mroce_cc_sample s = {
		.now = now,
		.events = MROCE_CC_EV_ACK | (loss ? MROCE_CC_EV_LOSS : 0),
		.rtt_ns = rtt,
	};

	lockdep_assert_held(&dp->run_lock);
	if (!dp->cc_on)
		return;
	if (unreported > left)
		s.acked_bytes = (unreported - left) * dp->pmtu;
	mroce_wcc_update(dp, &s);
}

/* The selective window's RTO fired. */
void mroce_wcc_rto(struct mroce_dpqp *dp, u64 now)
{
	struct mroce_cc_sample s = { .now = now, .events = MROCE_CC_EV_RTO };

	lockdep_assert_held(&dp->run_lock);
	if (dp->cc_on)
		mroce_wcc_update(dp, &s);
}

/**
 * mroce_wcc_cnp() - a CNP arrived for the QP
 * @dp: the QP's data path
 * @now: the clock
 *
 * Return: true when the delay-based window took it (it runs), false when
 * DCQCN is the QP's reaction point.
 */
bool mroce_wcc_cnp(struct mroce_dpqp *dp, u64 now)
{
	struct mroce_cc_sample s = { .now = now, .events = MROCE_CC_EV_CNP };

	lockdep_assert_held(&dp->run_lock);
	if (!dp->cc_on)
		return false;
	mroce_wcc_update(dp, &s);
	return true;
}

/* Does the window pace (it runs, below its cap)? */
bool mroce_wcc_paced(const struct mroce_dpqp *dp)
{
	return dp->cc_on && dp->cc.cwnd < dp->cc.cfg.max_cwnd;
}

/* How long after a packet of @bytes the next may leave, 0: at once. */
u64 mroce_wcc_gap_ns(const struct mroce_dpqp *dp, u32 bytes)
{
	return dp->cc_on ? mroce_cc_gap_ns(&dp->cc, bytes) : 0;
}
