// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Memory access of the data path: every transfer between a packet and a
 * memory region goes through here, and every one is checked first
 * (IBTA 10.6.3 and 9.7.5.2.x: key, protection domain, access rights and
 * bounds), so no packet can reach memory outside the region it names.
 *
 * Lookups run under rcu_read_lock(): mroce_dereg_mr() unpublishes a region
 * and waits for a grace period before it unpins the pages, so a region found
 * here stays usable until rcu_read_unlock().  Copies to and from user
 * memory find each page in the region's page array (O(1) in the offset,
 * however large the region) and map it with kmap_local_page(), which is
 * allowed in an RCU read-side section.  A dma-buf region is copied through
 * the exporter's CPU mapping, which its revocation withdraws under RCU too
 * (mroce_dmabuf.c): after that every access fails its key check.
 *
 * The other side of a copy is a linear buffer or, for received payload,
 * a range of the skb (struct mroce_cur), which may lie in page fragments.
 * Transmitted payload from a user region can instead be attached to the
 * skb by reference (mroce_sge_frags(), mroce_rkey_frags()): each fragment
 * holds its own page reference, so a page stays allocated until the skb is
 * freed even if the region is deregistered (and unpinned) first.
 */
#include <linux/highmem.h>

#include "mroce_dp.h"

/* Atomics of all QPs on one location must not interleave (IBTA 9.4.5). */
static DEFINE_SPINLOCK(mroce_atomic_lock);

/*
 * The region @key names, if @pd owns it, it grants @access and
 * [@va, @va + @len) lies inside it; for an R_Key of a memory window, the
 * region behind the window if the window allows the access (mroce_mw.c).
 * Caller holds rcu_read_lock().
 */
static struct mroce_mr *mroce_mr_lookup(struct mroce_dpqp *dp, u32 key,
					bool remote, int access, u64 va,
					u64 len)
{
	struct mroce_mr *mr;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "mroce_mr_lookup without RCU");
	if (mroce_key_is_mw(key))
		return remote ? mroce_mw_lookup(dp, key, access, va, len) :
				NULL;
	mr = xa_load(&dp->mdev->res.mr_xa, key >> 8);
	if (!mr)
		return NULL;
	if (mr->fr_pages) {
		/* Registered by IB_WR_REG_MR: the fields below follow. */
		if (!smp_load_acquire(&mr->fr_valid) || mr->fr_key != key)
			return NULL;
	} else if ((remote ? mr->ibmr.rkey : mr->ibmr.lkey) != key) {
		return NULL;
	}
	if (mr->ibmr.pd != dp->qp->ibqp.pd)
		return NULL;
	/* A revoked dma-buf grants nothing (IBTA 10.6.3: an invalid key). */
	if (mr->dmabuf && !rcu_access_pointer(mr->dmabuf->vaddr))
		return NULL;
	if ((mr->access & access) != access)
		return NULL;
	if (!mroce_range_in(va, len, mr->iova, mr->length))
		return NULL;
	return mr;
}

/*
 * The page holding byte @off of a user region (counted from the start of
 * its first page) and the offset in it.  Caller holds RCU.
 */
static struct page *mroce_mr_page(struct mroce_mr *mr, u64 off,
				  unsigned int *poff)
{
	u64 idx = off >> PAGE_SHIFT;

	if (idx >= mr->npages)
		return NULL;
	*poff = offset_in_page(off);
	return mr->pages[idx];
}

/*
 * The kernel virtual address of @va in a fast-registration region and the
 * bytes that follow it in the same page of the mapping.  Caller holds RCU.
 */
static u8 *mroce_fr_addr(struct mroce_mr *mr, u64 va, u32 *avail)
{
	u64 psize = 1ULL << mr->fr_shift;
	u64 off = va - mr->iova + (mr->iova & (psize - 1));
	u64 idx = off >> mr->fr_shift;

	if (idx >= mr->fr_npages)
		return NULL;
	*avail = psize - (off & (psize - 1));
	return (u8 *)(uintptr_t)(mr->fr_pages[idx] + (off & (psize - 1)));
}

/*
 * Move @n bytes between memory at @m and the cursor, and advance the
 * cursor.  Received skbs are only ever read: @to_mem with c->skb.
 */
