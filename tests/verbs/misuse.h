/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * verbs-misuse: what a new user gets wrong, and what every verb must answer.
 *
 * misuse_table.c holds ONE table: a row per verb and bad argument or
 * wrong-state call, with the errno the project documents for it
 * (docs/device-contract.md §16, docs/kernel-contract.md, docs/testing.md §1.6,
 * docs/upstream-defects.md).  Each row's call builds what it needs from the
 * shared environment below, makes the one bad call, undoes everything and
 * returns the errno it saw (0 for success).  misuse_main.c runs every row
 * under a watchdog: a row that does not return in MU_ROW_SECONDS fails the
 * test ("nothing hangs"); a crash fails it too.
 *
 * misuse_overrun.c: the scenarios that need more than one errno: a CQ
 * overrun, the read-queue depths query_qp reports, zero SGEs granting one.
 */
#ifndef IONIC_TESTS_VERBS_MISUSE_H
#define IONIC_TESTS_VERBS_MISUSE_H

#include "verbs_fixture.h"

#define MU_ROW_SECONDS 20
#define MU_TMO 10000

struct mu_env {
	struct ibv_context *ctx;
	struct ibv_device_attr dev;
	struct ibv_pd *pd;
	struct ibv_cq *cq; /* the CQ of every QP a row creates */
	union ibv_gid gid; /* ours, index 1 */
	uint8_t *buf;
	size_t len;
	struct ibv_mr *mr; /* buf, local and remote access */
};

struct mu_row;
typedef int (*mu_call)(struct mu_env *e, const struct mu_row *r);

struct mu_row {
	const char *verb;
	const char *what;
	mu_call call;
	long a, b; /* the row's argument(s) for its call */
	int expect; /* errno; 0: accepted */
};

extern const struct mu_row mu_table[];
extern const unsigned int mu_table_len;

/* misuse_qp_calls.c: a QP of 'type' on e->cq, brought to 'state' (RC: to
 * RTR/RTS toward itself), or NULL after a failed check. */
struct ibv_qp *mu_qp(struct mu_env *e, enum ibv_qp_type type,
		     enum ibv_qp_state state);
/* An ibv_qp_init_attr for 'type' on e->cq with small capacities. */
struct ibv_qp_init_attr mu_qp_attr(struct mu_env *e, enum ibv_qp_type type);

/* RC attributes toward 'dqpn' on our own GID (RTR) and of RTS, with the
 * masks of those transitions. */
struct ibv_qp_attr mu_rtr_attr(const struct mu_env *e, uint32_t dqpn,
			       uint8_t max_dest_rd_atomic);
struct ibv_qp_attr mu_rts_attr(uint8_t max_rd_atomic);
#define MU_RTR_MASK                                                     \
	(IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | \
	 IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)
#define MU_RTS_MASK                                                            \
	(IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | \
	 IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)

/* The scenarios of misuse_overrun.c. */
void mu_cq_overrun(struct mu_env *e);
void mu_rd_atomic_round_trip(struct mu_env *e);
void mu_zero_sge(struct mu_env *e);

#endif
