// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: the hardware counters of a message the direct path's
 * executor moved (direct_exec.c), as its frames would have counted them.
 */
#include "direct_priv.h"
#include "pkt.h"
#include "qp.h"

/* Frames of one direction: a count and their bytes. */
struct dx_frames {
	uint64_t n, bytes;
};

static void dx_frame(struct dx_frames *f, struct idev_pkt *t, uint8_t op,
		     uint32_t paylen)
{
	t->opcode = op;
	t->paylen = paylen;
	f->n++;
	f->bytes += idev_pkt_frame_len(t);
}

/*
 * The hardware counters of a message the executor moved: the frames the
 * packet path would have sent for it (requests by path MTU, the ACKs the
 * responder sends for the packets that ask for one, READ responses, the
 * atomic ACK), counted on our NIC and on the responder's ('peer', NULL:
 * not counted), so the counters do not depend on the path.  Both
 * directions are sized with our path (VLAN tag, IP version) and MTU: the
 * responder's QP has the same ones on a connection the packet path
 * works on.  ACKs asked for by a full window (IDEV_REQ_WINDOW) are
 * timing on the packet path: not modelled.
 */
void idev_direct_count(struct idev_qp *d, const struct idev_swqe *s,
		       uint64_t *peer)
{
	uint32_t mtu = idev_qp_mtu(d), n = s->npkts, len = s->w.length;
	struct dx_frames req = { 0 }, rsp = { 0 };
	struct idev_pkt t;

	idev_qp_pkt_start(d, &t, NULL, 0, &d->av, d->dest_qpn);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t chunk = len - i * mtu < mtu ? len - i * mtu : mtu;
		bool first = !i, last = i + 1 == n;

		switch (s->w.op->op) {
		case IDEV_WR_RDMA_READ:
			if (first)
				dx_frame(&req, &t, IDEV_OP_RC_READ_REQ, 0);
			dx_frame(&rsp, &t,
				 first && last ? IDEV_OP_RC_READ_RESP_ONLY :
				 first	       ? IDEV_OP_RC_READ_RESP_FIRST :
				 last	       ? IDEV_OP_RC_READ_RESP_LAST :
						 IDEV_OP_RC_READ_RESP_MIDDLE,
				 chunk);
			break;
		case IDEV_WR_ATOMIC_CS:
		case IDEV_WR_ATOMIC_FA:
			dx_frame(&req, &t,
				 s->w.op->op == IDEV_WR_ATOMIC_CS ?
					 IDEV_OP_RC_CMP_SWAP :
					 IDEV_OP_RC_FETCH_ADD,
				 0);
			dx_frame(&rsp, &t, IDEV_OP_RC_ATOMIC_ACK, 0);
			break;
		default:
			dx_frame(&req, &t,
				 idev_req_seg_opcode(first, last, &s->w),
				 chunk);
			if (last || i % IDEV_REQ_ACKREQ_EVERY ==
					    IDEV_REQ_ACKREQ_EVERY - 1)
				dx_frame(&rsp, &t, IDEV_OP_RC_ACK, 0);
			break;
		}
	}
	isim_hwstat_frame(d->dev->stats, ISIM_HWS_TX_PKTS, req.n, req.bytes);
	isim_hwstat_frame(d->dev->stats, ISIM_HWS_RX_PKTS, rsp.n, rsp.bytes);
	isim_hwstat_frame(peer, ISIM_HWS_RX_PKTS, req.n, req.bytes);
	isim_hwstat_frame(peer, ISIM_HWS_TX_PKTS, rsp.n, rsp.bytes);
}
