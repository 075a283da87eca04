/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * MetaRoCE: a software RoCEv2 RDMA device on an Ethernet netdev.
 *
 * Driver-wide types shared by the mroce_*.c files.  Each file has one role:
 *   mroce_main.c   module init/exit, rdma link type, netdev notifier
 *   mroce_attach.c auto_attach: devices for netdevs of listed drivers
 *   mroce_nic.c    warning about the parent NIC's own RoCE
 *   mroce_dev.c    ib_device life cycle, port and device attributes,
 *                  counters
 *   mroce_limits.c per-device resource limits (module parameters, sysfs)
 *   mroce_net.c    UDP tunnel sockets (IPv4 and IPv6) per network
 *                  namespace and port, receive hook, skb transmit
 *   mroce_verbs.c  ib_device_ops table and verbs entry points
 * The verbs objects are listed in mroce_verbs.h, the data path files in
 * mroce_dp.h, the portable transport core (core/) in Documentation/core.rst.
 */
#ifndef MROCE_H
#define MROCE_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/percpu_counter.h>
#include <rdma/ib_verbs.h>

#include "mroce_res.h"
#include "core/mroce_dcqcn.h"
#include "core/mroce_path.h"

#define MROCE_DRV_NAME		"metaroce"
#define MROCE_LINK_TYPE		"metaroce"
#define MROCE_UDP_PORT		4791	/* IANA RoCEv2 port, udp_port's default */
#define MROCE_GID_TBL_LEN	1024
#define MROCE_MAX_MTU		IB_MTU_4096

/*
 * Device-wide counters, exported through rdma_hw_stats (`rdma statistic
 * show link <dev>/1`); names in mroce_dev.c, meanings in
 * Documentation/datapath.rst.
 */
enum mroce_counter {
	MROCE_CNT_RX_PKTS,
	MROCE_CNT_RX_DROP_NO_QP,
	MROCE_CNT_RX_DROP_MALFORMED,
	MROCE_CNT_TX_PKTS,
	MROCE_CNT_PORT_EVENTS,
	/* data path (mroce_task.c, mroce_req.c, mroce_resp.c, mroce_comp.c) */
	MROCE_CNT_RX_DROP_ICRC,
	MROCE_CNT_RX_DROP_OVERRUN,
	MROCE_CNT_RX_DROP_SEQ,
	MROCE_CNT_RX_DROP_NO_RECV,
	MROCE_CNT_RX_DUPS,
	MROCE_CNT_TX_NAKS,
	MROCE_CNT_TX_RNR_NAKS,
	MROCE_CNT_RETRIES,
	MROCE_CNT_RNR_WAITS,
	MROCE_CNT_RX_DROP_QP_STATE,
	MROCE_CNT_RX_DROP_PEER,
	MROCE_CNT_SQ_DOORBELLS,
	MROCE_CNT_TX_ZCOPY,
	MROCE_CNT_RX_PAGED,
	MROCE_CNT_TASK_BUSY,
	MROCE_CNT_TASK_WORKER,
	/* transport mode negotiation (mroce_nego.c) */
	MROCE_CNT_RX_DROP_UNMARKED,
	/* UDP checksum instead of ICRC (mroce_net.c, mroce_task.c) */
	MROCE_CNT_TX_UDP_CSUM,
	MROCE_CNT_TX_UDP_CSUM_SW,
	MROCE_CNT_RX_UDP_CSUM,
	MROCE_CNT_OOO,
	MROCE_CNT_SACK_RETX,
	MROCE_CNT_RACK_LOSSES,
	MROCE_CNT_TLP_PROBES,
	MROCE_CNT_RTO_FIRES,
	MROCE_CNT_SPURIOUS,
	MROCE_CNT_PACKET_SEQ_ERR,
	MROCE_CNT_LOCAL_ACK_TIMEOUT,
	MROCE_CNT_RNR_RETRY_ERR,
	MROCE_CNT_OOO_PLACED,
	MROCE_CNT_TX_SACK_ACKS,
	MROCE_CNT_TX_READ_RESENDS,
	/* ECN notification point, CNPs received (mroce_ecn.c) */
	MROCE_CNT_NP_ECN_MARKED,
	MROCE_CNT_NP_CNP_SENT,
	MROCE_CNT_RP_CNP_IGNORED,
	MROCE_CNT_RP_CNP_HANDLED,
	/* paths of MetaRoCE mode (mroce_spray.c) */
	MROCE_CNT_SPRAY_PACKETS,
	MROCE_CNT_PATHS_RETIRED,
	MROCE_CNT_PATHS_PROBED,
	MROCE_NUM_COUNTERS
};

