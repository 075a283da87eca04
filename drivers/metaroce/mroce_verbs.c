// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The ib_device_ops table, user contexts and the driver's sysfs attributes.
 * The objects themselves live in one file each (see mroce_verbs.h).
 *
 * Device, port and pkey queries are in mroce_dev.c; GIDs come from the RDMA
 * core's RoCE GID cache, filled from the netdev's addresses.
 */
#include <uapi/rdma/metaroce-abi.h>

#include "mroce_verbs.h"

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

/*
 * Objects of this device alive now, read-only: lets a test check that
 * killing processes that hold objects leaks nothing (ring buffers count
 * until their last user mapping is gone).
 */
static ssize_t metaroce_objects_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	struct mroce_dev *mdev = rdma_device_to_drv_device(dev, struct mroce_dev,
							    ibdev);
	struct mroce_res *res = &mdev->res;

	return sysfs_emit(buf,
			  "ucontext %d pd %d mr %d mw %d cq %d qp %d srq %d ah %d ring %d mmap %d\n",
			  atomic_read(&res->num_ucontext),
			  atomic_read(&res->num_pd), atomic_read(&res->num_mr),
			  atomic_read(&res->num_mw),
			  atomic_read(&res->num_cq), atomic_read(&res->num_qp),
			  atomic_read(&res->num_srq), atomic_read(&res->num_ah),
			  atomic_read(&res->num_ring),
			  atomic_read(&res->num_mmap));
}
static DEVICE_ATTR_RO(metaroce_objects);

/* The UDP port of all this device's traffic (udp_port= at creation). */
static ssize_t metaroce_udp_port_show(struct device *dev,
				      struct device_attribute *attr, char *buf)
{
	struct mroce_dev *mdev = rdma_device_to_drv_device(dev, struct mroce_dev,
							    ibdev);

	return sysfs_emit(buf, "%u\n", mdev->udp_port);
}
static DEVICE_ATTR_RO(metaroce_udp_port);

/* The parent NIC's own RDMA device and the devlink commands, or "none". */
static ssize_t metaroce_nic_roce_show(struct device *dev,
				      struct device_attribute *attr, char *buf)
{
	return mroce_nic_show(rdma_device_to_drv_device(dev, struct mroce_dev,
							ibdev), buf);
}
static DEVICE_ATTR_RO(metaroce_nic_roce);

/*
 * Transport mode policy of the device's new RC and UC connections: auto
 * (the default), roce or metaroce (Documentation/wire.rst, "Negotiation
 * and versions").  A connection reads it once, when it enters RTR.
 */
static ssize_t metaroce_mode_policy_show(struct device *dev,
					 struct device_attribute *attr,
					 char *buf)
{
	struct mroce_dev *mdev = rdma_device_to_drv_device(dev, struct mroce_dev,
							    ibdev);

	return sysfs_emit(buf, "%s\n",
			  mroce_mode_policy_name(READ_ONCE(mdev->mode_policy)));
}

static ssize_t metaroce_mode_policy_store(struct device *dev,
					  struct device_attribute *attr,
					  const char *buf, size_t count)
{
	struct mroce_dev *mdev = rdma_device_to_drv_device(dev, struct mroce_dev,
							    ibdev);
	int policy = mroce_mode_policy_parse(buf);

	if (policy < 0) {
		ibdev_warn_ratelimited(&mdev->ibdev,
				       "metaroce_mode_policy: '%.*s' is not one of auto, roce, metaroce\n",
				       (int)min_t(size_t, strcspn(buf, "\n"), 32),
				       buf);
		return -EINVAL;
	}
	WRITE_ONCE(mdev->mode_policy, policy);
	return count;
}
static DEVICE_ATTR_RW(metaroce_mode_policy);

/*
 * 1 (the default): new RC and UC connections offer the UDP checksum in
 * place of the ICRC, used when the peer offers it too; 0: they keep the
 * ICRC (Documentation/wire.rst, "Integrity: UDP checksum instead of
 * ICRC").  A connection reads it once, when it enters RTR.
 */
static ssize_t metaroce_udp_csum_show(struct device *dev,
				      struct device_attribute *attr, char *buf)
{
	struct mroce_dev *mdev = rdma_device_to_drv_device(dev, struct mroce_dev,
							    ibdev);

	return sysfs_emit(buf, "%d\n", READ_ONCE(mdev->udp_csum));
}

