// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * mroce_dpcheck: move data between two RDMA devices with every RC opcode
 * and check it, which perftest does not.  One process opens both devices
 * (RDMA devices are visible from every namespace) and connects an RC QP on
 * each; every iteration picks an opcode, a direction, a length, offsets and
 * an SGE layout (1-4 SGEs over two memory regions, inline when it fits) at
 * random, fills source and destination with different random bytes, runs
 * the work request and compares an FNV-1a checksum of what the source
 * gathered with one of what the destination received, and the completions
 * (status, opcode, byte_len, immediate) on both sides.
 *
 *   mroce_dpcheck -a DEV -g GIDIDX -b DEV -G GIDIDX [-n ITERS] [-s SEED] [-u]
 *                 [-o OPS] [-T TIMEOUT]
 *
 * SIGUSR1 ends the run after the iteration under way, as if -n had said
 * so: faults.sh runs traffic until a fault is over.
 *
 * -T sets the local ACK timeout (IBTA encoding, 4.096 us << TIMEOUT;
 * default 14, 67 ms) of both QPs; with 7 retries a fault shorter than 8
 * timeouts is recovered from, a longer one ends in RETRY_EXC_ERR
 * (faults.sh).
 * -o limits the opcodes to a comma-separated list of send, write, read and
 * atomic (SEND/SEND_IMM, WRITE/WRITE_IMM, READ, CMP_SWP/FETCH_ADD), for the
 * loss tests that look at one kind of request at a time.
 *
 * -u connects UC QPs instead (IBTA 9.7: SEND, SEND_IMM, WRITE and WRITE_IMM
 * only, no ACK attributes in modify_qp).
 *
 *   mroce_dpcheck -a DEV -g GIDIDX -b DEV -G GIDIDX -W MIB [-n WRITES]
 *
 *   mroce_dpcheck -a DEV -g GIDIDX -b DEV -G GIDIDX -S [-Q [-E]] [-n SENDS]
 *                 [-s SEED]
 *
 * -S streams SENDs (some with immediate data) from a to b instead, up to
 * STREAM_DEPTH of them in flight with their receive WQEs posted ahead, of
 * random lengths up to 4 KiB (a few packets each): a receiver that places
 * the packets of later messages while an earlier one waits for a resend
 * must put each in the receive WQE its message takes.  Every receive
 * completion is checked in order (wr_id, byte_len, immediate) and its
 * buffer against the bytes that message carried.
 *
 * -Q posts b's receive WQEs to an SRQ instead of its QP's receive queue.
 * -E then moves both QPs to ERR now and then (STREAM_ERR_EVERY), with
 * SENDs in flight: b's completions must go on in order, the WQEs its
 * QP had taken (the message in progress and any it took ahead for later
 * messages) flushed, each exactly once; the rest stay in the SRQ.  Both
 * QPs are then reset and connected again, and the stream goes on from
 * the first WQE left in the SRQ, which the next SENDs must land in.  The
 * last line counts the flushed WQEs and the most one QP held at once.
 *
 * -W measures instead: 64 KiB WRITEs into a MIB-sized region of b, at its
 * start and at its end, alternately in four rounds; the goodput of both
 * must be the same within noise (the data path finds a page in O(1) of its
 * offset).  The data of the last WRITE of each is checked.
 *
 * Exit status 0 when every iteration checked out; one line per failure.
 */
#include <getopt.h>
#include <signal.h>
#include <inttypes.h>
#include <sys/mman.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "../verbs_test.h"

#define BUF_SIZE	(1u << 20)	/* per side: two MRs of 512 KiB */
#define SLOT_SIZE	(128u << 10)	/* SGEs never share a slot */
#define NSLOTS		(BUF_SIZE / SLOT_SIZE)
#define MAX_LEN		(96u << 10)
#define MAX_SGE		4
#define MAX_INLINE	128

