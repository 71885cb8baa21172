// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: IB CM messages on the fabric (wire.h).  The
 * one file that knows the fabric's packet format: a MAD travels as the
 * payload of a UD SEND_ONLY packet from the sending agent's endpoint to a
 * CM endpoint of the destination node, addressed by its GID.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "../../common/profile.h"
#include "../../dev/pkt.h"
#include "wire.h"

void ik_cm_mad_encode(const struct ik_cm_msg *m, struct ik_cm_mad *mad)
{
	memset(mad, 0, sizeof(*mad));
	mad->base_version = 1;
	mad->mgmt_class = IK_CM_MGMT_CLASS;
	mad->class_version = IK_CM_CLASS_VERSION;
	mad->method = IK_CM_METHOD_SEND;
	mad->tid = htobe64(m->tid);
	mad->attr_id = htobe16(m->attr);
	mad->local_comm_id = htobe32(m->local_comm_id);
	mad->remote_comm_id = htobe32(m->remote_comm_id);
	memcpy(mad->reply_gid, m->reply_gid, 16);
	mad->reply_qpn = htobe32(m->reply_qpn);
	mad->qpn = htobe32(m->qpn);
	mad->service_id = htobe64(m->service_id);
	mad->qkey = htobe32(m->qkey);
	mad->start_psn = htobe32(m->start_psn);
	mad->flow_label = htobe32(m->flow_label);
	mad->reason = htobe16(m->reason);
	mad->src_port = htobe16(m->src_port);
	memcpy(mad->src_ip, m->src_ip, 16);
	memcpy(mad->dst_ip, m->dst_ip, 16);
	mad->ip_version = m->ip_version;
	mad->responder_resources = m->responder_resources;
	mad->initiator_depth = m->initiator_depth;
	mad->flow_control = m->flow_control;
	mad->retry_count = m->retry_count;
	mad->rnr_retry_count = m->rnr_retry_count;
	mad->srq = m->srq;
	mad->ack_timeout = m->ack_timeout;
	mad->mtu = m->mtu;
	mad->rate = m->rate;
	mad->tclass = m->tclass;
	mad->hop_limit = m->hop_limit;
	mad->pdata_len = m->pdata_len;
	memcpy(mad->pdata, m->pdata,
	       m->pdata_len <= IK_CM_PDATA_MAX ? m->pdata_len :
						 IK_CM_PDATA_MAX);
}

static bool attr_known(uint16_t a)
{
	return (a >= IK_CM_REQ && a <= IK_CM_SIDR_REP) || a == IK_CM_ARP_REQ ||
	       a == IK_CM_ARP_REP;
}

int ik_cm_mad_decode(const void *buf, size_t len, struct ik_cm_msg *m)
{
	struct ik_cm_mad mad;

	if (len != sizeof(mad))
		return -EINVAL;
	memcpy(&mad, buf, sizeof(mad));
	if (mad.base_version != 1 || mad.mgmt_class != IK_CM_MGMT_CLASS ||
	    mad.class_version != IK_CM_CLASS_VERSION ||
	    mad.method != IK_CM_METHOD_SEND)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	m->attr = be16toh(mad.attr_id);
	if (!attr_known(m->attr))
		return -EINVAL;
	if (mad.pdata_len > IK_CM_PDATA_MAX)
		return -EINVAL;
	if (mad.ip_version != 0 && mad.ip_version != 4 && mad.ip_version != 6)
		return -EINVAL;
	m->tid = be64toh(mad.tid);
	m->local_comm_id = be32toh(mad.local_comm_id);
	m->remote_comm_id = be32toh(mad.remote_comm_id);
	memcpy(m->reply_gid, mad.reply_gid, 16);
	m->reply_qpn = be32toh(mad.reply_qpn) & 0xffffff;
	m->qpn = be32toh(mad.qpn) & 0xffffff;
	m->service_id = be64toh(mad.service_id);
	m->qkey = be32toh(mad.qkey);
	m->start_psn = be32toh(mad.start_psn) & 0xffffff;
	m->flow_label = be32toh(mad.flow_label) & 0xfffff;
	m->reason = be16toh(mad.reason);
	m->src_port = be16toh(mad.src_port);
	memcpy(m->src_ip, mad.src_ip, 16);
	memcpy(m->dst_ip, mad.dst_ip, 16);
	m->ip_version = mad.ip_version;
	m->responder_resources = mad.responder_resources;
	m->initiator_depth = mad.initiator_depth;
	m->flow_control = mad.flow_control & 1;
	m->retry_count = mad.retry_count & 7;
	m->rnr_retry_count = mad.rnr_retry_count & 7;
	m->srq = mad.srq & 1;
	m->ack_timeout = mad.ack_timeout & 31;
	m->mtu = mad.mtu;
	m->rate = mad.rate;
	m->tclass = mad.tclass;
	m->hop_limit = mad.hop_limit;
	m->pdata_len = mad.pdata_len;
	memcpy(m->pdata, mad.pdata, m->pdata_len);
	return 0;
}

