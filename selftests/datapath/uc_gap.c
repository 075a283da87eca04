// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * uc_gap: UC over a lossy path (IBTA 9.7).  Device A sends N multi-packet
 * messages to device B on a UC QP, alternating SEND and RDMA WRITE with
 * immediate; the caller makes the path drop packets (netem).  Checks:
 *  - every send work request completes successfully on A (a UC requester
 *    waits for no ACK and resends nothing);
 *  - every completion on B is a whole message: the right length, the
 *    content of exactly one message, in sending order.  A message that lost
 *    any packet (first, middle or last) must not complete: the responder
 *    drops the rest of it and waits for the next FIRST or ONLY;
 *  - a receive WQE is consumed only by a message that completes: the
 *    receives complete in posting order with no holes.
 * Prints "delivered D of N"; the caller checks that D < N (packets were
 * lost) and D > 0.
 *
 *   uc_gap -a DEV -g GIDIDX -b DEV -G GIDIDX [-n MSGS]
 */
#include <endian.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "../verbs_test.h"

#define MTU_BYTES	1024
#define MSG_LEN		(3 * MTU_BYTES + 100)	/* FIRST, 2 MIDDLE, LAST */
#define SLOT		4096
#define MAX_MSGS	1024
#define SQ_DEPTH	64

struct side {
	const char *name;
	int gid_idx;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;		/* A: send slots; B: receive, then write slots */
	union ibv_gid gid;
	uint32_t psn;
};

static void setup(struct side *s, int n)
{
	struct ibv_qp_cap cap = {
		.max_send_wr = SQ_DEPTH, .max_recv_wr = MAX_MSGS,
		.max_send_sge = 1, .max_recv_sge = 1,
	};
	size_t len = (size_t)2 * n * SLOT;

	s->ctx = vt_open_dev(s->name);
	if (!s->ctx)
		vt_bail(s->name);
	s->pd = ibv_alloc_pd(s->ctx);
	s->cq = ibv_create_cq(s->ctx, 2 * MAX_MSGS, NULL, NULL, 0);
	if (posix_memalign((void **)&s->buf, 4096, len) || !s->pd || !s->cq)
		vt_bail("alloc");
	memset(s->buf, 0, len);
	s->mr = ibv_reg_mr(s->pd, s->buf, len, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE);
	s->qp = vt_create_qp(s->pd, s->cq, NULL, IBV_QPT_UC, &cap);
	if (!s->mr || !s->qp)
		vt_bail("mr/qp");
	if (vt_port_gid(s->ctx, s->gid_idx, &s->gid, NULL))
		vt_bail("query_gid");
	s->psn = rand() & 0xffffff;
}

/* UC: INIT, RTR and RTS with no ACK-related attribute (IBTA 9.7). */
static void connect_qp(struct side *s, struct side *peer)
{
	struct vt_conn c = {
		.mtu = IBV_MTU_1024, .rq_psn = peer->psn, .sq_psn = s->psn,
		.uc = true,
	};

	if (vt_qp_init(s->qp, IBV_ACCESS_REMOTE_WRITE) ||
	    vt_connect(s->qp, &peer->gid, s->gid_idx, peer->qp->qp_num, &c))
		vt_bail("connect");
}

static uint8_t pattern(uint32_t msg, uint32_t k)
{
	return (uint8_t)(msg * 31 + k * 7 + (k >> 8));
}

static void fill_msg(uint8_t *p, uint32_t msg)
{
	uint32_t k;

	for (k = 0; k < MSG_LEN; k++)
		p[k] = pattern(msg, k);
	memcpy(p, &msg, sizeof(msg));
}

