// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Selective repeat: the RTT estimator, SACKED units in the scoreboard,
 * RACK loss detection, the tail-loss probe and the RTT-based timeout, and
 * the retry budget they must not consume.
 */
#include "mroce_core.h"
#include "mroce_reqwin.h"
#include "mroce_hdr.h"
#include "mroce_psn.h"
#include "mroce_test.h"

#define ACK	mroce_aeth_ack_syndrome(MROCE_AETH_CREDITS_INVALID)
#define US	MROCE_NSEC_PER_USEC
#define MS	MROCE_NSEC_PER_MSEC
#define IBTA_TO	(4096ULL << 14)		/* timeout 14: 67 ms */

static void sr_setup(struct mroce_reqwin *w, u32 psn)
{
	struct mroce_reqwin_cfg cfg = {
		.psn = psn, .wnd = 64, .retry_cnt = 2, .rnr_retry = 1,
		.timeout = 14, .selective = true, .ack_delay = 10 * US,
	};

	mroce_reqwin_init(w, &cfg);
}

/* The same, with an RTT of 100 us measured. */
static void sr_setup_rtt(struct mroce_reqwin *w)
{
	sr_setup(w, 0);
	mroce_rtt_sample(&w->rtt, 100 * US);
}

/* Send @n one-PSN units at @now; the first PSN. */
static u32 sr_send(struct mroce_reqwin *w, u32 n, u64 now)
{
	u32 psn = 0, first = 0, i;

	for (i = 0; i < n; i++) {
		if (mroce_reqwin_sent(w, 1, now, i, &psn))
			break;
		if (!i)
			first = psn;
	}
	return first;
}

/* An ACK of everything up to @cum, with @map (one word) past it. */
static int sr_ack(struct mroce_reqwin *w, u32 cum, u64 map, u64 rtt,
		  u64 now, struct mroce_reqwin_res *res)
{
	struct mroce_sr_ack a = {
		.psn = cum, .syndrome = ACK, .words = map ? 1 : 0,
		.rtt = rtt, .map = &map,
	};

	return mroce_reqwin_on_sack(w, &a, now, res);
}

/* Resend every lost unit at @now; how many. */
static u32 sr_resend_all(struct mroce_reqwin *w, u64 now)
{
	u32 psn, wqe, n = 0;

	while (mroce_reqwin_resend(w, now, &psn, &wqe)) {
		if (mroce_reqwin_resent(w, psn, 1, now))
			break;
		n++;
	}
	return n;
}

TEST(rtt_estimator)
{
	struct mroce_rtt_cfg cfg = { 0 };
	struct mroce_rtt r;

	mroce_rtt_init(&r, &cfg);
	EXPECT_EQ(mroce_rtt_rto(&r), MROCE_RTT_INIT_RTO_NS);
	EXPECT_EQ(mroce_rtt_pto(&r, false, 0), MROCE_RTT_INIT_RTO_NS);
	mroce_rtt_sample(&r, 200 * US);
	EXPECT_EQ(r.srtt, 200 * US);
	EXPECT_EQ(r.rttvar, 100 * US);
	EXPECT_EQ(mroce_rtt_rto(&r), 600 * US);
	EXPECT_EQ(mroce_rtt_pto(&r, false, 0), 400 * US);
	EXPECT_EQ(mroce_rtt_pto(&r, true, 50 * US), 450 * US);
	/* RFC 6298: RTTVAR = 3/4 * 100 + 1/4 * |200 - 100|, SRTT = 7/8 *
	 * 200 + 1/8 * 100 */
	mroce_rtt_sample(&r, 100 * US);
	EXPECT_EQ(r.rttvar, 100 * US);
	EXPECT_EQ(r.srtt, 187500);
	EXPECT_EQ(r.min_rtt, 100 * US);
	EXPECT_EQ(r.latest, 100 * US);
	/* converges on a steady path; the minimum RTO holds */
	for (int i = 0; i < 100; i++)
		mroce_rtt_sample(&r, 20 * US);
	EXPECT_TRUE(r.srtt < 21 * US);
	EXPECT_EQ(mroce_rtt_rto(&r), MROCE_RTT_MIN_RTO_NS);
	/* backoff doubles up to its limit and the maximum RTO */
	for (int i = 0; i < MROCE_RTT_MAX_BACKOFF; i++)
		EXPECT_TRUE(mroce_rtt_backoff(&r));
	EXPECT_FALSE(mroce_rtt_backoff(&r));
	EXPECT_EQ(mroce_rtt_rto(&r),
		  MROCE_RTT_MIN_RTO_NS << MROCE_RTT_MAX_BACKOFF);
	mroce_rtt_sample(&r, 0);
	EXPECT_EQ(r.backoff, 0);
	EXPECT_EQ(r.min_rtt, 1);

	cfg.min_rto = 5 * MS;
	cfg.max_rto = 1 * MS;	/* below the minimum: raised to it */
	cfg.max_backoff = 2;
	mroce_rtt_init(&r, &cfg);
	EXPECT_EQ(r.max_rto, 5 * MS);
	EXPECT_EQ(mroce_rtt_rto(&r), 5 * MS);
	mroce_rtt_backoff(&r);
	EXPECT_EQ(mroce_rtt_rto(&r), 5 * MS);
}

TEST(sb_sacked_units)
{
	struct mroce_sb sb;

	mroce_sb_init(&sb);
	for (u32 p = 10; p < 20; p++)
		mroce_sb_sent(&sb, p, 1, p, 1000);
	mroce_sb_sent(&sb, 20, 4, 20, 1000);	/* a READ of 4 PSNs */
	EXPECT_TRUE(mroce_sb_sack(&sb, 10, 24, 12));
	EXPECT_FALSE(mroce_sb_sack(&sb, 10, 24, 12));	/* twice */
	EXPECT_FALSE(mroce_sb_sack(&sb, 10, 24, 21));	/* inside a READ */
	EXPECT_TRUE(mroce_sb_sack(&sb, 10, 24, 23));	/* its last PSN */
	EXPECT_FALSE(mroce_sb_sack(&sb, 10, 24, 24));	/* not in flight */
	EXPECT_FALSE(mroce_sb_sack(&sb, 10, 24, 9));
	EXPECT_EQ(sb.sacked, 5);	/* PSNs: 12 and the READ's 4 */
	/* go-back-N passes over SACKED units */
	EXPECT_EQ(mroce_sb_lose(&sb, 10, 24), 9);
	EXPECT_EQ(mroce_sb_at(&sb, 12)->state, MROCE_SB_SACKED);
	EXPECT_EQ(mroce_sb_at(&sb, 20)->state, MROCE_SB_SACKED);
	/* a lost unit reported arrived needs no resend */
	EXPECT_TRUE(mroce_sb_sack(&sb, 10, 24, 13));
	EXPECT_EQ(sb.lost, 8);
	EXPECT_EQ(sb.sacked, 6);
	/* lose_unit: only units in flight, by head */
	EXPECT_FALSE(mroce_sb_lose_unit(&sb, 14));	/* already lost */
	EXPECT_FALSE(mroce_sb_lose_unit(&sb, 12));	/* SACKED */
	EXPECT_FALSE(mroce_sb_lose_unit(&sb, 21));	/* not a head */
	mroce_sb_acked(&sb, 10, 24);
	EXPECT_EQ(sb.sacked, 0);
	EXPECT_EQ(sb.lost, 0);
	EXPECT_EQ(mroce_sb_unit_end(&sb, 21), 24);
}

/*
 * A READ resent from its middle leaves an older record spanning the new
 * unit; acknowledging both must leave no slot SACKED behind (found by
 * fuzz_reqwin: the count went past the PSNs in flight).
 */