static ssize_t metaroce_udp_csum_store(struct device *dev,
				       struct device_attribute *attr,
				       const char *buf, size_t count)
{
	struct mroce_dev *mdev = rdma_device_to_drv_device(dev, struct mroce_dev,
							    ibdev);
	bool on;

	if (kstrtobool(buf, &on)) {
		ibdev_warn_ratelimited(&mdev->ibdev,
				       "metaroce_udp_csum: '%.*s' is not 0 or 1\n",
				       (int)min_t(size_t, strcspn(buf, "\n"), 32),
				       buf);
		return -EINVAL;
	}
	WRITE_ONCE(mdev->udp_csum, on);
	return count;
}
static DEVICE_ATTR_RW(metaroce_udp_csum);

/*
 * A u32 attribute metaroce_<name>: an integer in [@_min, @_max], kept in
 * mdev->@_field times @_scale; a value out of range is refused with
 * EINVAL and a kernel message.  Read per packet: a change applies at once.
 */
#define MROCE_U32_ATTR(_name, _field, _min, _max, _scale)		\
static ssize_t metaroce_##_name##_show(struct device *dev,		\
				       struct device_attribute *attr,	\
				       char *buf)			\
{									\
	struct mroce_dev *mdev = rdma_device_to_drv_device(dev,	\
					struct mroce_dev, ibdev);	\
									\
	return sysfs_emit(buf, "%u\n",					\
			  (u32)(READ_ONCE(mdev->_field) / (_scale)));	\
}									\
static ssize_t metaroce_##_name##_store(struct device *dev,		\
					struct device_attribute *attr,	\
					const char *buf, size_t count)	\
{									\
	struct mroce_dev *mdev = rdma_device_to_drv_device(dev,	\
					struct mroce_dev, ibdev);	\
	u32 v;								\
									\
	if (kstrtou32(buf, 0, &v) || v < (_min) || v > (_max)) {	\
		ibdev_warn_ratelimited(&mdev->ibdev,			\
			"metaroce_" #_name ": '%.*s' is not an integer from %u to %u\n", \
			(int)min_t(size_t, strcspn(buf, "\n"), 32), buf,	\
			(u32)(_min), (u32)(_max));			\
		return -EINVAL;						\
	}								\
	WRITE_ONCE(mdev->_field, v * (_scale));				\
	return count;							\
}									\
static DEVICE_ATTR_RW(metaroce_##_name)

/*
 * ACK coalescing of a MetaRoCE-mode responder that holds requests ahead of
 * a hole (Documentation/wire.rst, "Selective repeat"): at the latest every
 * metaroce_ack_every held requests (1: each at once) or
 * metaroce_ack_delay_us microseconds after the first not acknowledged.
 */
MROCE_U32_ATTR(ack_every, ack_every, 1, MROCE_ACK_EVERY_MAX, 1);
MROCE_U32_ATTR(ack_delay_us, ack_delay_ns, 1, MROCE_ACK_DELAY_US_MAX,
	       NSEC_PER_USEC);
/*
 * The pipe of a MetaRoCE-mode requester (Documentation/wire.rst,
 * "Selective repeat"): PSNs in flight its peer has not reported, read
 * when a connection's span starts.
 */
MROCE_U32_ATTR(sr_pipe, sr_pipe, MROCE_SR_PIPE_MIN, MROCE_SR_WINDOW, 1);
/* ... and the least RTO its connections start with (mroce_param.h). */
MROCE_U32_ATTR(rto_min_us, rto_min_ns, MROCE_RTO_MIN_US_MIN,
	       MROCE_RTO_MIN_US_MAX, NSEC_PER_USEC);

/*
 * ECN (Documentation/wire.rst, "ECN and CNPs"): data packets ECN-capable
 * (metaroce_ecn); CE-marked packets answered with CNPs
 * (metaroce_np_enable), at most one per QP every
 * metaroce_np_min_time_between_cnps microseconds, with DSCP
 * metaroce_cnp_dscp: mlx5's roce_np knobs of the same names.
 */
MROCE_U32_ATTR(ecn, ecn, 0, 1, 1);
MROCE_U32_ATTR(np_enable, np_enable, 0, 1, 1);
MROCE_U32_ATTR(np_min_time_between_cnps, np_cnp_gap_ns, 0,
	       MROCE_NP_CNP_GAP_US_MAX, NSEC_PER_USEC);
MROCE_U32_ATTR(cnp_dscp, cnp_dscp, 0, 63, 1);

/*
 * DCQCN reaction point of RC requesters (core mroce_dcqcn.h): on or off
 * (metaroce_rp_enable) and its parameters, named, scaled and bounded as
 * mlx5's roce_rp knobs (times in microseconds, rates in Mb/s).
 */
MROCE_U32_ATTR(rp_enable, rp_enable, 0, 1, 1);
#define MROCE_DCQCN_ATTR(_name, _min, _max)				\
	MROCE_U32_ATTR(_name, dcqcn._name, _min, _max, 1)
MROCE_DCQCN_ATTR(rpg_time_reset_us, 1, 131071);
MROCE_DCQCN_ATTR(rpg_byte_reset, 1, 32767);
MROCE_DCQCN_ATTR(rpg_threshold, 1, 31);
MROCE_DCQCN_ATTR(rpg_max_rate_mbps, 0, 400000);
MROCE_DCQCN_ATTR(rpg_ai_rate_mbps, 1, 400000);
MROCE_DCQCN_ATTR(rpg_hai_rate_mbps, 1, 400000);
MROCE_DCQCN_ATTR(rpg_gd, 1, 15);
MROCE_DCQCN_ATTR(rpg_min_dec_fac, 0, 100);
MROCE_DCQCN_ATTR(rpg_min_rate_mbps, 1, 400000);
MROCE_DCQCN_ATTR(rate_to_set_on_first_cnp_mbps, 0, 400000);
MROCE_DCQCN_ATTR(dce_tcp_g, 0, 1023);
MROCE_DCQCN_ATTR(dce_tcp_rtt_us, 1, 131071);
MROCE_DCQCN_ATTR(rate_reduce_monitor_period_us, 0, 131071);
MROCE_DCQCN_ATTR(initial_alpha_value, 1, 1023);

/*
 * Fabric policy (enum mroce_fabric): "lossless" (the default) or "lossy",
 * read when a connection's span starts.
 */
static const char * const mroce_fabric_names[MROCE_NUM_FABRICS] = {
	[MROCE_FABRIC_LOSSLESS]	= "lossless",
	[MROCE_FABRIC_LOSSY]	= "lossy",
};

static ssize_t metaroce_fabric_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	struct mroce_dev *mdev = rdma_device_to_drv_device(dev, struct mroce_dev,
							    ibdev);

	return sysfs_emit(buf, "%s\n",
			  mroce_fabric_names[READ_ONCE(mdev->fabric)]);
}

