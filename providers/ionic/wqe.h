/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * WQE preparation, inline (docs/device-contract.md §3, §4, §16.4, §16.6).
 *
 * ionic_prep_send_inl() and ionic_prep_recv_inl() are what every post
 * runs once per work request: post.c inlines them into its loops, wqe.c
 * wraps them as ionic_prep_send_path(), ionic_prep_send() and
 * ionic_prep_recv() for wr.c and the unit tests, which build WQEs into plain memory and
 * compare them byte for byte with the reference layout.  Pure functions
 * of a QP's queue state and one work request: no locks, no doorbells, no
 * device.
 *
 * What a WQE writes: the first 64 bytes (header, body, first 32 payload
 * bytes) always, zero where the opcode puts nothing, as the device
 * reference lays them out; beyond byte 63 only the payload the WR has
 * (SGEs past the second, inline bytes past the 32nd).  The rest of a
 * larger slot is left as the last WQE there had it: the device reads
 * num_sge SGEs and length inline bytes, nothing after them.  With an
 * express doorbell the slot's last 8 bytes are its trailer and never
 * written (a 64-byte slot then writes 56).
 */
#ifndef IONIC_WQE_H
#define IONIC_WQE_H

#include <assert.h>
#include <errno.h>
#include <string.h>

#include "qp_priv.h"

/* An atomic reads and writes exactly 8 bytes. */
#define IONIC_ATOMIC_LEN 8

