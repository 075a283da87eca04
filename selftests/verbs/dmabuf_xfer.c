// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * dma-buf memory regions (ibv_reg_dmabuf_mr) over RC between two devices,
 * data checked through the CPU's own view of the buffer (mmap of the
 * dma-buf).  Side A registers a region of a dma-buf; side B ordinary memory.
 *
 *   dmabuf_xfer -a DEV_A -g GID_A -b DEV_B -G GID_B -x vgem|dbx
 *
 * -x vgem: buffers are dumb buffers of the vgem DRM driver, exported by
 *   MROCE_DRM_IOCTL_PRIME_HANDLE_TO_FD (no libdrm needed).
 * -x dbx: buffers come from the test exporter mroce_dbx.ko, which can also
 *   revoke a buffer (move_notify) and says which attachments, pins and
 *   mappings are alive: the revocation and release checks run only there.
 *
 * TAP 13 on stdout; exit 0 when every check passed.
 */
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "drm_uapi.h"
#include "../verbs_test.h"
#include "kmod/mroce_dbx.h"

#define BUF_SIZE	(256 * 1024)
/* The region: from byte REG_OFF of the buffer, at an unrelated address. */
#define REG_OFF		(4096 + 100)
#define REG_LEN		(128 * 1024)
#define REG_IOVA	(0x5000000000ULL + 100)
#define XFER		20000	/* 20 packets at MTU 1024, six pages */
#define ALL_ACCESS	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

struct side {
	const char *name;
	int gid_idx;
	union ibv_gid gid;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
};

/* A dma-buf, the CPU's view of it and a region of it on side A. */
struct dbuf {
	int fd;
	uint8_t *view;
	struct ibv_mr *mr;
};

static struct side A, B;
static uint8_t *bbuf;		/* side B's memory */
static struct ibv_mr *bmr;
static const char *source;
static int drm_fd = -1, dbx_fd = -1;

static void side_open(struct side *s)
{
	struct ibv_qp_cap cap = {
		.max_send_wr = 128, .max_recv_wr = 16,
		.max_send_sge = 1, .max_recv_sge = 1,
	};

	s->ctx = vt_start(s->name);
	s->pd = ibv_alloc_pd(s->ctx);
	s->cq = s->pd ? ibv_create_cq(s->ctx, 256, NULL, NULL, 0) : NULL;
	if (!s->cq || vt_port_gid(s->ctx, s->gid_idx, &s->gid, NULL))
		vt_bail(s->name);
	s->qp = vt_create_qp(s->pd, s->cq, NULL, IBV_QPT_RC, &cap);
	if (!s->qp)
		vt_bail("ibv_create_qp");
}

/*
 * RESET -> RTS towards @peer: RC, path MTU 1024.  The ACK timeout and
 * retries of the other verbs tests (4.096 us << 14, 7 retries, about half
 * a second): with 12 and 3 (67 ms in all) a stream of 16 KiB WRITEs on the
 * debug lane's kernel (KASAN, lockdep, TCG, a loaded host) ended in
 * RETRY_EXC_ERR before any revocation.
 */
static void side_connect(struct side *s, const struct side *peer)
{
	static const struct vt_conn k = {
		.mtu = IBV_MTU_1024, .rd_atomic = 4, .min_rnr_timer = 1,
		.timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
	};

	if (vt_qp_init(s->qp, ALL_ACCESS & ~IBV_ACCESS_LOCAL_WRITE) ||
	    vt_connect(s->qp, &peer->gid, s->gid_idx, peer->qp->qp_num, &k))
		vt_bail("connect");
}

/* After an error completion: both QPs back to RESET, then RTS again. */
static void reconnect(void)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
	struct ibv_wc wc;

	if (ibv_modify_qp(A.qp, &a, IBV_QP_STATE) ||
	    ibv_modify_qp(B.qp, &a, IBV_QP_STATE))
		vt_bail("RESET");
	while (ibv_poll_cq(A.cq, 1, &wc) > 0 || ibv_poll_cq(B.cq, 1, &wc) > 0)
		;
	side_connect(&A, &B);
	side_connect(&B, &A);
}

/* The next completion of @cq within 10 s; its status, or -1 on none. */
static int wait_wc(struct ibv_cq *cq, struct ibv_wc *wc)
{
	double end = vt_now_ms() + 10000;
	int n;

	do {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n < 0 ? -1 : (int)wc->status;
	} while (vt_now_ms() < end);
	return -1;
}

