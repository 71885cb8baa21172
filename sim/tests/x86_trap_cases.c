// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Doorbell trap decoder tests, parts 2 and 3 (test_x86_decode.c has part
 * 1 and main): the pinned encodings through a real trapped page, and the
 * faults that are not doorbell stores.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shim/shim.h"
#include "check.h"
#include "x86_trap_cases.h"

/* ---- part 2: the same encodings through a real trap --------------------- */

static uint8_t *page;
#define TAG 0x5eedull /* the page tag */

static int pop(struct isim_mmio_store *r)
{
	return ishim_dbtrap_pop(r);
}

static void expect(const char *name, uint32_t off, uint32_t size, uint64_t v,
		   uint64_t vhi)
{
	struct isim_mmio_store r;
	int got = pop(&r);

	CHECK_MSG(got == 1, "%s: nothing captured", name);
	if (got != 1)
		return;
	CHECK_MSG(
		r.page == TAG && r.offset == off && r.size == size &&
			r.value == v && r.value_hi == vhi,
		"%s: got off %u size %u value %#llx:%#llx, want off %u size %u %#llx:%#llx",
		name, r.offset, r.size, (unsigned long long)r.value_hi,
		(unsigned long long)r.value, off, size, (unsigned long long)vhi,
		(unsigned long long)v);
	CHECK_MSG(r.tid == gettid(), "%s: tid", name);
	CHECK_MSG(pop(&r) == 0, "%s: extra record", name);
}

