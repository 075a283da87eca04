// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Network side of MetaRoCE: RoCEv2 UDP tunnel socket pairs (IPv4 and IPv6)
 * per network namespace and UDP port, shared by every MetaRoCE device whose
 * netdev lives in that namespace and which uses that port.
 *
 * The port is 4791 (IANA's RoCEv2 port, IBTA A17.2) unless the `udp_port`
 * module parameter said otherwise when the device was created: a device
 * sends to and listens on its port only, for all of its traffic, so both
 * ends must use the same one (a ConnectX NIC with RoCE enabled takes 4791
 * for itself, Documentation/deployment.rst).  The sockets of a port are
 * opened when the first device of a namespace using it is created and closed
 * when the last one is deallocated, so a namespace without MetaRoCE devices
 * leaves the port free (for rdma_rxe, say).  Kernel sockets hold no
 * reference on their namespace; instead the namespace's exit handler waits
 * until every device of the namespace has let go (they are unregistered when
 * their netdevs disappear, which happens earlier in namespace teardown).
 *
 * Receive: the encap hook runs in softirq under the RCU read lock; it finds
 * the device by the receiving netdev and the port and hands the skb to the
 * QP's task (mroce_task_rx()), which does all the parsing.  Transmit: the
 * data path builds the transport headers and payload in a linear skb
 * (mroce_tx_alloc()), or the headers only with the payload attached from a
 * user memory region as page fragments and the pad and ICRC in a trailer
 * fragment (mroce_tx_trailer()).  mroce_tx_send() adds UDP and IP headers
 * itself, so that the ICRC can cover the final IP header (IBTA A17.8
 * includes the IPv4 identification), then hands the packet to
 * ip_local_out()/ip6_local_out().  Between MetaRoCE peers that agreed on
 * it, mroce_dp_xmit() protects a packet with the UDP checksum instead,
 * which the netdev computes when it can (mroce_tx_udp_csum()).
 */
#include <linux/inetdevice.h>
#include <linux/netdevice.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ip6_checksum.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/route.h>
#include <net/udp_tunnel.h>

#include "mroce_dp.h"
#include "core/mroce_ext.h"
#include "core/mroce_icrc.h"

/**
 * struct mroce_net - MetaRoCE state of one network namespace
 * @lock: serialises socket open/close, @ports and @users changes
 * @ports: the open ports (struct mroce_net_port), under @lock
 * @users: devices holding sockets, over all ports
 * @devs: those devices (RCU list, for the receive path; writers hold @lock)
 * @wq: woken when @users drops to zero
 */
struct mroce_net {
	struct mutex lock;
	struct list_head ports;
	unsigned int users;
	struct list_head devs;
	wait_queue_head_t wq;
};

/**
 * struct mroce_net_port - the sockets of one UDP port in one namespace
 * @node: entry on mroce_net.ports
 * @mnet: the namespace's state
 * @sock4: IPv4 socket
 * @sock6: IPv6 socket, NULL without IPv6
 * @users: devices using this port (under mroce_net.lock)
 * @port: the UDP port, host order
 *
 * The sockets' sk_user_data; freed an RCU grace period after they close.
 */
struct mroce_net_port {
	struct list_head node;
	struct mroce_net *mnet;
	struct socket *sock4;
	struct socket *sock6;
	unsigned int users;
	u16 port;
};

/* One entry of mroce_net.devs; embedded in nothing so mroce_dev stays lean. */
struct mroce_net_dev {
	struct list_head node;
	struct rcu_head rcu;
	struct mroce_dev *mdev;
	struct net_device *ndev;
	u16 port;
};

static unsigned int mroce_net_id __read_mostly;

static u16 mroce_udp_port = MROCE_UDP_PORT;

/* udp_port=: any port from 1 to 65535; anything else is refused, loudly. */
static int mroce_udp_port_set(const char *val, const struct kernel_param *kp)
{
	u16 port;

	if (kstrtou16(val, 0, &port) || !port) {
		pr_err("metaroce: udp_port=%s refused: a UDP port is a number from 1 to 65535\n",
		       strim((char *)val));
		return -EINVAL;
	}
	WRITE_ONCE(mroce_udp_port, port);
	return 0;
}

static const struct kernel_param_ops mroce_udp_port_ops = {
	.set = mroce_udp_port_set,
	.get = param_get_ushort,
};
module_param_cb(udp_port, &mroce_udp_port_ops, &mroce_udp_port, 0644);
MODULE_PARM_DESC(udp_port,
		 "UDP port of devices created from now on, for all their traffic (default: 4791, RoCEv2)");

/* The port a device created now gets (the udp_port parameter). */
u16 mroce_net_udp_port(void)
{
	return READ_ONCE(mroce_udp_port);
}

static struct mroce_dev *mroce_net_find_dev(struct mroce_net *mnet,
					    const struct net_device *ndev,
					    u16 port)
{
	struct mroce_net_dev *nd;

	list_for_each_entry_rcu(nd, &mnet->devs, node)
		if (nd->ndev == ndev && nd->port == port)
			return nd->mdev;
	return NULL;
}

/*
 * A packet to one of this namespace's own addresses (a QP talking to a QP
 * of the same device, or of another device in the namespace) is routed
 * through the loopback device: the device is the one that owns the
 * destination address.  RCU read lock held.
 */
static struct net_device *mroce_net_local_dev(struct sock *sk,
					      struct sk_buff *skb)
{
	struct net *net = sock_net(sk);

	if (ip_hdr(skb)->version == 4)
		return __ip_dev_find(net, ip_hdr(skb)->daddr, false);
	if (IS_ENABLED(CONFIG_IPV6) && ipv6_stub->ipv6_dev_find)
		return ipv6_stub->ipv6_dev_find(net, &ipv6_hdr(skb)->daddr,
						NULL);
	return NULL;
}

/*
 * UDP encap receive hook, in softirq with the RCU read lock held; skb->data
 * is the UDP header.  Returns 0: the skb is always consumed.
 */
static int mroce_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	struct mroce_net_port *np = rcu_dereference_sk_user_data(sk);
	struct mroce_dev *mdev = NULL;
	struct net_device *ndev = skb->dev;

	if (ndev && (ndev->flags & IFF_LOOPBACK))
		ndev = mroce_net_local_dev(sk, skb);
	if (np && ndev)
		mdev = mroce_net_find_dev(np->mnet, ndev, np->port);
	if (!mdev) {
		kfree_skb(skb);
		return 0;
	}
	mroce_count(mdev, MROCE_CNT_RX_PKTS);
	mroce_task_rx(mdev, skb);
	return 0;
}

