/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Compiled as C (gnu11, c99) and as C++ by check-header.sh: the header must
 * be self-contained (nothing else is included here), survive a second
 * inclusion, and declare each function with exactly the documented
 * prototype (a mismatch makes the pointer initialisations below an error).
 * Linked against libionic as C++, it also proves the functions have C
 * linkage.  The layouts are pinned by the header's own static assertions;
 * the constants the callers of docs/gpu-direct-verbs.md §1 use are checked here.
 */
#include <infiniband/ionic_dv.h>
#include <infiniband/ionic_dv.h>

static uint8_t (*const ctx_count)(struct ibv_context *) =
	ionic_dv_ctx_get_udma_count;
static uint8_t (*const ctx_mask)(struct ibv_context *) =
	ionic_dv_ctx_get_udma_mask;
static uint8_t (*const pd_get_mask)(struct ibv_pd *) = ionic_dv_pd_get_udma_mask;
static int (*const pd_set_mask)(struct ibv_pd *,
				uint8_t) = ionic_dv_pd_set_udma_mask;
static int (*const pd_sqcmb)(struct ibv_pd *, bool, bool,
			     bool) = ionic_dv_pd_set_sqcmb;
static int (*const pd_rqcmb)(struct ibv_pd *, bool, bool,
			     bool) = ionic_dv_pd_set_rqcmb;
static bool (*const is_ctx)(struct ibv_context *) = ionic_dv_is_ionic_ctx;
static bool (*const is_pd)(struct ibv_pd *) = ionic_dv_is_ionic_pd;
static bool (*const is_cq)(struct ibv_cq *) = ionic_dv_is_ionic_cq;
static bool (*const is_qp)(struct ibv_qp *) = ionic_dv_is_ionic_qp;
static uint8_t (*const cq_mask)(struct ibv_cq *) = ionic_dv_cq_get_udma_mask;
static uint8_t (*const qp_idx)(struct ibv_qp *) = ionic_dv_qp_get_udma_idx;
static int (*const pd_expdb)(struct ibv_pd *,
			     uint8_t) = ionic_dv_pd_set_expdb_mask;
static int (*const set_gda)(struct ibv_qp *, bool, bool) = ionic_dv_qp_set_gda;
static int (*const send_db)(struct ibv_qp *,
			    uint64_t *) = ionic_dv_qp_get_send_dbell_data;
static int (*const recv_db)(struct ibv_qp *,
			    uint64_t *) = ionic_dv_qp_get_recv_dbell_data;
static int (*const get_ctx)(struct ionic_dv_ctx *,
			    struct ibv_context *) = ionic_dv_get_ctx;
static int (*const get_cq)(struct ionic_dv_cq *, struct ibv_cq *,
			   uint8_t) = ionic_dv_get_cq;
static int (*const get_qp)(struct ionic_dv_qp *,
			   struct ibv_qp *) = ionic_dv_get_qp;
static struct ibv_cq_ex *(*const create_cq)(
	struct ibv_context *, struct ibv_cq_init_attr_ex *,
	struct ionic_cq_init_attr_ex *) = ionic_dv_create_cq_ex;
static struct ibv_qp *(*const create_qp)(
	struct ibv_context *, struct ibv_qp_init_attr_ex *,
	struct ionic_dv_qp_init_attr_ex *) = ionic_dv_create_qp_ex;

/* Values the callers compile in (docs/gpu-direct-verbs.md §2.3-§2.5). */
typedef char tag_ok[IONIC_PD_TAG_CQ == 0x1500000001ull &&
				    IONIC_PD_TAG_SQ == 0x1500000002ull &&
				    IONIC_PD_TAG_RQ == 0x1500000003ull ?
			    1 :
			    -1];
typedef char
	udma_ok[IONIC_UDMA_MASK_LOW == 1 && IONIC_UDMA_MASK_HIGH == 2 ? 1 : -1];
typedef char expdb_ok[IONIC_EXPDB_64 == 1 && IONIC_EXPDB_128 == 2 &&
				      IONIC_EXPDB_256 == 4 &&
				      IONIC_EXPDB_512 == 8 ?
			      1 :
			      -1];
typedef char flags_ok
	[IONIC_CQ_INIT_ATTR_MASK_FLAGS == 1 && IONIC_CQ_INIT_ATTR_CCQE == 1 &&
			 IONIC_DV_QP_INIT_ATTR_MASK_FLAGS == 1 &&
			 IONIC_DV_QP_INIT_ATTR_MASK_TRANSPORT_MODE == 2 &&
			 IONIC_DV_QP_INIT_ATTR_MASK_NUM_RCQ_PATHS == 4 &&
			 IONIC_DV_CREATE_QP_TYPE_RCCL == 0x10000 &&
			 IONIC_DV_CREATE_QP_RCCL_DATA == 0x20000 &&
			 IONIC_DV_CREATE_QP_RCCL_RDFENCE == 0x40000 &&
			 IONIC_DV_CREATE_QP_RCCL_RX_OFFLOAD == 0x80000 &&
			 IONIC_DV_CREATE_QP_RCCL_RCQ == 0x1000000 &&
			 IONIC_DV_QPT_TRANSPORT_DEFAULT == 0 &&
			 IONIC_DV_QPT_TRANSPORT_ROCE_V2 == 1 &&
			 IONIC_DV_QPT_TRANSPORT_MRC == 2 ?
		 1 :
		 -1];

int main(int argc, char **argv)
{
	struct ibv_context *ctx = 0;
	struct ibv_pd *pd = 0;
	struct ibv_cq *cq = 0;
	struct ibv_qp *qp = 0;
	struct ionic_dv_ctx dctx;
	struct ionic_dv_cq dcq;
	struct ionic_dv_qp dqp;
	uint64_t v = 0;
	tag_ok *t1 = 0;
	udma_ok *t2 = 0;
	expdb_ok *t3 = 0;
	flags_ok *t4 = 0;

	(void)argv;
	(void)t1;
	(void)t2;
	(void)t3;
	(void)t4;
	/* Never taken: the calls only have to compile and link. */
	if (argc > 1000)
		return ctx_count(ctx) + ctx_mask(ctx) + pd_get_mask(pd) +
		       pd_set_mask(pd, 1) + pd_sqcmb(pd, true, false, false) +
		       pd_rqcmb(pd, false, false, false) + is_ctx(ctx) +
		       is_pd(pd) + is_cq(cq) + is_qp(qp) + cq_mask(cq) +
		       qp_idx(qp) + pd_expdb(pd, 1) + set_gda(qp, true, false) +
		       send_db(qp, &v) + recv_db(qp, &v) + get_ctx(&dctx, ctx) +
		       get_cq(&dcq, cq, 0) + get_qp(&dqp, qp) +
		       (create_cq(ctx, 0, 0) != 0) +
		       (create_qp(ctx, 0, 0) != 0);
	return 0;
}
