// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * libmetaroce fast path: work requests and completions travel through the
 * rings shared with the kernel, without a system call per work request or
 * per completion.  The ordering contract is the one stated at the top of
 * include/uapi/rdma/metaroce-abi.h; the __atomic operations below are its
 * acquire/release points.
 */
#include <assert.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>

#include "mroce_u.h"

/*
 * Published entries: does the kernel need a doorbell to look at them?
 * The full barrier pairs with the kernel's between clearing KBUSY and its
 * last look at producer (see the ABI header).
 */
static bool mroce_ring_needs_doorbell(struct mroce_uring *ring, bool sq)
{
	uint32_t flags;

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	flags = __atomic_load_n(&ring->hdr->flags, __ATOMIC_RELAXED);
	if (flags & METAROCE_RING_F_KBUSY)
		return false;
	return sq || (flags & METAROCE_RING_F_FLUSH);
}

/*
 * The doorbell: a POST_SEND or POST_RECV command of no work request, which
 * the kernel's post_send/post_recv take as "look at the ring".  It is
 * written to the command file with write(), the uverbs interface every
 * kernel has, not sent through the ioctl form libibverbs' ibv_cmd_post_*
 * use where the kernel has it: both reach the same handler, and the write
 * form skips the ioctl's attribute parsing and bundle allocation, which
 * measured ~2 us per doorbell in the bench's VM (one doorbell per message
 * in a ping-pong).  Both commands have the same layout: the response
 * pointer, the QP handle, then counts of zero.
 */
struct mroce_db_cmd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_post_send cmd;
};

static void mroce_doorbell(struct ibv_qp *ibqp, bool sq)
{
	struct ib_uverbs_post_send_resp resp;
	struct mroce_db_cmd db = {
		.hdr.command = sq ? IB_USER_VERBS_CMD_POST_SEND :
				    IB_USER_VERBS_CMD_POST_RECV,
		.hdr.in_words = sizeof(db) / 4,
		.hdr.out_words = sizeof(resp) / 4,
		.cmd.response = (uintptr_t)&resp,
		.cmd.qp_handle = ibqp->handle,
		.cmd.wqe_size = sq ? sizeof(struct ib_uverbs_send_wr) :
				     sizeof(struct ib_uverbs_recv_wr),
	};

	static_assert(sizeof(struct ib_uverbs_post_send) ==
		      sizeof(struct ib_uverbs_post_recv), "doorbell layout");
	static_assert(sizeof(struct ib_uverbs_post_send_resp) ==
		      sizeof(struct ib_uverbs_post_recv_resp), "doorbell resp");
	/*
	 * As with ibv_cmd_post_*(), a failed doorbell has nothing to report:
	 * the work requests are in the ring and the QP's state tells.
	 */
	if (write(ibqp->context->cmd_fd, &db, sizeof(db)) != sizeof(db))
		return;
}

static int mroce_check_send_opcode(enum ibv_qp_type type,
				   enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
		return 0;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		/* IBTA 9.7: UC carries SEND and RDMA WRITE only. */
		return type == IBV_QPT_RC || type == IBV_QPT_UC ? 0 : EINVAL;
	case IBV_WR_RDMA_READ:
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
	case IBV_WR_SEND_WITH_INV:
		return type == IBV_QPT_RC ? 0 : EINVAL;
	case IBV_WR_BIND_MW:
	case IBV_WR_LOCAL_INV:
		/* IBTA 10.6.7: memory windows on connected QPs. */
		return type == IBV_QPT_RC || type == IBV_QPT_UC ? 0 : EINVAL;
	default:
		return EINVAL;
	}
}

/*
 * Bind Memory Window: the kernel checks the window, the region and the
 * range; the window's rkey changes to the new one when the bind executes.
 */
static void mroce_build_bind_wqe(struct ibv_send_wr *wr,
				 struct metaroce_send_wqe *wqe)
{
	const struct ibv_mw_bind_info *bi = &wr->bind_mw.bind_info;

	wqe->num_sge = 0;
	wqe->ex = wr->bind_mw.rkey;
	wqe->wr.bind.addr = bi->addr;
	wqe->wr.bind.length = bi->length;
	wqe->wr.bind.mr_lkey = bi->mr ? bi->mr->lkey : 0;
	wqe->wr.bind.mw_rkey = wr->bind_mw.mw->rkey;
	wqe->wr.bind.access = bi->mw_access_flags;
}

int mroce_build_send_wqe(struct mroce_uqp *qp, struct ibv_send_wr *wr,
			 struct metaroce_send_wqe *wqe)
{
	uint8_t *payload = (uint8_t *)(wqe + 1);
	uint32_t len = 0;
	int i, ret;

