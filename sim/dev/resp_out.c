// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: the responder's output queue - READ responses, and the
 * ACKs, NAKs and atomic ACKs behind them, sent as the wire takes them.
 *
 * A READ request of N bytes asks for ceil(N / MTU) response packets with
 * no acknowledgement in between: the requester's window does not pace
 * them.  Handed to the fabric in one burst (a 1 GiB READ is a million
 * frames), they overflowed the endpoint's backlog and were dropped as by
 * a congested switch; the requester then timed out and asked again, and a
 * big READ ran at a few MB/s.  A RoCE fabric with PFC pauses the sender
 * instead, so the NIC emits a response only when the link takes it.  Here
 * the same: responses are generated one at a time while the endpoint has
 * nothing waiting (ifab_backlogged); when the transport pushes back, the
 * rest waits in this queue, as a position in the READ (no copies), and the
 * engine resumes it when the endpoint drains (timer.c, engine.c).
 *
 * Responses the responder sends while READ responses are queued (the ACK
 * of a later WRITE, a NAK, an atomic's result) wait behind them: the
 * fabric keeps order, and an ACK overtaking a READ's data would tell the
 * requester the data was lost.  Consecutive plain ACKs coalesce (the
 * newest acknowledges everything before it).  The queue is bounded by
 * max_dest_rd_atomic READs and what each leaves behind it; if it is full
 * anyway, everything queued is sent at once, as before.
 */
#include "../common/trace.h"
#include "qp.h"
#include "mem.h"

/* packets emitted per call, so one QP's READ does not hold the device
 * lock for long; the engine comes back at once while the wire takes more */
#define RESP_OUT_BURST 256

void idev_resp_pkt(struct idev_qp *d, struct idev_pkt *pkt, uint8_t *buf,
		   uint8_t opcode, uint32_t psn)
{
	idev_qp_pkt_start(d, pkt, buf, opcode, &d->av, d->dest_qpn);
	pkt->psn = psn;
	pkt->msn = d->resp.msn & IDEV_PSN_MASK;
	pkt->syndrome = idev_aeth_nak(IDEV_NAK_NONE, 0);
}

static struct idev_resp_job *out_push(struct idev_qp *d)
{
	struct idev_resp_out *o = &d->resp.out;
	struct idev_resp_job *j;

	if (o->count == IDEV_RESP_OUT_MAX)
		idev_resp_out_run(d, true); /* full: everything goes now */
	j = &o->job[(o->head + o->count++) % IDEV_RESP_OUT_MAX];
	memset(j, 0, sizeof(*j));
	return j;
}

static void out_pop(struct idev_resp_out *o)
{
	o->head = (o->head + 1) % IDEV_RESP_OUT_MAX;
	o->count--;
}

void idev_resp_out_small(struct idev_qp *d, const struct idev_pkt *pkt)
{
	struct idev_resp_out *o = &d->resp.out;
	struct idev_resp_job *j;
	bool ack = pkt->opcode == IDEV_OP_RC_ACK &&
		   idev_aeth_kind(pkt->syndrome) == IDEV_NAK_NONE;

	if (!o->count) {
		idev_qp_xmit(d, (struct idev_pkt *)pkt);
		return;
	}
	j = &o->job[(o->head + o->count - 1) % IDEV_RESP_OUT_MAX];
	if (!(ack && j->opcode == IDEV_OP_RC_ACK &&
	      idev_aeth_kind(j->syndrome) == IDEV_NAK_NONE))
		j = out_push(d);
	j->opcode = pkt->opcode;
	j->psn = pkt->psn;
	j->msn = pkt->msn;
	j->syndrome = pkt->syndrome;
	j->orig = pkt->orig;
}

void idev_resp_out_read(struct idev_qp *d, uint32_t psn, uint32_t rkey,
			uint64_t va, uint64_t len)
{
	struct idev_resp_out *o = &d->resp.out;
	uint32_t mtu = idev_qp_mtu(d);
	struct idev_resp_job *j;

	/* A request for PSNs a queued READ still owes replaces the rest of
	 * it: the requester went back (a lossy wire) and asks anew. */
	for (unsigned int i = 0; i < o->count; i++) {
		j = &o->job[(o->head + i) % IDEV_RESP_OUT_MAX];
		if (j->opcode == IDEV_OP_RC_READ_REQ && j->npkts &&
		    idev_psn_diff(idev_psn_add(j->psn, j->npkts), psn) > 0)
			j->npkts = 0;
	}
	j = out_push(d);
	j->opcode = IDEV_OP_RC_READ_REQ; /* marks a READ's responses */
	j->psn = psn;
	j->msn = d->resp.msn;
	j->rkey = rkey;
	j->va = va;
	j->left = len;
	j->npkts = len ? (uint32_t)((len + mtu - 1) / mtu) : 1;
	j->first = true;
	idev_resp_out_run(d, false);
}

/* The next response of a READ; false if its memory went away (the rest
 * of the READ is dropped: the requester times out, as on a lost frame). */
static bool out_read_one(struct idev_qp *d, struct idev_resp_job *j)
{
	uint8_t buf[IDEV_PKT_MAX_SIZE];
	uint32_t mtu = idev_qp_mtu(d);
	uint32_t chunk = j->left < mtu ? (uint32_t)j->left : mtu;
	struct idev_pkt pkt;
	uint8_t *host = NULL;
	uint8_t op;

	if (chunk && idev_resp_resolve(d, j->rkey, j->va, chunk,
				       IBV_ACCESS_REMOTE_READ, &host)) {
		if (isim_trace_enabled())
			isim_trace(ISIM_TR_PKT,
				   "qp %u READ memory gone at psn %u: the "
				   "rest of the READ is not sent",
				   d->qpn, j->psn);
		j->npkts = 0;
		return false;
	}
	op = j->npkts == 1 ? (j->first ? IDEV_OP_RC_READ_RESP_ONLY :
					 IDEV_OP_RC_READ_RESP_LAST) :
	     j->first	   ? IDEV_OP_RC_READ_RESP_FIRST :
			     IDEV_OP_RC_READ_RESP_MIDDLE;
	idev_resp_pkt(d, &pkt, buf, op, j->psn);
	pkt.msn = j->msn & IDEV_PSN_MASK;
	pkt.payload = idev_pkt_payload_at(&pkt);
	if (chunk)
		memcpy(pkt.payload, host, chunk);
	pkt.paylen = chunk;
	idev_qp_xmit(d, &pkt);
	j->psn = idev_psn_add(j->psn, 1);
	j->va += chunk;
	j->left -= chunk;
	j->npkts--;
	j->first = false;
	return true;
}

static void out_small_one(struct idev_qp *d, const struct idev_resp_job *j)
{
	uint8_t buf[IDEV_PKT_MAX_HDR + IDEV_ICRC_LEN];
	struct idev_pkt pkt;

	idev_resp_pkt(d, &pkt, buf, j->opcode, j->psn);
	pkt.msn = j->msn;
	pkt.syndrome = j->syndrome;
	pkt.orig = j->orig;
	idev_qp_xmit(d, &pkt);
}

bool idev_resp_out_run(struct idev_qp *d, bool force)
{
	struct idev_resp_out *o = &d->resp.out;
	unsigned int budget = RESP_OUT_BURST;
	struct idev_resp_job *j;

	while (o->count) {
		/* paused: the engine resumes when the endpoint drains */
		if (!force && (ifab_backlogged(&d->ep) || !budget))
			return !ifab_backlogged(&d->ep);
		j = &o->job[o->head];
		if (j->opcode == IDEV_OP_RC_READ_REQ) {
			if (j->npkts) {
				budget -= out_read_one(d, j);
				continue;
			}
		} else {
			out_small_one(d, j);
			budget--;
		}
		out_pop(o);
	}
	return false;
}
