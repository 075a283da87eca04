/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The RoCEv2 data path of one queue pair: requester (mroce_req.c),
 * responder (mroce_resp.c) and completer (mroce_comp.c), driven by one
 * serialised per-QP task (mroce_task.c), over the skb helpers of
 * mroce_net.c and the memory helpers of mroce_mem.c.
 *
 * Execution model and locks:
 *  - The task (mroce_task_run()) does everything a QP does on the wire:
 *    the READ being answered, received packets, ACKs, the transport timer,
 *    the requester.  It runs under dp->run_lock, a spinlock taken with BH
 *    disabled: every field below except rxq, cpu and the atomic flags is
 *    touched only with run_lock held, and nothing in the task sleeps
 *    (transmit skbs are GFP_ATOMIC; one that cannot be had is retried by
 *    the next run, a pending ACK included).
 *  - Where it runs: in the UDP encap hook's softirq when a packet arrives
 *    and the task is idle (run to completion, as rxe's responder); in the
 *    send doorbell (the posting process, BH disabled); in the soft hrtimer
 *    (dp->timer); otherwise in a worker on the QP's CPU.  A context that
 *    finds run_lock taken leaves its packet or flag to the owner, which
 *    looks again after unlocking (mroce_task_after(), with a full barrier
 *    on both sides), so no wake-up is lost; except a user QP's doorbell,
 *    which waits for the lock while the owner leaves the requester to it
 *    (mroce_task_doorbell()).  Each run does at most
 *    MROCE_TASK_BUDGET packets of each kind, then defers to the worker.
 *  - Order: one QP's received packets are processed in the order they
 *    were queued, whatever CPU they arrive on.  A connected QP's requests
 *    and READ responses go out only from dp->cpu (a veth queues packets
 *    per CPU: two sending CPUs would reorder a QP's own packets); the
 *    doorbell moves dp->cpu to the posting CPU when nothing of the QP is
 *    in flight.  ACKs and NAKs leave from whichever CPU runs the task.
 *  - The data path never takes qp->state_lock.  A fatal error is reported
 *    by scheduling dp->err_work, which moves the QP to ERR through
 *    mroce_qp_error() (state_lock, then run_lock through the modify hook).
 *  - The MR_ACK a run sends after its receive loop is built and sent once
 *    run_lock is dropped (mroce_dp_ack_after()), under dp->ack_lock,
 *    which modify_qp takes inside run_lock to change the route.
 *  - Lock order: qp->state_lock > dp->run_lock > dp->ack_lock, and
 *    dp->run_lock > qp->sq_lock / qp->rq_lock / srq->lock > cq->lock.
 *    rcu_read_lock() protects MR and AH lookups (memory regions are freed
 *    after a grace period).
 */
#ifndef MROCE_DP_H
#define MROCE_DP_H

#include <linux/hrtimer.h>
#include <linux/skbuff.h>
#include <linux/workqueue.h>
#include <net/dst_cache.h>
#include <rdma/ib_mad.h>

#include "mroce_verbs.h"
#include "core/mroce_cc.h"
#include "core/mroce_dcqcn.h"
#include "core/mroce_ext.h"
#include "core/mroce_hdr.h"
#include "core/mroce_path.h"
#include "core/mroce_reqwin.h"
#include "core/mroce_respwin.h"

/* Packets a task handles per run before it yields the CPU. */
#define MROCE_TASK_BUDGET	64
/* PSNs a requester keeps in flight (go-back-N window; rxe uses 128 too). */
#define MROCE_REQ_WINDOW	128
/* Ask for an ACK at least this often inside long messages. */
#define MROCE_REQ_ACKREQ_EVERY	32
/* READ holes asked for with the first one (mroce_req_read_holes()) */
#define MROCE_REQ_READ_HOLES	8
/* The longest RTO before the first RTT sample (mroce_req_selective()). */
#define MROCE_REQ_INIT_RTO_MAX	(100 * MROCE_NSEC_PER_MSEC)

/* One send WQE as the kernel copied it out of the SQ ring. */
struct mroce_swqe {
	u32 first_psn;
	u32 npsn;		/* PSNs of the whole request */
	u32 length;		/* bytes of the message */
	u32 rd_done;		/* READ response packets placed */
	u32 rd_base;		/* READ: packet the last request asked from */
	bool started;		/* first_psn is assigned */
	bool rd_atomic;		/* READ or atomic: waits for response data */
	bool done;		/* response data of a READ/atomic arrived;
				 * UC: every packet was sent */
	u32 msn;		/* MetaRoCE message number (mroce_xdata.c) */
	u8 wc_opcode;
	u8 status;		/* enum ib_wc_status to report, when failed */
	struct metaroce_send_wqe wqe;	/* then SGEs or inline data */
};

/*
 * A READ the responder is answering (IBTA 9.7.4.1.4): the responses go out
 * in slices of the task's budget, from this cursor, so a long READ neither
 * holds the CPU nor blocks other QPs.
 */
struct mroce_resp_read {
	bool active;
	u32 rkey;
	u64 va;		/* of the first response */
	u32 len;	/* bytes of all the responses */
	u32 psn;	/* PSN of the first response */
	u32 msn;
	u32 next;	/* next response packet to send */
	u32 npkt;	/* response packets */
	bool again;	/* the READ was asked again (a duplicate) */
};

/* Where a multi-packet message stands at the responder. */
struct mroce_resp_msg {
	bool have_rwqe;		/* rwqe holds a consumed receive WQE */
	u32 rcv_off;		/* bytes placed in the receive buffers */
	u64 wr_va;		/* RDMA WRITE: next address */
	u32 wr_rkey;
	u32 wr_left;		/* RDMA WRITE: bytes still announced */
	u32 wr_len;		/* RDMA WRITE: the whole length (RETH) */
	u32 uc_op;		/* UC: MROCE_OPF_SEND or _WRITE of the message
				 * in progress, 0 between messages */
	bool uc_drop;		/* UC: drop until the next FIRST or ONLY */
	u32 rq_msn;		/* receive WQEs taken since RTR */
	bool rq_sync;		/* the peer's MSGH message numbers agree
				 * with rq_msn (mroce_rqahead.c) */
};

/*
 * READ responses of a selective window that came past a hole, placed
 * (mroce_comp.c), of whatever READ: bit i is response PSN @base + i; @n
 * bits are set.  @base is the PSN the oldest unfinished READ waits for, or
 * a PSN before it; the selective window (MROCE_SR_WINDOW) never reaches
 * past the map.
 */
#define MROCE_RD_MAP_BITS	1024

struct mroce_rd_map {
	u32 base;
	u32 n;
	DECLARE_BITMAP(map, MROCE_RD_MAP_BITS);
};

/* Slots of the responder's ring of requests held ahead of their turn. */
#define MROCE_HOLD_SLOTS	MROCE_SACK_BITS
/* Held requests one mroce_hold_drain() runs, at most. */
#define MROCE_HOLD_DRAIN	256

struct mroce_rxpkt;

/*
 * Requests of a MetaRoCE-mode RC connection that arrived ahead of the
 * expected PSN (mroce_hold.c)
 * @pkt: MROCE_HOLD_SLOTS slots, by PSN modulo their number (RC QPs only)
 * @n: requests held
 * @dup: a duplicate arrived since the last ACK
 * @ts_echo: MXH timestamp the next MR_ACK echoes: the duplicate's, else
 *	that of the newest MetaRoCE request (0: none, nothing to echo), but
 *	a CE-marked request's is not overwritten by an unmarked one's
 * @path_echo: ... and the path id of the same request
 * @ce_echo: ... which arrived marked CE (the MR_ACK's E flag)
 * @unacked: requests held since the last ACK and not acknowledged yet
 * @ack_due: when an ACK for them is due at the latest (task clock, ns;
 *	0: none due)
 */
struct mroce_hold {
	struct mroce_rxpkt **pkt;
	u32 n;
	bool dup;
	u32 ts_echo;
	u16 path_echo;
	bool ce_echo;
	u32 unacked;
	u64 ack_due;
	struct metaroce_recv_wqe *ahead;
	u32 ahead_pos;
	bool ahead_ok;
};

/* Receive WQEs a QP on an SRQ reserves for later messages, at most. */
#define MROCE_SRQ_AHEAD		16

/*
 * Receive WQEs an RC QP on an SRQ took for the messages after the one in
 * progress, in their order (mroce_rqahead.c): a ring of MROCE_SRQ_AHEAD
 * copies of dp->rwqe_size bytes.
 * @buf: the copies (NULL: the QP has no SRQ)
 * @head: ring index of the next message's WQE
 * @n: WQEs reserved
 */
struct mroce_srq_ahead {
	u8 *buf;
	u32 head;
	u32 n;
};

/* What the peer of a connection showed (mroce_nego.c). */
enum mroce_nego_peer {
	MROCE_PEER_UNKNOWN,	/* nothing received yet */
	MROCE_PEER_ROCE,	/* its first packet carried no mark */
	MROCE_PEER_MARKED,	/* its first packet carried the mark */
	MROCE_PEER_ECE,		/* agreed out of band (rdma_cm's ECE) */
	MROCE_NUM_PEERS
};

/**
 * struct mroce_nego - transport mode of a connected QP (wire.rst,
 *	"Negotiation"), under run_lock; set up at RTR by mroce_nego_start()
 * @policy: enum mroce_mode_policy of this connection (never DEVICE)
 * @peer: enum mroce_nego_peer, decided by the first valid packet received
 * @peer_ver: highest extension version the peer announced, 0 if none
 * @ver: version in use: min(ours, peer's) in MetaRoCE mode, else 0
 * @tx_on: the requester's switch PSN is fixed (@tx_psn)
 * @tx_settled: every PSN before @tx_psn is acknowledged: all requests
 *	carry the switch bit, whatever the PSN distance (24-bit wrap)
 * @tx_hi_set: @tx_hi holds a PSN
 * @tx_hi: first request PSN never sent (resends are below it)
 * @tx_psn: first PSN of the requester's MetaRoCE span
 * @rx_on: the peer's switch PSN was seen (@rx_psn)
 * @csum: this QP offers the UDP checksum option (wire.rst, "Integrity"):
 *	it marks and its device allows it; fixed at RTR
 * @csum_peer: a packet from the peer offered it
 * @rx_psn: first PSN of the peer requester's MetaRoCE span
 */
struct mroce_nego {
	u8 policy;
	u8 peer;
	u8 peer_ver;
	u8 ver;
	bool tx_on;
	bool tx_settled;
	bool tx_hi_set;
	bool rx_on;
	bool csum;
	bool csum_peer;
	u32 tx_hi;
	u32 tx_psn;
	u32 rx_psn;
};

enum mroce_task_flags {
	MROCE_TASK_TIMER,	/* the hrtimer fired */
	MROCE_TASK_KICK,	/* a doorbell found the task busy */
	MROCE_TASK_DEAD,	/* destroy_qp started: queue nothing more */
	MROCE_TASK_SQD_ARMED,	/* in SQD, IB_EVENT_SQ_DRAINED still due */
	MROCE_TASK_SQD_EVENT,	/* drained: report once run_lock is dropped */
	MROCE_TASK_ACK_AGAIN,	/* an ACK sent after a run found no memory */
};

/**
 * struct mroce_dpqp - data path state of one QP (see the header comment)
 * @qp: the QP
 * @mdev: its device
 * @run_lock: serialises the task (in any context) with modify_qp
 * @work: the task, in a worker; two items, see mroce_task_work()
 * @err_work: moves the QP to ERR after a fatal error
 * @timer: transport / RNR timer
 * @timer_at: when @timer expires, while it is queued
 * @now: the clock (ns), read once per phase of a run rather than per
 *	packet (a clocksource read is costly under emulation, e.g. the HPET);
 *	it lags by at most one run's budget of packets
 * @rxq: received packets for this QP
 * @ack_lock: held while an ACK built from @ack_x is sent after the run
 *	dropped run_lock (mroce_dp_ack_after()), so that modify_qp (which
 *	takes it inside run_lock) does not change the route under it
 * @ack_later: the MR_ACK this run sends is only recorded in @ack_x
 * @ack_x_set: @ack_x holds one, to be sent once run_lock is dropped
 * @ack_x_csum: its protection (mroce_nego_tx_csum() when recorded)
 * @ack_x: its headers
 * @flags: enum mroce_task_flags
 * @db_waiters: user doorbells waiting for run_lock (mroce_task_doorbell())
 * @dst: cached route of the primary path (RC)
 * @error: a fatal error was found; the task stops until RESET
 * @rd_gap: READ responses were lost and the READ was resent: the later
 *	responses still on the way are ignored until the awaited one arrives
 * @rd_probe_psn: the last READ asked again was asked from this PSN, in the
 *	run whose clock reading is @rd_probe_now (mroce_req_read_probe())
 * @rd_probe_now: see @rd_probe_psn
 * @cpu: where the requester sends from, so one QP's packets leave in
 *	order (READ_ONCE outside run_lock)
 * @pmtu: path MTU in bytes
 * @av: primary path (RC), copied at RTR
 * @sport: UDP source port of the connection (RC)
 * @dqpn: destination QP (RC)
 * @sq_stride: bytes per element of @swqe
 * @swqe: shadow copies of the send WQEs the requester has taken
 * @req_idx: SQ index of the WQE being sent for the first time
 * @req_off: bytes of it already sent
 * @req_max: SQ index one past every WQE ever started
 * @comp_idx: SQ index of the oldest uncompleted WQE (the ring's consumer)
 * @rd_atomic: READ / atomic WQEs started and not completed
 * @win: requester PSN window
 * @pkts_noack: request packets sent since the last AckReq
 * @req_msn: receive-consuming messages started (MSGH message numbers)
 * @peer_ts: newest MXH timestamp received from the peer, which the
 *	requests echo (0: none)
 * @rd_map: READ responses placed past a hole (selective windows)
 * @rwin: responder PSN window
 * @res: responder resources (max_dest_rd_atomic of them)
 * @msg: responder message in progress
 * @rd: READ being answered
 * @rwqe: the receive WQE it fills
 * @rwqe_size: bytes of @rwqe
 * @ack_pending: an ACK must be sent at the end of this run
 * @next_psn_ud: next PSN of a UD or UC QP (no window: nothing is resent)
 * @nego: transport mode negotiation (RC and UC)
 * @np_cnp_at: when the QP last sent a CNP, 0 before the first (mroce_ecn.c)
 * @dcqcn: DCQCN reaction point of the requester (mroce_rp.c)
 * @pace_next: while throttled, when the next request packet is due
 * @pace_wait: the requester stopped for it; the task's timer is armed
 * @cc_on: a lossy fabric's delay-based window runs (mroce_wcc.c)
 * @cc: ... its controller
 * @ps: the paths of the requester's MetaRoCE span (mroce_spray.c); off
 *	(ps.n 0) in flow mode and outside the span
 * @paths: ... their state (MROCE_PATHS_MAX of them)
 * @psn_path: ... the path each PSN last left on
 * @path_dst: route caches of the paths, @npath_dst of them (RC only)
 * @path_dst_gen: the entropy generation each route cache was filled for
 * @req_failed: a WQE failed locally; no WQE after it starts (IBTA 10.8.3.3:
 *	the QP goes to ERR once it is the oldest, which flushes the rest)
 */
struct mroce_dpqp {
	struct mroce_qp *qp;
	struct mroce_dev *mdev;
	spinlock_t run_lock;
	struct work_struct work[2];
	struct work_struct err_work;
	struct hrtimer timer;
	u64 timer_at;
	u64 now;
	struct sk_buff_head rxq;
	spinlock_t ack_lock;	/* the route, for an ACK sent after a run */
	bool ack_later;
	bool ack_x_set;
	bool ack_x_csum;
	struct mroce_xhdr ack_x;
	unsigned long flags;
	atomic_t db_waiters;
	struct dst_cache dst;

	bool error;
	bool rd_gap;
	u32 rd_probe_psn;
	u64 rd_probe_now;
	int cpu;
	u32 pmtu;
	struct mroce_av av;
	u16 sport;
	u32 dqpn;

	/* requester and completer */
	u32 sq_stride;
	u8 *swqe;
	u32 req_idx;
	u32 req_off;
	u32 req_max;
	u32 comp_idx;
	u32 rd_atomic;
	struct mroce_reqwin win;
	u32 pkts_noack;
	u32 req_msn;
	u32 peer_ts;
	struct mroce_rd_map rd_map;
	u32 next_psn_ud;
	bool req_failed;

	/* responder */
	struct mroce_respwin rwin;
	struct mroce_respwin_res *res;
	u32 nres;
	struct mroce_resp_msg msg;
	struct mroce_resp_read rd;
	struct metaroce_recv_wqe *rwqe;
	u32 rwqe_size;
	bool ack_pending;
	struct mroce_hold hold;
	struct mroce_srq_ahead srq_ahead;

	struct mroce_nego nego;
	u64 np_cnp_at;
	struct mroce_dcqcn dcqcn;
	u64 pace_next;
	bool pace_wait;
	bool cc_on;
	struct mroce_cc cc;

	struct mroce_pathset ps;
	struct mroce_path paths[MROCE_PATHS_MAX];
	u16 psn_path[MROCE_PATH_PSNS];
	struct dst_cache *path_dst;
	u8 npath_dst;
	u16 path_dst_gen[MROCE_PATHS_MAX];
};

/*
 * A received packet, decoded by the task.  The headers are in the skb's
 * linear part; the payload (at @pay_off from skb->data, lo.pay_len bytes)
 * may lie in page fragments, as a sender that transmits by reference
 * leaves it: @payload points at it only when it is linear.
 */
struct mroce_rxpkt {
	struct sk_buff *skb;
	struct mroce_hdr hdr;
	struct mroce_hdr_layout lo;
	u8 *payload;
	u32 pay_off;
	bool ipv6;
	bool x;			/* a MetaRoCE packet: hdr is its RoCEv2
				 * view (an MR_ACK's BTH and AETH, a
				 * request's opcode from kind and flags), */
	u8 xflags;		/* its MXH flags (MROCE_MXH_F_*), */
	u32 ts;			/* its MXH timestamp and echo, */
	u32 tse;
	u16 path;		/* its MXH path id, */
	bool ce;		/* the IP header says CE (any packet), */
	u32 mmsn;		/* a SEND or WRITE kind's MSGH message number, */
	u32 moff;		/* offset */
	u32 mlen;		/* and message length */
	bool placed;		/* held, its payload placed on arrival */
	struct mroce_sackh sack;	/* an MR_ACK's SACK header */
};

/*
 * The other side of a copy to or from memory (mroce_mem.c): a linear
 * buffer @p, or, when @skb is set, the bytes of a received skb from @off.
 */
struct mroce_cur {
	u8 *p;
	const struct sk_buff *skb;
	u32 off;
};

static inline struct mroce_cur mroce_pkt_cur(const struct mroce_rxpkt *pkt)
{
	struct mroce_cur c = { .p = pkt->payload };

	if (!pkt->payload) {
		c.skb = pkt->skb;
		c.off = pkt->pay_off;
	}
	return c;
}

static inline struct mroce_swqe *mroce_swqe(struct mroce_dpqp *dp, u32 idx)
{
	return (struct mroce_swqe *)(dp->swqe +
		(size_t)(idx & (dp->qp->sq.num - 1)) * dp->sq_stride);
}

/* The copy of the ring entry: WQE header, then SGEs or inline data. */
static inline void *mroce_swqe_entry(struct mroce_swqe *s)
{
	return (u8 *)s + offsetof(struct mroce_swqe, wqe);
}

static inline struct metaroce_sge *mroce_swqe_sges(struct mroce_swqe *s)
{
	return mroce_swqe_entry(s) + sizeof(struct metaroce_send_wqe);
}

static inline u8 *mroce_swqe_inline(struct mroce_swqe *s)
{
	return mroce_swqe_entry(s) + sizeof(struct metaroce_send_wqe);
}

/*
 * A receive WQE with more SGEs than its queue allows, or than its ring
 * entry holds, holds no buffer at all.
 */
static inline void mroce_rwqe_check_sges(struct metaroce_recv_wqe *w,
					 u32 max_sge, u32 entry_size)
{
	if (w->num_sge > max_sge ||
	    w->num_sge > (entry_size - sizeof(*w)) / sizeof(struct metaroce_sge))
		w->num_sge = 0;
}

static inline bool mroce_qp_is_rc(const struct mroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_RC;
}

/* mroce_recv.c */
void mroce_recv_one(struct mroce_dpqp *dp, struct sk_buff *skb,
		    enum ib_qp_state state);

/* mroce_task.c */
void mroce_task_init(struct mroce_dpqp *dp);
void mroce_task_stop(struct mroce_dpqp *dp);
void mroce_task_schedule(struct mroce_dpqp *dp);
void mroce_task_fatal(struct mroce_dpqp *dp);
u64 mroce_task_now(void);
void mroce_task_release(struct mroce_dpqp *dp);

/*
 * The clock for one phase of a task run (receive, then send), read at
 * most once and only if the phase needs it: a clock read is not free (an
 * HPET read costs microseconds in a VM) and a run that only answers a
 * request needs none.  mroce_task_run() zeroes dp->now between phases.
 */
static inline u64 mroce_dp_now(struct mroce_dpqp *dp)
{
	if (!dp->now)
		dp->now = mroce_task_now();
	return dp->now;
}
void mroce_task_rx(struct mroce_dev *mdev, struct sk_buff *skb);

/* IBTA 9.2: payload is padded to a multiple of four bytes. */
static inline u8 mroce_padcnt(u32 len)
{
	return -len & 3;
}

/* mroce_net.c: transmit */
struct sk_buff *mroce_tx_alloc(struct mroce_dev *mdev, const struct mroce_av *av,
			       u8 opcode, u32 plen, u8 **payload, gfp_t gfp);
bool mroce_tx_zcopy_ok(struct mroce_dev *mdev, u32 plen);
struct sk_buff *mroce_tx_zcopy_done(struct mroce_dev *mdev,
				    struct sk_buff *skb, u32 plen, int *err);
int mroce_tx_send(struct mroce_dev *mdev, const struct mroce_av *av,
		  struct dst_cache *dst, u16 sport, struct mroce_hdr *h,
		  struct sk_buff *skb);
int mroce_dp_xmit(struct mroce_dpqp *dp, struct mroce_hdr *h,
		  struct sk_buff *skb);
int mroce_dp_send(struct mroce_dpqp *dp, struct mroce_hdr *h,
		  struct sk_buff *skb);
int mroce_dp_xmit_x(struct mroce_dpqp *dp, struct mroce_xhdr *x);
void mroce_dp_ack_after(struct mroce_dpqp *dp, const struct mroce_xhdr *x,
			bool csum);
int mroce_dp_xmit_xskb(struct mroce_dpqp *dp, const struct mroce_xhdr *x,
		       struct sk_buff *skb, u32 roce_hlen, int path);

/* mroce_xdata.c */
u8 mroce_xdata_kind(const struct mroce_dpqp *dp, const struct mroce_hdr *h,
		    u8 *pos);
int mroce_xdata_xmit(struct mroce_dpqp *dp, const struct mroce_swqe *s,
		     const struct mroce_hdr *h, u8 kind, u8 pos, u32 off,
		     struct sk_buff *skb, int path);
int mroce_xdata_view(struct mroce_rxpkt *pkt, const struct mroce_xhdr *x,
		     const struct mroce_xlayout *xlo);
void mroce_xdata_rx_ts(struct mroce_dpqp *dp, const struct mroce_rxpkt *pkt);
u64 mroce_xdata_rtt(struct mroce_dpqp *dp, const struct mroce_rxpkt *pkt);

/* mroce_crc.c */
u32 mroce_skb_icrc(const struct sk_buff *skb, u32 off, u32 len, u32 crc);

/* mroce_mem.c */
int mroce_sge_copy(struct mroce_dpqp *dp, const struct metaroce_sge *sge,
		   u32 nsge, u32 off, void *buf, u32 len, bool to_mem);
int mroce_sge_place(struct mroce_dpqp *dp, const struct metaroce_sge *sge,
		    u32 nsge, u32 off, const struct mroce_rxpkt *pkt, u32 len);
int mroce_sge_frags(struct mroce_dpqp *dp, const struct metaroce_sge *sge,
		    u32 nsge, u32 off, struct sk_buff *skb, u32 len);
u32 mroce_sge_total(const struct metaroce_sge *sge, u32 nsge);
int mroce_rkey_copy(struct mroce_dpqp *dp, u32 rkey, u64 va, void *buf,
		    u32 len, int access, bool to_mem);
int mroce_rkey_place(struct mroce_dpqp *dp, u32 rkey, u64 va,
		     const struct mroce_rxpkt *pkt, u32 len, int access);
int mroce_rkey_frags(struct mroce_dpqp *dp, u32 rkey, u64 va,
		     struct sk_buff *skb, u32 len, int access);
int mroce_rkey_check(struct mroce_dpqp *dp, u32 rkey, u64 va, u32 len,
		     int access);
int mroce_rkey_atomic(struct mroce_dpqp *dp, u32 rkey, u64 va, bool cmp_swap,
		      u64 compare_add, u64 swap, u64 *orig);

/* mroce_mw.c */
u8 mroce_mw_bind(struct mroce_dpqp *dp, const struct metaroce_send_wqe *w);
int mroce_mw_invalidate(struct mroce_dpqp *dp, u32 rkey, bool remote);
int mroce_key_invalidate(struct mroce_dpqp *dp, u32 key, bool remote);
u8 mroce_mr_fast_reg(struct mroce_dpqp *dp, const struct metaroce_send_wqe *w);
struct mroce_mr *mroce_mw_lookup(struct mroce_dpqp *dp, u32 rkey, int access,
				 u64 va, u64 len);

/* mroce_req.c */
void mroce_req_run(struct mroce_dpqp *dp, int *budget);
bool mroce_req_pending(struct mroce_dpqp *dp);
void mroce_req_stop(struct mroce_dpqp *dp);
bool mroce_req_idle(struct mroce_dpqp *dp);
bool mroce_req_doorbell_due(struct mroce_dpqp *dp);
void mroce_req_lost(struct mroce_dpqp *dp, u32 psn);
void mroce_req_selective(struct mroce_dpqp *dp);
void mroce_req_reset(struct mroce_dpqp *dp);
void mroce_req_start(struct mroce_dpqp *dp);
int mroce_req_init(struct mroce_dpqp *dp);
void mroce_req_fini(struct mroce_dpqp *dp);

/* mroce_resp.c */
void mroce_resp_rx(struct mroce_dpqp *dp, struct mroce_rxpkt *pkt);
bool mroce_resp_flush_acks(struct mroce_dpqp *dp);
void mroce_resp_read_continue(struct mroce_dpqp *dp, int *budget);
void mroce_resp_reset(struct mroce_dpqp *dp);
void mroce_resp_flush(struct mroce_dpqp *dp);
int mroce_resp_init(struct mroce_dpqp *dp, struct ib_qp_init_attr *init);
void mroce_resp_fini(struct mroce_dpqp *dp);
void mroce_resp_start(struct mroce_dpqp *dp);
void mroce_resp_refuse(struct mroce_dpqp *dp, u32 psn);

void mroce_resp_execute(struct mroce_dpqp *dp, struct mroce_rxpkt *pkt);
int mroce_resp_take_wqe(struct mroce_dpqp *dp, struct metaroce_recv_wqe *w);
bool mroce_resp_place_ahead(struct mroce_dpqp *dp, struct mroce_rxpkt *pkt,
			    u32 d);

/* mroce_hold.c */
int mroce_hold_init(struct mroce_dpqp *dp);
void mroce_hold_fini(struct mroce_dpqp *dp);
void mroce_hold_reset(struct mroce_dpqp *dp);
bool mroce_hold_rx(struct mroce_dpqp *dp, struct mroce_rxpkt *pkt);
void mroce_hold_drain(struct mroce_dpqp *dp);
bool mroce_hold_ready(const struct mroce_dpqp *dp);

/* mroce_rqahead.c */
int mroce_rqahead_init(struct mroce_dpqp *dp, bool srq);
void mroce_rqahead_fini(struct mroce_dpqp *dp);
void mroce_rqahead_reset(struct mroce_dpqp *dp);
bool mroce_rqahead_pop(struct mroce_dpqp *dp);
void mroce_rqahead_sync(struct mroce_dpqp *dp, const struct mroce_rxpkt *pkt);
bool mroce_rqahead_place(struct mroce_dpqp *dp, const struct mroce_rxpkt *pkt);
void mroce_hold_dup(struct mroce_dpqp *dp, const struct mroce_rxpkt *pkt);
void mroce_hold_ack_check(struct mroce_dpqp *dp);
int mroce_hold_ack(struct mroce_dpqp *dp);

/* mroce_ecn.c */
bool mroce_ecn_rx(struct mroce_dpqp *dp, struct mroce_rxpkt *pkt);

/* mroce_rp.c */
void mroce_rp_reset(struct mroce_dpqp *dp);
bool mroce_rp_cnp(struct mroce_dpqp *dp);
bool mroce_rp_wait(struct mroce_dpqp *dp, u64 now);
void mroce_rp_sent(struct mroce_dpqp *dp, u32 bytes, u64 now);

/* mroce_wcc.c */
void mroce_wcc_reset(struct mroce_dpqp *dp);
void mroce_wcc_start(struct mroce_dpqp *dp);
void mroce_wcc_ack(struct mroce_dpqp *dp, u32 unreported, u64 rtt,
		   bool loss, u64 now);
void mroce_wcc_rto(struct mroce_dpqp *dp, u64 now);
bool mroce_wcc_cnp(struct mroce_dpqp *dp, u64 now);
bool mroce_wcc_paced(const struct mroce_dpqp *dp);
u64 mroce_wcc_gap_ns(const struct mroce_dpqp *dp, u32 bytes);

/* mroce_spray.c */
int mroce_spray_init(struct mroce_dpqp *dp);
void mroce_spray_fini(struct mroce_dpqp *dp);
void mroce_spray_reset(struct mroce_dpqp *dp);
void mroce_spray_start(struct mroce_dpqp *dp);
void mroce_spray_reroute(struct mroce_dpqp *dp);
int mroce_spray_pick(struct mroce_dpqp *dp, u32 psn, u32 bytes, bool resend,
		     bool probe);
void mroce_spray_route(struct mroce_dpqp *dp, int path,
		       struct dst_cache **dst, u16 *sport);
void mroce_spray_ack(struct mroce_dpqp *dp, const struct mroce_rxpkt *pkt,
		     u64 rtt, const struct mroce_reqwin_res *res);

/* mroce_nego.c */
void mroce_nego_start(struct mroce_dpqp *dp);
void mroce_nego_mark(struct mroce_dpqp *dp, struct mroce_hdr *h);
int mroce_nego_rx(struct mroce_dpqp *dp, const struct mroce_rxpkt *pkt);
void mroce_nego_rx_switch(struct mroce_nego *n, u32 psn);
bool mroce_nego_metaroce(const struct mroce_nego *n);
bool mroce_nego_tx_csum(const struct mroce_nego *n);
bool mroce_nego_rx_csum(const struct mroce_nego *n,
			const struct mroce_bth *bth);
u8 mroce_nego_resp_mark(const struct mroce_nego *n);
int mroce_nego_res_put(struct sk_buff *msg, const struct mroce_nego *n);

/* mroce_comp.c */
void mroce_comp_rx(struct mroce_dpqp *dp, struct mroce_rxpkt *pkt);
void mroce_comp_timer(struct mroce_dpqp *dp);
void mroce_comp_complete(struct mroce_dpqp *dp);
void mroce_comp_fail(struct mroce_dpqp *dp, enum ib_wc_status status);
u32 mroce_comp_read_span(struct mroce_dpqp *dp, const struct mroce_swqe *s,
			 u32 k, u32 *n, bool *kept);
struct mroce_swqe *mroce_comp_read_hole(struct mroce_dpqp *dp, u32 *psn);

#endif /* MROCE_DP_H */