static void mroce_cur_xfer(struct mroce_cur *c, u8 *m, u32 n, bool to_mem)
{
	if (c->skb) {
		/* The caller checked the range against the packet's length. */
		WARN_ON_ONCE(skb_copy_bits(c->skb, c->off, m, n));
		c->off += n;
		return;
	}
	if (to_mem)
		memcpy(m, c->p, n);
	else
		memcpy(c->p, m, n);
	c->p += n;
}

static int mroce_fr_xfer(struct mroce_mr *mr, u64 va, struct mroce_cur *c,
			 u32 len, bool to_mem)
{
	while (len) {
		u32 avail, n;
		u8 *m = mroce_fr_addr(mr, va, &avail);

		if (!m)
			return -EFAULT;
		n = min(len, avail);
		mroce_cur_xfer(c, m, n, to_mem);
		va += n;
		len -= n;
	}
	return 0;
}

/*
 * The CPU address of @va in a dma-buf region, NULL once the exporter revoked
 * it.  Caller holds RCU and checked that @va lies in the region.
 */
static u8 *mroce_dmabuf_addr(struct mroce_mr *mr, u64 va)
{
	u8 *base = rcu_dereference(mr->dmabuf->vaddr);

	return base ? base + (va - mr->iova) : NULL;
}

/* Copy between @c and a checked range of @mr.  Caller holds RCU. */
static int mroce_mr_xfer(struct mroce_mr *mr, u64 va, struct mroce_cur *c,
			 u32 len, bool to_mem)
{
	u64 off;

	if (mr->dmabuf) {
		u8 *m = mroce_dmabuf_addr(mr, va);

		/* Revoked since the key check: the same protection error. */
		if (!m)
			return -EACCES;
		mroce_cur_xfer(c, m, len, to_mem);
		return 0;
	}
	if (mr->fr_pages)
		return mroce_fr_xfer(mr, va, c, len, to_mem);
	if (!mr->umem) {
		/* DMA MR: kernel consumers pass kernel virtual addresses. */
		mroce_cur_xfer(c, (u8 *)(uintptr_t)va, len, to_mem);
		return 0;
	}
	off = va - mr->iova + ib_umem_offset(mr->umem);
	while (len) {
		unsigned int poff, n;
		struct page *page = mroce_mr_page(mr, off, &poff);
		u8 *map;

		if (!page)
			return -EFAULT;
		n = min_t(u32, len, PAGE_SIZE - poff);
		map = kmap_local_page(page);
		mroce_cur_xfer(c, map + poff, n, to_mem);
		kunmap_local(map);
		off += n;
		len -= n;
	}
	return 0;
}

/*
 * Attach bytes [@va, @va + @len) of a checked user region to @skb as page
 * fragments, after those it has; -EOPNOTSUPP when the region is not made
 * of pinned pages or the fragments would not fit (the caller copies).
 * Caller holds RCU.
 */
static int mroce_mr_frags(struct mroce_mr *mr, u64 va, struct sk_buff *skb,
			  u32 len)
{
	struct skb_shared_info *sh = skb_shinfo(skb);
	u64 off;

	if (!mr->umem || mr->dmabuf || mr->fr_pages)
		return -EOPNOTSUPP;
	off = va - mr->iova + ib_umem_offset(mr->umem);
	while (len) {
		unsigned int poff, n;
		struct page *page = mroce_mr_page(mr, off, &poff);
		skb_frag_t *last = sh->nr_frags ?
				   &sh->frags[sh->nr_frags - 1] : NULL;

		if (!page)
			return -EFAULT;
		n = min_t(u32, len, PAGE_SIZE - poff);
		if (last && skb_frag_page(last) == page &&
		    skb_frag_off(last) + skb_frag_size(last) == poff) {
			skb_frag_size_add(last, n);
		} else {
			/* One slot stays free for the trailer (mroce_net.c). */
			if (sh->nr_frags >= MAX_SKB_FRAGS - 1)
				return -EOPNOTSUPP;
			get_page(page);
			skb_fill_page_desc(skb, sh->nr_frags, page, poff, n);
		}
		skb->len += n;
		skb->data_len += n;
		skb->truesize += n;
		off += n;
		len -= n;
	}
	/* The pages are the user's: they may change under the packet. */
	sh->flags |= SKBFL_SHARED_FRAG;
	return 0;
}

