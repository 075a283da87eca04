// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Transport timer encodings (IBTA 9.7.6.1.3, 9.7.5.2.8).
 */
#include "mroce_core.h"
#include "mroce_timer.h"

/*
 * IBTA 9.7.5.2.8 Table 45: RNR NAK timer field to delay, in units of 10 us.
 * Code 0 is the longest delay (655.36 ms); codes 1..31 grow roughly by a
 * factor of 1.5 / 1.33 alternately.
 */
static const u32 mroce_rnr_10us[MROCE_RNR_CODE_MAX + 1] = {
	65536,	1,	2,	3,	4,	6,	8,	12,
	16,	24,	32,	48,	64,	96,	128,	192,
	256,	384,	512,	768,	1024,	1536,	2048,	3072,
	4096,	6144,	8192,	12288,	16384,	24576,	32768,	49152,
};

/**
 * mroce_ack_timeout_ns() - Local ACK Timeout for the QP attribute @timeout
 * @timeout: 5-bit exponent; 4.096 us * 2^@timeout (IBTA 9.7.6.1.3)
 *
 * Return: the timeout in ns, or 0 for @timeout 0, which IBTA defines as
 * "infinite" (the transport timer is disabled).  Values above 31 are
 * treated as 31.
 */
u64 mroce_ack_timeout_ns(u8 timeout)
{
	if (!timeout)
		return 0;
	if (timeout > MROCE_ACK_TIMEOUT_MAX)
		timeout = MROCE_ACK_TIMEOUT_MAX;
	return 4096ULL << timeout;
}

u64 mroce_rnr_timeout_ns(u8 code)
{
	return mroce_rnr_10us[code & MROCE_RNR_CODE_MAX] *
	       (10 * MROCE_NSEC_PER_USEC);
}

/*
 * The smallest RNR code whose delay is at least @ns, for a responder that
 * knows how long it needs; longer than the table allows gives code 0.
 */
u8 mroce_rnr_code_for_ns(u64 ns)
{
	u8 code;

	for (code = 1; code <= MROCE_RNR_CODE_MAX; code++)
		if (mroce_rnr_timeout_ns(code) >= ns)
			return code;
	return 0;
}
