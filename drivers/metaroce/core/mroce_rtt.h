/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Round-trip time estimator of a MetaRoCE-mode requester and the
 * retransmission timeout (RTO) derived from it, in nanoseconds.
 *
 * The smoothing is the one TCP uses (RFC 6298 section 2): the first sample
 * sets SRTT = R and RTTVAR = R / 2; later ones RTTVAR += (|SRTT - R| -
 * RTTVAR) / 4, then SRTT += (R - SRTT) / 8.  RTO = SRTT + max(granularity,
 * 4 * RTTVAR), clamped to [min_rto, max_rto], doubled per consecutive
 * expiry up to max_backoff doublings; a new sample ends the backoff.
 * Samples come from timestamps echoed by the receiver, so a resent packet
 * gives an unambiguous sample (no Karn rule).  The minimum RTT seen is
 * kept for the reorder window (mroce_rack.h).
 */
#ifndef MROCE_RTT_H
#define MROCE_RTT_H

#include "mroce_core.h"

/* Defaults: a software transport on a datacenter path. */
#define MROCE_RTT_MIN_RTO_NS	(100 * MROCE_NSEC_PER_USEC)
#define MROCE_RTT_MAX_RTO_NS	(1000 * MROCE_NSEC_PER_MSEC)
#define MROCE_RTT_INIT_RTO_NS	MROCE_NSEC_PER_MSEC
#define MROCE_RTT_MAX_BACKOFF	6
/* Clock granularity term of the RTO (RFC 6298's G). */
#define MROCE_RTT_GRANULARITY_NS	(10 * MROCE_NSEC_PER_USEC)

struct mroce_rtt_cfg {
	u64 min_rto;	/* ns; 0 means MROCE_RTT_MIN_RTO_NS */
	u64 max_rto;	/* ns; 0 means MROCE_RTT_MAX_RTO_NS */
	u64 init_rto;	/* ns, before the first sample; 0: the default */
	u8 max_backoff;	/* doublings; 0 means MROCE_RTT_MAX_BACKOFF */
};

struct mroce_rtt {
	u64 srtt;	/* 0 until the first sample */
	u64 rttvar;
	u64 min_rtt;	/* smallest sample, 0 until the first */
	u64 latest;	/* last sample */
	u64 max_rtt;	/* largest sample, less 1/1024 of it per sample */
	u64 min_rto;
	u64 max_rto;
	u64 init_rto;
	u32 samples;
	u8 backoff;	/* consecutive expiries, at most max_backoff */
	u8 max_backoff;
};

void mroce_rtt_init(struct mroce_rtt *r, const struct mroce_rtt_cfg *cfg);
void mroce_rtt_sample(struct mroce_rtt *r, u64 rtt);
u64 mroce_rtt_rto(const struct mroce_rtt *r);
bool mroce_rtt_backoff(struct mroce_rtt *r);
u64 mroce_rtt_pto(const struct mroce_rtt *r, bool one_unit, u64 ack_delay);

#endif /* MROCE_RTT_H */
