// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * flush_race: a process races the producer index of its own SQ and RQ
 * rings while the QP is in the error state, where every doorbell makes the
 * kernel flush what the producer index says is posted, with a spinlock held
 * and interrupts off.  A second thread keeps each producer a full ring
 * ahead of the kernel's consumer index, the main thread rings empty doorbells and cycles the QP
 * through RESET back to ERR, and never polls the 16-entry CQ for the first
 * half of the run.  The kernel must bound each flush to the ring size,
 * stop at the full CQ and report IB_EVENT_CQ_ERR (IBTA 11.4.2.1), so every
 * doorbell returns quickly and the guest's lockup detectors stay quiet.
 *
 *   flush_race IBDEV SECONDS
 *
 * The rings and the doorbells are reached as ring_maps.h describes.
 *
 * TAP 13 output.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "ring_maps.h"
#include "../verbs_test.h"

static struct metaroce_ring *sq_hdr, *rq_hdr;
static uint32_t sq_num, rq_num;
static double race_end;

/* The QP's rings: the two uverbs mappings @after has and @before has not. */
static void find_rings(const struct ring_map *before, int nb,
		       const struct ring_map *after, int na)
{
	if (ring_maps_new(before, nb, after, na, &sq_hdr, &rq_hdr)) {
		errno = ENOENT;
		vt_bail("ring mappings");
	}
}

/* Run the calling thread on @cpu only: the racer must not wait for us. */
static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
		vt_bail("pthread_setaffinity_np");
}

/*
 * Keep each producer a full ring ahead of the kernel's consumer, so a
 * flush that loops until the ring looks empty never ends.  (Never more
 * than a ring ahead: the kernel gives up on a broken index at once.)
 * Stops on its own at race_end, so a kernel that loops for as long as the
 * race lasts lets the test report it.
 */
static void *racer(void *arg)
{
	unsigned long *iters = arg;
	uint32_t i = 0;

	pin(1);
	while ((++i & 4095) || vt_now_ms() < race_end) {
		uint32_t c = __atomic_load_n(&sq_hdr->consumer,
					     __ATOMIC_ACQUIRE);
		uint32_t r = __atomic_load_n(&rq_hdr->consumer,
					     __ATOMIC_ACQUIRE);

		__atomic_store_n(&sq_hdr->producer, c + sq_num, __ATOMIC_RELEASE);
		__atomic_store_n(&rq_hdr->producer, r + rq_num, __ATOMIC_RELEASE);
		++*iters;
	}
	return NULL;
}


static int to_state(struct ibv_qp *qp, enum ibv_qp_state s)
{
	if (s == IBV_QPS_INIT)
		return vt_qp_init(qp, IBV_ACCESS_REMOTE_WRITE);
	return vt_to_state(qp, s);
}

/* Non-blocking: true when an IBV_EVENT_CQ_ERR for @cq was queued. */
static bool cq_err_seen(struct ibv_context *ctx, struct ibv_cq *cq)
{
	struct ibv_async_event ev;
	bool seen = false;

	while (!ibv_get_async_event(ctx, &ev)) {
		if (ev.event_type == IBV_EVENT_CQ_ERR && ev.element.cq == cq)
			seen = true;
		ibv_ack_async_event(&ev);
	}
	return seen;
}

/*
 * Before the race, on a QP in ERR: NFULL sends posted in one call against
 * a 16-entry CQ.  The flush must stop at the full CQ (one completion is
 * lost to the overrun) and leave the rest posted; each time the consumer
 * makes room, a doorbell flushes more, until every send is consumed.
 */
#define NFULL	40

static void full_cq_stops(struct ibv_qp *qp, struct ibv_cq *cq)
{
	struct ibv_send_wr wr[NFULL], *bad;
	struct ibv_wc wc[16];
	uint32_t first;
	int i, got = 0, rounds;
	char why[128];

	memset(wr, 0, sizeof(wr));
	for (i = 0; i < NFULL; i++) {
		wr[i].wr_id = i;
		wr[i].opcode = IBV_WR_SEND;
		wr[i].next = i + 1 < NFULL ? &wr[i + 1] : NULL;
	}
	if (ibv_post_send(qp, wr, &bad))
		vt_bail("post_send in ERR");
	first = __atomic_load_n(&sq_hdr->consumer, __ATOMIC_ACQUIRE);
	for (rounds = 0; rounds < 100; rounds++) {
		int n = ibv_poll_cq(cq, 16, wc);

		got += n > 0 ? n : 0;
		if (__atomic_load_n(&sq_hdr->consumer, __ATOMIC_ACQUIRE) == NFULL &&
		    n <= 0)
			break;
		ibv_cmd_post_send(qp, NULL, &bad);
	}
	printf("# %d sends: %u flushed before the CQ was full, %d completions in all\n",
	       NFULL, first, got);
	snprintf(why, sizeof(why), "%u consumed into a 16-entry CQ", first);
	vt_result(first <= 17, "the flush stops at a full CQ", why);
	snprintf(why, sizeof(why), "%d of %d completions", got, NFULL);
	vt_result(got >= NFULL - 3 && got < NFULL,
		  "room in the CQ lets the rest flush, the overruns' lost", why);
}

