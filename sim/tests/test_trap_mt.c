// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Doorbell trap under concurrency: T producer threads each store N
 * distinct values into their own slot of one trapped page while a consumer
 * thread drains the record FIFO, sleeping on the eventfd like the device
 * engine.  Every store must arrive exactly once, with the right value,
 * offset, size and tid, in each thread's program order.
 *
 * With a consumer start delay the ring (4096 records) fills up and the
 * producers must wait in their signal handlers without losing anything.
 * Finally, a consumer that itself stores into a full ring must fail
 * loudly (abort) rather than wait for itself forever.
 *
 * usage: sim-trap-mt [stores-per-thread [threads [consumer-delay-ms]]]
 */
#include <poll.h>
#include <signal.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "shim/shim.h"

#define MAX_T 16

static unsigned int nthreads = 4;
static unsigned int delay_ms;
static unsigned long nstores = 100000;
static uint8_t *page;
#define TAG 0x5eedull /* the page tag */
static pid_t tids[MAX_T];
static volatile int done_producing;

static void *producer(void *arg)
{
	unsigned long t = (unsigned long)arg;
	volatile uint64_t *slot = (volatile uint64_t *)(page + 64 * t);

	tids[t] = gettid();
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (unsigned long k = 0; k < nstores; k++)
		*slot = (t << 56) | (k * 2654435761u % (1ul << 40)) << 8 |
			(k & 0xff);
	return NULL;
}

static unsigned long expect_next[MAX_T], bad;

static void check(const struct isim_mmio_store *r)
{
	unsigned long t = r->offset / 64, k;
	uint64_t want;

	if (r->offset % 64 || t >= nthreads || r->size != 8 || r->page != TAG) {
		if (bad++ < 5)
			printf("bad record off %u size %u\n", r->offset,
			       r->size);
		return;
	}
	k = expect_next[t]++;
	want = (t << 56) | (k * 2654435761u % (1ul << 40)) << 8 | (k & 0xff);
	if (r->value != want || r->value_hi || (tids[t] && r->tid != tids[t])) {
		if (bad++ < 5)
			printf("thread %lu store %lu: value %#llx want %#llx tid %d/%d\n",
			       t, k, (unsigned long long)r->value,
			       (unsigned long long)want, r->tid, tids[t]);
	}
}

static void *consumer(void *arg)
{
	int efd = ishim_dbtrap_eventfd();
	unsigned long total = 0, want = nthreads * nstores;
	struct isim_mmio_store r;

	(void)arg;
	if (delay_ms) {
		struct timespec ts = { delay_ms / 1000,
				       (delay_ms % 1000) * 1000000L };

		nanosleep(&ts, NULL);
	}
	for (;;) {
		struct pollfd p = { .fd = efd, .events = POLLIN };
		/* sampled first: once set, everything was pushed already */
		int fin = __atomic_load_n(&done_producing, __ATOMIC_ACQUIRE);
		uint64_t cnt;

		/* engine protocol: clear the eventfd, then drain */
		if (read(efd, &cnt, sizeof(cnt)) < 0)
			cnt = 0;
		while (ishim_dbtrap_pop(&r)) {
			check(&r);
			total++;
		}
		if (total >= want || fin)
			break;
		poll(&p, 1, 1000);
	}
	return (void *)total;
}

/*
 * The revoked page unmapped behind the shim's back (a raw munmap, as when
 * a sanitizer's munmap interceptor is bound ahead of the shim's hook) and
 * a new doorbell page mapped at the same address: stores into the new
 * page are the new page's records, not dropped as the old one's.
 */
static unsigned long remap_after_hidden_unmap(void)
{
	struct isim_mmio_store r;
	unsigned long errs = 0;
	uint8_t *again;
	int err = 0;

	syscall(SYS_munmap, page, 4096);
	again = ishim_dbpage_map(TAG + 1, page, 4096, &err);
	if (again != page) {
		printf("doorbell page mapped again at %p, not %p (%d)\n", again,
		       page, err);
		return 1;
	}
	*(volatile uint64_t *)(again + 8) = 0x1234;
	if (!ishim_dbtrap_pop(&r) || r.page != TAG + 1 || r.offset != 8 ||
	    r.value != 0x1234) {
		printf("no record from the page mapped where a revoked one was\n");
		errs++;
	} else {
		printf("page mapped where a revoked one was: stores recorded\n");
	}
	ishim_dbtrap_munmap(again, 4096); /* what the munmap hook does */
	munmap(again, 4096);
	return errs;
}

/* The consumer thread storing into a full ring: abort, not deadlock. */
static unsigned long self_full(void)
{
	int st, err;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct isim_mmio_store r;
		uint8_t *pg = ishim_dbpage_map(TAG, NULL, 4096, &err);

		while (ishim_dbtrap_pop(&r)) /* become the consumer */
			;
		for (int i = 0; i < 5000; i++)
			*(volatile uint64_t *)pg = i;
		_exit(0);
	}
	waitpid(pid, &st, 0);
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT) {
		printf("consumer storing into a full ring: aborted (expected)\n");
		return 0;
	}
	printf("consumer storing into a full ring: status %#x, want SIGABRT\n",
	       st);
	return 1;
}

int main(int argc, char **argv)
{
	pthread_t prod[MAX_T], cons;
	unsigned long total = 0;
	struct isim_mmio_store r;
	int err = 0;
	void *ret;

	if (argc > 1)
		nstores = strtoul(argv[1], NULL, 0);
	if (argc > 2)
		nthreads = atoi(argv[2]);
	if (argc > 3)
		delay_ms = atoi(argv[3]);
	if (nthreads < 1 || nthreads > MAX_T)
		return 2;
	page = ishim_dbpage_map(TAG, NULL, 4096, &err);
	if (!page) {
		printf("ishim_dbpage_map: %d\n", err);
		return 1;
	}
	pthread_create(&cons, NULL, consumer, NULL);
	for (unsigned long t = 0; t < nthreads; t++)
		pthread_create(&prod[t], NULL, producer, (void *)t);
	for (unsigned int t = 0; t < nthreads; t++)
		pthread_join(prod[t], NULL);
	__atomic_store_n(&done_producing, 1, __ATOMIC_RELEASE);
	pthread_join(cons, &ret);
	total = (unsigned long)ret;

	for (unsigned int t = 0; t < nthreads; t++)
		if (expect_next[t] != nstores) {
			printf("thread %u: %lu of %lu stores captured\n", t,
			       expect_next[t], nstores);
			bad++;
		}
	if (ishim_dbtrap_pop(&r)) {
		printf("extra records after the end\n");
		bad++;
	}
	printf("%u threads x %lu stores: %lu captured, %lu bad\n", nthreads,
	       nstores, total, bad);
	ishim_dbpage_revoke(TAG);
	/* revoked while mapped: a store is silently dropped, no record */
	*(volatile uint64_t *)page = 1;
	if (ishim_dbtrap_pop(&r)) {
		printf("record from a revoked page\n");
		bad++;
	}
	bad += remap_after_hidden_unmap();
	bad += self_full();
	return bad ? 1 : 0;
}
