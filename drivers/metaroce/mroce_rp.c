// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * DCQCN reaction point of an RC requester (Documentation/wire.rst, "ECN
 * and CNPs"; the algorithm: core mroce_dcqcn.c): a CNP for the QP cuts
 * its rate, and while it is throttled its request packets leave paced, no
 * closer than their length at the current rate; the task's timer
 * (mroce_task_arm()) brings the requester back when the next one is due.
 * The QP's READ responses are paced the same way, at the same rate (one
 * flow), also while the QP stays in RTR.  A QP that never got a CNP, or
 * whose rate climbed back to the maximum, is not paced by DCQCN.  On a
 * lossy fabric a MetaRoCE-mode requester's CNPs go to its delay-based
 * window instead (mroce_wcc.c), which paces the same way while below
 * its cap; when both pace, the longer gap holds.
 */
#include "mroce_dp.h"
#include "mroce_trace.h"

static void mroce_rp_trace(struct mroce_dpqp *dp, bool cut)
{
	const struct mroce_dcqcn *d = &dp->dcqcn;

	trace_mroce_rp_rate(dp->qp->ibqp.qp_num, cut, d->active,
			    d->rc / 1000000, d->rt / 1000000, d->alpha);
}

/* A new connection (INIT to RTR), or a QP reset: unthrottled. */
void mroce_rp_reset(struct mroce_dpqp *dp)
{
	lockdep_assert_held(&dp->run_lock);
	mroce_dcqcn_init(&dp->dcqcn, 0, &dp->mdev->dcqcn);
	mroce_wcc_reset(dp);
	dp->pace_next = 0;
	dp->pace_wait = false;
}

/**
 * mroce_rp_cnp() - a CNP arrived for the QP
 * @dp: the QP's data path
 *
 * Return: true when the reaction point took it (metaroce_rp_enable and
 * an RC QP), false when it is ignored.  Caller holds run_lock.
 */
bool mroce_rp_cnp(struct mroce_dpqp *dp)
{
	struct mroce_dev *mdev = dp->mdev;
	bool cut;

	lockdep_assert_held(&dp->run_lock);
	if (!READ_ONCE(mdev->rp_enable) || !mroce_qp_is_rc(dp->qp))
		return false;
	if (mroce_wcc_cnp(dp, mroce_dp_now(dp)))
		return true;
	cut = mroce_dcqcn_cnp(&dp->dcqcn, &mdev->dcqcn, mroce_dp_now(dp));
	mroce_rp_trace(dp, cut);
	return true;
}

/**
 * mroce_rp_wait() - must the next request packet wait for its pace?
 * @dp: the QP's data path
 * @now: the clock
 *
 * Return: true when the QP is paced (DCQCN throttled it, or its
 * delay-based window is below the cap) and its next packet is not due;
 * then dp->pace_wait is set, and the task's timer runs the task again at
 * dp->pace_next.  Caller holds run_lock.
 */
bool mroce_rp_wait(struct mroce_dpqp *dp, u64 now)
{
	struct mroce_dcqcn *d = &dp->dcqcn;

	lockdep_assert_held(&dp->run_lock);
	dp->pace_wait = false;
	if (d->active) {
		mroce_dcqcn_advance(d, &dp->mdev->dcqcn, now);
		if (!d->active)
			mroce_rp_trace(dp, false);
	}
	if (!d->active && !mroce_wcc_paced(dp))
		return false;
	if (now >= dp->pace_next)
		return false;
	dp->pace_wait = true;
	return true;
}

/**
 * mroce_rp_sent() - a request or READ response packet of @bytes went out
 * @dp: the QP's data path
 * @bytes: its payload and headers
 * @now: the clock
 */
void mroce_rp_sent(struct mroce_dpqp *dp, u32 bytes, u64 now)
{
	struct mroce_dcqcn *d = &dp->dcqcn;
	u64 gap = mroce_wcc_gap_ns(dp, bytes);

	lockdep_assert_held(&dp->run_lock);
	if (d->active) {
		mroce_dcqcn_sent(d, &dp->mdev->dcqcn, bytes, now);
		gap = max(gap, mroce_dcqcn_gap_ns(d, bytes));
	}
	if (gap)
		dp->pace_next = max(dp->pace_next, now) + gap;
}
