/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Compiled as C (gnu11, c99) and as C++ by check-header.sh: the header must
 * be self-contained (nothing else is included here), survive a second
 * inclusion, and declare each function with exactly the documented
 * prototype (a mismatch makes the pointer initialisations below an error).
 * Linked against libionic as C++, it also proves the functions have C
 * linkage.
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

int main(int argc, char **argv)
{
	struct ibv_context *ctx = 0;
	struct ibv_pd *pd = 0;

	(void)argv;
	/* Never taken: the calls only have to compile and link. */
	if (argc > 1000)
		return ctx_count(ctx) + ctx_mask(ctx) + pd_get_mask(pd) +
		       pd_set_mask(pd, 1) + pd_sqcmb(pd, true, false, false) +
		       pd_rqcmb(pd, false, false, false);
	return 0;
}