/*
 * tx_zcopy=: payloads of at least this many bytes from user memory regions
 * leave by reference (page fragments) rather than copied into the skb.
 * Below it a copy is cheaper than the page references and the trailer.
 */
static unsigned int mroce_tx_zcopy = 256;
module_param_named(tx_zcopy, mroce_tx_zcopy, uint, 0644);
MODULE_PARM_DESC(tx_zcopy,
		 "Send payloads of at least this many bytes from user memory by reference, not copied (0: always copy; default 256)");

/**
 * mroce_tx_zcopy_ok() - may a payload leave by reference?
 * @mdev: the sending device
 * @plen: payload bytes of the packet
 *
 * Only when tx_zcopy allows it for @plen and the netdev takes page
 * fragments (NETIF_F_SG; without it the stack would linearize the skb,
 * copying after all).
 */
bool mroce_tx_zcopy_ok(struct mroce_dev *mdev, u32 plen)
{
	unsigned int min = READ_ONCE(mroce_tx_zcopy);

	return min && plen >= min && (mdev->ndev->features & NETIF_F_SG);
}

/**
 * mroce_tx_alloc() - an skb for one RoCEv2 packet
 * @mdev: the sending device
 * @av: the path (selects the IP version, hence the headroom)
 * @opcode: BTH opcode, for the length of the transport headers
 * @plen: payload bytes
 * @payload: where the caller writes the payload; NULL when the caller
 *	attaches it as page fragments, then mroce_tx_zcopy_done()
 * @gfp: allocation flags: GFP_ATOMIC from the task (which holds a spinlock,
 *	in softirq or with BH disabled)
 *
 * skb->data is the BTH.  With @payload the skb is linear and holds the
 * payload room, the pad and the ICRC trailer (zeroed); without, it holds
 * the transport headers only.  The headroom has space for the longest
 * MetaRoCE headers too, so that a request can still leave as its MetaRoCE
 * kind (mroce_dp_xmit_xskb()).  Returns NULL without memory or for an
 * unknown opcode.
 */
