/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Responder state of an RC QP in RoCEv2 mode: the expected PSN, the MSN,
 * the opcode sequence of multi-packet messages, and the resources that let
 * a duplicate READ or atomic request be answered again (IBTA 9.7.4.1,
 * 9.7.5.1.x, 9.7.5.2).
 *
 * Storage for the resources is the caller's (one per max_dest_rd_atomic),
 * so the core allocates nothing.  Caller serialises all calls for one QP.
 */
#ifndef MROCE_RESPWIN_H
#define MROCE_RESPWIN_H

#include "mroce_core.h"
#include "mroce_hdr.h"

enum mroce_res_kind {
	MROCE_RES_NONE,
	MROCE_RES_READ,
	MROCE_RES_ATOMIC,
};

/* A READ or atomic request, kept to answer its duplicates. */
struct mroce_respwin_res {
	u8 kind;	/* enum mroce_res_kind */
	u8 opcode;
	u32 first_psn;
	u32 last_psn;	/* READ: one PSN per response packet */
	u32 msn;	/* MSN after this request */
	u64 va;
	u32 rkey;
	u32 len;
	u64 orig;	/* atomic: the value the original execution returned */
};

enum mroce_resp_seq {
	MROCE_RESP_SEQ_NONE,	/* expecting FIRST, ONLY, READ or atomic */
	MROCE_RESP_SEQ_SEND,	/* inside a multi-packet SEND */
	MROCE_RESP_SEQ_WRITE,	/* inside a multi-packet RDMA WRITE */
};

struct mroce_respwin {
	u32 epsn;
	u32 msn;
	u8 seq;		/* enum mroce_resp_seq */
	bool nak_sent;	/* a NAK sequence error is outstanding */
	u8 nres;
	u8 res_next;
	struct mroce_respwin_res *res;
};

enum mroce_resp_verdict {
	MROCE_RESP_NEW,		/* execute, then mroce_respwin_accept() */
	MROCE_RESP_DUP,		/* duplicate: re-ACK or replay a resource */
	MROCE_RESP_NAK_SEQ,	/* send NAK PSN sequence error for epsn */
	MROCE_RESP_NAK_INVALID,	/* send NAK invalid request */
	MROCE_RESP_DROP,	/* drop silently */
	MROCE_NUM_RESP_VERDICTS,
};

void mroce_respwin_init(struct mroce_respwin *w, u32 epsn,
			struct mroce_respwin_res *res, u8 nres);
enum mroce_resp_verdict mroce_respwin_check(struct mroce_respwin *w,
					    const struct mroce_bth *bth);
struct mroce_respwin_res *mroce_respwin_accept(struct mroce_respwin *w,
					       const struct mroce_hdr *h,
					       u32 pmtu);
const struct mroce_respwin_res *
mroce_respwin_find(const struct mroce_respwin *w, u32 psn);
int mroce_respwin_dup_read_check(const struct mroce_respwin_res *res,
				 const struct mroce_hdr *h, u32 pmtu);
u32 mroce_respwin_ack_psn(const struct mroce_respwin *w);
u32 mroce_read_npsn(u32 len, u32 pmtu);
const char *mroce_resp_verdict_name(enum mroce_resp_verdict v);

#endif /* MROCE_RESPWIN_H */
