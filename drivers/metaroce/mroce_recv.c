// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Received packets of a QP, in its task: each is checked (the core's
 * mroce_rx_decode() and mroce_rx_verify(): headers against the opcode
 * table, the ICRC or the UDP checksum that stands for it, the P_Key; then
 * the peer's address and the transport mode negotiation) and dispatched to
 * the responder (requests) or the completer (responses).  How packets
 * reach the task: mroce_task_rx() in mroce_task.c.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>

#include "mroce_dp.h"
#include "core/mroce_ext.h"
#include "core/mroce_rx.h"

/*
 * May the packet's UDP checksum stand for its ICRC (wire.rst, "Integrity:
 * UDP checksum instead of ICRC")?  The QP offered it, the packet's mark
 * says so, and its checksum is not zero and was verified: the UDP layer
 * checks a non-zero checksum before the encap hook (or the netdev did, or
 * the packet never left the host); a packet it did not vouch for goes
 * through the ICRC check, which the zeroed ICRC field of a checksum-only
 * packet fails.  skb->data is the UDP header.  Caller holds run_lock.
 */
static bool mroce_recv_udp_csum(struct mroce_dpqp *dp,
				const struct sk_buff *skb,
				const struct mroce_rxpkt *pkt)
{
	const struct udphdr *uh = (const struct udphdr *)skb->data;

	lockdep_assert_held(&dp->run_lock);
	return mroce_nego_rx_csum(&dp->nego, &pkt->hdr.bth) && uh->check &&
	       skb_csum_unnecessary(skb);
}

/*
 * mroce_rx_view reads of a received packet: @ctx is the skb, whose data
 * starts with the UDP header.
 */
static u32 mroce_recv_skb_crc(const void *ctx, u32 off, u32 n, u32 crc)
{
	return mroce_skb_icrc(ctx, sizeof(struct udphdr) + off, n, crc);
}

static int mroce_recv_skb_copy(const void *ctx, u32 off, void *buf, u32 n)
{
	return skb_copy_bits(ctx, sizeof(struct udphdr) + off, buf, n) ?
	       -EFAULT : 0;
}

/*
 * Check a received packet with the core's mroce_rx_decode() and
 * mroce_rx_verify(): transport headers against the opcode table, ICRC (or
 * the UDP checksum standing for it), P_Key.  The headers are pulled into
 * the linear part; the payload stays where it is (page fragments from a
 * sender that transmits by reference, or a NIC's receive pages).
 * Returns 0 with @pkt filled, or a negative errno (drop).
 */
/* The view of @skb for the core's checks (IP, UDP, BTH back to back). */
static int mroce_recv_view(struct sk_buff *skb, struct mroce_rxpkt *pkt,
			   struct mroce_rx_view *v)
{
	u32 hlen;

	pkt->ipv6 = skb->protocol == htons(ETH_P_IPV6);
	hlen = pkt->ipv6 ? MROCE_IPV6_HDR_LEN : MROCE_IPV4_HDR_LEN;
	v->ip = skb_network_header(skb);
	if (v->ip + hlen != skb->data)
		return -EPROTO;
	v->ipv6 = pkt->ipv6;
	v->len = skb->len - sizeof(struct udphdr);
	v->crc = mroce_recv_skb_crc;
	v->copy = mroce_recv_skb_copy;
	v->ctx = skb;
	return 0;
}

/*
 * A MetaRoCE extension packet (wire.rst), only on an RC connection in
 * MetaRoCE mode: an MR_ACK, whose AETH goes where a RoCEv2 ACK's would,
 * its SACK header and flags beside it, or a request kind, seen as the
 * RoCEv2 request it stands for (mroce_xdata_view()).  MR_READ_RESP is not
 * taken: READ responses are RoCEv2 in both modes.
 */
static int mroce_recv_parse_x(struct mroce_dpqp *dp, struct sk_buff *skb,
			      struct mroce_rxpkt *pkt, struct mroce_rx_view *v)
{
	u32 bth_off = sizeof(struct udphdr);
	struct mroce_xlayout xlo;
	struct mroce_xhdr x = {};
	u8 opcode = skb->data[bth_off];
	int hlen, err;

