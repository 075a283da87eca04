// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * libmetaroce control path: every object is created, modified and destroyed
 * by the kernel through the uverbs commands; queues are then mapped from the
 * command fd at the offsets the kernel returns (struct metaroce_mmap).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mroce_u.h"

/*
 * SGEs that fit in one entry of @ring after a WQE header of @hdr bytes: the
 * bound the fast path enforces, whatever the caps libibverbs reports.
 */
static uint32_t mroce_ring_sge_room(const struct mroce_uring *ring,
				    size_t hdr, uint32_t cap)
{
	uint32_t room;

	if (!ring->hdr || ring->entry_size < hdr)
		return 0;
	room = (ring->entry_size - hdr) / sizeof(struct metaroce_sge);
	return cap < room ? cap : room;
}

int mroce_ring_map(struct mroce_uring *ring, int cmd_fd,
		   const struct metaroce_mmap *mi)
{
	void *p;

	memset(ring, 0, sizeof(*ring));
	if (!mi->size)
		return 0;
	if (mi->num_entries & (mi->num_entries - 1) ||
	    (uint64_t)mi->num_entries * mi->entry_size +
	    METAROCE_RING_HDR_SIZE > mi->size)
		return EPROTO;
	p = mmap(NULL, mi->size, PROT_READ | PROT_WRITE, MAP_SHARED, cmd_fd,
		 mi->offset);
	if (p == MAP_FAILED)
		return errno;
	ring->hdr = p;
	ring->data = (uint8_t *)p + METAROCE_RING_HDR_SIZE;
	ring->map_size = mi->size;
	ring->num = mi->num_entries;
	ring->entry_size = mi->entry_size;
	return 0;
}

void mroce_ring_unmap(struct mroce_uring *ring)
{
	if (ring->hdr)
		munmap(ring->hdr, ring->map_size);
	ring->hdr = NULL;
}

static int mroce_query_device_ex(struct ibv_context *ctx,
				 const struct ibv_query_device_ex_input *input,
				 struct ibv_device_attr_ex *attr,
				 size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	uint64_t fw;
	int ret;

	ret = ibv_cmd_query_device_any(ctx, input, attr, attr_size, &resp,
				       &resp_size);
	if (ret)
		return ret;
	/* The kernel's fw_ver is major.minor.sub_minor in 16/16/32 bits. */
	fw = resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "%u.%u.%u", (unsigned int)(fw >> 48),
		 (unsigned int)((fw >> 32) & 0xffff),
		 (unsigned int)(fw & 0xffffffff));
	return 0;
}

static int mroce_query_port(struct ibv_context *ctx, uint8_t port,
			    struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd;

	return ibv_cmd_query_port(ctx, port, attr, &cmd, sizeof(cmd));
}

static void mroce_free_context(struct ibv_context *ibctx)
{
	struct mroce_uctx *ctx = to_muctx(ibctx);

	verbs_uninit_context(&ctx->vctx);
	free(ctx);
}

static struct ibv_pd *mroce_alloc_pd(struct ibv_context *ctx)
{
	struct ib_uverbs_alloc_pd_resp resp;
	struct ibv_alloc_pd cmd;
	struct ibv_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	ret = ibv_cmd_alloc_pd(ctx, pd, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}
	return pd;
}

static int mroce_dealloc_pd(struct ibv_pd *pd)
{
	int ret = ibv_cmd_dealloc_pd(pd);

	if (!ret)
		free(pd);
	return ret;
}

