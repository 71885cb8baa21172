// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * verbs-soak [--seconds N] [--workers W] [--pairs P] [--epoch S]
 *
 * Runs the traffic workers and the churn thread of soak.h for N seconds
 * (default 60) in epochs of S seconds (default: a tenth of the run, at
 * least 5).  Between epochs every thread waits at a barrier and the main
 * thread samples /proc/self: from the second epoch on, the number of open
 * fds must equal the second epoch's, the mappings may not grow by more
 * than MAPS_SLACK lines and the resident set by more than RSS_SLACK_KB
 * (those two not under the sanitizers, whose own memory grows on
 * purpose): a leak per cycle or per work request shows as thousands.  A
 * run that stops making progress is killed by alarm() and fails.
 * ./build.sh soak [MINUTES] runs it for long (default 10 minutes).
 */
#include <stdio.h>
#include <unistd.h>

#include "soak.h"

#define RSS_SLACK_KB (16 * 1024)
/* the allocator's own: a malloc arena made for a thread the first time it
 * contends is two lines (the heap and its reserve), and so is an
 * AddressSanitizer size class touched for the first time */
#define MAPS_SLACK 24
#define MAX_WORKERS 8

/* The sanitizers' own memory (AddressSanitizer's quarantine of freed
 * blocks, ThreadSanitizer's shadow) grows with the run on purpose. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SOAK_CHECK_MEMORY 0
#else
#define SOAK_CHECK_MEMORY 1
#endif

struct soak_res {
	long fds, maps, rss_kb;
};

struct soak_thread {
	pthread_t tid;
	struct soak_run *run;
	struct soak_worker *w; /* NULL: the churn thread */
	struct soak_stats churn;
	bool failed;
};

static bool stop_all;

static void sample(struct soak_res *r)
{
	r->fds = fx_open_fds();
	r->maps = fx_file_lines("/proc/self/maps");
	r->rss_kb = fx_status_kb("VmRSS");
}

static void *thread_main(void *arg)
{
	struct soak_thread *t = arg;

	for (;;) {
		if (!t->failed && !check_failures()) {
			if (t->w)
				t->failed = !soak_worker_epoch(t->w);
			else
				soak_churn_epoch(t->run, &t->churn);
		}
		pthread_barrier_wait(&t->run->barrier); /* epoch over */
		pthread_barrier_wait(&t->run->barrier); /* next one set */
		if (__atomic_load_n(&stop_all, __ATOMIC_ACQUIRE))
			return NULL;
	}
}

static uint64_t ops_total(const struct soak_stats *s)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < SOAK_NOPS; i++)
		n += s->ops[i];
	return n;
}

static void report(const struct soak_stats *s, unsigned int seconds,
		   unsigned int workers, unsigned int pairs,
		   const struct soak_res *first, const struct soak_res *last)
{
	static const char *const name[] = {
		[IBV_WR_RDMA_WRITE] = "WRITE",
		[IBV_WR_RDMA_WRITE_WITH_IMM] = "WRITE_IMM",
		[IBV_WR_SEND] = "SEND",
		[IBV_WR_SEND_WITH_IMM] = "SEND_IMM",
		[IBV_WR_RDMA_READ] = "READ",
		[IBV_WR_ATOMIC_CMP_AND_SWP] = "CAS",
		[IBV_WR_ATOMIC_FETCH_AND_ADD] = "FAA",
		[IBV_WR_LOCAL_INV] = "LOCAL_INV",
		[IBV_WR_BIND_MW] = "BIND_MW",
		[IBV_WR_SEND_WITH_INV] = "SEND_INV",
	};

	printf("soak: %u s, %u workers x %u RC pairs + 1 UD pair, 1 churn "
	       "thread\n",
	       seconds, workers, pairs);
	printf("soak: %llu RC work requests completed:",
	       (unsigned long long)ops_total(s));
	for (unsigned int i = 0; i < SOAK_NOPS; i++)
		if (name[i])
			printf(" %s %llu", name[i],
			       (unsigned long long)s->ops[i]);
	printf("\nsoak: %llu UD sends; %llu work completions, %llu of them "
	       "flushed by %llu resets; %llu create/destroy cycles\n",
	       (unsigned long long)s->ud_sends, (unsigned long long)s->wcs,
	       (unsigned long long)s->flushed, (unsigned long long)s->resets,
	       (unsigned long long)s->churn);
	printf("soak: fds %ld -> %ld, mappings %ld -> %ld, RSS %ld -> %ld kB\n",
	       first->fds, last->fds, first->maps, last->maps, first->rss_kb,
	       last->rss_kb);
}