/*
 * Transport mode policy of RC/UC connections (Documentation/wire.rst,
 * "Negotiation"): per device (sysfs metaroce_mode_policy) and per QP
 * (metaroce_dv_qp_set_mode(), where DEVICE means "the device's").
 * Values as enum metaroce_mode of the uapi header.
 */
enum mroce_mode_policy {
	MROCE_POLICY_DEVICE,	/* QP only: follow the device */
	MROCE_POLICY_AUTO,	/* mark; MetaRoCE mode if the peer marks */
	MROCE_POLICY_ROCE,	/* never mark, stay RoCEv2 */
	MROCE_POLICY_METAROCE,	/* mark; fail the connection if the peer
				 * does not */
	MROCE_NUM_POLICIES
};

/*
 * What the fabric under a device does with a full queue (sysfs
 * metaroce_fabric; Documentation/operators.rst, "Fabric policy"):
 * LOSSLESS, PFC pauses the sender: RC requesters slow down on CNPs only
 * (DCQCN); LOSSY, the switch drops: MetaRoCE-mode requesters also bound
 * what they keep in flight by a delay-based window and pace by it
 * (mroce_wcc.c); RoCE-mode ones, without RTT samples, keep DCQCN.
 */
enum mroce_fabric {
	MROCE_FABRIC_LOSSLESS,
	MROCE_FABRIC_LOSSY,
	MROCE_NUM_FABRICS
};

/*
 * Parameters of the delay-based window (core mroce_cc.h), per device,
 * each a sysfs metaroce_cc_<name>, read when a connection's span starts.
 */
struct mroce_wcc_params {
	u32 target_delay_ns;	/* queueing delay tolerated over base RTT */
	u32 ai_bytes;		/* growth per round trip below it */
	u32 beta;		/* decrease per relative excess, 1/1024 */
	u32 max_mdf;		/* largest decrease at once, 1/1024 */
	u32 min_window;		/* bytes; below a packet it paces */
	u32 max_window;		/* bytes: the BDP cap */
	u32 init_window;	/* bytes */
};

struct mroce_net_port;
struct mroce_plan;

