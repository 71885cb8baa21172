// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * QP verbs: create (legacy and extended), modify, query, destroy; the
 * software flush setup on ERR and the reset on RESET, and the mapping of
 * rings the kernel placed in controller memory (docs/device-contract.md §3.8,
 * §5.8, §11.4, §12, §13, §16.2, §16.3, §16.10).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "qp.h"
#include "qp_priv.h"
#include "table.h"
#include "wqe.h"

IBV_DRV_CMD(ionic_cmd_create_qp, ibv_create_qp_ex, ionic_qp_req,
	    ib_uverbs_ex_create_qp_resp, ionic_qp_resp);

#define IONIC_QP_COMP_MASK                                       \
	(IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS | \
	 IBV_QP_INIT_ATTR_CREATE_FLAGS)

/* Strides beyond 64 KiB cannot be described by the ring geometry. */
#define IONIC_STRIDE_LOG2_MAX 16

/*
 * CMB placement preference sent to the kernel: the PD's (default ENABLE,
 * plus EXPDB where the device offers it; ionic_dv_pd_set_sqcmb/rqcmb
 * change it).  The queue builders below then drop EXPDB when the WQE size
 * does not qualify (docs/device-contract.md §16.3).
 */
static uint8_t ionic_qp_cmb_pref(struct ionic_pd *pd, bool sq)
{
	return sq ? pd->sq_cmb : pd->rq_cmb;
}

/*
 * Follow the kernel's answer for one queue (the response byte is
 * authoritative, docs/device-contract.md §11.4): without ENABLE the ring stays
 * in host memory; with it, exactly one of WC/UC names the mapping type and the
 * window of q->size bytes is mapped at 'offset' of the command fd.  Writes to
 * the window only, so it is mapped write-only, and the queue is published
 * through it from now on (publish.h).  0 or a positive errno: a mapping
 * failure fails creation, there is no host-ring fallback since the device
 * already reads the ring from CMB (docs/upstream-defects.md D23).
 */
static int ionic_qp_map_cmb(struct ionic_ctx *ctx, uint32_t qpid,
			    const char *name, struct ionic_queue *q,
			    unsigned int qtype, bool layout_expdb, uint8_t req,
			    uint8_t resp, uint64_t offset,
			    struct ionic_pub *pub)
{
	uint8_t type = resp & (IONIC_CMB_WC | IONIC_CMB_UC);
	void *map;
	int rc;

	/*
	 * REQUIRE asked for what was sent (controller memory, and the express
	 * doorbell if the WQE size kept it) or nothing: the kernel answers
	 * "nothing" with success (docs/upstream-defects.md D22), so the
	 * provider fails creation.
	 */
	if ((req & IONIC_CMB_REQUIRE) &&
	    (!(resp & IONIC_CMB_ENABLE) ||
	     ((req & IONIC_CMB_EXPDB) && !(resp & IONIC_CMB_EXPDB)))) {
		verbs_err(&ctx->vctx, "QP %u: %s CMB required but not granted",
			  qpid, name);
		return EOPNOTSUPP;
	}
	if (!(resp & IONIC_CMB_ENABLE))
		return 0;

	if (type != IONIC_CMB_WC && type != IONIC_CMB_UC) {
		verbs_err(&ctx->vctx,
			  "QP %u: %s CMB flags 0x%x name no mapping type", qpid,
			  name, resp);
		return EINVAL;
	}
	/* express doorbells need the trailer the WQE layout reserved */
	if ((resp & IONIC_CMB_EXPDB) && !layout_expdb) {
		verbs_err(&ctx->vctx,
			  "QP %u: %s express doorbell not requested", qpid,
			  name);
		return EINVAL;
	}

	map = mmap(NULL, q->size, PROT_WRITE, MAP_SHARED,
		   ctx->vctx.context.cmd_fd, (off_t)offset);
	if (map == MAP_FAILED) {
		rc = errno;
		verbs_err(&ctx->vctx, "QP %u: cannot map the %s CMB window: %s",
			  qpid, name, strerror(rc));
		return rc;
	}
	/* like the doorbell page: a forked child must not share it */
	rc = ibv_dontfork_range(map, q->size);
	if (rc) {
		rc = rc > 0 ? rc : (errno ? errno : EINVAL);
		munmap(map, q->size);
		return rc;
	}

