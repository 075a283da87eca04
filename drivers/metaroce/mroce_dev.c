// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE device life cycle: creation through `rdma link add`, port and
 * device attributes, reaction to netdev events, and teardown.
 *
 * Lifetime rules:
 *  - A device is on mroce_dev_list from before ib_register_device() until
 *    dealloc_driver, so the netdev notifier always sees it.
 *  - The device holds its netdev (netdev_hold) and a user reference on the
 *    namespace's UDP socket until dealloc_driver; the RDMA core calls
 *    dealloc_driver exactly once, from whichever unregistration path runs
 *    first (rdma link delete, netdev removal, module unload).
 */
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_mad.h>

#include "mroce.h"
#include "mroce_param.h"

static const struct rdma_stat_desc mroce_counter_desc[] = {
	[MROCE_CNT_RX_PKTS] = { .name = "rx_packets" },
	[MROCE_CNT_RX_DROP_NO_QP] = { .name = "rx_drop_no_qp" },
	[MROCE_CNT_RX_DROP_MALFORMED] = { .name = "rx_drop_malformed" },
	[MROCE_CNT_TX_PKTS] = { .name = "tx_packets" },
	[MROCE_CNT_PORT_EVENTS] = { .name = "port_events" },
	[MROCE_CNT_RX_DROP_ICRC] = { .name = "rx_drop_icrc" },
	[MROCE_CNT_RX_DROP_OVERRUN] = { .name = "rx_drop_overrun" },
	[MROCE_CNT_RX_DROP_SEQ] = { .name = "rx_drop_seq" },
	[MROCE_CNT_RX_DROP_NO_RECV] = { .name = "rx_drop_no_recv" },
	[MROCE_CNT_RX_DUPS] = { .name = "rx_duplicates" },
	[MROCE_CNT_TX_NAKS] = { .name = "tx_naks" },
	[MROCE_CNT_TX_RNR_NAKS] = { .name = "tx_rnr_naks" },
	[MROCE_CNT_RETRIES] = { .name = "retransmits" },
	[MROCE_CNT_RNR_WAITS] = { .name = "rnr_waits" },
	[MROCE_CNT_RX_DROP_QP_STATE] = { .name = "rx_drop_qp_state" },
	[MROCE_CNT_RX_DROP_PEER] = { .name = "rx_drop_peer" },
	[MROCE_CNT_SQ_DOORBELLS] = { .name = "sq_doorbells" },
	[MROCE_CNT_TX_ZCOPY] = { .name = "tx_zcopy_packets" },
	[MROCE_CNT_RX_PAGED] = { .name = "rx_paged_packets" },
	[MROCE_CNT_TASK_BUSY] = { .name = "task_busy" },
	[MROCE_CNT_TASK_WORKER] = { .name = "task_worker_runs" },
	[MROCE_CNT_RX_DROP_UNMARKED] = { .name = "rx_drop_unmarked" },
	[MROCE_CNT_TX_UDP_CSUM] = { .name = "tx_udp_csum_packets" },
	[MROCE_CNT_TX_UDP_CSUM_SW] = { .name = "tx_udp_csum_sw" },
	[MROCE_CNT_RX_UDP_CSUM] = { .name = "rx_udp_csum_packets" },
	[MROCE_CNT_OOO] = { .name = "out_of_sequence" },
	[MROCE_CNT_SACK_RETX] = { .name = "sack_retransmits" },
	[MROCE_CNT_RACK_LOSSES] = { .name = "rack_losses" },
	[MROCE_CNT_TLP_PROBES] = { .name = "tlp_probes" },
	[MROCE_CNT_RTO_FIRES] = { .name = "rto_fires" },
	[MROCE_CNT_SPURIOUS] = { .name = "spurious_retransmits" },
	[MROCE_CNT_PACKET_SEQ_ERR] = { .name = "packet_seq_err" },
	[MROCE_CNT_LOCAL_ACK_TIMEOUT] = { .name = "local_ack_timeout_err" },
	[MROCE_CNT_RNR_RETRY_ERR] = { .name = "rnr_nak_retry_err" },
	[MROCE_CNT_OOO_PLACED] = { .name = "ooo_placed" },
	[MROCE_CNT_TX_SACK_ACKS] = { .name = "tx_sack_acks" },
	[MROCE_CNT_TX_READ_RESENDS] = { .name = "tx_read_resends" },
	[MROCE_CNT_NP_ECN_MARKED] = { .name = "np_ecn_marked_roce_packets" },
	[MROCE_CNT_NP_CNP_SENT] = { .name = "np_cnp_sent" },
	[MROCE_CNT_RP_CNP_IGNORED] = { .name = "rp_cnp_ignored" },
	[MROCE_CNT_RP_CNP_HANDLED] = { .name = "rp_cnp_handled" },
	[MROCE_CNT_SPRAY_PACKETS] = { .name = "spray_packets" },
	[MROCE_CNT_PATHS_RETIRED] = { .name = "paths_retired" },
	[MROCE_CNT_PATHS_PROBED] = { .name = "paths_probed" },
};

