/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Direct-verbs API of the AMD Pensando ionic RDMA provider (libionic).
 *
 * Link with -lionic (pkg-config libionic), or open "libionic.so" with
 * dlopen() and look the functions up (man 7 ionicdv lists the symbol
 * version of each).  Every function accepts objects of any provider: with
 * objects that do not belong to an ionic device the getters return 0 (or
 * false), the setters and descriptor getters return EPERM, and the
 * creation functions fail.
 *
 * UDMA pipelines: an ionic device processes queues on one or two
 * independent pipelines.  A QP runs on exactly one of them and completes
 * only into that pipeline's part of its CQs; a CQ is therefore built over
 * every pipeline in its mask.  The masks below choose which pipelines new
 * queues may use.
 *
 * Controller memory (CMB): the device can hold a send or receive ring in
 * its own memory, which saves the device a DMA read per work request; with
 * an express doorbell, writing the work request into that memory also
 * rings the doorbell.
 *
 * Device-initiated posting ("GDA", GPU-direct async): the descriptors of
 * ionic_dv_get_ctx/cq/qp() describe the doorbell page and the rings
 * exactly, so code outside the provider (a GPU kernel, a test thread) can
 * write work requests, ring doorbells and poll completions itself;
 * ionic_dv_qp_set_gda() lets the provider write work requests while
 * leaving the doorbell to the application.
 */
#ifndef INFINIBAND_IONIC_DV_H
#define INFINIBAND_IONIC_DV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- constants ------------------------------------------------------ */

/*
 * resource_type of the ring allocations a parent domain's alloc/free
 * callbacks see: the driver id of ionic (RDMA_DRIVER_IONIC, 21) in the
 * upper 32 bits, then the kind of ring.  Alignment is at least 4096.
 */
#define IONIC_PD_TAG ((uint64_t)21 << 32)
#define IONIC_PD_TAG_CQ (IONIC_PD_TAG | 1)
#define IONIC_PD_TAG_SQ (IONIC_PD_TAG | 2)
#define IONIC_PD_TAG_RQ (IONIC_PD_TAG | 3)

/* Bits of a UDMA mask: pipeline 0 and pipeline 1. */
#define IONIC_UDMA_MASK_LOW 0x1
#define IONIC_UDMA_MASK_HIGH 0x2

/* WQE sizes with express doorbells (ionic_dv_pd_set_expdb_mask). */
#ifndef IONIC_EXPDB_64
#define IONIC_EXPDB_64 0x1
#define IONIC_EXPDB_128 0x2
#define IONIC_EXPDB_256 0x4
#define IONIC_EXPDB_512 0x8
#endif

/* ---- descriptors for device-initiated posting ----------------------- */

/*
 * The doorbell page of a context.  A doorbell is ONE aligned 64-bit
 * little-endian store of the value to db_ptr[qtype]: db_ptr[sq_qtype] for
 * send queues, db_ptr[rq_qtype] for receive queues, db_ptr[cq_qtype] for
 * completion queues.  db_page is the start of the page-sized mapping that
 * holds the registers (for mapping it elsewhere, e.g. into a GPU).
 */
struct ionic_dv_ctx {
	void *db_page;
	uint64_t *db_ptr;
	uint8_t sq_qtype;
	uint8_t rq_qtype;
	uint8_t cq_qtype;
};

/*
 * One ring: 2^depth_log2 slots (mask = slots - 1) of 2^stride_log2 bytes
 * at ptr (size bytes in all).  db_val is the queue's doorbell value
 * without an index (queue id << 24): the doorbell that publishes work up
 * to producer index p is db_val | (p & mask); a CQ doorbell db_val |
 * (consumer index & mask) returns consumed slots to the device.
 */
struct ionic_dv_queue {
	void *ptr;
	size_t size;
	uint64_t db_val;
	uint16_t mask;
	uint8_t depth_log2;
	uint8_t stride_log2;
};

/* The completion ring of one pipeline of a CQ. */
struct ionic_dv_cq {
	struct ionic_dv_queue q;
};

/* The rings of a QP: the receive queue comes FIRST. */
struct ionic_dv_qp {
	struct ionic_dv_queue rq;
	struct ionic_dv_queue sq;
};

/* ---- extended creation attributes ----------------------------------- */

enum ionic_cq_init_attr_mask {
	IONIC_CQ_INIT_ATTR_MASK_FLAGS = 1 << 0,
};

enum ionic_cq_init_attr_flags {
	/*
	 * Compact CQE mode (one slot the device keeps overwriting).  Not
	 * available: the kernel interface has no way to ask for it, so
	 * ionic_dv_create_cq_ex() refuses it with EOPNOTSUPP.
	 */
	IONIC_CQ_INIT_ATTR_CCQE = 1 << 0,
};

