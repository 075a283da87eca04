// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * libFuzzer target: the responder fed arbitrary request headers (decoded
 * from the input, so any opcode and field value), as the module does with
 * packets off the wire.  Resources found for a PSN must cover it, and the
 * expected PSN only moves when a request is accepted.
 */
#include <stdlib.h>

#include "mroce_core.h"
#include "mroce_psn.h"
#include "mroce_respwin.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct mroce_respwin_res res[4];
	struct mroce_respwin w;
	size_t i;

	if (size < 4)
		return 0;
	mroce_respwin_init(&w, data[0] << 16 | data[1] << 8 | data[2], res,
			   data[3] % 5);
	for (i = 4; i + MROCE_MAX_HDR_LEN + MROCE_ICRC_LEN <= size;
	     i += MROCE_MAX_HDR_LEN + MROCE_ICRC_LEN) {
		const struct mroce_respwin_res *r;
		struct mroce_hdr_layout lo;
		struct mroce_hdr h;
		u32 epsn = w.epsn;
		u32 pmtu = 256U << (data[i + 2] & 3);

		if (mroce_hdr_decode(data + i, MROCE_MAX_HDR_LEN +
				     MROCE_ICRC_LEN, &h, &lo) == -EOPNOTSUPP)
			continue;
		/* Bring the PSN near the expected one most of the time. */
		if (data[i + 9] & 0x80)
			h.bth.psn = mroce_psn_add(epsn, (s8)data[i + 10]);
		switch (mroce_respwin_check(&w, &h.bth)) {
		case MROCE_RESP_NEW:
			mroce_respwin_accept(&w, &h, pmtu);
			break;
		case MROCE_RESP_DUP:
			r = mroce_respwin_find(&w, h.bth.psn);
			if (r && !mroce_psn_in_window(h.bth.psn, r->first_psn,
					mroce_psn_dist(r->first_psn,
						       r->last_psn) + 1))
				abort();
			if (r)
				mroce_respwin_dup_read_check(r, &h, pmtu);
			/* fall through */
		default:
			if (w.epsn != epsn)
				abort();
		}
		mroce_respwin_ack_psn(&w);
		if (w.epsn >> 24 || w.msn >> 24 || w.res_next >= 5)
			abort();
	}
	return 0;
}
