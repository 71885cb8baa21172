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

enum ionic_status idev_mem_resolve(struct idev *dev, uint32_t pdid,
				   uint32_t key, uint64_t va, uint64_t len,
				   uint32_t access, uint8_t **host)
{
	struct idev_mr *mr;

	*host = NULL;
	if (!len)
		return IONIC_STS_OK;
	mr = idev_key_lookup(dev, key);
	/* A local key must name a memory region of the QP's PD; windows
	 * are for remote access only. */
	if (!mr || mr->is_mw || mr->pdid != pdid)
		return IONIC_STS_LOCAL_PROT_ERR;
	if ((mr->access & access) != access)
		return IONIC_STS_LOCAL_PROT_ERR;
	if (!range_ok(mr->iova, mr->length, va, len))
		return IONIC_STS_LOCAL_PROT_ERR;
	*host = mr->host + (va - mr->iova);
	return IONIC_STS_OK;
}

enum ionic_status idev_mem_resolve_remote(struct idev *dev, uint32_t pdid,
					  uint32_t rkey, uint64_t va,
					  uint64_t len, uint32_t access,
					  uint8_t **host)
{
	struct idev_mr *mr;

	*host = NULL;
	if (!len)
		return IONIC_STS_OK;
	mr = idev_key_lookup(dev, rkey);
	if (!mr || mr->pdid != pdid || (mr->access & access) != access ||
	    !range_ok(mr->iova, mr->length, va, len))
		return IONIC_STS_REMOTE_ACC_ERR;
	if (!mr->is_mw) {
		*host = mr->host + (va - mr->iova);
		return IONIC_STS_OK;
	}
	/* A window maps its own range onto the region it is bound to (its
	 * host pointer is the window's start in that region, see mw.c). */
	if (!mr->bound_mr || !mr->bound_mr->valid || !mr->host)
		return IONIC_STS_REMOTE_ACC_ERR;
	*host = mr->host + (va - mr->iova);
	return IONIC_STS_OK;
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
