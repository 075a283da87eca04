// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Writes the seed corpus of the fuzz targets (make seeds): one encoded
 * packet per opcode for the parsers, plus short event streams for the
 * state machines.  The output is kept in the tree under corpus/.
 */
#include <stdio.h>
#include <stdlib.h>

#include "mroce_core.h"
#include "mroce_ext.h"
#include "mroce_hdr.h"
#include "mroce_ipudp.h"

static void put(const char *dir, const char *name, const u8 *p, size_t n)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static void make_pkt(struct mroce_pkt *pkt, bool v6, u8 op, u32 pay)
{
	unsigned int i;

	memset(pkt, 0, sizeof(*pkt));
	pkt->net.ipv6 = v6;
	pkt->net.ttl = 64;
	pkt->net.frag_off = MROCE_IPV4_DF;
	for (i = 0; i < 16; i++) {
		pkt->net.saddr[i] = v6 ? 0x20 + i : 10;
		pkt->net.daddr[i] = v6 ? 0x40 + i : 11;
	}
	pkt->net.sport = 0xc000 + op;
	pkt->net.dport = MROCE_ROCEV2_UDP_PORT;
	pkt->hdr.bth.opcode = op;
	pkt->hdr.bth.pkey = 0xffff;
	pkt->hdr.bth.dqpn = 0x12;
	pkt->hdr.bth.psn = 0x100 + op;
	pkt->hdr.bth.ackreq = true;
	pkt->hdr.reth.len = pay;
	pkt->hdr.reth.rkey = 0x1234;
	pkt->hdr.reth.va = 0x7f0000001000ULL;
	pkt->hdr.aeth.syndrome = op == MROCE_OP_RC_ACKNOWLEDGE ? 0x60 : 0x1f;
	pkt->hdr.deth.qkey = 0x11111111;
	pkt->hdr.deth.sqpn = 1;
	pkt->lo.pay_len = pay;
}

/* One valid MetaRoCE packet per kind (Documentation/wire.rst), 8 bytes of
 * payload on data kinds and a two-word SACK on the ACK. */
static void ext_seeds(const char *corpus)
{
	u8 buf[128];
	char dir[512];
	unsigned int op;

	snprintf(dir, sizeof(dir), "%s/fuzz_ext", corpus);
	for (op = MROCE_XOP_BASE; op <= MROCE_XOP_ACK; op++) {
		const struct mroce_xop_info *info = mroce_xop_info(op);
		bool data = info->flags & MROCE_OPF_PAYLOAD;
		struct mroce_xhdr h = {
			.bth = { .opcode = op, .pkey = 0xffff, .psn = op },
			.mxh = { .ver = MROCE_XVER, .path = 3, .ts = 1000 },
			.msgh = { .msn = 1, .len = 8 },
			.reth = { .va = 0x1000, .rkey = 0x1234, .len = 8 },
			.sack = { .words = 2, .map = { 0x6, 0x1 } },
		};
		int len;

		if (info->hdrs & MROCE_XHF(MROCE_XEXT_MSGH))
			h.mxh.flags = MROCE_MXH_F_FIRST | MROCE_MXH_F_LAST;
		len = mroce_xhdr_encode(buf, sizeof(buf), &h);
		if (len < 0)
			exit(1);
		memset(buf + len, 0x5a, (data ? 8 : 0) + MROCE_ICRC_LEN);
		put(dir, info->name, buf, len + (data ? 8 : 0) + MROCE_ICRC_LEN);
	}
}

int main(int argc, char **argv)
{
	static const u8 stream[] = {
		0x00, 0x00, 0x10, 0x00, 0x08, 0x3a, 0x0e,
		0x00, 0x00, 0x01, 0x01, 0x01, 0x03, 0x01, 0x01,
		0x02, 0x01, 0x01, 0x01, 0x03, 0x02, 0x01, 0x60,
		0x04, 0x01, 0x01, 0x00, 0x05, 0x00, 0x00, 0x00,
		0x03, 0x01, 0x01, 0x21, 0x05, 0x00, 0x00, 0xff,
		0x06, 0x04, 0x00, 0x00, 0x02, 0x05, 0x01, 0x00,
	};
	/* the same kind of stream for a selective window (data[6] & 0x80),
	 * with SACKs (op 6), probe and RTO timers, resends */
	static const u8 stream_sr[] = {
		0x00, 0x00, 0x10, 0x00, 0x08, 0x3a, 0x8e,
		0x00, 0x00, 0x01, 0x01, 0x00, 0x00, 0x02, 0x01,
		0x00, 0x00, 0x03, 0x01, 0x00, 0x00, 0x04, 0x01,
		0x0e, 0x03, 0x10, 0x05, 0x01, 0x00, 0x00, 0x01,
		0x05, 0x00, 0x00, 0x20, 0x01, 0x00, 0x00, 0x01,
		0x4e, 0x08, 0x00, 0x00, 0x05, 0x00, 0x00, 0xff,
		0x01, 0x00, 0x00, 0x01, 0x06, 0x07, 0x00, 0x00,
	};
	u8 payload[64], buf[256], seed[257];
	char name[64];
	unsigned int op, v;

	if (argc != 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
		return 2;
	}
	for (v = 0; v < sizeof(payload); v++)
		payload[v] = v;
	for (op = 0; op < 256; op++) {
		const struct mroce_opcode_info *info = mroce_opcode_info(op);
		u32 pay = info && (info->flags & MROCE_OPF_PAYLOAD) ? 13 : 0;
		struct mroce_pkt pkt;
		int len, hl;
		char dir[512];

		if (!info)
			continue;
		for (v = 0; v < 2; v++) {
			make_pkt(&pkt, v, op, pay);
			len = mroce_pkt_encode(buf, sizeof(buf), &pkt,
					       payload);
			if (len < 0)
				return 1;
			seed[0] = 1;
			memcpy(seed + 1, buf, len);
			snprintf(dir, sizeof(dir), "%s/fuzz_pkt", argv[1]);
			snprintf(name, sizeof(name), "%s-ipv%u", info->name,
				 v ? 6 : 4);
			put(dir, name, seed, len + 1);
			if (v)
				continue;
			hl = pkt.net.hdr_len;
			snprintf(dir, sizeof(dir), "%s/fuzz_hdr", argv[1]);
			put(dir, info->name, buf + hl, len - hl);
			snprintf(dir, sizeof(dir), "%s/fuzz_respwin", argv[1]);
			seed[0] = 0;
			seed[1] = 1;
			seed[2] = op;
			seed[3] = 4;
			memset(seed + 4, 0, 44);
			memcpy(seed + 4, buf + hl, len - hl > 44 ? 44 : len - hl);
			seed[4 + 9] |= 0x80;
			put(dir, info->name, seed, 48);
		}
	}
	snprintf(name, sizeof(name), "%s/fuzz_reqwin", argv[1]);
	put(name, "stream", stream, sizeof(stream));
	put(name, "stream-sr", stream_sr, sizeof(stream_sr));
	snprintf(name, sizeof(name), "%s/fuzz_sack", argv[1]);
	put(name, "stream", stream, sizeof(stream));
	ext_seeds(argv[1]);
	return 0;
}
