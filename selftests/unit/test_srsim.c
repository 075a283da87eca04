// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Selective repeat end to end on the host: the core's requester window
 * and receive scoreboard over a simulated lossy, reordering link
 * (srsim.c).  The goodput bounds are the targets of issue 13 for the
 * kernel, met here by the algorithms alone; the kernel's own figures come
 * from make bench.
 */
#include "mroce_core.h"
#include "mroce_test.h"
#include "srsim.h"

#include <stdio.h>

static void show(const char *what, const struct srsim_res *r,
		 const struct srsim_res *clean)
{
	printf("# %-28s %s %6.2f ms, %3u%% of clean, sent %llu resent %llu "
	       "spurious %llu (seen %llu) rack %llu tlp %llu rto %llu "
	       "srtt %llu ns\n",
	       what, r->done ? "done" : "NOT DONE", r->elapsed_ns / 1e6,
	       srsim_ratio(r, clean), (unsigned long long)r->sent,
	       (unsigned long long)r->resent,
	       (unsigned long long)r->spurious,
	       (unsigned long long)r->spurious_seen,
	       (unsigned long long)r->rack_losses,
	       (unsigned long long)r->tlp_probes,
	       (unsigned long long)r->rto_fires,
	       (unsigned long long)r->srtt_ns);
}

TEST(srsim_clean)
{
	struct srsim_cfg c;
	struct srsim_res r;

	srsim_defaults(&c);
	ASSERT_EQ(srsim_run(&c, &r), 0);
	show("clean", &r, &r);
	EXPECT_TRUE(r.done);
	EXPECT_EQ(r.delivered, c.units);
	EXPECT_EQ(r.resent, 0);
	EXPECT_EQ(r.sent, c.units);
	EXPECT_EQ(r.tlp_probes + r.rto_fires + r.rack_losses, 0);
	/* the window (128 x 1 us) covers the RTT (40 us): link-bound */
	EXPECT_TRUE(r.elapsed_ns < c.units * c.tx_ns * 11 / 10);
}

/* Issue 13's targets: >= 70% of clean at 1% loss, >= 40% at 5%. */
TEST(srsim_loss)
{
	static const u32 ppm[] = { 1000, 10000, 50000, 100000 };
	static const u32 floor[] = { 90, 70, 40, 20 };
	struct srsim_res clean, r;
	struct srsim_cfg c;
	char what[64];
	unsigned int i;

	srsim_defaults(&c);
	ASSERT_EQ(srsim_run(&c, &clean), 0);
	for (i = 0; i < ARRAY_SIZE(ppm); i++) {
		c.loss_ppm = ppm[i];
		ASSERT_EQ(srsim_run(&c, &r), 0);
		snprintf(what, sizeof(what), "loss %.1f%%", ppm[i] / 1e4);
		show(what, &r, &clean);
		EXPECT_TRUE(r.done);
		EXPECT_TRUE(srsim_ratio(&r, &clean) >= floor[i]);
		/* only what was lost goes again, give or take the probes */
		EXPECT_TRUE(r.resent <= r.sent * ppm[i] / 1000000 * 2 + 64);
	}
}

/*
 * netem "delay 1ms reorder 25%": a quarter of the packets skip the delay.
 * @r against @plain, the delay alone; ACKs reordered too with
 * @both_ways, and without timestamp echo with @no_echo.
 */
static int reorder_case(const char *what, bool both_ways, bool no_echo,
			struct srsim_res *plain, struct srsim_res *r)
{
	struct srsim_cfg c;
	int err;

	srsim_defaults(&c);
	c.delay_ns = 1000 * 1000;
	c.units = 20000;
	c.ack_reorder = both_ways;
	c.no_echo = no_echo;
	err = srsim_run(&c, plain);
	if (err)
		return err;
	c.reorder_ppm = 250000;
	err = srsim_run(&c, r);
	show(what, r, plain);
	return err;
}

