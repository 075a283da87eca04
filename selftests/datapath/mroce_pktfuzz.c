// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * mroce_pktfuzz: a structure-aware RoCEv2 packet fuzzer, run in the peer's
 * namespace against a MetaRoCE device that carries checked traffic.
 *
 *   mroce_pktfuzz -a DEV -g GIDIDX -S SRC_IP -D DST_IP -n PACKETS
 *                 [-s SEED] [-l QPN,QPN...] [-x QPN,QPN...]
 *
 * SRC_IP and DST_IP are both IPv4 or both IPv6 addresses; GIDIDX is DEV's
 * GID of DST_IP.  Each packet is first built valid (IBTA 9.2-9.3 and A17:
 * IPv4 or IPv6, UDP to port 4791, BTH, the extension headers of its
 * opcode, payload, pad, then the ICRC, or the UDP checksum standing for
 * it with the MetaRoCE capability mark of Documentation/wire.rst), aimed
 * at one of:
 *
 *  - victims: RC, UC and UD QPs this program opens on DEV, connected to
 *    SRC_IP, with a registered region between two guard pages; packets
 *    come from SRC_IP at PSNs around the expected one, with the region's
 *    real R_Key most of the time, so that well-formed requests are
 *    executed.  Victims may end in ERR: every epoch puts them back
 *    through RESET to RTS at a new PSN;
 *  - the live QPs of -l (mroce_dpcheck's): from SRC_IP only packets the
 *    device must drop whatever the QP's PSN (integrity broken, P_Key,
 *    TVer, opcode or length invalid); well-formed ones only from a spoofed
 *    source address, which the peer check must drop;
 *  - QPNs that do not exist on DEV (neither -l, -x nor a victim).
 *
 * then mutated field by field and byte by byte (opcode, pad, TVer, P_Key,
 * PSN, lengths, R_Key, AETH, truncation, extension, flipped bits, UDP
 * length, port and checksum), with the integrity check computed after the
 * mutation or left broken.  Packets leave through a raw socket with the IP
 * header ours (IPv4: IP_HDRINCL, so the IP ID the ICRC covers is ours;
 * IPv6: IPPROTO_RAW, which implies the header), sendmmsg() in batches.
 *
 * Output: TAP (every packet sent; no byte written outside the victims'
 * registered regions; every victim reset cleanly), then one
 * "# account key=value..." line of what the device must account for
 * (pktfuzz.sh checks it against the counters):
 *   sent        packets sent
 *   stack       packets the UDP layer must drop (checksum wrong and not
 *               zero, UDP length past the datagram) or that go to another
 *               UDP port
 *   dev         packets for the device (sent - stack)
 *   must_drop   of those, the ones the device must drop and count: to a
 *               QPN that does not exist, spoofed source, integrity broken,
 *               or invalid on a live QP
 *   no_qp       of those, to a QPN that does not exist
 *   csum_bad    packets with a wrong, non-zero UDP checksum
 * and what went where (victim, live, gsi, spoofed, marked: with the
 * MetaRoCE capability mark) and the victims' receive completions.
 */
#define _GNU_SOURCE	/* sendmmsg() */
#include <arpa/inet.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "../verbs_test.h"

#define ROCE_PORT	4791
#define PMTU		1024
#define PKT_MAX		(40 + 8 + 12 + 28 + PMTU + 4 + 64)
#define BATCH		64
#define EPOCH		4096	/* packets between victim resets */
#define NVICTIM		3
#define RQ_DEPTH	64
#define RECV_SIZE	2048
#define REGION		(256u << 10)	/* registered, between two guards */
#define GUARD		4096u
#define GUARD_BYTE	0xa5
#define MAX_LIVE	16
#define GSI_QKEY	0x80010000u
#define VICTIM_QKEY	0x11111111u
#define MR_ACK		0xc7
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* BTH opcodes, IBTA 9.2 Table 38; header flags per opcode below. */
enum {
	H_RETH = 1, H_AETH = 2, H_ATMETH = 4, H_ATMACK = 8, H_IMM = 16,
	H_IETH = 32, H_DETH = 64, H_PAY = 128, H_RESP = 256, H_MXH = 512,
	H_SACK = 1024, H_MSGH = 2048,
};

struct opc {
	uint8_t op;
	uint16_t h;
};

