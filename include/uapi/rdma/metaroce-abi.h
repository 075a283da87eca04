/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * MetaRoCE kernel <-> libmetaroce provider ABI.
 *
 * Only what crosses the uverbs boundary lives here: the udata carried by
 * the uverbs commands, and the layout of the rings the kernel shares with
 * the provider through mmap() of the uverbs command fd.  Fixed-width types,
 * explicit padding, no kernel pointers.  Any change to a layout bumps
 * METAROCE_UVERBS_ABI_VERSION (the kernel's ib_device_ops.uverbs_abi_ver,
 * matched by the provider's match_min/max_abi_version).
 *
 * Rings
 * -----
 * Every queue (SQ, RQ, SRQ, CQ) is one ring: a struct metaroce_ring header
 * followed, at METAROCE_RING_HDR_SIZE, by a power-of-two number of
 * fixed-size entries.  Entry i lives at slot (i & (num_entries - 1)).
 * producer and consumer are free-running 32-bit counters (never masked);
 * the ring holds producer - consumer entries, is empty when they are equal
 * and full when the difference equals num_entries.  Each counter sits on
 * its own 128-byte line so the two sides do not bounce one line.
 *
 *   queue      producer                consumer
 *   SQ         provider (post_send)    kernel
 *   RQ, SRQ    provider (post_recv)    kernel
 *   CQ         kernel                  provider (poll_cq)
 *
 * Ordering contract (both sides):
 *  - A producer writes the entry, then stores producer + 1 with release
 *    semantics (smp_store_release / __atomic_store_n(RELEASE)).
 *  - A consumer loads producer with acquire semantics, reads entries below
 *    it, then stores consumer + n with release semantics; only then may
 *    the producer reuse those slots.
 *  - Each side writes only its own counter.  The kernel never trusts the
 *    provider's counters: it keeps private copies of the indices it owns,
 *    copies an entry out of the ring before validating it, and treats a
 *    producer further than num_entries ahead as a broken queue.
 *  - Send doorbell: after publishing producer the provider issues a full
 *    barrier and reads flags.  If METAROCE_RING_F_KBUSY is set the kernel
 *    is consuming the queue and will see the new entries: the doorbell
 *    (a POST_SEND command with no work requests) is skipped.  Before it
 *    stops, the kernel either clears KBUSY, issues a full barrier and
 *    reads producer once more, or leaves KBUSY set because another run of
 *    the queue is already certain; an entry published concurrently is
 *    never missed.
 *  - METAROCE_RING_F_FLUSH is set by the kernel while the queue pair is in
 *    the error state: entries posted then complete with WR_FLUSH_ERR once
 *    the provider rings the doorbell (POST_SEND or POST_RECV with no work
 *    requests), which it does whenever FLUSH is set and KBUSY is not.
 *  - On a transition to RESET the kernel zeroes both counters; the
 *    provider keeps no cached copy of either.
 *  - METAROCE_RING_F_LIVE is set by the kernel while the ring belongs to
 *    a live object, and cleared when the kernel gives the ring up: the
 *    object was destroyed, or the device went away under the process
 *    (netdev or namespace deleted, module unloaded: uverbs disassociation),
 *    which keeps its mapping of a ring nobody serves.  The provider fails
 *    posts with EIO and polls with an error on a ring without LIVE.
 */
#ifndef METAROCE_ABI_H
#define METAROCE_ABI_H

#include <linux/types.h>

#define METAROCE_UVERBS_ABI_VERSION	2

/*
 * Name of the read-only sysfs attribute of every MetaRoCE ib_device
 * (/sys/class/infiniband/<ibdev>/metaroce_abi_version): the provider
 * recognises its devices by it, whatever name they were given.
 */
#define METAROCE_SYSFS_ABI_ATTR		"metaroce_abi_version"

#define METAROCE_RING_LINE		128
#define METAROCE_RING_HDR_SIZE		(3 * METAROCE_RING_LINE)

enum metaroce_ring_flags {
	METAROCE_RING_F_KBUSY = 1 << 0,
	METAROCE_RING_F_FLUSH = 1 << 1,
	METAROCE_RING_F_LIVE = 1 << 2,
};

struct metaroce_ring {
	__u32 producer;
	__u8 pad0[METAROCE_RING_LINE - 4];
	__u32 consumer;
	__u8 pad1[METAROCE_RING_LINE - 4];
	__u32 flags;		/* enum metaroce_ring_flags, kernel-written */
	__u8 pad2[METAROCE_RING_LINE - 4];
	/* entries follow at METAROCE_RING_HDR_SIZE */
};

/* Where the provider maps one ring: mmap(cmd_fd, offset, size). */
struct metaroce_mmap {
	__aligned_u64 offset;
	__u32 size;
	__u32 num_entries;	/* power of two */
	__u32 entry_size;	/* bytes, power of two */
	__u32 reserved;
};

struct metaroce_sge {
	__aligned_u64 addr;
	__u32 length;
	__u32 lkey;
};

/* Send work queue entry.  opcode is enum ib_uverbs_wr_opcode. */
struct metaroce_send_wqe {
	__aligned_u64 wr_id;
	__u32 opcode;
	__u32 send_flags;	/* IB_UVERBS send flags (IBV_SEND_*) */
	__u32 num_sge;
	__u32 ex;		/* imm_data (network order), invalidate rkey
				 * (SEND_WITH_INV, LOCAL_INV) or new rkey
				 * (BIND_MW) */
	union {
		struct {
			__aligned_u64 remote_addr;
			__u32 rkey;
			__u32 reserved;
		} rdma;
		struct {
			__aligned_u64 remote_addr;
			__aligned_u64 compare_add;
			__aligned_u64 swap;
			__u32 rkey;
			__u32 reserved;
		} atomic;
		struct {
			__u32 ah_num;
			__u32 remote_qpn;
			__u32 remote_qkey;
			__u32 reserved;
		} ud;
		/*
		 * IBV_WR_BIND_MW; ex is the window's new R_Key.  A kernel
		 * consumer's IB_WR_REG_MR uses mr_lkey and access (ex: the
		 * new key); the kernel refuses it from a user QP.
		 */
		struct {
			__aligned_u64 addr;
			__aligned_u64 length;	/* 0: unbind (type 1) */
			__u32 mr_lkey;
			__u32 mw_rkey;		/* the window's current R_Key */
			__u32 access;		/* IB_UVERBS_ACCESS_REMOTE_* */
			__u32 reserved;
		} bind;
	} wr;
	__u32 inline_len;	/* bytes of inline data when IBV_SEND_INLINE */
	__u32 reserved;
	/* then num_sge struct metaroce_sge, or inline_len bytes */
};

struct metaroce_recv_wqe {
	__aligned_u64 wr_id;
	__u32 num_sge;
	__u32 reserved;
	/* then num_sge struct metaroce_sge */
};

/* Completion queue entry; status and opcode as in struct ib_uverbs_wc. */
struct metaroce_cqe {
	__aligned_u64 wr_id;
	__u32 status;
	__u32 opcode;
	__u32 vendor_err;
	__u32 byte_len;
	__u32 ex;		/* imm_data (network order) or invalidated rkey */
	__u32 qp_num;
	__u32 src_qp;
	__u32 wc_flags;		/* IB_UVERBS WC flags (IBV_WC_*) */
	__u16 pkey_index;
	__u16 slid;
	__u8 sl;
	__u8 dlid_path_bits;
	__u8 port_num;
	__u8 network_hdr_type;	/* UD receive: 2 IPv4, 3 IPv6; 0 unset */
	__u8 reserved1[16];
};

/* udata of the uverbs commands (the core part comes first, then these). */
struct metaroce_alloc_ucontext_resp {
	__u32 abi_version;
	__u32 ring_hdr_size;
	__u32 cqe_size;
	__u32 max_inline_data;
};

struct metaroce_create_cq_resp {
	struct metaroce_mmap cq;
};

struct metaroce_resize_cq_resp {
	struct metaroce_mmap cq;
};

struct metaroce_create_qp_resp {
	struct metaroce_mmap sq;
	struct metaroce_mmap rq;	/* size 0 when an SRQ is attached */
	__u32 max_inline_data;
	__u32 reserved;
};

struct metaroce_create_srq_resp {
	struct metaroce_mmap rq;
	__u32 srq_num;
	__u32 reserved;
};

/* Follows the 4-byte ib_uverbs_create_ah_resp: 4-byte alignment only. */
struct metaroce_create_ah_resp {
	__u32 ah_num;
	__u32 reserved;
};

/*
 * Transport mode of an RC or UC QP (Documentation/wire.rst, "Transport
 * mode"): the provider's request, driver data of every modify QP command
 * (IB_USER_VERBS_EX_CMD_MODIFY_QP).  The kernel takes the last one it got
 * when the QP enters RTR; a provider that sends none leaves the device's
 * policy.  @mode is set by metaroce_dv_qp_set_mode() (the provider's
 * metaroce_dv.h), @ece_ver by ibv_set_ece() when both ends of an rdma_cm
 * connection offered MetaRoCE mode.
 */
enum metaroce_qp_mode {
	METAROCE_QP_MODE_DEVICE = 0,	/* the device's metaroce_mode_policy */
	METAROCE_QP_MODE_AUTO = 1,
	METAROCE_QP_MODE_ROCE = 2,
	METAROCE_QP_MODE_METAROCE = 3,
};

struct metaroce_modify_qp {
	__u32 mode;		/* enum metaroce_qp_mode */
	__u32 ece_ver;		/* version agreed through ECE, 0 if none */
};

/* Highest MetaRoCE extension version (wire.rst) kernel and provider speak. */
#define METAROCE_EXT_VERSION	1

/*
 * ECE (ibv_query_ece(), ibv_set_ece(); rdma_cm carries it in its REQ and
 * REP): vendor_id is the device's (ibv_query_device()), options say that
 * the QP is willing to use MetaRoCE mode, and up to which version.
 */
#define METAROCE_ECE_VENDOR_ID	0xffffff
#define METAROCE_ECE_MODE	0x10
#define METAROCE_ECE_VER_MASK	0x0f

_Static_assert(sizeof(struct metaroce_ring) == METAROCE_RING_HDR_SIZE,
	       "ring header size");
_Static_assert(__builtin_offsetof(struct metaroce_ring, consumer) ==
	       METAROCE_RING_LINE, "consumer on its own line");
_Static_assert(sizeof(struct metaroce_mmap) == 24, "metaroce_mmap size");
_Static_assert(sizeof(struct metaroce_sge) == 16, "metaroce_sge size");
_Static_assert(sizeof(struct metaroce_send_wqe) == 64, "send wqe size");
_Static_assert(sizeof(struct metaroce_recv_wqe) == 16, "recv wqe size");
_Static_assert(sizeof(struct metaroce_cqe) == 64, "cqe size");
_Static_assert(sizeof(struct metaroce_alloc_ucontext_resp) == 16,
	       "ucontext resp size");
_Static_assert(sizeof(struct metaroce_create_cq_resp) == 24, "cq resp size");
_Static_assert(sizeof(struct metaroce_resize_cq_resp) == 24,
	       "resize cq resp size");
_Static_assert(sizeof(struct metaroce_create_qp_resp) == 56, "qp resp size");
_Static_assert(sizeof(struct metaroce_create_srq_resp) == 32,
	       "srq resp size");
_Static_assert(sizeof(struct metaroce_create_ah_resp) == 8, "ah resp size");
_Static_assert(sizeof(struct metaroce_modify_qp) == 8, "modify qp cmd size");

#endif /* METAROCE_ABI_H */