static int post_send(struct side *s, enum ibv_wr_opcode op, uint32_t lkey,
		     uint64_t addr, uint32_t len, uint32_t rkey, uint64_t raddr)
{
	struct ibv_sge sge = { .addr = addr, .length = len, .lkey = lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 5;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	return ibv_post_send(s->qp, &wr, &bad);
}

static int post_recv(struct side *s, uint32_t lkey, uint64_t addr,
		     uint32_t len)
{
	struct ibv_sge sge = { .addr = addr, .length = len, .lkey = lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;

	return ibv_post_recv(s->qp, &wr, &bad);
}

static void fill(uint8_t *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 131 + (i >> 9));
}

/* A dumb buffer of the vgem DRM driver, exported as a dma-buf. */
static int vgem_export(size_t size)
{
	struct mroce_drm_create_dumb c = {
		.width = 1024, .bpp = 32, .height = size / 4096,
	};
	struct mroce_drm_prime_handle h = { .flags = O_CLOEXEC | O_RDWR };

	if (ioctl(drm_fd, MROCE_DRM_IOCTL_MODE_CREATE_DUMB, &c))
		return -1;
	h.handle = c.handle;
	if (ioctl(drm_fd, MROCE_DRM_IOCTL_PRIME_HANDLE_TO_FD, &h))
		return -1;
	return h.fd;
}

static int dbx_export(size_t size)
{
	struct mroce_dbx_create c = { .size = size };

	return ioctl(dbx_fd, MROCE_DBX_CREATE, &c) ? -1 : c.fd;
}

/* The first card of the vgem driver. */
static int vgem_open(void)
{
	char path[32], name[16];
	int i, fd;

	for (i = 0; i < 16; i++) {
		struct mroce_drm_version v = { .name = name, .name_len = 15 };

		snprintf(path, sizeof(path), "/dev/dri/card%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		memset(name, 0, sizeof(name));
		if (!ioctl(fd, MROCE_DRM_IOCTL_VERSION, &v) && !strcmp(name, "vgem"))
			return fd;
		close(fd);
	}
	return -1;
}

/* A new buffer, zeroed, mapped, with a region on side A; or bail out. */
static void dbuf_new(struct dbuf *d)
{
	d->fd = drm_fd >= 0 ? vgem_export(BUF_SIZE) : dbx_export(BUF_SIZE);
	if (d->fd < 0)
		vt_bail("export a dma-buf");
	d->view = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		       d->fd, 0);
	if (d->view == MAP_FAILED)
		vt_bail("mmap the dma-buf");
	memset(d->view, 0, BUF_SIZE);
	d->mr = ibv_reg_dmabuf_mr(A.pd, REG_OFF, REG_LEN, REG_IOVA, d->fd,
				  ALL_ACCESS);
	if (!d->mr)
		vt_bail("ibv_reg_dmabuf_mr");
}

static void dbuf_free(struct dbuf *d)
{
	if (d->mr && ibv_dereg_mr(d->mr))
		vt_bail("ibv_dereg_mr");
	munmap(d->view, BUF_SIZE);
	close(d->fd);
}

/* The CPU's view of region address @iova. */
static uint8_t *at(struct dbuf *d, uint64_t iova)
{
	return d->view + REG_OFF + (iova - REG_IOVA);
}

/* Nothing outside [@from, @from + @len) of the buffer is set. */
static bool only_in(struct dbuf *d, uint8_t *from, size_t len)
{
	size_t i, lo = from - d->view;

	for (i = 0; i < BUF_SIZE; i++)
		if ((i < lo || i >= lo + len) && d->view[i])
			return false;
	return true;
}

/* One transfer that must complete on @s with success. */
static bool ok_wc(struct side *s, const char *what)
{
	struct ibv_wc wc;
	int st = wait_wc(s->cq, &wc);

	if (st == IBV_WC_SUCCESS)
		return true;
	snprintf(vt_why, sizeof(vt_why), "%s: %s completion %s", what, s->name,
		 st < 0 ? "missing" : ibv_wc_status_str(st));
	return false;
}

/* One transfer's result; @why, or @dflt when nothing set it. */
static void report(bool ok, const char *what, const char *dflt)
{
	vt_result(ok, what, ok || *vt_why ? vt_why : dflt);
	*vt_why = 0;
}

static void t_remote(struct dbuf *d)
{
	uint64_t va = REG_IOVA + 123;
	bool ok;

	fill(bbuf, XFER, 1);
	ok = !post_send(&B, IBV_WR_RDMA_WRITE, bmr->lkey, (uintptr_t)bbuf,
			XFER, d->mr->rkey, va) && ok_wc(&B, "write");
	ok = ok && !memcmp(at(d, va), bbuf, XFER) &&
	     only_in(d, at(d, va), XFER);
	report(ok, "RDMA WRITE into a dma-buf region: bytes land, nowhere else",
	       "data differs");

	fill(at(d, REG_IOVA), REG_LEN, 2);
	memset(bbuf, 0, REG_LEN);
	ok = !post_send(&B, IBV_WR_RDMA_READ, bmr->lkey, (uintptr_t)bbuf,
			REG_LEN, d->mr->rkey, REG_IOVA) && ok_wc(&B, "read");
	ok = ok && !memcmp(at(d, REG_IOVA), bbuf, REG_LEN);
	report(ok, "RDMA READ of a whole dma-buf region (128 KiB)",
	       "data differs");

	memset(at(d, REG_IOVA), 0, REG_LEN);
	*(uint64_t *)at(d, REG_IOVA + 4092) = 37;
	ok = !post_send(&B, IBV_WR_ATOMIC_FETCH_AND_ADD, bmr->lkey,
			(uintptr_t)bbuf, 8, d->mr->rkey, REG_IOVA + 4092) &&
	     ok_wc(&B, "fetch-add");
	ok = ok && *(uint64_t *)bbuf == 37 &&
	     *(uint64_t *)at(d, REG_IOVA + 4092) == 42;
	report(ok, "FETCH_ADD on a dma-buf region",
	       "wrong values");
}

static void t_local(struct dbuf *d)
{
	uint64_t va = REG_IOVA + 7;
	bool ok;

	fill(at(d, va), XFER, 3);
	memset(bbuf, 0, XFER);
	ok = !post_recv(&B, bmr->lkey, (uintptr_t)bbuf, XFER) &&
	     !post_send(&A, IBV_WR_SEND, d->mr->lkey, va, XFER, 0, 0) &&
	     ok_wc(&A, "send") && ok_wc(&B, "recv");
	ok = ok && !memcmp(at(d, va), bbuf, XFER);
	report(ok, "SEND gathered from a dma-buf region",
	       "data differs");

	memset(d->view, 0, BUF_SIZE);
	fill(bbuf, XFER, 4);
	ok = !post_recv(&A, d->mr->lkey, va, XFER) &&
	     !post_send(&B, IBV_WR_SEND, bmr->lkey, (uintptr_t)bbuf, XFER,
			0, 0) &&
	     ok_wc(&B, "send") && ok_wc(&A, "recv");
	ok = ok && !memcmp(at(d, va), bbuf, XFER) &&
	     only_in(d, at(d, va), XFER);
	report(ok, "SEND received into a dma-buf region",
	       "data differs");

	fill(at(d, va), XFER, 5);
	memset(bbuf, 0, XFER);
	ok = !post_send(&A, IBV_WR_RDMA_WRITE, d->mr->lkey, va, XFER,
			bmr->rkey, (uintptr_t)bbuf) && ok_wc(&A, "write");
	ok = ok && !memcmp(at(d, va), bbuf, XFER);
	report(ok, "RDMA WRITE sourced from a dma-buf region",
	       "data differs");

	memset(d->view, 0, BUF_SIZE);
	fill(bbuf, XFER, 6);
	ok = !post_send(&A, IBV_WR_RDMA_READ, d->mr->lkey, va, XFER,
			bmr->rkey, (uintptr_t)bbuf) && ok_wc(&A, "read");
	ok = ok && !memcmp(at(d, va), bbuf, XFER) &&
	     only_in(d, at(d, va), XFER);
	report(ok, "RDMA READ responses scattered into a dma-buf region",
	       "data differs");
}

static void t_register_errors(void)
{
	int fd = drm_fd >= 0 ? vgem_export(BUF_SIZE) : dbx_export(BUF_SIZE);
	struct ibv_mr *mr;
	bool ok;

	mr = ibv_reg_dmabuf_mr(A.pd, BUF_SIZE - 4096, 8192, 0, fd,
			       ALL_ACCESS);
	ok = !mr && errno == EINVAL;
	vt_result(ok, "a region past the end of the buffer is refused (EINVAL)",
		  mr ? "registered" : strerror(errno));
	if (mr)
		ibv_dereg_mr(mr);
	mr = ibv_reg_dmabuf_mr(A.pd, 0, 4096, 0, A.ctx->cmd_fd, ALL_ACCESS);
	ok = !mr;
	vt_result(ok, "a file that is no dma-buf is refused",
		  mr ? "registered" : NULL);
	if (mr)
		ibv_dereg_mr(mr);
	close(fd);
}

static bool dbx_state(int fd, unsigned long req, struct mroce_dbx_state *st)
{
	memset(st, 0, sizeof(*st));
	st->fd = fd;
	return !ioctl(dbx_fd, req, st);
}

/* Deregister @d's region; the exporter must then hold nothing for it. */
static bool dereg_released(struct dbuf *d)
{
	struct mroce_dbx_state st;
	bool ok = !ibv_dereg_mr(d->mr);

	d->mr = NULL;
	ok = ok && dbx_state(d->fd, MROCE_DBX_QUERY, &st);
	snprintf(vt_why, sizeof(vt_why),
		 "attachments %u pins %u vmaps %u maps %u",
		 st.attachments, st.pins, st.vmaps, st.maps);
	return ok && !st.attachments && !st.pins && !st.vmaps && !st.maps;
}

enum rev_op { REV_WRITE, REV_READ, REV_SEND_FROM, REV_RECV_INTO };

/* Post @op against the revoked region of @d; the side that must fail. */
static struct side *revoked_post(struct dbuf *d, enum rev_op op, bool *ok)
{
	uint64_t va = REG_IOVA + 64;

	fill(bbuf, XFER, 7);
	switch (op) {
	case REV_WRITE:
	case REV_READ:
		*ok = !post_send(&B, op == REV_WRITE ? IBV_WR_RDMA_WRITE :
				 IBV_WR_RDMA_READ, bmr->lkey, (uintptr_t)bbuf,
				 XFER, d->mr->rkey, va);
		return &B;
	case REV_SEND_FROM:
		*ok = !post_recv(&B, bmr->lkey, (uintptr_t)bbuf, XFER) &&
		      !post_send(&A, IBV_WR_SEND, d->mr->lkey, va, XFER, 0, 0);
		return &A;
	case REV_RECV_INTO:
		*ok = !post_recv(&A, d->mr->lkey, va, XFER) &&
		      !post_send(&B, IBV_WR_SEND, bmr->lkey, (uintptr_t)bbuf,
				 XFER, 0, 0);
		return &A;
	}
	return NULL;
}

/* After the revocation, @op must fail with @want and change nothing. */
static void t_revoked_op(struct dbuf *d, const char *what, enum rev_op op,
			 enum ibv_wc_status want)
{
	struct ibv_wc wc;
	struct side *s;
	bool ok;
	int st;

	s = revoked_post(d, op, &ok);
	st = ok ? wait_wc(s->cq, &wc) : -1;
	ok = st == (int)want && *at(d, REG_IOVA) == 0xee &&
	     !memcmp(at(d, REG_IOVA), at(d, REG_IOVA + 1), REG_LEN - 1);
	snprintf(vt_why, sizeof(vt_why), "%s completion %s, want %s", s->name,
		 st < 0 ? "missing" : ibv_wc_status_str(st),
		 ibv_wc_status_str(want));
	vt_result(ok, what, vt_why);
	reconnect();
}

static void t_revoke(void)
{
	struct mroce_dbx_state st;
	struct dbuf d;
	bool ok;

	dbuf_new(&d);
	memset(at(&d, REG_IOVA), 0xee, REG_LEN);
	ok = dbx_state(d.fd, MROCE_DBX_QUERY, &st) && st.attachments == 1 &&
	     st.pins == 1 && st.vmaps == 1;
	snprintf(vt_why, sizeof(vt_why), "attachments %u pins %u vmaps %u",
		 st.attachments, st.pins, st.vmaps);
	vt_result(ok, "a registered region attaches, pins and maps the buffer once",
		  vt_why);
	ok = dbx_state(d.fd, MROCE_DBX_REVOKE, &st) && st.notified == 1;
	vt_result(ok, "the exporter revokes the buffer (move_notify to 1 importer)",
		  strerror(errno));

	t_revoked_op(&d, "RDMA WRITE into a revoked region: remote access error",
		     REV_WRITE, IBV_WC_REM_ACCESS_ERR);
	t_revoked_op(&d, "RDMA READ of a revoked region: remote access error",
		     REV_READ, IBV_WC_REM_ACCESS_ERR);
	t_revoked_op(&d, "SEND gathered from a revoked region: local protection error",
		     REV_SEND_FROM, IBV_WC_LOC_PROT_ERR);
	t_revoked_op(&d, "SEND received into a revoked region: local protection error",
		     REV_RECV_INTO, IBV_WC_LOC_PROT_ERR);

	ok = dereg_released(&d);
	vt_result(ok, "deregistering a revoked region releases everything", vt_why);
	dbuf_free(&d);
}

/* The revoking thread of t_revoke_busy(): after @stream_good WRITEs. */
static int stream_good;

static void *revoker(void *arg)
{
	struct dbuf *d = arg;
	struct mroce_dbx_state st;

	while (__atomic_load_n(&stream_good, __ATOMIC_ACQUIRE) < 50)
		sched_yield();
	return dbx_state(d->fd, MROCE_DBX_REVOKE, &st) ? arg : NULL;
}

/*
 * A stream of WRITEs, 8 in flight, while another thread revokes the
 * region: the WRITEs before succeed, the first one after fails with a
 * remote access error (the QP then flushes the rest), none does anything
 * else.
 */
static void t_revoke_busy(void)
{
	int i, posted = 0, done = 0, first_bad = IBV_WC_SUCCESS;
	struct ibv_wc wc;
	pthread_t th;
	struct dbuf d;
	void *res;
	bool ok;

	dbuf_new(&d);
	fill(bbuf, 16384, 8);
	stream_good = 0;
	if (pthread_create(&th, NULL, revoker, &d))
		vt_bail("pthread_create");
	while (first_bad == IBV_WC_SUCCESS && posted < 20000) {
		while (posted - done < 8 &&
		       !post_send(&B, IBV_WR_RDMA_WRITE, bmr->lkey,
				  (uintptr_t)bbuf, 16384, d.mr->rkey,
				  REG_IOVA + (posted % 7) * 16384))
			posted++;
		first_bad = wait_wc(B.cq, &wc);
		done++;
		if (first_bad == IBV_WC_SUCCESS)
			__atomic_store_n(&stream_good, done, __ATOMIC_RELEASE);
	}
	/* Wake the revoker if the stream ended early, then reap it. */
	__atomic_store_n(&stream_good, 50, __ATOMIC_RELEASE);
	ok = !pthread_join(th, &res) && res;
	for (i = done; i < posted; i++) {
		int st = wait_wc(B.cq, &wc);

		ok = ok && st == IBV_WC_WR_FLUSH_ERR;
	}
	ok = ok && first_bad == IBV_WC_REM_ACCESS_ERR && done > 50;
	snprintf(vt_why, sizeof(vt_why), "%d WRITEs succeeded, then status %d",
		 done - 1, first_bad);
	vt_result(ok, "revocation amid a stream of WRITEs: they succeed, then a remote access error",
		  vt_why);
	printf("# %d WRITEs landed before the revocation took effect\n",
	       done - 1);
	reconnect();
	ok = dereg_released(&d);
	vt_result(ok, "deregistering releases the buffer", vt_why);
	dbuf_free(&d);
}

static void release_check(void)
{
	struct dbuf d;

	dbuf_new(&d);
	vt_result(dereg_released(&d),
		  "dereg of a live region releases attachment, pin and mapping",
		  vt_why);
	dbuf_free(&d);
}

int main(int argc, char **argv)
{
	struct dbuf d;
	int c;

	while ((c = getopt(argc, argv, "a:g:b:G:x:")) != -1) {
		switch (c) {
		case 'a': A.name = optarg; break;
		case 'g': A.gid_idx = atoi(optarg); break;
		case 'b': B.name = optarg; break;
		case 'G': B.gid_idx = atoi(optarg); break;
		case 'x': source = optarg; break;
		default: return 2;
		}
	}
	if (!A.name || !B.name || !source)
		return 2;
	if (!strcmp(source, "vgem"))
		drm_fd = vgem_open();
	else
		dbx_fd = open("/dev/mroce_dbx", O_RDWR | O_CLOEXEC);
	if (drm_fd < 0 && dbx_fd < 0)
		vt_bail(source);
	side_open(&A);
	side_open(&B);
	bbuf = aligned_alloc(4096, REG_LEN);
	bmr = bbuf ? ibv_reg_mr(B.pd, bbuf, REG_LEN, ALL_ACCESS) : NULL;
	if (!bmr)
		vt_bail("ibv_reg_mr");
	side_connect(&A, &B);
	side_connect(&B, &A);

	dbuf_new(&d);
	t_remote(&d);
	t_local(&d);
	dbuf_free(&d);
	t_register_errors();
	if (dbx_fd >= 0) {
		release_check();
		t_revoke();
		t_revoke_busy();
	}
	return vt_plan();
}
