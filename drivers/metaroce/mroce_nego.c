// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Transport mode of an RC or UC connection, `roce` (plain RoCEv2) or
 * `metaroce`, decided once per connection without the application's help
 * (Documentation/wire.rst, "Negotiation and versions").
 *
 * In band: unless its policy is roce, a QP marks every RoCEv2 packet it
 * sends (requests, ACKs, READ responses) with the capability mark of the
 * BTH's reserved byte 8.  The first valid packet the QP receives from its
 * peer decides what the peer is: marked, a MetaRoCE end willing to use
 * MetaRoCE mode; unmarked, a plain RoCEv2 end (rdma_rxe, a RoCE NIC) or a
 * MetaRoCE end whose policy is roce.  Out of band: rdma_cm's ECE told both
 * ends before the first packet (qp->ece_ver, from the provider's
 * ibv_set_ece()); then the first packet decides nothing.
 *
 * The switch PSN: the requester's MetaRoCE span starts at the first new
 * message it sends once it knows the peer marks (tx_psn).  From that PSN on
 * every request, first sent or resent, carries the switch bit; no request
 * before it ever does.  A PSN thus keeps its bit through any number of
 * retransmissions, and the responder, which accepts requests in PSN order,
 * finds the same PSN as the first request with the bit that arrives in
 * order (rx_psn).
 *
 * What MetaRoCE mode changes today: the bits of byte 8, and, when both ends
 * offer it in their mark, the UDP checksum in place of the ICRC (wire.rst,
 * "Integrity: UDP checksum instead of ICRC").  The module sends no
 * MetaRoCE-only packet (opcodes 0xC0-0xC7) yet.
 *
 * The data path calls two functions, under dp->run_lock:
 * mroce_nego_mark() for every RC/UC packet it sends (from mroce_dp_xmit(),
 * which asks mroce_nego_tx_csum() how to protect it), mroce_nego_rx() for
 * every packet it receives; the receive checks ask mroce_nego_rx_csum()
 * whether a packet's UDP checksum may stand for its ICRC.
 */
#include <net/netlink.h>
#include <rdma/restrack.h>

#include <uapi/rdma/metaroce-abi.h>

#include "mroce_dp.h"
#include "mroce_param.h"
#include "core/mroce_ext.h"
#include "core/mroce_psn.h"

static const char * const mroce_policy_names[] = {
	[MROCE_POLICY_DEVICE] = "device",
	[MROCE_POLICY_AUTO] = "auto",
	[MROCE_POLICY_ROCE] = "roce",
	[MROCE_POLICY_METAROCE] = "metaroce",
};

static const char * const mroce_peer_names[] = {
	[MROCE_PEER_UNKNOWN] = "unknown",
	[MROCE_PEER_ROCE] = "roce",
	[MROCE_PEER_MARKED] = "marked",
	[MROCE_PEER_ECE] = "ece",
};

const char *mroce_mode_policy_name(u8 policy)
{
	BUILD_BUG_ON(ARRAY_SIZE(mroce_policy_names) != MROCE_NUM_POLICIES);
	return policy < MROCE_NUM_POLICIES ? mroce_policy_names[policy] : "?";
}

/* A device policy: auto, roce or metaroce (one trailing newline allowed). */
int mroce_mode_policy_parse(const char *buf)
{
	int i = sysfs_match_string(mroce_policy_names, buf);

	return i <= MROCE_POLICY_DEVICE ? -EINVAL : i;
}

static bool mroce_nego_marks(const struct mroce_nego *n)
{
	return n->policy == MROCE_POLICY_AUTO ||
	       n->policy == MROCE_POLICY_METAROCE;
}

bool mroce_nego_metaroce(const struct mroce_nego *n)
{
	return n->ver;
}

/*
 * Does the QP send its packets with the UDP checksum instead of the ICRC?
 * Only in MetaRoCE mode, when both ends offer it.  Caller holds run_lock.
 */
bool mroce_nego_tx_csum(const struct mroce_nego *n)
{
	return n->ver && n->csum && n->csum_peer;
}

/*
 * May the UDP checksum of a packet carrying @bth stand for its ICRC?  Only
 * when this QP offered it and the packet's mark says so; the caller then
 * requires a verified, non-zero checksum.  Caller holds run_lock.
 */
bool mroce_nego_rx_csum(const struct mroce_nego *n,
			const struct mroce_bth *bth)
{
	return n->csum && mroce_bth_mark_csum(bth);
}

/**
 * mroce_nego_start() - a connection starts (INIT to RTR) or is reset
 * @dp: the QP's data path
 *
 * Fixes the connection's policy: the QP's own (metaroce_dv_qp_set_mode()),
 * else the device's.  UD and GSI QPs never mark.  Caller holds run_lock.
 */