TEST(sb_sacked_split_read)
{
	struct mroce_sb sb;
	u32 psn;

	mroce_sb_init(&sb);
	mroce_sb_sent(&sb, 20, 5, 1, 100);		/* READ 20..24 */
	EXPECT_EQ(mroce_sb_lose(&sb, 20, 25), 1);
	/* its first two responses came: resent from 22 */
	EXPECT_TRUE(mroce_sb_next_lost(&sb, 22, 25, &psn));
	EXPECT_EQ(psn, 22);
	EXPECT_EQ(mroce_sb_resent(&sb, 22, 25, 22, 3, 200), 0);
	EXPECT_TRUE(mroce_sb_sack(&sb, 22, 25, 24));
	EXPECT_EQ(sb.sacked, 3);
	/* acknowledged from the old head: the record at 20 spans 20..24 */
	mroce_sb_acked(&sb, 20, 25);
	EXPECT_EQ(sb.sacked, 0);
	/* and in parts */
	mroce_sb_sent(&sb, 30, 4, 2, 300);		/* READ 30..33 */
	EXPECT_TRUE(mroce_sb_sack(&sb, 30, 34, 33));
	mroce_sb_acked(&sb, 30, 32);
	EXPECT_EQ(sb.sacked, 2);
	EXPECT_EQ(mroce_sb_lose(&sb, 32, 34), 0);	/* still SACKED */
	mroce_sb_acked(&sb, 32, 34);
	EXPECT_EQ(sb.sacked, 0);
	/* a slot reused while SACKED (a caller's slip) is not counted */
	mroce_sb_sent(&sb, 40, 1, 3, 400);
	EXPECT_TRUE(mroce_sb_sack(&sb, 40, 41, 40));
	mroce_sb_sent(&sb, 40 + MROCE_SB_SLOTS, 1, 4, 500);
	EXPECT_EQ(sb.sacked, 0);
}

/*
 * A READ lost from its middle on, then found lost from an earlier PSN (a
 * hole before the first): one lost unit, lost from there (found by
 * fuzz_reqwin: lost units plus SACKED PSNs went past the PSNs in flight).
 */
TEST(sb_lose_answer_lost_tail)
{
	struct mroce_sb sb;
	u32 psn;

	mroce_sb_init(&sb);
	mroce_sb_sent(&sb, 10, 8, 1, 100);		/* READ 10..17 */
	EXPECT_TRUE(mroce_sb_lose_answer(&sb, 14));
	EXPECT_EQ(sb.lost, 1);
	EXPECT_EQ(mroce_sb_at(&sb, 12)->state, MROCE_SB_INFLIGHT);
	EXPECT_TRUE(mroce_sb_lose_answer(&sb, 12));	/* from 12 now */
	EXPECT_EQ(sb.lost, 1);			/* one unit still */
	EXPECT_FALSE(mroce_sb_lose_answer(&sb, 13));	/* lost already */
	EXPECT_EQ(mroce_sb_at(&sb, 12)->state, MROCE_SB_LOST);
	EXPECT_TRUE(mroce_sb_next_lost(&sb, 10, 18, &psn));
	EXPECT_EQ(psn, 12);
	mroce_sb_acked(&sb, 10, 18);
	EXPECT_EQ(sb.lost, 0);
}

TEST(sr_hole_resent_alone)
{
	struct mroce_reqwin w;
	struct mroce_reqwin_res res;
	u32 first, psn, wqe;

	sr_setup(&w, 100);
	first = sr_send(&w, 10, 1000);
	EXPECT_EQ(first, 100);
	/* 100..102 in order, 103 missing, 104..109 arrived */
	EXPECT_EQ(sr_ack(&w, 102, 0x3fULL << 1, 0, 1000 + 50 * US, &res), 0);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_LOSS);
	EXPECT_EQ(res.psn, 103);
	EXPECT_EQ(res.acked, 3);
	EXPECT_EQ(w.una, 103);
	EXPECT_EQ(w.sb.sacked, 6);
	EXPECT_EQ(w.st.sacked, 6);
	EXPECT_EQ(w.st.rack_losses, 1);
	EXPECT_EQ(mroce_reqwin_lost(&w), 1);
	/* found missing alone: its path may be charged */
	EXPECT_FALSE(mroce_reqwin_lost_in_bulk(&w, 103));
	/* no echo: the newest unit sent once gives the RTT (Karn) */
	EXPECT_EQ(w.rtt.srtt, 50 * US);
	/* only 103 goes again */
	EXPECT_TRUE(mroce_reqwin_resend(&w, 1000 + 50 * US, &psn, &wqe));
	EXPECT_EQ(psn, 103);
	EXPECT_EQ(wqe, 3);
	EXPECT_EQ(sr_resend_all(&w, 1000 + 50 * US), 1);
	EXPECT_EQ(w.st.sack_retransmits, 1);
	EXPECT_FALSE(mroce_reqwin_resend(&w, 1000 + 50 * US, &psn, &wqe));
	/* its ACK covers the whole window and ends the recovery */
	EXPECT_EQ(sr_ack(&w, 109, 0, 40 * US, 1000 + 90 * US, &res), 0);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_ACKED);
	EXPECT_EQ(res.acked, 7);
	EXPECT_EQ(w.una, 110);
	EXPECT_EQ(w.sb.sacked, 0);
	EXPECT_FALSE(w.in_rec);
	EXPECT_FALSE(w.rec_armed);
	EXPECT_EQ(w.rtt.srtt, 48750);	/* 7/8 * 50 + 1/8 * 40 us */
	EXPECT_EQ(w.retry_left, 2);
}

TEST(sr_reordering_tolerated)
{
	struct mroce_reqwin w;
	struct mroce_reqwin_res res;
	u64 t = 1000000, deadline;

	sr_setup_rtt(&w);
	/*
	 * Unit 1 overtakes unit 0.  With one unit SACKED, below the
	 * duplicate threshold, RACK waits a quarter of the minimum RTT.
	 */
	sr_send(&w, 4, t);
	sr_ack(&w, MROCE_PSN_MASK, 0x2, 0, t + 100 * US, &res);	/* 1 */
	EXPECT_EQ(res.verdict, MROCE_REQWIN_ACKED);
	EXPECT_EQ(w.reo_at, t + 125 * US);
	EXPECT_FALSE(w.rack.reordered);
	/* 0 comes 1 us later: the path reorders, by 1 us at least */
	sr_ack(&w, 1, 0, 0, t + 101 * US, &res);
	EXPECT_TRUE(w.rack.reordered);
	EXPECT_EQ(w.rack.extent, 1 * US);
	EXPECT_EQ(w.reo_at, 0);
	/* 3 arrives, 2 does not: lost a window after 3's RTT */
	sr_ack(&w, 1, 0x2, 0, t + 110 * US, &res);
	EXPECT_EQ(w.reo_at, t + 135 * US);
	mroce_reqwin_on_timer(&w, t + 135 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_LOSS);
	EXPECT_EQ(res.psn, 2);
	EXPECT_EQ(sr_resend_all(&w, t + 135 * US), 1);
	/*
	 * But 2 was only late: the receiver got the resend as a duplicate,
	 * and its ACK echoes the resend's send time.
	 */
	{
		struct mroce_sr_ack a = {
			.psn = 3, .syndrome = ACK, .dup = true,
			.rtt = 100 * US,
		};
		EXPECT_EQ(mroce_reqwin_on_sack(&w, &a, t + 235 * US, &res),
			  0);
	}
	EXPECT_EQ(w.st.spurious, 1);
	EXPECT_TRUE(res.spurious);
	EXPECT_EQ(res.spurious_psn, 2);
	EXPECT_EQ(w.rack.mult, 2);
	EXPECT_EQ(w.una, 4);
	/* the same resend reported again counts once */
	{
		struct mroce_sr_ack a = {
			.psn = 3, .syndrome = ACK, .dup = true,
			.rtt = 105 * US,
		};
		mroce_reqwin_on_sack(&w, &a, t + 240 * US, &res);
	}
	EXPECT_EQ(w.st.spurious, 1);
	EXPECT_FALSE(res.spurious);
	/* a copy the network made (echo: a first transmission) is none */
	{
		struct mroce_sr_ack a = {
			.psn = 3, .syndrome = ACK, .dup = true,
			.rtt = 250 * US,
		};
		mroce_reqwin_on_sack(&w, &a, t + 250 * US, &res);
	}
	EXPECT_EQ(w.st.spurious, 1);
	EXPECT_EQ(w.rack.mult, 2);

	/* now a later unit overtakes an earlier one: not lost at once */
	t += MS;
	sr_send(&w, 2, t);			/* 4, 5 */
	sr_send(&w, 1, t + 10 * US);		/* 6 */
	sr_ack(&w, 3, 0x4, 80 * US, t + 90 * US, &res);	/* 6 arrived */
	EXPECT_EQ(res.verdict, MROCE_REQWIN_ACKED);
	EXPECT_EQ(mroce_reqwin_lost(&w), 0);
	/* RACK waits RTT (80 us) + window (2 * min_rtt / 4 = 40 us) */
	deadline = w.reo_at;
	EXPECT_EQ(deadline, t + 80 * US + 40 * US);
	EXPECT_TRUE(mroce_reqwin_next_event(&w, &deadline));
	EXPECT_EQ(deadline, t + 120 * US);
	/* 4 and 5 arrive inside the window: nothing was resent */
	sr_ack(&w, 6, 0, 0, t + 110 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_ACKED);
	EXPECT_EQ(w.st.rack_losses, 1);
	EXPECT_EQ(w.reo_at, 0);

	/* the same, but they never come: the deadline loses both */
	t += MS;
	sr_send(&w, 2, t);			/* 7, 8 */
	sr_send(&w, 1, t + 10 * US);		/* 9 */
	sr_ack(&w, 6, 0x4, 80 * US, t + 90 * US, &res);
	mroce_reqwin_on_timer(&w, t + 100 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_NOT_DUE);
	EXPECT_EQ(res.at, t + 120 * US);
	mroce_reqwin_on_timer(&w, t + 120 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_LOSS);
	EXPECT_EQ(res.psn, 7);
	EXPECT_EQ(mroce_reqwin_lost(&w), 2);
	EXPECT_EQ(w.st.rack_losses, 3);
}

