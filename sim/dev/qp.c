// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: the admin side of QPs and CQs (create, modify,
 * destroy), what RESET and ERR do to device state, and small helpers the
 * requester and responder share.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/trace.h"
#include "cqe.h"
#include "device.h"
#include "dqp.h"

/* ---- helpers ------------------------------------------------------------ */

uint32_t isim_port_mtu(const struct isim_nic *nic)
{
	/* iboe_get_mtu(): room for GRH, UDP, BTH, extended headers, ICRC. */
	uint32_t room = nic->prof.netdev_mtu > 96 ? nic->prof.netdev_mtu - 96 :
						    0;
	uint32_t mtu;

	for (mtu = 4096; mtu > 256; mtu >>= 1)
		if (mtu <= room)
			break;
	return mtu;
}

uint32_t isim_qp_mtu(const struct isim_qp *qp)
{
	if (qp->path_mtu >= IBV_MTU_256 && qp->path_mtu <= IBV_MTU_4096)
		return 128u << qp->path_mtu;
	return 1024;
}

/* The kernel keeps AHs in per-file handle tables; the device addresses
 * them by ahid.  AHs are few, a scan is fine. */
struct isim_ah *isim_dev_ah_lookup(struct isim_nic *nic, uint32_t ahid)
{
	struct isim_file *f;
	struct isim_uobj *u;
	uint32_t i;

	for (f = nic->files; f; f = f->next) {
		for (i = 0; i < f->nhandles; i++) {
			u = f->handles[i];
			if (u && u->type == ISIM_UOBJ_AH &&
			    ((struct isim_ah *)u)->ahid == ahid)
				return (struct isim_ah *)u;
		}
	}
	return NULL;
}

void isim_dqp_xmit(struct isim_dev_qp *d, uint32_t node, uint32_t qpn,
		   struct ifab_pkt *pkt)
{
	enum ifab_result r;

	ifab_pkt_set_paylen(pkt, pkt->len - IFAB_PKT_HDR_SIZE);
	r = ifab_send(&d->ep, node, qpn, pkt->buf, pkt->len);
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_PKT,
			   "tx %s qp %u -> %u/%u psn %u msn %u len %u nak %u%s",
			   ifab_pkt_opname(ifab_pkt_opcode(pkt)), d->qp->qpn,
			   node, qpn, ifab_pkt_psn(pkt), ifab_pkt_msn(pkt),
			   ifab_pkt_paylen(pkt), ifab_pkt_hdr(pkt)->nak,
			   r == IFAB_LOST   ? " LOST" :
			   r == IFAB_QUEUED ? " queued" :
					      "");
}

void isim_dqp_cqe(struct isim_dev_qp *d, bool send, const struct ionic_cqe *cqe,
		  bool solicited)
{
	struct isim_qp *qp = d->qp;

	if (!(send ? qp->send_cq : qp->recv_cq))
		return;
	if (isim_cqe_post(isim_qp_hwcq(qp, send), cqe, solicited) == 0)
		d->cqes++;
}

/* Work the host still expects a completion for. */
static bool sq_has_work(const struct isim_dev_qp *d)
{
	return d->swqe && d->req.una != d->qp->sq.db_prod;
}

static bool rq_has_work(const struct isim_dev_qp *d)
{
	return d->resp.copy && d->qp->rq.cons != d->qp->rq.db_prod;
}

void isim_dqp_flush_indicators(struct isim_dev_qp *d)
{
	struct ionic_cqe cqe;

	if (!d->sq_errored && sq_has_work(d)) {
		isim_cqe_flush(&cqe, d->qp->qpn, true);
		isim_dqp_cqe(d, true, &cqe, true);
		d->sq_errored = true;
	}
	if (!d->rq_errored && rq_has_work(d)) {
		isim_cqe_flush(&cqe, d->qp->qpn, false);
		isim_dqp_cqe(d, false, &cqe, true);
		d->rq_errored = true;
	}
}

void isim_dqp_check_drained(struct isim_dev_qp *d)
{
	struct isim_qp *qp = d->qp;

	if (qp->state != IBV_QPS_SQD || d->drain_reported || !d->swqe ||
	    d->req.una != qp->sq.cons)
		return;
	qp->sq_draining = 0;
	d->drain_reported = true;
	if (qp->en_sqd_async_notify)
		isim_post_async_qp(qp, IBV_EVENT_SQ_DRAINED);
}

/* Stop all traffic of the QP (ERR or RESET). */
static void dqp_quiesce(struct isim_dev_qp *d)
{
	d->req.deadline = 0;
	d->req.rnr_wait = false;
	ifab_drop_backlog(&d->ep);
}

void isim_dqp_error(struct isim_dev_qp *d, enum ibv_event_type ev)
{
	struct isim_qp *qp = d->qp;

	if (qp->state == IBV_QPS_ERR)
		return;
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_EVENT, "qp %u -> ERR (device)%s", qp->qpn,
			   ev ? ", async event" : "");
	/* The firmware owns the QP state; a device-detected error moves it
	 * to ERR just as the real device's does (query_qp reports it). */
	qp->state = IBV_QPS_ERR;
	dqp_quiesce(d);
	isim_dqp_flush_indicators(d);
	if (ev)
		isim_post_async_qp(qp, ev);
}