static struct ibv_mr *mroce_reg_mr(struct ibv_pd *pd, void *addr,
				   size_t length, uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp;
	struct ibv_reg_mr cmd;
	struct verbs_mr *vmr;
	int ret;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;
	ret = ibv_cmd_reg_mr(pd, addr, length, hca_va, access, vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
}

/*
 * A region of a dma-buf (e.g. GPU memory): the kernel attaches to the
 * buffer and copies through the exporter's CPU mapping; nothing to map
 * here.
 */
static struct ibv_mr *mroce_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
					  size_t length, uint64_t iova, int fd,
					  int access)
{
	struct verbs_mr *vmr;
	int ret;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;
	ret = ibv_cmd_reg_dmabuf_mr(pd, offset, length, iova, fd, access, vmr);
	if (ret) {
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
}

static int mroce_dereg_mr(struct verbs_mr *vmr)
{
	int ret = ibv_cmd_dereg_mr(vmr);

	if (!ret)
		free(vmr);
	return ret;
}

static struct ibv_mw *mroce_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ibv_mw *mw = calloc(1, sizeof(*mw));
	struct ib_uverbs_alloc_mw_resp resp;
	struct ibv_alloc_mw cmd;
	int ret;

	if (!mw)
		return NULL;
	ret = ibv_cmd_alloc_mw(pd, type, mw, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (!ret)
		return mw;
	free(mw);
	errno = ret;
	return NULL;
}

static int mroce_dealloc_mw(struct ibv_mw *mw)
{
	int ret = ibv_cmd_dealloc_mw(mw);

	if (ret)
		return ret;
	free(mw);
	return 0;
}

/* The kernel created the CQ: map its ring; destroys it on failure. */
static int mroce_ucq_map(struct mroce_ucq *cq, int fd,
			 const struct metaroce_create_cq_resp *drv)
{
	int ret;

	ret = mroce_ring_map(&cq->ring, fd, &drv->cq);
	if (!ret && drv->cq.entry_size < sizeof(struct metaroce_cqe))
		ret = EPROTO;
	if (ret) {
		mroce_ring_unmap(&cq->ring);
		ibv_cmd_destroy_cq(&cq->vcq.cq);
	}
	return ret;
}

static struct mroce_ucq *mroce_ucq_alloc(void)
{
	struct mroce_ucq *cq = calloc(1, sizeof(*cq));

	if (cq)
		pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	return cq;
}

static void mroce_ucq_free(struct mroce_ucq *cq, int err)
{
	pthread_spin_destroy(&cq->lock);
	free(cq);
	errno = err;
}

static struct ibv_cq *mroce_create_cq(struct ibv_context *ctx, int cqe,
				      struct ibv_comp_channel *channel,
				      int comp_vector)
{
	struct mroce_create_cq_resp resp = {};
	struct mroce_ucq *cq = mroce_ucq_alloc();
	int ret;

	if (!cq)
		return NULL;
	ret = ibv_cmd_create_cq(ctx, cqe, channel, comp_vector, &cq->vcq.cq,
				NULL, 0, &resp.ibv_resp, sizeof(resp));
	if (!ret)
		ret = mroce_ucq_map(cq, ctx->cmd_fd, &resp.drv);
	if (ret) {
		mroce_ucq_free(cq, ret);
		return NULL;
	}
	return &cq->vcq.cq;
}

/* ibv_create_cq_ex(): the same CQ, polled through mroce_uex.c. */
static struct ibv_cq_ex *mroce_create_cq_ex(struct ibv_context *ctx,
					    struct ibv_cq_init_attr_ex *attr)
{
	struct mroce_create_cq_ex_resp resp = {};
	struct ibv_create_cq_ex cmd = {};
	struct mroce_ucq *cq;
	int ret;

	ret = mroce_cqx_check(attr);
	if (ret) {
		errno = ret;
		return NULL;
	}
	cq = mroce_ucq_alloc();
	if (!cq)
		return NULL;
	ret = ibv_cmd_create_cq_ex(ctx, attr, &cq->vcq, &cmd, sizeof(cmd),
				   &resp.ibv_resp, sizeof(resp), 0);
	if (!ret)
		ret = mroce_ucq_map(cq, ctx->cmd_fd, &resp.drv);
	if (ret) {
		mroce_ucq_free(cq, ret);
		return NULL;
	}
	mroce_cqx_init(cq);
	return &cq->vcq.cq_ex;
}

static int mroce_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct mroce_ucq *cq = to_mucq(ibcq);
	struct mroce_resize_cq_resp resp = {};
	struct ibv_resize_cq cmd = {};
	struct mroce_uring ring;
	int ret;

	pthread_spin_lock(&cq->lock);
	ret = ibv_cmd_resize_cq(ibcq, cqe, &cmd, sizeof(cmd), &resp.ibv_resp,
				sizeof(resp));
	if (!ret)
		ret = mroce_ring_map(&ring, ibcq->context->cmd_fd,
				     &resp.drv.cq);
	if (!ret) {
		mroce_ring_unmap(&cq->ring);
		cq->ring = ring;
	}
	pthread_spin_unlock(&cq->lock);
	return ret;
}

