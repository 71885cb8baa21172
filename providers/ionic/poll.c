// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ibv_poll_cq over a vCQ (docs/device-contract.md §5-§8, §12, §16.7, §16.8).
 *
 * Each hardware CQ is polled in three phases under its lock:
 *  A. send completions left over from an earlier poll whose output was
 *     full (QPs on cq->poll_sq);
 *  B. new CQEs in ring order: RECV CQEs complete one receive, SEND_MSN
 *     and SEND_NPG CQEs mark send WQEs done and then drain the SQ in order;
 *  C. software flush of queues on cq->flush_sq / cq->flush_rq, which is
 *     cold and lives in poll_error.c with the mapping of error statuses.
 * then the reservation step returns credits to the device if needed.
 * Phases A and B take no SQ or RQ lock: they use only what posters
 * publish under the CQ lock (qp_priv.h); phase C takes the queue's lock.
 * A CQ with nothing to do is told without taking its lock or storing
 * anything (ionic_cq_idle()).
 *
 * What is fixed for a vCQ's life (one pipeline or two, locks or a thread
 * domain) is decided once by ionic_vcq_init_poll(): each combination is
 * its own copy of the poll loop, from one always-inline template.
 *
 * Exactly one WC per signalled or failed send WQE and per receive WQE;
 * when a queue flushes, exactly one WC per WQE still outstanding.  A CQE
 * that breaks the device contract is consumed and skipped, never left in
 * place (upstream stalls the CQ forever on it: docs/upstream-defects.md D16).
 *
 * Hot path: no allocation, no system call, logging only in VERBS_DEBUG.
 */
#include <errno.h>

#include "poll_priv.h"
#include "table.h"

/* the UD receive's wc.sl is 1 + this bit: it must be the top one */
static_assert(IONIC_CQE_RECV_IS_IPV4 == 1u << 31, "IPv4 bit moved");

/* ---- send side ------------------------------------------------------ */

/*
 * Retire completed send WQEs in order; successful unsignalled ones
 * silently.  Writes WCs from 'w' on, never at or past 'end', and returns
 * where the next one goes; *more says whether more were ready than
 * fitted (ionic_sq_more() afterwards).  An error WC puts the SQ into
 * software flush.  Caller holds the CQ lock.  Each WC is written before
 * the consumer index that frees its slot.
 */
static inline __attribute__((always_inline)) struct ibv_wc *
ionic_poll_send_inl(struct ionic_vcq *vcq, struct ionic_cq *cq,
		    struct ionic_qp *qp, struct ibv_wc *w, struct ibv_wc *end,
		    bool *more)
{
	struct ionic_sq *sq = &qp->sq;
	uint16_t start = sq->q.cons, cons = start, last = sq->pub.prod_rung;
	uint16_t msn_cons = sq->msn_cons, mask = sq->q.mask;

	*more = false;
	if (unlikely(sq->flush))
		return w;

	while (cons != last && ionic_sq_slot_done(sq, cons, msn_cons)) {
		const struct ionic_sq_meta *meta = &sq->meta[cons];

		if (unlikely(w == end)) {
			*more = true;
			break;
		}
		cons = (cons + 1) & mask;

		if (likely(meta->ibsts == IBV_WC_SUCCESS)) {
			if (meta->signal)
				ionic_send_wc(vcq, qp, meta, IBV_WC_SUCCESS,
					      w++);
			continue;
		}

		/* every later WQE of this SQ completes as flushed */
		ionic_send_wc(vcq, qp, meta, meta->ibsts, w++);
		sq->flush = true;
		ionic_qp_queue_sq_flush(qp);
		break;
	}
	if (cons != start) {
		ionic_cq_credit(&cq->pub, (cons - start) & mask);
		ionic_queue_cons_release(&sq->q, cons);
	}

	/* the device reported a flush: start once nothing else completes */
	if (unlikely(sq->flush_rcvd) && !sq->flush && !*more) {
		sq->flush = true;
		ionic_qp_queue_sq_flush(qp);
	}
	return w;
}

int ionic_poll_send(struct ionic_vcq *vcq, struct ionic_cq *cq,
		    struct ionic_qp *qp, struct ibv_wc *wc, int nwc)
{
	bool more;