struct ionic_cq_init_attr_ex {
	uint32_t comp_mask; /* enum ionic_cq_init_attr_mask */
	uint32_t flags; /* enum ionic_cq_init_attr_flags */
};

enum ionic_dv_qp_init_attr_mask {
	IONIC_DV_QP_INIT_ATTR_MASK_FLAGS = 1 << 0,
	IONIC_DV_QP_INIT_ATTR_MASK_TRANSPORT_MODE = 1 << 1,
	IONIC_DV_QP_INIT_ATTR_MASK_NUM_RCQ_PATHS = 1 << 2,
};

/*
 * Vendor QP flags.  Bits 16-19 are also accepted in the sq_sig_all field
 * of ibv_create_qp() and ibv_create_qp_ex(), where bit 0 alone keeps its
 * verbs meaning (every send request signalled).
 */
enum ionic_dv_qp_init_attr_flags {
	IONIC_DV_CREATE_QP_TYPE_RCCL = 1 << 16,
	IONIC_DV_CREATE_QP_RCCL_DATA = 1 << 17,
	IONIC_DV_CREATE_QP_RCCL_RDFENCE = 1 << 18,
	IONIC_DV_CREATE_QP_RCCL_RX_OFFLOAD = 1 << 19,
	IONIC_DV_CREATE_QP_RCCL_RCQ = 1 << 24,
};

enum ionic_dv_qp_transport_mode {
	IONIC_DV_QPT_TRANSPORT_DEFAULT = 0,
	IONIC_DV_QPT_TRANSPORT_ROCE_V2 = 1,
	IONIC_DV_QPT_TRANSPORT_MRC = 2,
};

/* ionic_dv_create_qp_ex() (symbol version IONIC_1.3, the default). */
struct ionic_dv_qp_init_attr_ex {
	uint32_t comp_mask; /* enum ionic_dv_qp_init_attr_mask */
	uint32_t ionic_flags; /* enum ionic_dv_qp_init_attr_flags */
	enum ionic_dv_qp_transport_mode transport_mode;
	uint8_t num_rcq_paths;
};

/*
 * The attributes that ionic_dv_create_qp_ex@IONIC_1.1 takes instead: the
 * layout of the rdma-core proposal that defined the function at IONIC_1.1
 * (comp_mask knows IONIC_DV_QP_INIT_ATTR_MASK_FLAGS only).  Programs built
 * against that proposal bind IONIC_1.1 and pass this layout; programs
 * built against this header bind IONIC_1.3.
 */
struct ionic_dv_qp_init_attr_ex_1_1 {
	uint64_t comp_mask;
	uint32_t ionic_flags;
};

/* ---- ownership tests ------------------------------------------------ */

bool ionic_dv_is_ionic_ctx(struct ibv_context *ibctx);
bool ionic_dv_is_ionic_pd(struct ibv_pd *ibpd);
bool ionic_dv_is_ionic_cq(struct ibv_cq *ibcq);
bool ionic_dv_is_ionic_qp(struct ibv_qp *ibqp);

/* ---- UDMA pipelines ------------------------------------------------- */

/* Number of UDMA pipelines of the device (1 or 2); 0 if not ionic. */
uint8_t ionic_dv_ctx_get_udma_count(struct ibv_context *ibctx);

/* Mask of all pipelines of the device, (1 << count) - 1; 0 if not ionic. */
uint8_t ionic_dv_ctx_get_udma_mask(struct ibv_context *ibctx);

/* Pipelines queues created with this PD may use; 0 if not ionic. */
uint8_t ionic_dv_pd_get_udma_mask(struct ibv_pd *ibpd);

/*
 * Restrict the pipelines of queues created afterwards with this PD (or
 * parent domain).  Returns 0, EPERM if the PD is not ionic, or EINVAL if
 * the mask has a bit outside ionic_dv_ctx_get_udma_mask().  A zero mask is
 * accepted: QPs then take any pipeline, but CQ creation fails.
 */
int ionic_dv_pd_set_udma_mask(struct ibv_pd *ibpd, uint8_t udma_mask);

/* Pipelines the CQ has a completion ring on; 0 if not ionic. */
uint8_t ionic_dv_cq_get_udma_mask(struct ibv_cq *ibcq);

/* The pipeline the QP runs on (0 or 1); 0 if not ionic. */
uint8_t ionic_dv_qp_get_udma_idx(struct ibv_qp *ibqp);

/* ---- controller memory and express doorbells ------------------------ */

