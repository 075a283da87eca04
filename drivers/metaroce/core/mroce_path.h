/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Path (entropy) selection for MetaRoCE mode.
 *
 * ECMP switches hash the UDP source port, so each distinct source port is a
 * potential path (IBTA A17.5.1 leaves the port free for entropy).  A QP
 * sprays its packets over a set of entropies, keeps per-path state (RTT,
 * ECN marks, losses) and steers away from a path for a while after it
 * shows congestion or loss (SRD, IEEE Micro'20; PLB).  Path storage is the
 * caller's.  Caller serialises calls for one path set.
 *
 * Not used by the kernel module yet (each QP sends on the one UDP source
 * port rdma_get_udp_sport() gives): built and tested on the host
 * (selftests/unit) until spraying uses it; Kbuild links it then.
 */
#ifndef MROCE_PATH_H
#define MROCE_PATH_H

#include "mroce_core.h"

/* IBTA A17.5.1 suggests source ports from the dynamic range 0xc000.. */
#define MROCE_ENTROPY_BASE	0xc000
#define MROCE_ENTROPY_MASK	0x3fff

struct mroce_path {
	u16 entropy;	/* UDP source port */
	u32 srtt_ns;	/* smoothed RTT, 0 before the first sample */
	u32 rttvar_ns;
	u32 sent;
	u32 ecn;
	u32 lost;
	u64 avoid_until;
};

struct mroce_pathset {
	struct mroce_path *paths;
	u8 n;
	u8 cur;
	u32 ecn_hold_ns;	/* how long a path is avoided after ECN */
	u32 loss_hold_ns;	/* ... and after a loss */
};

void mroce_pathset_init(struct mroce_pathset *ps, struct mroce_path *paths,
			u8 n, u16 seed, u32 ecn_hold_ns, u32 loss_hold_ns);
int mroce_path_select(struct mroce_pathset *ps, u64 now);
void mroce_path_on_rtt(struct mroce_pathset *ps, unsigned int idx,
		       u32 rtt_ns);
void mroce_path_on_ecn(struct mroce_pathset *ps, unsigned int idx, u64 now);
void mroce_path_on_loss(struct mroce_pathset *ps, unsigned int idx, u64 now);

#endif /* MROCE_PATH_H */
