// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * libFuzzer target: MetaRoCE extension packet decode (BTH to ICRC,
 * Documentation/wire.rst).
 *
 * Whatever decodes must re-encode to the same header bytes (the decoder
 * accepts no reserved bit the encoder would drop), and the lengths it
 * reports must add up to the input length.
 */
#include <stdlib.h>

#include "mroce_core.h"
#include "mroce_ext.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	u8 out[MROCE_XMAX_HDR_LEN + MROCE_SACKH_LEN +
	       MROCE_SACKH_MAX_WORDS * MROCE_SACKH_WORD_LEN];
	struct mroce_xlayout lo;
	struct mroce_xhdr h;
	int len;

	if (mroce_xhdr_decode(data, size, &h, &lo))
		return 0;
	if (lo.hdr_len + lo.pay_len + lo.pad + MROCE_ICRC_LEN != size)
		abort();
	if (!lo.op || lo.op != mroce_xop_info(h.bth.opcode))
		abort();
	len = mroce_xhdr_encode(out, sizeof(out), &h);
	if (len < 0 || (u32)len != lo.hdr_len || memcmp(out, data, len))
		abort();
	return 0;
}
