/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Verbs objects of the MetaRoCE driver.  One file per role:
 *   mroce_verbs.c  ib_device_ops table, user contexts, device attributes
 *   mroce_mmap.c   rings (struct mroce_kring) and their user mappings
 *   mroce_pd.c     protection domains
 *   mroce_mr.c     memory regions (user memory, DMA MR), key indices
 *   mroce_mw.c     memory windows: allocation, bind, invalidation
 *   mroce_cq.c     completion queues
 *   mroce_qp.c     queue pairs: creation, IBTA state machine, flush
 *   mroce_srq.c    shared receive queues
 *   mroce_ah.c     address handles
 *   mroce_restrack.c  data path state for `rdma res show qp -dd`
 */
#ifndef MROCE_VERBS_H
#define MROCE_VERBS_H

#include <linux/iosys-map.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_umem.h>
#include <uapi/rdma/metaroce-abi.h>

#include "mroce.h"
#include "mroce_param.h"

/* QPs 0 and 1 are the special QPs of IBTA 10.2.5; ordinary QPs follow. */
#define MROCE_GSI_QPN		1
#define MROCE_FIRST_QPN		16
#define MROCE_MAX_QPN		0xffffff

struct mroce_ucontext {
	struct ib_ucontext ibuc;
};

struct mroce_pd {
	struct ib_pd ibpd;
};

/* User mappings of rings; mmap_free frees the memory once unmapped. */
struct mroce_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	void *buf;
	struct mroce_dev *mdev;
};

/**
 * struct mroce_kring - the kernel's view of one shared ring
 * @hdr: start of the vmalloc_user() buffer, shared with the provider
 * @data: first entry
 * @num: entries, a power of two
 * @entry_size: bytes per entry, a power of two
 * @size: bytes of the buffer (page aligned)
 * @head: the kernel's private copy of the index it owns (producer of a CQ,
 *	consumer of the other queues); the shared copy is never read back
 * @mentry: the user mapping, or NULL for a kernel consumer's ring
 * @mdev: the device, whose res.num_ring counts the buffer
 */
struct mroce_kring {
	struct metaroce_ring *hdr;
	u8 *data;
	u32 num;
	u32 entry_size;
	size_t size;
	u32 head;
	struct mroce_mmap_entry *mentry;
	struct mroce_dev *mdev;
};

enum mroce_cq_notify {
	MROCE_CQ_NOTIFY_NONE,
	MROCE_CQ_NOTIFY_SOLICITED,
	MROCE_CQ_NOTIFY_NEXT,
};

/**
 * struct mroce_cq - completion queue
 * @lock: protects @ring and @notify (producers run in any context)
 * @ring: entries of struct metaroce_cqe
 * @notify: armed by req_notify_cq
 * @overflowed: an IB_EVENT_CQ_ERR was reported
 */
struct mroce_cq {
	struct ib_cq ibcq;
	spinlock_t lock;
	struct mroce_kring ring;
	enum mroce_cq_notify notify;
	bool overflowed;
};

struct mroce_srq {
	struct ib_srq ibsrq;
	spinlock_t lock;
	struct mroce_kring ring;
	u32 srq_num;
	u32 max_sge;
	u32 limit;
};

/* Address vector: what the requester needs to build the headers. */
struct mroce_av {
	union ib_gid dgid;
	union ib_gid sgid;
	u32 flow_label;
	u8 sgid_index;
	u8 hop_limit;
	u8 traffic_class;
	u8 sl;
	u8 dmac[ETH_ALEN];
	u8 network_type;	/* enum rdma_network_type */
	bool valid;
};

struct mroce_ah {
	struct ib_ah ibah;
	u32 ah_num;
	struct mroce_av av;
};

struct mroce_dpqp;

/**
 * struct mroce_qp - queue pair
 * @state_lock: serialises modify, query and the flushes they start
 * @sq_lock: protects @sq (kernel posts and doorbells)
 * @rq_lock: protects @rq
 * @flush_work: continues a flush that one call's budget did not finish
 * @state: current IBTA state (also read locklessly by post_* paths)
 * @attr: attributes as last set by modify_qp
 * @av: primary path
 * @dp: data path state (mroce_dp.h)
 */
struct mroce_qp {
	struct ib_qp ibqp;
	struct mutex state_lock;
	spinlock_t sq_lock;
	spinlock_t rq_lock;
	struct work_struct flush_work;
	enum ib_qp_state state;
	struct ib_qp_attr attr;
	struct mroce_av av;
	struct ib_qp_cap cap;
	enum ib_sig_type sq_sig_type;
	struct mroce_kring sq;
	struct mroce_kring rq;
	bool is_user;
	u8 mode_policy;		/* enum mroce_mode_policy, the QP's own
				 * (metaroce_dv_qp_set_mode()) */
	u8 ece_ver;		/* MetaRoCE version both ends agreed on
				 * through ECE (rdma_cm), 0 if none */
	struct mroce_dpqp *dp;
};