/*
 * A unit resent by RACK whose first copy arrives after the resend: the
 * receiver's duplicate ACK echoes the first copy's send time.  The resend
 * was spurious, and that copy's RTT measures how late the path delivers.
 */
TEST(sr_late_first_copy)
{
	struct mroce_reqwin w;
	struct mroce_reqwin_res res;
	u64 t = 1000000;

	sr_setup_rtt(&w);
	sr_send(&w, 4, t);			/* 0..3 */
	/* 1, 2, 3 arrive: three SACKED, RACK loses 0 at once */
	sr_ack(&w, MROCE_PSN_MASK, 0xe, 100 * US, t + 100 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_LOSS);
	EXPECT_EQ(res.psn, 0);
	EXPECT_EQ(sr_resend_all(&w, t + 110 * US), 1);
	/* the resend arrives first (cumulative ACK, its own echo) */
	sr_ack(&w, 3, 0, 100 * US, t + 210 * US, &res);
	EXPECT_EQ(w.una, 4);
	EXPECT_EQ(w.st.spurious, 0);
	/* then the first copy, 1 ms after it was sent: a duplicate */
	{
		struct mroce_sr_ack a = {
			.psn = 3, .syndrome = ACK, .dup = true,
			.rtt = 1000 * US,
		};
		EXPECT_EQ(mroce_reqwin_on_sack(&w, &a, t + 1000 * US, &res),
			  0);
	}
	EXPECT_EQ(w.st.spurious, 1);
	EXPECT_TRUE(res.spurious);
	EXPECT_EQ(res.spurious_psn, 0);
	EXPECT_TRUE(w.rack.reordered);
	/* 1 ms against a minimum RTT of 100 us: 900 us of reordering */
	EXPECT_EQ(w.rack.extent, 900 * US);
	EXPECT_TRUE(mroce_rack_reo_wnd(&w.rack, &w.rtt, 0) >= 900 * US);
	/* counted once */
	{
		struct mroce_sr_ack a = {
			.psn = 3, .syndrome = ACK, .dup = true,
			.rtt = 1001 * US,
		};
		mroce_reqwin_on_sack(&w, &a, t + 1001 * US, &res);
	}
	EXPECT_EQ(w.st.spurious, 1);
}

/*
 * READ responses that overtake one are kept, not answered by asking the
 * READ again at once: the hole gets a reorder window, and when it fills
 * in time the lateness is reordering measured; when it does not, the READ
 * is asked again from the hole.
 */
TEST(sr_read_responses_reordered)
{
	struct mroce_reqwin w;
	struct mroce_reqwin_res res;
	u64 t = 1000000, at;
	u32 psn, wqe;

	sr_setup_rtt(&w);
	EXPECT_EQ(mroce_reqwin_sent(&w, 8, t, 0, &psn), 0);	/* READ 0..7 */
	mroce_reqwin_on_read_resp(&w, 0, 0, t + 100 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_ACKED);
	/* 2 overtakes 1: kept, the hole at 1 waits */
	mroce_reqwin_on_read_resp(&w, 2, 1, t + 101 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_READ_AHEAD);
	EXPECT_TRUE(res.at > t + 101 * US);
	EXPECT_EQ(w.una, 1);
	EXPECT_EQ(w.retry_left, 2);
	EXPECT_TRUE(mroce_reqwin_next_event(&w, &at));
	EXPECT_TRUE(at <= res.at);
	/* 1 comes 20 us later: no retry, reordering of 20 us measured */
	mroce_reqwin_on_read_resp(&w, 1, 1, t + 121 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_ACKED);
	EXPECT_FALSE(w.rd_hole);
	EXPECT_TRUE(w.rack.reordered);
	EXPECT_EQ(w.rack.extent, 20 * US);
	mroce_reqwin_on_read_resp(&w, 2, 2, t + 121 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_ACKED);
	EXPECT_EQ(w.una, 3);
	/* 5 comes, 3 never does: at the deadline the READ is asked again */
	mroce_reqwin_on_read_resp(&w, 5, 3, t + 130 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_READ_AHEAD);
	at = res.at;
	/* at least the measured reordering */
	EXPECT_TRUE(at >= t + 150 * US);
	mroce_reqwin_on_timer(&w, at - 1, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_NOT_DUE);
	EXPECT_EQ(res.at, at);
	mroce_reqwin_on_timer(&w, at, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_RETRY);
	EXPECT_EQ(res.psn, 3);
	EXPECT_EQ(w.st.read_holes, 1);
	EXPECT_EQ(w.st.rto_fires, 0);
	EXPECT_FALSE(w.rd_hole);
	EXPECT_EQ(mroce_reqwin_lost(&w), 1);	/* the READ, from 3 on */
	/* 3 comes after all, before the READ is asked again: not taken */
	mroce_reqwin_on_read_resp(&w, 3, 3, at + 1, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_STALE);
	EXPECT_EQ(w.una, 3);
	EXPECT_EQ(mroce_reqwin_resend(&w, at + 2, &psn, &wqe), true);
	EXPECT_EQ(psn, 3);
	EXPECT_EQ(mroce_reqwin_resent(&w, 3, 5, at + 2), 0);
	mroce_reqwin_on_read_resp(&w, 3, 3, at + 100 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_ACKED);
	EXPECT_EQ(w.una, 4);
	/* a second READ, 8..15; a hole at 5 holds its responses back */
	EXPECT_EQ(mroce_reqwin_sent(&w, 8, at + 100 * US, 1, &psn), 0);
	EXPECT_EQ(psn, 8);
	mroce_reqwin_on_read_resp(&w, 4, 4, at + 200 * US, &res);
	mroce_reqwin_on_read_resp(&w, 6, 5, at + 200 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_READ_AHEAD);
	mroce_reqwin_on_read_resp(&w, 8, 8, at + 201 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_STALE);
	EXPECT_EQ(w.una, 5);
}

/*
 * The last responses of a READ are lost: the next READ's responses say
 * so, and the READ is asked again after the reorder window rather than
 * at the probe or RTO.  Responses of a READ first sent before that
 * request went out again say nothing.
 */
