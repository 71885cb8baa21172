// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: the IB CM between emulated NICs (ucma.h) -
 * CONNECT, ACCEPT, REJECT, DISCONNECT, what each message does on arrival,
 * what destroying an id sends, and the process' CM agent.
 *
 * Endpoints on the fabric (cm_wire.h): every process with rdma_cm ids has
 * one agent endpoint (QPN IK_CM_AGENT_QPN + k) where answers arrive, and
 * every listening id one listen endpoint whose QPN encodes its port space
 * and port, so a REQ finds the process listening on (node, ps, port)
 * whichever process that is.  A message to an endpoint nobody holds is
 * lost at once (the unix transport refuses it): the sender treats that as
 * the peer being gone - no listener (REJECTED 8, UNREACHABLE 1), a dead
 * peer (DISCONNECTED / UNREACHABLE -ETIMEDOUT) - instead of timing out.
 *
 * The agent is one thread: it polls the endpoints and hands each message
 * to cm_input() under ik_cm_lock.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "kpriv.h"
#include "ucma.h"

#define IK_CM_AGENT_QPN 0xf00000u
#define IK_CM_LISTEN_QPN 0xe00000u
#define AGENT_MAX_FDS 256

/* Private data limits with the rdma_cm IP header (docs/kernel-contract.md
 * §22.4) */
#define PDATA_REQ 56
#define PDATA_REP 196
#define PDATA_REJ 148
#define PDATA_SIDR_REQ 180
#define PDATA_SIDR_REP 136
#define REJ_TIMEOUT 1
#define REJ_INVALID_SERVICE_ID 8
#define REJ_CONSUMER_DEFINED 28
#define REJ_VENDOR_OPTION 35
#define SIDR_UNSUPPORTED 1
#define SIDR_REJECT 2
#define REQ_RETRIES 10
#define REQ_RETRY_NS 100000000u /* 100 ms */
#define DREQ_RETRIES 50 /* the peer's application answers it: give it 5 s */
/*
 * A REQ, SIDR REQ or REP that reached its peer is resent until answered,
 * as the IB CM resends it at each response timeout: every CM_RTX_NS (the
 * CM's 4.3 s, scaled down), a SIDR REQ every SIDR_RTX_NS (its 4096 ms).
 * While the peer's endpoint takes them the wait has no end (the IB CM's
 * MRA: a live passive side holding the request keeps the active side
 * waiting); once the peer is gone, CM_LOST_RETRIES resends REQ_RETRY_NS
 * apart (the CM's max_cm_retries) end it in UNREACHABLE -ETIMEDOUT.
 */
#define CM_RTX_NS 500000000ull
#define SIDR_RTX_NS 4096000000ull
#define CM_LOST_RETRIES 15

static struct {
	bool running;
	int wake; /* eventfd: the endpoint set changed */
	struct ifab_ep ep;
} agent = { .wake = -1, .ep = { .fd = -1 } };

/* Some listen endpoint of this process was closed (see listen_open). */
static bool closed_listeners;

static uint32_t own_node(void)
{
	return ik_host_get()->node;
}

uint32_t ik_cm_new_comm_id(void)
{
	static uint32_t next;

	if (!next)
		next = ((uint32_t)getpid() << 12) ^ (uint32_t)random();
	if (!++next)
		++next;
	return next;
}

static uint32_t listen_qpn(uint16_t ps, uint16_t port)
{
	unsigned int idx = ps == RDMA_PS_TCP ? 0 :
			   ps == RDMA_PS_UDP ? 1 :
			   ps == RDMA_PS_IB  ? 2 :
					       3;

	return IK_CM_LISTEN_QPN | idx << 16 | port;
}

/*
 * On the unix fabric the NICs of a host are its nodes, 198.18.hi.lo, and
 * an address of the plan that is no node's has nobody to answer ARP.  On
 * the UDP fabric a NIC's GID 1 is its UDP address, so every address of
 * isim0's subnet is one the host's IP stack can reach, as a RoCE NIC's
 * neighbours are the hosts of its netdev's subnet: a NIC answers there,
 * or the CM's request goes unanswered (docs/kernel-contract.md §22.5).
 */
