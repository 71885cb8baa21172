// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Doorbell trap decoder tests.
 *
 * Part 1 decodes pinned byte sequences against a synthetic register file
 * (every addressing form, every store opcode, the refusals).
 * Part 2 executes the same pinned encodings (.byte, so the compiler cannot
 * pick another form) against a real trapped page and checks the captured
 * record: offset, size, value, and that execution resumed after it.
 * Part 3 checks that faults which are not doorbell stores reach the
 * previously installed handler, and SIG_DFL when there is none.
 * Parts 2 and 3 are x86_trap_cases.c (x86_trap_cases.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim/x86_decode.h"
#include "check.h"
#include "x86_trap_cases.h"

/* ---- part 1: pure decoding ---------------------------------------------- */

static struct ishim_x86_regs R;
static uint8_t XMM[16][16];

static void init_regs(void)
{
	for (int i = 0; i < X86_NGPR; i++)
		R.gpr[i] = 0x1000000ull * (i + 1) + 0x11ull * (i + 1);
	R.gpr[X86_RSI] = 0x8877665544332211ull;
	R.gpr[X86_RAX] = 0xa1a2a3a4a5a6a7a8ull;
	R.gpr[X86_R9] = 0x9999000099990000ull;
	R.rip = 0x400000;
	for (int i = 0; i < 16; i++)
		for (int j = 0; j < 16; j++)
			XMM[i][j] = (uint8_t)(i * 16 + j);
	R.xmm = (const uint8_t(*)[16])XMM;
}

/* clang-format off */
struct dcase {
	const char *name;
	uint8_t bytes[15];
	unsigned int n;
	uint64_t addr;
	unsigned int size;
	uint64_t value, value_hi;
};
/* clang-format on */

static uint64_t G(int r)
{
	return R.gpr[r];
}

static uint64_t xlo(int i)
{
	uint64_t v;

	memcpy(&v, XMM[i], 8);
	return v;
}

static uint64_t xhi(int i)
{
	uint64_t v;

	memcpy(&v, XMM[i] + 8, 8);
	return v;
}

static void run_decode_cases(void)
{
	/* clang-format off */
	struct dcase c[] = {
		{ "mov %rsi,(%rcx)", { 0x48, 0x89, 0x31 }, 3,
		  G(X86_RCX), 8, G(X86_RSI), 0 },
		{ "movq $0x5a5a5a5a,(%rdx)", { 0x48, 0xc7, 0x02, 0x5a, 0x5a, 0x5a, 0x5a }, 7,
		  G(X86_RDX), 8, 0x5a5a5a5a, 0 },
		{ "movq $-1,(%rax) sign-extends", { 0x48, 0xc7, 0x00, 0xff, 0xff, 0xff, 0xff }, 7,
		  G(X86_RAX), 8, ~0ull, 0 },
		{ "mov %rax,-8(%rcx) disp8", { 0x48, 0x89, 0x41, 0xf8 }, 4,
		  G(X86_RCX) - 8, 8, G(X86_RAX), 0 },
		{ "mov %rax,0x100(%rcx) disp32", { 0x48, 0x89, 0x81, 0x00, 0x01, 0, 0 }, 7,
		  G(X86_RCX) + 0x100, 8, G(X86_RAX), 0 },
		{ "mov %rax,0x10(%rcx,%rdx,8)", { 0x48, 0x89, 0x44, 0xd1, 0x10 }, 5,
		  G(X86_RCX) + G(X86_RDX) * 8 + 0x10, 8, G(X86_RAX), 0 },
		{ "mov %r9,0x40(%r10,%r11,4) REX.WRXB", { 0x4f, 0x89, 0x4c, 0x9a, 0x40 }, 5,
		  G(X86_R10) + G(X86_R11) * 4 + 0x40, 8, G(X86_R9), 0 },
		{ "mov %rax,(%r12) needs SIB", { 0x49, 0x89, 0x04, 0x24 }, 4,
		  G(X86_R12), 8, G(X86_RAX), 0 },
		{ "mov %rax,0(%r13) needs disp8", { 0x49, 0x89, 0x45, 0x00 }, 4,
		  G(X86_R13), 8, G(X86_RAX), 0 },
		{ "mov %rax,0x1000(,%rcx,8) no base", { 0x48, 0x89, 0x04, 0xcd, 0x00, 0x10, 0, 0 }, 8,
		  G(X86_RCX) * 8 + 0x1000, 8, G(X86_RAX), 0 },
		{ "mov %rax,0x20(%rsp) no index", { 0x48, 0x89, 0x44, 0x24, 0x20 }, 5,
		  G(X86_RSP) + 0x20, 8, G(X86_RAX), 0 },
		{ "mov %eax,(%r8) REX.B 32-bit", { 0x41, 0x89, 0x00 }, 3,
		  G(X86_R8), 4, G(X86_RAX) & 0xffffffff, 0 },
		{ "mov %ax,(%rcx) 16-bit", { 0x66, 0x89, 0x01 }, 3,
		  G(X86_RCX), 2, G(X86_RAX) & 0xffff, 0 },
		{ "mov %al,(%rcx)", { 0x88, 0x01 }, 2, G(X86_RCX), 1, G(X86_RAX) & 0xff, 0 },
		{ "mov %ah,(%rcx)", { 0x88, 0x21 }, 2, G(X86_RCX), 1,
		  (G(X86_RAX) >> 8) & 0xff, 0 },
		{ "mov %sil,(%rcx) REX", { 0x40, 0x88, 0x31 }, 3, G(X86_RCX), 1,
		  G(X86_RSI) & 0xff, 0 },
		{ "movq $0x12345678,0x200(%rax,%rcx,8)",
		  { 0x48, 0xc7, 0x84, 0xc8, 0x00, 0x02, 0, 0, 0x78, 0x56, 0x34, 0x12 }, 12,
		  G(X86_RAX) + G(X86_RCX) * 8 + 0x200, 8, 0x12345678, 0 },
		{ "movl $0x89abcdef,(%rcx)", { 0xc7, 0x01, 0xef, 0xcd, 0xab, 0x89 }, 6,
		  G(X86_RCX), 4, 0x89abcdef, 0 },
		{ "movw $0x1234,(%rcx)", { 0x66, 0xc7, 0x01, 0x34, 0x12 }, 5,
		  G(X86_RCX), 2, 0x1234, 0 },
		{ "movb $0xab,(%rcx)", { 0xc6, 0x01, 0xab }, 3, G(X86_RCX), 1, 0xab, 0 },
		{ "movnti %rax,(%rcx)", { 0x48, 0x0f, 0xc3, 0x01 }, 4,
		  G(X86_RCX), 8, G(X86_RAX), 0 },
		{ "movnti %eax,(%rcx)", { 0x0f, 0xc3, 0x01 }, 3,
		  G(X86_RCX), 4, G(X86_RAX) & 0xffffffff, 0 },
		{ "movq %xmm0,(%rcx)", { 0x66, 0x0f, 0xd6, 0x01 }, 4,
		  G(X86_RCX), 8, xlo(0), 0 },
		{ "movq %xmm3,(%rcx) 66 REX.W 0F 7E", { 0x66, 0x48, 0x0f, 0x7e, 0x19 }, 5,
		  G(X86_RCX), 8, xlo(3), 0 },
		{ "movdqu %xmm9,(%rcx)", { 0xf3, 0x44, 0x0f, 0x7f, 0x09 }, 5,
		  G(X86_RCX), 16, xlo(9), xhi(9) },
		{ "movdqa %xmm1,(%rcx)", { 0x66, 0x0f, 0x7f, 0x09 }, 4,
		  G(X86_RCX), 16, xlo(1), xhi(1) },
		{ "movaps %xmm0,(%rcx)", { 0x0f, 0x29, 0x01 }, 3,
		  G(X86_RCX), 16, xlo(0), xhi(0) },
		{ "movups %xmm2,(%rcx)", { 0x0f, 0x11, 0x11 }, 3,
		  G(X86_RCX), 16, xlo(2), xhi(2) },
		{ "movntps %xmm0,(%rcx)", { 0x0f, 0x2b, 0x01 }, 3,
		  G(X86_RCX), 16, xlo(0), xhi(0) },
		{ "movntdq %xmm15,(%rcx)", { 0x66, 0x44, 0x0f, 0xe7, 0x39 }, 5,
		  G(X86_RCX), 16, xlo(15), xhi(15) },
		{ "movss %xmm4,(%rcx)", { 0xf3, 0x0f, 0x11, 0x21 }, 4,
		  G(X86_RCX), 4, xlo(4) & 0xffffffff, 0 },
		{ "movsd %xmm4,(%rcx)", { 0xf2, 0x0f, 0x11, 0x21 }, 4,
		  G(X86_RCX), 8, xlo(4), 0 },
		{ "vmovdqu %xmm0,(%rcx) C5", { 0xc5, 0xfa, 0x7f, 0x01 }, 4,
		  G(X86_RCX), 16, xlo(0), xhi(0) },
		{ "vmovdqa %xmm9,0x40(%rdx) C4 R", { 0xc4, 0x61, 0x79, 0x7f, 0x4a, 0x40 }, 6,
		  G(X86_RDX) + 0x40, 16, xlo(9), xhi(9) },
		{ "vmovups %xmm1,(%r8,%r9,2) C4 XB", { 0xc4, 0x81, 0x78, 0x11, 0x0c, 0x48 }, 6,
		  G(X86_R8) + G(X86_R9) * 2, 16, xlo(1), xhi(1) },
		{ "vmovss %xmm4,(%rcx)", { 0xc5, 0xfa, 0x11, 0x21 }, 4,
		  G(X86_RCX), 4, xlo(4) & 0xffffffff, 0 },
		{ "vmovsd %xmm4,(%rcx)", { 0xc5, 0xfb, 0x11, 0x21 }, 4,
		  G(X86_RCX), 8, xlo(4), 0 },
		{ "vmovq %xmm2,(%rcx)", { 0xc5, 0xf9, 0xd6, 0x11 }, 4,
		  G(X86_RCX), 8, xlo(2), 0 },
		{ "vmovd %xmm2,(%rcx)", { 0xc5, 0xf9, 0x7e, 0x11 }, 4,
		  G(X86_RCX), 4, xlo(2) & 0xffffffff, 0 },
		{ "vmovq %xmm2,(%rcx) C4 W 7E", { 0xc4, 0xe1, 0xf9, 0x7e, 0x11 }, 5,
		  G(X86_RCX), 8, xlo(2), 0 },
		{ "vmovntdq %xmm3,(%rcx)", { 0xc5, 0xf9, 0xe7, 0x19 }, 4,
		  G(X86_RCX), 16, xlo(3), xhi(3) },
		{ "vmovaps %xmm5,0x10(%rip)", { 0xc5, 0xf8, 0x29, 0x2d, 0x10, 0, 0, 0 }, 8,
		  0x400000 + 8 + 0x10, 16, xlo(5), xhi(5) },
		{ "mov %rax,0x10(%rip)", { 0x48, 0x89, 0x05, 0x10, 0, 0, 0 }, 7,
		  0x400000 + 7 + 0x10, 8, G(X86_RAX), 0 },
		{ "movl $1,-0x10(%rip) imm after disp", { 0xc7, 0x05, 0xf0, 0xff, 0xff, 0xff, 1, 0, 0, 0 }, 10,
		  0x400000 + 10 - 0x10, 4, 1, 0 },
		{ "ds: mov %rax,(%rcx)", { 0x3e, 0x48, 0x89, 0x01 }, 4,
		  G(X86_RCX), 8, G(X86_RAX), 0 },
		{ "movabs %eax,0x1122334455667788", { 0xa3, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11 }, 9,
		  0x1122334455667788ull, 4, G(X86_RAX) & 0xffffffff, 0 },
	};
	/* clang-format on */

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct ishim_x86_store st;
		int rc = ishim_x86_decode_store(c[i].bytes, c[i].n, &R, &st);

		CHECK_MSG(rc == 0, "%s: refused", c[i].name);
		if (rc)
			continue;
		CHECK_MSG(st.len == c[i].n, "%s: len %u want %u", c[i].name,
			  st.len, c[i].n);
		CHECK_MSG(st.addr == c[i].addr, "%s: addr %#llx want %#llx",
			  c[i].name, (unsigned long long)st.addr,
			  (unsigned long long)c[i].addr);
		CHECK_MSG(st.size == c[i].size, "%s: size %u want %u",
			  c[i].name, st.size, c[i].size);
		CHECK_MSG(st.value == c[i].value &&
				  st.value_hi == c[i].value_hi,
			  "%s: value %#llx:%#llx want %#llx:%#llx", c[i].name,
			  (unsigned long long)st.value_hi,
			  (unsigned long long)st.value,
			  (unsigned long long)c[i].value_hi,
			  (unsigned long long)c[i].value);
		CHECK_MSG(!st.seg_base, "%s: seg_base", c[i].name);
	}
}

