/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Golden send WQEs, written out by hand from the device reference
 * (docs/device-contract.md §3.1-§3.7), shared by two tests:
 *
 *   tests/datapath/wqe_golden.c     the provider must BUILD these bytes
 *                                   from the GW_* inputs below;
 *   sim/tests/test_dev_wqe_golden.c the emulator must DECODE these bytes
 *                                   back into the GW_* values.
 *
 * So a provider change and a device change are each checked against the
 * spec, never only against each other.  Deliberately free of
 * common/ionic_hw.h: no struct, offset or flag macro of the code under
 * test is used here, every byte is spelled out.
 *
 * Conventions (§0.3): wqe_idx is LE64 at 0; everything else is BE.  Flags
 * (§3.6) are BE16 at 10: FENCE 0x0001, SOL 0x0002, INL 0x0004, SIG 0x0008,
 * COLOR 0x0010.  Opcodes (§3.5): v1 / v2 byte at offset 8.  Every WQE is
 * one 64-byte slot (stride 64).
 *
 * The non-atomic bodies do not depend on the firmware version, only the
 * opcode byte does: each is a macro taking the opcode byte, instantiated
 * once per version with the literal opcode from the §3.5 table.
 */
#ifndef IONIC_WQE_GOLDEN_BYTES_H
#define IONIC_WQE_GOLDEN_BYTES_H
/* clang-format off */

#include <stdint.h>

#define GW_SIZE 64

/* ---------------------------------------------------------------------- */
/* RDMA_WRITE: slot 3, COLOR 1, FENCE|SIG, two SGEs                       */
/* (docs/device-contract.md §3.3 b, §3.1)                                 */
/* ---------------------------------------------------------------------- */
#define GW_WRITE_SLOT 3
#define GW_WRITE_FLAGS 0x0019          /* COLOR | SIG | FENCE */
#define GW_WRITE_RVA 0x0123456789abcdefull
#define GW_WRITE_RKEY 0x00a1b2c3u
#define GW_WRITE_SGE0_VA 0x00007f0011223300ull
#define GW_WRITE_SGE0_LEN 0x100u
#define GW_WRITE_SGE0_LKEY 0x0000d001u
#define GW_WRITE_SGE1_VA 0x00007f0011224400ull
#define GW_WRITE_SGE1_LEN 0x28u
#define GW_WRITE_SGE1_LKEY 0x0000d002u
#define GW_WRITE_LEN 0x128u
#define GW_WRITE_V1_OP 0x04
#define GW_WRITE_V2_OP 0x21
#define GW_WRITE_BYTES(OP) {                                                  \
	/*  0 wqe_idx LE64 = 3 */                                             \
	0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,                       \
	/*  8 op, 9 num_sge 2, 10 flags BE16 0x0019, 12 imm_data_key 0 */     \
	OP, 0x02, 0x00, 0x19, 0x00, 0x00, 0x00, 0x00,                         \
	/* 16 remote_va_high, 20 remote_va_low */                             \
	0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,                       \
	/* 24 remote_rkey, 28 length 0x128 */                                 \
	0x00, 0xa1, 0xb2, 0xc3, 0x00, 0x00, 0x01, 0x28,                       \
	/* 32 sgl[0].va */                                                    \
	0x00, 0x00, 0x7f, 0x00, 0x11, 0x22, 0x33, 0x00,                       \
	/* 40 sgl[0].len 0x100, 44 sgl[0].lkey */                             \
	0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0xd0, 0x01,                       \
	/* 48 sgl[1].va */                                                    \
	0x00, 0x00, 0x7f, 0x00, 0x11, 0x22, 0x44, 0x00,                       \
	/* 56 sgl[1].len 0x28, 60 sgl[1].lkey */                              \
	0x00, 0x00, 0x00, 0x28, 0x00, 0x00, 0xd0, 0x02,                       \
}
static const uint8_t gw_write_v1[GW_SIZE] = GW_WRITE_BYTES(0x04);
static const uint8_t gw_write_v2[GW_SIZE] = GW_WRITE_BYTES(0x21);

