/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/* The differential scenarios (diff_scenario.c): what their files share. */
#ifndef IONIC_DIFF_SCENARIO_H
#define IONIC_DIFF_SCENARIO_H

#include <stdint.h>
#include <infiniband/verbs.h>

#include "verbs_fixture.h"

#define TMO 5000

/* Start scenario 'name': a MARK line in the trace, "== name" on stdout. */
void mark(const char *name);
/* Poll n completions of cq and print them; no more may come. */
void reap(int side, struct ibv_cq *cq, int n);
/* One receive of len bytes at buf[i] + 4096 on side i. */
int recv1(struct fx_pair *p, int i, uint64_t id, uint32_t len);
/* Re-register both regions with remote atomic access as well. */
void atomic_access(struct fx_pair *p);
/* diff_more.c: the ibv_wr_* API, memory windows, local invalidate, CQ
 * arming, RNR; and (alone: "cmb" argument) an SQ in controller memory
 * behind express doorbells. */
void diff_more(struct ibv_context *ctx);
void diff_cmb(struct ibv_context *ctx);

#endif