u32 mroce_sge_total(const struct metaroce_sge *sge, u32 nsge)
{
	u64 total = 0;
	u32 i;

	for (i = 0; i < nsge; i++)
		total += sge[i].length;
	return total > U32_MAX ? U32_MAX : total;
}

/*
 * Walk [@off, @off + @len) of a local SGE list: copy through @c, or with
 * @skb attach the pages to it.  See mroce_sge_copy() for the errors.
 */
static int mroce_sge_walk(struct mroce_dpqp *dp,
			  const struct metaroce_sge *sge, u32 nsge, u32 off,
			  struct mroce_cur *c, struct sk_buff *skb, u32 len,
			  bool to_mem)
{
	int access = to_mem ? IB_ACCESS_LOCAL_WRITE : 0;
	int err = 0;
	u32 i;

	rcu_read_lock();
	for (i = 0; i < nsge && len; i++) {
		struct mroce_mr *mr;
		u32 n;

		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		n = min(len, sge[i].length - off);
		mr = mroce_mr_lookup(dp, sge[i].lkey, false, access,
				     sge[i].addr + off, n);
		if (!mr) {
			err = -EACCES;
			break;
		}
		if (skb)
			err = mroce_mr_frags(mr, sge[i].addr + off, skb, n);
		else
			err = mroce_mr_xfer(mr, sge[i].addr + off, c, n,
					    to_mem);
		if (err)
			break;
		len -= n;
		off = 0;
	}
	rcu_read_unlock();
	if (!err && len)
		err = -EMSGSIZE;
	return err;
}

/**
 * mroce_sge_copy() - move bytes between a buffer and a local SGE list
 * @dp: the QP (its PD must own the regions)
 * @sge: the list, already copied out of the shared ring
 * @nsge: entries of @sge
 * @off: byte offset into the list
 * @buf: the other side of the copy
 * @len: bytes
 * @to_mem: write into the SGEs (needs IB_ACCESS_LOCAL_WRITE) or read them
 *
 * Return: 0; -EACCES if a key, PD, right or bound check fails (IBTA local
 * protection error); -EMSGSIZE if the list is shorter than @off + @len.
 */
int mroce_sge_copy(struct mroce_dpqp *dp, const struct metaroce_sge *sge,
		   u32 nsge, u32 off, void *buf, u32 len, bool to_mem)
{
	struct mroce_cur c = { .p = buf };

	return mroce_sge_walk(dp, sge, nsge, off, &c, NULL, len, to_mem);
}

/**
 * mroce_sge_place() - write received payload into a local SGE list
 * @dp: the QP
 * @sge: the list (of a receive WQE, or of a READ's send WQE)
 * @nsge: entries of @sge
 * @off: byte offset into the list
 * @pkt: the packet; its first @len payload bytes are written
 * @len: bytes, at most pkt->lo.pay_len
 *
 * Return: as mroce_sge_copy().
 */
int mroce_sge_place(struct mroce_dpqp *dp, const struct metaroce_sge *sge,
		    u32 nsge, u32 off, const struct mroce_rxpkt *pkt, u32 len)
{
	struct mroce_cur c = mroce_pkt_cur(pkt);

	return mroce_sge_walk(dp, sge, nsge, off, &c, NULL, len, true);
}

/**
 * mroce_sge_frags() - attach bytes of a local SGE list to an skb by reference
 * @dp: the QP
 * @sge: the list
 * @nsge: entries of @sge
 * @off: byte offset into the list
 * @skb: the packet, its payload fragments follow those it has
 * @len: bytes
 *
 * Return: as mroce_sge_copy(), or -EOPNOTSUPP when a region is not made
 * of pinned user pages or the skb has too few fragment slots: the caller
 * frees @skb and copies instead.
 */
int mroce_sge_frags(struct mroce_dpqp *dp, const struct metaroce_sge *sge,
		    u32 nsge, u32 off, struct sk_buff *skb, u32 len)
{
	return mroce_sge_walk(dp, sge, nsge, off, NULL, skb, len, false);
}

/*
 * Check that @rkey grants @access to [@va, @va + @len).  A zero-length
 * access checks nothing (IBTA 9.7.4.1.5: no R_Key validation then).
 */
int mroce_rkey_check(struct mroce_dpqp *dp, u32 rkey, u64 va, u32 len,
		     int access)
{
	bool ok;

	if (!len)
		return 0;
	rcu_read_lock();
	ok = mroce_mr_lookup(dp, rkey, true, access, va, len);
	rcu_read_unlock();
	return ok ? 0 : -EACCES;
}