static ssize_t metaroce_fabric_store(struct device *dev,
				     struct device_attribute *attr,
				     const char *buf, size_t count)
{
	struct mroce_dev *mdev = rdma_device_to_drv_device(dev, struct mroce_dev,
							    ibdev);
	int v = sysfs_match_string(mroce_fabric_names, buf);

	if (v < 0) {
		ibdev_warn_ratelimited(&mdev->ibdev,
				       "metaroce_fabric: '%.*s' is not one of lossless, lossy\n",
				       (int)min_t(size_t, strcspn(buf, "\n"), 32),
				       buf);
		return -EINVAL;
	}
	WRITE_ONCE(mdev->fabric, v);
	return count;
}
static DEVICE_ATTR_RW(metaroce_fabric);

/*
 * The delay-based window of a lossy fabric (mroce_param.h, core
 * mroce_cc.h): target queueing delay in microseconds, growth in bytes
 * per round trip, beta and the largest decrease in 1/1024, the window's
 * floor, cap and start in bytes.
 */
MROCE_U32_ATTR(cc_target_delay_us, wcc.target_delay_ns, 1,
	       MROCE_WCC_TARGET_US_MAX, NSEC_PER_USEC);
MROCE_U32_ATTR(cc_ai_bytes, wcc.ai_bytes, 1, MROCE_WCC_WINDOW_MAX, 1);
MROCE_U32_ATTR(cc_beta, wcc.beta, 0, 1024, 1);
MROCE_U32_ATTR(cc_max_mdf, wcc.max_mdf, 0, 1024, 1);
MROCE_U32_ATTR(cc_min_window, wcc.min_window, 1, MROCE_WCC_WINDOW_MAX, 1);
MROCE_U32_ATTR(cc_max_window, wcc.max_window, 1, MROCE_WCC_WINDOW_MAX, 1);
MROCE_U32_ATTR(cc_init_window, wcc.init_window, 1, MROCE_WCC_WINDOW_MAX, 1);