/*
 * Preference for placing the send (sqcmb) or receive (rqcmb) ring of QPs
 * created afterwards with this PD in controller memory:
 *  enable   ask for controller memory at all (default: yes);
 *  expdb    also ask for express doorbells (default: if the device has them);
 *  require  make the express-doorbell wish mandatory: with expdb and a
 *           device that has no express doorbell for this queue type the
 *           call fails with EINVAL (without require the wish is dropped).
 * The device may still decline controller memory when the QP is created;
 * the ring then stays in host memory.
 * Returns 0, or EPERM if the PD is not ionic, or EINVAL as described.
 */
int ionic_dv_pd_set_sqcmb(struct ibv_pd *ibpd, bool enable, bool expdb,
			  bool require);
int ionic_dv_pd_set_rqcmb(struct ibv_pd *ibpd, bool enable, bool expdb,
			  bool require);

/*
 * WQE sizes (IONIC_EXPDB_* bits) for which QPs created afterwards with
 * this PD use express doorbells, when their ring is in controller memory
 * and the device offers the size.  Default: IONIC_EXPDB_64 if the device
 * has it.  Bits above IONIC_EXPDB_512 and sizes the device lacks are
 * ignored.  Returns 0 or EPERM.
 */
int ionic_dv_pd_set_expdb_mask(struct ibv_pd *ibpd, uint8_t mask);

/* ---- device-initiated posting --------------------------------------- */

/*
 * GDA mode of the send and the receive queue: while on, ibv_post_send()
 * and the ibv_wr_* API (send) or ibv_post_recv() (receive) write work
 * requests (and copy them to controller memory) but do not ring the
 * doorbell; the application writes the value of
 * ionic_dv_qp_get_send/recv_dbell_data() to the doorbell register when it
 * wants the device to start.  Doorbells must be written in order; a later
 * value covers all earlier work.  May be called at any time; turning a
 * queue's mode off leaves unrung work for the provider's next doorbell.
 * Returns 0, EPERM if the QP is not ionic, or EINVAL if the mode is to be
 * turned on for a queue with express doorbells (writing its work request
 * rings the doorbell; nothing is changed then).
 */
int ionic_dv_qp_set_gda(struct ibv_qp *ibqp, bool enable_send,
			bool enable_recv);

/*
 * The doorbell value that publishes everything posted so far on the send
 * (receive) queue: queue db_val | producer index, to be stored as is to
 * db_ptr[sq_qtype] (db_ptr[rq_qtype]).  Returns 0, EPERM if the QP is not
 * ionic, or EINVAL if dbdata is NULL.
 */
int ionic_dv_qp_get_send_dbell_data(struct ibv_qp *ibqp, uint64_t *dbdata);
int ionic_dv_qp_get_recv_dbell_data(struct ibv_qp *ibqp, uint64_t *dbdata);

/*
 * Descriptors: the doorbell page of a context, the completion ring of
 * pipeline udma_idx of a CQ, the rings of a QP (the rings the device
 * reads: controller memory for a queue placed there).  Return 0, EPERM
 * for objects that are not ionic, or EINVAL for a NULL descriptor or a
 * pipeline the CQ has no ring on.
 */
int ionic_dv_get_ctx(struct ionic_dv_ctx *dvctx, struct ibv_context *ibctx);
int ionic_dv_get_cq(struct ionic_dv_cq *dvcq, struct ibv_cq *ibcq,
		    uint8_t udma_idx);
int ionic_dv_get_qp(struct ionic_dv_qp *dvqp, struct ibv_qp *ibqp);

/* ---- creation with ionic attributes --------------------------------- */

/*
 * ibv_create_cq_ex() with ionic attributes (ionic_ex may be NULL).
 * Returns NULL with errno EPERM if the context is not ionic, EOPNOTSUPP
 * for an unknown comp_mask or flag, IONIC_CQ_INIT_ATTR_CCQE, or what
 * ibv_create_cq_ex() does not support, else what ibv_create_cq_ex() sets.
 */
struct ibv_cq_ex *ionic_dv_create_cq_ex(struct ibv_context *ibctx,
					struct ibv_cq_init_attr_ex *ex,
					struct ionic_cq_init_attr_ex *ionic_ex);

/*
 * ibv_create_qp_ex() of an RC QP with ionic attributes (ionic_ex may be
 * NULL).  Vendor flags 16-19 are accepted; the reorder completion queue,
 * the MRC transport and RCQ paths are not offered.  Returns NULL with
 * errno EINVAL if the context is not ionic, the QP is not RC, the
 * transport mode is unknown or IONIC_DV_CREATE_QP_RCCL_RCQ is asked for;
 * EOPNOTSUPP for unknown comp_mask or flag bits, the MRC transport or RCQ
 * paths; else what ibv_create_qp_ex() sets.
 */
