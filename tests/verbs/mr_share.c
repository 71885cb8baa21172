// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Registered memory ionic-sim moves to shared memory for the direct path
 * (sim/kernel/mrshare.c; sim/README.md "Direct path", its registered
 * memory in shared memory): REG_MR puts the region's whole pages of plain
 * anonymous memory in a memfd mapped at the same address.  It must be
 * invisible to the application:
 *
 *   - a thread storing into the buffer all through REG_MR loses no store
 *     (the move fences the pages; the store faults and runs again);
 *   - a fork child gets a private copy (its stores are not the parent's,
 *     the parent's not its), none with MADV_DONTFORK;
 *   - two regions over one buffer share one memfd, which outlives both
 *     (the memory stays the application's), and a third moves it again;
 *   - memory that is not plain anonymous memory (MAP_SHARED, a file)
 *     is registered where it is.
 *
 * With the direct path off (IONIC_SIM_DIRECT=0, the -packet variant)
 * nothing moves and the same holds.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "verbs_fixture.h"

#define BIG (16u << 20)
#define SLOTS (BIG / sizeof(uint64_t))
#define BURST 256
#define SMALL (64u << 10)

static bool direct;

/* The inode of the ionic-sim-mr memfd mapped at 'p', 0 if none. */
static unsigned long long mr_memfd_at(const void *p)
{
	unsigned long long s, e, ino = 0, a = (unsigned long long)(uintptr_t)p;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	REQUIRE(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long i;

		if (sscanf(line, "%llx-%llx %*s %*s %*s %llu", &s, &e, &i) ==
			    3 &&
		    a >= s && a < e && strstr(line, "memfd:ionic-sim-mr"))
			ino = i;
	}
	fclose(f);
	return ino;
}

static void *map_anon(size_t len, int flags)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags | MAP_ANONYMOUS,
		       -1, 0);

	REQUIRE(p != MAP_FAILED);
	return p;
}

struct writer {
	volatile uint64_t *slot;
	size_t done; /* slots written (atomic) */
};

/* Every slot once, value index + 1, in bursts paced to about a second:
 * long enough to run before, through and after the registration. */
static void *writer_run(void *arg)
{
	struct writer *w = arg;
	struct timespec pause = { 0, 100000 };

	for (size_t i = 0; i < SLOTS; i++) {
		w->slot[i] = i + 1;
		if (i % BURST == BURST - 1) {
			__atomic_store_n(&w->done, i + 1, __ATOMIC_RELEASE);
			nanosleep(&pause, NULL);
		}
	}
	__atomic_store_n(&w->done, SLOTS, __ATOMIC_RELEASE);
	return NULL;
}

/* One round: false if the writer happened not to store while REG_MR
 * ran (descheduled all along, on a busy machine). */
static bool stores_round(struct ibv_pd *pd)
{
	struct writer w = { .slot = map_anon(BIG, MAP_PRIVATE) };
	size_t before, after, bad = 0;
	struct ibv_mr *mr;
	pthread_t t;

	REQUIRE_EQ(pthread_create(&t, NULL, writer_run, &w), 0);
	while (__atomic_load_n(&w.done, __ATOMIC_ACQUIRE) < SLOTS / 8)
		usleep(1000);
	before = __atomic_load_n(&w.done, __ATOMIC_ACQUIRE);
	mr = ibv_reg_mr(pd, (void *)w.slot, BIG, IBV_ACCESS_LOCAL_WRITE);
	after = __atomic_load_n(&w.done, __ATOMIC_ACQUIRE);
	REQUIRE(mr);
	REQUIRE_EQ(pthread_join(t, NULL), 0);
	printf("writer: slot %zu at REG_MR, %zu after it, of %zu\n", before,
	       after, (size_t)SLOTS);
	CHECK(after < SLOTS); /* still storing afterwards */
	CHECK_EQ(mr_memfd_at((void *)w.slot) != 0, direct);
	for (size_t i = 0; i < SLOTS; i++)
		bad += w.slot[i] != i + 1;
	CHECK_EQ(bad, 0);
	REQUIRE_EQ(ibv_dereg_mr(mr), 0);
	munmap((void *)w.slot, BIG);
	return after > before;
}

static void stores_during_registration(struct ibv_pd *pd)
{
	bool during = false;

	SECTION("a thread storing all through REG_MR loses no store");
	/* a move takes milliseconds: the writer stores during one of a few
	 * (without one, REG_MR may well be over between two bursts) */
	for (int round = 0; round < 5 && !during; round++)
		during = stores_round(pd);
	CHECK(during || !direct);
}

