// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Per-device resource limits (sysfs metaroce_max_*): each count limit is
 * set a few objects above what is alive, query_device must report it, the
 * objects up to it are created and the next one fails with ENOMEM; one
 * freed, one more fits; all freed, the device's object counts are back
 * where they were.  max_cqe and max_mr_size refuse one past them with
 * EINVAL.  Bad values are refused and change nothing.  Every limit is
 * restored before the program ends.  TAP 13 output.
 *
 *   limits IBDEV
 *
 *   limits -m IBDEV KIB
 *
 * -m checks RLIMIT_MEMLOCK instead, in a process without CAP_IPC_LOCK
 * whose limit is KIB KiB (the caller sets it): a region of half of it
 * registers, one of twice it fails with ENOMEM, a second half fits, a
 * third does not; deregistered, the memory registers again.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "../verbs_test.h"

#define EXTRA	3	/* objects allowed above those alive */
#define MAXOBJ	8

static struct ibv_context *ctx;
static const char *devname;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static char *buf;

/* Write @val to sysfs metaroce_@name of the device: 0 or an errno. */
static int set_attr(const char *name, const char *val)
{
	char path[256];
	int fd, err = 0;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/metaroce_%s",
		 devname, name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return errno;
	if (write(fd, val, strlen(val)) < 0)
		err = errno;
	close(fd);
	return err;
}

static int set_limit(const char *name, unsigned long long v)
{
	char s[32];

	snprintf(s, sizeof(s), "%llu", v);
	return set_attr(name, s);
}

static unsigned long long get_limit(const char *name)
{
	char path[256];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/metaroce_%s",
		 devname, name);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%llu", &v) != 1)
		vt_bail(path);
	fclose(f);
	return v;
}

/* The count of objects of @type alive on the device (metaroce_objects). */
static int objects(const char *type)
{
	char path[256], word[32];
	int v;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/metaroce_objects",
		 devname);
	f = fopen(path, "r");
	if (!f)
		vt_bail(path);
	while (fscanf(f, "%31s %d", word, &v) == 2)
		if (!strcmp(word, type)) {
			fclose(f);
			return v;
		}
	fclose(f);
	errno = ENOENT;
	vt_bail(type);
	return -1;
}

/* One kind of object: how to make and free one, and what reports it. */
struct kind {
	const char *name;	/* limit metaroce_max_<name>, objects <name> */
	void *(*make)(void);
	void (*free)(void *obj);
	int (*reported)(const struct ibv_device_attr *a);
};

static void *make_pd(void) { return ibv_alloc_pd(ctx); }
static void free_pd(void *o) { ibv_dealloc_pd(o); }
static int rep_pd(const struct ibv_device_attr *a) { return a->max_pd; }

static void *make_cq(void) { return ibv_create_cq(ctx, 4, NULL, NULL, 0); }
static void free_cq(void *o) { ibv_destroy_cq(o); }
static int rep_cq(const struct ibv_device_attr *a) { return a->max_cq; }

static void *make_mr(void)
{
	return ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
}
static void free_mr(void *o) { ibv_dereg_mr(o); }
static int rep_mr(const struct ibv_device_attr *a) { return a->max_mr; }

static void *make_mw(void) { return ibv_alloc_mw(pd, IBV_MW_TYPE_2); }
static void free_mw(void *o) { ibv_dealloc_mw(o); }
static int rep_mw(const struct ibv_device_attr *a) { return a->max_mw; }

static void *make_srq(void)
{
	struct ibv_srq_init_attr a = { .attr = { .max_wr = 4, .max_sge = 1 } };

	return ibv_create_srq(pd, &a);
}
static void free_srq(void *o) { ibv_destroy_srq(o); }
static int rep_srq(const struct ibv_device_attr *a) { return a->max_srq; }

static void *make_qp(void)
{
	struct ibv_qp_cap cap = { .max_send_wr = 4, .max_recv_wr = 4,
				  .max_send_sge = 1, .max_recv_sge = 1 };

	return vt_create_qp(pd, cq, NULL, IBV_QPT_RC, &cap);
}
static void free_qp(void *o) { ibv_destroy_qp(o); }
static int rep_qp(const struct ibv_device_attr *a) { return a->max_qp; }

