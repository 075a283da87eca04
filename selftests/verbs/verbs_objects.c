// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Every verbs object of a MetaRoCE device through ibv_* calls only: create,
 * query, modify, destroy; every advertised limit and one past it; destroy
 * in odd orders; bad arguments and their errno; flush to WR_FLUSH_ERR,
 * completion channels and async events.  TAP 13 output.
 *
 *   verbs_objects IBDEV GID_INDEX
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <infiniband/verbs.h>

#include "../verbs_test.h"

static struct ibv_context *ctx, *ctx2;
static struct ibv_device_attr dattr;
static struct ibv_port_attr pattr;
static int gid_index;
static union ibv_gid gid;

/* A call returning NULL or nonzero must have failed with @want. */
#define CHECK_ERRNO(call_ok, want, what) do { \
	int ok_ = !(call_ok), e_ = errno; \
	vt_check(ok_ && e_ == (want), "%s fails with %s (errno %d)", \
		 what, #want, e_); \
} while (0)

/* A call returning an errno value must return @want. */
#define CHECK_RC(expr, want, what) do { \
	int rc_ = (expr); \
	vt_check(rc_ == (want), "%s fails with %s (got %d)", what, #want, \
		 rc_); \
} while (0)

static int rc_to_rtr(struct ibv_qp *qp, uint32_t dqpn, int rd_atom)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024,
		.dest_qp_num = dqpn, .rq_psn = 0x123,
		.max_dest_rd_atomic = rd_atom, .min_rnr_timer = 12,
		.ah_attr = {
			.is_global = 1, .port_num = 1,
			.grh = { .dgid = gid, .sgid_index = gid_index,
				 .hop_limit = 64 },
		},
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			     IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			     IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			     IBV_QP_MIN_RNR_TIMER);
}

static int rc_to_rts(struct ibv_qp *qp, int rd_atom)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS, .timeout = 14, .retry_cnt = 7,
		.rnr_retry = 7, .sq_psn = 0x456, .max_rd_atomic = rd_atom,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

static struct ibv_qp *mkqp(struct ibv_pd *pd, struct ibv_cq *cq,
			   struct ibv_srq *srq, enum ibv_qp_type type,
			   uint32_t wr, uint32_t sge, uint32_t inl)
{
	struct ibv_qp_cap cap = {
		.max_send_wr = wr, .max_recv_wr = wr,
		.max_send_sge = sge, .max_recv_sge = sge,
		.max_inline_data = inl,
	};

	return vt_create_qp(pd, cq, srq, type, &cap);
}

static int poll_n(struct ibv_cq *cq, struct ibv_wc *wc, int n)
{
	int got = 0, tries = 1000, r;

	while (got < n && tries--) {
		r = ibv_poll_cq(cq, n - got, wc + got);
		if (r < 0)
			return r;
		got += r;
		if (got < n)
			usleep(1000);
	}
	return got;
}

static void test_device(void)
{
	struct ibv_device_attr_ex ex;

	vt_check(!ibv_query_device(ctx, &dattr), "ibv_query_device");
	vt_check(!ibv_query_device_ex(ctx, NULL, &ex) &&
		 ex.orig_attr.max_qp == dattr.max_qp, "ibv_query_device_ex");
	vt_check(!ibv_query_port(ctx, 1, &pattr) &&
		 pattr.state == IBV_PORT_ACTIVE &&
		 pattr.link_layer == IBV_LINK_LAYER_ETHERNET,
		 "ibv_query_port: ACTIVE, Ethernet");
	CHECK_RC(ibv_query_port(ctx, 2, &pattr), EINVAL,
		 "ibv_query_port on port 2");
	ibv_query_port(ctx, 1, &pattr);
	vt_check(!ibv_query_gid(ctx, 1, gid_index, &gid) && gid.raw[10] == 0xff,
		 "ibv_query_gid %d is IPv4-mapped", gid_index);
	vt_check(ibv_query_gid(ctx, 1, pattr.gid_tbl_len, &gid) != 0,
		 "ibv_query_gid past gid_tbl_len fails");
	ibv_query_gid(ctx, 1, gid_index, &gid);
	{
		uint16_t pkey;

		vt_check(!ibv_query_pkey(ctx, 1, 0, &pkey) && pkey == 0xffff,
			 "ibv_query_pkey 0 is the default pkey");
	}
}

/*
 * PDs of the device already in use (sysfs metaroce_objects): max_pd bounds
 * the device, and kernel consumers hold some (ib_mad's, for the GSI QP).
 */
static int pds_in_use(void)
{
	char path[256];
	FILE *f;
	int n = -1;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/metaroce_objects",
		 ibv_get_device_name(ctx->device));
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "ucontext %*d pd %d", &n) != 1)
		n = -1;
	fclose(f);
	return n;
}