enum ionic_body {
	IONIC_BODY_NONE, /* not an opcode of this QP type */
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

/*
 * Every fact about the send opcodes, one row each (docs/device-contract.md
 * §3.5 and the per-opcode rules of §16.4): the ibv_wr_opcode; the firmware
 * opcode (IONIC_V1_OP_<fw> and IONIC_V2_OP_<fw>); the WC opcode
 * (IBV_WC_<wc>); the QP types that may post it; the WQE body; what the
 * header's key carries; whether it involves the peer (then MSN-tracked
 * on RC); the send_flags it refuses.  A new opcode is a new row (and a new
 * body, if it needs one) and its ibv_wr_* builder in wr.c; everything
 * else follows from this list.
 */
#define IONIC_SEND_OPS(X)                                                     \
	X(SEND, SEND, SEND, RC_UD, SEND, NONE, true, NONE)                    \
	X(SEND_WITH_IMM, SEND_IMM, SEND, RC_UD, SEND, IMM, true, NONE)        \
	X(SEND_WITH_INV, SEND_INV, SEND, RC, SEND, INV, true, NONE)           \
	X(RDMA_WRITE, RDMA_WRITE, RDMA_WRITE, RC, RDMA, NONE, true, SOL)      \
	X(RDMA_WRITE_WITH_IMM, RDMA_WRITE_IMM, RDMA_WRITE, RC, RDMA, IMM,     \
	  true, NONE)                                                         \
	X(RDMA_READ, RDMA_READ, RDMA_READ, RC, RDMA, NONE, true, SOL_INL)     \
	X(ATOMIC_CMP_AND_SWP, ATOMIC_CS, COMP_SWAP, RC, ATOMIC, NONE, true,   \
	  SOL_INL)                                                            \
	X(ATOMIC_FETCH_AND_ADD, ATOMIC_FA, FETCH_ADD, RC, ATOMIC, NONE, true, \
	  SOL_INL)                                                            \
	X(LOCAL_INV, LOCAL_INV, LOCAL_INV, RC, LOCAL, INV, false, SOL_INL)    \
	X(BIND_MW, BIND_MW, BIND_MW, RC, BIND, NONE, false, SOL_INL)

/* The opcodes are the ibv_wr_opcode values up to the last in the list. */
#define IONIC_NUM_SEND_OPS (IBV_WR_SEND_WITH_INV + 1)

/*
 * One row of the table as the data path reads it, for one QP type and
 * firmware version: ionic_send_ops[is_ud][version >= 2][opcode] (wqe.c,
 * generated from IONIC_SEND_OPS).  A QP keeps a pointer to its row set
 * (ionic_sq.ops), so the preparer reads one row, no per-QP copy.
 */
struct ionic_send_op {
	uint8_t fwop; /* firmware opcode */
	uint8_t body; /* enum ionic_body: NONE if not for this QP type */
	uint8_t key; /* enum ionic_hdr_key */
	uint8_t bad_flags; /* send_flags it refuses */
	uint8_t wc_opcode; /* enum ibv_wc_opcode of its completion */
	bool remote; /* completes through MSN CQEs (RC only) */
	uint8_t pad[2]; /* a row is 8 bytes: one shift to index */
};

extern const struct ionic_send_op ionic_send_ops[2][2][IONIC_NUM_SEND_OPS];

/* wqe.c: the rows for a QP of this type and firmware version */
const struct ionic_send_op *ionic_send_ops_of(bool is_ud, unsigned int version);

/* wqe.c: the IBV_QP_EX_WITH_* operations a QP of this type has */
uint32_t ionic_send_ops_mask(bool is_ud);

/* wqe.c: the WQE flags of the send_flags FENCE, SIGNALED and SOLICITED
 * (docs/device-contract.md §3.6), with sq_sig_all folded in (qp.c) */
void ionic_sq_init_flags(struct ionic_sq *sq, bool sig_all);

/* wqe.c: the bodies the data path rarely builds; 0 or EINVAL */
int ionic_prep_atomic(struct ionic_qp *qp, struct ionic_wqe *wqe,
		      const struct ibv_send_wr *wr);
int ionic_prep_bind(struct ionic_wqe *wqe, struct ibv_mw *mw, uint32_t new_rkey,
		    const struct ibv_mw_bind_info *bi, bool send_path);

/*
 * Clear the 64-byte minimal WQE (constant sizes: a few vector stores, no
 * call), short of an express-doorbell trailer that falls inside it.
 */
static inline void ionic_wqe_clear64(void *wqe, bool trailer64)
{
	if (trailer64)
		memset(wqe, 0, IONIC_WQE_MIN_SIZE - IONIC_EXP_DBELL_SZ);
	else
		memset(wqe, 0, IONIC_WQE_MIN_SIZE);
}

/*
 * Copy 'len' bytes without a call: whole 16-byte pieces, then the last 16
 * (or 8, 4, 1) bytes again ending exactly at the end, so nothing past the
 * source is read and nothing past dst + len written.
 */
static inline void ionic_copy_small(uint8_t *dst, const uint8_t *src,
				    uint32_t len)
{
	if (len > 32) {
		uint32_t off;

		for (off = 0; off + 16 < len; off += 16)
			memcpy(dst + off, src + off, 16);
		memcpy(dst + len - 16, src + len - 16, 16);
	} else if (len >= 16) {
		memcpy(dst, src, 16);
		memcpy(dst + len - 16, src + len - 16, 16);
	} else if (len >= 8) {
		memcpy(dst, src, 8);
		memcpy(dst + len - 8, src + len - 8, 8);
	} else if (len >= 4) {
		memcpy(dst, src, 4);
		memcpy(dst + len - 4, src + len - 4, 4);
	} else {
		for (uint32_t i = 0; i < len; i++)
			dst[i] = src[i];
	}
}

/*
 * Encode an SGL at WQE offset 32 (plain) or 64 behind a length table
 * (speculative format, only when the queue uses spec and n > 2).
 * Returns 0 or EINVAL; *flags gets the SPEC flag, *total the byte count.
 * The first 64 bytes are already clear.
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

	if (unlikely((uint32_t)num_sge > max_sge))
		return EINVAL; /* a negative count too */

	sge = (struct ionic_sge *)(wqe + ionic_wqe_sge_off(0, spec_fmt));
	*flags = 0;
	if (unlikely(spec_fmt))
		*flags = num_sge > 8 ? IONIC_WQE_FLAG_SPEC16 :
				       IONIC_WQE_FLAG_SPEC32;