struct sk_buff *mroce_tx_alloc(struct mroce_dev *mdev, const struct mroce_av *av,
			       u8 opcode, u32 plen, u8 **payload, gfp_t gfp)
{
	const struct mroce_opcode_info *op = mroce_opcode_info(opcode);
	struct net_device *ndev = mdev->ndev;
	u32 hlen, tlen, pad = mroce_padcnt(plen);
	struct sk_buff *skb;
	u8 *p;

	if (!op)
		return NULL;
	hlen = (av->network_type == RDMA_NETWORK_IPV6 ?
		sizeof(struct ipv6hdr) : sizeof(struct iphdr)) +
	       sizeof(struct udphdr) + LL_RESERVED_SPACE(ndev) +
	       MROCE_XMAX_HDR_LEN - MROCE_BTH_LEN;
	tlen = op->hdr_len;
	if (payload)
		tlen += plen + pad + MROCE_ICRC_LEN;
	skb = alloc_skb(hlen + tlen + ndev->needed_tailroom, gfp);
	if (!skb)
		return NULL;
	skb_reserve(skb, hlen);
	p = skb_put(skb, tlen);
	if (payload) {
		memset(p + op->hdr_len + plen, 0, pad + MROCE_ICRC_LEN);
		*payload = p + op->hdr_len;
	}
	return skb;
}

/*
 * End a packet whose payload is in page fragments:
 * @skb: from mroce_tx_alloc() without @payload, its @plen payload bytes
 *	attached (mroce_sge_frags(), mroce_rkey_frags())
 * @plen: those bytes
 *
 * Appends the pad and the ICRC room (zeroed) as one more fragment, from
 * the per-CPU page fragment cache.  Returns 0 or -ENOMEM.
 */
static int mroce_tx_trailer(struct sk_buff *skb, u32 plen)
{
	u32 len = mroce_padcnt(plen) + MROCE_ICRC_LEN;
	struct page *page;
	u8 *t;

	if (WARN_ON_ONCE(skb_shinfo(skb)->nr_frags >= MAX_SKB_FRAGS))
		return -EMSGSIZE;
	t = netdev_alloc_frag(len);
	if (!t)
		return -ENOMEM;
	memset(t, 0, len);
	page = virt_to_head_page(t);
	skb_fill_page_desc(skb, skb_shinfo(skb)->nr_frags, page,
			   t - (u8 *)page_address(page), len);
	skb->len += len;
	skb->data_len += len;
	skb->truesize += len;
	return 0;
}

/**
 * mroce_tx_zcopy_done() - finish an skb whose payload went by reference
 * @mdev: the device
 * @skb: from mroce_tx_alloc() without payload room
 * @plen: payload bytes
 * @err: what attaching them as fragments returned (mroce_sge_frags(),
 *	mroce_rkey_frags()); set on failure
 *
 * Adds the pad and the ICRC room (mroce_tx_trailer()) and counts the
 * packet in tx_zcopy_packets.
 *
 * Return: @skb, or NULL with *@err set and the skb freed.
 */
struct sk_buff *mroce_tx_zcopy_done(struct mroce_dev *mdev,
				    struct sk_buff *skb, u32 plen, int *err)
{
	if (!*err)
		*err = mroce_tx_trailer(skb, plen);
	if (*err) {
		kfree_skb(skb);
		return NULL;
	}
	mroce_count(mdev, MROCE_CNT_TX_ZCOPY);
	return skb;
}

/*
 * ICRC over the finished IP, UDP and transport headers and the payload
 * (IBTA A17.8), written into the last four bytes, which may be in the
 * trailer fragment.
 */
static void mroce_tx_icrc(struct sk_buff *skb, bool ipv6)
{
	u32 bth = skb_transport_offset(skb) + sizeof(struct udphdr);
	u32 len = skb->len - bth;
	__le32 icrc;
	u32 crc;

	crc = mroce_icrc_begin(skb_network_header(skb), ipv6);
	crc = mroce_skb_icrc(skb, bth + MROCE_BTH_LEN,
			     len - MROCE_BTH_LEN - MROCE_ICRC_LEN, crc);
	icrc = cpu_to_le32(mroce_icrc_finish(crc));
	if (!skb_is_nonlinear(skb))
		memcpy(skb_tail_pointer(skb) - MROCE_ICRC_LEN, &icrc,
		       MROCE_ICRC_LEN);
	else
		WARN_ON_ONCE(skb_store_bits(skb, skb->len - MROCE_ICRC_LEN,
					    &icrc, MROCE_ICRC_LEN));
}

/*
 * The UDP checksum in place of the ICRC (wire.rst, "Integrity: UDP checksum
 * instead of ICRC"), over the finished IP and UDP headers; the ICRC field
 * stays zero.  When the route's netdev offloads it, CHECKSUM_PARTIAL: the
 * field holds the pseudo-header sum and the netdev (or, for a veth, nobody:
 * the peer takes the packet as verified) completes it.  Otherwise it is
 * summed here, fragments included, and counted.
 */