static void test_pd(void)
{
	int n = 0, err = 0, used = pds_in_use(), room;
	struct ibv_pd **pds;

	vt_check(used >= 0, "PDs in use read from sysfs (%d)", used);
	room = dattr.max_pd - (used > 0 ? used : 0);
	pds = calloc(dattr.max_pd + 1, sizeof(*pds));
	while (n <= dattr.max_pd) {
		pds[n] = ibv_alloc_pd(ctx);
		if (!pds[n]) {
			err = errno;
			break;
		}
		n++;
	}
	vt_check(n == room && err == ENOMEM,
		 "exactly max_pd (%d) less the %d in use, then ENOMEM (got %d, errno %d)",
		 dattr.max_pd, used, n, err);
	while (n--)
		ibv_dealloc_pd(pds[n]);
	free(pds);
}

/*
 * Keys must not be guessable from other keys (issue 9): the index part
 * (key >> 8) of consecutive registrations is random, not a counter.  With
 * 2^23 random indices a step below 2^16 happens once in 64; a counter
 * makes every step 1.
 */
#define NKEYS 32

static void test_mr_keys(struct ibv_pd *pd, char *buf)
{
	struct ibv_mr *mr[NKEYS];
	int i, j, n = 0, small = 0, dup = 0;

	for (i = 0; i < NKEYS; i++) {
		mr[i] = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE);
		if (!mr[i])
			break;
		n++;
	}
	for (i = 1; i < n; i++) {
		uint32_t a = mr[i - 1]->rkey >> 8, b = mr[i]->rkey >> 8;

		if ((a > b ? a - b : b - a) < (1u << 16))
			small++;
		for (j = 0; j < i; j++)
			dup += mr[j]->rkey == mr[i]->rkey;
	}
	vt_check(n == NKEYS && !dup && small < NKEYS / 4,
		 "%d registrations: distinct keys, %d of %d index steps below 2^16 (first keys 0x%x 0x%x 0x%x)",
		 n, small, n - 1, n > 0 ? mr[0]->rkey : 0, n > 1 ? mr[1]->rkey : 0,
		 n > 2 ? mr[2]->rkey : 0);
	while (n--)
		ibv_dereg_mr(mr[n]);
}

