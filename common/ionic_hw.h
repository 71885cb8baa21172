/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic device wire formats: doorbell values, SQ/RQ work queue entries,
 * completion queue entries, opcodes, flags and status codes.
 *
 * HW DATA: every structure here is read or written by the device.  Fields
 * are big endian unless their type says otherwise (__le64).  The provider
 * builds these and ionic-sim consumes them, so a mistake here would be
 * shared by both sides: every size and offset is pinned by a static
 * assertion whose number comes from the ionic device reference, and the
 * golden tests compare bytes written by hand from that reference
 * (tests/golden/) with what each side builds or decodes:
 * tests/datapath/wqe_golden.c and poll_unit.c (provider),
 * sim/tests/test_dev_wqe_golden.c and test_dev_cqe.c (emulator).
 *
 * Pure definitions and tiny inline helpers only; no provider or emulator
 * state belongs in this file.
 */
#ifndef IONIC_HW_H
#define IONIC_HW_H

#include <assert.h>
#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#define IONIC_HW_ASSERT_SIZE(type, size) \
	static_assert(sizeof(type) == (size), #type " size")
#define IONIC_HW_ASSERT_OFF(type, field, off)         \
	static_assert(offsetof(type, field) == (off), \
		      #type "." #field " offset")

/* ------------------------------------------------------------------ */
/* Doorbells: one 64-bit little-endian store to dbpage[qtype].        */
/* ------------------------------------------------------------------ */

#define IONIC_QTYPE_MAX 16
#define IONIC_DBELL_INDEX_MASK 0xffffull
#define IONIC_DBELL_RING_SHIFT 16
#define IONIC_DBELL_RING_MASK 0x7ull
#define IONIC_DBELL_RING_ARM (1ull << 16) /* CQ ring 1: arm for any */
#define IONIC_DBELL_RING_SONLY (2ull << 16) /* CQ ring 2: solicited only */
#define IONIC_DBELL_QID_SHIFT 24
#define IONIC_DBELL_QID_MASK 0xffffffull
#define IONIC_DBELL_QTYPE_SHIFT 48 /* express doorbells only */
#define IONIC_DBELL_EXPDB_SCHED 0xbull
#define IONIC_DBELL_EXPDB_SCHED_SHIFT 19
/* Size of the express doorbell trailer at the end of each CMB WQE. */
#define IONIC_EXP_DBELL_SZ 8

static inline uint64_t ionic_dbell_val(uint32_t qid, unsigned int ring,
				       uint16_t index)
{
	return ((uint64_t)(qid & IONIC_DBELL_QID_MASK)
		<< IONIC_DBELL_QID_SHIFT) |
	       ((uint64_t)(ring & IONIC_DBELL_RING_MASK)
		<< IONIC_DBELL_RING_SHIFT) |
	       index;
}

static inline uint32_t ionic_dbell_qid(uint64_t val)
{
	return (val >> IONIC_DBELL_QID_SHIFT) & IONIC_DBELL_QID_MASK;
}

static inline unsigned int ionic_dbell_ring(uint64_t val)
{
	return (val >> IONIC_DBELL_RING_SHIFT) & IONIC_DBELL_RING_MASK;
}

static inline uint16_t ionic_dbell_index(uint64_t val)
{
	return val & IONIC_DBELL_INDEX_MASK;
}

/* ------------------------------------------------------------------ */
/* Work queue entries                                                  */
/* ------------------------------------------------------------------ */

#define IONIC_WQE_MIN_SIZE 64
#define IONIC_WQE_HDR_SIZE 16
#define IONIC_WQE_PAYLOAD_OFF 32
/* Largest speculative SGE length table the provider may use. */
#define IONIC_SPEC_HIGH 8
#define IONIC_SPEC_MAX 16

struct ionic_sge {
	__be64 va;
	__be32 len;
	__be32 lkey;
};
IONIC_HW_ASSERT_SIZE(struct ionic_sge, 16);
IONIC_HW_ASSERT_OFF(struct ionic_sge, len, 8);
IONIC_HW_ASSERT_OFF(struct ionic_sge, lkey, 12);

/* First 32 payload bytes (WQE offsets 32..63); continues past byte 63. */
union ionic_wqe_payload {
	struct ionic_sge sgl[2];
	__be32 spec32[8];
	__be16 spec16[16];
	uint8_t data[32];
};
IONIC_HW_ASSERT_SIZE(union ionic_wqe_payload, 32);

struct ionic_wqe_hdr {
	__le64 wqe_idx; /* echoed in CQEs; the provider stores the slot */
	uint8_t op; /* opcode, 0 in RQ WQEs */
	uint8_t num_sge_key; /* SGE count, 0 inline, new key byte for bind */
	__be16 flags;
	__be32 imm_data_key; /* imm / rkey / RQ: total SGL length */
};
IONIC_HW_ASSERT_SIZE(struct ionic_wqe_hdr, 16);
IONIC_HW_ASSERT_OFF(struct ionic_wqe_hdr, op, 8);
IONIC_HW_ASSERT_OFF(struct ionic_wqe_hdr, num_sge_key, 9);
IONIC_HW_ASSERT_OFF(struct ionic_wqe_hdr, flags, 10);
IONIC_HW_ASSERT_OFF(struct ionic_wqe_hdr, imm_data_key, 12);

struct ionic_wqe_recv {
	uint8_t rsvd[16];
	union ionic_wqe_payload pld;
};

/* SEND*, RDMA WRITE*, RDMA READ */
struct ionic_wqe_common {
	union {
		struct {
			__be32 ah_id;
			__be32 dest_qpn;
			__be32 dest_qkey;
		} send;
		struct {
			__be32 remote_va_high;
			__be32 remote_va_low;
			__be32 remote_rkey;
		} rdma;
	};
	__be32 length;
	union ionic_wqe_payload pld;
};

struct ionic_wqe_atomic_v1 {
	__be32 remote_va_high;
	__be32 remote_va_low;
	__be32 remote_rkey;
	__be32 swap_add_high;
	__be32 swap_add_low;
	__be32 compare_high;
	__be32 compare_low;
	__be32 rsvd;
	struct ionic_sge sge;
};

struct ionic_wqe_atomic_v2 {
	__be32 remote_va_high;
	__be32 remote_va_low;
	__be32 remote_rkey;
	__be32 swap_add_high;
	__be32 swap_add_low;
	__be32 compare_high;
	__be32 compare_low;
	__be32 lkey;
	__be64 local_va;
	__be64 rsvd_expdb;
};

struct ionic_wqe_bind_mw {
	__be64 va;
	__be64 length;
	__be32 lkey;
	__be16 flags;
	uint8_t rsvd[26];
};

/* A minimal 64-byte WQE; larger strides continue the payload union. */
struct ionic_wqe {
	struct ionic_wqe_hdr base;
	union {
		struct ionic_wqe_recv recv;
		struct ionic_wqe_common common;
		struct ionic_wqe_atomic_v1 atomic_v1;
		struct ionic_wqe_atomic_v2 atomic_v2;
		struct ionic_wqe_bind_mw bind_mw;
	};
};
IONIC_HW_ASSERT_SIZE(struct ionic_wqe_recv, 48);
IONIC_HW_ASSERT_SIZE(struct ionic_wqe_common, 48);
IONIC_HW_ASSERT_SIZE(struct ionic_wqe_atomic_v1, 48);
IONIC_HW_ASSERT_SIZE(struct ionic_wqe_atomic_v2, 48);
IONIC_HW_ASSERT_SIZE(struct ionic_wqe_bind_mw, 48);
IONIC_HW_ASSERT_SIZE(struct ionic_wqe, 64);
IONIC_HW_ASSERT_OFF(struct ionic_wqe, recv.pld, 32);
IONIC_HW_ASSERT_OFF(struct ionic_wqe, common.send.ah_id, 16);
IONIC_HW_ASSERT_OFF(struct ionic_wqe, common.send.dest_qpn, 20);
IONIC_HW_ASSERT_OFF(struct ionic_wqe, common.send.dest_qkey, 24);
IONIC_HW_ASSERT_OFF(struct ionic_wqe, common.rdma.remote_va_high, 16);
IONIC_HW_ASSERT_OFF(struct ionic_wqe, common.rdma.remote_va_low, 20);
IONIC_HW_ASSERT_OFF(struct ionic_wqe, common.rdma.remote_rkey, 24);
IONIC_HW_ASSERT_OFF(struct ionic_wqe, common.length, 28);
IONIC_HW_ASSERT_OFF(struct ionic_wqe, common.pld, 32);
IONIC_HW_ASSERT_OFF(struct ionic_wqe, atomic_v1.swap_add_high, 28);
IONIC_HW_ASSERT_OFF(struct ionic_wqe, atomic_v1.compare_low, 40);
IONIC_HW_ASSERT_OFF(struct ionic_wqe, atomic_v1.sge, 48);
IONIC_HW_ASSERT_OFF(struct ionic_wqe, atomic_v2.lkey, 44);
IONIC_HW_ASSERT_OFF(struct ionic_wqe, atomic_v2.local_va, 48);
IONIC_HW_ASSERT_OFF(struct ionic_wqe, atomic_v2.rsvd_expdb, 56);
IONIC_HW_ASSERT_OFF(struct ionic_wqe, bind_mw.va, 16);
IONIC_HW_ASSERT_OFF(struct ionic_wqe, bind_mw.length, 24);
IONIC_HW_ASSERT_OFF(struct ionic_wqe, bind_mw.lkey, 32);
IONIC_HW_ASSERT_OFF(struct ionic_wqe, bind_mw.flags, 36);

/* Byte offset of SGE i: after the speculative length table if one is used. */
static inline size_t ionic_wqe_sge_off(unsigned int i, int spec_fmt)
{
	return IONIC_WQE_PAYLOAD_OFF + (spec_fmt ? 32 : 0) + 16 * (size_t)i;
}

/* WQE flags (BE16 at offset 10) */
#define IONIC_WQE_FLAG_FENCE 0x0001 /* SQ: fence; RQ slot: still device owned */
#define IONIC_WQE_FLAG_SOL 0x0002
#define IONIC_WQE_FLAG_INL 0x0004
#define IONIC_WQE_FLAG_SIG 0x0008
#define IONIC_WQE_FLAG_COLOR 0x0010
#define IONIC_WQE_FLAG_SPEC32 0x1000
#define IONIC_WQE_FLAG_SPEC16 0x2000

/* Opcodes, firmware RDMA version 1 */
enum ionic_v1_op {
	IONIC_V1_OP_SEND = 0,
	IONIC_V1_OP_SEND_INV = 1,
	IONIC_V1_OP_SEND_IMM = 2,
	IONIC_V1_OP_RDMA_READ = 3,
	IONIC_V1_OP_RDMA_WRITE = 4,
	IONIC_V1_OP_RDMA_WRITE_IMM = 5,
	IONIC_V1_OP_ATOMIC_CS = 6,
	IONIC_V1_OP_ATOMIC_FA = 7,
	IONIC_V1_OP_REG_MR = 8,
	IONIC_V1_OP_LOCAL_INV = 9,
	IONIC_V1_OP_BIND_MW = 10,
};

/* Opcodes, firmware RDMA version 2: built from modifier bits. */
#define IONIC_V2_OPSL_OUT 0x20
#define IONIC_V2_OPSL_IMM 0x40
#define IONIC_V2_OPSL_INV 0x80
enum ionic_v2_op {
	IONIC_V2_OP_SEND = 0x0 | IONIC_V2_OPSL_OUT,
	IONIC_V2_OP_SEND_INV = IONIC_V2_OP_SEND | IONIC_V2_OPSL_INV,
	IONIC_V2_OP_SEND_IMM = IONIC_V2_OP_SEND | IONIC_V2_OPSL_IMM,
	IONIC_V2_OP_RDMA_READ = 0x02,
	IONIC_V2_OP_RDMA_WRITE = 0x1 | IONIC_V2_OPSL_OUT,
	IONIC_V2_OP_RDMA_WRITE_IMM = IONIC_V2_OP_RDMA_WRITE | IONIC_V2_OPSL_IMM,
	IONIC_V2_OP_ATOMIC_CS = 0x04,
	IONIC_V2_OP_ATOMIC_FA = 0x05,
	IONIC_V2_OP_REG_MR = 0x06,
	IONIC_V2_OP_LOCAL_INV = 0x07,
	IONIC_V2_OP_BIND_MW = 0x08,
};
static_assert(IONIC_V2_OP_SEND == 0x20, "v2 SEND");
static_assert(IONIC_V2_OP_SEND_INV == 0xa0, "v2 SEND_INV");
static_assert(IONIC_V2_OP_SEND_IMM == 0x60, "v2 SEND_IMM");
static_assert(IONIC_V2_OP_RDMA_WRITE == 0x21, "v2 WRITE");
static_assert(IONIC_V2_OP_RDMA_WRITE_IMM == 0x61, "v2 WRITE_IMM");

/* Firmware memory region / window flags (bind WQE, admin MR) */
#define IONIC_MRF_LOCAL_WRITE 0x0001
#define IONIC_MRF_REMOTE_WRITE 0x0002
#define IONIC_MRF_REMOTE_READ 0x0004
#define IONIC_MRF_REMOTE_ATOMIC 0x0008
#define IONIC_MRF_MW_BIND 0x0010
#define IONIC_MRF_ZERO_BASED 0x0020
#define IONIC_MRF_ON_DEMAND 0x0040
#define IONIC_MRF_ACCESS_MASK 0x0fff
#define IONIC_MRF_IS_MW 0x4000
#define IONIC_MRF_INV_EN 0x8000
#define IONIC_MRF_MW_1 IONIC_MRF_IS_MW
#define IONIC_MRF_MW_2 (IONIC_MRF_IS_MW | IONIC_MRF_INV_EN)

/* ------------------------------------------------------------------ */
/* Completion queue entries (32 bytes)                                */
/* ------------------------------------------------------------------ */

#define IONIC_CQE_SIZE 32
#define IONIC_CQ_GRACE 100

struct ionic_cqe {
	union {
		struct {
			__le64 wqe_idx_timestamp; /* [15:0] RQ wqe_idx, [63:16] ts */
			__be32 src_qpn_op;
			uint8_t src_mac[6];
			__be16 vlan_tag;
			__be32 imm_data_rkey;
		} recv;
		struct {
			uint8_t rsvd[4];
			__be32 msg_msn;
			uint8_t rsvd2[8];
			__le64 npg_wqe_idx_timestamp; /* [15:0] SQ slot, [63:16] ts */
		} send;
		struct {
			__be16 cmd_idx;
			uint8_t cmd_op;
			uint8_t rsvd[17];
			__le16 old_sq_cindex;
			__le16 old_rq_cq_cindex;
		} admin;
	};
	__be32 status_length;
	__be32 qid_type_flags;
};
IONIC_HW_ASSERT_SIZE(struct ionic_cqe, 32);
IONIC_HW_ASSERT_OFF(struct ionic_cqe, recv.wqe_idx_timestamp, 0);
IONIC_HW_ASSERT_OFF(struct ionic_cqe, recv.src_qpn_op, 8);
IONIC_HW_ASSERT_OFF(struct ionic_cqe, recv.src_mac, 12);
IONIC_HW_ASSERT_OFF(struct ionic_cqe, recv.vlan_tag, 18);
IONIC_HW_ASSERT_OFF(struct ionic_cqe, recv.imm_data_rkey, 20);
IONIC_HW_ASSERT_OFF(struct ionic_cqe, send.msg_msn, 4);
IONIC_HW_ASSERT_OFF(struct ionic_cqe, send.npg_wqe_idx_timestamp, 16);
IONIC_HW_ASSERT_OFF(struct ionic_cqe, admin.old_sq_cindex, 20);
IONIC_HW_ASSERT_OFF(struct ionic_cqe, status_length, 24);
IONIC_HW_ASSERT_OFF(struct ionic_cqe, qid_type_flags, 28);

/* qid_type_flags */
#define IONIC_CQE_COLOR 0x1u
#define IONIC_CQE_ERROR 0x2u
#define IONIC_CQE_TYPE_SHIFT 5
#define IONIC_CQE_TYPE_MASK 0x7u
#define IONIC_CQE_QID_SHIFT 8
#define IONIC_CQE_QID_MASK 0xffffffu
/* qid written over a CQE whose QP was destroyed or reset (never allocated) */
#define IONIC_CQE_QID_CLEANED 0xffffffu

enum ionic_cqe_type {
	IONIC_CQE_TYPE_ADMIN = 0,
	IONIC_CQE_TYPE_RECV = 1,
	IONIC_CQE_TYPE_SEND_MSN = 2,
	IONIC_CQE_TYPE_SEND_NPG = 3,
	IONIC_CQE_TYPE_RECV_INDIR = 4, /* provider header only; never emitted */
};

static inline uint32_t ionic_cqe_qtf(uint32_t qid, enum ionic_cqe_type type,
				     int error, int color)
{
	return (qid << IONIC_CQE_QID_SHIFT) |
	       ((uint32_t)type << IONIC_CQE_TYPE_SHIFT) |
	       (error ? IONIC_CQE_ERROR : 0) | (color ? IONIC_CQE_COLOR : 0);
}

/* wqe_idx / timestamp split of the LE64 index fields */
#define IONIC_CQE_WQE_IDX_MASK 0xffffull
#define IONIC_CQE_TIMESTAMP_SHIFT 16

/* recv.src_qpn_op */
#define IONIC_CQE_RECV_SRC_QPN_MASK 0xffffffu
#define IONIC_CQE_RECV_OP_SHIFT 24
#define IONIC_CQE_RECV_OP_MASK 0x1fu
#define IONIC_CQE_RECV_IS_VLAN (1u << 30)
#define IONIC_CQE_RECV_IS_IPV4 (1u << 31)

enum ionic_cqe_recv_op {
	IONIC_CQE_RECV_OP_SEND = 0,
	IONIC_CQE_RECV_OP_SEND_INV = 1,
	IONIC_CQE_RECV_OP_SEND_IMM = 2,
	IONIC_CQE_RECV_OP_RDMA_IMM = 3,
};

/* Status codes (status_length when the error bit is set) */
enum ionic_status {
	IONIC_STS_OK = 0,
	IONIC_STS_LOCAL_LEN_ERR = 1,
	IONIC_STS_LOCAL_QP_OPER_ERR = 2,
	IONIC_STS_LOCAL_PROT_ERR = 3,
	IONIC_STS_WQE_FLUSHED_ERR = 4,
	IONIC_STS_MEM_MGMT_OPER_ERR = 5,
	IONIC_STS_BAD_RESP_ERR = 6,
	IONIC_STS_LOCAL_ACC_ERR = 7,
	IONIC_STS_REMOTE_INV_REQ_ERR = 8,
	IONIC_STS_REMOTE_ACC_ERR = 9,
	IONIC_STS_REMOTE_OPER_ERR = 10,
	IONIC_STS_RETRY_EXCEEDED = 11,
	IONIC_STS_RNR_RETRY_EXCEEDED = 12,
	IONIC_STS_XRC_VIO_ERR = 13,
	IONIC_STS_LOCAL_SGL_INV_ERR = 14,
};

/* ------------------------------------------------------------------ */
/* PHC clock page (mapped read-only at GET_CONTEXT's phc_offset)      */
/* ------------------------------------------------------------------ */

/*
 * The kernel's struct ib_uverbs_clock_info (not in Debian 12's uapi
 * headers), HOST endian.  'sign' is a seqlock: odd while the kernel (or
 * ionic-sim) updates the page.  ns = nsec + ((cycles_now - cycles) & mask)
 * * mult + frac) >> shift.
 */
struct ionic_clock_info {
	uint32_t sign;
	uint32_t resv;
	uint64_t nsec;
	uint64_t cycles;
	uint64_t frac;
	uint32_t mult;
	uint32_t shift;
	uint64_t mask;
	uint64_t overflow_period;
};
IONIC_HW_ASSERT_SIZE(struct ionic_clock_info, 56);
IONIC_HW_ASSERT_OFF(struct ionic_clock_info, nsec, 8);
IONIC_HW_ASSERT_OFF(struct ionic_clock_info, cycles, 16);
IONIC_HW_ASSERT_OFF(struct ionic_clock_info, frac, 24);
IONIC_HW_ASSERT_OFF(struct ionic_clock_info, mult, 32);
IONIC_HW_ASSERT_OFF(struct ionic_clock_info, shift, 36);
IONIC_HW_ASSERT_OFF(struct ionic_clock_info, mask, 40);
IONIC_HW_ASSERT_OFF(struct ionic_clock_info, overflow_period, 48);

#endif /* IONIC_HW_H */