	return (int)(ionic_poll_send_inl(vcq, cq, qp, wc, wc + nwc, &more) -
		     wc);
}

static inline uint64_t ionic_cqe_ts(__le64 idx_ts)
{
	return le64toh(idx_ts) >> IONIC_CQE_TIMESTAMP_SHIFT;
}

/* SEND_MSN CQE: every remote WQE with seq < msg_msn is complete. */
static inline void ionic_comp_msn(struct ionic_vcq *vcq, struct ionic_qp *qp,
				  const struct ionic_cqe *cqe, uint32_t qtf)
{
	struct ionic_sq *sq = &qp->sq;
	uint16_t mask = sq->q.mask;
	uint16_t seq, last;

	/* a flushing SQ completes in software; the device is ignored */
	if (sq->flush)
		return;

	seq = be32toh(cqe->send.msg_msn) & mask;
	last = (seq - 1) & mask;

	/*
	 * The newest covered WQE must be outstanding, in [msn_cons,
	 * msn_rung): progress, not past.  As unsigned, seq - msn_cons - 1 is
	 * below the outstanding count exactly then (0 wraps to the top).
	 */
	if (unlikely((unsigned int)((seq - sq->msn_cons) & mask) - 1 >=
		     (unsigned int)((sq->msn_rung - sq->msn_cons) & mask))) {
		verbs_err_datapath(
			&qp->ctx->vctx,
			"QP %u: MSN %u outside [%u, %u), CQE skipped", qp->qpid,
			seq, sq->msn_cons, sq->msn_rung);
		return;
	}

	if (vcq->want_ts) {
		uint64_t ts = ionic_cqe_ts(cqe->send.npg_wqe_idx_timestamp);
		uint16_t s;

		/* walk MSNs, index metadata through msn_idx (upstream:
		 * docs/upstream-defects.md D2) */
		for (s = sq->msn_cons; s != seq; s = (s + 1) & mask)
			sq->meta[sq->msn_idx[s]].ts = ts;
	}

	sq->msn_cons = seq;

	if (unlikely(qtf & IONIC_CQE_ERROR)) {
		struct ionic_sq_meta *meta = &sq->meta[sq->msn_idx[last]];
		uint32_t sts = be32toh(cqe->status_length);

		meta->len = sts;
		meta->ibsts = ionic_map_status(sts);
	}
}

/* SEND_NPG CQE: exactly one WQE, named by its slot, is complete. */
static inline void ionic_comp_npg(struct ionic_vcq *vcq, struct ionic_qp *qp,
				  const struct ionic_cqe *cqe, uint32_t qtf)
{
	struct ionic_sq *sq = &qp->sq;
	struct ionic_sq_meta *meta;
	uint32_t sts = be32toh(cqe->status_length);
	uint16_t slot;

	if (sq->flush)
		return;

	/* a flush indicator names no WQE */
	if (unlikely(qtf & IONIC_CQE_ERROR) &&
	    sts == IONIC_STS_WQE_FLUSHED_ERR) {
		sq->flush_rcvd = true;
		return;
	}

	slot = le64toh(cqe->send.npg_wqe_idx_timestamp) & sq->q.mask;
	if (unlikely(((slot - sq->q.cons) & sq->q.mask) >=
		     ionic_sq_outstanding(sq))) {
		verbs_err_datapath(
			&qp->ctx->vctx,
			"QP %u: NPG slot %u not outstanding, CQE skipped",
			qp->qpid, slot);
		return;
	}

	meta = &sq->meta[slot];
	meta->local_comp = true;
	if (vcq->want_ts)
		meta->ts = ionic_cqe_ts(cqe->send.npg_wqe_idx_timestamp);

	if (unlikely(qtf & IONIC_CQE_ERROR)) {
		meta->len = sts;
		meta->ibsts = ionic_map_status(sts);
		/* completed by this CQE even if it was MSN-tracked */
		meta->remote = false;
	}
}

/* ---- receive side --------------------------------------------------- */

/*
 * RECV CQE ('sts' its status_length).  Returns 1 if a WC was written, 0
 * if the CQE produced none (flush indicator, flushing RQ, or a CQE that
 * breaks the contract).  The WC is complete before the slot goes back to
 * the poster.
 */
