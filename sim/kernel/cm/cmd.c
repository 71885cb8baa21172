// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: the rdma_ucm commands that speak the IB CM
 * (proto.h) - CONNECT sends the REQ (SIDR REQ for UD), ACCEPT the REP
 * (SIDR REP) or, without parameters, the active side's RTU, REJECT the
 * REJ, DISCONNECT the DREQ (or the DREP that answers one).
 */
#include <errno.h>
#include <string.h>

#include "proto.h"

int ik_ucma_connect(struct ik_ucma_cmd *c)
{
	struct rdma_ucm_connect cmd;
	struct rdma_ucm_conn_param *p = &cmd.conn_param;
	struct ik_cm_msg m;
	struct ik_cm_id *ctx;
	struct ik_cm_conn *cn;
	bool ud;
	int rc;

	rc = IK_UCMA_CMD_CTX(c, cmd, true, &ctx);
	if (!p->valid) /* checked before the id, as the kernel does */
		return -EINVAL;
	if (rc)
		return rc;
	ud = ctx->qp_type == IBV_QPT_UD;
	if (ctx->state != IK_CM_ROUTE_RESOLVED ||
	    p->private_data_len > (ud ? IK_CM_PDATA_SIDR_REQ : IK_CM_PDATA_REQ))
		return -EINVAL;
	rc = ik_cm_agent_start();
	if (rc)
		return rc;
	cn = &ctx->conn;
	cn->local_comm_id = ik_cm_new_comm_id();
	cn->remote_comm_id = 0;
	ik_cm_ip_gid(ik_cm_addr_ip4(&ctx->dst), cn->peer_gid);
	cn->peer_agent = ik_cm_listen_qpn(ctx->ps, ik_cm_addr_port(&ctx->dst));
	cn->responder_resources = p->responder_resources;
	cn->initiator_depth = p->initiator_depth;
	cn->retry_count = p->retry_count & 7;
	cn->rnr_retry_count = p->rnr_retry_count & 7;
	ik_cm_msg_init(&m, ctx, ud ? IK_CM_SIDR_REQ : IK_CM_REQ);
	m.service_id = (uint64_t)ctx->ps << 16 | ik_cm_addr_port(&ctx->dst);
	m.qpn = p->qp_num & 0xffffff;
	m.start_psn = ctx->seq;
	m.responder_resources = p->responder_resources;
	m.initiator_depth = p->initiator_depth;
	m.flow_control = p->flow_control & 1;
	m.retry_count = cn->retry_count;
	m.rnr_retry_count = cn->rnr_retry_count;
	m.srq = p->srq & 1;
	m.ack_timeout = 17;
	m.src_port = ik_cm_addr_port(&ctx->src);
	{
		uint32_t s = ik_cm_addr_ip4(&ctx->src);
		uint32_t d = ik_cm_addr_ip4(&ctx->dst);

		memcpy(&m.src_ip[12], &s, 4);
		memcpy(&m.dst_ip[12], &d, 4);
	}
	m.mtu = cn->mtu;
	m.tclass = cn->tclass;
	m.hop_limit = cn->hop_limit;
	m.flow_label = cn->flow_label;
	ik_cm_set_pdata(&m, p->private_data, p->private_data_len);
	ctx->state = IK_CM_CONNECT;
	cn->st = ud ? IK_CONN_SIDR_SENT : IK_CONN_REQ_SENT;
	/* resent until answered; if nobody listens there yet, retried for
	 * a while (ik_cm_retry) */
	ik_cm_rtx_arm(ctx, &m,
		      ik_cm_send_peer(ctx, &m) &&
			      ifab_tells_absent(ik_cm_agent_ep(0)));
	return 0;
}

