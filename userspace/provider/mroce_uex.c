// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * libmetaroce extended verbs, on the same rings as the classic ones:
 *  - ibv_create_cq_ex() and its polling interface (ibv_start_poll(),
 *    ibv_next_poll(), ibv_end_poll(), ibv_wc_read_*()): one CQE of the CQ
 *    ring is "current" between start and end; the consumer index is
 *    published at end_poll;
 *  - the ibv_wr_* send interface of a QP created with
 *    IBV_QP_INIT_ATTR_SEND_OPS_FLAGS: each builder starts a work request,
 *    the setters complete it, and it is written to the SQ ring as the same
 *    send WQE ibv_post_send() writes when the next builder or
 *    ibv_wr_complete() comes.  Nothing is visible to the kernel before
 *    ibv_wr_complete(); ibv_wr_abort() drops the whole batch.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mroce_u.h"

/* Completion fields a CQE carries (no timestamps, flow tags, VLANs). */
#define MROCE_WC_EX_FLAGS (IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM | \
			   IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP | \
			   IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL | \
			   IBV_WC_EX_WITH_DLID_PATH_BITS)

/* ibv_wr_* builders offered: every opcode the data path executes. */
#define MROCE_SEND_OPS (IBV_QP_EX_WITH_RDMA_WRITE | \
			IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | \
			IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | \
			IBV_QP_EX_WITH_RDMA_READ | \
			IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
			IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | \
			IBV_QP_EX_WITH_SEND_WITH_INV | \
			IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_LOCAL_INV)

static inline struct mroce_ucq *cqx_to_mucq(struct ibv_cq_ex *cqx)
{
	return to_mucq(ibv_cq_ex_to_cq(cqx));
}

static inline const struct metaroce_cqe *cqx_cur(struct ibv_cq_ex *cqx)
{
	return cqx_to_mucq(cqx)->cur;
}

/* Make CQE @cons current if the kernel produced it; ENOENT if not. */
static int mroce_cqx_load(struct ibv_cq_ex *cqx, uint32_t cons)
{
	struct mroce_ucq *cq = cqx_to_mucq(cqx);
	const struct metaroce_cqe *cqe;

	if (cons == mroce_load_acquire(&cq->ring.hdr->producer))
		return ENOENT;
	if (!mroce_ring_live(&cq->ring))
		return EIO;
	cqe = mroce_ring_slot(&cq->ring, cons);
	cq->cur = cqe;
	cq->cur_idx = cons;
	cqx->wr_id = cqe->wr_id;
	cqx->status = cqe->status;
	return 0;
}

static int mroce_cqx_start_poll(struct ibv_cq_ex *cqx,
				struct ibv_poll_cq_attr *attr)
{
	struct mroce_ucq *cq = cqx_to_mucq(cqx);
	int ret;

	if (attr->comp_mask)
		return EINVAL;
	if (mroce_cq_empty(&cq->ring))
		return ENOENT;
	pthread_spin_lock(&cq->lock);
	ret = mroce_cqx_load(cqx, cq->ring.hdr->consumer);
	/* Nothing to poll: no end_poll follows, so unlock here. */
	if (ret)
		pthread_spin_unlock(&cq->lock);
	return ret;
}

static int mroce_cqx_next_poll(struct ibv_cq_ex *cqx)
{
	return mroce_cqx_load(cqx, cqx_to_mucq(cqx)->cur_idx + 1);
}

/* Every CQE up to the current one is consumed. */
static void mroce_cqx_end_poll(struct ibv_cq_ex *cqx)
{
	struct mroce_ucq *cq = cqx_to_mucq(cqx);

	mroce_store_release(&cq->ring.hdr->consumer, cq->cur_idx + 1);
	cq->cur = NULL;
	pthread_spin_unlock(&cq->lock);
}

static enum ibv_wc_opcode mroce_cqx_read_opcode(struct ibv_cq_ex *cqx)
{
	return cqx_cur(cqx)->opcode;
}

static uint32_t mroce_cqx_read_vendor_err(struct ibv_cq_ex *cqx)
{
	return cqx_cur(cqx)->vendor_err;
}

static uint32_t mroce_cqx_read_byte_len(struct ibv_cq_ex *cqx)
{
	return cqx_cur(cqx)->byte_len;
}

/* Immediate data, or the invalidated rkey (IBV_WC_WITH_INV). */
static __be32 mroce_cqx_read_imm_data(struct ibv_cq_ex *cqx)
{
	return (__be32)cqx_cur(cqx)->ex;
}

