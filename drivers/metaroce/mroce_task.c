// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The per-QP data path task: one work item that runs the responder, the
 * completer and the requester of a QP, serialised by dp->run_lock (locking
 * rules in mroce_dp.h), the receive hook and the send doorbell,
 * mroce_dp_kick_sq() (also kernel post_send).  The QP's data path is
 * created, moved between states and destroyed in mroce_dpqp.c.
 *
 * Receive: mroce_task_rx() runs in softirq; it finds the QP (by the BTH
 * destination QPN), queues the skb and, when the task is idle, runs it
 * right there (run to completion, no context switch).  The task hands
 * each packet to mroce_recv_one() (mroce_recv.c: checks, then the
 * responder or the completer), at most MROCE_TASK_BUDGET packets per run;
 * what is left goes to the QP's worker.  Locking and CPU rules: mroce_dp.h.
 */
#include <linux/ktime.h>
#include <linux/udp.h>

#include "mroce_dp.h"
#include "core/mroce_raw.h"

/* Packets queued to one QP before the receive path drops (no memory DoS). */
#define MROCE_RXQ_MAX		4096

u64 mroce_task_now(void)
{
	return ktime_get_ns();
}

/*
 * Queue @work, one of the task's two work items, on the QP's CPU: packets
 * a veth carries are queued per CPU, and a QP that sent from two CPUs
 * would reorder its own packets.
 */
static void mroce_task_queue(struct mroce_dpqp *dp, struct work_struct *work)
{
	if (!test_bit(MROCE_TASK_DEAD, &dp->flags))
		queue_work_on(READ_ONCE(dp->cpu), system_highpri_wq, work);
}

void mroce_task_schedule(struct mroce_dpqp *dp)
{
	mroce_task_queue(dp, &dp->work[0]);
}

/*
 * May this run transmit the QP's requests and READ responses?  A connected
 * QP sends them from its own CPU only (see mroce_task_queue()); a UD QP
 * from anywhere.  Caller has BH (hence migration) disabled.
 */
static bool mroce_task_req_here(struct mroce_dpqp *dp)
{
	return !mroce_qp_connected(dp->qp) ||
	       smp_processor_id() == READ_ONCE(dp->cpu);
}

static bool mroce_task_run(struct mroce_dpqp *dp, bool req, bool posts);

/*
 * Did something arrive that a run in progress may have missed: a packet, the
 * timer, a doorbell that found the task busy?  Called after the lock was
 * dropped and a full barrier (mroce_task_after()).
 */
static bool mroce_task_arrived(struct mroce_dpqp *dp)
{
	return !skb_queue_empty(&dp->rxq) ||
	       test_bit(MROCE_TASK_TIMER, &dp->flags) ||
	       test_bit(MROCE_TASK_KICK, &dp->flags);
}

/*
 * After a holder of run_lock that is not a run of the task (modify_qp, a
 * restrack snapshot) dropped it: what arrived meanwhile found the lock busy
 * and was left to the holder, so hand it to the worker.
 */
void mroce_task_release(struct mroce_dpqp *dp)
{
	smp_mb();
	if (mroce_task_arrived(dp))
		mroce_task_schedule(dp);
}

/* Events found by a run, reported without run_lock. */
static void mroce_task_events(struct mroce_dpqp *dp)
{
	if (test_and_clear_bit(MROCE_TASK_SQD_EVENT, &dp->flags))
		mroce_qp_event(dp->qp, IB_EVENT_SQ_DRAINED);
}

/*
 * After a run: must the worker run again?  Yes for anything that arrived
 * while the lock was held (another CPU's packet, the timer) or that the
 * run left over.  The full barrier pairs with the one in mroce_task_rx():
 * either that side's trylock saw the lock free, or we see its packet here.
 */
static bool mroce_task_after(struct mroce_dpqp *dp, bool more)
{
	mroce_task_events(dp);
	smp_mb();
	return more || mroce_task_arrived(dp);
}

/* What a run left: nothing, what arrived during it, or its own leftovers. */
enum { MROCE_RUN_DONE, MROCE_RUN_ARRIVED, MROCE_RUN_LEFT };

/*
 * Take the MR_ACK a run recorded (dp->ack_x), to send it once run_lock is
 * dropped (mroce_dp_ack_after()).  Caller holds run_lock.
 */
