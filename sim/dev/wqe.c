// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: WQE snapshot and decode.  See wqe.h.
 */
#include <stdio.h>
#include <endian.h>
#include <stddef.h>
#include <string.h>

#include "../common/trace.h"
#include "wqe.h"

#define RCUD (IDEV_WRF_RC | IDEV_WRF_UD)

/* docs/device-contract.md §3.5.  REMOTE follows §7.2: every RC op except
 * LOCAL_INV, BIND_MW and REG_MR is completed through the MSN. */
static const struct idev_wqe_opinfo idev_wqe_ops[] = {
	{ "SEND", IONIC_V1_OP_SEND, IONIC_V2_OP_SEND, IDEV_WR_SEND,
	  IDEV_WRF_REMOTE | IDEV_WRF_GATHER | RCUD | IDEV_WRF_IMPL,
	  IDEV_BODY_COMMON },
	{ "SEND_INV", IONIC_V1_OP_SEND_INV, IONIC_V2_OP_SEND_INV,
	  IDEV_WR_SEND_INV,
	  IDEV_WRF_REMOTE | IDEV_WRF_GATHER | IDEV_WRF_INV | IDEV_WRF_RC |
		  IDEV_WRF_IMPL,
	  IDEV_BODY_COMMON },
	{ "SEND_IMM", IONIC_V1_OP_SEND_IMM, IONIC_V2_OP_SEND_IMM,
	  IDEV_WR_SEND_IMM,
	  IDEV_WRF_REMOTE | IDEV_WRF_GATHER | IDEV_WRF_IMM | RCUD |
		  IDEV_WRF_IMPL,
	  IDEV_BODY_COMMON },
	{ "RDMA_READ", IONIC_V1_OP_RDMA_READ, IONIC_V2_OP_RDMA_READ,
	  IDEV_WR_RDMA_READ, IDEV_WRF_REMOTE | IDEV_WRF_RC | IDEV_WRF_IMPL,
	  IDEV_BODY_COMMON },
	{ "RDMA_WRITE", IONIC_V1_OP_RDMA_WRITE, IONIC_V2_OP_RDMA_WRITE,
	  IDEV_WR_RDMA_WRITE,
	  IDEV_WRF_REMOTE | IDEV_WRF_GATHER | IDEV_WRF_RC | IDEV_WRF_IMPL,
	  IDEV_BODY_COMMON },
	{ "RDMA_WRITE_IMM", IONIC_V1_OP_RDMA_WRITE_IMM,
	  IONIC_V2_OP_RDMA_WRITE_IMM, IDEV_WR_RDMA_WRITE_IMM,
	  IDEV_WRF_REMOTE | IDEV_WRF_GATHER | IDEV_WRF_IMM | IDEV_WRF_RC |
		  IDEV_WRF_IMPL,
	  IDEV_BODY_COMMON },
	{ "ATOMIC_CS", IONIC_V1_OP_ATOMIC_CS, IONIC_V2_OP_ATOMIC_CS,
	  IDEV_WR_ATOMIC_CS, IDEV_WRF_REMOTE | IDEV_WRF_RC | IDEV_WRF_IMPL,
	  IDEV_BODY_ATOMIC },
	{ "ATOMIC_FA", IONIC_V1_OP_ATOMIC_FA, IONIC_V2_OP_ATOMIC_FA,
	  IDEV_WR_ATOMIC_FA, IDEV_WRF_REMOTE | IDEV_WRF_RC | IDEV_WRF_IMPL,
	  IDEV_BODY_ATOMIC },
	{ "REG_MR", IONIC_V1_OP_REG_MR, IONIC_V2_OP_REG_MR, IDEV_WR_REG_MR,
	  IDEV_WRF_RC, IDEV_BODY_REG_MR },
	{ "LOCAL_INV", IONIC_V1_OP_LOCAL_INV, IONIC_V2_OP_LOCAL_INV,
	  IDEV_WR_LOCAL_INV, IDEV_WRF_RC | IDEV_WRF_IMPL, IDEV_BODY_LOCAL },
	{ "BIND_MW", IONIC_V1_OP_BIND_MW, IONIC_V2_OP_BIND_MW, IDEV_WR_BIND_MW,
	  IDEV_WRF_RC | IDEV_WRF_IMPL, IDEV_BODY_BIND },
};

