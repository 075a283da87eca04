// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Check of a received packet's transport part (see mroce_rx.h).
 */
#include "mroce_core.h"
#include "mroce_icrc.h"
#include "mroce_raw.h"
#include "mroce_rx.h"

/**
 * mroce_rx_decode() - decode the transport headers of a received packet
 * @v: where its bytes are
 * @h: its headers, decoded
 * @lo: their layout: header and payload lengths, pad
 *
 * Return: 0, or -EMSGSIZE, -EOPNOTSUPP or -EPROTO when the headers do not
 * match the opcode table (mroce_hdr_decode()).
 */
int mroce_rx_decode(const struct mroce_rx_view *v, struct mroce_hdr *h,
		    struct mroce_hdr_layout *lo)
{
	if (v->len < MROCE_BTH_LEN + MROCE_ICRC_LEN)
		return -EMSGSIZE;
	return mroce_hdr_decode(mroce_rx_bth(v), v->len, h, lo);
}

/**
 * mroce_rx_verify() - check a decoded packet's integrity and partition
 * @v: where its bytes are
 * @h: its headers (mroce_rx_decode())
 * @icrc: verify the ICRC (false when an integrity check that stands for
 *	it, the UDP checksum between MetaRoCE peers, already passed)
 *
 * Return: 0; -EBADMSG for a wrong ICRC; -EACCES for a partition other than
 * the default one (IBTA 9.6.1.1, C9-41: the only one a RoCE port has).
 */
int mroce_rx_verify(const struct mroce_rx_view *v, const struct mroce_hdr *h,
		    bool icrc)
{
	u8 trailer[MROCE_ICRC_LEN];
	u32 crc;

	if (icrc) {
		/* The pseudo-header covers IP, UDP and BTH (IBTA A17.8). */
		crc = mroce_icrc_begin(v->ip, v->ipv6);
		crc = v->crc(v->ctx, MROCE_BTH_LEN,
			     v->len - MROCE_BTH_LEN - MROCE_ICRC_LEN, crc);
		if (v->copy(v->ctx, v->len - MROCE_ICRC_LEN, trailer,
			    sizeof(trailer)) ||
		    mroce_icrc_finish(crc) != mroce_get_le32(trailer))
			return -EBADMSG;
	}
	if ((h->bth.pkey & 0x7fff) != 0x7fff)
		return -EACCES;
	return 0;
}