static bool mroce_task_take_ack(struct mroce_dpqp *dp, struct mroce_xhdr *x,
				bool *csum)
{
	if (!dp->ack_x_set)
		return false;
	*x = dp->ack_x;
	*csum = dp->ack_x_csum;
	dp->ack_x_set = false;
	return true;
}

/* One run; the caller took run_lock (BH disabled), which is dropped here. */
static int mroce_task_run_unlock(struct mroce_dpqp *dp, bool posts)
	__releases(&dp->run_lock)
{
	bool more = mroce_task_run(dp, mroce_task_req_here(dp), posts);
	struct mroce_xhdr x;
	bool ack, csum;

	ack = mroce_task_take_ack(dp, &x, &csum);
	spin_unlock(&dp->run_lock);
	if (ack)
		mroce_dp_ack_after(dp, &x, csum);
	if (!mroce_task_after(dp, more))
		return MROCE_RUN_DONE;
	return more ? MROCE_RUN_LEFT : MROCE_RUN_ARRIVED;
}

/*
 * After a run here (softirq or doorbell, BH disabled): what arrived during
 * it (a packet from another CPU, a doorbell that found the task busy) is
 * taken in one more run here rather than by the worker: in a ping-pong the
 * peer's next request or the application's next post comes while the run
 * that delivered the last one still holds the lock, and a worker costs two
 * context switches.  What a run left over (its budget spent), or what
 * arrived again, goes to the worker.
 */
static void mroce_task_finish(struct mroce_dpqp *dp, int left, bool posts)
{
	if (left == MROCE_RUN_ARRIVED) {
		/* Busy: the holder sees what we saw, after its unlock. */
		if (test_bit(MROCE_TASK_DEAD, &dp->flags) ||
		    !spin_trylock(&dp->run_lock))
			return;
		left = mroce_task_run_unlock(dp, posts);
	}
	if (left != MROCE_RUN_DONE)
		mroce_task_schedule(dp);
}

/*
 * Run the task in the current context if it is idle.  Caller has BH
 * disabled (softirq, or local_bh_disable()).  Returns false when another
 * context holds the task: that one, or the worker, picks the work up.
 */
static bool mroce_task_try_run(struct mroce_dpqp *dp)
{
	if (test_bit(MROCE_TASK_DEAD, &dp->flags) ||
	    !spin_trylock(&dp->run_lock))
		return false;
	mroce_task_finish(dp, mroce_task_run_unlock(dp, false), false);
	return true;
}

/*
 * Soft hrtimer (softirq): transport / RNR timer.  A task busy elsewhere
 * is left to its holder, which finds TIMER set after its unlock (the
 * barriers pair as for a doorbell's KICK), rather than to the worker: the
 * transport timer is left armed across messages and often fires during a
 * run.
 */
static enum hrtimer_restart mroce_task_timer_fn(struct hrtimer *t)
{
	struct mroce_dpqp *dp = container_of(t, struct mroce_dpqp, timer);

	set_bit(MROCE_TASK_TIMER, &dp->flags);
	/* Pairs with mroce_task_after() of the holder, as for KICK. */
	smp_mb__after_atomic();
	mroce_task_try_run(dp);
	return HRTIMER_NORESTART;
}

/*
 * A fatal error (IBTA 10.3.1, 9.9.3): the data path stops and the QP is
 * moved to ERR from process context.  Caller holds dp->run_lock.
 */
void mroce_task_fatal(struct mroce_dpqp *dp)
{
	lockdep_assert_held(&dp->run_lock);
	dp->error = true;
	if (!test_bit(MROCE_TASK_DEAD, &dp->flags))
		queue_work(system_wq, &dp->err_work);
}

static void mroce_task_err_work(struct work_struct *work)
{
	struct mroce_dpqp *dp = container_of(work, struct mroce_dpqp,
					     err_work);

	mroce_qp_error(dp->qp);
}