const struct idev_wqe_opinfo *idev_wqe_op_lookup(uint16_t version, uint8_t op)
{
	size_t i;

	for (i = 0; i < sizeof(idev_wqe_ops) / sizeof(idev_wqe_ops[0]); i++) {
		if ((version < 2 ? idev_wqe_ops[i].v1 : idev_wqe_ops[i].v2) ==
		    op)
			return &idev_wqe_ops[i];
	}
	return NULL;
}

void idev_wqe_fetch(const struct idev_wq *wq, uint16_t slot, uint8_t *dst)
{
	size_t stride = (size_t)1 << wq->stride_log2;

	memcpy(dst, wq->ring + ((size_t)(slot & wq->mask) << wq->stride_log2),
	       stride);
}

static uint32_t rd_be32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return be32toh(v);
}

static uint16_t rd_be16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return be16toh(v);
}

static uint64_t rd_be64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return be64toh(v);
}

void idev_wqe_sge(const struct idev_wqe *w, unsigned int i,
		  struct idev_sge *sge)
{
	const uint8_t *p = w->raw + ionic_wqe_sge_off(i, w->spec);

	sge->va = rd_be64(p + offsetof(struct ionic_sge, va));
	sge->len = rd_be32(p + offsetof(struct ionic_sge, len));
	sge->lkey = rd_be32(p + offsetof(struct ionic_sge, lkey));
}

static void decode_hdr(struct idev_wqe *w, const uint8_t *raw, uint32_t stride)
{
	const struct ionic_wqe_hdr *h = (const struct ionic_wqe_hdr *)raw;

	memset(w, 0, sizeof(*w));
	w->raw = raw;
	w->stride = stride;
	w->wqe_idx = le64toh(h->wqe_idx) & IONIC_CQE_WQE_IDX_MASK;
	w->opcode = h->op;
	w->num_sge = h->num_sge_key;
	w->flags = be16toh(h->flags);
	w->imm_raw = h->imm_data_key;
}

/*
 * The SGL of an SQ or RQ WQE (docs/device-contract.md §3.4): with SPEC32/SPEC16
 * the first 32 payload bytes are a table of the SGE lengths and the SGEs follow
 * at offset 64.  The table must agree with the SGEs (it is the same
 * information, read ahead by the hardware); everything must fit the slot.
 * Sets w->spec and returns the total length through *total.
 */
static enum ionic_status decode_sgl(struct idev_wqe *w, uint64_t *total)
{
	uint16_t spec = w->flags &
			(IONIC_WQE_FLAG_SPEC32 | IONIC_WQE_FLAG_SPEC16);
	struct idev_sge sge;
	unsigned int i;
	uint32_t want;

	if (spec == (IONIC_WQE_FLAG_SPEC32 | IONIC_WQE_FLAG_SPEC16))
		return IONIC_STS_LOCAL_QP_OPER_ERR;
	if ((spec == IONIC_WQE_FLAG_SPEC32 && w->num_sge > 8) ||
	    (spec == IONIC_WQE_FLAG_SPEC16 && w->num_sge > 16))
		return IONIC_STS_LOCAL_QP_OPER_ERR;
	w->spec = spec != 0;
	if (ionic_wqe_sge_off(w->num_sge, w->spec) > w->stride)
		return IONIC_STS_LOCAL_QP_OPER_ERR;

	*total = 0;
	for (i = 0; i < w->num_sge; i++) {
		idev_wqe_sge(w, i, &sge);
		if (spec == IONIC_WQE_FLAG_SPEC32)
			want = rd_be32(w->raw + IONIC_WQE_PAYLOAD_OFF + 4 * i);
		else if (spec == IONIC_WQE_FLAG_SPEC16)
			want = rd_be16(w->raw + IONIC_WQE_PAYLOAD_OFF + 2 * i);
		else
			want = sge.len;
		if (want != sge.len)
			return IONIC_STS_LOCAL_QP_OPER_ERR;
		*total += sge.len;
	}
	return IONIC_STS_OK;
}

static enum ionic_status decode_common(struct idev_wqe *w)
{
	const struct ionic_wqe *wqe = (const struct ionic_wqe *)w->raw;
	uint64_t total;
	enum ionic_status st;

