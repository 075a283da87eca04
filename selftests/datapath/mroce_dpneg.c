// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * mroce_dpneg: the RC error behaviour IBTA specifies, checked on both ends
 * of a connection between two RDMA devices opened by one process (as
 * mroce_dpcheck does).  Side A is always the requester, side B the
 * responder; every case connects a fresh pair of QPs.
 *
 *  rnr_late       SEND without a receive, rnr_retry 7: completes once a
 *                 receive is posted late (IBTA 9.7.5.2.8, C9-142)
 *  qp_state       `rdma res show qp -dd` on a MetaRoCE requester shows the
 *                 RNR wait, then everything acknowledged
 *  rnr_exc_N      rnr_retry N (0..6), no receive: IBV_WC_RNR_RETRY_EXC_ERR
 *                 after N RNR waits of min_rnr_timer
 *  retry_*        peer QP destroyed, in ERR, wrong destination QPN:
 *                 IBV_WC_RETRY_EXC_ERR after retry_cnt Local ACK Timeouts
 *                 (IBTA 9.7.6.1.3)
 *  acc_*          WRITE, READ and atomics with a bad R_Key (key byte or
 *                 index), out of the region, without the access right,
 *                 misaligned: the
 *                 requester gets the remote error, the responder QP goes to
 *                 ERR and flushes its receive (IBTA 9.7.5.2.x, 9.9.3.1.2),
 *                 memory around the region is untouched
 *  len_*          SEND longer than the receive: IBV_WC_LOC_LEN_ERR at the
 *                 responder, IBV_WC_REM_INV_REQ_ERR at the requester
 *  mw*            memory windows of type 1 and 2 bound on B: a WRITE inside
 *                 the window lands; past its end, after a rebind, a Local
 *                 or remote Invalidate or its deallocation, REM_ACCESS_ERR
 *                 and B's region unchanged (IBTA 10.6.7)
 *  flush          a QP moved to ERR with work requests outstanding on SQ
 *                 and RQ flushes each, in order (IBTA 10.3.1)
 *  local_err_stop a WQE with a bad L_Key stops the send queue: the SEND
 *                 posted behind it is flushed, never executed by the peer
 *                 (only with -t: dpneg.sh runs it with B's packets delayed)
 *
 *   mroce_dpneg -a DEV -g GIDIDX -b DEV -G GIDIDX [-t CASE]
 *   mroce_dpneg -a DEV -g GIDIDX -b DEV -G GIDIDX -V KIND
 *
 * -V sets up a victim QP on A for inject.py instead: write and send (see
 * victim()), peer_rc and peer_uc (victim_peer()), read_ack
 * (victim_read_ack()).
 *
 * TAP 13 output, one test per case; exit status 0 when all passed.
 * Counters are read from /sys/class/infiniband/DEV/ports/1/hw_counters
 * when the device has MetaRoCE's names there, and skipped otherwise.
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

#define PAGE		4096u
#define GUARD		PAGE		/* guard bytes on each side of the MR */
#define MR_LEN		(4 * PAGE)
#define BUF_LEN		(GUARD + MR_LEN + GUARD)
#define GUARD_BYTE	0xa5
#define NFLUSH		8

struct side {
	const char *name;
	int gid_idx;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	uint8_t *buf;		/* guard | MR | guard */
	uint8_t *mem;		/* buf + GUARD: the region */
	struct ibv_mr *mr;	/* all access rights */
	struct ibv_mr *mr_local; /* LOCAL_WRITE only, on the same memory */
	struct ibv_mr *mr_mw;	/* LOCAL_WRITE | MW_BIND, NULL if refused */
	union ibv_gid gid;
	enum ibv_mtu mtu;
	bool mroce;		/* counters with MetaRoCE's names */
	/* per case */
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp;
};

struct conn {
	int access;		/* responder QP's qp_access_flags */
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t min_rnr_timer;
	int dest_qpn_delta;	/* A sends to B's QPN + this */
};

static struct side A, B;

static long counter(struct side *s, const char *name)
{
	char path[256];
	long v = -1;
	FILE *f;

	/* The core caches hw counters for a lifespan of 10 ms. */
	usleep(30000);
	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/%s", s->name,
		 name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static void dev_open(struct side *s)
{
	s->ctx = vt_open_dev(s->name);
	if (!s->ctx)
		vt_bail(s->name);
	s->pd = ibv_alloc_pd(s->ctx);
	if (!s->pd || posix_memalign((void **)&s->buf, PAGE, BUF_LEN))
		vt_bail("alloc");
	s->mem = s->buf + GUARD;
	s->mr = ibv_reg_mr(s->pd, s->mem, MR_LEN, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC);
	s->mr_local = ibv_reg_mr(s->pd, s->mem, MR_LEN, IBV_ACCESS_LOCAL_WRITE);
	if (!s->mr || !s->mr_local)
		vt_bail("reg_mr");
	s->mr_mw = ibv_reg_mr(s->pd, s->mem, MR_LEN, IBV_ACCESS_LOCAL_WRITE |
			      IBV_ACCESS_MW_BIND);
	if (vt_port_gid(s->ctx, s->gid_idx, &s->gid, &s->mtu))
		vt_bail("query");
	s->mroce = counter(s, "rx_drop_no_qp") >= 0;
}

static void guards_set(struct side *s)
{
	memset(s->buf, GUARD_BYTE, GUARD);
	memset(s->buf + GUARD + MR_LEN, GUARD_BYTE, GUARD);
}

static int guards_check(struct side *s)
{
	uint32_t i;

	for (i = 0; i < GUARD; i++)
		if (s->buf[i] != GUARD_BYTE ||
		    s->buf[GUARD + MR_LEN + i] != GUARD_BYTE)
			VT_FAIL("%s: guard byte %s+%u changed", s->name,
				s->buf[i] != GUARD_BYTE ? "before" : "after",
				i);
	return 0;
}

/* The next QPs are made with the ibv_wr_* send interface (case mw2_wr). */
static bool want_qpx;

static void qp_create_type(struct side *s, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr_ex init = {
		.qp_type = type,
		.cap = { .max_send_wr = 2 * NFLUSH, .max_recv_wr = 2 * NFLUSH,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = s->pd,
	};

	s->scq = ibv_create_cq(s->ctx, 4 * NFLUSH, NULL, NULL, 0);
	s->rcq = ibv_create_cq(s->ctx, 4 * NFLUSH, NULL, NULL, 0);
	if (!s->scq || !s->rcq)
		vt_bail("create_cq");
	init.send_cq = s->scq;
	init.recv_cq = s->rcq;
	if (want_qpx) {
		init.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		init.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
				      IBV_QP_EX_WITH_BIND_MW |
				      IBV_QP_EX_WITH_LOCAL_INV;
	}
	s->qp = ibv_create_qp_ex(s->ctx, &init);
	if (!s->qp)
		vt_bail("create_qp");
}

static void qp_create(struct side *s)
{
	qp_create_type(s, IBV_QPT_RC);
}

static void qp_destroy(struct side *s)
{
	if (s->qp && ibv_destroy_qp(s->qp))
		vt_bail("destroy_qp");
	s->qp = NULL;
	if (ibv_destroy_cq(s->scq) || ibv_destroy_cq(s->rcq))
		vt_bail("destroy_cq");
}

static int qp_connect(struct side *s, struct side *peer, const struct conn *c,
		      int access, uint32_t dqpn)
{
	struct vt_conn k = {
		.mtu = s->mtu < peer->mtu ? s->mtu : peer->mtu,
		.rq_psn = 0x100,
		.sq_psn = 0x100,
		.rd_atomic = 4,
		.min_rnr_timer = c->min_rnr_timer,
		.timeout = c->timeout,
		.retry_cnt = c->retry_cnt,
		.rnr_retry = c->rnr_retry,
	};

	if (vt_qp_init(s->qp, access))
		return -1;
	if (k.mtu > IBV_MTU_1024)
		k.mtu = IBV_MTU_1024;
	return vt_connect(s->qp, &peer->gid, s->gid_idx, dqpn, &k);
}

static const struct conn conn_default = {
	.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
		  IBV_ACCESS_REMOTE_ATOMIC,
	.timeout = 14, .retry_cnt = 7, .rnr_retry = 7, .min_rnr_timer = 12,
};

static void pair_up(const struct conn *c)
{
	qp_create(&A);
	qp_create(&B);
	if (qp_connect(&A, &B, c, c->access,
		       B.qp->qp_num + c->dest_qpn_delta) ||
	    qp_connect(&B, &A, c, c->access, A.qp->qp_num))
		vt_bail("connect");
}

static void pair_down(void)
{
	qp_destroy(&A);
	qp_destroy(&B);
}

/* Wait up to @ms for one completion on @cq; 0 when one came. */
static int poll_wc(struct ibv_cq *cq, struct ibv_wc *wc, double ms)
{
	double end = vt_now_ms() + ms;
	int n;

	do {
		n = ibv_poll_cq(cq, 1, wc);
		if (n < 0)
			return -1;
		if (n)
			return 0;
		usleep(200);
	} while (vt_now_ms() < end);
	return -1;
}

/*
 * A completion that never comes means a QP stopped somewhere: show where
 * both QPs stand (MetaRoCE's data path state, `rdma res show qp -dd`).
 */
static void dump_qps(void)
{
	const struct side *sides[] = { &A, &B };
	char cmd[256];
	unsigned int i;

	for (i = 0; i < 2; i++) {
		if (!sides[i]->mroce)
			continue;
		snprintf(cmd, sizeof(cmd),
			 "{ rdma -dd res show qp link %s/1; rdma statistic show link %s/1; } 2>&1 | sed 's/^/# /'",
			 sides[i]->name, sides[i]->name);
		fflush(stdout);
		if (system(cmd))
			printf("# %s: rdma res show qp failed\n", sides[i]->name);
	}
}

/*
 * One completion for @wr_id with @status; @alt (when not -1) is what rdma_rxe
 * reports instead where it differs from IBTA, accepted with a note.
 */
static int expect_wc_alt(struct ibv_cq *cq, const char *who, uint64_t wr_id,
			 enum ibv_wc_status status, int alt, double ms)
{
	struct ibv_wc wc;

	if (poll_wc(cq, &wc, ms)) {
		dump_qps();
		VT_FAIL("%s: no completion for wr %" PRIu64 " in %.0f ms", who,
			wr_id, ms);
	}
	if (wc.wr_id == wr_id && alt >= 0 && wc.status == (unsigned int)alt) {
		printf("# %s: %s where IBTA says %s (rxe)\n", who,
		       ibv_wc_status_str(wc.status), ibv_wc_status_str(status));
		return 0;
	}
	if (wc.wr_id != wr_id || wc.status != status)
		VT_FAIL("%s: wr %" PRIu64 " %s, want wr %" PRIu64 " %s", who,
			wc.wr_id, ibv_wc_status_str(wc.status), wr_id,
			ibv_wc_status_str(status));
	return 0;
}

static int expect_wc(struct ibv_cq *cq, const char *who, uint64_t wr_id,
		     enum ibv_wc_status status, double ms)
{
	return expect_wc_alt(cq, who, wr_id, status, -1, ms);
}

static int expect_no_wc(struct ibv_cq *cq, const char *who, double ms)
{
	struct ibv_wc wc;

	if (!poll_wc(cq, &wc, ms))
		VT_FAIL("%s: unexpected completion wr %" PRIu64 " %s", who,
			wc.wr_id, ibv_wc_status_str(wc.status));
	return 0;
}

static int expect_state(struct side *s, enum ibv_qp_state want, double ms)
{
	return vt_wait_state(s->qp, s->name, want, ms);
}

static int post_recv(struct side *s, uint64_t wr_id, void *addr, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)addr, .length = len, .lkey = s->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
	}, *bad;

	if (ibv_post_recv(s->qp, &wr, &bad))
		VT_FAIL("%s: post_recv: %s", s->name, strerror(errno));
	return 0;
}

static int post_send(struct side *s, uint64_t wr_id, enum ibv_wr_opcode op,
		     void *addr, uint32_t len, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)addr, .length = len, .lkey = s->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	if (op == IBV_WR_ATOMIC_CMP_AND_SWP || op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 1;
		wr.wr.atomic.swap = 2;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	if (ibv_post_send(s->qp, &wr, &bad))
		VT_FAIL("%s: post_send: %s", s->name, strerror(errno));
	return 0;
}

/* IBTA 9.7.5.2.8 Table 45, in microseconds. */
static double rnr_us(uint8_t code)
{
	static const unsigned int t10[32] = {
		65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
		256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192,
		12288, 16384, 24576, 32768, 49152,
	};

	return t10[code & 31] * 10.0;
}

/* ---- RNR ---------------------------------------------------------------- */

static int t_rnr_late(void)
{
	struct conn c = conn_default;
	long naks = counter(&B, "tx_rnr_naks");
	int err;

	c.min_rnr_timer = 14;	/* 1.28 ms */
	pair_up(&c);
	err = post_send(&A, 1, IBV_WR_SEND, A.mem, 100, 0, 0) ||
	      expect_no_wc(A.scq, "A send before the receive", 300) ||
	      post_recv(&B, 2, B.mem, 200) ||
	      expect_wc(A.scq, "A send", 1, IBV_WC_SUCCESS, 5000) ||
	      expect_wc(B.rcq, "B recv", 2, IBV_WC_SUCCESS, 1000);
	if (!err && B.mroce && counter(&B, "tx_rnr_naks") - naks < 2) {
		snprintf(vt_why, sizeof(vt_why),
			 "B sent %ld RNR NAKs in 300 ms",
			 counter(&B, "tx_rnr_naks") - naks);
		err = -1;
	}
	pair_down();
	return err;
}

/*
 * The value of FIELD in `rdma res show qp -dd` for @s's QP (MetaRoCE's
 * data path state), or -1 when it is not shown.
 */
static long qp_field(struct side *s, const char *field)
{
	char cmd[256], out[4096], key[64], *at;
	long v = -1;
	size_t n;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "rdma -dd res show qp link %s/1 lqpn %u",
		 s->name, s->qp->qp_num);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = 0;
	pclose(p);
	snprintf(key, sizeof(key), " drv_%s ", field);
	at = strstr(out, key);
	if (at)
		v = strtol(at + strlen(key), NULL, 0);
	return v;
}

