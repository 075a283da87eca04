// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * mroce_incast: many senders, one receiver.  One process opens the
 * receiver's RDMA device and each sender's (RDMA devices are visible from
 * every namespace), connects one RC QP per sender to a QP of its own on
 * the receiver, and has every sender WRITE messages of one size into its
 * own slot of the receiver's region, DEPTH at a time, until each has sent
 * COUNT.  Every message's completion time (post to completion at the
 * sender) is recorded.  A victim sender, if given, WRITEs 64-byte messages
 * one at a time over the same bottleneck meanwhile: its latency is what a
 * small flow pays for the incast.
 *
 *   mroce_incast -r DEV:GIDIDX -s DEV:GIDIDX [-s ...] [-v DEV:GIDIDX]
 *                [-m SIZE] [-n COUNT] [-d DEPTH] [-R MBIT] [-I COUNT]
 *                [-o FILE] [-E]
 *
 * The last data byte of every slot is checked at the end.  Output, one
 * "key value" line each: senders, msg_bytes, depth, messages, seconds, goodput
 * MB/s (10^6 bytes), fct p50/p99/max in microseconds, and with -R (the
 * bottleneck's rate in Mbit/s) the ideal completion time of one message
 * when all senders share the bottleneck fairly: posted behind DEPTH - 1
 * of its own flow, it completes once DEPTH messages of every sender have
 * crossed (size x DEPTH x senders / rate); the p50/p99 ratios to it and
 * the bottleneck use; victim p50/p99 in microseconds.  -I COUNT first has
 * the victim WRITE COUNT messages one at a time alone, before the incast
 * starts, and prints their p50/p99 as its idle latency and the loaded p99
 * over the idle p99.  -o writes every completion time (sender, us) to
 * FILE.  -E exchanges the QPs' ECE offers before RTR (ibv_query_ece(),
 * ibv_set_ece()), as rdma_cm does in its REQ and REP and as programs that
 * connect QPs over their own sockets can: two MetaRoCE devices then agree
 * on MetaRoCE mode before the first packet instead of on it (a device
 * without ECE, rdma_rxe, answers EOPNOTSUPP and nothing changes).
 * Exit status 0 when every message completed and checked out.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "../verbs_test.h"

#define MAX_SENDERS	16
#define VICTIM_SIZE	64

struct end {
	const char *name;
	int gid_idx;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
	union ibv_gid gid;
	enum ibv_mtu mtu;
};

struct flow {
	struct end snd;			/* the sender's device */
	struct ibv_qp *qp;		/* on the sender */
	struct ibv_qp *rqp;		/* its peer on the receiver */
	uint32_t size;
	unsigned long count, posted, done;
	double *t_post;			/* per message, ms */
	double *fct;			/* per message, us */
	uint64_t slot;			/* its slot in the receiver's region */
};

static struct end rcv;
static struct flow flows[MAX_SENDERS + 1];
static int nsend;
static bool victim;
static bool ece;

static int parse_end(const char *arg, struct end *e)
{
	const char *colon = strrchr(arg, ':');

	if (!colon || colon == arg)
		return -1;
	e->name = strndup(arg, colon - arg);
	e->gid_idx = atoi(colon + 1);
	return 0;
}

static void open_end(struct end *e, size_t len)
{
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;

	e->ctx = vt_open_dev(e->name);
	if (!e->ctx)
		vt_bail(e->name);
	e->pd = ibv_alloc_pd(e->ctx);
	e->cq = ibv_create_cq(e->ctx, 1024, NULL, NULL, 0);
	if (!e->pd || !e->cq || posix_memalign((void **)&e->buf, 4096, len))
		vt_bail("alloc");
	e->mr = ibv_reg_mr(e->pd, e->buf, len, access);
	if (!e->mr || vt_port_gid(e->ctx, e->gid_idx, &e->gid, &e->mtu))
		vt_bail("mr/gid");
}

static struct ibv_qp *rc_qp(struct end *e, uint32_t depth)
{
	struct ibv_qp_cap cap = {
		.max_send_wr = depth, .max_recv_wr = 1,
		.max_send_sge = 1, .max_recv_sge = 1,
	};
	struct ibv_qp *qp = vt_create_qp(e->pd, e->cq, NULL, IBV_QPT_RC,
					 &cap);

	if (!qp || vt_qp_init(qp, IBV_ACCESS_REMOTE_WRITE))
		vt_bail("qp");
	return qp;
}

/*
 * The sender's offer to the receiver's QP, its answer back: both QPs then
 * hold the same answer.  EOPNOTSUPP (no ECE on the device) is no error.
 */