enum ib_port_state mroce_port_state(struct net_device *ndev)
{
	if (netif_running(ndev) && netif_carrier_ok(ndev))
		return IB_PORT_ACTIVE;
	return IB_PORT_DOWN;
}

/*
 * The largest IB MTU whose RoCEv2 packets (IP + UDP + BTH + extended
 * headers + ICRC) still fit in the netdev MTU.
 */
enum ib_mtu mroce_active_mtu(struct net_device *ndev)
{
	enum ib_mtu mtu = iboe_get_mtu(READ_ONCE(ndev->mtu));

	if (!mtu)
		return IB_MTU_256;
	return min_t(enum ib_mtu, mtu, MROCE_MAX_MTU);
}

int mroce_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		       struct ib_udata *udata)
{
	const struct mroce_res *res = &to_mdev(ibdev)->res;

	if (udata->inlen || udata->outlen)
		return -EINVAL;

	memset(attr, 0, sizeof(*attr));
	attr->fw_ver = MROCE_FW_VER;
	attr->sys_image_guid = ibdev->node_guid;
	attr->page_size_cap = PAGE_SIZE;
	attr->vendor_id = MROCE_VENDOR_ID;
	attr->vendor_part_id = MROCE_VENDOR_PART_ID;
	attr->hw_ver = 0;
	attr->max_qp_wr = MROCE_MAX_QP_WR;
	attr->device_cap_flags = IB_DEVICE_RC_RNR_NAK_GEN |
				 IB_DEVICE_SYS_IMAGE_GUID |
				 IB_DEVICE_SHUTDOWN_PORT |
				 IB_DEVICE_PORT_ACTIVE_EVENT |
				 IB_DEVICE_MEM_WINDOW |
				 IB_DEVICE_MEM_WINDOW_TYPE_2B |
				 IB_DEVICE_MEM_MGT_EXTENSIONS;
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	attr->max_send_sge = MROCE_MAX_SGE;
	attr->max_recv_sge = MROCE_MAX_SGE;
	attr->max_sge_rd = MROCE_MAX_SGE;
	attr->max_qp_rd_atom = MROCE_MAX_RD_ATOMIC;
	attr->max_qp_init_rd_atom = MROCE_MAX_RD_ATOMIC;
	attr->atomic_cap = IB_ATOMIC_HCA;
	attr->max_ah = MROCE_MAX_AH;
	attr->max_srq_wr = MROCE_MAX_SRQ_WR;
	attr->max_srq_sge = MROCE_MAX_SGE;
	attr->max_pkeys = 1;
	attr->local_ca_ack_delay = MROCE_LOCAL_CA_ACK_DELAY;
	attr->max_fast_reg_page_list_len = MROCE_MAX_FR_PAGES;
	mroce_limits_fill(res, attr);
	return 0;
}

int mroce_query_port(struct ib_device *ibdev, u32 port,
		     struct ib_port_attr *attr)
{
	struct mroce_dev *mdev = to_mdev(ibdev);
	struct net_device *ndev = mdev->ndev;
	enum ib_port_state state = mroce_port_state(ndev);

	/* The RDMA core zeroes *attr before calling us. */
	attr->state = state;
	attr->phys_state = state == IB_PORT_ACTIVE ?
			   IB_PORT_PHYS_STATE_LINK_UP :
			   IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = MROCE_MAX_MTU;
	attr->active_mtu = mroce_active_mtu(ndev);
	attr->gid_tbl_len = MROCE_GID_TBL_LEN;
	/*
	 * PortInfo:CapabilityMask.IsCommunicationManagementSupported: the
	 * GSI QP carries CM MADs.  ib_cm asks for the bit with
	 * ib_modify_port(), which the core grants on RoCE ports without a
	 * driver call, so the port reports it itself, as rxe does.
	 */
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = MROCE_MAX_MSG_SIZE;
	attr->pkey_tbl_len = 1;
	attr->lid = 0;
	attr->sm_lid = 0;
	attr->lmc = 0;
	attr->max_vl_num = 1;
	attr->sm_sl = 0;
	attr->subnet_timeout = 0;
	attr->init_type_reply = 0;
	ib_get_eth_speed(ibdev, port, &attr->active_speed,
			 &attr->active_width);
	return 0;
}