struct side {
	const char *name;
	int gid_idx;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_srq *srq;
	struct ibv_mr *mr[2];
	uint8_t *buf;
	union ibv_gid gid;
	enum ibv_mtu mtu;
	uint32_t psn;
};

static unsigned int seed;
static int failures;
/* SIGUSR1: end after the current iteration (faults.sh) */
static volatile sig_atomic_t stop;
static bool uc;
/* -Q: b receives through an SRQ; -E: and its QP errs now and then */
static bool use_srq, errs;
/* IP traffic class (DSCP and ECN bits) of both QPs' paths, -t */
static unsigned int tclass;
/* Local ACK timeout of both QPs, -T */
static unsigned int ack_timeout = 14;
/* Opcodes (indexes of op_names) an iteration may pick, -o */
static unsigned int op_mask = 0x7f;

static void on_usr1(int sig)
{
	stop = 1;
}

static uint32_t rnd(uint32_t n)
{
	return n ? (uint32_t)(rand_r(&seed) % n) : 0;
}

static void fill(uint8_t *p, size_t len)
{
	while (len--)
		*p++ = rand_r(&seed);
}

static uint64_t fnv_add(uint64_t h, const uint8_t *p, size_t len)
{
	while (len--)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return h;
}

#define FNV_INIT 0xcbf29ce484222325ULL

static void setup(struct side *s, bool want_srq)
{
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	struct ibv_qp_cap cap = {
		.max_send_wr = 64, .max_recv_wr = 64,
		.max_send_sge = MAX_SGE, .max_recv_sge = MAX_SGE,
		.max_inline_data = MAX_INLINE,
	};

	s->ctx = vt_open_dev(s->name);
	if (!s->ctx)
		vt_bail(s->name);
	s->pd = ibv_alloc_pd(s->ctx);
	s->cq = ibv_create_cq(s->ctx, 256, NULL, NULL, 0);
	if (posix_memalign((void **)&s->buf, 4096, BUF_SIZE) || !s->pd || !s->cq)
		vt_bail("alloc");
	s->mr[0] = ibv_reg_mr(s->pd, s->buf, BUF_SIZE / 2, access);
	s->mr[1] = ibv_reg_mr(s->pd, s->buf + BUF_SIZE / 2, BUF_SIZE / 2,
			      access);
	if (want_srq) {
		struct ibv_srq_init_attr sa = {
			.attr = { .max_wr = 64, .max_sge = MAX_SGE },
		};

		s->srq = ibv_create_srq(s->pd, &sa);
		if (!s->srq)
			vt_bail("create_srq");
	}
	s->qp = vt_create_qp(s->pd, s->cq, s->srq,
			     uc ? IBV_QPT_UC : IBV_QPT_RC, &cap);
	if (!s->mr[0] || !s->mr[1] || !s->qp)
		vt_bail("mr/qp");
	if (vt_port_gid(s->ctx, s->gid_idx, &s->gid, &s->mtu))
		vt_bail("query");
	s->psn = rnd(1u << 24);
}

static void connect_qp(struct side *s, struct side *peer)
{
	struct vt_conn c = {
		.mtu = s->mtu < peer->mtu ? s->mtu : peer->mtu,
		.rq_psn = peer->psn, .sq_psn = s->psn, .rd_atomic = 16,
		.min_rnr_timer = 12, .timeout = ack_timeout, .retry_cnt = 7,
		.rnr_retry = 7, .traffic_class = tclass, .uc = uc,
	};

	if (vt_qp_init(s->qp, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			      IBV_ACCESS_REMOTE_ATOMIC))
		vt_bail("INIT");
	if (vt_connect(s->qp, &peer->gid, s->gid_idx, peer->qp->qp_num, &c))
		vt_bail("RTR/RTS");
}

