// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE requests of an RC connection in MetaRoCE mode
 * (Documentation/wire.rst, "Packet kinds").
 *
 * In its MetaRoCE span the requester sends SEND, WRITE and READ requests
 * as the MR_* kinds rather than their RoCEv2 opcodes.  Each carries the
 * MetaRoCE extension header, whose send timestamp the MR_ACK that answers
 * it echoes: every ACK gives an RTT sample, resends included, and a
 * duplicate's echo tells whether the copy that arrived twice was a resend
 * (a spurious one) or a copy the network made.  They are self-describing
 * too: every WRITE packet carries the message's RETH, every SEND and WRITE
 * packet the message header (message number, offset, length).
 *
 * The responder executes them through its RoCEv2 view (mroce_xdata_view():
 * the opcode their kind and position stand for), so RC order, receive
 * WQEs, RNR and atomics follow one code path in both modes; what arrives
 * ahead of its turn waits in PSN order (mroce_hold.c).  Atomics and READ
 * responses keep their RoCEv2 opcodes.
 *
 * Caller holds dp->run_lock in everything here.
 */
#include "mroce_dp.h"
#include "core/mroce_rtt.h"

/* A send timestamp: the clock in ns modulo 2^32; 0 means none on the wire. */
static u32 mroce_xdata_ts(struct mroce_dpqp *dp)
{
	return (u32)mroce_dp_now(dp) ?: 1;
}

/**
 * mroce_xdata_kind() - the MetaRoCE kind a request packet leaves as
 * @dp: the QP's data path (RC)
 * @h: the packet's RoCEv2 headers, BTH complete and marked
 *	(mroce_nego_mark())
 * @pos: set to the kind's MXH position flags
 *
 * A request leaves as its kind when the window repeats selectively, the
 * PSN is in the requester's MetaRoCE span (the mark's switch bit: the
 * responder holds such requests and answers them with MR_ACKs) and the
 * opcode has a kind.
 *
 * Return: the kind (mroce_ext_kind()), or 0 when the packet stays RoCEv2.
 */
u8 mroce_xdata_kind(const struct mroce_dpqp *dp, const struct mroce_hdr *h,
		    u8 *pos)
{
	if (!dp->win.selective || !(h->bth.resv7 & MROCE_BTH_MR_SWITCHED))
		return 0;
	return mroce_ext_kind(h->bth.opcode, pos);
}

/**
 * mroce_xdata_xmit() - send a request packet as its MetaRoCE kind
 * @dp: the QP's data path (RC)
 * @s: the WQE the packet belongs to
 * @h: the packet's RoCEv2 headers, BTH complete and marked
 * @kind: its kind and @pos its position flags, from mroce_xdata_kind()
 * @pos: see @kind
 * @off: byte offset of its payload in the message
 * @skb: from mroce_tx_alloc(), data at the RoCEv2 headers, payload
 *	attached; always consumed
 * @path: the path it takes (mroce_spray_pick()), negative for the
 *	connection's own; its index goes in the MXH for the ACK to echo
 *
 * Return: what mroce_dp_xmit_xskb() returns.
 */
int mroce_xdata_xmit(struct mroce_dpqp *dp, const struct mroce_swqe *s,
		     const struct mroce_hdr *h, u8 kind, u8 pos, u32 off,
		     struct sk_buff *skb, int path)
{
	const struct metaroce_send_wqe *w = &s->wqe;
	struct mroce_xhdr x = {};

	lockdep_assert_held(&dp->run_lock);
	x.bth = h->bth;
	x.bth.opcode = kind;
	x.mxh.ver = MROCE_XVER;
	x.mxh.flags = pos;
	x.mxh.ts = mroce_xdata_ts(dp);
	x.mxh.tse = dp->peer_ts;
	x.mxh.path = path < 0 ? 0 : path;
	if (x.bth.opcode == MROCE_XOP_READ_REQ) {
		/* from the response packet it asks for on (a resend) */
		x.reth = h->reth;
	} else {
		if (w->opcode == IB_WR_RDMA_WRITE ||
		    w->opcode == IB_WR_RDMA_WRITE_WITH_IMM) {
			x.reth.va = w->wr.rdma.remote_addr;
			x.reth.rkey = w->wr.rdma.rkey;
			x.reth.len = s->length;
		}
		x.msgh.msn = s->msn;
		x.msgh.off = off;
		x.msgh.len = s->length;
	}
	x.imm = h->imm;
	x.ieth_rkey = h->ieth_rkey;
	return mroce_dp_xmit_xskb(dp, &x, skb,
				  mroce_opcode_info(h->bth.opcode)->hdr_len, path);
}

