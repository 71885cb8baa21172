/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * verbs-soak: mixed traffic for a long time, with exact accounting.
 *
 * soak_main.c runs, on one context, W traffic workers (soak_traffic.c: each
 * with its own RC pairs and a UD pair) and one churn thread
 * (soak_churn.c: create/destroy cycles of every object kind) in epochs.
 * At the end of an epoch every thread waits at a barrier while the main
 * thread samples /proc/self/{fd,maps,status}: from the second epoch on, the
 * fd and mapping counts must not move and the memory stays flat.
 *
 * Traffic (docs/testing.md §3): batches of up to SOAK_BATCH mixed work
 * requests - SEND, SEND_WITH_IMM, RDMA WRITE, WRITE_WITH_IMM, READ, both
 * atomics - with random lengths (0 included), inline data and unsignalled
 * WRs; memory-window cycles (BIND_MW, a WRITE through the window,
 * SEND_WITH_INV or LOCAL_INV); UD sends; and now and then a reset: a batch
 * posted and at once both QPs to ERR, every WR accounted for (success or
 * flushed), then RESET and a new connection.  Every completion is checked
 * (status, opcode, length, immediate data, the data itself, atomic
 * results); every work request completes exactly once.
 */
#ifndef IONIC_TESTS_VERBS_SOAK_H
#define IONIC_TESTS_VERBS_SOAK_H

#include <pthread.h>

#include "verbs_fixture.h"

#define SOAK_BATCH 16
#define SOAK_SLOT 512 /* bytes per WR in a batch */
#define SOAK_TMO 20000
#define SOAK_NOPS (IBV_WR_SEND_WITH_INV + 1) /* ibv_wr_opcode values counted */

/* What a thread did; the totals are printed at the end. */
struct soak_stats {
	uint64_t ops[SOAK_NOPS]; /* by ibv_wr_opcode, completed */
	uint64_t ud_sends;
	uint64_t wcs; /* work completions polled */
	uint64_t flushed; /* ... of them IBV_WC_WR_FLUSH_ERR (resets) */
	uint64_t resets; /* QP pairs reset and reconnected */
	uint64_t churn; /* create/destroy cycles */
};

struct soak_run {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	uint64_t end_ms; /* of the current epoch */
	bool last; /* the current epoch is the last one */
	pthread_barrier_t barrier;
};

/* A traffic worker (soak_traffic.c). */
struct soak_worker;
struct soak_worker *soak_worker_create(struct soak_run *run, unsigned int id,
				       unsigned int rc_pairs);
/* Traffic until run->end_ms; false after a failed check. */
bool soak_worker_epoch(struct soak_worker *w);
void soak_worker_destroy(struct soak_worker *w, struct soak_stats *total);

/* The churn thread's epoch (soak_churn.c): create/destroy cycles until
 * run->end_ms, counted in *st. */
void soak_churn_epoch(struct soak_run *run, struct soak_stats *st);

/* A small deterministic generator per thread. */
static inline uint32_t soak_rand(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*s >> 33);
}

#endif
