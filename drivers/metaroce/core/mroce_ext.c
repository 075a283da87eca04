// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE extension packet encode and decode (Documentation/wire.rst).
 *
 * Like mroce_hdr.c: one row per opcode says which headers follow the BTH,
 * and the codec walks them in wire order.  Decoding is strict because a
 * version 1 receiver must not come to rely on anything version 1 leaves
 * undefined: reserved bits, flags on the wrong kind, lengths that do not
 * add up are all errors.  Every length is checked before a byte is read.
 */
#include "mroce_core.h"
#include "mroce_ext.h"
#include "mroce_psn.h"
#include "mroce_raw.h"

#define H_MXH		MROCE_XHF(MROCE_XEXT_MXH)
#define H_RETH		MROCE_XHF(MROCE_XEXT_RETH)
#define H_MSGH		MROCE_XHF(MROCE_XEXT_MSGH)
#define H_AETH		MROCE_XHF(MROCE_XEXT_AETH)
#define H_SACKH		MROCE_XHF(MROCE_XEXT_SACKH)
#define H_IMMDT		MROCE_XHF(MROCE_XEXT_IMMDT)
#define H_IETH		MROCE_XHF(MROCE_XEXT_IETH)

#define K_DATA_REQ	(MROCE_OPF_REQ | MROCE_OPF_PAYLOAD)
#define K_SEND		(K_DATA_REQ | MROCE_OPF_SEND | MROCE_OPF_RECV)
#define K_WRITE		(K_DATA_REQ | MROCE_OPF_WRITE)

static const struct mroce_xop_info mroce_xops[] = {
	[MROCE_XOP_SEND - MROCE_XOP_BASE] =
		{ "MR_SEND", K_SEND, H_MXH | H_MSGH },
	[MROCE_XOP_SEND_IMM - MROCE_XOP_BASE] =
		{ "MR_SEND_IMM", K_SEND | MROCE_OPF_IMM,
		  H_MXH | H_MSGH | H_IMMDT },
	[MROCE_XOP_SEND_INV - MROCE_XOP_BASE] =
		{ "MR_SEND_INV", K_SEND | MROCE_OPF_INV,
		  H_MXH | H_MSGH | H_IETH },
	[MROCE_XOP_WRITE - MROCE_XOP_BASE] =
		{ "MR_WRITE", K_WRITE, H_MXH | H_RETH | H_MSGH },
	[MROCE_XOP_WRITE_IMM - MROCE_XOP_BASE] =
		{ "MR_WRITE_IMM", K_WRITE | MROCE_OPF_IMM | MROCE_OPF_RECV,
		  H_MXH | H_RETH | H_MSGH | H_IMMDT },
	[MROCE_XOP_READ_REQ - MROCE_XOP_BASE] =
		{ "MR_READ_REQ", MROCE_OPF_REQ | MROCE_OPF_READ,
		  H_MXH | H_RETH },
	[MROCE_XOP_READ_RESP - MROCE_XOP_BASE] =
		{ "MR_READ_RESP", MROCE_OPF_RESP | MROCE_OPF_READ |
		  MROCE_OPF_PAYLOAD, H_MXH | H_MSGH },
	[MROCE_XOP_ACK - MROCE_XOP_BASE] =
		{ "MR_ACK", MROCE_OPF_RESP | MROCE_OPF_ACK,
		  H_MXH | H_AETH | H_SACKH },
};

const struct mroce_xop_info *mroce_xop_info(u8 opcode)
{
	unsigned int i = (u8)(opcode - MROCE_XOP_BASE);

	if (!mroce_xop_is_ext(opcode) || i >= ARRAY_SIZE(mroce_xops))
		return NULL;
	return &mroce_xops[i];
}

/*
 * Each header codec gets at least its fixed length (mroce_xext_codecs[].len)
 * and returns the bytes it used or a negative errno.
 */
static int mroce_mxh_decode(const u8 *p, size_t room, struct mroce_xhdr *h)
{
	if (p[0] & MROCE_MXH_RSVD0_MASK || p[1] & MROCE_MXH_F_RSVD)
		return -EPROTO;
	h->mxh.ver = p[0] >> MROCE_MXH_VER_SHIFT;
	if (h->mxh.ver != MROCE_XVER)
		return -EOPNOTSUPP;
	h->mxh.flags = p[1];
	h->mxh.path = mroce_get_be16(p + 2);
	h->mxh.ts = mroce_get_be32(p + 4);
	h->mxh.tse = mroce_get_be32(p + 8);
	return MROCE_MXH_LEN;
}

