// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: CQE writer, CQ credits and arming.
 *
 * The host owns the ring memory; the device owns prod and colour.  Rules
 * (ionic-device.md §6.1, §8):
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
#include <string.h>

#include "../common/trace.h"
#include "cqe.h"

void isim_cq_reset(struct isim_hwcq *hw)
{
	hw->prod = 0;
	hw->color = 1;
	hw->host_cons = 0;
	hw->arm_any_idx = 0;
	hw->arm_sol_idx = 0;
	hw->armed_any = false;
	hw->armed_sol = false;
	hw->overflowed = false;
	hw->sol_pending = false;
	hw->sol_slot = 0;
}

static void cq_fire(struct isim_hwcq *hw)
{
	hw->armed_any = false;
	hw->armed_sol = false;
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_EVENT, "comp cq %u", hw->cqid);
	if (hw->vcq)
		isim_post_comp_event(hw->vcq);
}

/* Is the newest solicited CQE still unread (past the consumer index)? */
static bool cq_sol_unread(const struct isim_hwcq *hw)
{
	if (!hw->sol_pending)
		return false;
	return ((hw->sol_slot - hw->host_cons) & hw->desc.mask) <
	       isim_cq_outstanding(hw);
}

/* The 48-bit completion timestamp (§5.7) in the upper bits of the LE64
 * index field: offset 0 for RECV, 16 for both SEND types.  The clock is
 * the one the PHC page describes (isim_phc_cycles). */
static void cqe_stamp(struct ionic_cqe *slot, uint32_t qtf)
{
	uint64_t ts = isim_phc_cycles() &
		      ((1ull << (64 - IONIC_CQE_TIMESTAMP_SHIFT)) - 1);
	__le64 *f = ((qtf >> IONIC_CQE_TYPE_SHIFT) & IONIC_CQE_TYPE_MASK) ==
				    IONIC_CQE_TYPE_RECV ?
			    &slot->recv.wqe_idx_timestamp :
			    &slot->send.npg_wqe_idx_timestamp;

	*f = htole64((le64toh(*f) & IONIC_CQE_WQE_IDX_MASK) |
		     ts << IONIC_CQE_TIMESTAMP_SHIFT);
}

int isim_cqe_post(struct isim_hwcq *hw, const struct ionic_cqe *cqe,
		  bool solicited)
{
	struct ionic_cqe *slot;
	uint32_t qtf;

	if (!hw->ring || hw->overflowed)
		return -ENOSPC;
	if (isim_cq_outstanding(hw) >= hw->desc.mask) {
		/* A correct host can't get here (credits + 100-slot grace);
		 * CQ_ERR is what the firmware has for it (§8.1). */
		hw->overflowed = true;
		if (isim_trace_enabled())
			isim_trace(ISIM_TR_CQE,
				   "cq %u OVERFLOW prod %u host_cons %u",
				   hw->cqid, hw->prod, hw->host_cons);
		if (hw->vcq)
			isim_post_async_cq(hw->vcq, IBV_EVENT_CQ_ERR);
		return -ENOSPC;
	}

	slot = (struct ionic_cqe *)(hw->ring +
				    ((size_t)hw->prod << hw->desc.stride_log2));
	qtf = be32toh(cqe->qid_type_flags) & ~IONIC_CQE_COLOR;
	if (hw->color)
		qtf |= IONIC_CQE_COLOR;
	memcpy(slot, cqe, offsetof(struct ionic_cqe, qid_type_flags));
	cqe_stamp(slot, qtf);
	/* Publish: body (and every payload write before it) first. */
	__atomic_store_n(&slot->qid_type_flags, htobe32(qtf), __ATOMIC_RELEASE);

	if (isim_trace_enabled())
		isim_trace_hex(ISIM_TR_CQE, "write", slot, sizeof(*slot));

	if (solicited) {
		hw->sol_pending = true;
		hw->sol_slot = hw->prod;
	}
	hw->prod = (hw->prod + 1) & hw->desc.mask;
	if (hw->prod == 0)
		hw->color ^= 1;

	if (hw->armed_any || (hw->armed_sol && solicited))
		cq_fire(hw);
	return 0;
}

