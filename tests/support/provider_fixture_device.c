// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The device side of a hardware CQ for unit tests (unit.h): CQEs in the
 * layout of common/ionic_hw.h, the colour word written last.
 */
#include <string.h>

#include "provider_fixture.h"

struct unit_cq_dev unit_cq_dev(struct ionic_cq *cq)
{
	/* a fresh ring: slot 0, colour 1 (what the host expects first) */
	return (struct unit_cq_dev){ .cq = cq, .pos = 0, .color = true };
}

static void unit_cq_dev_advance(struct unit_cq_dev *d)
{
	d->pos = ionic_queue_next(&d->cq->q, d->pos);
	if (!d->pos)
		d->color = !d->color;
}

struct ionic_cqe *unit_cqe(struct unit_cq_dev *d, uint32_t qid,
			   enum ionic_cqe_type type, bool err,
			   uint32_t status_length)
{
	struct ionic_cqe *cqe = ionic_queue_at(&d->cq->q, d->pos);

	memset(cqe, 0, offsetof(struct ionic_cqe, qid_type_flags));
	cqe->status_length = htobe32(status_length);
	cqe->qid_type_flags = htobe32(ionic_cqe_qtf(qid, type, err, d->color));
	unit_cq_dev_advance(d);
	return cqe;
}

void unit_cqe_msn(struct unit_cq_dev *d, uint32_t qid, uint32_t msn, bool err,
		  uint32_t sts)
{
	struct ionic_cqe *cqe =
		unit_cqe(d, qid, IONIC_CQE_TYPE_SEND_MSN, err, sts);

	cqe->send.msg_msn = htobe32(msn);
	cqe->send.npg_wqe_idx_timestamp = htole64(0x1234ull << 16);
}

void unit_cqe_npg(struct unit_cq_dev *d, uint32_t qid, uint16_t slot, bool err,
		  uint32_t sts)
{
	struct ionic_cqe *cqe =
		unit_cqe(d, qid, IONIC_CQE_TYPE_SEND_NPG, err, sts);

	cqe->send.npg_wqe_idx_timestamp = htole64(slot);
}

void unit_cqe_recv(struct unit_cq_dev *d, uint32_t qid, uint16_t slot,
		   uint32_t op, uint32_t src_qp, uint32_t len, uint32_t imm,
		   uint32_t flags, bool err)
{
	struct ionic_cqe *cqe = unit_cqe(d, qid, IONIC_CQE_TYPE_RECV, err, len);

	cqe->recv.wqe_idx_timestamp = htole64(slot);
	cqe->recv.src_qpn_op = htobe32(flags | op << 24 | src_qp);
	cqe->recv.imm_data_rkey = htobe32(imm);
	/* a priority the provider must not report as wc.sl */
	cqe->recv.vlan_tag = htobe16(5 << 13);
}

void unit_cqe_bytes(struct unit_cq_dev *d, const uint8_t *bytes)
{
	/* bytes with colour 1 are valid on the first lap only */
	CHECK(d->color);
	memcpy(ionic_queue_at(&d->cq->q, d->pos), bytes, IONIC_CQE_SIZE);
	unit_cq_dev_advance(d);
}
