// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * mroce_dvmode: the per-QP transport mode override of the provider,
 * metaroce_dv_qp_set_mode() (userspace/provider/metaroce_dv.h), between two
 * RDMA devices opened by one process (as mroce_dpcheck does).  Device a is
 * MetaRoCE; both devices keep their policy (auto).
 *
 *  dv_errors      a mode out of range and a QP past INIT: EINVAL; a UD QP:
 *                 EOPNOTSUPP
 *  side_by_side   (b MetaRoCE) two RC QP pairs on the same devices, a's QP
 *                 of one set to roce, of the other to metaroce: SENDs both
 *                 ways on both pairs, interleaved, data checked; `rdma res
 *                 show qp -dd` shows roce on both ends of the first pair
 *                 and metaroce on both ends of the second, with the same
 *                 switch PSN at a's requester and b's responder
 *  roce_vs_peer   (-x: b is not MetaRoCE, e.g. rdma_rxe) a's QP set to
 *                 roce: SENDs both ways, data checked, mode roce
 *  forced_fails   (-x) a's QP set to metaroce: its first SEND completes
 *                 with IBV_WC_BAD_RESP_ERR within seconds
 *
 *   mroce_dvmode -a DEV -g GIDIDX -b DEV -G GIDIDX [-x] [-n ITERS]
 *
 * TAP 13 output; exit status 0 when all passed.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

#include "../verbs_test.h"
#include "metaroce_dv.h"

#define MSG_LEN		4096u
#define POLL_SECS	10

struct side {
	const char *name;
	int gid_idx;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	union ibv_gid gid;
	enum ibv_mtu mtu;
};

/* One RC QP and its buffers: [0, MSG_LEN) to send, [MSG_LEN, 2x) to receive. */
struct end {
	struct side *s;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	unsigned char buf[2 * MSG_LEN];
};

static int t_num, t_failed;

static void t_result(bool ok, const char *name)
{
	printf("%sok %d - %s\n", ok ? "" : "not ", ++t_num, name);
	if (!ok)
		t_failed++;
}

static int side_open(struct side *s)
{
	struct ibv_port_attr pa;

	s->ctx = vt_open_dev(s->name);
	if (!s->ctx)
		return -1;
	s->pd = ibv_alloc_pd(s->ctx);
	if (!s->pd || ibv_query_gid(s->ctx, 1, s->gid_idx, &s->gid) ||
	    ibv_query_port(s->ctx, 1, &pa))
		return -1;
	s->mtu = pa.active_mtu;
	return 0;
}

static int end_create(struct end *e, struct side *s, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = type,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_all = 1,
	};

	memset(e, 0, sizeof(*e));
	e->s = s;
	e->cq = ibv_create_cq(s->ctx, 16, NULL, NULL, 0);
	if (!e->cq)
		return -1;
	ia.send_cq = e->cq;
	ia.recv_cq = e->cq;
	e->qp = ibv_create_qp(s->pd, &ia);
	e->mr = ibv_reg_mr(s->pd, e->buf, sizeof(e->buf),
			   IBV_ACCESS_LOCAL_WRITE);
	return e->qp && e->mr ? 0 : -1;
}

static void end_destroy(struct end *e)
{
	if (e->qp)
		ibv_destroy_qp(e->qp);
	if (e->mr)
		ibv_dereg_mr(e->mr);
	if (e->cq)
		ibv_destroy_cq(e->cq);
}

/* Both QPs from RESET to RTS, connected to each other. */
static int pair_connect(struct end *x, struct end *y)
{
	uint32_t psn = (uint32_t)rand() & 0xffffff;
	struct vt_conn k = {
		.mtu = x->s->mtu < y->s->mtu ? x->s->mtu : y->s->mtu,
		.rq_psn = psn, .sq_psn = psn, .rd_atomic = 4,
		.min_rnr_timer = 1, .timeout = 14, .retry_cnt = 7,
		.rnr_retry = 7,
	};

	return vt_qp_init(x->qp, 0) || vt_qp_init(y->qp, 0) ||
	       vt_connect(x->qp, &y->s->gid, x->s->gid_idx,
			  y->qp->qp_num, &k) ||
	       vt_connect(y->qp, &x->s->gid, y->s->gid_idx,
			  x->qp->qp_num, &k) ? -1 : 0;
}

/* One completion of @e within POLL_SECS: its status, or -1. */
static int poll_one(struct end *e)
{
	time_t end = time(NULL) + POLL_SECS;
	struct ibv_wc wc;
	int n;

	do {
		n = ibv_poll_cq(e->cq, 1, &wc);
		if (n > 0)
			return wc.status;
	} while (n == 0 && time(NULL) < end);
	return -1;
}