/**
 * struct mroce_dmabuf - the dma-buf behind a region (mroce_dmabuf.c)
 * @dbuf: the buffer, referenced
 * @attach: the device's dynamic attachment, pinned
 * @ibdev: the device, for messages
 * @map: the exporter's CPU mapping of the whole buffer (dma_buf_vmap())
 * @vaddr: byte 0 of the region in @map, read by the data path under RCU;
 *	NULL before the registration completes and once revoked
 * @revoked: the exporter sent move_notify (under the reservation lock)
 * @pinned: @attach is pinned
 * @cpu_access: between dma_buf_begin_cpu_access() and its end
 * @vmapped: @map is set
 */
struct mroce_dmabuf {
	struct dma_buf *dbuf;
	struct dma_buf_attachment *attach;
	struct ib_device *ibdev;
	struct iosys_map map;
	u8 __rcu *vaddr;
	bool revoked;
	bool pinned;
	bool cpu_access;
	bool vmapped;
};

/**
 * struct mroce_mr - memory region
 * @ibmr: lkey and rkey are the same key
 * @umem: pinned user memory, NULL for the DMA MR
 * @pages: the pinned pages of @umem in order, so that the data path finds
 *	the page of any offset in O(1) (mroce_mem.c)
 * @npages: entries of @pages
 * @index: key index in res.mr_xa
 * @access: IB_ACCESS_* rights
 * @serial: unique for the life of the device: a memory window names the
 *	region it is bound to by index and serial, so a window outlives a
 *	deregistered region without ever reaching the one that reuses its
 *	index
 * @iova: first address the data path accepts (ibmr.iova, except for a
 *	fast-registration region between two registrations)
 * @length: bytes from @iova
 * @fr_pages: fast registration (ib_alloc_mr): page addresses mapped by
 *	map_mr_sg (kernel virtual: the device has no DMA mapping), NULL for
 *	other regions
 * @fr_max: entries of @fr_pages
 * @fr_npages: entries mapped
 * @fr_shift: log2 of the page size of the mapping
 * @fr_key: fast registration: the key of the registration in force
 * @fr_valid: a fast-registration region is registered (IB_WR_REG_MR) and
 *	not invalidated; the data path reads the fields above after it
 * @dmabuf: a region of a dma-buf (ibv_reg_dmabuf_mr), NULL for others
 */
struct mroce_mr {
	struct ib_mr ibmr;
	struct ib_umem *umem;
	struct mroce_dmabuf *dmabuf;
	struct page **pages;
	size_t npages;
	u32 index;
	int access;
	u64 serial;
	u64 iova;
	u64 length;
	u64 *fr_pages;
	u32 fr_max;
	u32 fr_npages;
	u32 fr_shift;
	u32 fr_key;
	bool fr_valid;
};

/**
 * struct mroce_mw - memory window (IBTA vol 1 10.6.7)
 * @ibmw: ibmw.rkey is the window's current R_Key
 * @index: key index in res.mw_xa (MROCE_KEY_MW set)
 * @lock: the binding below changes as a whole under it (bind and
 *	invalidate in the task of the QP that binds, remote accesses in the
 *	task of the QP that receives them)
 * @bound: the window grants access; false for a type 1 window bound with
 *	length 0 and a type 2 window in the free state
 * @mr_index: the region bound to, by key index
 * @mr_serial: and by serial (struct mroce_mr)
 * @qpn: type 2: the QP that bound it, the only one that may use it
 * @va: start of the window, in the region's address space
 * @length: bytes of the window
 * @access: IB_ACCESS_REMOTE_* rights of the window
 */
struct mroce_mw {
	struct ib_mw ibmw;
	u32 index;
	spinlock_t lock;
	bool bound;
	u32 mr_index;
	u64 mr_serial;
	u32 qpn;
	u64 va;
	u64 length;
	int access;
};

static inline struct mroce_ucontext *to_muc(struct ib_ucontext *ibuc)
{
	return container_of(ibuc, struct mroce_ucontext, ibuc);
}

static inline struct mroce_cq *to_mcq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct mroce_cq, ibcq);
}

static inline struct mroce_qp *to_mqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct mroce_qp, ibqp);
}

/* RC and UC: one peer, fixed at RTR (IBTA 9.7); UD and GSI: one per send. */
static inline bool mroce_qp_connected(const struct mroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_RC || qp->ibqp.qp_type == IB_QPT_UC;
}

