/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Congestion-control hook.
 *
 * The transport reports what it observed as one sample per event (bytes
 * ACKed, an RTT sample, an ECN-CE mark echoed by the receiver, a CNP
 * (IBTA A17.9), a loss) and reads back two outputs: a pacing rate and a
 * congestion window in bytes.  A controller is a struct mroce_cc_ops; a
 * delay-based window controller (Swift/NSCC-like) plugs in here.
 * MROCE_CC_PRIV_WORDS of private state live in struct mroce_cc, so no
 * controller allocates.  DCQCN, rate-based on CNPs, is mroce_dcqcn.c.
 *
 * Not used by the kernel module yet (it sends within its window, paced
 * only by DCQCN): built and tested on the host (selftests/unit) until
 * the sender paces with it; Kbuild links it then.
 */
#ifndef MROCE_CC_H
#define MROCE_CC_H

#include "mroce_core.h"

enum mroce_cc_event {
	MROCE_CC_EV_ACK		= 1U << 0,	/* acked_bytes delivered */
	MROCE_CC_EV_ECN		= 1U << 1,	/* receiver echoed ECN-CE */
	MROCE_CC_EV_CNP		= 1U << 2,	/* CNP received */
	MROCE_CC_EV_LOSS	= 1U << 3,	/* loss detected */
};

struct mroce_cc_sample {
	u64 now;
	u32 events;		/* enum mroce_cc_event */
	u32 acked_bytes;
	u32 rtt_ns;		/* 0: no RTT sample */
};

struct mroce_cc_cfg {
	u64 line_rate;		/* bytes per second */
	u32 mss;		/* payload bytes per packet (path MTU) */
	u32 min_cwnd;		/* bytes, at least one mss */
	u32 max_cwnd;		/* bytes, e.g. the BDP */
	u32 target_rtt_ns;	/* delay above which a window shrinks */
};

#define MROCE_CC_PRIV_WORDS	4

struct mroce_cc;

struct mroce_cc_ops {
	const char *name;
	void (*init)(struct mroce_cc *cc);
	void (*update)(struct mroce_cc *cc, const struct mroce_cc_sample *s);
};

struct mroce_cc {
	const struct mroce_cc_ops *ops;
	struct mroce_cc_cfg cfg;
	u64 rate;		/* output: pacing rate, bytes per second */
	u32 cwnd;		/* output: bytes allowed in flight */
	u64 priv[MROCE_CC_PRIV_WORDS];
};

/* Line rate, window at max_cwnd: no congestion control (rxe's behaviour). */
extern const struct mroce_cc_ops mroce_cc_fixed;
/* Additive increase, multiplicative decrease on ECN, CNP, delay, loss. */
extern const struct mroce_cc_ops mroce_cc_aimd;

void mroce_cc_init(struct mroce_cc *cc, const struct mroce_cc_ops *ops,
		   const struct mroce_cc_cfg *cfg);
void mroce_cc_update(struct mroce_cc *cc, const struct mroce_cc_sample *s);

#endif /* MROCE_CC_H */
