// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Automatic attachment: with `auto_attach=1` MetaRoCE creates a device for
 * every Ethernet netdev whose driver (as `ethtool -i` names it) is in
 * `attach_drivers`, named from the `attach_name` template, and follows the
 * netdev: a rename or a move to another namespace recreates the device under
 * the new name, enslaving the netdev to a bond or team removes it (the
 * master receives the slave's traffic: list `bonding` or `team` to attach to
 * the master instead), releasing it brings it back.  A netdev that already
 * has a device, manual or automatic, is never bound twice, and a device
 * made with `rdma link add` is never touched.
 *
 * The netdev notifier runs under the RTNL, where the RDMA core must not be
 * entered, so it only queues the netdev; a work item re-examines each queued
 * netdev under the RTNL and then creates or removes devices without it.  The
 * decision is taken when the work runs, not when the event fires, so a burst
 * of events (register, then udev's rename) ends in the state of the last.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ethtool.h>
#include <linux/if_arp.h>
#include <linux/if_vlan.h>
#include <linux/module.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "mroce.h"

static bool mroce_auto_attach;
module_param_named(auto_attach, mroce_auto_attach, bool, 0444);
MODULE_PARM_DESC(auto_attach,
		 "Create a device for every netdev whose driver is in attach_drivers (default: no)");

static char mroce_attach_drivers[256] = "mlx5_core";
module_param_string(attach_drivers, mroce_attach_drivers,
		    sizeof(mroce_attach_drivers), 0444);
MODULE_PARM_DESC(attach_drivers,
		 "Comma-separated netdev driver names for auto_attach, as ethtool -i shows them (default: mlx5_core)");

static char mroce_attach_name[IB_DEVICE_NAME_MAX] = "mroce_%s";
module_param_string(attach_name, mroce_attach_name,
		    sizeof(mroce_attach_name), 0444);
MODULE_PARM_DESC(attach_name,
		 "Name template of automatic devices; %s, once, is the netdev name (default: mroce_%s)");

/* One netdev to look at again, held until the work has done so. */
struct mroce_attach_req {
	struct list_head node;
	struct net_device *ndev;
	netdevice_tracker tracker;
	unsigned int retries;		/* after name clashes, see below */
};

/*
 * A netdev moved to another namespace keeps its name, and the device made
 * for it in the old one is unregistered asynchronously (the notifier runs
 * under the RTNL), so the new device's name can still be taken for a moment.
 * Such a clash is retried every 100 ms for up to 5 s.
 */
#define MROCE_ATTACH_RETRY_DELAY	(HZ / 10)
#define MROCE_ATTACH_RETRIES		50

/* What mroce_attach_decide() found for one netdev. */
struct mroce_attach_act {
	struct mroce_dev *old;			/* to unregister first */
	char name[IB_DEVICE_NAME_MAX];		/* to create, if not empty */
	char ifname[IFNAMSIZ];			/* @name was made from */
};

static LIST_HEAD(mroce_attach_pending);
static DEFINE_MUTEX(mroce_attach_lock);	/* the list and the flag below */
static bool mroce_attach_stopped;
static void mroce_attach_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(mroce_attach_work, mroce_attach_work_fn);

/*
 * The driver name as `ethtool -i` reports it: the driver's get_drvinfo, or
 * failing that the driver of the parent device.  Caller holds the RTNL, as
 * the ethtool ioctl does around get_drvinfo.
 */
static void mroce_attach_driver_of(struct net_device *ndev, char *drv,
				   size_t size)
{
	struct ethtool_drvinfo info = {};

	ASSERT_RTNL();
	if (ndev->ethtool_ops && ndev->ethtool_ops->get_drvinfo)
		ndev->ethtool_ops->get_drvinfo(ndev, &info);
	else if (ndev->dev.parent && ndev->dev.parent->driver)
		strscpy(info.driver, ndev->dev.parent->driver->name,
			sizeof(info.driver));
	strscpy(drv, info.driver, size);
}

/* @drv is one of the comma- or space-separated names of attach_drivers. */
static bool mroce_attach_driver_listed(const char *drv)
{
	const char *p = mroce_attach_drivers;
	size_t n = strlen(drv), len;

	p += strspn(p, ", \n");
	while (*p) {
		len = strcspn(p, ", \n");
		if (n && len == n && !strncmp(p, drv, n))
			return true;
		p += len;
		p += strspn(p, ", \n");
	}
	return false;
}

/* Caller holds the RTNL. */
static bool mroce_attach_wanted(struct net_device *ndev)
{
	char drv[sizeof_field(struct ethtool_drvinfo, driver)];

	ASSERT_RTNL();
	if (!mroce_auto_attach || ndev->reg_state != NETREG_REGISTERED)
		return false;
	if (ndev->type != ARPHRD_ETHER || is_vlan_dev(ndev) ||
	    netif_is_lag_port(ndev))
		return false;
	mroce_attach_driver_of(ndev, drv, sizeof(drv));
	return mroce_attach_driver_listed(drv);
}

/*
 * The template with its one "%s" replaced by @ifname; -ENAMETOOLONG when the
 * result does not fit an RDMA device name.  Substituted by hand so that the
 * user's template is never used as a format string.
 */
static int mroce_attach_format(const char *ifname, char *name, size_t size)
{
	const char *tmpl = mroce_attach_name;
	const char *s = strstr(tmpl, "%s");
	int n;

	if (!s)
		return -EINVAL;
	n = snprintf(name, size, "%.*s%s%s", (int)(s - tmpl), tmpl, ifname,
		     s + 2);
	return n < size ? 0 : -ENAMETOOLONG;
}

/*
 * attach_name must yield one distinct, valid RDMA device name per netdev:
 * exactly one "%s" and no other '%' (the RDMA core would read one as its
 * own "%d" numbering, or reject it).
 */
static int mroce_attach_check_template(void)
{
	const char *s = strstr(mroce_attach_name, "%s");
	char name[IB_DEVICE_NAME_MAX];

	if (!s || strchr(mroce_attach_name, '%') != s ||
	    strchr(s + 2, '%')) {
		pr_err("attach_name=\"%s\": the template needs exactly one %%s and no other %%\n",
		       mroce_attach_name);
		return -EINVAL;
	}
	if (mroce_attach_format("123456789012345", name, sizeof(name))) {
		pr_err("attach_name=\"%s\" is too long for a %d-byte device name\n",
		       mroce_attach_name, IB_DEVICE_NAME_MAX);
		return -EINVAL;
	}
	return 0;
}

/*
 * Decide what @ndev needs: its automatic device removed (the netdev left
 * the list's terms, was renamed or is moving to another namespace), a
 * device created, both, or nothing.  A device made by hand is left alone.
 * Caller holds the RTNL.
 */
static void mroce_attach_decide(struct net_device *ndev,
				struct mroce_attach_act *act)
{
	bool want = mroce_attach_wanted(ndev);
	struct mroce_dev *bound;

	memset(act, 0, sizeof(*act));
	mutex_lock(&mroce_dev_lock);
	bound = mroce_dev_bound_to(ndev);
	if (bound) {
		if (!bound->auto_attached || !bound->registered)
			goto out;
		if (want && !bound->ndev_gone &&
		    !strcmp(bound->attach_ifname, ndev->name))
			goto out;
		/* Keep its memory alive until it is unregistered. */
		get_device(&bound->ibdev.dev);
		act->old = bound;
	}
	if (want && !mroce_attach_format(ndev->name, act->name,
					 sizeof(act->name)))
		strscpy(act->ifname, ndev->name, sizeof(act->ifname));
	else
		act->name[0] = '\0';
out:
	mutex_unlock(&mroce_dev_lock);
}

/*
 * Carry out @act; no locks held, the request holds @ndev.  Returns
 * -EEXIST for a name clash that may be retried, else 0.
 */
static int mroce_attach_apply(struct net_device *ndev,
			      struct mroce_attach_act *act, bool last)
{
	int err;

	if (act->old) {
		ibdev_info(&act->old->ibdev, "removing: netdev %s %s\n",
			   ndev->name, act->name[0] ? "renamed or moved" :
			   "no longer matches attach_drivers (or is a bond/team port)");
		ib_unregister_device(&act->old->ibdev);
		put_device(&act->old->ibdev.dev);
	}
	if (!act->name[0])
		return 0;
	err = mroce_dev_create(act->name, ndev, act->ifname);
	if (err == -EEXIST && !last)
		return err;
	if (err && err != -ENODEV)
		pr_warn("auto_attach: no device %s for netdev %s: %d\n",
			act->name, ndev->name, err);
	return 0;
}

static void mroce_attach_req_free(struct mroce_attach_req *req)
{
	netdev_put(req->ndev, &req->tracker);
	kfree(req);
}

/*
 * Put @req back on the pending list for a later try, unless the module is
 * stopping or a newer request for the netdev is there already (it was
 * queued while this one ran).  Returns false when @req was not kept.
 */
static bool mroce_attach_retry(struct mroce_attach_req *req)
{
	struct mroce_attach_req *other;
	bool keep = !mroce_attach_stopped;

	lockdep_assert_held(&mroce_attach_lock);
	list_for_each_entry(other, &mroce_attach_pending, node)
		if (other->ndev == req->ndev)
			keep = false;
	if (!keep)
		return false;
	req->retries++;
	list_add_tail(&req->node, &mroce_attach_pending);
	mod_delayed_work(system_wq, &mroce_attach_work,
			 MROCE_ATTACH_RETRY_DELAY);
	return true;
}

static void mroce_attach_work_fn(struct work_struct *work)
{
	struct mroce_attach_req *req, *tmp;
	struct mroce_attach_act act;
	LIST_HEAD(todo);
	bool last;

	mutex_lock(&mroce_attach_lock);
	list_splice_init(&mroce_attach_pending, &todo);
	mutex_unlock(&mroce_attach_lock);

	list_for_each_entry_safe(req, tmp, &todo, node) {
		rtnl_lock();
		mroce_attach_decide(req->ndev, &act);
		rtnl_unlock();
		list_del(&req->node);
		last = req->retries >= MROCE_ATTACH_RETRIES;
		if (mroce_attach_apply(req->ndev, &act, last) == -EEXIST) {
			bool kept;

			mutex_lock(&mroce_attach_lock);
			kept = mroce_attach_retry(req);
			mutex_unlock(&mroce_attach_lock);
			if (kept)
				continue;
		}
		mroce_attach_req_free(req);
	}
}

/*
 * Queue @ndev to be looked at again, once.  Caller holds the RTNL (the
 * notifier).
 */
static void mroce_attach_queue(struct net_device *ndev)
{
	struct mroce_attach_req *req;

	ASSERT_RTNL();
	mutex_lock(&mroce_attach_lock);
	if (mroce_attach_stopped)
		goto out;
	list_for_each_entry(req, &mroce_attach_pending, node)
		if (req->ndev == ndev)
			goto out;
	req = kzalloc(sizeof(*req), GFP_KERNEL);
	if (!req) {
		pr_warn("auto_attach: out of memory, netdev %s not examined\n",
			ndev->name);
		goto out;
	}
	req->ndev = ndev;
	netdev_hold(ndev, &req->tracker, GFP_KERNEL);
	list_add_tail(&req->node, &mroce_attach_pending);
	mod_delayed_work(system_wq, &mroce_attach_work, 0);
out:
	mutex_unlock(&mroce_attach_lock);
}

/*
 * The netdev is being unregistered: drop a pending request so that its
 * reference does not delay the unregistration.  Caller holds the RTNL.
 */
static void mroce_attach_forget(struct net_device *ndev)
{
	struct mroce_attach_req *req, *tmp;

	mutex_lock(&mroce_attach_lock);
	list_for_each_entry_safe(req, tmp, &mroce_attach_pending, node) {
		if (req->ndev != ndev)
			continue;
		list_del(&req->node);
		mroce_attach_req_free(req);
	}
	mutex_unlock(&mroce_attach_lock);
}

/* From the netdev notifier, under the RTNL. */
void mroce_attach_netdev_event(struct net_device *ndev, unsigned long event)
{
	if (!mroce_auto_attach)
		return;
	switch (event) {
	case NETDEV_REGISTER:		/* arrival, or a move's second half */
	case NETDEV_CHANGENAME:
	case NETDEV_CHANGEUPPER:	/* enslaved to or released by a bond/team */
		mroce_attach_queue(ndev);
		break;
	case NETDEV_UNREGISTER:
		mroce_attach_forget(ndev);
		break;
	default:
		break;
	}
}

/*
 * Check the parameters, before the netdev notifier is registered: its
 * registration replays NETDEV_REGISTER for every netdev present, which
 * queues them, and later ones come the same way.  A bad template fails the
 * module load with a message instead of naming devices wrongly.
 */
int mroce_attach_init(void)
{
	int err;

	err = mroce_attach_check_template();
	if (err)
		return err;
	if (mroce_auto_attach)
		pr_info("auto_attach: netdevs of drivers \"%s\" get devices named \"%s\"\n",
			mroce_attach_drivers, mroce_attach_name);
	return 0;
}

/*
 * Stop for good (module unload): no new request is queued after this, the
 * work is finished and what is left pending is dropped.
 */
void mroce_attach_exit(void)
{
	struct mroce_attach_req *req, *tmp;

	mutex_lock(&mroce_attach_lock);
	mroce_attach_stopped = true;
	mutex_unlock(&mroce_attach_lock);
	cancel_delayed_work_sync(&mroce_attach_work);

	mutex_lock(&mroce_attach_lock);
	list_for_each_entry_safe(req, tmp, &mroce_attach_pending, node) {
		list_del(&req->node);
		mroce_attach_req_free(req);
	}
	mutex_unlock(&mroce_attach_lock);
}
