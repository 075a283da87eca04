// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Data path state of a QP for the RDMA netlink resource tracker, so that
 * `rdma res show qp -dd` shows where a connection stands: the requester's
 * PSN window and timers, the WQE cursors, the responder's expected PSN,
 * the READ being answered, the task's CPU, and for RC and UC the
 * transport mode (roce or metaroce) with what the negotiation found
 * (mroce_nego.c); for a selective window (MetaRoCE mode) the SACKED PSNs,
 * SRTT, RTO and reorder window, and the requests the responder holds; the
 * DCQCN reaction point's state (throttled, rate, target, alpha, CNPs
 * received); for a spraying requester (mroce_spray.c) its path mode, paths
 * retired and probed, and a line per path (the first MROCE_RES_PATHS).
 * Operators and tests read
 * it to tell a stuck QP (an RNR wait that never ends, a window that does
 * not move) from an idle one.
 *
 * The snapshot is taken under dp->run_lock, so it is consistent with one
 * run of the task.  qp->dp is read under RCU: mroce_dp_qp_destroy() clears
 * it and waits for a grace period before freeing the data path, while the
 * resource tracker may still hold the QP (it is deleted from the tracker
 * only after destroy_qp returns).
 */
#include <net/netlink.h>
#include <rdma/restrack.h>
#include <uapi/rdma/rdma_netlink.h>

#include "mroce_dp.h"

/*
 * Paths shown per QP, at most: a netlink message holds about 4 KiB (the
 * rdma tool's receive buffer), and a QP of a lossy fabric's MetaRoCE mode
 * fills most of them without its paths.  The lines go last and those
 * that do not fit are left out: placed before the negotiation's
 * attributes, they once pushed those out and the QP with them (pacing.sh
 * saw no QP).
 */
#define MROCE_RES_PATHS		8

struct mroce_res_path {
	u16 sport;
	bool retired;
	u64 sent, bytes;
	u32 lost, ecn, srtt_us;
};

struct mroce_res_qp {
	u32 sq_una, sq_nxt, sq_max, sq_wnd, sq_lost;
	u32 req_idx, req_max, comp_idx, rd_atomic;
	u32 retry_left, rnr_left, rnr_wait, timer_armed, timer_queued;
	u64 timer_in_us, rnr_in_us;
	u32 rq_epsn, rq_msn, rd_active, rd_next, rd_npkt;
	u32 rxq_len, cpu, error, req_failed;
	u32 selective, sq_sacked, sq_pipe, rq_held;
	u64 srtt_us, rto_us, reo_wnd_us;
	u32 cc_throttled, cc_alpha, cc_cnps;
	u64 cc_rate_mbps, cc_target_mbps;
	u32 wcc_on, wcc_window, wcc_psns;
	u64 wcc_pace_mbps, wcc_rtt_us, wcc_base_us, wcc_cuts;
	u32 npaths, path_mode;
	u64 paths_retired, paths_probed, paths_cleared, paths_unheld;
	struct mroce_res_path path[MROCE_RES_PATHS];
	struct mroce_nego nego;
};

/* Microseconds from now to @at, 0 when it is past. */
static u64 mroce_res_us_until(u64 at, u64 now)
{
	return at > now ? div_u64(at - now, NSEC_PER_USEC) : 0;
}

