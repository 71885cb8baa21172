// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: the IB CM's messages between emulated NICs
 * (proto.h) - building and sending them, resending what waits for an
 * answer, and what destroying an id sends.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proto.h"

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

uint32_t ik_cm_new_comm_id(void)
{
	static uint32_t next;

	if (!next)
		next = ((uint32_t)getpid() << 12) ^ (uint32_t)random();
	if (!++next)
		++next;
	return next;
}

uint32_t ik_cm_listen_qpn(uint16_t ps, uint16_t port)
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
 * an interface's subnet is one the host's IP stack can reach, as a RoCE NIC's
 * neighbours are the hosts of its netdev's subnet: a NIC answers there,
 * or the CM's request goes unanswered (docs/kernel-contract.md §22.5).
 */
bool ik_cm_neighbour(unsigned int nic, uint32_t ip)
{
	const struct ik_netdev *nd = ik_netdev_get(nic);
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

void ik_cm_msg_init(struct ik_cm_msg *m, const struct ik_cm_id *ctx,
		    uint16_t attr)
{
	memset(m, 0, sizeof(*m));
	m->attr = attr;
	m->tid = ((uint64_t)attr << 48) | ctx->conn.local_comm_id;
	m->local_comm_id = ctx->conn.local_comm_id;
	m->remote_comm_id = ctx->conn.remote_comm_id;
	isim_node_gid(ik_cm_own_node(ctx->dev), 1, m->reply_gid);
	m->reply_qpn = ik_cm_agent_ep(ctx->dev)->qpn;
	m->ip_version = 4;
}

void ik_cm_set_pdata(struct ik_cm_msg *m, const void *p, uint8_t len)
{
	m->pdata_len = len;
	memcpy(m->pdata, p, len);
}

/* Send to (the NIC of dgid, qpn): false if nobody holds that endpoint,
 * as far as the transport can tell (ifab_tells_absent). */
static bool send_to(unsigned int nic, const uint8_t dgid[16], uint32_t qpn,
		    const struct ik_cm_msg *m)
{
	uint8_t sgid[16];

	isim_node_gid(ik_cm_own_node(nic), 1, sgid);
	return ik_cm_wire_send(ik_cm_agent_ep(nic), sgid, dgid, qpn, m) !=
	       IFAB_LOST;
}

bool ik_cm_send_peer(const struct ik_cm_id *ctx, const struct ik_cm_msg *m)
{
	return send_to(ctx->dev, ctx->conn.peer_gid, ctx->conn.peer_agent, m);
}

/* A REJ for a REQ no id was made for. */
void ik_cm_reject_req(const struct ik_cm_msg *req, uint16_t reason)
{
	struct ik_cm_msg m = { .attr = IK_CM_REJ };
	int nic;
	uint32_t dst;

	/* from the NIC the request came to */
	memcpy(&dst, &req->dst_ip[12], 4);
	nic = ik_cm_nic_of_ip(dst);
	if (nic < 0)
		nic = 0;
	m.tid = req->tid;
	m.remote_comm_id = req->local_comm_id;
	isim_node_gid(ik_cm_own_node((unsigned int)nic), 1, m.reply_gid);
	m.reply_qpn = ik_cm_agent_ep((unsigned int)nic)->qpn;
	m.reason = reason;
	if (req->attr == IK_CM_SIDR_REQ) {
		m.attr = IK_CM_SIDR_REP;
		m.reason = IK_CM_SIDR_UNSUPPORTED;
	}
	send_to((unsigned int)nic, req->reply_gid, req->reply_qpn, &m);
}

void ik_cm_send_rej(struct ik_cm_id *ctx, uint16_t reason, const void *p,
		    uint8_t len)
{
	struct ik_cm_msg m;

	ik_cm_msg_init(&m, ctx, IK_CM_REJ);
	m.reason = reason;
	ik_cm_set_pdata(&m, p, len);
	ik_cm_send_peer(ctx, &m);
	ctx->conn.st = IK_CONN_TIMEWAIT;
}

void ik_cm_send_simple(struct ik_cm_id *ctx, uint16_t attr)
{
	struct ik_cm_msg m;

	ik_cm_msg_init(&m, ctx, attr);
	ik_cm_send_peer(ctx, &m);
}

void ik_cm_conn_destroy(struct ik_cm_id *ctx)
{
	switch (ctx->conn.st) {
	case IK_CONN_REQ_SENT:
		if (ctx->rtx_arrived)
			ik_cm_send_rej(ctx, IK_CM_REJ_TIMEOUT, NULL, 0);
		break;
	case IK_CONN_REQ_RCVD:
	case IK_CONN_REP_SENT:
	case IK_CONN_REP_RCVD:
		ik_cm_send_rej(ctx, IK_CM_REJ_CONSUMER_DEFINED, NULL, 0);
		break;
	case IK_CONN_ESTABLISHED:
		ik_cm_send_simple(ctx, IK_CM_DREQ);
		break;
	case IK_CONN_DREQ_RCVD:
		ik_cm_send_simple(ctx, IK_CM_DREP);
		break;
	default:
		break;
	}
	ctx->conn.st = IK_CONN_NONE;
}

uint64_t ik_cm_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t rtx_period(const struct ik_cm_id *ctx)
{
	return ctx->conn.st == IK_CONN_SIDR_SENT ? SIDR_RTX_NS : CM_RTX_NS;
}

/* Keep 'm' (just sent, 'arrived' or not) for ik_cm_retry to resend. */
void ik_cm_rtx_arm(struct ik_cm_id *ctx, const struct ik_cm_msg *m,
		   bool arrived)
{
	ctx->req = *m;
	ctx->rtx_arrived = arrived;
	ctx->rtx_heard = false;
	ctx->rtx_left = arrived ? CM_LOST_RETRIES : REQ_RETRIES;
	ctx->rtx_due =
		ik_cm_now_ns() + (arrived ? rtx_period(ctx) : REQ_RETRY_NS);
	ik_cm_agent_kick();
}

void ik_cm_rtx_arm_dreq(struct ik_cm_id *ctx, const struct ik_cm_msg *m)
{
	ctx->req = *m;
	ctx->rtx_left = DREQ_RETRIES;
	ctx->rtx_due = ik_cm_now_ns() + REQ_RETRY_NS;
	ik_cm_agent_kick();
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
void ik_cm_retry(struct ik_cm_id *ctx, uint64_t now)
{
	struct rdma_ucm_event_resp ev = { 0 };
	bool ud = ctx->qp_type == IBV_QPT_UD;
	bool heard;

	if (now < ctx->rtx_due)
		return;
	if (ctx->conn.st == IK_CONN_DREQ_SENT) {
		/* a DREQ not answered: resent, then given up (-ETIMEDOUT) */
		if (--ctx->rtx_left && ik_cm_send_peer(ctx, &ctx->req)) {
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
	if (ik_cm_send_peer(ctx, &ctx->req) &&
	    (heard || ifab_tells_absent(ik_cm_agent_ep(0)))) {
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
		ev.param.ud.private_data_len = IK_CM_PDATA_SIDR_REP;
		ik_ucma_event(ctx, RDMA_CM_EVENT_UNREACHABLE,
			      IK_CM_SIDR_UNSUPPORTED, &ev);
	} else {
		ev.param.conn.private_data_len = IK_CM_PDATA_REJ;
		ik_ucma_event(ctx, RDMA_CM_EVENT_REJECTED,
			      IK_CM_REJ_INVALID_SERVICE_ID, &ev);
	}
}
