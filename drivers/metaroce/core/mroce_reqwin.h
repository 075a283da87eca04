/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Requester send window of an RC QP: PSN allocation, ACK and NAK
 * processing, retransmission, the Local ACK Timeout and the RNR wait (IBTA
 * 9.7.4.1, 9.7.5.2, 9.7.6), over the sender scoreboard (mroce_sb.h), which
 * records for every PSN in flight the caller's WQE index and the state of
 * the request packet that carries it:
 *
 *	una .................................. max
 *	oldest unacknowledged PSN               next PSN never sent
 *
 * The caller builds packets from WQEs; the window tells it which PSN to
 * send: a lost one first (mroce_reqwin_resend()), else a new one
 * (mroce_reqwin_sent()).  RoCEv2's loss policy is go-back-N (IBTA
 * 9.7.5.2.1): a NAK sequence error, a READ response past a gap or a timeout
 * loses every packet from one PSN on, and they go out again in PSN order
 * with the PSNs they had.  A window configured as selective (MetaRoCE
 * mode) resends only what its receiver's SACKs and its timers declare lost
 * instead (mroce_sr.c, mroce_reqwin_on_sack()).  Time is a u64 in ns,
 * passed in.  Caller serialises all calls for one QP.
 */
#ifndef MROCE_REQWIN_H
#define MROCE_REQWIN_H

#include "mroce_core.h"
#include "mroce_rack.h"
#include "mroce_rtt.h"
#include "mroce_sb.h"

/* IBTA 9.7.5.2.8: an RNR retry count of 7 means retry forever. */
#define MROCE_RNR_RETRY_INFINITE	7
#define MROCE_RETRY_CNT_MAX		7

struct mroce_reqwin_cfg {
	u32 psn;	/* initial send PSN (sq_psn); to mroce_sr_init(),
			 * the first PSN sent selectively */
	u32 wnd;	/* PSNs allowed in flight; 0 or more than
			 * MROCE_SB_SLOTS means MROCE_SB_SLOTS */
	u32 pipe;	/* selective: of them, PSNs not SACKED; 0: all */
	u8 retry_cnt;	/* IBTA 9.7.6.1.3, 0..7 */
	u8 rnr_retry;	/* IBTA 9.7.5.2.8, 0..7 */
	u8 timeout;	/* Local ACK Timeout exponent, 0 = none */
	bool selective;	/* selective repeat (MetaRoCE mode, mroce_sr.c) */
	u64 ack_delay;	/* selective: the receiver's ACK coalescing bound */
	struct mroce_rtt_cfg rtt;	/* selective: RTO limits */
};

/* Resend times a selective window remembers (spurious resend check). */
#define MROCE_SR_HIST		256

/* What selective repeat did, for the device's counters. */
struct mroce_sr_stats {
	u64 sack_retransmits;	/* units resent */
	u64 rack_losses;	/* units RACK declared lost */
	u64 tlp_probes;		/* tail-loss probes */
	u64 rto_fires;		/* RTT-based timeouts */
	u64 spurious;		/* resends the receiver already had */
	u64 read_holes;		/* READ re-asked after a hole's window */
	u64 sacked;		/* units selectively acknowledged */
};

