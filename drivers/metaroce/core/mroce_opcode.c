// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The RoCEv2 opcode table (IBTA 9.2 Table 35, 9.3 Tables 36-42, A17.9.3).
 *
 * One row per supported opcode says which extension headers follow the BTH
 * and what the packet means.  Everything else that depends on the opcode
 * (header offsets, lengths, the responder's sequence checks) is computed
 * from this table, never from opcode ranges.  RD and XRC are not supported
 * by MetaRoCE; their opcodes have no row and decode as invalid.
 */
#include "mroce_core.h"
#include "mroce_hdr.h"

static const u8 mroce_ext_lens[MROCE_NUM_EXT] = {
	[MROCE_EXT_DETH]	= MROCE_DETH_LEN,
	[MROCE_EXT_RETH]	= MROCE_RETH_LEN,
	[MROCE_EXT_ATMETH]	= MROCE_ATMETH_LEN,
	[MROCE_EXT_AETH]	= MROCE_AETH_LEN,
	[MROCE_EXT_ATMACK]	= MROCE_ATMACK_LEN,
	[MROCE_EXT_IMMDT]	= MROCE_IMMDT_LEN,
	[MROCE_EXT_IETH]	= MROCE_IETH_LEN,
};

#define HLEN(h) (MROCE_BTH_LEN +					\
	(((h) & MROCE_HDRF_DETH) ? MROCE_DETH_LEN : 0) +		\
	(((h) & MROCE_HDRF_RETH) ? MROCE_RETH_LEN : 0) +		\
	(((h) & MROCE_HDRF_ATMETH) ? MROCE_ATMETH_LEN : 0) +		\
	(((h) & MROCE_HDRF_AETH) ? MROCE_AETH_LEN : 0) +		\
	(((h) & MROCE_HDRF_ATMACK) ? MROCE_ATMACK_LEN : 0) +		\
	(((h) & MROCE_HDRF_IMMDT) ? MROCE_IMMDT_LEN : 0) +		\
	(((h) & MROCE_HDRF_IETH) ? MROCE_IETH_LEN : 0))

#define OP(_name, _flags, _hdrs)					\
	{ .name = _name, .flags = (_flags), .hdrs = (_hdrs),		\
	  .hdr_len = HLEN(_hdrs) }

/* Flag groups shared by RC and UC rows. */
#define REQ_SEND	(MROCE_OPF_REQ | MROCE_OPF_SEND | MROCE_OPF_RECV | \
			 MROCE_OPF_PAYLOAD)
#define REQ_WRITE	(MROCE_OPF_REQ | MROCE_OPF_WRITE | MROCE_OPF_PAYLOAD)
#define WRITE_IMM	(REQ_WRITE | MROCE_OPF_IMM | MROCE_OPF_RECV)
#define RESP_READ	(MROCE_OPF_RESP | MROCE_OPF_READ | MROCE_OPF_PAYLOAD)
#define F		MROCE_OPF_FIRST
#define M		MROCE_OPF_MIDDLE
#define L		MROCE_OPF_LAST
#define O		MROCE_OPF_ONLY
#define IMM		MROCE_OPF_IMM

/*
 * The SEND and RDMA WRITE rows are the same for RC and UC (IBTA 9.2
 * Table 35): generate both from one list.
 */
