// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * WQE preparation (ionic-device.md §3, §4, §16.4, §16.6).
 *
 * Pure functions of a QP's queue state and one work request: no locks, no
 * doorbells, no device, so the unit tests can build WQEs into plain memory
 * and compare them byte for byte with the reference layout.
 *
 * Adding an opcode means one row in ionic_send_ops[] and, for a new WQE
 * body, one body helper called from ionic_prep_send().
 */
#include <errno.h>
#include <string.h>

#include "qp_priv.h"

#define IONIC_QPT_RC 0x1
#define IONIC_QPT_UD 0x2

enum ionic_body {
	IONIC_BODY_NONE,        /* opcode not supported */
	IONIC_BODY_SEND,        /* common body: payload (+ UD addressing) */
};

struct ionic_send_op {
	uint8_t op[2];          /* firmware opcode: [0] v1, [1] v2 */
	uint8_t wc_opcode;      /* enum ibv_wc_opcode of its completion */
	uint8_t qp_types;       /* IONIC_QPT_* that may post it */
	uint8_t body;           /* enum ionic_body */
	bool remote;            /* MSN-tracked on RC (not a local op) */
	bool imm;               /* header carries wr->imm_data */
	unsigned int bad_flags; /* send_flags rejected for this opcode */
};

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
		.remote = true,
		.imm = true,
	},
};

#define IONIC_NUM_SEND_OPS (sizeof(ionic_send_ops) / sizeof(ionic_send_ops[0]))

/*
 * Encode an SGL at WQE offset 32 (plain) or 64 behind a length table
 * (speculative format, only when the queue uses spec and n > 2).
 * Returns 0 or EINVAL; *flags gets the SPEC flag, *total the byte count.
 */
static int ionic_prep_sgl(uint8_t *wqe, uint8_t spec, uint32_t max_sge,
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
		memcpy(dst + sum, (const void *)(uintptr_t)sgl[i].addr, len);
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

int ionic_prep_send(struct ionic_qp *qp, const struct ibv_send_wr *wr)
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
	/* with an express doorbell the slot's last 8 bytes are its trailer */
	memset(wqe, 0, ionic_queue_stride(&sq->q) -
		       (sq->expdb ? IONIC_EXP_DBELL_SZ : 0));

	switch (op->body) {
	case IONIC_BODY_SEND:
		rc = ionic_prep_payload(sq, wqe, wr, &flags, &len);
		if (!rc && qp->is_ud)
			rc = ionic_prep_ud_addr(wqe, wr);
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
	if (op->imm)
		/* already in network order: copied as is */
		wqe->base.imm_data_key = wr->imm_data;

	meta = &sq->meta[prod];
	meta->wr_id = wr->wr_id;
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

	memset(wqe, 0, ionic_queue_stride(&rq->q) -
		       (rq->expdb ? IONIC_EXP_DBELL_SZ : 0));

	rc = ionic_prep_sgl((uint8_t *)wqe, rq->spec, rq->max_sge,
			    wr->sg_list, wr->num_sge, &flags, &len);
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