/* Random SGEs over distinct slots of @s's buffer, @len bytes in all. */
static int make_sges(struct side *s, uint32_t len, struct ibv_sge *sge)
{
	int n = len ? 1 + rnd(MAX_SGE) : 1, i, slots[NSLOTS], k;
	uint32_t left = len;

	for (i = 0; i < (int)NSLOTS; i++)
		slots[i] = i;
	for (i = 0; i < (int)NSLOTS; i++) {
		k = rnd(NSLOTS);
		int t = slots[i];

		slots[i] = slots[k];
		slots[k] = t;
	}
	for (i = 0; i < n; i++) {
		uint32_t piece = i == n - 1 ? left : rnd(left + 1);
		uint32_t off = rnd(SLOT_SIZE - piece + 1);
		uint32_t at = slots[i] * SLOT_SIZE + off;

		sge[i].addr = (uintptr_t)(s->buf + at);
		sge[i].length = piece;
		sge[i].lkey = s->mr[at >= BUF_SIZE / 2]->lkey;
		left -= piece;
	}
	return n;
}

static uint64_t sge_sum(const struct ibv_sge *sge, int n, uint32_t limit)
{
	uint64_t h = FNV_INIT;
	int i;

	for (i = 0; i < n && limit; i++) {
		uint32_t l = sge[i].length < limit ? sge[i].length : limit;

		h = fnv_add(h, (uint8_t *)(uintptr_t)sge[i].addr, l);
		limit -= l;
	}
	return h;
}

static void sge_fill(const struct ibv_sge *sge, int n)
{
	int i;

	for (i = 0; i < n; i++)
		fill((uint8_t *)(uintptr_t)sge[i].addr, sge[i].length);
}

static int poll_one(struct side *s, struct ibv_wc *wc)
{
	struct timespec t0, t;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		n = ibv_poll_cq(s->cq, 1, wc);
		if (n)
			return n < 0 ? -1 : 0;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 20)
			return -1;
	}
}

static const char *const op_names[] = {
	"SEND", "SEND_IMM", "WRITE", "WRITE_IMM", "READ", "CMP_SWP",
	"FETCH_ADD",
};

/* A random opcode among those -o (and -u: UC has no READ or atomics) allow. */
static int pick_op(void)
{
	unsigned int mask = uc ? op_mask & 0xf : op_mask;
	int op;

	do
		op = rnd(7);
	while (!(mask & (1u << op)));
	return op;
}

/* -o: "send,write,read,atomic" (any subset) to a mask of op_names. */
static int parse_ops(char *list)
{
	static const struct { const char *name; unsigned int mask; } kinds[] = {
		{ "send", 0x03 }, { "write", 0x0c }, { "read", 0x10 },
		{ "atomic", 0x60 },
	};
	char *tok, *save = NULL;
	unsigned int i;

	op_mask = 0;
	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
			if (!strcmp(tok, kinds[i].name))
				break;
		if (i == sizeof(kinds) / sizeof(kinds[0]))
			return -1;
		op_mask |= kinds[i].mask;
	}
	return op_mask ? 0 : -1;
}

#define FAIL(fmt, ...) do { \
	printf("FAIL iter %d %s %s->%s len %u: " fmt "\n", it, op_names[op], \
	       src->name, dst->name, len, ##__VA_ARGS__); \
	failures++; \
	return -1; \
} while (0)