static void mroce_res_qp_snap(struct mroce_dpqp *dp, struct mroce_res_qp *r)
{
	const struct mroce_reqwin *w = &dp->win;
	u64 now = mroce_task_now();
	u32 i;

	spin_lock_bh(&dp->run_lock);
	r->sq_una = w->una;
	r->sq_nxt = mroce_reqwin_next_psn(w);
	r->sq_lost = mroce_reqwin_lost(w);
	r->sq_max = w->max;
	r->sq_wnd = w->wnd;
	r->retry_left = w->retry_left;
	r->rnr_left = w->rnr_left;
	r->rnr_wait = w->rnr_wait;
	r->timer_armed = w->timer_armed;
	r->timer_in_us = w->timer_armed ? mroce_res_us_until(w->timer_at, now) : 0;
	r->rnr_in_us = w->rnr_wait ? mroce_res_us_until(w->rnr_until, now) : 0;
	r->timer_queued = hrtimer_is_queued(&dp->timer);
	r->req_idx = dp->req_idx;
	r->req_max = dp->req_max;
	r->comp_idx = dp->comp_idx;
	r->rd_atomic = dp->rd_atomic;
	r->req_failed = dp->req_failed;
	r->rq_epsn = dp->rwin.epsn;
	r->rq_msn = dp->rwin.msn;
	r->rd_active = dp->rd.active;
	r->rd_next = dp->rd.next;
	r->rd_npkt = dp->rd.npkt;
	r->error = dp->error;
	r->selective = w->selective;
	if (w->selective) {
		r->sq_sacked = w->sb.sacked;
		r->sq_pipe = w->pipe;
		r->srtt_us = div_u64(w->rtt.srtt, NSEC_PER_USEC);
		r->rto_us = div_u64(mroce_rtt_rto(&w->rtt), NSEC_PER_USEC);
		r->reo_wnd_us = div_u64(mroce_rack_reo_wnd(&w->rack, &w->rtt,
							   w->sb.sacked),
					NSEC_PER_USEC);
	}
	r->rq_held = dp->hold.n;
	r->cc_throttled = dp->dcqcn.active;
	r->cc_rate_mbps = div_u64(dp->dcqcn.rc, 1000000);
	r->cc_target_mbps = div_u64(dp->dcqcn.rt, 1000000);
	r->cc_alpha = dp->dcqcn.alpha;
	r->cc_cnps = dp->dcqcn.cnps;
	r->wcc_on = dp->cc_on;
	if (dp->cc_on) {
		r->wcc_window = dp->cc.cwnd;
		r->wcc_psns = w->cwnd;
		r->wcc_pace_mbps = mroce_wcc_paced(dp) ?
				   div_u64(dp->cc.rate * 8, 1000000) : 0;
		r->wcc_rtt_us = div_u64(dp->cc.last_rtt, NSEC_PER_USEC);
		r->wcc_base_us = div_u64(dp->cc.base_rtt, NSEC_PER_USEC);
		r->wcc_cuts = dp->cc.cuts;
	}
	r->npaths = dp->ps.n;
	r->path_mode = dp->ps.mode;
	r->paths_retired = dp->ps.retired;
	r->paths_probed = dp->ps.probed;
	r->paths_cleared = dp->ps.cleared;
	r->paths_unheld = dp->ps.unheld;
	for (i = 0; i < min_t(u32, r->npaths, MROCE_RES_PATHS); i++) {
		const struct mroce_path *p = &dp->paths[i];

		r->path[i] = (struct mroce_res_path) {
			.sport = p->entropy,
			.retired = p->retired,
			.sent = p->sent,
			.bytes = p->bytes,
			.lost = p->lost,
			.ecn = p->ecn,
			.srtt_us = p->srtt_ns / NSEC_PER_USEC,
		};
	}
	r->cpu = READ_ONCE(dp->cpu);
	r->nego = dp->nego;
	spin_unlock_bh(&dp->run_lock);
	mroce_task_release(dp);
	r->rxq_len = skb_queue_len(&dp->rxq);
}

/*
 * The paths of a spraying requester: "path-mode", "paths",
 * "paths-retired", "paths-probed", "paths-cleared" (losses held that
 * proved spurious, mroce_path_spurious()), "paths-unheld" (losses not held
 * with every slot taken, so never charged), and for the first MROCE_RES_PATHS
 * paths "path<i>" = "sport <port> pkts <sent> bytes <payload> lost <n>
 * ecn <n> srtt-us <us> <ok|retired>" (ecn / pkts: the path's ECN fraction, of the marks
 * the MR_ACKs echoed).  Lines that do not fit in the message are left out
 * rather than the QP.
 */
static int mroce_res_paths_put(struct sk_buff *msg,
			       const struct mroce_res_qp *r)
{
	const struct mroce_res_path *p;
	char name[16], val[96];
	unsigned char *mark;
	u32 i;

	if (!r->npaths)
		return 0;
	if (rdma_nl_put_driver_string(msg, "path-mode",
				      mroce_path_mode_name(r->path_mode)) ||
	    rdma_nl_put_driver_u32(msg, "paths", r->npaths) ||
	    rdma_nl_put_driver_u64(msg, "paths-retired", r->paths_retired) ||
	    rdma_nl_put_driver_u64(msg, "paths-probed", r->paths_probed) ||
	    rdma_nl_put_driver_u64(msg, "paths-cleared", r->paths_cleared) ||
	    rdma_nl_put_driver_u64(msg, "paths-unheld", r->paths_unheld))
		return -EMSGSIZE;
	mark = skb_tail_pointer(msg);
	for (i = 0; i < min_t(u32, r->npaths, MROCE_RES_PATHS); i++) {
		p = &r->path[i];
		snprintf(name, sizeof(name), "path%u", i);
		snprintf(val, sizeof(val),
			 "sport %u pkts %llu bytes %llu lost %u ecn %u srtt-us %u %s",
			 p->sport, p->sent, p->bytes, p->lost, p->ecn, p->srtt_us,
			 p->retired ? "retired" : "ok");
		if (rdma_nl_put_driver_string(msg, name, val)) {
			nlmsg_trim(msg, mark);
			break;
		}
	}
	return 0;
}

