// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: what each IB CM message does on arrival
 * (proto.h) - a REQ makes a child id on its listener, the answers move
 * the connection of the id they name and queue its rdma_cm event.
 * Messages come from the fabric, from any process: whatever they carry,
 * lengths are clamped and ids looked up, never trusted.
 */
#include <string.h>

#include "proto.h"

static void on_req(struct ik_cm_id *l, const struct ik_cm_msg *m)
{
	struct rdma_ucm_event_resp ev = { 0 };
	uint32_t src, dst, lip = ik_cm_addr_ip4(&l->src);
	bool ud = m->attr == IK_CM_SIDR_REQ;
	struct ik_cm_id *child;
	struct ik_cm_conn *cn;

	memcpy(&src, &m->src_ip[12], 4);
	memcpy(&dst, &m->dst_ip[12], 4);
	/* a retransmission of a request we already hold: an unanswered
	 * one gets its MRA again */
	for (uint32_t h = 0; h < ik_cm_nids; h++) {
		struct ik_cm_id *o = ik_cm_ids[h];

		if (o && o->listener == l &&
		    o->conn.remote_comm_id == m->local_comm_id &&
		    !memcmp(o->conn.peer_gid, m->reply_gid, 16)) {
			/* SIDR has no MRA; ours tells a requester on a
			 * transport that cannot see endpoints that its
			 * request is held (ik_cm_retry) */
			if (o->conn.st == IK_CONN_REQ_RCVD ||
			    o->conn.st == IK_CONN_SIDR_RCVD)
				ik_cm_send_simple(o, IK_CM_MRA);
			return;
		}
	}
	if (l->state != IK_CM_LISTEN || (ud != (l->qp_type == IBV_QPT_UD))) {
		ik_cm_reject_req(m, IK_CM_REJ_INVALID_SERVICE_ID);
		return;
	}
	if (lip && lip != dst) {
		ik_cm_reject_req(m, IK_CM_REJ_CONSUMER_DEFINED);
		return;
	}
	if (l->backlog <= 0)
		return; /* dropped without a REJ: the sender may retry */
	child = ik_cm_id_new(l->file, l->ps, l->qp_type, 0);
	if (!child) {
		ik_cm_reject_req(m, IK_CM_REJ_CONSUMER_DEFINED);
		return;
	}
	child->visible = false;
	child->listener = l;
	child->passive = true;
	child->state = IK_CM_CONNECT;
	child->has_dev = true;
	/* the NIC the request came to (a wildcard listener has them all) */
	child->dev = ik_cm_nic_of_ip(dst) >= 0 ?
			     (unsigned int)ik_cm_nic_of_ip(dst) :
			     l->dev;
	child->route = true;
	child->tos = l->tos;
	ik_cm_set_in(&child->src, dst, ik_cm_addr_port(&l->src));
	ik_cm_set_in(&child->dst, src, m->src_port);
	cn = &child->conn;
	cn->st = ud ? IK_CONN_SIDR_RCVD : IK_CONN_REQ_RCVD;
	cn->local_comm_id = ik_cm_new_comm_id();
	cn->remote_comm_id = m->local_comm_id;
	memcpy(cn->peer_gid, m->reply_gid, 16);
	cn->peer_agent = m->reply_qpn;
	cn->remote_qpn = m->qpn;
	cn->remote_psn = m->start_psn;
	cn->responder_resources = m->initiator_depth;
	cn->initiator_depth = m->responder_resources;
	cn->retry_count = m->retry_count;
	cn->rnr_retry_count = m->rnr_retry_count;
	cn->mtu = m->mtu < ik_cm_path_mtu() ? m->mtu : ik_cm_path_mtu();
	cn->tclass = m->tclass;
	cn->hop_limit = m->hop_limit;
	cn->flow_label = m->flow_label;
	if (ud) {
		ev.param.ud.private_data_len = IK_CM_PDATA_SIDR_REQ;
		memcpy(ev.param.ud.private_data, m->pdata, m->pdata_len);
	} else {
		struct rdma_ucm_conn_param *p = &ev.param.conn;

		p->qp_num = m->qpn;
		p->responder_resources = m->initiator_depth;
		p->initiator_depth = m->responder_resources;
		p->flow_control = m->flow_control;
		p->retry_count = m->retry_count;
		p->rnr_retry_count = m->rnr_retry_count;
		p->srq = m->srq;
		p->private_data_len = IK_CM_PDATA_REQ;
		memcpy(p->private_data, m->pdata,
		       m->pdata_len < IK_CM_PDATA_REQ ? m->pdata_len :
							IK_CM_PDATA_REQ);
	}
	/* The kernel's MRA as the request is queued: the requester learns
	 * our agent, where its resends then go (a listener destroyed with
	 * the child alive is not a peer gone). */
	if (!ud)
		ik_cm_send_simple(child, IK_CM_MRA);
	ik_ucma_event_req(l, child, &ev);
}