#define SEND_WRITE_ROWS(T)						\
	[MROCE_OP_##T##_SEND_FIRST] =					\
		OP(#T "_SEND_FIRST", REQ_SEND | F, 0),			\
	[MROCE_OP_##T##_SEND_MIDDLE] =					\
		OP(#T "_SEND_MIDDLE", REQ_SEND | M, 0),			\
	[MROCE_OP_##T##_SEND_LAST] =					\
		OP(#T "_SEND_LAST", REQ_SEND | L, 0),			\
	[MROCE_OP_##T##_SEND_LAST_WITH_IMMEDIATE] =			\
		OP(#T "_SEND_LAST_WITH_IMMEDIATE", REQ_SEND | L | IMM,	\
		   MROCE_HDRF_IMMDT),					\
	[MROCE_OP_##T##_SEND_ONLY] =					\
		OP(#T "_SEND_ONLY", REQ_SEND | O, 0),			\
	[MROCE_OP_##T##_SEND_ONLY_WITH_IMMEDIATE] =			\
		OP(#T "_SEND_ONLY_WITH_IMMEDIATE", REQ_SEND | O | IMM,	\
		   MROCE_HDRF_IMMDT),					\
	[MROCE_OP_##T##_RDMA_WRITE_FIRST] =				\
		OP(#T "_RDMA_WRITE_FIRST", REQ_WRITE | F,		\
		   MROCE_HDRF_RETH),					\
	[MROCE_OP_##T##_RDMA_WRITE_MIDDLE] =				\
		OP(#T "_RDMA_WRITE_MIDDLE", REQ_WRITE | M, 0),		\
	[MROCE_OP_##T##_RDMA_WRITE_LAST] =				\
		OP(#T "_RDMA_WRITE_LAST", REQ_WRITE | L, 0),		\
	[MROCE_OP_##T##_RDMA_WRITE_LAST_WITH_IMMEDIATE] =		\
		OP(#T "_RDMA_WRITE_LAST_WITH_IMMEDIATE", WRITE_IMM | L,	\
		   MROCE_HDRF_IMMDT),					\
	[MROCE_OP_##T##_RDMA_WRITE_ONLY] =				\
		OP(#T "_RDMA_WRITE_ONLY", REQ_WRITE | O,		\
		   MROCE_HDRF_RETH),					\
	[MROCE_OP_##T##_RDMA_WRITE_ONLY_WITH_IMMEDIATE] =		\
		OP(#T "_RDMA_WRITE_ONLY_WITH_IMMEDIATE", WRITE_IMM | O,	\
		   MROCE_HDRF_RETH | MROCE_HDRF_IMMDT)

static const struct mroce_opcode_info mroce_opcodes[256] = {
	SEND_WRITE_ROWS(RC),
	[MROCE_OP_RC_RDMA_READ_REQUEST] =
		OP("RC_RDMA_READ_REQUEST",
		   MROCE_OPF_REQ | MROCE_OPF_READ | O, MROCE_HDRF_RETH),
	[MROCE_OP_RC_RDMA_READ_RESPONSE_FIRST] =
		OP("RC_RDMA_READ_RESPONSE_FIRST", RESP_READ | F,
		   MROCE_HDRF_AETH),
	[MROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE] =
		OP("RC_RDMA_READ_RESPONSE_MIDDLE", RESP_READ | M, 0),
	[MROCE_OP_RC_RDMA_READ_RESPONSE_LAST] =
		OP("RC_RDMA_READ_RESPONSE_LAST", RESP_READ | L,
		   MROCE_HDRF_AETH),
	[MROCE_OP_RC_RDMA_READ_RESPONSE_ONLY] =
		OP("RC_RDMA_READ_RESPONSE_ONLY", RESP_READ | O,
		   MROCE_HDRF_AETH),
	[MROCE_OP_RC_ACKNOWLEDGE] =
		OP("RC_ACKNOWLEDGE", MROCE_OPF_RESP | MROCE_OPF_ACK | O,
		   MROCE_HDRF_AETH),
	[MROCE_OP_RC_ATOMIC_ACKNOWLEDGE] =
		OP("RC_ATOMIC_ACKNOWLEDGE",
		   MROCE_OPF_RESP | MROCE_OPF_ACK | MROCE_OPF_ATOMIC | O,
		   MROCE_HDRF_AETH | MROCE_HDRF_ATMACK),
	[MROCE_OP_RC_COMPARE_SWAP] =
		OP("RC_COMPARE_SWAP", MROCE_OPF_REQ | MROCE_OPF_ATOMIC | O,
		   MROCE_HDRF_ATMETH),
	[MROCE_OP_RC_FETCH_ADD] =
		OP("RC_FETCH_ADD", MROCE_OPF_REQ | MROCE_OPF_ATOMIC | O,
		   MROCE_HDRF_ATMETH),
	[MROCE_OP_RC_SEND_LAST_WITH_INVALIDATE] =
		OP("RC_SEND_LAST_WITH_INVALIDATE",
		   REQ_SEND | L | MROCE_OPF_INV, MROCE_HDRF_IETH),
	[MROCE_OP_RC_SEND_ONLY_WITH_INVALIDATE] =
		OP("RC_SEND_ONLY_WITH_INVALIDATE",
		   REQ_SEND | O | MROCE_OPF_INV, MROCE_HDRF_IETH),

	SEND_WRITE_ROWS(UC),

	[MROCE_OP_UD_SEND_ONLY] =
		OP("UD_SEND_ONLY", REQ_SEND | O, MROCE_HDRF_DETH),
	[MROCE_OP_UD_SEND_ONLY_WITH_IMMEDIATE] =
		OP("UD_SEND_ONLY_WITH_IMMEDIATE", REQ_SEND | O | IMM,
		   MROCE_HDRF_DETH | MROCE_HDRF_IMMDT),

	/* The 16 reserved bytes of a CNP are carried as its payload. */
	[MROCE_OP_CNP] = OP("CNP", MROCE_OPF_CNP | MROCE_OPF_PAYLOAD, 0),
};

const struct mroce_opcode_info *mroce_opcode_info(u8 opcode)
{
	const struct mroce_opcode_info *op = &mroce_opcodes[opcode];

	return op->name ? op : NULL;
}

u8 mroce_ext_len(enum mroce_ext ext)
{
	return ext < MROCE_NUM_EXT ? mroce_ext_lens[ext] : 0;
}

int mroce_opcode_ext_offset(u8 opcode, enum mroce_ext ext)
{
	const struct mroce_opcode_info *op = mroce_opcode_info(opcode);
	int off = MROCE_BTH_LEN;
	unsigned int i;

	if (!op || ext >= MROCE_NUM_EXT || !(op->hdrs & MROCE_HDRF(ext)))
		return -EINVAL;
	for (i = 0; i < ext; i++)
		if (op->hdrs & MROCE_HDRF(i))
			off += mroce_ext_lens[i];
	return off;
}