TEST(sr_read_tail_lost_behind)
{
	struct mroce_reqwin w;
	struct mroce_reqwin_res res;
	u64 t = 1000000, at, lat;
	u32 psn, wqe, i;

	sr_setup_rtt(&w);
	EXPECT_EQ(mroce_reqwin_sent(&w, 8, t, 0, &psn), 0);	/* A: 0..7 */
	EXPECT_EQ(mroce_reqwin_sent(&w, 8, t + US, 1, &psn), 0); /* B: 8..15 */
	for (i = 0; i < 6; i++) {
		mroce_reqwin_on_read_resp(&w, i, i, t + 100 * US, &res);
		EXPECT_EQ(res.verdict, MROCE_REQWIN_ACKED);
	}
	/* 6 and 7 lost; B's first response comes */
	mroce_reqwin_on_read_behind(&w, 8, 6, t + 110 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_READ_AHEAD);
	EXPECT_TRUE(w.rd_hole);
	EXPECT_EQ(w.rd_hole_psn, 6);
	EXPECT_EQ(w.una, 6);
	at = res.at;
	EXPECT_TRUE(at > t + 110 * US);
	EXPECT_TRUE(at <= t + 210 * US);	/* well before any RTO */
	mroce_reqwin_on_read_behind(&w, 9, 6, t + 111 * US, &res);
	EXPECT_EQ(res.at, at);
	lat = w.timer_at;
	mroce_reqwin_on_timer(&w, at, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_RETRY);
	EXPECT_EQ(res.psn, 6);
	EXPECT_EQ(w.st.read_holes, 1);
	EXPECT_EQ(w.st.rto_fires, 0);
	EXPECT_EQ(w.st.tlp_probes, 0);
	/* no retry spent, the Local ACK Timeout runs on as it was */
	EXPECT_EQ(w.retry_left, 2);
	EXPECT_EQ(w.timer_at, lat);
	/* while lost, nothing new */
	mroce_reqwin_on_read_behind(&w, 10, 6, at + 1, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_STALE);
	/* A asked again from 6, and only A: B's responses are kept */
	EXPECT_EQ(mroce_reqwin_lost(&w), 1);
	EXPECT_TRUE(mroce_reqwin_resend(&w, at + 2, &psn, &wqe));
	EXPECT_EQ(psn, 6);
	EXPECT_EQ(wqe, 0);
	EXPECT_EQ(mroce_reqwin_resent(&w, 6, 2, at + 2), 0);
	EXPECT_FALSE(mroce_reqwin_resend(&w, at + 2, &psn, &wqe));
	/* B's answer still arriving: sent before A's resend */
	mroce_reqwin_on_read_behind(&w, 11, 6, at + 3, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_STALE);
	EXPECT_FALSE(w.rd_hole);
	/* nor for a hole not past, a PSN out of the window */
	mroce_reqwin_on_read_behind(&w, 6, 6, at + 4, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_STALE);
	mroce_reqwin_on_read_behind(&w, 40, 6, at + 4, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_STALE);
	mroce_reqwin_on_read_resp(&w, 6, 6, at + 100 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_ACKED);
	EXPECT_EQ(w.una, 7);
	/* the caller feeds what it kept, in PSN order: A, then B */
	for (i = 7; i < 16; i++) {
		mroce_reqwin_on_read_resp(&w, i, i, at + 101 * US, &res);
		EXPECT_EQ(res.verdict, MROCE_REQWIN_ACKED);
	}
	EXPECT_EQ(w.una, 16);
	EXPECT_EQ(mroce_reqwin_inflight(&w), 0);
}

/*
 * A READ request the receiver held and reported (SACKED) loses its last
 * responses: the RTO asks it again from the first missing one, although
 * go-back-N passes over what is SACKED; so does a READ hole.
 */
/*
 * 0, then a READ 1..4 at @t; 0 lost, the READ held and reported: true
 * when the READ is SACKED.
 */
static bool sr_read_held(struct mroce_reqwin *w, u64 t)
{
	struct mroce_reqwin_res res;
	u32 psn;

	sr_setup_rtt(w);
	sr_send(w, 1, t);
	return !mroce_reqwin_sent(w, 4, t, 1, &psn) &&
	       !sr_ack(w, MROCE_PSN_MASK, 0x1e, 0, t + 100 * US, &res) &&
	       mroce_sb_at(&w->sb, 1)->state == MROCE_SB_SACKED;
}

TEST(sr_read_sacked_answer_lost)
{
	struct mroce_reqwin w;
	struct mroce_reqwin_res res;
	u64 t = 1000000, now;
	u32 psn, wqe, i;

	EXPECT_TRUE(sr_read_held(&w, t));
	/* 0 resent and answered; the READ's first two responses come */
	mroce_reqwin_on_read_resp(&w, 1, 1, t + 300 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_ACKED);
	mroce_reqwin_on_read_resp(&w, 2, 2, t + 300 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_ACKED);
	EXPECT_EQ(w.una, 3);
	/* 3 and 4 never come: the RTO (after no probe) asks again from 3 */
	now = t + 300 * US;
	for (i = 0; i < 8; i++) {
		mroce_reqwin_on_timer(&w, now, &res);
		if (res.verdict != MROCE_REQWIN_NOT_DUE)
			break;
		now = res.at;
	}
	EXPECT_EQ(res.verdict, MROCE_REQWIN_RETRY);
	EXPECT_EQ(w.st.rto_fires, 1);
	EXPECT_TRUE(mroce_reqwin_resend(&w, now, &psn, &wqe));
	EXPECT_EQ(psn, 3);
	EXPECT_EQ(wqe, 1);
	EXPECT_EQ(mroce_reqwin_resent(&w, 3, 2, now), 0);
	EXPECT_EQ(w.sb.sacked, 0);
	/* a READ hole in a SACKED READ is asked again too */
	EXPECT_TRUE(sr_read_held(&w, t));
	mroce_reqwin_on_read_resp(&w, 1, 1, t + 300 * US, &res);
	mroce_reqwin_on_read_resp(&w, 3, 2, t + 300 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_READ_AHEAD);
	now = res.at;
	mroce_reqwin_on_timer(&w, now, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_RETRY);
	EXPECT_EQ(res.psn, 2);
	EXPECT_TRUE(mroce_reqwin_resend(&w, now + 1, &psn, &wqe));
	EXPECT_EQ(psn, 2);
	EXPECT_EQ(mroce_reqwin_resent(&w, 2, 3, now + 1), 0);
}

/*
 * Three READs, each with a hole and responses kept past it: when the
 * first hole is found lost, the caller names the others and all three
 * are asked again at once (the first from its hole, the others whole);
 * one asked again less than an SRTT ago is left alone.  A kept response
 * restarts the probe timer.
 */
TEST(sr_read_gaps_lost_together)
{
	struct mroce_reqwin w;
	struct mroce_reqwin_res res;
	u64 t = 1000000, rec;
	u32 psn, wqe;

	sr_setup_rtt(&w);
	EXPECT_EQ(mroce_reqwin_sent(&w, 4, t, 0, &psn), 0);	/* A 0..3 */
	EXPECT_EQ(mroce_reqwin_sent(&w, 4, t, 1, &psn), 0);	/* B 4..7 */
	EXPECT_EQ(mroce_reqwin_sent(&w, 4, t, 2, &psn), 0);	/* C 8..11 */
	mroce_reqwin_on_read_resp(&w, 0, 0, t + 100 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_ACKED);
	rec = w.rec_at;
	/* 1, 5 and 9 lost; the rest kept by the caller */
	mroce_reqwin_read_placed(&w, 2, t + 150 * US);
	EXPECT_TRUE(w.rec_at > rec);
	mroce_reqwin_on_read_resp(&w, 2, 1, t + 150 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_READ_AHEAD);
	mroce_reqwin_on_timer(&w, res.at, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_RETRY);
	EXPECT_EQ(res.psn, 1);
	EXPECT_TRUE(mroce_reqwin_read_gap_lost(&w, 5, t + 400 * US));
	EXPECT_TRUE(mroce_reqwin_read_gap_lost(&w, 9, t + 400 * US));
	EXPECT_FALSE(mroce_reqwin_read_gap_lost(&w, 9, t + 400 * US));
	EXPECT_EQ(w.st.read_holes, 3);
	EXPECT_TRUE(mroce_reqwin_resend(&w, t + 401 * US, &psn, &wqe));
	EXPECT_EQ(psn, 1);
	EXPECT_EQ(mroce_reqwin_resent(&w, 1, 3, t + 401 * US), 0);
	EXPECT_TRUE(mroce_reqwin_resend(&w, t + 401 * US, &psn, &wqe));
	EXPECT_EQ(psn, 4);
	EXPECT_EQ(wqe, 1);
	EXPECT_EQ(mroce_reqwin_resent(&w, 4, 4, t + 401 * US), 0);
	EXPECT_TRUE(mroce_reqwin_resend(&w, t + 401 * US, &psn, &wqe));
	EXPECT_EQ(psn, 8);
	EXPECT_EQ(mroce_reqwin_resent(&w, 8, 4, t + 401 * US), 0);
	EXPECT_FALSE(mroce_reqwin_resend(&w, t + 401 * US, &psn, &wqe));
	/* just asked again: not again before its answer can come */
	EXPECT_FALSE(mroce_reqwin_read_gap_lost(&w, 5, t + 450 * US));
	/* out of the window, or not selective: nothing */
	EXPECT_FALSE(mroce_reqwin_read_gap_lost(&w, 40, t + 450 * US));
	EXPECT_EQ(w.retry_left, 2);
}

/*
 * A READ asked again for its lost responses, then an ACK past it: that
 * ACK acknowledges the READ's first request, which may have left long
 * before the READ was asked again.  RACK takes the READ as sent when it
 * first was, so the READs sent after it and not yet answered are not
 * lost (with the resend's time they were, at once: every one asked
 * again whole).  And the ACK taken back (the responses are still
 * missing) loses nothing in a selective window: what it acknowledged is
 * SACKED.
 */
