/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * libmetaroce: provider-wide types.  Roles of the files:
 *   mroce_udev.c    registration, device matching, context, queries
 *   mroce_uverbs.c  control path: PD, MR, MW, CQ, QP, SRQ, AH through uverbs
 *   mroce_ufast.c   fast path on the shared rings: post_*, poll_cq
 *   mroce_uex.c     extended CQ polling and the ibv_wr_* send interface
 */
#ifndef MROCE_U_H
#define MROCE_U_H

#include <pthread.h>
#include <uapi/rdma/metaroce-abi.h>

#ifdef MROCE_IN_RDMA_CORE
/*
 * Built as providers/metaroce of an rdma-core tree (its CMakeLists.txt
 * defines MROCE_IN_RDMA_CORE): the tree's own provider header replaces
 * the restated one, with the few names of mroce_pabi.h the code uses.
 */
#include <infiniband/driver.h>
#define MROCE_CHECK_SIZE(type, size) \
	_Static_assert(sizeof(type) == (size), "size of " #type)
#define MROCE_VERBS_QP_EX VERBS_QP_EX
#else
#include "mroce_pabi.h"
#endif

#define MROCE_U_DRV_NAME "metaroce"

/* Driver udata wrappers: the core struct, immediately followed by ours. */
#define MROCE_DRV_RESP(name, core_t, drv_t)	\
	struct name {				\
		struct core_t ibv_resp;		\
		struct drv_t drv;		\
	};					\
	MROCE_CHECK_SIZE(struct name,		\
			 sizeof(struct core_t) + sizeof(struct drv_t))

/* A command followed by our driver data (the kernel's driver udata). */
struct mroce_modify_qp_cmd {
	struct ibv_modify_qp_ex ibv_cmd;
	struct metaroce_modify_qp drv;
};
MROCE_CHECK_SIZE(struct mroce_modify_qp_cmd,
		 sizeof(struct ibv_modify_qp_ex) +
		 sizeof(struct metaroce_modify_qp));

MROCE_DRV_RESP(mroce_get_context_resp, ib_uverbs_get_context_resp,
	       metaroce_alloc_ucontext_resp);
MROCE_DRV_RESP(mroce_create_cq_resp, ib_uverbs_create_cq_resp,
	       metaroce_create_cq_resp);
MROCE_DRV_RESP(mroce_create_cq_ex_resp, ib_uverbs_ex_create_cq_resp,
	       metaroce_create_cq_resp);
MROCE_DRV_RESP(mroce_resize_cq_resp, ib_uverbs_resize_cq_resp,
	       metaroce_resize_cq_resp);
MROCE_DRV_RESP(mroce_create_qp_resp, ib_uverbs_create_qp_resp,
	       metaroce_create_qp_resp);
MROCE_DRV_RESP(mroce_create_qp_ex_resp, ib_uverbs_ex_create_qp_resp,
	       metaroce_create_qp_resp);
MROCE_DRV_RESP(mroce_create_srq_resp, ib_uverbs_create_srq_resp,
	       metaroce_create_srq_resp);
MROCE_DRV_RESP(mroce_create_ah_resp, ib_uverbs_create_ah_resp,
	       metaroce_create_ah_resp);

struct mroce_udev {
	struct verbs_device vdev;
};

struct mroce_uctx {
	struct verbs_context vctx;
	uint32_t max_inline_data;
};

/* One mapped ring (struct metaroce_ring and its entries). */
struct mroce_uring {
	struct metaroce_ring *hdr;
	uint8_t *data;
	size_t map_size;
	uint32_t num;
	uint32_t entry_size;
};

struct mroce_ucq {
	struct verbs_cq vcq;
	pthread_spinlock_t lock;
	struct mroce_uring ring;
	/* ibv_start_poll() to ibv_end_poll(): the CQE being read */
	const struct metaroce_cqe *cur;
	uint32_t cur_idx;
};

struct mroce_uqp {
	struct verbs_qp vqp;
	pthread_spinlock_t sq_lock;
	pthread_spinlock_t rq_lock;
	struct mroce_uring sq;
	struct mroce_uring rq;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data;
	struct mroce_uwr *uwr;	/* ibv_wr_* state, NULL without SEND_OPS */
	/* sent with every modify_qp, see mroce_udv.c */
	uint32_t mode;		/* enum metaroce_qp_mode */
	uint32_t ece_ver;	/* version agreed through ECE, 0 if none */
	bool ece_set;		/* set_ece was called: ece_ver is the answer */
};

struct mroce_usrq {
	struct verbs_srq vsrq;
	pthread_spinlock_t lock;
	struct mroce_uring ring;
	uint32_t max_sge;
};

struct mroce_uah {
	struct ibv_ah ibah;
	uint32_t ah_num;
};

static inline struct mroce_uctx *to_muctx(struct ibv_context *ctx)
{
	return (struct mroce_uctx *)((char *)ctx -
		offsetof(struct mroce_uctx, vctx.context));
}

static inline struct mroce_ucq *to_mucq(struct ibv_cq *cq)
{
	return (struct mroce_ucq *)cq;
}

static inline struct mroce_uqp *to_muqp(struct ibv_qp *qp)
{
	return (struct mroce_uqp *)qp;
}

static inline struct mroce_usrq *to_musrq(struct ibv_srq *srq)
{
	return (struct mroce_usrq *)srq;
}

static inline struct mroce_uah *to_muah(struct ibv_ah *ah)
{
	return (struct mroce_uah *)ah;
}

_Static_assert(offsetof(struct mroce_ucq, vcq) == 0, "ibv_cq first");
_Static_assert(offsetof(struct mroce_uqp, vqp) == 0, "ibv_qp first");
_Static_assert(offsetof(struct mroce_usrq, vsrq) == 0, "ibv_srq first");
_Static_assert(offsetof(struct mroce_uah, ibah) == 0, "ibv_ah first");

/*
 * Ring indexes: acquire/release points of the ordering contract at the top
 * of include/uapi/rdma/metaroce-abi.h.
 */
static inline uint32_t mroce_load_acquire(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void mroce_store_release(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

/* Does the kernel still serve @ring?  (METAROCE_RING_F_LIVE, ABI header.) */
static inline bool mroce_ring_live(const struct mroce_uring *ring)
{
	return __atomic_load_n(&ring->hdr->flags, __ATOMIC_ACQUIRE) &
	       METAROCE_RING_F_LIVE;
}

/*
 * Nothing to poll, read without the CQ's lock.  The consumer index may be
 * stale (another thread polling under the lock moves it only forward, up
 * to the producer), so equal indices mean empty; anything else is decided
 * under the lock.
 */
static inline bool mroce_cq_empty(const struct mroce_uring *ring)
{
	return __atomic_load_n(&ring->hdr->consumer, __ATOMIC_RELAXED) ==
	       mroce_load_acquire(&ring->hdr->producer);
}

static inline void *mroce_ring_slot(struct mroce_uring *ring, uint32_t idx)
{
	return ring->data + (size_t)(idx & (ring->num - 1)) * ring->entry_size;
}

/* mroce_uverbs.c */
extern const struct verbs_context_ops mroce_uctx_ops;
int mroce_ring_map(struct mroce_uring *ring, int cmd_fd,
		   const struct metaroce_mmap *mi);
void mroce_ring_unmap(struct mroce_uring *ring);

/* mroce_ufast.c */
int mroce_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr);
int mroce_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr);
int mroce_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		  struct ibv_mw_bind *mw_bind);
int mroce_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr);
int mroce_poll_cq(struct ibv_cq *cq, int ne, struct ibv_wc *wc);
int mroce_build_send_wqe(struct mroce_uqp *qp, struct ibv_send_wr *wr,
			 struct metaroce_send_wqe *wqe);
void mroce_sq_publish(struct mroce_uqp *qp, uint32_t prod);

/* mroce_uex.c */
int mroce_cqx_check(const struct ibv_cq_init_attr_ex *attr);
void mroce_cqx_init(struct mroce_ucq *cq);
int mroce_qpx_check(const struct ibv_qp_init_attr_ex *attr);
int mroce_qpx_init(struct mroce_uqp *qp,
		   const struct ibv_qp_init_attr_ex *attr);

/* mroce_udev.c */
bool mroce_is_mroce_device(struct ibv_device *dev);

/* mroce_udv.c */
int mroce_query_ece(struct ibv_qp *qp, struct ibv_ece *ece);
int mroce_set_ece(struct ibv_qp *qp, struct ibv_ece *ece);

#endif /* MROCE_U_H */
