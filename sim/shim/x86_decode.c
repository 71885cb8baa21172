// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * x86-64 store decoder for the doorbell trap.  Only what compilers emit
 * for a volatile store, the SSE and AVX forms of memcpy-like copies, and
 * the 64-byte direct store (MOVDIR64B) a WQE copy to an express-doorbell
 * window may use, are understood; anything else is refused so the fault goes to the next
 * SIGSEGV handler instead of being mis-emulated.
 *
 * Runs inside a signal handler: no libc calls, no allocation.
 */
#include <string.h>

#include "x86_decode.h"

struct cursor {
	const uint8_t *p;
	unsigned int pos, avail;
};

static int next(struct cursor *c, uint8_t *b)
{
	if (c->pos >= c->avail || c->pos >= 15) /* 15: architectural limit */
		return -1;
	*b = c->p[c->pos++];
	return 0;
}

static int next_le(struct cursor *c, unsigned int n, uint64_t *v)
{
	uint64_t x = 0;
	uint8_t b;

	for (unsigned int i = 0; i < n; i++) {
		if (next(c, &b))
			return -1;
		x |= (uint64_t)b << (8 * i);
	}
	*v = x;
	return 0;
}

static int64_t sext(uint64_t v, unsigned int bytes)
{
	unsigned int shift = 64 - 8 * bytes;

	return (int64_t)(v << shift) >> shift;
}

struct modrm {
	unsigned int reg; /* ModRM.reg extended by REX.R */
	uint64_t addr; /* memory operand, RIP-relative not yet resolved */
	bool riprel;
	bool src_riprel; /* movdir64b: the source operand was RIP-relative */
};

/* Memory operand of a ModRM byte (mod 00/01/10); mod 11 is refused. */
static int decode_modrm(struct cursor *c, uint8_t rex,
			const struct ishim_x86_regs *r, struct modrm *m)
{
	unsigned int mod, rm;
	uint64_t disp = 0;
	uint8_t b, sib;

	if (next(c, &b))
		return -1;
	mod = b >> 6;
	rm = b & 7;
	m->reg = ((b >> 3) & 7) | ((rex & 4) ? 8 : 0);
	m->addr = 0;
	m->riprel = false;
	if (mod == 3)
		return -1; /* register operand: not a store to memory */

	if (rm == 4) {
		unsigned int scale, index, base;

		if (next(c, &sib))
			return -1;
		scale = sib >> 6;
		index = ((sib >> 3) & 7) | ((rex & 2) ? 8 : 0);
		base = (sib & 7) | ((rex & 1) ? 8 : 0);
		if (index != X86_RSP) /* index 100 without REX.X: none */
			m->addr += r->gpr[index] << scale;
		if ((sib & 7) == 5 && mod == 0) {
			/* no base: disp32 (also with REX.B, i.e. r13) */
			if (next_le(c, 4, &disp))
				return -1;
			m->addr += sext(disp, 4);
			return 0;
		}
		m->addr += r->gpr[base];
	} else if (rm == 5 && mod == 0) {
		if (next_le(c, 4, &disp))
			return -1;
		m->addr = sext(disp, 4);
		m->riprel = true;
		return 0;
	} else {
		m->addr = r->gpr[rm | ((rex & 1) ? 8 : 0)];
	}
	if (mod == 1) {
		if (next_le(c, 1, &disp))
			return -1;
		m->addr += sext(disp, 1);
	} else if (mod == 2) {
		if (next_le(c, 4, &disp))
			return -1;
		m->addr += sext(disp, 4);
	}
	return 0;
}

static void xmm_value(const struct ishim_x86_regs *r, unsigned int idx,
		      struct ishim_x86_store *out)
{
	if (!r->xmm) {
		out->value = out->value_hi = 0;
		return;
	}
	memcpy(&out->value, &r->xmm[idx][0], 8);
	memcpy(&out->value_hi, &r->xmm[idx][8], 8);
}

static uint64_t trunc_to(uint64_t v, unsigned int size)
{
	return size >= 8 ? v : v & ((1ull << (8 * size)) - 1);
}

/* The upper 16 bytes of YMM 'idx' (zero in their initial state). */
static void ymmh_value(const struct ishim_x86_regs *r, unsigned int idx,
		       struct ishim_x86_store *out)
{
	if (r->ymmh)
		memcpy(out->data + 16, r->ymmh[idx], 16);
	else
		memset(out->data + 16, 0, 16);
}

/*
 * 66 0F 38 F8 /r: movdir64b r64, m512.  The destination address is in the
 * register operand, the 64 bytes come from the memory operand (its
 * address is returned in 'src'; the caller copies them).
 */
static int decode_movdir64b(struct cursor *c, uint8_t rex, bool opsize,
			    uint8_t rep, const struct ishim_x86_regs *r,
			    struct modrm *m, struct ishim_x86_store *out)
{
	uint8_t op;