void run_trap_cases(void)
{
	uint64_t v = 0x0123456789abcdefull;
	uint8_t *p;
	int err = 0;

	page = ishim_dbpage_map(TAG, NULL, 4096, &err);
	CHECK_MSG(page != NULL, "ishim_dbpage_map: %d", err);
	if (!page)
		return;
	CHECK_MSG(ishim_dbtrap_eventfd() >= 0, "eventfd");

	/* 48 89 31: mov %rsi,(%rcx) */
	p = page + 0x18;
	asm volatile(".byte 0x48, 0x89, 0x31" ::"c"(p), "S"(v) : "memory");
	expect("mov %rsi,(%rcx)", 0x18, 8, v, 0);

	/* 48 c7 02 imm32: movq $0x5a5a5a5a,(%rdx) */
	p = page + 0x20;
	asm volatile(".byte 0x48, 0xc7, 0x02, 0x5a, 0x5a, 0x5a, 0x5a" ::"d"(p)
		     : "memory");
	expect("movq $imm,(%rdx)", 0x20, 8, 0x5a5a5a5a, 0);

	/* 48 c7 02 ff ff ff ff: sign extension */
	asm volatile(".byte 0x48, 0xc7, 0x02, 0xff, 0xff, 0xff, 0xff" ::"d"(p)
		     : "memory");
	expect("movq $-1,(%rdx)", 0x20, 8, ~0ull, 0);

	/* 48 89 44 d1 10: mov %rax,0x10(%rcx,%rdx,8) */
	asm volatile(".byte 0x48, 0x89, 0x44, 0xd1, 0x10" ::"a"(v),
		     "c"(page + 0x100), "d"(3ul)
		     : "memory");
	expect("mov %rax,0x10(%rcx,%rdx,8)", 0x100 + 24 + 0x10, 8, v, 0);

	/* 4f 89 4c 9a 40: mov %r9,0x40(%r10,%r11,4) */
	{
		register uint64_t r9 asm("r9") = v ^ 0xff;
		register uint8_t *r10 asm("r10") = page + 0x200;
		register uint64_t r11 asm("r11") = 5;

		asm volatile(".byte 0x4f, 0x89, 0x4c, 0x9a, 0x40" ::"r"(r9),
			     "r"(r10), "r"(r11)
			     : "memory");
	}
	expect("mov %r9,0x40(%r10,%r11,4)", 0x200 + 20 + 0x40, 8, v ^ 0xff, 0);

	/* 49 89 04 24: mov %rax,(%r12) */
	{
		register uint8_t *r12 asm("r12") = page + 0x300;

		asm volatile(".byte 0x49, 0x89, 0x04, 0x24" ::"a"(v), "r"(r12)
			     : "memory");
	}
	expect("mov %rax,(%r12)", 0x300, 8, v, 0);

	/* 49 89 45 00: mov %rax,0x0(%r13) */
	{
		register uint8_t *r13 asm("r13") = page + 0x308;

		asm volatile(".byte 0x49, 0x89, 0x45, 0x00" ::"a"(v), "r"(r13)
			     : "memory");
	}
	expect("mov %rax,0(%r13)", 0x308, 8, v, 0);

	/* 48 89 04 cd disp32: mov %rax,0x400(,%rcx,8) -- no base register */
	asm volatile(
		".byte 0x48, 0x89, 0x04, 0xcd, 0x00, 0x04, 0x00, 0x00" ::"a"(v),
		"c"((uintptr_t)page / 8)
		: "memory");
	expect("mov %rax,0x400(,%rcx,8)", 0x400, 8, v, 0);

	/* 41 89 00: mov %eax,(%r8) */
	{
		register uint8_t *r8 asm("r8") = page + 0x408;

		asm volatile(".byte 0x41, 0x89, 0x00" ::"a"(v), "r"(r8)
			     : "memory");
	}
	expect("mov %eax,(%r8)", 0x408, 4, v & 0xffffffff, 0);

	/* 66 89 01: mov %ax,(%rcx) */
	asm volatile(".byte 0x66, 0x89, 0x01" ::"a"(v), "c"(page + 0x410)
		     : "memory");
	expect("mov %ax,(%rcx)", 0x410, 2, v & 0xffff, 0);

	/* 88 01 / 88 21 / 40 88 31: AL, AH, SIL */
	asm volatile(".byte 0x88, 0x01" ::"a"(v), "c"(page + 0x411) : "memory");
	expect("mov %al,(%rcx)", 0x411, 1, v & 0xff, 0);
	asm volatile(".byte 0x88, 0x21" ::"a"(v), "c"(page + 0x412) : "memory");
	expect("mov %ah,(%rcx)", 0x412, 1, (v >> 8) & 0xff, 0);
	asm volatile(".byte 0x40, 0x88, 0x31" ::"S"(0x78ul), "c"(page + 0x413)
		     : "memory");
	expect("mov %sil,(%rcx)", 0x413, 1, 0x78, 0);

	/* 48 c7 84 c8 disp32 imm32: movq $0x12345678,0x200(%rax,%rcx,8) */
	asm volatile(
		".byte 0x48, 0xc7, 0x84, 0xc8, 0x00, 0x02, 0x00, 0x00, 0x78, 0x56, 0x34, 0x12" ::
			"a"(page + 0x100),
		"c"(2ul)
		: "memory");
	expect("movq $imm,0x200(%rax,%rcx,8)", 0x100 + 16 + 0x200, 8,
	       0x12345678, 0);

	/* c6 01 ab: movb $0xab,(%rcx) */
	asm volatile(".byte 0xc6, 0x01, 0xab" ::"c"(page + 0x500) : "memory");
	expect("movb $0xab,(%rcx)", 0x500, 1, 0xab, 0);

	/* 48 0f c3 01: movnti %rax,(%rcx) */
	asm volatile(".byte 0x48, 0x0f, 0xc3, 0x01" ::"a"(v), "c"(page + 0x508)
		     : "memory");
	expect("movnti %rax,(%rcx)", 0x508, 8, v, 0);

	/* SSE stores: load xmm in the same asm so nothing clobbers it */
	{
		static const uint64_t src[2] __attribute__((aligned(16))) = {
			0x1111222233334444ull, 0x5555666677778888ull
		};

		asm volatile(
			"movdqu (%0), %%xmm0\n .byte 0x66, 0x0f, 0xd6, 0x01" ::
				"r"(src),
			"c"(page + 0x600)
			: "xmm0", "memory");
		expect("movq %xmm0,(%rcx)", 0x600, 8, src[0], 0);
		asm volatile(
			"movdqu (%0), %%xmm9\n .byte 0xf3, 0x44, 0x0f, 0x7f, 0x09" ::
				"r"(src),
			"c"(page + 0x610)
			: "xmm9", "memory");
		expect("movdqu %xmm9,(%rcx)", 0x610, 16, src[0], src[1]);
		asm volatile(
			"movdqu (%0), %%xmm0\n .byte 0x0f, 0x29, 0x01" ::"r"(
				src),
			"c"(page + 0x620)
			: "xmm0", "memory");
		expect("movaps %xmm0,(%rcx)", 0x620, 16, src[0], src[1]);
		asm volatile(
			"movdqu (%0), %%xmm1\n .byte 0x66, 0x0f, 0xe7, 0x09" ::
				"r"(src),
			"c"(page + 0x630)
			: "xmm1", "memory");
		expect("movntdq %xmm1,(%rcx)", 0x630, 16, src[0], src[1]);
	}

	/* AVX: a 32-byte VEX store captures both halves of the YMM register
	 * (the upper one from the signal frame's XSAVE area) */
	if (__builtin_cpu_supports("avx")) {
		static const uint8_t src32[32] __attribute__((aligned(
			32))) = { 1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11,
				  12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
				  23, 24, 25, 26, 27, 28, 29, 30, 31, 32 };
		struct isim_mmio_store r;

		asm volatile(
			"vmovdqu (%0), %%ymm2\n .byte 0xc5, 0xfe, 0x7f, 0x11\n"
			"vzeroupper" ::"r"(src32),
			"c"(page + 0x700)
			: "xmm2", "memory");
		CHECK_MSG(pop(&r) == 1 && r.offset == 0x700 && r.size == 32 &&
				  !memcmp(r.data, src32, 32),
			  "vmovdqu %%ymm2,(%%rcx): size %u data[16] %u", r.size,
			  r.data[16]);
		asm volatile(
			"vmovdqu (%0), %%xmm3\n .byte 0xc5, 0xf9, 0xe7, 0x19" ::
				"r"(src32),
			"c"(page + 0x720)
			: "xmm3", "memory");
		CHECK_MSG(pop(&r) == 1 && r.offset == 0x720 && r.size == 16 &&
				  !memcmp(r.data, src32, 16) && !r.data[16],
			  "vmovntdq %%xmm3,(%%rcx)");
	}
	/* MOVDIR64B where the CPU has it (CPUID.7.0:ECX bit 28) */
	{
		uint32_t a = 7, b, c = 0, d;

		asm volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
		if (c & (1u << 28)) {
			static uint8_t src64[64] __attribute__((aligned(64)));
			struct isim_mmio_store r;

			for (int i = 0; i < 64; i++)
				src64[i] = (uint8_t)(0x40 + i);
			asm volatile(".byte 0x66, 0x0f, 0x38, 0xf8, 0x0a" ::"c"(
					     page + 0x740),
				     "d"(src64)
				     : "memory");
			CHECK_MSG(pop(&r) == 1 && r.offset == 0x740 &&
					  r.size == 64 &&
					  !memcmp(r.data, src64, 64),
				  "movdir64b (%%rdx),%%rcx");
		} else {
			printf("note: no MOVDIR64B on this CPU; decoded only\n");
		}
	}

	/* a plain C volatile store, whatever the compiler picked */
	*(volatile uint64_t *)(page + 0xff8) = v + 1;
	expect("C volatile store", 0xff8, 8, v + 1, 0);

	/* the page itself never changes */
	for (int i = 0; i < 4096; i++)
		if (page[i]) {
			CHECK_MSG(0, "page byte %d modified", i);
			break;
		}
}

