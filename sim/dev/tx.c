// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: transmit - the MTUs a QP sends with, the start of a
 * packet from a QP's path or a UD address handle, and the frame built and
 * handed to the fabric (with its trace line).  The requester and the
 * responder (ACKs, READ responses) send through here.
 */
#include <string.h>

#include "../common/hwstats.h"
#include "../common/trace.h"
#include "qp.h"

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

	if (idev_pkt_build(pkt) == 0) {
		isim_hwstat_frame(d->dev->stats, ISIM_HWS_TX_PKTS, 1, pkt->len);
		r = ifab_send(&d->ep, pkt->dgid, pkt->dqpn, pkt->buf, pkt->len);
	}
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