/*
 * The port is RoCEv2 only: the RDMA core's GID management then fills the GID
 * table from the netdev's IPv4 and IPv6 addresses and follows their changes.
 * RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP adds the IB MAD and CM capabilities:
 * ib_mad then opens the GSI QP (QP1, no SMI on RoCE) with receive buffers
 * of max_mad_size plus the 40-byte GRH, ib_cm registers its agent on it,
 * and rdma_cm accepts the device.  MADs are the 256-byte IB ones; OPA's
 * 2 KiB MADs are not supported.
 */
int mroce_port_immutable(struct ib_device *ibdev, u32 port,
			 struct ib_port_immutable *immutable)
{
	struct ib_port_attr attr = {};
	int err;

	err = ib_query_port(ibdev, port, &attr);
	if (err)
		return err;

	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	immutable->gid_tbl_len = attr.gid_tbl_len;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

int mroce_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey)
{
	if (index > 0)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

struct rdma_hw_stats *mroce_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port)
{
	BUILD_BUG_ON(ARRAY_SIZE(mroce_counter_desc) != MROCE_NUM_COUNTERS);
	return rdma_alloc_hw_stats_struct(mroce_counter_desc,
					  ARRAY_SIZE(mroce_counter_desc),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

int mroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port, int index)
{
	struct mroce_dev *mdev = to_mdev(ibdev);
	int i;

	for (i = 0; i < MROCE_NUM_COUNTERS; i++)
		stats->value[i] = percpu_counter_sum_positive(&mdev->counters[i]);
	return MROCE_NUM_COUNTERS;
}

static void mroce_dispatch_port_event(struct mroce_dev *mdev,
				      enum ib_event_type type)
{
	struct ib_event ev = {
		.device = &mdev->ibdev,
		.element.port_num = 1,
		.event = type,
	};

	mroce_count(mdev, MROCE_CNT_PORT_EVENTS);
	ib_dispatch_event(&ev);
}

/*
 * React to a netdev event other than unregistration.
 * Caller holds the RTNL and mroce_dev_lock.
 */
void mroce_dev_netdev_event(struct mroce_dev *mdev, unsigned long event)
{
	enum ib_port_state state;

	ASSERT_RTNL();
	lockdep_assert_held(&mroce_dev_lock);

	switch (event) {
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		state = mroce_port_state(mdev->ndev);
		if (state == mdev->port_state)
			break;
		mdev->port_state = state;
		if (!mdev->registered)
			break;
		ibdev_dbg(&mdev->ibdev, "port 1 %s\n",
			  state == IB_PORT_ACTIVE ? "ACTIVE" : "DOWN");
		mroce_dispatch_port_event(mdev, state == IB_PORT_ACTIVE ?
					  IB_EVENT_PORT_ACTIVE :
					  IB_EVENT_PORT_ERR);
		break;
	default:
		break;
	}
}

static void mroce_dev_free_counters(struct mroce_dev *mdev, int n)
{
	while (--n >= 0)
		percpu_counter_destroy(&mdev->counters[n]);
}

static int mroce_dev_init_counters(struct mroce_dev *mdev)
{
	int i, err;

	for (i = 0; i < MROCE_NUM_COUNTERS; i++) {
		err = percpu_counter_init(&mdev->counters[i], 0, GFP_KERNEL);
		if (err) {
			mroce_dev_free_counters(mdev, i);
			return err;
		}
	}
	return 0;
}

/*
 * The one teardown path of a device, called by the RDMA core from
 * ib_dealloc_device(): at the end of unregistration, and also when
 * mroce_newlink() fails before or during registration.  It releases only
 * what was set up, so every stage of creation unwinds through here.
 */
void mroce_dealloc_driver(struct ib_device *ibdev)
{
	struct mroce_dev *mdev = to_mdev(ibdev);

	mutex_lock(&mroce_dev_lock);
	list_del_init(&mdev->list);
	mutex_unlock(&mroce_dev_lock);
	mroce_plan_free(mdev);

	if (mdev->mport) {
		mroce_net_put(mdev->mport, mdev);
		mdev->mport = NULL;
	}
	if (mdev->counters_ready) {
		mroce_dev_free_counters(mdev, MROCE_NUM_COUNTERS);
		mdev->counters_ready = false;
	}
	if (mdev->ndev) {
		netdev_put(mdev->ndev, &mdev->ndev_tracker);
		mdev->ndev = NULL;
	}
}

/* The device bound to @ndev, or NULL.  Caller holds mroce_dev_lock. */
struct mroce_dev *mroce_dev_bound_to(struct net_device *ndev)
{
	struct mroce_dev *mdev;

