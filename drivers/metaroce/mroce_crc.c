// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The CRC-32 under the ICRC, in the module.  Every payload byte goes
 * through it twice per packet (sent, received), so its speed is the
 * bandwidth of large messages.  The crypto API's "crc32" is the fastest
 * the kernel has: on x86 it is crc32-pclmul (carry-less multiply), several
 * times faster than lib/crc32's slice-by-8, which is the fallback when the
 * transform cannot be had or the FPU cannot be used in this context.
 *
 * The "crc32" shash keeps the raw CRC register (no inversion, reflected
 * 0xedb88320) as its descriptor context and updates it in place: the core
 * hands us the register and gets it back (mroce_icrc.h).  Host builds of
 * the core use its own byte-wise table instead.
 */
#include <crypto/hash.h>
#include <linux/crc32.h>
#include <linux/highmem.h>
#include <linux/module.h>
#include <linux/skbuff.h>

#include "mroce_dp.h"
#include "core/mroce_icrc.h"

static struct crypto_shash *mroce_crc_tfm;

u32 mroce_crc32_le(u32 crc, const u8 *p, size_t len)
{
	struct crypto_shash *tfm = mroce_crc_tfm;

	if (tfm) {
		SHASH_DESC_ON_STACK(desc, tfm);
		u32 *reg = shash_desc_ctx(desc);

		desc->tfm = tfm;
		*reg = crc;
		if (!crypto_shash_update(desc, p, len))
			return *reg;
	}
	return crc32_le(crc, p, len);
}

/**
 * mroce_skb_icrc() - feed bytes of an skb to an ICRC
 * @skb: a packet without a frag_list: a linear part, then page fragments
 *	(received from a sender that transmits by reference, or our own)
 * @off: offset from skb->data
 * @len: bytes; @off + @len must lie in the skb
 * @crc: the ICRC register (mroce_icrc_begin())
 *
 * Return: the register after those bytes.
 */
u32 mroce_skb_icrc(const struct sk_buff *skb, u32 off, u32 len, u32 crc)
{
	const struct skb_shared_info *sh = skb_shinfo(skb);
	u32 hl = skb_headlen(skb), i;

	if (off < hl) {
		u32 n = min(len, hl - off);

		crc = mroce_icrc_update(crc, skb->data + off, n);
		off += n;
		len -= n;
	}
	off -= hl;
	for (i = 0; len && i < sh->nr_frags; i++) {
		const skb_frag_t *f = &sh->frags[i];
		u32 fsize = skb_frag_size(f), p_off, p_len, done, n;
		struct page *p;

		if (off >= fsize) {
			off -= fsize;
			continue;
		}
		n = min(len, fsize - off);
		skb_frag_foreach_page(f, skb_frag_off(f) + off, n, p, p_off,
				      p_len, done) {
			u8 *v = kmap_local_page(p);

			crc = mroce_icrc_update(crc, v + p_off, p_len);
			kunmap_local(v);
		}
		len -= n;
		off = 0;
	}
	WARN_ON_ONCE(len);
	return crc;
}

/* Module init: find the transform; without one, lib/crc32 serves. */
void mroce_crc_init(void)
{
	struct crypto_shash *tfm = crypto_alloc_shash("crc32", 0, 0);
	static const u8 probe[] = "123456789";

	if (IS_ERR(tfm)) {
		pr_info("MetaRoCE: no crc32 transform (%ld), ICRC with lib/crc32\n",
			PTR_ERR(tfm));
		return;
	}
	if (crypto_shash_descsize(tfm) != sizeof(u32)) {
		crypto_free_shash(tfm);
		return;
	}
	mroce_crc_tfm = tfm;
	/* The transform must compute what lib/crc32 does (check value). */
	if (mroce_crc32_le(~0U, probe, 9) != crc32_le(~0U, probe, 9)) {
		pr_warn("MetaRoCE: %s disagrees with lib/crc32, not used\n",
			crypto_shash_driver_name(tfm));
		mroce_crc_tfm = NULL;
		crypto_free_shash(tfm);
	}
}

void mroce_crc_exit(void)
{
	if (mroce_crc_tfm)
		crypto_free_shash(mroce_crc_tfm);
	mroce_crc_tfm = NULL;
}

/* The crypto API finds the accelerated "crc32" if it is loaded first. */
MODULE_SOFTDEP("pre: crc32-pclmul");
