/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Rings shared with the device (SQ, RQ, CQ): geometry, sizing rules and
 * ring memory.
 *
 * A ring has 2^depth_log2 slots of 2^stride_log2 bytes.  One slot always
 * stays unused (the "hole") so that full and empty differ: the usable
 * capacity is mask = 2^depth_log2 - 1, and that is what the provider
 * reports as max_send_wr / max_recv_wr.
 *
 * For SQ/RQ the host owns prod and advances cons when completions are
 * reaped.  For a CQ, prod is the host's read position and cons the read
 * position last reported to the device on doorbell ring 0.
 *
 * The sizing helpers are pure functions of their arguments so the unit
 * tests can check them against the device reference without a device.
 */
#ifndef IONIC_QUEUE_H
#define IONIC_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <rdma/ionic-abi.h>
/* the parent-domain allocator tags IONIC_PD_TAG_* are public */
#include <infiniband/ionic_dv.h>

struct ibv_pd;
struct ionic_pd;

#define IONIC_QUEUE_DEPTH_MAX 0xffff
#define IONIC_QUEUE_STRIDE_MAX 0x10000

struct ionic_queue {
	void *ptr;
	size_t size;
	uint64_t dbell; /* doorbell template: qid << 24 */
	uint16_t prod;
	uint16_t cons;
	uint16_t mask;
	uint8_t depth_log2;
	uint8_t stride_log2;

	/*
	 * Set when a parent domain's allocator served the ring, so the
	 * right free is called.  The free callback and its arguments are
	 * copied, not referenced through the parent domain, so destroying a
	 * queue never reads a parent domain the application already
	 * deallocated.
	 */
	bool user_alloc;
	void (*user_free)(struct ibv_pd *pd, void *pd_context, void *ptr,
			  uint64_t resource_type);
	struct ibv_pd *user_pd;
	void *user_pd_context;
	uint64_t alloc_tag;
};

/*
 * Compute depth/stride/mask/size for 'depth' elements of 'stride' bytes,
 * at least one page of 2^pg_shift bytes.  Returns 0 or EINVAL.
 */
int ionic_queue_geometry(struct ionic_queue *q, uint32_t depth, uint32_t stride,
			 unsigned int pg_shift);

/*
 * Allocate zeroed, page-aligned ring memory for a queue whose geometry is
 * set.  'pd' may be NULL or a parent domain with allocators; 'tag' is the
 * IONIC_PD_TAG_* for the ring.  Returns 0 or a positive errno.
 */
int ionic_queue_alloc(struct ionic_queue *q, struct ionic_pd *pd, uint64_t tag);
void ionic_queue_free(struct ionic_queue *q);

/* Ring descriptor for the kernel (ionic_qdesc). */
void ionic_queue_qdesc(const struct ionic_queue *q, struct ionic_qdesc *qd);

static inline void *ionic_queue_at(const struct ionic_queue *q, uint16_t idx)
{
	return (uint8_t *)q->ptr + ((size_t)idx << q->stride_log2);
}

static inline uint16_t ionic_queue_next(const struct ionic_queue *q,
					uint16_t idx)
{
	return (idx + 1) & q->mask;
}

static inline uint16_t ionic_queue_length(const struct ionic_queue *q)
{
	return (q->prod - q->cons) & q->mask;
}

static inline bool ionic_queue_empty(const struct ionic_queue *q)
{
	return q->prod == q->cons;
}

static inline bool ionic_queue_full(const struct ionic_queue *q)
{
	return ionic_queue_length(q) == q->mask;
}

/*
 * The consumer index of an SQ or RQ is advanced by the CQ's poller, which
 * does not hold the queue's lock, and read by the poster, which does:
 * the poller stores it with release once it is done with the slots it
 * retired, the poster loads it with acquire before reusing them (plain
 * moves on x86-64).
 */
static inline void ionic_queue_cons_release(struct ionic_queue *q,
					    uint16_t cons)
{
	__atomic_store_n(&q->cons, cons, __ATOMIC_RELEASE);
}

/* ionic_queue_full() for the poster, as the poller left the queue. */
static inline bool ionic_queue_full_acquire(const struct ionic_queue *q)
{
	uint16_t cons = __atomic_load_n(&q->cons, __ATOMIC_ACQUIRE);

	return ((q->prod - cons) & q->mask) == q->mask;
}

static inline size_t ionic_queue_stride(const struct ionic_queue *q)
{
	return (size_t)1 << q->stride_log2;
}

/* ---- WQE sizing (docs/device-contract.md §3.8) --------------------------- */

/* Per-queue speculative SGE setting from the user's max_sge. */
uint8_t ionic_queue_spec(uint32_t max_sge, uint8_t ctx_spec);

/* Smallest WQE size (power of two >= 64) for the SQ. */
uint32_t ionic_send_min_size(uint32_t max_sge, uint32_t max_inline,
			     uint8_t spec, bool expdb);
/* Smallest WQE size for the RQ; NOT rounded (the ring rounds it). */
uint32_t ionic_recv_min_size(uint32_t max_sge, uint8_t spec, bool expdb);

/* Capacities of an allocated stride: reported back and used as limits. */
uint32_t ionic_send_max_sge(unsigned int stride_log2, uint8_t spec, bool expdb);
uint32_t ionic_recv_max_sge(unsigned int stride_log2, uint8_t spec, bool expdb);
uint32_t ionic_send_max_inline(unsigned int stride_log2, bool expdb);

/* Express doorbell WQE sizes 64/128/256/512 <-> expdb_mask bits 1/2/4/8. */
bool ionic_expdb_size_ok(uint32_t size, uint8_t expdb_mask);

/* Bit length of v (0 for 0): floor(log2(v)) + 1. */
static inline unsigned int ionic_bitlen(uint32_t v)
{
	return v ? 32 - __builtin_clz(v) : 0;
}

#endif /* IONIC_QUEUE_H */