	if (!mroce_nego_metaroce(&dp->nego) || !mroce_qp_is_rc(dp->qp) ||
	    opcode == MROCE_XOP_READ_RESP || !mroce_xop_info(opcode))
		return -EOPNOTSUPP;
	if (opcode == MROCE_XOP_ACK) {
		/* An MR_ACK is at most 76 bytes: all of it linear. */
		if (skb_linearize(skb))
			return -ENOMEM;
	} else {
		/*
		 * A request's headers have a fixed length: pull them, so
		 * the decoder reads the linear part only.
		 */
		x.bth.opcode = opcode;
		hlen = mroce_xhdr_len(&x);
		if (hlen < 0)
			return hlen;
		if (skb->len < bth_off + hlen + MROCE_ICRC_LEN)
			return -EMSGSIZE;
		if (!pskb_may_pull(skb, bth_off + hlen))
			return -ENOMEM;
	}
	err = mroce_recv_view(skb, pkt, v);
	if (err)
		return err;
	err = mroce_xhdr_decode(skb->data + bth_off, v->len, &x, &xlo);
	if (err)
		return err;
	pkt->x = true;
	pkt->xflags = x.mxh.flags;
	pkt->ts = x.mxh.ts;
	pkt->tse = x.mxh.tse;
	pkt->path = x.mxh.path;
	if (opcode != MROCE_XOP_ACK)
		return mroce_xdata_view(pkt, &x, &xlo);
	if (xlo.pay_len)
		return -EPROTO;
	memset(&pkt->hdr, 0, sizeof(pkt->hdr));
	pkt->hdr.bth = x.bth;
	pkt->hdr.aeth = x.aeth;
	pkt->lo.op = mroce_opcode_info(MROCE_OP_RC_ACKNOWLEDGE);
	pkt->lo.hdr_len = xlo.hdr_len;
	pkt->lo.pay_len = 0;
	pkt->lo.pad = xlo.pad;
	pkt->sack = x.sack;
	return 0;
}

static int mroce_recv_parse(struct mroce_dpqp *dp, struct sk_buff *skb,
			    struct mroce_rxpkt *pkt)
{
	u32 bth_off = sizeof(struct udphdr);
	const struct mroce_opcode_info *op;
	struct mroce_rx_view v;
	bool csum;
	int err;

	/* A frag_list (GRO) is not walked below: make it linear. */
	if (skb_has_frag_list(skb) && skb_linearize(skb))
		return -ENOMEM;
	if (skb->len < bth_off + MROCE_BTH_LEN + MROCE_ICRC_LEN)
		return -EMSGSIZE;
	pkt->x = false;
	pkt->xflags = 0;
	pkt->ts = 0;
	pkt->tse = 0;
	pkt->path = 0;
	pkt->ce = false;
	pkt->placed = false;
	if (mroce_xop_is_ext(skb->data[bth_off])) {
		err = mroce_recv_parse_x(dp, skb, pkt, &v);
		goto verify;
	}
	/* mroce_task_rx() pulled the BTH; now every header of the opcode. */
	op = mroce_opcode_info(skb->data[bth_off]);
	if (op && skb->len >= bth_off + op->hdr_len &&
	    !pskb_may_pull(skb, bth_off + op->hdr_len))
		return -ENOMEM;

	/* The ICRC pseudo-header needs IP, UDP and BTH back to back. */
	err = mroce_recv_view(skb, pkt, &v);
	if (err)
		return err;
	err = mroce_rx_decode(&v, &pkt->hdr, &pkt->lo);
verify:
	if (err)
		return err;
	csum = mroce_recv_udp_csum(dp, skb, pkt);
	err = mroce_rx_verify(&v, &pkt->hdr, !csum);
	if (err)
		return err;
	if (csum)
		mroce_count(dp->mdev, MROCE_CNT_RX_UDP_CSUM);
	pkt->skb = skb;
	pkt->pay_off = bth_off + pkt->lo.hdr_len;
	pkt->payload = NULL;
	if (pkt->pay_off + pkt->lo.pay_len <= skb_headlen(skb))
		pkt->payload = skb->data + pkt->pay_off;
	else
		mroce_count(dp->mdev, MROCE_CNT_RX_PAGED);
	return 0;
}