/* ---------------------------------------------------------------------- */
/* RDMA_WRITE_WITH_IMM: slot 7, COLOR 0, SOL|INL, 20 inline bytes from two */
/* SGEs ("ionic golden" + "WRITEIMM"), imm 0x5a6b7c8d                      */
/* (docs/device-contract.md §3.3 b, §3.4)                                  */
/* ---------------------------------------------------------------------- */
#define GW_WRIMM_SLOT 7
#define GW_WRIMM_FLAGS 0x0006          /* INL | SOL, colour 0 */
#define GW_WRIMM_RVA 0xfedcba9876543210ull
#define GW_WRIMM_RKEY 0x00112233u
#define GW_WRIMM_IMM 0x5a6b7c8du       /* host value; on the wire BE */
#define GW_WRIMM_DATA0 "ionic golden"  /* 12 bytes */
#define GW_WRIMM_DATA1 "WRITEIMM"      /* 8 bytes */
#define GW_WRIMM_LEN 20u
#define GW_WRIMM_V1_OP 0x05
#define GW_WRIMM_V2_OP 0x61
#define GW_WRIMM_BYTES(OP) {                                                  \
	/*  0 wqe_idx LE64 = 7 */                                             \
	0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,                       \
	/*  8 op, num_sge 0 (inline), flags 0x0006, imm_data_key = imm */     \
	OP, 0x00, 0x00, 0x06, 0x5a, 0x6b, 0x7c, 0x8d,                         \
	/* 16 remote_va_high, 20 remote_va_low */                             \
	0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10,                       \
	/* 24 remote_rkey, 28 length 20 */                                    \
	0x00, 0x11, 0x22, 0x33, 0x00, 0x00, 0x00, 0x14,                       \
	/* 32 data: "ionic go" */                                             \
	0x69, 0x6f, 0x6e, 0x69, 0x63, 0x20, 0x67, 0x6f,                       \
	/* 40 "lden" then "WRIT" (second SGE follows directly) */             \
	0x6c, 0x64, 0x65, 0x6e, 0x57, 0x52, 0x49, 0x54,                       \
	/* 48 "EIMM", then zero to the end of the slot */                     \
	0x45, 0x49, 0x4d, 0x4d, 0x00, 0x00, 0x00, 0x00,                       \
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,                       \
}
static const uint8_t gw_wrimm_v1[GW_SIZE] = GW_WRIMM_BYTES(0x05);
static const uint8_t gw_wrimm_v2[GW_SIZE] = GW_WRIMM_BYTES(0x61);

/* ---------------------------------------------------------------------- */
/* RDMA_READ: slot 1, COLOR 1, SIG, one SGE of 64 KiB                     */
/* (docs/device-contract.md §3.3 b)                                       */
/* ---------------------------------------------------------------------- */
#define GW_READ_SLOT 1
#define GW_READ_FLAGS 0x0018           /* COLOR | SIG */
#define GW_READ_RVA 0x00000004fffff000ull
#define GW_READ_RKEY 0x80000001u
#define GW_READ_SGE_VA 0x0000559900aa0000ull
#define GW_READ_SGE_LEN 0x10000u
#define GW_READ_SGE_LKEY 0x00000101u
#define GW_READ_V1_OP 0x03
#define GW_READ_V2_OP 0x02
#define GW_READ_BYTES(OP) {                                                   \
	/*  0 wqe_idx LE64 = 1 */                                             \
	0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,                       \
	/*  8 op, num_sge 1, flags 0x0018, imm 0 */                           \
	OP, 0x01, 0x00, 0x18, 0x00, 0x00, 0x00, 0x00,                         \
	/* 16 remote_va_high, 20 remote_va_low */                             \
	0x00, 0x00, 0x00, 0x04, 0xff, 0xff, 0xf0, 0x00,                       \
	/* 24 remote_rkey, 28 length 0x10000 */                               \
	0x80, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00,                       \
	/* 32 sgl[0].va */                                                    \
	0x00, 0x00, 0x55, 0x99, 0x00, 0xaa, 0x00, 0x00,                       \
	/* 40 sgl[0].len, 44 sgl[0].lkey */                                   \
	0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x01, 0x01,                       \
	/* 48 sgl[1]: unused, zero */                                         \
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,                       \
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,                       \
}
static const uint8_t gw_read_v1[GW_SIZE] = GW_READ_BYTES(0x03);
static const uint8_t gw_read_v2[GW_SIZE] = GW_READ_BYTES(0x02);