static int mroce_destroy_cq(struct ibv_cq *ibcq)
{
	struct mroce_ucq *cq = to_mucq(ibcq);
	int ret;

	ret = ibv_cmd_destroy_cq(ibcq);
	if (ret)
		return ret;
	mroce_ring_unmap(&cq->ring);
	mroce_ucq_free(cq, 0);
	return 0;
}

/*
 * Handles are per context: the kernel would look a CQ or SRQ of another
 * context up among this context's objects, and may find an unrelated one.
 * Only the provider can tell.
 */
static bool mroce_qp_foreign(struct ibv_context *ctx, struct ibv_cq *scq,
			     struct ibv_cq *rcq, struct ibv_srq *srq)
{
	return (scq && scq->context != ctx) || (rcq && rcq->context != ctx) ||
	       (srq && srq->context != ctx);
}

static struct mroce_uqp *mroce_uqp_alloc(void)
{
	struct mroce_uqp *qp = calloc(1, sizeof(*qp));

	if (!qp)
		return NULL;
	pthread_spin_init(&qp->sq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq_lock, PTHREAD_PROCESS_PRIVATE);
	return qp;
}

static void mroce_uqp_free(struct mroce_uqp *qp)
{
	free(qp->uwr);
	pthread_spin_destroy(&qp->rq_lock);
	pthread_spin_destroy(&qp->sq_lock);
	free(qp);
}

/* The kernel created the QP: map its rings; destroys it on failure. */
static int mroce_uqp_map(struct mroce_uqp *qp, int fd,
			 const struct metaroce_create_qp_resp *drv,
			 const struct ibv_qp_cap *cap)
{
	int ret;

	ret = mroce_ring_map(&qp->sq, fd, &drv->sq);
	if (!ret)
		ret = mroce_ring_map(&qp->rq, fd, &drv->rq);
	if (ret) {
		mroce_ring_unmap(&qp->sq);
		ibv_cmd_destroy_qp(&qp->vqp.qp);
		return ret;
	}
	qp->max_send_sge = mroce_ring_sge_room(&qp->sq,
			sizeof(struct metaroce_send_wqe), cap->max_send_sge);
	qp->max_recv_sge = mroce_ring_sge_room(&qp->rq,
			sizeof(struct metaroce_recv_wqe), cap->max_recv_sge);
	qp->max_inline_data = drv->max_inline_data;
	return 0;
}

/* Undo mroce_uqp_map(): unmap the rings and destroy the kernel QP. */
static void mroce_uqp_unmap_destroy(struct mroce_uqp *qp)
{
	mroce_ring_unmap(&qp->rq);
	mroce_ring_unmap(&qp->sq);
	ibv_cmd_destroy_qp(&qp->vqp.qp);
}

static struct ibv_qp *mroce_create_qp(struct ibv_pd *pd,
				      struct ibv_qp_init_attr *attr)
{
	struct mroce_create_qp_resp resp = {};
	struct ibv_create_qp cmd = {};
	struct mroce_uqp *qp;
	int ret;

