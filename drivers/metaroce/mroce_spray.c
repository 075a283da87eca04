// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Paths of a MetaRoCE-mode RC requester (Documentation/wire.rst, "Paths";
 * the selector: core mroce_path.c).  When the requester's MetaRoCE span
 * starts, the device's sysfs metaroce_path_mode says how its request
 * packets choose among the QP's entropies (UDP source ports, so ECMP
 * switches and multipath routes with L4 hashing spread them): flow, the
 * connection's one port as RoCEv2 (the set is off); flowlet; spray, the
 * default.  Each path has its own route cache, so a host's own multipath
 * route spreads them too.  A resend leaves on another path than the
 * packet it repeats, and charges that path with the loss unless it is a
 * probe or the receiver reports it spurious in time.  Every MR_ACK
 * echoes the path id of the request that triggered it with its timestamp
 * and whether it arrived CE-marked: the RTT sample goes to that path, and
 * a mark retires it, as does an RTT three times most paths' and
 * MROCE_PATH_SLOW_US over them.  ACKs, READ responses and RoCE-mode
 * packets keep the connection's port.
 */
#include "mroce_dp.h"
#include "mroce_trace.h"

/**
 * mroce_spray_init() - route caches for the paths of a new QP
 * @dp: its data path
 *
 * An RC QP gets the device's metaroce_paths of them.  Return: 0 or -ENOMEM.
 */
int mroce_spray_init(struct mroce_dpqp *dp)
{
	u32 i, n = READ_ONCE(dp->mdev->paths);
	int err;

	if (!mroce_qp_is_rc(dp->qp))
		return 0;
	n = clamp_t(u32, n, 1, MROCE_PATHS_MAX);
	dp->path_dst = kcalloc(n, sizeof(*dp->path_dst), GFP_KERNEL);
	if (!dp->path_dst)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		err = dst_cache_init(&dp->path_dst[i], GFP_KERNEL);
		if (err)
			goto err_unwind;
	}
	dp->npath_dst = n;
	return 0;

err_unwind:
	while (i--)
		dst_cache_destroy(&dp->path_dst[i]);
	kfree(dp->path_dst);
	dp->path_dst = NULL;
	return err;
}

void mroce_spray_fini(struct mroce_dpqp *dp)
{
	u32 i;

	for (i = 0; i < dp->npath_dst; i++)
		dst_cache_destroy(&dp->path_dst[i]);
	kfree(dp->path_dst);
	dp->path_dst = NULL;
	dp->npath_dst = 0;
}

/* The paths' routes are forgotten: the destination changed. */
void mroce_spray_reroute(struct mroce_dpqp *dp)
{
	u32 i;

	for (i = 0; i < dp->npath_dst; i++)
		dst_cache_reset(&dp->path_dst[i]);
}

/* Off: a new connection, a reset QP, flow mode. */
void mroce_spray_reset(struct mroce_dpqp *dp)
{
	struct mroce_path_cfg off = {};

	lockdep_assert_held(&dp->run_lock);
	mroce_pathset_init(&dp->ps, NULL, NULL, &off);
	mroce_spray_reroute(dp);
}

/**
 * mroce_spray_start() - the requester's MetaRoCE span starts
 * @dp: the QP's data path (RC)
 *
 * The entropies are the peer's path plan (mroce_plan.c), as many of them
 * as the QP has paths, or else seeded from the connection's own port, so
 * that QPs spread differently.
 */
void mroce_spray_start(struct mroce_dpqp *dp)
{
	struct mroce_dev *mdev = dp->mdev;
	u16 plan[MROCE_PATHS_MAX];
	u32 n;
	struct mroce_path_cfg cfg = {
		.n = dp->npath_dst,
		.mode = READ_ONCE(mdev->path_mode),
		.seed = dp->sport,
		.hold_ns = READ_ONCE(mdev->path_hold_ns),
		.flowlet_gap_ns = READ_ONCE(mdev->flowlet_gap_ns),
		.slow_ns = MROCE_PATH_SLOW_US * NSEC_PER_USEC,
	};

	BUILD_BUG_ON(MROCE_PATH_PSNS < MROCE_SB_SLOTS);
	mroce_spray_reset(dp);
	if (cfg.mode == MROCE_PATH_FLOW || !cfg.n)
		return;
	n = mroce_plan_ports(mdev, &dp->av.dgid, plan, cfg.n);
	if (n) {
		cfg.n = n;
		cfg.plan = plan;
	}
	mroce_pathset_init(&dp->ps, dp->paths, dp->psn_path, &cfg);
	memset(dp->path_dst_gen, 0, sizeof(dp->path_dst_gen));
}

/* Path @idx was retired, or (!@retire) probed again: count and trace. */
static void mroce_spray_event(struct mroce_dpqp *dp, int idx, bool retire)
{
	const struct mroce_path *p;

	if (idx < 0 || idx >= dp->ps.n)
		return;
	p = &dp->paths[idx];
	mroce_count(dp->mdev, retire ? MROCE_CNT_PATHS_RETIRED :
				       MROCE_CNT_PATHS_PROBED);
	trace_mroce_path(dp->qp->ibqp.qp_num, idx, p->entropy, retire,
			 p->lost, p->ecn);
}