/* ---------------------------------------------------------------------- */
/* ATOMIC_CMP_AND_SWP: slot 2, COLOR 1, SIG.  swap <- swap, compare <-     */
/* compare_add (docs/device-contract.md §3.3 c/d). v1: local SGE at 48;    */
/* v2: lkey 44, va 48.                                                     */
/* ---------------------------------------------------------------------- */
#define GW_CS_SLOT 2
#define GW_CS_FLAGS 0x0018             /* COLOR | SIG */
#define GW_CS_RVA 0x00007fab12345678ull
#define GW_CS_RKEY 0x00c0ffeeu
#define GW_CS_SWAP 0x1111222233334444ull
#define GW_CS_COMPARE 0x5555666677778888ull
#define GW_CS_LOCAL_VA 0x00007f0000001008ull
#define GW_CS_LKEY 0x0000beefu
#define GW_CS_V1_OP 0x06
#define GW_CS_V2_OP 0x04
static const uint8_t gw_cs_v1[GW_SIZE] = {
	/*  0 wqe_idx LE64 = 2 */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/*  8 op 6 (v1 ATOMIC_CS), num_sge 1, flags 0x0018, imm 0 */
	0x06, 0x01, 0x00, 0x18, 0x00, 0x00, 0x00, 0x00,
	/* 16 remote_va_high, 20 remote_va_low */
	0x00, 0x00, 0x7f, 0xab, 0x12, 0x34, 0x56, 0x78,
	/* 24 remote_rkey, 28 swap_add_high */
	0x00, 0xc0, 0xff, 0xee, 0x11, 0x11, 0x22, 0x22,
	/* 32 swap_add_low, 36 compare_high */
	0x33, 0x33, 0x44, 0x44, 0x55, 0x55, 0x66, 0x66,
	/* 40 compare_low, 44 reserved */
	0x77, 0x77, 0x88, 0x88, 0x00, 0x00, 0x00, 0x00,
	/* 48 sge.va (local result buffer) */
	0x00, 0x00, 0x7f, 0x00, 0x00, 0x00, 0x10, 0x08,
	/* 56 sge.len = 8, 60 sge.lkey */
	0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0xbe, 0xef,
};
static const uint8_t gw_cs_v2[GW_SIZE] = {
	/*  0 wqe_idx LE64 = 2 */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/*  8 op 0x04 (v2 ATOMIC_CS), num_sge 1, flags 0x0018, imm 0 */
	0x04, 0x01, 0x00, 0x18, 0x00, 0x00, 0x00, 0x00,
	/* 16 remote_va_high, 20 remote_va_low */
	0x00, 0x00, 0x7f, 0xab, 0x12, 0x34, 0x56, 0x78,
	/* 24 remote_rkey, 28 swap_add_high */
	0x00, 0xc0, 0xff, 0xee, 0x11, 0x11, 0x22, 0x22,
	/* 32 swap_add_low, 36 compare_high */
	0x33, 0x33, 0x44, 0x44, 0x55, 0x55, 0x66, 0x66,
	/* 40 compare_low, 44 lkey */
	0x77, 0x77, 0x88, 0x88, 0x00, 0x00, 0xbe, 0xef,
	/* 48 local_va */
	0x00, 0x00, 0x7f, 0x00, 0x00, 0x00, 0x10, 0x08,
	/* 56 rsvd_expdb: zero */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

/* ---------------------------------------------------------------------- */
/* ATOMIC_FETCH_AND_ADD: slot 4, COLOR 1, FENCE, unsignalled.  swap_add <- */
/* compare_add (the addend), compare = 0 (docs/device-contract.md §3.3);   */
/* wr.atomic.swap is junk.                                                 */
/* ---------------------------------------------------------------------- */
#define GW_FA_SLOT 4
#define GW_FA_FLAGS 0x0011             /* COLOR | FENCE */
#define GW_FA_RVA 0x0000000200000010ull
#define GW_FA_RKEY 0x01020304u
#define GW_FA_ADD 0x8000000000000001ull
#define GW_FA_JUNK_SWAP 0xffffffffffffffffull
#define GW_FA_LOCAL_VA 0x00007f0000002000ull
#define GW_FA_LKEY 0x0000cafeu
#define GW_FA_V1_OP 0x07
#define GW_FA_V2_OP 0x05
static const uint8_t gw_fa_v1[GW_SIZE] = {
	/*  0 wqe_idx LE64 = 4 */
	0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/*  8 op 7 (v1 ATOMIC_FA), num_sge 1, flags 0x0011, imm 0 */
	0x07, 0x01, 0x00, 0x11, 0x00, 0x00, 0x00, 0x00,
	/* 16 remote_va_high, 20 remote_va_low */
	0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x10,
	/* 24 remote_rkey, 28 swap_add_high */
	0x01, 0x02, 0x03, 0x04, 0x80, 0x00, 0x00, 0x00,
	/* 32 swap_add_low, 36 compare_high = 0 */
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
	/* 40 compare_low = 0, 44 reserved */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* 48 sge.va */
	0x00, 0x00, 0x7f, 0x00, 0x00, 0x00, 0x20, 0x00,
	/* 56 sge.len = 8, 60 sge.lkey */
	0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0xca, 0xfe,
};
static const uint8_t gw_fa_v2[GW_SIZE] = {
	/*  0 wqe_idx LE64 = 4 */
	0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/*  8 op 0x05 (v2 ATOMIC_FA), num_sge 1, flags 0x0011, imm 0 */
	0x05, 0x01, 0x00, 0x11, 0x00, 0x00, 0x00, 0x00,
	/* 16 remote_va_high, 20 remote_va_low */
	0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x10,
	/* 24 remote_rkey, 28 swap_add_high */
	0x01, 0x02, 0x03, 0x04, 0x80, 0x00, 0x00, 0x00,
	/* 32 swap_add_low, 36 compare_high = 0 */
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
	/* 40 compare_low = 0, 44 lkey */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xca, 0xfe,
	/* 48 local_va */
	0x00, 0x00, 0x7f, 0x00, 0x00, 0x00, 0x20, 0x00,
	/* 56 rsvd_expdb: zero */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

/* ---------------------------------------------------------------------- */
/* LOCAL_INV: slot 5, COLOR 1, FENCE|SIG; imm_data_key = rkey, body zero   */
/* (docs/device-contract.md §3.3 f)                                        */
/* ---------------------------------------------------------------------- */
#define GW_LINV_SLOT 5
#define GW_LINV_FLAGS 0x0019           /* COLOR | SIG | FENCE */
#define GW_LINV_RKEY 0x00abcd42u
#define GW_LINV_V1_OP 0x09
#define GW_LINV_V2_OP 0x07
#define GW_LINV_BYTES(OP) {                                                   \
	/*  0 wqe_idx LE64 = 5 */                                             \
	0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,                       \
	/*  8 op, num_sge 0, flags 0x0019, imm_data_key = rkey */             \
	OP, 0x00, 0x00, 0x19, 0x00, 0xab, 0xcd, 0x42,                         \
	/* 16..63 body: zero */                                               \
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,                       \
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,                       \
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,                       \
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,                       \
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,                       \
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,                       \
}
static const uint8_t gw_linv_v1[GW_SIZE] = GW_LINV_BYTES(0x09);
static const uint8_t gw_linv_v2[GW_SIZE] = GW_LINV_BYTES(0x07);

/* ---------------------------------------------------------------------- */
/* SEND_WITH_INV (RC): slot 6, COLOR 1, SOL|SIG; imm_data_key = rkey to    */
/* invalidate at the responder; 16..27 zero for RC                         */
/* (docs/device-contract.md §3.3 b, h)                                     */
/* ---------------------------------------------------------------------- */
#define GW_SINV_SLOT 6
#define GW_SINV_FLAGS 0x001a           /* COLOR | SIG | SOL */
#define GW_SINV_RKEY 0x00876501u
#define GW_SINV_SGE_VA 0x0000000000401000ull
#define GW_SINV_SGE_LEN 0x40u
#define GW_SINV_SGE_LKEY 0x00000042u
#define GW_SINV_V1_OP 0x01
#define GW_SINV_V2_OP 0xa0
#define GW_SINV_BYTES(OP) {                                                   \
	/*  0 wqe_idx LE64 = 6 */                                             \
	0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,                       \
	/*  8 op, num_sge 1, flags 0x001a, imm_data_key = rkey */             \
	OP, 0x01, 0x00, 0x1a, 0x00, 0x87, 0x65, 0x01,                         \
	/* 16..27 RC send: no addressing; 28 length 0x40 */                   \
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,                       \
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40,                       \
	/* 32 sgl[0].va */                                                    \
	0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 0x10, 0x00,                       \
	/* 40 sgl[0].len, 44 sgl[0].lkey */                                   \
	0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0x42,                       \
	/* 48 sgl[1]: zero */                                                 \
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,                       \
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,                       \
}
static const uint8_t gw_sinv_v1[GW_SIZE] = GW_SINV_BYTES(0x01);
static const uint8_t gw_sinv_v2[GW_SIZE] = GW_SINV_BYTES(0xa0);

