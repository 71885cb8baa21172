// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: the QP's state - admin CREATE/MODIFY/QUERY/DESTROY_QP
 * and what RESET, SQD and ERR do to the device's QP.  Transmit is tx.c,
 * the routing of a QP's CQEs to its CQs cq_route.c.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/trace.h"
#include "cqe.h"
#include "direct.h"
#include "qp.h"

void idev_qp_check_drained(struct idev_qp *d)
{
	if (d->state != IBV_QPS_SQD || d->drain_reported || !d->swqe ||
	    d->req.una != d->sq.cons)
		return;
	d->sq_draining = 0;
	d->drain_reported = true;
	if (d->en_sqd_async_notify)
		idev_raise(d->dev, IDEV_ASYNC_EQ, IDEV_EQE_TYPE_QP,
			   IDEV_EQE_QP_SQ_DRAIN, d->qpn);
}

/* Stop all traffic of the QP (ERR or RESET). */
static void qp_quiesce(struct idev_qp *d)
{
	d->req.deadline = 0;
	d->req.rnr_wait = false;
	d->resp.out.count = 0; /* READ responses not sent yet */
	ifab_drop_backlog(&d->ep);
}

void idev_qp_error(struct idev_qp *d, enum idev_eqe_code code)
{
	if (d->state == IBV_QPS_ERR)
		return;
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_EVENT, "qp %u -> ERR (device)%s", d->qpn,
			   code ? ", async event" : "");
	/* The firmware owns the QP state; a device-detected error moves it
	 * to ERR (the host sees it in QUERY_QP). */
	d->state = IBV_QPS_ERR;
	qp_quiesce(d);
	idev_qp_flush_indicators(d);
	if (code)
		idev_raise(d->dev, IDEV_ASYNC_EQ, IDEV_EQE_TYPE_QP, code,
			   d->qpn);
}

static void qp_reset(struct idev_qp *d)
{
	qp_quiesce(d);
	ifab_clear_peer(&d->ep);
	d->has_path = false;
	d->sq.cons = d->sq.db_prod = 0;
	d->rq.cons = d->rq.db_prod = 0;
	idev_req_reset(d);
	idev_resp_reset(d);
	d->sq_errored = d->rq_errored = false;
	d->sq_lost = d->rq_lost = false;
}

/* ---- admin CREATE_QP / DESTROY_QP ---------------------------------------- */

static void wq_init(struct idev_wq *wq, const struct idev_ring *r)
{
	memset(wq, 0, sizeof(*wq));
	wq->ring = r->addr;
	wq->mask = r->mask;
	wq->depth_log2 = r->depth_log2;
	wq->stride_log2 = r->stride_log2;
}

static uint32_t wq_stride(const struct idev_wq *wq)
{
	uint32_t s = 1u << wq->stride_log2;

	/* Snapshots are decoded as at least one minimal WQE. */
	return s < IONIC_WQE_MIN_SIZE ? IONIC_WQE_MIN_SIZE : s;
}

/* What the QP and its endpoint counted, for a run's trace (a test reads
 * retransmissions and drops back from it). */
static void qp_trace_counters(const struct idev_qp *d)
{
	const struct ifab_ep *ep = &d->ep;

	isim_trace(ISIM_TR_QP,
		   "qp %u counters: wqes %llu cqes %llu retransmits %llu "
		   "rnr_naks %llu drops %llu tx %llu rx %llu queued %llu "
		   "backlog_drops %llu lost %llu fault_drops %llu",
		   d->qpn, (unsigned long long)d->cnt.wqes,
		   (unsigned long long)d->cnt.cqes,
		   (unsigned long long)d->cnt.retransmits,
		   (unsigned long long)d->cnt.rnr_naks_rx,
		   (unsigned long long)d->cnt.drops,
		   (unsigned long long)ep->tx_pkts,
		   (unsigned long long)ep->rx_pkts,
		   (unsigned long long)ep->tx_queued,
		   (unsigned long long)ep->tx_dropped,
		   (unsigned long long)ep->tx_lost,
		   (unsigned long long)ep->tx_fault_drop);
}

