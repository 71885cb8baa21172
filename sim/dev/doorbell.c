// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: doorbells (docs/device-contract.md §1).
 *
 * The doorbell page of a ucontext (page 'dbid' of the device's doorbell
 * BAR) is an array of 64-bit registers indexed by qtype.  A store is
 * decoded into {qtype, qid, ring, index}, checked against the page (a
 * queue accepts doorbells only on the page of the context that created
 * it, the dbid its admin command named; other stores are ignored and
 * traced), and handed on: SQ/RQ producer indices to the requester and
 * responder, CQ rings to the CQE writer.  No WQE is parsed here.
 *
 * Stores arrive through the MMIO port of the configuration, in capture
 * order: the engine pops them in batches, admin commands pop everything
 * first (idev_sync_doorbells).
 */
#include "../common/trace.h"
#include "cqe.h"
#include "qp.h"

static void db_ignored(uint32_t offset, uint64_t value, const char *why)
{
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_DB, "off 0x%x val 0x%016llx ignored: %s",
			   offset, (unsigned long long)value, why);
}

static void db_wq(struct idev *dev, uint32_t dbid, bool sq, uint32_t qid,
		  unsigned int ring, uint16_t index, uint64_t value)
{
	struct idev_qp *d = idev_qp_lookup(dev, qid);
	struct idev_wq *wq;

	if (!d || d->dbid != dbid) {
		db_ignored(sq ? 8 * dev->prof->sq_qtype :
				8 * dev->prof->rq_qtype,
			   value, "no such QP on this page");
		return;
	}
	if (ring != 0) {
		db_ignored(0, value, "SQ/RQ ring != 0");
		return;
	}
	wq = sq ? &d->sq : &d->rq;
	/* The index is the host's, untrusted: keep it inside the ring. */
	wq->db_prod = index & wq->mask;
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_DB, "%s qp %u prod %u (cons %u)",
			   sq ? "SQ" : "RQ", qid, wq->db_prod, wq->cons);
	if (sq)
		idev_req_run(d);
	else if (d->state == IBV_QPS_ERR)
		idev_qp_flush_indicators(d);
	/* RQ WQEs are consumed when packets arrive. */
}

static void db_cq(struct idev *dev, uint32_t dbid, uint32_t qid,
		  unsigned int ring, uint16_t index, uint64_t value)
{
	struct idev_cq *cq = idev_cq_lookup(dev, qid);

	if (!cq || cq->dbid != dbid) {
		db_ignored(8 * dev->prof->cq_qtype, value,
			   "no such CQ on this page");
		return;
	}
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_DB, "CQ %u ring %u index %u (prod %u)", qid,
			   ring, index, cq->prod);
	idev_cq_doorbell(cq, ring, index);
}

void idev_doorbell(struct idev *dev, uint32_t dbid, uint32_t offset,
		   uint64_t value)
{
	const struct isim_profile *p = dev->prof;
	unsigned int qtype = offset / 8;
	uint32_t qid = ionic_dbell_qid(value);
	unsigned int ring = ionic_dbell_ring(value);
	uint16_t index = ionic_dbell_index(value);

	if (offset % 8 || qtype >= IONIC_QTYPE_MAX) {
		db_ignored(offset, value, "not a doorbell register");
		return;
	}
	if (qtype == p->sq_qtype)
		db_wq(dev, dbid, true, qid, ring, index, value);
	else if (qtype == p->rq_qtype)
		db_wq(dev, dbid, false, qid, ring, index, value);
	else if (qtype == p->cq_qtype)
		db_cq(dev, dbid, qid, ring, index, value);
	else
		db_ignored(offset, value, "qtype without user queues");
}

int idev_doorbells_pop(struct idev *dev, int max, bool *more)
{
	struct isim_mmio_store st;
	int n;

	*more = false;
	if (!dev->cfg.mmio.pop)
		return 0;
	for (n = 0; n < max; n++) {
		if (!dev->cfg.mmio.pop(&st))
			return n;
		if (st.size != 8) {
			/* The doorbell is one 64-bit store
			 * (docs/device-contract.md §1.2); anything else on the
			 * page is not a doorbell. */
			if (isim_trace_enabled())
				isim_trace(ISIM_TR_DB,
					   "off 0x%x size %u ignored",
					   st.offset, st.size);
			continue;
		}
		idev_doorbell(dev, (uint32_t)st.page, st.offset, st.value);
	}
	*more = true;
	return n;
}

void idev_sync_doorbells(struct idev *dev)
{
	bool more;
	int n = 0;

	do
		n += idev_doorbells_pop(dev, 256, &more);
	while (more);
	/* Called from an application thread: the work may have set timers
	 * the sleeping engine does not know about. */
	if (n && dev->engine)
		idev_engine_wake(dev->engine);
}
