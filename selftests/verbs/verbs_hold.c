// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Create one object of every type on a MetaRoCE device, with work requests
 * queued on the rings, and be SIGKILLed holding them.  kill.sh checks that
 * nothing leaks.
 *
 *   verbs_hold IBDEV GID_INDEX
 *	create everything, print "ready" and wait to be killed;
 *   verbs_hold -c CYCLES IBDEV GID_INDEX
 *	CYCLES times: fork a child that opens the device and creates
 *	everything, SIGKILL it and reap it.  Every fourth child is killed
 *	while it is still creating (after a random part of the time a full
 *	creation takes).  libibverbs is initialised once, in the parent
 *	(device list, provider loading, sysfs scan): a cycle costs a fork,
 *	not an exec, which makes 1000 cycles affordable under TCG.
 *
 * The parent never opens the device, so the child's objects die with it.
 *
 *   verbs_hold -n NTH IBDEV GID_INDEX
 *	as the first form, with the NTH fault-injection site the process
 *	reaches from ibv_open_device on failing (/proc/thread-self/fail-nth,
 *	CONFIG_FAULT_INJECTION: with failslab, the NTH slab allocation made
 *	for it); "fail-nth left K" before "ready" says how many sites were
 *	still to come (0: the failure was injected and the creation got past
 *	it).  failslab.sh sweeps NTH.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <infiniband/verbs.h>

#include "../verbs_test.h"

static struct ibv_qp *mkqp(struct ibv_pd *pd, struct ibv_cq *cq,
			   struct ibv_srq *srq, enum ibv_qp_type type)
{
	struct ibv_qp_cap cap = {
		.max_send_wr = 64, .max_recv_wr = 64,
		.max_send_sge = 2, .max_recv_sge = 2, .max_inline_data = 64,
	};

	return vt_create_qp(pd, cq, srq, type, &cap);
}

static int die(const char *what)
{
	fprintf(stderr, "verbs_hold: %s failed\n", what);
	return 1;
}

#define FAIL_NTH "/proc/thread-self/fail-nth"

static int fail_nth;

/* Make the fail_nth-th fault-injection site from now on fail. */
static int arm_fail_nth(void)
{
	FILE *f = fopen(FAIL_NTH, "w");
	int ok;

	if (!f)
		return -1;
	ok = fprintf(f, "%d", fail_nth) > 0;
	return fclose(f) || !ok ? -1 : 0;
}

/* With -n: "fail-nth left K" to @fd, K the sites still to come. */
static int nth_left(int fd)
{
	char line[64];
	int left = -1, len;
	FILE *f;

	if (!fail_nth)
		return 0;
	f = fopen(FAIL_NTH, "r");
	if (f) {
		if (fscanf(f, "%d", &left) != 1)
			left = -1;
		fclose(f);
	}
	len = snprintf(line, sizeof(line), "fail-nth left %d\n", left);
	return write(fd, line, len) != len;
}

/*
 * Open @dev and create one object of every type; write "ready\n" to
 * @ready_fd and wait for SIGKILL.  Returns only on failure.
 */