	if (mroce_qp_foreign(pd->context, attr->send_cq, attr->recv_cq,
			     attr->srq)) {
		errno = EINVAL;
		return NULL;
	}
	qp = mroce_uqp_alloc();
	if (!qp)
		return NULL;
	ret = ibv_cmd_create_qp(pd, &qp->vqp.qp, attr, &cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (!ret)
		ret = mroce_uqp_map(qp, pd->context->cmd_fd, &resp.drv,
				    &attr->cap);
	if (ret) {
		mroce_uqp_free(qp);
		errno = ret;
		return NULL;
	}
	return &qp->vqp.qp;
}

/*
 * ibv_create_qp_ex() comes here when comp_mask has more than the PD.
 * Creation flags go to the kernel (which supports none); the ibv_wr_* send
 * API (SEND_OPS_FLAGS) is mroce_uex.c's; XRC is not offered.
 */
static struct ibv_qp *mroce_create_qp_ex(struct ibv_context *ctx,
					 struct ibv_qp_init_attr_ex *attr)
{
	struct mroce_create_qp_ex_resp resp = {};
	struct ibv_create_qp_ex cmd = {};
	struct mroce_uqp *qp;
	int ret;

	if (attr->comp_mask & ~(IBV_QP_INIT_ATTR_PD |
				IBV_QP_INIT_ATTR_CREATE_FLAGS |
				IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	ret = mroce_qpx_check(attr);
	if (ret) {
		errno = ret;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd ||
	    attr->pd->context != ctx ||
	    mroce_qp_foreign(ctx, attr->send_cq, attr->recv_cq, attr->srq)) {
		errno = EINVAL;
		return NULL;
	}
	qp = mroce_uqp_alloc();
	if (!qp)
		return NULL;
	ret = ibv_cmd_create_qp_ex2(ctx, &qp->vqp, attr, &cmd, sizeof(cmd),
				    &resp.ibv_resp, sizeof(resp));
	if (!ret)
		ret = mroce_uqp_map(qp, ctx->cmd_fd, &resp.drv, &attr->cap);
	if (!ret) {
		ret = mroce_qpx_init(qp, attr);
		if (ret)
			mroce_uqp_unmap_destroy(qp);
	}
	if (ret) {
		mroce_uqp_free(qp);
		errno = ret;
		return NULL;
	}
	return &qp->vqp.qp;
}

static int mroce_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			  int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct ibv_query_qp cmd;

	return ibv_cmd_query_qp(qp, attr, attr_mask, init_attr, &cmd,
				sizeof(cmd));
}

/*
 * The extended command, for its driver data: the QP's transport mode
 * request and ECE answer (struct metaroce_modify_qp, mroce_udv.c), which
 * the kernel keeps for RTR.
 */
static int mroce_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			   int attr_mask)
{
	struct mroce_modify_qp_cmd cmd = {};
	struct ib_uverbs_ex_modify_qp_resp resp = {};

	cmd.drv.mode = to_muqp(qp)->mode;
	cmd.drv.ece_ver = to_muqp(qp)->ece_ver;
	return ibv_cmd_modify_qp_ex(qp, attr, attr_mask, &cmd.ibv_cmd,
				    sizeof(cmd), &resp, sizeof(resp));
}

static int mroce_destroy_qp(struct ibv_qp *ibqp)
{
	struct mroce_uqp *qp = to_muqp(ibqp);
	int ret;

	ret = ibv_cmd_destroy_qp(ibqp);
	if (ret)
		return ret;
	mroce_ring_unmap(&qp->rq);
	mroce_ring_unmap(&qp->sq);
	mroce_uqp_free(qp);
	return 0;
}

static struct ibv_srq *mroce_create_srq(struct ibv_pd *pd,
					struct ibv_srq_init_attr *attr)
{
	struct mroce_create_srq_resp resp = {};
	struct ibv_create_srq cmd = {};
	struct mroce_usrq *srq;
	int ret;

	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	pthread_spin_init(&srq->lock, PTHREAD_PROCESS_PRIVATE);
	ret = ibv_cmd_create_srq(pd, &srq->vsrq.srq, attr, &cmd, sizeof(cmd),
				 &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_free;
	ret = mroce_ring_map(&srq->ring, pd->context->cmd_fd, &resp.drv.rq);
	if (ret) {
		ibv_cmd_destroy_srq(&srq->vsrq.srq);
		goto err_free;
	}
	srq->max_sge = mroce_ring_sge_room(&srq->ring,
			sizeof(struct metaroce_recv_wqe), attr->attr.max_sge);
	srq->vsrq.srq_num = resp.drv.srq_num;
	return &srq->vsrq.srq;

err_free:
	pthread_spin_destroy(&srq->lock);
	free(srq);
	errno = ret;
	return NULL;
}

static int mroce_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
			    int attr_mask)
{
	struct ibv_modify_srq cmd = {};

	return ibv_cmd_modify_srq(srq, attr, attr_mask, &cmd, sizeof(cmd));
}

static int mroce_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd;