	ionic_pub_init(pub, q, ctx->dbpage, qtype, map, type == IONIC_CMB_WC,
		       !!(resp & IONIC_CMB_EXPDB));
	return 0;
}

static void ionic_qp_unmap_cmb(const struct ionic_queue *q,
			       struct ionic_pub *pub)
{
	void *win = (void *)pub->win;

	if (!win)
		return;
	ibv_dofork_range(win, q->size);
	munmap(win, q->size);
	pub->win = NULL;
}

static unsigned int ionic_ctx_max_stride(struct ionic_ctx *ctx)
{
	return ctx->max_stride > IONIC_STRIDE_LOG2_MAX ? IONIC_STRIDE_LOG2_MAX :
							 ctx->max_stride;
}

static int ionic_sq_init(struct ionic_ctx *ctx, struct ionic_qp *qp,
			 struct ionic_pd *pd, const struct ibv_qp_cap *cap,
			 uint8_t *cmb)
{
	struct ionic_sq *sq = &qp->sq;
	unsigned int max_stride = ionic_ctx_max_stride(ctx);
	uint32_t size = 0;
	int rc;

	if (cap->max_send_wr > IONIC_QUEUE_DEPTH_MAX ||
	    cap->max_send_sge > ionic_send_max_sge(max_stride, 0, false) ||
	    cap->max_inline_data > ionic_send_max_inline(max_stride, false))
		return EINVAL;

	sq->spec = ionic_queue_spec(cap->max_send_sge, ctx->spec);

	/*
	 * An express doorbell costs one SGE and 8 inline bytes, and needs a
	 * WQE size the device offers; otherwise fall back to plain sizing.
	 */
	sq->expdb = false;
	if (*cmb & IONIC_CMB_EXPDB) {
		size = ionic_send_min_size(cap->max_send_sge,
					   cap->max_inline_data, sq->spec,
					   true);
		/* a v1 atomic WQE fills all 64 bytes, trailer included
		 * (docs/upstream-defects.md D7) */
		if (ctx->version < 2 && size <= IONIC_WQE_MIN_SIZE)
			size = 2 * IONIC_WQE_MIN_SIZE;
		sq->expdb = ionic_expdb_size_ok(size, ctx->expdb_mask &
							      pd->expdb_mask);
		if (!sq->expdb)
			*cmb &= ~IONIC_CMB_EXPDB;
	}
	if (!sq->expdb)
		size = ionic_send_min_size(cap->max_send_sge,
					   cap->max_inline_data, sq->spec,
					   false);

	rc = ionic_queue_geometry(&sq->q, cap->max_send_wr, size,
				  ctx->page_shift);
	if (rc)
		return rc;
	if (sq->q.stride_log2 > max_stride)
		return EINVAL;

	sq->trailer64 = sq->expdb &&
			ionic_queue_stride(&sq->q) == IONIC_WQE_MIN_SIZE;
	sq->ops = ionic_send_ops_of(qp->is_ud, ctx->version);
	ionic_sq_init_flags(sq, qp->sig_all);
	sq->max_sge =
		ionic_send_max_sge(sq->q.stride_log2, sq->spec, sq->expdb);
	sq->max_inline = ionic_send_max_inline(sq->q.stride_log2, sq->expdb);

	sq->meta = calloc((size_t)sq->q.mask + 1, sizeof(*sq->meta));
	sq->msn_idx = calloc((size_t)sq->q.mask + 1, sizeof(*sq->msn_idx));
	if (!sq->meta || !sq->msn_idx)
		return ENOMEM;

	rc = ionic_queue_alloc(&sq->q, pd, IONIC_PD_TAG_SQ);
	if (rc)
		return rc;

	sq->color = true;
	ionic_lock_init(&sq->lock);
	return 0;
}