	lockdep_assert_held(&mroce_dev_lock);
	list_for_each_entry(mdev, &mroce_dev_list, list)
		if (mdev->ndev == ndev)
			return mdev;
	return NULL;
}

/*
 * Put the new device on the list under the RTNL, so that it cannot miss an
 * unregistration of its netdev: either the netdev is already going (we
 * fail) or the notifier will find the device on the list.
 */
static int mroce_dev_publish(struct mroce_dev *mdev, const char *name)
{
	struct net_device *ndev = mdev->ndev;
	struct mroce_dev *other;
	int err = 0;

	rtnl_lock();
	mutex_lock(&mroce_dev_lock);
	if (ndev->reg_state != NETREG_REGISTERED) {
		pr_info("%s: netdev %s is going away\n", name, ndev->name);
		err = -ENODEV;
		goto out;
	}
	other = mroce_dev_bound_to(ndev);
	if (other) {
		pr_info("%s: netdev %s is already bound to %s\n", name,
			ndev->name, dev_name(&other->ibdev.dev));
		err = -EEXIST;
		goto out;
	}
	mdev->port_state = mroce_port_state(ndev);
	list_add_tail(&mdev->list, &mroce_dev_list);
out:
	mutex_unlock(&mroce_dev_lock);
	rtnl_unlock();
	return err;
}

static void mroce_dev_setup_ibdev(struct mroce_dev *mdev)
{
	struct ib_device *ibdev = &mdev->ibdev;
	struct net_device *ndev = mdev->ndev;

	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = num_possible_cpus();
	ibdev->local_dma_lkey = 0;
	strscpy(ibdev->node_desc, MROCE_DRV_NAME, sizeof(ibdev->node_desc));
	/* A stable node GUID derived from the MAC, as RoCE devices do. */
	addrconf_addr_eui48((unsigned char *)&ibdev->node_guid,
			    ndev->dev_addr);
	ib_set_device_ops(ibdev, &mroce_dev_ops);
	mroce_dmabuf_dev_setup(ibdev);
}

/**
 * mroce_dev_create() - create and register a device on @ndev
 * @ibdev_name: the RDMA device name
 * @ndev: the netdev, referenced by the caller for the duration of the call;
 *	the caller does not hold the RTNL, so it may be unregistered at any
 *	point here
 * @attach_ifname: for a device of auto_attach (mroce_attach.c), which may
 *	remove it again, the netdev name its name was made from, read under
 *	the RTNL; NULL for `rdma link add`, whose devices it never touches
 *
 * Returns 0 or a negative errno; the table in Documentation/design.rst
 * lists them.
 */
int mroce_dev_create(const char *ibdev_name, struct net_device *ndev,
		     const char *attach_ifname)
{
	struct mroce_dev *mdev;
	struct mroce_net_port *mport;
	bool gone;
	int err;

	if (ndev->type != ARPHRD_ETHER) {
		pr_info("%s: netdev %s is not an Ethernet device\n",
			ibdev_name, ndev->name);
		return -EINVAL;
	}
	/* A bond or team master receives its ports' packets (skb->dev). */
	if (is_vlan_dev(ndev) || netif_is_lag_port(ndev)) {
		pr_info("%s: netdev %s: VLAN devices and bond or team ports are not supported\n",
			ibdev_name, ndev->name);
		return -EINVAL;
	}

	mdev = ib_alloc_device(mroce_dev, ibdev);
	if (!mdev)
		return -ENOMEM;

	/*
	 * ib_dealloc_device() calls mroce_dealloc_driver(), which undoes
	 * whatever of the following has been done: every failure below
	 * just deallocates.
	 */
	INIT_LIST_HEAD(&mdev->list);
	netdev_hold(ndev, &mdev->ndev_tracker, GFP_KERNEL);
	mdev->ndev = ndev;
	mdev->net = dev_net(ndev);
	if (attach_ifname) {
		mdev->auto_attached = true;
		strscpy(mdev->attach_ifname, attach_ifname,
			sizeof(mdev->attach_ifname));
	}

	err = mroce_dev_init_counters(mdev);
	if (err)
		goto err_dealloc;
	mdev->counters_ready = true;

	mroce_limits_init(&mdev->res);
	mroce_dev_setup_ibdev(mdev);
	mroce_nic_probe(mdev);
	err = ib_device_set_netdev(&mdev->ibdev, ndev, 1);
	if (err)
		goto err_dealloc;

	mdev->udp_port = mroce_net_udp_port();
	mdev->mode_policy = MROCE_POLICY_AUTO;
	mdev->udp_csum = true;
	mdev->ack_every = MROCE_ACK_EVERY;
	mdev->ack_delay_ns = MROCE_ACK_DELAY_US * NSEC_PER_USEC;
	mdev->sr_pipe = MROCE_SR_PIPE;
	mdev->rto_min_ns = MROCE_RTO_MIN_US * NSEC_PER_USEC;
	mdev->ecn = true;
	mdev->np_enable = true;
	mdev->np_cnp_gap_ns = MROCE_NP_CNP_GAP_US * NSEC_PER_USEC;
	mdev->cnp_dscp = MROCE_CNP_DSCP;
	mdev->rp_enable = true;
	mroce_dcqcn_params_default(&mdev->dcqcn);
	mdev->fabric = MROCE_FABRIC_LOSSLESS;
	mdev->path_mode = MROCE_PATH_SPRAY;
	mdev->paths = MROCE_PATHS_DEFAULT;
	mdev->path_hold_ns = MROCE_PATH_HOLD_US * NSEC_PER_USEC;
	mdev->flowlet_gap_ns = MROCE_FLOWLET_GAP_US * NSEC_PER_USEC;
	mroce_plan_init(mdev);
	mdev->wcc = (struct mroce_wcc_params) {
		.target_delay_ns = MROCE_WCC_TARGET_US * NSEC_PER_USEC,
		.ai_bytes = MROCE_WCC_AI_BYTES,
		.beta = MROCE_WCC_BETA,
		.max_mdf = MROCE_WCC_MAX_MDF,
		.min_window = MROCE_WCC_MIN_WINDOW,
		.max_window = MROCE_WCC_MAX_WINDOW,
		.init_window = MROCE_WCC_INIT_WINDOW,
	};
	mport = mroce_net_get(mdev->net, mdev);
	if (IS_ERR(mport)) {
		err = PTR_ERR(mport);
		pr_info("%s: cannot open the RoCEv2 UDP socket (port %u) in the namespace of %s: %d%s\n",
			ibdev_name, mdev->udp_port, ndev->name, err,
			err == -EADDRINUSE ?
			" (port taken by another RoCE stack or a program)" : "");
		goto err_dealloc;
	}
	mdev->mport = mport;

	err = mroce_dev_publish(mdev, ibdev_name);
	if (err)
		goto err_dealloc;

	err = ib_register_device(&mdev->ibdev, ibdev_name, NULL);
	if (err) {
		/* assign_name() reports a name clash as -ENFILE. */
		if (err == -ENFILE)
			err = -EEXIST;
		pr_info("%s: registration failed: %d\n", ibdev_name, err);
		goto err_dealloc;
	}

	/* From here only ib_unregister_device() may free the device. */
	mutex_lock(&mroce_dev_lock);
	mdev->registered = true;
	gone = mdev->ndev_gone;
	mutex_unlock(&mroce_dev_lock);
	if (gone) {
		pr_info("%s: netdev %s went away during registration\n",
			ibdev_name, ndev->name);
		ib_unregister_device(&mdev->ibdev);
		return -ENODEV;
	}

	ibdev_info(&mdev->ibdev, "bound to %s, UDP port %u\n", ndev->name,
		   mdev->udp_port);
	mroce_nic_warn(mdev);
	return 0;

err_dealloc:
	ib_dealloc_device(&mdev->ibdev);
	return err;
}

/*
 * rdma_link_ops.newlink: `rdma link add <name> type metaroce netdev <dev>`.
 * The RDMA core holds a reference on @ndev for the duration of the call.
 */
int mroce_newlink(const char *ibdev_name, struct net_device *ndev)
{
	return mroce_dev_create(ibdev_name, ndev, NULL);
}