int main(int argc, char **argv)
{
	unsigned int seconds = 60, workers = 3, pairs = 2, epoch_s = 0;
	struct soak_thread th[MAX_WORKERS + 1];
	struct soak_res base = { 0 }, now;
	struct soak_stats total = { 0 };
	struct soak_run run = { 0 };
	unsigned int nth, e, nepochs;
	uint64_t start;

	for (int i = 1; i + 1 < argc; i += 2) {
		unsigned int v = (unsigned int)strtoul(argv[i + 1], NULL, 0);

		if (!strcmp(argv[i], "--seconds"))
			seconds = v;
		else if (!strcmp(argv[i], "--workers"))
			workers = v;
		else if (!strcmp(argv[i], "--pairs"))
			pairs = v;
		else if (!strcmp(argv[i], "--epoch"))
			epoch_s = v;
	}
	if (!workers || workers > MAX_WORKERS)
		workers = 3;
	if (!epoch_s)
		epoch_s = seconds / 10 > 5 ? seconds / 10 : 5;
	nepochs = (seconds + epoch_s - 1) / epoch_s;
	if (nepochs < 3)
		nepochs = 3; /* warm-up, baseline, one to compare */

	run.ctx = fx_open();
	run.pd = ibv_alloc_pd(run.ctx);
	REQUIRE(run.pd);
	nth = workers + 1;
	REQUIRE(!pthread_barrier_init(&run.barrier, NULL, nth + 1));
	start = fx_now_ms();
	run.end_ms = start + epoch_s * 1000ull;
	for (unsigned int i = 0; i < nth; i++) {
		memset(&th[i], 0, sizeof(th[i]));
		th[i].run = &run;
		th[i].w = i < workers ? soak_worker_create(&run, i, pairs) :
					NULL;
	}
	for (unsigned int i = 0; i < nth; i++)
		REQUIRE(!pthread_create(&th[i].tid, NULL, thread_main, &th[i]));

	for (e = 0; e < nepochs; e++) {
		/* a stuck thread never reaches the barrier: fail, not hang */
		alarm(epoch_s * 4 + 120);
		pthread_barrier_wait(&run.barrier);
		sample(&now);
		printf("soak: epoch %u/%u at %llu s: fds %ld, mappings %ld, "
		       "RSS %ld kB\n",
		       e + 1, nepochs,
		       (unsigned long long)((fx_now_ms() - start) / 1000),
		       now.fds, now.maps, now.rss_kb);
		fflush(stdout);
		if (e == 1)
			base = now;
		if (e >= 2) {
			CHECK_EQ(now.fds, base.fds);
			if (SOAK_CHECK_MEMORY) {
				CHECK(now.maps - base.maps <= MAPS_SLACK);
				CHECK(now.rss_kb - base.rss_kb <= RSS_SLACK_KB);
			}
		}
		if (e + 1 == nepochs || check_failures())
			__atomic_store_n(&stop_all, true, __ATOMIC_RELEASE);
		run.end_ms = fx_now_ms() + epoch_s * 1000ull;
		pthread_barrier_wait(&run.barrier);
		if (stop_all)
			break;
	}
	alarm(0);
	for (unsigned int i = 0; i < nth; i++) {
		pthread_join(th[i].tid, NULL);
		if (th[i].w)
			soak_worker_destroy(th[i].w, &total);
		else
			total.churn += th[i].churn.churn;
	}
	report(&total, (unsigned int)((fx_now_ms() - start) / 1000), workers,
	       pairs, &base, &now);
	/* every kind of work really ran */
	CHECK(total.ops[IBV_WR_RDMA_READ] && total.ops[IBV_WR_BIND_MW] &&
	      total.ops[IBV_WR_ATOMIC_FETCH_AND_ADD] && total.resets &&
	      total.churn && total.ud_sends);
	pthread_barrier_destroy(&run.barrier);
	CHECK_RC(ibv_dealloc_pd(run.pd), 0);
	CHECK_RC(ibv_close_device(run.ctx), 0);
	return check_finish();
}