/* As mroce_rkey_check(), then copy; -EACCES on a failed check. */
static int mroce_rkey_xfer(struct mroce_dpqp *dp, u32 rkey, u64 va,
			   struct mroce_cur *c, struct sk_buff *skb, u32 len,
			   int access, bool to_mem)
{
	struct mroce_mr *mr;
	int err;

	if (!len)
		return 0;
	rcu_read_lock();
	mr = mroce_mr_lookup(dp, rkey, true, access, va, len);
	if (!mr)
		err = -EACCES;
	else if (skb)
		err = mroce_mr_frags(mr, va, skb, len);
	else
		err = mroce_mr_xfer(mr, va, c, len, to_mem);
	rcu_read_unlock();
	return err;
}

int mroce_rkey_copy(struct mroce_dpqp *dp, u32 rkey, u64 va, void *buf,
		    u32 len, int access, bool to_mem)
{
	struct mroce_cur c = { .p = buf };

	return mroce_rkey_xfer(dp, rkey, va, &c, NULL, len, access, to_mem);
}

/* Write the first @len payload bytes of @pkt at @va (an RDMA WRITE). */
int mroce_rkey_place(struct mroce_dpqp *dp, u32 rkey, u64 va,
		     const struct mroce_rxpkt *pkt, u32 len, int access)
{
	struct mroce_cur c = mroce_pkt_cur(pkt);

	return mroce_rkey_xfer(dp, rkey, va, &c, NULL, len, access, true);
}

/* As mroce_sge_frags(), for a remote key (READ responses). */
int mroce_rkey_frags(struct mroce_dpqp *dp, u32 rkey, u64 va,
		     struct sk_buff *skb, u32 len, int access)
{
	return mroce_rkey_xfer(dp, rkey, va, NULL, skb, len, access, false);
}

/**
 * mroce_rkey_atomic() - execute an atomic request (IBTA 9.4.5)
 * @dp: the responder's QP
 * @rkey: R_Key of the AtomicETH
 * @va: its virtual address, 8-byte aligned (checked by the caller)
 * @cmp_swap: CmpSwap (else FetchAdd)
 * @compare_add: compare value, or the addend
 * @swap: swap value
 * @orig: the value found in memory
 *
 * Return: 0, -EACCES on a failed check, -EINVAL when the location is not
 * aligned in the pinned pages.
 */
int mroce_rkey_atomic(struct mroce_dpqp *dp, u32 rkey, u64 va, bool cmp_swap,
		      u64 compare_add, u64 swap, u64 *orig)
{
	unsigned int poff = 0;
	struct page *page = NULL;
	struct mroce_mr *mr;
	u64 *p = NULL;
	int err = 0;

	rcu_read_lock();
	mr = mroce_mr_lookup(dp, rkey, true, IB_ACCESS_REMOTE_ATOMIC, va,
			     sizeof(u64));
	if (!mr) {
		err = -EACCES;
		goto out;
	}
	if (mr->dmabuf) {
		p = (u64 *)mroce_dmabuf_addr(mr, va);
		if (!p || (uintptr_t)p & 7) {
			err = p ? -EINVAL : -EACCES;
			goto out;
		}
	} else if (mr->umem) {
		page = mroce_mr_page(mr, va - mr->iova +
				     ib_umem_offset(mr->umem), &poff);
		if (!page || poff & 7) {
			err = -EINVAL;
			goto out;
		}
	} else if (mr->fr_pages) {
		u32 avail;

		p = (u64 *)mroce_fr_addr(mr, va, &avail);
		if (!p || (uintptr_t)p & 7) {
			err = -EINVAL;
			goto out;
		}
	} else {
		p = (u64 *)(uintptr_t)va;
	}

	spin_lock_bh(&mroce_atomic_lock);
	if (page)
		p = kmap_local_page(page) + poff;
	*orig = READ_ONCE(*p);
	if (!cmp_swap)
		WRITE_ONCE(*p, *orig + compare_add);
	else if (*orig == compare_add)
		WRITE_ONCE(*p, swap);
	if (page)
		kunmap_local(p);
	spin_unlock_bh(&mroce_atomic_lock);
out:
	rcu_read_unlock();
	return err;
}
