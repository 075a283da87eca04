/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * MetaRoCE wire format: RoCEv2 constants shared by the kernel module and
 * the portable transport core (and through it the host tests and fuzzers).
 *
 * Only constants live here (no structures, no types), so that every user can
 * include it whatever its environment.  The byte layouts are documented in
 * Documentation/core.rst; the field accessors are in
 * drivers/metaroce/core/mroce_hdr.c.  MetaRoCE's own extension packets
 * (opcodes 0xC0-0xC7) are in core/mroce_ext.h and Documentation/wire.rst.
 * References are to the InfiniBand Architecture Specification volume 1,
 * release 1.4 ("IBTA") and its Annex A17 (RoCEv2).
 */
#ifndef MROCE_WIRE_H
#define MROCE_WIRE_H

/* IBTA A17.2: RoCEv2 is carried in UDP to this destination port. */
#define MROCE_ROCEV2_UDP_PORT		4791

/* IP protocol number of UDP (RFC 768). */
#define MROCE_IPPROTO_UDP		17

#define MROCE_IPV4_HDR_LEN		20
#define MROCE_IPV6_HDR_LEN		40
#define MROCE_UDP_HDR_LEN		8

/* IBTA 9.2 - 9.3 and 5.2.x: transport header lengths in bytes. */
#define MROCE_BTH_LEN			12
#define MROCE_RDETH_LEN			4
#define MROCE_DETH_LEN			8
#define MROCE_RETH_LEN			16
#define MROCE_ATMETH_LEN		28
#define MROCE_AETH_LEN			4
#define MROCE_ATMACK_LEN		8
#define MROCE_IMMDT_LEN			4
#define MROCE_IETH_LEN			4
#define MROCE_ICRC_LEN			4
/* IBTA A17.9.3: a CNP carries 16 reserved bytes after the BTH. */
#define MROCE_CNP_RSVD_LEN		16

/* The longest transport header (BTH + AtomicETH) any opcode carries. */
#define MROCE_MAX_HDR_LEN		(MROCE_BTH_LEN + MROCE_ATMETH_LEN)

/* IBTA 9.2: PSN, QPN and MSN are 24-bit fields. */
#define MROCE_PSN_BITS			24
#define MROCE_PSN_MASK			0x00ffffffU
#define MROCE_QPN_MASK			0x00ffffffU
#define MROCE_MSN_MASK			0x00ffffffU

/* IBTA 9.2 Figure 98 (BTH). Byte 1. */
#define MROCE_BTH_SE			0x80
#define MROCE_BTH_MIG			0x40
#define MROCE_BTH_PAD_MASK		0x30
#define MROCE_BTH_PAD_SHIFT		4
#define MROCE_BTH_TVER_MASK		0x0f
/* Byte 4: FECN/BECN (IBTA A10 congestion control) and resv6a. */
#define MROCE_BTH_FECN			0x80
#define MROCE_BTH_BECN			0x40
#define MROCE_BTH_RESV6_MASK		0x3f
/* Byte 8: AckReq and resv7. */
#define MROCE_BTH_ACKREQ		0x80
#define MROCE_BTH_RESV7_MASK		0x7f
/* Offset of the byte that the ICRC masks (IBTA A17.8: "resv8a"). */
#define MROCE_BTH_ICRC_MASKED_BYTE	4
/* IBTA 9.2: the only transport header version defined. */
#define MROCE_BTH_TVER			0

/* IBTA 9.2 Table 35: opcode = transport (bits 7:5) | operation (4:0). */
#define MROCE_OPT_RC			0x00
#define MROCE_OPT_UC			0x20
#define MROCE_OPT_RD			0x40
#define MROCE_OPT_UD			0x60
#define MROCE_OPT_CNP			0x80
#define MROCE_OPT_XRC			0xa0
#define MROCE_OPT_MASK			0xe0