static void test_mr(struct ibv_pd *pd)
{
	size_t len = 1 << 16;
	char *buf = aligned_alloc(4096, len);
	void *hole;
	struct ibv_mr *mr;

	mr = ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	vt_check(mr && mr->lkey && mr->length == len && mr->addr == buf,
		 "ibv_reg_mr 64 KiB");
	vt_check(mr && !ibv_dereg_mr(mr), "ibv_dereg_mr");

	mr = ibv_reg_mr(pd, buf + 1, 3, IBV_ACCESS_LOCAL_WRITE);
	vt_check(mr != NULL, "ibv_reg_mr of 3 bytes at an odd address");
	if (mr)
		ibv_dereg_mr(mr);

	mr = ibv_reg_mr_iova(pd, buf + 1, len - 1, 0x1000000001ULL,
			     IBV_ACCESS_LOCAL_WRITE);
	vt_check(mr && mr->lkey, "ibv_reg_mr_iova: iova with the address's page offset");
	if (mr)
		ibv_dereg_mr(mr);
	/*
	 * The RDMA core itself (ib_uverbs_reg_mr) refuses an iova whose
	 * offset in the page differs from the address's: it cannot be mapped
	 * page by page.
	 */
	CHECK_ERRNO(ibv_reg_mr_iova(pd, buf, len, 0x1000000001ULL,
				    IBV_ACCESS_LOCAL_WRITE) != NULL,
		    EINVAL, "ibv_reg_mr_iova with another page offset");

	CHECK_ERRNO(ibv_reg_mr(pd, buf, len, IBV_ACCESS_REMOTE_WRITE) != NULL,
		    EINVAL, "ibv_reg_mr remote write without local write");
	CHECK_ERRNO(ibv_reg_mr(pd, buf, len, IBV_ACCESS_REMOTE_ATOMIC) != NULL,
		    EINVAL, "ibv_reg_mr remote atomic without local write");
	CHECK_ERRNO(ibv_reg_mr(pd, buf, len, 1 << 30) != NULL,
		    EINVAL, "ibv_reg_mr unknown access bit");
	CHECK_ERRNO(ibv_reg_mr(pd, buf, 0, IBV_ACCESS_LOCAL_WRITE) != NULL,
		    EINVAL, "ibv_reg_mr length 0");
	CHECK_ERRNO(ibv_reg_mr(pd, buf, dattr.max_mr_size + 1,
			       IBV_ACCESS_LOCAL_WRITE) != NULL,
		    EINVAL, "ibv_reg_mr length max_mr_size + 1");
	hole = mmap(NULL, 8192, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(hole, 8192);
	CHECK_ERRNO(ibv_reg_mr(pd, hole, 8192, IBV_ACCESS_LOCAL_WRITE) != NULL,
		    EFAULT, "ibv_reg_mr of unmapped memory");
	test_mr_keys(pd, buf);
	free(buf);
}

static void test_cq(void)
{
	struct ibv_cq *cq;
	int i;

	cq = ibv_create_cq(ctx, 1, NULL, NULL, 0);
	vt_check(cq && cq->cqe >= 1, "ibv_create_cq 1 entry");
	i = cq ? ibv_resize_cq(cq, 100) : -1;
	vt_check(!i && cq->cqe >= 100, "ibv_resize_cq to 100 (cqe %d)",
		 cq ? cq->cqe : 0);
	CHECK_RC(cq ? ibv_resize_cq(cq, dattr.max_cqe + 1) : -1, EINVAL,
		 "ibv_resize_cq past max_cqe");
	vt_check(cq && !ibv_destroy_cq(cq), "ibv_destroy_cq");

	cq = ibv_create_cq(ctx, dattr.max_cqe, NULL, NULL, 0);
	vt_check(cq && cq->cqe >= dattr.max_cqe, "ibv_create_cq max_cqe (%d)",
		 dattr.max_cqe);
	if (cq)
		ibv_destroy_cq(cq);
	CHECK_ERRNO(ibv_create_cq(ctx, dattr.max_cqe + 1, NULL, NULL, 0) !=
		    NULL, EINVAL, "ibv_create_cq max_cqe + 1");
	CHECK_ERRNO(ibv_create_cq(ctx, 0, NULL, NULL, 0) != NULL, EINVAL,
		    "ibv_create_cq 0 entries");
	CHECK_ERRNO(ibv_create_cq(ctx, 1, NULL, NULL, ctx->num_comp_vectors) !=
		    NULL, EINVAL, "ibv_create_cq on a comp vector past the last");
}

static void test_qp_limits(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp *qp;

	qp = mkqp(pd, cq, NULL, IBV_QPT_RC, dattr.max_qp_wr, dattr.max_sge,
		  256);
	vt_check(qp != NULL, "RC QP with max_qp_wr, max_sge, 256 inline bytes");
	if (qp)
		ibv_destroy_qp(qp);
	CHECK_ERRNO(mkqp(pd, cq, NULL, IBV_QPT_RC, dattr.max_qp_wr + 1, 1, 0) !=
		    NULL, EINVAL, "RC QP with max_qp_wr + 1");
	CHECK_ERRNO(mkqp(pd, cq, NULL, IBV_QPT_RC, 1, dattr.max_sge + 1, 0) !=
		    NULL, EINVAL, "RC QP with max_sge + 1");
	CHECK_ERRNO(mkqp(pd, cq, NULL, IBV_QPT_RC, 1, 1, 257) != NULL, EINVAL,
		    "RC QP with max_inline_data 257");
	CHECK_ERRNO(mkqp(pd, cq, NULL, IBV_QPT_RAW_PACKET, 1, 1, 0) != NULL,
		    EOPNOTSUPP, "raw packet QP");
}

static void test_qp_state_machine(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	struct ibv_qp *qp;
	int max = dattr.max_qp_rd_atom;

	qp = mkqp(pd, cq, NULL, IBV_QPT_RC, 16, 2, 0);
	vt_check(qp && qp->qp_num >= 16, "RC QP created, qpn %u",
		 qp ? qp->qp_num : 0);
	if (!qp)
		return;
	CHECK_RC(vt_to_state(qp, IBV_QPS_RTR), EINVAL,
		    "RESET -> RTR");
	CHECK_RC(vt_to_state(qp, IBV_QPS_INIT), EINVAL,
		    "RESET -> INIT without the required attributes");
	{
		struct ibv_qp_attr b = { .qp_state = IBV_QPS_INIT,
					 .port_num = 2 };

		CHECK_RC(ibv_modify_qp(qp, &b, IBV_QP_STATE | IBV_QP_PORT |
					  IBV_QP_PKEY_INDEX |
					  IBV_QP_ACCESS_FLAGS),
			    EINVAL, "RESET -> INIT on port 2");
	}
	vt_check(!vt_qp_init(qp, IBV_ACCESS_REMOTE_WRITE), "RESET -> INIT");
	CHECK_RC(rc_to_rtr(qp, 0x1234, max + 1), EINVAL,
		    "INIT -> RTR with max_dest_rd_atomic past max_qp_rd_atom");
	vt_check(!rc_to_rtr(qp, 0x1234, max), "INIT -> RTR");
	CHECK_RC(rc_to_rts(qp, max + 1), EINVAL,
		    "RTR -> RTS with max_rd_atomic past max_qp_rd_atom");
	vt_check(!rc_to_rts(qp, max), "RTR -> RTS");
	memset(&a, 0, sizeof(a));
	vt_check(!ibv_query_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_DEST_QPN,
			    &ia) &&
		 a.qp_state == IBV_QPS_RTS && a.dest_qp_num == 0x1234 &&
		 a.sq_psn == 0x456 && a.rq_psn == 0x123 &&
		 a.path_mtu == IBV_MTU_1024 && a.max_rd_atomic == max &&
		 a.max_dest_rd_atomic == max && a.timeout == 14 &&
		 a.ah_attr.is_global &&
		 !memcmp(&a.ah_attr.grh.dgid, &gid, sizeof(gid)) &&
		 ia.cap.max_send_wr >= 16 && ia.qp_type == IBV_QPT_RC,
		 "ibv_query_qp returns what was set");
	vt_check(!vt_to_state(qp, IBV_QPS_SQD), "RTS -> SQD");
	vt_check(!vt_to_state(qp, IBV_QPS_RTS), "SQD -> RTS");
	vt_check(!vt_to_state(qp, IBV_QPS_ERR), "RTS -> ERR");
	CHECK_RC(vt_to_state(qp, IBV_QPS_RTS), EINVAL, "ERR -> RTS");
	vt_check(!vt_to_state(qp, IBV_QPS_RESET), "ERR -> RESET");
	vt_check(!vt_qp_init(qp, IBV_ACCESS_REMOTE_WRITE) &&
		 !rc_to_rtr(qp, 7, 1) && !rc_to_rts(qp, 1),
		 "RESET -> INIT -> RTR -> RTS again");
	vt_check(!ibv_destroy_qp(qp), "ibv_destroy_qp");
}

