// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Test fixture for selftests/metaroce/nic.sh: a NIC laid out as a ConnectX
 * function is in the device tree, without the hardware.  One platform
 * device ("mroce_fakenic") is the parent of an Ethernet netdev (which drops
 * what it is given) and of an RDMA device that does nothing but exist, as a
 * PCI function is the parent of its mlx5_core netdev and its mlx5_ib
 * device.  MetaRoCE on that netdev must warn about the NIC's own RoCE.
 */
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/platform_device.h>
#include <rdma/ib_verbs.h>

static struct platform_device *mroce_fakenic_pdev;
static struct net_device *mroce_fakenic_ndev;
static struct ib_device *mroce_fakenic_ibdev;

static netdev_tx_t mroce_fakenic_xmit(struct sk_buff *skb,
				      struct net_device *ndev)
{
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops mroce_fakenic_netdev_ops = {
	.ndo_start_xmit = mroce_fakenic_xmit,
};

static int mroce_fakenic_query_device(struct ib_device *ibdev,
				      struct ib_device_attr *attr,
				      struct ib_udata *udata)
{
	memset(attr, 0, sizeof(*attr));
	return 0;
}

static int mroce_fakenic_query_port(struct ib_device *ibdev, u32 port,
				    struct ib_port_attr *attr)
{
	attr->state = IB_PORT_DOWN;
	attr->phys_state = IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_1024;
	attr->active_mtu = IB_MTU_1024;
	return 0;
}

static int mroce_fakenic_port_immutable(struct ib_device *ibdev, u32 port,
					struct ib_port_immutable *immutable)
{
	immutable->core_cap_flags = RDMA_CORE_PORT_RAW_PACKET;
	return 0;
}

static const struct ib_device_ops mroce_fakenic_ib_ops = {
	.owner = THIS_MODULE,
	.query_device = mroce_fakenic_query_device,
	.query_port = mroce_fakenic_query_port,
	.get_port_immutable = mroce_fakenic_port_immutable,
};

static int mroce_fakenic_add_netdev(void)
{
	struct net_device *ndev;
	int err;

	ndev = alloc_etherdev(0);
	if (!ndev)
		return -ENOMEM;
	strscpy(ndev->name, "fnic%d", sizeof(ndev->name));
	ndev->netdev_ops = &mroce_fakenic_netdev_ops;
	eth_hw_addr_random(ndev);
	SET_NETDEV_DEV(ndev, &mroce_fakenic_pdev->dev);
	err = register_netdev(ndev);
	if (err) {
		free_netdev(ndev);
		return err;
	}
	mroce_fakenic_ndev = ndev;
	return 0;
}

static int mroce_fakenic_add_ibdev(void)
{
	struct ib_device *ibdev;
	int err;

	ibdev = _ib_alloc_device(sizeof(*ibdev));
	if (!ibdev)
		return -ENOMEM;
	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->dev.parent = &mroce_fakenic_pdev->dev;
	ib_set_device_ops(ibdev, &mroce_fakenic_ib_ops);
	err = ib_register_device(ibdev, "fakenic_rdma%d", NULL);
	if (err) {
		ib_dealloc_device(ibdev);
		return err;
	}
	mroce_fakenic_ibdev = ibdev;
	return 0;
}

static int __init mroce_fakenic_init(void)
{
	int err;

	mroce_fakenic_pdev = platform_device_register_simple("mroce_fakenic",
							     -1, NULL, 0);
	if (IS_ERR(mroce_fakenic_pdev))
		return PTR_ERR(mroce_fakenic_pdev);
	err = mroce_fakenic_add_netdev();
	if (err)
		goto err_pdev;
	err = mroce_fakenic_add_ibdev();
	if (err)
		goto err_netdev;
	pr_info("mroce_fakenic: netdev %s and RDMA device %s under %s\n",
		mroce_fakenic_ndev->name, dev_name(&mroce_fakenic_ibdev->dev),
		dev_name(&mroce_fakenic_pdev->dev));
	return 0;

err_netdev:
	unregister_netdev(mroce_fakenic_ndev);
	free_netdev(mroce_fakenic_ndev);
err_pdev:
	platform_device_unregister(mroce_fakenic_pdev);
	return err;
}

static void __exit mroce_fakenic_exit(void)
{
	ib_unregister_device(mroce_fakenic_ibdev);
	ib_dealloc_device(mroce_fakenic_ibdev);
	unregister_netdev(mroce_fakenic_ndev);
	free_netdev(mroce_fakenic_ndev);
	platform_device_unregister(mroce_fakenic_pdev);
}

module_init(mroce_fakenic_init);
module_exit(mroce_fakenic_exit);

MODULE_DESCRIPTION("MetaRoCE selftest fixture: a netdev and an RDMA device on one parent device");
MODULE_LICENSE("Dual BSD/GPL");