void idev_qp_free(struct idev_qp *d)
{
	struct idev *dev = d->dev;

	if (isim_trace_enabled())
		qp_trace_counters(d);
	if (dev->engine)
		idev_engine_del(dev->engine, d);
	idev_direct_qp_gone(d);
	for (struct idev_qp **pp = &dev->qp_list; *pp; pp = &(*pp)->next) {
		if (*pp == d) {
			*pp = d->next;
			break;
		}
	}
	if (idev_qp_lookup(dev, d->qpn) == d) {
		dev->qps[d->qpn] = NULL;
		dev->nlive_qps--;
	}
	ifab_close(&d->ep);
	free(d->sq_copy);
	free(d->swqe);
	free(d->resp.copy);
	free(d);
}

int idev_qp_create(struct idev *dev, const struct idev_qp_create *c)
{
	struct idev_qp *d;
	uint32_t slots;
	int rc;

	if (dev->dead)
		return -ENODEV; /* the firmware is gone (fatal.c) */
	if (c->qpn >= dev->nqps || dev->qps[c->qpn])
		return -EINVAL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->dev = dev;
	d->qpn = c->qpn;
	d->type = c->type;
	d->pdid = c->pdid;
	d->dbid = c->dbid;
	d->sq_cqid = c->sq_cqid;
	d->rq_cqid = c->rq_cqid;
	d->state = IBV_QPS_RESET;
	wq_init(&d->sq, &c->sq);
	wq_init(&d->rq, &c->rq);
	d->rq_share = c->rq.share;
	rc = ifab_open(&d->ep, dev->cfg.fabric, dev->cfg.node, d->qpn);
	if (rc) {
		free(d);
		return rc;
	}
	isim_node_mac(dev->cfg.node, d->ep.mac);
	if (d->sq.ring && d->sq.stride_log2) {
		slots = (uint32_t)d->sq.mask + 1;
		d->sq_stride = wq_stride(&d->sq);
		d->sq_copy = malloc((size_t)slots * d->sq_stride);
		d->swqe = calloc(slots, sizeof(*d->swqe));
		if (!d->sq_copy || !d->swqe)
			goto nomem;
	}
	if (d->rq.ring && d->rq.stride_log2) {
		d->rq_stride = wq_stride(&d->rq);
		d->resp.copy = malloc(d->rq_stride);
		if (!d->resp.copy)
			goto nomem;
	}
	d->next = dev->qp_list;
	dev->qp_list = d;
	dev->qps[d->qpn] = d;
	dev->nlive_qps++;
	if (dev->engine) {
		rc = idev_engine_add(dev->engine, d);
		if (rc)
			goto err;
	}
	qp_reset(d);
	return 0;
nomem:
	rc = -ENOMEM;
err:
	idev_qp_free(d);
	return rc;
}

int idev_qp_destroy(struct idev *dev, uint32_t qpn)
{
	struct idev_qp *d;

	idev_sync_doorbells(dev);
	d = idev_qp_lookup(dev, qpn);
	if (!d)
		return -EINVAL;
	idev_qp_free(d);
	return 0;
}

int idev_qp_query(struct idev *dev, uint32_t qpn, struct idev_qp_attr *out)
{
	struct idev_qp *d;

	idev_sync_doorbells(dev);
	d = idev_qp_lookup(dev, qpn);
	if (!d)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->state = d->state;
	out->sq_draining = d->sq_draining;
	out->cnt = d->cnt;
	return 0;
}

/* ---- admin MODIFY_QP ------------------------------------------------------ */