static int ionic_rq_init(struct ionic_ctx *ctx, struct ionic_qp *qp,
			 struct ionic_pd *pd, const struct ibv_qp_cap *cap,
			 uint8_t *cmb)
{
	struct ionic_rq *rq = &qp->rq;
	unsigned int max_stride = ionic_ctx_max_stride(ctx);
	uint32_t size = 0;
	int rc;

	if (cap->max_recv_wr > IONIC_QUEUE_DEPTH_MAX ||
	    cap->max_recv_sge > ionic_recv_max_sge(max_stride, 0, false))
		return EINVAL;

	rq->spec = ionic_queue_spec(cap->max_recv_sge, ctx->spec);

	/*
	 * Test the size the ring will really use (rounded to a power of two):
	 * upstream tests the unrounded size and needlessly drops EXPDB
	 * (docs/upstream-defects.md D8).
	 */
	rq->expdb = false;
	if (*cmb & IONIC_CMB_EXPDB) {
		size = ionic_recv_min_size(cap->max_recv_sge, rq->spec, true);
		size = 1u << ionic_bitlen(size - 1);
		rq->expdb = ionic_expdb_size_ok(size, ctx->expdb_mask &
							      pd->expdb_mask);
		if (!rq->expdb)
			*cmb &= ~IONIC_CMB_EXPDB;
	}
	if (!rq->expdb)
		size = ionic_recv_min_size(cap->max_recv_sge, rq->spec, false);

	rc = ionic_queue_geometry(&rq->q, cap->max_recv_wr, size,
				  ctx->page_shift);
	if (rc)
		return rc;
	if (rq->q.stride_log2 > max_stride)
		return EINVAL;

	rq->trailer64 = rq->expdb &&
			ionic_queue_stride(&rq->q) == IONIC_WQE_MIN_SIZE;
	rq->max_sge =
		ionic_recv_max_sge(rq->q.stride_log2, rq->spec, rq->expdb);

	rq->meta = calloc((size_t)rq->q.mask + 1, sizeof(*rq->meta));
	if (!rq->meta)
		return ENOMEM;

	rc = ionic_queue_alloc(&rq->q, pd, IONIC_PD_TAG_RQ);
	if (rc)
		return rc;

	ionic_lock_init(&rq->lock);
	return 0;
}

void ionic_qp_free(struct ionic_qp *qp)
{
	ionic_qp_unmap_cmb(&qp->sq.q, &qp->sq.pub);
	ionic_qp_unmap_cmb(&qp->rq.q, &qp->rq.pub);
	if (qp->sq.q.ptr)
		ionic_queue_free(&qp->sq.q);
	if (qp->rq.q.ptr)
		ionic_queue_free(&qp->rq.q);
	free(qp->sq.meta);
	free(qp->sq.msn_idx);
	free(qp->rq.meta);
	free(qp);
}

/*
 * The kernel may place a queue sized for an express doorbell in host
 * memory instead (the CMB is full, or the ring too big for it): then no
 * trailer is written and the SGE and inline bytes it reserved are the
 * application's again.  The stride stays what the kernel was told.
 */
static void ionic_qp_expdb_refused(struct ionic_qp *qp, uint8_t sq_resp,
				   uint8_t rq_resp)
{
	if (qp->sq.expdb && !(sq_resp & IONIC_CMB_EXPDB)) {
		qp->sq.expdb = false;
		qp->sq.trailer64 = false;
		qp->sq.max_sge = ionic_send_max_sge(qp->sq.q.stride_log2,
						    qp->sq.spec, false);
		qp->sq.max_inline =
			ionic_send_max_inline(qp->sq.q.stride_log2, false);
	}
	if (qp->rq.expdb && !(rq_resp & IONIC_CMB_EXPDB)) {
		qp->rq.expdb = false;
		qp->rq.trailer64 = false;
		qp->rq.max_sge = ionic_recv_max_sge(qp->rq.q.stride_log2,
						    qp->rq.spec, false);
	}
}

static void ionic_qp_fill_cap(const struct ionic_qp *qp, struct ibv_qp_cap *cap)
{
	cap->max_send_wr = qp->sq.q.mask;
	cap->max_recv_wr = qp->rq.q.mask;
	cap->max_send_sge = qp->sq.max_sge;
	cap->max_recv_sge = qp->rq.max_sge;
	cap->max_inline_data = qp->sq.max_inline;
}

/*
 * Zero SGEs ask for "no scatter/gather list": every queue still gets room
 * for one, as rxe and mlx5 grant, and the kernel, which refuses 0
 * (docs/kernel-contract.md §9.2), is asked for one.
 */
static struct ibv_qp_cap ionic_qp_granted_cap(const struct ibv_qp_cap *req)
{
	struct ibv_qp_cap cap = *req;

