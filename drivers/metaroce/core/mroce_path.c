// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Path (entropy) selector: round robin over healthy paths.
 */
#include "mroce_core.h"
#include "mroce_path.h"

/*
 * Entropies are spread by an odd stride so that neighbouring QPs seeded
 * with consecutive values do not share their whole path sets.
 */
#define MROCE_ENTROPY_STRIDE	0x9e5

void mroce_pathset_init(struct mroce_pathset *ps, struct mroce_path *paths,
			u8 n, u16 seed, u32 ecn_hold_ns, u32 loss_hold_ns)
{
	unsigned int i;

	memset(ps, 0, sizeof(*ps));
	ps->paths = paths;
	ps->n = paths ? n : 0;
	ps->ecn_hold_ns = ecn_hold_ns;
	ps->loss_hold_ns = loss_hold_ns;
	for (i = 0; i < ps->n; i++) {
		memset(&paths[i], 0, sizeof(paths[i]));
		paths[i].entropy = MROCE_ENTROPY_BASE |
			((seed + i * MROCE_ENTROPY_STRIDE) &
			 MROCE_ENTROPY_MASK);
	}
}

/**
 * mroce_path_select() - choose the path for the next packet
 * @ps: the path set
 * @now: current time
 *
 * Round robin over the paths not being avoided; when every path is being
 * avoided, the one that recovers first.
 *
 * Return: the path index, or -ENOENT if the set is empty.
 */
int mroce_path_select(struct mroce_pathset *ps, u64 now)
{
	unsigned int i, idx, best = 0;

	if (!ps->n)
		return -ENOENT;
	for (i = 0; i < ps->n; i++) {
		idx = (ps->cur + i) % ps->n;
		if (ps->paths[idx].avoid_until <= now) {
			best = idx;
			goto found;
		}
		if (ps->paths[idx].avoid_until < ps->paths[best].avoid_until)
			best = idx;
	}
found:
	ps->cur = (best + 1) % ps->n;
	ps->paths[best].sent++;
	return best;
}

/* RFC 6298 smoothing, gains 1/8 and 1/4, in integer ns. */
void mroce_path_on_rtt(struct mroce_pathset *ps, unsigned int idx,
		       u32 rtt_ns)
{
	struct mroce_path *p;
	u32 err;

	if (idx >= ps->n)
		return;
	p = &ps->paths[idx];
	if (!p->srtt_ns) {
		p->srtt_ns = rtt_ns;
		p->rttvar_ns = rtt_ns / 2;
		return;
	}
	err = rtt_ns > p->srtt_ns ? rtt_ns - p->srtt_ns : p->srtt_ns - rtt_ns;
	p->rttvar_ns = p->rttvar_ns - p->rttvar_ns / 4 + err / 4;
	p->srtt_ns = p->srtt_ns - p->srtt_ns / 8 + rtt_ns / 8;
}

void mroce_path_on_ecn(struct mroce_pathset *ps, unsigned int idx, u64 now)
{
	if (idx >= ps->n)
		return;
	ps->paths[idx].ecn++;
	ps->paths[idx].avoid_until = now + ps->ecn_hold_ns;
}

void mroce_path_on_loss(struct mroce_pathset *ps, unsigned int idx, u64 now)
{
	if (idx >= ps->n)
		return;
	ps->paths[idx].lost++;
	ps->paths[idx].avoid_until = now + ps->loss_hold_ns;
}