void mroce_nego_start(struct mroce_dpqp *dp)
{
	struct mroce_nego *n = &dp->nego;
	struct mroce_qp *qp = dp->qp;
	u8 policy = qp->mode_policy;

	lockdep_assert_held(&dp->run_lock);
	BUILD_BUG_ON(ARRAY_SIZE(mroce_peer_names) != MROCE_NUM_PEERS);
	memset(n, 0, sizeof(*n));
	if (policy == MROCE_POLICY_DEVICE)
		policy = READ_ONCE(dp->mdev->mode_policy);
	if (!mroce_qp_connected(qp))
		policy = MROCE_POLICY_ROCE;
	n->policy = policy;
	n->csum = mroce_nego_marks(n) && READ_ONCE(dp->mdev->udp_csum);
	BUILD_BUG_ON(METAROCE_EXT_VERSION != MROCE_XVER);
	/* ECE names the device's vendor id (ibv_query_device()). */
	BUILD_BUG_ON(METAROCE_ECE_VENDOR_ID != MROCE_VENDOR_ID);
	if (mroce_nego_marks(n) && qp->ece_ver) {
		n->peer = MROCE_PEER_ECE;
		n->peer_ver = qp->ece_ver;
		n->ver = min_t(u8, qp->ece_ver, MROCE_XVER);
	}
}

/* Does @psn belong to the requester's MetaRoCE span (tx_on set)? */
static bool mroce_nego_in_span(struct mroce_dpqp *dp, u32 psn)
{
	struct mroce_nego *n = &dp->nego;

	/*
	 * Once nothing before tx_psn can be resent (UC resends nothing; RC
	 * once una passed it), every request is in the span: PSN order alone
	 * would fail 2^23 PSNs later, when the 24-bit space wraps.
	 */
	if (!n->tx_settled && (!mroce_qp_is_rc(dp->qp) ||
			       mroce_psn_after_eq(dp->win.una, n->tx_psn)))
		n->tx_settled = true;
	return n->tx_settled || mroce_psn_after_eq(psn, n->tx_psn);
}

/**
 * mroce_nego_mark() - mark a packet of a connected QP before it is sent
 * @dp: the QP's data path
 * @h: the headers, BTH filled (opcode and PSN)
 *
 * Called after the requester took the packet's PSNs (dp->win.max is past
 * them).  Caller holds run_lock.
 */
void mroce_nego_mark(struct mroce_dpqp *dp, struct mroce_hdr *h)
{
	const struct mroce_opcode_info *op = mroce_opcode_info(h->bth.opcode);
	struct mroce_nego *n = &dp->nego;
	u32 psn = h->bth.psn;
	bool fresh;

	lockdep_assert_held(&dp->run_lock);
	if (!mroce_nego_marks(n))
		return;
	mroce_bth_set_mark(&h->bth, MROCE_XVER);
	if (n->csum)
		h->bth.resv7 |= MROCE_BTH_MR_CSUM;
	if (!(op->flags & MROCE_OPF_REQ))
		return;
	if (!n->tx_hi_set) {
		n->tx_hi = psn;
		n->tx_hi_set = true;
	}
	fresh = mroce_psn_after_eq(psn, n->tx_hi);
	if (fresh)
		n->tx_hi = mroce_qp_is_rc(dp->qp) ? dp->win.max :
						    mroce_psn_add(psn, 1);
	/* The span starts with a message never sent before. */
	if (!n->tx_on && n->ver && fresh &&
	    (op->flags & (MROCE_OPF_FIRST | MROCE_OPF_ONLY))) {
		n->tx_on = true;
		n->tx_psn = psn;
		mroce_req_selective(dp);
	}
	if (n->tx_on && mroce_nego_in_span(dp, psn))
		h->bth.resv7 |= MROCE_BTH_MR_SWITCHED;
}

/*
 * Byte 8 of the BTH of a response this QP sends (an ACK): the mark and the
 * checksum offer, as mroce_nego_mark() sets them on RoCEv2 responses.
 * Caller holds run_lock.
 */
u8 mroce_nego_resp_mark(const struct mroce_nego *n)
{
	struct mroce_bth bth = {};

	if (!mroce_nego_marks(n))
		return 0;
	mroce_bth_set_mark(&bth, MROCE_XVER);
	if (n->csum)
		bth.resv7 |= MROCE_BTH_MR_CSUM;
	return bth.resv7;
}

/*
 * The first valid packet from the peer: is it marked?  A connection whose
 * policy is metaroce fails when it is not (wire.rst, "Forced mode"), and
 * the QP goes to ERR: an RC response fails the requester's oldest WQE with
 * IBV_WC_BAD_RESP_ERR (IBTA's "unexpected response"); an RC request is
 * answered with NAK Invalid Request, which fails the peer's WQE at once
 * (IBV_WC_REM_INV_REQ_ERR at the peer) rather than after its retries.
 */