/* Target: >= 90% of the delay alone, spurious resends < 1%. */
TEST(srsim_reorder)
{
	struct srsim_res plain, r;

	ASSERT_EQ(reorder_case("delay 1 ms, reorder 25%", false, false,
			       &plain, &r), 0);
	EXPECT_TRUE(r.done);
	EXPECT_TRUE(srsim_ratio(&r, &plain) >= 90);
	EXPECT_TRUE(r.spurious * 100 < r.sent);
}

/*
 * As the kernel runs it: netem on both ends, so ACKs are reordered too,
 * with the timestamp echo of the MetaRoCE request kinds.  Every unit
 * arrives and the goodput holds.  Open: here about half the packets sent
 * are spurious resends, and the sender sees few of them (the duplicate
 * ACKs come back after more than MROCE_SR_HIST newer resends), while
 * make bench, netem on both ends of a veth with the same impairment,
 * measures 0.03% for 64 KiB WRITEs.  The simulator ACKs every packet
 * that arrives out of order and the module coalesces; which difference
 * matters is not known yet.  The bound only catches it getting worse.
 */
TEST(srsim_reorder_both_ways)
{
	struct srsim_res plain, r;

	ASSERT_EQ(reorder_case("reorder 25% both ways", true, false, &plain,
			       &r), 0);
	EXPECT_TRUE(r.done);
	EXPECT_TRUE(srsim_ratio(&r, &plain) >= 90);
	EXPECT_TRUE(r.spurious * 10 < r.sent * 7);
}

/*
 * Without the echo (what selective repeat had before the requests carried
 * a timestamp): RTT by Karn's rule, spurious resends seen only from the
 * duplicate flag during a recovery.  Every unit still arrives and the
 * goodput holds, but most packets sent are spurious resends: RACK's clock
 * for a late unit starts from the RTT of an early one, and the reorder
 * window learns only from late units it did not resend.  Kept to show
 * what the echo is for.
 */
TEST(srsim_reorder_no_echo)
{
	struct srsim_res plain, r;

	ASSERT_EQ(reorder_case("reorder 25% both ways, no echo", true, true,
			       &plain, &r), 0);
	EXPECT_TRUE(r.done);
	EXPECT_TRUE(srsim_ratio(&r, &plain) >= 90);
	EXPECT_TRUE(r.spurious > r.sent / 10);
}

/* Jitter, duplicates, lost ACKs, all at once, and still every unit. */
TEST(srsim_mixed)
{
	struct srsim_res clean, r;
	struct srsim_cfg c;
	u64 seed;

	srsim_defaults(&c);
	c.units = 5000;
	ASSERT_EQ(srsim_run(&c, &clean), 0);
	c.jitter_ns = 30000;
	c.dup_ppm = 20000;
	c.ack_loss_ppm = 100000;
	c.loss_ppm = 20000;
	for (seed = 1; seed <= 8; seed++) {
		c.seed = seed;
		ASSERT_EQ(srsim_run(&c, &r), 0);
		EXPECT_TRUE(r.done);
		EXPECT_FALSE(r.retry_exceeded);
		EXPECT_EQ(r.delivered, c.units);
		EXPECT_TRUE(r.rx_dups > 0);
	}
	show("jitter, dup, ACK loss, 2%", &r, &clean);
}

/* A receiver that vanishes: RETRY_EXC_ERR after exactly the budget. */
TEST(srsim_peer_gone)
{
	struct srsim_res r;
	struct srsim_cfg c;

	srsim_defaults(&c);
	c.dead_after = true;
	c.retry_cnt = 3;
	ASSERT_EQ(srsim_run(&c, &r), 0);
	show("receiver gone", &r, &r);
	EXPECT_FALSE(r.done);
	EXPECT_TRUE(r.retry_exceeded);
	/* four Local ACK Timeouts of 67 ms from the last progress */
	EXPECT_TRUE(r.elapsed_ns >= 4 * (4096ULL << 14));
	EXPECT_TRUE(r.elapsed_ns < 4 * (4096ULL << 14) + 20 * MROCE_NSEC_PER_MSEC);
	EXPECT_TRUE(r.rto_fires > 4);
}