static void dqp_reset(struct isim_dev_qp *d)
{
	struct isim_qp *qp = d->qp;

	dqp_quiesce(d);
	ifab_clear_peer(&d->ep);
	d->peer_node = 0;
	qp->sq.cons = qp->sq.db_prod = 0;
	qp->rq.cons = qp->rq.db_prod = 0;
	isim_req_reset(d);
	isim_resp_reset(d);
	d->sq_errored = d->rq_errored = false;
}

/* ---- admin commands ------------------------------------------------------ */

static uint32_t wq_stride(const struct isim_wq *wq)
{
	uint32_t s = 1u << wq->desc.stride_log2;

	/* Snapshots are decoded as at least one minimal WQE. */
	return s < IONIC_WQE_MIN_SIZE ? IONIC_WQE_MIN_SIZE : s;
}

void isim_dqp_free(struct isim_dev_qp *d)
{
	ifab_close(&d->ep);
	free(d->sq_copy);
	free(d->swqe);
	free(d->resp.copy);
	free(d);
}

int isim_dev_qp_create(struct isim_nic *nic, struct isim_qp *qp)
{
	struct isim_dev_qp *d;
	uint32_t slots;
	int rc;

	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->qp = qp;
	d->nic = nic;
	rc = ifab_open(&d->ep, NULL, nic->node, qp->qpn);
	if (rc) {
		free(d);
		return rc;
	}
	if (qp->sq.ring && qp->sq.desc.stride_log2) {
		slots = (uint32_t)qp->sq.desc.mask + 1;
		d->sq_stride = wq_stride(&qp->sq);
		d->sq_copy = malloc((size_t)slots * d->sq_stride);
		d->swqe = calloc(slots, sizeof(*d->swqe));
		if (!d->sq_copy || !d->swqe)
			goto nomem;
	}
	if (qp->rq.ring && qp->rq.desc.stride_log2) {
		d->rq_stride = wq_stride(&qp->rq);
		d->resp.copy = malloc(d->rq_stride);
		if (!d->resp.copy)
			goto nomem;
	}
	if (nic->engine) {
		rc = isim_engine_add(nic->engine, d);
		if (rc)
			goto err;
	}
	qp->dev = d;
	dqp_reset(d);
	return 0;
nomem:
	rc = -ENOMEM;
err:
	isim_dqp_free(d);
	return rc;
}

void isim_dev_qp_modify(struct isim_nic *nic, struct isim_qp *qp,
			enum ibv_qp_state old_state, int attr_mask)
{
	struct isim_dev_qp *d = qp->dev;

	if (!d || !(attr_mask & IBV_QP_STATE))
		return; /* other attributes are read live when used */
	if (nic->engine)
		isim_engine_drain_doorbells(nic->engine);

	switch (qp->state) {
	case IBV_QPS_RESET:
		dqp_reset(d);
		break;
	case IBV_QPS_RTR:
		if (qp->type == IBV_QPT_RC && old_state != IBV_QPS_RTR) {
			/* The connected peer: node from the path's GID. */
			d->peer_node = isim_gid_to_node(qp->av.dgid);
			if (d->peer_node)
				ifab_set_peer(&d->ep, d->peer_node,
					      qp->dest_qpn);
			d->resp.epsn = qp->rq_psn & IFAB_PSN_MASK;
		}
		break;
	case IBV_QPS_RTS:
		if (old_state == IBV_QPS_RTR)
			isim_req_start(d);
		if (old_state != IBV_QPS_RTS) {
			/* Doorbells rung before RTS (or while draining)
			 * were recorded only. */
			isim_req_run(d);
			if (nic->engine)
				isim_engine_wake(nic->engine);
		}
		break;
	case IBV_QPS_SQD:
		if (old_state != IBV_QPS_SQD) {
			/* Stop fetching; what is in flight completes. */
			d->drain_reported = false;
			qp->sq_draining = 1;
			isim_dqp_check_drained(d);
		}
		break;
	case IBV_QPS_ERR:
		if (old_state != IBV_QPS_ERR) {
			if (isim_trace_enabled())
				isim_trace(ISIM_TR_EVENT,
					   "qp %u -> ERR (modify)", qp->qpn);
			dqp_quiesce(d);
			isim_dqp_flush_indicators(d);
		}
		break;
	default:
		break;
	}
}

void isim_dev_qp_destroy(struct isim_nic *nic, struct isim_qp *qp)
{
	struct isim_dev_qp *d = qp->dev;

	if (!d)
		return;
	if (nic->engine) {
		isim_engine_drain_doorbells(nic->engine);
		isim_engine_del(nic->engine, d);
	}
	qp->dev = NULL;
	isim_dqp_free(d);
}

int isim_dev_cq_create(struct isim_nic *nic, struct isim_hwcq *hw)
{
	(void)nic;
	/* CQEs are 32 bytes; a smaller stride can't hold them. */
	if (hw->desc.stride_log2 < 5)
		return -EINVAL;
	isim_cq_reset(hw);
	return 0;
}

void isim_dev_cq_destroy(struct isim_nic *nic, struct isim_hwcq *hw)
{
	if (nic->engine)
		isim_engine_drain_doorbells(nic->engine);
	isim_cq_reset(hw);
}