	ret = mroce_check_send_opcode(qp->vqp.qp.qp_type, wr->opcode);
	if (ret)
		return ret;
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->max_send_sge)
		return EINVAL;

	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr->wr_id;
	wqe->opcode = wr->opcode;
	wqe->send_flags = wr->send_flags;
	wqe->num_sge = wr->num_sge;
	if (wr->opcode == IBV_WR_SEND_WITH_INV ||
	    wr->opcode == IBV_WR_LOCAL_INV)
		wqe->ex = wr->invalidate_rkey;
	else
		wqe->ex = wr->imm_data;

	switch (wr->opcode) {
	case IBV_WR_BIND_MW:
		if (!wr->bind_mw.mw)
			return EINVAL;
		mroce_build_bind_wqe(wr, wqe);
		return 0;
	case IBV_WR_LOCAL_INV:
		wqe->num_sge = 0;
		return 0;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
		wqe->wr.rdma.remote_addr = wr->wr.rdma.remote_addr;
		wqe->wr.rdma.rkey = wr->wr.rdma.rkey;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		wqe->wr.atomic.remote_addr = wr->wr.atomic.remote_addr;
		wqe->wr.atomic.compare_add = wr->wr.atomic.compare_add;
		wqe->wr.atomic.swap = wr->wr.atomic.swap;
		wqe->wr.atomic.rkey = wr->wr.atomic.rkey;
		break;
	default:
		if (qp->vqp.qp.qp_type == IBV_QPT_UD) {
			if (!wr->wr.ud.ah)
				return EINVAL;
			wqe->wr.ud.ah_num = to_muah(wr->wr.ud.ah)->ah_num;
			wqe->wr.ud.remote_qpn = wr->wr.ud.remote_qpn;
			wqe->wr.ud.remote_qkey = wr->wr.ud.remote_qkey;
		}
		break;
	}

	if (wr->send_flags & IBV_SEND_INLINE) {
		for (i = 0; i < wr->num_sge; i++) {
			if (wr->sg_list[i].length > qp->max_inline_data - len)
				return EINVAL;
			memcpy(payload + len,
			       (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			len += wr->sg_list[i].length;
		}
		wqe->inline_len = len;
		wqe->num_sge = 0;
		return 0;
	}
	for (i = 0; i < wr->num_sge; i++) {
		struct metaroce_sge *sge = (struct metaroce_sge *)payload + i;

		sge->addr = wr->sg_list[i].addr;
		sge->length = wr->sg_list[i].length;
		sge->lkey = wr->sg_list[i].lkey;
	}
	return 0;
}

/*
 * Publish the SQ up to @prod and ring the doorbell unless the kernel is at
 * the queue already.  Caller holds sq_lock.
 */
void mroce_sq_publish(struct mroce_uqp *qp, uint32_t prod)
{
	mroce_store_release(&qp->sq.hdr->producer, prod);
	if (mroce_ring_needs_doorbell(&qp->sq, true))
		mroce_doorbell(&qp->vqp.qp, true);
}

int mroce_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr)
{
	struct mroce_uqp *qp = to_muqp(ibqp);
	struct mroce_uring *sq = &qp->sq;
	uint32_t prod, cons;
	int posted = 0, ret = 0;

	/* IBTA 10.8.2: posting to a send queue before RTS is an error. */
	switch (ibqp->state) {
	case IBV_QPS_RESET:
	case IBV_QPS_INIT:
	case IBV_QPS_RTR:
		*bad_wr = wr;
		return EINVAL;
	default:
		break;
	}

	pthread_spin_lock(&qp->sq_lock);
	prod = sq->hdr->producer;
	/* The device went away under the process (see the ABI header). */
	if (!mroce_ring_live(sq))
		ret = EIO;
	for (; wr && !ret; wr = wr->next) {
		cons = mroce_load_acquire(&sq->hdr->consumer);
		if (prod - cons >= sq->num) {
			ret = ENOMEM;
			break;
		}
		ret = mroce_build_send_wqe(qp, wr, mroce_ring_slot(sq, prod));
		if (ret)
			break;
		mroce_store_release(&sq->hdr->producer, ++prod);
		posted++;
	}
	if (ret)
		*bad_wr = wr;
	if (posted && mroce_ring_needs_doorbell(sq, true))
		mroce_doorbell(ibqp, true);
	pthread_spin_unlock(&qp->sq_lock);
	return ret;
}