static void mroce_tx_udp_csum(struct mroce_dev *mdev, struct sk_buff *skb,
			      bool ipv6)
{
	netdev_features_t hw = NETIF_F_HW_CSUM |
			       (ipv6 ? NETIF_F_IPV6_CSUM : NETIF_F_IP_CSUM);
	u32 off = skb_transport_offset(skb), len = skb->len - off;
	struct udphdr *uh = udp_hdr(skb);
	__wsum sum = 0;

	mroce_count(mdev, MROCE_CNT_TX_UDP_CSUM);
	uh->check = 0;
	if (skb_dst(skb)->dev->features & hw) {
		skb->ip_summed = CHECKSUM_PARTIAL;
		skb->csum_start = skb_transport_header(skb) - skb->head;
		skb->csum_offset = offsetof(struct udphdr, check);
	} else {
		sum = skb_checksum(skb, off, len, 0);
		mroce_count(mdev, MROCE_CNT_TX_UDP_CSUM_SW);
	}
	if (ipv6)
		uh->check = csum_ipv6_magic(&ipv6_hdr(skb)->saddr,
					    &ipv6_hdr(skb)->daddr, len,
					    IPPROTO_UDP, sum);
	else
		uh->check = csum_tcpudp_magic(ip_hdr(skb)->saddr,
					      ip_hdr(skb)->daddr, len,
					      IPPROTO_UDP, sum);
	if (skb->ip_summed == CHECKSUM_PARTIAL)
		uh->check = ~uh->check;
	else if (!uh->check)
		uh->check = CSUM_MANGLED_0;	/* RFC 768: 0 means none */
}

/* ICRC or UDP checksum, once the IP header is final. */
static void mroce_tx_integrity(struct mroce_dev *mdev, struct sk_buff *skb,
			       bool ipv6, bool csum)
{
	if (csum)
		mroce_tx_udp_csum(mdev, skb, ipv6);
	else
		mroce_tx_icrc(skb, ipv6);
}

/* Caller disabled BH (dst_cache is per CPU).  Consumes @skb. */
static int mroce_tx_ipv4(struct mroce_dev *mdev, const struct mroce_av *av,
			 struct dst_cache *dst, struct sk_buff *skb, u8 tos,
			 bool csum)
{
	struct rtable *rt = NULL;
	struct iphdr *iph;
	__be32 saddr, daddr;

	memcpy(&saddr, &av->sgid.raw[12], 4);
	memcpy(&daddr, &av->dgid.raw[12], 4);
	if (dst)
		rt = dst_cache_get_ip4(dst, &saddr);
	if (!rt) {
		struct flowi4 fl4 = {
			.flowi4_oif = mdev->ndev->ifindex,
			.flowi4_tos = RT_TOS(av->traffic_class),
			.flowi4_proto = IPPROTO_UDP,
			.saddr = saddr,
			.daddr = daddr,
			.fl4_sport = udp_hdr(skb)->source,
			.fl4_dport = udp_hdr(skb)->dest,
		};

		rt = ip_route_output_key(mdev->net, &fl4);
		if (IS_ERR(rt)) {
			kfree_skb(skb);
			return PTR_ERR(rt);
		}
		if (dst)
			dst_cache_set_ip4(dst, &rt->dst, fl4.saddr);
	}
	skb_dst_set(skb, &rt->dst);

	iph = skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph->version = 4;
	iph->ihl = sizeof(*iph) / 4;
	iph->tos = tos;
	iph->tot_len = htons(skb->len);
	iph->frag_off = htons(IP_DF);
	iph->ttl = av->hop_limit;
	iph->protocol = IPPROTO_UDP;
	iph->saddr = saddr;
	iph->daddr = daddr;
	__ip_select_ident(mdev->net, iph, 1);
	ip_send_check(iph);
	skb->protocol = htons(ETH_P_IP);
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	mroce_tx_integrity(mdev, skb, false, csum);
	return ip_local_out(mdev->net, NULL, skb);
}