static inline __attribute__((always_inline)) int
ionic_comp_recv(struct ionic_vcq *vcq, struct ionic_cq *cq, struct ionic_qp *qp,
		const struct ionic_cqe *cqe, uint32_t qtf, uint32_t sts,
		struct ibv_wc *wc)
{
	struct ionic_rq *rq = &qp->rq;
	struct ionic_rq_meta *meta;
	uint64_t idx_ts;
	uint32_t src_qpn_op, op;
	uint16_t slot;

	if (unlikely(rq->flush))
		return 0;

	if (unlikely(qtf & IONIC_CQE_ERROR) &&
	    sts == IONIC_STS_WQE_FLUSHED_ERR) {
		rq->flush = true;
		ionic_qp_queue_rq_flush(qp);
		return 0;
	}

	idx_ts = le64toh(cqe->recv.wqe_idx_timestamp);
	slot = idx_ts & IONIC_CQE_WQE_IDX_MASK;
	meta = &rq->meta[slot & rq->q.mask];
	if (unlikely(slot > rq->q.mask || rq->q.cons == rq->pub.prod_rung ||
		     !ionic_rq_slot_posted(meta))) {
		verbs_err_datapath(
			&qp->ctx->vctx,
			"QP %u: RECV slot %u not posted, CQE skipped", qp->qpid,
			slot);
		return 0;
	}

	/* completions are in order; remember if the device named another */
	if (unlikely(slot != rq->q.cons))
		rq->ooo = true;

	ionic_recv_wc_base(qp, meta->wr_id, wc);
	if (vcq->want_ts)
		vcq->cur_ts = idx_ts >> IONIC_CQE_TIMESTAMP_SHIFT;

	ionic_rq_slot_release(meta);
	ionic_queue_cons_release(&rq->q, ionic_queue_next(&rq->q, rq->q.cons));
	ionic_cq_credit(&cq->pub, 1);

	if (unlikely(qtf & IONIC_CQE_ERROR)) {
		wc->status = ionic_map_status(sts);
		wc->vendor_err = sts;
		rq->flush = true;
		ionic_qp_queue_rq_flush(qp);
		return 1;
	}

	wc->status = IBV_WC_SUCCESS;
	wc->byte_len = sts;
	src_qpn_op = be32toh(cqe->recv.src_qpn_op);
	wc->src_qp = src_qpn_op & IONIC_CQE_RECV_SRC_QPN_MASK;
	op = (src_qpn_op >> IONIC_CQE_RECV_OP_SHIFT) & IONIC_CQE_RECV_OP_MASK;

	if (likely(op == IONIC_CQE_RECV_OP_SEND))
		goto addr;
	switch (op) {
	case IONIC_CQE_RECV_OP_RDMA_IMM:
		wc->opcode = IBV_WC_RECV_RDMA_WITH_IMM;
		/* fall through */
	case IONIC_CQE_RECV_OP_SEND_IMM:
		/* already in network order, as ibv_wc wants it */
		wc->imm_data = cqe->recv.imm_data_rkey;
		wc->wc_flags = IBV_WC_WITH_IMM;
		break;
	case IONIC_CQE_RECV_OP_SEND_INV:
		wc->invalidated_rkey = be32toh(cqe->recv.imm_data_rkey);
		wc->wc_flags = IBV_WC_WITH_INV;
		break;
	default:
		break;
	}

addr:
	if (qp->is_ud) {
		/*
		 * UD buffers start with the 40-byte GRH area.  wc.sl carries
		 * the network header type, 2 IPv4 / 1 IPv6, from the CQE's
		 * IPv4 bit (bit 31): the mlx5 convention UCX relies on to parse
		 * that area (docs/device-contract.md §7.1).
		 */
		wc->wc_flags |= IBV_WC_GRH;
		wc->sl = (uint8_t)(1 + (src_qpn_op >> 31));
	}
	return 1;
}

/* ---- one hardware CQ ------------------------------------------------ */