static void exchange_ece(struct flow *f)
{
	struct ibv_ece offer, answer;
	int rc;

	rc = ibv_query_ece(f->qp, &offer);
	if (rc == EOPNOTSUPP)
		return;
	if (rc || ibv_set_ece(f->rqp, &offer) ||
	    ibv_query_ece(f->rqp, &answer) || ibv_set_ece(f->qp, &answer))
		vt_bail("ece");
}

static void connect_pair(struct flow *f)
{
	struct vt_conn c = {
		.mtu = f->snd.mtu < rcv.mtu ? f->snd.mtu : rcv.mtu,
		.rq_psn = 0, .sq_psn = 0, .rd_atomic = 1, .min_rnr_timer = 12,
		.timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
	};

	if (ece)
		exchange_ece(f);
	if (vt_connect(f->qp, &rcv.gid, f->snd.gid_idx, f->rqp->qp_num, &c) ||
	    vt_connect(f->rqp, &f->snd.gid, rcv.gid_idx, f->qp->qp_num, &c))
		vt_bail("RTR/RTS");
}

static void post(struct flow *f, unsigned long i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)f->snd.buf, .length = f->size,
		.lkey = f->snd.mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = i, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)rcv.buf + f->slot,
			     .rkey = rcv.mr->rkey },
	}, *bad;

	/* The message's last byte tells which message wrote the slot last. */
	f->snd.buf[f->size - 1] = (uint8_t)(i + 1);
	f->t_post[i] = vt_now_ms();
	if (ibv_post_send(f->qp, &wr, &bad))
		vt_bail("post_send");
	f->posted++;
}

/*
 * The victim alone: @n WRITEs one at a time; their latencies, in us, to
 * @lat (it bails on an error).
 */