static int one(int it, struct side *src, struct side *dst)
{
	struct ibv_sge lsge[MAX_SGE], rsge[MAX_SGE];
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_recv_wr rwr = {}, *rbad;
	int op = pick_op(), nl, nr = 0, i;
	uint32_t len = rnd(4) ? rnd(MAX_LEN) : rnd(64);
	uint32_t imm = rnd(UINT32_MAX), roff, rmr;
	bool recv = op <= 1 || op == 3;
	uint64_t want = 0, got, old = 0, *target = NULL;
	struct ibv_wc wc, rwc;
	uint8_t *remote;

	if (op >= 5)
		len = 8;
	nl = make_sges(src, len, lsge);
	if (op >= 5) {
		/* The original value lands in one 8-byte buffer (IBTA 9.4.5). */
		lsge[0].addr &= ~7ull;
		lsge[0].length = 8;
		nl = 1;
	}
	rmr = rnd(2);
	roff = rnd(BUF_SIZE / 2 - len + 1) & (op >= 5 ? ~7u : ~0u);
	remote = dst->buf + rmr * (BUF_SIZE / 2) + roff;
	sge_fill(lsge, nl);
	fill(remote, len);
	if (recv) {
		uint32_t rlen = op == 3 ? 0 : len + rnd(100);

		nr = make_sges(dst, rlen, rsge);
		sge_fill(rsge, nr);
		rwr.wr_id = 2;
		rwr.sg_list = rsge;
		rwr.num_sge = op == 3 ? 0 : nr;
		if (ibv_post_recv(dst->qp, &rwr, &rbad))
			FAIL("post_recv");
	}

	wr.wr_id = 1;
	wr.sg_list = lsge;
	wr.num_sge = nl;
	wr.send_flags = IBV_SEND_SIGNALED;
	if (op <= 3 && len <= MAX_INLINE && rnd(2))
		wr.send_flags |= IBV_SEND_INLINE;
	wr.imm_data = htobe32(imm);
	wr.wr.rdma.remote_addr = (uintptr_t)remote;
	wr.wr.rdma.rkey = dst->mr[rmr]->rkey;
	switch (op) {
	case 0: wr.opcode = IBV_WR_SEND; break;
	case 1: wr.opcode = IBV_WR_SEND_WITH_IMM; break;
	case 2: wr.opcode = IBV_WR_RDMA_WRITE; break;
	case 3: wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM; break;
	case 4: wr.opcode = IBV_WR_RDMA_READ; break;
	default:
		target = (uint64_t *)remote;
		old = *target;
		wr.opcode = op == 5 ? IBV_WR_ATOMIC_CMP_AND_SWP :
				      IBV_WR_ATOMIC_FETCH_AND_ADD;
		wr.wr.atomic.remote_addr = (uintptr_t)remote;
		wr.wr.atomic.rkey = dst->mr[rmr]->rkey;
		wr.wr.atomic.compare_add = op == 5 && rnd(2) ? old :
					   ((uint64_t)rnd(UINT32_MAX) << 32) | rnd(UINT32_MAX);
		wr.wr.atomic.swap = ((uint64_t)rnd(UINT32_MAX) << 32) | rnd(UINT32_MAX);
		break;
	}
	if (op != 4)
		want = sge_sum(lsge, nl, len);
	else
		want = fnv_add(FNV_INIT, remote, len);
	if (ibv_post_send(src->qp, &wr, &bad))
		FAIL("post_send");
	if (poll_one(src, &wc))
		FAIL("no send completion");
	if (wc.status != IBV_WC_SUCCESS || wc.wr_id != 1)
		FAIL("send completion status %d (%s)", wc.status,
		     ibv_wc_status_str(wc.status));
	if (recv) {
		if (poll_one(dst, &rwc))
			FAIL("no receive completion");
		if (rwc.status != IBV_WC_SUCCESS || rwc.wr_id != 2)
			FAIL("receive status %d", rwc.status);
		if (rwc.byte_len != len)
			FAIL("byte_len %u", rwc.byte_len);
		if ((op == 1 || op == 3) &&
		    (!(rwc.wc_flags & IBV_WC_WITH_IMM) ||
		     be32toh(rwc.imm_data) != imm))
			FAIL("immediate lost");
		if (rwc.opcode != (op == 3 ? IBV_WC_RECV_RDMA_WITH_IMM :
					     IBV_WC_RECV))
			FAIL("receive opcode %d", rwc.opcode);
	}

	switch (op) {
	case 0:
	case 1:
		got = sge_sum(rsge, nr, len);
		break;
	case 4:
		got = sge_sum(lsge, nl, len);
		break;
	case 5:
	case 6:
		got = *(uint64_t *)(uintptr_t)lsge[0].addr;
		if (got != old)
			FAIL("atomic returned %" PRIx64 ", memory had %" PRIx64,
			     got, old);
		want = op == 6 ? old + wr.wr.atomic.compare_add :
		       old == wr.wr.atomic.compare_add ? wr.wr.atomic.swap : old;
		if (*target != want)
			FAIL("atomic left %" PRIx64 ", want %" PRIx64,
			     *target, want);
		return 0;
	default:
		got = fnv_add(FNV_INIT, remote, len);
		/*
		 * A UC WRITE completes once sent (no ACK): the data may still
		 * be on its way.  Give it a few seconds.
		 */
		for (i = 0; uc && op == 2 && got != want && i < 5000; i++) {
			usleep(1000);
			got = fnv_add(FNV_INIT, remote, len);
		}
		break;
	}
	if (got != want)
		FAIL("checksum %016" PRIx64 " != %016" PRIx64 " (%d SGEs, %s)",
		     got, want, nl,
		     wr.send_flags & IBV_SEND_INLINE ? "inline" : "gather");
	return 0;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* ---- -S: a stream of SENDs --------------------------------------------- */

#define STREAM_DEPTH	16
#define STREAM_SLOT	(BUF_SIZE / STREAM_DEPTH)
#define STREAM_LEN	4096

/* The bytes of SEND @i: a function of the seed and @i alone. */
static void stream_bytes(uint8_t *p, uint32_t len, uint32_t i)
{
	unsigned int st = seed ^ (i * 2654435761u);

	while (len--)
		*p++ = rand_r(&st);
}

/* Up to 4 KiB, a few packets: a hole holds back several messages. */
static uint32_t stream_len(uint32_t i)
{
	unsigned int st = seed + i;

	return 1 + rand_r(&st) % STREAM_LEN;
}

static struct ibv_sge stream_sge(struct side *s, uint32_t i, uint32_t len)
{
	uint32_t slot = i % STREAM_DEPTH;
	struct ibv_sge sge = {
		.addr = (uintptr_t)s->buf + slot * STREAM_SLOT,
		.length = len,
		.lkey = s->mr[slot >= STREAM_DEPTH / 2]->lkey,
	};

	return sge;
}

/* Check receive completion @wc, of SEND @i; 0 or -1. */
static int stream_check(struct side *b, const struct ibv_wc *wc, uint32_t i)
{
	uint32_t len = stream_len(i);
	static uint8_t want[STREAM_SLOT];

	if (wc->status != IBV_WC_SUCCESS || wc->opcode != IBV_WC_RECV ||
	    wc->wr_id != i || wc->byte_len != len) {
		printf("FAIL SEND %u: status %s opcode %d wr_id %" PRIu64
		       " byte_len %u (want %u)\n", i,
		       ibv_wc_status_str(wc->status), wc->opcode, wc->wr_id,
		       wc->byte_len, len);
		return -1;
	}
	if (!!(wc->wc_flags & IBV_WC_WITH_IMM) != !!(i & 1) ||
	    ((i & 1) && be32toh(wc->imm_data) != i)) {
		printf("FAIL SEND %u: immediate data\n", i);
		return -1;
	}
	stream_bytes(want, len, i);
	if (memcmp(b->buf + (i % STREAM_DEPTH) * STREAM_SLOT, want, len)) {
		printf("FAIL SEND %u: %u bytes received differ\n", i, len);
		return -1;
	}
	return 0;
}

/*
 * -E: SENDs received between two moves to ERR, at least.  The move comes
 * when half the stream is sent and not received yet: under netem delay
 * and reordering (sack.sh) some of those wait behind a hole at times, and
 * then b's QP has taken the WQEs of the later ones ahead.  How often it
 * catches such a moment depends on timing: the last line says.
 */
#define STREAM_ERR_EVERY	200

/*
 * -E: both QPs to ERR with SENDs in flight.  b's completions up to the last
 * WQE its QP took are checked (received ones against their data, then
 * only flushed ones, each WQE once, in order); both QPs are reset and
 * connected again, and the stream goes on from *rdone, the first WQE
 * still in the SRQ.  0 or -1.
 */
static int stream_err(struct side *a, struct side *b, uint32_t *rdone,
		      uint32_t *flushed, uint32_t *most)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };
	uint32_t n = 0, idle = 0;
	struct ibv_wc wc;

	if (ibv_modify_qp(b->qp, &attr, IBV_QP_STATE) ||
	    ibv_modify_qp(a->qp, &attr, IBV_QP_STATE))
		vt_bail("modify_qp ERR");
	/* b's flush completions are in its CQ when modify_qp returns */
	while (ibv_poll_cq(b->cq, 1, &wc) > 0) {
		if (wc.status == IBV_WC_WR_FLUSH_ERR && wc.wr_id == *rdone) {
			n++;
		} else if (wc.status == IBV_WC_WR_FLUSH_ERR || n) {
			printf("FAIL QP to ERR: WQE %" PRIu64 " completed (%s) where %u was due%s\n",
			       wc.wr_id, ibv_wc_status_str(wc.status), *rdone,
			       n ? " flushed" : "");
			return -1;
		} else if (stream_check(b, &wc, *rdone)) {
			return -1;
		}
		(*rdone)++;
	}
	/* a's: sent or flushed alike, the stream sends again from *rdone */
	while (idle < 1000)
		idle = ibv_poll_cq(a->cq, 1, &wc) > 0 ? 0 : idle + 1;
	attr.qp_state = IBV_QPS_RESET;
	if (ibv_modify_qp(a->qp, &attr, IBV_QP_STATE) ||
	    ibv_modify_qp(b->qp, &attr, IBV_QP_STATE))
		vt_bail("modify_qp RESET");
	a->psn = rnd(1u << 24);
	b->psn = rnd(1u << 24);
	connect_qp(a, b);
	connect_qp(b, a);
	*flushed += n;
	if (n > *most)
		*most = n;
	return 0;
}

