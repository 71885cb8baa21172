/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Static checks of the ionic uverbs driver-data structures against the
 * sizes and offsets of the ionic kernel reference.  Included by the
 * provider and by ionic-sim, which must agree on every byte.
 */
#ifndef IONIC_ABI_LAYOUT_H
#define IONIC_ABI_LAYOUT_H

#include <assert.h>
#include <stddef.h>
#include <rdma/ionic-abi.h>

#define IONIC_ABI_SIZE(t, n) static_assert(sizeof(t) == (n), #t " size")
#define IONIC_ABI_OFF(t, f, n) \
	static_assert(offsetof(t, f) == (n), #t "." #f " offset")

IONIC_ABI_SIZE(struct ionic_ctx_req, 8);
IONIC_ABI_SIZE(struct ionic_ctx_resp, 40);
IONIC_ABI_OFF(struct ionic_ctx_resp, page_shift, 4);
IONIC_ABI_OFF(struct ionic_ctx_resp, dbell_offset, 8);
IONIC_ABI_OFF(struct ionic_ctx_resp, version, 16);
IONIC_ABI_OFF(struct ionic_ctx_resp, qp_opcodes, 18);
IONIC_ABI_OFF(struct ionic_ctx_resp, admin_opcodes, 19);
IONIC_ABI_OFF(struct ionic_ctx_resp, sq_qtype, 20);
IONIC_ABI_OFF(struct ionic_ctx_resp, rq_qtype, 21);
IONIC_ABI_OFF(struct ionic_ctx_resp, cq_qtype, 22);
IONIC_ABI_OFF(struct ionic_ctx_resp, admin_qtype, 23);
IONIC_ABI_OFF(struct ionic_ctx_resp, max_stride, 24);
IONIC_ABI_OFF(struct ionic_ctx_resp, max_spec, 25);
IONIC_ABI_OFF(struct ionic_ctx_resp, udma_count, 26);
IONIC_ABI_OFF(struct ionic_ctx_resp, expdb_mask, 27);
IONIC_ABI_OFF(struct ionic_ctx_resp, expdb_qtypes, 28);
IONIC_ABI_OFF(struct ionic_ctx_resp, phc_offset, 32);

IONIC_ABI_SIZE(struct ionic_qdesc, 16);
IONIC_ABI_OFF(struct ionic_qdesc, size, 8);
IONIC_ABI_OFF(struct ionic_qdesc, mask, 12);
IONIC_ABI_OFF(struct ionic_qdesc, depth_log2, 14);
IONIC_ABI_OFF(struct ionic_qdesc, stride_log2, 15);

IONIC_ABI_SIZE(struct ionic_ah_resp, 8);

IONIC_ABI_SIZE(struct ionic_cq_req, 40);
IONIC_ABI_OFF(struct ionic_cq_req, cq[1], 16);
IONIC_ABI_OFF(struct ionic_cq_req, udma_mask, 32);
IONIC_ABI_SIZE(struct ionic_cq_resp, 16);
IONIC_ABI_OFF(struct ionic_cq_resp, cqid[1], 4);
IONIC_ABI_OFF(struct ionic_cq_resp, udma_mask, 8);

IONIC_ABI_SIZE(struct ionic_qp_req, 40);
IONIC_ABI_OFF(struct ionic_qp_req, rq, 16);
IONIC_ABI_OFF(struct ionic_qp_req, sq_spec, 32);
IONIC_ABI_OFF(struct ionic_qp_req, rq_spec, 33);
IONIC_ABI_OFF(struct ionic_qp_req, sq_cmb, 34);
IONIC_ABI_OFF(struct ionic_qp_req, rq_cmb, 35);
IONIC_ABI_OFF(struct ionic_qp_req, udma_mask, 36);
IONIC_ABI_SIZE(struct ionic_qp_resp, 24);
IONIC_ABI_OFF(struct ionic_qp_resp, sq_cmb, 4);
IONIC_ABI_OFF(struct ionic_qp_resp, rq_cmb, 5);
IONIC_ABI_OFF(struct ionic_qp_resp, udma_idx, 6);
IONIC_ABI_OFF(struct ionic_qp_resp, sq_cmb_offset, 8);
IONIC_ABI_OFF(struct ionic_qp_resp, rq_cmb_offset, 16);

#endif /* IONIC_ABI_LAYOUT_H */