	if (next(c, &op) || op != 0xF8 || !opsize || rep ||
	    decode_modrm(c, rex, r, m))
		return -1;
	out->size = 64;
	out->src = m->addr; /* RIP-relative resolved by the caller */
	m->src_riprel = m->riprel;
	m->addr = r->gpr[m->reg];
	m->riprel = false;
	/* Misaligned destinations fault (#GP) on hardware. */
	return m->addr % 64 ? -1 : 1;
}

/* Two-byte opcodes 0F xx: movnti, the SSE stores and movdir64b.  Returns
 * 0 for an ordinary store, 1 for movdir64b, -1 for anything else. */
static int decode_0f(struct cursor *c, uint8_t rex, bool opsize, uint8_t rep,
		     const struct ishim_x86_regs *r, struct modrm *m,
		     struct ishim_x86_store *out)
{
	uint8_t op;

	if (next(c, &op))
		return -1;
	switch (op) {
	case 0x38:
		return decode_movdir64b(c, rex, opsize, rep, r, m, out);
	case 0xC3: /* movnti m32/m64, r32/r64 */
		if (opsize || rep || decode_modrm(c, rex, r, m))
			return -1;
		out->size = (rex & 8) ? 8 : 4;
		out->value = trunc_to(r->gpr[m->reg], out->size);
		return 0;
	case 0xD6: /* 66: movq m64, xmm */
		if (!opsize || rep || decode_modrm(c, rex, r, m))
			return -1;
		xmm_value(r, m->reg, out);
		out->size = 8;
		break;
	case 0x7E: /* 66: movd m32, xmm / REX.W movq m64, xmm (F3: load) */
		if (!opsize || rep || decode_modrm(c, rex, r, m))
			return -1;
		xmm_value(r, m->reg, out);
		out->size = (rex & 8) ? 8 : 4;
		break;
	case 0x11: /* movups/movupd; F3 movss; F2 movsd */
		if (decode_modrm(c, rex, r, m))
			return -1;
		xmm_value(r, m->reg, out);
		out->size = rep == 0xF3 ? 4 : rep == 0xF2 ? 8 : 16;
		break;
	case 0x29: /* movaps/movapd */
	case 0x2B: /* movntps/movntpd */
		if (rep || decode_modrm(c, rex, r, m))
			return -1;
		xmm_value(r, m->reg, out);
		out->size = 16;
		break;
	case 0x7F: /* 66 movdqa, F3 movdqu (no prefix: MMX, refused) */
		if ((!opsize && rep != 0xF3) || rep == 0xF2 ||
		    decode_modrm(c, rex, r, m))
			return -1;
		xmm_value(r, m->reg, out);
		out->size = 16;
		break;
	case 0xE7: /* 66 movntdq (no prefix: MMX movntq, refused) */
		if (!opsize || rep || decode_modrm(c, rex, r, m))
			return -1;
		xmm_value(r, m->reg, out);
		out->size = 16;
		break;
	default:
		return -1;
	}
	if (out->size < 16)
		out->value_hi = 0;
	if (out->size < 8)
		out->value = trunc_to(out->value, out->size);
	return 0;
}

/*
 * VEX-encoded stores (C5: two-byte VEX, C4: three-byte VEX, map 0F only):
 * the AVX forms of the SSE stores above, 16 or 32 bytes with VEX.L.  In
 * 64-bit mode C4/C5 are always VEX.  vvvv must be unused (1111b), as the
 * store forms require.  'b' is the C4/C5 byte already read.
 */
static int decode_vex(struct cursor *c, uint8_t b,
		      const struct ishim_x86_regs *r, struct modrm *m,
		      struct ishim_x86_store *out)
{
	uint8_t v1, v2, op, rex = 0x40;
	unsigned int pp, vvvv, l, map = 1;
	bool w = false;

