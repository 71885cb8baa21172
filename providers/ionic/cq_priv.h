/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Completion queue objects: the verbs-visible virtual CQ (vCQ) and the
 * hardware CQ of each UDMA pipeline, with the credit ("reservation")
 * protocol of ionic-device.md §8.1 shared by the post and poll paths.
 */
#ifndef IONIC_CQ_PRIV_H
#define IONIC_CQ_PRIV_H

#include "ionic.h"
#include "doorbell.h"
#include "lock.h"
#include "queue.h"

#define IONIC_MAX_UDMA 2

struct ionic_vcq;

/*
 * One hardware CQ.  Everything here is under 'lock' (CQ before SQ/RQ),
 * except the immutable vcq/cqid/ring geometry.
 */
struct ionic_cq {
	struct ionic_vcq *vcq;
	struct ionic_lock lock;
	struct ionic_queue q; /* q.prod = read position, q.cons = reported */
	uint32_t cqid;
	bool color; /* colour expected at the read position */
	bool flush; /* some QP on the flush lists has work */
	int reserve; /* credits: WQEs that may still be rung */
	int reserve_pending; /* credits earned since the last ring-0 sync */
	uint16_t arm_any_prod;
	uint16_t arm_sol_prod;
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
	uint8_t poll_idx; /* pipeline polled first; benign race */
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
 * written it?  One volatile load: the device (or emulator thread) writes
 * the ring behind the compiler's back.
 */
static inline bool ionic_cqe_valid(const struct ionic_cqe *cqe, bool color)
{
	uint32_t qtf = *(const volatile __be32 *)&cqe->qid_type_flags;

	return !!(qtf & htobe32(IONIC_CQE_COLOR)) == color;
}

/*
 * Ring-0 sync: give every consumed slot back to the device and bank the
 * credits earned since the last sync.  Caller holds the CQ lock.
 */
static inline void ionic_cq_sync(struct ionic_ctx *ctx, struct ionic_cq *cq)
{
	cq->reserve += cq->reserve_pending;
	cq->reserve_pending = 0;
	cq->q.cons = cq->q.prod;
	ionic_cq_release_barrier();
	ionic_dbell_write(ctx->dbpage, ctx->cq_qtype, cq->q.dbell | cq->q.prod);
}

/*
 * Reservation step: spend credits for newly rung WQEs (0 from poll) and
 * sync ring 0 once they run out, but only if the read position moved.
 * Caller holds the CQ lock.
 */
static inline void ionic_cq_reserve(struct ionic_ctx *ctx, struct ionic_cq *cq,
				    int spend)
{
	cq->reserve -= spend;
	if (unlikely(cq->reserve <= 0) && cq->q.prod != cq->q.cons)
		ionic_cq_sync(ctx, cq);
}

/* cq.c: overwrite the qid of every pending CQE of 'qpid' (§5.8). */
void ionic_cq_clean(struct ionic_cq *cq, uint32_t qpid);

/* poll.c: poll up to nwc WCs from every pipeline of the vCQ. */
int ionic_vcq_poll(struct ionic_vcq *vcq, int nwc, struct ibv_wc *wc);

/* poll.c: map a device status code to a work completion status. */
enum ibv_wc_status ionic_map_status(uint32_t sts);

/* cq_ex.c: install the extended-CQ callbacks for the requested wc_flags. */
void ionic_vcq_init_ex(struct ionic_vcq *vcq, uint64_t wc_flags);

#endif /* IONIC_CQ_PRIV_H */
