/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Kernel uverbs ABI of the Linux ionic RDMA driver (ionic_rdma), driver
 * ABI version 1: the driver-specific ("udata") payloads appended to the
 * standard GET_CONTEXT, CREATE_CQ, CREATE_QP and CREATE_AH commands.
 *
 * Written for libionic from the facts in the ionic kernel reference.  All
 * structures are host endian and have no implicit padding; their sizes and
 * offsets are pinned below because both the provider and ionic-sim (which
 * plays the kernel) rely on them.
 */
#ifndef IONIC_ABI_H
#define IONIC_ABI_H

#include <linux/types.h>

#define IONIC_ABI_VERSION 1

/* Express doorbell WQE sizes the device offers (ionic_ctx_resp.expdb_mask) */
#define IONIC_EXPDB_64 0x1
#define IONIC_EXPDB_128 0x2
#define IONIC_EXPDB_256 0x4
#define IONIC_EXPDB_512 0x8

/* Queue types that support express doorbells (ionic_ctx_resp.expdb_qtypes) */
#define IONIC_EXPDB_SQ 0x1
#define IONIC_EXPDB_RQ 0x2

/* Controller-memory placement of a ring (ionic_qp_req/resp.{sq,rq}_cmb) */
#define IONIC_CMB_ENABLE 0x1
#define IONIC_CMB_REQUIRE 0x2
#define IONIC_CMB_EXPDB 0x4
#define IONIC_CMB_WC 0x8
#define IONIC_CMB_UC 0x10

struct ionic_ctx_req {
	__u32 rsvd[2];
};

struct ionic_ctx_resp {
	__u32 rsvd;
	__u32 page_shift;
	__aligned_u64 dbell_offset;
	__u16 version;
	__u8 qp_opcodes;
	__u8 admin_opcodes;
	__u8 sq_qtype;
	__u8 rq_qtype;
	__u8 cq_qtype;
	__u8 admin_qtype;
	__u8 max_stride;
	__u8 max_spec;
	__u8 udma_count;
	__u8 expdb_mask;
	__u8 expdb_qtypes;
	__u8 rsvd2[3];
	__aligned_u64 phc_offset;
};

/* Descriptor of one ring in user memory */
struct ionic_qdesc {
	__aligned_u64 addr;
	__u32 size;
	__u16 mask;
	__u8 depth_log2;
	__u8 stride_log2;
};

struct ionic_ah_resp {
	__u32 ahid;
	__u32 pad;
};

struct ionic_cq_req {
	struct ionic_qdesc cq[2];
	__u8 udma_mask;
	__u8 rsvd[7];
};

struct ionic_cq_resp {
	__u32 cqid[2];
	__u8 udma_mask;
	__u8 rsvd[7];
};

struct ionic_qp_req {
	struct ionic_qdesc sq;
	struct ionic_qdesc rq;
	__u8 sq_spec;
	__u8 rq_spec;
	__u8 sq_cmb;
	__u8 rq_cmb;
	__u8 udma_mask;
	__u8 rsvd[3];
};

struct ionic_qp_resp {
	__u32 qpid;
	__u8 sq_cmb;
	__u8 rq_cmb;
	__u8 udma_idx;
	__u8 rsvd;
	__aligned_u64 sq_cmb_offset;
	__aligned_u64 rq_cmb_offset;
};

/* Defined by the uapi but used by no driver revision (ionic has no SRQ). */
struct ionic_srq_req {
	struct ionic_qdesc rq;
	__u8 rq_spec;
	__u8 rq_cmb;
	__u8 udma_mask;
	__u8 rsvd[5];
};

struct ionic_srq_resp {
	__u32 qpid;
	__u8 rq_cmb;
	__u8 udma_idx;
	__u8 rsvd[2];
	__aligned_u64 rq_cmb_offset;
};

#endif /* IONIC_ABI_H */