static int hold(struct ibv_device *dev, int gid_index, int ready_fd)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qp_access_flags = IBV_ACCESS_REMOTE_WRITE };
	struct ibv_srq_init_attr sia = { .attr = { .max_wr = 64, .max_sge = 2 } };
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct ibv_recv_wr rwr = {}, *rbad;
	struct ibv_comp_channel *ch;
	struct ibv_qp *rc, *uc, *ud, *srq_qp;
	struct ibv_context *ctx;
	struct ibv_cq *cq, *cq2;
	struct ibv_srq *srq;
	struct ibv_sge sge;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_ah *ah;
	size_t len = 1 << 20;
	char *buf;
	int i;

	if (fail_nth && arm_fail_nth())
		return die("write " FAIL_NTH);
	ctx = ibv_open_device(dev);
	if (!ctx)
		return die("open");
	aa.grh.sgid_index = gid_index;
	aa.grh.hop_limit = 1;
	if (vt_port_gid(ctx, aa.grh.sgid_index, &aa.grh.dgid, NULL))
		return die("query_gid");
	buf = aligned_alloc(4096, len);
	ch = ibv_create_comp_channel(ctx);
	pd = ibv_alloc_pd(ctx);
	mr = pd ? ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE |
			     IBV_ACCESS_REMOTE_WRITE) : NULL;
	cq = ibv_create_cq(ctx, 256, NULL, ch, 0);
	cq2 = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!buf || !ch || !pd || !mr || !cq || !cq2)
		return die("pd/mr/cq");
	ibv_req_notify_cq(cq, 0);
	srq = ibv_create_srq(pd, &sia);
	rc = mkqp(pd, cq, NULL, IBV_QPT_RC);
	uc = mkqp(pd, cq, NULL, IBV_QPT_UC);
	ud = mkqp(pd, cq2, NULL, IBV_QPT_UD);
	srq_qp = srq ? mkqp(pd, cq, srq, IBV_QPT_RC) : NULL;
	ah = ibv_create_ah(pd, &aa);
	if (!srq || !rc || !uc || !ud || !srq_qp || !ah)
		return die("srq/qp/ah");
	if (vt_qp_init(rc, IBV_ACCESS_REMOTE_WRITE) ||
	    vt_qp_init(uc, IBV_ACCESS_REMOTE_WRITE))
		return die("modify rc/uc");
	a.qkey = 0x11111111;
	if (ibv_modify_qp(ud, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		return die("modify ud");
	/* Work requests left on the rings when the process dies. */
	sge = (struct ibv_sge){ (uintptr_t)buf, 4096, mr->lkey };
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	for (i = 0; i < 8; i++) {
		rwr.wr_id = i;
		if (ibv_post_recv(rc, &rwr, &rbad) ||
		    ibv_post_recv(uc, &rwr, &rbad) ||
		    ibv_post_srq_recv(srq, &rwr, &rbad))
			return die("post_recv");
	}
	if (nth_left(ready_fd) || write(ready_fd, "ready\n", 6) != 6)
		return die("write");
	for (;;)
		pause();
}

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* Wait up to @ms for the child's "ready": 1 if it came, 0 if not. */
static int wait_ready(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char line[8];

	while (poll(&p, 1, ms) < 0)
		if (errno != EINTR)
			return 0;
	return read(fd, line, sizeof(line)) == 6 && !memcmp(line, "ready\n", 6);
}

/* The fork/kill loop; prints a summary, returns the exit status. */
static int cycles(struct ibv_device *dev, int gid_index, int n)
{
	long long t0 = now_us(), create_us = 0, t;
	int i, ready = 0, early = 0, bad = 0, status;

	srand(getpid());
	for (i = 0; i < n; i++) {
		bool mid = i % 4 == 3 && ready > 0, ok = true;
		int fds[2];
		pid_t pid;

		if (pipe(fds))
			return die("pipe");
		t = now_us();
		pid = fork();
		if (pid < 0)
			return die("fork");
		if (!pid) {
			close(fds[0]);
			_exit(hold(dev, gid_index, fds[1]));
		}
		close(fds[1]);
		if (mid) {
			/* Somewhere between fork and the average "ready". */
			usleep(rand() % (create_us / ready + 1));
			early++;
		} else if (wait_ready(fds[0], 10000)) {
			create_us += now_us() - t;
			ready++;
		} else {
			ok = false;
		}
		kill(pid, SIGKILL);
		if (waitpid(pid, &status, 0) != pid)
			return die("waitpid");
		/* A child that died of anything but our SIGKILL failed. */
		if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
			ok = false;
		bad += !ok;
		close(fds[0]);
	}
	t = now_us() - t0;
	printf("# %d cycles in %lld ms (%lld ms each): %d ready, %d killed mid-creation, %d bad; creation takes %lld ms\n",
	       n, t / 1000, t / 1000 / (n ? n : 1), ready, early, bad,
	       create_us / 1000 / (ready ? ready : 1));
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct ibv_device **list, *dev = NULL;
	int i, n = 0, opt;

	while ((opt = getopt(argc, argv, "c:n:")) != -1) {
		if (opt == 'c')
			n = atoi(optarg);
		else if (opt == 'n')
			fail_nth = atoi(optarg);
		else
			return die("usage: verbs_hold [-c CYCLES | -n NTH] IBDEV GID_INDEX;");
	}
	if (argc - optind < 2 || (n && fail_nth))
		return die("usage: verbs_hold [-c CYCLES | -n NTH] IBDEV GID_INDEX;");
	list = ibv_get_device_list(NULL);
	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[optind]))
			dev = list[i];
	if (!dev)
		return die("find device");
	if (!n) {
		setvbuf(stdout, NULL, _IONBF, 0);
		return hold(dev, atoi(argv[optind + 1]), STDOUT_FILENO);
	}
	return cycles(dev, atoi(argv[optind + 1]), n);
}