void isim_cq_doorbell(struct isim_hwcq *hw, unsigned int ring, uint16_t index)
{
	switch (ring) {
	case 0:
		/* Consumer index: gives slots back.  Trusted as hardware
		 * would; a bogus value only hurts the host's own CQ. */
		hw->host_cons = index & hw->desc.mask;
		if (hw->sol_pending && !cq_sol_unread(hw))
			hw->sol_pending = false;
		break;
	case 1:
		if (index == hw->arm_any_idx)
			break; /* not a new arm request */
		hw->arm_any_idx = index;
		hw->armed_any = true;
		if (isim_cq_outstanding(hw))
			cq_fire(hw);
		break;
	case 2:
		if (index == hw->arm_sol_idx)
			break;
		hw->arm_sol_idx = index;
		hw->armed_sol = true;
		if (cq_sol_unread(hw))
			cq_fire(hw);
		break;
	default:
		if (isim_trace_enabled())
			isim_trace(ISIM_TR_DB, "cq %u unknown ring %u ignored",
				   hw->cqid, ring);
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

void isim_cqe_recv(struct ionic_cqe *cqe, uint32_t qpn, uint16_t wqe_idx,
		   uint32_t byte_len, uint32_t src_qpn, unsigned int op,
		   uint32_t imm_raw, const uint8_t src_mac[6],
		   uint16_t vlan_tci)
{
	memset(cqe, 0, sizeof(*cqe));
	cqe->recv.wqe_idx_timestamp = htole64(wqe_idx);
	cqe->recv.src_qpn_op = htobe32(
		(src_qpn & IONIC_CQE_RECV_SRC_QPN_MASK) |
		((op & IONIC_CQE_RECV_OP_MASK) << IONIC_CQE_RECV_OP_SHIFT));
	if (src_mac)
		memcpy(cqe->recv.src_mac, src_mac, 6);
	cqe->recv.vlan_tag = htobe16(vlan_tci);
	cqe->recv.imm_data_rkey = imm_raw; /* raw bytes, as posted */
	cqe_tail(cqe, qpn, IONIC_CQE_TYPE_RECV, IONIC_STS_OK, byte_len);
}

void isim_cqe_recv_err(struct ionic_cqe *cqe, uint32_t qpn, uint16_t wqe_idx,
		       enum ionic_status status)
{
	memset(cqe, 0, sizeof(*cqe));
	cqe->recv.wqe_idx_timestamp = htole64(wqe_idx);
	cqe_tail(cqe, qpn, IONIC_CQE_TYPE_RECV, status, 0);
}

void isim_cqe_msn(struct ionic_cqe *cqe, uint32_t qpn, uint32_t msn,
		  enum ionic_status status)
{
	memset(cqe, 0, sizeof(*cqe));
	cqe->send.msg_msn = htobe32(msn);
	cqe_tail(cqe, qpn, IONIC_CQE_TYPE_SEND_MSN, status, 0);
}

void isim_cqe_npg(struct ionic_cqe *cqe, uint32_t qpn, uint16_t wqe_idx,
		  enum ionic_status status)
{
	memset(cqe, 0, sizeof(*cqe));
	cqe->send.npg_wqe_idx_timestamp = htole64(wqe_idx);
	cqe_tail(cqe, qpn, IONIC_CQE_TYPE_SEND_NPG, status, 0);
}

void isim_cqe_flush(struct ionic_cqe *cqe, uint32_t qpn, bool sq)
{
	memset(cqe, 0, sizeof(*cqe));
	cqe_tail(cqe, qpn, sq ? IONIC_CQE_TYPE_SEND_NPG : IONIC_CQE_TYPE_RECV,
		 IONIC_STS_WQE_FLUSHED_ERR, 0);
}