int ik_cm_wire_open(struct ifab_ep *ep, uint32_t node, uint32_t qpn)
{
	return ifab_open(ep, NULL, node, qpn);
}

void ik_cm_wire_close(struct ifab_ep *ep)
{
	ifab_close(ep);
}

enum ifab_result ik_cm_wire_send(struct ifab_ep *ep, const uint8_t sgid[16],
				 const uint8_t dgid[16], uint32_t dqpn,
				 const struct ik_cm_msg *m)
{
	uint8_t buf[IDEV_PKT_MAX_HDR + sizeof(struct ik_cm_mad) + 3 +
		    IDEV_ICRC_LEN];
	uint32_t node = isim_gid_to_node(dgid);
	struct idev_pkt pkt;

	/* a UD SEND from the CM agent's QP to the peer's GSI endpoint, as
	 * a RoCEv2 frame like every other (sim/dev/pkt.h) */
	idev_pkt_init(&pkt, buf, IDEV_OP_UD_SEND_ONLY);
	isim_node_mac(ep->node, pkt.smac);
	if (node)
		isim_node_mac(node, pkt.dmac);
	else
		isim_gid_mac(dgid, pkt.dmac); /* behind the UDP fabric */
	memcpy(pkt.sgid, sgid, 16);
	memcpy(pkt.dgid, dgid, 16);
	pkt.hop_limit = 64;
	pkt.sport = ep->sport;
	pkt.dqpn = dqpn & IDEV_PSN_MASK;
	pkt.qkey = IK_CM_GSI_QKEY;
	pkt.src_qpn = ep->qpn;
	pkt.payload = idev_pkt_payload_at(&pkt);
	ik_cm_mad_encode(m, (struct ik_cm_mad *)pkt.payload);
	pkt.paylen = sizeof(struct ik_cm_mad);
	if (idev_pkt_build(&pkt))
		return IFAB_LOST;
	return ifab_send(ep, dgid, pkt.dqpn, buf, pkt.len);
}

int ik_cm_wire_recv(struct ifab_ep *ep, struct ik_cm_msg *m)
{
	uint8_t buf[IDEV_PKT_MAX_HDR + sizeof(struct ik_cm_mad) + 3 +
		    IDEV_ICRC_LEN + 16];
	struct idev_pkt pkt;
	ssize_t n = ifab_recv(ep, buf, sizeof(buf));

	if (n <= 0)
		return (int)n;
	if ((size_t)n > sizeof(buf))
		return -EAGAIN; /* truncated: not ours */
	/* the parser checks every length, the checksum and the ICRC */
	if (idev_pkt_parse(&pkt, buf, (size_t)n) ||
	    pkt.opcode != IDEV_OP_UD_SEND_ONLY || pkt.qkey != IK_CM_GSI_QKEY)
		return -EAGAIN;
	if (ik_cm_mad_decode(pkt.payload, pkt.paylen, m))
		return -EAGAIN;
	return 1;
}