/* RC, then UC (RC's send and write rows + 0x20), then UD. */
static const struct opc rc_ops[] = {
	{ 0x00, H_PAY }, { 0x01, H_PAY }, { 0x02, H_PAY },
	{ 0x03, H_PAY | H_IMM }, { 0x04, H_PAY }, { 0x05, H_PAY | H_IMM },
	{ 0x06, H_PAY | H_RETH }, { 0x07, H_PAY }, { 0x08, H_PAY },
	{ 0x09, H_PAY | H_IMM }, { 0x0a, H_PAY | H_RETH },
	{ 0x0b, H_PAY | H_RETH | H_IMM }, { 0x0c, H_RETH },
	{ 0x0d, H_PAY | H_AETH | H_RESP }, { 0x0e, H_PAY | H_RESP },
	{ 0x0f, H_PAY | H_AETH | H_RESP }, { 0x10, H_PAY | H_AETH | H_RESP },
	{ 0x11, H_AETH | H_RESP }, { 0x12, H_AETH | H_ATMACK | H_RESP },
	{ 0x13, H_ATMETH }, { 0x14, H_ATMETH },
	{ 0x16, H_PAY | H_IETH }, { 0x17, H_PAY | H_IETH },
	/*
	 * The MetaRoCE request kinds and MR_ACK (wire.rst), which RC QPs
	 * in MetaRoCE mode take.
	 */
	{ 0xc0, H_PAY | H_MXH | H_MSGH },
	{ 0xc1, H_PAY | H_MXH | H_MSGH | H_IMM },
	{ 0xc2, H_PAY | H_MXH | H_MSGH | H_IETH },
	{ 0xc3, H_PAY | H_MXH | H_RETH | H_MSGH },
	{ 0xc4, H_PAY | H_MXH | H_RETH | H_MSGH | H_IMM },
	{ 0xc5, H_MXH | H_RETH },
	{ MR_ACK, H_MXH | H_AETH | H_SACK | H_RESP },
};

static const struct opc ud_ops[] = {
	{ 0x64, H_PAY | H_DETH }, { 0x65, H_PAY | H_DETH | H_IMM },
};

/*
 * Opcodes no QP accepts: reserved, CNP aside; MR_READ_RESP (0xC6:
 * defined, not accepted yet, wire.rst), later versions' and other
 * manufacturers'.
 */
static const uint8_t bad_ops[] = {
	0x15, 0x18, 0x1f, 0x2c, 0x3f, 0x40, 0x5f, 0x60, 0x66, 0x7f, 0x80,
	0x82, 0xa0, 0xbf, 0xc6, 0xc8, 0xdf, 0xe5, 0xff,
};

enum tkind { T_VICTIM, T_LIVE, T_NOQP, T_GSI };

struct victim {
	struct ibv_qp *qp;
	enum ibv_qp_type type;
	uint8_t *mem;		/* guard, region, guard */
	struct ibv_mr *mr;
	uint32_t psn;		/* expected PSN after the last reset */
	unsigned long recvs;	/* receive completions */
	unsigned long errs;	/* error completions */
};

static struct {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	union ibv_gid dgid;
	int gid_idx;
	struct victim v[NVICTIM];
	uint32_t live[MAX_LIVE];
	int nlive;
	uint32_t other[MAX_LIVE];
	int nother;
	bool v6;		/* IPv6 packets */
	size_t ipl;		/* IP header length: 20 or 40 */
	uint8_t src[16], dst[16];	/* IPv4: the first four bytes */
	uint64_t seed;
	unsigned long resets, reset_fail;
} f;

static struct {
	unsigned long sent, stack, dev, must_drop, no_qp, csum_bad;
	unsigned long victim, live, gsi, spoofed, marked;
} tally;

/* xorshift64*: fast, and the run is reproduced from the printed seed. */
static uint64_t rnd64(void)
{
	f.seed ^= f.seed >> 12;
	f.seed ^= f.seed << 25;
	f.seed ^= f.seed >> 27;
	return f.seed * 0x2545f4914f6cdd1dULL;
}

static uint32_t rnd(uint32_t n)
{
	return n ? (uint32_t)((rnd64() >> 32) % n) : 0;
}

/* True with probability @pct percent. */
static bool pct(unsigned int pct)
{
	return rnd(100) < pct;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, v >> 32);
	put32(p + 4, v);
}

/* ---- integrity: ICRC (IBTA A17.8) and the UDP checksum (RFC 768) */

static uint32_t crc_table[256];