/* @n SENDs from a to b, each checked; the exit status. */
static int stream(struct side *a, struct side *b, uint32_t n)
{
	uint32_t rposted = 0, sposted = 0, rdone = 0, sdone = 0;
	uint32_t nerr = 0, flushed = 0, most = 0, err_at = STREAM_ERR_EVERY;
	struct ibv_recv_wr rwr = { .num_sge = 1 }, *rbad;
	struct ibv_send_wr wr = { .num_sge = 1 }, *bad;
	double last = now_s();
	struct ibv_sge sge;
	struct ibv_wc wc;

	while (rdone < sposted || (rdone < n && !stop)) {
		while (!stop && rposted < n && rposted - rdone < STREAM_DEPTH) {
			sge = stream_sge(b, rposted, STREAM_SLOT);
			memset((void *)(uintptr_t)sge.addr, 0xa5, STREAM_SLOT);
			rwr.wr_id = rposted;
			rwr.sg_list = &sge;
			if (b->srq ? ibv_post_srq_recv(b->srq, &rwr, &rbad) :
				     ibv_post_recv(b->qp, &rwr, &rbad))
				vt_bail("post_recv");
			rposted++;
		}
		while (!stop && sposted < rposted &&
		       sposted - sdone < STREAM_DEPTH) {
			sge = stream_sge(a, sposted, stream_len(sposted));
			stream_bytes((uint8_t *)(uintptr_t)sge.addr,
				     sge.length, sposted);
			wr.wr_id = sposted;
			wr.sg_list = &sge;
			wr.opcode = sposted & 1 ? IBV_WR_SEND_WITH_IMM :
						  IBV_WR_SEND;
			wr.imm_data = htobe32(sposted);
			wr.send_flags = IBV_SEND_SIGNALED;
			if (ibv_post_send(a->qp, &wr, &bad))
				vt_bail("post_send");
			sposted++;
		}
		if (ibv_poll_cq(a->cq, 1, &wc) > 0) {
			if (wc.status != IBV_WC_SUCCESS) {
				printf("FAIL SEND %" PRIu64 ": send status %s\n",
				       wc.wr_id, ibv_wc_status_str(wc.status));
				return 1;
			}
			sdone++;
			last = now_s();
		}
		if (ibv_poll_cq(b->cq, 1, &wc) > 0) {
			if (stream_check(b, &wc, rdone))
				return 1;
			rdone++;
			last = now_s();
		}
		if (errs && !stop && rdone >= err_at &&
		    sposted - rdone >= STREAM_DEPTH / 2) {
			if (stream_err(a, b, &rdone, &flushed, &most))
				return 1;
			nerr++;
			sposted = sdone = rdone;
			err_at = rdone + STREAM_ERR_EVERY;
		}
		if (now_s() - last > 60) {
			printf("FAIL no completion for 60 s (%u of %u SENDs received)\n",
			       rdone, sposted);
			return 1;
		}
	}
	printf("%u SENDs streamed %s->%s%s, every one checked, 0 failures",
	       rdone, a->name, b->name, b->srq ? " (SRQ)" : "");
	if (errs)
		printf("; QPs to ERR %u times, %u WQEs flushed, at most %u at once",
		       nerr, flushed, most);
	printf("\n");
	return 0;
}