/* Caller disabled BH.  Consumes @skb. */
static int mroce_tx_ipv6(struct mroce_dev *mdev, const struct mroce_av *av,
			 struct dst_cache *dst, struct sk_buff *skb, u8 tos,
			 bool csum)
{
	struct sock *sk = mdev->mport->sock6 ? mdev->mport->sock6->sk : NULL;
	struct dst_entry *d = NULL;
	struct in6_addr saddr, daddr;
	struct ipv6hdr *ip6h;

	if (!sk || !ipv6_stub->ipv6_dst_lookup_flow) {
		kfree_skb(skb);
		return -EAFNOSUPPORT;
	}
	memcpy(&saddr, av->sgid.raw, sizeof(saddr));
	memcpy(&daddr, av->dgid.raw, sizeof(daddr));
	if (dst)
		d = dst_cache_get_ip6(dst, &saddr);
	if (!d) {
		struct flowi6 fl6 = {
			.flowi6_oif = mdev->ndev->ifindex,
			.flowi6_proto = IPPROTO_UDP,
			.saddr = saddr,
			.daddr = daddr,
			.fl6_sport = udp_hdr(skb)->source,
			.fl6_dport = udp_hdr(skb)->dest,
		};

		d = ipv6_stub->ipv6_dst_lookup_flow(mdev->net, sk, &fl6, NULL);
		if (IS_ERR(d)) {
			kfree_skb(skb);
			return PTR_ERR(d);
		}
		if (dst)
			dst_cache_set_ip6(dst, d, &fl6.saddr);
	}
	skb_dst_set(skb, d);

	ip6h = skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6_flow_hdr(ip6h, tos, htonl(av->flow_label));
	ip6h->payload_len = htons(skb->len - sizeof(*ip6h));
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = av->hop_limit;
	ip6h->saddr = saddr;
	ip6h->daddr = daddr;
	skb->protocol = htons(ETH_P_IPV6);
	memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
	mroce_tx_integrity(mdev, skb, true, csum);
	return ip6_local_out(mdev->net, sk, skb);
}

/*
 * The IP traffic class (DSCP and ECN bits) of a packet with BTH opcode
 * @opcode: the AV's, except that while metaroce_ecn is on, packets that
 * carry requests or READ responses are ECN-capable, ECT(0), if the AV
 * leaves the ECN bits clear, so a congested switch marks them instead of
 * dropping them (RFC 3168).  ACKs and NAKs stay as the AV says (a mark on
 * them would slow the other direction), and CNPs go with
 * metaroce_cnp_dscp, not ECN-capable (nothing answers a marked CNP).
 */
static u8 mroce_tx_tos(const struct mroce_dev *mdev,
		       const struct mroce_av *av, u8 opcode)
{
	u8 tos = av->traffic_class;

	switch (opcode) {
	case MROCE_OP_CNP:
		return READ_ONCE(mdev->cnp_dscp) << 2;
	case MROCE_OP_RC_ACKNOWLEDGE:
	case MROCE_OP_RC_ATOMIC_ACKNOWLEDGE:
	case MROCE_XOP_ACK:
		return tos;
	}
	if (!(tos & INET_ECN_MASK) && READ_ONCE(mdev->ecn))
		tos |= INET_ECN_ECT_0;
	return tos;
}

/*
 * Add UDP and IP to a packet whose transport headers are written, protect
 * it (ICRC, or the UDP checksum when @csum) and transmit.
 */
static int mroce_tx_out(struct mroce_dev *mdev, const struct mroce_av *av,
			struct dst_cache *dst, u16 sport, struct sk_buff *skb,
			bool csum)
{
	u8 tos = mroce_tx_tos(mdev, av, skb->data[0]);
	struct udphdr *uh;
	int err;

	uh = skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh->source = htons(sport);
	uh->dest = htons(mdev->udp_port);
	uh->len = htons(skb->len);
	uh->check = 0;

	local_bh_disable();
	if (av->network_type == RDMA_NETWORK_IPV6)
		err = mroce_tx_ipv6(mdev, av, dst, skb, tos, csum);
	else
		err = mroce_tx_ipv4(mdev, av, dst, skb, tos, csum);
	local_bh_enable();
	if (err < 0)
		return err;
	mroce_count(mdev, MROCE_CNT_TX_PKTS);
	return net_xmit_eval(err);
}

/* Encode the transport headers and transmit; see mroce_tx_send(). */
static int mroce_tx_xmit(struct mroce_dev *mdev, const struct mroce_av *av,
			 struct dst_cache *dst, u16 sport, struct mroce_hdr *h,
			 struct sk_buff *skb, bool csum)
{
	mroce_hdr_encode(skb->data, skb->len, h);
	return mroce_tx_out(mdev, av, dst, sport, skb, csum);
}

/**
 * mroce_tx_send() - encode the transport headers and transmit
 * @mdev: the sending device
 * @av: source and destination GIDs, traffic class (DSCP and ECN bits of
 *	the IP header), hop limit and flow label
 * @dst: route cache of the QP, or NULL to route every packet (UD)
 * @sport: UDP source port (the flow's entropy, IBTA A17.5)
 * @h: the headers; h->bth.pad must be mroce_padcnt() of the payload
 * @skb: from mroce_tx_alloc(), payload written; always consumed
 *
 * A RoCEv2 packet: the UDP checksum is zero, which RoCEv2 receivers accept
 * for IPv4 and, like rdma_rxe, for IPv6 (the ICRC protects the packet).
 * Returns 0 or a negative errno (the packet was dropped).
 */
