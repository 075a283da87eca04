// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verbs_fatal: hold verbs objects while the device is removed under us.
 *
 *   verbs_fatal IBDEV GID_INDEX
 *
 * Opens IBDEV and creates a PD, an MR, a CQ with a completion channel, an
 * RC QP in INIT and a UD QP in RTS, both with receives posted (so the SQ,
 * RQ and CQ rings are mapped and in use), prints "ready" and blocks in
 * ibv_get_async_event().  Whoever started it then removes the device
 * (netdev or namespace deleted, module unloaded); the RDMA core must
 * deliver IBV_EVENT_DEVICE_FATAL (after port and GID events, which are
 * printed) instead of waiting for us to close the device; whoever started
 * us fails the test if we never finish.  Afterwards every call must fail cleanly: posts with an error,
 * polls without inventing completions, new objects refused, destruction
 * and close succeeding (the kernel objects are gone already).
 *
 * Output: "ready", then TAP 13 lines for what happened after the event.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "../verbs_test.h"

#define NRECV	4

static struct ibv_qp *mkqp(struct ibv_pd *pd, struct ibv_cq *cq,
			   enum ibv_qp_type type)
{
	struct ibv_qp_cap cap = {
		.max_send_wr = 8, .max_recv_wr = 8,
		.max_send_sge = 1, .max_recv_sge = 1,
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = 0x11111111,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	struct ibv_qp *qp = vt_create_qp(pd, cq, NULL, type, &cap);

	if (!qp)
		vt_bail("create_qp");
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | (type == IBV_QPT_UD ? IBV_QP_QKEY :
					 IBV_QP_ACCESS_FLAGS)))
		vt_bail("modify INIT");
	if (type != IBV_QPT_UD)
		return qp;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		vt_bail("modify RTR");
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		vt_bail("modify RTS");
	return qp;
}

static int post_recv(struct ibv_qp *qp, struct ibv_mr *mr, uint64_t id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)mr->addr + 256 * id, .length = 256,
		.lkey = mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

int main(int argc, char **argv)
{
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct ibv_context *ctx;
	struct ibv_comp_channel *ch;
	struct ibv_async_event ev;
	struct ibv_device_attr da;
	struct ibv_qp *rc, *ud;
	struct ibv_send_wr swr = {}, *sbad;
	struct ibv_sge sge;
	struct ibv_wc wc[4];
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_ah *ah;
	static char buf[1 << 16];
	int i, n, ret;

	if (argc != 3) {
		fprintf(stderr, "usage: %s IBDEV GID_INDEX\n", argv[0]);
		return 2;
	}
	ctx = vt_start(argv[1]);
	pd = ibv_alloc_pd(ctx);
	ch = ibv_create_comp_channel(ctx);
	if (!pd || !ch)
		vt_bail("pd/channel");
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	cq = ibv_create_cq(ctx, 32, NULL, ch, 0);
	if (!mr || !cq || ibv_req_notify_cq(cq, 0))
		vt_bail("mr/cq");
	rc = mkqp(pd, cq, IBV_QPT_RC);
	ud = mkqp(pd, cq, IBV_QPT_UD);
	for (i = 0; i < NRECV; i++)
		if (post_recv(rc, mr, i) || post_recv(ud, mr, NRECV + i))
			vt_bail("post_recv");
	aa.grh.sgid_index = atoi(argv[2]);
	aa.grh.hop_limit = 1;
	if (vt_port_gid(ctx, aa.grh.sgid_index, &aa.grh.dgid, NULL))
		vt_bail("query_gid");
	ah = ibv_create_ah(pd, &aa);
	if (!ah)
		vt_bail("create_ah");
	printf("ready\n");

	/* The port and its GIDs may go first; the device goes last. */
	printf("TAP version 13\n");
	do {
		if (ibv_get_async_event(ctx, &ev))
			vt_bail("get_async_event");
		printf("# event: %s\n", ibv_event_type_str(ev.event_type));
		ibv_ack_async_event(&ev);
	} while (ev.event_type != IBV_EVENT_DEVICE_FATAL);
	vt_result(true, "IBV_EVENT_DEVICE_FATAL delivered", NULL);

	vt_result(post_recv(rc, mr, 9) != 0, "post_recv fails", NULL);
	sge.addr = (uintptr_t)buf;
	sge.length = 16;
	sge.lkey = mr->lkey;
	swr.sg_list = &sge;
	swr.num_sge = 1;
	swr.opcode = IBV_WR_SEND;
	swr.wr.ud.ah = ah;
	swr.wr.ud.remote_qpn = ud->qp_num;
	swr.wr.ud.remote_qkey = 0x11111111;
	ret = ibv_post_send(ud, &swr, &sbad);
	printf("# post_send: %s\n", strerror(ret));
	vt_result(ret != 0, "post_send fails", NULL);
	n = ibv_poll_cq(cq, 4, wc);
	printf("# poll_cq: %d\n", n);
	vt_result(n <= 0, "poll_cq invents no completion", NULL);
	vt_result(!ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE),
		  "reg_mr refused", NULL);
	vt_result(!ibv_create_cq(ctx, 4, NULL, NULL, 0), "create_cq refused",
		  NULL);
	vt_result(ibv_query_device(ctx, &da) != 0, "query_device fails", NULL);
	vt_result(!ibv_destroy_ah(ah) && !ibv_destroy_qp(ud) &&
		  !ibv_destroy_qp(rc) && !ibv_destroy_cq(cq) &&
		  !ibv_destroy_comp_channel(ch) && !ibv_dereg_mr(mr) &&
		  !ibv_dealloc_pd(pd), "every object destroyed", NULL);
	vt_result(!ibv_close_device(ctx), "device closed", NULL);
	return vt_plan();
}
