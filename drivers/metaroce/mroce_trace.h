/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Tracepoints of the requester's loss recovery (selective repeat,
 * Documentation/core.rst): what RACK or the tail-loss probe declared lost,
 * each RTO, and each IBTA Local ACK Timeout; and the DCQCN reaction
 * point's rate changes (mroce_rp.c).  In tracefs as events/metaroce/;
 * the fields are the QP number, PSNs (24 bits) and times in microseconds.
 * Defined in mroce_comp.c.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM metaroce

#ifndef MROCE_TRACE_ENUMS
#define MROCE_TRACE_ENUMS
/* Why units were declared lost. */
enum mroce_trace_loss {
	MROCE_TRACE_LOSS_RACK,
	MROCE_TRACE_LOSS_TLP,
	MROCE_TRACE_LOSS_RTO,
};
#endif

#if !defined(MROCE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define MROCE_TRACE_H

#include <linux/tracepoint.h>

TRACE_DEFINE_ENUM(MROCE_TRACE_LOSS_RACK);
TRACE_DEFINE_ENUM(MROCE_TRACE_LOSS_TLP);
TRACE_DEFINE_ENUM(MROCE_TRACE_LOSS_RTO);

/*
 * Units declared lost by @kind, @lost of them, the first at @psn, with the
 * window's state: first unacknowledged PSN, PSNs in flight, SRTT, RTO and
 * reorder window.
 */
DECLARE_EVENT_CLASS(mroce_sr_class,
	TP_PROTO(u32 qpn, enum mroce_trace_loss kind, u32 lost, u32 psn,
		 u32 una, u32 inflight, u64 srtt_ns, u64 rto_ns, u64 reo_ns),
	TP_ARGS(qpn, kind, lost, psn, una, inflight, srtt_ns, rto_ns, reo_ns),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, kind)
		__field(u32, lost)
		__field(u32, psn)
		__field(u32, una)
		__field(u32, inflight)
		__field(u64, srtt_us)
		__field(u64, rto_us)
		__field(u64, reo_us)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->kind = kind;
		__entry->lost = lost;
		__entry->psn = psn;
		__entry->una = una;
		__entry->inflight = inflight;
		__entry->srtt_us = div_u64(srtt_ns, NSEC_PER_USEC);
		__entry->rto_us = div_u64(rto_ns, NSEC_PER_USEC);
		__entry->reo_us = div_u64(reo_ns, NSEC_PER_USEC);
	),
	TP_printk("qpn=%u by=%s lost=%u psn=%#x una=%#x inflight=%u srtt_us=%llu rto_us=%llu reorder_wnd_us=%llu",
		  __entry->qpn,
		  __print_symbolic(__entry->kind,
				   { MROCE_TRACE_LOSS_RACK, "rack" },
				   { MROCE_TRACE_LOSS_TLP, "tlp" },
				   { MROCE_TRACE_LOSS_RTO, "rto" }),
		  __entry->lost, __entry->psn, __entry->una, __entry->inflight,
		  __entry->srtt_us, __entry->rto_us, __entry->reo_us)
);

/* RACK or the tail-loss probe declared units lost. */
DEFINE_EVENT(mroce_sr_class, mroce_sr_loss,
	TP_PROTO(u32 qpn, enum mroce_trace_loss kind, u32 lost, u32 psn,
		 u32 una, u32 inflight, u64 srtt_ns, u64 rto_ns, u64 reo_ns),
	TP_ARGS(qpn, kind, lost, psn, una, inflight, srtt_ns, rto_ns, reo_ns)
);

/*
 * The RTO fired (kind rto): every unit in flight not SACKED is resent from
 * @psn; @lost is the units now lost, the RTO the backed-off one.
 */
DEFINE_EVENT(mroce_sr_class, mroce_sr_rto,
	TP_PROTO(u32 qpn, enum mroce_trace_loss kind, u32 lost, u32 psn,
		 u32 una, u32 inflight, u64 srtt_ns, u64 rto_ns, u64 reo_ns),
	TP_ARGS(qpn, kind, lost, psn, una, inflight, srtt_ns, rto_ns, reo_ns)
);

