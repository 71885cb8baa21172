// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * WQE preparation (docs/device-contract.md §3, §4, §16.4, §16.6).
 *
 * Pure functions of a QP's queue state and one work request: no locks, no
 * doorbells, no device, so the unit tests can build WQEs into plain memory
 * and compare them byte for byte with the reference layout.
 *
 * Each opcode is one row in ionic_send_ops[]; each WQE body has one
 * helper called from ionic_prep_send_path().
 */
#include <errno.h>
#include <string.h>

#include "qp_priv.h"

#define IONIC_QPT_RC 0x1
#define IONIC_QPT_UD 0x2

/* An atomic reads and writes exactly 8 bytes. */
#define IONIC_ATOMIC_LEN 8

enum ionic_body {
	IONIC_BODY_NONE, /* opcode not supported */
	IONIC_BODY_SEND, /* common body: payload (+ UD addressing) */
	IONIC_BODY_RDMA, /* common body: payload + remote address */
	IONIC_BODY_ATOMIC, /* atomic body, v1 or v2 by firmware version */
	IONIC_BODY_LOCAL, /* no body: key operation (LOCAL_INV) */
	IONIC_BODY_BIND, /* bind memory window body */
};

/* What the header's imm_data_key carries (docs/device-contract.md §3.2). */
enum ionic_hdr_key {
	IONIC_KEY_NONE,
	IONIC_KEY_IMM, /* wr->imm_data, already in network order */
	IONIC_KEY_INV, /* wr->invalidate_rkey, host order */
};

struct ionic_send_op {
	uint8_t op[2]; /* firmware opcode: [0] v1, [1] v2 */
	uint8_t wc_opcode; /* enum ibv_wc_opcode of its completion */
	uint8_t qp_types; /* IONIC_QPT_* that may post it */
	uint8_t body; /* enum ionic_body */
	uint8_t key; /* enum ionic_hdr_key */
	bool remote; /* MSN-tracked on RC (not a local op) */
	unsigned int bad_flags; /* send_flags rejected for this opcode */
};

#define IONIC_NO_SOL_INL (IBV_SEND_SOLICITED | IBV_SEND_INLINE)

/* docs/device-contract.md §3.5 and the per-opcode rules table of §16.4 */
static const struct ionic_send_op ionic_send_ops[] = {
	[IBV_WR_SEND] = {
		.op = { IONIC_V1_OP_SEND, IONIC_V2_OP_SEND },
		.wc_opcode = IBV_WC_SEND,
		.qp_types = IONIC_QPT_RC | IONIC_QPT_UD,
		.body = IONIC_BODY_SEND,
		.remote = true,
	},
	[IBV_WR_SEND_WITH_IMM] = {
		.op = { IONIC_V1_OP_SEND_IMM, IONIC_V2_OP_SEND_IMM },
		.wc_opcode = IBV_WC_SEND,
		.qp_types = IONIC_QPT_RC | IONIC_QPT_UD,
		.body = IONIC_BODY_SEND,
		.key = IONIC_KEY_IMM,
		.remote = true,
	},
	[IBV_WR_SEND_WITH_INV] = {
		.op = { IONIC_V1_OP_SEND_INV, IONIC_V2_OP_SEND_INV },
		.wc_opcode = IBV_WC_SEND,
		.qp_types = IONIC_QPT_RC,
		.body = IONIC_BODY_SEND,
		.key = IONIC_KEY_INV,
		.remote = true,
	},
	[IBV_WR_RDMA_WRITE] = {
		.op = { IONIC_V1_OP_RDMA_WRITE, IONIC_V2_OP_RDMA_WRITE },
		.wc_opcode = IBV_WC_RDMA_WRITE,
		.qp_types = IONIC_QPT_RC,
		.body = IONIC_BODY_RDMA,
		.remote = true,
		.bad_flags = IBV_SEND_SOLICITED,
	},
	[IBV_WR_RDMA_WRITE_WITH_IMM] = {
		.op = { IONIC_V1_OP_RDMA_WRITE_IMM,
			IONIC_V2_OP_RDMA_WRITE_IMM },
		.wc_opcode = IBV_WC_RDMA_WRITE,
		.qp_types = IONIC_QPT_RC,
		.body = IONIC_BODY_RDMA,
		.key = IONIC_KEY_IMM,
		.remote = true,
	},
	[IBV_WR_RDMA_READ] = {
		.op = { IONIC_V1_OP_RDMA_READ, IONIC_V2_OP_RDMA_READ },
		.wc_opcode = IBV_WC_RDMA_READ,
		.qp_types = IONIC_QPT_RC,
		.body = IONIC_BODY_RDMA,
		.remote = true,
		.bad_flags = IONIC_NO_SOL_INL,
	},
	[IBV_WR_ATOMIC_CMP_AND_SWP] = {
		.op = { IONIC_V1_OP_ATOMIC_CS, IONIC_V2_OP_ATOMIC_CS },
		.wc_opcode = IBV_WC_COMP_SWAP,
		.qp_types = IONIC_QPT_RC,
		.body = IONIC_BODY_ATOMIC,
		.remote = true,
		.bad_flags = IONIC_NO_SOL_INL,
	},
	[IBV_WR_ATOMIC_FETCH_AND_ADD] = {
		.op = { IONIC_V1_OP_ATOMIC_FA, IONIC_V2_OP_ATOMIC_FA },
		.wc_opcode = IBV_WC_FETCH_ADD,
		.qp_types = IONIC_QPT_RC,
		.body = IONIC_BODY_ATOMIC,
		.remote = true,
		.bad_flags = IONIC_NO_SOL_INL,
	},
	[IBV_WR_LOCAL_INV] = {
		.op = { IONIC_V1_OP_LOCAL_INV, IONIC_V2_OP_LOCAL_INV },
		.wc_opcode = IBV_WC_LOCAL_INV,
		.qp_types = IONIC_QPT_RC,
		.body = IONIC_BODY_LOCAL,
		.key = IONIC_KEY_INV,
		.bad_flags = IONIC_NO_SOL_INL,
	},
	[IBV_WR_BIND_MW] = {
		.op = { IONIC_V1_OP_BIND_MW, IONIC_V2_OP_BIND_MW },
		.wc_opcode = IBV_WC_BIND_MW,
		.qp_types = IONIC_QPT_RC,
		.body = IONIC_BODY_BIND,
		.bad_flags = IONIC_NO_SOL_INL,
	},
};

