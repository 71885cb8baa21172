// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: CQE writer, CQ credits and arming.
 *
 * The host owns the ring memory; the device owns prod and colour.  Rules
 * (docs/device-contract.md §6.1, §8):
 *  - the first pass through the ring is written with colour 1, the colour
 *    flips every time prod wraps to slot 0;
 *  - the body is written first, the word holding the colour last, with
 *    release ordering, so a host that sees the colour sees the whole CQE;
 *  - the device never has more than mask CQEs outstanding beyond the last
 *    consumer index the host reported on ring 0 (the same one-slot hole the
 *    host's reserve accounting assumes);
 *  - an arm (ring 1/2 with a new index) fires one completion event, at once
 *    if a qualifying CQE is already past the consumer index, else at the
 *    next qualifying CQE.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/trace.h"
#include "cqe.h"
#include "qp.h"

static void cq_fire(struct idev_cq *cq)
{
	cq->armed_any = false;
	cq->armed_sol = false;
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_EVENT, "comp cq %u", cq->cqid);
	idev_raise(cq->dev, cq->eqid, IDEV_EQE_TYPE_CQ, IDEV_EQE_CQ_NOTIFY,
		   cq->cqid);
}

/* Is the newest solicited CQE still unread (past the consumer index)? */
static bool cq_sol_unread(const struct idev_cq *cq)
{
	if (!cq->sol_pending)
		return false;
	return ((cq->sol_slot - cq->host_cons) & cq->mask) <
	       idev_cq_outstanding(cq);
}

/* The 48-bit completion timestamp (docs/device-contract.md §5.7) in the upper
 * bits of the LE64 index field: offset 0 for RECV, 16 for both SEND types.  The
 * clock is the device's (idev_clock), which the host's PHC page describes. */
static void cqe_stamp(uint64_t clock, struct ionic_cqe *slot, uint32_t qtf)
{
	uint64_t ts = clock & ((1ull << (64 - IONIC_CQE_TIMESTAMP_SHIFT)) - 1);
	__le64 *f = ((qtf >> IONIC_CQE_TYPE_SHIFT) & IONIC_CQE_TYPE_MASK) ==
				    IONIC_CQE_TYPE_RECV ?
			    &slot->recv.wqe_idx_timestamp :
			    &slot->send.npg_wqe_idx_timestamp;

	*f = htole64((le64toh(*f) & IONIC_CQE_WQE_IDX_MASK) |
		     ts << IONIC_CQE_TIMESTAMP_SHIFT);
}

void idev_cqe_image(struct ionic_cqe *img, const struct ionic_cqe *cqe,
		    uint64_t clock, bool color)
{
	uint32_t qtf = be32toh(cqe->qid_type_flags) & ~IONIC_CQE_COLOR;

	if (color)
		qtf |= IONIC_CQE_COLOR;
	*img = *cqe;
	cqe_stamp(clock, img, qtf);
	img->qid_type_flags = htobe32(qtf);
}

int idev_cqe_post(struct idev_cq *cq, const struct ionic_cqe *cqe,
		  bool solicited)
{
	struct ionic_cqe *slot, img;

	if (!cq->ring)
		return -ENOSPC;
	if (idev_cq_outstanding(cq) >= cq->mask) {
		/* A correct host can't get here (credits + 100-slot grace):
		 * the CQE is dropped, CQ_ERR raised once per overrun (what
		 * the firmware has for it), and the caller's QP goes to ERR
		 * (docs/device-contract.md §8.1). */
		if (isim_trace_enabled())
			isim_trace(ISIM_TR_CQE,
				   "cq %u OVERFLOW prod %u host_cons %u",
				   cq->cqid, cq->prod, cq->host_cons);
		if (!cq->overflowed)
			idev_raise(cq->dev, IDEV_ASYNC_EQ, IDEV_EQE_TYPE_CQ,
				   IDEV_EQE_CQ_ERR, cq->cqid);
		cq->overflowed = true;
		return -ENOSPC;
	}

	slot = (struct ionic_cqe *)(cq->ring +
				    ((size_t)cq->prod << cq->stride_log2));
	idev_cqe_image(&img, cqe, idev_clock(cq->dev), cq->color);
	memcpy(slot, &img, offsetof(struct ionic_cqe, qid_type_flags));
	/* Publish: body (and every payload write before it) first. */
	__atomic_store_n(&slot->qid_type_flags, img.qid_type_flags,
			 __ATOMIC_RELEASE);

	if (isim_trace_enabled())
		isim_trace_hex(ISIM_TR_CQE, "write", slot, sizeof(*slot));

	if (solicited) {
		cq->sol_pending = true;
		cq->sol_slot = cq->prod;
	}
	cq->prod = (cq->prod + 1) & cq->mask;
	if (cq->prod == 0)
		cq->color ^= 1;

	if (cq->armed_any || (cq->armed_sol && solicited))
		cq_fire(cq);
	return 0;
}

