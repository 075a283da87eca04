// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * libFuzzer target: the SACK scoreboard under arbitrary arrivals.  The
 * cumulative point is never marked, blocks are ordered, disjoint, inside
 * the window, and agree with mroce_sack_test().
 */
#include <stdlib.h>

#include "mroce_core.h"
#include "mroce_psn.h"
#include "mroce_sack.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct mroce_sack_block b[8];
	struct mroce_sack s;
	unsigned int n, k;
	size_t i;

	if (size < 3)
		return 0;
	mroce_sack_init(&s, data[0] << 16 | data[1] << 8 | data[2]);
	for (i = 3; i + 1 < size; i += 2) {
		u32 psn = mroce_psn_add(s.base, (data[i] | data[i + 1] << 8) -
					0x80);
		enum mroce_sack_verdict v = mroce_sack_mark(&s, psn);

		if (v == MROCE_SACK_NEW && !mroce_sack_test(&s, psn))
			abort();
		if (mroce_sack_test(&s, s.base))
			abort();
		n = mroce_sack_blocks(&s, b, data[i] % 9);
		for (k = 0; k < n; k++) {
			u32 lo = mroce_psn_dist(s.base, b[k].start);
			u32 hi = mroce_psn_dist(s.base, b[k].end);

			if (lo < 1 || hi <= lo || hi > MROCE_SACK_BITS ||
			    (k && mroce_psn_dist(s.base, b[k - 1].end) >= lo) ||
			    !mroce_sack_test(&s, b[k].start) ||
			    !mroce_sack_test(&s, mroce_psn_sub(b[k].end, 1)))
				abort();
		}
	}
	return 0;
}