/*
 * `rdma res show qp -dd` shows where a QP stands: waiting out an RNR NAK
 * with nothing acknowledged, then idle with everything acknowledged.
 */
static int t_qp_state(void)
{
	struct conn c = conn_default;
	long wait, una, max;
	int err;

	if (!A.mroce) {
		printf("# qp_state: %s is not a MetaRoCE device\n", A.name);
		return 0;
	}
	c.min_rnr_timer = 31;	/* 491.52 ms: the wait is long enough to see */
	pair_up(&c);
	err = post_send(&A, 1, IBV_WR_SEND, A.mem, 100, 0, 0) ||
	      expect_no_wc(A.scq, "A send before the receive", 100);
	wait = qp_field(&A, "rnr-wait");
	una = qp_field(&A, "sq-una");
	max = qp_field(&A, "sq-max");
	if (!err && (wait != 1 || una < 0 || max != una + 1)) {
		snprintf(vt_why, sizeof(vt_why),
			 "in the RNR wait: rnr-wait %ld sq-una %ld sq-max %ld",
			 wait, una, max);
		dump_qps();
		err = -1;
	}
	err = err || post_recv(&B, 2, B.mem, 200) ||
	      expect_wc(A.scq, "A send", 1, IBV_WC_SUCCESS, 5000);
	if (!err) {
		wait = qp_field(&A, "rnr-wait");
		una = qp_field(&A, "sq-una");
		max = qp_field(&A, "sq-max");
		if (wait != 0 || una != max || qp_field(&A, "comp-idx") != 1) {
			snprintf(vt_why, sizeof(vt_why),
				 "after the ACK: rnr-wait %ld sq-una %ld sq-max %ld",
				 wait, una, max);
			dump_qps();
			err = -1;
		}
	}
	pair_down();
	return err;
}

