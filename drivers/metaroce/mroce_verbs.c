// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The ib_device_ops table and the verbs entry points.
 *
 * Implemented so far: device, port, pkey and GID queries (the GID table is
 * the RDMA core's RoCE GID cache), user contexts and protection domains.
 * Queue pairs, completion queues and memory regions are refused with
 * -EOPNOTSUPP until their implementation lands; the RDMA core requires the
 * entry points to exist.
 */
#include <linux/atomic.h>
#include <uapi/rdma/metaroce-abi.h>

#include "mroce.h"
#include "mroce_param.h"

struct mroce_ucontext {
	struct ib_ucontext ibuc;
};

struct mroce_pd {
	struct ib_pd ibpd;
};

/* Placeholders sized for the RDMA core's allocations; see file comment. */
struct mroce_cq {
	struct ib_cq ibcq;
};

struct mroce_qp {
	struct ib_qp ibqp;
};

static enum rdma_link_layer mroce_get_link_layer(struct ib_device *ibdev,
						 u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

/*
 * The provider (userspace/provider/mroce_udev.c) recognises MetaRoCE devices
 * by this attribute, whatever name `rdma link add` gave them.
 */
static ssize_t metaroce_abi_version_show(struct device *dev,
					 struct device_attribute *attr,
					 char *buf)
{
	return sysfs_emit(buf, "%u\n", METAROCE_UVERBS_ABI_VERSION);
}
static DEVICE_ATTR_RO(metaroce_abi_version);

static struct attribute *mroce_dev_attrs[] = {
	&dev_attr_metaroce_abi_version.attr,
	NULL
};

static const struct attribute_group mroce_dev_attr_group = {
	.attrs = mroce_dev_attrs,
};

static int mroce_alloc_ucontext(struct ib_ucontext *ibuc,
				struct ib_udata *udata)
{
	struct metaroce_alloc_ucontext_resp resp = {
		.abi_version = METAROCE_UVERBS_ABI_VERSION,
		.ring_hdr_size = METAROCE_RING_HDR_SIZE,
		.cqe_size = sizeof(struct metaroce_cqe),
		.max_inline_data = 0,
	};

	if (udata->outlen < sizeof(resp))
		return 0;
	return ib_copy_to_udata(udata, &resp, sizeof(resp));
}

static void mroce_dealloc_ucontext(struct ib_ucontext *ibuc)
{
}

static int mroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct mroce_dev *mdev = to_mdev(ibpd->device);

	if (atomic_inc_return(&mdev->num_pd) > MROCE_MAX_PD) {
		atomic_dec(&mdev->num_pd);
		return -ENOMEM;
	}
	return 0;
}

static int mroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	atomic_dec(&to_mdev(ibpd->device)->num_pd);
	return 0;
}

static int mroce_create_cq(struct ib_cq *ibcq,
			   const struct ib_cq_init_attr *attr,
			   struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int mroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	return 0;
}

static int mroce_poll_cq(struct ib_cq *ibcq, int num_entries,
			 struct ib_wc *wc)
{
	return 0;
}

static int mroce_req_notify_cq(struct ib_cq *ibcq,
			       enum ib_cq_notify_flags flags)
{
	return -EOPNOTSUPP;
}

static int mroce_create_qp(struct ib_qp *ibqp,
			   struct ib_qp_init_attr *init_attr,
			   struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int mroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			   int mask, struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int mroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	return 0;
}

static int mroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			   const struct ib_send_wr **bad_wr)
{
	*bad_wr = wr;
	return -EOPNOTSUPP;
}

static int mroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
			   const struct ib_recv_wr **bad_wr)
{
	*bad_wr = wr;
	return -EOPNOTSUPP;
}

static struct ib_mr *mroce_get_dma_mr(struct ib_pd *ibpd, int access)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static struct ib_mr *mroce_reg_user_mr(struct ib_pd *ibpd, u64 start,
				       u64 length, u64 iova, int access,
				       struct ib_udata *udata)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static int mroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

const struct ib_device_ops mroce_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = METAROCE_UVERBS_ABI_VERSION,
	.device_group = &mroce_dev_attr_group,

	.alloc_hw_port_stats = mroce_alloc_hw_port_stats,
	.alloc_pd = mroce_alloc_pd,
	.alloc_ucontext = mroce_alloc_ucontext,
	.create_cq = mroce_create_cq,
	.create_qp = mroce_create_qp,
	.dealloc_driver = mroce_dealloc_driver,
	.dealloc_pd = mroce_dealloc_pd,
	.dealloc_ucontext = mroce_dealloc_ucontext,
	.dereg_mr = mroce_dereg_mr,
	.destroy_cq = mroce_destroy_cq,
	.destroy_qp = mroce_destroy_qp,
	.get_dma_mr = mroce_get_dma_mr,
	.get_hw_stats = mroce_get_hw_stats,
	.get_link_layer = mroce_get_link_layer,
	.get_port_immutable = mroce_port_immutable,
	.modify_qp = mroce_modify_qp,
	.poll_cq = mroce_poll_cq,
	.post_recv = mroce_post_recv,
	.post_send = mroce_post_send,
	.query_device = mroce_query_device,
	.query_pkey = mroce_query_pkey,
	.query_port = mroce_query_port,
	.reg_user_mr = mroce_reg_user_mr,
	.req_notify_cq = mroce_req_notify_cq,

	INIT_RDMA_OBJ_SIZE(ib_cq, mroce_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, mroce_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, mroce_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, mroce_ucontext, ibuc),
};