TEST(sr_read_reasked_then_acked)
{
	u64 t = 2000000;
	struct mroce_reqwin_res res;
	struct mroce_reqwin w;
	u32 wqe, psn;

	sr_setup_rtt(&w);
	EXPECT_EQ(mroce_reqwin_sent(&w, 4, t, 0, &psn), 0);	/* A 0..3 */
	EXPECT_EQ(mroce_reqwin_sent(&w, 4, t + 10 * US, 1, &psn), 0);
	EXPECT_EQ(mroce_reqwin_sent(&w, 4, t + 20 * US, 2, &psn), 0);
	mroce_reqwin_on_read_resp(&w, 0, 0, t + 100 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_ACKED);
	mroce_reqwin_read_placed(&w, 2, t + 150 * US);
	mroce_reqwin_on_read_resp(&w, 2, 1, t + 150 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_READ_AHEAD);
	mroce_reqwin_on_timer(&w, res.at, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_RETRY);
	EXPECT_EQ(res.psn, 1);
	EXPECT_TRUE(mroce_reqwin_resend(&w, t + 400 * US, &psn, &wqe));
	EXPECT_EQ(psn, 1);
	EXPECT_EQ(mroce_reqwin_resent(&w, 1, 3, t + 400 * US), 0);
	/* the responder's ACK of A's first request comes after */
	EXPECT_EQ(sr_ack(&w, 3, 0, 0, t + 420 * US, &res), 0);
	EXPECT_EQ(w.una, 4);
	EXPECT_EQ(w.st.rack_losses, 0);
	EXPECT_EQ(mroce_reqwin_lost(&w), 0);
	/* A's responses 1 and 3 never came: taken back, nothing lost */
	EXPECT_EQ(mroce_reqwin_reopen(&w, 1, true, t + 430 * US), 0);
	EXPECT_EQ(w.una, 1);
	EXPECT_EQ(mroce_reqwin_lost(&w), 0);
	EXPECT_EQ(mroce_sb_at(&w.sb, 1)->state, MROCE_SB_SACKED);
	EXPECT_EQ(mroce_sb_at(&w.sb, 4)->state, MROCE_SB_INFLIGHT);
	/* the RTO asks A again, from 1, and not B or C */
	mroce_reqwin_on_timer(&w, t + 100000 * US, &res);
	EXPECT_EQ(mroce_reqwin_lost(&w), 3);
	EXPECT_TRUE(mroce_reqwin_resend(&w, t + 100000 * US, &psn, &wqe));
	EXPECT_EQ(psn, 1);
	/* RoCEv2's go-back-N, or an atomic: everything from 1 is lost */
	sr_setup_rtt(&w);
	EXPECT_EQ(mroce_reqwin_sent(&w, 4, t, 0, &psn), 0);
	EXPECT_EQ(mroce_reqwin_sent(&w, 4, t, 1, &psn), 0);
	EXPECT_EQ(sr_ack(&w, 3, 0, 0, t + 100 * US, &res), 0);
	EXPECT_EQ(mroce_reqwin_reopen(&w, 1, false, t + 110 * US), 0);
	EXPECT_EQ(mroce_reqwin_lost(&w), 2);
}

/*
 * Responses kept past a hole are RTT samples when they come, not when the
 * window takes them after the hole is repaired: feeding them late charged
 * the READ the repair (an SRTT of tens of ms at 1% loss).
 */
TEST(sr_read_kept_rtt_when_kept)
{
	struct mroce_reqwin w;
	struct mroce_reqwin_res res;
	u64 t = 1000000;
	u32 psn, n, p;

	sr_setup_rtt(&w);
	EXPECT_EQ(mroce_reqwin_sent(&w, 4, t, 0, &psn), 0);	/* A 0..3 */
	EXPECT_EQ(mroce_reqwin_sent(&w, 4, t, 1, &psn), 0);	/* B 4..7 */
	mroce_reqwin_on_read_resp(&w, 0, 0, t + 100 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_ACKED);
	n = w.rtt.samples;
	/* 1 lost; 2, 3 and B's first kept: B's first is a sample of 150 us */
	mroce_reqwin_on_read_resp(&w, 2, 1, t + 110 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_READ_AHEAD);
	mroce_reqwin_read_placed(&w, 2, t + 110 * US);
	mroce_reqwin_read_placed(&w, 3, t + 120 * US);
	EXPECT_EQ(w.rtt.samples, n);
	mroce_reqwin_read_placed(&w, 4, t + 150 * US);
	EXPECT_EQ(w.rtt.samples, n + 1);
	EXPECT_EQ(w.rtt.latest, 150 * US);
	/* the hole is repaired 50 ms later; the kept ones follow */
	mroce_reqwin_on_read_resp(&w, 1, 1, t + 50000 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_ACKED);
	for (p = 2; p <= 4; p++) {
		mroce_reqwin_on_read_kept(&w, p, t + 50000 * US, &res);
		EXPECT_EQ(res.verdict, MROCE_REQWIN_ACKED);
	}
	EXPECT_EQ(w.una, 5);
	EXPECT_EQ(w.rtt.samples, n + 1);
	EXPECT_TRUE(w.rtt.srtt < 1000 * US);
}

/*
 * A hole filled in time by a READ that was asked again is no measure of
 * reordering (the answer to the request asked again filled it): the
 * reorder window stays as it was.
 */
TEST(sr_read_filled_by_resend_no_reordering)
{
	struct mroce_reqwin w;
	struct mroce_reqwin_res res;
	u64 t = 1000000, now;
	u32 psn, wqe;

	sr_setup_rtt(&w);
	EXPECT_EQ(mroce_reqwin_sent(&w, 8, t, 0, &psn), 0);	/* 0..7 */
	mroce_reqwin_on_read_resp(&w, 0, 0, t + 100 * US, &res);
	mroce_reqwin_on_read_resp(&w, 2, 1, t + 110 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_READ_AHEAD);
	mroce_reqwin_on_timer(&w, res.at, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_RETRY);
	now = res.at;
	EXPECT_TRUE(mroce_reqwin_resend(&w, now, &psn, &wqe));
	EXPECT_EQ(psn, 1);
	EXPECT_EQ(mroce_reqwin_resent(&w, 1, 7, now), 0);
	/* 1 comes, 2 was kept, 3 is missing and 5 was kept past it */
	mroce_reqwin_on_read_resp(&w, 1, 1, now + 100 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_ACKED);
	mroce_reqwin_on_read_kept(&w, 2, now + 100 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_ACKED);
	mroce_reqwin_on_read_resp(&w, 5, 3, now + 100 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_READ_AHEAD);
	/* 3 comes before the hole's window passes */
	mroce_reqwin_on_read_resp(&w, 3, 3, now + 140 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_ACKED);
	EXPECT_FALSE(w.rd_hole);
	EXPECT_EQ(w.rack.extent, 0);
	EXPECT_FALSE(w.rack.reordered);
}

/*
 * A hole in a READ sent once waits the reorder window from the response
 * past it, not an SRTT from the READ's request (the responder answers in
 * PSN order: the response at the hole left before the one past it); a
 * READ asked again waits an SRTT from the request asked again as well.
 */
TEST(sr_read_hole_wait)
{
	struct mroce_reqwin w;
	struct mroce_reqwin_res res;
	u64 t = 1000000, now;
	u32 psn, wqe;

	sr_setup_rtt(&w);					/* SRTT 100 us */
	EXPECT_EQ(mroce_reqwin_sent(&w, 8, t, 0, &psn), 0);	/* 0..7 */
	mroce_reqwin_on_read_resp(&w, 2, 0, t + 10 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_READ_AHEAD);
	EXPECT_TRUE(res.at >= t + 20 * US);
	EXPECT_TRUE(res.at < t + 100 * US);
	/* the third response past it: lost now (no reordering seen) */
	mroce_reqwin_on_read_resp(&w, 3, 0, t + 12 * US, &res);
	EXPECT_TRUE(res.at > t + 12 * US);
	mroce_reqwin_on_read_resp(&w, 4, 0, t + 14 * US, &res);
	EXPECT_EQ(res.at, t + 14 * US);
	now = res.at;
	mroce_reqwin_on_timer(&w, now, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_RETRY);
	EXPECT_EQ(res.psn, 0);
	EXPECT_TRUE(mroce_reqwin_resend(&w, now, &psn, &wqe));
	EXPECT_EQ(mroce_reqwin_resent(&w, 0, 8, now), 0);
	/* asked again: an SRTT from then at least, however many come */
	mroce_reqwin_on_read_resp(&w, 3, 0, now + 10 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_READ_AHEAD);
	EXPECT_TRUE(res.at >= now + 100 * US);
	mroce_reqwin_on_read_resp(&w, 4, 0, now + 11 * US, &res);
	mroce_reqwin_on_read_resp(&w, 5, 0, now + 12 * US, &res);
	EXPECT_TRUE(res.at >= now + 100 * US);
}

