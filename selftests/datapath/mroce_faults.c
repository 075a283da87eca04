// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * mroce_faults: receiver-side faults of an RC connection between two RDMA
 * devices opened by one process, each checked for its completion statuses
 * and, where messages arrive, their data.  TAP 13 output.
 *
 *   mroce_faults -a DEV -g GIDIDX -b DEV -G GIDIDX rnr [-n N] [-r RNR_RETRY]
 *                [-t MIN_RNR_TIMER] [-d DELAY_MS]
 *
 * RNR (IBTA 9.7.5.2.8): a sends N SENDs of 4 KiB while b has no receive
 * posted; b's responder answers RNR NAKs with its min_rnr_timer (-t, IBTA
 * table 45 encoding; 1 = 0.01 ms makes a storm of them) and a retries.
 * After DELAY_MS b posts N receives: with rnr_retry 7 (retry forever)
 * every SEND completes successfully, in order, its data intact.  With
 * -d -1 b never posts: with rnr_retry below 7 the first SEND completes with
 * IBV_WC_RNR_RETRY_EXC_ERR, the others with IBV_WC_WR_FLUSH_ERR, and a's
 * QP is in ERR.
 *
 *   mroce_faults -a DEV -g GIDIDX -b DEV -G GIDIDX cqover [-n N] [-c CQE]
 *
 * CQ overrun (IBTA 11.4.2.1): b's receive CQ holds CQE entries, b posts N
 * receives, a sends N SENDs and b does not poll.  b gets
 * IBV_EVENT_CQ_ERR for that CQ and its QP goes to ERR; the completions
 * that fit are there, successful and with their data; every SEND of a
 * completes (successfully, or with a retry error once b's QP stopped
 * answering, then flushed): nothing hangs.  CQE is what b asked for; the
 * CQ may hold more (its cqe after creation), which the checks use.
 *
 * Exit status 0 when every check passed.
 */
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "../verbs_test.h"

#define MSG_LEN		4096
#define MAX_MSGS	256

struct side {
	const char *name;
	int gid_idx;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	union ibv_gid gid;
	enum ibv_mtu mtu;
};

static struct side sa = { .name = NULL }, sb = { .name = NULL };
static int nmsg = 32;

static void setup(struct side *s, int cqe)
{
	struct ibv_qp_cap cap = {
		.max_send_wr = MAX_MSGS, .max_recv_wr = MAX_MSGS,
		.max_send_sge = 1, .max_recv_sge = 1,
	};

	s->ctx = vt_open_dev(s->name);
	if (!s->ctx)
		vt_bail(s->name);
	s->pd = ibv_alloc_pd(s->ctx);
	s->cq = ibv_create_cq(s->ctx, cqe, NULL, NULL, 0);
	if (posix_memalign((void **)&s->buf, 4096, MAX_MSGS * MSG_LEN) ||
	    !s->pd || !s->cq)
		vt_bail("pd, cq, buffer");
	s->mr = ibv_reg_mr(s->pd, s->buf, MAX_MSGS * MSG_LEN,
			   IBV_ACCESS_LOCAL_WRITE);
	s->qp = vt_create_qp(s->pd, s->cq, NULL, IBV_QPT_RC, &cap);
	if (!s->mr || !s->qp)
		vt_bail("mr, qp");
	if (vt_port_gid(s->ctx, s->gid_idx, &s->gid, &s->mtu))
		vt_bail("gid");
}

static void connect_pair(uint8_t rnr_retry, uint8_t rnr_timer,
			 uint8_t retry_cnt)
{
	struct vt_conn c = {
		.mtu = sa.mtu < sb.mtu ? sa.mtu : sb.mtu,
		.rq_psn = 0x100, .sq_psn = 0x100, .rd_atomic = 1,
		.min_rnr_timer = rnr_timer, .timeout = 14,
		.retry_cnt = retry_cnt, .rnr_retry = rnr_retry,
	};

	if (vt_qp_init(sa.qp, 0) || vt_qp_init(sb.qp, 0) ||
	    vt_connect(sa.qp, &sb.gid, sa.gid_idx, sb.qp->qp_num, &c) ||
	    vt_connect(sb.qp, &sa.gid, sb.gid_idx, sa.qp->qp_num, &c))
		vt_bail("connect");
}

static uint8_t pattern(int msg, int i)
{
	return (uint8_t)(msg * 31 + i * 7 + (i >> 8));
}