/*
 * ibv_bind_mw() (type 1 windows; libibverbs checked the type and the
 * arguments): a Bind Memory Window work request with the next key byte,
 * which becomes the window's rkey (IBTA 10.6.7).
 */
int mroce_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		  struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr = {
		.wr_id = mw_bind->wr_id,
		.opcode = IBV_WR_BIND_MW,
		.send_flags = mw_bind->send_flags,
	}, *bad;
	int ret;

	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = mw_bind->bind_info;
	ret = mroce_post_send(qp, &wr, &bad);
	if (!ret)
		mw->rkey = wr.bind_mw.rkey;
	return ret;
}

static int mroce_ring_post_recv(struct mroce_uring *ring, uint32_t max_sge,
				struct ibv_recv_wr *wr,
				struct ibv_recv_wr **bad_wr, int *posted)
{
	uint32_t prod = ring->hdr->producer, cons;
	int i;

	if (!mroce_ring_live(ring)) {
		*bad_wr = wr;
		return EIO;
	}
	for (; wr; wr = wr->next) {
		struct metaroce_recv_wqe *wqe;
		struct metaroce_sge *sge;

		cons = mroce_load_acquire(&ring->hdr->consumer);
		if (prod - cons >= ring->num) {
			*bad_wr = wr;
			return ENOMEM;
		}
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > max_sge) {
			*bad_wr = wr;
			return EINVAL;
		}
		wqe = mroce_ring_slot(ring, prod);
		wqe->wr_id = wr->wr_id;
		wqe->num_sge = wr->num_sge;
		wqe->reserved = 0;
		sge = (struct metaroce_sge *)(wqe + 1);
		for (i = 0; i < wr->num_sge; i++) {
			sge[i].addr = wr->sg_list[i].addr;
			sge[i].length = wr->sg_list[i].length;
			sge[i].lkey = wr->sg_list[i].lkey;
		}
		mroce_store_release(&ring->hdr->producer, ++prod);
		(*posted)++;
	}
	return 0;
}

int mroce_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr)
{
	struct mroce_uqp *qp = to_muqp(ibqp);
	int posted = 0, ret;

	if (ibqp->srq || !qp->rq.hdr || ibqp->state == IBV_QPS_RESET) {
		*bad_wr = wr;
		return EINVAL;
	}
	pthread_spin_lock(&qp->rq_lock);
	ret = mroce_ring_post_recv(&qp->rq, qp->max_recv_sge, wr, bad_wr,
				   &posted);
	if (posted && mroce_ring_needs_doorbell(&qp->rq, false))
		mroce_doorbell(ibqp, false);
	pthread_spin_unlock(&qp->rq_lock);
	return ret;
}

int mroce_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr)
{
	struct mroce_usrq *srq = to_musrq(ibsrq);
	int posted = 0, ret;

	pthread_spin_lock(&srq->lock);
	ret = mroce_ring_post_recv(&srq->ring, srq->max_sge, wr, bad_wr,
				   &posted);
	pthread_spin_unlock(&srq->lock);
	return ret;
}

static void mroce_cqe_to_wc(const struct metaroce_cqe *cqe, struct ibv_wc *wc)
{
	wc->wr_id = cqe->wr_id;
	wc->status = cqe->status;
	wc->opcode = cqe->opcode;
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = cqe->byte_len;
	wc->imm_data = cqe->ex;
	wc->qp_num = cqe->qp_num;
	wc->src_qp = cqe->src_qp;
	wc->wc_flags = cqe->wc_flags;
	wc->pkey_index = cqe->pkey_index;
	wc->slid = cqe->slid;
	wc->sl = cqe->sl;
	wc->dlid_path_bits = cqe->dlid_path_bits;
}

int mroce_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	struct mroce_ucq *cq = to_mucq(ibcq);
	struct mroce_uring *ring;
	uint32_t prod, cons;
	int n = 0;

	/* An empty CQ costs no lock: a polling loop spends its time here. */
	if (mroce_cq_empty(&cq->ring))
		return 0;
	pthread_spin_lock(&cq->lock);
	ring = &cq->ring;
	cons = ring->hdr->consumer;
	prod = mroce_load_acquire(&ring->hdr->producer);
	/* Indices nobody maintains any more say nothing. */
	if (cons != prod && !mroce_ring_live(ring)) {
		pthread_spin_unlock(&cq->lock);
		return -EIO;
	}
	while (n < ne && cons != prod) {
		mroce_cqe_to_wc(mroce_ring_slot(ring, cons), &wc[n]);
		cons++;
		n++;
	}
	if (n)
		mroce_store_release(&ring->hdr->consumer, cons);
	pthread_spin_unlock(&cq->lock);
	return n;
}
