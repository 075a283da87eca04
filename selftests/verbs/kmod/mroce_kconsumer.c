// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A kernel verbs consumer for the selftests (kconsumer.sh): what in-kernel
 * users of a device (ULPs, ib_core's own GSI agents) may do, exercised on
 * one MetaRoCE device at module load.  The results are TAP lines in the
 * kernel log, prefixed "mroce_kconsumer: ".
 *
 *   insmod mroce_kconsumer.ko dev=IBDEV gid=GID_INDEX
 *
 *  1. The completion handler posts: a UD QP sends to itself; every send
 *     and receive completion is handled in the CQ's completion handler,
 *     which posts the next send and re-posts the receive from there.  A
 *     handler called with a work queue's lock held deadlocks here.
 *  2. The same while the QP enters ERR: the flush's completions reach the
 *     handler, which posts receives (flushed in turn) from it.
 *  3. Inline data whose SGE lengths wrap a 32-bit sum to a small value is
 *     refused by ib_post_send() with -EINVAL (and nothing is copied).
 *
 * Everything is created and destroyed inside module init; the module then
 * stays loaded, holding nothing, until it is removed.
 */
#include <linux/completion.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#define KC_QKEY		0x1234567
#define KC_SENDS	32	/* sends the handler chains */
#define KC_RECVS	8
#define KC_MSG		64
#define KC_GRH		40	/* a UD receive starts with the GRH */
#define KC_FLUSH_REPOSTS 4

static char *dev = "";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "RDMA device to test");
static int gid;
module_param(gid, int, 0444);
MODULE_PARM_DESC(gid, "GID index of its IPv4 RoCE v2 address");

struct kc {
	struct ib_device *ibdev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct ib_ah *ah;
	u8 *buf;		/* KC_RECVS receive slots, then the send data */
	int sent, sends_done, recvs_done, flushed, reposted, errors;
	bool flushing;
	struct completion done;
};

static int kc_ntests, kc_nfail;

static void kc_result(bool ok, const char *what)
{
	kc_ntests++;
	kc_nfail += !ok;
	pr_info("mroce_kconsumer: %s %d %s\n", ok ? "ok" : "not ok",
		kc_ntests, what);
}

static u8 *kc_slot(struct kc *k, int i)
{
	return k->buf + i * (KC_GRH + KC_MSG);
}

static int kc_post_recv(struct kc *k, int i)
{
	struct ib_sge sge = {
		.addr = (uintptr_t)kc_slot(k, i),
		.length = KC_GRH + KC_MSG,
		.lkey = k->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };

	return ib_post_recv(k->qp, &wr, NULL);
}

static int kc_post_send(struct kc *k)
{
	struct ib_sge sge = {
		.addr = (uintptr_t)kc_slot(k, KC_RECVS),
		.length = KC_MSG,
		.lkey = k->pd->local_dma_lkey,
	};
	struct ib_ud_wr wr = {
		.wr = {
			.wr_id = 1000 + k->sent, .sg_list = &sge,
			.num_sge = 1, .opcode = IB_WR_SEND,
			.send_flags = IB_SEND_SIGNALED,
		},
		.ah = k->ah, .remote_qpn = k->qp->qp_num,
		.remote_qkey = KC_QKEY,
	};

	k->sent++;
	return ib_post_send(k->qp, &wr.wr, NULL);
}

/* One completion, in the handler: post what comes next from right here. */
static void kc_handle(struct kc *k, const struct ib_wc *wc)
{
	if (k->flushing) {
		k->flushed++;
		/* Posted in ERR: flushed again, through this handler. */
		if (wc->opcode == IB_WC_RECV && k->reposted < KC_FLUSH_REPOSTS) {
			k->reposted++;
			if (kc_post_recv(k, wc->wr_id))
				k->errors++;
		}
		return;
	}
	if (wc->status != IB_WC_SUCCESS) {
		k->errors++;
		return;
	}
	if (wc->opcode == IB_WC_SEND) {
		k->sends_done++;
		if (k->sent < KC_SENDS && kc_post_send(k))
			k->errors++;
	} else if (wc->opcode == IB_WC_RECV) {
		k->recvs_done++;
		if (kc_post_recv(k, wc->wr_id))
			k->errors++;
	}
}

static void kc_comp_handler(struct ib_cq *cq, void *ctx)
{
	struct kc *k = ctx;
	struct ib_wc wc;

	do {
		while (ib_poll_cq(cq, 1, &wc) == 1)
			kc_handle(k, &wc);
	} while (ib_req_notify_cq(cq, IB_CQ_NEXT_COMP |
				  IB_CQ_REPORT_MISSED_EVENTS) > 0);
	if ((k->sends_done == KC_SENDS && k->recvs_done == KC_SENDS) ||
	    k->errors || (k->flushing && k->flushed >= KC_RECVS))
		complete(&k->done);
}

static int kc_to_rts(struct kc *k)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT, .pkey_index = 0, .port_num = 1,
		.qkey = KC_QKEY,
	};
	int err;

	err = ib_modify_qp(k->qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_QKEY);
	a.qp_state = IB_QPS_RTR;
	if (!err)
		err = ib_modify_qp(k->qp, &a, IB_QP_STATE);
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = 0;
	if (!err)
		err = ib_modify_qp(k->qp, &a, IB_QP_STATE | IB_QP_SQ_PSN);
	return err;
}

/* An address handle to our own GID: the QP sends to itself. */
static int kc_ah(struct kc *k)
{
	struct rdma_ah_attr attr = {};
	union ib_gid g;
	int err;

	err = rdma_query_gid(k->ibdev, 1, gid, &g);
	if (err)
		return err;
	attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&attr, 1);
	rdma_ah_set_grh(&attr, &g, 0, gid, 64, 0);
	k->ah = rdma_create_ah(k->pd, &attr, 0);
	return PTR_ERR_OR_ZERO(k->ah);
}

