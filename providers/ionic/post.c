// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ibv_post_send, ibv_bind_mw, ibv_post_recv (docs/device-contract.md §16.4,
 * §16.6).
 *
 * Hot path: no allocation, no system call, no logging.  WQEs are built
 * under the queue lock (wqe.h); if any was, the CQ lock is then taken
 * respecting the CQ -> SQ/RQ order (try-lock, else back off), and
 * publish.h spends the CQ credits and publishes every WQE of the call at
 * once.
 *
 * What is fixed for a QP's life is decided once, in ionic_qp_init_post():
 * the QP type (which send bodies exist) and whether its queues and CQs
 * lock at all (a thread domain).  Each combination is its own copy of the
 * loops below, compiled from one always-inline template with those as
 * constants, and ionic_post_send / ionic_post_recv, which libibverbs
 * calls for every QP of the context, jump to the QP's copy.
 */
#include <errno.h>
#include <string.h>

#include "qp.h"
#include "qp_priv.h"
#include "wqe.h"

/* How a variant locks: not at all, always, or as each object says. */
enum ionic_locking {
	IONIC_LOCK_NONE,
	IONIC_LOCK_ALL,
	IONIC_LOCK_PER_OBJECT,
};

static inline __attribute__((always_inline)) void
ionic_post_lock(struct ionic_lock *l, enum ionic_locking locking)
{
	if (locking == IONIC_LOCK_ALL)
		ionic_spin_lock(l);
	else if (locking == IONIC_LOCK_PER_OBJECT)
		ionic_lock(l);
}

static inline __attribute__((always_inline)) void
ionic_post_unlock(struct ionic_lock *l, enum ionic_locking locking)
{
	if (locking == IONIC_LOCK_ALL)
		ionic_spin_unlock(l);
	else if (locking == IONIC_LOCK_PER_OBJECT)
		ionic_unlock(l);
}

/*
 * The CQ lock while holding the queue's (ionic_lock_cq_held()).  True if
 * it had to let go of the queue lock for it, so that the queue may have
 * moved meanwhile.
 */
static inline __attribute__((always_inline)) bool
ionic_post_lock_cq(struct ionic_cq *cq, struct ionic_lock *qlock,
		   enum ionic_locking locking)
{
	if (locking == IONIC_LOCK_NONE)
		return false;
	if (locking == IONIC_LOCK_ALL) {
		if (likely(ionic_spin_trylock(&cq->lock)))
			return false;
		ionic_spin_unlock(qlock);
		ionic_spin_lock(&cq->lock);
		ionic_spin_lock(qlock);
		return true;
	}
	ionic_lock_cq_held(cq, qlock);
	return true;
}

static inline __attribute__((always_inline)) int
ionic_post_send_tmpl(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		     struct ibv_send_wr **bad_wr, bool send_path, bool is_ud,
		     enum ionic_locking locking)
{
	struct ionic_qp *qp = to_ionic_qp(ibqp);
	struct ionic_sq *sq = &qp->sq;
	int rc = 0;

	if (unlikely(!bad_wr))
		return EINVAL;

	/* RTS, SQD, SQE and ERR accept WQEs (ERR flushes them) */
	if (unlikely(ibqp->state < IBV_QPS_RTS)) {
		*bad_wr = wr;
		return EINVAL;
	}

	ionic_post_lock(&sq->lock, locking);

	for (; wr; wr = wr->next) {
		if (unlikely(ionic_queue_full_acquire(&sq->q))) {
			rc = ENOMEM;
			break;
		}
		rc = ionic_prep_send_inl(qp, wr, send_path, is_ud);
		if (unlikely(rc))
			break;
	}

	/* WQEs before a failing WR are still rung and will complete */
	if (likely(sq->q.prod != sq->pub.prod_rung)) {
		struct ionic_cq *cq = qp->send_cq;
		uint16_t from = sq->pub.prod_rung, prod = sq->q.prod;

		/* without backing off, the queue lock was held throughout:
		 * what was read before the CQ lock still holds */
		if (ionic_post_lock_cq(cq, &sq->lock, locking)) {
			from = sq->pub.prod_rung;
			prod = sq->q.prod;
		}
		if (likely(from != prod)) {
			sq->msn_rung = sq->msn_prod;
			ionic_publish_range(&sq->pub, &sq->q, from, prod,
					    &cq->pub, &cq->q);
		}
		if (unlikely(sq->flush))
			ionic_qp_queue_sq_flush(qp);
		ionic_post_unlock(&cq->lock, locking);
	}
	ionic_post_unlock(&sq->lock, locking);

	*bad_wr = wr;
	return rc;
}

static inline __attribute__((always_inline)) int
ionic_post_recv_tmpl(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr, enum ionic_locking locking)
{
	struct ionic_qp *qp = to_ionic_qp(ibqp);
	struct ionic_rq *rq = &qp->rq;
	int rc = 0;

	if (unlikely(!bad_wr))
		return EINVAL;

	/* receive buffers may be posted from INIT on, never in RESET */
	if (unlikely(ibqp->state == IBV_QPS_RESET)) {
		*bad_wr = wr;
		return EINVAL;
	}

	ionic_post_lock(&rq->lock, locking);

	for (; wr; wr = wr->next) {
		if (unlikely(ionic_queue_full_acquire(&rq->q))) {
			rc = ENOMEM;
			break;
		}
		rc = ionic_prep_recv_inl(qp, wr);
		if (unlikely(rc))
			break;
	}

	if (likely(rq->q.prod != rq->pub.prod_rung)) {
		struct ionic_cq *cq = qp->recv_cq;
		uint16_t from = rq->pub.prod_rung, prod = rq->q.prod;

		if (ionic_post_lock_cq(cq, &rq->lock, locking)) {
			from = rq->pub.prod_rung;
			prod = rq->q.prod;
		}
		if (likely(from != prod))
			ionic_publish_range(&rq->pub, &rq->q, from, prod,
					    &cq->pub, &cq->q);
		if (unlikely(rq->flush))
			ionic_qp_queue_rq_flush(qp);
		ionic_post_unlock(&cq->lock, locking);
	}
	ionic_post_unlock(&rq->lock, locking);

	*bad_wr = wr;
	return rc;
}

