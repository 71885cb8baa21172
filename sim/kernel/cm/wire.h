/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim kernel layer: the IB CM's messages as they travel between
 * emulated NICs (docs/kernel-contract.md §22.5).
 *
 * A message is a MAD - the IBTA common MAD header (management class CM,
 * attribute REQ, REP, ...) followed by a fixed body of ours that carries
 * what the IB CM and the rdma_cm's IP header would - sent as the payload
 * of a UD SEND (Q_Key 0x80010000) to a CM endpoint of the destination
 * node: the listen endpoint of (port space, port) for a REQ or SIDR REQ,
 * then the agent endpoint of the peer's process (agent.c).  Only
 * wire.c knows how that datagram is framed for the fabric.
 */
#ifndef IK_CM_WIRE_H
#define IK_CM_WIRE_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "../../fabric/fabric.h"

#define IK_CM_GSI_QKEY 0x80010000u
#define IK_CM_PDATA_MAX 224 /* the largest IB CM private data (RTU) */

/* MAD attribute ids of the CM class (IBTA 12.6), and two of ours kept
 * for neighbour resolution over the fabric (ARP's part; not sent yet). */
enum ik_cm_attr {
	IK_CM_REQ = 0x0010,
	IK_CM_MRA = 0x0011,
	IK_CM_REJ = 0x0012,
	IK_CM_REP = 0x0013,
	IK_CM_RTU = 0x0014,
	IK_CM_DREQ = 0x0015,
	IK_CM_DREP = 0x0016,
	IK_CM_SIDR_REQ = 0x0017,
	IK_CM_SIDR_REP = 0x0018,
	IK_CM_ARP_REQ = 0xff10,
	IK_CM_ARP_REP = 0xff11,
};

/* A decoded message (host order). */
struct ik_cm_msg {
	uint16_t attr;
	uint64_t tid;
	uint32_t local_comm_id, remote_comm_id;
	/* the sender's agent: where answers go */
	uint8_t reply_gid[16];
	uint32_t reply_qpn;
	uint64_t service_id; /* REQ, SIDR REQ: (ps << 16) | port */
	uint32_t qpn; /* REQ, REP, SIDR REP */
	uint32_t qkey; /* SIDR REP */
	uint32_t start_psn; /* REQ, REP */
	uint8_t responder_resources, initiator_depth;
	uint8_t flow_control, retry_count, rnr_retry_count, srq;
	uint8_t ack_timeout; /* REQ: local ACK timeout */
	uint16_t reason; /* REJ reason, SIDR REP status */
	/* the rdma_cm header: version, ports, addresses (IPv4 in the last
	 * four bytes, as cma_hdr carries them) */
	uint8_t ip_version; /* 4 or 6 */
	uint16_t src_port;
	uint8_t src_ip[16], dst_ip[16];
	/* the path the sender uses */
	uint8_t mtu, rate, tclass, hop_limit;
	uint32_t flow_label;
	uint8_t pdata_len;
	uint8_t pdata[IK_CM_PDATA_MAX];
};

/* The body on the wire: big-endian, fixed offsets. */
struct ik_cm_mad {
	/* MAD common header (IBTA 13.4.2) */
	uint8_t base_version; /* 1 */
	uint8_t mgmt_class; /* 0x07: CM */
	uint8_t class_version; /* 2 */
	uint8_t method; /* 0x03: Send */
	uint16_t status;
	uint16_t class_specific;
	uint64_t tid;
	uint16_t attr_id;
	uint16_t resv0;
	uint32_t attr_mod;
	/* ours */
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t reply_gid[16];
	uint32_t reply_qpn;
	uint32_t qpn;
	uint64_t service_id;
	uint32_t qkey;
	uint32_t start_psn;
	uint32_t flow_label;
	uint16_t reason;
	uint16_t src_port;
	uint8_t src_ip[16];
	uint8_t dst_ip[16];
	uint8_t ip_version;
	uint8_t responder_resources;
	uint8_t initiator_depth;
	uint8_t flow_control;
	uint8_t retry_count;
	uint8_t rnr_retry_count;
	uint8_t srq;
	uint8_t ack_timeout;
	uint8_t mtu;
	uint8_t rate;
	uint8_t tclass;
	uint8_t hop_limit;
	uint8_t pdata_len;
	uint8_t resv1[3];
	uint8_t pdata[IK_CM_PDATA_MAX];
} __attribute__((packed));

static_assert(sizeof(struct ik_cm_mad) == 352, "ik_cm_mad size");
static_assert(offsetof(struct ik_cm_mad, tid) == 8, "mad tid");
static_assert(offsetof(struct ik_cm_mad, attr_id) == 16, "mad attr_id");
static_assert(offsetof(struct ik_cm_mad, local_comm_id) == 24, "comm id");
static_assert(offsetof(struct ik_cm_mad, reply_gid) == 32, "reply gid");
static_assert(offsetof(struct ik_cm_mad, service_id) == 56, "service id");
static_assert(offsetof(struct ik_cm_mad, src_ip) == 80, "src ip");
static_assert(offsetof(struct ik_cm_mad, ip_version) == 112, "ip version");
static_assert(offsetof(struct ik_cm_mad, pdata_len) == 124, "pdata len");
static_assert(offsetof(struct ik_cm_mad, pdata) == 128, "pdata");

#define IK_CM_MGMT_CLASS 0x07
#define IK_CM_CLASS_VERSION 2
#define IK_CM_METHOD_SEND 0x03

/* Encode / decode the MAD alone (the fuzz target feeds ik_cm_mad_decode
 * arbitrary bytes).  decode: 0, or -EINVAL for anything malformed. */
void ik_cm_mad_encode(const struct ik_cm_msg *m, struct ik_cm_mad *mad);
int ik_cm_mad_decode(const void *buf, size_t len, struct ik_cm_msg *m);

/* Open a CM endpoint (node, qpn) on the fabric: 0 or a negative errno
 * (-EADDRINUSE: held by another endpoint of the node). */
int ik_cm_wire_open(struct ifab_ep *ep, uint32_t node, uint32_t qpn);
void ik_cm_wire_close(struct ifab_ep *ep);
/* Send m from ep to (dgid, dqpn): the fabric's result. */
enum ifab_result ik_cm_wire_send(struct ifab_ep *ep, const uint8_t sgid[16],
				 const uint8_t dgid[16], uint32_t dqpn,
				 const struct ik_cm_msg *m);
/* The next message waiting on ep: 1 (decoded into m), 0 none waiting,
 * -EAGAIN a datagram that was not a CM message (dropped), or another
 * negative errno. */
int ik_cm_wire_recv(struct ifab_ep *ep, struct ik_cm_msg *m);

#endif /* IK_CM_WIRE_H */
