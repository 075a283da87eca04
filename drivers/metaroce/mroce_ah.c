// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Address handles and address vectors.  A MetaRoCE port is RoCEv2 only, so
 * every address vector carries a GRH whose source GID entry the RDMA core
 * has already resolved (sgid_attr), as has the destination MAC.  AH numbers
 * (res.ah_xa, bounded by the advertised max_ah) name an AH in a UD send
 * work request posted from userspace.  AHs may be created and destroyed in
 * atomic context (no RDMA_CREATE_AH_SLEEPABLE / RDMA_DESTROY_AH_SLEEPABLE).
 */
#include <rdma/ib_cache.h>

#include "mroce_verbs.h"

int mroce_av_from_attr(struct mroce_av *av, const struct rdma_ah_attr *attr)
{
	const struct ib_global_route *grh;

	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(attr) & IB_AH_GRH) ||
	    rdma_ah_get_port_num(attr) != 1)
		return -EINVAL;
	grh = rdma_ah_read_grh(attr);
	if (!grh->sgid_attr)
		return -EINVAL;

	memset(av, 0, sizeof(*av));
	av->dgid = grh->dgid;
	av->sgid = grh->sgid_attr->gid;
	av->flow_label = grh->flow_label;
	av->sgid_index = grh->sgid_index;
	av->hop_limit = grh->hop_limit;
	av->traffic_class = grh->traffic_class;
	av->sl = rdma_ah_get_sl(attr);
	memcpy(av->dmac, attr->roce.dmac, ETH_ALEN);
	av->network_type = rdma_gid_attr_network_type(grh->sgid_attr);
	av->valid = true;
	return 0;
}

void mroce_av_to_attr(const struct mroce_av *av, struct rdma_ah_attr *attr)
{
	union ib_gid dgid = av->dgid;

	memset(attr, 0, sizeof(*attr));
	attr->type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(attr, 1);
	rdma_ah_set_sl(attr, av->sl);
	rdma_ah_set_grh(attr, &dgid, av->flow_label, av->sgid_index,
			av->hop_limit, av->traffic_class);
	memcpy(attr->roce.dmac, av->dmac, ETH_ALEN);
}

/*
 * The AH table is only ever touched with interrupts saved and without
 * sleeping, so that both entry points work in any context.
 */
static int mroce_ah_set(struct mroce_res *res, struct mroce_ah *ah,
			struct mroce_ah *entry, bool alloc)
{
	unsigned long flags;
	int err = 0;

	xa_lock_irqsave(&res->ah_xa, flags);
	if (alloc)
		err = __xa_alloc(&res->ah_xa, &ah->ah_num, NULL,
				 XA_LIMIT(1, MROCE_MAX_AH), GFP_ATOMIC);
	else if (entry)
		err = xa_err(__xa_store(&res->ah_xa, ah->ah_num, entry,
					GFP_ATOMIC));
	else
		__xa_erase(&res->ah_xa, ah->ah_num);
	xa_unlock_irqrestore(&res->ah_xa, flags);
	return err;
}

int mroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata)
{
	struct mroce_res *res = &to_mdev(ibah->device)->res;
	struct metaroce_create_ah_resp resp = {};
	struct mroce_ah *ah = to_mah(ibah);
	int err;

	err = mroce_av_from_attr(&ah->av, init->ah_attr);
	if (err)
		return err;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;
	err = mroce_ah_set(res, ah, NULL, true);
	if (err)
		return err == -EBUSY ? -ENOMEM : err;
	if (udata) {
		resp.ah_num = ah->ah_num;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_num;
	}
	/* The index is reserved: replacing its entry needs no memory. */
	err = mroce_ah_set(res, ah, ah, false);
	if (err)
		goto err_num;
	atomic_inc(&res->num_ah);
	return 0;

err_num:
	mroce_ah_set(res, ah, NULL, false);
	return err;
}

int mroce_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct mroce_res *res = &to_mdev(ibah->device)->res;

	mroce_ah_set(res, to_mah(ibah), NULL, false);
	atomic_dec(&res->num_ah);
	return 0;
}

int mroce_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	mroce_av_to_attr(&to_mah(ibah)->av, attr);
	return 0;
}