/*
 * Arm the hrtimer for the requester's next deadline, or the responder's
 * coalesced ACK (mroce_hold_ack_check()) if that is earlier.  The
 * requester's only in RTS and SQD, where the run that the timer causes
 * handles it (mroce_comp_timer()): in any other state a deadline already
 * past would fire the timer again at once, over and over.  The ACK's in
 * any state: every run that flushes ACKs (RC, no error) clears a deadline
 * that has passed.  And the time a QP throttled by DCQCN may send again,
 * when its requests or READ responses stopped for it (mroce_rp.c), in any
 * state.  Caller holds run_lock.
 */
static void mroce_task_arm(struct mroce_dpqp *dp, enum ib_qp_state state)
{
	bool req = state == IB_QPS_RTS || state == IB_QPS_SQD;
	u64 at;

	lockdep_assert_held(&dp->run_lock);
	if (!mroce_qp_is_rc(dp->qp) || dp->error ||
	    (!req && !dp->hold.ack_due && !dp->pace_wait)) {
		hrtimer_try_to_cancel(&dp->timer);
		return;
	}
	/*
	 * Nothing due: a timer still armed is left to fire (it finds nothing
	 * and is not set again).  Cancelling it once per acknowledged message
	 * and setting it again for the next cost two clock reads and two
	 * reprogrammings of the clock event device per message.
	 */
	if (!req || !mroce_reqwin_next_event(&dp->win, &at))
		at = U64_MAX;
	if (dp->pace_wait && dp->pace_next < at)
		at = dp->pace_next;
	if (dp->hold.ack_due && dp->hold.ack_due < at)
		at = dp->hold.ack_due;
	if (at == U64_MAX)
		return;
	/*
	 * Every ACK moves the deadline later.  Reprogramming the timer per
	 * packet costs more than a timer that fires early now and then: it
	 * is moved only to an earlier deadline, and one that fires before
	 * the window's deadline finds nothing due and is set again.
	 */
	if (hrtimer_is_queued(&dp->timer) && dp->timer_at <= at)
		return;
	dp->timer_at = at;
	hrtimer_start(&dp->timer, ns_to_ktime(at), HRTIMER_MODE_ABS_SOFT);
}

/*
 * Does this run leave the requester to a doorbell?  Yes when one waits
 * for run_lock (mroce_task_doorbell()): it runs the requester from the
 * posting CPU right after this run.  And, unless this run is itself a
 * doorbell's or the worker's (@posts), when all the requester has to do is
 * fetch new posts of a user QP while KBUSY is clear: the provider rings
 * for them (it reads KBUSY after publishing, see the ABI header).  In a
 * ping-pong the peer's post comes while a softirq run on the other CPU,
 * the one that delivered the peer's data, still holds the task; taken
 * there, every message of both sides would be sent and received on one
 * CPU, one after the other, while the poster's own CPU spins.
 */
static bool mroce_task_leaves_posts(struct mroce_dpqp *dp, bool posts)
{
	if (atomic_read(&dp->db_waiters))
		return true;
	return !posts && mroce_req_doorbell_due(dp);
}

/*
 * Nothing of the QP is in flight (the caller checked): its CPU moves here
 * and this run may send.  Returns true, for the caller's "may send" flag.
 */
static bool mroce_task_move_here(struct mroce_dpqp *dp)
{
	WRITE_ONCE(dp->cpu, smp_processor_id());
	return true;
}

/*
 * One run of the task: the READ the responder is answering, received
 * packets, ACKs, the retransmission timer, then the requester.  Requests
 * and READ responses go out only if @req (the caller runs on the QP's
 * CPU): a READ's responses sent in slices from two CPUs would overtake
 * each other in the veth's per-CPU queues, and each overtaking costs the
 * requester a resent READ.  Caller holds dp->run_lock.  Returns true when
 * work is left for another run (budget spent, a READ still being
 * answered, an skb that could not be allocated, work for dp->cpu).
 *
 * Received packets, READ responses and requests each have their own
 * budget of MROCE_TASK_BUDGET packets: with one budget shared, the
 * request of a 64 KiB READ (64 responses at MTU 1024) left the last
 * response, and so a worker run, to every message.
 */
