// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * qp_edges: RC behaviours at the edges of the IBTA state machine, with both
 * ends on one device (loopback: the packets go to the device's own address).
 *
 *  prod_back    the provider moves its SQ producer index backwards, behind
 *               WQEs the kernel already took and still owns: the QP goes to
 *               ERR (the ring is broken) instead of running stale slots
 *  sqd_pending  RTS -> SQD with en_sqd_async_notify while a SEND waits for
 *               an ACK that never comes: no IBV_EVENT_SQ_DRAINED yet
 *               (IBTA 10.3.1: drained means every request acknowledged)
 *  sqd_drained  the same with a peer that answers, first with RNR NAKs
 *               (no event), then with an ACK once a receive is posted:
 *               the event comes, after the SEND's completion
 *  send_inv     SEND with Invalidate naming an R_Key of an ordinary
 *               registration, which cannot be invalidated (IBTA 10.6.6):
 *               the requester gets IBV_WC_REM_INV_REQ_ERR, the receive
 *               completes in error, and the region keeps working
 *
 *   qp_edges IBDEV GID_INDEX [CASE]
 *
 * TAP 13 output, one test per case.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "ring_maps.h"
#include "../verbs_test.h"

#define BUF_LEN		65536
#define NO_SUCH_QPN	0xfffff0	/* dropped by the device: never ACKed */

struct end {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct metaroce_ring *sq;	/* the SQ ring, as mapped */
};

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr;
static union ibv_gid gid;
static int gid_index;
static uint8_t *buf;

static void end_create(struct end *e)
{
	struct ibv_qp_cap cap = {
		.max_send_wr = 16, .max_recv_wr = 16,
		.max_send_sge = 1, .max_recv_sge = 1,
	};
	struct ring_map before[RING_MAPS_MAX], after[RING_MAPS_MAX];
	struct metaroce_ring *rq;
	int nb, na;

	e->cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	if (!e->cq)
		vt_bail("create_cq");
	nb = ring_maps(before);
	e->qp = vt_create_qp(pd, e->cq, NULL, IBV_QPT_RC, &cap);
	if (!e->qp)
		vt_bail("create_qp");
	na = ring_maps(after);
	if (ring_maps_new(before, nb, after, na, &e->sq, &rq))
		vt_bail("ring mappings");
}

static void end_destroy(struct end *e)
{
	if (ibv_destroy_qp(e->qp) || ibv_destroy_cq(e->cq))
		vt_bail("destroy");
}

/* RESET -> RTS towards @dqpn, with a 1 s Local ACK Timeout. */
static void end_connect(struct end *e, uint32_t dqpn)
{
	static const struct vt_conn c = {
		.mtu = IBV_MTU_1024, .rq_psn = 0x10, .sq_psn = 0x10,
		.rd_atomic = 1, .min_rnr_timer = 1, .timeout = 18,
		.retry_cnt = 7, .rnr_retry = 7,
	};

	if (vt_qp_init(e->qp, IBV_ACCESS_REMOTE_WRITE))
		vt_bail("modify INIT");
	if (vt_connect(e->qp, &gid, gid_index, dqpn, &c))
		vt_bail("modify RTR/RTS");
}

static void pair(struct end *a, struct end *b)
{
	end_create(a);
	end_create(b);
	end_connect(a, b->qp->qp_num);
	end_connect(b, a->qp->qp_num);
}

static int post_send(struct end *e, uint64_t id, enum ibv_wr_opcode op,
		     uint32_t inv_rkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf, .length = 64, .lkey = mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	if (op == IBV_WR_SEND_WITH_INV)
		wr.invalidate_rkey = inv_rkey;
	if (op == IBV_WR_RDMA_WRITE) {
		wr.wr.rdma.remote_addr = (uintptr_t)buf + 4096;
		wr.wr.rdma.rkey = mr->rkey;
	}
	if (ibv_post_send(e->qp, &wr, &bad))
		VT_FAIL("post_send: %s", strerror(errno));
	return 0;
}

static int post_recv(struct end *e, uint64_t id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf + 8192, .length = 256, .lkey = mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	if (ibv_post_recv(e->qp, &wr, &bad))
		VT_FAIL("post_recv: %s", strerror(errno));
	return 0;
}

/* The next completion of @e within @ms: wr_id @id with @status. */
static int expect_wc(struct end *e, const char *who, uint64_t id,
		     enum ibv_wc_status status, double ms)
{
	double end = vt_now_ms() + ms;
	struct ibv_wc wc;
	int n;

	do {
		n = ibv_poll_cq(e->cq, 1, &wc);
		if (n < 0)
			VT_FAIL("%s: poll_cq failed", who);
		if (n) {
			if (wc.wr_id != id || wc.status != status)
				VT_FAIL("%s: wr %llu %s, want wr %llu %s", who,
					(unsigned long long)wc.wr_id,
					ibv_wc_status_str(wc.status),
					(unsigned long long)id,
					ibv_wc_status_str(status));
			return 0;
		}
		usleep(500);
	} while (vt_now_ms() < end);
	VT_FAIL("%s: no completion in %.0f ms", who, ms);
}

static int expect_state(struct end *e, enum ibv_qp_state want, double ms)
{
	return vt_wait_state(e->qp, NULL, want, ms);
}

/* Wait up to @ms for an SQ_DRAINED of @qp; other events are dropped. */
static bool sq_drained(struct ibv_qp *qp, double ms)
{
	double end = vt_now_ms() + ms;
	struct ibv_async_event ev;

	do {
		while (!ibv_get_async_event(ctx, &ev)) {
			bool hit = ev.event_type == IBV_EVENT_SQ_DRAINED &&
				   ev.element.qp == qp;

			ibv_ack_async_event(&ev);
			if (hit)
				return true;
		}
		usleep(1000);
	} while (vt_now_ms() < end);
	return false;
}

static int to_sqd(struct end *e)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_SQD, .en_sqd_async_notify = 1,
	};

	if (ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY))
		VT_FAIL("modify SQD: %s", strerror(errno));
	return 0;
}