	if (next(c, &v1))
		return -1;
	if (b == 0xC5) {
		/* R vvvv L pp; R inverted */
		if (!(v1 & 0x80))
			rex |= 4;
		v2 = v1;
	} else {
		/* R X B mmmmm, then W vvvv L pp; RXB inverted */
		if (next(c, &v2))
			return -1;
		if (!(v1 & 0x80))
			rex |= 4;
		if (!(v1 & 0x40))
			rex |= 2;
		if (!(v1 & 0x20))
			rex |= 1;
		map = v1 & 0x1f;
		w = v2 & 0x80;
		if (w)
			rex |= 8;
	}
	vvvv = (~v2 >> 3) & 0xf;
	l = (v2 >> 2) & 1;
	pp = v2 & 3; /* 0 none, 1 66, 2 F3, 3 F2 */
	if (map != 1 || vvvv || next(c, &op))
		return -1;
	switch (op) {
	case 0x11: /* vmovups/vmovupd; F3 vmovss; F2 vmovsd */
		if (decode_modrm(c, rex, r, m))
			return -1;
		out->size = pp == 2 ? 4 : pp == 3 ? 8 : 16 << l;
		break;
	case 0x29: /* vmovaps/vmovapd */
	case 0x2B: /* vmovntps/vmovntpd */
		if (pp > 1 || decode_modrm(c, rex, r, m))
			return -1;
		out->size = 16 << l;
		break;
	case 0x7F: /* 66 vmovdqa, F3 vmovdqu */
		if ((pp != 1 && pp != 2) || decode_modrm(c, rex, r, m))
			return -1;
		out->size = 16 << l;
		break;
	case 0xE7: /* 66 vmovntdq */
		if (pp != 1 || decode_modrm(c, rex, r, m))
			return -1;
		out->size = 16 << l;
		break;
	case 0xD6: /* 66 vmovq m64, xmm */
		if (pp != 1 || l || decode_modrm(c, rex, r, m))
			return -1;
		out->size = 8;
		break;
	case 0x7E: /* 66 vmovd m32, xmm; W: vmovq m64, xmm */
		if (pp != 1 || l || decode_modrm(c, rex, r, m))
			return -1;
		out->size = w ? 8 : 4;
		break;
	default:
		return -1;
	}
	xmm_value(r, m->reg, out);
	if (out->size == 32)
		ymmh_value(r, m->reg, out);
	if (out->size < 16)
		out->value_hi = 0;
	if (out->size < 8)
		out->value = trunc_to(out->value, out->size);
	return 0;
}

int ishim_x86_decode_store(const uint8_t *code, unsigned int avail,
			   const struct ishim_x86_regs *r,
			   struct ishim_x86_store *out)
{
	struct cursor c = { .p = code, .avail = avail };
	bool opsize = false, seg = false;
	struct modrm m = { 0 };
	uint8_t b, rex = 0, rep = 0;
	uint64_t imm;
	int rc;

	memset(out, 0, sizeof(*out));
	for (;;) { /* legacy prefixes */
		if (next(&c, &b))
			return -1;
		if (b == 0x66)
			opsize = true;
		else if (b == 0xF2 || b == 0xF3)
			rep = b;
		else if (b == 0x2E || b == 0x36 || b == 0x3E || b == 0x26)
			; /* ignored in 64-bit mode */
		else if (b == 0x64 || b == 0x65)
			seg = true;
		else if (b == 0x67 || b == 0xF0)
			return -1; /* address size, LOCK: unsupported */
		else
			break;
	}
	if (b == 0xC4 || b == 0xC5) {
		/* no legacy SIMD prefix or REX may precede a VEX prefix */
		if (opsize || rep || decode_vex(&c, b, r, &m, out))
			return -1;
		goto done;
	}
	if ((b & 0xF0) == 0x40) { /* REX must come right before the opcode */
		rex = b;
		if (next(&c, &b))
			return -1;
	}

	switch (b) {
	case 0x88: /* mov r/m8, r8 */
		if (rep || decode_modrm(&c, rex, r, &m))
			return -1;
		out->size = 1;
		if (!rex && m.reg >= 4) /* AH, CH, DH, BH */
			out->value = (r->gpr[m.reg - 4] >> 8) & 0xff;
		else
			out->value = r->gpr[m.reg] & 0xff;
		break;
	case 0x89: /* mov r/m16/32/64, r */
		if (rep || decode_modrm(&c, rex, r, &m))
			return -1;
		out->size = (rex & 8) ? 8 : opsize ? 2 : 4;
		out->value = trunc_to(r->gpr[m.reg], out->size);
		break;
	case 0xC6: /* mov r/m8, imm8 */
		if (rep || decode_modrm(&c, rex, r, &m) || (m.reg & 7) != 0 ||
		    next_le(&c, 1, &imm))
			return -1;
		out->size = 1;
		out->value = imm;
		break;
	case 0xC7: /* mov r/m16/32/64, imm16/32 (sign-extended for 64) */
		if (rep || decode_modrm(&c, rex, r, &m) || (m.reg & 7) != 0)
			return -1;
		out->size = (rex & 8) ? 8 : opsize ? 2 : 4;
		if (next_le(&c, out->size == 2 ? 2 : 4, &imm))
			return -1;
		out->value = out->size == 8 ? (uint64_t)sext(imm, 4) : imm;
		break;
	case 0xA2: /* mov moffs64, AL */
	case 0xA3: /* mov moffs64, eAX/rAX */
		if (rep || next_le(&c, 8, &m.addr))
			return -1;
		out->size = b == 0xA2 ? 1 : (rex & 8) ? 8 : opsize ? 2 : 4;
		out->value = trunc_to(r->gpr[X86_RAX], out->size);
		break;
	case 0x0F:
		rc = decode_0f(&c, rex, opsize, rep, r, &m, out);
		if (rc < 0)
			return -1;
		if (rc == 1 && m.src_riprel)
			out->src += r->rip + c.pos;
		break;
	default:
		return -1;
	}
done:
	out->len = c.pos;
	out->addr = m.riprel ? r->rip + c.pos + m.addr : m.addr;
	out->seg_base = seg;
	return 0;
}