static int mroce_mxh_encode(u8 *p, size_t room, const struct mroce_xhdr *h)
{
	p[0] = h->mxh.ver << MROCE_MXH_VER_SHIFT;
	p[1] = h->mxh.flags & ~MROCE_MXH_F_RSVD;
	mroce_put_be16(p + 2, h->mxh.path);
	mroce_put_be32(p + 4, h->mxh.ts);
	mroce_put_be32(p + 8, h->mxh.tse);
	return MROCE_MXH_LEN;
}

static int mroce_xreth_decode(const u8 *p, size_t room, struct mroce_xhdr *h)
{
	h->reth.va = mroce_get_be64(p);
	h->reth.rkey = mroce_get_be32(p + 8);
	h->reth.len = mroce_get_be32(p + 12);
	return MROCE_RETH_LEN;
}

static int mroce_xreth_encode(u8 *p, size_t room, const struct mroce_xhdr *h)
{
	mroce_put_be64(p, h->reth.va);
	mroce_put_be32(p + 8, h->reth.rkey);
	mroce_put_be32(p + 12, h->reth.len);
	return MROCE_RETH_LEN;
}

static int mroce_msgh_decode(const u8 *p, size_t room, struct mroce_xhdr *h)
{
	if (p[0])
		return -EPROTO;
	h->msgh.msn = mroce_get_be24(p + 1);
	h->msgh.off = mroce_get_be32(p + 4);
	h->msgh.len = mroce_get_be32(p + 8);
	return MROCE_MSGH_LEN;
}

static int mroce_msgh_encode(u8 *p, size_t room, const struct mroce_xhdr *h)
{
	p[0] = 0;
	mroce_put_be24(p + 1, h->msgh.msn);
	mroce_put_be32(p + 4, h->msgh.off);
	mroce_put_be32(p + 8, h->msgh.len);
	return MROCE_MSGH_LEN;
}

static int mroce_xaeth_decode(const u8 *p, size_t room, struct mroce_xhdr *h)
{
	h->aeth.syndrome = p[0];
	if (mroce_aeth_kind(p[0]) == MROCE_AETH_INVALID)
		return -EPROTO;
	h->aeth.msn = mroce_get_be24(p + 1);
	return MROCE_AETH_LEN;
}

static int mroce_xaeth_encode(u8 *p, size_t room, const struct mroce_xhdr *h)
{
	p[0] = h->aeth.syndrome;
	mroce_put_be24(p + 1, h->aeth.msn);
	return MROCE_AETH_LEN;
}

static int mroce_sackh_decode(const u8 *p, size_t room, struct mroce_xhdr *h)
{
	unsigned int i, n = p[0];

	if (n > MROCE_SACKH_MAX_WORDS || p[1] || p[2] || p[3])
		return -EPROTO;
	if (room < MROCE_SACKH_LEN + n * MROCE_SACKH_WORD_LEN)
		return -EMSGSIZE;
	h->sack.words = n;
	for (i = 0; i < n; i++)
		h->sack.map[i] = mroce_get_be64(p + MROCE_SACKH_LEN +
						i * MROCE_SACKH_WORD_LEN);
	/* Bit 0 is the first missing PSN: it cannot have arrived. */
	if (n && (h->sack.map[0] & 1))
		return -EPROTO;
	return MROCE_SACKH_LEN + n * MROCE_SACKH_WORD_LEN;
}

static int mroce_sackh_encode(u8 *p, size_t room, const struct mroce_xhdr *h)
{
	unsigned int i, n = h->sack.words;	/* checked by mroce_xhdr_len() */

	p[0] = n;
	p[1] = 0;
	p[2] = 0;
	p[3] = 0;
	for (i = 0; i < n; i++)
		mroce_put_be64(p + MROCE_SACKH_LEN + i * MROCE_SACKH_WORD_LEN,
			       h->sack.map[i]);
	return MROCE_SACKH_LEN + n * MROCE_SACKH_WORD_LEN;
}

/*
 * ImmDt and IETH are one 32-bit field each (IBTA 9.3.1, 9.3.7), and no
 * kind carries both: the opcode says which field of @h it is.
 */
static bool mroce_x32_is_ieth(u8 opcode)
{
	return mroce_xop_info(opcode)->flags & MROCE_OPF_INV;
}

static int mroce_x32_decode(const u8 *p, size_t room, struct mroce_xhdr *h)
{
	u32 v = mroce_get_be32(p);

	if (mroce_x32_is_ieth(h->bth.opcode))
		h->ieth_rkey = v;
	else
		h->imm = v;
	return MROCE_IMMDT_LEN;
}