/*
 * UC (IBTA 9.7): the RC state machine without the acknowledgement
 * attributes, which the kernel's ib_modify_qp_is_ok() table refuses for
 * UC; SEND and RDMA WRITE only.
 */
static void test_uc_qp(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_2048,
		.dest_qp_num = 0x4321, .rq_psn = 0x321,
		.max_dest_rd_atomic = 1, .min_rnr_timer = 12,
		.ah_attr = {
			.is_global = 1, .port_num = 1,
			.grh = { .dgid = gid, .sgid_index = gid_index,
				 .hop_limit = 64 },
		},
	};
	int rtr = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
	int rts = IBV_QP_STATE | IBV_QP_SQ_PSN;
	struct ibv_send_wr wr = { .opcode = IBV_WR_RDMA_READ }, *bad;
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr q;
	struct ibv_qp *qp;
	int i;
	static const struct { int mask; const char *name; } ack_rtr[] = {
		{ IBV_QP_MAX_DEST_RD_ATOMIC, "max_dest_rd_atomic" },
		{ IBV_QP_MIN_RNR_TIMER, "min_rnr_timer" },
	}, ack_rts[] = {
		{ IBV_QP_TIMEOUT, "timeout" },
		{ IBV_QP_RETRY_CNT, "retry_cnt" },
		{ IBV_QP_RNR_RETRY, "rnr_retry" },
		{ IBV_QP_MAX_QP_RD_ATOMIC, "max_rd_atomic" },
	};

	qp = mkqp(pd, cq, NULL, IBV_QPT_UC, 16, 2, 64);
	vt_check(qp && qp->qp_num >= 16, "UC QP created, qpn %u",
		 qp ? qp->qp_num : 0);
	if (!qp)
		return;
	vt_check(!vt_qp_init(qp, IBV_ACCESS_REMOTE_WRITE), "UC RESET -> INIT");
	for (i = 0; i < 2; i++) {
		char what[64];

		snprintf(what, sizeof(what), "UC INIT -> RTR with %s",
			 ack_rtr[i].name);
		CHECK_RC(ibv_modify_qp(qp, &a, rtr | ack_rtr[i].mask), EINVAL,
			 what);
	}
	CHECK_RC(ibv_modify_qp(qp, &a, rtr & ~IBV_QP_RQ_PSN), EINVAL,
		 "UC INIT -> RTR without rq_psn");
	vt_check(!ibv_modify_qp(qp, &a, rtr), "UC INIT -> RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0x654;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	for (i = 0; i < 4; i++) {
		char what[64];

		snprintf(what, sizeof(what), "UC RTR -> RTS with %s",
			 ack_rts[i].name);
		CHECK_RC(ibv_modify_qp(qp, &a, rts | ack_rts[i].mask), EINVAL,
			 what);
	}
	vt_check(!ibv_modify_qp(qp, &a, rts), "UC RTR -> RTS");
	memset(&q, 0, sizeof(q));
	vt_check(!ibv_query_qp(qp, &q, IBV_QP_STATE | IBV_QP_AV |
			    IBV_QP_DEST_QPN, &ia) &&
		 q.qp_state == IBV_QPS_RTS && q.dest_qp_num == 0x4321 &&
		 q.sq_psn == 0x654 && q.rq_psn == 0x321 &&
		 q.path_mtu == IBV_MTU_2048 && ia.qp_type == IBV_QPT_UC &&
		 ia.cap.max_inline_data >= 64,
		 "UC ibv_query_qp returns what was set");
	CHECK_RC(ibv_post_send(qp, &wr, &bad), EINVAL,
		 "UC post RDMA READ");
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	CHECK_RC(ibv_post_send(qp, &wr, &bad), EINVAL,
		 "UC post FETCH_ADD");
	vt_check(!vt_to_state(qp, IBV_QPS_SQD) && !vt_to_state(qp, IBV_QPS_RTS),
		 "UC RTS -> SQD -> RTS");
	vt_check(!vt_to_state(qp, IBV_QPS_ERR) && !vt_to_state(qp, IBV_QPS_RESET),
		 "UC RTS -> ERR -> RESET");
	vt_check(!ibv_destroy_qp(qp), "UC ibv_destroy_qp");
}

