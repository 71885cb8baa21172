// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: admin CREATE/MODIFY/QUERY/DESTROY_QP, what RESET, SQD
 * and ERR do to the device's QP, and small helpers the requester and
 * responder share.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/trace.h"
#include "cqe.h"
#include "qp.h"

/* ---- helpers ------------------------------------------------------------ */

uint32_t idev_port_mtu(const struct idev *dev)
{
	/* iboe_get_mtu(): room for GRH, UDP, BTH, extended headers, ICRC. */
	uint32_t room =
		dev->prof->netdev_mtu > 96 ? dev->prof->netdev_mtu - 96 : 0;
	uint32_t mtu;

	for (mtu = 4096; mtu > 256; mtu >>= 1)
		if (mtu <= room)
			break;
	return mtu;
}

uint32_t idev_qp_mtu(const struct idev_qp *qp)
{
	if (qp->path_mtu >= IBV_MTU_256 && qp->path_mtu <= IBV_MTU_4096)
		return 128u << qp->path_mtu;
	return 1024;
}

void idev_qp_pkt_start(const struct idev_qp *d, struct idev_pkt *pkt,
		       uint8_t *buf, uint8_t opcode, const struct idev_av *av,
		       uint32_t dqpn)
{
	const struct idev *dev = d->dev;
	uint32_t node;

	idev_pkt_init(pkt, buf, opcode);
	isim_node_mac(dev->cfg.node, pkt->smac);
	/* The next hop: the NIC that owns the GID on this host's fabric, or
	 * the address's own derivation (isim_addr_mac) beyond it. */
	node = isim_gid_to_node(av->dgid);
	if (node)
		isim_node_mac(node, pkt->dmac);
	else
		isim_gid_mac(av->dgid, pkt->dmac);
	memcpy(pkt->sgid, dev->gid[av->sgid_index < 2 ? av->sgid_index : 0],
	       16);
	memcpy(pkt->dgid, av->dgid, 16);
	pkt->tclass = av->traffic_class;
	pkt->hop_limit = av->hop_limit ? av->hop_limit : 64;
	pkt->flow_label = av->flow_label;
	pkt->pcp = av->sl & 7; /* the SL travels as the 802.1Q priority */
	pkt->sport = d->ep.sport;
	pkt->dqpn = dqpn & IDEV_PSN_MASK;
}

void idev_qp_xmit(struct idev_qp *d, struct idev_pkt *pkt)
{
	enum ifab_result r = IFAB_LOST;

	if (idev_pkt_build(pkt) == 0)
		r = ifab_send(&d->ep, pkt->dgid, pkt->dqpn, pkt->buf, pkt->len);
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_PKT,
			   "tx %s qp %u -> %u/%u psn %u msn %u len %u nak %d%s",
			   idev_pkt_opname(pkt->opcode), d->qpn,
			   isim_gid_to_node(pkt->dgid), pkt->dqpn, pkt->psn,
			   pkt->msn, pkt->paylen,
			   idev_pkt_opmask(pkt->opcode) & IDEV_PKT_M_AETH ?
				   idev_aeth_kind(pkt->syndrome) :
				   0,
			   r == IFAB_LOST   ? " LOST" :
			   r == IFAB_QUEUED ? " queued" :
					      "");
}

int idev_qp_cqe(struct idev_qp *d, bool send, const struct ionic_cqe *cqe,
		bool solicited)
{
	struct idev_cq *cq =
		idev_cq_lookup(d->dev, send ? d->sq_cqid : d->rq_cqid);
	int rc;

	if (!cq)
		return -EINVAL;
	rc = idev_cqe_post(cq, cqe, solicited);
	if (!rc) {
		d->cnt.cqes++;
		/* an error or flush CQE puts the host's queue into flush */
		if (be32toh(cqe->qid_type_flags) & IONIC_CQE_ERROR) {
			if (send)
				d->sq_errored = true;
			else
				d->rq_errored = true;
		}
		return 0;
	}
	/*
	 * The CQ overran: this completion is lost, and its work request
	 * would never complete.  The QP goes to ERR with QP_FATAL and owes
	 * the queue a flush indicator, written once the host has made room
	 * (idev_cq_room), so every outstanding WQE completes as flushed
	 * (docs/device-contract.md §8.1).
	 */
	if (send)
		d->sq_lost = true;
	else
		d->rq_lost = true;
	idev_qp_error(d, IDEV_EQE_QP_ERR);
	return rc;
}

/* Work the host still expects a completion for. */
static bool sq_has_work(const struct idev_qp *d)
{
	return d->sq_lost || (d->swqe && d->req.una != d->sq.db_prod);
}

static bool rq_has_work(const struct idev_qp *d)
{
	return d->rq_lost || (d->resp.copy && d->rq.cons != d->rq.db_prod);
}

void idev_qp_flush_indicators(struct idev_qp *d)
{
	struct ionic_cqe cqe;

	/* idev_qp_cqe marks the queue errored once one is written */
	if (!d->sq_errored && sq_has_work(d)) {
		idev_cqe_flush(&cqe, d->qpn, true);
		idev_qp_cqe(d, true, &cqe, true);
	}
	if (!d->rq_errored && rq_has_work(d)) {
		idev_cqe_flush(&cqe, d->qpn, false);
		idev_qp_cqe(d, false, &cqe, true);
	}
}

void idev_cq_room(struct idev_cq *cq)
{
	struct idev_qp *d;

	for (d = cq->dev->qp_list; d; d = d->next)
		if (d->state == IBV_QPS_ERR &&
		    (d->sq_cqid == cq->cqid || d->rq_cqid == cq->cqid))
			idev_qp_flush_indicators(d);
}

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

void idev_qp_free(struct idev_qp *d)
{
	struct idev *dev = d->dev;

	if (dev->engine)
		idev_engine_del(dev->engine, d);
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