bool ik_cm_neighbour(uint32_t ip)
{
	const struct ik_netdev *nd = ik_netdev_get();
	const struct ifab_transport *tp = ifab_default_transport();
	uint32_t own, mask = nd->ipv4_prefix ?
				     htonl(~0u << (32 - nd->ipv4_prefix)) :
				     0;
	uint8_t gid[16];

	memcpy(&own, nd->ipv4, 4);
	if (!tp || ((ip ^ own) & mask))
		return false;
	ik_cm_ip_gid(ip, gid);
	return !tp->tells_absent || isim_gid_to_node(gid);
}

/* ---- messages ------------------------------------------------------------- */

static void msg_init(struct ik_cm_msg *m, const struct ik_cm_id *ctx,
		     uint16_t attr)
{
	memset(m, 0, sizeof(*m));
	m->attr = attr;
	m->tid = ((uint64_t)attr << 48) | ctx->conn.local_comm_id;
	m->local_comm_id = ctx->conn.local_comm_id;
	m->remote_comm_id = ctx->conn.remote_comm_id;
	isim_node_gid(own_node(), 1, m->reply_gid);
	m->reply_qpn = agent.ep.qpn;
	m->ip_version = 4;
}

static void set_pdata(struct ik_cm_msg *m, const void *p, uint8_t len)
{
	m->pdata_len = len;
	memcpy(m->pdata, p, len);
}

/* Send to (the NIC of dgid, qpn): false if nobody holds that endpoint,
 * as far as the transport can tell (ifab_tells_absent). */
static bool send_to(const uint8_t dgid[16], uint32_t qpn,
		    const struct ik_cm_msg *m)
{
	uint8_t sgid[16];

	isim_node_gid(own_node(), 1, sgid);
	return ik_cm_wire_send(&agent.ep, sgid, dgid, qpn, m) != IFAB_LOST;
}

static bool send_peer(const struct ik_cm_id *ctx, const struct ik_cm_msg *m)
{
	return send_to(ctx->conn.peer_gid, ctx->conn.peer_agent, m);
}

/* A REJ for a REQ no id was made for. */
static void reject_req(const struct ik_cm_msg *req, uint16_t reason)
{
	struct ik_cm_msg m = { .attr = IK_CM_REJ };

	m.tid = req->tid;
	m.remote_comm_id = req->local_comm_id;
	isim_node_gid(own_node(), 1, m.reply_gid);
	m.reply_qpn = agent.ep.qpn;
	m.reason = reason;
	if (req->attr == IK_CM_SIDR_REQ) {
		m.attr = IK_CM_SIDR_REP;
		m.reason = SIDR_UNSUPPORTED;
	}
	send_to(req->reply_gid, req->reply_qpn, &m);
}

static void send_rej(struct ik_cm_id *ctx, uint16_t reason, const void *p,
		     uint8_t len)
{
	struct ik_cm_msg m;

	msg_init(&m, ctx, IK_CM_REJ);
	m.reason = reason;
	set_pdata(&m, p, len);
	send_peer(ctx, &m);
	ctx->conn.st = IK_CONN_TIMEWAIT;
}

static void send_simple(struct ik_cm_id *ctx, uint16_t attr)
{
	struct ik_cm_msg m;

	msg_init(&m, ctx, attr);
	send_peer(ctx, &m);
}