static uint32_t mroce_cqx_read_qp_num(struct ibv_cq_ex *cqx)
{
	return cqx_cur(cqx)->qp_num;
}

static uint32_t mroce_cqx_read_src_qp(struct ibv_cq_ex *cqx)
{
	return cqx_cur(cqx)->src_qp;
}

static unsigned int mroce_cqx_read_wc_flags(struct ibv_cq_ex *cqx)
{
	return cqx_cur(cqx)->wc_flags;
}

static uint32_t mroce_cqx_read_slid(struct ibv_cq_ex *cqx)
{
	return cqx_cur(cqx)->slid;
}

static uint8_t mroce_cqx_read_sl(struct ibv_cq_ex *cqx)
{
	return cqx_cur(cqx)->sl;
}

static uint8_t mroce_cqx_read_dlid_path_bits(struct ibv_cq_ex *cqx)
{
	return cqx_cur(cqx)->dlid_path_bits;
}

/*
 * Extended CQ attributes this provider can honour: standard completion
 * fields, no creation flags.  EOPNOTSUPP for the rest (not bad input).
 */
int mroce_cqx_check(const struct ibv_cq_init_attr_ex *attr)
{
	if (attr->comp_mask & ~(IBV_CQ_INIT_ATTR_MASK_FLAGS))
		return EOPNOTSUPP;
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) && attr->flags)
		return EOPNOTSUPP;
	if (attr->wc_flags & ~(uint64_t)MROCE_WC_EX_FLAGS)
		return EOPNOTSUPP;
	return 0;
}

void mroce_cqx_init(struct mroce_ucq *cq)
{
	struct ibv_cq_ex *cqx = &cq->vcq.cq_ex;

	cqx->start_poll = mroce_cqx_start_poll;
	cqx->next_poll = mroce_cqx_next_poll;
	cqx->end_poll = mroce_cqx_end_poll;
	cqx->read_opcode = mroce_cqx_read_opcode;
	cqx->read_vendor_err = mroce_cqx_read_vendor_err;
	cqx->read_wc_flags = mroce_cqx_read_wc_flags;
	cqx->read_byte_len = mroce_cqx_read_byte_len;
	cqx->read_imm_data = mroce_cqx_read_imm_data;
	cqx->read_qp_num = mroce_cqx_read_qp_num;
	cqx->read_src_qp = mroce_cqx_read_src_qp;
	cqx->read_slid = mroce_cqx_read_slid;
	cqx->read_sl = mroce_cqx_read_sl;
	cqx->read_dlid_path_bits = mroce_cqx_read_dlid_path_bits;
}

/* The work request being built with ibv_wr_*, and the batch around it. */
struct mroce_uwr {
	struct ibv_send_wr wr;
	bool pending;		/* wr is started and not yet in the ring */
	int err;		/* first error of the batch */
	uint32_t prod;		/* producer index of the batch */
	uint32_t inline_len;
	uint8_t *inl;		/* max_inline_data bytes */
	struct ibv_sge sge[];	/* max_send_sge entries */
};

static inline struct mroce_uqp *qpx_to_muqp(struct ibv_qp_ex *qpx)
{
	return to_muqp(&qpx->qp_base);
}

/* Write the pending work request into the SQ ring (not yet published). */
static void mroce_wr_flush(struct mroce_uqp *qp)
{
	struct mroce_uwr *w = qp->uwr;
	struct mroce_uring *sq = &qp->sq;
	int ret;

	if (!w->pending)
		return;
	w->pending = false;
	if (w->err)
		return;
	if (!mroce_ring_live(sq)) {
		w->err = EIO;
		return;
	}
	if (w->prod - mroce_load_acquire(&sq->hdr->consumer) >= sq->num) {
		w->err = ENOMEM;
		return;
	}
	ret = mroce_build_send_wqe(qp, &w->wr, mroce_ring_slot(sq, w->prod));
	if (ret)
		w->err = ret;
	else
		w->prod++;
}

static struct ibv_send_wr *mroce_wr_begin(struct ibv_qp_ex *qpx,
					  enum ibv_wr_opcode opcode)
{
	struct mroce_uqp *qp = qpx_to_muqp(qpx);
	struct mroce_uwr *w = qp->uwr;

	mroce_wr_flush(qp);
	memset(&w->wr, 0, sizeof(w->wr));
	w->wr.wr_id = qpx->wr_id;
	w->wr.send_flags = qpx->wr_flags;
	w->wr.opcode = opcode;
	w->wr.sg_list = w->sge;
	w->inline_len = 0;
	w->pending = true;
	return &w->wr;
}