static void test_flush(struct ibv_pd *pd)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 64, NULL, ch, 0);
	struct ibv_wc wc[16];
	struct ibv_qp *qp;
	struct ibv_send_wr swr = {}, *bad;
	struct ibv_recv_wr rwr = {}, *rbad;
	struct ibv_cq *ev_cq;
	struct pollfd pfd;
	void *ev_ctx;
	char buf[64];
	struct ibv_sge sge;
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf),
				       IBV_ACCESS_LOCAL_WRITE);
	int i, n, ok;

	qp = mkqp(pd, cq, NULL, IBV_QPT_RC, 4, 1, 64);
	if (!ch || !cq || !qp || !mr) {
		vt_check(0, "flush test setup");
		return;
	}
	sge = (struct ibv_sge){ (uintptr_t)buf, sizeof(buf), mr->lkey };
	swr.sg_list = &sge;
	swr.num_sge = 1;
	swr.opcode = IBV_WR_SEND;
	rwr.sg_list = &sge;
	rwr.num_sge = 1;

	CHECK_RC(ibv_post_send(qp, &swr, &bad), EINVAL, "post_send in RESET");
	vt_check(ibv_post_recv(qp, &rwr, &rbad) != 0, "post_recv in RESET fails");
	vt_qp_init(qp, IBV_ACCESS_REMOTE_WRITE);
	{
		/* The limit is the QP's actual one, which may exceed the request. */
		struct ibv_qp_init_attr ia;
		struct ibv_qp_attr qa;
		struct ibv_sge *sges;

		ibv_query_qp(qp, &qa, IBV_QP_CAP, &ia);
		sges = calloc(ia.cap.max_recv_sge + 1, sizeof(*sges));
		rwr.sg_list = sges;
		rwr.num_sge = ia.cap.max_recv_sge + 1;
		vt_check(ibv_post_recv(qp, &rwr, &rbad) == EINVAL && rbad == &rwr,
			 "post_recv with max_recv_sge (%u) + 1 SGEs: EINVAL",
			 ia.cap.max_recv_sge);
		free(sges);
		rwr.sg_list = &sge;
		rwr.num_sge = 1;
	}
	for (i = 0; i < 2; i++) {
		rwr.wr_id = 100 + i;
		vt_check(!ibv_post_recv(qp, &rwr, &rbad), "post_recv %d in INIT", i);
	}
	rc_to_rtr(qp, 9, 1);
	rc_to_rts(qp, 1);
	{
		struct ibv_qp_init_attr ia;
		struct ibv_qp_attr qa;
		struct ibv_sge *sges;

		ibv_query_qp(qp, &qa, IBV_QP_CAP, &ia);
		sges = calloc(ia.cap.max_send_sge + 1, sizeof(*sges));
		swr.sg_list = sges;
		swr.num_sge = ia.cap.max_send_sge + 1;
		vt_check(ibv_post_send(qp, &swr, &bad) == EINVAL && bad == &swr,
			 "post_send with max_send_sge (%u) + 1 SGEs: EINVAL",
			 ia.cap.max_send_sge);
		free(sges);
		swr.sg_list = &sge;
		swr.num_sge = 1;
	}
	for (i = 0; i < 4; i++) {
		swr.wr_id = 200 + i;
		swr.send_flags = i == 3 ? IBV_SEND_INLINE : 0;
		vt_check(!ibv_post_send(qp, &swr, &bad), "post_send %d in RTS", i);
	}
	swr.wr_id = 299;
	vt_check(ibv_post_send(qp, &swr, &bad) == ENOMEM && bad == &swr,
		 "post_send past max_send_wr: ENOMEM, bad_wr set");
	vt_check(ibv_poll_cq(cq, 16, wc) == 0, "nothing completes without a wire");

	i = ibv_req_notify_cq(cq, 0);
	vt_check(!i, "ibv_req_notify_cq (%d, errno %d)", i, errno);
	vt_check(!vt_to_state(qp, IBV_QPS_ERR), "RTS -> ERR");
	n = poll_n(cq, wc, 6);
	ok = n == 6;
	for (i = 0; i < n; i++)
		ok &= wc[i].status == IBV_WC_WR_FLUSH_ERR &&
		      wc[i].qp_num == qp->qp_num;
	ok &= n == 6 && wc[0].wr_id == 200 && wc[3].wr_id == 203 &&
	      wc[0].opcode == IBV_WC_SEND && wc[4].wr_id == 100 &&
	      wc[5].wr_id == 101 && wc[4].opcode == IBV_WC_RECV;
	vt_check(ok, "ERR flushes 4 sends and 2 receives in order (%d)", n);

	pfd.fd = ch->fd;
	pfd.events = POLLIN;
	n = poll(&pfd, 1, 2000);
	i = n == 1 ? ibv_get_cq_event(ch, &ev_cq, &ev_ctx) : -1;
	vt_check(n == 1 && !i && ev_cq == cq,
		 "completion event on the channel (poll %d, get %d)", n, i);
	if (!i)
		ibv_ack_cq_events(ev_cq, 1);

	rwr.wr_id = 300;
	vt_check(!ibv_post_recv(qp, &rwr, &rbad) && poll_n(cq, wc, 1) == 1 &&
		 wc[0].wr_id == 300 && wc[0].status == IBV_WC_WR_FLUSH_ERR,
		 "post_recv in ERR completes with WR_FLUSH_ERR");
	swr.wr_id = 301;
	vt_check(!ibv_post_send(qp, &swr, &bad) && poll_n(cq, wc, 1) == 1 &&
		 wc[0].wr_id == 301 && wc[0].status == IBV_WC_WR_FLUSH_ERR,
		 "post_send in ERR completes with WR_FLUSH_ERR");
	vt_check(!vt_to_state(qp, IBV_QPS_RESET) && ibv_poll_cq(cq, 16, wc) == 0,
		 "ERR -> RESET");
	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	ibv_destroy_comp_channel(ch);
	ibv_dereg_mr(mr);
}