static int mroce_nego_decide(struct mroce_dpqp *dp,
			     const struct mroce_rxpkt *pkt, u8 ver)
{
	struct mroce_nego *n = &dp->nego;

	n->peer = ver ? MROCE_PEER_MARKED : MROCE_PEER_ROCE;
	n->peer_ver = ver;
	if (ver && mroce_nego_marks(n))
		n->ver = min_t(u8, ver, MROCE_XVER);
	if (ver || n->policy != MROCE_POLICY_METAROCE)
		return 0;
	mroce_count(dp->mdev, MROCE_CNT_RX_DROP_UNMARKED);
	ibdev_info_ratelimited(&dp->mdev->ibdev,
			       "qp %u: policy metaroce, but the peer does not mark its packets: connection failed\n",
			       dp->qp->ibqp.qp_num);
	if (!mroce_qp_is_rc(dp->qp))
		mroce_task_fatal(dp);
	else if (pkt->lo.op->flags & MROCE_OPF_RESP)
		mroce_comp_fail(dp, IB_WC_BAD_RESP_ERR);
	else
		mroce_resp_refuse(dp, pkt->hdr.bth.psn);
	return -EPROTO;
}

/**
 * mroce_nego_rx() - look at the mark of a packet from the peer
 * @dp: the QP's data path
 * @pkt: a packet that passed the ICRC and peer address checks
 *
 * Return: 0, or -EPROTO when the packet must be dropped (the connection
 * failed, see mroce_nego_decide()).  Caller holds run_lock.
 */
int mroce_nego_rx(struct mroce_dpqp *dp, const struct mroce_rxpkt *pkt)
{
	const struct mroce_bth *bth = &pkt->hdr.bth;
	struct mroce_nego *n = &dp->nego;
	u8 ver;

	lockdep_assert_held(&dp->run_lock);
	if (!mroce_qp_connected(dp->qp))
		return 0;
	ver = mroce_bth_mark_ver(bth);
	if (n->peer == MROCE_PEER_UNKNOWN && mroce_nego_decide(dp, pkt, ver))
		return -EPROTO;
	if (mroce_bth_mark_csum(bth))
		n->csum_peer = true;
	/*
	 * RC requests are accepted in PSN order: the first one with the bit
	 * that arrives when expected is the peer's tx_psn.  UC loses what is
	 * lost, so its rx_psn is the first that arrived.
	 */
	if (!n->rx_on && ver && (bth->resv7 & MROCE_BTH_MR_SWITCHED) &&
	    (pkt->lo.op->flags & MROCE_OPF_REQ) &&
	    (!mroce_qp_is_rc(dp->qp) || bth->psn == dp->rwin.epsn))
		mroce_nego_rx_switch(n, bth->psn);
	return 0;
}

/**
 * mroce_nego_rx_switch() - a request with the switch bit is taken in turn
 * @n: the QP's negotiation state
 * @psn: its PSN
 *
 * The first is the peer's switch PSN: from mroce_nego_rx() when it arrives
 * in turn, from mroce_hold_drain() when it came ahead and was held.
 * Caller holds run_lock.
 */
void mroce_nego_rx_switch(struct mroce_nego *n, u32 psn)
{
	if (n->rx_on)
		return;
	n->rx_on = true;
	n->rx_psn = psn;
}

/**
 * mroce_nego_res_put() - the mode for `rdma res show qp -dd`
 * @msg: netlink message, inside the driver nest
 * @n: a snapshot of the QP's negotiation state
 *
 * Return: 0 or -EMSGSIZE.
 */
int mroce_nego_res_put(struct sk_buff *msg, const struct mroce_nego *n)
{
	if (rdma_nl_put_driver_string(msg, "mode",
				      n->ver ? "metaroce" : "roce") ||
	    rdma_nl_put_driver_string(msg, "mode-policy",
				      mroce_mode_policy_name(n->policy)) ||
	    rdma_nl_put_driver_string(msg, "mode-peer",
				      mroce_peer_names[n->peer]) ||
	    rdma_nl_put_driver_u32(msg, "mode-peer-ver", n->peer_ver) ||
	    rdma_nl_put_driver_u32(msg, "mode-ver", n->ver) ||
	    rdma_nl_put_driver_u32(msg, "udp-csum", n->csum) ||
	    rdma_nl_put_driver_u32(msg, "udp-csum-peer", n->csum_peer) ||
	    rdma_nl_put_driver_string(msg, "integrity",
				      mroce_nego_tx_csum(n) ? "udp-csum" :
							      "icrc"))
		return -EMSGSIZE;
	if (n->tx_on &&
	    rdma_nl_put_driver_u32_hex(msg, "mode-tx-psn", n->tx_psn))
		return -EMSGSIZE;
	if (n->rx_on &&
	    rdma_nl_put_driver_u32_hex(msg, "mode-rx-psn", n->rx_psn))
		return -EMSGSIZE;
	return 0;
}
