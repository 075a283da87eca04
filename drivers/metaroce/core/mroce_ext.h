/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * MetaRoCE extension packets (Documentation/wire.rst): the opcodes of the
 * manufacturer-specific range 0xC0-0xC7 (IBTA 9.2 Table 35, transport
 * 110b), their headers, and a strict table-driven codec.
 *
 * The kernel module sends its RC requests in MetaRoCE mode as the request
 * kinds (mroce_xdata.c) and answers them with MR_ACK (mroce_hold.c);
 * MR_READ_RESP is defined and tested on the host only (selftests/unit,
 * selftests/fuzz, tools/wireshark).
 */
#ifndef MROCE_EXT_H
#define MROCE_EXT_H

#include "mroce_core.h"
#include "mroce_hdr.h"
#include "mroce_sack.h"

/* Extension version this codec speaks (MXH byte 0, bits 7:4). */
#define MROCE_XVER			1

/* IBTA 9.2 Table 35: transport 110b is manufacturer specific. */
#define MROCE_XOP_BASE			0xc0
#define MROCE_XOP_MASK			0xe0

enum mroce_xop {
	MROCE_XOP_SEND		= 0xc0,
	MROCE_XOP_SEND_IMM	= 0xc1,
	MROCE_XOP_SEND_INV	= 0xc2,
	MROCE_XOP_WRITE		= 0xc3,
	MROCE_XOP_WRITE_IMM	= 0xc4,
	MROCE_XOP_READ_REQ	= 0xc5,
	MROCE_XOP_READ_RESP	= 0xc6,
	MROCE_XOP_ACK		= 0xc7,
};

/* Is @opcode one of MetaRoCE's (any version)?  Else it is RoCEv2's. */
static inline bool mroce_xop_is_ext(u8 opcode)
{
	return (opcode & MROCE_XOP_MASK) == MROCE_XOP_BASE;
}

/* Header lengths in bytes; the SACKH has 8 more per bitmap word. */
#define MROCE_MXH_LEN			12
#define MROCE_MSGH_LEN			12
#define MROCE_SACKH_LEN			4
#define MROCE_SACKH_WORD_LEN		8
#define MROCE_SACKH_MAX_WORDS		MROCE_SACK_WORDS
/* Longest MetaRoCE header: BTH MXH RETH MSGH ImmDt (MR_WRITE_IMM) */
#define MROCE_XMAX_HDR_LEN		(MROCE_BTH_LEN + MROCE_MXH_LEN + \
					 MROCE_RETH_LEN + MROCE_MSGH_LEN + \
					 MROCE_IMMDT_LEN)

/* MXH byte 0: version in bits 7:4, the rest reserved. */
#define MROCE_MXH_VER_SHIFT		4
#define MROCE_MXH_RSVD0_MASK		0x0f
/* MXH byte 1: flags. */
#define MROCE_MXH_F_FIRST		0x80	/* first packet of a message */
#define MROCE_MXH_F_LAST		0x40	/* last packet of a message */
#define MROCE_MXH_F_ECE			0x20	/* ACK: CE seen (RFC 3168) */
#define MROCE_MXH_F_DUP			0x10	/* ACK: a duplicate arrived */
#define MROCE_MXH_F_RSVD		0x0f

/*
 * Capability mark in BTH Resv7 (byte 8 bits 6:0, ICRC covered): bit 6 says
 * the sender can use MetaRoCE mode, bits 3:0 its highest version; bit 5, on
 * requests, that the PSN is in the sender's MetaRoCE span (wire.rst,
 * "Switch PSN"); bit 4 that the sender takes the UDP checksum instead of
 * the ICRC, and that this packet may be protected that way (wire.rst,
 * "Integrity: UDP checksum instead of ICRC").
 */
#define MROCE_BTH_MR_CAPABLE		0x40
#define MROCE_BTH_MR_SWITCHED		0x20
#define MROCE_BTH_MR_CSUM		0x10
#define MROCE_BTH_MR_VER_MASK		0x0f

/* The MetaRoCE headers, in wire order after the BTH. */
enum mroce_xext {
	MROCE_XEXT_MXH,
	MROCE_XEXT_RETH,
	MROCE_XEXT_MSGH,
	MROCE_XEXT_AETH,
	MROCE_XEXT_SACKH,
	MROCE_XEXT_IMMDT,
	MROCE_XEXT_IETH,
	MROCE_NUM_XEXT,
};

#define MROCE_XHF(ext)		(1U << (ext))

struct mroce_xop_info {
	const char *name;
	u32 flags;	/* enum mroce_opf */
	u16 hdrs;	/* MROCE_XHF() of the headers after the BTH */
};

const struct mroce_xop_info *mroce_xop_info(u8 opcode);

/* MetaRoCE extension header, on every packet. */
struct mroce_mxh {
	u8 ver;
	u8 flags;	/* MROCE_MXH_F_* */
	u16 path;	/* sender's path index; an ACK echoes it */
	u32 ts;		/* sender clock, ns modulo 2^32 */
	u32 tse;	/* echoed ts */
};

/* Message header: where a data packet belongs. */
struct mroce_msgh {
	u32 msn;	/* 24 bits */
	u32 off;
	u32 len;
};

/* Selective ACK: bit i of map is PSN BTH.psn + 1 + i. */
struct mroce_sackh {
	u8 words;	/* 0..MROCE_SACKH_MAX_WORDS */
	u64 map[MROCE_SACKH_MAX_WORDS];
};

struct mroce_xhdr {
	struct mroce_bth bth;
	struct mroce_mxh mxh;
	struct mroce_reth reth;
	struct mroce_msgh msgh;
	struct mroce_aeth aeth;
	struct mroce_sackh sack;
	u32 imm;
	u32 ieth_rkey;
};

struct mroce_xlayout {
	const struct mroce_xop_info *op;
	u32 hdr_len;	/* BTH and MetaRoCE headers */
	u32 pay_len;
	u32 pad;
};

int mroce_xhdr_decode(const u8 *p, size_t len, struct mroce_xhdr *h,
		      struct mroce_xlayout *lo);
int mroce_xhdr_encode(u8 *p, size_t len, const struct mroce_xhdr *h);
int mroce_xhdr_len(const struct mroce_xhdr *h);

void mroce_ext_sack_from_board(const struct mroce_sack *s,
			       struct mroce_sackh *x);
bool mroce_ext_sack_test(const struct mroce_sackh *x, unsigned int i);

u8 mroce_ext_kind(u8 op, u8 *pos);
int mroce_ext_roce_op(u8 xop, u8 flags);

void mroce_bth_set_mark(struct mroce_bth *bth, u8 ver);
u8 mroce_bth_mark_ver(const struct mroce_bth *bth);
bool mroce_bth_mark_csum(const struct mroce_bth *bth);

#endif /* MROCE_EXT_H */
