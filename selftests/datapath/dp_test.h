/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Shared by the data path C tests (mroce_dpcheck, mroce_dpneg, uc_gap).
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

#endif /* DP_TEST_H */
