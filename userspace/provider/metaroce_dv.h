/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * MetaRoCE direct verbs: what the standard verbs cannot say, for programs
 * that know they run on a MetaRoCE device.  Installed as
 * <infiniband/metaroce_dv.h>; link with -lmetaroce (the provider itself,
 * libmetaroce-rdmav34.so, which `make install` also makes available as
 * libmetaroce.so).
 */
#ifndef METAROCE_DV_H
#define METAROCE_DV_H

#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Transport mode policy of one RC or UC QP (Documentation/wire.rst,
 * "Transport mode"), overriding the device's metaroce_mode_policy.
 */
enum metaroce_dv_mode {
	METAROCE_DV_MODE_DEVICE = 0,	/* follow the device's policy */
	METAROCE_DV_MODE_AUTO = 1,	/* metaroce if the peer marks */
	METAROCE_DV_MODE_ROCE = 2,	/* plain RoCEv2, never mark */
	METAROCE_DV_MODE_METAROCE = 3,	/* metaroce, or fail the connection */
};

/*
 * Set the transport mode policy of @qp, an RC or UC QP of a MetaRoCE
 * device in RESET or INIT: the QP takes it when it enters RTR (it goes to
 * the kernel with the next ibv_modify_qp()).  Returns 0, EINVAL for
 * another mode or a QP past INIT, EOPNOTSUPP for another QP type or a QP
 * of another provider.
 */
int metaroce_dv_qp_set_mode(struct ibv_qp *qp, enum metaroce_dv_mode mode);

#ifdef __cplusplus
}
#endif

#endif /* METAROCE_DV_H */
