/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Shared by the data path C tests (mroce_dpcheck, mroce_dpneg, uc_gap).
 * Header-only, like the kselftest harness: each test is one .c file.
 */
#ifndef DP_TEST_H
#define DP_TEST_H

#include <string.h>
#include <infiniband/verbs.h>

/* Open the RDMA device called @name; NULL if there is none. */
static inline struct ibv_context *dp_open_dev(const char *name)
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

/* RESET -> INIT on port 1, P_Key index 0, with remote @access rights. */
static inline int dp_qp_init(struct ibv_qp *qp, int access)
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
 * A UC QP from RESET to RTS with no ACK-related attribute (IBTA 9.7): path
 * MTU 1024, to QP @dqpn at @dgid through our GID @sgid_idx, expecting
 * @rq_psn and sending from @sq_psn.  0, or -1 with errno set.
 */
static inline int dp_uc_connect(struct ibv_qp *qp, const union ibv_gid *dgid,
				int sgid_idx, uint32_t dqpn, uint32_t rq_psn,
				uint32_t sq_psn)
{
	struct ibv_qp_attr a = {};

	if (dp_qp_init(qp, IBV_ACCESS_REMOTE_WRITE))
		return -1;
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.rq_psn = rq_psn;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *dgid;
	a.ah_attr.grh.sgid_index = sgid_idx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = sq_psn;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

/* The knobs of dp_rc_connect(); PSNs are @psn in both directions. */
struct dp_rc_knobs {
	enum ibv_mtu mtu;
	uint32_t psn;
	uint8_t min_rnr_timer;
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
};

/*
 * An RC QP in INIT to RTR and RTS (IBTA 9.7, 10.3): to QP @dqpn at @dgid
 * through our GID @sgid_idx, four READs or atomics outstanding each way.
 * 0, or -1 with errno set.
 */
static inline int dp_rc_connect(struct ibv_qp *qp, const union ibv_gid *dgid,
				int sgid_idx, uint32_t dqpn,
				const struct dp_rc_knobs *k)
{
	struct ibv_qp_attr a = {};

	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = k->mtu;
	a.dest_qp_num = dqpn;
	a.rq_psn = k->psn;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = k->min_rnr_timer;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *dgid;
	a.ah_attr.grh.sgid_index = sgid_idx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = k->timeout;
	a.retry_cnt = k->retry_cnt;
	a.rnr_retry = k->rnr_retry;
	a.sq_psn = k->psn;
	a.max_rd_atomic = 4;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

#endif /* DP_TEST_H */