/* ---- -W: cost of the offset in a large region --------------------------- */

#define BENCH_LEN	(64u << 10)
#define BENCH_DEPTH	16

/* @n WRITEs of a's first BENCH_LEN bytes to @raddr; seconds taken. */
static double bench_writes(struct side *a, struct ibv_mr *dst, uint64_t raddr,
			   int n)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)a->buf, .length = BENCH_LEN,
		.lkey = a->mr[0]->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	int posted = 0, done = 0, k;
	struct ibv_wc wc[BENCH_DEPTH];
	double t0 = now_s();

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = dst->rkey;
	while (done < n) {
		while (posted < n && posted - done < BENCH_DEPTH) {
			if (ibv_post_send(a->qp, &wr, &bad))
				vt_bail("post_send");
			posted++;
		}
		k = ibv_poll_cq(a->cq, BENCH_DEPTH, wc);
		if (k < 0)
			vt_bail("poll_cq");
		while (k-- > 0) {
			if (wc[k].status != IBV_WC_SUCCESS) {
				fprintf(stderr, "WRITE: %s\n",
					ibv_wc_status_str(wc[k].status));
				exit(1);
			}
			done++;
		}
	}
	return now_s() - t0;
}

static int bench(struct side *a, struct side *b, size_t mib, int n)
{
	size_t size = mib << 20, at[2] = { 0, size - BENCH_LEN };
	double t[2] = { 0, 0 }, mb;
	struct ibv_mr *dst;
	uint8_t *big;
	int r, i, bad = 0;

	big = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (big == MAP_FAILED)
		vt_bail("mmap");
	dst = ibv_reg_mr(b->pd, big, size, IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_REMOTE_WRITE);
	if (!dst)
		vt_bail("reg_mr");
	fill(a->buf, BENCH_LEN);
	for (r = 0; r < 4; r++)
		for (i = 0; i < 2; i++)
			t[i] += bench_writes(a, dst, (uintptr_t)big + at[i],
					     n / 4);
	for (i = 0; i < 2; i++)
		bad |= memcmp(big + at[i], a->buf, BENCH_LEN) != 0;
	mb = (double)(n / 4 * 4) * BENCH_LEN / (1 << 20);
	printf("64 KiB WRITEs into a %zu MiB region: start %.1f MiB/s, end %.1f MiB/s, end/start %.2f%s\n",
	       mib, mb / t[0], mb / t[1], t[0] / t[1],
	       bad ? ", DATA MISMATCH" : "");
	ibv_dereg_mr(dst);
	munmap(big, size);
	return bad;
}

