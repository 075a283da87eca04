// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Protection domains.  A PD has no state of its own: the RDMA core counts
 * its users and refuses to destroy one still in use (-EBUSY).
 */
#include "mroce_verbs.h"

int mroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct mroce_res *res = &to_mdev(ibpd->device)->res;

	return mroce_res_take(res, &res->num_pd, MROCE_LIM_PD);
}

int mroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	atomic_dec(&to_mdev(ibpd->device)->res.num_pd);
	return 0;
}