/* Charge the losses held that are due (mroce_path_confirm()). */
static void mroce_spray_confirm(struct mroce_dpqp *dp, u64 now)
{
	struct mroce_pathset *ps = &dp->ps;
	u64 retired;
	int idx;

	if (!ps->nsuspects)	/* every packet and ACK asks */
		return;
	do {
		retired = ps->retired;
		idx = mroce_path_confirm(ps, now);
		if (ps->retired != retired)
			mroce_spray_event(dp, idx, true);
	} while (idx != -ENOENT);
}

/*
 * How long a loss is held before its path is charged: the receiver
 * reports a spurious resend in the ACK of the resend, about a round trip
 * after it left; twice the smoothed RTT and four variations leave room
 * for ACK delay and a resend that is late itself.
 */
static u64 mroce_spray_wait(const struct mroce_dpqp *dp)
{
	const struct mroce_rtt *r = &dp->win.rtt;

	if (!r->srtt)
		return r->init_rto;
	return max_t(u64, 2 * r->srtt + 4 * r->rttvar,
		     MROCE_RTT_GRANULARITY_NS);
}

/**
 * mroce_spray_pick() - the path of a request packet
 * @dp: the QP's data path
 * @psn: the packet's PSN
 * @bytes: its payload bytes, counted on the path
 * @resend: the packet repeats one sent before
 * @probe: ... as a tail-loss probe (its path is not charged)
 *
 * A loss is charged to the path the packet took before only if the
 * receiver does not report the resend spurious within mroce_spray_wait().
 *
 * Return: the path index, or -ENOENT when the QP does not spray (the
 * connection's port then).
 */
int mroce_spray_pick(struct mroce_dpqp *dp, u32 psn, u32 bytes, bool resend,
		     bool probe)
{
	struct mroce_pathset *ps = &dp->ps;
	u64 now, probed = ps->probed;
	int idx;

	lockdep_assert_held(&dp->run_lock);
	if (!ps->n)
		return -ENOENT;
	now = mroce_dp_now(dp);
	mroce_spray_confirm(dp, now);
	if (!resend)
		idx = mroce_path_tx(ps, psn, now);
	else
		idx = mroce_path_retx(ps, psn, now,
				      probe ? 0 : mroce_spray_wait(dp));
	if (ps->probed != probed)
		mroce_spray_event(dp, idx, false);
	dp->paths[idx].bytes += bytes;
	mroce_count(dp->mdev, MROCE_CNT_SPRAY_PACKETS);
	return idx;
}

/**
 * mroce_spray_route() - source port and route cache of a path
 * @dp: the QP's data path
 * @path: from mroce_spray_pick(); negative: the connection's own
 * @dst: set to the route cache to use
 * @sport: set to the UDP source port
 */
void mroce_spray_route(struct mroce_dpqp *dp, int path,
		       struct dst_cache **dst, u16 *sport)
{
	const struct mroce_path *p;

	*dst = &dp->dst;
	*sport = dp->sport;
	if (path < 0 || path >= dp->ps.n || path >= dp->npath_dst)
		return;
	p = &dp->paths[path];
	if (dp->path_dst_gen[path] != p->gen) {
		/* a fresh entropy: a multipath route may hash it elsewhere */
		dst_cache_reset(&dp->path_dst[path]);
		dp->path_dst_gen[path] = p->gen;
	}
	*dst = &dp->path_dst[path];
	*sport = p->entropy;
}

/**
 * mroce_spray_ack() - an MR_ACK's echo, for the path it names
 * @dp: the QP's data path (the requester)
 * @pkt: the MR_ACK
 * @rtt: its RTT sample (mroce_xdata_rtt()), 0 if none
 * @res: what the requester window made of it (a spurious resend clears
 *	the loss held for its PSN)
 */
void mroce_spray_ack(struct mroce_dpqp *dp, const struct mroce_rxpkt *pkt,
		     u64 rtt, const struct mroce_reqwin_res *res)
{
	struct mroce_pathset *ps = &dp->ps;
	u64 retired, now;

	if (!ps->n)
		return;
	now = mroce_dp_now(dp);
	if (res->spurious)
		mroce_path_spurious(ps, res->spurious_psn);
	mroce_spray_confirm(dp, now);
	if (!pkt->x || pkt->path >= ps->n)
		return;
	retired = ps->retired;
	if (rtt)
		mroce_path_on_rtt(ps, pkt->path, min_t(u64, rtt, U32_MAX), now);
	if (pkt->xflags & MROCE_MXH_F_ECE)
		mroce_path_on_ecn(ps, pkt->path, now);
	if (ps->retired != retired)
		mroce_spray_event(dp, pkt->path, true);
}
