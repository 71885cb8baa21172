// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: doorbell decode (ionic-device.md §1).
 *
 * The doorbell page of a ucontext is an array of 64-bit registers indexed
 * by qtype.  A store is decoded into {qtype, qid, ring, index}, checked
 * against the page's owner (a queue accepts doorbells only on the page of
 * the context that created it; other stores are ignored and traced), and
 * handed on: SQ/RQ producer indices to the requester/responder, CQ rings
 * to the CQE writer.  No WQE is parsed here.
 */
#include "../common/trace.h"
#include "cqe.h"
#include "device.h"
#include "dqp.h"

static void db_ignored(uint32_t offset, uint64_t value, const char *why)
{
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_DB, "off 0x%x val 0x%016llx ignored: %s",
			   offset, (unsigned long long)value, why);
}

static void db_wq(struct isim_nic *nic, struct isim_file *file, bool sq,
		  uint32_t qid, unsigned int ring, uint16_t index,
		  uint64_t value)
{
	struct isim_qp *qp = isim_qp_lookup(nic, qid);
	struct isim_dev_qp *d = qp ? to_isim_dqp(qp) : NULL;
	struct isim_wq *wq;

	if (!d || qp->uobj.file != file) {
		db_ignored(sq ? 8 * nic->prof.sq_qtype : 8 * nic->prof.rq_qtype,
			   value, "no such QP on this page");
		return;
	}
	if (ring != 0) {
		db_ignored(0, value, "SQ/RQ ring != 0");
		return;
	}
	wq = sq ? &qp->sq : &qp->rq;
	/* The index is the host's, untrusted: keep it inside the ring. */
	wq->db_prod = index & wq->desc.mask;
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_DB, "%s qp %u prod %u (cons %u)",
			   sq ? "SQ" : "RQ", qid, wq->db_prod, wq->cons);
	if (sq)
		isim_req_run(d);
	else if (qp->state == IBV_QPS_ERR)
		isim_dqp_flush_indicators(d);
	/* RQ WQEs are consumed when packets arrive. */
}

static void db_cq(struct isim_nic *nic, struct isim_file *file, uint32_t qid,
		  unsigned int ring, uint16_t index, uint64_t value)
{
	struct isim_cq *cq = qid < nic->cqid_limit ? nic->cqs[qid] : NULL;
	struct isim_hwcq *hw = NULL;
	int i;

	if (cq && cq->uobj.file == file) {
		for (i = 0; i < 2; i++)
			if (cq->hw[i].present && cq->hw[i].cqid == qid)
				hw = &cq->hw[i];
	}
	if (!hw) {
		db_ignored(8 * nic->prof.cq_qtype, value,
			   "no such CQ on this page");
		return;
	}
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_DB, "CQ %u ring %u index %u (prod %u)", qid,
			   ring, index, hw->prod);
	isim_cq_doorbell(hw, ring, index);
}

void isim_dev_doorbell(struct isim_nic *nic, struct isim_file *file,
		       uint32_t offset, uint64_t value)
{
	const struct isim_profile *p = &nic->prof;
	unsigned int qtype = offset / 8;
	uint32_t qid = ionic_dbell_qid(value);
	unsigned int ring = ionic_dbell_ring(value);
	uint16_t index = ionic_dbell_index(value);

	if (offset % 8 || qtype >= IONIC_QTYPE_MAX) {
		db_ignored(offset, value, "not a doorbell register");
		return;
	}
	if (qtype == p->sq_qtype)
		db_wq(nic, file, true, qid, ring, index, value);
	else if (qtype == p->rq_qtype)
		db_wq(nic, file, false, qid, ring, index, value);
	else if (qtype == p->cq_qtype)
		db_cq(nic, file, qid, ring, index, value);
	else
		db_ignored(offset, value, "qtype without user queues");
}
