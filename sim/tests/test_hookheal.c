// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * A program that patches the process' mmap and munmap with a jump to its
 * own hooks, as UCX's default "bistro" memory hooks do, before it opens
 * the device (sim/shim/hookheal.c): the device still opens and works (its
 * mappings would otherwise reach the real kernel: ENODEV), and the
 * program's hooks keep seeing every other mapping, before and after.
 *
 * usage: ionic-sim -- sim-hookheal
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "check.h"

static int mmap_calls, munmap_calls;

/* The hooks make the system calls themselves, as a patcher's do. */
static void *hook_mmap(void *addr, size_t len, int prot, int flags, int fd,
		       off_t off)
{
	__atomic_add_fetch(&mmap_calls, 1, __ATOMIC_RELAXED);
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

static int hook_munmap(void *addr, size_t len)
{
	__atomic_add_fetch(&munmap_calls, 1, __ATOMIC_RELAXED);
	return (int)syscall(SYS_munmap, addr, len);
}

static int count(int *c)
{
	return __atomic_load_n(c, __ATOMIC_RELAXED);
}

/* movabs $hook, %rax; jmp *%rax over the first 12 bytes of 'fn'. */
static int patch(void *fn, void *hook)
{
	uintptr_t page = (uintptr_t)fn & ~(uintptr_t)4095;
	size_t len = (uintptr_t)fn + 12 - page;
	uint64_t target = (uintptr_t)hook;
	uint8_t code[12] = { 0x48, 0xb8 };

	memcpy(code + 2, &target, sizeof(target));
	code[10] = 0xff;
	code[11] = 0xe0;
	if (mprotect((void *)page, len, PROT_READ | PROT_WRITE | PROT_EXEC))
		return -1;
	memcpy(fn, code, sizeof(code));
	__builtin___clear_cache((char *)fn, (char *)fn + sizeof(code));
	return mprotect((void *)page, len, PROT_READ | PROT_EXEC);
}

/* The preload's own mmap and munmap (the first definitions in the lookup
 * order, unless a sanitizer runtime's interceptors come before them). */
static void *preload_sym(const char *name)
{
	void *mark = dlsym(RTLD_DEFAULT, "ishim_hooks_chain");
	void *h, *fn;
	Dl_info info;

	if (!mark || !dladdr(mark, &info))
		return NULL;
	h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return NULL;
	fn = dlsym(h, name);
	dlclose(h);
	return fn;
}

/* An anonymous mapping made and removed by the program: seen by both
 * hooks exactly when they are in place (other threads may add calls). */
static void check_anon_mapping(const char *when)
{
	int m = count(&mmap_calls), u = count(&munmap_calls);
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	SECTION(when);
	REQUIRE(p != MAP_FAILED);
	memset(p, 0x5a, 4096);
	/* the program's hooks saw the mapping and its removal */
	CHECK_GE(count(&mmap_calls), m + 1);
	CHECK_EQ(munmap(p, 4096), 0);
	CHECK_GE(count(&munmap_calls), u + 1);
}

int main(void)
{
	void *mmap_fn = preload_sym("mmap"), *munmap_fn = preload_sym("munmap");
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int n = 0;

	SECTION("patch");
	/* under ionic-sim: the preload is there */
	REQUIRE(mmap_fn && munmap_fn);
	REQUIRE(!patch(mmap_fn, (void *)hook_mmap));
	REQUIRE(!patch(munmap_fn, (void *)hook_munmap));
	check_anon_mapping("patched, before the device");

	SECTION("device");
	list = ibv_get_device_list(&n);
	REQUIRE(list && n == 1);
	/* maps the doorbell page: ENODEV if it reached the real kernel */
	ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	REQUIRE(ctx);

	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	CHECK(pd && cq);
	if (pd && cq) {
		struct ibv_qp_init_attr attr = {
			.send_cq = cq,
			.recv_cq = cq,
			.qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 8,
				 .max_recv_wr = 8,
				 .max_send_sge = 1,
				 .max_recv_sge = 1 },
		};

		qp = ibv_create_qp(pd, &attr);
		CHECK(qp);
		if (qp)
			CHECK_EQ(ibv_destroy_qp(qp), 0);
	}
	check_anon_mapping("after the device opened");

	SECTION("close");
	if (cq)
		CHECK_EQ(ibv_destroy_cq(cq), 0);
	if (pd)
		CHECK_EQ(ibv_dealloc_pd(pd), 0);
	CHECK_EQ(ibv_close_device(ctx), 0);
	check_anon_mapping("after the device closed");
	return check_finish();
}