static bool mroce_task_run(struct mroce_dpqp *dp, bool req, bool posts)
{
	int rd_budget = MROCE_TASK_BUDGET;
	int budget = MROCE_TASK_BUDGET;
	enum ib_qp_state state;
	struct sk_buff *skb;
	bool rx_spent = false;
	bool more = false;

	lockdep_assert_held(&dp->run_lock);
	/*
	 * This run looks at the SQ: a doorbell from now on is seen after.
	 * Most runs find no KICK and need neither the locked clear nor the
	 * barrier (a KICK set later is seen by mroce_task_after()).
	 */
	if (test_bit(MROCE_TASK_KICK, &dp->flags)) {
		clear_bit(MROCE_TASK_KICK, &dp->flags);
		smp_mb__after_atomic();
	}
	state = READ_ONCE(dp->qp->state);
	dp->now = 0;
	/* Set again below by whatever this run stops for its pace. */
	dp->pace_wait = false;
	/*
	 * Requests behind a READ wait until it is answered, so that no ACK
	 * for them overtakes its responses (IBTA 9.7.5.1.x).
	 */
	if (req)
		mroce_resp_read_continue(dp, &rd_budget);
	for (;;) {
		/* requests held behind a READ (mroce_hold.c) run first */
		if (!dp->rd.active && mroce_hold_ready(dp) && !dp->error &&
		    state >= IB_QPS_RTR && state != IB_QPS_ERR)
			mroce_hold_drain(dp);
		if (budget <= 0 || dp->rd.active) {
			rx_spent = budget <= 0;
			break;
		}
		/*
		 * The READ responses' budget spent, what is queued may be
		 * another READ: left to one more run (mroce_task_finish()).
		 */
		if (rd_budget <= 0)
			break;
		/* Most runs find none: no locked look (irqsave) then. */
		if (skb_queue_empty_lockless(&dp->rxq))
			break;
		skb = skb_dequeue(&dp->rxq);
		if (!skb)
			break;
		budget--;
		mroce_recv_one(dp, skb, state);
		/*
		 * A READ just accepted, none of its responses sent and no
		 * request of the QP in flight: nothing can be overtaken, so
		 * the QP's CPU moves here and the responses leave now, not
		 * from a worker on the old CPU (which can wait a scheduler
		 * tick behind a process that polls there).
		 */
		if (!req && dp->rd.active && !dp->rd.next &&
		    !mroce_reqwin_inflight(&dp->win))
			req = mroce_task_move_here(dp);
		if (req)
			mroce_resp_read_continue(dp, &rd_budget);
	}
	/*
	 * The MR_ACK is built and sent once run_lock is dropped (see
	 * mroce_dp_ack_after()); one that found no memory then is due again.
	 */
	if (test_bit(MROCE_TASK_ACK_AGAIN, &dp->flags) &&
	    test_and_clear_bit(MROCE_TASK_ACK_AGAIN, &dp->flags))
		dp->ack_pending = true;
	dp->ack_later = true;
	if (mroce_qp_is_rc(dp->qp) && !dp->error &&
	    mroce_resp_flush_acks(dp))
		more = true;
	dp->ack_later = false;

	if (test_and_clear_bit(MROCE_TASK_TIMER, &dp->flags) &&
	    mroce_qp_is_rc(dp->qp) && !dp->error &&
	    (state == IB_QPS_RTS || state == IB_QPS_SQD))
		mroce_comp_timer(dp);

	if ((state == IB_QPS_RTS || state == IB_QPS_SQD) && !dp->error &&
	    !mroce_task_leaves_posts(dp, posts)) {
		/*
		 * With nothing of the QP in flight nothing can be overtaken:
		 * its CPU moves here, as a doorbell moves it, and this run
		 * sends instead of waking the worker on the old CPU.
		 */
		if (!req && mroce_req_pending(dp) && mroce_req_idle(dp))
			req = mroce_task_move_here(dp);
		if (req) {
			budget = MROCE_TASK_BUDGET;
			dp->now = 0;
			mroce_req_run(dp, &budget);
			more |= budget <= 0;
		} else if (mroce_req_pending(dp)) {
			more = true;
		}
	}
	/*
	 * IBTA 10.3.1 (SQ drain): the event comes when every request that
	 * started before SQD is acknowledged, not when SQD is entered.
	 */
	if (state == IB_QPS_SQD && !dp->error && dp->comp_idx == dp->req_max &&
	    test_and_clear_bit(MROCE_TASK_SQD_ARMED, &dp->flags))
		set_bit(MROCE_TASK_SQD_EVENT, &dp->flags);
	mroce_task_arm(dp, state);
	/*
	 * A READ paced by DCQCN holds what was received behind it until
	 * its next response is due: the timer runs the task then.
	 */
	if (dp->rd.active && dp->pace_wait)
		return more;
	/*
	 * Packets queued after the receive loop found the queue empty are
	 * what arrived during the run (mroce_task_arrived()): one more run
	 * in this context takes them, not the worker.
	 */
	return more || dp->rd.active ||
	       (rx_spent && !skb_queue_empty(&dp->rxq)) ||
	       mroce_hold_ready(dp);
}

