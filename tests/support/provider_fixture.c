// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Contexts, root PDs, vCQs and QPs for unit tests (unit.h), built through
 * the provider's own creation code, minus the kernel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "provider_fixture.h"
#include "table.h"

#define UNIT_PAGE_SHIFT 12
#define UNIT_MAX_STRIDE 12 /* log2 of the largest WQE the device takes */

struct ionic_ah unit_ah = { .ahid = UNIT_AH_ID };

struct unit_dev *unit_dev_create(const struct unit_dev_opts *opts)
{
	static const struct unit_dev_opts defaults = { 0 };
	struct unit_dev *dev = calloc(1, sizeof(*dev));
	struct ionic_ctx *ctx;

	REQUIRE(dev);
	if (!opts)
		opts = &defaults;
	ctx = &dev->ctx;

	/* what libibverbs sets up for every extended context */
	ctx->vctx.sz = sizeof(ctx->vctx);
	ctx->vctx.context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	ctx->vctx.context.num_comp_vectors = 1;
	/* the op ionic_is_ionic_ctx() recognises a context by */
	ctx->vctx.alloc_parent_domain = ionic_alloc_parent_domain;

	/* what GET_CONTEXT negotiates with the kernel (context.c) */
	ctx->page_shift = UNIT_PAGE_SHIFT;
	ctx->version = opts->version ? opts->version : 2;
	ctx->sq_qtype = UNIT_SQ_QTYPE;
	ctx->rq_qtype = UNIT_RQ_QTYPE;
	ctx->cq_qtype = UNIT_CQ_QTYPE;
	ctx->max_stride = UNIT_MAX_STRIDE;
	ctx->spec = opts->spec ? opts->spec : 8;
	ctx->udma_count = opts->udma_count ? opts->udma_count : 1;
	ctx->udma_mask = (uint8_t)((1u << ctx->udma_count) - 1);
	ctx->expdb_mask = opts->expdb_mask;
	ctx->sq_expdb = opts->sq_expdb;
	ctx->rq_expdb = opts->rq_expdb;
	ctx->dbpage = dev->dbpage;

	REQUIRE(!pthread_mutex_init(&ctx->mutex, NULL));
	ctx->qp_table = ionic_qp_table_create();
	REQUIRE(ctx->qp_table);

	dev->pd.ibpd.context = &ctx->vctx.context;
	dev->pd.ibpd.handle = UNIT_PD_HANDLE;
	ionic_pd_init_root(&dev->pd, ctx);
	return dev;
}

void unit_dev_destroy(struct unit_dev *dev)
{
	ionic_qp_table_destroy(dev->ctx.qp_table);
	pthread_mutex_destroy(&dev->ctx.mutex);
	free(dev);
}

struct ionic_vcq *unit_cq_create(struct unit_dev *dev, int cqe)
{
	static const uint32_t cqid[IONIC_MAX_UDMA] = { UNIT_CQID,
						       UNIT_CQID + 1 };
	struct ibv_cq_init_attr_ex attr = { .cqe = (uint32_t)cqe };
	struct ionic_vcq *vcq = NULL;

	REQUIRE_EQ(ionic_vcq_alloc(&dev->ctx, &attr, &vcq), 0);
	ionic_vcq_bind(vcq, cqid);
	/* what ibv_cmd_create_cq fills in */
	vcq->vcq.cq.context = &dev->ctx.vctx.context;
	vcq->vcq.cq.cqe = cqe;
	return vcq;
}

void unit_cq_destroy(struct ionic_vcq *vcq)
{
	ionic_vcq_free(vcq);
}

struct ionic_qp *unit_qp_create(struct unit_dev *dev, struct ionic_vcq *vcq,
				const struct unit_qp_opts *opts)
{
	struct ionic_vcq *rvcq = opts->recv_vcq ? opts->recv_vcq : vcq;
	struct ibv_qp_init_attr_ex attr = {
		.send_cq = &vcq->vcq.cq,
		.recv_cq = &rvcq->vcq.cq,
		.cap = {
			.max_send_wr = opts->depth,
			.max_recv_wr = opts->depth,
			.max_send_sge = opts->max_sge,
			.max_recv_sge = opts->max_sge,
			.max_inline_data = opts->max_inline,
		},
		.qp_type = opts->ud ? IBV_QPT_UD : IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = &dev->pd.ibpd,
	};
	struct ionic_qp *qp = NULL;
	uint8_t sq_cmb, rq_cmb;

	REQUIRE_EQ(ionic_qp_alloc(&dev->ctx, &attr, &sq_cmb, &rq_cmb, &qp), 0);
	REQUIRE_EQ(ionic_qp_bind(qp, opts->qpid, opts->udma, vcq, rvcq), 0);
	REQUIRE_EQ(ionic_qp_attach(qp), 0);

	/* what ibv_cmd_create_qp_ex2 and the modify to RTS leave behind */
	qp->vqp.qp.context = &dev->ctx.vctx.context;
	qp->vqp.qp.qp_num = opts->qpid;
	qp->vqp.qp.qp_type = attr.qp_type;
	qp->vqp.qp.state = IBV_QPS_RTS;
	return qp;
}