static void mroce_wr_start(struct ibv_qp_ex *qpx)
{
	struct mroce_uqp *qp = qpx_to_muqp(qpx);

	pthread_spin_lock(&qp->sq_lock);
	qp->uwr->prod = qp->sq.hdr->producer;
	qp->uwr->err = 0;
	qp->uwr->pending = false;
}

static int mroce_wr_complete(struct ibv_qp_ex *qpx)
{
	struct mroce_uqp *qp = qpx_to_muqp(qpx);
	struct mroce_uwr *w = qp->uwr;
	int ret;

	mroce_wr_flush(qp);
	ret = w->err;
	/* IBTA 10.8.2: posting to a send queue before RTS is an error. */
	if (!ret && (qpx->qp_base.state == IBV_QPS_RESET ||
		     qpx->qp_base.state == IBV_QPS_INIT ||
		     qpx->qp_base.state == IBV_QPS_RTR))
		ret = EINVAL;
	if (!ret && w->prod != qp->sq.hdr->producer)
		mroce_sq_publish(qp, w->prod);
	pthread_spin_unlock(&qp->sq_lock);
	return ret;
}

static void mroce_wr_abort(struct ibv_qp_ex *qpx)
{
	struct mroce_uqp *qp = qpx_to_muqp(qpx);

	qp->uwr->pending = false;
	pthread_spin_unlock(&qp->sq_lock);
}

static void mroce_wr_send(struct ibv_qp_ex *qpx)
{
	mroce_wr_begin(qpx, IBV_WR_SEND);
}

static void mroce_wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm_data)
{
	mroce_wr_begin(qpx, IBV_WR_SEND_WITH_IMM)->imm_data = imm_data;
}

static void mroce_wr_send_inv(struct ibv_qp_ex *qpx, uint32_t rkey)
{
	mroce_wr_begin(qpx, IBV_WR_SEND_WITH_INV)->invalidate_rkey = rkey;
}

/*
 * The window takes @rkey when the bind executes (type 2: the application
 * keeps using @rkey; the kernel checks the window, the region and the range
 * as for IBV_WR_BIND_MW through ibv_post_send()).
 */
static void mroce_wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw,
			     uint32_t rkey,
			     const struct ibv_mw_bind_info *bind_info)
{
	struct ibv_send_wr *wr = mroce_wr_begin(qpx, IBV_WR_BIND_MW);

	wr->bind_mw.mw = mw;
	wr->bind_mw.rkey = rkey;
	wr->bind_mw.bind_info = *bind_info;
}

static void mroce_wr_local_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	mroce_wr_begin(qpx, IBV_WR_LOCAL_INV)->invalidate_rkey = invalidate_rkey;
}

static void mroce_wr_rdma(struct ibv_qp_ex *qpx, enum ibv_wr_opcode opcode,
			  uint32_t rkey, uint64_t remote_addr, __be32 imm)
{
	struct ibv_send_wr *wr = mroce_wr_begin(qpx, opcode);

	wr->wr.rdma.rkey = rkey;
	wr->wr.rdma.remote_addr = remote_addr;
	wr->imm_data = imm;
}

static void mroce_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey,
				uint64_t remote_addr)
{
	mroce_wr_rdma(qpx, IBV_WR_RDMA_WRITE, rkey, remote_addr, 0);
}

static void mroce_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey,
				    uint64_t remote_addr, __be32 imm_data)
{
	mroce_wr_rdma(qpx, IBV_WR_RDMA_WRITE_WITH_IMM, rkey, remote_addr,
		      imm_data);
}

static void mroce_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey,
			       uint64_t remote_addr)
{
	mroce_wr_rdma(qpx, IBV_WR_RDMA_READ, rkey, remote_addr, 0);
}

static void mroce_wr_atomic(struct ibv_qp_ex *qpx, enum ibv_wr_opcode opcode,
			    uint32_t rkey, uint64_t remote_addr,
			    uint64_t compare_add, uint64_t swap)
{
	struct ibv_send_wr *wr = mroce_wr_begin(qpx, opcode);

	wr->wr.atomic.rkey = rkey;
	wr->wr.atomic.remote_addr = remote_addr;
	wr->wr.atomic.compare_add = compare_add;
	wr->wr.atomic.swap = swap;
}

static void mroce_wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey,
				    uint64_t remote_addr, uint64_t compare,
				    uint64_t swap)
{
	mroce_wr_atomic(qpx, IBV_WR_ATOMIC_CMP_AND_SWP, rkey, remote_addr,
			compare, swap);
}