static const struct kind kinds[] = {
	{ "pd", make_pd, free_pd, rep_pd },
	{ "cq", make_cq, free_cq, rep_cq },
	{ "mr", make_mr, free_mr, rep_mr },
	{ "mw", make_mw, free_mw, rep_mw },
	{ "srq", make_srq, free_srq, rep_srq },
	{ "qp", make_qp, free_qp, rep_qp },
};

/* Hit the count limit of @k; restores it. */
static void test_count(const struct kind *k)
{
	char lname[32];
	void *obj[MAXOBJ];
	struct ibv_device_attr a;
	unsigned long long old;
	int base, lim, n = 0, err;
	void *extra;

	snprintf(lname, sizeof(lname), "max_%s", k->name);
	old = get_limit(lname);
	base = objects(k->name);
	lim = base + EXTRA;
	err = set_limit(lname, lim);
	vt_check(!err, "%s: set metaroce_%s to %d (%d alive)", k->name, lname,
		 lim, base);
	vt_check(!ibv_query_device(ctx, &a) && k->reported(&a) == lim,
		 "%s: query_device reports max_%s %d", k->name, k->name, lim);
	while (n < MAXOBJ && (obj[n] = k->make()))
		n++;
	err = errno;
	vt_check(n == EXTRA && err == ENOMEM,
		 "%s: %d created, the next fails with ENOMEM (got %d, errno %d)",
		 k->name, EXTRA, n, err);
	vt_check(objects(k->name) == lim, "%s: %d alive at the limit",
		 k->name, lim);
	if (n > 0) {
		k->free(obj[--n]);
		extra = k->make();
		vt_check(extra != NULL, "%s: one freed, one more fits", k->name);
		if (extra)
			obj[n++] = extra;
	}
	/* A limit below what is alive refuses new objects only. */
	err = set_limit(lname, 1);
	extra = k->make();
	vt_check(!err && !extra && errno == ENOMEM &&
		 objects(k->name) == base + n,
		 "%s: limit 1 below %d alive: they stay, a new one fails with ENOMEM",
		 k->name, base + n);
	if (extra)
		k->free(extra);
	while (n > 0)
		k->free(obj[--n]);
	vt_check(objects(k->name) == base, "%s: back to %d alive", k->name,
		 base);
	vt_check(!set_limit(lname, old) && get_limit(lname) == old,
		 "%s: limit restored to %llu", k->name, old);
}

static void test_cqe(void)
{
	unsigned long long old = get_limit("max_cqe");
	struct ibv_device_attr a;
	struct ibv_cq *c;

	vt_check(!set_limit("max_cqe", 64), "max_cqe: set to 64");
	memset(&a, 0, sizeof(a));
	ibv_query_device(ctx, &a);
	vt_check(a.max_cqe == 64, "max_cqe: query_device reports 64 (got %d)",
		 a.max_cqe);
	c = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	vt_check(c != NULL, "max_cqe: a CQ of 64 entries");
	vt_check(c && ibv_resize_cq(c, 65) == EINVAL,
		 "max_cqe: resize to 65 fails with EINVAL");
	if (c)
		ibv_destroy_cq(c);
	c = ibv_create_cq(ctx, 65, NULL, NULL, 0);
	vt_check(!c && errno == EINVAL,
		 "max_cqe: a CQ of 65 entries fails with EINVAL (errno %d)",
		 errno);
	if (c)
		ibv_destroy_cq(c);
	vt_check(!set_limit("max_cqe", old), "max_cqe: restored to %llu", old);
}