struct mroce_reqwin {
	u32 una;
	u32 max;
	u32 wnd;
	u32 pipe;
	u32 cwnd;		/* congestion window (unreported PSNs), 0: none */
	u8 retry_cnt;
	u8 retry_left;
	u8 rnr_retry;
	u8 rnr_left;
	bool timer_armed;
	bool rnr_wait;
	u64 rto;
	u64 timer_at;
	u64 rnr_until;
	struct mroce_sb sb;
	/* selective repeat only (see mroce_sr.c) */
	bool selective;
	u32 sr_psn;		/* the first PSN sent selectively: the
				 * receiver goes back N before it */
	bool rec_armed;		/* the TLP/RTO timer runs */
	bool tlp_out;		/* a probe is out, the RTO comes next */
	bool in_rec;		/* recovering losses up to @recover */
	u32 recover;
	u64 rec_at;
	u64 reo_at;		/* RACK's reorder deadline, 0 if none */
	bool rd_hole;		/* READ responses came past rd_hole_psn */
	u32 rd_hole_psn;
	u64 rd_hole_since;	/* when the first of them came */
	u64 rd_hole_at;		/* when the hole counts as lost */
	u64 rd_hole_min;	/* not before this (a READ asked again) */
	u32 rd_hole_past;	/* responses that came past it, up to
				 * MROCE_RACK_DUPTHRESH */
	u64 ack_delay;
	struct mroce_rtt rtt;
	struct mroce_rack rack;
	struct mroce_sr_stats st;
	u32 rtx_hist_i;
	u64 rtx_hist[MROCE_SR_HIST];	/* when the last resends went out */
	u64 rtx_prev[MROCE_SR_HIST];	/* and when their units went before */
	bool rtx_probe[MROCE_SR_HIST];	/* and whether each was a probe */
	u32 rtx_psn[MROCE_SR_HIST];	/* and the PSN of each */
	bool probe_due;			/* the next resend of probe_psn is */
	u32 probe_psn;			/* the tail-loss probe */
};

/* An ACK of a selective-repeat QP: cumulative point plus SACK bitmap. */
struct mroce_sr_ack {
	u32 psn;		/* BTH PSN: the last PSN received in order */
	u8 syndrome;		/* AETH syndrome */
	u8 words;		/* bitmap words, at most MROCE_SR_ACK_WORDS */
	bool dup;		/* the triggering packet was a duplicate */
	u64 rtt;		/* RTT sample from the timestamp echo, 0 if none:
				 * now - rtt is when that packet was sent */
	const u64 *map;		/* bit i (word i / 64): PSN psn + 1 + i */
};

#define MROCE_SR_ACK_WORDS	(MROCE_SB_SLOTS / 64)

enum mroce_reqwin_verdict {
	MROCE_REQWIN_NONE,		/* nothing to do */
	MROCE_REQWIN_NOT_DUE,		/* timer not expired: wait for .at */
	MROCE_REQWIN_STALE,		/* duplicate or ghost response: drop */
	MROCE_REQWIN_ACKED,		/* .acked PSNs completed */
	MROCE_REQWIN_RETRY,		/* every PSN from .psn is lost */
	MROCE_REQWIN_RNR_WAIT,		/* the same, resent from .at on */
	MROCE_REQWIN_NAK_FATAL,		/* WQE at .psn failed with .nak */
	MROCE_REQWIN_RETRY_EXCEEDED,	/* retry count spent: QP to error */
	MROCE_REQWIN_RNR_EXCEEDED,	/* RNR retry count spent */
	MROCE_REQWIN_LOSS,		/* selective: units lost, first .psn */
	MROCE_REQWIN_READ_AHEAD,	/* selective: a READ response past a
					 * hole: keep it; the hole is lost
					 * at .at unless filled */
	MROCE_NUM_REQWIN_VERDICTS,
};

struct mroce_reqwin_res {
	enum mroce_reqwin_verdict verdict;
	u32 psn;
	u32 acked;	/* PSNs newly acknowledged, also for NAKs */
	u8 nak;		/* enum mroce_nak_code for MROCE_REQWIN_NAK_FATAL */
	u64 at;		/* deadline for NOT_DUE and RNR_WAIT */
	/* a resend the receiver reports it had already, at spurious_psn */
	bool spurious;
	u32 spurious_psn;
};

void mroce_reqwin_init(struct mroce_reqwin *w,
		       const struct mroce_reqwin_cfg *cfg);
u32 mroce_reqwin_inflight(const struct mroce_reqwin *w);
u32 mroce_reqwin_unreported(const struct mroce_reqwin *w);
bool mroce_reqwin_can_send(const struct mroce_reqwin *w, u32 npsn, u64 now);
int mroce_reqwin_sent(struct mroce_reqwin *w, u32 npsn, u64 now, u32 wqe,
		      u32 *psn);
