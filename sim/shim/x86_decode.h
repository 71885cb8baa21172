/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Decoder for the x86-64 store instructions a doorbell write can compile
 * to.  Pure function of the instruction bytes and a register snapshot, so
 * it is unit-testable without taking a fault.
 */
#ifndef ISHIM_X86_DECODE_H
#define ISHIM_X86_DECODE_H

#include <stdbool.h>
#include <stdint.h>

/* General-purpose registers in hardware encoding order. */
enum {
	X86_RAX,
	X86_RCX,
	X86_RDX,
	X86_RBX,
	X86_RSP,
	X86_RBP,
	X86_RSI,
	X86_RDI,
	X86_R8,
	X86_R9,
	X86_R10,
	X86_R11,
	X86_R12,
	X86_R13,
	X86_R14,
	X86_R15,
	X86_NGPR
};

struct ishim_x86_regs {
	uint64_t gpr[X86_NGPR];
	uint64_t rip; /* address of the instruction */
	const uint8_t (*xmm)[16]; /* 16 XMM registers, or NULL */
	/* bits 128..255 of the 16 YMM registers (the AVX component of the
	 * XSAVE area), or NULL when they are in their initial state (zero) */
	const uint8_t (*ymmh)[16];
};

struct ishim_x86_store {
	uint64_t addr; /* effective address (segment base NOT added) */
	bool seg_base; /* fs:/gs: override: addr lacks the segment base */
	uint8_t len; /* instruction length in bytes */
	uint8_t size; /* bytes stored: 1, 2, 4, 8, 16, 32 or 64 */
	union {
		uint8_t data[32]; /* the stored bytes, up to 32 */
		struct {
			uint64_t value; /* bytes 0..7 */
			uint64_t value_hi; /* bytes 8..15 */
		};
	};
	/* MOVDIR64B: the 64 bytes stored are read from here (the source
	 * operand); data is unused.  0 for every other store. */
	uint64_t src;
};

/*
 * Decode the instruction at 'code' (at most 'avail' readable bytes).
 * Returns 0, or -1 if it is not one of the supported store forms:
 *   [66][REX] 89 /r, 88 /r, [66][REX.W] C7 /0, C6 /0, [REX.W] 0F C3,
 *   [REX] A2/A3 moffs64, 66 0F D6 (movq), 66 [REX.W] 0F 7E (movd/movq),
 *   0F 11 (movups/movupd; F3 movss, F2 movsd), 0F 29, 0F 2B, 66 0F 7F,
 *   F3 0F 7F, 66 0F E7;
 *   the VEX (C4/C5) forms of the same SSE stores, 128 and 256 bits
 *   (vmovups/pd, vmovss/sd, vmovaps/pd, vmovntps/pd, vmovdqa, vmovdqu,
 *   vmovntdq, vmovq, vmovd);
 *   66 0F 38 F8 (movdir64b: 64 bytes from the source operand to the
 *   64-byte aligned address in the register operand).
 * Not supported: EVEX (AVX-512), 0x67 address size, LOCK/xchg and other
 * read-modify-write forms, string stores.
 */
int ishim_x86_decode_store(const uint8_t *code, unsigned int avail,
			   const struct ishim_x86_regs *r,
			   struct ishim_x86_store *out);

#endif /* ISHIM_X86_DECODE_H */
