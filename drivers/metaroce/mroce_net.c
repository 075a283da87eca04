// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Network side of MetaRoCE: one RoCEv2 UDP tunnel socket pair (IPv4 and
 * IPv6, port 4791) per network namespace, shared by every MetaRoCE device
 * whose netdev lives in that namespace.
 *
 * The sockets are opened when the first device of a namespace is created and
 * closed when the last one is deallocated, so a namespace without MetaRoCE
 * devices leaves port 4791 free (for rdma_rxe, say).  Kernel sockets hold no
 * reference on their namespace; instead the namespace's exit handler waits
 * until every device of the namespace has let go (they are unregistered when
 * their netdevs disappear, which happens earlier in namespace teardown).
 */
#include <linux/netdevice.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/udp_tunnel.h>

#include "mroce.h"

/**
 * struct mroce_net - MetaRoCE state of one network namespace
 * @lock: serialises socket open/close and @users changes
 * @sock4: IPv4 socket, NULL while @users is zero
 * @sock6: IPv6 socket, NULL while @users is zero or without IPv6
 * @users: devices holding the sockets
 * @devs: those devices (RCU list, for the receive path; writers hold @lock)
 * @wq: woken when @users drops to zero
 */
struct mroce_net {
	struct mutex lock;
	struct socket *sock4;
	struct socket *sock6;
	unsigned int users;
	struct list_head devs;
	wait_queue_head_t wq;
};

/* One entry of mroce_net.devs; embedded in nothing so mroce_dev stays lean. */
struct mroce_net_dev {
	struct list_head node;
	struct rcu_head rcu;
	struct mroce_dev *mdev;
	struct net_device *ndev;
};

static unsigned int mroce_net_id __read_mostly;

static struct mroce_dev *mroce_net_find_dev(struct mroce_net *mnet,
					    const struct net_device *ndev)
{
	struct mroce_net_dev *nd;

	list_for_each_entry_rcu(nd, &mnet->devs, node)
		if (nd->ndev == ndev)
			return nd->mdev;
	return NULL;
}

/*
 * UDP encap receive hook, in softirq with the RCU read lock held.  Returns 0
 * when the skb was consumed.  No queue pair exists yet on this path, so every
 * packet is counted and dropped.
 */
static int mroce_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	struct mroce_net *mnet = rcu_dereference_sk_user_data(sk);
	struct mroce_dev *mdev = NULL;

	if (mnet)
		mdev = mroce_net_find_dev(mnet, skb->dev);
	if (mdev) {
		mroce_count(mdev, MROCE_CNT_RX_PKTS);
		mroce_count(mdev, MROCE_CNT_RX_DROP_NO_QP);
	}
	kfree_skb(skb);
	return 0;
}

static struct socket *mroce_sock_open(struct net *net, struct mroce_net *mnet,
				      bool ipv6)
{
	struct udp_tunnel_sock_cfg tnl_cfg = {
		.sk_user_data = mnet,
		.encap_type = 1,
		.encap_rcv = mroce_udp_encap_recv,
	};
	struct udp_port_cfg port_cfg = {
		.local_udp_port = htons(MROCE_UDP_PORT),
	};
	struct socket *sock;
	int err;

	if (ipv6) {
		port_cfg.family = AF_INET6;
		port_cfg.ipv6_v6only = 1;
	} else {
		port_cfg.family = AF_INET;
	}

	err = udp_sock_create(net, &port_cfg, &sock);
	if (err)
		return ERR_PTR(err);
	setup_udp_tunnel_sock(net, sock, &tnl_cfg);
	return sock;
}

static void mroce_sock_close(struct socket **sockp)
{
	if (*sockp) {
		udp_tunnel_sock_release(*sockp);
		*sockp = NULL;
	}
}