static int mroce_x32_encode(u8 *p, size_t room, const struct mroce_xhdr *h)
{
	mroce_put_be32(p, mroce_x32_is_ieth(h->bth.opcode) ? h->ieth_rkey :
		       h->imm);
	return MROCE_IMMDT_LEN;
}

static const struct {
	u8 len;		/* fixed part */
	int (*decode)(const u8 *p, size_t room, struct mroce_xhdr *h);
	int (*encode)(u8 *p, size_t room, const struct mroce_xhdr *h);
} mroce_xext_codecs[MROCE_NUM_XEXT] = {
	[MROCE_XEXT_MXH] = { MROCE_MXH_LEN, mroce_mxh_decode,
			     mroce_mxh_encode },
	[MROCE_XEXT_RETH] = { MROCE_RETH_LEN, mroce_xreth_decode,
			      mroce_xreth_encode },
	[MROCE_XEXT_MSGH] = { MROCE_MSGH_LEN, mroce_msgh_decode,
			      mroce_msgh_encode },
	[MROCE_XEXT_AETH] = { MROCE_AETH_LEN, mroce_xaeth_decode,
			      mroce_xaeth_encode },
	[MROCE_XEXT_SACKH] = { MROCE_SACKH_LEN, mroce_sackh_decode,
			       mroce_sackh_encode },
	[MROCE_XEXT_IMMDT] = { MROCE_IMMDT_LEN, mroce_x32_decode,
			       mroce_x32_encode },
	[MROCE_XEXT_IETH] = { MROCE_IETH_LEN, mroce_x32_decode,
			      mroce_x32_encode },
};

/* Flags that make sense on the kind: F/L on data, ECE and DUP on ACKs, IMM
 * last. */
static int mroce_xflags_check(const struct mroce_xop_info *op, u8 flags)
{
	u8 pos = MROCE_MXH_F_FIRST | MROCE_MXH_F_LAST;

	if (flags & pos && !(op->hdrs & H_MSGH))
		return -EPROTO;
	if (flags & (MROCE_MXH_F_ECE | MROCE_MXH_F_DUP) &&
	    !(op->flags & MROCE_OPF_ACK))
		return -EPROTO;
	if (op->flags & (MROCE_OPF_IMM | MROCE_OPF_INV) &&
	    !(flags & MROCE_MXH_F_LAST))
		return -EPROTO;
	return 0;
}

/* The payload must lie inside the message it says it belongs to. */
static int mroce_xmsg_check(const struct mroce_xop_info *op,
			    const struct mroce_xhdr *h, u32 pay_len)
{
	u64 end = (u64)h->msgh.off + pay_len;

	if (!(op->hdrs & H_MSGH))
		return 0;
	if (end > h->msgh.len)
		return -EPROTO;
	if (h->mxh.flags & MROCE_MXH_F_FIRST && h->msgh.off)
		return -EPROTO;
	if (h->mxh.flags & MROCE_MXH_F_LAST && end != h->msgh.len)
		return -EPROTO;
	if (op->hdrs & H_RETH && h->reth.len != h->msgh.len)
		return -EPROTO;
	return 0;
}

/* Walk the headers of @op after the BTH; return the header length. */
static int mroce_xhdrs_decode(const struct mroce_xop_info *op, const u8 *p,
			      size_t room, struct mroce_xhdr *h)
{
	unsigned int i, off = MROCE_BTH_LEN;
	int n;

	for (i = 0; i < MROCE_NUM_XEXT; i++) {
		if (!(op->hdrs & MROCE_XHF(i)))
			continue;
		if (room - off < mroce_xext_codecs[i].len)
			return -EMSGSIZE;
		n = mroce_xext_codecs[i].decode(p + off, room - off, h);
		if (n < 0)
			return n;
		off += n;
	}
	return off;
}

/**
 * mroce_xhdr_decode() - decode and validate a MetaRoCE packet
 * @p: first byte of the BTH (the UDP payload)
 * @len: bytes from the BTH up to and including the ICRC
 * @h: decoded headers; fields of absent headers are zero
 * @lo: header, payload and pad lengths
 *
 * The ICRC is not checked here (mroce_icrc.h), as in mroce_hdr_decode().
 *
 * Return: 0; -EMSGSIZE if @len cannot hold the headers, pad and ICRC;
 * -EOPNOTSUPP for an opcode outside 0xC0-0xC7, a BTH TVer other than 0 or
 * an MXH version other than MROCE_XVER; -EPROTO for reserved bits set,
 * flags that the kind does not allow, an invalid AETH syndrome, payload on
 * a kind without one, or a payload outside its message.
 */