void idev_cq_remote_cqe(struct idev_cq *cq, bool solicited)
{
	if (cq->armed_any || (cq->armed_sol && solicited))
		cq_fire(cq);
}

void idev_cq_doorbell(struct idev_cq *cq, unsigned int ring, uint16_t index)
{
	switch (ring) {
	case 0:
		/* Consumer index: gives slots back.  Trusted as hardware
		 * would; a bogus value only hurts the host's own CQ. */
		cq->host_cons = index & cq->mask;
		if (cq->sol_pending && !cq_sol_unread(cq))
			cq->sol_pending = false;
		/* the overrun is over once there is room again: the QPs it
		 * sent to ERR get their flush indicators in */
		if (cq->overflowed && idev_cq_outstanding(cq) < cq->mask) {
			cq->overflowed = false;
			idev_cq_room(cq);
		}
		break;
	case 1:
		if (index == cq->arm_any_idx)
			break; /* not a new arm request */
		cq->arm_any_idx = index;
		cq->armed_any = true;
		if (idev_cq_outstanding(cq))
			cq_fire(cq);
		break;
	case 2:
		if (index == cq->arm_sol_idx)
			break;
		cq->arm_sol_idx = index;
		cq->armed_sol = true;
		if (cq_sol_unread(cq))
			cq_fire(cq);
		break;
	default:
		if (isim_trace_enabled())
			isim_trace(ISIM_TR_DB, "cq %u unknown ring %u ignored",
				   cq->cqid, ring);
		break;
	}
}

static void cqe_tail(struct ionic_cqe *cqe, uint32_t qpn,
		     enum ionic_cqe_type type, enum ionic_status status,
		     uint32_t length)
{
	cqe->status_length = htobe32(status ? (uint32_t)status : length);
	cqe->qid_type_flags = htobe32(
		ionic_cqe_qtf(qpn & IONIC_CQE_QID_MASK, type, status != 0, 0));
}

void idev_cqe_recv(struct ionic_cqe *cqe, uint32_t qpn, uint16_t wqe_idx,
		   uint32_t byte_len, uint32_t src_qpn, unsigned int op,
		   uint32_t imm_raw, const uint8_t src_mac[6],
		   uint16_t vlan_tci, bool ipv4)
{
	memset(cqe, 0, sizeof(*cqe));
	cqe->recv.wqe_idx_timestamp = htole64(wqe_idx);
	cqe->recv.src_qpn_op = htobe32(
		(src_qpn & IONIC_CQE_RECV_SRC_QPN_MASK) |
		((op & IONIC_CQE_RECV_OP_MASK) << IONIC_CQE_RECV_OP_SHIFT) |
		(ipv4 ? IONIC_CQE_RECV_IS_IPV4 : 0));
	if (src_mac)
		memcpy(cqe->recv.src_mac, src_mac, 6);
	cqe->recv.vlan_tag = htobe16(vlan_tci);
	cqe->recv.imm_data_rkey = imm_raw; /* raw bytes, as posted */
	cqe_tail(cqe, qpn, IONIC_CQE_TYPE_RECV, IONIC_STS_OK, byte_len);
}

void idev_cqe_recv_err(struct ionic_cqe *cqe, uint32_t qpn, uint16_t wqe_idx,
		       enum ionic_status status)
{
	memset(cqe, 0, sizeof(*cqe));
	cqe->recv.wqe_idx_timestamp = htole64(wqe_idx);
	cqe_tail(cqe, qpn, IONIC_CQE_TYPE_RECV, status, 0);
}

void idev_cqe_msn(struct ionic_cqe *cqe, uint32_t qpn, uint32_t msn,
		  enum ionic_status status)
{
	memset(cqe, 0, sizeof(*cqe));
	cqe->send.msg_msn = htobe32(msn);
	cqe_tail(cqe, qpn, IONIC_CQE_TYPE_SEND_MSN, status, 0);
}

void idev_cqe_npg(struct ionic_cqe *cqe, uint32_t qpn, uint16_t wqe_idx,
		  enum ionic_status status)
{
	memset(cqe, 0, sizeof(*cqe));
	cqe->send.npg_wqe_idx_timestamp = htole64(wqe_idx);
	cqe_tail(cqe, qpn, IONIC_CQE_TYPE_SEND_NPG, status, 0);
}

void idev_cqe_flush(struct ionic_cqe *cqe, uint32_t qpn, bool sq)
{
	memset(cqe, 0, sizeof(*cqe));
	cqe_tail(cqe, qpn, sq ? IONIC_CQE_TYPE_SEND_NPG : IONIC_CQE_TYPE_RECV,
		 IONIC_STS_WQE_FLUSHED_ERR, 0);
}