/*
 * READ 0..7 sent at @t, SRTT and minimum RTT 100 us: response 0 comes,
 * 1 is lost, 2..4 come past it, and the READ is asked again from 1 at the
 * hole's deadline.  That time.
 */
static u64 sr_read_hole_asked(struct mroce_reqwin *w, u64 t)
{
	struct mroce_reqwin_res res;
	u32 psn, wqe, p;
	u64 now;

	sr_setup_rtt(w);
	if (mroce_reqwin_sent(w, 8, t, 0, &psn))
		return 0;
	mroce_reqwin_on_read_resp(w, 0, 0, t + 100 * US, &res);
	for (p = 2; p <= 4; p++)
		mroce_reqwin_on_read_resp(w, p, 1, t + 100 * US + p, &res);
	now = res.at;
	mroce_reqwin_on_timer(w, now, &res);
	if (res.verdict != MROCE_REQWIN_RETRY || res.psn != 1 ||
	    !mroce_reqwin_resend(w, now, &psn, &wqe) || psn != 1 ||
	    mroce_reqwin_resent(w, 1, 7, now))
		return 0;
	return now;
}

/*
 * A READ asked again for lost responses and then acknowledged sooner than
 * the minimum RTT after: its request arrived the first time, its first
 * copy was not late, and the path did not reorder.
 */
TEST(sr_read_answer_resend_not_reordering)
{
	struct mroce_reqwin w;
	struct mroce_reqwin_res res;
	u64 now = sr_read_hole_asked(&w, 1000000);

	ASSERT_TRUE(now);
	EXPECT_EQ(mroce_sb_at(&w.sb, 1)->flags, MROCE_SB_F_ANSWER);
	/* an ACK past the READ, 50 us after it was asked again */
	EXPECT_EQ(sr_ack(&w, 7, 0, 0, now + 50 * US, &res), 0);
	EXPECT_EQ(w.una, 8);
	EXPECT_FALSE(w.rack.reordered);
	EXPECT_EQ(w.rack.extent, 0);
}

/*
 * A response of a later READ that was asked again says nothing of an
 * earlier READ's hole: the responder answers a READ asked again at once,
 * ahead of the requests it holds.
 */
TEST(sr_read_behind_asked_again)
{
	struct mroce_reqwin w;
	struct mroce_reqwin_res res;
	u64 t = 1000000;
	u32 psn, wqe;

	sr_setup_rtt(&w);
	EXPECT_EQ(mroce_reqwin_sent(&w, 4, t, 0, &psn), 0);	/* A 0..3 */
	EXPECT_EQ(mroce_reqwin_sent(&w, 4, t, 1, &psn), 0);	/* B 4..7 */
	/* B's responses from 5 were lost and B was asked again */
	EXPECT_TRUE(mroce_reqwin_read_gap_lost(&w, 5, t + 500 * US));
	EXPECT_TRUE(mroce_reqwin_resend(&w, t + 500 * US, &psn, &wqe));
	EXPECT_EQ(psn, 4);
	EXPECT_EQ(wqe, 1);
	EXPECT_EQ(mroce_reqwin_resent(&w, 4, 4, t + 500 * US), 0);
	mroce_reqwin_on_read_behind(&w, 5, 0, t + 600 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_STALE);
	EXPECT_FALSE(w.rd_hole);
}

/*
 * The answer to a READ asked again comes past the hole (its probe, a
 * response kept before): the hole's response was lost again, and the
 * READ is asked again after the reorder window, not an SRTT later.
 */
TEST(sr_read_reasked_answer_past_hole)
{
	struct mroce_reqwin w;
	struct mroce_reqwin_res res;
	u64 now = sr_read_hole_asked(&w, 1000000);

	ASSERT_TRUE(now);
	/* its answer: 1 lost again, 2 (the probe) comes */
	mroce_reqwin_on_read_reasked(&w, 2, 1, now + 20 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_READ_AHEAD);
	EXPECT_TRUE(res.at < now + 100 * US);
	mroce_reqwin_on_timer(&w, res.at, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_RETRY);
	EXPECT_EQ(res.psn, 1);
	/* not for a hole already lost, nor before the hole */
	mroce_reqwin_on_read_reasked(&w, 2, 1, now + 30 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_STALE);
	mroce_reqwin_on_read_reasked(&w, 1, 2, now + 30 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_STALE);
}

/*
 * While the READ at una is asked again for its responses, the probe
 * timeout is two minimum RTTs after the last delivery, not two SRTTs (a
 * READ's SRTT includes its wait behind other READs at the responder).
 */
TEST(sr_read_reasked_probe_timeout)
{
	struct mroce_reqwin w;
	u64 now = sr_read_hole_asked(&w, 1000000), t;
	int i;

	ASSERT_TRUE(now);
	for (i = 0; i < 8; i++)
		mroce_rtt_sample(&w.rtt, 5000 * US);
	EXPECT_EQ(w.rtt.min_rtt, 100 * US);
	t = now + 10 * US;
	mroce_reqwin_read_placed(&w, 5, t);
	EXPECT_TRUE(w.rec_armed);
	EXPECT_EQ(w.rec_at, t + 200 * US);
	/* a window of requests alone keeps two SRTTs */
	sr_setup(&w, 0);
	for (i = 0; i < 8; i++)
		mroce_rtt_sample(&w.rtt, i ? 5000 * US : 100 * US);
	sr_send(&w, 2, now);
	EXPECT_TRUE(w.rec_at >= now + 2000 * US);
}

/* Once the path reordered, a hole waits its window however many come. */
TEST(sr_read_hole_wait_reordered)
{
	struct mroce_reqwin w;
	struct mroce_reqwin_res res;
	u64 t = 1000000;
	u32 psn, p;

	sr_setup_rtt(&w);
	w.rack.reordered = true;
	EXPECT_EQ(mroce_reqwin_sent(&w, 8, t, 0, &psn), 0);
	for (p = 2; p < 8; p++) {
		mroce_reqwin_on_read_resp(&w, p, 0, t + p * US, &res);
		EXPECT_EQ(res.verdict, MROCE_REQWIN_READ_AHEAD);
	}
	EXPECT_TRUE(res.at >= t + 2 * US + MROCE_RTT_GRANULARITY_NS);
}

/* Go-back-N windows leave a later READ's responses alone. */
TEST(sr_read_behind_needs_selective)
{
	struct mroce_reqwin w;
	struct mroce_reqwin_res res;
	struct mroce_reqwin_cfg cfg = {
		.psn = 0, .wnd = 64, .retry_cnt = 2, .rnr_retry = 1,
		.timeout = 14,
	};
	u32 psn;

	mroce_reqwin_init(&w, &cfg);
	EXPECT_EQ(mroce_reqwin_sent(&w, 4, 1000, 0, &psn), 0);
	EXPECT_EQ(mroce_reqwin_sent(&w, 4, 1001, 1, &psn), 0);
	mroce_reqwin_on_read_behind(&w, 4, 2, 2000, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_STALE);
	EXPECT_FALSE(w.rd_hole);
}

/*
 * A tail-loss probe whose unit had arrived (its ACK was only slow) is a
 * spurious resend, but no sign of reordering: the window stays narrow.
 */
TEST(sr_needless_probe_keeps_window)
{
	struct mroce_reqwin w;
	struct mroce_reqwin_res res;
	u64 t = 5000;

	sr_setup_rtt(&w);
	sr_send(&w, 2, t);
	mroce_reqwin_on_timer(&w, t + 200 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_LOSS);
	EXPECT_EQ(res.psn, 1);
	EXPECT_EQ(sr_resend_all(&w, t + 200 * US), 1);
	/* the receiver had 1: its ACK echoes the probe, D set */
	{
		struct mroce_sr_ack a = {
			.psn = 1, .syndrome = ACK, .dup = true,
			.rtt = 50 * US,
		};
		EXPECT_EQ(mroce_reqwin_on_sack(&w, &a, t + 250 * US, &res),
			  0);
	}
	EXPECT_EQ(w.st.spurious, 1);
	EXPECT_EQ(w.rack.mult, 1);
	EXPECT_FALSE(w.rack.reordered);
	EXPECT_EQ(w.una, 2);
}

