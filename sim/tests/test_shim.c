// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The preload's process-level behaviour, run with
 * LD_PRELOAD=libionic-sim.so (no launcher, no device model needed):
 * the device node exists for the stat family, RDMA netlink is emulated, and
 * the application's SIGSEGV handler keeps working around the doorbell
 * trap (recorded, reported back, chained to) while doorbells are captured.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "kernel/ik.h"
#include "check.h"

static const char DEV[] = "/dev/infiniband/uverbs0";

static void test_stat(void)
{
	struct stat st;
	struct statx stx;

	CHECK_MSG(stat(DEV, &st) == 0 && S_ISCHR(st.st_mode) &&
			  st.st_rdev == makedev(1, 3),
		  "stat");
	CHECK_MSG(lstat(DEV, &st) == 0 && S_ISCHR(st.st_mode), "lstat");
	CHECK_MSG(fstatat(AT_FDCWD, DEV, &st, 0) == 0 && S_ISCHR(st.st_mode),
		  "fstatat");
	CHECK_MSG(statx(AT_FDCWD, DEV, 0, STATX_BASIC_STATS, &stx) == 0 &&
			  S_ISCHR(stx.stx_mode) && stx.stx_rdev_major == 1 &&
			  stx.stx_rdev_minor == 3,
		  "statx");
	CHECK_MSG(access(DEV, R_OK | W_OK) == 0, "access");
	CHECK_MSG(stat("/dev/infiniband/uverbs1", &st) < 0,
		  "uverbs1 must not exist");
	CHECK_MSG(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode),
		  "/dev/null");
	CHECK_MSG(stat("/nonexistent/x", &st) < 0 && errno == ENOENT,
		  "ENOENT kept");
}

static void test_netlink(void)
{
	struct sockaddr_nl a;
	socklen_t len = sizeof(a);
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, 20);

	/* the emulated kernel's RDMA netlink, never the host's */
	CHECK_MSG(fd >= 0, "NETLINK_RDMA emulated: %s", strerror(errno));
	if (fd >= 0) {
		CHECK_MSG(getsockname(fd, (struct sockaddr *)&a, &len) == 0 &&
				  len == sizeof(a) && a.nl_family == AF_NETLINK,
			  "a netlink socket name");
		close(fd);
	}
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, 0 /* ROUTE */);
	CHECK_MSG(fd >= 0, "NETLINK_ROUTE still works: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
}

static sigjmp_buf jb;
static volatile int h1_calls, h2_calls;

static void h1(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	h1_calls++;
	siglongjmp(jb, 1);
}

static void h2(int sig)
{
	(void)sig;
	h2_calls++;
	siglongjmp(jb, 1);
}

static void test_signals(void)
{
	void *(*map)(uint64_t, void *, size_t, int *) =
		(void *(*)(uint64_t, void *, size_t,
			   int *))dlsym(RTLD_DEFAULT, "ishim_dbpage_map");
	int (*pop)(struct isim_mmio_store *) =
		(int (*)(struct isim_mmio_store *))dlsym(RTLD_DEFAULT,
							 "ishim_dbtrap_pop");
	uint8_t *ro =
		mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct sigaction sa, old;
	struct isim_mmio_store r;
	uint8_t *pg;
	int err;

	CHECK_MSG(map && pop, "preload symbols visible (run with LD_PRELOAD)");
	if (!map || !pop)
		return;
	pg = map(0x5eed, NULL, 4096, &err);
	CHECK_MSG(pg, "dbpage_map");
	if (!pg)
		return;

	/* installed after arming: recorded, not installed */
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = h1;
	sa.sa_flags = SA_SIGINFO;
	CHECK_MSG(sigaction(SIGSEGV, &sa, &old) == 0, "sigaction");
#ifndef __SANITIZE_ADDRESS__ /* else ASan's handler came first */
	CHECK_MSG(old.sa_handler == SIG_DFL,
		  "previous disposition reported as SIG_DFL");
#endif
	CHECK_MSG(sigaction(SIGSEGV, NULL, &old) == 0 && old.sa_sigaction == h1,
		  "application sees its own handler");

	*(volatile uint64_t *)(pg + 8) = 0xdb;
	CHECK_MSG(pop(&r) == 1 && r.offset == 8 && r.value == 0xdb &&
			  r.page == 0x5eed,
		  "doorbell captured with an application handler present");
	if (sigsetjmp(jb, 1) == 0)
		*(volatile int *)ro = 1;
	CHECK_MSG(h1_calls == 1, "application SA_SIGINFO handler chained");

	CHECK_MSG((void *)signal(SIGSEGV, h2) == (void *)h1,
		  "signal() returns previous");
	if (sigsetjmp(jb, 1) == 0)
		*(volatile int *)ro = 1;
	CHECK_MSG(h2_calls == 1, "signal() handler chained");
	*(volatile uint16_t *)(pg + 2) = 0x1234;
	CHECK_MSG(pop(&r) == 1 && r.offset == 2 && r.size == 2 &&
			  r.value == 0x1234,
		  "still trapping after signal()");

	/* munmap of a trapped page forgets it */
	munmap(pg, 4096);
	CHECK_MSG(pop(&r) == 0, "no stray records");
	munmap(ro, 4096);
}

int main(void)
{
	test_stat();
	test_netlink();
	test_signals();
	return check_finish();
}