/* ---- part 3: faults that are not doorbell stores ------------------------- */

static sigjmp_buf jb;
static volatile int app_calls;

static void app_handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	app_calls++;
	siglongjmp(jb, 1);
}

void run_chain_cases(void)
{
	uint8_t *ro =
		mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct isim_mmio_store r;
	pid_t pid;
	int st;

	fflush(stdout);
	/* child: no application handler -> default action, killed by SIGSEGV */
	pid = fork();
	if (pid == 0) {
		int err;
		uint8_t *pg = ishim_dbpage_map(TAG, NULL, 4096, &err);

		*(volatile uint64_t *)pg = 1; /* trapped: survives */
		*(volatile uint64_t *)ro = 1; /* not trapped: dies */
		_exit(0);
	}
	waitpid(pid, &st, 0);
#ifdef __SANITIZE_ADDRESS__
	/* ASan's SEGV handler was installed first: chained to, it reports
	 * and exits non-zero */
	CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) != 0,
		  "untrapped fault chained to ASan: status %#x", st);
#else
	CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV,
		  "untrapped fault without handler: status %#x", st);
#endif

	/* in a child, so the application handler is the one seen at arming */
	pid = fork();
	if (pid == 0) {
		struct sigaction sa;
		int err, ok = 1;
		uint8_t *pg;

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = app_handler;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGSEGV, &sa, NULL);
		pg = ishim_dbpage_map(TAG, NULL, 4096, &err);
		if (sigsetjmp(jb, 1) == 0)
			*(volatile uint64_t *)ro = 1;
		ok &= app_calls == 1;
		/* undecodable store to a trapped page: also chained */
		if (sigsetjmp(jb, 1) == 0)
			asm volatile("lock addq $1, (%0)" ::"r"(pg) : "memory");
		ok &= app_calls == 2;
		ok &= ishim_dbtrap_pop(&r) == 0;
		/* trapping still works afterwards */
		*(volatile uint32_t *)(pg + 4) = 7;
		ok &= ishim_dbtrap_pop(&r) == 1 && r.value == 7 && r.size == 4;
		_exit(ok ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		  "chaining to the application handler: status %#x", st);
	munmap(ro, 4096);
}
