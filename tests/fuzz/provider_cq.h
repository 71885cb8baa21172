/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The fuzz target provider-cq (provider_cq.c, which describes it) in three
 * files: the program and its operations (provider_cq.c), the oracle that
 * checks every poll (provider_cq_oracle.c) and the device model, correct
 * or hostile, that writes CQEs (provider_cq_device.c).  This is the model
 * of the posted work and of the device side of each CQ that they share.
 */
#ifndef IONIC_FUZZ_PROVIDER_CQ_H
#define IONIC_FUZZ_PROVIDER_CQ_H

#include "fuzz.h"
#include "provider_fixture.h"

#define FZ_MAX_QP 4
#define FZ_MAX_VCQ 2
#define FZ_FIFO 512 /* > any ring the configuration can make */
#define FZ_MAX_OPS 400 /* per input: keeps every run short */
/* One work request as posted. */
struct fz_wr {
	uint64_t wr_id;
	uint16_t slot; /* ring slot it was prepared in */
	uint16_t seq; /* MSN, for remote (MSN-tracked) sends */
	uint8_t wc_op; /* enum ibv_wc_opcode its WC must carry */
	bool signaled;
	bool remote;
	bool done; /* receive queue: reported */
};

/* The oracle's view of one SQ or RQ: requests in posting order. */
struct fz_queue {
	struct fz_wr wr[FZ_FIFO];
	unsigned int head, tail; /* absolute: head = oldest outstanding */
	unsigned int dev_next; /* first one the device model has not done */
	bool failed; /* an error or flush WC was seen: only flushes now */
	uint16_t cons; /* provider's consumer index at the last check */
};

struct fz_qp {
	struct ionic_qp *qp; /* NULL once destroyed */
	uint32_t qpid;
	bool ud;
	uint8_t udma;
	uint8_t send_vcq, recv_vcq;
	uint32_t depth, max_sge;
	struct fz_queue sq, rq;
};

/* The device side of one hardware CQ. */
struct fz_hwcq {
	struct unit_cq_dev d;
	unsigned int unread; /* CQEs written, not yet read by the host */
	bool overrun; /* the device once wrote over an unread CQE */
	uint16_t prod; /* host read position at the last check */
	bool color;
};

struct fz {
	struct unit_dev *dev;
	struct ionic_vcq *vcq[FZ_MAX_VCQ];
	unsigned int nvcq;
	bool ex_poll; /* poll through start/next/end_poll */
	struct fz_hwcq hw[FZ_MAX_VCQ][IONIC_MAX_UDMA];
	struct fz_qp qp[FZ_MAX_QP];
	unsigned int nqp;
	uint64_t next_wr_id;
};

/* IONIC_FUZZ_TRACE=1: print every operation (to understand a finding). */
extern bool fz_trace_on;

#define fz_trace(...)                                 \
	do {                                          \
		if (fz_trace_on)                      \
			fprintf(stderr, __VA_ARGS__); \
	} while (0)

static inline struct fz_wr *fz_at(struct fz_queue *q, unsigned int abs)
{
	return &q->wr[abs % FZ_FIFO];
}

static inline unsigned int fz_len(const struct fz_queue *q)
{
	return q->tail - q->head;
}

static inline struct fz_hwcq *fz_hw_of(struct fz *fz, unsigned int vcq,
				       unsigned int udma)
{
	return &fz->hw[vcq][udma];
}
/* ---- the oracle (provider_cq_oracle.c) ------------------------------ */

/* Invariants of every hardware CQ of vCQ 'v'; 'drained': poll < asked. */
void fz_check_cqs(struct fz *fz, unsigned int v, bool drained);
/* Check the WCs of one poll of vCQ 'v', then its CQs. */
void fz_check_poll(struct fz *fz, unsigned int v, const struct ibv_wc *wc,
		   unsigned int nwc, bool drained);

/* ---- the device (provider_cq_device.c) ------------------------------ */

/*
 * A correct device completes the next 1..8 requests of one of f's queues
 * (input decides which, how many, and whether the last one fails).
 */
void fz_dev_complete(struct fz *fz, struct fz_qp *f, struct fuzz_in *in);
/* A hostile device writes one CQE of arbitrary bytes (input decides). */
void fz_dev_raw(struct fz *fz, struct fuzz_in *in);

#endif /* IONIC_FUZZ_PROVIDER_CQ_H */
