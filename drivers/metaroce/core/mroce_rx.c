// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Check of a received packet's transport part (see mroce_rx.h).
 */
#include "mroce_core.h"
#include "mroce_icrc.h"
#include "mroce_raw.h"
#include "mroce_rx.h"

/**
 * mroce_rx_check() - check the transport part of a received packet
 * @v: where its bytes are
 * @icrc: verify the ICRC (false when an integrity check that stands for
 *	it, the UDP checksum between MetaRoCE peers, already passed)
 * @h: its headers, decoded
 * @lo: their layout: header and payload lengths, pad
 *
 * Return: 0; -EMSGSIZE, -EOPNOTSUPP or -EPROTO when the headers do not
 * match the opcode table (mroce_hdr_decode()); -EBADMSG for a wrong ICRC;
 * -EACCES for a partition other than the default one (IBTA 9.6.1.1,
 * C9-41: the only one a RoCE port has).
 */
int mroce_rx_check(const struct mroce_rx_view *v, bool icrc,
		   struct mroce_hdr *h, struct mroce_hdr_layout *lo)
{
	u8 trailer[MROCE_ICRC_LEN];
	u32 crc;
	int err;

	if (v->len < MROCE_BTH_LEN + MROCE_ICRC_LEN)
		return -EMSGSIZE;
	err = mroce_hdr_decode(mroce_rx_bth(v), v->len, h, lo);
	if (err)
		return err;
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