/* ---- cases -------------------------------------------------------------- */

static int t_prod_back(void)
{
	struct ibv_send_wr *bad;
	struct end a;
	int i, err = 0;

	end_create(&a);
	end_connect(&a, NO_SUCH_QPN);
	for (i = 0; i < 4 && !err; i++)
		err = post_send(&a, i, IBV_WR_SEND, 0);
	/* All four are on the wire, none acknowledged: the kernel owns them. */
	usleep(100000);
	if (!err && __atomic_load_n(&a.sq->consumer, __ATOMIC_ACQUIRE) != 0) {
		snprintf(vt_why, sizeof(vt_why), "a SEND completed");
		err = -1;
	}
	if (!err) {
		__atomic_store_n(&a.sq->producer, 2, __ATOMIC_RELEASE);
		ibv_cmd_post_send(a.qp, NULL, &bad);
		err = expect_state(&a, IBV_QPS_ERR, 3000);
	}
	end_destroy(&a);
	return err;
}

static int t_sqd_pending(void)
{
	struct end a;
	int err;

	end_create(&a);
	end_connect(&a, NO_SUCH_QPN);
	err = post_send(&a, 1, IBV_WR_SEND, 0);
	usleep(50000);
	if (!err)
		err = to_sqd(&a);
	if (!err && sq_drained(a.qp, 500)) {
		snprintf(vt_why, sizeof(vt_why),
			 "SQ_DRAINED with the SEND unacknowledged");
		err = -1;
	}
	end_destroy(&a);
	return err;
}

static int t_sqd_drained(void)
{
	struct end a, b;
	int err;

	/*
	 * No receive yet: the SEND starts, and waits on RNR NAKs.  (A WQE
	 * not started when SQD is entered stays in the queue; the drain
	 * is about the started ones.)
	 */
	pair(&a, &b);
	err = post_send(&a, 1, IBV_WR_SEND, 0);
	usleep(100000);
	if (!err)
		err = to_sqd(&a);
	if (!err && sq_drained(a.qp, 300)) {
		snprintf(vt_why, sizeof(vt_why), "SQ_DRAINED during RNR waits");
		err = -1;
	}
	if (!err)
		err = post_recv(&b, 7);
	if (!err && !sq_drained(a.qp, 5000)) {
		snprintf(vt_why, sizeof(vt_why), "no SQ_DRAINED in 5 s");
		err = -1;
	}
	/* The event says the SEND is done: its completion is there. */
	if (!err)
		err = expect_wc(&a, "requester", 1, IBV_WC_SUCCESS, 0);
	end_destroy(&a);
	end_destroy(&b);
	return err;
}

static int t_send_inv(void)
{
	struct end a, b;
	int err;

	pair(&a, &b);
	err = post_recv(&b, 7) ||
	      post_send(&a, 1, IBV_WR_SEND_WITH_INV, mr->rkey) ||
	      expect_wc(&a, "requester", 1, IBV_WC_REM_INV_REQ_ERR, 5000) ||
	      expect_wc(&b, "responder", 7, IBV_WC_REM_INV_REQ_ERR, 1000);
	end_destroy(&a);
	end_destroy(&b);
	if (err)
		return err;
	/* The region was not invalidated: a WRITE through its key works. */
	pair(&a, &b);
	err = post_send(&a, 2, IBV_WR_RDMA_WRITE, 0) ||
	      expect_wc(&a, "WRITE afterwards", 2, IBV_WC_SUCCESS, 5000);
	end_destroy(&a);
	end_destroy(&b);
	return err;
}

static const struct {
	const char *name;
	int (*fn)(void);
} cases[] = {
	{ "prod_back", t_prod_back },
	{ "sqd_pending", t_sqd_pending },
	{ "sqd_drained", t_sqd_drained },
	{ "send_inv", t_send_inv },
};

int main(int argc, char **argv)
{
	int i;

	if (argc < 3) {
		fprintf(stderr, "usage: %s IBDEV GID_INDEX [CASE]\n", argv[0]);
		return 2;
	}
	ctx = vt_start(argv[1]);
	gid_index = atoi(argv[2]);
	fcntl(ctx->async_fd, F_SETFL, fcntl(ctx->async_fd, F_GETFL) | O_NONBLOCK);
	pd = ibv_alloc_pd(ctx);
	buf = calloc(1, BUF_LEN);
	if (!pd || !buf || vt_port_gid(ctx, gid_index, &gid, NULL))
		vt_bail("setup");
	mr = ibv_reg_mr(pd, buf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE);
	if (!mr)
		vt_bail("reg_mr");
	printf("TAP version 13\n");
	for (i = 0; i < (int)(sizeof(cases) / sizeof(cases[0])); i++) {
		if (argc > 3 && strcmp(argv[3], cases[i].name))
			continue;
		vt_why[0] = 0;
		vt_result(!cases[i].fn(), cases[i].name, vt_why);
	}
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return vt_plan();
}