int ik_ucma_accept(struct ik_ucma_cmd *c)
{
	struct rdma_ucm_accept cmd;
	struct rdma_ucm_conn_param *p = &cmd.conn_param;
	struct ik_cm_msg m;
	struct ik_cm_id *ctx;
	struct ik_cm_conn *cn;
	int rc;

	rc = IK_UCMA_CMD_CTX(c, cmd, true, &ctx);
	if (rc)
		return rc;
	cn = &ctx->conn;
	if (!p->valid) {
		/* the active side's RTU (rdma_establish) */
		if (cn->st != IK_CONN_REP_RCVD)
			return -EINVAL;
		ik_cm_send_simple(ctx, IK_CM_RTU);
		cn->st = IK_CONN_ESTABLISHED;
		return 0;
	}
	if (cn->st == IK_CONN_SIDR_RCVD) {
		if (p->private_data_len > IK_CM_PDATA_SIDR_REP)
			return -EINVAL;
		ctx->uid = cmd.uid;
		ik_cm_msg_init(&m, ctx, IK_CM_SIDR_REP);
		m.qpn = p->qp_num & 0xffffff;
		m.qkey = p->qkey ? p->qkey : IK_CM_UDP_QKEY;
		ik_cm_set_pdata(&m, p->private_data, p->private_data_len);
		ik_cm_send_peer(ctx, &m);
		cn->st = IK_CONN_TIMEWAIT; /* nothing follows for UD */
		return 0;
	}
	if (cn->st != IK_CONN_REQ_RCVD || p->private_data_len > IK_CM_PDATA_REP)
		return -EINVAL;
	ctx->uid = cmd.uid;
	cn->responder_resources = p->responder_resources;
	cn->initiator_depth = p->initiator_depth;
	ik_cm_msg_init(&m, ctx, IK_CM_REP);
	m.qpn = p->qp_num & 0xffffff;
	m.start_psn = ctx->seq;
	m.responder_resources = p->responder_resources;
	m.initiator_depth = p->initiator_depth;
	m.flow_control = p->flow_control & 1;
	m.rnr_retry_count = p->rnr_retry_count & 7;
	m.srq = p->srq & 1;
	ik_cm_set_pdata(&m, p->private_data, p->private_data_len);
	cn->st = IK_CONN_REP_SENT;
	if (!ik_cm_send_peer(ctx, &m)) {
		cn->st = IK_CONN_TIMEWAIT;
		ik_ucma_event(ctx, RDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT, NULL);
		return 0;
	}
	ik_cm_rtx_arm(ctx, &m, true); /* resent until the RTU comes */
	return 0;
}

int ik_ucma_reject(struct ik_ucma_cmd *c)
{
	struct rdma_ucm_reject cmd;
	struct ik_cm_id *ctx;
	uint8_t reason;
	int rc;

	rc = IK_UCMA_CMD_CTX(c, cmd, true, &ctx);
	reason = cmd.reason ? cmd.reason : IK_CM_REJ_CONSUMER_DEFINED;
	/* the reason is checked before the id, as the kernel does */
	if (reason != IK_CM_REJ_CONSUMER_DEFINED &&
	    reason != IK_CM_REJ_VENDOR_OPTION)
		return -EINVAL;
	if (rc)
		return rc;
	if (ctx->conn.st == IK_CONN_SIDR_RCVD) {
		struct ik_cm_msg m;

		if (cmd.private_data_len > IK_CM_PDATA_SIDR_REP)
			return -EINVAL;
		ik_cm_msg_init(&m, ctx, IK_CM_SIDR_REP);
		m.reason = IK_CM_SIDR_REJECT;
		ik_cm_set_pdata(&m, cmd.private_data, cmd.private_data_len);
		ik_cm_send_peer(ctx, &m);
		ctx->conn.st = IK_CONN_TIMEWAIT;
		return 0;
	}
	if (ctx->conn.st != IK_CONN_REQ_RCVD ||
	    cmd.private_data_len > IK_CM_PDATA_REJ)
		return -EINVAL;
	ik_cm_send_rej(ctx, reason, cmd.private_data, cmd.private_data_len);
	return 0;
}

/* Our DREQ: resent until a DREP or a DREQ comes; if the peer is gone,
 * nobody answers and the connection ends here. */
static void send_dreq(struct ik_cm_id *ctx)
{
	struct ik_cm_msg m;

	ctx->conn.st = IK_CONN_DREQ_SENT;
	ik_cm_msg_init(&m, ctx, IK_CM_DREQ);
	if (ik_cm_send_peer(ctx, &m)) {
		ik_cm_rtx_arm_dreq(ctx, &m);
		return;
	}
	ctx->conn.st = IK_CONN_TIMEWAIT;
	ik_ucma_event(ctx, RDMA_CM_EVENT_DISCONNECTED, -ETIMEDOUT, NULL);
}

int ik_ucma_disconnect(struct ik_ucma_cmd *c)
{
	struct rdma_ucm_disconnect cmd;
	struct ik_cm_id *ctx;
	int rc;

	rc = IK_UCMA_CMD_CTX(c, cmd, true, &ctx);
	if (rc)
		return rc;
	switch (ctx->conn.st) {
	case IK_CONN_NONE:
		return -EINVAL;
	case IK_CONN_ESTABLISHED:
	case IK_CONN_REP_SENT:
		send_dreq(ctx);
		return 0;
	case IK_CONN_DREQ_RCVD:
		ik_cm_send_simple(ctx, IK_CM_DREP);
		ctx->conn.st = IK_CONN_TIMEWAIT;
		return 0;
	default:
		return 0; /* the CM's state errors are ignored */
	}
}
