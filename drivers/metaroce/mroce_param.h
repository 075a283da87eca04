/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Limits advertised through query_device and query_port.  Every limit here
 * is also the one the verbs enforce: exceeding it fails with an errno.
 * Then the defaults of the transport's device attributes.
 */
#ifndef MROCE_PARAM_H
#define MROCE_PARAM_H

#include <linux/sizes.h>

#define MROCE_FW_VER			0x0001000000000000ULL	/* 1.0.0 */
/*
 * No IEEE OUI is assigned to the project.  0xffffff is not a valid OUI
 * and says "no vendor" (rxe does the same); 0 would read as "no device"
 * to tools such as rdma-core's tests, which require a nonzero vendor_id.
 */
#define MROCE_VENDOR_ID			0xffffff
#define MROCE_VENDOR_PART_ID		0

#define MROCE_MAX_QP			0x10000
#define MROCE_MAX_QP_WR			0x4000
#define MROCE_MAX_SGE			32
#define MROCE_MAX_CQ			0x10000
#define MROCE_MAX_CQE			0x10000
#define MROCE_MAX_MR			0x10000
#define MROCE_MAX_MW			0x10000
#define MROCE_MAX_FR_PAGES		512	/* fast registration page list */
#define MROCE_MAX_PD			0x10000
#define MROCE_MAX_AH			0x10000
#define MROCE_MAX_SRQ			0x4000
#define MROCE_MAX_SRQ_WR		0x4000
#define MROCE_MAX_RD_ATOMIC		128
#define MROCE_MAX_INLINE_DATA		256
#define MROCE_MAX_MR_SIZE		(1ULL << 40)
#define MROCE_MAX_MSG_SIZE		(1U << 31)
/* 4.096 us * 2^15 = 134 ms: what a software transport under load needs. */
#define MROCE_LOCAL_CA_ACK_DELAY	15

/*
 * ACK coalescing of held requests (mroce_hold_rx()): one that opens a gap
 * or asks for an ACK is acknowledged at once, the others every
 * MROCE_ACK_EVERY or MROCE_ACK_DELAY_US after the first not acknowledged,
 * whichever comes first (defaults of the sysfs attributes
 * metaroce_ack_every and metaroce_ack_delay_us, up to the _MAX).  The
 * delay bound serves the runs of held requests behind a hole the
 * requester already knows of (the ACK of a gap goes at once): at 25 us,
 * where a request arrives every 40 us (the test VM), it sent an ACK for
 * nearly every held request, 23 MR_ACKs per 64 KiB WRITE at 1% loss
 * against 2.3 on a clean path; 200 us halves them and raised the goodput
 * of that VM's 64 KiB WRITEs at 5% loss from 7.3 MB/s to 13.8 (make
 * bench's matrix, medians of 3, BENCH_ATTRS).  Where requests come faster
 * than every 12 us, the count bound comes first anyway.
 */
#define MROCE_ACK_EVERY		16
#define MROCE_ACK_EVERY_MAX	256	/* the pipe, MROCE_SR_PIPE */
#define MROCE_ACK_DELAY_US	200
#define MROCE_ACK_DELAY_US_MAX	10000

/*
 * PSNs a requester keeps in flight in MetaRoCE mode (selective repeat;
 * MROCE_REQ_WINDOW in RoCEv2 mode): what the peer can hold
 * ahead of a hole (MROCE_HOLD_SLOTS) and SACK.  Of them, at most the
 * pipe not yet reported by the peer: what queues on the path (sysfs
 * metaroce_sr_pipe, MROCE_SR_PIPE_MIN to the window, default
 * MROCE_SR_PIPE; about the path's bandwidth-delay product in packets).
 * A lost packet stalls the sender only when the window fills before its
 * resend is acknowledged, and the resend queues behind the pipe: with a
 * window as wide as the pipe (256 PSNs), every loss of 64 KiB WRITEs
 * stalled the sender about one RTT (SRTT 7 ms with 256 PSNs queued in
 * the VM).  Four times the pipe lets it send while a hole is repaired.
 */
#define MROCE_SR_WINDOW		1024
#define MROCE_SR_PIPE		256
#define MROCE_SR_PIPE_MIN	16