static void test_cq_overflow(struct ibv_pd *pd)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 1, NULL, NULL, 0);
	struct ibv_qp *qp = mkqp(pd, cq, NULL, IBV_QPT_RC, 16, 1, 0);
	struct ibv_recv_wr rwr = {}, *bad;
	struct ibv_async_event ev;
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	int i, got = 0;

	if (!cq || !qp) {
		vt_check(0, "overflow test setup");
		return;
	}
	vt_qp_init(qp, IBV_ACCESS_REMOTE_WRITE);
	for (i = 0; i < 16; i++)
		ibv_post_recv(qp, &rwr, &bad);
	vt_to_state(qp, IBV_QPS_ERR);
	while (poll(&pfd, 1, 2000) == 1 && !ibv_get_async_event(ctx, &ev)) {
		if (ev.event_type == IBV_EVENT_CQ_ERR && ev.element.cq == cq)
			got = 1;
		ibv_ack_async_event(&ev);
		if (got)
			break;
	}
	vt_check(got, "CQ overrun reports IBV_EVENT_CQ_ERR");
	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
}

static void test_srq(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_srq_init_attr sia = { .attr = { .max_wr = 64, .max_sge = 2 } };
	struct ibv_srq_attr sa;
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	struct ibv_recv_wr rwr = {}, *bad;
	struct ibv_sge *sges;
	struct ibv_async_event ev;
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	uint32_t num;
	int got = 0, i;

	srq = ibv_create_srq(pd, &sia);
	vt_check(srq && sia.attr.max_wr >= 64 && sia.attr.max_sge >= 2,
		 "ibv_create_srq (max_wr %u, max_sge %u)", sia.attr.max_wr,
		 sia.attr.max_sge);
	if (!srq)
		return;
	num = 0;
	i = ibv_get_srq_num(srq, &num);
	vt_check(!i && num, "ibv_get_srq_num %u", num);
	sa.srq_limit = 10;
	vt_check(!ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT), "arm the SRQ limit");
	memset(&sa, 0, sizeof(sa));
	vt_check(!ibv_query_srq(srq, &sa) && sa.srq_limit == 10 &&
		 sa.max_wr >= 64 && sa.max_sge >= 2, "ibv_query_srq");
	sa.srq_limit = sa.max_wr + 1;
	CHECK_RC(ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT), EINVAL,
		    "SRQ limit past max_wr");
	sa.max_wr = 1000;
	CHECK_RC(ibv_modify_srq(srq, &sa, IBV_SRQ_MAX_WR), EINVAL,
		    "SRQ resize (not advertised)");
	rwr.num_sge = 0;
	vt_check(!ibv_post_srq_recv(srq, &rwr, &bad), "ibv_post_srq_recv");
	/*
	 * The device may round max_sge up (here to fill a power-of-two WQE);
	 * the limit is what query_srq reports, not what was asked for.
	 */
	ibv_query_srq(srq, &sa);
	sges = calloc(sa.max_sge + 1, sizeof(*sges));
	rwr.sg_list = sges;
	rwr.num_sge = sa.max_sge + 1;
	bad = NULL;
	vt_check(ibv_post_srq_recv(srq, &rwr, &bad) == EINVAL && bad == &rwr,
		 "ibv_post_srq_recv with max_sge + 1 SGEs: EINVAL, bad_wr set");
	rwr.num_sge = sa.max_sge;
	vt_check(!ibv_post_srq_recv(srq, &rwr, &bad),
		 "ibv_post_srq_recv with max_sge (%u) SGEs", sa.max_sge);
	rwr.sg_list = NULL;
	rwr.num_sge = 0;
	free(sges);

	sia.attr.max_wr = dattr.max_srq_wr + 1;
	CHECK_ERRNO(ibv_create_srq(pd, &sia) != NULL, EINVAL,
		    "SRQ with max_srq_wr + 1");
	sia.attr.max_wr = 4;
	sia.attr.max_sge = dattr.max_srq_sge + 1;
	CHECK_ERRNO(ibv_create_srq(pd, &sia) != NULL, EINVAL,
		    "SRQ with max_srq_sge + 1");

	qp = mkqp(pd, cq, srq, IBV_QPT_RC, 4, 1, 0);
	vt_check(qp != NULL, "RC QP on the SRQ");
	CHECK_RC(ibv_destroy_srq(srq), EBUSY,
		    "destroying an SRQ in use");
	vt_qp_init(qp, IBV_ACCESS_REMOTE_WRITE);
	vt_to_state(qp, IBV_QPS_ERR);
	while (poll(&pfd, 1, 2000) == 1 && !ibv_get_async_event(ctx, &ev)) {
		if (ev.event_type == IBV_EVENT_QP_LAST_WQE_REACHED &&
		    ev.element.qp == qp)
			got = 1;
		ibv_ack_async_event(&ev);
		if (got)
			break;
	}
	vt_check(got, "IBV_EVENT_QP_LAST_WQE_REACHED for an SRQ QP in ERR");
	ibv_destroy_qp(qp);
	vt_check(!ibv_destroy_srq(srq), "ibv_destroy_srq");
}

