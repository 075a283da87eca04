// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * RoCEv2 transport header encode and decode (IBTA 9.2, 9.3).
 *
 * Each header has one decode and one encode function built on the raw
 * accessors of mroce_raw.h; mroce_hdr_decode() and mroce_hdr_encode() walk
 * the extension headers an opcode has (from the opcode table) in wire
 * order.  Decoding checks every length before touching a byte, because its
 * input comes straight off the network.
 */
#include "mroce_core.h"
#include "mroce_hdr.h"
#include "mroce_raw.h"

void mroce_bth_decode(const u8 *p, struct mroce_bth *bth)
{
	bth->opcode = p[0];
	bth->se = p[1] & MROCE_BTH_SE;
	bth->mig = p[1] & MROCE_BTH_MIG;
	bth->pad = (p[1] & MROCE_BTH_PAD_MASK) >> MROCE_BTH_PAD_SHIFT;
	bth->tver = p[1] & MROCE_BTH_TVER_MASK;
	bth->pkey = mroce_get_be16(p + 2);
	bth->fecn = p[4] & MROCE_BTH_FECN;
	bth->becn = p[4] & MROCE_BTH_BECN;
	bth->resv6 = p[4] & MROCE_BTH_RESV6_MASK;
	bth->dqpn = mroce_get_be24(p + 5);
	bth->ackreq = p[8] & MROCE_BTH_ACKREQ;
	bth->resv7 = p[8] & MROCE_BTH_RESV7_MASK;
	bth->psn = mroce_get_be24(p + 9);
}

void mroce_bth_encode(u8 *p, const struct mroce_bth *bth)
{
	p[0] = bth->opcode;
	p[1] = (bth->se ? MROCE_BTH_SE : 0) | (bth->mig ? MROCE_BTH_MIG : 0) |
	       ((bth->pad << MROCE_BTH_PAD_SHIFT) & MROCE_BTH_PAD_MASK) |
	       (bth->tver & MROCE_BTH_TVER_MASK);
	mroce_put_be16(p + 2, bth->pkey);
	p[4] = (bth->fecn ? MROCE_BTH_FECN : 0) |
	       (bth->becn ? MROCE_BTH_BECN : 0) |
	       (bth->resv6 & MROCE_BTH_RESV6_MASK);
	mroce_put_be24(p + 5, bth->dqpn);
	p[8] = (bth->ackreq ? MROCE_BTH_ACKREQ : 0) |
	       (bth->resv7 & MROCE_BTH_RESV7_MASK);
	mroce_put_be24(p + 9, bth->psn);
}

static void mroce_deth_decode(const u8 *p, struct mroce_hdr *h)
{
	h->deth.qkey = mroce_get_be32(p);
	h->deth.resv8 = p[4];
	h->deth.sqpn = mroce_get_be24(p + 5);
}

static void mroce_deth_encode(u8 *p, const struct mroce_hdr *h)
{
	mroce_put_be32(p, h->deth.qkey);
	p[4] = h->deth.resv8;
	mroce_put_be24(p + 5, h->deth.sqpn);
}

/* RETH and AtomicETH both start with VA(8) and R_Key(4) (IBTA 9.3.3-4). */
static void mroce_va_rkey_decode(const u8 *p, u64 *va, u32 *rkey)
{
	*va = mroce_get_be64(p);
	*rkey = mroce_get_be32(p + 8);
}

static void mroce_va_rkey_encode(u8 *p, u64 va, u32 rkey)
{
	mroce_put_be64(p, va);
	mroce_put_be32(p + 8, rkey);
}

static void mroce_reth_decode(const u8 *p, struct mroce_hdr *h)
{
	mroce_va_rkey_decode(p, &h->reth.va, &h->reth.rkey);
	h->reth.len = mroce_get_be32(p + 12);
}

static void mroce_reth_encode(u8 *p, const struct mroce_hdr *h)
{
	mroce_va_rkey_encode(p, h->reth.va, h->reth.rkey);
	mroce_put_be32(p + 12, h->reth.len);
}

static void mroce_atmeth_decode(const u8 *p, struct mroce_hdr *h)
{
	mroce_va_rkey_decode(p, &h->atmeth.va, &h->atmeth.rkey);
	h->atmeth.swap_add = mroce_get_be64(p + 12);
	h->atmeth.compare = mroce_get_be64(p + 20);
}

static void mroce_atmeth_encode(u8 *p, const struct mroce_hdr *h)
{
	mroce_va_rkey_encode(p, h->atmeth.va, h->atmeth.rkey);
	mroce_put_be64(p + 12, h->atmeth.swap_add);
	mroce_put_be64(p + 20, h->atmeth.compare);
}

static void mroce_aeth_decode(const u8 *p, struct mroce_hdr *h)
{
	h->aeth.syndrome = p[0];
	h->aeth.msn = mroce_get_be24(p + 1);
}

static void mroce_aeth_encode(u8 *p, const struct mroce_hdr *h)
{
	p[0] = h->aeth.syndrome;
	mroce_put_be24(p + 1, h->aeth.msn);
}

static void mroce_atmack_decode(const u8 *p, struct mroce_hdr *h)
{
	h->atmack.orig = mroce_get_be64(p);
}

static void mroce_atmack_encode(u8 *p, const struct mroce_hdr *h)
{
	mroce_put_be64(p, h->atmack.orig);
}

static void mroce_immdt_decode(const u8 *p, struct mroce_hdr *h)
{
	h->imm = mroce_get_be32(p);
}

static void mroce_immdt_encode(u8 *p, const struct mroce_hdr *h)
{
	mroce_put_be32(p, h->imm);
}

