// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * What one trapped doorbell costs on this machine (bench/report.py, issue
 * 22 item 1), in wall-clock nanoseconds per operation:
 *
 *   ionic-bench-trap syscall [-n N]  a plain system call (getppid), for
 *       scale
 *   ionic-bench-trap bare [-n N]     a 4-byte store to a read-only page
 *       whose SIGSEGV handler does nothing but step over the instruction:
 *       fault, signal delivery, handler, sigreturn; the floor of any
 *       trapped doorbell
 *   ionic-bench-trap sim [-n N]      under ionic-sim: ibv_req_notify_cq on
 *       a CQ with a completion channel, which is one store to the
 *       context's doorbell page, trapped by the emulator (sim/shim/
 *       dbtrap.c: decode the store, queue it, kick the device engine's
 *       eventfd); the provider's own part is about 60 instructions
 *       (bench/README.md), so this is the emulator's doorbell
 *
 * Each mode runs ROUNDS rounds of N operations and prints one JSON object:
 * the median and the smallest of the per-round averages (the smallest is
 * the least disturbed by other load on a shared machine).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#define ROUNDS 9

static void die(const char *what, int err)
{
	fprintf(stderr, "ionic-bench-trap: %s: %s\n", what, strerror(err));
	exit(1);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* ---- the bare trap ------------------------------------------------------ */

/*
 * The store is one instruction of known length at a known address, so the
 * handler needs no decoder: "movl %esi, (%rdi)" is 89 37, two bytes.  It
 * lives in a function of its own written in assembly, not in an inline
 * asm statement: a compiler may copy the statement (GCC 14 duplicates the
 * loop that calls it), and the label with it, which the assembler refuses.
 */
void bare_store(volatile uint32_t *p, uint32_t v);
extern const char bare_store_insn[];
#define BARE_STORE_LEN 2

__asm__(".text\n"
	".globl bare_store\n"
	".type bare_store, @function\n"
	"bare_store:\n"
	".globl bare_store_insn\n"
	"bare_store_insn: movl %esi, (%rdi)\n"
	"ret\n"
	".size bare_store, . - bare_store\n");

static void bare_handler(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	(void)sig;
	(void)si;
	if ((const char *)uc->uc_mcontext.gregs[REG_RIP] != bare_store_insn)
		abort(); /* a fault of anything else is a bug here */
	uc->uc_mcontext.gregs[REG_RIP] += BARE_STORE_LEN;
}

static void *bare_setup(void)
{
	struct sigaction sa = { .sa_sigaction = bare_handler,
				.sa_flags = SA_SIGINFO };
	void *page =
		mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (page == MAP_FAILED)
		die("mmap", errno);
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, NULL))
		die("sigaction", errno);
	return page;
}

/* ---- the emulator's doorbell -------------------------------------------- */

struct sim_arm {
	struct ibv_context *ctx;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
};

static void sim_setup(struct sim_arm *s)
{
	struct ibv_device **list = ibv_get_device_list(NULL);

	if (!list || !list[0])
		die("no RDMA device (run under ionic-sim)", ENODEV);
	s->ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	if (!s->ctx)
		die("open device", errno);
	s->ch = ibv_create_comp_channel(s->ctx);
	if (!s->ch)
		die("completion channel", errno);
	s->cq = ibv_create_cq(s->ctx, 16, NULL, s->ch, 0);
	if (!s->cq)
		die("create cq", errno);
}

static void sim_teardown(struct sim_arm *s)
{
	if (ibv_destroy_cq(s->cq) || ibv_destroy_comp_channel(s->ch) ||
	    ibv_close_device(s->ctx))
		die("teardown", errno);
}

/* ---- rounds ------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	double per[ROUNDS];
	struct sim_arm sim = { 0 };
	volatile uint32_t *page = NULL;
	const char *mode;
	long n = 20000;

	if (argc < 2 || (argc == 4 && strcmp(argv[2], "-n")) ||
	    (argc != 2 && argc != 4)) {
		fprintf(stderr,
			"usage: ionic-bench-trap syscall|bare|sim [-n N]\n");
		return 2;
	}
	mode = argv[1];
	if (argc == 4)
		n = atol(argv[3]);
	if (n < 1)
		n = 1;
	if (!strcmp(mode, "bare"))
		page = bare_setup();
	else if (!strcmp(mode, "sim"))
		sim_setup(&sim);
	else if (strcmp(mode, "syscall"))
		die(mode, EINVAL);

	for (int r = 0; r < ROUNDS; r++) {
		double t0 = now_ns();

		for (long i = 0; i < n; i++) {
			if (page)
				bare_store(page, (uint32_t)i);
			else if (sim.cq) {
				int rc = ibv_req_notify_cq(sim.cq, 0);

				if (rc)
					die("req_notify_cq", rc);
			} else
				syscall(SYS_getppid);
		}
		per[r] = (now_ns() - t0) / n;
	}
	if (sim.cq)
		sim_teardown(&sim);
	qsort(per, ROUNDS, sizeof(per[0]), cmp_double);
	printf("{\"mode\": \"%s\", \"ops\": %ld, \"rounds\": %d, "
	       "\"median_ns\": %.1f, \"min_ns\": %.1f}\n",
	       mode, n, ROUNDS, per[ROUNDS / 2], per[0]);
	return 0;
}