static void victim_idle(struct flow *f, double *lat, unsigned long n)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)f->snd.buf, .length = f->size,
		.lkey = f->snd.mr->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)rcv.buf + f->slot,
			     .rkey = rcv.mr->rkey },
	}, *bad;
	unsigned long i;
	struct ibv_wc wc;
	double t;
	int n_wc;

	for (i = 0; i < n; i++) {
		t = vt_now_ms();
		if (ibv_post_send(f->qp, &wr, &bad))
			vt_bail("post_send");
		while ((n_wc = ibv_poll_cq(f->snd.cq, 1, &wc)) == 0)
			;
		if (n_wc < 0 || wc.status != IBV_WC_SUCCESS)
			vt_bail("victim alone");
		lat[i] = (vt_now_ms() - t) * 1e3;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double pct(const double *sorted, unsigned long n, double p)
{
	unsigned long k = (unsigned long)(p / 100 * (n - 1) + 0.5);

	return n ? sorted[k < n ? k : n - 1] : 0;
}

int main(int argc, char **argv)
{
	unsigned long count = 50, depth = 4, i, total = 0, nfct = 0, idle = 0;
	uint32_t size = 65536;
	double rate = 0, t0, t1, *all, *idle_lat = NULL;
	const char *out = NULL;
	int opt, k, bad = 0;
	FILE *fo = NULL;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "r:s:v:m:n:d:R:I:o:E")) != -1) {
		switch (opt) {
		case 'r':
			if (parse_end(optarg, &rcv))
				return 2;
			break;
		case 's':
			if (nsend == MAX_SENDERS ||
			    parse_end(optarg, &flows[nsend].snd))
				return 2;
			nsend++;
			break;
		case 'v':
			if (parse_end(optarg, &flows[MAX_SENDERS].snd))
				return 2;
			victim = true;
			break;
		case 'm':
			size = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			count = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			depth = strtoul(optarg, NULL, 0);
			break;
		case 'R':
			rate = strtod(optarg, NULL);
			break;
		case 'I':
			idle = strtoul(optarg, NULL, 0);
			break;
		case 'o':
			out = optarg;
			break;
		case 'E':
			ece = true;
			break;
		default:
			return 2;
		}
	}
	if (!rcv.name || !nsend || size < 1 || !count || !depth ||
	    depth > 256 || (idle && !victim)) {
		fprintf(stderr, "usage: mroce_incast -r DEV:GID -s DEV:GID [-s ...] [-v DEV:GID] [-m SIZE] [-n COUNT] [-d DEPTH] [-R MBIT] [-I COUNT] [-o FILE] [-E]\n");
		return 2;
	}
	open_end(&rcv, (size_t)size * nsend + VICTIM_SIZE);
	memset(rcv.buf, 0, (size_t)size * nsend + VICTIM_SIZE);
	for (k = 0; k <= MAX_SENDERS; k++) {
		struct flow *f = &flows[k];

		if (k >= nsend && (k != MAX_SENDERS || !victim))
			continue;
		f->size = k == MAX_SENDERS ? VICTIM_SIZE : size;
		f->count = k == MAX_SENDERS ? 1000000 : count;
		f->slot = k == MAX_SENDERS ? (uint64_t)size * nsend :
					     (uint64_t)size * k;
		open_end(&f->snd, f->size);
		f->t_post = calloc(f->count, sizeof(double));
		f->fct = calloc(f->count, sizeof(double));
		if (!f->t_post || !f->fct)
			vt_bail("alloc");
		f->qp = rc_qp(&f->snd, depth);
		f->rqp = rc_qp(&rcv, 1);
		connect_pair(f);
	}

	if (idle) {
		idle_lat = calloc(idle, sizeof(double));
		if (!idle_lat)
			vt_bail("alloc");
		victim_idle(&flows[MAX_SENDERS], idle_lat, idle);
		qsort(idle_lat, idle, sizeof(double), cmp_double);
	}

	t0 = vt_now_ms();
	for (;;) {
		bool busy = false;

		for (k = 0; k <= MAX_SENDERS; k++) {
			struct flow *f = &flows[k];
			struct ibv_wc wc[16];
			int n, j;

			if (!f->qp)
				continue;
			if (k < MAX_SENDERS && f->done < f->count)
				busy = true;
			/* The victim: one at a time, while the incast runs. */
			while (f->posted < f->count &&
			       f->posted - f->done <
			       (k == MAX_SENDERS ? 1 : depth))
				post(f, f->posted);
			n = ibv_poll_cq(f->snd.cq, 16, wc);
			for (j = 0; j < n; j++) {
				if (wc[j].status != IBV_WC_SUCCESS) {
					printf("FAIL sender %d message %" PRIu64 ": %s\n",
					       k, wc[j].wr_id,
					       ibv_wc_status_str(wc[j].status));
					return 1;
				}
				f->fct[wc[j].wr_id] =
					(vt_now_ms() - f->t_post[wc[j].wr_id]) * 1e3;
				f->done++;
			}
		}
		if (!busy)
			break;
	}
	t1 = vt_now_ms();
	/* Let the victim's last message finish. */
	while (victim && flows[MAX_SENDERS].done < flows[MAX_SENDERS].posted) {
		struct ibv_wc wc;
		struct flow *v = &flows[MAX_SENDERS];

		if (ibv_poll_cq(v->snd.cq, 1, &wc) > 0) {
			v->fct[wc.wr_id] = (vt_now_ms() - v->t_post[wc.wr_id]) * 1e3;
			v->done++;
		}
	}

	for (k = 0; k < nsend; k++) {
		uint8_t want = (uint8_t)count;

		if (rcv.buf[flows[k].slot + size - 1] != want) {
			printf("FAIL sender %d: slot ends in %u, want %u\n", k,
			       rcv.buf[flows[k].slot + size - 1], want);
			bad = 1;
		}
		total += flows[k].done;
	}
	all = calloc(total, sizeof(double));
	if (!all)
		vt_bail("alloc");
	if (out)
		fo = fopen(out, "w");
	for (k = 0; k < nsend; k++)
		for (i = 0; i < flows[k].done; i++) {
			all[nfct++] = flows[k].fct[i];
			if (fo)
				fprintf(fo, "%d %.1f\n", k, flows[k].fct[i]);
		}
	if (fo)
		fclose(fo);
	qsort(all, nfct, sizeof(double), cmp_double);
	printf("senders %d\nmsg_bytes %u\ndepth %lu\nmessages %lu\nseconds %.3f\n",
	       nsend, size, depth, total, (t1 - t0) / 1e3);
	printf("goodput_MBps %.2f\n", total * (double)size / ((t1 - t0) * 1e3));
	printf("fct_p50_us %.0f\nfct_p99_us %.0f\nfct_max_us %.0f\n",
	       pct(all, nfct, 50), pct(all, nfct, 99), all[nfct - 1]);
	if (rate > 0) {
		double ideal = (double)size * 8 * depth * nsend / rate;

		printf("ideal_us %.0f\np50_ratio %.2f\np99_ratio %.2f\n", ideal,
		       pct(all, nfct, 50) / ideal, pct(all, nfct, 99) / ideal);
		printf("bottleneck_use %.2f\n",
		       total * (double)size * 8 / ((t1 - t0) * 1e3) / rate);
	}
	if (victim) {
		struct flow *v = &flows[MAX_SENDERS];

		qsort(v->fct, v->done, sizeof(double), cmp_double);
		printf("victim_messages %lu\nvictim_p50_us %.0f\nvictim_p99_us %.0f\n",
		       v->done, pct(v->fct, v->done, 50),
		       pct(v->fct, v->done, 99));
		if (idle)
			printf("victim_idle_p50_us %.0f\nvictim_idle_p99_us %.0f\nvictim_p99_ratio %.2f\n",
			       pct(idle_lat, idle, 50), pct(idle_lat, idle, 99),
			       pct(v->fct, v->done, 99) /
			       pct(idle_lat, idle, 99));
	}
	return bad;
}