int mroce_xhdr_decode(const u8 *p, size_t len, struct mroce_xhdr *h,
		      struct mroce_xlayout *lo)
{
	const struct mroce_xop_info *op;
	size_t room, rest;
	int hlen, err;

	memset(lo, 0, sizeof(*lo));
	memset(h, 0, sizeof(*h));
	if (len < MROCE_BTH_LEN + MROCE_ICRC_LEN)
		return -EMSGSIZE;
	mroce_bth_decode(p, &h->bth);
	op = h->bth.tver == MROCE_BTH_TVER ? mroce_xop_info(p[0]) : NULL;
	if (!op)
		return -EOPNOTSUPP;
	room = len - MROCE_ICRC_LEN;
	hlen = mroce_xhdrs_decode(op, p, room, h);
	if (hlen < 0)
		return hlen;
	rest = room - hlen;
	if (h->bth.pad > rest)
		return -EMSGSIZE;
	if (!(op->flags & MROCE_OPF_PAYLOAD) && rest)
		return -EPROTO;
	err = mroce_xflags_check(op, h->mxh.flags);
	if (!err)
		err = mroce_xmsg_check(op, h, rest - h->bth.pad);
	if (err)
		return err;
	lo->op = op;
	lo->hdr_len = hlen;
	lo->pad = h->bth.pad;
	lo->pay_len = rest - h->bth.pad;
	return 0;
}

/**
 * mroce_xhdr_encode() - write the BTH and MetaRoCE headers of @h
 * @p: where the BTH goes
 * @len: room at @p
 * @h: headers; the opcode in @h->bth selects the headers written
 *
 * Reserved fields are written as zero.  Semantic checks that need the
 * payload length (mroce_xmsg_check()) are the sender's business.
 *
 * Return: bytes written; -EOPNOTSUPP for an opcode without a row,
 * -EINVAL for more SACK words than MROCE_SACKH_MAX_WORDS, -EMSGSIZE if
 * @len is too small.
 */
int mroce_xhdr_encode(u8 *p, size_t len, const struct mroce_xhdr *h)
{
	int hlen = mroce_xhdr_len(h);
	unsigned int i, off;
	u16 hdrs;

	if (hlen < 0)
		return hlen;
	if (len < (size_t)hlen)
		return -EMSGSIZE;
	hdrs = mroce_xop_info(h->bth.opcode)->hdrs;
	mroce_bth_encode(p, &h->bth);
	for (i = 0, off = MROCE_BTH_LEN; i < MROCE_NUM_XEXT; i++)
		if (hdrs & MROCE_XHF(i))
			off += mroce_xext_codecs[i].encode(p + off, len - off, h);
	return off;
}

/* Bytes of BTH and headers that mroce_xhdr_encode() will write. */
int mroce_xhdr_len(const struct mroce_xhdr *h)
{
	const struct mroce_xop_info *op = mroce_xop_info(h->bth.opcode);
	unsigned int i;
	int len = MROCE_BTH_LEN;

	if (!op)
		return -EOPNOTSUPP;
	for (i = 0; i < MROCE_NUM_XEXT; i++)
		if (op->hdrs & MROCE_XHF(i))
			len += mroce_xext_codecs[i].len;
	if (op->hdrs & H_SACKH) {
		if (h->sack.words > MROCE_SACKH_MAX_WORDS)
			return -EINVAL;
		len += h->sack.words * MROCE_SACKH_WORD_LEN;
	}
	return len;
}

/**
 * mroce_ext_sack_from_board() - the SACKH for a receive scoreboard
 * @s: the scoreboard; its base is BTH.psn + 1 of the ACK
 * @x: filled with the bitmap, trimmed to the last word with a bit set
 */
void mroce_ext_sack_from_board(const struct mroce_sack *s,
			       struct mroce_sackh *x)
{
	unsigned int i;

	memset(x, 0, sizeof(*x));
	for (i = 1; i < MROCE_SACK_BITS; i++)
		if (mroce_sack_test(s, mroce_psn_add(s->base, i))) {
			x->map[i / 64] |= 1ULL << (i % 64);
			x->words = i / 64 + 1;
		}
}

/* Does @x say PSN base + @i has arrived? */
bool mroce_ext_sack_test(const struct mroce_sackh *x, unsigned int i)
{
	if (i / 64 >= x->words)
		return false;
	return x->map[i / 64] & (1ULL << (i % 64));
}

