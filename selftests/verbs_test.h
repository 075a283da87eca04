/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The shared setup of the C tests of the VM selftests (datapath: mroce_dpcheck,
 * mroce_dpneg, uc_gap; verbs: verbs_objects, verbs_hold, verbs_fatal,
 * flush_race, qp_edges, dmabuf_xfer): TAP 13 output, opening a device by
 * name, its GID and MTU, QP creation, the RESET -> INIT -> RTR -> RTS
 * transitions and waiting for a QP state.  Header-only, like the kselftest harness: each test is one
 * .c file, built by selftests/lib.mk.
 */
#ifndef VERBS_TEST_H
#define VERBS_TEST_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

/* ---- TAP 13 */

static int vt_ntests, vt_nfail;
/* Why the case that runs failed: set by VT_FAIL(), read by the caller. */
static char vt_why[256] __attribute__((unused));

/* Record why the current case failed and return -1 from it. */
#define VT_FAIL(...) do { \
	snprintf(vt_why, sizeof(vt_why), __VA_ARGS__); \
	return -1; \
} while (0)

/* One TAP result; @why explains a failure. */
static inline void vt_result(bool ok, const char *what, const char *why)
{
	vt_ntests++;
	vt_nfail += !ok;
	printf("%s %d %s%s%s\n", ok ? "ok" : "not ok", vt_ntests, what,
	       ok || !why ? "" : " # ", ok || !why ? "" : why);
	fflush(stdout);
}

/* One TAP result described by a format. */
static inline __attribute__((format(printf, 2, 3)))
void vt_check(bool ok, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	vt_result(ok, what, NULL);
}

/* The plan, last; the exit status of the program. */
static inline int vt_plan(void)
{
	printf("1..%d\n", vt_ntests);
	return vt_nfail ? 1 : 0;
}

/* A setup step failed: nothing after it means anything. */
static inline void vt_bail(const char *what)
{
	printf("Bail out! %s: %s\n", what, strerror(errno));
	exit(2);
}

static inline double vt_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* ---- devices */

/* Open the RDMA device called @name; NULL if there is none. */
static inline struct ibv_context *vt_open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; list && list[i] && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	return ctx;
}

/* Line-buffered TAP output and the device called @name, or bail out. */
static inline struct ibv_context *vt_start(const char *name)
{
	struct ibv_context *ctx;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ctx = vt_open_dev(name);
	if (!ctx)
		vt_bail(name);
	return ctx;
}

/*
 * GID @gid_idx of port 1 into @gid and, unless @mtu is NULL, the port's
 * active MTU.  0, or -1 with errno set.
 */
static inline int vt_port_gid(struct ibv_context *ctx, int gid_idx,
			      union ibv_gid *gid, enum ibv_mtu *mtu)
{
	struct ibv_port_attr port;

	if (mtu) {
		if (ibv_query_port(ctx, 1, &port))
			return -1;
		*mtu = port.active_mtu;
	}
	return ibv_query_gid(ctx, 1, gid_idx, gid) ? -1 : 0;
}

/* ---- QPs */

/*
 * A QP of @type on @pd, both queues completing on @cq, receiving from @srq
 * unless it is NULL, sized by @cap (which gets the sizes granted).
 */
static inline struct ibv_qp *vt_create_qp(struct ibv_pd *pd,
					  struct ibv_cq *cq,
					  struct ibv_srq *srq,
					  enum ibv_qp_type type,
					  struct ibv_qp_cap *cap)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .srq = srq, .qp_type = type,
		.cap = *cap,
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &ia);

	if (qp)
		*cap = ia.cap;
	return qp;
}

/* A move to @state that needs no other attribute. */
static inline int vt_to_state(struct ibv_qp *qp, enum ibv_qp_state state)
{
	struct ibv_qp_attr a = { .qp_state = state };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

/* RC or UC: RESET -> INIT on port 1, P_Key index 0, remote @access rights. */
static inline int vt_qp_init(struct ibv_qp *qp, int access)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = access,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

/*
 * Wait up to @ms for @qp to be in @want: 0, or -1 with vt_why set, its
 * text after "@who: " unless @who is NULL.
 */
static inline int vt_wait_state(struct ibv_qp *qp, const char *who,
				enum ibv_qp_state want, double ms)
{
	double end = vt_now_ms() + ms;
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;

	do {
		if (ibv_query_qp(qp, &a, IBV_QP_STATE, &init))
			VT_FAIL("%s%squery_qp: %s", who ?: "", who ? ": " : "",
				strerror(errno));
		if (a.qp_state == want)
			return 0;
		usleep(1000);
	} while (vt_now_ms() < end);
	VT_FAIL("%s%sQP state %d, want %d", who ?: "", who ? ": " : "",
		a.qp_state, want);
}

/* The attributes of vt_connect() besides the path. */
struct vt_conn {
	enum ibv_mtu mtu;
	uint32_t rq_psn;	/* the first PSN expected from the peer */
	uint32_t sq_psn;	/* the first PSN sent */
	uint8_t rd_atomic;	/* READs or atomics outstanding, each way */
	uint8_t min_rnr_timer;
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t traffic_class;
	bool uc;		/* UC: no ACK-related attribute (IBTA 9.7) */
};

/*
 * An RC or UC QP in INIT to RTR and RTS (IBTA 10.3): to QP @dqpn at @dgid
 * through our GID @sgid_idx, hop limit 64, with the attributes of @c.
 * 0, or the error of the ibv_modify_qp() that failed.
 */
static inline int vt_connect(struct ibv_qp *qp, const union ibv_gid *dgid,
			     int sgid_idx, uint32_t dqpn,
			     const struct vt_conn *c)
{
	struct ibv_qp_attr a = {};
	int ret;

	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = c->mtu;
	a.dest_qp_num = dqpn;
	a.rq_psn = c->rq_psn;
	a.max_dest_rd_atomic = c->rd_atomic;
	a.min_rnr_timer = c->min_rnr_timer;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *dgid;
	a.ah_attr.grh.sgid_index = sgid_idx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.grh.traffic_class = c->traffic_class;
	a.ah_attr.port_num = 1;
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			    (c->uc ? 0 : IBV_QP_MAX_DEST_RD_ATOMIC |
					 IBV_QP_MIN_RNR_TIMER));
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = c->timeout;
	a.retry_cnt = c->retry_cnt;
	a.rnr_retry = c->rnr_retry;
	a.sq_psn = c->sq_psn;
	a.max_rd_atomic = c->rd_atomic;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			     (c->uc ? 0 : IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					  IBV_QP_RNR_RETRY |
					  IBV_QP_MAX_QP_RD_ATOMIC));
}

#endif /* VERBS_TEST_H */