static int mroce_res_qp_put(struct sk_buff *msg, const struct mroce_res_qp *r,
			    bool rc)
{
	if (rdma_nl_put_driver_u32(msg, "cpu", r->cpu) ||
	    rdma_nl_put_driver_u32(msg, "rxq", r->rxq_len) ||
	    rdma_nl_put_driver_u32(msg, "error", r->error) ||
	    rdma_nl_put_driver_u32(msg, "req-idx", r->req_idx) ||
	    rdma_nl_put_driver_u32(msg, "req-max", r->req_max) ||
	    rdma_nl_put_driver_u32(msg, "comp-idx", r->comp_idx) ||
	    rdma_nl_put_driver_u32(msg, "req-failed", r->req_failed))
		return -EMSGSIZE;
	if (!rc)
		return 0;
	if (rdma_nl_put_driver_u32_hex(msg, "sq-una", r->sq_una) ||
	    rdma_nl_put_driver_u32_hex(msg, "sq-nxt", r->sq_nxt) ||
	    rdma_nl_put_driver_u32_hex(msg, "sq-max", r->sq_max) ||
	    rdma_nl_put_driver_u32(msg, "sq-wnd", r->sq_wnd) ||
	    rdma_nl_put_driver_u32(msg, "sq-lost", r->sq_lost) ||
	    rdma_nl_put_driver_u32(msg, "rd-atomic", r->rd_atomic) ||
	    rdma_nl_put_driver_u32(msg, "retry-left", r->retry_left) ||
	    rdma_nl_put_driver_u32(msg, "rnr-left", r->rnr_left) ||
	    rdma_nl_put_driver_u32(msg, "timer-armed", r->timer_armed) ||
	    rdma_nl_put_driver_u64(msg, "timer-in-us", r->timer_in_us) ||
	    rdma_nl_put_driver_u32(msg, "timer-queued", r->timer_queued) ||
	    rdma_nl_put_driver_u32(msg, "rnr-wait", r->rnr_wait) ||
	    rdma_nl_put_driver_u64(msg, "rnr-in-us", r->rnr_in_us) ||
	    rdma_nl_put_driver_u32_hex(msg, "rq-epsn", r->rq_epsn) ||
	    rdma_nl_put_driver_u32(msg, "rq-msn", r->rq_msn) ||
	    rdma_nl_put_driver_u32(msg, "rd-active", r->rd_active) ||
	    rdma_nl_put_driver_u32(msg, "rd-next", r->rd_next) ||
	    rdma_nl_put_driver_u32(msg, "rd-npkt", r->rd_npkt) ||
	    rdma_nl_put_driver_u32(msg, "rq-held", r->rq_held) ||
	    rdma_nl_put_driver_u32(msg, "cc-throttled", r->cc_throttled) ||
	    rdma_nl_put_driver_u64(msg, "cc-rate-mbps", r->cc_rate_mbps) ||
	    rdma_nl_put_driver_u64(msg, "cc-target-mbps", r->cc_target_mbps) ||
	    rdma_nl_put_driver_u32(msg, "cc-alpha", r->cc_alpha) ||
	    rdma_nl_put_driver_u32(msg, "cc-cnps", r->cc_cnps))
		return -EMSGSIZE;
	/* selective repeat (MetaRoCE mode): what its timers stand on */
	if (r->selective &&
	    (rdma_nl_put_driver_u32(msg, "sq-sacked", r->sq_sacked) ||
	     rdma_nl_put_driver_u32(msg, "sq-pipe", r->sq_pipe) ||
	     rdma_nl_put_driver_u64(msg, "srtt-us", r->srtt_us) ||
	     rdma_nl_put_driver_u64(msg, "rto-us", r->rto_us) ||
	     rdma_nl_put_driver_u64(msg, "reorder-wnd-us", r->reo_wnd_us)))
		return -EMSGSIZE;
	/* the delay-based window of a lossy fabric (mroce_wcc.c) */
	if (r->wcc_on &&
	    (rdma_nl_put_driver_u32(msg, "cc-window", r->wcc_window) ||
	     rdma_nl_put_driver_u32(msg, "cc-window-psns", r->wcc_psns) ||
	     rdma_nl_put_driver_u64(msg, "cc-pace-mbps", r->wcc_pace_mbps) ||
	     rdma_nl_put_driver_u64(msg, "cc-rtt-us", r->wcc_rtt_us) ||
	     rdma_nl_put_driver_u64(msg, "cc-base-rtt-us", r->wcc_base_us) ||
	     rdma_nl_put_driver_u64(msg, "cc-window-cuts", r->wcc_cuts)))
		return -EMSGSIZE;
	return 0;
}

/**
 * mroce_fill_res_qp_entry() - ib_device_ops.fill_res_qp_entry
 * @msg: the netlink message being built
 * @ibqp: the QP
 *
 * Return: 0, or -EMSGSIZE when @msg is full.
 */
int mroce_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct mroce_qp *qp = to_mqp(ibqp);
	struct mroce_res_qp r;
	struct mroce_dpqp *dp;
	struct nlattr *nest;

	rcu_read_lock();
	dp = READ_ONCE(qp->dp);
	if (dp)
		mroce_res_qp_snap(dp, &r);
	rcu_read_unlock();
	if (!dp)
		return 0;

	/* Driver attributes travel in one nest (see nldev's fill helpers). */
	nest = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!nest)
		return -EMSGSIZE;
	/* the path lines last: those that do not fit are left out */
	if (mroce_res_qp_put(msg, &r, mroce_qp_is_rc(qp)) ||
	    (mroce_qp_connected(qp) && mroce_nego_res_put(msg, &r.nego)) ||
	    mroce_res_paths_put(msg, &r)) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}