static void run_refusals(void)
{
	struct {
		const char *name;
		uint8_t b[15];
		unsigned int n;
	} bad[] = {
		{ "mov %rcx,%rax (register)", { 0x48, 0x89, 0xc8 }, 3 },
		{ "lock add %rax,(%rcx)", { 0xf0, 0x48, 0x01, 0x01 }, 4 },
		{ "xchg %rax,(%rcx)", { 0x48, 0x87, 0x01 }, 3 },
		{ "addr32 mov %eax,(%ecx)", { 0x67, 0x89, 0x01 }, 3 },
		{ "vmovdqu (%rcx),%xmm0 VEX load",
		  { 0xc5, 0xfa, 0x6f, 0x01 },
		  4 },
		{ "vmovdqu %xmm0,(%rcx) vvvv used",
		  { 0xc5, 0xf2, 0x7f, 0x01 },
		  4 },
		{ "vmovdqu %xmm0,(%rcx) map 0F38",
		  { 0xc4, 0xe2, 0x7a, 0x7f, 0x01 },
		  5 },
		{ "66 VEX", { 0x66, 0xc5, 0xfa, 0x7f, 0x01 }, 5 },
		{ "EVEX vmovdqu64", { 0x62, 0xf1, 0xfe, 0x48, 0x7f, 0x01 }, 6 },
		{ "movdir64b (%rcx),%rax misaligned",
		  { 0x66, 0x0f, 0x38, 0xf8, 0x01 },
		  5 },
		{ "movdir64b without 66", { 0x0f, 0x38, 0xf8, 0x01 }, 4 },
		{ "movdir64b register source",
		  { 0x66, 0x0f, 0x38, 0xf8, 0xc1 },
		  5 },
		{ "rep stosq", { 0xf3, 0x48, 0xab }, 3 },
		{ "mov (%rcx),%rax (load)", { 0x48, 0x8b, 0x01 }, 3 },
		{ "movq %mm0,(%rcx) MMX", { 0x0f, 0x7f, 0x01 }, 3 },
		{ "c7 /1 invalid", { 0xc7, 0x09, 0, 0, 0, 0 }, 6 },
		{ "truncated disp32", { 0x48, 0x89, 0x81, 0x00 }, 4 },
	};
	struct ishim_x86_store st;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_MSG(ishim_x86_decode_store(bad[i].b, bad[i].n, &R, &st) !=
				  0,
			  "%s: accepted", bad[i].name);

	/* VEX.256: the upper half comes from the YMM state, zero without */
	{
		static const uint8_t b[] = { 0xc5, 0xfe, 0x7f, 0x19 };
		uint8_t ymmh[16][16];

		CHECK_MSG(ishim_x86_decode_store(b, sizeof(b), &R, &st) == 0 &&
				  st.size == 32 && st.addr == G(X86_RCX) &&
				  !memcmp(st.data, XMM[3], 16) &&
				  st.data[16] == 0 && st.data[31] == 0,
			  "vmovdqu %%ymm3,(%%rcx) without YMM state");
		for (int i = 0; i < 16; i++)
			memset(ymmh[i], 0xa0 + i, 16);
		R.ymmh = (const uint8_t(*)[16])ymmh;
		CHECK_MSG(ishim_x86_decode_store(b, sizeof(b), &R, &st) == 0 &&
				  st.size == 32 &&
				  !memcmp(st.data, XMM[3], 16) &&
				  st.data[16] == 0xa3 && st.data[31] == 0xa3,
			  "vmovdqu %%ymm3,(%%rcx) with YMM state");
		R.ymmh = NULL;
	}
	/* movdir64b: destination in the register, source in memory */
	{
		static const uint8_t b[] = { 0x66, 0x0f, 0x38, 0xf8, 0x0a };
		static const uint8_t rip[] = { 0x66, 0x44, 0x0f, 0x38, 0xf8,
					       0x05, 0x40, 0,	 0,    0 };
		uint64_t rcx = R.gpr[X86_RCX];

		R.gpr[X86_RCX] = 0x7000040;
		CHECK_MSG(ishim_x86_decode_store(b, sizeof(b), &R, &st) == 0 &&
				  st.size == 64 && st.len == 5 &&
				  st.addr == 0x7000040 && st.src == G(X86_RDX),
			  "movdir64b (%%rdx),%%rcx");
		R.gpr[X86_RCX] = rcx;
		R.gpr[X86_R8] = 0x9000000;
		CHECK_MSG(ishim_x86_decode_store(rip, sizeof(rip), &R, &st) ==
					  0 &&
				  st.size == 64 && st.len == 10 &&
				  st.addr == 0x9000000 &&
				  st.src == 0x400000 + 10 + 0x40,
			  "movdir64b 0x40(%%rip),%%r8");
		R.gpr[X86_R8] = 0x1000000ull * 9 + 0x11ull * 9;
	}

	/* fs:/gs: are accepted but flagged: the trap uses si_addr then */
	static const uint8_t fs[] = { 0x64, 0x48, 0x89, 0x01 };

	CHECK_MSG(ishim_x86_decode_store(fs, sizeof(fs), &R, &st) == 0 &&
			  st.seg_base && st.len == 4,
		  "fs: store not flagged");
}

int main(void)
{
	init_regs();
	run_decode_cases();
	run_refusals();
	/* chaining first, in children of a process that has not armed the
	 * trap yet: without the preload nothing interposes sigaction() */
	run_chain_cases();
	run_trap_cases();
	return check_finish();
}
