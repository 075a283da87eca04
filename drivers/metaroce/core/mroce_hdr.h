/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * RoCEv2 transport headers: the opcode table and header encode/decode.
 *
 * Decoded headers are plain host-order structures.  Reserved fields are kept
 * so that decode followed by encode reproduces the input byte for byte, which
 * is what the rxe test vectors and the fuzzers check.
 */
#ifndef MROCE_HDR_H
#define MROCE_HDR_H

#include "mroce_core.h"

/*
 * Extension headers, in the order IBTA 9.2 places them after the BTH
 * (RDETH, DETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt, IETH).  The
 * order of this enum is the wire order: decode and encode walk it.
 */
enum mroce_ext {
	MROCE_EXT_DETH,
	MROCE_EXT_RETH,
	MROCE_EXT_ATMETH,
	MROCE_EXT_AETH,
	MROCE_EXT_ATMACK,
	MROCE_EXT_IMMDT,
	MROCE_EXT_IETH,
	MROCE_NUM_EXT,
};

#define MROCE_HDRF(ext)		(1U << (ext))
#define MROCE_HDRF_DETH		MROCE_HDRF(MROCE_EXT_DETH)
#define MROCE_HDRF_RETH		MROCE_HDRF(MROCE_EXT_RETH)
#define MROCE_HDRF_ATMETH	MROCE_HDRF(MROCE_EXT_ATMETH)
#define MROCE_HDRF_AETH		MROCE_HDRF(MROCE_EXT_AETH)
#define MROCE_HDRF_ATMACK	MROCE_HDRF(MROCE_EXT_ATMACK)
#define MROCE_HDRF_IMMDT	MROCE_HDRF(MROCE_EXT_IMMDT)
#define MROCE_HDRF_IETH		MROCE_HDRF(MROCE_EXT_IETH)

/* What an opcode means, for the requester, responder and completer. */
enum mroce_opf {
	MROCE_OPF_REQ		= 1U << 0,	/* sent by a requester */
	MROCE_OPF_RESP		= 1U << 1,	/* sent by a responder */
	MROCE_OPF_FIRST		= 1U << 2,
	MROCE_OPF_MIDDLE	= 1U << 3,
	MROCE_OPF_LAST		= 1U << 4,
	MROCE_OPF_ONLY		= 1U << 5,
	MROCE_OPF_PAYLOAD	= 1U << 6,	/* may carry payload */
	MROCE_OPF_SEND		= 1U << 7,
	MROCE_OPF_WRITE		= 1U << 8,
	MROCE_OPF_READ		= 1U << 9,	/* READ request or response */
	MROCE_OPF_ATOMIC	= 1U << 10,	/* atomic request or its ACK */
	MROCE_OPF_ACK		= 1U << 11,	/* (atomic) acknowledge */
	MROCE_OPF_IMM		= 1U << 12,
	MROCE_OPF_INV		= 1U << 13,
	MROCE_OPF_CNP		= 1U << 14,
	/* consumes a receive WQE at the responder (IBTA 9.7.4.1.x) */
	MROCE_OPF_RECV		= 1U << 15,
};

/*
 * Where packet k of an n-packet message stands (IBTA 9.2, Table 35: the
 * FIRST, MIDDLE, LAST and ONLY opcodes of SEND, WRITE and READ responses).
 */
enum mroce_pos {
	MROCE_POS_FIRST,
	MROCE_POS_MIDDLE,
	MROCE_POS_LAST,
	MROCE_POS_ONLY,
};

static inline enum mroce_pos mroce_pos(u32 k, u32 n)
{
	if (n <= 1)
		return MROCE_POS_ONLY;
	if (!k)
		return MROCE_POS_FIRST;
	return k == n - 1 ? MROCE_POS_LAST : MROCE_POS_MIDDLE;
}