static inline struct mroce_srq *to_msrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct mroce_srq, ibsrq);
}

static inline struct mroce_ah *to_mah(struct ib_ah *ibah)
{
	return container_of(ibah, struct mroce_ah, ibah);
}

static inline struct mroce_mr *to_mmr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct mroce_mr, ibmr);
}

static inline struct mroce_mw *to_mmw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct mroce_mw, ibmw);
}

/* [@va, @va + @len) lies in [@start, @start + @size). */
static inline bool mroce_range_in(u64 va, u64 len, u64 start, u64 size)
{
	return va >= start && len <= size && va - start <= size - len;
}

static inline void *mroce_kring_slot(struct mroce_kring *ring, u32 idx)
{
	return ring->data + (size_t)(idx & (ring->num - 1)) * ring->entry_size;
}

/* mroce_mmap.c */
int mroce_kring_alloc(struct mroce_dev *mdev, struct mroce_kring *ring,
		      u32 num, u32 entry_size, struct ib_udata *udata,
		      struct metaroce_mmap *mi);
void mroce_kring_free(struct mroce_kring *ring);
void mroce_kring_reset(struct mroce_kring *ring);
u32 mroce_kring_pending(struct mroce_kring *ring);
int mroce_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma);
void mroce_disassociate_ucontext(struct ib_ucontext *ibuc);
void mroce_mmap_free(struct rdma_user_mmap_entry *rdma_entry);

/* mroce_pd.c */
int mroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int mroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);

/*
 * Key indices (key >> 8): the top bit tells a memory window's from a memory
 * region's, the other 23 bits are random (mroce_key_reserve()).
 */
#define MROCE_KEY_MR		0
#define MROCE_KEY_MW		BIT(23)
#define MROCE_KEY_IDX_MASK	(BIT(23) - 1)
#define MROCE_KEY_TRIES		32

static inline bool mroce_key_is_mw(u32 key)
{
	return (key >> 8) & MROCE_KEY_MW;
}

/* mroce_mr.c */
int mroce_key_reserve(struct xarray *xa, u32 kind, u32 *index);
struct ib_mr *mroce_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *mroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata);
struct ib_mr *mroce_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset,
				       u64 length, u64 iova, int fd,
				       int access, struct ib_udata *udata);
int mroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
struct mroce_dmabuf *mroce_dmabuf_get(struct ib_device *ibdev, int fd,
				      u64 offset, u64 length);
void mroce_dmabuf_put(struct mroce_dmabuf *mdb);
struct ib_mr *mroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg);
int mroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset);

/* mroce_mw.c */
int mroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int mroce_dealloc_mw(struct ib_mw *ibmw);

/* mroce_cq.c */
int mroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct ib_udata *udata);
int mroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int mroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int mroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int mroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
int mroce_cq_add(struct mroce_cq *cq, const struct metaroce_cqe *cqe,
		 bool solicited);
void mroce_cq_notify(struct mroce_cq *cq);
int mroce_cq_post(struct mroce_cq *cq, const struct metaroce_cqe *cqe,
		  bool solicited);

/* mroce_qp.c */
int mroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata);
int mroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata);
int mroce_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);
int mroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init);
int mroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int mroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr);
int mroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr);
int mroce_recv_ring_post(struct mroce_kring *ring, u32 max_sge,
			 const struct ib_recv_wr *wr,
			 const struct ib_recv_wr **bad_wr);

void mroce_qp_error(struct mroce_qp *qp);
void mroce_qp_event(struct mroce_qp *qp, enum ib_event_type type);

/* mroce_task.c: hooks into the data path */
int mroce_dp_qp_create(struct mroce_qp *qp, struct ib_qp_init_attr *init);
void mroce_dp_qp_destroy(struct mroce_qp *qp);
void mroce_dp_modify(struct mroce_qp *qp, enum ib_qp_state cur,
		     enum ib_qp_state next, int mask);
void mroce_dp_kick_sq(struct mroce_qp *qp);

/* mroce_srq.c */
int mroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata);
int mroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata);
int mroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int mroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int mroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr);

/* mroce_ah.c */
int mroce_av_from_attr(struct mroce_av *av, const struct rdma_ah_attr *attr);
void mroce_av_to_attr(const struct mroce_av *av, struct rdma_ah_attr *attr);
int mroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata);
int mroce_destroy_ah(struct ib_ah *ibah, u32 flags);
int mroce_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr);

/* mroce_nego.c */
const char *mroce_mode_policy_name(u8 policy);
int mroce_mode_policy_parse(const char *buf);

#endif /* MROCE_VERBS_H */