#define IONIC_NUM_SEND_OPS (sizeof(ionic_send_ops) / sizeof(ionic_send_ops[0]))

/*
 * Zero a WQE slot of 'q'.  With an express doorbell the slot's last 8
 * bytes are its trailer, which the WQE must not touch.
 */
static void ionic_wqe_zero(const struct ionic_queue *q, void *wqe, bool expdb)
{
	memset(wqe, 0,
	       ionic_queue_stride(q) - (expdb ? IONIC_EXP_DBELL_SZ : 0));
}

/*
 * Encode an SGL at WQE offset 32 (plain) or 64 behind a length table
 * (speculative format, only when the queue uses spec and n > 2).
 * Returns 0 or EINVAL; *flags gets the SPEC flag, *total the byte count.
 * Inline: as a call, its out-parameters go through the stack on every
 * post_send and post_recv.
 */
static inline int ionic_prep_sgl(uint8_t *wqe, uint8_t spec, uint32_t max_sge,
				 const struct ibv_sge *sgl, int num_sge,
				 uint16_t *flags, uint32_t *total)
{
	union ionic_wqe_payload *pld =
		(union ionic_wqe_payload *)(wqe + IONIC_WQE_PAYLOAD_OFF);
	bool spec_fmt = spec && num_sge > 2;
	struct ionic_sge *sge;
	uint64_t sum = 0;
	int i;

	if (num_sge < 0 || (uint32_t)num_sge > max_sge)
		return EINVAL;

	sge = (struct ionic_sge *)(wqe + ionic_wqe_sge_off(0, spec_fmt));
	*flags = 0;
	if (spec_fmt)
		*flags = num_sge > 8 ? IONIC_WQE_FLAG_SPEC16 :
				       IONIC_WQE_FLAG_SPEC32;

	for (i = 0; i < num_sge; i++) {
		uint32_t len = sgl[i].length;

		if (spec_fmt) {
			if (num_sge > 8) {
				if (len > 0xffff)
					return EINVAL;
				pld->spec16[i] = htobe16((uint16_t)len);
			} else {
				pld->spec32[i] = htobe32(len);
			}
		}
		sge[i].va = htobe64(sgl[i].addr);
		sge[i].len = htobe32(len);
		sge[i].lkey = htobe32(sgl[i].lkey);
		sum += len;
	}

	/* a message is at most 2 GiB; exactly 2^31 is accepted */
	if (sum > (1ull << 31))
		return EINVAL;
	*total = (uint32_t)sum;
	return 0;
}