static void mroce_ieth_decode(const u8 *p, struct mroce_hdr *h)
{
	h->ieth_rkey = mroce_get_be32(p);
}

static void mroce_ieth_encode(u8 *p, const struct mroce_hdr *h)
{
	mroce_put_be32(p, h->ieth_rkey);
}

static const struct {
	void (*decode)(const u8 *p, struct mroce_hdr *h);
	void (*encode)(u8 *p, const struct mroce_hdr *h);
} mroce_ext_codecs[MROCE_NUM_EXT] = {
	[MROCE_EXT_DETH]   = { mroce_deth_decode,   mroce_deth_encode },
	[MROCE_EXT_RETH]   = { mroce_reth_decode,   mroce_reth_encode },
	[MROCE_EXT_ATMETH] = { mroce_atmeth_decode, mroce_atmeth_encode },
	[MROCE_EXT_AETH]   = { mroce_aeth_decode,   mroce_aeth_encode },
	[MROCE_EXT_ATMACK] = { mroce_atmack_decode, mroce_atmack_encode },
	[MROCE_EXT_IMMDT]  = { mroce_immdt_decode,  mroce_immdt_encode },
	[MROCE_EXT_IETH]   = { mroce_ieth_decode,   mroce_ieth_encode },
};

/**
 * mroce_hdr_decode() - decode the transport headers of a RoCEv2 packet
 * @p: first byte of the BTH (the UDP payload)
 * @len: bytes from the BTH up to and including the ICRC
 * @h: decoded headers; fields of absent extension headers are zero
 * @lo: header, payload and pad lengths
 *
 * The ICRC itself is not checked here (see mroce_icrc.h): it covers the IP
 * and UDP headers, which this function does not see.
 *
 * Return: 0; -EMSGSIZE if @len cannot hold what the BTH announces;
 * -EOPNOTSUPP for an opcode MetaRoCE does not implement or a transport
 * version other than 0 (IBTA 9.2.x C9-2: such packets are dropped);
 * -EPROTO if an opcode that carries no payload has some.
 */
int mroce_hdr_decode(const u8 *p, size_t len, struct mroce_hdr *h,
		     struct mroce_hdr_layout *lo)
{
	const struct mroce_opcode_info *op;
	unsigned int i, off;
	size_t rest;

	memset(h, 0, sizeof(*h));
	memset(lo, 0, sizeof(*lo));
	if (len < MROCE_BTH_LEN + MROCE_ICRC_LEN)
		return -EMSGSIZE;
	mroce_bth_decode(p, &h->bth);
	op = mroce_opcode_info(h->bth.opcode);
	if (!op || h->bth.tver != MROCE_BTH_TVER)
		return -EOPNOTSUPP;
	if (len < (size_t)op->hdr_len + MROCE_ICRC_LEN)
		return -EMSGSIZE;
	rest = len - op->hdr_len - MROCE_ICRC_LEN;
	if (h->bth.pad > rest)
		return -EMSGSIZE;
	if (!(op->flags & MROCE_OPF_PAYLOAD) && rest)
		return -EPROTO;

	for (i = 0, off = MROCE_BTH_LEN; i < MROCE_NUM_EXT; i++)
		if (op->hdrs & MROCE_HDRF(i)) {
			mroce_ext_codecs[i].decode(p + off, h);
			off += mroce_ext_len(i);
		}
	lo->op = op;
	lo->hdr_len = op->hdr_len;
	lo->pad = h->bth.pad;
	lo->pay_len = rest - h->bth.pad;
	return 0;
}

/**
 * mroce_hdr_encode() - write the BTH and extension headers of @h
 * @p: where the BTH goes
 * @len: room at @p
 * @h: headers; the opcode in @h->bth selects the extensions written
 *
 * Return: the number of bytes written, -EOPNOTSUPP for an unknown opcode,
 * or -EMSGSIZE if @len is too small.
 */
int mroce_hdr_encode(u8 *p, size_t len, const struct mroce_hdr *h)
{
	const struct mroce_opcode_info *op = mroce_opcode_info(h->bth.opcode);
	unsigned int i, off;

	if (!op)
		return -EOPNOTSUPP;
	if (len < op->hdr_len)
		return -EMSGSIZE;
	mroce_bth_encode(p, &h->bth);
	for (i = 0, off = MROCE_BTH_LEN; i < MROCE_NUM_EXT; i++)
		if (op->hdrs & MROCE_HDRF(i)) {
			mroce_ext_codecs[i].encode(p + off, h);
			off += mroce_ext_len(i);
		}
	return off;
}

enum mroce_aeth_kind mroce_aeth_kind(u8 syndrome)
{
	if (syndrome & MROCE_AETH_RSVD_BIT)
		return MROCE_AETH_INVALID;
	switch (syndrome & MROCE_AETH_TYPE_MASK) {
	case MROCE_AETH_TYPE_ACK:
		return MROCE_AETH_ACK;
	case MROCE_AETH_TYPE_RNR_NAK:
		return MROCE_AETH_RNR_NAK;
	case MROCE_AETH_TYPE_NAK:
		return MROCE_AETH_NAK;
	default:
		return MROCE_AETH_INVALID;
	}
}

u8 mroce_aeth_ack_syndrome(u8 credits)
{
	return MROCE_AETH_TYPE_ACK | (credits & MROCE_AETH_VALUE_MASK);
}

u8 mroce_aeth_rnr_syndrome(u8 timer_code)
{
	return MROCE_AETH_TYPE_RNR_NAK | (timer_code & MROCE_AETH_VALUE_MASK);
}

u8 mroce_aeth_nak_syndrome(enum mroce_nak_code code)
{
	return MROCE_AETH_TYPE_NAK | (code & MROCE_AETH_VALUE_MASK);
}
