/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim device: WQE snapshot and decode (docs/device-contract.md §3, §4).
 *
 * A WQE is first copied out of the application's ring into device memory
 * (idev_wqe_fetch) and only that snapshot is decoded: the application may
 * scribble on its ring at any time, the device must not care.  Opcodes of
 * both firmware versions go through one table (idev_wqe_ops) that says
 * what each operation is and what it needs, so adding RDMA WRITE/READ,
 * atomics, invalidate or bind is a matter of implementing the step and
 * setting IDEV_WRF_IMPL.
 */
#ifndef IDEV_DEV_WQE_H
#define IDEV_DEV_WQE_H

#include <stdbool.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#include "../../common/ionic_hw.h"

enum idev_wr_op {
	IDEV_WR_SEND,
	IDEV_WR_SEND_IMM,
	IDEV_WR_SEND_INV,
	IDEV_WR_RDMA_WRITE,
	IDEV_WR_RDMA_WRITE_IMM,
	IDEV_WR_RDMA_READ,
	IDEV_WR_ATOMIC_CS,
	IDEV_WR_ATOMIC_FA,
	IDEV_WR_REG_MR,
	IDEV_WR_LOCAL_INV,
	IDEV_WR_BIND_MW,
};

/* Operation properties */
#define IDEV_WRF_REMOTE 0x01 /* RC: acknowledged by the peer, MSN-completed */
#define IDEV_WRF_IMM 0x02 /* carries immediate data */
#define IDEV_WRF_INV 0x04 /* carries an rkey to invalidate remotely */
#define IDEV_WRF_GATHER 0x08 /* payload from the local SGL or inline data */
#define IDEV_WRF_RC 0x10 /* valid on RC QPs */
#define IDEV_WRF_UD 0x20 /* valid on UD QPs */
#define IDEV_WRF_IMPL 0x40 /* implemented by this device model */

enum idev_wqe_body {
	IDEV_BODY_COMMON, /* send/RDMA: addressing, length, SGL/inline */
	IDEV_BODY_ATOMIC, /* v1 or v2 atomic layout by firmware version */
	IDEV_BODY_BIND,
	IDEV_BODY_LOCAL, /* no body (LOCAL_INV) */
	IDEV_BODY_REG_MR, /* kernel fast-register; never from the provider */
};

struct idev_wqe_opinfo {
	const char *name;
	uint8_t v1, v2; /* opcode byte per firmware version */
	enum idev_wr_op op;
	uint32_t flags; /* IDEV_WRF_* */
	enum idev_wqe_body body;
};

/* Opcode byte -> operation for firmware 'version'; NULL if unknown. */
const struct idev_wqe_opinfo *idev_wqe_op_lookup(uint16_t version, uint8_t op);

struct idev_sge {
	uint64_t va;
	uint32_t len;
	uint32_t lkey;
};

/* A decoded WQE.  Points into its snapshot, which must outlive it. */
struct idev_wqe {
	const uint8_t *raw; /* snapshot of the slot */
	uint32_t stride;
	const struct idev_wqe_opinfo *op; /* SQ: NULL if the opcode is unknown */
	uint8_t opcode; /* raw opcode byte (SQ) */
	uint16_t wqe_idx; /* low 16 bits of the LE64 wqe_idx */
	uint16_t flags; /* IONIC_WQE_FLAG_* */
	uint8_t num_sge;
	bool spec; /* SGEs follow a length table (offset 64) */
	bool inl; /* payload is inline data at offset 32 */
	uint32_t imm_raw; /* imm_data_key, raw bytes as posted */
	uint32_t length; /* total payload bytes */
	/* UD addressing (common body, send variant) */
	uint32_t ah_id, dest_qpn, dest_qkey;
	/* RDMA addressing (common body, rdma variant; atomic body) */
	uint64_t remote_va;
	uint32_t rkey;
	/* Atomics: operands and the local 8-byte result buffer */
	uint64_t swap_add, compare;
	struct idev_sge result;
	/* BIND_MW: window range, region lkey, firmware MR flags, key byte;
	 * LOCAL_INV/SEND_INV/BIND_MW: the key named in imm_data_key */
	uint64_t bind_va, bind_len;
	uint32_t bind_lkey;
	uint16_t bind_flags;
	uint8_t new_key8;
	uint32_t key;
};

/* A send or receive queue as the device sees it: the ring CREATE_QP
 * named and the device's indices into it. */
struct idev_wq {
	uint8_t *ring; /* user memory, or the CMB window of a CMB SQ */
	uint16_t mask; /* slots - 1 */
	uint8_t depth_log2;
	uint8_t stride_log2;
	uint16_t db_prod; /* producer index from the last doorbell */
	uint16_t cons; /* next slot the device will consume */
};

/* Bytes of an atomic operand and result. */
#define IDEV_ATOMIC_SIZE 8

/* Copy slot 'slot' of 'wq' into dst (2^stride_log2 bytes). */
void idev_wqe_fetch(const struct idev_wq *wq, uint16_t slot, uint8_t *dst);

/*
 * Decode a send WQE snapshot.  Always fills wqe_idx (so the slot can be
 * completed even when the WQE is bad).  Returns IONIC_STS_OK or the status
 * to complete the WQE with: LOCAL_QP_OPER for an unknown, unimplemented or
 * wrong-QP-type opcode or a malformed SGL, LOCAL_LEN for lengths that do
 * not add up or exceed the limits.
 */
enum ionic_status idev_wqe_decode_sq(struct idev_wqe *w, const uint8_t *raw,
				     uint32_t stride, uint16_t version,
				     enum ibv_qp_type type);
/* Decode a receive WQE snapshot (op 0, SGL, total length in imm_data_key). */
enum ionic_status idev_wqe_decode_rq(struct idev_wqe *w, const uint8_t *raw,
				     uint32_t stride);

/* SGE i (< num_sge) of a decoded WQE. */
void idev_wqe_sge(const struct idev_wqe *w, unsigned int i,
		  struct idev_sge *sge);

/* Inline payload bytes (w->length of them). */
static inline const uint8_t *idev_wqe_inline(const struct idev_wqe *w)
{
	return w->raw + IONIC_WQE_PAYLOAD_OFF;
}

/* One trace line describing the WQE (when tracing is on). */
void idev_wqe_trace(const char *what, uint32_t qpn, uint16_t slot,
		    const struct idev_wqe *w, enum ionic_status st);

#endif /* IDEV_DEV_WQE_H */