/* Concatenate the SGE bytes into the WQE (lkeys are not used). */
static int ionic_prep_inline(uint8_t *wqe, uint32_t max_inline,
			     const struct ibv_sge *sgl, int num_sge,
			     uint32_t *total)
{
	uint8_t *dst = wqe + IONIC_WQE_PAYLOAD_OFF;
	uint32_t sum = 0;
	int i;

	if (num_sge < 0)
		return EINVAL;

	for (i = 0; i < num_sge; i++) {
		uint32_t len = sgl[i].length;

		if (len > max_inline - sum)
			return EINVAL;
		/* an empty SGE may carry a NULL address (UCX's zero-length
		 * sends): memcpy's arguments must still be valid pointers */
		if (len)
			memcpy(dst + sum, (const void *)(uintptr_t)sgl[i].addr,
			       len);
		sum += len;
	}
	*total = sum;
	return 0;
}

/* Common body: payload (inline or SGL) and its total length @28. */
static int ionic_prep_payload(struct ionic_sq *sq, struct ionic_wqe *wqe,
			      const struct ibv_send_wr *wr, uint16_t *flags,
			      uint32_t *len)
{
	uint16_t sflags = 0;
	int rc;

	if (wr->send_flags & IBV_SEND_INLINE) {
		rc = ionic_prep_inline((uint8_t *)wqe, sq->max_inline,
				       wr->sg_list, wr->num_sge, len);
		wqe->base.num_sge_key = 0;
		*flags |= IONIC_WQE_FLAG_INL;
	} else {
		rc = ionic_prep_sgl((uint8_t *)wqe, sq->spec, sq->max_sge,
				    wr->sg_list, wr->num_sge, &sflags, len);
		wqe->base.num_sge_key = (uint8_t)wr->num_sge;
		*flags |= sflags;
	}
	if (rc)
		return rc;

	wqe->common.length = htobe32(*len);
	return 0;
}

/* UD addressing of the common body: AH id, destination QP and qkey. */
static int ionic_prep_ud_addr(struct ionic_wqe *wqe,
			      const struct ibv_send_wr *wr)
{
	if (!wr->wr.ud.ah)
		return EINVAL;

	wqe->common.send.ah_id = htobe32(to_ionic_ah(wr->wr.ud.ah)->ahid);
	wqe->common.send.dest_qpn = htobe32(wr->wr.ud.remote_qpn);
	wqe->common.send.dest_qkey = htobe32(wr->wr.ud.remote_qkey);
	return 0;
}

/* Remote address of the RDMA variant of the common body
 * (docs/device-contract.md §3.3 b). */
static void ionic_prep_rdma_addr(struct ionic_wqe *wqe, uint64_t va,
				 uint32_t rkey)
{
	wqe->common.rdma.remote_va_high = htobe32((uint32_t)(va >> 32));
	wqe->common.rdma.remote_va_low = htobe32((uint32_t)va);
	wqe->common.rdma.remote_rkey = htobe32(rkey);
}

/*
 * Atomic body (docs/device-contract.md §3.3 c/d): exactly one 8-byte local SGE
 * for the original remote value.  CAS: swap <- swap, compare <- compare_add;
 * FAA: the addend goes to swap_add and compare is 0.  v1 carries the whole SGE
 * at offset 48, v2 the lkey at 44 and the address at 48, keeping the last 8
 * bytes free for an express doorbell.
 */
static int ionic_prep_atomic(struct ionic_qp *qp, struct ionic_wqe *wqe,
			     const struct ibv_send_wr *wr)
{
	struct ionic_wqe_atomic_v1 *a1 = &wqe->atomic_v1;
	struct ionic_wqe_atomic_v2 *a2 = &wqe->atomic_v2;
	const struct ibv_sge *sge = wr->sg_list;
	uint64_t va = wr->wr.atomic.remote_addr;
	uint64_t swap_add, compare;

	if (wr->num_sge != 1 || !sge || sge->length != IONIC_ATOMIC_LEN)
		return EINVAL;

	if (wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP) {
		swap_add = wr->wr.atomic.swap;
		compare = wr->wr.atomic.compare_add;
	} else {
		swap_add = wr->wr.atomic.compare_add;
		compare = 0;
	}

	a1->remote_va_high = htobe32((uint32_t)(va >> 32));
	a1->remote_va_low = htobe32((uint32_t)va);
	a1->remote_rkey = htobe32(wr->wr.atomic.rkey);
	a1->swap_add_high = htobe32((uint32_t)(swap_add >> 32));
	a1->swap_add_low = htobe32((uint32_t)swap_add);
	a1->compare_high = htobe32((uint32_t)(compare >> 32));
	a1->compare_low = htobe32((uint32_t)compare);

	if (qp->version >= 2) {
		a2->lkey = htobe32(sge->lkey);
		a2->local_va = htobe64(sge->addr);
	} else {
		/*
		 * The v1 SGE ends at byte 63: with an express doorbell in a
		 * 64-byte slot it would overwrite the trailer (upstream:
		 * docs/upstream-defects.md D7).  Queue sizing never builds that
		 * layout for v1; refuse it here all the same rather than
		 * corrupt the doorbell.
		 */
		if (qp->sq.expdb &&
		    ionic_queue_stride(&qp->sq.q) <= IONIC_WQE_MIN_SIZE)
			return EINVAL;
		a1->sge.va = htobe64(sge->addr);
		a1->sge.len = htobe32(IONIC_ATOMIC_LEN);
		a1->sge.lkey = htobe32(sge->lkey);
	}
	wqe->base.num_sge_key = 1;
	return 0;
}