/* Phase A: send completions that did not fit in an earlier call. */
static int ionic_poll_phase_a(struct ionic_vcq *vcq, struct ionic_cq *cq,
			      struct ibv_wc *wc, int nwc)
{
	struct ibv_wc *w = wc, *end = wc + nwc;

	while (w < end && !ionic_list_empty(&cq->poll_sq)) {
		struct ionic_qp *qp = container_of(cq->poll_sq.next,
						   struct ionic_qp, cq_poll_sq);
		bool more;

		w = ionic_poll_send_inl(vcq, cq, qp, w, end, &more);
		if (more)
			break;
		ionic_list_del(&qp->cq_poll_sq);
	}
	if (ionic_list_empty(&cq->poll_sq))
		ionic_cq_flag_set(&cq->pending_sq, false);
	return (int)(w - wc);
}

/*
 * A SEND_MSN or SEND_NPG CQE of 'qp', then the send WCs it unlocks, from
 * 'w' on and short of 'end'; returns where the next WC goes.
 */
static inline __attribute__((always_inline)) struct ibv_wc *
ionic_poll_send_cqe(struct ionic_vcq *vcq, struct ionic_cq *cq,
		    struct ionic_qp *qp, const struct ionic_cqe *cqe,
		    uint32_t qtf, struct ibv_wc *w, struct ibv_wc *end)
{
	uint32_t type = (qtf >> IONIC_CQE_TYPE_SHIFT) & IONIC_CQE_TYPE_MASK;
	bool more;

	if (likely(type == IONIC_CQE_TYPE_SEND_MSN))
		ionic_comp_msn(vcq, qp, cqe, qtf);
	else
		ionic_comp_npg(vcq, qp, cqe, qtf);
	w = ionic_poll_send_inl(vcq, cq, qp, w, end, &more);
	/* the rest goes out first next time (phase A) */
	if (unlikely(more)) {
		ionic_list_add_once(&cq->poll_sq, &qp->cq_poll_sq);
		ionic_cq_flag_set(&cq->pending_sq, true);
	}
	return w;
}

/*
 * A CQE phase B cannot complete anything with: cleaned CQEs
 * (docs/device-contract.md §5.8) are expected; others break the contract
 * and are logged.  Either way it is consumed.
 */
static void __attribute__((cold, noinline))
ionic_cqe_skip(struct ionic_vcq *vcq, const struct ionic_cq *cq, uint32_t type,
	       uint32_t qid)
{
	if (qid != IONIC_CQE_QID_CLEANED)
		verbs_err_datapath(&vcq->ctx->vctx,
				   "CQ %u: CQE type %u qid %u skipped",
				   cq->cqid, type, qid);
}

/*
 * Phase B: new CQEs.  Every valid CQE examined is consumed.  Each CQE
 * word is loaded once; the read position, colour and credits are kept in
 * registers and stored once at the end.
 */
static inline __attribute__((always_inline)) int
ionic_poll_phase_b(struct ionic_vcq *vcq, struct ionic_cq *cq,
		   struct ibv_wc *wc, int nwc)
{
	const struct ionic_qp_table *table = vcq->qp_table;
	uint16_t prod = cq->q.prod, mask = cq->q.mask;
	uint32_t color = cq->color;
	/* the QP of the last CQE: the next one is most likely its too */
	uint32_t last_qid = cq->last_qid;
	struct ionic_qp *last_qp = cq->last_qp;
	struct ibv_wc *w = wc, *end = wc + nwc;

