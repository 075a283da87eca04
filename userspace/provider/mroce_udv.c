// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Transport mode of RC and UC QPs (Documentation/wire.rst, "Transport
 * mode"), the provider's part: the per-QP override of the direct verbs
 * (metaroce_dv.h; the only symbol the provider exports, provider.map) and
 * the out-of-band agreement through ECE, which rdma_cm runs with
 * ibv_query_ece() and ibv_set_ece() around its REQ and REP:
 *
 *   active side    query_ece (our offer, sent in the REQ); at the REP,
 *                  set_ece (the passive side's answer), then RTR
 *   passive side   set_ece (the offer of the REQ), query_ece (our answer,
 *                  sent in the REP), then RTR
 *
 * Both ends thus hold the same answer before the first packet; it goes to
 * the kernel with the modify QP commands (struct metaroce_modify_qp).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mroce_u.h"
#include "metaroce_dv.h"

_Static_assert((int)METAROCE_DV_MODE_DEVICE == METAROCE_QP_MODE_DEVICE &&
	       (int)METAROCE_DV_MODE_AUTO == METAROCE_QP_MODE_AUTO &&
	       (int)METAROCE_DV_MODE_ROCE == METAROCE_QP_MODE_ROCE &&
	       (int)METAROCE_DV_MODE_METAROCE == METAROCE_QP_MODE_METAROCE,
	       "metaroce_dv_mode is the uapi's metaroce_qp_mode");

static bool mroce_qp_connected(struct ibv_qp *qp)
{
	return qp->qp_type == IBV_QPT_RC || qp->qp_type == IBV_QPT_UC;
}

static bool mroce_qp_before_rtr(struct ibv_qp *qp)
{
	return qp->state == IBV_QPS_RESET || qp->state == IBV_QPS_INIT;
}

int metaroce_dv_qp_set_mode(struct ibv_qp *qp, enum metaroce_dv_mode mode)
{
	if (!mroce_is_mroce_device(qp->context->device) ||
	    !mroce_qp_connected(qp))
		return EOPNOTSUPP;
	if ((unsigned int)mode > METAROCE_DV_MODE_METAROCE ||
	    !mroce_qp_before_rtr(qp))
		return EINVAL;
	to_muqp(qp)->mode = mode;
	return 0;
}

/*
 * The device's metaroce_mode_policy, as a METAROCE_QP_MODE_*; auto when it
 * cannot be read (the kernel's default).
 */
static uint32_t mroce_dev_policy(struct ibv_context *ctx)
{
	struct verbs_device *vdev = (struct verbs_device *)ctx->device;
	char path[IBV_SYSFS_PATH_MAX + 32], buf[16];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/metaroce_mode_policy",
		 vdev->sysfs->ibdev_path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return METAROCE_QP_MODE_AUTO;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	if (!strcmp(buf, "roce\n"))
		return METAROCE_QP_MODE_ROCE;
	if (!strcmp(buf, "metaroce\n"))
		return METAROCE_QP_MODE_METAROCE;
	return METAROCE_QP_MODE_AUTO;
}

/* Would @qp use MetaRoCE mode: by its own mode, else by the device's? */
static bool mroce_qp_willing(struct ibv_qp *ibqp)
{
	uint32_t mode = to_muqp(ibqp)->mode;

	if (mode == METAROCE_QP_MODE_DEVICE)
		mode = mroce_dev_policy(ibqp->context);
	return mode == METAROCE_QP_MODE_AUTO ||
	       mode == METAROCE_QP_MODE_METAROCE;
}

/* Our offer, or after set_ece the answer both ends hold. */
int mroce_query_ece(struct ibv_qp *ibqp, struct ibv_ece *ece)
{
	struct mroce_uqp *qp = to_muqp(ibqp);

	if (!mroce_qp_connected(ibqp))
		return EOPNOTSUPP;
	memset(ece, 0, sizeof(*ece));
	ece->vendor_id = METAROCE_ECE_VENDOR_ID;
	if (qp->ece_set)
		ece->options = qp->ece_ver ? METAROCE_ECE_MODE | qp->ece_ver : 0;
	else if (mroce_qp_willing(ibqp))
		ece->options = METAROCE_ECE_MODE | METAROCE_EXT_VERSION;
	return 0;
}

/*
 * The peer's offer (passive side) or answer (active side): MetaRoCE mode
 * when both are willing, at the smaller version.  Options this version
 * does not know are left out of the answer, as ECE intends.
 */
int mroce_set_ece(struct ibv_qp *ibqp, struct ibv_ece *ece)
{
	struct mroce_uqp *qp = to_muqp(ibqp);
	uint32_t ver = ece->options & METAROCE_ECE_VER_MASK;

	if (!mroce_qp_connected(ibqp))
		return EOPNOTSUPP;
	if (ece->comp_mask || ece->vendor_id != METAROCE_ECE_VENDOR_ID ||
	    !mroce_qp_before_rtr(ibqp))
		return EINVAL;
	if (!(ece->options & METAROCE_ECE_MODE) || !ver ||
	    !mroce_qp_willing(ibqp))
		ver = 0;
	qp->ece_ver = ver < METAROCE_EXT_VERSION ? ver : METAROCE_EXT_VERSION;
	qp->ece_set = true;
	return 0;
}