/*
 * The least RTO of a MetaRoCE-mode requester (sysfs metaroce_rto_min_us,
 * read when a connection's span starts), whatever the RTT measured: 1 ms
 * by default, since the tail-loss probe's deadline is never later than
 * the RTO and one of tens of microseconds fired on most messages of a
 * ping-pong (mroce_req_selective()).  From the core's floor,
 * MROCE_RTT_MIN_RTO_NS, to the longest first RTO, MROCE_REQ_INIT_RTO_MAX.
 */
#define MROCE_RTO_MIN_US	1000
#define MROCE_RTO_MIN_US_MIN	100
#define MROCE_RTO_MIN_US_MAX	100000

/*
 * ECN notification point (mroce_ecn.c): at most one CNP per QP every
 * MROCE_NP_CNP_GAP_US microseconds (sysfs
 * metaroce_np_min_time_between_cnps, 0 to the maximum: 0 answers every
 * CE-marked packet), sent with DSCP MROCE_CNP_DSCP (metaroce_cnp_dscp).
 */
#define MROCE_NP_CNP_GAP_US	4
#define MROCE_NP_CNP_GAP_US_MAX	1000000
#define MROCE_CNP_DSCP		48

/*
 * The delay-based window of MetaRoCE-mode requesters on a lossy fabric
 * (mroce_wcc.c, core mroce_cc.c), defaults of the sysfs metaroce_cc_*
 * knobs.  The target is the queueing delay tolerated over the smallest
 * RTT seen: 200 us, a software transport's scheduling noise plus a few
 * packets queued at a 10-100 Gb/s port (Swift's fabric targets are tens
 * of microseconds with NIC timestamps; ours come from the kernel's clock
 * at both ends).  beta 0.8 and a largest decrease of half are Swift's.
 * The window starts at 64 KiB (a 64 KiB message in one round trip), is
 * capped at 1 MiB (100 Gb/s times 80 us) and may fall to 256 bytes, a
 * 4 KiB packet every 16 round trips.
 */
#define MROCE_WCC_TARGET_US	200
#define MROCE_WCC_TARGET_US_MAX	1000000
#define MROCE_WCC_AI_BYTES	4096
#define MROCE_WCC_BETA		819
#define MROCE_WCC_MAX_MDF	512
#define MROCE_WCC_MIN_WINDOW	256
#define MROCE_WCC_MAX_WINDOW	(1024 * 1024)
#define MROCE_WCC_INIT_WINDOW	(64 * 1024)
/* Largest window one may set: the MetaRoCE window of 4 KiB packets. */
#define MROCE_WCC_WINDOW_MAX	(MROCE_SR_WINDOW * 4096)

/*
 * Paths of MetaRoCE-mode RC requesters (mroce_spray.c, core mroce_path.c),
 * defaults of the sysfs knobs.  metaroce_path_mode spray: each request
 * packet on the next healthy path.  metaroce_paths 16 entropies (UDP
 * source ports), read when a QP is created: hashed onto 4 uplinks, 16
 * ports leave one of them without any with probability 4 x (3/4)^16, 4%,
 * and fresh entropies replace retired ones.  metaroce_path_hold_us: a
 * path that lost a packet or had one marked is left alone for 2 ms (a
 * few round trips of a loaded software path), then probed.
 * metaroce_flowlet_gap_us: in flowlet mode, an idle gap of 100 us starts
 * a new flowlet, which may take another path.
 */
#define MROCE_PATHS_DEFAULT	16
#define MROCE_PATH_HOLD_US	2000
#define MROCE_PATH_HOLD_US_MAX	1000000
#define MROCE_FLOWLET_GAP_US	100
#define MROCE_FLOWLET_GAP_US_MAX 1000000
/*
 * A path whose smoothed RTT is three times most paths' and 1 ms over
 * them is retired too: it hashes onto a long or queued link.  Both
 * stay clear of a software path's noise: the test VM's RTTs under load
 * are 5 to 16 ms and differ between paths by up to twice (at twice,
 * leafspine.sh's healthy spray retired 50-200 paths a run).
 */
#define MROCE_PATH_SLOW_US	1000

#endif /* MROCE_PARAM_H */
