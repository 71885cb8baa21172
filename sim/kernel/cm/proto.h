/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim kernel layer: the IB CM between emulated NICs, shared by its
 * four files and private to them (ucma.h has what the rdma_ucm side calls):
 *
 *   proto.c  messages, retransmission, what destroying an id sends
 *   cmd.c    the commands that speak the protocol: CONNECT, ACCEPT
 *            (and the active side's RTU), REJECT, DISCONNECT
 *   input.c  what each message does on arrival
 *   agent.c  the process' CM agent thread and its endpoints
 *
 * Endpoints on the fabric (wire.h): every process with rdma_cm ids has
 * one agent endpoint (QPN IK_CM_AGENT_QPN + k) where answers arrive, and
 * every listening id one listen endpoint whose QPN encodes its port space
 * and port (ik_cm_listen_qpn), so a REQ finds the process listening on
 * (node, ps, port) whichever process that is.  A message to an endpoint
 * nobody holds is lost at once (the unix transport refuses it): the
 * sender treats that as the peer being gone - no listener (REJECTED 8,
 * UNREACHABLE 1), a dead peer (DISCONNECTED / UNREACHABLE -ETIMEDOUT) -
 * instead of timing out.
 *
 * Everything here runs under ik_cm_lock.
 */
#ifndef IK_CM_PROTO_H
#define IK_CM_PROTO_H

#include "../kpriv.h"
#include "ucma.h"

#define IK_CM_AGENT_QPN 0xf00000u
#define IK_CM_LISTEN_QPN 0xe00000u

/* Private data limits with the rdma_cm IP header (docs/kernel-contract.md
 * §22.4) */
#define IK_CM_PDATA_REQ 56
#define IK_CM_PDATA_REP 196
#define IK_CM_PDATA_REJ 148
#define IK_CM_PDATA_SIDR_REQ 180
#define IK_CM_PDATA_SIDR_REP 136
/* REJ reasons and SIDR REP statuses */
#define IK_CM_REJ_TIMEOUT 1
#define IK_CM_REJ_INVALID_SERVICE_ID 8
#define IK_CM_REJ_CONSUMER_DEFINED 28
#define IK_CM_REJ_VENDOR_OPTION 35
#define IK_CM_SIDR_UNSUPPORTED 1
#define IK_CM_SIDR_REJECT 2

/* NIC nic's fabric node. */
static inline uint32_t ik_cm_own_node(unsigned int nic)
{
	return ik_host_get()->node[nic];
}

/* ---- proto.c ----------------------------------------------------- */

/* The listen endpoint's QPN of (port space, port). */
uint32_t ik_cm_listen_qpn(uint16_t ps, uint16_t port);
/* A message of type 'attr' from ctx's connection, answers to our agent. */
void ik_cm_msg_init(struct ik_cm_msg *m, const struct ik_cm_id *ctx,
		    uint16_t attr);
void ik_cm_set_pdata(struct ik_cm_msg *m, const void *p, uint8_t len);
/* Send m to ctx's peer: false if nobody holds its endpoint, as far as the
 * transport can tell (ifab_tells_absent). */
bool ik_cm_send_peer(const struct ik_cm_id *ctx, const struct ik_cm_msg *m);
/* A message with nothing but its type (RTU, MRA, DREQ, DREP). */
void ik_cm_send_simple(struct ik_cm_id *ctx, uint16_t attr);
/* A REJ on ctx's connection, which it ends (TIMEWAIT). */
void ik_cm_send_rej(struct ik_cm_id *ctx, uint16_t reason, const void *p,
		    uint8_t len);
/* A REJ (SIDR: SIDR REP, unsupported) for a REQ no id was made for. */
void ik_cm_reject_req(const struct ik_cm_msg *req, uint16_t reason);
/* Keep m (a REQ, SIDR REQ or REP just sent, that 'arrived' or not) for
 * ik_cm_retry to resend until answered. */
void ik_cm_rtx_arm(struct ik_cm_id *ctx, const struct ik_cm_msg *m,
		   bool arrived);
/* The same for a DREQ, resent a while, then given up. */
void ik_cm_rtx_arm_dreq(struct ik_cm_id *ctx, const struct ik_cm_msg *m);
/* Resend what waits for an answer once its time 'now' has come (the
 * agent calls it for every id with rtx_due set). */
void ik_cm_retry(struct ik_cm_id *ctx, uint64_t now);
/* CLOCK_MONOTONIC in ns: the clock of rtx_due. */
uint64_t ik_cm_now_ns(void);

/* ---- input.c ----------------------------------------------------- */

/* A message that arrived on the agent endpoint (listener NULL) or on
 * listener's listen endpoint. */
void ik_cm_input(const struct ik_cm_msg *m, struct ik_cm_id *listener);

/* ---- agent.c ----------------------------------------------------- */

/* The agent's endpoint on NIC 'nic' (its node): where answers to the
 * messages of ids on that NIC come, as a port's QP1 takes its MADs. */
struct ifab_ep *ik_cm_agent_ep(unsigned int nic);
/* Wake the agent: its endpoint set or its next resend time changed. */
void ik_cm_agent_kick(void);

#endif /* IK_CM_PROTO_H */
