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
};

struct ishim_x86_store {
	uint64_t addr; /* effective address (segment base NOT added) */
	bool seg_base; /* fs:/gs: override: addr lacks the segment base */
	uint8_t len; /* instruction length in bytes */
	uint8_t size; /* bytes stored: 1, 2, 4, 8 or 16 */
	uint64_t value; /* low 8 bytes of the stored value */
	uint64_t value_hi; /* high 8 bytes of a 16-byte store */
};

/*
 * Decode the instruction at 'code' (at most 'avail' readable bytes).
 * Returns 0, or -1 if it is not one of the supported store forms:
 *   [66][REX] 89 /r, 88 /r, [66][REX.W] C7 /0, C6 /0, [REX.W] 0F C3,
 *   [REX] A2/A3 moffs64, 66 0F D6 (movq), 66 [REX.W] 0F 7E (movd/movq),
 *   0F 11 (movups/movupd; F3 movss, F2 movsd), 0F 29, 0F 2B, 66 0F 7F,
 *   F3 0F 7F, 66 0F E7.
 * Not supported: VEX/EVEX, 0x67 address size, LOCK/xchg and other
 * read-modify-write forms, string stores, MOVDIR64B.
 */
int ishim_x86_decode_store(const uint8_t *code, unsigned int avail,
			   const struct ishim_x86_regs *r,
			   struct ishim_x86_store *out);

#endif /* ISHIM_X86_DECODE_H */
