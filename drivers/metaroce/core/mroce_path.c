// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Path (entropy) selector: one path, flowlets or per-packet round robin
 * over the healthy paths, with retirement, probing and fresh entropies.
 */
#include "mroce_core.h"
#include "mroce_path.h"

/*
 * Entropies are spread by an odd stride so that neighbouring QPs seeded
 * with consecutive values do not share their whole path sets.
 */
#define MROCE_ENTROPY_STRIDE	0x9e5
/* psn_path entries: path index + 1 and the path's generation. */
#define MROCE_PATH_IDX_BITS	7
#define MROCE_PATH_IDX_MASK	((1U << MROCE_PATH_IDX_BITS) - 1)

static const char *const mroce_path_modes[MROCE_NUM_PATH_MODES] = {
	[MROCE_PATH_FLOW] = "flow",
	[MROCE_PATH_FLOWLET] = "flowlet",
	[MROCE_PATH_SPRAY] = "spray",
};

const char *mroce_path_mode_name(unsigned int mode)
{
	return mode < MROCE_NUM_PATH_MODES ? mroce_path_modes[mode] : "?";
}

static u16 mroce_path_entropy(const struct mroce_pathset *ps, u16 k)
{
	return MROCE_ENTROPY_BASE |
	       ((ps->seed + k * MROCE_ENTROPY_STRIDE) & MROCE_ENTROPY_MASK);
}

/**
 * mroce_pathset_init() - a set of paths with fresh entropies
 * @ps: the set
 * @paths: storage for cfg->n paths, or NULL for an empty (off) set
 * @psn_path: storage for MROCE_PATH_PSNS path indexes, or NULL
 * @cfg: size, mode, seed, times and an optional plan (the entropies to
 *	use); n is capped at MROCE_PATHS_MAX
 */
void mroce_pathset_init(struct mroce_pathset *ps, struct mroce_path *paths,
			u16 *psn_path, const struct mroce_path_cfg *cfg)
{
	unsigned int i;

	memset(ps, 0, sizeof(*ps));
	ps->paths = paths;
	ps->psn_path = psn_path;
	ps->n = paths ? min_t(u8, cfg->n, MROCE_PATHS_MAX) : 0;
	ps->mode = cfg->mode < MROCE_NUM_PATH_MODES ? cfg->mode :
						       MROCE_PATH_SPRAY;
	ps->seed = cfg->seed;
	ps->hold_ns = cfg->hold_ns;
	ps->flowlet_gap_ns = cfg->flowlet_gap_ns;
	ps->slow_ns = cfg->slow_ns;
	ps->planned = ps->n && cfg->plan;
	for (i = 0; i < ps->n; i++) {
		memset(&paths[i], 0, sizeof(paths[i]));
		paths[i].entropy = ps->planned ? cfg->plan[i] :
			mroce_path_entropy(ps, ps->fresh++);
	}
	if (psn_path)
		memset(psn_path, 0, MROCE_PATH_PSNS * sizeof(*psn_path));
}

/*
 * The first path from @from on, in turn, that is not being avoided and is
 * not @skip; if there is none, the one that recovers first (@skip only
 * when it is the only path).
 */
static unsigned int mroce_path_pick(const struct mroce_pathset *ps,
				    unsigned int from, int skip, u64 now)
{
	unsigned int i, idx;
	int best = -1;

	for (i = 0; i < ps->n; i++) {
		idx = (from + i) % ps->n;
		if ((int)idx == skip)
			continue;
		if (ps->paths[idx].avoid_until <= now)
			return idx;
		if (best < 0 || ps->paths[idx].avoid_until <
				ps->paths[best].avoid_until)
			best = idx;
	}
	return best < 0 ? (unsigned int)skip : (unsigned int)best;
}

/* Path @idx takes a packet at @now: a retired path past its hold is probed. */
static void mroce_path_use(struct mroce_pathset *ps, unsigned int idx,
			   u64 now)
{
	struct mroce_path *p = &ps->paths[idx];

	if (p->retired && p->avoid_until <= now) {
		p->retired = false;
		ps->probed++;
	}
	p->sent++;
	ps->last_tx = now;
}