/*
 * The worker.  A work item that is queued again while it executes lands on
 * the pool where it executes, whatever CPU queue_work_on() names (the
 * workqueue's non-reentrancy rule).  A run on another CPU than dp->cpu
 * (which a doorbell moved after the item was queued) cannot send, and had
 * it requeued itself it would have run there again and again, its
 * requester never running: a live lock that stopped a QP in an RNR wait
 * for good and slowed READs.  So the worker hands over to the other item,
 * which is not executing and is queued where dp->cpu says.
 */
static void mroce_task_worker(struct mroce_dpqp *dp, unsigned int self)
{
	struct mroce_xhdr x;
	bool more, ack, csum;

	mroce_count(dp->mdev, MROCE_CNT_TASK_WORKER);
	spin_lock_bh(&dp->run_lock);
	more = mroce_task_run(dp, mroce_task_req_here(dp), true);
	ack = mroce_task_take_ack(dp, &x, &csum);
	spin_unlock_bh(&dp->run_lock);
	if (ack)
		mroce_dp_ack_after(dp, &x, csum);
	if (mroce_task_after(dp, more))
		mroce_task_queue(dp, &dp->work[!self]);
}

static void mroce_task_work0(struct work_struct *work)
{
	mroce_task_worker(container_of(work, struct mroce_dpqp, work[0]), 0);
}

static void mroce_task_work1(struct work_struct *work)
{
	mroce_task_worker(container_of(work, struct mroce_dpqp, work[1]), 1);
}

/*
 * The send doorbell of a user QP is a system call of the posting process:
 * run the task right there when it is idle, instead of waking a worker, a
 * context switch less per message.  A connected QP sends from its own CPU
 * only; when the doorbell rings on another CPU while nothing of the QP is
 * in flight, the QP moves to this CPU (nothing can be overtaken then), so
 * the QP's CPU follows the process that posts.
 *
 * A task busy elsewhere: a user QP's doorbell waits for run_lock (counted
 * in task_busy) and the holder leaves the requester to it
 * (mroce_task_leaves_posts()), so the post leaves from the poster's CPU.
 * The holder is on another CPU (this context has BH disabled and the
 * worker cannot be preempted while it holds the lock) and its run is
 * bounded by the budget.  A kernel QP's doorbell may come from the task's
 * own completion handler, so it leaves the post to the holder, which
 * finds KICK set after its run.  Returns false when the worker must send
 * (requests in flight from another CPU).  Caller has BH disabled.
 */
static bool mroce_task_doorbell(struct mroce_dpqp *dp)
{
	int cpu;

	if (test_bit(MROCE_TASK_DEAD, &dp->flags))
		return false;
	/*
	 * Pairs with mroce_task_after() of the holder: either the trylock
	 * finds the lock free, or the holder finds KICK after its unlock
	 * and runs again (the SQ's new entries were published before).
	 */
	set_bit(MROCE_TASK_KICK, &dp->flags);
	smp_mb__after_atomic();
	if (!spin_trylock(&dp->run_lock)) {
		mroce_count(dp->mdev, MROCE_CNT_TASK_BUSY);
		if (!dp->qp->is_user)
			return true;
		atomic_inc(&dp->db_waiters);
		spin_lock(&dp->run_lock);
		atomic_dec(&dp->db_waiters);
	}
	cpu = smp_processor_id();
	if (cpu == dp->cpu || !mroce_qp_connected(dp->qp) ||
	    mroce_req_idle(dp)) {
		WRITE_ONCE(dp->cpu, cpu);
	} else if (mroce_req_pending(dp)) {
		spin_unlock(&dp->run_lock);
		return false;
	}
	mroce_task_finish(dp, mroce_task_run_unlock(dp, true), true);
	return true;
}