static int mroce_net_open(struct net *net, struct mroce_net *mnet)
{
	struct socket *sock;

	lockdep_assert_held(&mnet->lock);

	sock = mroce_sock_open(net, mnet, false);
	if (IS_ERR(sock))
		return PTR_ERR(sock);
	mnet->sock4 = sock;

	if (!IS_ENABLED(CONFIG_IPV6) || !ipv6_mod_enabled())
		return 0;
	sock = mroce_sock_open(net, mnet, true);
	if (IS_ERR(sock)) {
		/* A namespace without IPv6 still gets IPv4 RoCE. */
		if (PTR_ERR(sock) == -EAFNOSUPPORT)
			return 0;
		mroce_sock_close(&mnet->sock4);
		return PTR_ERR(sock);
	}
	mnet->sock6 = sock;
	return 0;
}

/**
 * mroce_net_get - take a user reference on @net's RoCEv2 sockets
 * @net: the namespace of the device's netdev
 * @mdev: the device; its received packets are delivered to it from now on
 *
 * Opens the sockets if @mdev is the first user.  Returns the namespace state
 * or an ERR_PTR (-EADDRINUSE when another RoCE stack owns port 4791 there).
 */
struct mroce_net *mroce_net_get(struct net *net, struct mroce_dev *mdev)
{
	struct mroce_net *mnet = net_generic(net, mroce_net_id);
	struct mroce_net_dev *nd;
	int err;

	nd = kzalloc(sizeof(*nd), GFP_KERNEL);
	if (!nd)
		return ERR_PTR(-ENOMEM);
	nd->mdev = mdev;
	nd->ndev = mdev->ndev;

	mutex_lock(&mnet->lock);
	if (!mnet->users) {
		err = mroce_net_open(net, mnet);
		if (err) {
			mutex_unlock(&mnet->lock);
			kfree(nd);
			return ERR_PTR(err);
		}
	}
	mnet->users++;
	list_add_tail_rcu(&nd->node, &mnet->devs);
	mutex_unlock(&mnet->lock);
	return mnet;
}

/* Drop @mdev's reference taken by mroce_net_get(); may sleep. */
void mroce_net_put(struct mroce_net *mnet, struct mroce_dev *mdev)
{
	struct mroce_net_dev *nd, *found = NULL;

	mutex_lock(&mnet->lock);
	list_for_each_entry(nd, &mnet->devs, node) {
		if (nd->mdev == mdev) {
			found = nd;
			break;
		}
	}
	if (!WARN_ON(!found))
		list_del_rcu(&found->node);
	if (!--mnet->users) {
		mroce_sock_close(&mnet->sock6);
		mroce_sock_close(&mnet->sock4);
		wake_up_all(&mnet->wq);
	}
	mutex_unlock(&mnet->lock);

	/* The receive path may still be looking at @mdev through @found. */
	synchronize_rcu();
	kfree(found);
}

static int __net_init mroce_net_init_net(struct net *net)
{
	struct mroce_net *mnet = net_generic(net, mroce_net_id);

	mutex_init(&mnet->lock);
	INIT_LIST_HEAD(&mnet->devs);
	init_waitqueue_head(&mnet->wq);
	return 0;
}

static void __net_exit mroce_net_exit_net(struct net *net)
{
	struct mroce_net *mnet = net_generic(net, mroce_net_id);

	/*
	 * Our devices in @net were queued for unregistration when their
	 * netdevs were unregistered, earlier in this namespace's teardown.
	 * Their sockets must be closed before the namespace is freed.
	 */
	wait_event(mnet->wq, !READ_ONCE(mnet->users));
	WARN_ON(!list_empty(&mnet->devs));
}

static struct pernet_operations mroce_net_ops = {
	.init = mroce_net_init_net,
	.exit = mroce_net_exit_net,
	.id = &mroce_net_id,
	.size = sizeof(struct mroce_net),
};

int mroce_net_init(void)
{
	return register_pernet_subsys(&mroce_net_ops);
}

void mroce_net_exit(void)
{
	unregister_pernet_subsys(&mroce_net_ops);
}
