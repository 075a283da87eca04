/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Per-device tables of verbs objects, embedded in struct mroce_dev.
 * Initialised by mroce_enable_driver() (ib_device_ops.enable_driver).
 */
#ifndef MROCE_RES_H
#define MROCE_RES_H

#include <linux/atomic.h>
#include <linux/xarray.h>

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
 * @num_qp, @num_cq, @num_srq, @num_mr, @num_mw: objects alive, bounded by the
 *	advertised limits (AHs are bounded by their xarray's id range)
 * @num_ucontext, @num_ah: objects alive, for the read-only
 *	metaroce_objects sysfs attribute (leak checks after killed processes)
 * @num_ring: ring buffers allocated and not yet freed; a user ring lives
 *	until its last mapping is gone, after its object
 * @num_mmap: user mapping entries not yet freed
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
	atomic_t num_ah;
	atomic_t num_ring;
	atomic_t num_mmap;
};

#endif /* MROCE_RES_H */