static void mroce_wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey,
				      uint64_t remote_addr, uint64_t add)
{
	mroce_wr_atomic(qpx, IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, remote_addr,
			add, 0);
}

static void mroce_wr_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah,
				 uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct mroce_uwr *w = qpx_to_muqp(qpx)->uwr;

	w->wr.wr.ud.ah = ah;
	w->wr.wr.ud.remote_qpn = remote_qpn;
	w->wr.wr.ud.remote_qkey = remote_qkey;
}

static void mroce_wr_set_sge_list(struct ibv_qp_ex *qpx, size_t num_sge,
				  const struct ibv_sge *sg_list)
{
	struct mroce_uqp *qp = qpx_to_muqp(qpx);
	struct mroce_uwr *w = qp->uwr;

	if (num_sge > qp->max_send_sge) {
		w->err = w->err ?: EINVAL;
		return;
	}
	memcpy(w->sge, sg_list, num_sge * sizeof(*sg_list));
	w->wr.num_sge = num_sge;
}

static void mroce_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey,
			     uint64_t addr, uint32_t length)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	mroce_wr_set_sge_list(qpx, 1, &sge);
}

/* Inline data is copied now: the caller may reuse its buffers at once. */
static void mroce_wr_set_inline_data_list(struct ibv_qp_ex *qpx,
					  size_t num_buf,
					  const struct ibv_data_buf *buf_list)
{
	struct mroce_uqp *qp = qpx_to_muqp(qpx);
	struct mroce_uwr *w = qp->uwr;
	size_t i, len = 0;

	for (i = 0; i < num_buf; i++) {
		if (buf_list[i].length > qp->max_inline_data - len) {
			w->err = w->err ?: EINVAL;
			return;
		}
		memcpy(w->inl + len, buf_list[i].addr, buf_list[i].length);
		len += buf_list[i].length;
	}
	w->sge[0].addr = (uintptr_t)w->inl;
	w->sge[0].length = len;
	w->sge[0].lkey = 0;
	w->wr.num_sge = 1;
	w->wr.send_flags |= IBV_SEND_INLINE;
}

static void mroce_wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr,
				     size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	mroce_wr_set_inline_data_list(qpx, 1, &buf);
}

/*
 * Send operations this provider can build for @attr, and the state they
 * need; EOPNOTSUPP for the others (TSO...).
 */
int mroce_qpx_check(const struct ibv_qp_init_attr_ex *attr)
{
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		return 0;
	if (attr->send_ops_flags & ~(uint64_t)MROCE_SEND_OPS)
		return EOPNOTSUPP;
	return 0;
}

int mroce_qpx_init(struct mroce_uqp *qp, const struct ibv_qp_init_attr_ex *attr)
{
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;
	struct mroce_uwr *w;
	uint32_t nsge;

	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		return 0;
	/* At least one SGE: inline data is handed over in one. */
	nsge = qp->max_send_sge ?: 1;
	w = calloc(1, sizeof(*w) + nsge * sizeof(w->sge[0]) +
		   qp->max_inline_data);
	if (!w)
		return ENOMEM;
	w->inl = (uint8_t *)&w->sge[nsge];
	qp->uwr = w;

	qpx->wr_start = mroce_wr_start;
	qpx->wr_complete = mroce_wr_complete;
	qpx->wr_abort = mroce_wr_abort;
	qpx->wr_send = mroce_wr_send;
	qpx->wr_send_imm = mroce_wr_send_imm;
	qpx->wr_send_inv = mroce_wr_send_inv;
	qpx->wr_bind_mw = mroce_wr_bind_mw;
	qpx->wr_local_inv = mroce_wr_local_inv;
	qpx->wr_rdma_write = mroce_wr_rdma_write;
	qpx->wr_rdma_write_imm = mroce_wr_rdma_write_imm;
	qpx->wr_rdma_read = mroce_wr_rdma_read;
	qpx->wr_atomic_cmp_swp = mroce_wr_atomic_cmp_swp;
	qpx->wr_atomic_fetch_add = mroce_wr_atomic_fetch_add;
	qpx->wr_set_ud_addr = mroce_wr_set_ud_addr;
	qpx->wr_set_sge = mroce_wr_set_sge;
	qpx->wr_set_sge_list = mroce_wr_set_sge_list;
	qpx->wr_set_inline_data = mroce_wr_set_inline_data;
	qpx->wr_set_inline_data_list = mroce_wr_set_inline_data_list;
	qp->vqp.comp_mask |= MROCE_VERBS_QP_EX;
	return 0;
}
