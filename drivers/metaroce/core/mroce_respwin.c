// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Responder PSN checks, duplicate detection and READ/atomic replay.
 */
#include "mroce_core.h"
#include "mroce_respwin.h"
#include "mroce_psn.h"

static const char * const mroce_resp_verdict_names[] = {
	[MROCE_RESP_NEW]		= "new",
	[MROCE_RESP_DUP]		= "duplicate",
	[MROCE_RESP_NAK_SEQ]		= "nak-seq",
	[MROCE_RESP_NAK_INVALID]	= "nak-invalid",
	[MROCE_RESP_DROP]		= "drop",
};

const char *mroce_resp_verdict_name(enum mroce_resp_verdict v)
{
	BUILD_BUG_ON(ARRAY_SIZE(mroce_resp_verdict_names) !=
		     MROCE_NUM_RESP_VERDICTS);
	return mroce_enum_name(mroce_resp_verdict_names, MROCE_NUM_RESP_VERDICTS, v);
}

void mroce_respwin_init(struct mroce_respwin *w, u32 epsn,
			struct mroce_respwin_res *res, u8 nres)
{
	memset(w, 0, sizeof(*w));
	w->epsn = mroce_psn(epsn);
	w->res = res;
	w->nres = res ? nres : 0;
	if (w->nres)
		memset(res, 0, sizeof(*res) * w->nres);
}

/* IBTA 9.7.4.1.4: a READ of @len bytes takes one PSN per response packet. */
u32 mroce_read_npsn(u32 len, u32 pmtu)
{
	if (!pmtu)
		return 1;
	return len ? len / pmtu + !!(len % pmtu) : 1;
}

/* IBTA 9.7.5.1.x: ACKs coalesce to the last PSN received in order. */
u32 mroce_respwin_ack_psn(const struct mroce_respwin *w)
{
	return mroce_psn_sub(w->epsn, 1);
}

/*
 * IBTA 9.7.4.1.3 (C9-65..C9-67): within a message only MIDDLE or LAST of
 * the same operation may follow; outside one, only FIRST or ONLY.
 */
static bool mroce_respwin_opcode_ok(const struct mroce_respwin *w, u32 flags)
{
	bool cont = flags & (MROCE_OPF_MIDDLE | MROCE_OPF_LAST);

	switch (w->seq) {
	case MROCE_RESP_SEQ_SEND:
		return cont && (flags & MROCE_OPF_SEND);
	case MROCE_RESP_SEQ_WRITE:
		return cont && (flags & MROCE_OPF_WRITE);
	default:
		return !cont;
	}
}

/**
 * mroce_respwin_check() - classify an incoming request packet by its PSN
 * @w: responder state
 * @bth: the packet's BTH (already decoded, opcode known)
 *
 * IBTA 9.7.4.1.2: a PSN equal to the expected PSN is new; one in the half
 * of the PSN space behind it is a duplicate; one ahead of it means packets
 * were lost, answered by a single NAK sequence error until the expected
 * PSN arrives (C9-84, IBTA 9.7.5.2.1).
 *
 * Return: what the caller must do with the packet.
 */
enum mroce_resp_verdict mroce_respwin_check(struct mroce_respwin *w,
					    const struct mroce_bth *bth)
{
	const struct mroce_opcode_info *op = mroce_opcode_info(bth->opcode);
	s32 d;

	if (!op || !(op->flags & MROCE_OPF_REQ) ||
	    (bth->opcode & MROCE_OPT_MASK) != MROCE_OPT_RC)
		return MROCE_RESP_DROP;
	d = mroce_psn_diff(bth->psn, w->epsn);
	if (d < 0)
		return MROCE_RESP_DUP;
	if (d > 0) {
		if (w->nak_sent)
			return MROCE_RESP_DROP;
		w->nak_sent = true;
		return MROCE_RESP_NAK_SEQ;
	}
	if (!mroce_respwin_opcode_ok(w, op->flags))
		return MROCE_RESP_NAK_INVALID;
	/* No responder resources: READ and atomics are not allowed. */
	if ((op->flags & (MROCE_OPF_READ | MROCE_OPF_ATOMIC)) && !w->nres)
		return MROCE_RESP_NAK_INVALID;
	return MROCE_RESP_NEW;
}