	w->length = be32toh(wqe->common.length);
	w->ah_id = be32toh(wqe->common.send.ah_id);
	w->dest_qpn = be32toh(wqe->common.send.dest_qpn);
	w->dest_qkey = be32toh(wqe->common.send.dest_qkey);
	w->remote_va =
		((uint64_t)be32toh(wqe->common.rdma.remote_va_high) << 32) |
		be32toh(wqe->common.rdma.remote_va_low);
	w->rkey = be32toh(wqe->common.rdma.remote_rkey);
	if (w->op->flags & IDEV_WRF_INV)
		w->key = be32toh(w->imm_raw); /* SEND_INV: rkey to invalidate */

	if (w->flags & IONIC_WQE_FLAG_INL) {
		if (!(w->op->flags & IDEV_WRF_GATHER))
			return IONIC_STS_LOCAL_QP_OPER_ERR;
		if (w->length > w->stride - IONIC_WQE_PAYLOAD_OFF)
			return IONIC_STS_LOCAL_LEN_ERR;
		w->inl = true;
		w->num_sge = 0;
		return IONIC_STS_OK;
	}
	st = decode_sgl(w, &total);
	if (st)
		return st;
	/* The length field is the SGL total (docs/device-contract.md §3.3); the
	 * device can't guess which one a disagreeing host meant. */
	if (total != w->length || total > (1ull << 31))
		return IONIC_STS_LOCAL_LEN_ERR;
	return IONIC_STS_OK;
}

/* docs/device-contract.md §3.3 (c)/(d): v1 carries a full local SGE at offset
 * 48, v2 the lkey at 44 and the address at 48; the result is always 8 bytes. */
static enum ionic_status decode_atomic(struct idev_wqe *w, uint16_t version)
{
	const struct ionic_wqe *wqe = (const struct ionic_wqe *)w->raw;
	const struct ionic_wqe_atomic_v1 *a1 = &wqe->atomic_v1;
	const struct ionic_wqe_atomic_v2 *a2 = &wqe->atomic_v2;

	w->remote_va = ((uint64_t)be32toh(a1->remote_va_high) << 32) |
		       be32toh(a1->remote_va_low);
	w->rkey = be32toh(a1->remote_rkey);
	w->swap_add = ((uint64_t)be32toh(a1->swap_add_high) << 32) |
		      be32toh(a1->swap_add_low);
	w->compare = ((uint64_t)be32toh(a1->compare_high) << 32) |
		     be32toh(a1->compare_low);
	if (version < 2) {
		w->result.va = be64toh(a1->sge.va);
		w->result.len = be32toh(a1->sge.len);
		w->result.lkey = be32toh(a1->sge.lkey);
	} else {
		w->result.va = be64toh(a2->local_va);
		w->result.len = IDEV_ATOMIC_SIZE;
		w->result.lkey = be32toh(a2->lkey);
	}
	w->length = IDEV_ATOMIC_SIZE;
	if (w->num_sge != 1 || (w->flags & IONIC_WQE_FLAG_INL))
		return IONIC_STS_LOCAL_QP_OPER_ERR;
	if (w->result.len != IDEV_ATOMIC_SIZE)
		return IONIC_STS_LOCAL_LEN_ERR;
	return IONIC_STS_OK;
}

/* docs/device-contract.md §3.3 (e): the window's range, the region's lkey and
 * the firmware access flags; the header carries the new key byte and the
 * window's rkey. */
static enum ionic_status decode_bind(struct idev_wqe *w)
{
	const struct ionic_wqe *wqe = (const struct ionic_wqe *)w->raw;

	w->bind_va = be64toh(wqe->bind_mw.va);
	w->bind_len = be64toh(wqe->bind_mw.length);
	w->bind_lkey = be32toh(wqe->bind_mw.lkey);
	w->bind_flags = be16toh(wqe->bind_mw.flags);
	w->new_key8 = w->num_sge;
	w->key = be32toh(w->imm_raw);
	w->num_sge = 0;
	return IONIC_STS_OK;
}

enum ionic_status idev_wqe_decode_sq(struct idev_wqe *w, const uint8_t *raw,
				     uint32_t stride, uint16_t version,
				     enum ibv_qp_type type)
{
	uint32_t need = type == IBV_QPT_UD ? IDEV_WRF_UD : IDEV_WRF_RC;