/**
 * mroce_xdata_view() - the RoCEv2 view of a MetaRoCE request
 * @pkt: the received packet, whose RoCEv2 headers and layout are set here
 * @x: its decoded MetaRoCE headers
 * @xlo: their layout
 *
 * The BTH with the opcode the kind and position stand for, and the RoCEv2
 * headers that opcode has: the RETH on the first packet of a WRITE (the
 * others carry it too, for placement on arrival) and on a READ request,
 * the immediate data or the invalidated R_Key on the last.
 *
 * Return: 0, or -EOPNOTSUPP for a kind that is not a request.
 */
int mroce_xdata_view(struct mroce_rxpkt *pkt, const struct mroce_xhdr *x,
		     const struct mroce_xlayout *xlo)
{
	const struct mroce_opcode_info *op;
	int code;

	code = mroce_ext_roce_op(x->bth.opcode, x->mxh.flags);
	if (code < 0)
		return code;
	op = mroce_opcode_info(code);
	memset(&pkt->hdr, 0, sizeof(pkt->hdr));
	pkt->hdr.bth = x->bth;
	pkt->hdr.bth.opcode = code;
	if (op->hdrs & MROCE_HDRF_RETH)
		pkt->hdr.reth = x->reth;
	if (op->hdrs & MROCE_HDRF_IMMDT)
		pkt->hdr.imm = x->imm;
	if (op->hdrs & MROCE_HDRF_IETH)
		pkt->hdr.ieth_rkey = x->ieth_rkey;
	pkt->mmsn = x->msgh.msn;
	pkt->moff = x->msgh.off;
	pkt->mlen = x->msgh.len;
	pkt->lo.op = op;
	pkt->lo.hdr_len = xlo->hdr_len;
	pkt->lo.pay_len = xlo->pay_len;
	pkt->lo.pad = xlo->pad;
	return 0;
}

/**
 * mroce_xdata_rx_ts() - note the timestamp of a MetaRoCE packet received
 * @dp: the QP's data path
 * @pkt: the packet, checked and from the peer
 *
 * A request's becomes what the next MR_ACK echoes, with its path id and
 * whether it came marked CE (unless a duplicate's is already waiting:
 * mroce_hold_dup(); and a marked request's stays over later unmarked
 * ones, so the mark reaches the requester with the path that carried
 * it); any packet's, what this end's requests echo.
 */
void mroce_xdata_rx_ts(struct mroce_dpqp *dp, const struct mroce_rxpkt *pkt)
{
	struct mroce_hold *h = &dp->hold;

	lockdep_assert_held(&dp->run_lock);
	if (!pkt->x || !pkt->ts)
		return;
	dp->peer_ts = pkt->ts;
	if ((pkt->lo.op->flags & MROCE_OPF_REQ) && !h->dup &&
	    (!h->ce_echo || pkt->ce)) {
		h->ts_echo = pkt->ts;
		h->path_echo = pkt->path;
		h->ce_echo = pkt->ce;
	}
}

/**
 * mroce_xdata_rtt() - the RTT sample of an MR_ACK's timestamp echo
 * @dp: the QP's data path (the requester)
 * @pkt: the MR_ACK
 *
 * Return: now minus the echoed send time in ns (at least 1), or 0 when the
 * ACK echoes nothing or a time that cannot be one of ours (older than
 * the longest RTO: a forged or stale echo is no sample).
 */
u64 mroce_xdata_rtt(struct mroce_dpqp *dp, const struct mroce_rxpkt *pkt)
{
	u32 rtt;

	if (!pkt->tse)
		return 0;
	rtt = (u32)mroce_dp_now(dp) - pkt->tse;
	if (rtt > MROCE_RTT_MAX_RTO_NS)
		return 0;
	return rtt ?: 1;
}