/**
 * struct mroce_dev - one MetaRoCE device bound to one Ethernet netdev
 * @ibdev: the RDMA core's device; first, as ib_alloc_device requires
 * @ndev: the bound netdev, held (@ndev_tracker) until dealloc_driver
 * @net: the netdev's namespace when the device was created
 * @mport: the sockets of @udp_port in @net, referenced by this device
 * @udp_port: UDP port of all its traffic, fixed at creation (udp_port=)
 * @list: entry on mroce_dev_list, protected by mroce_dev_lock
 * @port_state: last port state reported to the RDMA core
 * @registered: ib_register_device() has succeeded
 * @counters_ready: @counters are initialised
 * @ndev_gone: the netdev is being unregistered (or moved to another
 *	namespace); newlink checks it once @registered is set
 *	(@port_state, @registered and @ndev_gone: under mroce_dev_lock)
 * @auto_attached: made by auto_attach, which may remove it again
 * @attach_ifname: the netdev name an auto_attach device's name was made
 *	from (fixed at creation)
 * @nic_handle: devlink handle of the netdev's NIC function when that has
 *	an RDMA device of its own (mroce_nic.c), else empty; fixed at creation
 * @nic_rdma: that RDMA device's name
 * @counters: device counters, per-CPU so the receive path does not bounce
 * @mode_policy: enum mroce_mode_policy of new RC/UC connections (sysfs
 *	metaroce_mode_policy; READ_ONCE, read once per connection at RTR)
 * @udp_csum: new RC/UC connections offer the UDP checksum instead of the
 *	ICRC (sysfs metaroce_udp_csum; READ_ONCE, read at RTR)
 * @ack_every: a MetaRoCE-mode responder holding requests ahead of their
 *	turn acknowledges at the latest every this many of them (sysfs
 *	metaroce_ack_every; READ_ONCE)
 * @ack_delay_ns: ... or this long after the first one it did not
 *	acknowledge (sysfs metaroce_ack_delay_us; READ_ONCE)
 * @sr_pipe: a MetaRoCE-mode requester keeps at most this many PSNs in
 *	flight that its peer has not reported (sysfs metaroce_sr_pipe;
 *	READ_ONCE, read when a connection's span starts)
 * @rto_min_ns: ... and its RTO is at least this long (sysfs
 *	metaroce_rto_min_us; READ_ONCE, read when a connection's span starts)
 * @ecn: data packets whose AV leaves the ECN bits clear go out ECT(0)
 *	(sysfs metaroce_ecn; READ_ONCE, read per packet)
 * @np_enable: a CE-marked packet of a connected QP is answered with a CNP
 *	(sysfs metaroce_np_enable; READ_ONCE)
 * @np_cnp_gap_ns: ... at most one per QP this often (sysfs
 *	metaroce_np_min_time_between_cnps, in microseconds; READ_ONCE)
 * @cnp_dscp: the DSCP of the CNPs it sends (sysfs metaroce_cnp_dscp;
 *	READ_ONCE)
 * @rp_enable: RC requesters slow down on CNPs (sysfs metaroce_rp_enable;
 *	READ_ONCE)
 * @dcqcn: their DCQCN parameters (sysfs metaroce_rpg_*, metaroce_dce_*,
 *	...; each u32 read as it is used, a change applies at once)
 * @fabric: enum mroce_fabric (sysfs metaroce_fabric; READ_ONCE, read
 *	when a connection's span starts)
 * @wcc: the lossy fabric's window parameters (sysfs metaroce_cc_*)
 * @path_mode: enum mroce_path_mode of MetaRoCE-mode RC requesters (sysfs
 *	metaroce_path_mode; READ_ONCE, read when a connection's span starts)
 * @paths: entropies of each new RC QP (sysfs metaroce_paths; READ_ONCE,
 *	read at create_qp)
 * @path_hold_ns: a retired path is avoided this long (sysfs
 *	metaroce_path_hold_us; read when a connection's span starts)
 * @flowlet_gap_ns: the idle gap that ends a flowlet (sysfs
 *	metaroce_flowlet_gap_us; likewise)
 * @plan: path plans, ports per peer address (sysfs metaroce_path_plan,
 *	mroce_plan.c; RCU, replaced whole under @plan_lock)
 * @plan_lock: serialises writers of @plan
 * @res: verbs object tables (mroce_res.h)
 */
struct mroce_dev {
	struct ib_device ibdev;
	struct net_device *ndev;
	netdevice_tracker ndev_tracker;
	struct net *net;
	struct mroce_net_port *mport;
	u16 udp_port;
	struct list_head list;
	enum ib_port_state port_state;
	bool registered;
	bool ndev_gone;
	bool counters_ready;
	bool auto_attached;
	char attach_ifname[IFNAMSIZ];
	char nic_handle[64];
	char nic_rdma[IB_DEVICE_NAME_MAX];
	struct percpu_counter counters[MROCE_NUM_COUNTERS];
	u8 mode_policy;
	bool udp_csum;
	u32 ack_every;
	u32 ack_delay_ns;
	u32 sr_pipe;
	u32 rto_min_ns;
	u32 ecn;
	u32 np_enable;
	u32 np_cnp_gap_ns;
	u32 cnp_dscp;
	u32 rp_enable;
	struct mroce_dcqcn_params dcqcn;
	u32 fabric;
	struct mroce_wcc_params wcc;
	u32 path_mode;
	u32 paths;
	u32 path_hold_ns;
	u32 flowlet_gap_ns;
	struct mroce_plan __rcu *plan;
	struct mutex plan_lock;	/* writers of @plan */
	struct mroce_res res;
};