/* ---- the variants ---------------------------------------------------- */

#define IONIC_POST_SEND_VARIANT(name, is_ud, locking)                      \
	static int name(struct ibv_qp *ibqp, struct ibv_send_wr *wr,       \
			struct ibv_send_wr **bad_wr)                       \
	{                                                                  \
		return ionic_post_send_tmpl(ibqp, wr, bad_wr, true, is_ud, \
					    locking);                      \
	}

IONIC_POST_SEND_VARIANT(ionic_post_send_rc, false, IONIC_LOCK_ALL)
IONIC_POST_SEND_VARIANT(ionic_post_send_rc_nolock, false, IONIC_LOCK_NONE)
IONIC_POST_SEND_VARIANT(ionic_post_send_ud, true, IONIC_LOCK_ALL)
IONIC_POST_SEND_VARIANT(ionic_post_send_ud_nolock, true, IONIC_LOCK_NONE)

/* Anything else: QP type and each lock tested at run time (rare mixes). */
static int ionic_post_send_path(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
				struct ibv_send_wr **bad_wr, bool send_path)
{
	return ionic_post_send_tmpl(ibqp, wr, bad_wr, send_path,
				    to_ionic_qp(ibqp)->is_ud,
				    IONIC_LOCK_PER_OBJECT);
}

static int ionic_post_send_generic(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
				   struct ibv_send_wr **bad_wr)
{
	return ionic_post_send_path(ibqp, wr, bad_wr, true);
}

static int ionic_post_recv_locked(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
				  struct ibv_recv_wr **bad_wr)
{
	return ionic_post_recv_tmpl(ibqp, wr, bad_wr, IONIC_LOCK_ALL);
}

static int ionic_post_recv_nolock(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
				  struct ibv_recv_wr **bad_wr)
{
	return ionic_post_recv_tmpl(ibqp, wr, bad_wr, IONIC_LOCK_NONE);
}

static int ionic_post_recv_generic(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
				   struct ibv_recv_wr **bad_wr)
{
	return ionic_post_recv_tmpl(ibqp, wr, bad_wr, IONIC_LOCK_PER_OBJECT);
}

/* Both locks real, both absent, or a mix (run-time tests). */
static enum ionic_locking ionic_post_locking(const struct ionic_lock *q,
					     const struct ionic_lock *cq)
{
	if (!q->lockfree && !cq->lockfree)
		return IONIC_LOCK_ALL;
	if (q->lockfree && cq->lockfree)
		return IONIC_LOCK_NONE;
	return IONIC_LOCK_PER_OBJECT;
}

void ionic_qp_init_post(struct ionic_qp *qp)
{
	switch (ionic_post_locking(&qp->sq.lock, &qp->send_cq->lock)) {
	case IONIC_LOCK_ALL:
		qp->post_send = qp->is_ud ? ionic_post_send_ud :
					    ionic_post_send_rc;
		break;
	case IONIC_LOCK_NONE:
		qp->post_send = qp->is_ud ? ionic_post_send_ud_nolock :
					    ionic_post_send_rc_nolock;
		break;
	default:
		qp->post_send = ionic_post_send_generic;
		break;
	}

	switch (ionic_post_locking(&qp->rq.lock, &qp->recv_cq->lock)) {
	case IONIC_LOCK_ALL:
		qp->post_recv = ionic_post_recv_locked;
		break;
	case IONIC_LOCK_NONE:
		qp->post_recv = ionic_post_recv_nolock;
		break;
	default:
		qp->post_recv = ionic_post_recv_generic;
		break;
	}
}

/* ---- the verbs -------------------------------------------------------- */

int ionic_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr)
{
	return to_ionic_qp(ibqp)->post_send(ibqp, wr, bad_wr);
}

int ionic_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr)
{
	return to_ionic_qp(ibqp)->post_recv(ibqp, wr, bad_wr);
}

/*
 * ibv_bind_mw (type-1 windows; libibverbs already refused other types):
 * a BIND_MW WQE through the send path, flagged as coming from here.  The
 * new rkey is the next key byte, unchanged for a zero-length unbind; it
 * is stored in the window once the WQE is posted, not at completion
 * (as other providers do: docs/upstream-defects.md D24).
 */
int ionic_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
		  struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr, *bad;
	uint32_t rkey;
	int rc;

	if (!mw || !mw_bind)
		return EINVAL;

	rkey = mw_bind->bind_info.length ? ibv_inc_rkey(mw->rkey) : mw->rkey;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = mw_bind->wr_id;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = mw_bind->send_flags;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info = mw_bind->bind_info;

	rc = ionic_post_send_path(ibqp, &wr, &bad, false);
	if (!rc)
		mw->rkey = rkey;
	return rc;
}