/*
 * -L: one 2-byte inline WRITE at a time from a to b.  A stack that runs
 * the whole round trip (request, responder, ACK, completer) inside the
 * post's system call has the completion ready at the first poll after
 * ibv_post_send() returns; the count of such posts says whether it does.
 */
static int probe(struct side *a, struct side *b, int n)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)a->buf,
		.length = 2,
		.lkey = a->mr[0]->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE,
	}, *bad;
	long polls = 0;
	int i, k, first = 0;
	struct ibv_wc wc;
	double t0;

	wr.wr.rdma.remote_addr = (uintptr_t)b->buf;
	wr.wr.rdma.rkey = b->mr[0]->rkey;
	t0 = now_s();
	for (i = 0; i < n; i++) {
		if (ibv_post_send(a->qp, &wr, &bad))
			vt_bail("post_send");
		k = ibv_poll_cq(a->cq, 1, &wc);
		if (k == 1)
			first++;
		while (k == 0) {
			k = ibv_poll_cq(a->cq, 1, &wc);
			polls++;
		}
		if (k < 0 || wc.status != IBV_WC_SUCCESS)
			vt_bail("WRITE completion");
	}
	printf("%d WRITEs of 2 B, one at a time: %.2f us each; %d complete at the first poll after the post; %ld more polls\n",
	       n, (now_s() - t0) * 1e6 / n, first, polls);
	return 0;
}

