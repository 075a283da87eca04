// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * IP/UDP codec and whole RoCEv2 packet encode/decode.
 *
 * Only what RoCEv2 senders produce is accepted: IPv4 without options or
 * fragmentation, IPv6 without extension headers, UDP lengths that agree
 * with the IP length.  Anything else is refused rather than half-parsed,
 * because the ICRC pseudo-header (IBTA A17.8) is only defined for it.
 */
#include "mroce_core.h"
#include "mroce_ipudp.h"
#include "mroce_rx.h"
#include "mroce_icrc.h"
#include "mroce_raw.h"

#define MROCE_IPV4_MF		0x2000
#define MROCE_IPV4_OFF_MASK	0x1fff

/* RFC 791 / RFC 1071 header checksum of a 20-byte IPv4 header. */
u16 mroce_ipv4_csum(const u8 *iph)
{
	u32 sum = 0;
	unsigned int i;

	for (i = 0; i < MROCE_IPV4_HDR_LEN; i += 2)
		if (i != 10)
			sum += mroce_get_be16(iph + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (u16)~sum;
}

static int mroce_ipv4_decode(const u8 *p, size_t len, struct mroce_ipudp *h)
{
	if (len < MROCE_IPV4_HDR_LEN + MROCE_UDP_HDR_LEN)
		return -EMSGSIZE;
	if ((p[0] & 0x0f) != MROCE_IPV4_HDR_LEN / 4)
		return -EOPNOTSUPP;
	h->tos = p[1];
	h->ip_len = mroce_get_be16(p + 2);
	h->id = mroce_get_be16(p + 4);
	h->frag_off = mroce_get_be16(p + 6);
	h->ttl = p[8];
	h->ip_csum = mroce_get_be16(p + 10);
	memcpy(h->saddr, p + 12, 4);
	memcpy(h->daddr, p + 16, 4);
	if (h->frag_off & (MROCE_IPV4_MF | MROCE_IPV4_OFF_MASK))
		return -EOPNOTSUPP;
	if (p[9] != MROCE_IPPROTO_UDP)
		return -EPROTO;
	h->hdr_len = MROCE_IPV4_HDR_LEN + MROCE_UDP_HDR_LEN;
	return 0;
}

static int mroce_ipv6_decode(const u8 *p, size_t len, struct mroce_ipudp *h)
{
	if (len < MROCE_IPV6_HDR_LEN + MROCE_UDP_HDR_LEN)
		return -EMSGSIZE;
	h->ipv6 = true;
	h->tos = (p[0] << 4) | (p[1] >> 4);
	h->flow_label = mroce_get_be24(p + 1) & 0xfffff;
	h->ip_len = MROCE_IPV6_HDR_LEN + mroce_get_be16(p + 4);
	h->ttl = p[7];
	memcpy(h->saddr, p + 8, 16);
	memcpy(h->daddr, p + 24, 16);
	/* RoCEv2 puts UDP right after the fixed header (IBTA A17.4.2). */
	if (p[6] != MROCE_IPPROTO_UDP)
		return -EOPNOTSUPP;
	h->hdr_len = MROCE_IPV6_HDR_LEN + MROCE_UDP_HDR_LEN;
	return 0;
}

/**
 * mroce_ipudp_decode() - decode the IP and UDP headers at @p
 * @p: the IP header
 * @len: bytes available; may exceed the IP length (Ethernet padding)
 * @h: the decoded headers
 *
 * Return: 0; -EMSGSIZE for truncated or inconsistent lengths;
 * -EOPNOTSUPP for IP versions, options, fragments or extension headers
 * RoCEv2 does not use; -EPROTO if IPv4 does not carry UDP.
 */
int mroce_ipudp_decode(const u8 *p, size_t len, struct mroce_ipudp *h)
{
	const u8 *udp;
	int err;

	memset(h, 0, sizeof(*h));
	if (len < 1)
		return -EMSGSIZE;
	switch (p[0] >> 4) {
	case 4:
		err = mroce_ipv4_decode(p, len, h);
		break;
	case 6:
		err = mroce_ipv6_decode(p, len, h);
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (err)
		return err;
	if (h->ip_len < h->hdr_len || h->ip_len > len)
		return -EMSGSIZE;
	udp = p + h->hdr_len - MROCE_UDP_HDR_LEN;
	h->sport = mroce_get_be16(udp);
	h->dport = mroce_get_be16(udp + 2);
	h->udp_len = mroce_get_be16(udp + 4);
	h->udp_csum = mroce_get_be16(udp + 6);
	if (h->udp_len != h->ip_len - h->hdr_len + MROCE_UDP_HDR_LEN)
		return -EMSGSIZE;
	return 0;
}

/**
 * mroce_ipudp_encode() - write the IP and UDP headers described by @h
 * @p: where the IP header goes
 * @len: room at @p
 * @h: the headers; lengths and checksums are written as given
 *
 * Return: the number of bytes written, or -EMSGSIZE.
 */
int mroce_ipudp_encode(u8 *p, size_t len, const struct mroce_ipudp *h)
{
	size_t iplen = h->ipv6 ? MROCE_IPV6_HDR_LEN : MROCE_IPV4_HDR_LEN;
	u8 *udp = p + iplen;

	if (len < iplen + MROCE_UDP_HDR_LEN)
		return -EMSGSIZE;
	if (h->ipv6) {
		mroce_put_be32(p, (6U << 28) | ((u32)h->tos << 20) |
			       (h->flow_label & 0xfffff));
		mroce_put_be16(p + 4, h->ip_len - MROCE_IPV6_HDR_LEN);
		p[6] = MROCE_IPPROTO_UDP;
		p[7] = h->ttl;
		memcpy(p + 8, h->saddr, 16);
		memcpy(p + 24, h->daddr, 16);
	} else {
		p[0] = 0x40 | (MROCE_IPV4_HDR_LEN / 4);
		p[1] = h->tos;
		mroce_put_be16(p + 2, h->ip_len);
		mroce_put_be16(p + 4, h->id);
		mroce_put_be16(p + 6, h->frag_off);
		p[8] = h->ttl;
		p[9] = MROCE_IPPROTO_UDP;
		mroce_put_be16(p + 10, h->ip_csum);
		memcpy(p + 12, h->saddr, 4);
		memcpy(p + 16, h->daddr, 4);
	}
	mroce_put_be16(udp, h->sport);
	mroce_put_be16(udp + 2, h->dport);
	mroce_put_be16(udp + 4, h->udp_len);
	mroce_put_be16(udp + 6, h->udp_csum);
	return iplen + MROCE_UDP_HDR_LEN;
}

/* mroce_rx_view reads for a packet in one buffer: @ctx is its BTH. */
static u32 mroce_pkt_crc(const void *ctx, u32 off, u32 n, u32 crc)
{
	return mroce_icrc_update(crc, (const u8 *)ctx + off, n);
}

static int mroce_pkt_copy(const void *ctx, u32 off, void *buf, u32 n)
{
	memcpy(buf, (const u8 *)ctx + off, n);
	return 0;
}

/**
 * mroce_pkt_decode() - decode and verify a whole RoCEv2 packet
 * @p: the IP header
 * @len: bytes available at @p
 * @pkt: the decoded packet
 *
 * The transport part is checked by mroce_rx_decode() and mroce_rx_verify(),
 * as the kernel module checks every packet it receives.
 *
 * Return: 0; the errors of mroce_ipudp_decode(), mroce_rx_decode() and
 * mroce_rx_verify();
 * -EPROTO if the UDP destination port is not RoCEv2's; -EBADMSG if the
 * IPv4 header checksum does not match.
 */
int mroce_pkt_decode(const u8 *p, size_t len, struct mroce_pkt *pkt)
{
	struct mroce_ipudp *net = &pkt->net;
	struct mroce_rx_view v;
	int err;

	memset(pkt, 0, sizeof(*pkt));
	err = mroce_ipudp_decode(p, len, net);
	if (err)
		return err;
	if (net->dport != MROCE_ROCEV2_UDP_PORT)
		return -EPROTO;
	if (!net->ipv6 && mroce_ipv4_csum(p) != net->ip_csum)
		return -EBADMSG;
	/* What the kernel runs on every packet it receives. */
	v.ip = p;
	v.ipv6 = net->ipv6;
	v.len = net->ip_len - net->hdr_len;
	v.crc = mroce_pkt_crc;
	v.copy = mroce_pkt_copy;
	v.ctx = p + net->hdr_len;
	err = mroce_rx_decode(&v, &pkt->hdr, &pkt->lo);
	if (!err)
		err = mroce_rx_verify(&v, &pkt->hdr, true);
	if (err)
		return err;
	pkt->pay_off = net->hdr_len + pkt->lo.hdr_len;
	pkt->icrc = mroce_get_le32(p + net->ip_len - MROCE_ICRC_LEN);
	return 0;
}

/**
 * mroce_pkt_encode() - build a whole RoCEv2 packet
 * @p: where the IP header goes
 * @len: room at @p
 * @pkt: the packet; the IP and UDP lengths, the IPv4 checksum, the pad
 *	 count, the payload offset and the ICRC are computed and stored back
 * @payload: @pkt->lo.pay_len payload bytes; the pad is written as zeros
 *
 * Return: the packet length, -EOPNOTSUPP for an unknown opcode, -EPROTO
 * for payload on an opcode that has none, or -EMSGSIZE if the packet does
 * not fit in @len or in an IP packet.
 */
int mroce_pkt_encode(u8 *p, size_t len, struct mroce_pkt *pkt,
		     const u8 *payload)
{
	const struct mroce_opcode_info *op;
	struct mroce_ipudp *net = &pkt->net;
	u32 pad, total;
	u8 *q;

	op = mroce_opcode_info(pkt->hdr.bth.opcode);
	if (!op)
		return -EOPNOTSUPP;
	if (!(op->flags & MROCE_OPF_PAYLOAD) && pkt->lo.pay_len)
		return -EPROTO;
	/* IBTA 9.2.x: pad the payload to a multiple of 4 bytes. */
	pad = -pkt->lo.pay_len & 3;
	net->hdr_len = (net->ipv6 ? MROCE_IPV6_HDR_LEN : MROCE_IPV4_HDR_LEN) +
		       MROCE_UDP_HDR_LEN;
	total = net->hdr_len + op->hdr_len + pkt->lo.pay_len + pad +
		MROCE_ICRC_LEN;
	if (pkt->lo.pay_len > 0xffff || total > 0xffff || total > len)
		return -EMSGSIZE;

	pkt->hdr.bth.pad = pad;
	pkt->lo.op = op;
	pkt->lo.hdr_len = op->hdr_len;
	pkt->lo.pad = pad;
	pkt->pay_off = net->hdr_len + op->hdr_len;
	net->ip_len = total;
	net->udp_len = total - net->hdr_len + MROCE_UDP_HDR_LEN;
	mroce_ipudp_encode(p, len, net);
	if (!net->ipv6) {
		net->ip_csum = mroce_ipv4_csum(p);
		mroce_put_be16(p + 10, net->ip_csum);
	}
	mroce_hdr_encode(p + net->hdr_len, len - net->hdr_len, &pkt->hdr);
	q = p + pkt->pay_off;
	if (pkt->lo.pay_len)
		memcpy(q, payload, pkt->lo.pay_len);
	memset(q + pkt->lo.pay_len, 0, pad);
	mroce_icrc_compute(p, total - MROCE_ICRC_LEN, net->ipv6, &pkt->icrc);
	mroce_put_le32(p + total - MROCE_ICRC_LEN, pkt->icrc);
	return total;
}