enum mroce_opcode {
	MROCE_OP_RC_SEND_FIRST				= 0x00,
	MROCE_OP_RC_SEND_MIDDLE				= 0x01,
	MROCE_OP_RC_SEND_LAST				= 0x02,
	MROCE_OP_RC_SEND_LAST_WITH_IMMEDIATE		= 0x03,
	MROCE_OP_RC_SEND_ONLY				= 0x04,
	MROCE_OP_RC_SEND_ONLY_WITH_IMMEDIATE		= 0x05,
	MROCE_OP_RC_RDMA_WRITE_FIRST			= 0x06,
	MROCE_OP_RC_RDMA_WRITE_MIDDLE			= 0x07,
	MROCE_OP_RC_RDMA_WRITE_LAST			= 0x08,
	MROCE_OP_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE	= 0x09,
	MROCE_OP_RC_RDMA_WRITE_ONLY			= 0x0a,
	MROCE_OP_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE	= 0x0b,
	MROCE_OP_RC_RDMA_READ_REQUEST			= 0x0c,
	MROCE_OP_RC_RDMA_READ_RESPONSE_FIRST		= 0x0d,
	MROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE		= 0x0e,
	MROCE_OP_RC_RDMA_READ_RESPONSE_LAST		= 0x0f,
	MROCE_OP_RC_RDMA_READ_RESPONSE_ONLY		= 0x10,
	MROCE_OP_RC_ACKNOWLEDGE				= 0x11,
	MROCE_OP_RC_ATOMIC_ACKNOWLEDGE			= 0x12,
	MROCE_OP_RC_COMPARE_SWAP			= 0x13,
	MROCE_OP_RC_FETCH_ADD				= 0x14,
	MROCE_OP_RC_SEND_LAST_WITH_INVALIDATE		= 0x16,
	MROCE_OP_RC_SEND_ONLY_WITH_INVALIDATE		= 0x17,

	MROCE_OP_UC_SEND_FIRST				= 0x20,
	MROCE_OP_UC_SEND_MIDDLE				= 0x21,
	MROCE_OP_UC_SEND_LAST				= 0x22,
	MROCE_OP_UC_SEND_LAST_WITH_IMMEDIATE		= 0x23,
	MROCE_OP_UC_SEND_ONLY				= 0x24,
	MROCE_OP_UC_SEND_ONLY_WITH_IMMEDIATE		= 0x25,
	MROCE_OP_UC_RDMA_WRITE_FIRST			= 0x26,
	MROCE_OP_UC_RDMA_WRITE_MIDDLE			= 0x27,
	MROCE_OP_UC_RDMA_WRITE_LAST			= 0x28,
	MROCE_OP_UC_RDMA_WRITE_LAST_WITH_IMMEDIATE	= 0x29,
	MROCE_OP_UC_RDMA_WRITE_ONLY			= 0x2a,
	MROCE_OP_UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE	= 0x2b,

	MROCE_OP_UD_SEND_ONLY				= 0x64,
	MROCE_OP_UD_SEND_ONLY_WITH_IMMEDIATE		= 0x65,

	/* IBTA A17.9.3: congestion notification packet. */
	MROCE_OP_CNP					= 0x81,
};

/*
 * IBTA 9.7.5.1 Table 43 (AETH syndrome): bit 7 reserved, bits 6:5 the
 * type, bits 4:0 the credit count, RNR timer or NAK code.
 */
#define MROCE_AETH_TYPE_MASK		0x60
#define MROCE_AETH_TYPE_ACK		0x00
#define MROCE_AETH_TYPE_RNR_NAK		0x20
#define MROCE_AETH_TYPE_RESERVED	0x40
#define MROCE_AETH_TYPE_NAK		0x60
#define MROCE_AETH_RSVD_BIT		0x80
#define MROCE_AETH_VALUE_MASK		0x1f
/* IBTA 9.7.7.2.5: credit count 0x1f means "invalid", i.e. no limit. */
#define MROCE_AETH_CREDITS_INVALID	0x1f

/* IBTA 9.7.5.2.x: NAK codes carried with MROCE_AETH_TYPE_NAK. */
enum mroce_nak_code {
	MROCE_NAK_PSN_SEQ_ERROR		= 0,
	MROCE_NAK_INVALID_REQUEST	= 1,
	MROCE_NAK_REMOTE_ACCESS_ERROR	= 2,
	MROCE_NAK_REMOTE_OP_ERROR	= 3,
	MROCE_NAK_INVALID_RD_REQUEST	= 4,
};

#endif /* MROCE_WIRE_H */
