// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Per-device resource limits (enum mroce_limit, mroce_res.h): how many QPs,
 * CQs, MRs, MWs, PDs and SRQs a device may have alive, how deep one CQ may
 * be and how large one user memory region.  An operator lowers them to
 * share a host between jobs or to bound the memory one device can take:
 *   - module parameters max_qp, max_cq, ... give each device created from
 *     then on its limits;
 *   - the device's sysfs attributes metaroce_max_qp, ... change one
 *     device's limits at run time.
 * A value must lie between 1 and the driver's own maximum (mroce_param.h);
 * anything else is refused with -EINVAL and a message naming the range.
 * Lowering a limit below what is alive destroys nothing: creations fail
 * until enough objects are gone.  query_device reports the limits now, and
 * a change is copied into the RDMA core's cache of its answer
 * (ib_device.attrs), which the legacy query command and kernel consumers
 * read: ibv_devinfo -v and applications that size themselves by either
 * see the limits in force.
 *
 * Pinned memory is not a device limit: ib_umem_get() charges the pages of
 * every user memory region to the process's RLIMIT_MEMLOCK (unless it has
 * CAP_IPC_LOCK) and fails with -ENOMEM past it.
 */
#include <linux/moduleparam.h>

#include "mroce.h"
#include "mroce_param.h"

struct mroce_limit_desc {
	const char *name;
	u64 max;
};

static const struct mroce_limit_desc mroce_limit_desc[] = {
	[MROCE_LIM_QP] = { "max_qp", MROCE_MAX_QP },
	[MROCE_LIM_CQ] = { "max_cq", MROCE_MAX_CQ },
	[MROCE_LIM_CQE] = { "max_cqe", MROCE_MAX_CQE },
	[MROCE_LIM_MR] = { "max_mr", MROCE_MAX_MR },
	[MROCE_LIM_MW] = { "max_mw", MROCE_MAX_MW },
	[MROCE_LIM_PD] = { "max_pd", MROCE_MAX_PD },
	[MROCE_LIM_SRQ] = { "max_srq", MROCE_MAX_SRQ },
	[MROCE_LIM_MR_SIZE] = { "max_mr_size", MROCE_MAX_MR_SIZE },
};

/* The module parameters: the limits of devices created from now on. */
static u64 mroce_limit_defaults[MROCE_NUM_LIMITS] = {
	[MROCE_LIM_QP] = MROCE_MAX_QP,
	[MROCE_LIM_CQ] = MROCE_MAX_CQ,
	[MROCE_LIM_CQE] = MROCE_MAX_CQE,
	[MROCE_LIM_MR] = MROCE_MAX_MR,
	[MROCE_LIM_MW] = MROCE_MAX_MW,
	[MROCE_LIM_PD] = MROCE_MAX_PD,
	[MROCE_LIM_SRQ] = MROCE_MAX_SRQ,
	[MROCE_LIM_MR_SIZE] = MROCE_MAX_MR_SIZE,
};

/* Parse @buf as a value of limit @lim: 0, or -EINVAL. */
static int mroce_limit_parse(enum mroce_limit lim, const char *buf, u64 *val)
{
	if (kstrtou64(buf, 0, val) || *val < 1 ||
	    *val > mroce_limit_desc[lim].max)
		return -EINVAL;
	return 0;
}

static int mroce_limit_param_set(const char *val, const struct kernel_param *kp)
{
	enum mroce_limit lim = (u64 *)kp->arg - mroce_limit_defaults;
	u64 v;

	if (mroce_limit_parse(lim, val, &v)) {
		pr_err("metaroce: %s=%s refused: a number from 1 to %llu\n",
		       mroce_limit_desc[lim].name, strim((char *)val),
		       mroce_limit_desc[lim].max);
		return -EINVAL;
	}
	WRITE_ONCE(mroce_limit_defaults[lim], v);
	return 0;
}

static const struct kernel_param_ops mroce_limit_param_ops = {
	.set = mroce_limit_param_set,
	.get = param_get_ullong,
};

#define MROCE_LIMIT_PARAM(_name, _lim, _what)				\
	module_param_cb(_name, &mroce_limit_param_ops,			\
			&mroce_limit_defaults[_lim], 0644);		\
	MODULE_PARM_DESC(_name, _what " of devices created from now on")