static struct mroce_respwin_res *
mroce_respwin_save(struct mroce_respwin *w, const struct mroce_hdr *h,
		   u8 kind, u32 npsn)
{
	struct mroce_respwin_res *res = &w->res[w->res_next];

	/* The oldest resource gives way, as IBTA 9.7.5.1.x allows. */
	w->res_next = (w->res_next + 1) % w->nres;
	memset(res, 0, sizeof(*res));
	res->kind = kind;
	res->opcode = h->bth.opcode;
	res->first_psn = mroce_psn(h->bth.psn);
	res->last_psn = mroce_psn_add(h->bth.psn, npsn - 1);
	res->msn = w->msn;
	if (kind == MROCE_RES_READ) {
		res->va = h->reth.va;
		res->rkey = h->reth.rkey;
		res->len = h->reth.len;
	} else {
		res->va = h->atmeth.va;
		res->rkey = h->atmeth.rkey;
	}
	return res;
}

/**
 * mroce_respwin_accept() - a new request packet was executed
 * @w: responder state
 * @h: its headers; mroce_respwin_check() said MROCE_RESP_NEW
 * @pmtu: path MTU in bytes, to count the PSNs of a READ
 *
 * Advances the expected PSN and, at the end of each message, the MSN
 * (IBTA 9.7.7.2.x); remembers READ and atomic requests.
 *
 * Return: the resource of a READ or atomic request (the caller stores an
 * atomic's original value in ->orig), or NULL.
 */
struct mroce_respwin_res *mroce_respwin_accept(struct mroce_respwin *w,
					       const struct mroce_hdr *h,
					       u32 pmtu)
{
	const struct mroce_opcode_info *op = mroce_opcode_info(h->bth.opcode);
	struct mroce_respwin_res *res = NULL;
	u32 npsn = 1;

	if (!op)
		return NULL;
	w->nak_sent = false;
	if (op->flags & (MROCE_OPF_LAST | MROCE_OPF_ONLY)) {
		w->msn = (w->msn + 1) & MROCE_MSN_MASK;
		w->seq = MROCE_RESP_SEQ_NONE;
	} else if (op->flags & MROCE_OPF_FIRST) {
		w->seq = (op->flags & MROCE_OPF_SEND) ? MROCE_RESP_SEQ_SEND :
							 MROCE_RESP_SEQ_WRITE;
	}
	if (op->flags & MROCE_OPF_READ)
		npsn = mroce_read_npsn(h->reth.len, pmtu);
	if ((op->flags & MROCE_OPF_READ) && w->nres)
		res = mroce_respwin_save(w, h, MROCE_RES_READ, npsn);
	else if ((op->flags & MROCE_OPF_ATOMIC) && w->nres) {
		res = mroce_respwin_save(w, h, MROCE_RES_ATOMIC, 1);
	}
	w->epsn = mroce_psn_add(w->epsn, npsn);
	return res;
}

/* The newest resource whose PSNs cover @psn, or NULL. */
const struct mroce_respwin_res *
mroce_respwin_find(const struct mroce_respwin *w, u32 psn)
{
	unsigned int i, idx;

	for (i = 1; i <= w->nres; i++) {
		const struct mroce_respwin_res *res;

		idx = (w->res_next + w->nres - i) % w->nres;
		res = &w->res[idx];
		if (res->kind == MROCE_RES_NONE)
			continue;
		if (mroce_psn_in_window(psn, res->first_psn,
					mroce_psn_dist(res->first_psn,
						       res->last_psn) + 1))
			return res;
	}
	return NULL;
}

/**
 * mroce_respwin_dup_read_check() - may this duplicate READ be replayed?
 * @res: the resource mroce_respwin_find() returned for its PSN
 * @h: the duplicate request
 * @pmtu: path MTU in bytes
 *
 * A requester that lost part of a READ response resends the READ from the
 * first missing packet, with its RETH moved forward by as many MTUs
 * (IBTA 9.7.5.2.x o9-30).  The responder then re-reads memory from there.
 * The request may also stop short of the READ's end, at a packet boundary:
 * a MetaRoCE requester that kept the responses past a hole asks only for
 * the hole (Documentation/wire.rst, "Selective repeat").
 *
 * Return: 0, or -EINVAL if the request does not match the original.
 */
int mroce_respwin_dup_read_check(const struct mroce_respwin_res *res,
				 const struct mroce_hdr *h, u32 pmtu)
{
	u64 off = (u64)mroce_psn_dist(res->first_psn, h->bth.psn) * pmtu;

	if (res->kind != MROCE_RES_READ ||
	    h->bth.opcode != MROCE_OP_RC_RDMA_READ_REQUEST)
		return -EINVAL;
	if (off > res->len || h->reth.rkey != res->rkey ||
	    h->reth.va != res->va + off || h->reth.len > res->len - off)
		return -EINVAL;
	/* shorter: whole packets, at least one */
	if (h->reth.len != res->len - off &&
	    (!h->reth.len || h->reth.len % pmtu))
		return -EINVAL;
	return 0;
}