int mroce_tx_send(struct mroce_dev *mdev, const struct mroce_av *av,
		  struct dst_cache *dst, u16 sport, struct mroce_hdr *h,
		  struct sk_buff *skb)
{
	return mroce_tx_xmit(mdev, av, dst, sport, h, skb, false);
}

/**
 * mroce_dp_xmit() - mark and transmit a packet of a connected QP
 * @dp: the QP's data path (its path, route cache and source port)
 * @h: the headers, BTH filled; h->bth.pad as for mroce_tx_send()
 * @skb: from mroce_tx_alloc(), payload written; always consumed
 *
 * The capability mark (mroce_nego_mark()), then the ICRC, or the UDP
 * checksum when the connection agreed on it (mroce_nego_tx_csum()).
 * Caller holds run_lock.  Returns as mroce_tx_send().
 */
int mroce_dp_xmit(struct mroce_dpqp *dp, struct mroce_hdr *h,
		  struct sk_buff *skb)
{
	lockdep_assert_held(&dp->run_lock);
	mroce_nego_mark(dp, h);
	return mroce_dp_send(dp, h, skb);
}

/**
 * mroce_dp_send() - transmit a packet of a connected QP, already marked
 * @dp: the QP's data path
 * @h: the headers, BTH filled and marked (mroce_nego_mark())
 * @skb: from mroce_tx_alloc(), payload written; always consumed
 *
 * As mroce_dp_xmit(), for a caller that marked the packet itself.
 */
int mroce_dp_send(struct mroce_dpqp *dp, struct mroce_hdr *h,
		  struct sk_buff *skb)
{
	lockdep_assert_held(&dp->run_lock);
	return mroce_tx_xmit(dp->mdev, &dp->av, &dp->dst, dp->sport, h, skb,
			     mroce_nego_tx_csum(&dp->nego));
}

/**
 * mroce_dp_xmit_xskb() - send a request as its MetaRoCE kind
 * @dp: the QP's data path, in MetaRoCE mode
 * @x: the MetaRoCE headers, BTH marked
 * @skb: from mroce_tx_alloc(), data at room for @roce_hlen bytes of
 *	RoCEv2 headers, payload behind them; always consumed
 * @roce_hlen: that room
 * @path: the path it takes (mroce_spray_route()), negative for the
 *	connection's own
 *
 * The MetaRoCE headers are longer: they take @skb's headroom, which
 * mroce_tx_alloc() left for them.  Protected as the connection's other
 * packets are.  Caller holds run_lock.
 *
 * Return: 0, -EINVAL for headers that do not fit (a bug), or what
 * mroce_tx_send() returns.
 */
int mroce_dp_xmit_xskb(struct mroce_dpqp *dp, const struct mroce_xhdr *x,
		       struct sk_buff *skb, u32 roce_hlen, int path)
{
	int hlen = mroce_xhdr_len(x);
	struct dst_cache *dst;
	u16 sport;

	lockdep_assert_held(&dp->run_lock);
	if (WARN_ON_ONCE(hlen < (int)roce_hlen ||
			 skb_headroom(skb) < hlen - roce_hlen)) {
		kfree_skb(skb);
		return -EINVAL;
	}
	skb_push(skb, hlen - roce_hlen);
	if (mroce_xhdr_encode(skb->data, hlen, x) != hlen) {
		kfree_skb(skb);
		return -EINVAL;
	}
	mroce_spray_route(dp, path, &dst, &sport);
	return mroce_tx_out(dp->mdev, &dp->av, dst, sport, skb,
			    mroce_nego_tx_csum(&dp->nego));
}

/*
 * Build an MR_ACK (or another extension packet without payload) and send
 * it on the connection's own path.  Caller holds run_lock or ack_lock.
 */
