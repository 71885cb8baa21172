/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * A "device-side poster": what the GPU code of rocSHMEM and MORI does
 * with an ionic QP, given only the ionic_dv_get_ctx/cq/qp descriptors
 * (docs/gpu-direct-verbs.md §4), for the DV tests under ionic-sim:
 *
 *  - writes SEND (SGE or inline) and RDMA WRITE WQEs into the SQ ring,
 *    body first and the flags word (colour, signal) last with a release
 *    store, the colour 1 on the ring's first lap and flipping each lap;
 *  - rings the SQ doorbell with one 64-bit store of sq.db_val | producer
 *    index to db_ptr[sq_qtype];
 *  - polls the CQ ring by colour, checks type, QP and error bits and
 *    follows the cumulative MSN;
 *  - returns CQ credits every 100 CQEs (and on request) with a store of
 *    cq.db_val | consumer index to db_ptr[cq_qtype].
 *
 * It calls no libionic function, so a test that opens libionic with
 * dlopen() can use it as well as one linked with it.
 */
#ifndef IONIC_TESTS_VERBS_DV_POSTER_H
#define IONIC_TESTS_VERBS_DV_POSTER_H

#include <stdbool.h>
#include <stdint.h>
#include <infiniband/ionic_dv.h>

enum dvp_kind { DVP_SEND, DVP_SEND_INL, DVP_WRITE };

/* Inline SENDs carry at most this many bytes (the QP's max_inline_data). */
#define DVP_INLINE_MAX 32

struct dvp_op {
	enum dvp_kind kind;
	uint32_t len;
	const uint8_t *src; /* registered with the poster's lkey */
	uint64_t remote_va; /* DVP_WRITE */
	uint32_t rkey; /* DVP_WRITE */
};

struct dvp {
	/* given */
	struct ionic_dv_ctx dctx;
	struct ionic_dv_qp dqp;
	struct ionic_dv_cq dcq; /* the ring of the QP's pipeline */
	uint32_t qpn;
	uint32_t lkey;
	int fw; /* firmware RDMA version: the opcode table */
	/* device-side state */
	uint64_t sq_pos; /* running SQ producer position */
	uint64_t cq_pos; /* running CQ consumer position */
	uint32_t msn; /* remote WQEs completed (24 bits) */
	unsigned int unreturned; /* CQEs consumed since the last credit */
	unsigned int cqes;
	/* the first failure, if any */
	char err[160];
};

/* Write one WQE at the producer position; the flags word goes last. */
void dvp_write_wqe(struct dvp *p, const struct dvp_op *op, bool signal);
/* The SQ doorbell for everything written so far. */
void dvp_ring_sq(struct dvp *p);
/* Poll until every written WQE has completed; false on error or after
 * 'wait_ms' (p->err says why). */
bool dvp_drain(struct dvp *p, int wait_ms);
/* Return the credits of the CQEs consumed so far. */
void dvp_return_credits(struct dvp *p);

#endif /* IONIC_TESTS_VERBS_DV_POSTER_H */