int main(int argc, char **argv)
{
	struct side a = { .gid_idx = -1 }, b = { .gid_idx = -1 };
	int iters = 200, c, i, counts[2] = { 0, 0 };
	size_t bench_mib = 0;
	bool lat = false, sends = false;

	seed = time(NULL);
	while ((c = getopt(argc, argv, "a:b:EG:g:Ln:o:Qs:St:T:uW:")) != -1) {
		switch (c) {
		case 'a': a.name = optarg; break;
		case 'b': b.name = optarg; break;
		case 'g': a.gid_idx = atoi(optarg); break;
		case 'G': b.gid_idx = atoi(optarg); break;
		case 'n': iters = atoi(optarg); break;
		case 'o':
			if (parse_ops(optarg))
				goto usage;
			break;
		case 's': seed = strtoul(optarg, NULL, 0); break;
		case 'S': sends = true; break;
		case 'Q': use_srq = true; break;
		case 'E': errs = true; break;
		case 't': tclass = strtoul(optarg, NULL, 0) & 0xff; break;
		case 'T': ack_timeout = strtoul(optarg, NULL, 0) & 0x1f; break;
		case 'u': uc = true; break;
		case 'W': bench_mib = strtoul(optarg, NULL, 0); break;
		case 'L': lat = true; break;
		default: goto usage;
		}
	}
	if (!a.name || !b.name || a.gid_idx < 0 || b.gid_idx < 0 ||
	    (uc && !(op_mask & 0xf)) || (use_srq && !sends) ||
	    (errs && !use_srq))
		goto usage;
	printf("seed %u\n", seed);
	signal(SIGUSR1, on_usr1);
	setup(&a, false);
	setup(&b, use_srq);
	connect_qp(&a, &b);
	connect_qp(&b, &a);
	if (bench_mib)
		return bench(&a, &b, bench_mib, iters);
	if (lat)
		return probe(&a, &b, iters);
	if (sends)
		return stream(&a, &b, iters);
	for (i = 0; i < iters && failures < 5 && !stop; i++) {
		bool ab = rnd(2);

		if (one(i, ab ? &a : &b, ab ? &b : &a))
			break;	/* the QPs are in error now */
		counts[ab]++;
	}
	printf("%d iterations (%d %s->%s, %d %s->%s), %d failures\n", i,
	       counts[1], a.name, b.name, counts[0], b.name, a.name, failures);
	return failures ? 1 : 0;
usage:
	fprintf(stderr, "usage: %s -a DEV -g GIDIDX -b DEV -G GIDIDX [-n ITERS] [-s SEED] [-t TCLASS] [-T TIMEOUT] [-u] [-o send,write,read,atomic] [-S [-Q [-E]]] [-W MIB] [-L]\n",
		argv[0]);
	return 2;
}
