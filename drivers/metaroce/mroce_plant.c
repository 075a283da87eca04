// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Planted bugs, for the debug-kernel lane only (Documentation/debug.rst).
 *
 * Compiled only into a module built with `make MROCE_PLANT_BUGS=1`, which
 * tools/debugkernel/build.sh does for the debug kernel; the release module
 * has neither this code nor the parameter.  Loading that module with
 * plant_bug=<name> commits one known bug, once, at load time, so that the
 * lane can prove that the kernel detector meant to catch it is armed and
 * that the VM runner fails on its report.  Unset (the default), nothing
 * here runs.
 */
#include <linux/compiler.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timer.h>

#include "mroce.h"

static char *mroce_plant_bug;
module_param_named(plant_bug, mroce_plant_bug, charp, 0444);
MODULE_PARM_DESC(plant_bug,
		 "TEST ONLY (debug lane): commit one bug at load: leak, uaf, double_free, sleep_in_atomic, lock_order, ubsan, odebug");

/* kmemleak: the only pointer to a live object is dropped. */
static noinline void mroce_plant_leak(void)
{
	void *p = kmalloc(128, GFP_KERNEL);

	OPTIMIZER_HIDE_VAR(p);
	if (p)
		memset(p, 0x4d, 128);
}

/* KASAN: a read of a freed object. */
static noinline void mroce_plant_uaf(void)
{
	u8 *p = kmalloc(64, GFP_KERNEL);

	if (!p)
		return;
	kfree(p);
	OPTIMIZER_HIDE_VAR(p);
	pr_info("metaroce: plant_bug=uaf read %u\n", READ_ONCE(*p));
}

/* KASAN: the second kfree() is reported and not performed. */
static noinline void mroce_plant_double_free(void)
{
	void *p = kmalloc(64, GFP_KERNEL);

	kfree(p);
	OPTIMIZER_HIDE_VAR(p);
	kfree(p);
}

static DEFINE_SPINLOCK(mroce_plant_spin);

/* DEBUG_ATOMIC_SLEEP: a sleeping allocation under a spinlock. */
static noinline void mroce_plant_sleep_in_atomic(void)
{
	spin_lock(&mroce_plant_spin);
	kfree(kmalloc(16, GFP_KERNEL));
	spin_unlock(&mroce_plant_spin);
}

static DEFINE_MUTEX(mroce_plant_a);
static DEFINE_MUTEX(mroce_plant_b);

/*
 * lockdep: A then B, later B then A.  One thread never deadlocks on this,
 * but two could: lockdep reports the possible circular dependency.
 */
static noinline void mroce_plant_lock_order(void)
{
	mutex_lock(&mroce_plant_a);
	mutex_lock(&mroce_plant_b);
	mutex_unlock(&mroce_plant_b);
	mutex_unlock(&mroce_plant_a);

	mutex_lock(&mroce_plant_b);
	mutex_lock(&mroce_plant_a);
	mutex_unlock(&mroce_plant_a);
	mutex_unlock(&mroce_plant_b);
}

/* UBSAN: a shift by more than the width of the type. */
static noinline void mroce_plant_ubsan(void)
{
	unsigned int shift = 40;
	u32 v;

	OPTIMIZER_HIDE_VAR(shift);
	v = 1U << shift;
	pr_info("metaroce: plant_bug=ubsan got %u\n", v);
}

struct mroce_plant_obj {
	struct timer_list timer;
};

static void mroce_plant_timer_fn(struct timer_list *t)
{
}

/*
 * debugobjects: an object holding a pending timer is freed.  The report's
 * fixup deletes the timer before the memory goes, so nothing fires later.
 */
static noinline void mroce_plant_odebug(void)
{
	struct mroce_plant_obj *o = kzalloc(sizeof(*o), GFP_KERNEL);

	if (!o)
		return;
	timer_setup(&o->timer, mroce_plant_timer_fn, 0);
	mod_timer(&o->timer, jiffies + 3600 * HZ);
	kfree(o);
}

static const struct {
	const char *name;
	void (*plant)(void);
} mroce_plants[] = {
	{ "leak", mroce_plant_leak },
	{ "uaf", mroce_plant_uaf },
	{ "double_free", mroce_plant_double_free },
	{ "sleep_in_atomic", mroce_plant_sleep_in_atomic },
	{ "lock_order", mroce_plant_lock_order },
	{ "ubsan", mroce_plant_ubsan },
	{ "odebug", mroce_plant_odebug },
};

/*
 * Called first thing at module load.  An unknown name fails the load, so a
 * typo in the lane cannot pass for a detector that stayed silent.
 */
int mroce_plant_bugs(void)
{
	unsigned int i;

	if (!mroce_plant_bug || !*mroce_plant_bug)
		return 0;
	for (i = 0; i < ARRAY_SIZE(mroce_plants); i++) {
		if (strcmp(mroce_plant_bug, mroce_plants[i].name))
			continue;
		pr_warn("metaroce: planting bug '%s' (test only)\n",
			mroce_plants[i].name);
		mroce_plants[i].plant();
		return 0;
	}
	pr_err("metaroce: unknown plant_bug '%s'\n", mroce_plant_bug);
	return -EINVAL;
}
