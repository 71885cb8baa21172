// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * verbs-misuse: run the misuse table (misuse_table.c) row by row under a
 * watchdog, then the scenarios of misuse_overrun.c.  See misuse.h.
 */
#include <signal.h>
#include <unistd.h>

#include "misuse.h"

static const struct mu_row *current;

/* A row that never returns: name it and fail; exiting ends the launcher's
 * run, which removes what the emulator held. */
static void on_alarm(int sig)
{
	static const char msg[] = "verbs-misuse: a row hangs: ";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0 || !current ||
	    write(2, current->verb, strlen(current->verb)) < 0 ||
	    write(2, " / ", 3) < 0 ||
	    write(2, current->what, strlen(current->what)) < 0 ||
	    write(2, "\n", 1) < 0)
		_exit(CHECK_EXIT_FAIL);
	_exit(CHECK_EXIT_FAIL);
}

static void env_open(struct mu_env *e)
{
	memset(e, 0, sizeof(*e));
	e->ctx = fx_open();
	REQUIRE_EQ(ibv_query_device(e->ctx, &e->dev), 0);
	REQUIRE_EQ(ibv_query_gid(e->ctx, 1, 1, &e->gid), 0);
	e->pd = ibv_alloc_pd(e->ctx);
	REQUIRE(e->pd);
	e->cq = ibv_create_cq(e->ctx, 256, NULL, NULL, 0);
	REQUIRE(e->cq);
	e->len = 1 << 16;
	e->buf = aligned_alloc(4096, e->len);
	REQUIRE(e->buf);
	memset(e->buf, 0, e->len);
	e->mr = ibv_reg_mr(e->pd, e->buf, e->len,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC);
	REQUIRE(e->mr);
}

static void env_close(struct mu_env *e)
{
	CHECK_RC(ibv_dereg_mr(e->mr), 0);
	CHECK_RC(ibv_destroy_cq(e->cq), 0);
	CHECK_RC(ibv_dealloc_pd(e->pd), 0);
	CHECK_RC(ibv_close_device(e->ctx), 0);
	free(e->buf);
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct mu_env e;
	unsigned int i;

	REQUIRE(sigaction(SIGALRM, &sa, NULL) == 0);
	env_open(&e);

	SECTION("the misuse table");
	for (i = 0; i < mu_table_len; i++) {
		const struct mu_row *r = &mu_table[i];
		int got;

		current = r;
		alarm(MU_ROW_SECONDS);
		errno = 0;
		got = r->call(&e, r);
		alarm(0);
		if (got != r->expect)
			check_fail(__FILE__, __LINE__,
				   "%s: %s: got %d (%s), expected %d (%s)",
				   r->verb, r->what, got, strerror(got),
				   r->expect, strerror(r->expect));
	}
	printf("%u rows\n", mu_table_len);
	current = NULL;

	alarm(120);
	SECTION("CQ overrun: nothing disappears, nothing waits forever");
	mu_cq_overrun(&e);
	SECTION("query_qp returns the read-queue depths that were set");
	mu_rd_atomic_round_trip(&e);
	SECTION("zero SGEs: at least one granted, traffic works");
	mu_zero_sge(&e);
	alarm(0);

	env_close(&e);
	return check_finish();
}
