// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Ring geometry, WQE sizing and ring memory (docs/device-contract.md §2, §3.8).
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "ionic.h"
#include "queue.h"

int ionic_queue_geometry(struct ionic_queue *q, uint32_t depth, uint32_t stride,
			 unsigned int pg_shift)
{
	unsigned int depth_log2, stride_log2;

	if (depth > IONIC_QUEUE_DEPTH_MAX || stride == 0 ||
	    stride > IONIC_QUEUE_STRIDE_MAX || pg_shift > 30)
		return EINVAL;

	/* 0 means "one": every QP has both rings even if one is unused */
	if (depth == 0)
		depth = 1;

	/* strictly more slots than requested: the hole keeps cap >= depth */
	depth_log2 = ionic_bitlen(depth);
	stride_log2 = ionic_bitlen(stride - 1);

	/* the kernel pins whole pages; a ring is at least one host page */
	if (depth_log2 + stride_log2 < pg_shift)
		depth_log2 = pg_shift - stride_log2;

	/* 16-bit indexes: a bigger ring could not be addressed */
	if (depth_log2 > 16)
		return EINVAL;

	memset(q, 0, sizeof(*q));
	q->depth_log2 = depth_log2;
	q->stride_log2 = stride_log2;
	q->mask = (uint16_t)((1u << depth_log2) - 1);
	q->size = (size_t)1 << (depth_log2 + stride_log2);
	return 0;
}

int ionic_queue_alloc(struct ionic_queue *q, struct ionic_pd *pd, uint64_t tag)
{
	size_t align;
	void *ptr;
	int rc;

	q->user_alloc = false;
	q->alloc_tag = tag;

	if (pd && pd->alloc) {
		align = ionic_queue_stride(q);
		if (align < 4096)
			align = 4096;
		ptr = pd->alloc(&pd->ibpd, pd->pd_context, q->size, align, tag);
		if (ptr != IBV_ALLOCATOR_USE_DEFAULT) {
			/* a NULL from the user must not leave errno at 0 */
			if (!ptr)
				return ENOMEM;
			/* user memory may hold stale colour bits: zero it */
			memset(ptr, 0, q->size);
			q->ptr = ptr;
			q->user_alloc = true;
			q->user_free = pd->free;
			q->user_pd = &pd->ibpd;
			q->user_pd_context = pd->pd_context;
			return 0;
		}
	}

	/* fresh anonymous memory is zero, as the CQ colour rule needs */
	ptr = mmap(NULL, q->size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ptr == MAP_FAILED)
		return errno ? errno : ENOMEM;

	/* the device DMAs into these pages; a fork must not COW them */
	rc = ibv_dontfork_range(ptr, q->size);
	if (rc) {
		munmap(ptr, q->size);
		return rc > 0 ? rc : ENOMEM;
	}

	q->ptr = ptr;
	return 0;
}

void ionic_queue_free(struct ionic_queue *q)
{
	if (!q->ptr)
		return;

	if (q->user_alloc) {
		if (q->user_free)
			q->user_free(q->user_pd, q->user_pd_context, q->ptr,
				     q->alloc_tag);
		q->user_alloc = false;
	} else {
		ibv_dofork_range(q->ptr, q->size);
		munmap(q->ptr, q->size);
	}
	q->ptr = NULL;
}

void ionic_queue_qdesc(const struct ionic_queue *q, struct ionic_qdesc *qd)
{
	qd->addr = (uintptr_t)q->ptr;
	qd->size = (uint32_t)q->size;
	qd->mask = q->mask;
	qd->depth_log2 = q->depth_log2;
	qd->stride_log2 = q->stride_log2;
}

/* ---- WQE sizing ---------------------------------------------------- */

uint8_t ionic_queue_spec(uint32_t max_sge, uint8_t ctx_spec)
{
	/* plain format when spec is off or cannot describe max_sge SGEs */
	if (!ctx_spec || max_sge > ctx_spec)
		return 0;
	/* two SGEs fit without a length table: the format never switches */
	if (max_sge <= 2)
		return 2;
	return ctx_spec;
}

static uint32_t ionic_pow2_roundup(uint32_t v)
{
	return v <= 1 ? 1 : 1u << ionic_bitlen(v - 1);
}

/* SGE slots taken by a WQE: the SGEs, a 32-byte length table, the trailer */
static uint32_t ionic_sge_slots(uint32_t max_sge, uint8_t spec, bool expdb)
{
	return max_sge + (spec > 2 ? 2 : 0) + (expdb ? 1 : 0);
}

uint32_t ionic_send_min_size(uint32_t max_sge, uint32_t max_inline,
			     uint8_t spec, bool expdb)
{
	uint32_t sz_sge = IONIC_WQE_PAYLOAD_OFF +
			  16 * ionic_sge_slots(max_sge, spec, expdb);
	uint32_t sz_inl = IONIC_WQE_PAYLOAD_OFF + max_inline +
			  (expdb ? IONIC_EXP_DBELL_SZ : 0);
	uint32_t sz = IONIC_WQE_MIN_SIZE;

	if (sz_sge > sz)
		sz = sz_sge;
	if (sz_inl > sz)
		sz = sz_inl;
	return ionic_pow2_roundup(sz);
}

uint32_t ionic_recv_min_size(uint32_t max_sge, uint8_t spec, bool expdb)
{
	uint32_t sz = IONIC_WQE_PAYLOAD_OFF +
		      16 * ionic_sge_slots(max_sge, spec, expdb);

	return sz < IONIC_WQE_MIN_SIZE ? IONIC_WQE_MIN_SIZE : sz;
}

uint32_t ionic_send_max_sge(unsigned int stride_log2, uint8_t spec, bool expdb)
{
	uint32_t end = (1u << stride_log2) - (expdb ? 16 : 0);
	uint32_t first = IONIC_WQE_PAYLOAD_OFF + (spec > 2 ? 32 : 0);
	uint32_t k = end > first ? (end - first) / 16 : 0;

	if (spec && k > spec)
		k = spec;
	return k;
}

uint32_t ionic_recv_max_sge(unsigned int stride_log2, uint8_t spec, bool expdb)
{
	/* the receive payload also starts at offset 32: same formula */
	return ionic_send_max_sge(stride_log2, spec, expdb);
}

uint32_t ionic_send_max_inline(unsigned int stride_log2, bool expdb)
{
	return (1u << stride_log2) - IONIC_WQE_PAYLOAD_OFF -
	       (expdb ? IONIC_EXP_DBELL_SZ : 0);
}

bool ionic_expdb_size_ok(uint32_t size, uint8_t expdb_mask)
{
	switch (size) {
	case 64:
		return expdb_mask & IONIC_EXPDB_64;
	case 128:
		return expdb_mask & IONIC_EXPDB_128;
	case 256:
		return expdb_mask & IONIC_EXPDB_256;
	case 512:
		return expdb_mask & IONIC_EXPDB_512;
	default:
		return false;
	}
}