/* The child: 'buf' is its own copy ('A'), 'gone' not mapped at all. */
static int fork_child(uint8_t *buf, uint8_t *gone, int rd, int wr)
{
	char c;

	for (size_t i = 0; i < SMALL; i++)
		if (buf[i] != 'A')
			return 3;
	if (msync(gone, SMALL, MS_ASYNC) == 0 || errno != ENOMEM)
		return 4;
	memset(buf, 'C', SMALL);
	if (write(wr, "c", 1) != 1 || read(rd, &c, 1) != 1)
		return 5;
	for (size_t i = 0; i < SMALL; i++) /* the parent's 'P' is not ours */
		if (buf[i] != 'C')
			return 6;
	return 0;
}

static void fork_copies(struct ibv_pd *pd)
{
	uint8_t *buf = map_anon(SMALL, MAP_PRIVATE);
	uint8_t *gone = map_anon(SMALL, MAP_PRIVATE);
	struct ibv_mr *mr, *mr2;
	int to_c[2], to_p[2], status;
	pid_t child;
	char c;

	SECTION("fork: the child's copy is private, none with MADV_DONTFORK");
	memset(buf, 'A', SMALL);
	memset(gone, 'G', SMALL);
	REQUIRE_EQ(madvise(gone, SMALL, MADV_DONTFORK), 0);
	mr = ibv_reg_mr(pd, buf, SMALL, IBV_ACCESS_LOCAL_WRITE);
	mr2 = ibv_reg_mr(pd, gone, SMALL, IBV_ACCESS_LOCAL_WRITE);
	REQUIRE(mr && mr2);
	CHECK_EQ(mr_memfd_at(buf) != 0, direct);
	CHECK_EQ(mr_memfd_at(gone) != 0, direct);
	REQUIRE(pipe(to_c) == 0 && pipe(to_p) == 0);
	child = fork();
	REQUIRE(child >= 0);
	if (child == 0)
		_exit(fork_child(buf, gone, to_c[0], to_p[1]));
	REQUIRE(read(to_p[0], &c, 1) == 1);
	for (size_t i = 0; i < SMALL; i++) /* the child's 'C' is not ours */
		if (buf[i] != 'A')
			REQUIRE(!"the child's store reached the parent");
	memset(buf, 'P', SMALL);
	REQUIRE(write(to_c[1], "p", 1) == 1);
	REQUIRE(waitpid(child, &status, 0) == child);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_EQ(gone[SMALL - 1], 'G');
	REQUIRE_EQ(ibv_dereg_mr(mr), 0);
	REQUIRE_EQ(ibv_dereg_mr(mr2), 0);
	close(to_c[0]);
	close(to_c[1]);
	close(to_p[0]);
	close(to_p[1]);
	munmap(buf, SMALL);
	munmap(gone, SMALL);
}

static void regions_share(struct ibv_pd *pd)
{
	uint8_t *buf = map_anon(SMALL, MAP_PRIVATE);
	unsigned long long ino;
	struct ibv_mr *a, *b, *c;

	SECTION("two regions over one buffer: one memfd, kept after both");
	memset(buf, 'x', SMALL);
	a = ibv_reg_mr(pd, buf, SMALL, IBV_ACCESS_LOCAL_WRITE);
	REQUIRE(a);
	ino = mr_memfd_at(buf);
	CHECK_EQ(ino != 0, direct);
	/* a part of it, not on page boundaries */
	b = ibv_reg_mr(pd, buf + 100, SMALL - 5000, IBV_ACCESS_LOCAL_WRITE);
	REQUIRE(b);
	CHECK_EQ(mr_memfd_at(buf), ino);
	REQUIRE_EQ(ibv_dereg_mr(a), 0);
	CHECK_EQ(mr_memfd_at(buf + SMALL - 1), ino);
	REQUIRE_EQ(ibv_dereg_mr(b), 0);
	/* the memory stays the application's, contents and all */
	CHECK_EQ(mr_memfd_at(buf), ino);
	CHECK_EQ(buf[0], 'x');
	CHECK_EQ(buf[SMALL - 1], 'x');
	buf[7] = 'y';
	/* again: moved to a memfd of its own (the old one has no
	 * descriptor any more), contents and all */
	c = ibv_reg_mr(pd, buf, SMALL, IBV_ACCESS_LOCAL_WRITE);
	REQUIRE(c);
	CHECK_EQ(mr_memfd_at(buf) != 0, direct);
	CHECK(mr_memfd_at(buf) != ino || !direct);
	CHECK_EQ(buf[7], 'y');
	CHECK_EQ(buf[SMALL - 1], 'x');
	REQUIRE_EQ(ibv_dereg_mr(c), 0);
	munmap(buf, SMALL);
}

