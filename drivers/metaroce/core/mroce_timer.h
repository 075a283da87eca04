/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Transport timer values: the Local ACK Timeout (IBTA 9.7.6.1.3) and the
 * RNR NAK timer encoding (IBTA 9.7.5.2.8 Table 45).  All results are in
 * nanoseconds.
 */
#ifndef MROCE_TIMER_H
#define MROCE_TIMER_H

#include "mroce_core.h"

#define MROCE_ACK_TIMEOUT_MAX	31
#define MROCE_RNR_CODE_MAX	31

u64 mroce_ack_timeout_ns(u8 timeout);
u64 mroce_rnr_timeout_ns(u8 code);
u8 mroce_rnr_code_for_ns(u64 ns);

#endif /* MROCE_TIMER_H */