	decode_hdr(w, raw, stride);
	w->op = idev_wqe_op_lookup(version, w->opcode);
	if (!w->op || !(w->op->flags & need) || !(w->op->flags & IDEV_WRF_IMPL))
		return IONIC_STS_LOCAL_QP_OPER_ERR;
	switch (w->op->body) {
	case IDEV_BODY_COMMON:
		return decode_common(w);
	case IDEV_BODY_LOCAL:
		/* LOCAL_INV: the key to invalidate; no SGL, no data. */
		w->key = be32toh(w->imm_raw);
		w->num_sge = 0;
		return IONIC_STS_OK;
	case IDEV_BODY_ATOMIC:
		return decode_atomic(w, version);
	case IDEV_BODY_BIND:
		return decode_bind(w);
	case IDEV_BODY_REG_MR:
		/* Not modelled yet (no IDEV_WRF_IMPL): rejected above. */
		return IONIC_STS_LOCAL_QP_OPER_ERR;
	}
	return IONIC_STS_LOCAL_QP_OPER_ERR;
}

enum ionic_status idev_wqe_decode_rq(struct idev_wqe *w, const uint8_t *raw,
				     uint32_t stride)
{
	uint64_t total;
	enum ionic_status st;

	decode_hdr(w, raw, stride);
	st = decode_sgl(w, &total);
	if (st)
		return st;
	/* RQ WQEs carry the SGL total in imm_data_key (docs/device-contract.md
	 * §4.1). */
	if (total != be32toh(w->imm_raw) || total > (1ull << 31))
		return IONIC_STS_LOCAL_LEN_ERR;
	w->length = total;
	return IONIC_STS_OK;
}

void idev_wqe_trace(const char *what, uint32_t qpn, uint16_t slot,
		    const struct idev_wqe *w, enum ionic_status st)
{
	char extra[128] = "";

	if (!isim_trace_enabled())
		return;
	/* The body's own fields: the common body carries UD addressing for
	 * sends and the remote address for RDMA operations. */
	switch (w->op ? w->op->body : IDEV_BODY_REG_MR) {
	case IDEV_BODY_REG_MR:
		break; /* receive WQEs (no opcode), unknown opcodes */
	case IDEV_BODY_COMMON:
		if (w->op->op == IDEV_WR_RDMA_WRITE ||
		    w->op->op == IDEV_WR_RDMA_WRITE_IMM ||
		    w->op->op == IDEV_WR_RDMA_READ)
			snprintf(extra, sizeof(extra), "raddr 0x%llx rkey 0x%x",
				 (unsigned long long)w->remote_va, w->rkey);
		else
			snprintf(extra, sizeof(extra),
				 "ah %u dqpn %u qkey 0x%x", w->ah_id,
				 w->dest_qpn, w->dest_qkey);
		break;
	case IDEV_BODY_ATOMIC:
		snprintf(
			extra, sizeof(extra),
			"raddr 0x%llx rkey 0x%x swap_add 0x%llx compare 0x%llx",
			(unsigned long long)w->remote_va, w->rkey,
			(unsigned long long)w->swap_add,
			(unsigned long long)w->compare);
		break;
	case IDEV_BODY_BIND:
		snprintf(
			extra, sizeof(extra),
			"key 0x%x key8 0x%x va 0x%llx len %llu lkey 0x%x mrf 0x%x",
			w->key, w->new_key8, (unsigned long long)w->bind_va,
			(unsigned long long)w->bind_len, w->bind_lkey,
			w->bind_flags);
		break;
	case IDEV_BODY_LOCAL:
		snprintf(extra, sizeof(extra), "key 0x%x", w->key);
		break;
	}
	isim_trace(
		ISIM_TR_WQE,
		"%s qp %u slot %u idx %u op %s(0x%x) flags 0x%x nsge %u%s len %u "
		"imm 0x%x%s%s status %d",
		what, qpn, slot, w->wqe_idx, w->op ? w->op->name : "-",
		w->opcode, w->flags, w->num_sge, w->inl ? " inline" : "",
		w->length, be32toh(w->imm_raw), extra[0] ? " " : "", extra, st);
	if (isim_trace_raw && w->raw) {
		char pfx[48];

		snprintf(pfx, sizeof(pfx), "%s qp %u slot %u stride %u", what,
			 qpn, slot, w->stride);
		isim_trace_hex(ISIM_TR_WQERAW, pfx, w->raw, w->stride);
	}
}