static void over_mappings(struct ibv_pd *pd)
{
	uint8_t *buf = map_anon(2 * SMALL, MAP_PRIVATE);
	unsigned long long ino_a, ino_b;
	struct ibv_mr *a, *b, *c;

	SECTION("a buffer over several mappings: the pages move together");
	memset(buf, 'x', 2 * SMALL);
	a = ibv_reg_mr(pd, buf, SMALL, IBV_ACCESS_LOCAL_WRITE);
	REQUIRE(a);
	ino_a = mr_memfd_at(buf);
	CHECK_EQ(ino_a != 0, direct);
	REQUIRE_EQ(ibv_dereg_mr(a), 0);
	buf[SMALL / 2] = 'q';
	/* half in the memfd a left behind, half anonymous memory, as a
	 * buffer the allocator carved from reused memory is */
	b = ibv_reg_mr(pd, buf + SMALL / 2, SMALL, IBV_ACCESS_LOCAL_WRITE);
	REQUIRE(b);
	ino_b = mr_memfd_at(buf + SMALL / 2);
	CHECK_EQ(ino_b != 0, direct);
	CHECK(ino_b != ino_a || !direct);
	CHECK_EQ(mr_memfd_at(buf + SMALL + SMALL / 2 - 1), ino_b);
	CHECK_EQ(mr_memfd_at(buf), ino_a); /* a's first half stays */
	CHECK_EQ(buf[SMALL / 2], 'q');
	CHECK_EQ(buf[SMALL + 5], 'x');
	/* over b's pages and others: registered where it is */
	c = ibv_reg_mr(pd, buf + SMALL, SMALL, IBV_ACCESS_LOCAL_WRITE);
	REQUIRE(c);
	CHECK_EQ(mr_memfd_at(buf + 2 * SMALL - 1), 0);
	CHECK_EQ(mr_memfd_at(buf + SMALL), ino_b);
	buf[2 * SMALL - 1] = 'z';
	CHECK_EQ(buf[2 * SMALL - 1], 'z');
	REQUIRE_EQ(ibv_dereg_mr(c), 0);
	REQUIRE_EQ(ibv_dereg_mr(b), 0);
	munmap(buf, 2 * SMALL);
}

static void left_alone(struct ibv_pd *pd)
{
	uint8_t *shared = map_anon(SMALL, MAP_SHARED);
	char path[] = "/tmp/ionic-mr-share-XXXXXX";
	struct ibv_mr *a, *b;
	uint8_t *file;
	int fd;

	SECTION("MAP_SHARED and file memory is registered where it is");
	fd = mkstemp(path);
	REQUIRE(fd >= 0);
	unlink(path);
	REQUIRE_EQ(ftruncate(fd, SMALL), 0);
	file = mmap(NULL, SMALL, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	REQUIRE(file != MAP_FAILED);
	a = ibv_reg_mr(pd, shared, SMALL, IBV_ACCESS_LOCAL_WRITE);
	b = ibv_reg_mr(pd, file, SMALL, IBV_ACCESS_LOCAL_WRITE);
	REQUIRE(a && b);
	CHECK_EQ(mr_memfd_at(shared), 0);
	CHECK_EQ(mr_memfd_at(file), 0);
	REQUIRE_EQ(ibv_dereg_mr(a), 0);
	REQUIRE_EQ(ibv_dereg_mr(b), 0);
	munmap(shared, SMALL);
	munmap(file, SMALL);
	close(fd);
}

int main(void)
{
	const char *d = getenv("IONIC_SIM_DIRECT");
	struct ibv_context *ctx = fx_open();
	struct ibv_pd *pd = ibv_alloc_pd(ctx);

	REQUIRE(pd);
	direct = !d || (strcmp(d, "0") && strcmp(d, "off"));
	printf("direct path %s: regions %s\n", direct ? "on" : "off",
	       direct ? "move" : "stay");
	stores_during_registration(pd);
	fork_copies(pd);
	regions_share(pd);
	over_mappings(pd);
	left_alone(pd);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return check_finish();
}