/*
 * Paths of MetaRoCE-mode RC requesters (mroce_spray.c): the mode, one of
 * flow, flowlet, spray; the entropies of each new RC QP; how long a
 * retired path is avoided; the idle gap that ends a flowlet.
 */
static ssize_t metaroce_path_mode_show(struct device *dev,
				       struct device_attribute *attr, char *buf)
{
	struct mroce_dev *mdev = rdma_device_to_drv_device(dev, struct mroce_dev,
							    ibdev);

	return sysfs_emit(buf, "%s\n",
			  mroce_path_mode_name(READ_ONCE(mdev->path_mode)));
}

static ssize_t metaroce_path_mode_store(struct device *dev,
					struct device_attribute *attr,
					const char *buf, size_t count)
{
	struct mroce_dev *mdev = rdma_device_to_drv_device(dev, struct mroce_dev,
							    ibdev);
	unsigned int m;

	for (m = 0; m < MROCE_NUM_PATH_MODES; m++)
		if (sysfs_streq(buf, mroce_path_mode_name(m)))
			break;
	if (m == MROCE_NUM_PATH_MODES) {
		ibdev_warn_ratelimited(&mdev->ibdev,
				       "metaroce_path_mode: '%.*s' is not one of flow, flowlet, spray\n",
				       (int)min_t(size_t, strcspn(buf, "\n"), 32),
				       buf);
		return -EINVAL;
	}
	WRITE_ONCE(mdev->path_mode, m);
	return count;
}
static DEVICE_ATTR_RW(metaroce_path_mode);
MROCE_U32_ATTR(paths, paths, 1, MROCE_PATHS_MAX, 1);
MROCE_U32_ATTR(path_hold_us, path_hold_ns, 1, MROCE_PATH_HOLD_US_MAX,
	       NSEC_PER_USEC);
MROCE_U32_ATTR(flowlet_gap_us, flowlet_gap_ns, 1, MROCE_FLOWLET_GAP_US_MAX,
	       NSEC_PER_USEC);

/* Path plans: ports per peer address (mroce_plan.c). */
static ssize_t metaroce_path_plan_show(struct device *dev,
				       struct device_attribute *attr, char *buf)
{
	return mroce_plan_show(rdma_device_to_drv_device(dev, struct mroce_dev,
							 ibdev), buf);
}

static ssize_t metaroce_path_plan_store(struct device *dev,
					struct device_attribute *attr,
					const char *buf, size_t count)
{
	return mroce_plan_store(rdma_device_to_drv_device(dev, struct mroce_dev,
							  ibdev), buf, count);
}
static DEVICE_ATTR_RW(metaroce_path_plan);

/*
 * Resource limits, one attribute each: metaroce_max_qp, ... (mroce_limits.c).
 */