/* The opcode-table flag of @pos: MROCE_OPF_FIRST .. MROCE_OPF_ONLY. */
static inline u32 mroce_pos_flag(enum mroce_pos pos)
{
	BUILD_BUG_ON(MROCE_OPF_MIDDLE != MROCE_OPF_FIRST << MROCE_POS_MIDDLE ||
		     MROCE_OPF_LAST != MROCE_OPF_FIRST << MROCE_POS_LAST ||
		     MROCE_OPF_ONLY != MROCE_OPF_FIRST << MROCE_POS_ONLY);
	return MROCE_OPF_FIRST << pos;
}

struct mroce_opcode_info {
	const char *name;	/* NULL: opcode not supported */
	u32 flags;		/* enum mroce_opf */
	u16 hdrs;		/* MROCE_HDRF_* present after the BTH */
	u8 hdr_len;		/* BTH plus every extension header */
};

const struct mroce_opcode_info *mroce_opcode_info(u8 opcode);
/* Byte offset of @ext in a packet of @opcode, or -EINVAL if absent. */
int mroce_opcode_ext_offset(u8 opcode, enum mroce_ext ext);
u8 mroce_ext_len(enum mroce_ext ext);

/* IBTA 9.2 (BTH) */
struct mroce_bth {
	u8 opcode;
	bool se;
	bool mig;
	u8 pad;		/* PadCnt, 0..3 */
	u8 tver;
	u16 pkey;
	bool fecn;
	bool becn;
	u8 resv6;
	u32 dqpn;
	bool ackreq;
	u8 resv7;
	u32 psn;
};

/* IBTA 9.3.2 (DETH) */
struct mroce_deth {
	u32 qkey;
	u8 resv8;
	u32 sqpn;
};

/* IBTA 9.3.3 (RETH) */
struct mroce_reth {
	u64 va;
	u32 rkey;
	u32 len;
};

/* IBTA 9.3.4 (AtomicETH) */
struct mroce_atmeth {
	u64 va;
	u32 rkey;
	u64 swap_add;
	u64 compare;
};

/* IBTA 9.3.5 (AETH) */
struct mroce_aeth {
	u8 syndrome;
	u32 msn;
};

/* IBTA 9.3.6 (AtomicAckETH) */
struct mroce_atmack {
	u64 orig;
};

/* A decoded transport header: the BTH and the extensions its opcode has. */
struct mroce_hdr {
	struct mroce_bth bth;
	struct mroce_deth deth;
	struct mroce_reth reth;
	struct mroce_atmeth atmeth;
	struct mroce_aeth aeth;
	struct mroce_atmack atmack;
	u32 imm;	/* ImmDt (IBTA 9.3.1), as the big-endian value reads */
	u32 ieth_rkey;	/* IETH (IBTA 9.3.7) */
};

/*
 * Where the parts of a transport packet (BTH up to and including the ICRC)
 * lie, as found by mroce_hdr_decode().
 */
struct mroce_hdr_layout {
	const struct mroce_opcode_info *op;
	u32 hdr_len;	/* BTH and extension headers */
	u32 pay_len;	/* payload, without pad */
	u32 pad;	/* pad bytes after the payload */
};

void mroce_bth_decode(const u8 *p, struct mroce_bth *bth);
void mroce_bth_encode(u8 *p, const struct mroce_bth *bth);

int mroce_hdr_decode(const u8 *p, size_t len, struct mroce_hdr *h,
		     struct mroce_hdr_layout *lo);
int mroce_hdr_encode(u8 *p, size_t len, const struct mroce_hdr *h);

/* AETH syndrome helpers (IBTA 9.7.5.1 Table 43). */
enum mroce_aeth_kind {
	MROCE_AETH_ACK,
	MROCE_AETH_RNR_NAK,
	MROCE_AETH_NAK,
	MROCE_AETH_INVALID,
};

enum mroce_aeth_kind mroce_aeth_kind(u8 syndrome);
u8 mroce_aeth_ack_syndrome(u8 credits);
u8 mroce_aeth_rnr_syndrome(u8 timer_code);
u8 mroce_aeth_nak_syndrome(enum mroce_nak_code code);

#endif /* MROCE_HDR_H */