static int mroce_dp_xmit_x_now(struct mroce_dpqp *dp,
			       const struct mroce_xhdr *x, bool csum)
{
	struct net_device *ndev = dp->mdev->ndev;
	struct sk_buff *skb;
	int hlen, tlen, room;

	hlen = mroce_xhdr_len(x);
	if (hlen < 0)
		return hlen;
	tlen = hlen + MROCE_ICRC_LEN;
	room = (dp->av.network_type == RDMA_NETWORK_IPV6 ?
		sizeof(struct ipv6hdr) : sizeof(struct iphdr)) +
	       sizeof(struct udphdr) + LL_RESERVED_SPACE(ndev);
	skb = alloc_skb(room + tlen + ndev->needed_tailroom, GFP_ATOMIC);
	if (!skb)
		return -ENOMEM;
	skb_reserve(skb, room);
	memset(skb_put(skb, tlen), 0, tlen);
	if (mroce_xhdr_encode(skb->data, hlen, x) != hlen) {
		kfree_skb(skb);
		return -EINVAL;
	}
	return mroce_tx_out(dp->mdev, &dp->av, &dp->dst, dp->sport, skb, csum);
}

/**
 * mroce_dp_xmit_x() - send a MetaRoCE extension packet with no payload
 * @dp: the QP's data path, in MetaRoCE mode
 * @x: its headers (wire.rst); the BTH's mark is set here
 *
 * Only packets without payload (MR_ACK) go this way.  Protected as the
 * connection's RoCEv2 packets are.  Caller holds run_lock.  While
 * dp->ack_later is set (the ACK a task run sends after its receive loop)
 * the packet is only recorded in dp->ack_x: the task sends it once
 * run_lock is dropped (mroce_dp_ack_after()).
 *
 * Return: 0, -ENOMEM without an skb, or what mroce_tx_send() returns.
 */
int mroce_dp_xmit_x(struct mroce_dpqp *dp, struct mroce_xhdr *x)
{
	lockdep_assert_held(&dp->run_lock);
	x->bth.resv7 = mroce_nego_resp_mark(&dp->nego);
	if (dp->ack_later) {
		/* a later ACK of the same run says everything this one says */
		dp->ack_x = *x;
		dp->ack_x_csum = mroce_nego_tx_csum(&dp->nego);
		dp->ack_x_set = true;
		return 0;
	}
	return mroce_dp_xmit_x_now(dp, x, mroce_nego_tx_csum(&dp->nego));
}

/**
 * mroce_dp_ack_after() - send the MR_ACK a run recorded
 * @dp: the QP's data path
 * @x: the headers the run recorded in dp->ack_x (a copy taken under
 *	run_lock)
 * @csum: dp->ack_x_csum
 *
 * Called by the task once run_lock is dropped: building and routing an
 * ACK costs microseconds (more under emulation), and in a ping-pong the
 * peer's application has seen the data the run placed and posts its next
 * request meanwhile, whose doorbell waits for run_lock.  dp->ack_lock
 * keeps modify_qp from changing the route meanwhile.  An ACK that finds
 * no memory is not lost: the next run sends one again.
 */
void mroce_dp_ack_after(struct mroce_dpqp *dp, const struct mroce_xhdr *x,
			bool csum)
{
	int err;

	spin_lock_bh(&dp->ack_lock);
	err = mroce_dp_xmit_x_now(dp, x, csum);
	spin_unlock_bh(&dp->ack_lock);
	if (err == -ENOMEM) {
		set_bit(MROCE_TASK_ACK_AGAIN, &dp->flags);
		mroce_task_schedule(dp);
	}
}

static struct socket *mroce_sock_open(struct net *net,
				      struct mroce_net_port *np, bool ipv6)
{
	struct udp_tunnel_sock_cfg tnl_cfg = {
		.sk_user_data = np,
		.encap_type = 1,
		.encap_rcv = mroce_udp_encap_recv,
	};
	struct udp_port_cfg port_cfg = {
		.local_udp_port = htons(np->port),
	};
	struct socket *sock;
	int err;

	if (ipv6) {
		port_cfg.family = AF_INET6;
		port_cfg.ipv6_v6only = 1;
	} else {
		port_cfg.family = AF_INET;
	}

	err = udp_sock_create(net, &port_cfg, &sock);
	if (err)
		return ERR_PTR(err);
	setup_udp_tunnel_sock(net, sock, &tnl_cfg);
	return sock;
}

static void mroce_sock_close(struct socket **sockp)
{
	if (*sockp) {
		udp_tunnel_sock_release(*sockp);
		*sockp = NULL;
	}
}

static int mroce_port_open_socks(struct net *net, struct mroce_net_port *np)
{
	struct socket *sock;

	sock = mroce_sock_open(net, np, false);
	if (IS_ERR(sock))
		return PTR_ERR(sock);
	np->sock4 = sock;

	if (!IS_ENABLED(CONFIG_IPV6) || !ipv6_mod_enabled())
		return 0;
	sock = mroce_sock_open(net, np, true);
	if (IS_ERR(sock)) {
		/* A namespace without IPv6 still gets IPv4 RoCE. */
		if (PTR_ERR(sock) == -EAFNOSUPPORT)
			return 0;
		mroce_sock_close(&np->sock4);
		return PTR_ERR(sock);
	}
	np->sock6 = sock;
	return 0;
}