/* ---------------------------------------------------------------------- */
/* BIND_MW, type-1 window (ibv_bind_mw): slot 8, COLOR 1, SIG.             */
/* num_sge_key = new key byte 0x13, imm_data_key = current rkey 0x00345612;*/
/* access LOCAL_WRITE|REMOTE_WRITE|REMOTE_READ = 0x0007 | IS_MW 0x4000     */
/* (docs/device-contract.md §3.3 e, §3.7)                                  */
/* ---------------------------------------------------------------------- */
#define GW_BIND_V1_OP 0x0a
#define GW_BIND_V2_OP 0x08
#define GW_BIND1_SLOT 8
#define GW_BIND1_FLAGS 0x0018          /* COLOR | SIG */
#define GW_BIND1_RKEY 0x00345612u      /* the window's current rkey */
#define GW_BIND1_NEW_RKEY 0x00345613u
#define GW_BIND1_VA 0x00007f5500001000ull
#define GW_BIND1_LEN 0x2000ull
#define GW_BIND1_MR_LKEY 0x00777701u
#define GW_BIND1_MRF 0x4007            /* firmware flags @36 */
#define GW_BIND1_BYTES(OP) {                                                  \
	/*  0 wqe_idx LE64 = 8 */                                             \
	0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,                       \
	/*  8 op, num_sge_key = key byte 0x13, flags 0x0018, current rkey */  \
	OP, 0x13, 0x00, 0x18, 0x00, 0x34, 0x56, 0x12,                         \
	/* 16 va BE64 */                                                      \
	0x00, 0x00, 0x7f, 0x55, 0x00, 0x00, 0x10, 0x00,                       \
	/* 24 length BE64 */                                                  \
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00,                       \
	/* 32 lkey of the MR, 36 flags BE16 0x4007, 38.. reserved */          \
	0x00, 0x77, 0x77, 0x01, 0x40, 0x07, 0x00, 0x00,                       \
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,                       \
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,                       \
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,                       \
}
static const uint8_t gw_bind1_v1[GW_SIZE] = GW_BIND1_BYTES(0x0a);
static const uint8_t gw_bind1_v2[GW_SIZE] = GW_BIND1_BYTES(0x08);

