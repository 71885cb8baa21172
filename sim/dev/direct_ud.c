// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: UD SENDs on the direct path (direct.h), between QPs
 * of this process (one NIC or two of --nics).
 *
 * A UD QP names its destination per work request (the AH's GID and a
 * QPN), so there is no hello to attach a peer's port to: a destination in
 * this process is found by the GID of one of its devices and a UD QP of
 * that number (QP numbers are the node's: a number this device does not
 * have belongs to another process, direct_udx.c).  The
 * frame the packet path would send is built as always and handed to the
 * destination device's own receive code (idev_rx) in this thread,
 * instead of the fabric: the qkey check, the 40-byte GRH area with the
 * frame's IP header, the IPv4 bit and the SL in the CQE, the source QP,
 * drops and errors are the responder's, so the outcome is the packet
 * path's by construction; only the socket and the engine's wake-up are
 * skipped.  A destination whose RQ looks empty gets the frame as a
 * packet: a receive doorbell may be waiting for its engine.  The
 * destination device is held as for RC executors: our own
 * (already in its locked section) or another one whose port lock was
 * only tried, its shared indices loaded and stored around the receive
 * as its own enter and leave do.
 *
 * Frames of one QP to one destination arrive in the order sent, as on a
 * wire.  Once one went as a packet (a port busy, an RQ that looked
 * empty, a frame its receiver decides), a later one goes directly only
 * when our backlog is empty and so is the destination QP's receive
 * socket: its engine takes frames from there one at a time, under the
 * port lock the direct path holds, so nothing of ours is on its way.
 * One ioctl per frame, for QPs that ever sent a packet.
 */
#include <stdbool.h>
#include <sys/ioctl.h>

#include "../common/hwstats.h"
#include "../common/sys.h"
#include "../common/trace.h"
#include "direct.h"
#include "direct_priv.h"
#include "pkt.h"
#include "qp.h"

bool idev_direct_ud_in_order(const struct idev_qp *d, int fd)
{
	int queued = 1;

	if (!d->ud_pkts)
		return true;
	return fd >= 0 && !ifab_backlogged(&d->ep) &&
	       !isim_sys_ioctl(fd, FIONREAD, &queued) && !queued;
}

bool idev_direct_ud(struct idev_qp *d, struct idev_pkt *pkt)
{
	struct idev_direct *x = d->dev->direct;
	struct idev_qp *rd;
	struct idev *own;
	bool built;

	if (!x || x->closed || !x->held) {
		d->ud_pkts = true;
		return false;
	}
	own = idev_direct_self_ud(d->dev, pkt->dgid, pkt->dqpn);
	if (!own) /* in another process of this host? (direct_udx.c) */
		return idev_direct_ud_other(d, pkt);
	if (own != d->dev)
		idev_direct_sync_in(own);
	/* An empty RQ may only look empty: a receive doorbell another
	 * thread rang may wait for the engine, which applies it before it
	 * reads the frame.  As packets, then (a UD drop is final). */
	rd = idev_qp_lookup(own, pkt->dqpn);
	built = rd && rd->rq.cons != rd->rq.db_prod &&
		idev_direct_ud_in_order(d, rd->ep.fd) &&
		idev_pkt_build(pkt) == 0;
	if (built) {
		if (isim_trace_enabled())
			isim_trace(ISIM_TR_DIRECT,
				   "qp %u -> %u/%u: UD %s len %u", d->qpn,
				   isim_gid_to_node(pkt->dgid), pkt->dqpn,
				   idev_pkt_opname(pkt->opcode), pkt->paylen);
		isim_hwstat_frame(d->dev->stats, ISIM_HWS_TX_PKTS, 1, pkt->len);
		idev_rx(own, pkt->dqpn, pkt->buf, pkt->len);
	} else {
		d->ud_pkts = true;
	}
	if (own != d->dev) {
		idev_direct_sync_out(own);
		idev_dseg_unlock(own->direct->hdr);
	}
	return built;
}