static int t_rnr_exc(int n)
{
	struct conn c = conn_default;
	long naks = counter(&B, "tx_rnr_naks");
	long waits = counter(&A, "rnr_waits");
	long btx = counter(&B, "tx_packets");
	long stale = counter(&A, "rx_drop_seq");
	double t0, ms, min;
	int err;

	c.rnr_retry = n;
	c.min_rnr_timer = 20;	/* 10.24 ms */
	min = n * rnr_us(c.min_rnr_timer) / 1000;
	pair_up(&c);
	t0 = vt_now_ms();
	err = post_send(&A, 1, IBV_WR_SEND, A.mem, 100, 0, 0) ||
	      expect_wc(A.scq, "A send", 1, IBV_WC_RNR_RETRY_EXC_ERR,
			min * 4 + 5000);
	ms = vt_now_ms() - t0;
	if (!err && ms < min * 0.9) {
		snprintf(vt_why, sizeof(vt_why),
			 "failed after %.1f ms < %d x %.2f ms",
			 ms, n, rnr_us(c.min_rnr_timer) / 1000);
		err = -1;
	}
	if (!err && B.mroce && counter(&B, "tx_rnr_naks") - naks != n + 1) {
		snprintf(vt_why, sizeof(vt_why), "B sent %ld RNR NAKs, want %d",
			 counter(&B, "tx_rnr_naks") - naks, n + 1);
		err = -1;
	}
	/* Nothing but the RNR NAKs: no ACK behind each of them. */
	if (!err && B.mroce && counter(&B, "tx_packets") - btx != n + 1) {
		snprintf(vt_why, sizeof(vt_why), "B sent %ld packets, want %d",
			 counter(&B, "tx_packets") - btx, n + 1);
		err = -1;
	}
	if (!err && A.mroce && counter(&A, "rx_drop_seq") != stale) {
		snprintf(vt_why, sizeof(vt_why),
			 "A dropped %ld stale responses",
			 counter(&A, "rx_drop_seq") - stale);
		err = -1;
	}
	if (!err && A.mroce && counter(&A, "rnr_waits") - waits != n) {
		snprintf(vt_why, sizeof(vt_why), "A waited %ld times, want %d",
			 counter(&A, "rnr_waits") - waits, n);
		err = -1;
	}
	if (!err)
		err = expect_state(&A, IBV_QPS_ERR, 1000);
	if (!err)
		printf("# rnr_retry %d: RNR_RETRY_EXC_ERR after %.1f ms\n", n, ms);
	pair_down();
	return err;
}

/* ---- Local ACK Timeout -------------------------------------------------- */

enum { PEER_DESTROYED, PEER_ERR, PEER_WRONG_QPN };

