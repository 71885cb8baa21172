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
 * Express doorbells (docs/device-contract.md §11.3): stores to an
 * express-doorbell window of controller memory (tag idev_expdb_tag) are
 * written into the CMB; the store that completes a WQE slot (its last
 * byte is the slot's last byte, so the slot's last 64-byte chunk has
 * landed) makes the device read the slot's trailer, the LE64 doorbell in
 * its last 8 bytes, and act on it as on an SQ doorbell.  Plain 8-byte
 * stores and 64-byte MOVDIR64B chunks arrive the same way.
 *
 * Stores arrive through the MMIO port of the configuration, in capture
 * order: the engine pops them in batches, admin commands pop everything
 * first (idev_sync_doorbells).
 */
#include <pthread.h>
#include <string.h>

#include "../common/trace.h"
#include "cqe.h"
#include "qp.h"

static void db_ignored(uint32_t offset, uint64_t value, const char *why)
{
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_DB, "off 0x%x val 0x%016llx ignored: %s",
			   offset, (unsigned long long)value, why);
}

/* A producer index for the SQ or RQ of d. */
static void db_wq_apply(struct idev_qp *d, bool sq, uint16_t index)
{
	struct idev_wq *wq = sq ? &d->sq : &d->rq;
	uint32_t qid = d->qpn;

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

static void db_wq(struct idev *dev, uint32_t dbid, bool sq, uint32_t qid,
		  unsigned int ring, uint16_t index, uint64_t value)
{
	struct idev_qp *d = idev_qp_lookup(dev, qid);

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
	db_wq_apply(d, sq, index);
}

/*
 * The trailer of the WQE slot ending at CMB byte 'end' of an express
 * window for 2^stride_log2-byte WQEs starting at 'win' (a CMB byte
 * offset): it names the queue itself, which must be an SQ whose ring is
 * that window with that stride (the RQ is never in CMB).
 */
static void db_expdb_trailer(struct idev *dev, uint64_t win,
			     unsigned int stride_log2, uint64_t end)
{
	const struct isim_profile *p = dev->prof;
	uint64_t v;
	unsigned int qtype, flags;
	struct idev_qp *d;
	uint32_t qid;

	memcpy(&v, dev->cfg.cmb + end - IONIC_EXP_DBELL_SZ, sizeof(v));
	v = le64toh(v);
	qtype = (v >> IONIC_DBELL_QTYPE_SHIFT) & 0xff;
	flags = (v >> IONIC_DBELL_EXPDB_SCHED_SHIFT) & 0x1f;
	qid = ionic_dbell_qid(v);
	d = idev_qp_lookup(dev, qid);
	if (qtype != p->sq_qtype || ionic_dbell_ring(v) != 0 ||
	    flags != IONIC_DBELL_EXPDB_SCHED) {
		db_ignored((uint32_t)(end - win), v,
			   "express doorbell: not an SQ trailer");
		return;
	}
	if (!d || d->sq.ring != dev->cfg.cmb + win ||
	    d->sq.stride_log2 != stride_log2 ||
	    end - win > ((uint64_t)d->sq.mask + 1) << stride_log2) {
		db_ignored((uint32_t)(end - win), v,
			   "express doorbell: no such QP in this window");
		return;
	}
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_DB, "express SQ qp %u slot %u", qid,
			   (unsigned int)((end - win - 1) >> stride_log2));
	db_wq_apply(d, true, ionic_dbell_index(v));
}

/* A store to an express-doorbell window (idev_expdb_tag). */
static void db_expdb_store(struct idev *dev, const struct isim_mmio_store *st)
{
	unsigned int stride_log2 = (st->page >> 32) & 0xff;
	uint64_t win = (st->page & 0xffffffffull) * IDEV_CMB_PAGE;
	uint64_t at = win + st->offset, end = at + st->size;

	if (stride_log2 < 6 || stride_log2 > 9 || !dev->cfg.cmb ||
	    st->size > ISIM_MMIO_MAX_STORE || end > dev->cfg.cmb_size ||
	    end < at) {
		db_ignored(st->offset, st->value,
			   "express window store outside the CMB");
		return;
	}
	/* The window aliases the CMB pages: the store lands in them. */
	memcpy(dev->cfg.cmb + at, st->data, st->size);
	if (end > win && !((end - win) & ((1u << stride_log2) - 1)) &&
	    end - at >= IONIC_EXP_DBELL_SZ)
		db_expdb_trailer(dev, win, stride_log2, end);
}

void idev_mmio_store(struct idev *dev, const struct isim_mmio_store *st)
{
	if (st->page & IDEV_TAG_EXPDB) {
		db_expdb_store(dev, st);
		return;
	}
	if (st->size != 8) {
		/* The doorbell is one 64-bit store (docs/device-contract.md
		 * §1.2); anything else on the page is not a doorbell. */
		if (isim_trace_enabled())
			isim_trace(ISIM_TR_DB, "off 0x%x size %u ignored",
				   st->offset, st->size);
		return;
	}
	idev_doorbell(dev, (uint32_t)st->page, st->offset, st->value);
}

void idev_mmio_inject(struct idev *dev, const struct isim_mmio_store *st)
{
	idev_mmio_store(dev, st);
	if (dev->engine)
		idev_engine_wake(dev->engine);
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
		idev_mmio_store(dev, &st);
	}
	*more = true;
	return n;
}

/* Doorbells per lock hold in the storing thread: as the engine's batch. */
#define DB_APPLY_BATCH 256

bool idev_doorbells_apply_now(struct idev *dev)
{
	bool more;

	/* Never wait: the holder (the engine, an admin command, another
	 * storing thread) may be busy for long, and the caller may be in a
	 * signal handler.  The engine applies what is left. */
	if (pthread_mutex_trylock(dev->cfg.lock))
		return false;
	idev_enter(dev);
	idev_doorbells_pop(dev, DB_APPLY_BATCH, &more);
	if (dev->engine)
		idev_engine_poke(dev->engine, more);
	idev_leave(dev);
	pthread_mutex_unlock(dev->cfg.lock);
	return true;
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
