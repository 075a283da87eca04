// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MetaRoCE module entry points: the `metaroce` rdma link type, the netdev
 * notifier that ties each device's life and port state to its netdev (and
 * feeds auto_attach, mroce_attach.c), and module init/exit.
 */
#include <linux/module.h>
#include <linux/netdevice.h>
#include <rdma/rdma_netlink.h>

#include "mroce.h"

LIST_HEAD(mroce_dev_list);
DEFINE_MUTEX(mroce_dev_lock);

static struct rdma_link_ops mroce_link_ops = {
	.type = MROCE_LINK_TYPE,
	.newlink = mroce_newlink,
};

/*
 * The netdev is leaving (unregistration, or a move to another namespace,
 * which unregisters it from the old one): the device goes with it.  The
 * unregistration is queued because the RDMA core must not be entered with
 * the RTNL held.  Caller holds the RTNL and mroce_dev_lock.
 */
static void mroce_netdev_gone(struct mroce_dev *mdev)
{
	/* Tells auto_attach not to keep the device (moves come back). */
	mdev->ndev_gone = true;
	/* mroce_dev_create() is still registering: it will back out. */
	if (!mdev->registered)
		return;
	/* A failed get means an unregistration is already under way. */
	if (ib_device_try_get(&mdev->ibdev)) {
		ib_unregister_device_queued(&mdev->ibdev);
		ib_device_put(&mdev->ibdev);
	}
}

static int mroce_netdev_event(struct notifier_block *nb, unsigned long event,
			      void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct mroce_dev *mdev;

	mutex_lock(&mroce_dev_lock);
	list_for_each_entry(mdev, &mroce_dev_list, list) {
		if (mdev->ndev != ndev)
			continue;
		if (event == NETDEV_UNREGISTER)
			mroce_netdev_gone(mdev);
		else
			mroce_dev_netdev_event(mdev, event);
	}
	mutex_unlock(&mroce_dev_lock);
	mroce_attach_netdev_event(ndev, event);
	return NOTIFY_DONE;
}

static struct notifier_block mroce_netdev_nb = {
	.notifier_call = mroce_netdev_event,
};

/*
 * Unregister every device.  New ones cannot appear: the link type is gone.
 * ib_unregister_device() waits for a concurrent unregistration of the same
 * device, so each device is fully torn down when this returns.
 */
static void mroce_unregister_all(void)
{
	struct mroce_dev *mdev;

	for (;;) {
		mutex_lock(&mroce_dev_lock);
		list_for_each_entry(mdev, &mroce_dev_list, list) {
			if (mdev->registered)
				break;
		}
		if (list_entry_is_head(mdev, &mroce_dev_list, list)) {
			mutex_unlock(&mroce_dev_lock);
			break;
		}
		/* Keep the memory alive across the unlock. */
		get_device(&mdev->ibdev.dev);
		mutex_unlock(&mroce_dev_lock);

		ib_unregister_device(&mdev->ibdev);
		put_device(&mdev->ibdev.dev);
	}
}

static int __init mroce_init(void)
{
	int err;

	/* Debug-lane builds only; a no-op otherwise (Documentation/debug.rst). */
	err = mroce_plant_bugs();
	if (err)
		return err;

	mroce_crc_init();
	err = mroce_net_init();
	if (err)
		goto err_net;

	/* Before the notifier, which replays NETDEV_REGISTER to it. */
	err = mroce_attach_init();
	if (err)
		goto err_notifier;

	err = register_netdevice_notifier(&mroce_netdev_nb);
	if (err)
		goto err_attach;

	rdma_link_register(&mroce_link_ops);
	pr_info("MetaRoCE loaded: rdma link add <name> type %s netdev <dev>\n",
		MROCE_LINK_TYPE);
	return 0;

err_attach:
	/* The notifier's replay may have queued or made devices. */
	mroce_attach_exit();
	mroce_unregister_all();
err_notifier:
	mroce_net_exit();
err_net:
	mroce_crc_exit();
	return err;
}

static void __exit mroce_exit(void)
{
	rdma_link_unregister(&mroce_link_ops);
	mroce_attach_exit();
	mroce_unregister_all();
	unregister_netdevice_notifier(&mroce_netdev_nb);
	mroce_net_exit();
	mroce_crc_exit();
	WARN_ON(!list_empty(&mroce_dev_list));
	pr_info("MetaRoCE unloaded\n");
}

module_init(mroce_init);
module_exit(mroce_exit);

MODULE_AUTHOR("MetaRoCE developers");
MODULE_DESCRIPTION("MetaRoCE: software RoCEv2 RDMA device on an Ethernet netdev");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_ALIAS_RDMA_LINK(MROCE_LINK_TYPE);
/* Userspace reaches the device through ib_uverbs: load it with us. */
MODULE_SOFTDEP("pre: ib_uverbs");