static void test_ud_ah(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_ah_attr aa = {
		.is_global = 1, .port_num = 1,
		.grh = { .dgid = gid, .sgid_index = gid_index, .hop_limit = 1 },
	};
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qkey = 0x11111111 };
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;
	struct ibv_qp *qp;
	struct ibv_ah *ah;

	ah = ibv_create_ah(pd, &aa);
	vt_check(ah != NULL, "ibv_create_ah to our own GID (errno %d)",
		 ah ? 0 : errno);
	aa.is_global = 0;
	vt_check(ibv_create_ah(pd, &aa) == NULL, "ibv_create_ah without GRH fails");
	aa.is_global = 1;
	aa.port_num = 2;
	vt_check(ibv_create_ah(pd, &aa) == NULL, "ibv_create_ah on port 2 fails");

	qp = mkqp(pd, cq, NULL, IBV_QPT_UD, 8, 1, 0);
	vt_check(qp != NULL, "UD QP");
	if (!qp || !ah)
		return;
	vt_check(!ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_QKEY) &&
		 !vt_to_state(qp, IBV_QPS_RTR), "UD RESET -> INIT -> RTR");
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 1;
	vt_check(!ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN),
		 "UD RTR -> RTS");
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = 1;
	wr.wr.ud.remote_qkey = 0x11111111;
	wr.wr_id = 77;
	vt_check(!ibv_post_send(qp, &wr, &bad), "UD post_send with the AH");
	wr.opcode = IBV_WR_RDMA_WRITE;
	vt_check(ibv_post_send(qp, &wr, &bad) == EINVAL,
		 "UD post_send RDMA WRITE: EINVAL");
	/*
	 * Signaled, so it completes whether the data path sent it already
	 * (success) or the move to ERR flushed it.
	 */
	vt_check(!vt_to_state(qp, IBV_QPS_ERR) && poll_n(cq, &wc, 1) == 1 &&
		 wc.wr_id == 77 && (wc.status == IBV_WC_WR_FLUSH_ERR ||
				 wc.status == IBV_WC_SUCCESS),
		 "UD send completes, or is flushed in ERR (status %d)",
		 wc.status);
	CHECK_RC(ibv_destroy_cq(cq), EBUSY, "destroying a CQ in use");
	vt_check(!ibv_destroy_qp(qp), "destroy UD QP");
	vt_check(!ibv_destroy_ah(ah), "ibv_destroy_ah");
}