static int t_retry(int how)
{
	struct conn c = conn_default;
	long rtx = counter(&A, "retransmits");
	long qpstate = counter(&B, "rx_drop_qp_state");
	long noqp = counter(&B, "rx_drop_no_qp");
	double t0, ms, t_ms;
	int err;

	c.timeout = 12;		/* 16.8 ms */
	c.retry_cnt = 3;
	if (how == PEER_WRONG_QPN)
		c.dest_qpn_delta = 1000;
	t_ms = 4.096e-3 * (1u << c.timeout);
	pair_up(&c);
	if (how == PEER_DESTROYED) {
		if (ibv_destroy_qp(B.qp))
			vt_bail("destroy_qp");
		B.qp = NULL;
	} else if (how == PEER_ERR) {
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

		if (ibv_modify_qp(B.qp, &a, IBV_QP_STATE))
			vt_bail("modify ERR");
	}
	t0 = vt_now_ms();
	err = post_send(&A, 1, IBV_WR_RDMA_WRITE, A.mem, 64,
			(uintptr_t)B.mem, B.mr->rkey) ||
	      expect_wc(A.scq, "A write", 1, IBV_WC_RETRY_EXC_ERR,
			(c.retry_cnt + 1) * t_ms * 8 + 5000);
	ms = vt_now_ms() - t0;
	/* IBTA C9-141: each timeout is between T and 4 T. */
	if (!err && (ms < (c.retry_cnt + 1) * t_ms * 0.9 ||
		     ms > (c.retry_cnt + 1) * t_ms * 4 + 2000)) {
		snprintf(vt_why, sizeof(vt_why),
			 "failed after %.1f ms, want %d x %.1f..%.1f ms", ms,
			 c.retry_cnt + 1, t_ms, 4 * t_ms);
		err = -1;
	}
	if (!err && A.mroce &&
	    counter(&A, "retransmits") - rtx != c.retry_cnt) {
		snprintf(vt_why, sizeof(vt_why),
			 "A retransmitted %ld times, want %d",
			 counter(&A, "retransmits") - rtx, c.retry_cnt);
		err = -1;
	}
	/* Every try was dropped, and counted, by B. */
	if (!err && B.mroce) {
		long d = how == PEER_ERR ?
			 counter(&B, "rx_drop_qp_state") - qpstate :
			 counter(&B, "rx_drop_no_qp") - noqp;

		if (d != c.retry_cnt + 1) {
			snprintf(vt_why, sizeof(vt_why),
				 "B counted %ld drops, want %d",
				 d, c.retry_cnt + 1);
			err = -1;
		}
	}
	if (!err)
		err = expect_state(&A, IBV_QPS_ERR, 1000);
	if (!err)
		printf("# RETRY_EXC_ERR after %.1f ms (%d x %.1f ms)\n", ms,
		       c.retry_cnt + 1, t_ms);
	pair_down();
	return err;
}

/*
 * Fill A's and B's regions with different bytes, B's guards with theirs;
 * returns a copy of B's region (free() it).
 */
static uint8_t *region_prepare(void)
{
	uint8_t *snap = malloc(MR_LEN);

	if (!snap)
		vt_bail("malloc");
	guards_set(&B);
	memset(B.mem, 0x5a, MR_LEN);
	memset(A.mem, 0x3c, MR_LEN);
	memcpy(snap, B.mem, MR_LEN);
	return snap;
}

/* B's region still holds what @snap saved. */
static int region_same(const uint8_t *snap)
{
	if (memcmp(snap, B.mem, MR_LEN))
		VT_FAIL("B's region changed");
	return 0;
}

/* ---- remote access errors ----------------------------------------------- */

enum acc_what { BAD_RKEY, BAD_INDEX, BEFORE_MR, PAST_MR, NO_MR_RIGHT,
		NO_QP_RIGHT, MISALIGNED };

static int t_access(enum ibv_wr_opcode op, enum acc_what what)
{
	bool atomic = op == IBV_WR_ATOMIC_CMP_AND_SWP ||
		      op == IBV_WR_ATOMIC_FETCH_AND_ADD;
	enum ibv_wc_status want = what == MISALIGNED ? IBV_WC_REM_INV_REQ_ERR :
						       IBV_WC_REM_ACCESS_ERR;
	uint32_t len = atomic ? 8 : 256, rkey = B.mr->rkey;
	uint64_t raddr = (uintptr_t)B.mem + PAGE;
	struct conn c = conn_default;
	uint8_t *snap;
	int err, alt = -1;

	switch (what) {
	case BAD_RKEY:
		rkey ^= 0x80;	/* same index, other key byte */
		break;
	case BAD_INDEX:
		rkey ^= 0x100000;	/* other index, same key byte */
		break;
	case BEFORE_MR:
		raddr = (uintptr_t)B.mem - 8;
		break;
	case PAST_MR:
		raddr = (uintptr_t)B.mem + MR_LEN - (atomic ? 0 : len / 2);
		break;
	case NO_MR_RIGHT:
		rkey = B.mr_local->rkey;
		break;
	case NO_QP_RIGHT:
		c.access = 0;
		/* rxe NAKs this as an unsupported opcode. */
		if (!B.mroce)
			alt = IBV_WC_REM_INV_REQ_ERR;
		break;
	case MISALIGNED:
		raddr += 4;
		break;
	}
	snap = region_prepare();
	pair_up(&c);
	err = post_recv(&B, 7, B.mem, 64) ||
	      post_send(&A, 1, op, A.mem, len, raddr, rkey);
	if (err && what == MISALIGNED && !A.mroce) {
		/* rxe's provider refuses a misaligned atomic at post time. */
		printf("# %s: post_send refused the misaligned atomic (rxe)\n",
		       A.name);
		err = 0;
		goto out;
	}
	err = err ||
	      expect_wc_alt(A.scq, "A", 1, want, alt, 5000) ||
	      expect_state(&A, IBV_QPS_ERR, 1000) ||
	      expect_state(&B, IBV_QPS_ERR, 1000) ||
	      expect_wc(B.rcq, "B recv", 7, IBV_WC_WR_FLUSH_ERR, 1000) ||
	      guards_check(&B) ||
	      region_same(snap);
out:
	free(snap);
	pair_down();
	return err;
}

/* ---- memory windows ------------------------------------------------------ */

enum mw_what { MW_PAST, MW_REBOUND, MW_LOCAL_INV, MW_REMOTE_INV, MW_DEALLOC,
	       MW_WR_LOCAL_INV };

