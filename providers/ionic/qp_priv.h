/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Queue pair objects: SQ and RQ state, per-slot completion metadata, and
 * the interfaces between qp.c (control path), wqe.c (WQE preparation),
 * post.c and wr.c (posting) and poll.c (completion).  Publishing to the
 * device is publish.h's.
 */
#ifndef IONIC_QP_PRIV_H
#define IONIC_QP_PRIV_H

#include <infiniband/ionic_dv.h>

#include "ionic.h"
#include "cq_priv.h"
#include "lock.h"
#include "publish.h"
#include "queue.h"

/*
 * Vendor QP flags (ionic_dv.h) that RCCL and its network plugin pass in
 * sq_sig_all: they never mean "signal every request" (only the other bits
 * do), and the mainline kernel ABI has no field to carry them to the
 * firmware, so they are only recorded (docs/gpu-direct-verbs.md §6).
 */
#define IONIC_QP_VENDOR_FLAGS                                          \
	(IONIC_DV_CREATE_QP_TYPE_RCCL | IONIC_DV_CREATE_QP_RCCL_DATA | \
	 IONIC_DV_CREATE_QP_RCCL_RDFENCE | IONIC_DV_CREATE_QP_RCCL_RX_OFFLOAD)

/* The send_flags that are WQE flags: FENCE, SIGNALED, SOLICITED. */
#define IONIC_SQ_WQE_FLAGS_MASK \
	(IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED)

struct ionic_send_op;

/* Per-SQ-slot metadata: what the WC of that WQE reports. */
struct ionic_sq_meta {
	uint64_t wr_id;
	uint64_t ts; /* raw completion timestamp */
	uint32_t len; /* byte_len on success, status code on error */
	uint16_t seq; /* MSN assigned at post time, if remote */
	uint8_t ibop; /* enum ibv_wc_opcode */
	uint8_t ibsts; /* enum ibv_wc_status */
	bool remote; /* completes through MSN CQEs */
	bool signal; /* produce a WC on success */
	bool local_comp; /* its NPG CQE has arrived */
};

/*
 * Per-RQ-slot metadata.  Receive completions name their ring slot, and
 * both the normal and the flush path look the entry up by slot, so the two
 * can never disagree (upstream defect docs/upstream-defects.md D1).
 */
struct ionic_rq_meta {
	uint64_t wr_id;
	bool posted; /* cleared by the poller: ionic_rq_slot_release() */
};

/*
 * 'posted' goes false when the poller completes the slot, without the RQ
 * lock: release there, acquire in the poster's check, so the poster never
 * overwrites wr_id before the poller has read it.
 */
static inline bool ionic_rq_slot_posted(const struct ionic_rq_meta *meta)
{
	return __atomic_load_n(&meta->posted, __ATOMIC_ACQUIRE);
}

static inline void ionic_rq_slot_release(struct ionic_rq_meta *meta)
{
	__atomic_store_n(&meta->posted, false, __ATOMIC_RELEASE);
}

struct ionic_sq {
	struct ionic_lock lock;
	struct ionic_queue q;
	struct ionic_sq_meta *meta;
	uint16_t *msn_idx; /* MSN -> ring slot of that remote WQE */
	uint16_t msn_prod; /* next MSN to assign */
	uint16_t msn_cons; /* MSNs acknowledged so far */
	uint16_t msn_rung; /* msn_prod when the SQ was last published */
	uint8_t spec;
	bool color; /* COLOR flag of the next WQE */
	bool expdb; /* WQE layout keeps the express-doorbell trailer */
	bool trailer64; /* ... and the slot is 64 bytes: it ends the WQE */
	/* the opcode table's rows for this QP type and firmware (wqe.h) */
	const struct ionic_send_op *ops;
	/* WQE flags (host order) per IONIC_SQ_WQE_FLAGS_MASK bits of
	 * send_flags, SIG included when sq_sig_all (wqe.c) */
	uint16_t wqe_flags[IONIC_SQ_WQE_FLAGS_MASK + 1];
	/*
	 * How new WQEs reach the device (host ring, or a copy to controller
	 * memory with or without express doorbells): publish.h.  In CMB
	 * modes the host ring stays the staging area.
	 */
	struct ionic_pub pub;
	bool flush; /* software flush: device CQEs are ignored */
	bool flush_rcvd; /* device flush indicator seen */
	bool flush_req; /* went to ERR: flush once visible CQEs are reaped */
	uint32_t max_sge;
	uint32_t max_inline;
};

struct ionic_rq {
	struct ionic_lock lock;
	struct ionic_queue q;
	struct ionic_rq_meta *meta;
	uint8_t spec;
	bool expdb;
	bool trailer64;
	struct ionic_pub pub;
	bool flush;
	bool flush_req;
	bool ooo; /* a completion named a slot other than cons */
	uint32_t max_sge;
};

