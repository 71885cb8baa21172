/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * A QP set up the way the GPU communication stacks set theirs up
 * (docs/gpu-direct-verbs.md §4, set-up), connected to an ordinary
 * verbs QP in the same process, for the DV tests under ionic-sim:
 *
 *  - a parent domain of the caller's PD with its own ring allocator
 *    (zeroed, page-aligned memory, every allocation recorded by tag),
 *    controller memory off unless asked for, UDMA mask 1 << udma;
 *  - its CQ from ionic_dv_create_cq_ex() through that parent domain,
 *    serving as send and receive CQ;
 *  - the QP from ibv_create_qp_ex() on the parent domain: RC, one SGE,
 *    32 bytes inline, the caller's sq_sig_all;
 *  - the peer: an RC QP on the root PD with a CQ of its own, and a
 *    registered buffer on each side.
 */
#ifndef IONIC_TESTS_VERBS_DV_LINK_H
#define IONIC_TESTS_VERBS_DV_LINK_H

#include <infiniband/ionic_dv.h>

#include "verbs_fixture.h"

enum { DVL_CQ, DVL_SQ, DVL_RQ, DVL_TAGS };

/* What the parent domain's allocator handed out, by ring kind. */
struct dvl_alloc {
	void *ptr[DVL_TAGS];
	size_t size[DVL_TAGS];
	size_t align[DVL_TAGS];
	int allocs[DVL_TAGS], frees[DVL_TAGS];
	int bad_tags; /* calls with a resource type that is no ring tag */
};

struct dvl_opts {
	int udma; /* pipeline of the QP and its CQ */
	bool cmb; /* leave the PD's controller-memory preference on */
	int sq_sig_all;
	uint32_t depth; /* max_send_wr and max_recv_wr of the QP */
	size_t buf_len; /* bytes of each side's buffer */
};

struct dvl_link {
	struct dvl_opts o;
	struct ibv_context *ctx;
	struct ibv_pd *pd; /* the caller's root PD */
	struct ibv_pd *par; /* the QP's parent domain */
	struct dvl_alloc alloc;
	struct ibv_cq_ex *cq;
	struct ibv_qp *qp;
	struct ibv_cq *peer_cq;
	struct ibv_qp *peer;
	uint8_t *buf, *peer_buf;
	struct ibv_mr *mr, *peer_mr;
	union ibv_gid gid;
};

/* Build everything (REQUIRE); the QPs stay in RESET. */
void dvl_create(struct dvl_link *l, struct ibv_context *ctx, struct ibv_pd *pd,
		const struct dvl_opts *o);
/* Both QPs to RTS, connected to each other. */
void dvl_connect(struct dvl_link *l);
/* Destroy everything dvl_create() made; the allocator must be balanced. */
void dvl_destroy(struct dvl_link *l);

/* Post one receive of 'len' bytes at peer_buf + off on the peer. */
int dvl_peer_recv(struct dvl_link *l, uint64_t wr_id, size_t off, size_t len);

/* The value of trace lines containing 'needle' in the run's trace file
 * ($IONIC_SIM_TRACE): how many there are; -1 if there is no trace. */
int dvl_trace_count(const char *needle);

#endif