	if (!cap.max_send_sge)
		cap.max_send_sge = 1;
	if (!cap.max_recv_sge)
		cap.max_recv_sge = 1;
	return cap;
}

static int ionic_qp_check_attr(struct ibv_qp_init_attr_ex *attr)
{
	uint64_t ops;

	if (attr->comp_mask & ~(uint32_t)IONIC_QP_COMP_MASK)
		return EOPNOTSUPP;
	/* every QP needs a protection domain */
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd)
		return EINVAL;
	if (attr->qp_type != IBV_QPT_RC && attr->qp_type != IBV_QPT_UD)
		return EOPNOTSUPP;
	/* zero create flags are "nothing special": clients set the bit */
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	    attr->create_flags)
		return EOPNOTSUPP;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		ops = ionic_send_ops_mask(attr->qp_type == IBV_QPT_UD);
		if (attr->send_ops_flags & ~ops)
			return EOPNOTSUPP;
	}
	if (!attr->send_cq || !attr->recv_cq)
		return EINVAL;
	return 0;
}

int ionic_qp_alloc(struct ionic_ctx *ctx, struct ibv_qp_init_attr_ex *attr,
		   uint8_t *sq_cmb, uint8_t *rq_cmb, struct ionic_qp **out)
{
	struct ionic_qp *qp;
	struct ionic_pd *pd;
	struct ibv_qp_cap cap;
	int rc;

	rc = ionic_qp_check_attr(attr);
	if (rc)
		return rc;
	cap = ionic_qp_granted_cap(&attr->cap);

	pd = to_ionic_pd(attr->pd);

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return ENOMEM;
	qp->ctx = ctx;
	qp->lockfree = ionic_pd_lockfree(attr->pd);
	qp->is_ud = attr->qp_type == IBV_QPT_UD;
	qp->sig_all = !!(attr->sq_sig_all & ~IONIC_QP_VENDOR_FLAGS);
	qp->vendor_flags = (uint32_t)attr->sq_sig_all & IONIC_QP_VENDOR_FLAGS;
	/* ibv_wr_* builders of operations not selected fail the batch */
	qp->wr_ops = ionic_send_ops_mask(qp->is_ud);
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
		qp->wr_ops = (uint32_t)attr->send_ops_flags;
	qp->version = (uint8_t)ctx->version;
	ionic_list_init(&qp->cq_poll_sq);
	ionic_list_init(&qp->cq_flush_sq);
	ionic_list_init(&qp->cq_flush_rq);

	*sq_cmb = ionic_qp_cmb_pref(pd, true);
	*rq_cmb = ionic_qp_cmb_pref(pd, false);

	rc = ionic_sq_init(ctx, qp, pd, &cap, sq_cmb);
	if (!rc)
		rc = ionic_rq_init(ctx, qp, pd, &cap, rq_cmb);
	if (rc) {
		ionic_qp_free(qp);
		return rc;
	}
	*out = qp;
	return 0;
}

int ionic_qp_bind(struct ionic_qp *qp, uint32_t qpid, uint8_t udma,
		  struct ionic_vcq *send_vcq, struct ionic_vcq *recv_vcq)
{
	struct ionic_ctx *ctx = qp->ctx;

	qp->qpid = qpid;
	qp->sq.q.dbell = ionic_dbell_val(qpid, 0, 0);
	qp->rq.q.dbell = ionic_dbell_val(qpid, 0, 0);

	/* the QP completes only into cq[udma] of both vCQs: it must exist */
	if (udma >= IONIC_MAX_UDMA || !(send_vcq->udma_mask & (1u << udma)) ||
	    !(recv_vcq->udma_mask & (1u << udma))) {
		verbs_err(&ctx->vctx, "QP %u on pipeline %u outside its CQs",
			  qpid, udma);
		return EINVAL;
	}
	qp->udma_idx = udma;
	qp->send_cq = &send_vcq->cq[udma];
	qp->recv_cq = &recv_vcq->cq[udma];

	/* host rings, until ionic_qp_map_cmb() says otherwise */
	ionic_pub_init(&qp->sq.pub, &qp->sq.q, ctx->dbpage, ctx->sq_qtype, NULL,
		       false, false);
	ionic_pub_init(&qp->rq.pub, &qp->rq.q, ctx->dbpage, ctx->rq_qtype, NULL,
		       false, false);
	ionic_qp_init_post(qp);
	return 0;
}