/* ---------------------------------------------------------------------- */
/* BIND_MW, type-2 window (post_send): slot 9, COLOR 0, FENCE|SIG.         */
/* key byte 0xa0, current rkey 0x00998877, length above 4 GiB; access      */
/* REMOTE_ATOMIC|MW_BIND|ZERO_BASED = 0x0038 | IS_MW|INV_EN 0xc000         */
/* (docs/device-contract.md §3.7)                                          */
/* ---------------------------------------------------------------------- */
#define GW_BIND2_SLOT 9
#define GW_BIND2_FLAGS 0x0009          /* SIG | FENCE, colour 0 */
#define GW_BIND2_RKEY 0x00998877u
#define GW_BIND2_NEW_RKEY 0x009988a0u
#define GW_BIND2_VA 0x0000000000010000ull
#define GW_BIND2_LEN 0x0000000180000000ull
#define GW_BIND2_MR_LKEY 0x00000500u
#define GW_BIND2_MRF 0xc038
#define GW_BIND2_BYTES(OP) {                                                  \
	/*  0 wqe_idx LE64 = 9 */                                             \
	0x09, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,                       \
	/*  8 op, key byte 0xa0, flags 0x0009, current rkey */                \
	OP, 0xa0, 0x00, 0x09, 0x00, 0x99, 0x88, 0x77,                         \
	/* 16 va BE64 */                                                      \
	0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,                       \
	/* 24 length BE64 = 0x1_8000_0000 */                                  \
	0x00, 0x00, 0x00, 0x01, 0x80, 0x00, 0x00, 0x00,                       \
	/* 32 lkey, 36 flags BE16 0xc038, 38.. reserved */                    \
	0x00, 0x00, 0x05, 0x00, 0xc0, 0x38, 0x00, 0x00,                       \
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,                       \
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,                       \
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,                       \
}
static const uint8_t gw_bind2_v1[GW_SIZE] = GW_BIND2_BYTES(0x0a);
static const uint8_t gw_bind2_v2[GW_SIZE] = GW_BIND2_BYTES(0x08);

/* clang-format on */
#endif /* IONIC_WQE_GOLDEN_BYTES_H */
