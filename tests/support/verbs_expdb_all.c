// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Express doorbells for every send queue of a verbs suite that was
 * written for host rings: linked into such a suite (with
 * -Wl,--wrap=ibv_alloc_pd,--wrap=ibv_create_qp), and active only when
 * IONIC_TEST_EXPDB_MASK is set, it gives every PD the suite allocates that
 * express-doorbell size mask (ionic_dv_pd_set_expdb_mask; the provider's
 * default is 64-byte WQEs only), so every SQ the kernel can place in CMB
 * rings by its WQE trailers.
 *
 * A rerun that silently fell back to plain doorbells would prove nothing:
 * each QP created is checked for a new express-doorbell window (ionic-sim
 * maps those read-only over its CMB memfd, "ionic-sim-cmb" with "r--s"
 * in /proc/self/maps), and at exit a suite that created QPs of which none
 * got one fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/ionic_dv.h>
#include <infiniband/verbs.h>

struct ibv_pd *__real_ibv_alloc_pd(struct ibv_context *ctx);
struct ibv_qp *__real_ibv_create_qp(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr);
struct ibv_pd *__wrap_ibv_alloc_pd(struct ibv_context *ctx);
struct ibv_qp *__wrap_ibv_create_qp(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr);

static int mask = -1; /* -1: not read yet, 0: inactive */
static unsigned int nqps, nexpress;

static bool active(void)
{
	const char *v;

	if (mask < 0) {
		v = getenv("IONIC_TEST_EXPDB_MASK");
		mask = v && *v ? (int)strtol(v, NULL, 0) & 0xf : 0;
	}
	return mask > 0;
}

static int express_windows(void)
{
	char line[512], perms[8];
	int n = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "ionic-sim-cmb") &&
		    sscanf(line, "%*x-%*x %7s", perms) == 1 &&
		    !strcmp(perms, "r--s"))
			n++;
	fclose(f);
	return n;
}

static void report(void)
{
	fprintf(stderr, "expdb_all: %u of %u QPs with an express-doorbell SQ\n",
		nexpress, nqps);
	if (nqps && !nexpress) {
		fprintf(stderr, "expdb_all: FAIL: no express doorbell used\n");
		_exit(1);
	}
}

struct ibv_pd *__wrap_ibv_alloc_pd(struct ibv_context *ctx)
{
	struct ibv_pd *pd = __real_ibv_alloc_pd(ctx);

	if (pd && active() && ionic_dv_is_ionic_pd(pd))
		ionic_dv_pd_set_expdb_mask(pd, (uint8_t)mask);
	return pd;
}

struct ibv_qp *__wrap_ibv_create_qp(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr)
{
	int before = active() ? express_windows() : 0;
	struct ibv_qp *qp = __real_ibv_create_qp(pd, attr);

	if (qp && mask > 0) {
		if (!nqps++)
			atexit(report);
		if (express_windows() > before)
			nexpress++;
	}
	return qp;
}