struct ibv_qp *ionic_dv_create_qp_ex(struct ibv_context *ibctx,
				     struct ibv_qp_init_attr_ex *ex,
				     struct ionic_dv_qp_init_attr_ex *ionic_ex);

/* ---- layouts (LP64) ------------------------------------------------- */

#if defined(__cplusplus) && __cplusplus >= 201103L
#define IONIC_DV_ASSERT(name, cond) static_assert(cond, #name)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define IONIC_DV_ASSERT(name, cond) _Static_assert(cond, #name)
#else
#define IONIC_DV_ASSERT(name, cond) \
	typedef char ionic_dv_assert_##name[(cond) ? 1 : -1]
#endif

#if defined(__LP64__)
IONIC_DV_ASSERT(ctx_size, sizeof(struct ionic_dv_ctx) == 24);
IONIC_DV_ASSERT(ctx_db_page, offsetof(struct ionic_dv_ctx, db_page) == 0);
IONIC_DV_ASSERT(ctx_db_ptr, offsetof(struct ionic_dv_ctx, db_ptr) == 8);
IONIC_DV_ASSERT(ctx_sq_qtype, offsetof(struct ionic_dv_ctx, sq_qtype) == 16);
IONIC_DV_ASSERT(ctx_rq_qtype, offsetof(struct ionic_dv_ctx, rq_qtype) == 17);
IONIC_DV_ASSERT(ctx_cq_qtype, offsetof(struct ionic_dv_ctx, cq_qtype) == 18);
IONIC_DV_ASSERT(queue_size, sizeof(struct ionic_dv_queue) == 32);
IONIC_DV_ASSERT(queue_ptr, offsetof(struct ionic_dv_queue, ptr) == 0);
IONIC_DV_ASSERT(queue_size_f, offsetof(struct ionic_dv_queue, size) == 8);
IONIC_DV_ASSERT(queue_db_val, offsetof(struct ionic_dv_queue, db_val) == 16);
IONIC_DV_ASSERT(queue_mask, offsetof(struct ionic_dv_queue, mask) == 24);
IONIC_DV_ASSERT(queue_depth, offsetof(struct ionic_dv_queue, depth_log2) == 26);
IONIC_DV_ASSERT(queue_stride,
		offsetof(struct ionic_dv_queue, stride_log2) == 27);
IONIC_DV_ASSERT(cq_size, sizeof(struct ionic_dv_cq) == 32);
IONIC_DV_ASSERT(cq_q, offsetof(struct ionic_dv_cq, q) == 0);
IONIC_DV_ASSERT(qp_size, sizeof(struct ionic_dv_qp) == 64);
IONIC_DV_ASSERT(qp_rq, offsetof(struct ionic_dv_qp, rq) == 0);
IONIC_DV_ASSERT(qp_sq, offsetof(struct ionic_dv_qp, sq) == 32);
IONIC_DV_ASSERT(qp_attr_1_1_size,
		sizeof(struct ionic_dv_qp_init_attr_ex_1_1) == 16);
IONIC_DV_ASSERT(qp_attr_1_1_mask,
		offsetof(struct ionic_dv_qp_init_attr_ex_1_1, comp_mask) == 0);
IONIC_DV_ASSERT(qp_attr_1_1_flags, offsetof(struct ionic_dv_qp_init_attr_ex_1_1,
					    ionic_flags) == 8);
#endif
IONIC_DV_ASSERT(cq_attr_size, sizeof(struct ionic_cq_init_attr_ex) == 8);
IONIC_DV_ASSERT(cq_attr_mask,
		offsetof(struct ionic_cq_init_attr_ex, comp_mask) == 0);
IONIC_DV_ASSERT(cq_attr_flags,
		offsetof(struct ionic_cq_init_attr_ex, flags) == 4);
IONIC_DV_ASSERT(qp_attr_size, sizeof(struct ionic_dv_qp_init_attr_ex) == 16);
IONIC_DV_ASSERT(qp_attr_mask,
		offsetof(struct ionic_dv_qp_init_attr_ex, comp_mask) == 0);
IONIC_DV_ASSERT(qp_attr_flags,
		offsetof(struct ionic_dv_qp_init_attr_ex, ionic_flags) == 4);
IONIC_DV_ASSERT(qp_attr_mode,
		offsetof(struct ionic_dv_qp_init_attr_ex, transport_mode) == 8);
IONIC_DV_ASSERT(qp_attr_paths,
		offsetof(struct ionic_dv_qp_init_attr_ex, num_rcq_paths) == 12);
#undef IONIC_DV_ASSERT

#ifdef __cplusplus
}
#endif

#endif /* INFINIBAND_IONIC_DV_H */