static void on_mra(struct ik_cm_id *ctx, const struct ik_cm_msg *m)
{
	if (ctx->conn.st == IK_CONN_REQ_SENT) {
		ctx->conn.remote_comm_id = m->local_comm_id;
		ctx->conn.peer_agent = m->reply_qpn;
	} else if (ctx->conn.st != IK_CONN_SIDR_SENT &&
		   ctx->conn.st != IK_CONN_REP_SENT) {
		return;
	}
	ctx->rtx_heard = true;
}

static struct ik_cm_id *find_conn(const struct ik_cm_msg *m)
{
	for (uint32_t h = 0; h < ik_cm_nids; h++) {
		struct ik_cm_id *o = ik_cm_ids[h];

		if (!o || o->conn.st == IK_CONN_NONE)
			continue;
		if (m->remote_comm_id ?
			    o->conn.local_comm_id == m->remote_comm_id :
			    (o->conn.remote_comm_id == m->local_comm_id &&
			     !memcmp(o->conn.peer_gid, m->reply_gid, 16)))
			return o;
	}
	return NULL;
}

static void on_rep(struct ik_cm_id *ctx, const struct ik_cm_msg *m)
{
	struct rdma_ucm_event_resp ev = { 0 };
	struct rdma_ucm_conn_param *p = &ev.param.conn;
	struct ik_cm_conn *cn = &ctx->conn;

	if (cn->st == IK_CONN_ESTABLISHED) {
		ik_cm_send_simple(ctx, IK_CM_RTU); /* our RTU was lost */
		return;
	}
	if (cn->st == IK_CONN_REP_RCVD) {
		/* the application has yet to answer: the IB CM's MRA for a
		 * repeated REP, so the passive side keeps waiting */
		ik_cm_send_simple(ctx, IK_CM_MRA);
		return;
	}
	if (cn->st != IK_CONN_REQ_SENT)
		return;
	cn->remote_comm_id = m->local_comm_id;
	cn->peer_agent = m->reply_qpn;
	cn->remote_qpn = m->qpn;
	cn->remote_psn = m->start_psn;
	cn->responder_resources = m->initiator_depth;
	cn->initiator_depth = m->responder_resources;
	cn->rnr_retry_count = m->rnr_retry_count;
	cn->st = IK_CONN_REP_RCVD;
	p->qp_num = m->qpn;
	p->responder_resources = m->initiator_depth;
	p->initiator_depth = m->responder_resources;
	p->flow_control = m->flow_control;
	p->rnr_retry_count = m->rnr_retry_count;
	p->srq = m->srq;
	p->private_data_len = IK_CM_PDATA_REP;
	memcpy(p->private_data, m->pdata, m->pdata_len);
	ik_ucma_event(ctx, RDMA_CM_EVENT_CONNECT_RESPONSE, 0, &ev);
}

static void on_rej(struct ik_cm_id *ctx, const struct ik_cm_msg *m)
{
	struct rdma_ucm_event_resp ev = { 0 };
	struct ik_cm_conn *cn = &ctx->conn;

	if (cn->st == IK_CONN_REQ_RCVD && !ctx->visible) {
		/* the requester gave up before anyone read the request */
		ik_cm_id_destroy(ctx);
		return;
	}
	if (cn->st != IK_CONN_REQ_SENT && cn->st != IK_CONN_REP_SENT &&
	    cn->st != IK_CONN_REP_RCVD && cn->st != IK_CONN_REQ_RCVD)
		return;
	cn->st = IK_CONN_TIMEWAIT;
	ev.param.conn.private_data_len = IK_CM_PDATA_REJ;
	memcpy(ev.param.conn.private_data, m->pdata,
	       m->pdata_len < IK_CM_PDATA_REJ ? m->pdata_len : IK_CM_PDATA_REJ);
	ik_ucma_event(ctx, RDMA_CM_EVENT_REJECTED, m->reason, &ev);
}