/* ibv_access_flags of a window -> firmware access bits (docs/device-contract.md
 * §3.7). */
static uint16_t ionic_mw_access(unsigned int access)
{
	uint16_t flags = 0;

	if (access & IBV_ACCESS_LOCAL_WRITE)
		flags |= IONIC_MRF_LOCAL_WRITE;
	if (access & IBV_ACCESS_REMOTE_WRITE)
		flags |= IONIC_MRF_REMOTE_WRITE;
	if (access & IBV_ACCESS_REMOTE_READ)
		flags |= IONIC_MRF_REMOTE_READ;
	if (access & IBV_ACCESS_REMOTE_ATOMIC)
		flags |= IONIC_MRF_REMOTE_ATOMIC;
	if (access & IBV_ACCESS_MW_BIND)
		flags |= IONIC_MRF_MW_BIND;
	if (access & IBV_ACCESS_ZERO_BASED)
		flags |= IONIC_MRF_ZERO_BASED;
	return flags;
}

/*
 * Bind body (docs/device-contract.md §3.3 e).  A type-1 window is bound only
 * through ibv_bind_mw (send_path false), a type-2 window only through
 * ibv_post_send or ibv_wr_bind_mw; only a type-1 window may be bound with
 * length 0, which unbinds it, and then the region may be NULL (upstream:
 * docs/upstream-defects.md D12).  The new rkey may differ from the window's
 * current one in its key byte only: the device takes nothing else from it.
 */
static int ionic_prep_bind(struct ionic_wqe *wqe, struct ibv_mw *mw,
			   uint32_t new_rkey, const struct ibv_mw_bind_info *bi,
			   bool send_path)
{
	uint16_t flags;

	if (!mw)
		return EINVAL;
	switch (mw->type) {
	case IBV_MW_TYPE_1:
		if (send_path)
			return EINVAL;
		flags = IONIC_MRF_MW_1;
		break;
	case IBV_MW_TYPE_2:
		if (!send_path || !bi->length)
			return EINVAL;
		flags = IONIC_MRF_MW_2;
		break;
	default:
		return EINVAL;
	}
	if (!bi->mr && bi->length)
		return EINVAL;
	if ((new_rkey ^ mw->rkey) & ~0xffu)
		return EINVAL;

	wqe->base.num_sge_key = (uint8_t)new_rkey;
	wqe->base.imm_data_key = htobe32(mw->rkey);
	wqe->bind_mw.va = htobe64(bi->addr);
	wqe->bind_mw.length = htobe64(bi->length);
	wqe->bind_mw.lkey = htobe32(bi->mr ? bi->mr->lkey : 0);
	wqe->bind_mw.flags =
		htobe16(flags | ionic_mw_access(bi->mw_access_flags));
	return 0;
}