#define MROCE_LIMIT_ATTR(_name, _lim)					\
static ssize_t metaroce_##_name##_show(struct device *dev,		\
				       struct device_attribute *attr,	\
				       char *buf)			\
{									\
	return mroce_limit_show(rdma_device_to_drv_device(dev,		\
				struct mroce_dev, ibdev), _lim, buf);	\
}									\
static ssize_t metaroce_##_name##_store(struct device *dev,		\
					struct device_attribute *attr,	\
					const char *buf, size_t count)	\
{									\
	return mroce_limit_store(rdma_device_to_drv_device(dev,	\
				 struct mroce_dev, ibdev), _lim, buf,	\
				 count);				\
}									\
static DEVICE_ATTR_RW(metaroce_##_name)

MROCE_LIMIT_ATTR(max_qp, MROCE_LIM_QP);
MROCE_LIMIT_ATTR(max_cq, MROCE_LIM_CQ);
MROCE_LIMIT_ATTR(max_cqe, MROCE_LIM_CQE);
MROCE_LIMIT_ATTR(max_mr, MROCE_LIM_MR);
MROCE_LIMIT_ATTR(max_mw, MROCE_LIM_MW);
MROCE_LIMIT_ATTR(max_pd, MROCE_LIM_PD);
MROCE_LIMIT_ATTR(max_srq, MROCE_LIM_SRQ);
MROCE_LIMIT_ATTR(max_mr_size, MROCE_LIM_MR_SIZE);

static struct attribute *mroce_dev_attrs[] = {
	&dev_attr_metaroce_abi_version.attr,
	&dev_attr_metaroce_objects.attr,
	&dev_attr_metaroce_udp_port.attr,
	&dev_attr_metaroce_nic_roce.attr,
	&dev_attr_metaroce_mode_policy.attr,
	&dev_attr_metaroce_udp_csum.attr,
	&dev_attr_metaroce_ack_every.attr,
	&dev_attr_metaroce_ack_delay_us.attr,
	&dev_attr_metaroce_sr_pipe.attr,
	&dev_attr_metaroce_rto_min_us.attr,
	&dev_attr_metaroce_ecn.attr,
	&dev_attr_metaroce_np_enable.attr,
	&dev_attr_metaroce_np_min_time_between_cnps.attr,
	&dev_attr_metaroce_cnp_dscp.attr,
	&dev_attr_metaroce_rp_enable.attr,
	&dev_attr_metaroce_rpg_time_reset_us.attr,
	&dev_attr_metaroce_rpg_byte_reset.attr,
	&dev_attr_metaroce_rpg_threshold.attr,
	&dev_attr_metaroce_rpg_max_rate_mbps.attr,
	&dev_attr_metaroce_rpg_ai_rate_mbps.attr,
	&dev_attr_metaroce_rpg_hai_rate_mbps.attr,
	&dev_attr_metaroce_rpg_gd.attr,
	&dev_attr_metaroce_rpg_min_dec_fac.attr,
	&dev_attr_metaroce_rpg_min_rate_mbps.attr,
	&dev_attr_metaroce_rate_to_set_on_first_cnp_mbps.attr,
	&dev_attr_metaroce_dce_tcp_g.attr,
	&dev_attr_metaroce_dce_tcp_rtt_us.attr,
	&dev_attr_metaroce_rate_reduce_monitor_period_us.attr,
	&dev_attr_metaroce_initial_alpha_value.attr,
	&dev_attr_metaroce_fabric.attr,
	&dev_attr_metaroce_cc_target_delay_us.attr,
	&dev_attr_metaroce_cc_ai_bytes.attr,
	&dev_attr_metaroce_cc_beta.attr,
	&dev_attr_metaroce_cc_max_mdf.attr,
	&dev_attr_metaroce_cc_min_window.attr,
	&dev_attr_metaroce_cc_max_window.attr,
	&dev_attr_metaroce_cc_init_window.attr,
	&dev_attr_metaroce_path_mode.attr,
	&dev_attr_metaroce_paths.attr,
	&dev_attr_metaroce_path_hold_us.attr,
	&dev_attr_metaroce_flowlet_gap_us.attr,
	&dev_attr_metaroce_path_plan.attr,
	&dev_attr_metaroce_max_qp.attr,
	&dev_attr_metaroce_max_cq.attr,
	&dev_attr_metaroce_max_cqe.attr,
	&dev_attr_metaroce_max_mr.attr,
	&dev_attr_metaroce_max_mw.attr,
	&dev_attr_metaroce_max_pd.attr,
	&dev_attr_metaroce_max_srq.attr,
	&dev_attr_metaroce_max_mr_size.attr,
	NULL
};

static const struct attribute_group mroce_dev_attr_group = {
	.attrs = mroce_dev_attrs,
};

static enum rdma_link_layer mroce_get_link_layer(struct ib_device *ibdev,
						 u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

/*
 * Called by ib_register_device() before any client can use the device, in
 * particular before the uverbs client builds the device's command table
 * from uverbs_cmd_mask.  The RDMA core enables only the control-path
 * commands by default; a driver opts in to the data-path ones it serves.
 * Ours: POST_SEND and POST_RECV carrying no work request are the
 * doorbells of the user rings (see metaroce-abi.h), and REQ_NOTIFY_CQ arms
 * a CQ for the completion channel.  Without them the provider's calls fail
 * with EOPNOTSUPP.
 */
/*
 * xa_init_flags() is inline and its spin_lock_init() gives every xarray
 * initialised in one file the same lockdep class.  mr_xa and mw_xa are
 * locked in process context only (the data path reads them under RCU),
 * ah_xa also from the send path in softirq: sharing a class, lockdep took
 * them for one lock used both ways ("inconsistent {SOFTIRQ-ON-W} ->
 * {IN-SOFTIRQ-W} usage") and switched itself off.  One class each.
 */
static struct lock_class_key mroce_xa_keys[5];

static void mroce_xa_init(struct xarray *xa, gfp_t flags,
			  struct lock_class_key *key)
{
	xa_init_flags(xa, flags);
	lockdep_set_class(&xa->xa_lock, key);
}

static int mroce_enable_driver(struct ib_device *ibdev)
{
	struct mroce_res *res = &to_mdev(ibdev)->res;

	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_POST_RECV) |
				  BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);

	mroce_xa_init(&res->qp_xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ,
		      &mroce_xa_keys[0]);
	mroce_xa_init(&res->mr_xa, 0, &mroce_xa_keys[1]);
	mroce_xa_init(&res->mw_xa, 0, &mroce_xa_keys[2]);
	mroce_xa_init(&res->srq_xa, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ,
		      &mroce_xa_keys[3]);
	mroce_xa_init(&res->ah_xa, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ,
		      &mroce_xa_keys[4]);
	return 0;
}