static int kc_setup(struct kc *k)
{
	struct ib_cq_init_attr ca = { .cqe = 4 * KC_SENDS };
	struct ib_qp_init_attr qa = {
		.qp_type = IB_QPT_UD, .sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 16, .max_recv_wr = KC_RECVS,
			 .max_send_sge = 2, .max_recv_sge = 1,
			 .max_inline_data = KC_MSG },
	};

	k->pd = ib_alloc_pd(k->ibdev, 0);
	if (IS_ERR(k->pd))
		return PTR_ERR(k->pd);
	k->cq = ib_create_cq(k->ibdev, kc_comp_handler, NULL, k, &ca);
	if (IS_ERR(k->cq))
		return PTR_ERR(k->cq);
	qa.send_cq = k->cq;
	qa.recv_cq = k->cq;
	k->qp = ib_create_qp(k->pd, &qa);
	if (IS_ERR(k->qp))
		return PTR_ERR(k->qp);
	return kc_to_rts(k) ?: kc_ah(k);
}

static void kc_teardown(struct kc *k)
{
	if (!IS_ERR_OR_NULL(k->ah))
		rdma_destroy_ah(k->ah, 0);
	if (!IS_ERR_OR_NULL(k->qp))
		ib_destroy_qp(k->qp);
	if (!IS_ERR_OR_NULL(k->cq))
		ib_destroy_cq(k->cq);
	if (!IS_ERR_OR_NULL(k->pd))
		ib_dealloc_pd(k->pd);
}

static void kc_test_chain(struct kc *k)
{
	bool ok = true;
	int i;

	ib_req_notify_cq(k->cq, IB_CQ_NEXT_COMP);
	for (i = 0; i < KC_RECVS && ok; i++)
		ok = !kc_post_recv(k, i);
	ok = ok && !kc_post_send(k) &&
	     wait_for_completion_timeout(&k->done, 10 * HZ) &&
	     !k->errors && k->sends_done == KC_SENDS &&
	     k->recvs_done == KC_SENDS;
	pr_info("mroce_kconsumer: # %d sends, %d receives, %d errors\n",
		k->sends_done, k->recvs_done, k->errors);
	kc_result(ok, "the completion handler posts sends and receives");
}

static void kc_test_flush(struct kc *k)
{
	struct ib_qp_attr a = { .qp_state = IB_QPS_ERR };
	bool ok;

	reinit_completion(&k->done);
	k->flushing = true;
	ib_req_notify_cq(k->cq, IB_CQ_NEXT_COMP);
	ok = !ib_modify_qp(k->qp, &a, IB_QP_STATE) &&
	     wait_for_completion_timeout(&k->done, 10 * HZ) &&
	     !k->errors;
	pr_info("mroce_kconsumer: # %d flushed, %d re-posted from the handler\n",
		k->flushed, k->reposted);
	kc_result(ok && k->reposted == KC_FLUSH_REPOSTS,
		  "the handler posts receives while the QP flushes");
}

/* Two SGEs whose lengths add up to 64 modulo 2^32. */
static void kc_test_inline(struct kc *k)
{
	struct ib_qp_attr a = { .qp_state = IB_QPS_RESET };
	struct ib_sge sge[2] = {
		{ .addr = (uintptr_t)kc_slot(k, KC_RECVS), .length = 0xffffffc0 },
		{ .addr = (uintptr_t)kc_slot(k, KC_RECVS), .length = 0x80 },
	};
	struct ib_ud_wr wr = {
		.wr = {
			.sg_list = sge, .num_sge = 2, .opcode = IB_WR_SEND,
			.send_flags = IB_SEND_INLINE,
		},
		.ah = k->ah, .remote_qpn = k->qp->qp_num,
		.remote_qkey = KC_QKEY,
	};
	int err = ib_modify_qp(k->qp, &a, IB_QP_STATE) ?: kc_to_rts(k);

	if (!err)
		err = ib_post_send(k->qp, &wr.wr, NULL) == -EINVAL ? 0 : -1;
	kc_result(!err, "inline lengths that wrap a 32-bit sum are refused");
}

static int __init kc_init(void)
{
	struct kc *k = kzalloc(sizeof(*k), GFP_KERNEL);
	int err;

	if (!k)
		return -ENOMEM;
	init_completion(&k->done);
	k->buf = kzalloc((KC_RECVS + 1) * (KC_GRH + KC_MSG), GFP_KERNEL);
	k->ibdev = ib_device_get_by_name(dev, RDMA_DRIVER_UNKNOWN);
	if (!k->buf || !k->ibdev) {
		err = k->buf ? -ENODEV : -ENOMEM;
		goto out;
	}
	pr_info("mroce_kconsumer: TAP version 13\n");
	err = kc_setup(k);
	if (err) {
		pr_info("mroce_kconsumer: Bail out! setup: %d\n", err);
		goto out;
	}
	kc_test_chain(k);
	kc_test_flush(k);
	kc_test_inline(k);
	pr_info("mroce_kconsumer: 1..%d\n", kc_ntests);
out:
	kc_teardown(k);
	if (k->ibdev)
		ib_device_put(k->ibdev);
	kfree(k->buf);
	kfree(k);
	return err;
}

static void __exit kc_exit(void)
{
}

module_init(kc_init);
module_exit(kc_exit);
MODULE_DESCRIPTION("MetaRoCE selftest: a kernel verbs consumer");
MODULE_LICENSE("Dual BSD/GPL");
