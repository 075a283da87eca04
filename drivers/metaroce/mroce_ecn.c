// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ECN on the receive side (Documentation/wire.rst, "ECN and CNPs"): the
 * device as DCQCN's notification point answers a packet that a switch
 * marked Congestion Experienced (RFC 3168) with a RoCEv2 CNP to the QP
 * that sent it, at most one per QP every metaroce_np_min_time_between_cnps,
 * in both transport modes, so that RoCE NICs and other RoCEv2 peers slow
 * down.  A CNP received is counted; this version has no reaction point
 * yet, so the requester does not change its rate.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/inet_ecn.h>

#include "mroce_dp.h"

/* A RoCEv2 CNP (IBTA annex A17) carries 16 reserved bytes after its BTH. */
#define MROCE_CNP_PAYLOAD	16

static bool mroce_ecn_ce(const struct mroce_rxpkt *pkt)
{
	u8 tos = pkt->ipv6 ? ipv6_get_dsfield(ipv6_hdr(pkt->skb)) :
			     ip_hdr(pkt->skb)->tos;

	return INET_ECN_is_ce(tos);
}

/*
 * Send a CNP to the peer QP of @dp: BTH with the CNP opcode, the peer's
 * QPN, BECN set and PSN 0, then the reserved bytes; RoCEv2 with its ICRC
 * in either transport mode, so any RoCE peer can read it.
 */
static int mroce_ecn_send_cnp(struct mroce_dpqp *dp)
{
	struct mroce_hdr h = {};
	struct sk_buff *skb;
	u8 *payload;

	skb = mroce_tx_alloc(dp->mdev, &dp->av, MROCE_OP_CNP,
			     MROCE_CNP_PAYLOAD, &payload, GFP_ATOMIC);
	if (!skb)
		return -ENOMEM;
	memset(payload, 0, MROCE_CNP_PAYLOAD);
	h.bth.opcode = MROCE_OP_CNP;
	h.bth.becn = true;
	h.bth.pkey = IB_DEFAULT_PKEY_FULL;
	h.bth.dqpn = dp->dqpn;
	return mroce_tx_send(dp->mdev, &dp->av, &dp->dst, dp->sport, &h, skb);
}

/**
 * mroce_ecn_rx() - the ECN side of a packet that passed every check
 * @dp: the QP's data path
 * @pkt: the packet, from the QP's peer (mroce_recv_from_peer())
 *
 * Return: true when @pkt is a CNP, which ends here (counted); false for
 * any other packet, after a CE mark on it was noted (pkt->ce, which an
 * MR_ACK echoes: mroce_xdata_rx_ts()), counted and, on a connected QP,
 * answered with a CNP if one is due.  Caller holds run_lock.
 */
bool mroce_ecn_rx(struct mroce_dpqp *dp, struct mroce_rxpkt *pkt)
{
	struct mroce_dev *mdev = dp->mdev;
	u64 now;

	lockdep_assert_held(&dp->run_lock);
	if (pkt->lo.op->flags & MROCE_OPF_CNP) {
		mroce_count(mdev, mroce_rp_cnp(dp) ? MROCE_CNT_RP_CNP_HANDLED :
						    MROCE_CNT_RP_CNP_IGNORED);
		return true;
	}
	if (!mroce_ecn_ce(pkt))
		return false;
	pkt->ce = true;
	mroce_count(mdev, MROCE_CNT_NP_ECN_MARKED);
	if (!READ_ONCE(mdev->np_enable) || !mroce_qp_connected(dp->qp))
		return false;
	now = mroce_dp_now(dp);
	if (dp->np_cnp_at &&
	    now - dp->np_cnp_at < READ_ONCE(mdev->np_cnp_gap_ns))
		return false;
	if (mroce_ecn_send_cnp(dp))
		return false;
	dp->np_cnp_at = now;
	mroce_count(mdev, MROCE_CNT_NP_CNP_SENT);
	return false;
}
