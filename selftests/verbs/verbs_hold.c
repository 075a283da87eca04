// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Create one object of every type on a MetaRoCE device, with work requests
 * queued on the rings, print "ready" and wait to be killed.  kill.sh
 * SIGKILLs it over and over and checks that nothing leaks.
 *
 *   verbs_hold IBDEV GID_INDEX
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *c = NULL;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			c = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	return c;
}

static struct ibv_qp *mkqp(struct ibv_pd *pd, struct ibv_cq *cq,
			   struct ibv_srq *srq, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .srq = srq, .qp_type = type,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = 2, .max_recv_sge = 2,
			 .max_inline_data = 64 },
	};

	return ibv_create_qp(pd, &ia);
}

static int die(const char *what)
{
	fprintf(stderr, "verbs_hold: %s failed\n", what);
	return 1;
}

int main(int argc, char **argv)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qp_access_flags = IBV_ACCESS_REMOTE_WRITE };
	struct ibv_srq_init_attr sia = { .attr = { .max_wr = 64, .max_sge = 2 } };
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct ibv_recv_wr rwr = {}, *rbad;
	struct ibv_comp_channel *ch;
	struct ibv_qp *rc, *ud, *srq_qp;
	struct ibv_context *ctx;
	struct ibv_cq *cq, *cq2;
	struct ibv_srq *srq;
	struct ibv_sge sge;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_ah *ah;
	size_t len = 1 << 20;
	char *buf;
	int i;

	if (argc < 3)
		return die("usage: verbs_hold IBDEV GID_INDEX;");
	ctx = open_dev(argv[1]);
	if (!ctx)
		return die("open");
	aa.grh.sgid_index = atoi(argv[2]);
	aa.grh.hop_limit = 1;
	if (ibv_query_gid(ctx, 1, aa.grh.sgid_index, &aa.grh.dgid))
		return die("query_gid");
	buf = aligned_alloc(4096, len);
	ch = ibv_create_comp_channel(ctx);
	pd = ibv_alloc_pd(ctx);
	mr = pd ? ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE |
			     IBV_ACCESS_REMOTE_WRITE) : NULL;
	cq = ibv_create_cq(ctx, 256, NULL, ch, 0);
	cq2 = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!buf || !ch || !pd || !mr || !cq || !cq2)
		return die("pd/mr/cq");
	ibv_req_notify_cq(cq, 0);
	srq = ibv_create_srq(pd, &sia);
	rc = mkqp(pd, cq, NULL, IBV_QPT_RC);
	ud = mkqp(pd, cq2, NULL, IBV_QPT_UD);
	srq_qp = srq ? mkqp(pd, cq, srq, IBV_QPT_RC) : NULL;
	ah = ibv_create_ah(pd, &aa);
	if (!srq || !rc || !ud || !srq_qp || !ah)
		return die("srq/qp/ah");
	if (ibv_modify_qp(rc, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return die("modify rc");
	a.qkey = 0x11111111;
	if (ibv_modify_qp(ud, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		return die("modify ud");
	/* Work requests left on the rings when the process dies. */
	sge = (struct ibv_sge){ (uintptr_t)buf, 4096, mr->lkey };
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	for (i = 0; i < 8; i++) {
		rwr.wr_id = i;
		if (ibv_post_recv(rc, &rwr, &rbad) ||
		    ibv_post_srq_recv(srq, &rwr, &rbad))
			return die("post_recv");
	}
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