static inline struct mroce_dev *to_mdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct mroce_dev, ibdev);
}

static inline void mroce_count(struct mroce_dev *mdev, enum mroce_counter c)
{
	percpu_counter_inc(&mdev->counters[c]);
}

static inline void mroce_count_n(struct mroce_dev *mdev, enum mroce_counter c,
				 u64 n)
{
	if (n)
		percpu_counter_add(&mdev->counters[c], n);
}

/* mroce_main.c: every live device; used by the notifier and module exit. */
extern struct list_head mroce_dev_list;
extern struct mutex mroce_dev_lock;

/* mroce_attach.c */
int mroce_attach_init(void);
void mroce_attach_exit(void);
void mroce_attach_netdev_event(struct net_device *ndev, unsigned long event);

/* mroce_dev.c */
int mroce_dev_create(const char *ibdev_name, struct net_device *ndev,
		     const char *attach_ifname);
int mroce_newlink(const char *ibdev_name, struct net_device *ndev);
struct mroce_dev *mroce_dev_bound_to(struct net_device *ndev);
void mroce_dev_netdev_event(struct mroce_dev *mdev, unsigned long event);
enum ib_port_state mroce_port_state(struct net_device *ndev);
enum ib_mtu mroce_active_mtu(struct net_device *ndev);
int mroce_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		       struct ib_udata *udata);
int mroce_query_port(struct ib_device *ibdev, u32 port,
		     struct ib_port_attr *attr);
int mroce_port_immutable(struct ib_device *ibdev, u32 port,
			 struct ib_port_immutable *immutable);
int mroce_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey);
void mroce_dealloc_driver(struct ib_device *ibdev);
struct rdma_hw_stats *mroce_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port);
int mroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port, int index);

/* mroce_limits.c */
void mroce_limits_init(struct mroce_res *res);
void mroce_limits_fill(const struct mroce_res *res, struct ib_device_attr *a);
/* mroce_plan.c: path plans, sysfs metaroce_path_plan */
void mroce_plan_init(struct mroce_dev *mdev);
void mroce_plan_free(struct mroce_dev *mdev);
u32 mroce_plan_ports(struct mroce_dev *mdev, const union ib_gid *dgid,
		     u16 *port, u32 max);
ssize_t mroce_plan_show(struct mroce_dev *mdev, char *buf);
ssize_t mroce_plan_store(struct mroce_dev *mdev, const char *buf,
			 size_t count);

ssize_t mroce_limit_show(struct mroce_dev *mdev, enum mroce_limit lim,
			 char *buf);
ssize_t mroce_limit_store(struct mroce_dev *mdev, enum mroce_limit lim,
			  const char *buf, size_t count);

/* mroce_nic.c */
void mroce_nic_probe(struct mroce_dev *mdev);
void mroce_dmabuf_dev_setup(struct ib_device *ibdev);
void mroce_nic_warn(struct mroce_dev *mdev);
ssize_t mroce_nic_show(struct mroce_dev *mdev, char *buf);

/* mroce_net.c */
int mroce_net_init(void);
/* mroce_crc.c */
void mroce_crc_init(void);
void mroce_crc_exit(void);
void mroce_net_exit(void);
u16 mroce_net_udp_port(void);
struct mroce_net_port *mroce_net_get(struct net *net, struct mroce_dev *mdev);
void mroce_net_put(struct mroce_net_port *np, struct mroce_dev *mdev);

/* mroce_verbs.c */
extern const struct ib_device_ops mroce_dev_ops;

/* mroce_plant.c: planted bugs, in debug-lane builds only (MROCE_PLANT_BUGS=1) */
#ifdef MROCE_PLANT_BUGS
int mroce_plant_bugs(void);
#else
static inline int mroce_plant_bugs(void)
{
	return 0;
}
#endif

#endif /* MROCE_H */