int ionic_prep_send_path(struct ionic_qp *qp, const struct ibv_send_wr *wr,
			 bool send_path)
{
	struct ionic_sq *sq = &qp->sq;
	const struct ionic_send_op *op;
	struct ionic_sq_meta *meta;
	struct ionic_wqe *wqe;
	uint16_t prod = sq->q.prod;
	uint16_t flags = 0;
	uint32_t len = 0;
	bool signal;
	int rc;

	if ((unsigned int)wr->opcode >= IONIC_NUM_SEND_OPS)
		return EINVAL;
	op = &ionic_send_ops[wr->opcode];
	if (op->body == IONIC_BODY_NONE ||
	    !(op->qp_types & (qp->is_ud ? IONIC_QPT_UD : IONIC_QPT_RC)) ||
	    (wr->send_flags & op->bad_flags))
		return EINVAL;

	wqe = ionic_queue_at(&sq->q, prod);
	ionic_wqe_zero(&sq->q, wqe, sq->expdb);

	switch (op->body) {
	case IONIC_BODY_SEND:
	case IONIC_BODY_RDMA:
		/* the common body: payload, then the UD addressing of a send
		 * or the remote address of an RDMA operation (one payload
		 * call site, which the compiler inlines) */
		rc = ionic_prep_payload(sq, wqe, wr, &flags, &len);
		if (op->body == IONIC_BODY_RDMA)
			ionic_prep_rdma_addr(wqe, wr->wr.rdma.remote_addr,
					     wr->wr.rdma.rkey);
		else if (!rc && qp->is_ud)
			rc = ionic_prep_ud_addr(wqe, wr);
		break;
	case IONIC_BODY_ATOMIC:
		rc = ionic_prep_atomic(qp, wqe, wr);
		len = IONIC_ATOMIC_LEN;
		break;
	case IONIC_BODY_LOCAL:
		rc = 0;
		break;
	case IONIC_BODY_BIND:
		rc = ionic_prep_bind(wqe, wr->bind_mw.mw, wr->bind_mw.rkey,
				     &wr->bind_mw.bind_info, send_path);
		break;
	default:
		rc = EINVAL;
		break;
	}
	if (rc)
		return rc;

	signal = qp->sig_all || (wr->send_flags & IBV_SEND_SIGNALED);
	if (sq->color)
		flags |= IONIC_WQE_FLAG_COLOR;
	if (wr->send_flags & IBV_SEND_FENCE)
		flags |= IONIC_WQE_FLAG_FENCE;
	if (wr->send_flags & IBV_SEND_SOLICITED)
		flags |= IONIC_WQE_FLAG_SOL;
	if (signal)
		flags |= IONIC_WQE_FLAG_SIG;

	wqe->base.wqe_idx = htole64(prod);
	wqe->base.op = op->op[qp->version >= 2];
	wqe->base.flags = htobe16(flags);
	if (op->key == IONIC_KEY_IMM)
		/* already in network order: copied as is */
		wqe->base.imm_data_key = wr->imm_data;
	else if (op->key == IONIC_KEY_INV)
		wqe->base.imm_data_key = htobe32(wr->invalidate_rkey);

	meta = &sq->meta[prod];
	meta->wr_id = wr->wr_id;
	/* byte_len: the payload; 8 for atomics, 0 for local ops
	 * (docs/upstream-defects.md D6) */
	meta->len = len;
	meta->ibop = op->wc_opcode;
	meta->ibsts = IBV_WC_SUCCESS;
	meta->signal = signal;
	meta->local_comp = false;
	meta->remote = op->remote && !qp->is_ud;
	if (meta->remote) {
		meta->seq = sq->msn_prod;
		sq->msn_idx[sq->msn_prod] = prod;
		sq->msn_prod = ionic_queue_next(&sq->q, sq->msn_prod);
	}

	sq->q.prod = ionic_queue_next(&sq->q, prod);
	/* the colour flips each time the producer wraps to slot 0 */
	if (!sq->q.prod)
		sq->color = !sq->color;
	return 0;
}

int ionic_prep_send(struct ionic_qp *qp, const struct ibv_send_wr *wr)
{
	return ionic_prep_send_path(qp, wr, true);
}

int ionic_prep_recv(struct ionic_qp *qp, const struct ibv_recv_wr *wr)
{
	struct ionic_rq *rq = &qp->rq;
	uint16_t prod = rq->q.prod;
	struct ionic_rq_meta *meta = &rq->meta[prod];
	struct ionic_wqe *wqe = ionic_queue_at(&rq->q, prod);
	uint16_t flags = 0;
	uint32_t len = 0;
	int rc;

	/* the slot may still be the device's (FENCE), or not completed yet */
	if (unlikely(wqe->base.flags & htobe16(IONIC_WQE_FLAG_FENCE)))
		return EAGAIN;
	if (unlikely(meta->posted))
		return ENOMEM;

	ionic_wqe_zero(&rq->q, wqe, rq->expdb);

	rc = ionic_prep_sgl((uint8_t *)wqe, rq->spec, rq->max_sge, wr->sg_list,
			    wr->num_sge, &flags, &len);
	if (rc)
		return rc;

	wqe->base.wqe_idx = htole64(prod);
	wqe->base.num_sge_key = (uint8_t)wr->num_sge;
	wqe->base.flags = htobe16(flags);
	wqe->base.imm_data_key = htobe32(len);

	meta->wr_id = wr->wr_id;
	meta->posted = true;
	rq->q.prod = ionic_queue_next(&rq->q, prod);
	return 0;
}