int main(int argc, char **argv)
{
	struct ibv_qp_cap cap = {
		.max_send_wr = 64, .max_recv_wr = 16,
		.max_send_sge = 1, .max_recv_sge = 1,
	};
	struct ring_map before[RING_MAPS_MAX], after[RING_MAPS_MAX];
	struct ibv_context *ctx;
	struct ibv_send_wr *sbad;
	struct ibv_recv_wr *rbad;
	struct ibv_wc wc[16];
	double end, half, t, worst = 0;
	unsigned long bells = 0, cycles = 0, slow = 0, iters = 0;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	pthread_t th;
	char why[128];
	bool cq_err;
	int nb, na;

	if (argc != 3) {
		fprintf(stderr, "usage: %s IBDEV SECONDS\n", argv[0]);
		return 2;
	}
	ctx = vt_start(argv[1]);
	printf("TAP version 13\n");
	fcntl(ctx->async_fd, F_SETFL, fcntl(ctx->async_fd, F_GETFL) | O_NONBLOCK);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!pd || !cq)
		vt_bail("pd/cq");
	nb = ring_maps(before);
	qp = vt_create_qp(pd, cq, NULL, IBV_QPT_RC, &cap);
	if (!qp)
		vt_bail("create_qp");
	na = ring_maps(after);
	find_rings(before, nb, after, na);
	sq_num = cap.max_send_wr;
	rq_num = cap.max_recv_wr;
	if (to_state(qp, IBV_QPS_INIT) || to_state(qp, IBV_QPS_ERR))
		vt_bail("modify_qp");
	full_cq_stops(qp, cq);

	t = vt_now_ms();
	end = t + atoi(argv[2]) * 1e3;
	half = t + atoi(argv[2]) * 5e2;
	race_end = end;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		printf("1..0 # SKIP the race needs two CPUs\n");
		return 4;
	}
	pin(0);
	if (pthread_create(&th, NULL, racer, &iters))
		vt_bail("pthread_create");
	while ((t = vt_now_ms()) < end) {
		double t1;

		ibv_cmd_post_send(qp, NULL, &sbad);
		ibv_cmd_post_recv(qp, NULL, &rbad);
		bells++;
		t1 = vt_now_ms() - t;
		if (t1 > worst)
			worst = t1;
		slow += t1 > 100;
		if (!(bells % 256)) {
			/* Entering ERR flushes whatever the racer wrote. */
			if (to_state(qp, IBV_QPS_RESET) ||
			    to_state(qp, IBV_QPS_INIT) ||
			    to_state(qp, IBV_QPS_ERR))
				vt_bail("modify_qp cycle");
			cycles++;
		}
		if (t > half)
			ibv_poll_cq(cq, 16, wc);
	}
	pthread_join(th, NULL);
	printf("# %lu racer stores, %lu doorbell pairs (%lu over 100 ms), %lu RESET->ERR cycles, slowest %.1f ms\n",
	       iters, bells, slow, cycles, worst);

	/*
	 * The host of a TCG guest may stall a vCPU for a second or two; a
	 * flush that is not bounded spins for as long as the race lasts.
	 */
	snprintf(why, sizeof(why), "a doorbell took %.0f ms", worst);
	vt_result(worst < atoi(argv[2]) * 5e2,
		  "every doorbell returns under a racing producer", why);
	cq_err = cq_err_seen(ctx, cq);
	vt_result(cq_err, "IBV_EVENT_CQ_ERR on the overrun CQ",
		  "no CQ error event");
	vt_result(!ibv_destroy_qp(qp) && !ibv_destroy_cq(cq) &&
		  !ibv_dealloc_pd(pd) && !ibv_close_device(ctx),
		  "objects destroyed afterwards", strerror(errno));
	return vt_plan();
}