/*
 * The IBTA Local ACK Timeout expired: it alone spends retry_cnt; at 0
 * retries left the next expiry fails the WQE with RETRY_EXC_ERR.
 */
TRACE_EVENT(mroce_local_ack_timeout,
	TP_PROTO(u32 qpn, u32 psn, u8 retry_left),
	TP_ARGS(qpn, psn, retry_left),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, psn)
		__field(u8, retry_left)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->psn = psn;
		__entry->retry_left = retry_left;
	),
	TP_printk("qpn=%u psn=%#x retry_left=%u", __entry->qpn, __entry->psn,
		  __entry->retry_left)
);

/*
 * The reaction point changed the QP's rate: a CNP (@cut when it cut the
 * rate), or the rate climbed back to the maximum (@throttled 0).  Rates
 * in Mb/s, alpha of 1023.
 */
TRACE_EVENT(mroce_rp_rate,
	TP_PROTO(u32 qpn, bool cut, bool throttled, u64 rate_mbps,
		 u64 target_mbps, u32 alpha),
	TP_ARGS(qpn, cut, throttled, rate_mbps, target_mbps, alpha),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(bool, cut)
		__field(bool, throttled)
		__field(u64, rate_mbps)
		__field(u64, target_mbps)
		__field(u32, alpha)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->cut = cut;
		__entry->throttled = throttled;
		__entry->rate_mbps = rate_mbps;
		__entry->target_mbps = target_mbps;
		__entry->alpha = alpha;
	),
	TP_printk("qpn=%u cut=%u throttled=%u rate_mbps=%llu target_mbps=%llu alpha=%u",
		  __entry->qpn, __entry->cut, __entry->throttled,
		  __entry->rate_mbps, __entry->target_mbps, __entry->alpha)
);

/*
 * The delay-based window of a MetaRoCE-mode requester on a lossy fabric
 * changed by a decrease (cut=1) or reached its cap (cut=0) (mroce_wcc.c).
 */
TRACE_EVENT(mroce_cc_window,
	TP_PROTO(u32 qpn, bool cut, u32 cwnd, u32 psns, u64 rate_mbps,
		 u64 rtt_us, u64 base_us),
	TP_ARGS(qpn, cut, cwnd, psns, rate_mbps, rtt_us, base_us),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(bool, cut)
		__field(u32, cwnd)
		__field(u32, psns)
		__field(u64, rate_mbps)
		__field(u64, rtt_us)
		__field(u64, base_us)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->cut = cut;
		__entry->cwnd = cwnd;
		__entry->psns = psns;
		__entry->rate_mbps = rate_mbps;
		__entry->rtt_us = rtt_us;
		__entry->base_us = base_us;
	),
	TP_printk("qpn=%u cut=%u cwnd=%u psns=%u rate_mbps=%llu rtt_us=%llu base_rtt_us=%llu",
		  __entry->qpn, __entry->cut, __entry->cwnd, __entry->psns,
		  __entry->rate_mbps, __entry->rtt_us, __entry->base_us)
);

/*
 * A path of a spraying requester (mroce_spray.c) was retired after a loss
 * or a mark (retire=1), or probed again after its hold (retire=0).
 */
TRACE_EVENT(mroce_path,
	TP_PROTO(u32 qpn, u32 path, u16 sport, bool retire, u32 lost, u32 ecn),
	TP_ARGS(qpn, path, sport, retire, lost, ecn),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, path)
		__field(u16, sport)
		__field(bool, retire)
		__field(u32, lost)
		__field(u32, ecn)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->path = path;
		__entry->sport = sport;
		__entry->retire = retire;
		__entry->lost = lost;
		__entry->ecn = ecn;
	),
	TP_printk("qpn=%u path=%u sport=%u retire=%u lost=%u ecn=%u",
		  __entry->qpn, __entry->path, __entry->sport, __entry->retire,
		  __entry->lost, __entry->ecn)
);

#endif /* MROCE_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE mroce_trace
#include <trace/define_trace.h>