/* Extended send API (wr.c): the WR being built and the batch snapshot. */
struct ionic_wrx {
	struct ibv_send_wr wr; /* template completed by a data setter */
	struct ibv_sge sge; /* for wr_set_sge / wr_set_inline_data */
	bool pending; /* a builder ran, no data setter yet */
	int err; /* sticky error of the batch */
	uint16_t start_prod; /* restored by wr_abort (upstream: docs/upstream-defects.md D3) */
	uint16_t start_msn;
	bool start_color;
};

/*
 * Who touches what (docs/device-contract.md §16.4, §16.7):
 *  - posters hold the queue lock while they prepare WQEs, and the CQ lock
 *    as well while they publish them (pub.prod_rung, msn_rung, credits);
 *  - pollers hold the CQ lock only (phase C, the software flush, takes
 *    the queue lock too).  They look at no slot at or past pub.prod_rung
 *    and no MSN at or past msn_rung, so a WQE being built, or a whole
 *    ibv_wr_* batch, is invisible to them; the consumer index and RQ
 *    slots they hand back to the poster go through release/acquire
 *    (ionic_queue_cons_release, ionic_rq_slot_release).
 */
struct ionic_qp {
	struct verbs_qp vqp;
	struct ionic_ctx *ctx;
	/* ibv_post_send / ibv_post_recv for this QP's type and locking
	 * (post.c: ionic_qp_init_post(), from ionic_qp_bind()) */
	int (*post_send)(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad_wr);
	int (*post_recv)(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr);
	/* hardware CQs of the QP's pipeline in its send and receive vCQs */
	struct ionic_cq *send_cq;
	struct ionic_cq *recv_cq;
	uint32_t qpid;
	uint8_t udma_idx;
	uint8_t version; /* firmware RDMA version: opcode table */
	bool is_ud;
	bool sig_all;
	bool lockfree; /* of a thread domain (lock.h) */
	uint32_t vendor_flags; /* IONIC_QP_VENDOR_FLAGS asked for */
	uint32_t wr_ops; /* IBV_QP_EX_WITH_* the ibv_wr_* API may use */
	struct ionic_sq sq;
	struct ionic_rq rq;
	/* membership of the send CQ's poll_sq / flush_sq, recv CQ's flush_rq */
	struct ionic_list cq_poll_sq;
	struct ionic_list cq_flush_sq;
	struct ionic_list cq_flush_rq;
	struct ionic_wrx wrx;
	/* read-queue depths as modify_qp set them, for query_qp */
	uint8_t rd_atomic, dest_rd_atomic;
	bool rd_atomic_set, dest_rd_atomic_set;
};

static inline struct ionic_qp *to_ionic_qp(struct ibv_qp *ibqp)
{
	return container_of(ibqp, struct ionic_qp, vqp.qp);
}

/* ---- qp.c: creation and destruction in halves ----------------------- */

/*
 * ionic_create_qp_ex() and ionic_destroy_qp() run these around the kernel
 * commands; the unit tests (tests/support/) build real QPs with the same
 * calls and no kernel.  Each returns 0 or a positive errno.
 *
 * ionic_qp_alloc(): check 'attr' and build the QP in host memory (rings,
 * slot metadata, locks); *sq_cmb and *rq_cmb get the CMB placement to ask
 * the kernel for.  ionic_qp_free() undoes it (and unmaps CMB windows).
 */
int ionic_qp_alloc(struct ionic_ctx *ctx, struct ibv_qp_init_attr_ex *attr,
		   uint8_t *sq_cmb, uint8_t *rq_cmb, struct ionic_qp **out);
void ionic_qp_free(struct ionic_qp *qp);

/*
 * What the kernel answered: QP id 'qpid' on pipeline 'udma', which both
 * vCQs must have.  Both queues are then published as host rings until the
 * CMB mapping (qp.c) switches them.
 */
int ionic_qp_bind(struct ionic_qp *qp, uint32_t qpid, uint8_t udma,
		  struct ionic_vcq *send_vcq, struct ionic_vcq *recv_vcq);

/*
 * Make the QP reachable by its CQs' pollers (QP table) and install the
 * ibv_wr_* callbacks; ionic_qp_detach() removes it from the table and
 * drops its pending CQEs, list entries and CQ credits.
 */
int ionic_qp_attach(struct ionic_qp *qp);
void ionic_qp_detach(struct ionic_qp *qp);

/*
 * Both queues flush in software from the next poll of their CQs on, after
 * that poll has reaped the CQEs already written (modify to ERR, a dead
 * device).  Takes the CQ and queue locks.
 */
void ionic_qp_request_flush(struct ionic_qp *qp);
/* What modify to RESET does once the kernel accepted it: indexes, MSN and
 * SQ colour as at creation, pending CQEs and credits dropped. */
void ionic_qp_reset(struct ionic_qp *qp);