/*
 * An RC or UC packet belongs to one connection: it must come from the
 * address the QP was connected to (the AV's destination GID) and be
 * addressed to the QP's own (its source GID), over the same IP version.
 * The QPN and the PSN alone are no proof of origin: any host that reaches
 * UDP port 4791 could otherwise inject SENDs, WRITEs or ACKs (rdma_rxe
 * makes the same check).  UD and GSI QPs take datagrams from anyone; the
 * Q_Key is their check.  Caller holds dp->run_lock (dp->av).
 */
static bool mroce_recv_from_peer(const struct mroce_dpqp *dp,
				 const struct mroce_rxpkt *pkt)
{
	const struct mroce_av *av = &dp->av;

	lockdep_assert_held(&dp->run_lock);
	if (!mroce_qp_connected(dp->qp))
		return true;
	if (pkt->ipv6) {
		const struct ipv6hdr *ip6 = ipv6_hdr(pkt->skb);

		return av->network_type == RDMA_NETWORK_IPV6 &&
		       !memcmp(&ip6->saddr, av->dgid.raw, sizeof(ip6->saddr)) &&
		       !memcmp(&ip6->daddr, av->sgid.raw, sizeof(ip6->daddr));
	}
	return av->network_type == RDMA_NETWORK_IPV4 &&
	       !memcmp(&ip_hdr(pkt->skb)->saddr, &av->dgid.raw[12], 4) &&
	       !memcmp(&ip_hdr(pkt->skb)->daddr, &av->sgid.raw[12], 4);
}

/**
 * mroce_recv_one() - one received packet of a QP, from its task
 * @dp: the QP's data path
 * @skb: the packet, data at the UDP header; consumed
 * @state: the QP's state for this run of the task
 *
 * Checked, then handed to the responder (requests) or the completer
 * (responses); anything that does not pass is dropped and counted.
 */
void mroce_recv_one(struct mroce_dpqp *dp, struct sk_buff *skb,
		    enum ib_qp_state state)
{
	struct mroce_rxpkt pkt;
	u32 flags;
	int err;

	lockdep_assert_held(&dp->run_lock);
	/* IBTA 10.3.1: a QP that is not (or no longer) receiving drops. */
	if (state < IB_QPS_RTR || state == IB_QPS_ERR || dp->error) {
		mroce_count(dp->mdev, MROCE_CNT_RX_DROP_QP_STATE);
		kfree_skb(skb);
		return;
	}
	err = mroce_recv_parse(dp, skb, &pkt);
	if (err) {
		mroce_count(dp->mdev, err == -EBADMSG ? MROCE_CNT_RX_DROP_ICRC :
				      MROCE_CNT_RX_DROP_MALFORMED);
		kfree_skb(skb);
		return;
	}
	if (!mroce_recv_from_peer(dp, &pkt)) {
		mroce_count(dp->mdev, MROCE_CNT_RX_DROP_PEER);
		kfree_skb(skb);
		return;
	}
	if (mroce_ecn_rx(dp, &pkt)) {
		consume_skb(skb);
		return;
	}
	if (mroce_nego_rx(dp, &pkt)) {
		kfree_skb(skb);
		return;
	}
	mroce_xdata_rx_ts(dp, &pkt);
	flags = pkt.lo.op->flags;
	if (flags & MROCE_OPF_REQ)
		mroce_resp_rx(dp, &pkt);
	else if ((flags & MROCE_OPF_RESP) && mroce_qp_is_rc(dp->qp) &&
		 state >= IB_QPS_RTS)
		mroce_comp_rx(dp, &pkt);
	else
		mroce_count(dp->mdev, MROCE_CNT_RX_DROP_MALFORMED);
	consume_skb(skb);
}