TEST(sr_tail_probe_then_rto)
{
	struct mroce_reqwin w;
	struct mroce_reqwin_res res;
	u64 t = 5000, at;
	u32 psn, wqe;

	sr_setup(&w, 0xfffffe);		/* across the PSN wrap */
	mroce_rtt_sample(&w.rtt, 100 * US);
	sr_send(&w, 4, t);		/* 0xfffffe .. 0x1 */
	EXPECT_TRUE(mroce_reqwin_next_event(&w, &at));
	EXPECT_EQ(at, t + 200 * US);	/* PTO: 2 SRTT */
	mroce_reqwin_on_timer(&w, t + 199 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_NOT_DUE);
	mroce_reqwin_on_timer(&w, t + 200 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_LOSS);
	EXPECT_EQ(res.psn, 1);		/* the last unit is the probe */
	EXPECT_EQ(w.st.tlp_probes, 1);
	EXPECT_FALSE(mroce_reqwin_is_probe(&w, 0));
	EXPECT_TRUE(mroce_reqwin_resend(&w, t + 200 * US, &psn, &wqe));
	EXPECT_EQ(psn, 1);
	EXPECT_TRUE(mroce_reqwin_is_probe(&w, 1));	/* a READ asks less */
	EXPECT_EQ(sr_resend_all(&w, t + 200 * US), 1);
	EXPECT_FALSE(mroce_reqwin_is_probe(&w, 1));	/* once */
	/* then the RTO: 100 + 4 * 50 us after the probe */
	EXPECT_TRUE(mroce_reqwin_next_event(&w, &at));
	EXPECT_EQ(at, t + 500 * US);
	mroce_reqwin_on_timer(&w, t + 500 * US, &res);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_RETRY);
	EXPECT_EQ(res.psn, 0xfffffe);
	EXPECT_EQ(mroce_reqwin_lost(&w), 4);
	EXPECT_EQ(w.st.rto_fires, 1);
	EXPECT_FALSE(mroce_reqwin_is_probe(&w, 1));	/* the RTO is not */
	/* lost together: no unit says which path dropped it */
	EXPECT_TRUE(mroce_reqwin_lost_in_bulk(&w, 0xfffffe));
	EXPECT_TRUE(mroce_reqwin_lost_in_bulk(&w, 1));
	EXPECT_EQ(w.rtt.backoff, 1);
	EXPECT_EQ(w.retry_left, 2);	/* no retry spent */
	EXPECT_EQ(sr_resend_all(&w, t + 500 * US), 4);
	/* the SACK of the probe's PSN and a cumulative ACK end it */
	sr_ack(&w, 0xffffff, 0x2, 60 * US, t + 560 * US, &res);
	EXPECT_EQ(w.una, 0);
	EXPECT_EQ(w.rtt.backoff, 0);
	EXPECT_EQ(w.sb.sacked, 1);
	sr_ack(&w, 1, 0, 0, t + 570 * US, &res);
	EXPECT_EQ(res.acked, 2);
	EXPECT_EQ(w.una, 2);
	EXPECT_FALSE(mroce_reqwin_next_event(&w, &at));
}

/*
 * An RTO that fires while units below a delivered one still wait for
 * RACK's reorder window: those were overtaken, so they were lost alone
 * (their paths may be charged); the ones above, in bulk.
 */
TEST(sr_rto_overtaken_units_lost_alone)
{
	struct mroce_reqwin w;
	struct mroce_reqwin_res res;

	sr_setup_rtt(&w);
	sr_send(&w, 6, 1000);		/* PSNs 0..5 */
	/* 3 arrived; 0..2 not yet late by RACK's reckoning */
	EXPECT_EQ(sr_ack(&w, 0xffffff, 0x8, 0, 1000 + 10 * US, &res), 0);
	EXPECT_EQ(w.sb.sacked, 1);
	EXPECT_EQ(mroce_reqwin_lost(&w), 0);
	EXPECT_EQ(mroce_reqwin_lose_all(&w), 5);
	EXPECT_FALSE(mroce_reqwin_lost_in_bulk(&w, 0));
	EXPECT_FALSE(mroce_reqwin_lost_in_bulk(&w, 2));
	EXPECT_TRUE(mroce_reqwin_lost_in_bulk(&w, 4));
	EXPECT_TRUE(mroce_reqwin_lost_in_bulk(&w, 5));
}

/* A peer that is gone: the fast timers resend, the IBTA budget decides. */
TEST(sr_peer_gone_retry_budget)
{
	struct mroce_reqwin w;
	struct mroce_reqwin_res res;
	u64 t = 0, at, end = 0;
	int loops = 0, exceeded = 0;

	sr_setup(&w, 7);
	sr_send(&w, 3, t);
	while (loops++ < 10000 && mroce_reqwin_next_event(&w, &at)) {
		t = at;
		mroce_reqwin_on_timer(&w, t, &res);
		if (res.verdict == MROCE_REQWIN_RETRY_EXCEEDED) {
			exceeded = 1;
			end = t;
			break;
		}
		sr_resend_all(&w, t);
	}
	EXPECT_TRUE(exceeded);
	/* retry_cnt 2: three Local ACK Timeouts, none earlier */
	EXPECT_EQ(end, 3 * IBTA_TO);
	EXPECT_TRUE(w.st.rto_fires >= 5);
	EXPECT_EQ(w.st.tlp_probes, 1);
	EXPECT_EQ(w.rtt.backoff, MROCE_RTT_MAX_BACKOFF);
}

/*
 * A window with a pipe or a congestion window: the PSNs SACKED past a
 * hole no longer count, so new requests go out while the hole is
 * repaired, up to the window; the same window without one stops at the
 * hole plus its width.
 */
static u32 sr_pipe_span(u32 wnd, u32 pipe, u32 cwnd)
{
	struct mroce_reqwin_cfg cfg = {
		.wnd = wnd, .retry_cnt = 2, .rnr_retry = 1, .timeout = 14,
		.selective = true, .ack_delay = 10 * US, .pipe = pipe,
	};
	struct mroce_reqwin_res res;
	struct mroce_sr_ack a = { .psn = 0xffffff, .syndrome = ACK,
				  .words = 4 };
	struct mroce_reqwin w;
	u64 map[4], now = 100 * US;
	u32 i, psn, sent;

	mroce_reqwin_init(&w, &cfg);
	w.cwnd = cwnd;
	a.map = map;
	/* 64 unreported: the pipe (or cwnd, or the window) is full */
	sr_send(&w, 64, 0);
	if (mroce_reqwin_can_send(&w, 1, 0))
		return 0;
	do {
		/* PSN 0 missing, everything after it SACKED */
		sent = w.max;
		memset(map, 0, sizeof(map));
		for (i = 1; i < sent; i++)
			map[i / 64] |= 1ULL << (i % 64);
		if (mroce_reqwin_on_sack(&w, &a, now, &res))
			return 0;
		sr_resend_all(&w, now);
		while (mroce_reqwin_can_send(&w, 1, now))
			if (mroce_reqwin_sent(&w, 1, now, 0, &psn))
				return 0;
		now += 100 * US;
	} while (w.max != sent);
	return w.una == 0 ? w.max : 0;
}

TEST(sr_pipe_past_hole)
{
	EXPECT_EQ(sr_pipe_span(256, 64, 0), 256);
	EXPECT_EQ(sr_pipe_span(256, 0, 64), 256);
	EXPECT_EQ(sr_pipe_span(256, 128, 64), 256);
	EXPECT_EQ(sr_pipe_span(64, 0, 0), 64);
}

/*
 * A congestion window bounds the PSNs not yet reported, as the pipe
 * does (SACKED ones past a hole free room: sr_pipe_past_hole).
 */
