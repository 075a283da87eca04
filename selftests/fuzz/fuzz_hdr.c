// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * libFuzzer target: transport header decode (BTH to ICRC).
 *
 * Whatever decodes must re-encode to the same header bytes, and the
 * lengths it reports must add up to the input length.
 */
#include <stdlib.h>

#include "mroce_core.h"
#include "mroce_hdr.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct mroce_hdr_layout lo;
	struct mroce_hdr h;
	u8 out[MROCE_MAX_HDR_LEN];
	int len;

	if (mroce_hdr_decode(data, size, &h, &lo))
		return 0;
	if (lo.hdr_len + lo.pay_len + lo.pad + MROCE_ICRC_LEN != size)
		abort();
	if (!lo.op || lo.op != mroce_opcode_info(h.bth.opcode))
		abort();
	len = mroce_hdr_encode(out, sizeof(out), &h);
	if (len < 0 || (u32)len != lo.hdr_len || memcmp(out, data, len))
		abort();
	return 0;
}