static void test_foreign_and_order(void)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq2, *cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	struct ibv_pd *pd2 = ibv_alloc_pd(ctx2);
	char buf[64];
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf),
				       IBV_ACCESS_LOCAL_WRITE);
	struct ibv_ah_attr aa = {
		.is_global = 1, .port_num = 1,
		.grh = { .dgid = gid, .sgid_index = gid_index, .hop_limit = 1 },
	};
	struct ibv_cq fake_cq;
	struct ibv_pd fake_pd;
	struct ibv_mr *mr2;
	struct ibv_ah *ah;
	struct ibv_qp *qp;
	int e;

	cq2 = ibv_create_cq(ctx2, 4, NULL, NULL, 0);
	if (!pd || !cq || !pd2 || !mr || !cq2) {
		vt_check(0, "foreign handle test setup");
		return;
	}
	/* Objects of another context: handles mean nothing here. */
	errno = 0;
	qp = mkqp(pd, cq2, NULL, IBV_QPT_RC, 1, 1, 0);
	vt_check(!qp && errno == EINVAL,
		 "QP on this PD with a CQ of another context: EINVAL (errno %d)",
		 errno);
	errno = 0;
	qp = mkqp(pd2, cq, NULL, IBV_QPT_RC, 1, 1, 0);
	vt_check(!qp && errno == EINVAL,
		 "QP on another context's PD with this CQ: EINVAL (errno %d)",
		 errno);
	/*
	 * Handles the kernel does not know in this context.  The RDMA core
	 * looks them up before any driver code runs and answers ENOENT on
	 * the ioctl path, EINVAL on the write path.
	 */
	fake_cq = *cq;
	fake_cq.handle = 0x7ffffff0;
	errno = 0;
	qp = mkqp(pd, &fake_cq, NULL, IBV_QPT_RC, 1, 1, 0);
	e = errno;
	vt_check(!qp && (e == ENOENT || e == EINVAL),
		 "QP with an unknown CQ handle fails (errno %d)", e);
	fake_pd = *pd;
	fake_pd.handle = 0x7ffffff0;
	errno = 0;
	mr2 = ibv_reg_mr(&fake_pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	e = errno;
	vt_check(!mr2 && (e == ENOENT || e == EINVAL),
		 "MR on an unknown PD handle fails (errno %d)", e);
	errno = 0;
	ah = ibv_create_ah(&fake_pd, &aa);
	e = errno;
	vt_check(!ah && (e == ENOENT || e == EINVAL),
		 "AH on an unknown PD handle fails (errno %d)", e);
	e = ibv_dealloc_pd(&fake_pd);
	vt_check(e == ENOENT || e == EINVAL,
		 "ibv_dealloc_pd of an unknown handle fails (%d)", e);

	qp = mkqp(pd, cq, NULL, IBV_QPT_RC, 1, 1, 0);
	vt_check(qp != NULL, "QP for the destruction order test");
	CHECK_RC(ibv_dealloc_pd(pd), EBUSY,
		    "ibv_dealloc_pd with a live MR and QP");
	vt_check(!ibv_dereg_mr(mr), "ibv_dereg_mr before the QP");
	CHECK_RC(ibv_dealloc_pd(pd), EBUSY,
		    "ibv_dealloc_pd with a live QP");
	CHECK_RC(ibv_destroy_cq(cq), EBUSY,
		    "ibv_destroy_cq with a live QP");
	vt_check(qp && !ibv_destroy_qp(qp), "destroy the QP");
	vt_check(!ibv_dealloc_pd(pd), "then the PD, before the CQ");
	vt_check(!ibv_destroy_cq(cq), "then the CQ");
	/* ctx2 is closed with its objects alive: the kernel cleans up. */
	(void)cq2;
	(void)pd2;
}

int main(int argc, char **argv)
{
	struct ibv_pd *pd;
	struct ibv_cq *cq;

	printf("TAP version 13\n");
	if (argc < 3) {
		printf("1..0 # SKIP usage: %s IBDEV GID_INDEX\n", argv[0]);
		return 4;
	}
	gid_index = atoi(argv[2]);
	ctx = vt_open_dev(argv[1]);
	ctx2 = vt_open_dev(argv[1]);
	vt_check(ctx && ctx2, "open %s twice", argv[1]);
	if (!ctx || !ctx2) {
		return vt_plan();
	}
	test_device();
	test_pd();
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	vt_check(pd && cq, "PD and CQ for the QP tests");
	test_mr(pd);
	test_cq();
	test_qp_limits(pd, cq);
	test_qp_state_machine(pd, cq);
	test_uc_qp(pd, cq);
	test_flush(pd);
	test_cq_overflow(pd);
	test_srq(pd, cq);
	test_ud_ah(pd, cq);
	test_foreign_and_order();
	vt_check(!ibv_destroy_cq(cq) && !ibv_dealloc_pd(pd), "final teardown");
	vt_check(!ibv_close_device(ctx2) && !ibv_close_device(ctx),
		 "ibv_close_device");
	return vt_plan();
}