static void test_mr_size(void)
{
	unsigned long long old = get_limit("max_mr_size");
	struct ibv_device_attr a;
	struct ibv_mr *mr;

	vt_check(!set_limit("max_mr_size", 1 << 20), "max_mr_size: set to 1 MiB");
	vt_check(!ibv_query_device(ctx, &a) && a.max_mr_size == 1 << 20,
		 "max_mr_size: query_device reports 1 MiB");
	mr = ibv_reg_mr(pd, buf, 1 << 20, IBV_ACCESS_LOCAL_WRITE);
	vt_check(mr != NULL, "max_mr_size: a region of 1 MiB");
	if (mr)
		ibv_dereg_mr(mr);
	mr = ibv_reg_mr(pd, buf, (1 << 20) + 4096, IBV_ACCESS_LOCAL_WRITE);
	vt_check(!mr && errno == EINVAL,
		 "max_mr_size: 1 MiB + 4 KiB fails with EINVAL (errno %d)",
		 errno);
	if (mr)
		ibv_dereg_mr(mr);
	vt_check(!set_limit("max_mr_size", old), "max_mr_size: restored");
}

static void test_bad_values(void)
{
	static const char *const bad[] = { "0", "65537", "-1", "many", "1x" };
	unsigned long long old = get_limit("max_qp");
	unsigned int i;
	int err;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err = set_attr("max_qp", bad[i]);
		vt_check(err == EINVAL && get_limit("max_qp") == old,
			 "max_qp '%s' refused with EINVAL, unchanged (err %d)",
			 bad[i], err);
	}
	err = set_attr("max_mr_size", "1099511627777");
	vt_check(err == EINVAL, "max_mr_size 2^40 + 1 refused with EINVAL");
}

static int test_memlock(long kib)
{
	size_t half = kib * 512, twice = kib * 2048;
	struct ibv_mr *a, *b, *c;
	int base = objects("mr");
	char *mem;

	mem = mmap(NULL, 4 * twice, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		vt_bail("mmap");
	memset(mem, 1, 4 * twice);
	a = ibv_reg_mr(pd, mem, half, IBV_ACCESS_LOCAL_WRITE);
	vt_check(a != NULL, "memlock %ld KiB: a region of %zu KiB", kib,
		 half >> 10);
	b = ibv_reg_mr(pd, mem + twice, twice, IBV_ACCESS_LOCAL_WRITE);
	vt_check(!b && errno == ENOMEM,
		 "memlock: a region of %zu KiB fails with ENOMEM (errno %d)",
		 twice >> 10, errno);
	b = ibv_reg_mr(pd, mem + twice, half, IBV_ACCESS_LOCAL_WRITE);
	vt_check(b != NULL, "memlock: a second region of %zu KiB",
		 half >> 10);
	c = ibv_reg_mr(pd, mem + 2 * twice, half, IBV_ACCESS_LOCAL_WRITE);
	vt_check(!c && errno == ENOMEM,
		 "memlock: a third one fails with ENOMEM (errno %d)", errno);
	vt_check(objects("mr") == base + 2,
		 "memlock: the refused regions left nothing behind");
	if (a)
		ibv_dereg_mr(a);
	if (b)
		ibv_dereg_mr(b);
	if (c)
		ibv_dereg_mr(c);
	a = ibv_reg_mr(pd, mem, half, IBV_ACCESS_LOCAL_WRITE);
	b = ibv_reg_mr(pd, mem + twice, half, IBV_ACCESS_LOCAL_WRITE);
	vt_check(a && b, "memlock: deregistered, both register again");
	if (a)
		ibv_dereg_mr(a);
	if (b)
		ibv_dereg_mr(b);
	vt_check(objects("mr") == base, "memlock: back to %d regions", base);
	munmap(mem, 4 * twice);
	return 0;
}

int main(int argc, char **argv)
{
	bool memlock = argc == 4 && !strcmp(argv[1], "-m");
	unsigned int i;

	if (argc != 2 && !memlock) {
		fprintf(stderr, "usage: limits IBDEV | limits -m IBDEV KIB\n");
		return 2;
	}
	devname = argv[memlock ? 2 : 1];
	ctx = vt_start(devname);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	buf = aligned_alloc(4096, 2 << 20);
	if (!pd || !cq || !buf)
		vt_bail("pd, cq, buffer");
	if (memlock) {
		test_memlock(atol(argv[3]));
	} else {
		for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
			test_count(&kinds[i]);
		test_cqe();
		test_mr_size();
		test_bad_values();
	}
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	free(buf);
	return vt_plan();
}