void ik_cm_conn_destroy(struct ik_cm_id *ctx)
{
	switch (ctx->conn.st) {
	case IK_CONN_REQ_SENT:
		if (ctx->rtx_arrived)
			send_rej(ctx, REJ_TIMEOUT, NULL, 0);
		break;
	case IK_CONN_REQ_RCVD:
	case IK_CONN_REP_SENT:
	case IK_CONN_REP_RCVD:
		send_rej(ctx, REJ_CONSUMER_DEFINED, NULL, 0);
		break;
	case IK_CONN_ESTABLISHED:
		send_simple(ctx, IK_CM_DREQ);
		break;
	case IK_CONN_DREQ_RCVD:
		send_simple(ctx, IK_CM_DREP);
		break;
	default:
		break;
	}
	ctx->conn.st = IK_CONN_NONE;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void kick(void);

static uint64_t rtx_period(const struct ik_cm_id *ctx)
{
	return ctx->conn.st == IK_CONN_SIDR_SENT ? SIDR_RTX_NS : CM_RTX_NS;
}

/* Keep 'm' (just sent, 'arrived' or not) for req_retry to resend. */
static void rtx_arm(struct ik_cm_id *ctx, const struct ik_cm_msg *m,
		    bool arrived)
{
	ctx->req = *m;
	ctx->rtx_arrived = arrived;
	ctx->rtx_heard = false;
	ctx->rtx_left = arrived ? CM_LOST_RETRIES : REQ_RETRIES;
	ctx->rtx_due = now_ns() + (arrived ? rtx_period(ctx) : REQ_RETRY_NS);
	kick();
}

/*
 * Resend what waits for an answer (called by the agent).  A REQ (or SIDR
 * REQ) whose listen endpoint never existed: a real node answers REJ 8
 * (SIDR: status 1) at once; the emulator first retries it for REQ_RETRIES
 * x REQ_RETRY_NS, because the unix transport tells a missing endpoint
 * instantly where a network would take its time, and clients that
 * reconnect to a peer that listens again (perftest -R's second
 * connection) count on that time.  One that arrived and whose peer then
 * vanished (its process died, taking its kernel along): UNREACHABLE
 * -ETIMEDOUT, the IB CM's REQ or REP timeout.
 */
static void req_retry(struct ik_cm_id *ctx, uint64_t now)
{
	struct rdma_ucm_event_resp ev = { 0 };
	bool ud = ctx->qp_type == IBV_QPT_UD;
	bool heard;

	if (now < ctx->rtx_due)
		return;
	if (ctx->conn.st == IK_CONN_DREQ_SENT) {
		/* a DREQ not answered: resent, then given up (-ETIMEDOUT) */
		if (--ctx->rtx_left && send_peer(ctx, &ctx->req)) {
			ctx->rtx_due = now + REQ_RETRY_NS;
			return;
		}
		ctx->rtx_due = 0;
		ctx->conn.st = IK_CONN_TIMEWAIT;
		ik_ucma_event(ctx, RDMA_CM_EVENT_DISCONNECTED, -ETIMEDOUT,
			      NULL);
		return;
	}
	if (ctx->conn.st != IK_CONN_REQ_SENT &&
	    ctx->conn.st != IK_CONN_SIDR_SENT &&
	    ctx->conn.st != IK_CONN_REP_SENT) {
		ctx->rtx_due = 0; /* answered */
		return;
	}
	/* A transport that cannot see the peer's endpoint (UDP) learns it
	 * arrived only from the MRA it answers each resend with. */
	heard = ctx->rtx_heard;
	ctx->rtx_heard = false;
	if (send_peer(ctx, &ctx->req) &&
	    (heard || ifab_tells_absent(&agent.ep))) {
		ctx->rtx_arrived = true;
		ctx->rtx_left = CM_LOST_RETRIES;
		ctx->rtx_due = now + rtx_period(ctx);
		return;
	}
	if (--ctx->rtx_left) {
		ctx->rtx_due = now + REQ_RETRY_NS;
		return;
	}
	ctx->rtx_due = 0;
	ctx->conn.st = IK_CONN_TIMEWAIT;
	if (ctx->rtx_arrived) {
		ik_ucma_event(ctx, RDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT, NULL);
		return;
	}
	if (ud) {
		ev.param.ud.private_data_len = PDATA_SIDR_REP;
		ik_ucma_event(ctx, RDMA_CM_EVENT_UNREACHABLE, SIDR_UNSUPPORTED,
			      &ev);
	} else {
		ev.param.conn.private_data_len = PDATA_REJ;
		ik_ucma_event(ctx, RDMA_CM_EVENT_REJECTED,
			      REJ_INVALID_SERVICE_ID, &ev);
	}
}

/* ---- commands ------------------------------------------------------------- */

int ik_ucma_connect(struct ik_ucma_cmd *c)
{
	struct rdma_ucm_connect cmd;
	struct rdma_ucm_conn_param *p = &cmd.conn_param;
	struct ik_cm_msg m;
	struct ik_cm_id *ctx;
	struct ik_cm_conn *cn;
	bool ud;
	int rc;

	memcpy(&cmd, c->in, sizeof(cmd));
	if (!p->valid)
		return -EINVAL;
	rc = ik_ucma_get_ctx(c->f, cmd.id, true, &ctx);
	if (rc)
		return rc;
	ud = ctx->qp_type == IBV_QPT_UD;
	if (ctx->state != IK_CM_ROUTE_RESOLVED ||
	    p->private_data_len > (ud ? PDATA_SIDR_REQ : PDATA_REQ))
		return -EINVAL;
	rc = ik_cm_agent_start();
	if (rc)
		return rc;
	cn = &ctx->conn;
	cn->local_comm_id = ik_cm_new_comm_id();
	cn->remote_comm_id = 0;
	ik_cm_ip_gid(ik_cm_addr_ip4(&ctx->dst), cn->peer_gid);
	cn->peer_agent = listen_qpn(ctx->ps, ik_cm_addr_port(&ctx->dst));
	cn->responder_resources = p->responder_resources;
	cn->initiator_depth = p->initiator_depth;
	cn->retry_count = p->retry_count & 7;
	cn->rnr_retry_count = p->rnr_retry_count & 7;
	msg_init(&m, ctx, ud ? IK_CM_SIDR_REQ : IK_CM_REQ);
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
	set_pdata(&m, p->private_data, p->private_data_len);
	ctx->state = IK_CM_CONNECT;
	cn->st = ud ? IK_CONN_SIDR_SENT : IK_CONN_REQ_SENT;
	/* resent until answered; if nobody listens there yet, retried for
	 * a while (req_retry) */
	rtx_arm(ctx, &m, send_peer(ctx, &m) && ifab_tells_absent(&agent.ep));
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

	memcpy(&cmd, c->in, sizeof(cmd));
	rc = ik_ucma_get_ctx(c->f, cmd.id, true, &ctx);
	if (rc)
		return rc;
	cn = &ctx->conn;
	if (!p->valid) {
		/* the active side's RTU (rdma_establish) */
		if (cn->st != IK_CONN_REP_RCVD)
			return -EINVAL;
		send_simple(ctx, IK_CM_RTU);
		cn->st = IK_CONN_ESTABLISHED;
		return 0;
	}
	if (cn->st == IK_CONN_SIDR_RCVD) {
		if (p->private_data_len > PDATA_SIDR_REP)
			return -EINVAL;
		ctx->uid = cmd.uid;
		msg_init(&m, ctx, IK_CM_SIDR_REP);
		m.qpn = p->qp_num & 0xffffff;
		m.qkey = p->qkey ? p->qkey : IK_CM_UDP_QKEY;
		set_pdata(&m, p->private_data, p->private_data_len);
		send_peer(ctx, &m);
		cn->st = IK_CONN_TIMEWAIT; /* nothing follows for UD */
		return 0;
	}
	if (cn->st != IK_CONN_REQ_RCVD || p->private_data_len > PDATA_REP)
		return -EINVAL;
	ctx->uid = cmd.uid;
	cn->responder_resources = p->responder_resources;
	cn->initiator_depth = p->initiator_depth;
	msg_init(&m, ctx, IK_CM_REP);
	m.qpn = p->qp_num & 0xffffff;
	m.start_psn = ctx->seq;
	m.responder_resources = p->responder_resources;
	m.initiator_depth = p->initiator_depth;
	m.flow_control = p->flow_control & 1;
	m.rnr_retry_count = p->rnr_retry_count & 7;
	m.srq = p->srq & 1;
	set_pdata(&m, p->private_data, p->private_data_len);
	cn->st = IK_CONN_REP_SENT;
	if (!send_peer(ctx, &m)) {
		cn->st = IK_CONN_TIMEWAIT;
		ik_ucma_event(ctx, RDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT, NULL);
		return 0;
	}
	rtx_arm(ctx, &m, true); /* resent until the RTU comes */
	return 0;
}

int ik_ucma_reject(struct ik_ucma_cmd *c)
{
	struct rdma_ucm_reject cmd;
	struct ik_cm_id *ctx;
	uint8_t reason;
	int rc;

	memcpy(&cmd, c->in, sizeof(cmd));
	reason = cmd.reason ? cmd.reason : REJ_CONSUMER_DEFINED;
	if (reason != REJ_CONSUMER_DEFINED && reason != REJ_VENDOR_OPTION)
		return -EINVAL;
	rc = ik_ucma_get_ctx(c->f, cmd.id, true, &ctx);
	if (rc)
		return rc;
	if (ctx->conn.st == IK_CONN_SIDR_RCVD) {
		struct ik_cm_msg m;

		if (cmd.private_data_len > PDATA_SIDR_REP)
			return -EINVAL;
		msg_init(&m, ctx, IK_CM_SIDR_REP);
		m.reason = SIDR_REJECT;
		set_pdata(&m, cmd.private_data, cmd.private_data_len);
		send_peer(ctx, &m);
		ctx->conn.st = IK_CONN_TIMEWAIT;
		return 0;
	}
	if (ctx->conn.st != IK_CONN_REQ_RCVD ||
	    cmd.private_data_len > PDATA_REJ)
		return -EINVAL;
	send_rej(ctx, reason, cmd.private_data, cmd.private_data_len);
	return 0;
}

int ik_ucma_disconnect(struct ik_ucma_cmd *c)
{
	struct rdma_ucm_disconnect cmd;
	struct ik_cm_id *ctx;
	struct ik_cm_conn *cn;
	int rc;

	memcpy(&cmd, c->in, sizeof(cmd));
	rc = ik_ucma_get_ctx(c->f, cmd.id, true, &ctx);
	if (rc)
		return rc;
	cn = &ctx->conn;
	switch (cn->st) {
	case IK_CONN_NONE:
		return -EINVAL;
	case IK_CONN_ESTABLISHED:
	case IK_CONN_REP_SENT:
		cn->st = IK_CONN_DREQ_SENT;
		{
			struct ik_cm_msg m;

			msg_init(&m, ctx, IK_CM_DREQ);
			if (!send_peer(ctx, &m)) {
				/* the peer is gone: nobody answers */
				cn->st = IK_CONN_TIMEWAIT;
				ik_ucma_event(ctx, RDMA_CM_EVENT_DISCONNECTED,
					      -ETIMEDOUT, NULL);
			} else {
				/* resent until a DREP or a DREQ comes */
				ctx->req = m;
				ctx->rtx_left = DREQ_RETRIES;
				ctx->rtx_due = now_ns() + REQ_RETRY_NS;
				kick();
			}
		}
		return 0;
	case IK_CONN_DREQ_RCVD:
		send_simple(ctx, IK_CM_DREP);
		cn->st = IK_CONN_TIMEWAIT;
		return 0;
	default:
		return 0; /* the CM's state errors are ignored */
	}
}

/* ---- arrivals ----------------------------------------------------------------- */

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
			 * request is held (req_retry) */
			if (o->conn.st == IK_CONN_REQ_RCVD ||
			    o->conn.st == IK_CONN_SIDR_RCVD)
				send_simple(o, IK_CM_MRA);
			return;
		}
	}
	if (l->state != IK_CM_LISTEN || (ud != (l->qp_type == IBV_QPT_UD))) {
		reject_req(m, REJ_INVALID_SERVICE_ID);
		return;
	}
	if (lip && lip != dst) {
		reject_req(m, REJ_CONSUMER_DEFINED);
		return;
	}
	if (l->backlog <= 0)
		return; /* dropped without a REJ: the sender may retry */
	child = ik_cm_id_new(l->file, l->ps, l->qp_type, 0);
	if (!child) {
		reject_req(m, REJ_CONSUMER_DEFINED);
		return;
	}
	child->visible = false;
	child->listener = l;
	child->passive = true;
	child->state = IK_CM_CONNECT;
	child->has_dev = true;
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
		ev.param.ud.private_data_len = PDATA_SIDR_REQ;
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
		p->private_data_len = PDATA_REQ;
		memcpy(p->private_data, m->pdata,
		       m->pdata_len < PDATA_REQ ? m->pdata_len : PDATA_REQ);
	}
	/* The kernel's MRA as the request is queued: the requester learns
	 * our agent, where its resends then go (a listener destroyed with
	 * the child alive is not a peer gone). */
	if (!ud)
		send_simple(child, IK_CM_MRA);
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
		send_simple(ctx, IK_CM_RTU); /* our RTU was lost */
		return;
	}
	if (cn->st == IK_CONN_REP_RCVD) {
		/* the application has yet to answer: the IB CM's MRA for a
		 * repeated REP, so the passive side keeps waiting */
		send_simple(ctx, IK_CM_MRA);
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
	p->private_data_len = PDATA_REP;
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
	ev.param.conn.private_data_len = PDATA_REJ;
	memcpy(ev.param.conn.private_data, m->pdata,
	       m->pdata_len < PDATA_REJ ? m->pdata_len : PDATA_REJ);
	ik_ucma_event(ctx, RDMA_CM_EVENT_REJECTED, m->reason, &ev);
}

