// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ibv_post_send, ibv_bind_mw, ibv_post_recv (docs/device-contract.md §16.4,
 * §16.6).
 *
 * Hot path: no allocation, no system call, no logging.  WQEs are built
 * under the queue lock (wqe.h), then ionic_post_publish() (qp_priv.h),
 * the publish path ibv_wr_complete shares, publishes every WQE of the
 * call at once.
 *
 * What is fixed for a QP's life is decided once, in ionic_qp_init_post():
 * the QP type (which send bodies exist) and whether a side locks at all
 * (ionic_qp_locked()).  Each combination is its own copy of the loops
 * below, compiled from one always-inline template with those as
 * constants, and ionic_post_send / ionic_post_recv, which libibverbs
 * calls for every QP of the context, jump to the QP's copy.
 */
#include <errno.h>
#include <string.h>

#include "qp.h"
#include "qp_priv.h"
#include "wqe.h"

static inline __attribute__((always_inline)) int
ionic_post_send_tmpl(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		     struct ibv_send_wr **bad_wr, bool send_path, bool is_ud,
		     bool locked)
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

	if (locked)
		ionic_lock(&sq->lock);

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
	ionic_post_publish(qp, true, locked);
	if (locked)
		ionic_unlock(&sq->lock);

	*bad_wr = wr;
	return rc;
}

static inline __attribute__((always_inline)) int
ionic_post_recv_tmpl(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr, bool locked)
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

	if (locked)
		ionic_lock(&rq->lock);

	for (; wr; wr = wr->next) {
		if (unlikely(ionic_queue_full_acquire(&rq->q))) {
			rc = ENOMEM;
			break;
		}
		rc = ionic_prep_recv_inl(qp, wr);
		if (unlikely(rc))
			break;
	}

	ionic_post_publish(qp, false, locked);
	if (locked)
		ionic_unlock(&rq->lock);

	*bad_wr = wr;
	return rc;
}

/* ---- the variants ---------------------------------------------------- */

#define IONIC_POST_SEND_VARIANT(name, is_ud, locked)                       \
	static int name(struct ibv_qp *ibqp, struct ibv_send_wr *wr,       \
			struct ibv_send_wr **bad_wr)                       \
	{                                                                  \
		return ionic_post_send_tmpl(ibqp, wr, bad_wr, true, is_ud, \
					    locked);                       \
	}

IONIC_POST_SEND_VARIANT(ionic_post_send_rc, false, true)
IONIC_POST_SEND_VARIANT(ionic_post_send_rc_nolock, false, false)
IONIC_POST_SEND_VARIANT(ionic_post_send_ud, true, true)
IONIC_POST_SEND_VARIANT(ionic_post_send_ud_nolock, true, false)

static int ionic_post_recv_locked(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
				  struct ibv_recv_wr **bad_wr)
{
	return ionic_post_recv_tmpl(ibqp, wr, bad_wr, true);
}

static int ionic_post_recv_nolock(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
				  struct ibv_recv_wr **bad_wr)
{
	return ionic_post_recv_tmpl(ibqp, wr, bad_wr, false);
}

void ionic_qp_init_post(struct ionic_qp *qp)
{
	if (ionic_qp_locked(qp, true))
		qp->post_send = qp->is_ud ? ionic_post_send_ud :
					    ionic_post_send_rc;
	else
		qp->post_send = qp->is_ud ? ionic_post_send_ud_nolock :
					    ionic_post_send_rc_nolock;
	qp->post_recv = ionic_qp_locked(qp, false) ? ionic_post_recv_locked :
						     ionic_post_recv_nolock;
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

	/* the QP type and locking tested at run time: a rare verb */
	rc = ionic_post_send_tmpl(ibqp, &wr, &bad, false,
				  to_ionic_qp(ibqp)->is_ud,
				  ionic_qp_locked(to_ionic_qp(ibqp), true));
	if (!rc)
		mw->rkey = rkey;
	return rc;
}