/* What the firmware stores of the attributes the mask names. */
static void qp_apply(struct idev_qp *d, const struct idev_qp_modify *m)
{
	uint32_t mask = m->attr_mask;

	if (mask & IBV_QP_QKEY)
		d->qkey = m->qkey;
	if (mask & IBV_QP_AV)
		d->av = m->av;
	if (mask & IBV_QP_PATH_MTU)
		d->path_mtu = m->path_mtu;
	if (mask & IBV_QP_DEST_QPN)
		d->dest_qpn = m->dest_qpn;
	if (mask & IBV_QP_RQ_PSN)
		d->rq_psn = m->rq_psn;
	if (mask & IBV_QP_SQ_PSN)
		d->sq_psn = m->sq_psn;
	if (mask & IBV_QP_ACCESS_FLAGS)
		d->access_flags = m->access_flags;
	if (mask & IBV_QP_MAX_QP_RD_ATOMIC)
		d->max_rd_atomic = m->max_rd_atomic;
	if (mask & IBV_QP_MAX_DEST_RD_ATOMIC)
		d->max_dest_rd_atomic = m->max_dest_rd_atomic;
	if (mask & IBV_QP_MIN_RNR_TIMER)
		d->min_rnr_timer = m->min_rnr_timer;
	if (mask & IBV_QP_TIMEOUT)
		d->timeout = m->timeout;
	if (mask & IBV_QP_RETRY_CNT)
		d->retry_cnt = m->retry_cnt;
	if (mask & IBV_QP_RNR_RETRY)
		d->rnr_retry = m->rnr_retry;
	if (mask & IBV_QP_EN_SQD_ASYNC_NOTIFY)
		d->en_sqd_async_notify = m->en_sqd_async_notify;
	if (mask & IBV_QP_RATE_LIMIT)
		d->rate_limit = m->rate_limit;
}

/* The effect of entering d->state from 'old'. */
static void qp_transition(struct idev_qp *d, enum ibv_qp_state old)
{
	struct idev *dev = d->dev;

	switch (d->state) {
	case IBV_QPS_RESET:
		qp_reset(d);
		break;
	case IBV_QPS_RTR:
		if (d->type == IBV_QPT_RC && old != IBV_QPS_RTR) {
			/* The connected peer: the path's GID. */
			d->has_path = true;
			ifab_set_peer(&d->ep, d->av.dgid, d->dest_qpn);
			d->resp.epsn = d->rq_psn & IDEV_PSN_MASK;
			idev_direct_qp_rtr(d);
		}
		break;
	case IBV_QPS_RTS:
		if (old == IBV_QPS_RTR)
			idev_req_start(d);
		if (old != IBV_QPS_RTS) {
			/* Doorbells rung before RTS (or while draining)
			 * were recorded only. */
			idev_req_run(d);
			if (dev->engine)
				idev_engine_wake(dev->engine);
		}
		break;
	case IBV_QPS_SQD:
		if (old != IBV_QPS_SQD) {
			/* Stop fetching; what is in flight completes. */
			d->drain_reported = false;
			d->sq_draining = 1;
			idev_qp_check_drained(d);
		}
		break;
	case IBV_QPS_ERR:
		if (old != IBV_QPS_ERR) {
			if (isim_trace_enabled())
				isim_trace(ISIM_TR_EVENT,
					   "qp %u -> ERR (modify)", d->qpn);
			qp_quiesce(d);
			idev_qp_flush_indicators(d);
		}
		break;
	default:
		break;
	}
}

int idev_qp_modify(struct idev *dev, const struct idev_qp_modify *m)
{
	enum ibv_qp_state old;
	struct idev_qp *d;

	/* A doorbell the application rang before the modify lands first,
	 * in the state it was rung in. */
	idev_sync_doorbells(dev);
	d = idev_qp_lookup(dev, m->qpn);
	if (!d || m->state > IBV_QPS_ERR)
		return -EINVAL;
	qp_apply(d, m);
	old = d->state;
	d->state = m->state;
	d->sq_draining = m->state == IBV_QPS_SQD;
	if (m->attr_mask & IBV_QP_STATE)
		qp_transition(d, old);
	return 0;
}