void unit_qp_destroy(struct ionic_qp *qp)
{
	ionic_qp_detach(qp);
	ionic_qp_free(qp);
}

struct ionic_qp *unit_qp(struct unit_dev *dev, struct ionic_vcq *vcq, bool ud,
			 uint32_t qpid, uint32_t depth)
{
	struct unit_qp_opts o = {
		.ud = ud, .qpid = qpid, .depth = depth, .max_sge = 2
	};

	return unit_qp_create(dev, vcq, &o);
}

static void unit_qp_dirty_rings(struct ionic_qp *qp)
{
	memset(qp->sq.q.ptr, UNIT_SQ_JUNK, qp->sq.q.size);
	memset(qp->rq.q.ptr, 0x5a, qp->rq.q.size);
	for (unsigned int i = 0; i <= qp->rq.q.mask; i++) {
		struct ionic_wqe *w = ionic_queue_at(&qp->rq.q, (uint16_t)i);

		w->base.flags = 0;
	}
}

struct ionic_qp *unit_lone_qp(bool ud, uint8_t version, uint32_t depth,
			      uint32_t max_sge, uint32_t max_inline)
{
	struct unit_dev_opts dopts = { .version = version };
	struct unit_qp_opts o = { .ud = ud,
				  .qpid = UNIT_LONE_QPID,
				  .depth = depth,
				  .max_sge = max_sge,
				  .max_inline = max_inline };
	struct unit_dev *dev = unit_dev_create(&dopts);
	struct ionic_qp *qp = unit_qp_create(dev, unit_cq_create(dev, 1), &o);

	unit_qp_dirty_rings(qp);
	return qp;
}

void unit_lone_qp_destroy(struct ionic_qp *qp)
{
	struct unit_dev *dev = container_of(qp->ctx, struct unit_dev, ctx);
	/* a lone QP is on pipeline 0 of its own vCQ */
	struct ionic_vcq *vcq = container_of(qp->send_cq, struct ionic_vcq, cq);

	unit_qp_destroy(qp);
	unit_cq_destroy(vcq);
	unit_dev_destroy(dev);
}

int unit_post_sends(struct ionic_qp *qp, int n, const unsigned int *flags,
		    uint64_t first_id)
{
	struct ibv_send_wr wr[16], *bad = NULL;
	int i;

	REQUIRE(n > 0 && n <= 16);
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < n; i++) {
		wr[i].wr_id = first_id + (uint64_t)i;
		wr[i].opcode = IBV_WR_SEND;
		wr[i].send_flags = flags ? flags[i] : IBV_SEND_SIGNALED;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
		if (qp->is_ud)
			wr[i].wr.ud.ah = &unit_ah.ibah;
	}
	return ionic_post_send(&qp->vqp.qp, wr, &bad);
}

int unit_post_recv(struct ionic_qp *qp, uint64_t wr_id, uint32_t len)
{
	struct ibv_sge sge = { .length = len };
	struct ibv_recv_wr wr = { .wr_id = wr_id,
				  .sg_list = &sge,
				  .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ionic_post_recv(&qp->vqp.qp, &wr, &bad);
}

int unit_poll(struct ionic_vcq *vcq, struct ibv_wc *wc, int n)
{
	return ionic_poll_cq(&vcq->vcq.cq, n, wc);
}

void unit_check_bytes_at(const char *file, int line, const char *what,
			 const void *got, const void *want, size_t len)
{
	const uint8_t *g = got, *w = want;

	for (size_t i = 0; i < len; i++) {
		if (g[i] != w[i]) {
			check_fail(file, line,
				   "%s: byte %zu is %02x, want %02x", what, i,
				   g[i], w[i]);
			return;
		}
	}
}
