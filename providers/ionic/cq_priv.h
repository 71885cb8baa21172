/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Completion queue objects: the verbs-visible virtual CQ (vCQ) and the
 * hardware CQ of each UDMA pipeline.  The credits ("reservation" protocol
 * of docs/device-contract.md §8.1) and the CQ doorbells are publish.h's.
 */
#ifndef IONIC_CQ_PRIV_H
#define IONIC_CQ_PRIV_H

#include <assert.h>

#include "ionic.h"
#include "lock.h"
#include "publish.h"
#include "queue.h"

#define IONIC_MAX_UDMA 2

/*
 * One hardware CQ.  Everything here is under 'lock' (CQ before SQ/RQ),
 * except the immutable cqid and ring geometry.  q.prod, color, flush and
 * pending_sq are also read without the lock, to tell an empty poll at
 * once (ionic_cq_idle(), poll.c): they are stored with relaxed atomics.
 */
struct ionic_cq {
	struct ionic_lock lock;
	/* of a thread domain: the data path never takes 'lock' (lock.h) */
	bool lockfree;
	struct ionic_queue q; /* q.prod = read position, q.cons = reported */
	uint32_t cqid;
	/* the colour a valid CQE at the read position has, as its
	 * qid_type_flags word has it: htobe32(IONIC_CQE_COLOR) or 0 */
	uint32_t color;
	bool flush; /* some QP on the flush lists has work */
	bool pending_sq; /* poll_sq is not empty */
	/* the QP of this CQ the last CQE named (poll.c); dropped when it
	 * detaches */
	uint32_t last_qid;
	struct ionic_qp *last_qp;
	struct ionic_cq_pub pub; /* credits and doorbells */
	/* QPs with send completions left over from a full poll (phase A) */
	struct ionic_list poll_sq;
	/* QPs whose SQ / RQ must be flushed in software (phase C) */
	struct ionic_list flush_sq;
	struct ionic_list flush_rq;
};

struct ionic_vcq {
	struct verbs_cq vcq;
	struct ionic_ctx *ctx;
	const struct ionic_qp_table *qp_table; /* the context's */
	/* poll and arm for this vCQ's pipelines and locking (poll.c, cq.c) */
	int (*poll)(struct ionic_vcq *vcq, int nwc, struct ibv_wc *wc);
	int (*arm)(struct ionic_vcq *vcq, int solicited_only); /* 0 */
	struct ionic_cq cq[IONIC_MAX_UDMA];
	uint8_t udma_mask;
	uint8_t poll_idx; /* pipeline polled first (relaxed atomic) */
	bool want_ts; /* a timestamp reader was requested */
	bool want_wallclock;
	/* extended polling: the WC being read (single-threaded by contract) */
	struct ibv_wc cur_wc;
	uint64_t cur_ts; /* raw 48-bit timestamp of cur_wc */
	uint64_t cur_ns; /* converted, if want_wallclock */
};

static inline struct ionic_vcq *to_ionic_vcq(struct ibv_cq *ibcq)
{
	return container_of(ibcq, struct ionic_vcq, vcq.cq);
}

static inline struct ionic_vcq *to_ionic_vcq_ex(struct ibv_cq_ex *ibcq)
{
	return container_of(ibcq, struct ionic_vcq, vcq.cq_ex);
}

/*
 * The word of a CQE that carries its colour, as the device left it (big
 * endian).  One atomic load, a plain load instruction: the device (or the
 * emulator's thread) writes the ring behind the compiler's back, and
 * writes this word last; IONIC_FROM_DEVICE_LOAD (publish.h) is acquire where
 * a tool must see that order (ThreadSanitizer does not model the fence of
 * ionic_from_device_barrier()), relaxed otherwise.
 */
static inline __be32 ionic_cqe_qtf_load(const struct ionic_cqe *cqe)
{
	return __atomic_load_n(&cqe->qid_type_flags, IONIC_FROM_DEVICE_LOAD);
}

/* The CQE at the read position of a CQ (CQEs are 32 bytes, stride 5). */
static inline const struct ionic_cqe *ionic_cq_cqe_at(const struct ionic_cq *cq,
						      uint16_t pos)
{
	static_assert(IONIC_CQE_SIZE == 1 << 5, "CQE stride");
	return (const struct ionic_cqe *)((const uint8_t *)cq->q.ptr +
					  ((size_t)pos << 5));
}

/*
 * Does the CQE carry the colour the host expects ('color' as in struct
 * ionic_cq), i.e. has the device written it?
 */
static inline bool ionic_cqe_valid(const struct ionic_cqe *cqe, uint32_t color)
{
	return (ionic_cqe_qtf_load(cqe) & htobe32(IONIC_CQE_COLOR)) == color;
}

/*
 * cq.c: creation in two halves around the kernel command, so that the
 * unit tests (tests/support/) build real vCQs without a kernel.
 * ionic_vcq_alloc() validates 'attr' and builds the vCQ and its rings in
 * host memory (0 or a positive errno); ionic_vcq_bind() gives each
 * pipeline's CQ the id the kernel chose (cqid[] indexed by pipeline).
 * ionic_vcq_free() undoes ionic_vcq_alloc().
 */
int ionic_vcq_alloc(struct ionic_ctx *ctx,
		    const struct ibv_cq_init_attr_ex *attr,
		    struct ionic_vcq **out);
void ionic_vcq_bind(struct ionic_vcq *vcq, const uint32_t *cqid);
void ionic_vcq_free(struct ionic_vcq *vcq);

/* cq.c: overwrite the qid of every pending CQE of 'qpid'
 * (docs/device-contract.md §5.8). */
void ionic_cq_clean(struct ionic_cq *cq, uint32_t qpid);

/* poll.c: poll up to nwc (>= 1) WCs from every pipeline of the vCQ. */
static inline int ionic_vcq_poll(struct ionic_vcq *vcq, int nwc,
				 struct ibv_wc *wc)
{
	return vcq->poll(vcq, nwc, wc);
}

/* poll.c: choose vcq->poll once its pipelines and locks are set up. */
void ionic_vcq_init_poll(struct ionic_vcq *vcq);

/* A flag the lock-free idle check reads (struct ionic_cq). */
static inline void ionic_cq_flag_set(bool *flag, bool v)
{
	__atomic_store_n(flag, v, __ATOMIC_RELAXED);
}

/* poll_error.c: map a device status code to a work completion status. */
enum ibv_wc_status ionic_map_status(uint32_t sts);

/* cq_ex.c: install the extended-CQ callbacks for the requested wc_flags. */
void ionic_vcq_init_ex(struct ionic_vcq *vcq, uint64_t wc_flags);

#endif /* IONIC_CQ_PRIV_H */
