/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Path (entropy) selection for MetaRoCE mode.
 *
 * ECMP switches hash the UDP source port, so each distinct source port is a
 * potential path (IBTA A17.5.1 leaves the port free for entropy).  A QP
 * spreads its request packets over a set of entropies, keeps per-path
 * state (RTT, ECN marks, losses) and retires a path that loses a packet,
 * has one marked or is much slower than the others: its entropy, which
 * hashes onto a bad or busy link, is
 * replaced by a fresh one, which the set probes after a hold (SRD, IEEE
 * Micro'20; PLB, SIGCOMM'22).  Path storage is the caller's.  Caller
 * serialises calls for one path set.
 */
#ifndef MROCE_PATH_H
#define MROCE_PATH_H

#include "mroce_core.h"

/* IBTA A17.5.1 suggests source ports from the dynamic range 0xc000.. */
#define MROCE_ENTROPY_BASE	0xc000
#define MROCE_ENTROPY_MASK	0x3fff

/* Paths of one set, at most. */
#define MROCE_PATHS_MAX		64
/*
 * PSNs whose path a set remembers: a power of two, the requester's widest
 * window (MROCE_SB_SLOTS).
 */
#define MROCE_PATH_PSNS		1024

/* How a set chooses the path of each packet. */
enum mroce_path_mode {
	MROCE_PATH_FLOW,	/* one path (RoCEv2's one port per QP) */
	MROCE_PATH_FLOWLET,	/* the previous path unless idle for a gap */
	MROCE_PATH_SPRAY,	/* round robin over the healthy paths */
	MROCE_NUM_PATH_MODES
};

struct mroce_path {
	u16 entropy;	/* UDP source port */
	u16 gen;	/* changes when the entropy is replaced */
	bool retired;	/* avoided after a loss or mark, not yet probed */
	u32 srtt_ns;	/* smoothed RTT, 0 before the first sample */
	u32 rttvar_ns;
	u8 samples;	/* RTT samples since its entropy was new, up to 255 */
	u64 sent;	/* packets sent on it */
	u64 bytes;	/* ... and their payload bytes (the caller counts) */
	u32 ecn;	/* marks charged to it */
	u32 lost;	/* losses charged to it */
	u64 avoid_until;
};

/*
 * Losses a set holds before charging them to their paths: a loss that
 * reordering faked is reported within about a round trip (the receiver
 * gets the unit twice) and then charges nothing.
 */
#define MROCE_PATH_SUSPECTS	64

struct mroce_path_suspect {
	u64 due;	/* charged at this time unless cleared first */
	u32 psn;
	u16 rec;	/* path index + 1 and generation; 0: free */
};

struct mroce_path_cfg {
	u8 n;			/* paths, 1..MROCE_PATHS_MAX */
	u8 mode;		/* enum mroce_path_mode */
	u16 seed;		/* spreads entropies between sets */
	u32 hold_ns;		/* a retired path is avoided this long */
	u32 flowlet_gap_ns;	/* FLOWLET: idle time that starts a flowlet */
	/* a path this much and three times slower than most others is
	 * retired; 0: never
	 */
	u32 slow_ns;
	/* n entropies to use (a path plan), or NULL for the set's own */
	const u16 *plan;
};

/**
 * struct mroce_pathset - the paths of one sender
 * @paths: caller storage, @n entries
 * @psn_path: caller storage, MROCE_PATH_PSNS entries: the path each PSN
 *	last left on (by PSN modulo their number; index + 1 in the low 7
 *	bits, 0 for none, the path's gen in the others), or NULL
 * @n: paths; 0: the set is off
 * @cur: FLOWLET: the flowlet's path; SPRAY: the next to try
 * @fresh: entropies handed out so far (the next fresh one)
 * @planned: the entropies came from a plan: a retired path keeps its own
 * @last_tx: when the last packet left (FLOWLET)
 * @retired: paths retired so far
 * @probed: retired paths used again after their hold so far
 * @cleared: suspected losses that proved spurious so far
 * @unheld: losses neither held nor charged: every slot was taken
 * @suspects: losses not yet charged (mroce_path_retx())
 * @nsuspects: how many of them are taken
 */
struct mroce_pathset {
	struct mroce_path *paths;
	u16 *psn_path;
	u8 n;
	u8 cur;
	u8 mode;
	bool planned;
	u16 seed;
	u16 fresh;
	u32 hold_ns;
	u32 flowlet_gap_ns;
	u32 slow_ns;
	u64 last_tx;
	u64 retired;
	u64 probed;
	u64 cleared;
	u64 unheld;
	u8 nsuspects;
	struct mroce_path_suspect suspects[MROCE_PATH_SUSPECTS];
};

void mroce_pathset_init(struct mroce_pathset *ps, struct mroce_path *paths,
			u16 *psn_path, const struct mroce_path_cfg *cfg);
int mroce_path_select(struct mroce_pathset *ps, u64 now);
int mroce_path_tx(struct mroce_pathset *ps, u32 psn, u64 now);
int mroce_path_retx(struct mroce_pathset *ps, u32 psn, u64 now, u64 wait);
void mroce_path_spurious(struct mroce_pathset *ps, u32 psn);
int mroce_path_confirm(struct mroce_pathset *ps, u64 now);
int mroce_path_of(const struct mroce_pathset *ps, u32 psn);
void mroce_path_on_rtt(struct mroce_pathset *ps, unsigned int idx,
		       u32 rtt_ns, u64 now);
void mroce_path_on_ecn(struct mroce_pathset *ps, unsigned int idx, u64 now);
void mroce_path_on_loss(struct mroce_pathset *ps, unsigned int idx, u64 now);
const char *mroce_path_mode_name(unsigned int mode);

#endif /* MROCE_PATH_H */