	return ibv_cmd_query_srq(srq, attr, &cmd, sizeof(cmd));
}

static int mroce_get_srq_num(struct ibv_srq *srq, uint32_t *srq_num)
{
	*srq_num = to_musrq(srq)->vsrq.srq_num;
	return 0;
}

static int mroce_destroy_srq(struct ibv_srq *ibsrq)
{
	struct mroce_usrq *srq = to_musrq(ibsrq);
	int ret;

	ret = ibv_cmd_destroy_srq(ibsrq);
	if (ret)
		return ret;
	mroce_ring_unmap(&srq->ring);
	pthread_spin_destroy(&srq->lock);
	free(srq);
	return 0;
}

static struct ibv_ah *mroce_create_ah(struct ibv_pd *pd,
				      struct ibv_ah_attr *attr)
{
	struct mroce_create_ah_resp resp = {};
	struct mroce_uah *ah;
	int ret;

	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return NULL;
	ret = ibv_cmd_create_ah(pd, &ah->ibah, attr, &resp.ibv_resp,
				sizeof(resp));
	if (ret) {
		free(ah);
		errno = ret;
		return NULL;
	}
	ah->ah_num = resp.drv.ah_num;
	return &ah->ibah;
}

static int mroce_destroy_ah(struct ibv_ah *ah)
{
	int ret = ibv_cmd_destroy_ah(ah);

	if (!ret)
		free(to_muah(ah));
	return ret;
}

const struct verbs_context_ops mroce_uctx_ops = {
	.alloc_mw = mroce_alloc_mw,
	.alloc_pd = mroce_alloc_pd,
	.bind_mw = mroce_bind_mw,
	.create_ah = mroce_create_ah,
	.create_cq = mroce_create_cq,
	.create_cq_ex = mroce_create_cq_ex,
	.create_qp = mroce_create_qp,
	.create_qp_ex = mroce_create_qp_ex,
	.create_srq = mroce_create_srq,
	.dealloc_mw = mroce_dealloc_mw,
	.dealloc_pd = mroce_dealloc_pd,
	.dereg_mr = mroce_dereg_mr,
	.destroy_ah = mroce_destroy_ah,
	.destroy_cq = mroce_destroy_cq,
	.destroy_qp = mroce_destroy_qp,
	.destroy_srq = mroce_destroy_srq,
	.free_context = mroce_free_context,
	.get_srq_num = mroce_get_srq_num,
	.modify_qp = mroce_modify_qp,
	.query_ece = mroce_query_ece,
	.set_ece = mroce_set_ece,
	.modify_srq = mroce_modify_srq,
	.poll_cq = mroce_poll_cq,
	.post_recv = mroce_post_recv,
	.post_send = mroce_post_send,
	.post_srq_recv = mroce_post_srq_recv,
	.query_device_ex = mroce_query_device_ex,
	.query_port = mroce_query_port,
	.query_qp = mroce_query_qp,
	.query_srq = mroce_query_srq,
	.reg_dmabuf_mr = mroce_reg_dmabuf_mr,
	.reg_mr = mroce_reg_mr,
	.req_notify_cq = ibv_cmd_req_notify_cq,
	.resize_cq = mroce_resize_cq,
};