static int mroce_path_choose(struct mroce_pathset *ps, u64 now, int skip)
{
	unsigned int idx;

	if (!ps->n)
		return -ENOENT;
	switch (ps->mode) {
	case MROCE_PATH_FLOW:
		idx = 0;
		break;
	case MROCE_PATH_FLOWLET:
		idx = ps->cur;
		if (ps->last_tx && now - ps->last_tx < ps->flowlet_gap_ns &&
		    (int)idx != skip && ps->paths[idx].avoid_until <= now)
			break;
		idx = mroce_path_pick(ps, ps->cur + 1, skip, now);
		ps->cur = idx;
		break;
	default:
		idx = mroce_path_pick(ps, ps->cur, skip, now);
		ps->cur = (idx + 1) % ps->n;
		break;
	}
	mroce_path_use(ps, idx, now);
	return idx;
}

/**
 * mroce_path_select() - choose the path for the next packet
 * @ps: the path set
 * @now: current time
 *
 * FLOW: path 0.  FLOWLET: the previous packet's path while packets follow
 * each other within the flowlet gap and it is not being avoided, else the
 * next healthy one.  SPRAY: round robin over the paths not being avoided.
 * When every path is being avoided, the one that recovers first.
 *
 * Return: the path index, or -ENOENT if the set is empty.
 */
int mroce_path_select(struct mroce_pathset *ps, u64 now)
{
	return mroce_path_choose(ps, now, -1);
}

/* The psn_path record of path @idx as it is now. */
static u16 mroce_path_rec(const struct mroce_pathset *ps, int idx)
{
	return (idx + 1) | ps->paths[idx].gen << MROCE_PATH_IDX_BITS;
}

/* The path a record names, or -ENOENT if it has taken a fresh entropy. */
static int mroce_path_rec_idx(const struct mroce_pathset *ps, u16 rec)
{
	int idx = (int)(rec & MROCE_PATH_IDX_MASK) - 1;

	if (idx < 0 || idx >= ps->n || mroce_path_rec(ps, idx) != rec)
		return -ENOENT;
	return idx;
}

static void mroce_path_note(struct mroce_pathset *ps, u32 psn, int idx)
{
	BUILD_BUG_ON(MROCE_PATHS_MAX >= MROCE_PATH_IDX_MASK);
	if (ps->psn_path && idx >= 0)
		ps->psn_path[psn & (MROCE_PATH_PSNS - 1)] =
			mroce_path_rec(ps, idx);
}

/**
 * mroce_path_tx() - choose the path of a new packet and remember it
 * @ps: the path set
 * @psn: the packet's PSN
 * @now: current time
 *
 * Return: as mroce_path_select().
 */
int mroce_path_tx(struct mroce_pathset *ps, u32 psn, u64 now)
{
	int idx = mroce_path_select(ps, now);

	mroce_path_note(ps, psn, idx);
	return idx;
}

/* Charge the suspected loss in slot @i to its path, if it still has it. */
static int mroce_path_charge(struct mroce_pathset *ps, unsigned int i,
			     u64 now)
{
	int idx = mroce_path_rec_idx(ps, ps->suspects[i].rec);

	ps->suspects[i].rec = 0;
	ps->nsuspects--;
	if (idx >= 0)
		mroce_path_on_loss(ps, idx, now);
	return idx;
}

/*
 * Hold the loss of @psn, last sent on the path of record @rec, until
 * @due.  With every slot taken it is neither held nor charged: that many
 * resends within one wait come from a stall or a timeout that repeats a
 * window, which says nothing of any path, and most turn out spurious.
 * Charging the oldest held loss at once instead (before the receiver
 * could clear it) retired dozens of healthy paths in one burst of
 * spurious resends on a slow 2-CPU host.  Losses already held still
 * charge their paths when due.
 */