/* Bind @mw on B to [@va, @va + @len) of B.mr_mw; its R_Key in @rkey. */
static int mw_bind(struct ibv_mw *mw, uint64_t va, uint64_t len,
		   uint32_t *rkey)
{
	struct ibv_mw_bind_info bi = {
		.mr = B.mr_mw, .addr = va, .length = len,
		.mw_access_flags = len ? IBV_ACCESS_REMOTE_WRITE : 0,
	};
	struct ibv_send_wr wr = {
		.wr_id = 50, .opcode = IBV_WR_BIND_MW,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	int ret;

	if (want_qpx) {
		/* The same bind through ibv_wr_bind_mw(). */
		struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(B.qp);

		*rkey = ibv_inc_rkey(mw->rkey);
		ibv_wr_start(qpx);
		qpx->wr_id = 50;
		qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_bind_mw(qpx, mw, *rkey, &bi);
		ret = ibv_wr_complete(qpx);
	} else if (mw->type == IBV_MW_TYPE_1) {
		struct ibv_mw_bind b = {
			.wr_id = 50, .send_flags = IBV_SEND_SIGNALED,
			.bind_info = bi,
		};

		ret = ibv_bind_mw(B.qp, mw, &b);
		*rkey = mw->rkey;
	} else {
		wr.bind_mw.mw = mw;
		wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
		wr.bind_mw.bind_info = bi;
		ret = ibv_post_send(B.qp, &wr, &bad);
		*rkey = wr.bind_mw.rkey;
	}
	if (ret)
		VT_FAIL("B: bind type %d: %s", mw->type, strerror(ret));
	return expect_wc(B.scq, "B bind", 50, IBV_WC_SUCCESS, 1000);
}

/* @who posts @op naming @rkey (LOCAL_INV or SEND_WITH_INV), wr_id 51. */
static int post_inv(struct side *s, enum ibv_wr_opcode op, uint32_t rkey)
{
	struct ibv_send_wr wr = {
		.wr_id = 51, .opcode = op, .send_flags = IBV_SEND_SIGNALED,
		.invalidate_rkey = rkey,
	}, *bad;

	if (ibv_post_send(s->qp, &wr, &bad))
		VT_FAIL("%s: post invalidate: %s", s->name, strerror(errno));
	return expect_wc(s->scq, "invalidate", 51, IBV_WC_SUCCESS, 2000);
}

/*
 * A window over page 1 of B's region takes a WRITE inside it; then a WRITE
 * past its end (inside the region), or with its R_Key after a rebind, a
 * Local or remote Invalidate or its deallocation, completes with
 * REM_ACCESS_ERR and changes nothing (IBTA 10.6.7, 9.7.5.2.x).
 */
static int t_mw(enum ibv_mw_type type, enum mw_what what)
{
	uint64_t win = (uintptr_t)B.mem + PAGE, raddr = win + PAGE - 256;
	struct conn c = conn_default;
	struct ibv_mw *mw = NULL;
	uint32_t rkey = 0, rkey2;
	uint8_t *snap;
	int err;

	if (!B.mr_mw)
		VT_FAIL("%s: ibv_reg_mr with IBV_ACCESS_MW_BIND failed", B.name);
	snap = region_prepare();
	pair_up(&c);
	mw = ibv_alloc_mw(B.pd, type);
	if (!mw) {
		snprintf(vt_why, sizeof(vt_why),
			 "ibv_alloc_mw type %d: %s", type,
			 strerror(errno));
		err = -1;
		goto out;
	}
	err = mw_bind(mw, win, PAGE, &rkey) ||
	      post_send(&A, 1, IBV_WR_RDMA_WRITE, A.mem, 256, raddr, rkey) ||
	      expect_wc(A.scq, "A write in the window", 1, IBV_WC_SUCCESS,
			5000);
	if (!err && memcmp(B.mem + 2 * PAGE - 256, A.mem, 256)) {
		snprintf(vt_why, sizeof(vt_why), "the WRITE did not land");
		err = -1;
	}
	if (err)
		goto out;
	memcpy(snap, B.mem, MR_LEN);
	switch (what) {
	case MW_PAST:
		raddr = win + PAGE - 128;
		break;
	case MW_REBOUND:
		err = mw_bind(mw, win, 0, &rkey2);
		break;
	case MW_LOCAL_INV:
		err = post_inv(&B, IBV_WR_LOCAL_INV, rkey);
		break;
	case MW_WR_LOCAL_INV: {
		struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(B.qp);

		ibv_wr_start(qpx);
		qpx->wr_id = 51;
		qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_local_inv(qpx, rkey);
		err = ibv_wr_complete(qpx) ||
		      expect_wc(B.scq, "wr_local_inv", 51, IBV_WC_SUCCESS,
				2000);
		break;
	}
	case MW_REMOTE_INV:
		err = post_recv(&B, 8, B.mem, 64) ||
		      post_inv(&A, IBV_WR_SEND_WITH_INV, rkey) ||
		      expect_wc(B.rcq, "B recv", 8, IBV_WC_SUCCESS, 1000);
		memcpy(snap, B.mem, MR_LEN);
		break;
	case MW_DEALLOC:
		err = ibv_dealloc_mw(mw);
		mw = NULL;
		break;
	}
	if (!err && what == MW_PAST && !B.mroce) {
		/* rdma_rxe (6.1) checks the region's bounds, not the window's. */
		err = post_send(&A, 2, IBV_WR_RDMA_WRITE, A.mem, 256, raddr,
				rkey) ||
		      expect_wc_alt(A.scq, "A write", 2, IBV_WC_REM_ACCESS_ERR,
				    IBV_WC_SUCCESS, 5000);
		goto out;
	}
	err = err ||
	      post_send(&A, 2, IBV_WR_RDMA_WRITE, A.mem, 256, raddr, rkey) ||
	      expect_wc(A.scq, "A write", 2, IBV_WC_REM_ACCESS_ERR, 5000) ||
	      expect_state(&B, IBV_QPS_ERR, 1000) ||
	      guards_check(&B) ||
	      region_same(snap);
out:
	free(snap);
	/* Before the QP: rxe's type 2 windows hold a reference on theirs. */
	if (mw)
		ibv_dealloc_mw(mw);
	pair_down();
	return err;
}

/* ---- SEND longer than the receive --------------------------------------- */

static int t_len(uint32_t rlen, uint32_t slen)
{
	struct conn c = conn_default;
	uint32_t i;
	int err;

	guards_set(&B);
	memset(B.mem, 0x5a, MR_LEN);
	memset(A.mem, 0x3c, MR_LEN);
	pair_up(&c);
	err = post_recv(&B, 7, B.mem, rlen) ||
	      post_recv(&B, 8, B.mem + 2 * PAGE, rlen) ||
	      post_send(&A, 1, IBV_WR_SEND, A.mem, slen, 0, 0) ||
	      /* rxe NAKs with Remote Operational Error. */
	      expect_wc_alt(A.scq, "A send", 1, IBV_WC_REM_INV_REQ_ERR,
			    B.mroce ? -1 : IBV_WC_REM_OP_ERR, 5000) ||
	      /* rxe completes the receive with a local QP operation error. */
	      expect_wc_alt(B.rcq, "B recv", 7, IBV_WC_LOC_LEN_ERR,
			    B.mroce ? -1 : IBV_WC_LOC_QP_OP_ERR, 1000) ||
	      expect_wc(B.rcq, "B 2nd recv", 8, IBV_WC_WR_FLUSH_ERR, 1000) ||
	      expect_state(&B, IBV_QPS_ERR, 1000) ||
	      guards_check(&B);
	/* Nothing lands past the receive buffer. */
	for (i = rlen; !err && i < 2 * PAGE; i++)
		if (B.mem[i] != 0x5a) {
			snprintf(vt_why, sizeof(vt_why),
				 "byte %u past the %u-byte receive changed",
				 i - rlen, rlen);
			err = -1;
		}
	pair_down();
	return err;
}

/* ---- nothing after a local error ---------------------------------------- */

/*
 * IBTA 10.8.3.3 / 10.3.1: a WQE that fails locally (here an L_Key that is
 * not registered) completes in error once it is the oldest and moves the QP
 * to ERR, which flushes the WQEs behind it: those must never reach the
 * wire.  B has two receives posted.  SEND 1 goes out first; the bad WRITE
 * 2 and SEND 3 are posted while SEND 1 waits for its ACK (dpneg.sh delays
 * B's packets with netem for this case, so the wait is long and certain).
 * SEND 1 takes the first receive; the second must stay untouched, or SEND
 * 3 was executed.
 */
static int t_local_err(void)
{
	struct conn c = conn_default;
	struct ibv_sge sge = {
		.addr = (uintptr_t)A.mem, .length = 256,
		.lkey = A.mr->lkey ^ 0x5a,
	};
	struct ibv_send_wr wr = {
		.wr_id = 2, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	int err;

	pair_up(&c);
	wr.wr.rdma.remote_addr = (uintptr_t)B.mem;
	wr.wr.rdma.rkey = B.mr->rkey;
	err = post_recv(&B, 11, B.mem + PAGE, 64) ||
	      post_recv(&B, 12, B.mem + 2 * PAGE, 64) ||
	      post_send(&A, 1, IBV_WR_SEND, A.mem, 64, 0, 0);
	if (!err && ibv_post_send(A.qp, &wr, &bad)) {
		snprintf(vt_why, sizeof(vt_why),
			 "post_send: %s", strerror(errno));
		err = -1;
	}
	err = err ||
	      post_send(&A, 3, IBV_WR_SEND, A.mem + 64, 64, 0, 0) ||
	      expect_wc(A.scq, "A send 1", 1, IBV_WC_SUCCESS, 5000) ||
	      expect_wc(A.scq, "A bad write 2", 2, IBV_WC_LOC_PROT_ERR, 1000) ||
	      expect_wc(A.scq, "A send 3", 3, IBV_WC_WR_FLUSH_ERR, 1000) ||
	      expect_wc(B.rcq, "B recv 11", 11, IBV_WC_SUCCESS, 1000) ||
	      expect_no_wc(B.rcq, "B recv 12 (SEND 3 was executed)", 500);
	pair_down();
	return err;
}

/* ---- flush in order ----------------------------------------------------- */

static int t_flush(void)
{
	struct conn c = conn_default;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	char who[32];
	int i, err = 0;

	/* B has no receive: A's first SEND waits on RNR, the rest queue. */
	c.min_rnr_timer = 0;	/* 655 ms */
	pair_up(&c);
	for (i = 0; i < NFLUSH && !err; i++)
		err = post_recv(&A, 100 + i, A.mem + PAGE + 64 * i, 64) ||
		      post_send(&A, i, IBV_WR_SEND, A.mem, 16, 0, 0);
	if (!err)
		err = expect_no_wc(A.scq, "A before ERR", 100);
	if (!err && ibv_modify_qp(A.qp, &a, IBV_QP_STATE)) {
		snprintf(vt_why, sizeof(vt_why),
			 "modify ERR: %s", strerror(errno));
		err = -1;
	}
	for (i = 0; i < NFLUSH && !err; i++) {
		snprintf(who, sizeof(who), "A send %d", i);
		err = expect_wc(A.scq, who, i, IBV_WC_WR_FLUSH_ERR, 1000);
	}
	for (i = 0; i < NFLUSH && !err; i++) {
		snprintf(who, sizeof(who), "A recv %d", i);
		err = expect_wc(A.rcq, who, 100 + i, IBV_WC_WR_FLUSH_ERR, 1000);
	}
	/* Posted in ERR: flushed too. */
	if (!err)
		err = post_send(&A, 50, IBV_WR_SEND, A.mem, 16, 0, 0) ||
		      expect_wc(A.scq, "A send in ERR", 50,
				IBV_WC_WR_FLUSH_ERR, 1000) ||
		      expect_no_wc(B.rcq, "B", 100);
	pair_down();
	return err;
}

/* ---- victim for inject.py ---------------------------------------------- */

/* Guards around A's region, the region filled, a copy of it in @snap. */
static void victim_prepare(uint8_t *snap)
{
	if (!snap)
		vt_bail("malloc");
	guards_set(&A);
	memset(A.mem, 0x5a, MR_LEN);
	memcpy(snap, A.mem, MR_LEN);
}

/*
 * A responder QP on A, connected to a QP number that does not exist on B,
 * expecting PSN 0x100 with one 64-byte receive posted, for inject.py to
 * attack with well-formed but hostile requests at the expected PSN: a
 * WRITE whose RETH runs past the region ("write") or a SEND longer than
 * the receive ("send").  Prints what the injector needs, then waits for
 * a line on stdin (the packet is out) and for the QP to enter ERR, and
 * checks the receive's completion and the memory.
 */
static int victim(const char *kind)
{
	bool send = !strcmp(kind, "send");
	struct conn c = conn_default;
	uint8_t *snap = malloc(MR_LEN);
	uint8_t *rbuf = A.mem + 2 * PAGE;
	char line[64];
	int err;

	victim_prepare(snap);
	qp_create(&A);
	if (qp_connect(&A, &B, &c, c.access, 0xabcde))
		vt_bail("connect");
	if (post_recv(&A, 7, rbuf, 64))
		vt_bail("post_recv");
	printf("victim qpn=%u psn=0x100 rkey=0x%x va=0x%" PRIx64 " len=%u\n",
	       A.qp->qp_num, A.mr->rkey, (uint64_t)(uintptr_t)A.mem, MR_LEN);
	/* The injector says when its packet is out (a line on stdin). */
	if (!fgets(line, sizeof(line), stdin))
		line[0] = 0;
	err = expect_state(&A, IBV_QPS_ERR, 5000) ||
	      expect_wc(A.rcq, "victim recv", 7,
			send ? IBV_WC_LOC_LEN_ERR : IBV_WC_WR_FLUSH_ERR, 1000) ||
	      guards_check(&A);
	/* The receive buffer may hold the start of the SEND, nothing else. */
	if (!err && (memcmp(snap, A.mem, 2 * PAGE) ||
		     memcmp(snap + 2 * PAGE + 64, rbuf + 64,
			    MR_LEN - 2 * PAGE - 64) ||
		     (!send && memcmp(snap + 2 * PAGE, rbuf, 64)))) {
		snprintf(vt_why, sizeof(vt_why), "the region changed");
		err = -1;
	}
	printf("%s victim_%s%s%s\n", err ? "not ok" : "ok", kind,
	       err ? " # " : "", err ? vt_why : "");
	free(snap);
	qp_destroy(&A);
	return err ? 1 : 0;
}

/*
 * Victims of forged packets (inject.py forged_*): a QP on A connected to B,
 * attacked from an address that is not B's.  "peer_rc": an RC QP with a
 * receive posted and a SEND outstanding (to a QP number B does not have,
 * with no Local ACK Timeout, so only a forged ACK could complete it);
 * "peer_uc": a UC QP with a receive posted.  After the injector's line on
 * stdin nothing may have completed, the QP must still be in RTS and the
 * region must be unchanged.
 */
static int victim_peer(bool uc)
{
	static const struct vt_conn uc_conn = {
		.mtu = IBV_MTU_1024, .rq_psn = 0x100, .sq_psn = 0x100,
		.uc = true,
	};
	struct conn c = conn_default;
	uint8_t *snap = malloc(MR_LEN);
	char line[64];
	int err;

	victim_prepare(snap);
	c.timeout = 0;		/* no Local ACK Timeout: the SEND stays */
	qp_create_type(&A, uc ? IBV_QPT_UC : IBV_QPT_RC);
	if ((uc ? vt_qp_init(A.qp, IBV_ACCESS_REMOTE_WRITE) ||
		  vt_connect(A.qp, &B.gid, A.gid_idx, 0xabcde, &uc_conn) :
		  qp_connect(&A, &B, &c, c.access, 0xabcde)) ||
	    post_recv(&A, 7, A.mem + 2 * PAGE, 256) ||
	    (!uc && post_send(&A, 8, IBV_WR_SEND, A.mem, 16, 0, 0)))
		vt_bail("victim set-up");
	printf("victim qpn=%u psn=0x100 rkey=0x%x va=0x%" PRIx64 " len=%u\n",
	       A.qp->qp_num, A.mr->rkey, (uint64_t)(uintptr_t)A.mem, MR_LEN);
	if (!fgets(line, sizeof(line), stdin))
		line[0] = 0;
	err = expect_no_wc(A.rcq, "victim recv", 300) ||
	      expect_no_wc(A.scq, "victim send (a forged ACK?)", 100) ||
	      expect_state(&A, IBV_QPS_RTS, 100) || guards_check(&A);
	if (!err && memcmp(snap, A.mem, MR_LEN)) {
		snprintf(vt_why, sizeof(vt_why), "the region changed");
		err = -1;
	}
	printf("%s victim_peer_%s%s%s\n", err ? "not ok" : "ok",
	       uc ? "uc" : "rc", err ? " # " : "", err ? vt_why : "");
	free(snap);
	qp_destroy(&A);
	return err ? 1 : 0;
}

/*
 * "read_ack": A READs the whole region of B (16 packets at MTU 1024) while
 * inject.sh holds B's responses back (netem delay) and forges
 * ACKs from B's address for PSNs inside the READ.  No ACK may name a PSN
 * inside an outstanding READ: they must be ignored, and the READ must
 * complete with B's bytes, all of them.  Waits for a line on stdin before
 * it posts the READ, prints "posted", then checks.
 */
static int victim_read_ack(void)
{
	struct conn c = conn_default;
	struct ibv_wc wc;
	char line[64];
	uint32_t i;
	int err;

	c.timeout = 22;		/* 17 s: longer than the delay of B's packets */
	for (i = 0; i < MR_LEN; i++)
		B.mem[i] = (uint8_t)(i * 7 + 3);
	memset(A.mem, 0, MR_LEN);
	pair_up(&c);
	printf("victim qpn=%u psn=0x100 rkey=0x%x va=0x%" PRIx64 " len=%u\n",
	       A.qp->qp_num, B.mr->rkey, (uint64_t)(uintptr_t)B.mem, MR_LEN);
	if (!fgets(line, sizeof(line), stdin))
		line[0] = 0;
	err = post_send(&A, 9, IBV_WR_RDMA_READ, A.mem, MR_LEN,
			(uintptr_t)B.mem, B.mr->rkey);
	printf("posted\n");
	if (!err && poll_wc(A.scq, &wc, 30000)) {
		snprintf(vt_why, sizeof(vt_why), "no READ completion in 30 s");
		err = -1;
	} else if (!err && (wc.wr_id != 9 || wc.status != IBV_WC_SUCCESS)) {
		snprintf(vt_why, sizeof(vt_why),
			 "READ wr %" PRIu64 " %s", wc.wr_id,
			 ibv_wc_status_str(wc.status));
		err = -1;
	}
	for (i = 0; !err && i < MR_LEN; i++)
		if (A.mem[i] != B.mem[i]) {
			snprintf(vt_why, sizeof(vt_why),
				 "byte %u (packet %u) never arrived", i,
				 i / 1024);
			err = -1;
		}
	printf("%s victim_read_ack%s%s\n", err ? "not ok" : "ok",
	       err ? " # " : "", err ? vt_why : "");
	pair_down();
	return err ? 1 : 0;
}

/* ---- driver ------------------------------------------------------------- */

struct tcase {
	const char *name;
	int (*fn)(int, int);
	int a1, a2;
};

static int c_rnr_late(int x, int y) { return t_rnr_late(); }
static int c_rnr_exc(int n, int y) { return t_rnr_exc(n); }
static int c_retry(int how, int y) { return t_retry(how); }
static int c_access(int op, int what) { return t_access(op, what); }
static int c_len(int r, int s) { return t_len(r, s); }
static int c_mw(int type, int what)
{
	int err;

	want_qpx = what == MW_WR_LOCAL_INV;
	err = t_mw(type, what);
	want_qpx = false;
	return err;
}
static int c_flush(int x, int y) { return t_flush(); }
static int c_qp_state(int x, int y) { return t_qp_state(); }
static int c_local_err(int x, int y) { return t_local_err(); }

static const struct tcase cases[] = {
	{ "rnr_late", c_rnr_late, 0, 0 },
	{ "qp_state", c_qp_state, 0, 0 },
	{ "rnr_exc_0", c_rnr_exc, 0, 0 },
	{ "rnr_exc_1", c_rnr_exc, 1, 0 },
	{ "rnr_exc_3", c_rnr_exc, 3, 0 },
	{ "rnr_exc_6", c_rnr_exc, 6, 0 },
	{ "retry_peer_destroyed", c_retry, PEER_DESTROYED, 0 },
	{ "retry_peer_err", c_retry, PEER_ERR, 0 },
	{ "retry_wrong_qpn", c_retry, PEER_WRONG_QPN, 0 },
	{ "acc_write_bad_rkey", c_access, IBV_WR_RDMA_WRITE, BAD_RKEY },
	{ "acc_write_bad_index", c_access, IBV_WR_RDMA_WRITE, BAD_INDEX },
	{ "acc_write_before_mr", c_access, IBV_WR_RDMA_WRITE, BEFORE_MR },
	{ "acc_write_past_mr", c_access, IBV_WR_RDMA_WRITE, PAST_MR },
	{ "acc_write_no_mr_right", c_access, IBV_WR_RDMA_WRITE, NO_MR_RIGHT },
	{ "acc_write_no_qp_right", c_access, IBV_WR_RDMA_WRITE, NO_QP_RIGHT },
	{ "acc_read_bad_rkey", c_access, IBV_WR_RDMA_READ, BAD_RKEY },
	{ "acc_read_past_mr", c_access, IBV_WR_RDMA_READ, PAST_MR },
	{ "acc_read_no_mr_right", c_access, IBV_WR_RDMA_READ, NO_MR_RIGHT },
	{ "acc_read_no_qp_right", c_access, IBV_WR_RDMA_READ, NO_QP_RIGHT },
	{ "acc_cswap_bad_rkey", c_access, IBV_WR_ATOMIC_CMP_AND_SWP, BAD_RKEY },
	{ "acc_fadd_past_mr", c_access, IBV_WR_ATOMIC_FETCH_AND_ADD, PAST_MR },
	{ "acc_fadd_no_mr_right", c_access, IBV_WR_ATOMIC_FETCH_AND_ADD,
	  NO_MR_RIGHT },
	{ "acc_cswap_no_qp_right", c_access, IBV_WR_ATOMIC_CMP_AND_SWP,
	  NO_QP_RIGHT },
	{ "acc_fadd_misaligned", c_access, IBV_WR_ATOMIC_FETCH_AND_ADD,
	  MISALIGNED },
	{ "mw1_past_window", c_mw, IBV_MW_TYPE_1, MW_PAST },
	{ "mw1_rebound", c_mw, IBV_MW_TYPE_1, MW_REBOUND },
	{ "mw1_dealloc", c_mw, IBV_MW_TYPE_1, MW_DEALLOC },
	{ "mw2_past_window", c_mw, IBV_MW_TYPE_2, MW_PAST },
	{ "mw2_local_inv", c_mw, IBV_MW_TYPE_2, MW_LOCAL_INV },
	{ "mw2_remote_inv", c_mw, IBV_MW_TYPE_2, MW_REMOTE_INV },
	{ "mw2_dealloc", c_mw, IBV_MW_TYPE_2, MW_DEALLOC },
	{ "mw2_wr", c_mw, IBV_MW_TYPE_2, MW_WR_LOCAL_INV },
	{ "len_send_1pkt", c_len, 64, 256 },
	{ "len_send_multi", c_len, 1500, 3000 },
	{ "flush", c_flush, 0, 0 },
};

/* Cases that need a prepared path (see dpneg.sh): only run when named. */
static const struct tcase named_cases[] = {
	{ "local_err_stop", c_local_err, 0, 0 },
};

static void run_case(const struct tcase *t)
{
	vt_why[0] = 0;
	vt_result(!t->fn(t->a1, t->a2), t->name, vt_why);
}

int main(int argc, char **argv)
{
	const char *only = NULL, *vkind = NULL;
	unsigned int i;
	int c;

	A.gid_idx = B.gid_idx = -1;
	while ((c = getopt(argc, argv, "a:b:g:G:t:V:")) != -1) {
		switch (c) {
		case 'a': A.name = optarg; break;
		case 'b': B.name = optarg; break;
		case 'g': A.gid_idx = atoi(optarg); break;
		case 'G': B.gid_idx = atoi(optarg); break;
		case 't': only = optarg; break;
		case 'V': vkind = optarg; break;
		default: goto usage;
		}
	}
	if (!A.name || !B.name || A.gid_idx < 0 || B.gid_idx < 0)
		goto usage;
	setvbuf(stdout, NULL, _IOLBF, 0);
	dev_open(&A);
	dev_open(&B);
	if (vkind && !strncmp(vkind, "peer_", 5))
		return victim_peer(!strcmp(vkind, "peer_uc"));
	if (vkind && !strcmp(vkind, "read_ack"))
		return victim_read_ack();
	if (vkind)
		return victim(vkind);
	printf("TAP version 13\n# requester %s, responder %s\n", A.name,
	       B.name);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (!only || strstr(cases[i].name, only))
			run_case(&cases[i]);
	for (i = 0; only && i < sizeof(named_cases) / sizeof(named_cases[0]);
	     i++)
		if (strstr(named_cases[i].name, only))
			run_case(&named_cases[i]);
	c = vt_plan();
	printf("# %d passed, %d failed\n", vt_ntests - vt_nfail, vt_nfail);
	return c;
usage:
	fprintf(stderr, "usage: %s -a DEV -g GIDIDX -b DEV -G GIDIDX [-t CASE | -V write|send|peer_rc|peer_uc|read_ack]\n",
		argv[0]);
	return 2;
}