static void post_sends(void)
{
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_sge sge;
	int m, i;

	for (m = 0; m < nmsg; m++) {
		for (i = 0; i < MSG_LEN; i++)
			sa.buf[m * MSG_LEN + i] = pattern(m, i);
		sge.addr = (uintptr_t)sa.buf + m * MSG_LEN;
		sge.length = MSG_LEN;
		sge.lkey = sa.mr->lkey;
		wr.wr_id = m;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND;
		wr.send_flags = IBV_SEND_SIGNALED;
		if (ibv_post_send(sa.qp, &wr, &bad))
			vt_bail("post_send");
	}
}

static void post_recvs(void)
{
	struct ibv_recv_wr wr = {}, *bad;
	struct ibv_sge sge;
	int m;

	memset(sb.buf, 0, MAX_MSGS * MSG_LEN);
	for (m = 0; m < nmsg; m++) {
		sge.addr = (uintptr_t)sb.buf + m * MSG_LEN;
		sge.length = MSG_LEN;
		sge.lkey = sb.mr->lkey;
		wr.wr_id = m;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		if (ibv_post_recv(sb.qp, &wr, &bad))
			vt_bail("post_recv");
	}
}

/* Poll @cq for @n completions into @wc within @ms: how many came. */
static int poll_n(struct ibv_cq *cq, struct ibv_wc *wc, int n, double ms)
{
	double end = vt_now_ms() + ms;
	int got = 0, r;

	while (got < n && vt_now_ms() < end) {
		r = ibv_poll_cq(cq, n - got, wc + got);
		if (r < 0)
			return got;
		got += r;
		if (!r)
			usleep(200);
	}
	return got;
}

/* Message @m arrived in b's slot @m intact. */
static bool data_ok(int m)
{
	int i;

	for (i = 0; i < MSG_LEN; i++)
		if (sb.buf[m * MSG_LEN + i] != pattern(m, i))
			return false;
	return true;
}

static void test_rnr(int rnr_retry, int timer, int delay_ms)
{
	struct ibv_wc wc[MAX_MSGS], rwc[MAX_MSGS];
	int got, rgot = 0, m, bad = 0;

	connect_pair(rnr_retry, timer, 7);
	post_sends();
	if (delay_ms >= 0) {
		usleep(delay_ms * 1000);
		post_recvs();
	}
	got = poll_n(sa.cq, wc, nmsg, 60000);
	vt_check(got == nmsg, "rnr_retry %d: %d of %d SENDs completed", rnr_retry,
		 got, nmsg);
	if (delay_ms >= 0) {
		for (m = 0; m < got; m++)
			bad += wc[m].status != IBV_WC_SUCCESS ||
			       wc[m].wr_id != (uint64_t)m;
		vt_check(got && !bad,
			 "rnr_retry %d, receives posted after %d ms: every SEND successful, in order (%d not)",
			 rnr_retry, delay_ms, bad);
		rgot = poll_n(sb.cq, rwc, nmsg, 10000);
		bad = rgot != nmsg;
		for (m = 0; m < rgot; m++)
			bad += rwc[m].status != IBV_WC_SUCCESS ||
			       rwc[m].wr_id != (uint64_t)m ||
			       rwc[m].byte_len != MSG_LEN ||
			       !data_ok(m);
		vt_check(!bad,
			 "%d of %d receives successful, in order, data intact",
			 rgot, nmsg);
		return;
	}
	vt_check(got && wc[0].status == IBV_WC_RNR_RETRY_EXC_ERR,
		 "rnr_retry %d, no receive posted: the first SEND fails with RNR_RETRY_EXC_ERR (%s)",
		 rnr_retry, got ? ibv_wc_status_str(wc[0].status) : "none");
	for (m = 1; m < got; m++)
		bad += wc[m].status != IBV_WC_WR_FLUSH_ERR;
	vt_check(!bad, "the other %d SENDs are flushed (%d not)", got - 1, bad);
	vt_check(vt_wait_state(sa.qp, "a", IBV_QPS_ERR, 5000) == 0,
		 "the requester's QP is in ERR");
}

/* Wait up to @ms for async event @type of @ctx: true when it came. */
static bool wait_async(struct ibv_context *ctx, enum ibv_event_type type,
		       void *element, double ms)
{
	double end = vt_now_ms() + ms;
	struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	bool found = false;

	while (!found && vt_now_ms() < end) {
		if (poll(&p, 1, 100) <= 0)
			continue;
		if (ibv_get_async_event(ctx, &ev))
			break;
		found = ev.event_type == type && ev.element.cq == element;
		printf("# async event %s\n", ibv_event_type_str(ev.event_type));
		ibv_ack_async_event(&ev);
	}
	return found;
}