int ionic_qp_attach(struct ionic_qp *qp)
{
	struct ionic_ctx *ctx = qp->ctx;
	int rc;

	rc = ionic_qp_table_reserve(ctx->qp_table, qp->qpid);
	if (rc)
		return rc;
	pthread_mutex_lock(&ctx->mutex);
	rc = ionic_qp_table_insert(ctx->qp_table, qp->qpid, qp);
	pthread_mutex_unlock(&ctx->mutex);
	if (rc)
		return rc;

	/*
	 * Pollers find the QP through the table under a CQ lock only: a
	 * lock/unlock pair publishes the fully initialised QP to them.
	 */
	ionic_lock(&qp->send_cq->lock);
	ionic_unlock(&qp->send_cq->lock);
	ionic_lock(&qp->recv_cq->lock);
	ionic_unlock(&qp->recv_cq->lock);

	ionic_qp_init_wr(qp);
	return 0;
}

struct ibv_qp *ionic_create_qp_ex(struct ibv_context *ibctx,
				  struct ibv_qp_init_attr_ex *attr)
{
	struct ionic_ctx *ctx = to_ionic_ctx(ibctx);
	struct ionic_cmd_create_qp cmd;
	struct ionic_cmd_create_qp_resp resp;
	struct ibv_qp_init_attr_ex kattr;
	struct ionic_qp *qp;
	uint8_t sq_cmb, rq_cmb;
	int rc;

	rc = ionic_qp_alloc(ctx, attr, &sq_cmb, &rq_cmb, &qp);
	if (rc)
		goto err;

	/* reserved bytes must be zero or a 7.x kernel refuses
	 * (docs/upstream-defects.md D18) */
	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
	ionic_queue_qdesc(&qp->sq.q, &cmd.drv_payload.sq);
	ionic_queue_qdesc(&qp->rq.q, &cmd.drv_payload.rq);
	cmd.drv_payload.sq_spec = qp->sq.spec;
	cmd.drv_payload.rq_spec = qp->rq.spec;
	cmd.drv_payload.sq_cmb = sq_cmb;
	cmd.drv_payload.rq_cmb = rq_cmb;
	cmd.drv_payload.udma_mask = to_ionic_pd(attr->pd)->udma_mask;