static void on_sidr_rep(struct ik_cm_id *ctx, const struct ik_cm_msg *m)
{
	struct rdma_ucm_event_resp ev = { 0 };
	struct rdma_ucm_ud_param *p = &ev.param.ud;

	if (ctx->conn.st != IK_CONN_SIDR_SENT)
		return;
	ctx->conn.st = IK_CONN_TIMEWAIT;
	p->private_data_len = IK_CM_PDATA_SIDR_REP;
	memcpy(p->private_data, m->pdata,
	       m->pdata_len < IK_CM_PDATA_SIDR_REP ? m->pdata_len :
						     IK_CM_PDATA_SIDR_REP);
	if (m->reason) {
		ik_ucma_event(ctx, RDMA_CM_EVENT_UNREACHABLE, m->reason, &ev);
		return;
	}
	p->qp_num = m->qpn;
	p->qkey = m->qkey;
	memcpy(p->ah_attr.grh.dgid, m->reply_gid, 16);
	p->ah_attr.grh.flow_label = ctx->conn.flow_label;
	p->ah_attr.grh.sgid_index = 1;
	p->ah_attr.grh.hop_limit = 64;
	p->ah_attr.grh.traffic_class = ctx->conn.tclass;
	p->ah_attr.is_global = 1;
	p->ah_attr.port_num = 1;
	ik_ucma_event(ctx, RDMA_CM_EVENT_ESTABLISHED, 0, &ev);
}

void ik_cm_input(const struct ik_cm_msg *m, struct ik_cm_id *listener)
{
	struct ik_cm_id *ctx;

	if (m->attr == IK_CM_REQ || m->attr == IK_CM_SIDR_REQ) {
		if (listener)
			on_req(listener, m);
		return;
	}
	ctx = find_conn(m);
	if (!ctx)
		return; /* for an id that is gone */
	switch (m->attr) {
	case IK_CM_MRA:
		on_mra(ctx, m);
		break;
	case IK_CM_REP:
		on_rep(ctx, m);
		break;
	case IK_CM_RTU:
		if (ctx->conn.st == IK_CONN_REP_SENT) {
			ctx->conn.st = IK_CONN_ESTABLISHED;
			ik_ucma_event(ctx, RDMA_CM_EVENT_ESTABLISHED, 0, NULL);
		}
		break;
	case IK_CM_REJ:
		on_rej(ctx, m);
		break;
	case IK_CM_DREQ:
		if (ctx->conn.st == IK_CONN_ESTABLISHED ||
		    ctx->conn.st == IK_CONN_REP_SENT) {
			ctx->conn.st = IK_CONN_DREQ_RCVD;
			ctx->state = IK_CM_DISCONNECT;
			ik_ucma_event(ctx, RDMA_CM_EVENT_DISCONNECTED, 0, NULL);
		} else if (ctx->conn.st == IK_CONN_DREQ_SENT) {
			/* both disconnect at once: the peer's DREQ ends ours
			 * (one DISCONNECTED each) */
			ik_cm_send_simple(ctx, IK_CM_DREP);
			ctx->rtx_due = 0;
			ctx->conn.st = IK_CONN_TIMEWAIT;
			ctx->state = IK_CM_DISCONNECT;
			ik_ucma_event(ctx, RDMA_CM_EVENT_DISCONNECTED, 0, NULL);
		} else if (ctx->conn.st == IK_CONN_TIMEWAIT) {
			ik_cm_send_simple(ctx,
					  IK_CM_DREP); /* a repeated DREQ */
		}
		break;
	case IK_CM_DREP:
		if (ctx->conn.st == IK_CONN_DREQ_SENT) {
			ctx->rtx_due = 0;
			ctx->conn.st = IK_CONN_TIMEWAIT;
			ctx->state = IK_CM_DISCONNECT;
			ik_ucma_event(ctx, RDMA_CM_EVENT_DISCONNECTED, 0, NULL);
		}
		break;
	case IK_CM_SIDR_REP:
		on_sidr_rep(ctx, m);
		break;
	default:
		break;
	}
}