static void mroce_path_suspect(struct mroce_pathset *ps, u32 psn, u16 rec,
			       u64 due)
{
	unsigned int slot = 0;

	if (ps->nsuspects == MROCE_PATH_SUSPECTS) {
		ps->unheld++;
		return;
	}
	while (ps->suspects[slot].rec)
		slot++;
	ps->suspects[slot].psn = psn;
	ps->suspects[slot].rec = rec;
	ps->suspects[slot].due = due;
	ps->nsuspects++;
}

/**
 * mroce_path_retx() - choose the path of a resent packet
 * @ps: the path set
 * @psn: the packet's PSN
 * @now: current time
 * @wait: the packet was lost (not a probe): its last path is charged
 *	with the loss @wait ns from now (mroce_path_confirm()) unless the
 *	receiver reports the resend spurious first (mroce_path_spurious());
 *	0: nothing is charged
 *
 * A resend avoids the path the packet last took, so one bad path does not
 * lose it twice.  The charge waits because a path that is merely later
 * than the others (reordering, not loss) makes its packets look lost to
 * RACK until they arrive: charging at once drove entropies off the later
 * half of a healthy fabric.
 *
 * Return: as mroce_path_select().
 */
int mroce_path_retx(struct mroce_pathset *ps, u32 psn, u64 now, u64 wait)
{
	int prev = mroce_path_of(ps, psn), idx;

	if (wait && prev >= 0)
		mroce_path_suspect(ps, psn, mroce_path_rec(ps, prev),
				   now + wait);
	idx = mroce_path_choose(ps, now, prev);
	mroce_path_note(ps, psn, idx);
	return idx;
}

/**
 * mroce_path_spurious() - the receiver had the packet a resend repeated
 * @ps: the path set
 * @psn: its PSN
 *
 * The loss held for @psn was not one: its path is not charged.
 */
void mroce_path_spurious(struct mroce_pathset *ps, u32 psn)
{
	unsigned int i;

	for (i = 0; ps->nsuspects && i < MROCE_PATH_SUSPECTS; i++) {
		if (ps->suspects[i].rec && ps->suspects[i].psn == psn) {
			ps->suspects[i].rec = 0;
			ps->nsuspects--;
			ps->cleared++;
		}
	}
}

/**
 * mroce_path_confirm() - charge one held loss that is due
 * @ps: the path set
 * @now: current time
 *
 * Call until it returns -ENOENT.  A loss whose path has taken a fresh
 * entropy since is dropped.
 *
 * Return: the path charged, -ESRCH for a dropped loss, -ENOENT when no
 * loss is due.
 */
int mroce_path_confirm(struct mroce_pathset *ps, u64 now)
{
	unsigned int i;
	int idx;

	for (i = 0; ps->nsuspects && i < MROCE_PATH_SUSPECTS; i++) {
		if (!ps->suspects[i].rec || ps->suspects[i].due > now)
			continue;
		idx = mroce_path_charge(ps, i, now);
		return idx >= 0 ? idx : -ESRCH;
	}
	return -ENOENT;
}

/**
 * mroce_path_of() - the path a PSN last left on
 * @ps: the path set
 * @psn: the PSN
 *
 * Return: its index, or -ENOENT when the set does not know it or the path
 * has taken a fresh entropy since (what happened to the PSN says nothing
 * of the new one).
 */
int mroce_path_of(const struct mroce_pathset *ps, u32 psn)
{
	if (!ps->psn_path)
		return -ENOENT;
	return mroce_path_rec_idx(ps, ps->psn_path[psn & (MROCE_PATH_PSNS - 1)]);
}

/*
 * Retire path @idx: its entropy hashes onto a link that lost or marked a
 * packet, so it takes a fresh one, which ECMP hashes anew, and the set
 * leaves it alone for the hold time (a mark or loss seldom comes alone);
 * its first packet after that is its probe.  A planned path keeps its
 * entropy (the plan chose the link) and is probed on it again.  Another
 * loss or mark during the hold only extends it.  One path has nowhere
 * else to go and is never retired.
 */