	/*
	 * The kernel learns nothing from send_ops_flags or zero create
	 * flags, and their comp_mask bits could make libibverbs pick the
	 * extended command: send only what the kernel needs.
	 */
	kattr = *attr;
	kattr.cap = ionic_qp_granted_cap(&attr->cap);
	kattr.comp_mask = IBV_QP_INIT_ATTR_PD;
	kattr.sq_sig_all = qp->sig_all;
	rc = ibv_cmd_create_qp_ex2(ibctx, &qp->vqp, &kattr, &cmd.ibv_cmd,
				   sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (rc)
		goto err_qp;

	rc = ionic_qp_bind(qp, resp.drv_payload.qpid, resp.drv_payload.udma_idx,
			   to_ionic_vcq(attr->send_cq),
			   to_ionic_vcq(attr->recv_cq));
	if (rc)
		goto err_cmd;
	rc = ionic_qp_map_cmb(ctx, qp->qpid, "SQ", &qp->sq.q, ctx->sq_qtype,
			      qp->sq.expdb, sq_cmb, resp.drv_payload.sq_cmb,
			      resp.drv_payload.sq_cmb_offset, &qp->sq.pub);
	if (rc)
		goto err_cmd;
	rc = ionic_qp_map_cmb(ctx, qp->qpid, "RQ", &qp->rq.q, ctx->rq_qtype,
			      qp->rq.expdb, rq_cmb, resp.drv_payload.rq_cmb,
			      resp.drv_payload.rq_cmb_offset, &qp->rq.pub);
	if (rc)
		goto err_cmd;
	ionic_qp_expdb_refused(qp, resp.drv_payload.sq_cmb,
			       resp.drv_payload.rq_cmb);
	rc = ionic_qp_attach(qp);
	if (rc)
		goto err_cmd;

	ionic_qp_fill_cap(qp, &attr->cap);
	return &qp->vqp.qp;

err_cmd:
	ibv_cmd_destroy_qp(&qp->vqp.qp);
err_qp:
	ionic_qp_free(qp);
err:
	errno = rc;
	return NULL;
}

struct ibv_qp *ionic_create_qp(struct ibv_pd *ibpd,
			       struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex ex = {
		.qp_context = attr->qp_context,
		.send_cq = attr->send_cq,
		.recv_cq = attr->recv_cq,
		.srq = attr->srq,
		.cap = attr->cap,
		.qp_type = attr->qp_type,
		.sq_sig_all = attr->sq_sig_all,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = ibpd,
	};
	struct ibv_qp *ibqp;

	ibqp = ionic_create_qp_ex(ibpd->context, &ex);
	if (ibqp)
		attr->cap = ex.cap;
	return ibqp;
}

/*
 * ERR: both queues flush in software.  The flush starts at the next poll
 * of each CQ, after that poll has reaped the CQEs already written, so WQEs
 * that really completed report success rather than a flush
 * (docs/upstream-defects.md D21).
 */
void ionic_qp_request_flush(struct ionic_qp *qp)
{
	ionic_lock(&qp->send_cq->lock);
	ionic_lock(&qp->sq.lock);
	if (!qp->sq.flush) {
		qp->sq.flush_req = true;
		ionic_qp_queue_sq_flush(qp);
	}
	ionic_unlock(&qp->sq.lock);
	ionic_unlock(&qp->send_cq->lock);

	ionic_lock(&qp->recv_cq->lock);
	ionic_lock(&qp->rq.lock);
	if (!qp->rq.flush) {
		qp->rq.flush_req = true;
		ionic_qp_queue_rq_flush(qp);
	}
	ionic_unlock(&qp->rq.lock);
	ionic_unlock(&qp->recv_cq->lock);
}

/*
 * The poller's memo of the last CQE's QP (poll.c) must not outlive the QP.
 * Called under the CQ lock, after the QP left the table: no later poll
 * can find it again.
 */
static void ionic_cq_forget_qp(struct ionic_cq *cq, struct ionic_qp *qp)
{
	if (cq->last_qp == qp) {
		cq->last_qid = UINT32_MAX;
		cq->last_qp = NULL;
	}
}

/*
 * Drop pending CQEs and work-list entries of the send side.  WQEs still
 * outstanding will never complete: give their CQ credits back.
 */
static void ionic_qp_detach_send(struct ionic_qp *qp)
{
	ionic_cq_forget_qp(qp->send_cq, qp);
	ionic_cq_credit(&qp->send_cq->pub, ionic_queue_length(&qp->sq.q));
	ionic_cq_clean(qp->send_cq, qp->qpid);
	if (ionic_list_linked(&qp->cq_poll_sq))
		ionic_list_del(&qp->cq_poll_sq);
	if (ionic_list_linked(&qp->cq_flush_sq))
		ionic_list_del(&qp->cq_flush_sq);
}

static void ionic_qp_detach_recv(struct ionic_qp *qp)
{
	ionic_cq_forget_qp(qp->recv_cq, qp);
	ionic_cq_credit(&qp->recv_cq->pub, ionic_queue_length(&qp->rq.q));
	ionic_cq_clean(qp->recv_cq, qp->qpid);
	if (ionic_list_linked(&qp->cq_flush_rq))
		ionic_list_del(&qp->cq_flush_rq);
}

void ionic_qp_detach(struct ionic_qp *qp)
{
	struct ionic_ctx *ctx = qp->ctx;

	pthread_mutex_lock(&ctx->mutex);
	ionic_qp_table_remove(ctx->qp_table, qp->qpid);
	pthread_mutex_unlock(&ctx->mutex);

	/* after this no poller can reach the QP: not in the table, no CQEs */
	ionic_lock(&qp->send_cq->lock);
	ionic_qp_detach_send(qp);
	ionic_unlock(&qp->send_cq->lock);

	ionic_lock(&qp->recv_cq->lock);
	ionic_qp_detach_recv(qp);
	ionic_unlock(&qp->recv_cq->lock);
}

/*
 * RESET: the device restarts its indexes and MSN at 0, so does the host;
 * the SQ colour returns to 1 as at creation (upstream keeps it,
 * docs/upstream-defects.md D9).
 */
void ionic_qp_reset(struct ionic_qp *qp)
{
	struct ionic_sq *sq = &qp->sq;
	struct ionic_rq *rq = &qp->rq;

	ionic_lock(&qp->send_cq->lock);
	ionic_lock(&sq->lock);
	ionic_qp_detach_send(qp);
	sq->q.prod = sq->q.cons = 0;
	ionic_pub_reset(&sq->pub, &sq->q);
	sq->msn_prod = sq->msn_cons = sq->msn_rung = 0;
	sq->color = true;
	sq->flush = sq->flush_rcvd = sq->flush_req = false;
	ionic_unlock(&sq->lock);
	ionic_unlock(&qp->send_cq->lock);

	ionic_lock(&qp->recv_cq->lock);
	ionic_lock(&rq->lock);
	ionic_qp_detach_recv(qp);
	rq->q.prod = rq->q.cons = 0;
	rq->flush = rq->flush_req = false;
	memset(rq->meta, 0, ((size_t)rq->q.mask + 1) * sizeof(*rq->meta));
	/* no slot may look device-owned (FENCE) to the next post */
	memset(rq->q.ptr, 0, rq->q.size);
	ionic_pub_reset(&rq->pub, &rq->q);
	ionic_unlock(&rq->lock);
	ionic_unlock(&qp->recv_cq->lock);
}

int ionic_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		    int attr_mask)
{
	struct ionic_qp *qp = to_ionic_qp(ibqp);
	struct ibv_modify_qp cmd;
	int rc;

	if (!attr_mask)
		return 0;
	/* QP numbers have 24 bits: the kernel passes the field on as it is,
	 * so refuse rather than let the device see a cut number */
	if ((attr_mask & IBV_QP_DEST_QPN) && (attr->dest_qp_num & ~0xffffffu))
		return EINVAL;

	memset(&cmd, 0, sizeof(cmd));
	rc = ibv_cmd_modify_qp(ibqp, attr, attr_mask, &cmd, sizeof(cmd));
	if (rc)
		return rc;

	if (attr_mask & IBV_QP_STATE) {
		if (attr->qp_state == IBV_QPS_ERR)
			ionic_qp_request_flush(qp);
		else if (attr->qp_state == IBV_QPS_RESET)
			ionic_qp_reset(qp);
	}
	/*
	 * The firmware keeps only log2 depths of the read queues and the
	 * kernel's query decodes them into other values than were set
	 * (2 reads back as 1, 16 as 15; docs/kernel-contract.md §9.5), so
	 * query_qp reports what the application last set (kept across a RESET,
	 * as the kernel keeps the depths).
	 */
	if (attr_mask & IBV_QP_MAX_QP_RD_ATOMIC) {
		qp->rd_atomic = attr->max_rd_atomic;
		qp->rd_atomic_set = true;
	}
	if (attr_mask & IBV_QP_MAX_DEST_RD_ATOMIC) {
		qp->dest_rd_atomic = attr->max_dest_rd_atomic;
		qp->dest_rd_atomic_set = true;
	}
	return 0;
}

