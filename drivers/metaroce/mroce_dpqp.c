// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A QP's data path through its life, the hooks of the verbs layer:
 *   mroce_dp_qp_create()   create_qp, before the QP is published
 *   mroce_dp_modify()      every modify_qp, with qp->state_lock held
 *   mroce_dp_qp_destroy()  destroy_qp, after it is unpublished
 * The data path itself runs in the QP's task (mroce_task.c).
 */
#include "mroce_dp.h"

/**
 * mroce_dp_qp_create() - give a new QP its data path
 * @qp: the QP, rings allocated, not yet published
 * @init: its creation attributes
 *
 * Return: 0 or -ENOMEM.
 */
int mroce_dp_qp_create(struct mroce_qp *qp, struct ib_qp_init_attr *init)
{
	struct mroce_dpqp *dp;
	int err;

	/* the selective window's scoreboard makes it some 40 KiB */
	dp = kvzalloc(sizeof(*dp), GFP_KERNEL);
	if (!dp)
		return -ENOMEM;
	dp->qp = qp;
	dp->mdev = to_mdev(qp->ibqp.device);
	/*
	 * The creator's CPU: the process that posts usually stays there, and
	 * its doorbells can then run the task inline.
	 */
	dp->cpu = raw_smp_processor_id();
	mroce_task_init(dp);

	err = dst_cache_init(&dp->dst, GFP_KERNEL);
	if (err)
		goto err_free;
	err = mroce_spray_init(dp);
	if (err)
		goto err_dst;
	err = mroce_req_init(dp);
	if (err)
		goto err_spray;
	err = mroce_resp_init(dp, init);
	if (err)
		goto err_req;
	qp->dp = dp;
	return 0;

err_req:
	mroce_req_fini(dp);
err_spray:
	mroce_spray_fini(dp);
err_dst:
	dst_cache_destroy(&dp->dst);
err_free:
	kvfree(dp);
	return err;
}

/* destroy_qp, after the QP left qp_xa: drain, then free. */
void mroce_dp_qp_destroy(struct mroce_qp *qp)
{
	struct mroce_dpqp *dp = qp->dp;

	if (!dp)
		return;
	/*
	 * Unpublished first: the resource tracker reads qp->dp under RCU
	 * (mroce_restrack.c), and mroce_task_stop() waits for a grace period.
	 */
	WRITE_ONCE(qp->dp, NULL);
	mroce_task_stop(dp);
	mroce_resp_fini(dp);
	mroce_req_fini(dp);
	mroce_spray_fini(dp);
	dst_cache_destroy(&dp->dst);
	kvfree(dp);
}

/**
 * mroce_dp_modify() - the QP moved from @cur to @next
 * @qp: the QP; qp->state is already @next
 * @cur: the previous state
 * @next: the new state
 * @mask: the attributes modify_qp changed (IB_QP_*)
 *
 * Caller holds qp->state_lock.  The task is excluded (run_lock) while the
 * data path follows the transition: RTR starts the responder (expected PSN
 * = rq_psn), RTS the requester (sq_psn), SQD with en_sqd_async_notify arms
 * IB_EVENT_SQ_DRAINED (reported by the task once nothing is outstanding),
 * ERR flushes the receive WQEs the responder holds (the one in progress,
 * those taken from an SRQ for later messages; the verbs layer flushes the
 * rings), RESET forgets everything.
 */
void mroce_dp_modify(struct mroce_qp *qp, enum ib_qp_state cur,
		     enum ib_qp_state next, int mask)
{
	struct mroce_dpqp *dp = qp->dp;

	lockdep_assert_held(&qp->state_lock);
	if (!dp)
		return;
	if (next != IB_QPS_SQD)
		clear_bit(MROCE_TASK_SQD_ARMED, &dp->flags);
	else if (cur != IB_QPS_SQD && qp->attr.en_sqd_async_notify)
		set_bit(MROCE_TASK_SQD_ARMED, &dp->flags);
	spin_lock_bh(&dp->run_lock);
	if (mask & (IB_QP_AV | IB_QP_DEST_QPN)) {
		/* not under an ACK sent after a run (mroce_dp_ack_after()) */
		spin_lock(&dp->ack_lock);
		dst_cache_reset(&dp->dst);
		mroce_spray_reroute(dp);
		dp->av = qp->av;
		dp->dqpn = qp->attr.dest_qp_num;
		dp->sport = rdma_get_udp_sport(qp->av.flow_label,
					       qp->ibqp.qp_num, dp->dqpn);
		spin_unlock(&dp->ack_lock);
	}
	if (mroce_qp_connected(qp))
		dp->pmtu = ib_mtu_enum_to_int(qp->attr.path_mtu);
	else
		dp->pmtu = ib_mtu_enum_to_int(mroce_active_mtu(dp->mdev->ndev));

	switch (next) {
	case IB_QPS_RESET:
		mroce_req_stop(dp);
		skb_queue_purge(&dp->rxq);
		hrtimer_try_to_cancel(&dp->timer);
		mroce_req_reset(dp);
		mroce_resp_reset(dp);
		/* an ACK of the old connection is not due again */
		clear_bit(MROCE_TASK_ACK_AGAIN, &dp->flags);
		mroce_nego_start(dp);
		dp->error = false;
		break;
	case IB_QPS_RTR:
		if (cur == IB_QPS_INIT) {
			mroce_resp_start(dp);
			mroce_nego_start(dp);
			/* A QP that stays in RTR answers READs: paced too. */
			mroce_rp_reset(dp);
		}
		break;
	case IB_QPS_RTS:
		if (cur == IB_QPS_RTR)
			mroce_req_start(dp);
		break;
	case IB_QPS_ERR:
		hrtimer_try_to_cancel(&dp->timer);
		mroce_resp_flush(dp);
		mroce_req_stop(dp);
		break;
	default:
		break;
	}
	spin_unlock_bh(&dp->run_lock);
	if (next == IB_QPS_RTS || next == IB_QPS_SQD)
		mroce_task_schedule(dp);
	else
		mroce_task_release(dp);
}