	while (w < end) {
		const struct ionic_cqe *cqe = ionic_cq_cqe_at(cq, prod);
		struct ionic_qp *qp;
		uint32_t qtf, qid, type;

		qtf = ionic_cqe_qtf_load(cqe);
		if ((qtf & htobe32(IONIC_CQE_COLOR)) != color)
			break;
		/* the colour is written last: read the rest only after it */
		ionic_from_device_barrier();

		qtf = be32toh(qtf);
		qid = (qtf >> IONIC_CQE_QID_SHIFT) & IONIC_CQE_QID_MASK;
		type = (qtf >> IONIC_CQE_TYPE_SHIFT) & IONIC_CQE_TYPE_MASK;
		if (likely(qid == last_qid)) {
			qp = last_qp;
		} else {
			qp = ionic_qp_table_lookup(table, qid);
			/*
			 * Only a QP of this CQ: the memo is forgotten when
			 * the QP detaches from its own CQs, so one a device
			 * named here wrongly would outlive its QP.
			 */
			if (qp && (qp->send_cq == cq || qp->recv_cq == cq)) {
				last_qid = qid;
				last_qp = qp;
			}
		}

		if (likely(type == IONIC_CQE_TYPE_RECV)) {
			if (likely(qp && qp->recv_cq == cq))
				w += ionic_comp_recv(
					vcq, cq, qp, cqe, qtf,
					be32toh(cqe->status_length), w);
			else
				ionic_cqe_skip(vcq, cq, type, qid);
		} else if (type == IONIC_CQE_TYPE_SEND_MSN ||
			   type == IONIC_CQE_TYPE_SEND_NPG) {
			if (likely(qp && qp->send_cq == cq))
				w = ionic_poll_send_cqe(vcq, cq, qp, cqe, qtf,
							w, end);
			else
				ionic_cqe_skip(vcq, cq, type, qid);
		} else {
			ionic_cqe_skip(vcq, cq, type, qid);
		}

		prod = (prod + 1) & mask;
		if (unlikely(!prod))
			color ^= htobe32(IONIC_CQE_COLOR);
	}
	/*
	 * A whole lap (a full ring read, every CQE of it skipped or not)
	 * ends where it started with the colour flipped: that is progress
	 * too, or the next poll would take the same lap again and again.
	 * Only a poll that did not move pays the second compare.
	 */
	if (prod != cq->q.prod || unlikely(color != cq->color)) {
		__atomic_store_n(&cq->q.prod, prod, __ATOMIC_RELAXED);
		__atomic_store_n(&cq->color, color, __ATOMIC_RELAXED);
		cq->last_qid = last_qid;
		cq->last_qp = last_qp;
	}
	return (int)(w - wc);
}

/*
 * Is there nothing to do on this CQ: no valid CQE at the read position,
 * no leftover send completions, no flush?  Read without the lock: a
 * thread that polls its own CQ sees its own stores; with several polling
 * one CQ, a stale answer only means another thread is taking the CQE.
 * An idle CQ needs no reservation step either: every post and poll ends
 * with credits left or nothing consumed since the last sync.
 */
static inline bool ionic_cq_idle(const struct ionic_cq *cq)
{
	uint16_t prod = __atomic_load_n(&cq->q.prod, __ATOMIC_RELAXED);
	uint32_t color = __atomic_load_n(&cq->color, __ATOMIC_RELAXED);

	return !ionic_cqe_valid(ionic_cq_cqe_at(cq, prod), color) &&
	       !__atomic_load_n(&cq->pending_sq, __ATOMIC_RELAXED) &&
	       !__atomic_load_n(&cq->flush, __ATOMIC_RELAXED);
}

/*
 * One hardware CQ that is not idle; 'lockfree' is a constant in each of
 * the two copies below.
 */
static inline __attribute__((always_inline)) int
ionic_poll_hw_cq(struct ionic_vcq *vcq, struct ionic_cq *cq, struct ibv_wc *wc,
		 int nwc, bool lockfree)
{
	int npolled = 0;

	if (!lockfree)
		ionic_lock(&cq->lock);

	if (unlikely(cq->pending_sq))
		npolled = ionic_poll_phase_a(vcq, cq, wc, nwc);
	if (likely(npolled < nwc))
		npolled += ionic_poll_phase_b(vcq, cq, wc + npolled,
					      nwc - npolled);
	/* only after phase B saw every valid CQE, i.e. output not full */
	if (unlikely(cq->flush) && npolled < nwc)
		npolled += ionic_poll_phase_c(vcq, cq, wc + npolled,
					      nwc - npolled);

	ionic_cq_reserve(&cq->pub, &cq->q, 0);
	if (!lockfree)
		ionic_unlock(&cq->lock);
	return npolled;
}

static int ionic_poll_hw_cq_locked(struct ionic_vcq *vcq, struct ionic_cq *cq,
				   struct ibv_wc *wc, int nwc)
{
	return ionic_poll_hw_cq(vcq, cq, wc, nwc, false);
}