static void mroce_path_retire(struct mroce_pathset *ps, unsigned int idx,
			      u64 now)
{
	struct mroce_path *p = &ps->paths[idx];

	if (ps->mode == MROCE_PATH_FLOW || ps->n < 2)
		return;
	p->avoid_until = max_t(u64, p->avoid_until, now + ps->hold_ns);
	if (p->retired)
		return;
	p->retired = true;
	ps->retired++;
	if (ps->planned)
		return;
	p->entropy = mroce_path_entropy(ps, ps->fresh++);
	p->gen++;
	p->srtt_ns = 0;
	p->rttvar_ns = 0;
	p->samples = 0;
}

/* Samples a path needs before its delay is judged against the others. */
#define MROCE_PATH_MIN_SAMPLES	4

/*
 * Path @idx is slow: its smoothed RTT (with enough samples) exceeds that
 * of most other paths measured by slow_ns and by twice their own RTT
 * (three times it: RTTs of a software path under load spread over a
 * factor of two from one path to the next, and retiring those only
 * churns).  Most, not the fastest: the fastest of 64 noisy paths is an
 * outlier, and measured against it healthy paths were retired by the
 * dozen on the leaf-spine testbed.  Nothing is judged before half of the
 * other paths have enough samples.
 */
static bool mroce_path_slow(const struct mroce_pathset *ps, unsigned int idx)
{
	const struct mroce_path *p = &ps->paths[idx], *q;
	unsigned int i, measured = 0, faster = 0;

	if (!ps->slow_ns || p->samples < MROCE_PATH_MIN_SAMPLES)
		return false;
	for (i = 0; i < ps->n; i++) {
		q = &ps->paths[i];
		if (i == idx || q->retired ||
		    q->samples < MROCE_PATH_MIN_SAMPLES)
			continue;
		measured++;
		if (p->srtt_ns > q->srtt_ns &&
		    p->srtt_ns - q->srtt_ns > max_t(u32, 2 * q->srtt_ns,
						    ps->slow_ns))
			faster++;
	}
	/* and not before half of the others are measured */
	return 2 * measured >= ps->n - 1U && 2 * faster > measured;
}

/*
 * RFC 6298 smoothing, gains 1/8 and 1/4, in integer ns.  A path that has
 * become much slower than most (mroce_path_slow()) is retired:
 * its entropy queues behind a busy or long link.
 */
void mroce_path_on_rtt(struct mroce_pathset *ps, unsigned int idx,
		       u32 rtt_ns, u64 now)
{
	struct mroce_path *p;
	u32 err;

	if (idx >= ps->n)
		return;
	p = &ps->paths[idx];
	if (p->samples < 0xff)
		p->samples++;
	if (!p->srtt_ns) {
		p->srtt_ns = rtt_ns;
		p->rttvar_ns = rtt_ns / 2;
	} else {
		err = rtt_ns > p->srtt_ns ? rtt_ns - p->srtt_ns :
					    p->srtt_ns - rtt_ns;
		p->rttvar_ns = p->rttvar_ns - p->rttvar_ns / 4 + err / 4;
		p->srtt_ns = p->srtt_ns - p->srtt_ns / 8 + rtt_ns / 8;
	}
	if (!p->retired && mroce_path_slow(ps, idx))
		mroce_path_retire(ps, idx, now);
}

/* A packet sent on path @idx arrived marked CE. */
void mroce_path_on_ecn(struct mroce_pathset *ps, unsigned int idx, u64 now)
{
	if (idx >= ps->n)
		return;
	ps->paths[idx].ecn++;
	mroce_path_retire(ps, idx, now);
}

/* A packet sent on path @idx was lost. */
void mroce_path_on_loss(struct mroce_pathset *ps, unsigned int idx, u64 now)
{
	if (idx >= ps->n)
		return;
	ps->paths[idx].lost++;
	mroce_path_retire(ps, idx, now);
}
