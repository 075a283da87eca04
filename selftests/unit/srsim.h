/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A host simulator of one MetaRoCE connection direction, run by the unit
 * tests (test_srsim.c) and by tools/sim: the core's selective-repeat
 * requester window (mroce_reqwin.c, mroce_sr.c) sends one-PSN requests
 * over a simulated link to a receiver that keeps the core's receive
 * scoreboard (mroce_sack.c) and answers with cumulative ACKs carrying the
 * SACK bitmap the wire's SACKH would (mroce_ext_sack_from_board()).  The
 * link loses, delays, reorders and duplicates packets, and loses ACKs, as
 * tc netem would, from a seeded generator, so every run is repeatable.
 */
#ifndef MROCE_SRSIM_H
#define MROCE_SRSIM_H

#include "mroce_core.h"

struct srsim_cfg {
	u32 units;		/* requests to deliver */
	u32 psn;		/* first PSN */
	u64 tx_ns;		/* time to put one packet on the wire */
	u64 delay_ns;		/* one-way delay */
	u64 jitter_ns;		/* uniform extra delay, 0..jitter */
	u32 loss_ppm;		/* request packets lost, per million */
	u32 ack_loss_ppm;	/* ACKs lost, per million */
	u32 dup_ppm;		/* request packets duplicated */
	/* netem "delay D reorder P": P of the packets skip the delay */
	u32 reorder_ppm;
	bool ack_reorder;	/* ACKs take the delay and reorder too */
	bool no_echo;		/* ACKs echo no timestamp (RoCEv2 requests) */
	u32 ack_every;		/* ACK every n-th packet in order (1: all);
				 * a gap or a duplicate is ACKed at once */
	u64 ack_delay_ns;	/* ACK coalescing bound */
	u32 wnd;		/* PSNs in flight */
	u32 pipe;		/* of them not SACKED (0: all) */
	u8 timeout;		/* Local ACK Timeout exponent */
	u8 retry_cnt;
	bool dead_after;	/* the receiver vanishes after half the units */
	u64 seed;
	u64 time_limit_ns;
};

struct srsim_res {
	bool done;		/* every unit delivered and acknowledged */
	bool retry_exceeded;
	u64 elapsed_ns;
	u64 sent;		/* packets put on the wire, resends included */
	u64 resent;
	u64 spurious;		/* resends the receiver had already */
	u64 spurious_seen;	/* of them, what the sender counted */
	u64 rx_dups;		/* duplicates the receiver saw */
	u64 delivered;		/* units in order at the receiver */
	u64 acks;
	u64 rack_losses;
	u64 tlp_probes;
	u64 rto_fires;
	u64 srtt_ns;
};

void srsim_defaults(struct srsim_cfg *c);
int srsim_run(const struct srsim_cfg *c, struct srsim_res *r);
/* goodput of @r relative to @clean, in percent */
u32 srsim_ratio(const struct srsim_res *r, const struct srsim_res *clean);

#endif /* MROCE_SRSIM_H */
