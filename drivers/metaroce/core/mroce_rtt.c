// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * RTT estimator and retransmission timeout (see mroce_rtt.h).
 */
#include "mroce_core.h"
#include "mroce_rtt.h"

void mroce_rtt_init(struct mroce_rtt *r, const struct mroce_rtt_cfg *cfg)
{
	memset(r, 0, sizeof(*r));
	r->min_rto = cfg->min_rto ? cfg->min_rto : MROCE_RTT_MIN_RTO_NS;
	r->max_rto = cfg->max_rto ? cfg->max_rto : MROCE_RTT_MAX_RTO_NS;
	if (r->max_rto < r->min_rto)
		r->max_rto = r->min_rto;
	r->init_rto = cfg->init_rto ? cfg->init_rto : MROCE_RTT_INIT_RTO_NS;
	r->init_rto = clamp_t(u64, r->init_rto, r->min_rto, r->max_rto);
	r->max_backoff = cfg->max_backoff ? cfg->max_backoff :
			 MROCE_RTT_MAX_BACKOFF;
}

/**
 * mroce_rtt_sample() - account for one RTT measurement
 * @r: the estimator
 * @rtt: the sample in ns; 0 (a clock that did not move) counts as 1
 *
 * A sample shows the path answers, so it also ends a backoff.
 */
void mroce_rtt_sample(struct mroce_rtt *r, u64 rtt)
{
	u64 err;

	if (!rtt)
		rtt = 1;
	r->latest = rtt;
	if (!r->samples || rtt < r->min_rtt)
		r->min_rtt = rtt;
	r->max_rtt -= r->max_rtt / 1024;
	if (rtt > r->max_rtt)
		r->max_rtt = rtt;
	if (!r->samples) {
		r->srtt = rtt;
		r->rttvar = rtt / 2;
	} else {
		err = r->srtt > rtt ? r->srtt - rtt : rtt - r->srtt;
		/* x += (y - x) / n, kept unsigned */
		r->rttvar = r->rttvar - r->rttvar / 4 + err / 4;
		r->srtt = r->srtt - r->srtt / 8 + rtt / 8;
	}
	if (r->samples != ~0U)
		r->samples++;
	r->backoff = 0;
}

/* The timeout now, backoff included. */
u64 mroce_rtt_rto(const struct mroce_rtt *r)
{
	u64 rto = r->init_rto;

	if (r->samples)
		rto = r->srtt + max_t(u64, MROCE_RTT_GRANULARITY_NS,
				      4 * r->rttvar);
	rto = clamp_t(u64, rto, r->min_rto, r->max_rto);
	/* max_rto is at most a few seconds: no overflow in 2^max_backoff */
	return min_t(u64, rto << r->backoff, r->max_rto);
}

/**
 * mroce_rtt_backoff() - the RTO expired: double it for the next one
 * @r: the estimator
 *
 * Return: false when the backoff was already at its limit.
 */
bool mroce_rtt_backoff(struct mroce_rtt *r)
{
	if (r->backoff >= r->max_backoff)
		return false;
	r->backoff++;
	return true;
}

/**
 * mroce_rtt_pto() - the tail-loss probe timeout
 * @r: the estimator
 * @one_unit: a single request is in flight, so the receiver may hold its
 *	ACK back for up to @ack_delay before answering
 * @ack_delay: the receiver's ACK coalescing bound, ns
 *
 * Two smoothed RTTs (RFC 8985 section 7.2), plus the ACK delay when one
 * request is alone in flight, never later than the RTO.
 */
u64 mroce_rtt_pto(const struct mroce_rtt *r, bool one_unit, u64 ack_delay)
{
	u64 pto, rto = mroce_rtt_rto(r);

	if (!r->samples)
		return rto;
	pto = 2 * r->srtt;
	if (one_unit)
		pto += ack_delay;
	return min_t(u64, max_t(u64, pto, MROCE_RTT_GRANULARITY_NS), rto);
}
