/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * For tests that play a broken provider: find the rings of a QP in
 * /proc/self/maps and ring its doorbells by hand.
 *
 * The provider maps the SQ, then the RQ, from the uverbs file during
 * ibv_create_qp(), and the kernel hands out mmap offsets in creation
 * order: the QP's rings are the two new uverbs mappings, the SQ at the
 * lower offset.  The doorbell is libibverbs' own ibv_cmd_post_send() /
 * ibv_cmd_post_recv() with no work request, as the provider issues it
 * (exported for providers, not declared in the public headers).
 */
#ifndef RING_MAPS_H
#define RING_MAPS_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <infiniband/verbs.h>
#include <rdma/metaroce-abi.h>

int ibv_cmd_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		      struct ibv_send_wr **bad_wr);
int ibv_cmd_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr);

#define RING_MAPS_MAX	64

struct ring_map {
	uintptr_t start;
	unsigned long long off;
};

/* The mappings of /dev/infiniband/uverbs* in this process; -1 on error. */
static inline int ring_maps(struct ring_map *m)
{
	char line[512], path[256];
	unsigned long long off;
	uintptr_t start, end;
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0;

	if (!f)
		return -1;
	while (n < RING_MAPS_MAX && fgets(line, sizeof(line), f)) {
		path[0] = 0;
		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %*s %llx %*s %*s %255s",
			   &start, &end, &off, path) != 4 ||
		    strncmp(path, "/dev/infiniband/uverbs", 22))
			continue;
		m[n].start = start;
		m[n].off = off;
		n++;
	}
	fclose(f);
	return n;
}

static inline int ring_maps_known(const struct ring_map *m, int n,
				  uintptr_t start)
{
	int i;

	for (i = 0; i < n; i++)
		if (m[i].start == start)
			return 1;
	return 0;
}

/* The SQ and RQ among the mappings @after has and @before has not. */
static inline int ring_maps_new(const struct ring_map *before, int nb,
				const struct ring_map *after, int na,
				struct metaroce_ring **sq,
				struct metaroce_ring **rq)
{
	const struct ring_map *lo = NULL, *hi = NULL;
	int i;

	for (i = 0; i < na; i++) {
		if (ring_maps_known(before, nb, after[i].start))
			continue;
		if (!lo || after[i].off < lo->off) {
			hi = lo;
			lo = &after[i];
		} else if (!hi || after[i].off < hi->off) {
			hi = &after[i];
		}
	}
	if (!lo || !hi)
		return -1;
	*sq = (struct metaroce_ring *)lo->start;
	*rq = (struct metaroce_ring *)hi->start;
	return 0;
}

#endif /* RING_MAPS_H */