static void on_sidr_rep(struct ik_cm_id *ctx, const struct ik_cm_msg *m)
{
	struct rdma_ucm_event_resp ev = { 0 };
	struct rdma_ucm_ud_param *p = &ev.param.ud;

	if (ctx->conn.st != IK_CONN_SIDR_SENT)
		return;
	ctx->conn.st = IK_CONN_TIMEWAIT;
	p->private_data_len = PDATA_SIDR_REP;
	memcpy(p->private_data, m->pdata,
	       m->pdata_len < PDATA_SIDR_REP ? m->pdata_len : PDATA_SIDR_REP);
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

static void cm_input(const struct ik_cm_msg *m, struct ik_cm_id *listener)
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
			send_simple(ctx, IK_CM_DREP);
			ctx->rtx_due = 0;
			ctx->conn.st = IK_CONN_TIMEWAIT;
			ctx->state = IK_CM_DISCONNECT;
			ik_ucma_event(ctx, RDMA_CM_EVENT_DISCONNECTED, 0, NULL);
		} else if (ctx->conn.st == IK_CONN_TIMEWAIT) {
			send_simple(ctx, IK_CM_DREP); /* a repeated DREQ */
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

/* ---- the agent ------------------------------------------------------------- */

static void kick(void)
{
	uint64_t one = 1;

	if (agent.wake >= 0)
		(void)!write(agent.wake, &one, sizeof(one));
}

/* Read everything waiting on ep (ik_cm_lock held). */
static void drain(struct ifab_ep *ep, struct ik_cm_id *listener)
{
	struct ik_cm_msg m;
	int rc;

	for (int i = 0; i < 64; i++) {
		rc = ik_cm_wire_recv(ep, &m);
		if (rc == 0 || (rc < 0 && rc != -EAGAIN))
			return;
		if (rc == 1)
			cm_input(&m, listener);
		/* a listener destroyed by what it received */
		if (listener && listener->lep.fd < 0)
			return;
	}
}

static void *agent_main(void *arg)
{
	struct pollfd p[AGENT_MAX_FDS];
	uint32_t owner[AGENT_MAX_FDS]; /* id handle per pollfd */

	(void)arg;
	for (;;) {
		nfds_t n = 2;
		int timeout = -1;

		pthread_mutex_lock(&ik_cm_lock);
		if (!agent.running) {
			pthread_mutex_unlock(&ik_cm_lock);
			return NULL;
		}
		p[0] = (struct pollfd){ .fd = agent.wake, .events = POLLIN };
		p[1] = (struct pollfd){ .fd = agent.ep.fd, .events = POLLIN };
		for (uint32_t h = 0; h < ik_cm_nids && n < AGENT_MAX_FDS; h++)
			if (ik_cm_ids[h] && ik_cm_ids[h]->lep.fd >= 0) {
				owner[n] = h;
				p[n++] = (struct pollfd){
					.fd = ik_cm_ids[h]->lep.fd,
					.events = POLLIN
				};
			}
		if (ifab_backlogged(&agent.ep))
			timeout = 10;
		for (uint32_t h = 0; h < ik_cm_nids; h++)
			if (ik_cm_ids[h] && ik_cm_ids[h]->rtx_due) {
				uint64_t now = now_ns();
				uint64_t due = ik_cm_ids[h]->rtx_due;
				int ms = due > now ?
						 (int)((due - now) / 1000000) +
							 1 :
						 0;

				if (timeout < 0 || ms < timeout)
					timeout = ms;
			}
		pthread_mutex_unlock(&ik_cm_lock);

		if (poll(p, n, timeout) < 0 && errno != EINTR)
			continue;

		pthread_mutex_lock(&ik_cm_lock);
		if (p[0].revents & POLLIN) {
			uint64_t v;

			(void)!read(agent.wake, &v, sizeof(v));
		}
		ifab_flush(&agent.ep);
		for (uint32_t h = 0; h < ik_cm_nids; h++)
			if (ik_cm_ids[h] && ik_cm_ids[h]->rtx_due)
				req_retry(ik_cm_ids[h], now_ns());
		if (p[1].revents & POLLIN)
			drain(&agent.ep, NULL);
		for (nfds_t i = 2; i < n; i++) {
			struct ik_cm_id *l = owner[i] < ik_cm_nids ?
						     ik_cm_ids[owner[i]] :
						     NULL;

			if ((p[i].revents & POLLIN) && l &&
			    l->lep.fd == p[i].fd)
				drain(&l->lep, l);
		}
		pthread_mutex_unlock(&ik_cm_lock);
	}
}

int ik_cm_agent_start(void)
{
	pthread_attr_t attr;
	pthread_t th;
	int rc = -EADDRINUSE;

	if (agent.running)
		return 0;
	for (uint32_t k = 1; k < 4096 && rc == -EADDRINUSE; k++)
		rc = ik_cm_wire_open(&agent.ep, own_node(),
				     IK_CM_AGENT_QPN + k);
	if (rc)
		return rc;
	agent.wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (agent.wake < 0) {
		rc = -errno;
		goto fail;
	}
	agent.running = true;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	rc = -pthread_create(&th, &attr, agent_main, NULL);
	pthread_attr_destroy(&attr);
	if (!rc)
		return 0;
	agent.running = false;
	close(agent.wake);
	agent.wake = -1;
fail:
	ik_cm_wire_close(&agent.ep);
	return rc;
}

void ik_cm_agent_atfork_child(void)
{
	/* the thread did not come along; its endpoint is the parent's */
	if (agent.ep.fd >= 0)
		close(agent.ep.fd);
	if (agent.wake >= 0)
		close(agent.wake);
	memset(&agent, 0, sizeof(agent));
	agent.wake = -1;
	agent.ep.fd = -1;
}

int ik_cm_listen_open(struct ik_cm_id *ctx)
{
	int rc = ik_cm_agent_start();

	if (rc)
		return rc;
	/* A listen endpoint of ours closed a moment ago keeps its address
	 * while the agent's poll() still holds it: wake the agent and let
	 * that poll return before calling the port taken. */
	for (int i = 0; i < 50; i++) {
		rc = ik_cm_wire_open(&ctx->lep, own_node(),
				     listen_qpn(ctx->ps,
						ik_cm_addr_port(&ctx->src)));
		if (rc != -EADDRINUSE || !closed_listeners)
			break;
		kick();
		usleep(1000);
	}
	if (rc) {
		ctx->lep.fd = -1;
		return rc;
	}
	kick();
	return 0;
}

void ik_cm_listen_close(struct ik_cm_id *ctx)
{
	if (ctx->lep.fd < 0)
		return;
	ik_cm_wire_close(&ctx->lep);
	ctx->lep.fd = -1;
	closed_listeners = true;
	kick();
}