/* Is @p exactly message number *@msg?  Sets *@msg from its header. */
static bool whole_msg(const uint8_t *p, uint32_t *msg)
{
	uint32_t k;

	memcpy(msg, p, sizeof(*msg));
	for (k = sizeof(*msg); k < MSG_LEN; k++)
		if (p[k] != pattern(*msg, k))
			return false;
	return true;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct side a = { .gid_idx = -1 }, b = { .gid_idx = -1 };
	int n = 400, c, i, posted = 0, sent = 0, fails = 0;
	uint32_t delivered = 0, next_rwr = 0, last = 0;
	bool any = false;
	struct ibv_wc wc[16];
	double idle;

	srand(time(NULL));
	while ((c = getopt(argc, argv, "a:b:g:G:n:")) != -1) {
		switch (c) {
		case 'a': a.name = optarg; break;
		case 'b': b.name = optarg; break;
		case 'g': a.gid_idx = atoi(optarg); break;
		case 'G': b.gid_idx = atoi(optarg); break;
		case 'n': n = atoi(optarg); break;
		default: goto usage;
		}
	}
	if (!a.name || !b.name || a.gid_idx < 0 || b.gid_idx < 0 ||
	    n < 2 || n > MAX_MSGS)
		goto usage;
	setup(&a, n);
	setup(&b, n);
	connect_qp(&a, &b);
	connect_qp(&b, &a);

	/* B: one receive per message, in the first half of its buffer. */
	for (i = 0; i < n; i++) {
		struct ibv_sge sge = { (uintptr_t)b.buf + (size_t)i * SLOT,
				       SLOT, b.mr->lkey };
		struct ibv_recv_wr rwr = { .wr_id = i, .sg_list = &sge,
					   .num_sge = 1 }, *bad;

		if (ibv_post_recv(b.qp, &rwr, &bad))
			vt_bail("post_recv");
	}

	/* A: SEND for even messages, WRITE_WITH_IMM (imm = number) for odd. */
	while (sent < n) {
		while (posted < n && posted - sent < SQ_DEPTH) {
			uint8_t *p = a.buf + (size_t)posted * SLOT;
			struct ibv_sge sge = { (uintptr_t)p, MSG_LEN,
					       a.mr->lkey };
			struct ibv_send_wr wr = {
				.wr_id = posted, .sg_list = &sge, .num_sge = 1,
				.send_flags = IBV_SEND_SIGNALED,
			}, *bad;

			fill_msg(p, posted);
			if (posted & 1) {
				wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
				wr.imm_data = htobe32(posted);
				wr.wr.rdma.remote_addr = (uintptr_t)b.buf +
					(size_t)(n + posted) * SLOT;
				wr.wr.rdma.rkey = b.mr->rkey;
			} else {
				wr.opcode = IBV_WR_SEND;
			}
			if (ibv_post_send(a.qp, &wr, &bad))
				vt_bail("post_send");
			posted++;
		}
		idle = now();
		while ((c = ibv_poll_cq(a.cq, 16, wc)) == 0)
			if (now() - idle > 20)
				vt_bail("send completions (none for 20 s)");
		if (c < 0)
			vt_bail("poll a");
		for (i = 0; i < c; i++) {
			if (wc[i].status != IBV_WC_SUCCESS ||
			    wc[i].wr_id != (uint64_t)sent) {
				printf("FAIL send %d: status %s wr_id %llu\n",
				       sent, ibv_wc_status_str(wc[i].status),
				       (unsigned long long)wc[i].wr_id);
				return 1;
			}
			sent++;
		}
	}
	printf("all %d sends completed on %s\n", n, a.name);

	/* B: whatever arrives within two quiet seconds. */
	idle = now();
	while (now() - idle < 2) {
		c = ibv_poll_cq(b.cq, 16, wc);
		if (c < 0)
			vt_bail("poll b");
		if (c)
			idle = now();
		for (i = 0; i < c; i++) {
			uint32_t msg = 0;
			bool ok;

			if (wc[i].status != IBV_WC_SUCCESS) {
				printf("FAIL receive status %s\n",
				       ibv_wc_status_str(wc[i].status));
				fails++;
				continue;
			}
			if (wc[i].wr_id != next_rwr) {
				printf("FAIL receive WQE %llu completed, %u expected\n",
				       (unsigned long long)wc[i].wr_id,
				       next_rwr);
				fails++;
			}
			next_rwr = wc[i].wr_id + 1;
			if (wc[i].opcode == IBV_WC_RECV_RDMA_WITH_IMM) {
				uint32_t want = be32toh(wc[i].imm_data);

				ok = want < (uint32_t)n &&
				     whole_msg(b.buf + (size_t)(n + want) *
					       SLOT, &msg) && msg == want;
			} else {
				ok = wc[i].opcode == IBV_WC_RECV &&
				     whole_msg(b.buf + wc[i].wr_id * SLOT,
					       &msg) && !(msg & 1);
			}
			if (!ok || wc[i].byte_len != MSG_LEN ||
			    (any && msg <= last)) {
				printf("FAIL completion %u: opcode %d byte_len %u message %u after %u%s\n",
				       delivered, wc[i].opcode,
				       wc[i].byte_len, msg, last,
				       ok ? "" : ", not one whole message");
				fails++;
			}
			last = msg;
			any = true;
			delivered++;
		}
	}
	printf("delivered %u of %d\n", delivered, n);
	return fails ? 1 : 0;
usage:
	fprintf(stderr, "usage: %s -a DEV -g GIDIDX -b DEV -G GIDIDX [-n MSGS]\n",
		argv[0]);
	return 2;
}