/*
 * The RC requests a MetaRoCE-mode requester sends as MetaRoCE kinds
 * (wire.rst, "Packet kinds"): the RoCEv2 opcode, its kind, and the MXH
 * position flags that stand for the opcode's first/middle/last/only.
 * Atomics keep their RoCEv2 opcodes.
 */
#define F	MROCE_MXH_F_FIRST
#define L	MROCE_MXH_F_LAST
static const struct {
	u8 op;
	u8 xop;
	u8 pos;
} mroce_xmap[] = {
	{ MROCE_OP_RC_SEND_FIRST, MROCE_XOP_SEND, F },
	{ MROCE_OP_RC_SEND_MIDDLE, MROCE_XOP_SEND, 0 },
	{ MROCE_OP_RC_SEND_LAST, MROCE_XOP_SEND, L },
	{ MROCE_OP_RC_SEND_ONLY, MROCE_XOP_SEND, F | L },
	{ MROCE_OP_RC_SEND_LAST_WITH_IMMEDIATE, MROCE_XOP_SEND_IMM, L },
	{ MROCE_OP_RC_SEND_ONLY_WITH_IMMEDIATE, MROCE_XOP_SEND_IMM, F | L },
	{ MROCE_OP_RC_SEND_LAST_WITH_INVALIDATE, MROCE_XOP_SEND_INV, L },
	{ MROCE_OP_RC_SEND_ONLY_WITH_INVALIDATE, MROCE_XOP_SEND_INV, F | L },
	{ MROCE_OP_RC_RDMA_WRITE_FIRST, MROCE_XOP_WRITE, F },
	{ MROCE_OP_RC_RDMA_WRITE_MIDDLE, MROCE_XOP_WRITE, 0 },
	{ MROCE_OP_RC_RDMA_WRITE_LAST, MROCE_XOP_WRITE, L },
	{ MROCE_OP_RC_RDMA_WRITE_ONLY, MROCE_XOP_WRITE, F | L },
	{ MROCE_OP_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE, MROCE_XOP_WRITE_IMM, L },
	{ MROCE_OP_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, MROCE_XOP_WRITE_IMM,
	  F | L },
	{ MROCE_OP_RC_RDMA_READ_REQUEST, MROCE_XOP_READ_REQ, 0 },
};
#undef F
#undef L

/**
 * mroce_ext_kind() - the MetaRoCE kind of an RC request
 * @op: RoCEv2 opcode
 * @pos: set to the MXH position flags (MROCE_MXH_F_FIRST, _LAST) of @op
 *
 * Return: the kind (enum mroce_xop), or 0 for an opcode that keeps its
 * RoCEv2 form in MetaRoCE mode (atomics, responses, UC, UD).
 */
u8 mroce_ext_kind(u8 op, u8 *pos)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mroce_xmap); i++)
		if (mroce_xmap[i].op == op) {
			*pos = mroce_xmap[i].pos;
			return mroce_xmap[i].xop;
		}
	return 0;
}

/**
 * mroce_ext_roce_op() - the RoCEv2 opcode a MetaRoCE request stands for
 * @xop: its kind
 * @flags: its MXH flags (only the position flags are looked at)
 *
 * The inverse of mroce_ext_kind(): how a receiver that executes requests
 * in RoCEv2 terms sees a MetaRoCE one.
 *
 * Return: the opcode, or -EOPNOTSUPP (a response kind, or a position the
 * kind cannot have).
 */
int mroce_ext_roce_op(u8 xop, u8 flags)
{
	u8 pos = flags & (MROCE_MXH_F_FIRST | MROCE_MXH_F_LAST);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mroce_xmap); i++)
		if (mroce_xmap[i].xop == xop && mroce_xmap[i].pos == pos)
			return mroce_xmap[i].op;
	return -EOPNOTSUPP;
}

/* Mark @bth as sent by a MetaRoCE end that speaks up to version @ver. */
void mroce_bth_set_mark(struct mroce_bth *bth, u8 ver)
{
	bth->resv7 = MROCE_BTH_MR_CAPABLE | (ver & MROCE_BTH_MR_VER_MASK);
}

/* The version a marked BTH announces, 0 if it carries no valid mark. */
u8 mroce_bth_mark_ver(const struct mroce_bth *bth)
{
	if (!(bth->resv7 & MROCE_BTH_MR_CAPABLE))
		return 0;
	return bth->resv7 & MROCE_BTH_MR_VER_MASK;
}

/* Does @bth carry a valid mark that offers the UDP checksum option? */
bool mroce_bth_mark_csum(const struct mroce_bth *bth)
{
	return mroce_bth_mark_ver(bth) && (bth->resv7 & MROCE_BTH_MR_CSUM);
}
