// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Path plans (Documentation/wire.rst, "Paths"; operators.rst, "Path
 * plans"): per device, for each peer address, the UDP source ports that
 * its MetaRoCE-mode connections to that peer spray over, instead of
 * ports of their own, so that a job's flows can be given disjoint paths
 * before traffic starts.  Sysfs metaroce_path_plan takes one line:
 *   "ADDR PORT[,PORT...]"  the plan for peer ADDR (IPv4 or IPv6), 1 to
 *                          MROCE_PATHS_MAX ports from 1 to 65535
 *   "ADDR"                 no plan for ADDR
 *   "clear"                no plan at all
 * and lists one "ADDR PORT,PORT,..." line per peer when read.  A
 * connection looks its peer up when its MetaRoCE span starts
 * (mroce_spray_start()), and uses at most as many ports as it has paths.
 * Writers replace the whole table under plan_lock; readers take it under
 * RCU.  At most MROCE_PLAN_PEERS peers.
 */
#include <linux/inet.h>
#include <net/ipv6.h>

#include "mroce.h"

#define MROCE_PLAN_PEERS	64

struct mroce_plan_ent {
	struct in6_addr addr;	/* IPv4 as v4-mapped, as its RoCE v2 GID */
	u8 n;
	u16 port[MROCE_PATHS_MAX];
};

struct mroce_plan {
	struct rcu_head rcu;
	u32 n;
	struct mroce_plan_ent e[];
};

void mroce_plan_init(struct mroce_dev *mdev)
{
	mutex_init(&mdev->plan_lock);
	RCU_INIT_POINTER(mdev->plan, NULL);
}

void mroce_plan_free(struct mroce_dev *mdev)
{
	kfree(rcu_dereference_protected(mdev->plan, true));
	RCU_INIT_POINTER(mdev->plan, NULL);
}

/**
 * mroce_plan_ports() - the planned ports towards a peer
 * @mdev: the device
 * @dgid: the peer's GID (an IPv4 address is v4-mapped)
 * @port: filled with up to @max ports
 * @max: room in @port
 *
 * Return: the ports copied, 0 when the peer has no plan.
 */
u32 mroce_plan_ports(struct mroce_dev *mdev, const union ib_gid *dgid,
		     u16 *port, u32 max)
{
	const struct mroce_plan *p;
	u32 i, n = 0;

	rcu_read_lock();
	p = rcu_dereference(mdev->plan);
	for (i = 0; p && i < p->n; i++) {
		if (memcmp(&p->e[i].addr, dgid->raw, sizeof(p->e[i].addr)))
			continue;
		n = min_t(u32, p->e[i].n, max);
		memcpy(port, p->e[i].port, n * sizeof(*port));
		break;
	}
	rcu_read_unlock();
	return n;
}

ssize_t mroce_plan_show(struct mroce_dev *mdev, char *buf)
{
	const struct mroce_plan_ent *e;
	const struct mroce_plan *p;
	int len = 0;
	u32 i, j;

	rcu_read_lock();
	p = rcu_dereference(mdev->plan);
	for (i = 0; p && i < p->n; i++) {
		e = &p->e[i];
		if (ipv6_addr_v4mapped(&e->addr))
			len += sysfs_emit_at(buf, len, "%pI4",
					     &e->addr.s6_addr32[3]);
		else
			len += sysfs_emit_at(buf, len, "%pI6c", &e->addr);
		for (j = 0; j < e->n; j++)
			len += sysfs_emit_at(buf, len, "%c%u", j ? ',' : ' ',
					     e->port[j]);
		len += sysfs_emit_at(buf, len, "\n");
	}
	rcu_read_unlock();
	return len;
}

/* "ADDR" into @addr, v4-mapped for IPv4.  0 or -EINVAL. */
static int mroce_plan_addr(const char *s, size_t len, struct in6_addr *addr)
{
	__be32 v4;

	if (in4_pton(s, len, (u8 *)&v4, -1, NULL)) {
		ipv6_addr_set_v4mapped(v4, addr);
		return 0;
	}
	return in6_pton(s, len, addr->s6_addr, -1, NULL) ? 0 : -EINVAL;
}

/* "PORT[,PORT...]" into @e.  0 or -EINVAL. */
static int mroce_plan_parse_ports(char *s, struct mroce_plan_ent *e)
{
	char *tok;
	u16 v;

	e->n = 0;
	while ((tok = strsep(&s, ","))) {
		if (e->n == MROCE_PATHS_MAX || kstrtou16(tok, 10, &v) || !v)
			return -EINVAL;
		e->port[e->n++] = v;
	}
	return e->n ? 0 : -EINVAL;
}

/* The table @old with @e set (@e->n) or its address removed (!@e->n). */
static struct mroce_plan *mroce_plan_edit(const struct mroce_plan *old,
					  const struct mroce_plan_ent *e)
{
	u32 i, n = old ? old->n : 0;
	struct mroce_plan *p;

	p = kzalloc(struct_size(p, e, n + 1), GFP_KERNEL);
	if (!p)
		return ERR_PTR(-ENOMEM);
	for (i = 0; i < n; i++)
		if (!ipv6_addr_equal(&old->e[i].addr, &e->addr))
			p->e[p->n++] = old->e[i];
	if (e->n) {
		if (p->n == MROCE_PLAN_PEERS) {
			kfree(p);
			return ERR_PTR(-ENOSPC);
		}
		p->e[p->n++] = *e;
	}
	return p;
}

ssize_t mroce_plan_store(struct mroce_dev *mdev, const char *buf,
			 size_t count)
{
	struct mroce_plan *old, *p = NULL;
	struct mroce_plan_ent *e;
	char *line, *s, *ports;
	int err = -EINVAL;

	line = kstrndup(buf, min_t(size_t, count, PAGE_SIZE), GFP_KERNEL);
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!line || !e) {
		err = -ENOMEM;
		goto out;
	}
	s = strim(line);
	ports = strpbrk(s, " \t");
	if (ports) {
		*ports++ = '\0';
		ports = skip_spaces(ports);
	}
	mutex_lock(&mdev->plan_lock);
	old = rcu_dereference_protected(mdev->plan,
					lockdep_is_held(&mdev->plan_lock));
	if (!ports && !strcmp(s, "clear")) {
		err = 0;
	} else if (!mroce_plan_addr(s, strlen(s), &e->addr) &&
		   (!ports || !mroce_plan_parse_ports(ports, e))) {
		p = mroce_plan_edit(old, e);
		err = PTR_ERR_OR_ZERO(p);
	}
	if (!err) {
		rcu_assign_pointer(mdev->plan, p);
		kfree_rcu(old, rcu);
	}
	mutex_unlock(&mdev->plan_lock);
	if (err == -EINVAL)
		ibdev_warn_ratelimited(&mdev->ibdev,
				       "metaroce_path_plan: '%.*s' is not 'ADDR PORT[,PORT...]' (at most %u ports from 1 to 65535), 'ADDR' or 'clear'\n",
				       (int)min_t(size_t, strcspn(buf, "\n"), 64),
				       buf, MROCE_PATHS_MAX);
	else if (err == -ENOSPC)
		ibdev_warn_ratelimited(&mdev->ibdev,
				       "metaroce_path_plan: plans for %u peers already\n",
				       MROCE_PLAN_PEERS);
out:
	kfree(e);
	kfree(line);
	return err ?: count;
}