MROCE_LIMIT_PARAM(max_qp, MROCE_LIM_QP,
		  "Most QPs, the GSI QP included (1-65536, default 65536),");
MROCE_LIMIT_PARAM(max_cq, MROCE_LIM_CQ,
		  "Most CQs (1-65536, default 65536),");
MROCE_LIMIT_PARAM(max_cqe, MROCE_LIM_CQE,
		  "Most entries asked for one CQ (1-65536, default 65536),");
MROCE_LIMIT_PARAM(max_mr, MROCE_LIM_MR,
		  "Most memory regions (1-65536, default 65536),");
MROCE_LIMIT_PARAM(max_mw, MROCE_LIM_MW,
		  "Most memory windows (1-65536, default 65536),");
MROCE_LIMIT_PARAM(max_pd, MROCE_LIM_PD,
		  "Most protection domains (1-65536, default 65536),");
MROCE_LIMIT_PARAM(max_srq, MROCE_LIM_SRQ,
		  "Most SRQs (1-16384, default 16384),");
MROCE_LIMIT_PARAM(max_mr_size, MROCE_LIM_MR_SIZE,
		  "Most bytes of one user memory region (1-2^40, default 2^40),");

/* A new device's limits: the module parameters now. */
void mroce_limits_init(struct mroce_res *res)
{
	int i;

	BUILD_BUG_ON(ARRAY_SIZE(mroce_limit_desc) != MROCE_NUM_LIMITS);
	for (i = 0; i < MROCE_NUM_LIMITS; i++)
		res->limits[i] = READ_ONCE(mroce_limit_defaults[i]);
}

/**
 * mroce_limits_fill() - the limits' fields of a device's attributes
 * @res: the device's resources, with their limits
 * @a: attributes to fill: query_device's answer, or ib_device.attrs, the
 *	RDMA core's copy of it from registration, which the legacy
 *	QUERY_DEVICE command and kernel consumers read (one plain store per
 *	field, as for any reader of a value that may change)
 */
void mroce_limits_fill(const struct mroce_res *res, struct ib_device_attr *a)
{
	WRITE_ONCE(a->max_mr_size, mroce_limit(res, MROCE_LIM_MR_SIZE));
	WRITE_ONCE(a->max_qp, mroce_limit(res, MROCE_LIM_QP));
	WRITE_ONCE(a->max_res_rd_atom,
		   MROCE_MAX_RD_ATOMIC * mroce_limit(res, MROCE_LIM_QP));
	WRITE_ONCE(a->max_cq, mroce_limit(res, MROCE_LIM_CQ));
	WRITE_ONCE(a->max_cqe, mroce_limit(res, MROCE_LIM_CQE));
	WRITE_ONCE(a->max_mr, mroce_limit(res, MROCE_LIM_MR));
	WRITE_ONCE(a->max_mw, mroce_limit(res, MROCE_LIM_MW));
	WRITE_ONCE(a->max_pd, mroce_limit(res, MROCE_LIM_PD));
	WRITE_ONCE(a->max_srq, mroce_limit(res, MROCE_LIM_SRQ));
}

/* sysfs metaroce_<name> of limit @lim: its value now. */
ssize_t mroce_limit_show(struct mroce_dev *mdev, enum mroce_limit lim,
			 char *buf)
{
	return sysfs_emit(buf, "%llu\n", mroce_limit(&mdev->res, lim));
}

/* sysfs metaroce_<name> of limit @lim: set it, or -EINVAL and why. */
ssize_t mroce_limit_store(struct mroce_dev *mdev, enum mroce_limit lim,
			  const char *buf, size_t count)
{
	u64 v;

	if (mroce_limit_parse(lim, buf, &v)) {
		ibdev_warn_ratelimited(&mdev->ibdev,
				       "metaroce_%s: '%.*s' refused: a number from 1 to %llu\n",
				       mroce_limit_desc[lim].name,
				       (int)min_t(size_t, strcspn(buf, "\n"), 32),
				       buf, mroce_limit_desc[lim].max);
		return -EINVAL;
	}
	WRITE_ONCE(mdev->res.limits[lim], v);
	mroce_limits_fill(&mdev->res, &mdev->ibdev.attrs);
	ibdev_info(&mdev->ibdev, "%s set to %llu\n", mroce_limit_desc[lim].name,
		   v);
	return count;
}