	for (i = 0; i < num_sge; i++) {
		uint32_t len = sgl[i].length;

		if (unlikely(spec_fmt)) {
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
	if (unlikely(sum > (1ull << 31)))
		return EINVAL;
	*total = (uint32_t)sum;
	return 0;
}

/* Concatenate the SGE bytes into the WQE (lkeys are not used). */
static inline int ionic_prep_inline(uint8_t *wqe, uint32_t max_inline,
				    const struct ibv_sge *sgl, int num_sge,
				    uint32_t *total)
{
	uint8_t *dst = wqe + IONIC_WQE_PAYLOAD_OFF;
	uint32_t sum = 0;
	int i;

	if (unlikely(num_sge < 0))
		return EINVAL;

	for (i = 0; i < num_sge; i++) {
		uint32_t len = sgl[i].length;

		if (unlikely(len > max_inline - sum))
			return EINVAL;
		ionic_copy_small(dst + sum,
				 (const uint8_t *)(uintptr_t)sgl[i].addr, len);
		sum += len;
	}
	*total = sum;
	return 0;
}

/* Common body: payload (inline or SGL) and its total length @28. */
static inline __attribute__((always_inline)) int
ionic_prep_payload(struct ionic_sq *sq, struct ionic_wqe *wqe,
		   const struct ibv_send_wr *wr, unsigned int sflags,
		   uint16_t *flags, uint32_t *len, uint8_t *nsge)
{
	uint16_t sgl_flags = 0;
	int rc;

	if (sflags & IBV_SEND_INLINE) {
		rc = ionic_prep_inline((uint8_t *)wqe, sq->max_inline,
				       wr->sg_list, wr->num_sge, len);
		*flags |= IONIC_WQE_FLAG_INL;
	} else {
		rc = ionic_prep_sgl((uint8_t *)wqe, sq->spec, sq->max_sge,
				    wr->sg_list, wr->num_sge, &sgl_flags, len);
		*nsge = (uint8_t)wr->num_sge;
		*flags |= sgl_flags;
	}
	if (unlikely(rc))
		return rc;

	wqe->common.length = htobe32(*len);
	return 0;
}

/* UD addressing of the common body: AH id, destination QP and qkey. */
static inline int ionic_prep_ud_addr(struct ionic_wqe *wqe,
				     const struct ibv_send_wr *wr)
{
	if (unlikely(!wr->wr.ud.ah))
		return EINVAL;

	wqe->common.send.ah_id = htobe32(to_ionic_ah(wr->wr.ud.ah)->ahid);
	wqe->common.send.dest_qpn = htobe32(wr->wr.ud.remote_qpn);
	wqe->common.send.dest_qkey = htobe32(wr->wr.ud.remote_qkey);
	return 0;
}

/*
 * Remote address of the RDMA variant of the common body
 * (docs/device-contract.md §3.3 b).
 */
static inline void ionic_prep_rdma_addr(struct ionic_wqe *wqe, uint64_t va,
					uint32_t rkey)
{
	wqe->common.rdma.remote_va_high = htobe32((uint32_t)(va >> 32));
	wqe->common.rdma.remote_va_low = htobe32((uint32_t)va);
	wqe->common.rdma.remote_rkey = htobe32(rkey);
}

/* wqe.c: the bodies other than SEND and RDMA (atomic, local, bind) */
int ionic_prep_send_rare(struct ionic_qp *qp, struct ionic_wqe *wqe,
			 const struct ibv_send_wr *wr, unsigned int body,
			 bool send_path, uint32_t *len);

/* The header of a send WQE, as one store of each of its two words. */
static inline void ionic_wqe_hdr_set(struct ionic_wqe_hdr *hdr, uint16_t idx,
				     uint8_t op, uint8_t num_sge_key,
				     uint16_t flags, __be32 key)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t w0 = idx;
	uint64_t w1 = op | (uint32_t)num_sge_key << 8 |
		      (uint32_t)htobe16(flags) << 16 | (uint64_t)key << 32;

	memcpy(hdr, &w0, sizeof(w0));
	memcpy((uint8_t *)hdr + sizeof(w0), &w1, sizeof(w1));
#else
	hdr->wqe_idx = htole64(idx);
	hdr->op = op;
	hdr->num_sge_key = num_sge_key;
	hdr->flags = htobe16(flags);
	hdr->imm_data_key = key;
#endif
}

/*
 * Prepare the send WQE for 'wr' at the SQ producer index and advance it
 * (see ionic_prep_send_path() in qp_priv.h).  'is_ud' is qp->is_ud,
 * passed apart so that a caller specialised for one QP type folds it.
 */
static inline __attribute__((always_inline)) int
ionic_prep_send_inl(struct ionic_qp *qp, const struct ibv_send_wr *wr,
		    bool send_path, bool is_ud)
{
	struct ionic_sq *sq = &qp->sq;
	unsigned int opcode = wr->opcode;
	unsigned int sflags = wr->send_flags;
	const struct ionic_send_op *op;
	struct ionic_sq_meta *meta;
	struct ionic_wqe *wqe;
	uint16_t prod = sq->q.prod;
	uint16_t flags = 0;
	uint32_t len = 0;
	uint8_t nsge = 0;
	__be32 key = 0;
	int rc;

	if (unlikely(opcode >= IONIC_NUM_SEND_OPS))
		return EINVAL;
	op = &sq->ops[opcode];
	if (unlikely(op->body == IONIC_BODY_NONE || (sflags & op->bad_flags)))
		return EINVAL;

	wqe = ionic_queue_at(&sq->q, prod);
	ionic_wqe_clear64(wqe, sq->trailer64);

	if (likely(op->body == IONIC_BODY_SEND ||
		   op->body == IONIC_BODY_RDMA)) {
		/* the common body: payload, then the UD addressing of a send
		 * or the remote address of an RDMA operation */
		rc = ionic_prep_payload(sq, wqe, wr, sflags, &flags, &len,
					&nsge);
		if (op->body == IONIC_BODY_RDMA)
			ionic_prep_rdma_addr(wqe, wr->wr.rdma.remote_addr,
					     wr->wr.rdma.rkey);
		else if (is_ud && !rc)
			rc = ionic_prep_ud_addr(wqe, wr);
	} else {
		rc = ionic_prep_send_rare(qp, wqe, wr, op->body, send_path,
					  &len);
		/* those bodies may set both header fields themselves */
		nsge = wqe->base.num_sge_key;
		key = wqe->base.imm_data_key;
	}
	if (unlikely(rc))
		return rc;

	if (op->key == IONIC_KEY_IMM)
		key = wr->imm_data; /* already in network order: as is */
	else if (op->key == IONIC_KEY_INV)
		key = htobe32(wr->invalidate_rkey);

	/* FENCE, SIGNALED (or sq_sig_all) and SOLICITED, and the colour */
	flags |= sq->wqe_flags[sflags & IONIC_SQ_WQE_FLAGS_MASK] |
		 (uint16_t)(sq->color * IONIC_WQE_FLAG_COLOR);

	/* everything is computed: now the stores */
	meta = &sq->meta[prod];
	meta->wr_id = wr->wr_id;
	/* byte_len: the payload; 8 for atomics, 0 for local ops
	 * (docs/upstream-defects.md D6) */
	meta->len = len;
	if (op->remote) {
		uint16_t msn = sq->msn_prod;

		meta->seq = msn;
		sq->msn_idx[msn] = prod;
		sq->msn_prod = ionic_queue_next(&sq->q, msn);
	}
	ionic_wqe_hdr_set(&wqe->base, prod, op->fwop, nsge, flags, key);
	meta->ibop = op->wc_opcode;
	meta->ibsts = IBV_WC_SUCCESS;
	meta->remote = op->remote;
	meta->signal = !!(flags & IONIC_WQE_FLAG_SIG);
	meta->local_comp = false;

	sq->q.prod = ionic_queue_next(&sq->q, prod);
	/* the colour flips each time the producer wraps to slot 0 */
	if (unlikely(!sq->q.prod))
		sq->color = !sq->color;
	return 0;
}

/*
 * An SGL of at most two SGEs, the plain format on every queue: bytes
 * 32-63 all written, zero where an SGE is missing (and never the trailer
 * at 56 of a 64-byte express-doorbell slot, whose queue has one SGE).
 * 0 or EINVAL; *total gets the byte count.
 */
static inline __attribute__((always_inline)) int
ionic_prep_sgl2(struct ionic_sge *dst, const struct ibv_sge *sgl,
		unsigned int num_sge, bool trailer64, uint32_t *total)
{
	uint64_t sum = 0;

	if (num_sge >= 1) {
		dst[0].va = htobe64(sgl[0].addr);
		dst[0].len = htobe32(sgl[0].length);
		dst[0].lkey = htobe32(sgl[0].lkey);
		sum = sgl[0].length;
	} else {
		memset(&dst[0], 0, sizeof(dst[0]));
	}
	if (num_sge == 2) {
		dst[1].va = htobe64(sgl[1].addr);
		dst[1].len = htobe32(sgl[1].length);
		dst[1].lkey = htobe32(sgl[1].lkey);
		sum += sgl[1].length;
	} else if (trailer64) {
		memset(&dst[1], 0, IONIC_EXP_DBELL_SZ);
	} else {
		memset(&dst[1], 0, sizeof(dst[1]));
	}
	/* a message is at most 2 GiB; exactly 2^31 is accepted */
	if (unlikely(sum > (1ull << 31)))
		return EINVAL;
	*total = (uint32_t)sum;
	return 0;
}

/*
 * Prepare the receive WQE for 'wr' at the RQ producer index and advance
 * it (see ionic_prep_recv() in qp_priv.h).
 */
static inline __attribute__((always_inline)) int
ionic_prep_recv_inl(struct ionic_qp *qp, const struct ibv_recv_wr *wr)
{
	struct ionic_rq *rq = &qp->rq;
	uint16_t prod = rq->q.prod;
	struct ionic_rq_meta *meta = &rq->meta[prod];
	struct ionic_wqe *wqe = ionic_queue_at(&rq->q, prod);
	unsigned int num_sge = (unsigned int)wr->num_sge;
	uint16_t flags = 0;
	uint32_t len;
	int rc;

	/* the slot may still be the device's (FENCE), or not completed yet */
	if (unlikely(wqe->base.flags & htobe16(IONIC_WQE_FLAG_FENCE)))
		return EAGAIN;
	if (unlikely(ionic_rq_slot_posted(meta)))
		return ENOMEM;

	if (likely(num_sge <= 2 && num_sge <= rq->max_sge)) {
		rc = ionic_prep_sgl2(wqe->recv.pld.sgl, wr->sg_list, num_sge,
				     rq->trailer64, &len);
	} else {
		ionic_wqe_clear64(wqe, rq->trailer64);
		rc = ionic_prep_sgl((uint8_t *)wqe, rq->spec, rq->max_sge,
				    wr->sg_list, wr->num_sge, &flags, &len);
	}
	if (unlikely(rc))
		return rc;

	wqe->base.wqe_idx = htole64(prod);
	wqe->base.op = 0;
	wqe->base.num_sge_key = (uint8_t)num_sge;
	wqe->base.flags = htobe16(flags);
	wqe->base.imm_data_key = htobe32(len);
	memset(wqe->recv.rsvd, 0, sizeof(wqe->recv.rsvd));

	meta->wr_id = wr->wr_id;
	__atomic_store_n(&meta->posted, true, __ATOMIC_RELAXED);
	rq->q.prod = ionic_queue_next(&rq->q, prod);
	return 0;
}

#endif /* IONIC_WQE_H */
