// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The device side of the provider-cq fuzz target: a correct device that
 * completes posted work in order, and a hostile one that writes arbitrary
 * CQEs.  Both write through tests/support/provider_fixture.h's CQ writer (everything,
 * then the colour word) and count what they wrote, for the oracle's check
 * that the host reads every CQE and the device never overruns the ring.
 */
#include "provider_cq.h"

/* The device writes one CQE (the colour word last). */
static void fz_hw_note_write(struct fz_hwcq *hw)
{
	/* writing over a CQE the host has not read: an overrun */
	if (hw->unread > hw->d.cq->q.mask)
		hw->overrun = true;
	hw->unread++;
}

static struct fz_hwcq *fz_send_hw(struct fz *fz, struct fz_qp *f)
{
	return fz_hw_of(fz, f->send_vcq, f->udma);
}

static struct fz_hwcq *fz_recv_hw(struct fz *fz, struct fz_qp *f)
{
	return fz_hw_of(fz, f->recv_vcq, f->udma);
}

/*
 * A correct device completes the next 1..8 requests of one queue, the
 * last one with an error if asked: NPG CQEs for local and UD sends, one
 * MSN CQE for the remote ones, one RECV CQE per receive.
 */
void fz_dev_complete(struct fz *fz, struct fz_qp *f, struct fuzz_in *in)
{
	uint8_t a = fuzz_u8(in);
	unsigned int k = 1 + (a & 7), i;
	bool recv = a & 8, err = a & 16;
	uint32_t sts = err ? 1 + fuzz_u8(in) % 16 : 0;
	struct fz_queue *q = recv ? &f->rq : &f->sq;
	struct fz_hwcq *hw = recv ? fz_recv_hw(fz, f) : fz_send_hw(fz, f);
	bool msn = false, msn_err = false;
	uint16_t last_seq = 0;

	fz_trace("dev_complete qp %u %s k %u err %u\n", f->qpid,
		 recv ? "recv" : "send", k, sts);
	for (i = 0; i < k && q->dev_next != q->tail; i++, q->dev_next++) {
		struct fz_wr *e = fz_at(q, q->dev_next);
		bool e_err = err && (i + 1 == k || q->dev_next + 1 == q->tail);

		if (recv) {
			fz_hw_note_write(hw);
			unit_cqe_recv(&hw->d, f->qpid, e->slot, a >> 5, 0x77,
				      e_err ? sts : 64, 0x1234,
				      (uint32_t)(a & 3) << 30, e_err);
		} else if (e->remote) {
			msn = true;
			msn_err = e_err;
			last_seq = e->seq;
		} else {
			fz_hw_note_write(hw);
			unit_cqe_npg(&hw->d, f->qpid, e->slot, e_err, sts);
		}
	}
	if (msn) {
		fz_hw_note_write(hw);
		unit_cqe_msn(&hw->d, f->qpid, (uint16_t)(last_seq + 1u),
			     msn_err, msn_err ? sts : 0);
	}
}

/*
 * A hostile device: one CQE of arbitrary bytes on any hardware CQ, with a
 * queue id of a live, destroyed or cleaned QP or any number, any type and
 * error bit, and the colour the host expects or the other one (a stale
 * or half-written CQE: the device has not moved on).  'repeat' copies.
 */
void fz_dev_raw(struct fz *fz, struct fuzz_in *in)
{
	uint8_t a = fuzz_u8(in), b = fuzz_u8(in);
	unsigned int v = (a & 1) % fz->nvcq, u = (a >> 1) & 1;
	unsigned int repeat = 1 + ((b >> 5) == 7 ? fuzz_u8(in) : 0);
	struct fz_hwcq *hw;
	uint32_t qid, qtf;
	uint8_t bytes[IONIC_CQE_SIZE];
	bool color_ok = !(a & 4);
	unsigned int i;

	if (!(fz->vcq[v]->udma_mask & (1u << u)))
		u = 0;
	hw = fz_hw_of(fz, v, u);

	switch ((a >> 3) & 7) {
	case 0:
	case 1:
	case 2:
	case 3:
		qid = fz->qp[((a >> 3) & 3) % fz->nqp].qpid;
		break;
	case 4:
		qid = IONIC_CQE_QID_CLEANED;
		break;
	default:
		qid = fuzz_u32(in) & IONIC_CQE_QID_MASK;
		break;
	}
	fuzz_bytes(in, bytes, sizeof(bytes));
	fz_trace("dev_raw cq %u/%u qid %#x type %u err %u colour %s x%u\n", v,
		 u, qid, b & 7, !!(b & 8), color_ok ? "ok" : "stale", repeat);

	for (i = 0; i < repeat; i++) {
		struct ionic_cqe *cqe = ionic_queue_at(&hw->d.cq->q, hw->d.pos);
		bool color = color_ok ? hw->d.color : !hw->d.color;

		memcpy(cqe, bytes, offsetof(struct ionic_cqe, qid_type_flags));
		qtf = ionic_cqe_qtf(qid, (enum ionic_cqe_type)(b & 7), b & 8,
				    color);
		cqe->qid_type_flags = htobe32(qtf);
		if (!color_ok)
			break;
		fz_hw_note_write(hw);
		hw->d.pos = ionic_queue_next(&hw->d.cq->q, hw->d.pos);
		if (!hw->d.pos)
			hw->d.color = !hw->d.color;
	}
}