/* The open port @port of @mnet, or a new one.  Caller holds mnet->lock. */
static struct mroce_net_port *mroce_port_get(struct net *net,
					     struct mroce_net *mnet, u16 port)
{
	struct mroce_net_port *np;
	int err;

	lockdep_assert_held(&mnet->lock);
	list_for_each_entry(np, &mnet->ports, node)
		if (np->port == port)
			return np;

	np = kzalloc(sizeof(*np), GFP_KERNEL);
	if (!np)
		return ERR_PTR(-ENOMEM);
	np->mnet = mnet;
	np->port = port;
	err = mroce_port_open_socks(net, np);
	if (err) {
		kfree(np);
		return ERR_PTR(err);
	}
	list_add_tail(&np->node, &mnet->ports);
	return np;
}

/**
 * mroce_net_get - take a user reference on the sockets of a device's port
 * @net: the namespace of the device's netdev
 * @mdev: the device; its received packets on mdev->udp_port are delivered
 *	to it from now on
 *
 * Opens the sockets if @mdev is the first user of its port in @net.
 * Returns the port's state or an ERR_PTR (-EADDRINUSE when another RoCE
 * stack or a program owns the port there).
 */
struct mroce_net_port *mroce_net_get(struct net *net, struct mroce_dev *mdev)
{
	struct mroce_net *mnet = net_generic(net, mroce_net_id);
	struct mroce_net_port *np;
	struct mroce_net_dev *nd;

	nd = kzalloc(sizeof(*nd), GFP_KERNEL);
	if (!nd)
		return ERR_PTR(-ENOMEM);
	nd->mdev = mdev;
	nd->ndev = mdev->ndev;
	nd->port = mdev->udp_port;

	mutex_lock(&mnet->lock);
	np = mroce_port_get(net, mnet, nd->port);
	if (IS_ERR(np)) {
		mutex_unlock(&mnet->lock);
		kfree(nd);
		return np;
	}
	np->users++;
	mnet->users++;
	list_add_tail_rcu(&nd->node, &mnet->devs);
	mutex_unlock(&mnet->lock);
	return np;
}

/* Drop @mdev's reference taken by mroce_net_get(); may sleep. */
void mroce_net_put(struct mroce_net_port *np, struct mroce_dev *mdev)
{
	struct mroce_net *mnet = np->mnet;
	struct mroce_net_dev *nd, *found = NULL;
	struct mroce_net_port *closed = NULL;

	mutex_lock(&mnet->lock);
	list_for_each_entry(nd, &mnet->devs, node) {
		if (nd->mdev == mdev) {
			found = nd;
			break;
		}
	}
	if (!WARN_ON(!found))
		list_del_rcu(&found->node);
	if (!--np->users) {
		mroce_sock_close(&np->sock6);
		mroce_sock_close(&np->sock4);
		list_del(&np->node);
		closed = np;
	}
	if (!--mnet->users)
		wake_up_all(&mnet->wq);
	mutex_unlock(&mnet->lock);

	/* The receive path may still be looking at @found and @closed. */
	synchronize_rcu();
	kfree(found);
	kfree(closed);
}

static int __net_init mroce_net_init_net(struct net *net)
{
	struct mroce_net *mnet = net_generic(net, mroce_net_id);

	mutex_init(&mnet->lock);
	INIT_LIST_HEAD(&mnet->ports);
	INIT_LIST_HEAD(&mnet->devs);
	init_waitqueue_head(&mnet->wq);
	return 0;
}

static void __net_exit mroce_net_exit_net(struct net *net)
{
	struct mroce_net *mnet = net_generic(net, mroce_net_id);

	/*
	 * Our devices in @net were queued for unregistration when their
	 * netdevs were unregistered, earlier in this namespace's teardown.
	 * Their sockets must be closed before the namespace is freed.
	 */
	wait_event(mnet->wq, !READ_ONCE(mnet->users));
	WARN_ON(!list_empty(&mnet->devs) || !list_empty(&mnet->ports));
}

static struct pernet_operations mroce_net_ops = {
	.init = mroce_net_init_net,
	.exit = mroce_net_exit_net,
	.id = &mroce_net_id,
	.size = sizeof(struct mroce_net),
};

int mroce_net_init(void)
{
	return register_pernet_subsys(&mroce_net_ops);
}

void mroce_net_exit(void)
{
	unregister_pernet_subsys(&mroce_net_ops);
}