int ionic_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int attr_mask,
		   struct ibv_qp_init_attr *init_attr)
{
	struct ionic_qp *qp = to_ionic_qp(ibqp);
	struct ibv_query_qp cmd;
	int rc;

	memset(&cmd, 0, sizeof(cmd));
	rc = ibv_cmd_query_qp(ibqp, attr, attr_mask, init_attr, &cmd,
			      sizeof(cmd));
	/* leave the caller's buffers alone when the query failed
	 * (docs/upstream-defects.md D20) */
	if (rc)
		return rc;

	/* the provider knows the real capacities, the kernel only requests */
	ionic_qp_fill_cap(qp, &init_attr->cap);
	ionic_qp_fill_cap(qp, &attr->cap);
	init_attr->sq_sig_all = qp->sig_all;
	if (qp->rd_atomic_set)
		attr->max_rd_atomic = qp->rd_atomic;
	if (qp->dest_rd_atomic_set)
		attr->max_dest_rd_atomic = qp->dest_rd_atomic;
	return 0;
}

int ionic_destroy_qp(struct ibv_qp *ibqp)
{
	struct ionic_qp *qp = to_ionic_qp(ibqp);
	int rc;

	/* the kernel first: on failure the QP stays fully usable */
	rc = ibv_cmd_destroy_qp(ibqp);
	if (rc)
		return rc;

	ionic_qp_detach(qp);
	ionic_qp_free(qp);
	return 0;
}
