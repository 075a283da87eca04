/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Shared by the verbs C tests that report TAP 13 (flush_race, qp_edges,
 * verbs_fatal): results, bail-out, a clock, opening a device by name.
 */
#ifndef VT_H
#define VT_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../datapath/dp_test.h"

static int vt_ntests, vt_nfail;

/* One TAP result; @why explains a failure. */
static inline void vt_result(bool ok, const char *what, const char *why)
{
	vt_ntests++;
	vt_nfail += !ok;
	printf("%s %d %s%s%s\n", ok ? "ok" : "not ok", vt_ntests, what,
	       ok || !why ? "" : " # ", ok || !why ? "" : why);
}

/* The plan, last; the exit status of the program. */
static inline int vt_plan(void)
{
	printf("1..%d\n", vt_ntests);
	return vt_nfail ? 1 : 0;
}

/* A setup step failed: nothing after it means anything. */
static inline void vt_bail(const char *what)
{
	printf("Bail out! %s: %s\n", what, strerror(errno));
	exit(2);
}

static inline double vt_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Line-buffered TAP output and the device called @name, or bail out. */
static inline struct ibv_context *vt_start(const char *name)
{
	struct ibv_context *ctx;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ctx = dp_open_dev(name);
	if (!ctx)
		vt_bail(name);
	return ctx;
}

#endif /* VT_H */