bool mroce_reqwin_resend(struct mroce_reqwin *w, u64 now, u32 *psn, u32 *wqe);
int mroce_reqwin_resent(struct mroce_reqwin *w, u32 psn, u32 npsn, u64 now);
bool mroce_reqwin_find(const struct mroce_reqwin *w, u32 psn, u32 *wqe);
int mroce_reqwin_reopen(struct mroce_reqwin *w, u32 psn, bool keep, u64 now);
u32 mroce_reqwin_lost(const struct mroce_reqwin *w);
bool mroce_reqwin_is_lost(const struct mroce_reqwin *w, u32 psn);
bool mroce_reqwin_is_probe(const struct mroce_reqwin *w, u32 psn);
bool mroce_reqwin_lost_in_bulk(const struct mroce_reqwin *w, u32 psn);
u32 mroce_reqwin_next_psn(const struct mroce_reqwin *w);
int mroce_reqwin_on_aeth(struct mroce_reqwin *w, u32 psn, u8 syndrome,
			 u64 now, struct mroce_reqwin_res *res);
void mroce_reqwin_on_read_resp(struct mroce_reqwin *w, u32 psn, u32 expect,
			       u64 now, struct mroce_reqwin_res *res);
void mroce_reqwin_on_read_behind(struct mroce_reqwin *w, u32 psn,
				 u32 expect, u64 now,
				 struct mroce_reqwin_res *res);
void mroce_reqwin_read_placed(struct mroce_reqwin *w, u32 psn, u64 now);
void mroce_reqwin_on_read_reasked(struct mroce_reqwin *w, u32 psn,
				  u32 expect, u64 now,
				  struct mroce_reqwin_res *res);
void mroce_reqwin_on_read_kept(struct mroce_reqwin *w, u32 psn, u64 now,
			       struct mroce_reqwin_res *res);
bool mroce_reqwin_read_gap_lost(struct mroce_reqwin *w, u32 psn, u64 now);
void mroce_reqwin_on_timer(struct mroce_reqwin *w, u64 now,
			   struct mroce_reqwin_res *res);
bool mroce_reqwin_next_event(const struct mroce_reqwin *w, u64 *at);
int mroce_reqwin_on_sack(struct mroce_reqwin *w, const struct mroce_sr_ack *a,
			 u64 now, struct mroce_reqwin_res *res);

/* Shared by mroce_reqwin.c and mroce_sr.c only. */
u32 mroce_reqwin_advance(struct mroce_reqwin *w, u32 psn, u64 now);
void mroce_reqwin_retry(struct mroce_reqwin *w, u32 psn, u64 now,
			struct mroce_reqwin_res *res);
u32 mroce_reqwin_lose_all(struct mroce_reqwin *w);
void mroce_sr_init(struct mroce_reqwin *w, const struct mroce_reqwin_cfg *cfg);
void mroce_sr_out(struct mroce_reqwin *w, u64 now);
void mroce_sr_resent(struct mroce_reqwin *w, u32 psn, u64 now, u64 prev);
void mroce_sr_read_ahead(struct mroce_reqwin *w, u32 expect, u64 now,
			 struct mroce_reqwin_res *res);
void mroce_sr_read_filled(struct mroce_reqwin *w, u32 psn, u64 now);
void mroce_sr_read_answered(struct mroce_reqwin *w, u32 expect, u64 now,
			    struct mroce_reqwin_res *res);
void mroce_sr_progress(struct mroce_reqwin *w, u64 now);
void mroce_sr_on_timer(struct mroce_reqwin *w, u64 now,
		       struct mroce_reqwin_res *res);
bool mroce_sr_next_event(const struct mroce_reqwin *w, u64 *at);
const char *mroce_reqwin_verdict_name(enum mroce_reqwin_verdict v);

#endif /* MROCE_REQWIN_H */