static int mroce_alloc_ucontext(struct ib_ucontext *ibuc,
				struct ib_udata *udata)
{
	struct metaroce_alloc_ucontext_resp resp = {
		.abi_version = METAROCE_UVERBS_ABI_VERSION,
		.ring_hdr_size = METAROCE_RING_HDR_SIZE,
		.cqe_size = sizeof(struct metaroce_cqe),
		.max_inline_data = MROCE_MAX_INLINE_DATA,
	};

	int err;

	if (udata->outlen < sizeof(resp))
		return -EINVAL;
	err = ib_copy_to_udata(udata, &resp, sizeof(resp));
	if (!err)
		atomic_inc(&to_mdev(ibuc->device)->res.num_ucontext);
	return err;
}

static void mroce_dealloc_ucontext(struct ib_ucontext *ibuc)
{
	atomic_dec(&to_mdev(ibuc->device)->res.num_ucontext);
}

const struct ib_device_ops mroce_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = METAROCE_UVERBS_ABI_VERSION,
	.device_group = &mroce_dev_attr_group,

	.alloc_hw_port_stats = mroce_alloc_hw_port_stats,
	.alloc_mr = mroce_alloc_mr,
	.alloc_mw = mroce_alloc_mw,
	.alloc_pd = mroce_alloc_pd,
	.alloc_ucontext = mroce_alloc_ucontext,
	.create_ah = mroce_create_ah,
	.create_cq = mroce_create_cq,
	.create_qp = mroce_create_qp,
	.create_srq = mroce_create_srq,
	/* Without it the RDMA core hides the AH commands from userspace. */
	.create_user_ah = mroce_create_ah,
	.dealloc_driver = mroce_dealloc_driver,
	.dealloc_mw = mroce_dealloc_mw,
	.dealloc_pd = mroce_dealloc_pd,
	.dealloc_ucontext = mroce_dealloc_ucontext,
	.dereg_mr = mroce_dereg_mr,
	.disassociate_ucontext = mroce_disassociate_ucontext,
	.destroy_ah = mroce_destroy_ah,
	.destroy_cq = mroce_destroy_cq,
	.destroy_qp = mroce_destroy_qp,
	.destroy_srq = mroce_destroy_srq,
	.enable_driver = mroce_enable_driver,
	.fill_res_qp_entry = mroce_fill_res_qp_entry,
	.get_dma_mr = mroce_get_dma_mr,
	.get_hw_stats = mroce_get_hw_stats,
	.get_link_layer = mroce_get_link_layer,
	.get_port_immutable = mroce_port_immutable,
	.map_mr_sg = mroce_map_mr_sg,
	.mmap = mroce_mmap,
	.mmap_free = mroce_mmap_free,
	.modify_qp = mroce_modify_qp,
	.modify_srq = mroce_modify_srq,
	.poll_cq = mroce_poll_cq,
	.post_recv = mroce_post_recv,
	.post_send = mroce_post_send,
	.post_srq_recv = mroce_post_srq_recv,
	.query_ah = mroce_query_ah,
	.query_device = mroce_query_device,
	.query_pkey = mroce_query_pkey,
	.query_port = mroce_query_port,
	.query_qp = mroce_query_qp,
	.query_srq = mroce_query_srq,
	.reg_user_mr = mroce_reg_user_mr,
	.reg_user_mr_dmabuf = mroce_reg_user_mr_dmabuf,
	.req_notify_cq = mroce_req_notify_cq,
	.resize_cq = mroce_resize_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, mroce_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, mroce_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, mroce_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, mroce_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, mroce_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, mroce_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, mroce_ucontext, ibuc),
};
