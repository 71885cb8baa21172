// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: key lookup, range and access checks, gather/scatter.
 */
#include <string.h>

#include "mem.h"

/* Overflow-safe: va >= base and va + len <= base + length. */
static bool range_ok(uint64_t base, uint64_t length, uint64_t va, uint64_t len)
{
	return va >= base && va - base <= length && len <= length - (va - base);
}

void idev_key_view_of(const struct idev_mr *mr, struct idev_key_view *k)
{
	memset(k, 0, sizeof(*k));
	if (!mr)
		return;
	k->key = mr->key;
	k->pdid = mr->pdid;
	k->access = mr->access;
	k->is_mw = mr->is_mw;
	/* a window maps its own range onto the region it is bound to (its
	 * host pointer is the window's start in that region, see mw.c) */
	k->usable = mr->valid &&
		    (!mr->is_mw ||
		     (mr->bound_mr && mr->bound_mr->valid && mr->host));
	k->iova = mr->iova;
	k->length = mr->length;
	k->host = (uint64_t)(uintptr_t)mr->host;
	if (!mr->is_mw)
		k->share = mr->share;
	else if (mr->bound_mr)
		k->share = mr->bound_mr->share;
}

enum ionic_status idev_key_check_local(const struct idev_key_view *k,
				       uint32_t pdid, uint32_t key, uint64_t va,
				       uint64_t len, uint32_t access,
				       uint64_t *addr)
{
	*addr = 0;
	if (!len)
		return IONIC_STS_OK;
	/* A local key must name a memory region of the QP's PD; windows
	 * are for remote access only. */
	if (k->key != key || !k->usable || k->is_mw || k->pdid != pdid)
		return IONIC_STS_LOCAL_PROT_ERR;
	if ((k->access & access) != access)
		return IONIC_STS_LOCAL_PROT_ERR;
	if (!range_ok(k->iova, k->length, va, len))
		return IONIC_STS_LOCAL_PROT_ERR;
	*addr = k->host + (va - k->iova);
	return IONIC_STS_OK;
}

enum ionic_status idev_key_check_remote(const struct idev_key_view *k,
					uint32_t pdid, uint32_t rkey,
					uint64_t va, uint64_t len,
					uint32_t access, uint64_t *addr)
{
	*addr = 0;
	if (!len)
		return IONIC_STS_OK;
	if (k->key != rkey || !k->usable || k->pdid != pdid ||
	    (k->access & access) != access ||
	    !range_ok(k->iova, k->length, va, len))
		return IONIC_STS_REMOTE_ACC_ERR;
	*addr = k->host + (va - k->iova);
	return IONIC_STS_OK;
}

/* Resolve through the device's own table, as a local or a remote key. */
static enum ionic_status mem_resolve(struct idev *dev, bool remote,
				     uint32_t pdid, uint32_t key, uint64_t va,
				     uint64_t len, uint32_t access,
				     uint8_t **host)
{
	struct idev_key_view k;
	enum ionic_status st;
	uint64_t addr;

	*host = NULL;
	if (!len)
		return IONIC_STS_OK;
	idev_key_view_of(idev_mr_at(dev, key), &k);
	st = remote ? idev_key_check_remote(&k, pdid, key, va, len, access,
					    &addr) :
		      idev_key_check_local(&k, pdid, key, va, len, access,
					   &addr);
	if (!st)
		*host = (uint8_t *)(uintptr_t)addr;
	return st;
}

enum ionic_status idev_mem_resolve(struct idev *dev, uint32_t pdid,
				   uint32_t key, uint64_t va, uint64_t len,
				   uint32_t access, uint8_t **host)
{
	return mem_resolve(dev, false, pdid, key, va, len, access, host);
}

enum ionic_status idev_mem_resolve_remote(struct idev *dev, uint32_t pdid,
					  uint32_t rkey, uint64_t va,
					  uint64_t len, uint32_t access,
					  uint8_t **host)
{
	return mem_resolve(dev, true, pdid, rkey, va, len, access, host);
}

enum ionic_status idev_mem_check_sgl(struct idev *dev, uint32_t pdid,
				     const struct idev_wqe *w, uint32_t access)
{
	struct idev_sge sge;
	enum ionic_status st;
	uint8_t *host;
	unsigned int i;

	if (w->inl)
		return IONIC_STS_OK;
	for (i = 0; i < w->num_sge; i++) {
		idev_wqe_sge(w, i, &sge);
		st = idev_mem_resolve(dev, pdid, sge.lkey, sge.va, sge.len,
				      access, &host);
		if (st)
			return st;
	}
	return IONIC_STS_OK;
}

/*
 * Walk the SGL from the start to message offset 'off' and copy 'len'
 * bytes in or out.  SGLs are short (at most a few dozen entries), so the
 * walk from the start per packet is cheaper than keeping a cursor in
 * sync across retransmissions.
 */
static enum ionic_status sgl_copy(struct idev *dev, uint32_t pdid,
				  const struct idev_wqe *w, uint64_t off,
				  uint8_t *buf, uint32_t len, uint32_t access,
				  bool to_sgl)
{
	struct idev_sge sge;
	enum ionic_status st;
	unsigned int i;
	uint8_t *host;
	uint64_t n;

	for (i = 0; i < w->num_sge && len; i++) {
		idev_wqe_sge(w, i, &sge);
		if (off >= sge.len) {
			off -= sge.len;
			continue;
		}
		n = sge.len - off;
		if (n > len)
			n = len;
		st = idev_mem_resolve(dev, pdid, sge.lkey, sge.va + off, n,
				      access, &host);
		if (st)
			return st;
		if (to_sgl)
			memcpy(host, buf, n);
		else
			memcpy(buf, host, n);
		buf += n;
		len -= n;
		off = 0;
	}
	return len ? IONIC_STS_LOCAL_LEN_ERR : IONIC_STS_OK;
}

enum ionic_status idev_mem_gather(struct idev *dev, uint32_t pdid,
				  const struct idev_wqe *w, uint64_t off,
				  void *dst, uint32_t len)
{
	if (w->inl) {
		if (off > w->length || len > w->length - off)
			return IONIC_STS_LOCAL_LEN_ERR;
		memcpy(dst, idev_wqe_inline(w) + off, len);
		return IONIC_STS_OK;
	}
	return sgl_copy(dev, pdid, w, off, dst, len, 0, false);
}

enum ionic_status idev_mem_scatter(struct idev *dev, uint32_t pdid,
				   const struct idev_wqe *w, uint64_t off,
				   const void *src, uint32_t len)
{
	if (off > w->length || len > w->length - off)
		return IONIC_STS_LOCAL_LEN_ERR;
	return sgl_copy(dev, pdid, w, off, (uint8_t *)src, len,
			IBV_ACCESS_LOCAL_WRITE, true);
}
