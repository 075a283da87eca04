/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Per-device tables of verbs objects, embedded in struct mroce_dev.
 * Initialised by mroce_enable_driver() (ib_device_ops.enable_driver).
 */
#ifndef MROCE_RES_H
#define MROCE_RES_H

#include <linux/atomic.h>
#include <linux/types.h>
#include <linux/xarray.h>

/*
 * Per-device resource limits an operator can lower (mroce_limits.c): module
 * parameters give a new device its limits, the device's sysfs attributes
 * metaroce_<name> change them at run time.  Names in mroce_limits.c.
 */
enum mroce_limit {
	MROCE_LIM_QP,		/* QPs, the GSI QP included */
	MROCE_LIM_CQ,		/* CQs */
	MROCE_LIM_CQE,		/* entries asked for one CQ */
	MROCE_LIM_MR,		/* memory regions */
	MROCE_LIM_MW,		/* memory windows */
	MROCE_LIM_PD,		/* protection domains */
	MROCE_LIM_SRQ,		/* shared receive queues */
	MROCE_LIM_MR_SIZE,	/* bytes of one user memory region */
	MROCE_NUM_LIMITS
};

/**
 * struct mroce_res - lookup tables and limits of one device's objects
 * @qp_xa: QP number -> struct mroce_qp (QP1 is the GSI QP)
 * @mr_xa: key index (key >> 8) -> struct mroce_mr, random indices
 * @mw_xa: key index (key >> 8) -> struct mroce_mw, random indices
 * @mr_serial: last struct mroce_mr serial handed out
 * @srq_xa: SRQ number -> struct mroce_srq
 * @ah_xa: AH number -> struct mroce_ah
 * @next_srq: cursor of the cyclic SRQ number allocation (QP numbers and
 *	MR/MW key indices are drawn at random)
 * @num_qp, @num_cq, @num_srq, @num_mr, @num_mw, @num_pd: objects alive,
 *	bounded by @limits (AHs are bounded by their xarray's id range)
 * @num_ucontext, @num_ah: objects alive, for the read-only
 *	metaroce_objects sysfs attribute (leak checks after killed processes)
 * @num_ring: ring buffers allocated and not yet freed; a user ring lives
 *	until its last mapping is gone, after its object
 * @num_mmap: user mapping entries not yet freed
 * @limits: enum mroce_limit -> its value now (READ_ONCE/WRITE_ONCE: a
 *	limit lowered below what is alive refuses new objects only)
 *
 * Every object is inserted with a NULL entry to reserve its number and
 * published with xa_store() once fully built; destruction erases first.
 */
struct mroce_res {
	struct xarray qp_xa;
	struct xarray mr_xa;
	struct xarray mw_xa;
	atomic64_t mr_serial;
	struct xarray srq_xa;
	struct xarray ah_xa;
	u32 next_srq;
	atomic_t num_qp;
	atomic_t num_cq;
	atomic_t num_srq;
	atomic_t num_ucontext;
	atomic_t num_mr;
	atomic_t num_mw;
	atomic_t num_pd;
	atomic_t num_ah;
	atomic_t num_ring;
	atomic_t num_mmap;
	u64 limits[MROCE_NUM_LIMITS];
};

/* The value of limit @lim of a device now. */
static inline u64 mroce_limit(const struct mroce_res *res, enum mroce_limit lim)
{
	return READ_ONCE(res->limits[lim]);
}

/*
 * Count one more object in @num, bounded by limit @lim: 0, or -ENOMEM (as
 * rxe answers for an exhausted pool) with @num unchanged.
 */
static inline int mroce_res_take(struct mroce_res *res, atomic_t *num,
				 enum mroce_limit lim)
{
	if (atomic_inc_return(num) > mroce_limit(res, lim)) {
		atomic_dec(num);
		return -ENOMEM;
	}
	return 0;
}

#endif /* MROCE_RES_H */