static void crc_init(void)
{
	uint32_t c, i, k;

	for (i = 0; i < 256; i++) {
		for (c = i, k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320 ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

static uint32_t crc_add(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

/*
 * ICRC of the IP packet @p of @len bytes, over everything but its last
 * four: eight 0xff bytes for the LRH, then the packet with these read as
 * ones: IPv4's TOS, TTL and header checksum, or IPv6's traffic class,
 * flow label and hop limit; the UDP checksum; BTH byte 4.
 */
static uint32_t icrc(const uint8_t *p, size_t len)
{
	static const uint8_t ones[8] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	size_t hl = f.ipl + 8 + 12;
	uint8_t hdr[40 + 8 + 12];
	uint32_t crc;

	memcpy(hdr, p, hl);
	if (f.v6) {
		hdr[0] |= 0x0f;
		hdr[1] = hdr[2] = hdr[3] = hdr[7] = 0xff;
	} else {
		hdr[1] = hdr[8] = hdr[10] = hdr[11] = 0xff;
	}
	hdr[f.ipl + 6] = hdr[f.ipl + 7] = 0xff;
	hdr[f.ipl + 8 + 4] = 0xff;
	crc = crc_add(0xffffffff, ones, sizeof(ones));
	crc = crc_add(crc, hdr, hl);
	crc = crc_add(crc, p + hl, len - hl - 4);
	return ~crc;
}

/*
 * The UDP checksum of the datagram at @p + f.ipl of @ulen bytes, with the
 * pseudo-header of its IP version (RFC 768, RFC 8200 8.1).
 */
static uint16_t udp_csum(const uint8_t *p, size_t ulen)
{
	const uint8_t *u = p + f.ipl;
	uint32_t sum = 17 + ulen;
	size_t i;

	/* the addresses: IPv4 bytes 12-19, IPv6 bytes 8-39 */
	for (i = f.v6 ? 8 : 12; i < f.ipl; i += 2)
		sum += p[i] << 8 | p[i + 1];
	for (i = 0; i < ulen; i += 2)
		if (i != 6)
			sum += u[i] << 8 | (i + 1 < ulen ? u[i + 1] : 0);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	sum = ~sum & 0xffff;
	return sum ? sum : 0xffff;
}

/* ---- victims */

static int victim_reset(struct victim *v)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
	struct vt_conn c = {
		.mtu = IBV_MTU_1024, .rd_atomic = 4, .min_rnr_timer = 1,
		.timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
		.uc = v->type == IBV_QPT_UC,
	};
	struct ibv_recv_wr wr = {}, *bad;
	struct ibv_sge sge;
	int i;

	if (ibv_modify_qp(v->qp, &a, IBV_QP_STATE))
		return -1;
	v->psn = rnd(1u << 24);
	c.rq_psn = v->psn;
	c.sq_psn = rnd(1u << 24);
	if (v->type == IBV_QPT_UD) {
		a.qp_state = IBV_QPS_INIT;
		a.port_num = 1;
		a.qkey = VICTIM_QKEY;
		if (ibv_modify_qp(v->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				  IBV_QP_PORT | IBV_QP_QKEY) ||
		    vt_to_state(v->qp, IBV_QPS_RTR))
			return -1;
		a.qp_state = IBV_QPS_RTS;
		a.sq_psn = c.sq_psn;
		if (ibv_modify_qp(v->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
			return -1;
	} else if (vt_qp_init(v->qp, IBV_ACCESS_LOCAL_WRITE |
			      IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			      IBV_ACCESS_REMOTE_ATOMIC)) {
		return -1;
	}
	for (i = 0; i < RQ_DEPTH; i++) {
		sge.addr = (uintptr_t)v->mem + GUARD + i * RECV_SIZE;
		sge.length = RECV_SIZE;
		sge.lkey = v->mr->lkey;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.wr_id = i;
		if (ibv_post_recv(v->qp, &wr, &bad))
			return -1;
	}
	if (v->type == IBV_QPT_UD)
		return 0;
	/* To a QPN on the peer that does not exist: nothing answers. */
	return vt_connect(v->qp, &f.dgid, f.gid_idx, 0xfffff0, &c);
}

static void victim_setup(struct victim *v, enum ibv_qp_type type)
{
	struct ibv_qp_cap cap = {
		.max_send_wr = 4, .max_recv_wr = RQ_DEPTH,
		.max_send_sge = 1, .max_recv_sge = 1,
	};

	v->type = type;
	v->mem = mmap(NULL, REGION + 2 * GUARD, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (v->mem == MAP_FAILED)
		vt_bail("mmap");
	memset(v->mem, GUARD_BYTE, REGION + 2 * GUARD);
	v->mr = ibv_reg_mr(f.pd, v->mem + GUARD, REGION,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	v->qp = vt_create_qp(f.pd, f.cq, NULL, type, &cap);
	if (!v->mr || !v->qp)
		vt_bail("victim mr/qp");
	if (victim_reset(v))
		vt_bail("victim connect");
}

/* Drain the CQ; every EPOCH packets, put every victim back to RTS. */
static void victims_poll(bool reset)
{
	struct ibv_wc wc[32];
	int n, i, k;

	while ((n = ibv_poll_cq(f.cq, 32, wc)) > 0) {
		for (i = 0; i < n; i++) {
			for (k = 0; k < NVICTIM; k++) {
				if (f.v[k].qp->qp_num != wc[i].qp_num)
					continue;
				if (wc[i].status == IBV_WC_SUCCESS)
					f.v[k].recvs++;
				else
					f.v[k].errs++;
			}
		}
	}
	if (!reset)
		return;
	for (k = 0; k < NVICTIM; k++) {
		f.resets++;
		if (victim_reset(&f.v[k])) {
			f.reset_fail++;
			printf("# victim %u reset: %s\n", f.v[k].qp->qp_num,
			       strerror(errno));
		}
	}
	while (ibv_poll_cq(f.cq, 32, wc) > 0)
		;
}

/* Bytes of the guards that are no longer GUARD_BYTE. */
static unsigned long guards_touched(void)
{
	unsigned long bad = 0;
	size_t i;
	int k;

	for (k = 0; k < NVICTIM; k++)
		for (i = 0; i < GUARD; i++)
			bad += (f.v[k].mem[i] != GUARD_BYTE) +
			       (f.v[k].mem[GUARD + REGION + i] != GUARD_BYTE);
	return bad;
}

/* ---- packets */

struct pkt {
	uint8_t b[PKT_MAX];
	size_t len;
	enum tkind kind;
	bool spoofed;
	bool must_drop;
};

/* A virtual address near the victim's region, mostly inside it. */
static uint64_t pick_va(const struct victim *v, uint32_t len)
{
	uint64_t base = (uintptr_t)v->mem + GUARD;

	switch (rnd(8)) {
	case 0: return base + REGION - rnd(64);		/* runs past the end */
	case 1: return base - rnd(64);			/* starts before */
	case 2: return rnd64();
	default: return base + rnd(REGION - (len < REGION ? len : 0));
	}
}

static uint32_t pick_len(void)
{
	switch (rnd(10)) {
	case 0: return 0;
	case 1: return PMTU;
	case 2: return rnd(PMTU + 1);
	default: return rnd(96);
	}
}

/* AETH: ACK, RNR NAK or NAK (IBTA 9.7.5.1, Table 45) and an MSN. */
static uint32_t pick_aeth(void)
{
	static const uint8_t syn[] = { 0x1f, 0x00, 0x20, 0x3f, 0x60, 0x61,
				       0x62, 0x63, 0x64, 0x65, 0x40, 0xe0 };

	return (uint32_t)syn[rnd(sizeof(syn))] << 24 | rnd(1u << 24);
}

/*
 * Write the transport part of a valid packet for @dqpn at @p: BTH, the
 * headers @o says, @plen bytes of payload, pad.  Returns its length.
 */
static size_t build_transport(uint8_t *p, const struct opc *o, uint32_t dqpn,
			      uint32_t psn, const struct victim *v,
			      uint32_t plen, uint32_t qkey)
{
	uint32_t rkey = v && pct(80) ? v->mr->rkey : (uint32_t)rnd64();
	uint32_t pad = -plen & 3, dlen = plen, moff = 0, mlen = 0;
	uint8_t mflags = 0;
	size_t n = 12;
	uint64_t va;

	if (!(o->h & H_PAY))
		plen = pad = 0;
	if (o->h & H_MSGH) {	/* mostly a consistent position */
		mflags = rnd(4) << 6;			/* F, L */
		moff = mflags & 0x80 ? 0 : PMTU * (1 + rnd(3));
		mlen = moff + plen + (mflags & 0x40 ? 0 : PMTU * (1 + rnd(3)));
		if (pct(5))
			moff = rnd64();
		if (pct(5))
			mlen = rnd64();
		dlen = mlen;
	}
	p[0] = o->op;
	p[1] = pad << 4;			/* SE 0, M 0, TVer 0 */
	put16(p + 2, 0xffff);
	p[4] = 0;
	p[5] = dqpn >> 16;
	put16(p + 6, dqpn);
	p[8] = o->h & H_RESP ? 0 : (pct(70) ? 0x80 : 0);
	p[9] = psn >> 16;
	put16(p + 10, psn);
	if (o->h & H_DETH) {
		put32(p + n, qkey);
		put32(p + n + 4, rnd(1u << 24));
		n += 8;
	}
	if (o->h & H_MXH) {		/* version 1, flags, path, TS, TSE */
		p[n] = pct(95) ? 0x10 : rnd(256);
		if (o->h & H_MSGH)
			p[n + 1] = pct(95) ? mflags : rnd(256);
		else
			p[n + 1] = pct(95) ? rnd(4) << 4 : rnd(256);
		put16(p + n + 2, rnd(8));
		put32(p + n + 4, rnd64());
		put32(p + n + 8, rnd64());
		n += 12;
	}
	if (o->h & H_RETH) {
		if (o->op == 0x0c || o->op == 0xc5)
			dlen = pick_len() * (1 + rnd(4));
		va = v ? pick_va(v, dlen) : rnd64();
		put64(p + n, va);
		put32(p + n + 8, rkey);
		put32(p + n + 12, pct(90) ? dlen : (uint32_t)rnd64());
		n += 16;
	}
	if (o->h & H_ATMETH) {
		va = v ? pick_va(v, 8) & ~7ULL : rnd64();
		put64(p + n, pct(95) ? va : va | 4);
		put32(p + n + 8, rkey);
		put64(p + n + 12, rnd64());
		put64(p + n + 20, rnd64());
		n += 28;
	}
	if (o->h & H_MSGH) {
		put32(p + n, pct(95) ? rnd(1u << 24) : (uint32_t)rnd64());
		put32(p + n + 4, moff);
		put32(p + n + 8, mlen);
		n += 12;
	}
	if (o->h & H_AETH) {
		put32(p + n, pick_aeth());
		n += 4;
	}
	if (o->h & H_SACK) {		/* 0-4 bitmap words; bit 0 is 0 */
		uint32_t w = pct(95) ? rnd(5) : rnd(256), i;

		put32(p + n, w << 24);
		n += 4;
		for (i = 0; i < w && i < 8; i++, n += 8)
			put64(p + n, rnd64());
		if (i)
			p[n - 8 * i + 7] &= ~1;
	}
	if (o->h & H_ATMACK) {
		put64(p + n, rnd64());
		n += 8;
	}
	if (o->h & (H_IMM | H_IETH)) {
		put32(p + n, o->h & H_IETH && v && pct(50) ? v->mr->rkey :
			     (uint32_t)rnd64());
		n += 4;
	}
	memset(p + n, 0x5a ^ (uint8_t)psn, plen + pad);
	return n + plen + pad;
}

/*
 * IP and UDP headers for a datagram of @ulen bytes from @src (the UDP
 * checksum 0).
 */
static void build_ipudp(uint8_t *p, size_t ulen, const uint8_t *src)
{
	uint8_t *u = p + f.ipl;

	memset(p, 0, f.ipl + 8);
	if (f.v6) {
		/* a flow label of ours (the ICRC reads it as ones) */
		put32(p, 6u << 28 | rnd(1u << 20));
		put16(p + 4, ulen);
		p[6] = 17;
		p[7] = 64;
		memcpy(p + 8, src, 16);
		memcpy(p + 24, f.dst, 16);
	} else {
		p[0] = 0x45;
		put16(p + 2, 20 + ulen);
		put16(p + 4, 1 + rnd(0xfffe));	/* ours: the ICRC covers it */
		p[6] = 0x40;			/* DF */
		p[8] = 64;
		p[9] = 17;
		memcpy(p + 12, src, 4);
		memcpy(p + 16, f.dst, 4);
	}
	put16(u, 0xc000 | rnd(0x4000));
	put16(u + 2, ROCE_PORT);
	put16(u + 4, ulen);
}

/*
 * Mutate one thing of the packet (structure-aware: a header field set to
 * a boundary or random value, the length, or bytes).  Whether the result
 * is still acceptable is worked out from its final bytes (classify()).
 */
static void mutate(struct pkt *k)
{
	uint8_t *t = k->b + f.ipl + 8;
	size_t tlen = k->len - f.ipl - 8, add;
	int i;

	switch (rnd(14)) {
	case 0:		/* opcode */
		t[0] = pct(50) ? bad_ops[rnd(sizeof(bad_ops))] : rnd(256);
		break;
	case 1:		/* pad count */
		t[1] = (t[1] & ~0x30) | rnd(4) << 4;
		break;
	case 2:		/* TVer */
		t[1] |= 1 + rnd(15);
		break;
	case 3:		/* P_Key, mostly outside the default partition */
		put16(t + 2, rnd(0x10000));
		break;
	case 4:		/* PSN */
		t[9] ^= rnd(256);
		t[11] += rnd(16) - 8;
		break;
	case 5:		/* byte 8: AckReq and the capability mark */
		t[8] = rnd(256);
		break;
	case 6:		/* truncated below the BTH and the ICRC */
		k->len = f.ipl + 8 + rnd(16);
		break;
	case 7:		/* truncated */
		k->len = f.ipl + 8 + 12 + rnd(tlen > 12 ? tlen - 12 : 1);
		break;
	case 8:		/* extended */
		add = rnd(PKT_MAX - k->len + 1);
		memset(k->b + k->len, rnd(256), add);
		k->len += add;
		break;
	case 9:		/* a 32-bit header field after the BTH */
		if (tlen >= 16)
			put32(t + 12 + 4 * rnd((tlen - 12) / 4),
			      pct(50) ? (uint32_t)rnd64() : 0xffffffff);
		break;
	case 10:	/* DQPN high byte, reserved byte */
		if (pct(50))
			t[4] = rnd(256);
		else
			t[5] ^= 1 << rnd(8);
		break;
	case 11:	/* UDP length */
		put16(k->b + f.ipl + 4, pct(50) ? rnd(k->len - f.ipl + 64) :
			  k->len - f.ipl - rnd(8));
		break;
	default:	/* flipped bits anywhere in the transport part */
		for (i = 1 + rnd(4); i--; )
			t[rnd(tlen)] ^= 1 << rnd(8);
		break;
	}
}

/*
 * May a QP (victim @v, QP1 or another RC QP) take opcode @op?  Its
 * transport's opcodes; an RC QP also the MetaRoCE request kinds and
 * MR_ACK, in MetaRoCE mode.
 */
static bool op_fits(const struct victim *v, uint32_t qpn, uint8_t op)
{
	if (qpn == 1 || (v && v->type == IBV_QPT_UD))
		return (op & 0xe0) == 0x60;
	if (v && v->type == IBV_QPT_UC)
		return (op & 0xe0) == 0x20;
	return (op & 0xe0) == 0x00 || (op >= 0xc0 && op <= 0xc5) ||
	       op == MR_ACK;
}

/* The victim with QPN @qpn, or NULL. */
static struct victim *victim_of(uint32_t qpn)
{
	int i;

	for (i = 0; i < NVICTIM; i++)
		if (f.v[i].qp->qp_num == qpn)
			return &f.v[i];
	return NULL;
}

static bool in_list(const uint32_t *q, int n, uint32_t qpn)
{
	while (n--)
		if (q[n] == qpn)
			return true;
	return false;
}

static bool is_live(uint32_t qpn)
{
	return in_list(f.live, f.nlive, qpn);
}

/* A QPN that exists on the device (QP0 and QP1 counted as such). */
static bool known_qpn(uint32_t qpn)
{
	return qpn <= 1 || is_live(qpn) || in_list(f.other, f.nother, qpn) ||
	       victim_of(qpn);
}

/* The target of the next packet: its QPN, kind and victim (or NULL). */
static uint32_t pick_target(struct pkt *k, struct victim **vp)
{
	unsigned int r = rnd(100);
	uint32_t qpn;

	*vp = NULL;
	if (r < 45) {
		*vp = &f.v[rnd(NVICTIM)];
		k->kind = T_VICTIM;
		return (*vp)->qp->qp_num;
	}
	if (r < 75 && f.nlive) {
		k->kind = T_LIVE;
		return f.live[rnd(f.nlive)];
	}
	if (r < 77) {
		k->kind = T_GSI;
		return 1;
	}
	k->kind = T_NOQP;
	do {
		qpn = pct(50) ? rnd(1u << 24) : rnd(64);
	} while (known_qpn(qpn));
	return qpn;
}

/* An opcode for the target: of its transport, mostly. */
static struct opc pick_op(const struct victim *v, enum tkind kind)
{
	bool ud = (v && v->type == IBV_QPT_UD) || kind == T_GSI;
	struct opc o;

	if (pct(4)) {		/* another transport's, or any byte */
		o = pct(50) ? ud_ops[rnd(ARRAY_SIZE(ud_ops))] :
			      rc_ops[rnd(ARRAY_SIZE(rc_ops))];
		if (pct(50))
			o.op ^= 0x20;
		else if (pct(30))
			o.op = rnd(256);
		return o;
	}
	if (ud)
		return ud_ops[rnd(ARRAY_SIZE(ud_ops))];
	if ((v && v->type == IBV_QPT_UC) || (kind == T_LIVE && pct(50))) {
		/* UC: RC's SEND and WRITE rows in transport 001b. */
		o = rc_ops[rnd(12)];
		o.op |= 0x20;
		return o;
	}
	return rc_ops[rnd(ARRAY_SIZE(rc_ops))];
}

static uint16_t get16(const uint8_t *p)
{
	return p[0] << 8 | p[1];
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

/*
 * What becomes of the packet, from its final bytes: dropped by the UDP
 * layer (length past the datagram, wrong non-zero checksum), or handed to
 * the device; there, bound to be dropped (no such QP; a transport part
 * shorter than a BTH and an ICRC; neither the ICRC nor a UDP checksum
 * standing for it holds; TVer, P_Key or opcode wrong for the QP; or, on a
 * connected QP, a source that is not the peer).  Sets k->must_drop;
 * returns false when the UDP layer drops it.
 */
static bool classify(struct pkt *k)
{
	size_t ulen = get16(k->b + f.ipl + 4);
	uint16_t c = get16(k->b + f.ipl + 6);
	const uint8_t *t = k->b + f.ipl + 8;
	bool integrity, csum_ok = false;
	struct victim *v;
	uint32_t qpn;
	size_t tlen;

	k->must_drop = false;
	/* IPv6: a UDP length of 0 is the whole payload (RFC 2675) */
	if (f.v6 && !ulen)
		ulen = k->len - f.ipl;
	if (ulen < 8 || ulen > k->len - f.ipl)
		return false;
	if (c) {
		csum_ok = udp_csum(k->b, ulen) == c;
		if (!csum_ok) {
			tally.csum_bad++;
			return false;
		}
	}
	tlen = ulen - 8;
	if (tlen < 12 + 4) {
		k->must_drop = true;
		return true;
	}
	qpn = t[5] << 16 | get16(t + 6);
	v = victim_of(qpn);
	if (!known_qpn(qpn)) {
		k->must_drop = true;
		tally.no_qp++;
		return true;
	}
	/* The ICRC over the datagram as the device sees it (UDP trims). */
	integrity = get32(k->b + f.ipl + ulen - 4) ==
		    __builtin_bswap32(icrc(k->b, f.ipl + ulen));
	integrity |= csum_ok && (t[8] & 0x50) == 0x50;
	if (!integrity || (t[1] & 0xf) || (get16(t + 2) & 0x7fff) != 0x7fff ||
	    memchr(bad_ops, t[0], sizeof(bad_ops)))
		k->must_drop = true;
	/* The live QPs are RC or UC: which, the fuzzer does not know. */
	if (!is_live(qpn) && !op_fits(v, qpn, t[0]))
		k->must_drop = true;
	if (k->spoofed && qpn != 1 && (!v || v->type != IBV_QPT_UD))
		k->must_drop = true;
	return true;
}

/*
 * One fuzz packet: built valid, mutated (some mutations before the
 * integrity check is computed, maybe one after), classified for the
 * account.  Returns false when the UDP layer must drop it.
 */
static bool make_packet(struct pkt *k)
{
	uint8_t src[16];
	struct victim *v;
	bool marked, csum;
	uint32_t qpn, psn, qkey;
	int nmut, post, i;
	struct opc o;

	qpn = pick_target(k, &v);
	o = pick_op(v, k->kind);
	psn = v && v->type != IBV_QPT_UD ? (v->psn + rnd(20) - 4) & 0xffffff :
					   rnd(1u << 24);
	qkey = k->kind == T_GSI ? GSI_QKEY : pct(80) ? VICTIM_QKEY :
						       (uint32_t)rnd64();
	k->spoofed = pct(k->kind == T_LIVE ? 40 : 5);
	memcpy(src, f.src, sizeof(src));
	if (k->spoofed)		/* another host of the peer's subnet */
		src[f.v6 ? 15 : 3] = 3 + rnd(250);
	k->len = f.ipl + 8 + build_transport(k->b + f.ipl + 8, &o, qpn, psn,
					     v, pick_len(), qkey) + 4;
	/* The MetaRoCE mark offering the UDP checksum (wire.rst), not on UD. */
	marked = !(o.h & H_DETH) && pct(30);
	if (marked)
		k->b[f.ipl + 16] = (k->b[f.ipl + 16] & 0x80) | 0x40 | 0x10 |
			       (pct(50) ? 0x20 : 0) | 1;
	tally.marked += marked;
	csum = marked ? pct(90) : pct(10);
	nmut = pct(20) ? 0 : 1 + rnd(3);
	post = nmut && pct(40);
	for (i = 0; i < nmut - post; i++)
		mutate(k);
	build_ipudp(k->b, k->len - f.ipl, src);
	memset(k->b + k->len - 4, 0, 4);
	/* Checksum form: the ICRC field stays zero (now and then not). */
	if (k->len >= f.ipl + 24 && (!marked || !csum || pct(5)))
		put32(k->b + k->len - 4, __builtin_bswap32(icrc(k->b, k->len)));
	if (csum)
		put16(k->b + f.ipl + 6, udp_csum(k->b, k->len - f.ipl));
	if (post)
		mutate(k);
	/*
	 * The IP length of what leaves: IPv4's the kernel writes itself
	 * (IP_HDRINCL), IPv6's payload length is ours to keep true.
	 */
	if (f.v6)
		put16(k->b + 4, k->len - f.ipl);
	else
		put16(k->b + 2, k->len);
	if (!classify(k))
		return false;
	/*
	 * From the real peer, a live QP gets only what it must drop: its PSN
	 * moves all the time, a valid packet could be accepted.  TVer 0 is
	 * all RoCEv2 has (IBTA 9.2.5).
	 */
	if (k->kind == T_LIVE && !k->spoofed && !k->must_drop) {
		k->b[f.ipl + 9] |= 1 + rnd(15);
		return classify(k);
	}
	return true;
}

/* Send @n packets in batches; account for each. */
static int fuzz(int sk, unsigned long n)
{
	static struct pkt pk[BATCH];
	struct mmsghdr mh[BATCH];
	struct iovec iov[BATCH];
	struct sockaddr_in to4 = { .sin_family = AF_INET };
	struct sockaddr_in6 to6 = { .sin6_family = AF_INET6 };
	unsigned long epoch = 0;
	int i, b, m;

	memcpy(&to4.sin_addr, f.dst, 4);
	memcpy(&to6.sin6_addr, f.dst, 16);
	while (tally.sent < n) {
		b = n - tally.sent < BATCH ? n - tally.sent : BATCH;
		for (i = 0; i < b; i++) {
			struct pkt *k = &pk[i];

			if (!make_packet(k)) {
				tally.stack++;
			} else {
				tally.dev++;
				tally.must_drop += k->must_drop;
			}
			tally.victim += k->kind == T_VICTIM;
			tally.live += k->kind == T_LIVE;
			tally.gsi += k->kind == T_GSI;
			tally.spoofed += k->spoofed;
			iov[i].iov_base = k->b;
			iov[i].iov_len = k->len;
			memset(&mh[i], 0, sizeof(mh[i]));
			if (f.v6) {
				mh[i].msg_hdr.msg_name = &to6;
				mh[i].msg_hdr.msg_namelen = sizeof(to6);
			} else {
				mh[i].msg_hdr.msg_name = &to4;
				mh[i].msg_hdr.msg_namelen = sizeof(to4);
			}
			mh[i].msg_hdr.msg_iov = &iov[i];
			mh[i].msg_hdr.msg_iovlen = 1;
		}
		for (i = 0; i < b; i += m) {
			m = sendmmsg(sk, mh + i, b - i, 0);
			if (m <= 0) {
				if (m < 0 && (errno == ENOBUFS || errno == EAGAIN)) {
					usleep(1000);
					m = 0;
					continue;
				}
				printf("# sendmmsg: %s\n", strerror(errno));
				return -1;
			}
		}
		tally.sent += b;
		victims_poll(tally.sent / EPOCH != epoch);
		epoch = tally.sent / EPOCH;
	}
	return 0;
}

/* "1,2,3" into @q; returns how many. */
static int parse_qpns(const char *s, uint32_t *q)
{
	int n = 0;
	char *end;

	while (*s && n < MAX_LIVE) {
		q[n++] = strtoul(s, &end, 0);
		s = *end == ',' ? end + 1 : end;
		if (end == s && *s)
			break;
	}
	return n;
}

int main(int argc, char **argv)
{
	static const enum ibv_qp_type types[NVICTIM] = {
		IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD };
	const char *dev = NULL, *srcs = NULL, *dsts = NULL;
	unsigned long n = 10000, recvs = 0, errs = 0, bad;
	double t0, secs;
	int c, sk, k, rc;

	f.seed = time(NULL) ^ getpid();
	while ((c = getopt(argc, argv, "a:g:S:D:n:s:l:x:")) != -1) {
		switch (c) {
		case 'a': dev = optarg; break;
		case 'g': f.gid_idx = atoi(optarg); break;
		case 'S': srcs = optarg; break;
		case 'D': dsts = optarg; break;
		case 'n': n = strtoul(optarg, NULL, 0); break;
		case 's': f.seed = strtoull(optarg, NULL, 0); break;
		case 'l': f.nlive = parse_qpns(optarg, f.live); break;
		case 'x': f.nother = parse_qpns(optarg, f.other); break;
		default:
			fprintf(stderr, "usage: %s -a DEV -g GIDIDX -S SRC -D DST -n N [-s SEED] [-l QPNS] [-x QPNS]\n",
				argv[0]);
			return 2;
		}
	}
	if (srcs && dsts && inet_pton(AF_INET, srcs, f.src) == 1 &&
	    inet_pton(AF_INET, dsts, f.dst) == 1) {
		f.ipl = 20;
	} else if (srcs && dsts && inet_pton(AF_INET6, srcs, f.src) == 1 &&
		   inet_pton(AF_INET6, dsts, f.dst) == 1) {
		f.v6 = true;
		f.ipl = 40;
	}
	if (!dev || !f.ipl) {
		fprintf(stderr, "%s: -a, -S and -D (both IPv4 or both IPv6) are required\n",
			argv[0]);
		return 2;
	}
	if (!f.seed)
		f.seed = 1;
	printf("# seed %" PRIu64 " (-s to repeat), %lu IPv%d packets\n",
	       f.seed, n, f.v6 ? 6 : 4);
	crc_init();
	/* The peer's RoCEv2 GID: its IPv6 address, or IPv4 mapped into IPv6. */
	if (f.v6) {
		memcpy(f.dgid.raw, f.src, 16);
	} else {
		f.dgid.raw[10] = f.dgid.raw[11] = 0xff;
		memcpy(&f.dgid.raw[12], f.src, 4);
	}
	f.ctx = vt_start(dev);
	f.pd = ibv_alloc_pd(f.ctx);
	f.cq = ibv_create_cq(f.ctx, 4 * NVICTIM * RQ_DEPTH, NULL, NULL, 0);
	if (!f.pd || !f.cq)
		vt_bail("pd/cq");
	for (k = 0; k < NVICTIM; k++)
		victim_setup(&f.v[k], types[k]);
	/* IPPROTO_RAW: the header is ours (IPv6: implied since Linux 4.5) */
	sk = socket(f.v6 ? AF_INET6 : AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (sk < 0)
		vt_bail("raw socket");
	printf("# victims RC %u UC %u UD %u, live %d QPs\n", f.v[0].qp->qp_num,
	       f.v[1].qp->qp_num, f.v[2].qp->qp_num, f.nlive);

	t0 = vt_now_ms();
	rc = fuzz(sk, n);
	secs = (vt_now_ms() - t0) / 1e3;
	victims_poll(false);
	vt_check(!rc && tally.sent == n, "%lu packets sent in %.1f s (%.0f/s)",
		 tally.sent, secs, tally.sent / (secs > 0 ? secs : 1));
	bad = guards_touched();
	vt_check(!bad, "no byte written outside the victims' regions (%lu touched)",
		 bad);
	vt_check(!f.reset_fail, "victims put back to RTS %lu times, %lu failed",
		 f.resets, f.reset_fail);
	for (k = 0; k < NVICTIM; k++) {
		recvs += f.v[k].recvs;
		errs += f.v[k].errs;
	}
	printf("# account sent=%lu stack=%lu dev=%lu must_drop=%lu no_qp=%lu csum_bad=%lu victim=%lu live=%lu gsi=%lu spoofed=%lu marked=%lu recv_ok=%lu recv_err=%lu\n",
	       tally.sent, tally.stack, tally.dev, tally.must_drop, tally.no_qp,
	       tally.csum_bad, tally.victim, tally.live, tally.gsi, tally.spoofed,
	       tally.marked, recvs, errs);
	close(sk);
	for (k = 0; k < NVICTIM; k++) {
		if (ibv_destroy_qp(f.v[k].qp) || ibv_dereg_mr(f.v[k].mr))
			vt_bail("victim destroy");
		munmap(f.v[k].mem, REGION + 2 * GUARD);
	}
	if (ibv_destroy_cq(f.cq) || ibv_dealloc_pd(f.pd) ||
	    ibv_close_device(f.ctx))
		vt_bail("close");
	return vt_plan();
}