/**
 * mroce_task_rx() - a RoCEv2 packet arrived for @mdev
 * @mdev: the device bound to the receiving netdev
 * @skb: the packet, skb->data at the UDP header; always consumed
 *
 * Softirq, RCU read lock held (by the UDP receive path): a QP found here
 * cannot be freed before we return, since mroce_dp_qp_destroy() waits for a
 * grace period after unpublishing it.
 */
void mroce_task_rx(struct mroce_dev *mdev, struct sk_buff *skb)
{
	struct mroce_dpqp *dp;
	struct mroce_qp *qp;
	u32 qpn;

	if (!pskb_may_pull(skb, sizeof(struct udphdr) + MROCE_BTH_LEN)) {
		mroce_count(mdev, MROCE_CNT_RX_DROP_MALFORMED);
		goto drop;
	}
	qpn = mroce_get_be24(skb->data + sizeof(struct udphdr) + 5);
	qp = xa_load(&mdev->res.qp_xa, qpn);
	dp = qp ? READ_ONCE(qp->dp) : NULL;
	if (!dp || test_bit(MROCE_TASK_DEAD, &dp->flags)) {
		mroce_count(mdev, MROCE_CNT_RX_DROP_NO_QP);
		goto drop;
	}
	if (skb_queue_len(&dp->rxq) >= MROCE_RXQ_MAX) {
		mroce_count(mdev, MROCE_CNT_RX_DROP_OVERRUN);
		goto drop;
	}
	/*
	 * Run to completion here when the task is idle, as rxe's responder
	 * does: no context switch per packet.  The queue keeps the packets
	 * of one QP in order whichever CPU they arrive on; a packet that
	 * finds the task busy is left to its owner (mroce_task_after()).
	 */
	skb_queue_tail(&dp->rxq, skb);
	smp_mb();
	if (!mroce_task_try_run(dp))
		mroce_count(mdev, MROCE_CNT_TASK_BUSY);
	return;
drop:
	kfree_skb(skb);
}

/* Set up the task of a new QP: its work items, timer and receive queue. */
void mroce_task_init(struct mroce_dpqp *dp)
{
	spin_lock_init(&dp->run_lock);
	spin_lock_init(&dp->ack_lock);
	INIT_WORK(&dp->work[0], mroce_task_work0);
	INIT_WORK(&dp->work[1], mroce_task_work1);
	INIT_WORK(&dp->err_work, mroce_task_err_work);
	hrtimer_init(&dp->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	dp->timer.function = mroce_task_timer_fn;
	skb_queue_head_init(&dp->rxq);
	atomic_set(&dp->db_waiters, 0);
}

/* Stop everything that could still run for @dp (destroy_qp). */
void mroce_task_stop(struct mroce_dpqp *dp)
{
	set_bit(MROCE_TASK_DEAD, &dp->flags);
	/* No receive path still looks at the QP after this. */
	synchronize_rcu();
	hrtimer_cancel(&dp->timer);
	/*
	 * Either work item may queue the other once more if it ran before
	 * MROCE_TASK_DEAD was visible; the second pass finds them idle.
	 */
	cancel_work_sync(&dp->work[0]);
	cancel_work_sync(&dp->work[1]);
	cancel_work_sync(&dp->work[0]);
	/* The work may have armed the timer once more. */
	hrtimer_cancel(&dp->timer);
	cancel_work_sync(&dp->err_work);
	skb_queue_purge(&dp->rxq);
}

/* The send doorbell: new WQEs may wait in the SQ. */
void mroce_dp_kick_sq(struct mroce_qp *qp)
{
	enum ib_qp_state state = READ_ONCE(qp->state);
	bool ran;

	if (!qp->dp || (state != IB_QPS_RTS && state != IB_QPS_SQD))
		return;
	/*
	 * A kernel consumer may post from hard interrupt context (a CQ
	 * handler, say), where the task cannot run: the worker sends then.
	 */
	if (in_hardirq() || irqs_disabled()) {
		mroce_task_schedule(qp->dp);
		return;
	}
	local_bh_disable();
	ran = mroce_task_doorbell(qp->dp);
	local_bh_enable();
	if (!ran)
		mroce_task_schedule(qp->dp);
}