TEST(sr_cwnd_bounds_unreported)
{
	struct mroce_reqwin_cfg cfg = {
		.wnd = 256, .retry_cnt = 2, .rnr_retry = 1, .timeout = 14,
		.selective = true, .ack_delay = 10 * US, .pipe = 64,
	};
	u64 now = 100 * US;
	struct mroce_sr_ack a = { .psn = 3, .syndrome = ACK };
	struct mroce_reqwin_res res;
	struct mroce_reqwin w;
	u32 psn;

	mroce_reqwin_init(&w, &cfg);
	w.cwnd = 8;
	sr_send(&w, 8, now);
	EXPECT_FALSE(mroce_reqwin_can_send(&w, 1, now));
	/* 0-3 acknowledged: four more */
	EXPECT_EQ(mroce_reqwin_on_sack(&w, &a, now, &res), 0);
	EXPECT_TRUE(mroce_reqwin_can_send(&w, 4, now));
	EXPECT_FALSE(mroce_reqwin_can_send(&w, 5, now));
	/* a request wider than the window goes when nothing is in flight */
	w.cwnd = 1;
	EXPECT_FALSE(mroce_reqwin_can_send(&w, 1, now));
	mroce_reqwin_init(&w, &cfg);
	w.cwnd = 1;
	EXPECT_TRUE(mroce_reqwin_can_send(&w, 16, now));
	EXPECT_EQ(mroce_reqwin_sent(&w, 16, now, 0, &psn), 0);
	EXPECT_FALSE(mroce_reqwin_can_send(&w, 1, now));
	/* 0: no congestion window */
	w.cwnd = 0;
	EXPECT_TRUE(mroce_reqwin_can_send(&w, 1, now));
}

TEST(sr_ack_checks)
{
	struct mroce_reqwin w;
	struct mroce_reqwin_res res;
	u64 map[MROCE_SR_ACK_WORDS + 1] = { 0 };
	struct mroce_sr_ack a = { .psn = 10, .syndrome = ACK,
				  .words = MROCE_SR_ACK_WORDS + 1,
				  .map = map };

	sr_setup(&w, 10);
	sr_send(&w, 3, 100);
	EXPECT_EQ(mroce_reqwin_on_sack(&w, &a, 200, &res), -EINVAL);
	a.words = 1;
	a.map = NULL;
	EXPECT_EQ(mroce_reqwin_on_sack(&w, &a, 200, &res), -EINVAL);
	a.words = 0;
	a.syndrome = 0x20 << 0;		/* reserved kind */
	a.syndrome = 0x40;		/* 010xxxxx: reserved */
	EXPECT_EQ(mroce_reqwin_on_sack(&w, &a, 200, &res), -EPROTO);
	/* stale: the cumulative point behind una - 1, or past max */
	a.syndrome = ACK;
	a.psn = 5;
	EXPECT_EQ(mroce_reqwin_on_sack(&w, &a, 200, &res), 0);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_STALE);
	a.psn = 13;
	EXPECT_EQ(mroce_reqwin_on_sack(&w, &a, 200, &res), 0);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_STALE);
	/* una - 1 with nothing new: stale too */
	a.psn = 9;
	EXPECT_EQ(mroce_reqwin_on_sack(&w, &a, 200, &res), 0);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_STALE);
	/* bits past max are ignored */
	map[0] = ~0ULL;
	a.words = 1;
	a.map = map;
	EXPECT_EQ(mroce_reqwin_on_sack(&w, &a, 200, &res), 0);
	EXPECT_EQ(w.sb.sacked, 2);	/* 11 and 12; bit 0, 10, is missing */
	EXPECT_EQ(w.una, 10);
	/* an RNR NAK keeps its IBTA meaning */
	a.words = 0;
	a.psn = 10;
	a.syndrome = mroce_aeth_rnr_syndrome(1);
	EXPECT_EQ(mroce_reqwin_on_sack(&w, &a, 300, &res), 0);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_RNR_WAIT);
	EXPECT_FALSE(strcmp(mroce_reqwin_verdict_name(MROCE_REQWIN_LOSS),
			    "loss"));
}

/* A window that is not selective treats on_sack() as on_aeth(). */
TEST(sr_off_is_go_back_n)
{
	struct mroce_reqwin_cfg cfg = { .psn = 0, .wnd = 16, .retry_cnt = 1,
					.timeout = 14 };
	struct mroce_reqwin w;
	struct mroce_reqwin_res res;
	u64 map = 0xff;
	struct mroce_sr_ack a = { .psn = 1, .syndrome = ACK, .words = 1,
				  .rtt = 5, .map = &map };

	mroce_reqwin_init(&w, &cfg);
	sr_send(&w, 8, 0);
	EXPECT_EQ(mroce_reqwin_on_sack(&w, &a, 10, &res), 0);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_ACKED);
	EXPECT_EQ(w.una, 2);
	EXPECT_EQ(w.sb.sacked, 0);
	EXPECT_EQ(w.rtt.samples, 0);
}

/*
 * The requests sent before the window turned selective (the connection's
 * RoCEv2 start) go back N on a NAK sequence error; those of the selective
 * span the receiver holds, and a NAK before the span resends up to it only.
 * A NAK inside the span goes back N as before (a receiver that does not
 * hold).
 */
TEST(sr_nak_before_span)
{
	struct mroce_reqwin_cfg cfg = { .psn = 0, .wnd = 64, .retry_cnt = 3,
					.timeout = 14 };
	u8 seq = mroce_aeth_nak_syndrome(MROCE_NAK_PSN_SEQ_ERROR);
	struct mroce_reqwin_res res;
	struct mroce_reqwin w;
	u32 psn, wqe, n = 0;

	mroce_reqwin_init(&w, &cfg);
	sr_send(&w, 8, 0);
	cfg.psn = w.max;
	mroce_sr_init(&w, &cfg);
	EXPECT_EQ(w.sr_psn, 8);
	sr_send(&w, 8, 10);
	EXPECT_EQ(mroce_reqwin_on_aeth(&w, 3, seq, 20, &res), 0);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_RETRY);
	EXPECT_EQ(res.psn, 3);
	EXPECT_EQ(w.una, 3);
	EXPECT_EQ(mroce_reqwin_lost(&w), 5);
	EXPECT_TRUE(mroce_reqwin_is_lost(&w, 7));
	EXPECT_FALSE(mroce_reqwin_is_lost(&w, 8));
	while (mroce_reqwin_resend(&w, 30, &psn, &wqe)) {
		EXPECT_EQ(psn, 3 + n);
		EXPECT_EQ(mroce_reqwin_resent(&w, psn, 1, 30), 0);
		n++;
	}
	EXPECT_EQ(n, 5);
	/* inside the span: everything from there */
	EXPECT_EQ(mroce_reqwin_on_aeth(&w, 10, seq, 40, &res), 0);
	EXPECT_EQ(res.verdict, MROCE_REQWIN_RETRY);
	EXPECT_EQ(mroce_reqwin_lost(&w), 6);
	EXPECT_EQ(w.retry_left, 2);
}

/*
 * RACK's walk stops at the first unit first sent after the newest one
 * delivered, and loses what a walk over every unit would: a resent unit
 * delivered later moves that point past the units first sent after its
 * first copy, and RACK reaches them.
 */
TEST(rack_walk_stops_at_newest_delivered)
{
	struct mroce_rtt_cfg rc = { 0 };
	struct mroce_sb sb;
	struct mroce_rtt r;
	struct mroce_rack k;
	u64 dl;
	u32 i;

	mroce_sb_init(&sb);
	mroce_rtt_init(&r, &rc);
	mroce_rtt_sample(&r, 100 * US);
	mroce_rack_init(&k);
	for (i = 0; i < 10; i++)
		mroce_sb_sent(&sb, i, 1, i, i * 10 * US);
	/* unit 2 lost and resent at 200 us */
	EXPECT_TRUE(mroce_sb_lose_unit(&sb, 2));
	EXPECT_EQ(mroce_sb_resent(&sb, 0, 10, 2, 1, 200 * US), 0);
	/* unit 5 (sent at 50 us) delivered: 0, 1, 3, 4 lost, not 2, 6-9 */
	mroce_rack_delivered(&k, &r, mroce_sb_at(&sb, 5), 6, 160 * US);
	EXPECT_TRUE(mroce_sb_sack(&sb, 0, 10, 5));
	EXPECT_EQ(mroce_rack_detect(&k, &sb, &r, 0, 10, 10 * MS, &dl), 4);
	EXPECT_EQ(dl, 0);
	EXPECT_EQ(mroce_sb_at(&sb, 2)->state, MROCE_SB_RESENT);
	for (i = 6; i < 10; i++)
		EXPECT_EQ(mroce_sb_at(&sb, i)->state, MROCE_SB_INFLIGHT);
	/* the resend of 2 delivered: 6-9 were sent before it, lost */
	mroce_rack_delivered(&k, &r, mroce_sb_at(&sb, 2), 3, 10 * MS);
	EXPECT_EQ(mroce_rack_detect(&k, &sb, &r, 0, 10, 20 * MS, &dl), 4);
	for (i = 6; i < 10; i++)
		EXPECT_EQ(mroce_sb_at(&sb, i)->state, MROCE_SB_LOST);
}