static void test_cqover(int cqe)
{
	struct ibv_wc wc[MAX_MSGS], rwc[MAX_MSGS];
	int got, rgot, m, ok = 0, bad = 0, flags;

	/* Few retries: once b's QP is in ERR, a gives up soon. */
	connect_pair(7, 12, 2);
	flags = fcntl(sb.ctx->async_fd, F_GETFL);
	fcntl(sb.ctx->async_fd, F_SETFL, flags | O_NONBLOCK);
	post_recvs();
	post_sends();
	vt_check(wait_async(sb.ctx, IBV_EVENT_CQ_ERR, sb.cq, 30000),
		 "b's CQ of %d entries overruns: IBV_EVENT_CQ_ERR", sb.cq->cqe);
	vt_check(vt_wait_state(sb.qp, "b", IBV_QPS_ERR, 10000) == 0,
		 "b's QP is in ERR");
	got = poll_n(sa.cq, wc, nmsg, 60000);
	for (m = 0; m < got; m++) {
		if (wc[m].status == IBV_WC_SUCCESS && m == ok)
			ok++;
		else if (wc[m].status != IBV_WC_RETRY_EXC_ERR &&
			 wc[m].status != IBV_WC_WR_FLUSH_ERR)
			bad++;
	}
	/*
	 * b accepted at most the messages whose completions fit, and the one
	 * that overran; their ACKs may have been held back (coalesced) when
	 * its QP stopped, so fewer can have succeeded, never more.
	 */
	vt_check(got == nmsg && !bad && ok <= sb.cq->cqe + 1,
		 "every SEND of a completed (%d of %d): %d successful, then retry exceeded or flushed (%d other)",
		 got, nmsg, ok, bad);
	rgot = poll_n(sb.cq, rwc, nmsg, 1000);
	bad = 0;
	for (m = 0; m < rgot; m++)
		bad += rwc[m].status != IBV_WC_SUCCESS ||
		       rwc[m].wr_id != (uint64_t)m || !data_ok(m);
	vt_check(rgot == sb.cq->cqe && !bad,
		 "b's CQ holds %d completions (of %d), successful, data intact",
		 rgot, sb.cq->cqe);
}

static void teardown(struct side *s)
{
	ibv_destroy_qp(s->qp);
	ibv_dereg_mr(s->mr);
	ibv_destroy_cq(s->cq);
	ibv_dealloc_pd(s->pd);
	ibv_close_device(s->ctx);
	free(s->buf);
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s -a DEV -g GIDIDX -b DEV -G GIDIDX rnr [-n N] [-r RNR_RETRY] [-t TIMER] [-d DELAY_MS]\n"
		"       %s -a DEV -g GIDIDX -b DEV -G GIDIDX cqover [-n N] [-c CQE]\n",
		prog, prog);
	exit(2);
}

int main(int argc, char **argv)
{
	int rnr_retry = 7, timer = 1, delay = 500, cqe = 4, opt;
	const char *mode;

	while ((opt = getopt(argc, argv, "a:g:b:G:n:r:t:d:c:")) != -1) {
		switch (opt) {
		case 'a': sa.name = optarg; break;
		case 'g': sa.gid_idx = atoi(optarg); break;
		case 'b': sb.name = optarg; break;
		case 'G': sb.gid_idx = atoi(optarg); break;
		case 'n': nmsg = atoi(optarg); break;
		case 'r': rnr_retry = atoi(optarg); break;
		case 't': timer = atoi(optarg); break;
		case 'd': delay = atoi(optarg); break;
		case 'c': cqe = atoi(optarg); break;
		default: usage(argv[0]);
		}
	}
	if (!sa.name || !sb.name || optind != argc - 1 || nmsg < 1 ||
	    nmsg > MAX_MSGS)
		usage(argv[0]);
	mode = argv[optind];
	setvbuf(stdout, NULL, _IOLBF, 0);
	setup(&sa, MAX_MSGS);
	if (!strcmp(mode, "rnr")) {
		setup(&sb, MAX_MSGS);
		test_rnr(rnr_retry, timer, delay);
	} else if (!strcmp(mode, "cqover")) {
		setup(&sb, cqe);
		test_cqover(cqe);
	} else {
		usage(argv[0]);
	}
	teardown(&sa);
	teardown(&sb);
	return vt_plan();
}
