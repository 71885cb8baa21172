/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Real provider objects without a device, for the unit tests of
 * tests/datapath and tests/provider:
 *
 *  - unit_dev_create(): an ionic context as GET_CONTEXT leaves it (with
 *    the firmware values of struct unit_dev_opts) and its root PD; the
 *    doorbell page is an array of the struct, so a test reads every
 *    doorbell the provider rings;
 *  - unit_cq_create(), unit_qp_create(): vCQs and QPs built by the
 *    provider's own creation halves (ionic_vcq_alloc/bind,
 *    ionic_qp_alloc/bind/attach in cq_priv.h and qp_priv.h), i.e. with
 *    the sizing, ring memory, locks, publish set-up and QP table of a
 *    real QP; only the kernel commands are left out;
 *  - struct unit_cq_dev: the device side of one hardware CQ, writing CQEs
 *    as the device does (everything, then the colour word).
 *
 * A constructor that cannot build its object ends the test (REQUIRE).
 */
#ifndef IONIC_TESTS_PROVIDER_FIXTURE_H
#define IONIC_TESTS_PROVIDER_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check.h"
#include "cq.h"
#include "qp.h"
#include "qp_priv.h"

#define UNIT_SQ_QTYPE 1
#define UNIT_RQ_QTYPE 2
#define UNIT_CQ_QTYPE 3
#define UNIT_CQID 5 /* pipeline 0's hardware CQ; pipeline 1 gets 6 */
#define UNIT_PD_HANDLE 7
#define UNIT_AH_ID 3 /* unit_ah */
#define UNIT_LONE_QPID 0x123

/* Firmware values of the context; zero fields take the defaults. */
struct unit_dev_opts {
	uint8_t version; /* firmware RDMA version (default 2) */
	uint8_t spec; /* speculative SGE limit (default 8) */
	uint8_t udma_count; /* UDMA pipelines (default 1) */
	uint8_t expdb_mask; /* express-doorbell WQE sizes (IONIC_EXPDB_*) */
	bool sq_expdb, rq_expdb; /* express doorbells offered per queue */
};

struct unit_dev {
	struct ionic_ctx ctx;
	struct ionic_pd pd; /* root PD, as ionic_alloc_pd leaves it */
	uint64_t dbpage[IONIC_QTYPE_MAX]; /* doorbell registers by qtype */
};

struct unit_dev *unit_dev_create(const struct unit_dev_opts *opts);
void unit_dev_destroy(struct unit_dev *dev);

/* A vCQ of 'cqe' entries on every pipeline of the context. */
struct ionic_vcq *unit_cq_create(struct unit_dev *dev, int cqe);
void unit_cq_destroy(struct ionic_vcq *vcq);

struct unit_qp_opts {
	bool ud; /* UD, else RC */
	uint32_t qpid;
	uint32_t depth; /* max_send_wr and max_recv_wr */
	uint32_t max_sge; /* max_send_sge and max_recv_sge */
	uint32_t max_inline;
	uint8_t udma; /* pipeline (0 unless the context has two) */
	struct ionic_vcq *recv_vcq; /* receive CQ, if not the send CQ */
};

/*
 * A QP in RTS on pipeline opts->udma of 'vcq' (send CQ, and receive CQ
 * unless opts->recv_vcq), host rings, registered in the context's QP
 * table.
 */
struct ionic_qp *unit_qp_create(struct unit_dev *dev, struct ionic_vcq *vcq,
				const struct unit_qp_opts *opts);
void unit_qp_destroy(struct ionic_qp *qp);

/* unit_qp_create() with two SGEs and no inline data: 64-byte WQEs. */
struct ionic_qp *unit_qp(struct unit_dev *dev, struct ionic_vcq *vcq, bool ud,
			 uint32_t qpid, uint32_t depth);

/*
 * A QP (number UNIT_LONE_QPID, 'depth' WRs, 'max_sge' SGEs and
 * 'max_inline' bytes per queue) with a context (firmware 'version') and a
 * CQ of its own, for tests of WQE preparation: both rings hold junk, as reused ring memory would,
 * so that a test sees every byte a preparer leaves unwritten (RQ slots
 * keep FENCE clear: owned by the host).  unit_lone_qp_destroy() frees
 * all three.
 */
struct ionic_qp *unit_lone_qp(bool ud, uint8_t version, uint32_t depth,
			      uint32_t max_sge, uint32_t max_inline);
void unit_lone_qp_destroy(struct ionic_qp *qp);

/* An address handle for UD work requests (ahid UNIT_AH_ID). */
extern struct ionic_ah unit_ah;

/*
 * Post 'n' (at most 16) SENDs with wr_id first_id, first_id + 1, ...,
 * send_flags flags[i] (all IBV_SEND_SIGNALED if flags is NULL), through
 * ionic_post_send.  Returns its result.
 */
int unit_post_sends(struct ionic_qp *qp, int n, const unsigned int *flags,
		    uint64_t first_id);

/* One receive of one 'len'-byte SGE through ionic_post_recv. */
int unit_post_recv(struct ionic_qp *qp, uint64_t wr_id, uint32_t len);

/* ionic_poll_cq on 'vcq'. */
int unit_poll(struct ionic_vcq *vcq, struct ibv_wc *wc, int n);

/* The byte unit_lone_qp() fills its SQ ring with. */
#define UNIT_SQ_JUNK 0xa5

/* Compare 'len' bytes with the expected ones; the first difference fails. */
#define unit_check_bytes(what, got, want, len) \
	unit_check_bytes_at(__FILE__, __LINE__, what, got, want, len)
void unit_check_bytes_at(const char *file, int line, const char *what,
			 const void *got, const void *want, size_t len);

/* ---- the device side of a CQ (provider_fixture_device.c) ----------- */

struct unit_cq_dev {
	struct ionic_cq *cq;
	uint16_t pos; /* slot the device writes next */
	bool color; /* with this colour */
};

/* The device side of 'cq', which has never been written. */
struct unit_cq_dev unit_cq_dev(struct ionic_cq *cq);

/* Write a CQE as the device would: everything, then the colour word. */
struct ionic_cqe *unit_cqe(struct unit_cq_dev *d, uint32_t qid,
			   enum ionic_cqe_type type, bool err,
			   uint32_t status_length);
/* SEND_MSN: every remote WQE before MSN 'msn' is done (ts 0x1234). */
void unit_cqe_msn(struct unit_cq_dev *d, uint32_t qid, uint32_t msn, bool err,
		  uint32_t sts);
/* SEND_NPG: the WQE in SQ slot 'slot' is done. */
void unit_cqe_npg(struct unit_cq_dev *d, uint32_t qid, uint16_t slot, bool err,
		  uint32_t sts);
/* RECV into RQ slot 'slot'; 'flags' are src_qpn_op bits above the op
 * (IONIC_CQE_RECV_IS_IPV4, IONIC_CQE_RECV_IS_VLAN). */
void unit_cqe_recv(struct unit_cq_dev *d, uint32_t qid, uint16_t slot,
		   uint32_t op, uint32_t src_qp, uint32_t len, uint32_t imm,
		   uint32_t flags, bool err);
/* A CQE given as its 32 bytes (colour 1: only on the ring's first lap). */
void unit_cqe_bytes(struct unit_cq_dev *d, const uint8_t *bytes);

#endif /* IONIC_TESTS_PROVIDER_FIXTURE_H */