static int ionic_poll_hw_cq_nolock(struct ionic_vcq *vcq, struct ionic_cq *cq,
				   struct ibv_wc *wc, int nwc)
{
	return ionic_poll_hw_cq(vcq, cq, wc, nwc, true);
}

/* Poll 'cq' unless it is idle. */
static inline __attribute__((always_inline)) int
ionic_poll_busy_cq(struct ionic_vcq *vcq, struct ionic_cq *cq,
		   struct ibv_wc *wc, int nwc, bool lockfree)
{
	if (ionic_cq_idle(cq))
		return 0;
	return lockfree ? ionic_poll_hw_cq_nolock(vcq, cq, wc, nwc) :
			  ionic_poll_hw_cq_locked(vcq, cq, wc, nwc);
}

/* A vCQ over one pipeline. */
static inline __attribute__((always_inline)) int
ionic_vcq_poll_one(struct ionic_vcq *vcq, int nwc, struct ibv_wc *wc,
		   bool lockfree)
{
	return ionic_poll_busy_cq(vcq, &vcq->cq[vcq->poll_idx], wc, nwc,
				  lockfree);
}

/*
 * A vCQ over both: the pipeline polled first alternates after every
 * call that returned something, so neither starves.  Threads polling one
 * vCQ share the hint without a lock (relaxed atomics): any value works.
 */
static inline __attribute__((always_inline)) int
ionic_vcq_poll_two(struct ionic_vcq *vcq, int nwc, struct ibv_wc *wc,
		   bool lockfree)
{
	unsigned int first = __atomic_load_n(&vcq->poll_idx, __ATOMIC_RELAXED);
	struct ionic_cq *cq = &vcq->cq[first];
	struct ionic_cq *other = &vcq->cq[first ^ 1];
	int npolled;

	npolled = ionic_poll_busy_cq(vcq, cq, wc, nwc, lockfree);
	if (npolled < nwc)
		npolled += ionic_poll_busy_cq(vcq, other, wc + npolled,
					      nwc - npolled, lockfree);
	if (npolled)
		__atomic_store_n(&vcq->poll_idx, (uint8_t)(first ^ 1),
				 __ATOMIC_RELAXED);
	return npolled;
}

static int ionic_vcq_poll_one_locked(struct ionic_vcq *vcq, int nwc,
				     struct ibv_wc *wc)
{
	return ionic_vcq_poll_one(vcq, nwc, wc, false);
}

static int ionic_vcq_poll_one_nolock(struct ionic_vcq *vcq, int nwc,
				     struct ibv_wc *wc)
{
	return ionic_vcq_poll_one(vcq, nwc, wc, true);
}

static int ionic_vcq_poll_two_locked(struct ionic_vcq *vcq, int nwc,
				     struct ibv_wc *wc)
{
	return ionic_vcq_poll_two(vcq, nwc, wc, false);
}

static int ionic_vcq_poll_two_nolock(struct ionic_vcq *vcq, int nwc,
				     struct ibv_wc *wc)
{
	return ionic_vcq_poll_two(vcq, nwc, wc, true);
}

void ionic_vcq_init_poll(struct ionic_vcq *vcq)
{
	/* both hardware CQs of a vCQ share the parent domain's locking */
	unsigned int first = vcq->udma_mask & 1u ? 0 : 1;
	bool lockfree = vcq->cq[first].lockfree;

	if (vcq->udma_mask == 0x3) {
		vcq->poll_idx = 0;
		vcq->poll = lockfree ? ionic_vcq_poll_two_nolock :
				       ionic_vcq_poll_two_locked;
	} else {
		/* the one pipeline there is */
		vcq->poll_idx = (uint8_t)first;
		vcq->poll = lockfree ? ionic_vcq_poll_one_nolock :
				       ionic_vcq_poll_one_locked;
	}
}

int ionic_poll_cq(struct ibv_cq *ibcq, int nwc, struct ibv_wc *wc)
{
	struct ionic_vcq *vcq = to_ionic_vcq(ibcq);

	if (unlikely(nwc < 1))
		return 0;
	return vcq->poll(vcq, nwc, wc);
}
