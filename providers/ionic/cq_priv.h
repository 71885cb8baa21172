/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Completion queue objects: the verbs-visible virtual CQ (vCQ) and the
 * hardware CQ of each UDMA pipeline.  The credits ("reservation" protocol
 * of docs/device-contract.md §8.1) and the CQ doorbells are publish.h's.
 */
#ifndef IONIC_CQ_PRIV_H
#define IONIC_CQ_PRIV_H

#include "ionic.h"
#include "lock.h"
#include "publish.h"
#include "queue.h"

#define IONIC_MAX_UDMA 2

/*
 * One hardware CQ.  Everything here is under 'lock' (CQ before SQ/RQ),
 * except the immutable cqid and ring geometry.  Its size is a multiple of
 * 32 bytes (160), which keeps indexing struct ionic_vcq.cq[] cheap on the
 * poll path: mind that when adding a field.
 */
struct ionic_cq {
	struct ionic_lock lock;
	struct ionic_queue q; /* q.prod = read position, q.cons = reported */
	uint32_t cqid;
	bool color; /* colour expected at the read position */
	bool flush; /* some QP on the flush lists has work */
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
 * Does the CQE carry the colour the host expects, i.e. has the device
 * written it?  One atomic load (a plain load instruction): the device (or
 * emulator thread) writes the ring behind the compiler's back.  Callers
 * issue ionic_from_device_barrier() before reading the rest.
 */
static inline bool ionic_cqe_valid(const struct ionic_cqe *cqe, bool color)
{
	uint32_t qtf =
		__atomic_load_n(&cqe->qid_type_flags, IONIC_FROM_DEVICE_LOAD);

	return !!(qtf & htobe32(IONIC_CQE_COLOR)) == color;
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

/* poll.c: poll up to nwc WCs from every pipeline of the vCQ. */
int ionic_vcq_poll(struct ionic_vcq *vcq, int nwc, struct ibv_wc *wc);

/* poll.c: map a device status code to a work completion status. */
enum ibv_wc_status ionic_map_status(uint32_t sts);

/* cq_ex.c: install the extended-CQ callbacks for the requested wc_flags. */
void ionic_vcq_init_ex(struct ionic_vcq *vcq, uint64_t wc_flags);

#endif /* IONIC_CQ_PRIV_H */