/* A SEND of random bytes from @x to @y; 0 when it arrived intact. */
static int send_one(struct end *x, struct end *y)
{
	struct ibv_sge rs = { (uintptr_t)(y->buf + MSG_LEN), MSG_LEN,
			      y->mr->lkey };
	struct ibv_sge ss = { (uintptr_t)x->buf, MSG_LEN, x->mr->lkey };
	struct ibv_recv_wr rwr = { .sg_list = &rs, .num_sge = 1 }, *brw;
	struct ibv_send_wr swr = { .sg_list = &ss, .num_sge = 1,
				   .opcode = IBV_WR_SEND }, *bsw;
	unsigned int i;

	for (i = 0; i < MSG_LEN; i++)
		x->buf[i] = (unsigned char)rand();
	memset(y->buf + MSG_LEN, 0, MSG_LEN);
	if (ibv_post_recv(y->qp, &rwr, &brw) ||
	    ibv_post_send(x->qp, &swr, &bsw))
		return -1;
	if (poll_one(x) != IBV_WC_SUCCESS || poll_one(y) != IBV_WC_SUCCESS)
		return -1;
	return memcmp(x->buf, y->buf + MSG_LEN, MSG_LEN) ? -1 : 0;
}

/*
 * Driver attribute @field of @e's QP in `rdma res show qp -dd` into @val
 * (empty when not shown).
 */
static void qp_attr(struct end *e, const char *field, char *val, size_t len)
{
	char cmd[256], out[4096], key[64], *at;
	size_t n;
	FILE *p;

	val[0] = 0;
	snprintf(cmd, sizeof(cmd), "rdma -dd res show qp link %s/1 lqpn %u",
		 e->s->name, e->qp->qp_num);
	p = popen(cmd, "r");
	if (!p)
		return;
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = 0;
	pclose(p);
	snprintf(key, sizeof(key), " drv_%s ", field);
	at = strstr(out, key);
	if (at && sscanf(at + strlen(key), "%31s", val) != 1)
		val[0] = 0;
}

static bool expect_attr(struct end *e, const char *field, const char *want)
{
	char v[32];

	qp_attr(e, field, v, sizeof(v));
	if (!strcmp(v, want))
		return true;
	printf("# %s qp %u: %s is '%s', not '%s'\n", e->s->name,
	       e->qp->qp_num, field, v, want);
	return false;
}

static void t_dv_errors(struct side *a)
{
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_ERR };
	struct end rc, ud;
	bool ok = !end_create(&rc, a, IBV_QPT_RC) &&
		  !end_create(&ud, a, IBV_QPT_UD);

	ok = ok && metaroce_dv_qp_set_mode(rc.qp, 4) == EINVAL &&
	     metaroce_dv_qp_set_mode(rc.qp, METAROCE_DV_MODE_ROCE) == 0 &&
	     metaroce_dv_qp_set_mode(ud.qp, METAROCE_DV_MODE_ROCE) ==
		EOPNOTSUPP;
	/* In INIT still open; past it the connection's mode is fixed. */
	ok = ok && !vt_qp_init(rc.qp, 0) &&
	     metaroce_dv_qp_set_mode(rc.qp, METAROCE_DV_MODE_AUTO) == 0;
	ok = ok && !ibv_modify_qp(rc.qp, &qa, IBV_QP_STATE) &&
	     metaroce_dv_qp_set_mode(rc.qp, METAROCE_DV_MODE_AUTO) == EINVAL;
	end_destroy(&ud);
	end_destroy(&rc);
	t_result(ok, "dv_errors: EINVAL, EOPNOTSUPP, EINVAL past INIT");
}

