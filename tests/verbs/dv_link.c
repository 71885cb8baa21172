// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* The DV tests' QP set-up (dv_link.h). */
#include <stdlib.h>
#include <string.h>

#include "dv_link.h"

static int dvl_tag(uint64_t resource_type)
{
	switch (resource_type) {
	case IONIC_PD_TAG_CQ:
		return DVL_CQ;
	case IONIC_PD_TAG_SQ:
		return DVL_SQ;
	case IONIC_PD_TAG_RQ:
		return DVL_RQ;
	default:
		return -1;
	}
}

/* Like the GPU stacks' allocators: zeroed memory, page-aligned. */
static void *dvl_ring_alloc(struct ibv_pd *pd, void *pd_context, size_t size,
			    size_t alignment, uint64_t resource_type)
{
	struct dvl_alloc *a = pd_context;
	int t = dvl_tag(resource_type);
	size_t align = alignment < 4096 ? 4096 : alignment;
	void *p;

	(void)pd;
	if (t < 0) {
		a->bad_tags++;
		return NULL;
	}
	p = aligned_alloc(align, (size + align - 1) & ~(align - 1));
	if (!p)
		return NULL;
	memset(p, 0, size);
	a->ptr[t] = p;
	a->size[t] = size;
	a->align[t] = alignment;
	a->allocs[t]++;
	return p;
}

static void dvl_ring_free(struct ibv_pd *pd, void *pd_context, void *ptr,
			  uint64_t resource_type)
{
	struct dvl_alloc *a = pd_context;
	int t = dvl_tag(resource_type);

	(void)pd;
	if (t < 0)
		a->bad_tags++;
	else
		a->frees[t]++;
	free(ptr);
}

static struct ibv_mr *dvl_buf(struct ibv_pd *pd, size_t len, uint8_t **buf)
{
	struct ibv_mr *mr;

	*buf = aligned_alloc(4096, (len + 4095) & ~4095ul);
	REQUIRE(*buf);
	memset(*buf, 0, len);
	mr = ibv_reg_mr(pd, *buf, len,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				IBV_ACCESS_REMOTE_READ);
	REQUIRE(mr);
	return mr;
}

void dvl_create(struct dvl_link *l, struct ibv_context *ctx, struct ibv_pd *pd,
		const struct dvl_opts *o)
{
	struct ibv_parent_domain_init_attr pa = {
		.pd = pd,
		.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
			     IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT,
		.alloc = dvl_ring_alloc,
		.free = dvl_ring_free,
	};
	struct ibv_cq_init_attr_ex ca = { 0 };
	struct ibv_qp_init_attr_ex qa = { 0 };
	struct ibv_qp_init_attr ia = { 0 };

	memset(l, 0, sizeof(*l));
	l->o = *o;
	l->ctx = ctx;
	l->pd = pd;
	REQUIRE(!ibv_query_gid(ctx, 1, 1, &l->gid));

	pa.pd_context = &l->alloc;
	l->par = ibv_alloc_parent_domain(ctx, &pa);
	REQUIRE(l->par);
	if (!o->cmb) {
		REQUIRE_EQ(ionic_dv_pd_set_sqcmb(l->par, false, false, false),
			   0);
		REQUIRE_EQ(ionic_dv_pd_set_rqcmb(l->par, false, false, false),
			   0);
	}
	REQUIRE_EQ(ionic_dv_pd_set_udma_mask(l->par, (uint8_t)(1 << o->udma)),
		   0);

	ca.cqe = 2 * o->depth;
	ca.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD;
	ca.parent_domain = l->par;
	l->cq = ionic_dv_create_cq_ex(ctx, &ca, NULL);
	REQUIRE(l->cq);

	qa.send_cq = qa.recv_cq = ibv_cq_ex_to_cq(l->cq);
	qa.qp_type = IBV_QPT_RC;
	qa.sq_sig_all = o->sq_sig_all;
	qa.cap.max_send_wr = qa.cap.max_recv_wr = o->depth;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
	qa.cap.max_inline_data = 32;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD;
	qa.pd = l->par;
	l->qp = ibv_create_qp_ex(ctx, &qa);
	REQUIRE(l->qp);

	l->peer_cq = ibv_create_cq(ctx, 512, NULL, NULL, 0);
	REQUIRE(l->peer_cq);
	ia.send_cq = ia.recv_cq = l->peer_cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 64;
	ia.cap.max_recv_wr = 256;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	l->peer = ibv_create_qp(pd, &ia);
	REQUIRE(l->peer);

	l->mr = dvl_buf(pd, o->buf_len, &l->buf);
	l->peer_mr = dvl_buf(pd, o->buf_len, &l->peer_buf);
}

void dvl_connect(struct dvl_link *l)
{
	struct fx_qp_opts o;

	fx_qp_opts_default(&o, IBV_QPT_RC);
	REQUIRE_EQ(fx_rc_to_init(l->qp), 0);
	REQUIRE_EQ(fx_rc_to_init(l->peer), 0);
	REQUIRE_EQ(fx_rc_to_rtr(l->qp, &l->gid, l->peer->qp_num, &o), 0);
	REQUIRE_EQ(fx_rc_to_rtr(l->peer, &l->gid, l->qp->qp_num, &o), 0);
	REQUIRE_EQ(fx_rc_to_rts(l->qp, &o), 0);
	REQUIRE_EQ(fx_rc_to_rts(l->peer, &o), 0);
}

void dvl_destroy(struct dvl_link *l)
{
	CHECK_RC(ibv_destroy_qp(l->qp), 0);
	CHECK_RC(ibv_destroy_qp(l->peer), 0);
	CHECK_RC(ibv_destroy_cq(ibv_cq_ex_to_cq(l->cq)), 0);
	CHECK_RC(ibv_destroy_cq(l->peer_cq), 0);
	CHECK_RC(ibv_dereg_mr(l->mr), 0);
	CHECK_RC(ibv_dereg_mr(l->peer_mr), 0);
	free(l->buf);
	free(l->peer_buf);
	CHECK_RC(ibv_dealloc_pd(l->par), 0);
	/* every ring went back to the allocator it came from */
	for (int t = 0; t < DVL_TAGS; t++)
		CHECK_EQ(l->alloc.frees[t], l->alloc.allocs[t]);
	CHECK_EQ(l->alloc.bad_tags, 0);
}

int dvl_peer_recv(struct dvl_link *l, uint64_t wr_id, size_t off, size_t len)
{
	struct ibv_sge sge = { (uintptr_t)(l->peer_buf + off), (uint32_t)len,
			       l->peer_mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id,
				  .sg_list = &sge,
				  .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(l->peer, &wr, &bad);
}

int dvl_trace_count(const char *needle)
{
	const char *path = getenv("IONIC_SIM_TRACE");
	char line[1024];
	int n = 0;
	FILE *f;

	if (!path || !(f = fopen(path, "r")))
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, needle))
			n++;
	fclose(f);
	return n;
}
