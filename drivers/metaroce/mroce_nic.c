// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The parent NIC's own RoCE.  A ConnectX NIC (mlx5_core) with RoCE enabled
 * steers UDP destination port 4791 to its RDMA engine, so those packets
 * never reach the kernel's UDP stack, hence never MetaRoCE.  Its RDMA device
 * (mlx5_ib) and its netdev both have the PCI function as parent device (in
 * 6.1; the search below goes deeper too), so a MetaRoCE device whose netdev
 * shares its PCI function with another RDMA device warns, once, at
 * creation, with the devlink commands that hand the port back to the
 * kernel; /sys/class/infiniband/<dev>/metaroce_nic_roce says the same for
 * as long as the device lives.
 */
#include <linux/device.h>
#include <linux/pci.h>

#include "mroce.h"

/*
 * The function the netdev belongs to: its nearest PCI ancestor, else its
 * parent device (a NIC on another bus); NULL for virtual netdevs.
 */
static struct device *mroce_nic_function(struct net_device *ndev)
{
	struct device *d;

	for (d = ndev->dev.parent; d; d = d->parent)
		if (dev_is_pci(d))
			return d;
	return ndev->dev.parent;
}

static bool mroce_nic_is_rdma(struct device *dev)
{
	return dev->class && !strcmp(dev->class->name, "infiniband");
}

/* device_for_each_child() callback: the first RDMA device below @dev. */
static int mroce_nic_find_rdma(struct device *dev, void *data)
{
	struct device **found = data;

	if (mroce_nic_is_rdma(dev)) {
		*found = get_device(dev);
		return 1;
	}
	return device_for_each_child(dev, data, mroce_nic_find_rdma);
}

/**
 * mroce_nic_probe() - look for an RDMA device of the netdev's own NIC
 * @mdev: the device, before registration (sysfs shows what is found here)
 *
 * Records the devlink handle of the function and the RDMA device's name in
 * @mdev, or leaves them empty.  MetaRoCE's own devices have no parent
 * device, so they are never found.
 */
void mroce_nic_probe(struct mroce_dev *mdev)
{
	struct device *fn = mroce_nic_function(mdev->ndev);
	struct device *rdma = NULL;

	if (!fn)
		return;
	device_for_each_child(fn, &rdma, mroce_nic_find_rdma);
	if (!rdma)
		return;
	/* devlink's handle of a device is "<bus>/<device>". */
	snprintf(mdev->nic_handle, sizeof(mdev->nic_handle), "%s/%s",
		 dev_bus_name(fn), dev_name(fn));
	strscpy(mdev->nic_rdma, dev_name(rdma), sizeof(mdev->nic_rdma));
	put_device(rdma);
}

/* Once, after registration: what mroce_nic_probe() found, in the log. */
void mroce_nic_warn(struct mroce_dev *mdev)
{
	const char *h = mdev->nic_handle;

	if (!mdev->nic_rdma[0])
		return;
	if (mdev->udp_port == MROCE_UDP_PORT)
		ibdev_warn(&mdev->ibdev,
			   "netdev %s shares %s with RDMA device %s: if that NIC's RoCE is enabled, it takes UDP port %u and this device receives nothing. Disable it: 'devlink dev param set %s name enable_roce value false cmode driverinit' then 'devlink dev reload %s'; or load metaroce with udp_port=<other port> on both ends\n",
			   mdev->ndev->name, h, mdev->nic_rdma, MROCE_UDP_PORT,
			   h, h);
	else
		ibdev_info(&mdev->ibdev,
			   "netdev %s shares %s with RDMA device %s; UDP port %u avoids that NIC's RoCE steering of port %u\n",
			   mdev->ndev->name, h, mdev->nic_rdma, mdev->udp_port,
			   MROCE_UDP_PORT);
}

/* sysfs metaroce_nic_roce: the same finding, one line, or "none". */
ssize_t mroce_nic_show(struct mroce_dev *mdev, char *buf)
{
	const char *h = mdev->nic_handle;

	if (!mdev->nic_rdma[0])
		return sysfs_emit(buf, "none\n");
	return sysfs_emit(buf,
			  "%s %s: UDP port %u %s; disable: devlink dev param set %s name enable_roce value false cmode driverinit && devlink dev reload %s\n",
			  h, mdev->nic_rdma, MROCE_UDP_PORT,
			  mdev->udp_port == MROCE_UDP_PORT ?
			  "is taken by the NIC if its RoCE is enabled" :
			  "is the NIC's, this device uses another", h, h);
}