static void t_side_by_side(struct side *a, struct side *b, int iters)
{
	struct end ra, rb, ma, mb;
	char txp[32], rxp[32];
	bool ok;
	int i;

	ok = !end_create(&ra, a, IBV_QPT_RC) && !end_create(&rb, b, IBV_QPT_RC) &&
	     !end_create(&ma, a, IBV_QPT_RC) && !end_create(&mb, b, IBV_QPT_RC) &&
	     !metaroce_dv_qp_set_mode(ra.qp, METAROCE_DV_MODE_ROCE) &&
	     !metaroce_dv_qp_set_mode(ma.qp, METAROCE_DV_MODE_METAROCE) &&
	     !pair_connect(&ra, &rb) && !pair_connect(&ma, &mb);
	for (i = 0; ok && i < iters; i++)
		ok = !send_one(&ra, &rb) && !send_one(&ma, &mb) &&
		     !send_one(&rb, &ra) && !send_one(&mb, &ma);
	t_result(ok, "side_by_side: SENDs both ways on both pairs, data checked");
	ok = ok && expect_attr(&ra, "mode", "roce") &&
	     expect_attr(&ra, "mode-policy", "roce") &&
	     expect_attr(&rb, "mode", "roce") &&
	     expect_attr(&rb, "mode-peer", "roce");
	t_result(ok, "side_by_side: the pair set to roce is roce on both ends");
	ok = expect_attr(&ma, "mode", "metaroce") &&
	     expect_attr(&ma, "mode-policy", "metaroce") &&
	     expect_attr(&mb, "mode", "metaroce") &&
	     expect_attr(&mb, "mode-policy", "auto");
	qp_attr(&ma, "mode-tx-psn", txp, sizeof(txp));
	qp_attr(&mb, "mode-rx-psn", rxp, sizeof(rxp));
	printf("# switch PSN of a's requester %s, found by b %s\n", txp, rxp);
	ok = ok && txp[0] && !strcmp(txp, rxp);
	t_result(ok, "side_by_side: the pair set to metaroce is metaroce on both ends, same switch PSN");
	end_destroy(&mb);
	end_destroy(&ma);
	end_destroy(&rb);
	end_destroy(&ra);
}

static void t_versus_peer(struct side *a, struct side *b, int iters)
{
	struct end xa, xb, fa, fb;
	bool ok;
	int i, st;

	ok = !end_create(&xa, a, IBV_QPT_RC) && !end_create(&xb, b, IBV_QPT_RC) &&
	     !metaroce_dv_qp_set_mode(xa.qp, METAROCE_DV_MODE_ROCE) &&
	     !pair_connect(&xa, &xb);
	for (i = 0; ok && i < iters; i++)
		ok = !send_one(&xa, &xb) && !send_one(&xb, &xa);
	ok = ok && expect_attr(&xa, "mode", "roce");
	t_result(ok, "roce_vs_peer: SENDs both ways, data checked, mode roce");
	end_destroy(&xb);
	end_destroy(&xa);

	ok = !end_create(&fa, a, IBV_QPT_RC) && !end_create(&fb, b, IBV_QPT_RC) &&
	     !metaroce_dv_qp_set_mode(fa.qp, METAROCE_DV_MODE_METAROCE) &&
	     !pair_connect(&fa, &fb);
	if (ok) {
		struct ibv_sge rs = { (uintptr_t)(fb.buf + MSG_LEN), MSG_LEN,
				      fb.mr->lkey };
		struct ibv_sge ss = { (uintptr_t)fa.buf, MSG_LEN, fa.mr->lkey };
		struct ibv_recv_wr rwr = { .sg_list = &rs, .num_sge = 1 }, *brw;
		struct ibv_send_wr swr = { .sg_list = &ss, .num_sge = 1,
					   .opcode = IBV_WR_SEND }, *bsw;

		ok = !ibv_post_recv(fb.qp, &rwr, &brw) &&
		     !ibv_post_send(fa.qp, &swr, &bsw);
		st = ok ? poll_one(&fa) : -1;
		printf("# forced metaroce: the SEND completed with %s\n",
		       st < 0 ? "nothing" :
		       ibv_wc_status_str((enum ibv_wc_status)st));
		ok = st == IBV_WC_BAD_RESP_ERR;
	}
	t_result(ok, "forced_fails: IBV_WC_BAD_RESP_ERR within seconds");
	end_destroy(&fb);
	end_destroy(&fa);
}

int main(int argc, char **argv)
{
	struct side a = { 0 }, b = { 0 };
	bool other = false;
	int c, iters = 20;

	while ((c = getopt(argc, argv, "a:b:g:G:n:x")) != -1) {
		switch (c) {
		case 'a': a.name = optarg; break;
		case 'b': b.name = optarg; break;
		case 'g': a.gid_idx = atoi(optarg); break;
		case 'G': b.gid_idx = atoi(optarg); break;
		case 'n': iters = atoi(optarg); break;
		case 'x': other = true; break;
		default: return 2;
		}
	}
	if (!a.name || !b.name) {
		fprintf(stderr, "usage: %s -a DEV -g GIDIDX -b DEV -G GIDIDX [-x] [-n ITERS]\n",
			argv[0]);
		return 2;
	}
	srand((unsigned int)time(NULL));
	printf("TAP version 13\n");
	if (side_open(&a) || side_open(&b)) {
		printf("1..0 # SKIP cannot open %s and %s\n", a.name, b.name);
		return 4;
	}
	t_dv_errors(&a);
	if (other)
		t_versus_peer(&a, &b, iters);
	else
		t_side_by_side(&a, &b, iters);
	printf("1..%d\n", t_num);
	return t_failed ? 1 : 0;
}
