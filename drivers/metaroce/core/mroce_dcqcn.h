/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * DCQCN reaction point: the rate of one QP's requests, cut when CNPs
 * arrive and raised again in fast recovery, additive and hyper increase
 * stages (Zhu et al., "Congestion Control for Large-Scale RDMA
 * Deployments", SIGCOMM 2015), with the parameters and defaults RoCE NICs
 * expose (mlx5's roce_rp knobs; Documentation/core.rst, "DCQCN").
 *
 * No timers of its own: its two periodic events (the alpha update and the
 * rate-increase timer) are caught up from the clock whenever the caller
 * reports something (mroce_dcqcn_advance(), also called by the others), so
 * a QP that sends nothing costs nothing, and the result is the same as
 * with timers firing on time.  A QP starts unthrottled (no pacing) and
 * goes back to that once its rate has climbed back to the maximum.
 *
 * Rates are bits per second; times are the core's nanoseconds.
 */
#ifndef MROCE_DCQCN_H
#define MROCE_DCQCN_H

#include "mroce_core.h"

/* Parameters, named and scaled as mlx5's ecn/roce_rp attributes. */
struct mroce_dcqcn_params {
	u32 rpg_time_reset_us;		/* rate-increase timer period */
	u32 rpg_byte_reset;		/* bytes per byte-counter event */
	u32 rpg_threshold;		/* F: events before additive increase */
	u32 rpg_max_rate_mbps;		/* 0: the line rate */
	u32 rpg_ai_rate_mbps;		/* additive increase step */
	u32 rpg_hai_rate_mbps;		/* hyper increase step */
	u32 rpg_gd;			/* cut = rate * alpha >> rpg_gd */
	u32 rpg_min_dec_fac;		/* a cut keeps at least this % */
	u32 rpg_min_rate_mbps;		/* floor of the rate */
	u32 rate_to_set_on_first_cnp_mbps; /* 0: start from the maximum */
	u32 dce_tcp_g;			/* alpha gain, of 1024 */
	u32 dce_tcp_rtt_us;		/* alpha update period */
	u32 rate_reduce_monitor_period_us; /* at most one cut per period */
	u32 initial_alpha_value;	/* alpha at the first CNP, of 1023 */
};

/*
 * Defaults: those ConnectX documentation gives for the knobs of the same
 * names (alpha gain 1019 of 1024 every 1 us, initial alpha 1023, a cut of
 * at most half, 1 Mb/s floor, one cut per 4 us, increase timer 300 us,
 * byte counter 32767, steps 5 and 50 Mb/s), and the DCQCN paper's F = 5
 * increase events of fast recovery.
 */
void mroce_dcqcn_params_default(struct mroce_dcqcn_params *p);

struct mroce_dcqcn {
	bool active;		/* throttled: the requester paces at rc */
	bool cnp_seen;		/* a CNP in the current alpha period */
	bool cut_valid;		/* cut_at holds a cut's time */
	u32 alpha;		/* congestion estimate, 0..1023 */
	u32 t_stage;		/* rate-increase timer events since the cut */
	u32 bc_stage;		/* byte-counter events since the cut */
	u64 bytes;		/* sent since the last byte-counter event */
	u64 rc;			/* current rate, b/s */
	u64 rt;			/* target rate, b/s */
	u64 max_rate;		/* b/s */
	u64 alpha_at;		/* start of the current alpha period */
	u64 inc_at;		/* start of the current increase period */
	u64 cut_at;
	u32 cuts;		/* rate cuts made (CNPs that cut) */
	u32 cnps;		/* CNPs reported */
};

void mroce_dcqcn_init(struct mroce_dcqcn *d, u64 line_rate_bps,
		      const struct mroce_dcqcn_params *p);
void mroce_dcqcn_advance(struct mroce_dcqcn *d,
			 const struct mroce_dcqcn_params *p, u64 now);
bool mroce_dcqcn_cnp(struct mroce_dcqcn *d,
		     const struct mroce_dcqcn_params *p, u64 now);
void mroce_dcqcn_sent(struct mroce_dcqcn *d,
		      const struct mroce_dcqcn_params *p, u32 bytes, u64 now);
u64 mroce_dcqcn_gap_ns(const struct mroce_dcqcn *d, u32 bytes);

#endif /* MROCE_DCQCN_H */
