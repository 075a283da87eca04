/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Window congestion control of a MetaRoCE-mode requester on a lossy
 * fabric (Documentation/core.rst, "Delay-based window").
 *
 * The transport reports what it observed as one sample per event (bytes
 * newly delivered, an RTT sample from the timestamp an MR_ACK echoes, a
 * CNP, a loss, a retransmission timeout) and reads back two outputs: a
 * congestion window in bytes, which bounds what the QP keeps in flight,
 * and a pacing rate in bytes per second.  A controller is a struct
 * mroce_cc_ops; its state lives in struct mroce_cc, so none allocates.
 *
 * The one controller, "delay", is Swift-like: it keeps the queueing delay
 * (RTT above the smallest RTT seen, judged on the smaller of the sample
 * and the smoothed RTT, so that a lone spike does not count) near a
 * target.  Below it the window doubles per round trip until its first
 * decrease (slow start), then grows by cfg.ai bytes per round trip; above
 * it the window shrinks in proportion to how far above (cfg.beta), at
 * most by cfg.max_mdf and once per round trip.  CNPs and losses shrink it
 * too; a window below one packet is kept by pacing.  DCQCN, rate-based on
 * CNPs, is mroce_dcqcn.c.
 */
#ifndef MROCE_CC_H
#define MROCE_CC_H

#include "mroce_core.h"

enum mroce_cc_event {
	MROCE_CC_EV_ACK		= 1U << 0,	/* acked_bytes delivered */
	MROCE_CC_EV_CNP		= 1U << 1,	/* CNP received (ECN-CE seen) */
	MROCE_CC_EV_LOSS	= 1U << 2,	/* loss detected (RACK, NAK) */
	MROCE_CC_EV_RTO		= 1U << 3,	/* retransmission timeout */
};

struct mroce_cc_sample {
	u64 now;		/* ns */
	u32 events;		/* enum mroce_cc_event */
	u32 acked_bytes;
	u64 rtt_ns;		/* 0: no RTT sample */
};

/* Fractions are in 1/1024. */
#define MROCE_CC_ONE		1024

struct mroce_cc_cfg {
	u64 line_rate;		/* bytes per second: the pacing ceiling */
	u32 mss;		/* payload bytes per packet (path MTU) */
	u32 min_cwnd;		/* bytes; may be below one mss (paced) */
	u32 max_cwnd;		/* bytes: the BDP cap */
	u32 init_cwnd;		/* bytes; 0: ten mss */
	u32 target_ns;		/* queueing delay tolerated above base RTT */
	u32 ai;			/* bytes per round trip below the target */
	u16 beta;		/* decrease per relative excess delay */
	u16 max_mdf;		/* largest decrease at once */
};

struct mroce_cc;

struct mroce_cc_ops {
	const char *name;
	void (*init)(struct mroce_cc *cc);
	void (*update)(struct mroce_cc *cc, const struct mroce_cc_sample *s);
};

struct mroce_cc {
	const struct mroce_cc_ops *ops;
	struct mroce_cc_cfg cfg;
	/* outputs */
	u32 cwnd;		/* bytes allowed in flight */
	u64 rate;		/* pacing rate, bytes per second */
	/* the RTT as the controller sees it, ns */
	u64 base_rtt;		/* smallest sample, 0 until the first */
	u64 srtt;		/* smoothed, 1/8 per sample */
	u64 last_rtt;
	/* state */
	u64 cwnd_fp;		/* cwnd * MROCE_CC_ONE */
	u64 last_cut;		/* when the window last shrank, if cuts */
	u64 cuts;		/* decreases so far */
};

/* Swift-like delay-based window (see above). */
extern const struct mroce_cc_ops mroce_cc_delay;

void mroce_cc_init(struct mroce_cc *cc, const struct mroce_cc_ops *ops,
		   const struct mroce_cc_cfg *cfg);
void mroce_cc_update(struct mroce_cc *cc, const struct mroce_cc_sample *s);
u64 mroce_cc_gap_ns(const struct mroce_cc *cc, u32 bytes);

#endif /* MROCE_CC_H */
