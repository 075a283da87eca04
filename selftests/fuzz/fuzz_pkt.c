// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * libFuzzer target: whole RoCEv2 packet decode (IP header to ICRC).
 *
 * The first input byte selects a mode: with bit 0 set, the IPv4 header
 * checksum and the ICRC of the rest are repaired before decoding, so that
 * the fuzzer gets past the integrity checks and exercises everything
 * behind them.  A packet that decodes and is in canonical form (minimal
 * pad, zero pad bytes) must re-encode byte for byte.
 */
#include <stdlib.h>

#include "mroce_core.h"
#include "mroce_icrc.h"
#include "mroce_ipudp.h"
#include "mroce_raw.h"

#define MAX_PKT	4200

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

static void repair(u8 *p, size_t size)
{
	struct mroce_ipudp net;
	u32 icrc;

	if (mroce_ipudp_decode(p, size, &net))
		return;
	if (!net.ipv6)
		mroce_put_be16(p + 10, mroce_ipv4_csum(p));
	if (!mroce_icrc_compute(p, net.ip_len - MROCE_ICRC_LEN, net.ipv6,
				&icrc) &&
	    net.ip_len >= net.hdr_len + MROCE_BTH_LEN + MROCE_ICRC_LEN)
		mroce_put_le32(p + net.ip_len - MROCE_ICRC_LEN, icrc);
}

static bool canonical(const u8 *p, const struct mroce_pkt *pkt)
{
	u32 i;

	if (pkt->lo.pad != (-pkt->lo.pay_len & 3))
		return false;
	for (i = 0; i < pkt->lo.pad; i++)
		if (p[pkt->pay_off + pkt->lo.pay_len + i])
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static u8 buf[MAX_PKT], out[MAX_PKT];
	struct mroce_pkt pkt;
	int len;

	if (size < 1 || size - 1 > MAX_PKT)
		return 0;
	memcpy(buf, data + 1, size - 1);
	if (data[0] & 1)
		repair(buf, size - 1);
	if (mroce_pkt_decode(buf, size - 1, &pkt))
		return 0;
	if (pkt.net.ip_len > size - 1 ||
	    pkt.pay_off + pkt.lo.pay_len + pkt.lo.pad + MROCE_ICRC_LEN !=
	    pkt.net.ip_len)
		abort();
	if (!canonical(buf, &pkt))
		return 0;
	len = mroce_pkt_encode(out, sizeof(out), &pkt, buf + pkt.pay_off);
	if (len < 0 || (u32)len != pkt.net.ip_len || memcmp(out, buf, len))
		abort();
	return 0;
}
