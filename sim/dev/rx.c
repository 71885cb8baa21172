// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: receive.  A QP's endpoint delivers whole frames; each
 * is parsed (dev/pkt.c: lengths, checksums, the ICRC), checked against
 * the QP it arrived for and handed to the responder (requests) or the
 * completer (ACKs, NAKs, READ responses, atomic ACKs).  The engine thread
 * calls in when an endpoint is readable and before a QP's ACK timer
 * fires; the packet fuzzer drives idev_rx() directly.
 */
#include "../common/hwstats.h"
#include "../common/trace.h"
#include "dev.h"
#include "direct.h"
#include "qp.h"

void idev_rx(struct idev *dev, uint32_t qpn, uint8_t *buf, size_t len)
{
	struct idev_qp *d = idev_qp_lookup(dev, qpn);
	struct idev_pkt pkt;
	int kind;

	/* a hello or notify of the direct path is no frame */
	if (idev_direct_rx(dev, qpn, buf, len))
		return;
	isim_hwstat_frame(dev->stats, ISIM_HWS_RX_PKTS, 1, len);
	if (!d)
		return;
	if (idev_pkt_parse(&pkt, buf, len) || pkt.dqpn != qpn) {
		d->cnt.drops++;
		if (isim_trace_enabled())
			isim_trace(
				ISIM_TR_PKT,
				"rx qp %u: malformed frame (%zu bytes) dropped",
				qpn, len);
		return;
	}
	if (isim_trace_enabled()) {
		/* RC names no source QP: the one it is connected to */
		kind = idev_pkt_opmask(pkt.opcode) & IDEV_PKT_M_AETH ?
			       idev_aeth_kind(pkt.syndrome) :
			       0;
		isim_trace(ISIM_TR_PKT,
			   "rx %s qp %u <- %u/%u psn %u msn %u len %u nak %d",
			   idev_pkt_opname(pkt.opcode), qpn,
			   isim_gid_to_node(pkt.sgid),
			   idev_pkt_opmask(pkt.opcode) & IDEV_PKT_M_UD ?
				   pkt.src_qpn :
				   d->dest_qpn,
			   pkt.psn, pkt.msn, pkt.paylen, kind);
	}
	if (idev_pkt_opmask(pkt.opcode) & IDEV_PKT_M_REQ)
		idev_resp_rx(d, &pkt);
	else
		idev_comp_rx(d, &pkt);
	/* The QP may have been reset/errored, never freed, here. */
}

int idev_rx_batch(struct idev *dev, uint32_t qpn)
{
	static __thread uint8_t buf[IDEV_PKT_MAX_SIZE + 64];
	struct idev_qp *d = idev_qp_lookup(dev, qpn);
	ssize_t n;
	int i;

	if (!d)
		return 0;
	dev->rx_may_pop = true;
	for (i = 0; i < IDEV_RX_BATCH; i++) {
		n = ifab_recv(&d->ep, buf, sizeof(buf));
		if (n <= 0)
			break;
		/* a frame longer than the buffer was truncated */
		idev_rx(dev, qpn, buf, (size_t)n > sizeof(buf) ? 0 : n);
	}
	dev->rx_may_pop = false;
	return i;
}