/* ---- wqe.c: WQE preparation, usable without a device ---------------- */

/*
 * Prepare the send WQE for 'wr' at the SQ producer index and advance it
 * (slot metadata, COLOR, MSN accounting).  The SQ must not be full.
 * 'send_path' is false only for ibv_bind_mw (type-1 windows); type-2
 * windows are bound through the send path.  Returns 0 or EINVAL (nothing
 * produced).
 */
int ionic_prep_send_path(struct ionic_qp *qp, const struct ibv_send_wr *wr,
			 bool send_path);
/* ionic_prep_send_path() for ibv_post_send and ibv_wr_* */
int ionic_prep_send(struct ionic_qp *qp, const struct ibv_send_wr *wr);

/*
 * Prepare the receive WQE for 'wr' at the RQ producer index and advance
 * it.  The RQ must not be full.  Returns 0, EINVAL for a bad WR, EAGAIN if
 * the slot still carries the device's ownership mark (FENCE,
 * docs/device-contract.md §4.3), or ENOMEM if its previous receive has not been
 * completed yet.
 */
int ionic_prep_recv(struct ionic_qp *qp, const struct ibv_recv_wr *wr);

/* ---- post.c: the ibv_post_send / ibv_post_recv variant of a QP ------ */
void ionic_qp_init_post(struct ionic_qp *qp);

/* ---- wr.c: install the ibv_wr_* callbacks (VERBS_QP_EX) ------------- */
void ionic_qp_init_wr(struct ionic_qp *qp);

/* ---- the CQ's flush list: poll.c, the publish path, qp.c ------------ */

/*
 * Queue 'qp' on its send CQ's flush list (caller holds that CQ's lock and
 * the SQ lock): used when the SQ is flushing and new WQEs are posted.
 */
static inline void ionic_qp_queue_sq_flush(struct ionic_qp *qp)
{
	ionic_list_add_once(&qp->send_cq->flush_sq, &qp->cq_flush_sq);
	ionic_cq_flag_set(&qp->send_cq->flush, true);
}

static inline void ionic_qp_queue_rq_flush(struct ionic_qp *qp)
{
	ionic_list_add_once(&qp->recv_cq->flush_rq, &qp->cq_flush_rq);
	ionic_cq_flag_set(&qp->recv_cq->flush, true);
}

/* ---- the one publish path of post.c and wr.c ----------------------- */

/*
 * Does the send ('sq') or receive side of 'qp' lock on the data path?
 * Only if the QP or that side's CQ is shared between threads: when both
 * belong to a thread domain the application serialises every use, so
 * nothing does.  Fixed at creation; post.c and wr.c choose their
 * variants by it.
 */
static inline bool ionic_qp_locked(const struct ionic_qp *qp, bool sq)
{
	return !qp->lockfree ||
	       !(sq ? qp->send_cq->lockfree : qp->recv_cq->lockfree);
}

/*
 * The end of every post (ibv_post_send, ibv_post_recv, ibv_bind_mw,
 * ibv_wr_complete), queue lock held if 'locked': publish the WQEs the
 * send ('sq') or receive queue produced since it last published, if any.
 * The CQ lock is taken in the CQ -> queue order: try, else let go of
 * the queue, wait for the CQ and retake the queue, whose state may have
 * moved meanwhile and is read again.  A queue that is flushing in
 * software never runs on the device again, so its CQ's next poll
 * completes the new WQEs as flushed.  'sq' and 'locked' are constants in
 * every caller.
 */
static inline __attribute__((always_inline)) void
ionic_post_publish(struct ionic_qp *qp, bool sq, bool locked)
{
	struct ionic_lock *qlock = sq ? &qp->sq.lock : &qp->rq.lock;
	struct ionic_pub *pub = sq ? &qp->sq.pub : &qp->rq.pub;
	const struct ionic_queue *q = sq ? &qp->sq.q : &qp->rq.q;
	struct ionic_cq *cq = sq ? qp->send_cq : qp->recv_cq;
	uint16_t from = pub->prod_rung, prod = q->prod;

	if (unlikely(from == prod))
		return;
	if (locked && unlikely(!ionic_trylock(&cq->lock))) {
		ionic_unlock(qlock);
		ionic_lock(&cq->lock);
		ionic_lock(qlock);
		from = pub->prod_rung;
		prod = q->prod;
	}
	if (likely(from != prod)) {
		if (sq)
			qp->sq.msn_rung = qp->sq.msn_prod;
		ionic_publish(pub, q, from, prod, &cq->pub, &cq->q);
	}
	if (sq && unlikely(qp->sq.flush))
		ionic_qp_queue_sq_flush(qp);
	if (!sq && unlikely(qp->rq.flush))
		ionic_qp_queue_rq_flush(qp);
	if (locked)
		ionic_unlock(&cq->lock);
}

#endif /* IONIC_QP_PRIV_H */
