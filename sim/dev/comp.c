// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: the completer of RC QPs (rxe_comp.c's role): ACKs,
 * NAKs, READ responses and atomic ACKs coming back for our requests, and
 * the send-side CQEs they produce.
 *
 * Completion rules (docs/device-contract.md §7.2): SEND and WRITE messages are
 * complete when an ACK covers their last PSN; READ and atomics only when
 * their response data arrived (an ACK beyond them means the responses were
 * lost: go back).  Complete WQEs retire strictly in order from una, and
 * each batch produces one SEND_MSN CQE whose msg_msn counts the remote
 * WQEs completed since create/reset: cumulative, coalescing, strictly
 * advancing.
 */
#include <endian.h>
#include <string.h>

#include "../common/trace.h"
#include "cqe.h"
#include "qp.h"
#include "mem.h"

/* Retire complete WQEs from una, in order; one MSN CQE for the batch. */
void idev_comp_retire(struct idev_qp *d)
{
	struct idev_req *r = &d->req;
	uint16_t end = idev_req_end(d);
	struct ionic_cqe cqe;
	struct idev_swqe *s;
	bool msn = false;

	while (r->una != end && d->swqe[r->una].complete) {
		s = &d->swqe[r->una];
		if (s->remote) {
			r->msn_done = s->seq + 1;
			msn = true;
		}
		r->una = idev_sq_next(d, r->una);
	}
	if (msn) {
		idev_cqe_msn(&cqe, d->qpn, r->msn_done, IONIC_STS_OK);
		idev_qp_cqe(d, true, &cqe, false);
	}
	idev_req_check_err(d);
	idev_qp_check_drained(d);
}

/* The first WQE from una that is not complete yet, or end. */
static uint16_t comp_first_open(const struct idev_qp *d)
{
	uint16_t slot, end = idev_req_end(d);

	for (slot = d->req.una; slot != end; slot = idev_sq_next(d, slot))
		if (!d->swqe[slot].complete)
			break;
	return slot;
}

/* The message that owns 'psn', or end. */
static uint16_t comp_find(const struct idev_qp *d, uint32_t psn)
{
	uint16_t slot, end = idev_req_end(d);
	const struct idev_swqe *s;
	int32_t off;

	for (slot = d->req.una; slot != end; slot = idev_sq_next(d, slot)) {
		s = &d->swqe[slot];
		off = idev_psn_diff(psn, s->first_psn);
		if (off >= 0 && (uint32_t)off < s->npkts)
			break;
	}
	return slot;
}

/* Progress: the retry budgets are per unacknowledged request (IBTA). */
static void comp_progress(struct idev_qp *d)
{
	d->req.retrying = false;
	d->req.retry_left = d->retry_cnt;
	d->req.rnr_left = d->rnr_retry;
	if (idev_psn_diff(d->req.snd_psn, d->req.una_psn) < 0)
		idev_req_seek(d, d->req.una_psn);
	idev_req_arm_timer(d);
}

/* The responder has every request up to and including 'psn'. */
static void comp_ack(struct idev_qp *d, uint32_t psn)
{
	struct idev_req *r = &d->req;
	uint16_t slot, end = idev_req_end(d);
	struct idev_swqe *s;
	uint32_t expect;

	/* Older than what we know (duplicate) or never sent (bogus). */
	if (idev_psn_diff(psn, r->una_psn) < 0 ||
	    idev_psn_diff(psn, r->next_psn) >= 0)
		return;
	for (slot = r->una; slot != end; slot = idev_sq_next(d, slot)) {
		s = &d->swqe[slot];
		if (s->complete)
			continue;
		if (!s->npkts)
			break; /* a local operation not executed yet */
		if (idev_swqe_needs_resp(s)) {
			expect = idev_psn_add(s->first_psn, s->rcvd);
			if (idev_psn_diff(psn, expect) >= 0) {
				/* The responder is past responses we never
				 * got: ask again (an implied NAK), once. */
				if (r->retrying && r->retry_psn == expect)
					return;
				if (!r->retry_left) {
					idev_req_fail(d, slot,
						      IONIC_STS_RETRY_EXCEEDED);
					return;
				}
				r->retry_left--;
				r->retrying = true;
				r->retry_psn = expect;
				r->una_psn = expect;
				idev_req_go_back(d, expect);
				idev_comp_retire(d);
				idev_req_arm_timer(d);
				return;
			}
			break;
		}
		if (idev_psn_diff(idev_psn_add(s->first_psn, s->npkts - 1),
				  psn) > 0)
			break;
		s->complete = true;
	}
	r->una_psn = idev_psn_add(psn, 1);
	comp_progress(d);
	idev_comp_retire(d);
}

static void comp_nak(struct idev_qp *d, struct idev_pkt *pkt, int kind)
{
	struct idev_req *r = &d->req;
	uint32_t psn = pkt->psn;
	uint16_t slot;

	if (idev_psn_diff(psn, r->una_psn) < 0 ||
	    idev_psn_diff(psn, r->next_psn) >= 0)
		return;
	/* A NAK acknowledges everything before the PSN it names. */
	if (psn != r->una_psn)
		comp_ack(d, idev_psn_add(psn, IDEV_PSN_MASK));
	if (d->state != IBV_QPS_RTS && d->state != IBV_QPS_SQD)
		return;
	slot = comp_find(d, psn);
	if (slot == idev_req_end(d))
		return;

	switch (kind) {
	case IDEV_NAK_RNR:
		d->cnt.rnr_naks_rx++;
		/* already waiting: a copy, or a NAK to a packet sent before */
		if (r->rnr_wait)
			break;
		if (d->rnr_retry != 7) { /* 7: retry forever */
			if (!r->rnr_left) {
				idev_req_fail(d, slot,
					      IONIC_STS_RNR_RETRY_EXCEEDED);
				return;
			}
			r->rnr_left--;
		}
		idev_req_go_back(d, psn);
		r->rnr_wait = true;
		r->deadline =
			idev_now_ns() + idev_rnr_delay_ns(pkt->syndrome & 0x1f);
		break;
	case IDEV_NAK_SEQ:
		/* a copy of the NAK we are already acting on */
		if (r->retrying && r->retry_psn == psn)
			break;
		if (!r->retry_left) {
			idev_req_fail(d, slot, IONIC_STS_RETRY_EXCEEDED);
			return;
		}
		r->retry_left--;
		r->retrying = true;
		r->retry_psn = psn;
		idev_req_go_back(d, psn);
		idev_req_xmit(d);
		break;
	case IDEV_NAK_INV_REQ:
		idev_req_fail(d, slot, IONIC_STS_REMOTE_INV_REQ_ERR);
		break;
	case IDEV_NAK_REM_ACC:
		idev_req_fail(d, slot, IONIC_STS_REMOTE_ACC_ERR);
		break;
	case IDEV_NAK_REM_OP:
		idev_req_fail(d, slot, IONIC_STS_REMOTE_OPER_ERR);
		break;
	default:
		break;
	}
}

/*
 * A response (READ data or atomic ACK) for PSN 'psn': it implicitly
 * acknowledges everything before its request, and must be the next one
 * expected for the oldest open message.  Returns that message, or NULL
 * if the packet is to be dropped (duplicate, or an earlier response was
 * lost: the ACK timeout recovers).
 */
static struct idev_swqe *comp_resp_target(struct idev_qp *d, uint32_t psn,
					  enum idev_wr_op want1,
					  enum idev_wr_op want2)
{
	struct idev_req *r = &d->req;
	uint16_t slot = comp_find(d, psn);
	struct idev_swqe *s;

	if (slot == idev_req_end(d))
		return NULL;
	s = &d->swqe[slot];
	if (s->complete || (s->w.op->op != want1 && s->w.op->op != want2) ||
	    psn != idev_psn_add(s->first_psn, s->rcvd))
		return NULL;
	if (s->rcvd == 0 &&
	    idev_psn_diff(idev_psn_add(psn, IDEV_PSN_MASK), r->una_psn) >= 0)
		comp_ack(d, idev_psn_add(psn, IDEV_PSN_MASK));
	if (comp_first_open(d) != slot)
		return NULL;
	return s;
}

static void comp_read_resp(struct idev_qp *d, struct idev_pkt *pkt)
{
	uint32_t psn = pkt->psn, mtu = idev_qp_mtu(d);
	uint32_t mask = idev_pkt_opmask(pkt->opcode);
	struct idev_swqe *s;
	enum ionic_status st;
	uint32_t want;
	uint64_t off;

	s = comp_resp_target(d, psn, IDEV_WR_RDMA_READ, IDEV_WR_RDMA_READ);
	if (!s)
		return;
	/*
	 * Responses to a (re)issued request run FIRST .. LAST again, and on a
	 * wire that duplicates and reorders, responses to an earlier request
	 * for the same PSNs may still come: the data of a PSN is the same
	 * whichever request it answers.  So a response is right when it
	 * carries the bytes of its PSN and says LAST exactly at the last
	 * PSN; only the message's first packet must say FIRST.
	 */
	off = (uint64_t)s->rcvd * mtu;
	want = s->w.length - off < mtu ? s->w.length - off : mtu;
	if ((s->rcvd == 0 && !(mask & IDEV_PKT_M_FIRST)) ||
	    !!(mask & IDEV_PKT_M_LAST) != (s->rcvd + 1 == s->npkts) ||
	    pkt->paylen != want) {
		idev_req_fail(d, (uint16_t)(s - d->swqe),
			      IONIC_STS_BAD_RESP_ERR);
		return;
	}
	st = idev_mem_scatter(d->dev, d->pdid, &s->w, off, pkt->payload, want);
	if (st) {
		idev_req_fail(d, (uint16_t)(s - d->swqe), st);
		return;
	}
	s->rcvd++;
	d->req.una_psn = idev_psn_add(psn, 1);
	if (s->rcvd == s->npkts)
		s->complete = true;
	comp_progress(d);
	idev_comp_retire(d);
}

static void comp_atomic_ack(struct idev_qp *d, struct idev_pkt *pkt)
{
	uint32_t psn = pkt->psn;
	uint64_t orig = pkt->orig;
	struct idev_swqe *s;
	enum ionic_status st;
	uint8_t *host;

	s = comp_resp_target(d, psn, IDEV_WR_ATOMIC_CS, IDEV_WR_ATOMIC_FA);
	if (!s)
		return;
	/* The original value lands in host byte order (as rxe does). */
	st = idev_mem_resolve(d->dev, d->pdid, s->w.result.lkey, s->w.result.va,
			      IDEV_ATOMIC_SIZE, IBV_ACCESS_LOCAL_WRITE, &host);
	if (st) {
		idev_req_fail(d, (uint16_t)(s - d->swqe), st);
		return;
	}
	memcpy(host, &orig, sizeof(orig));
	s->rcvd = 1;
	s->complete = true;
	d->req.una_psn = idev_psn_add(psn, 1);
	comp_progress(d);
	idev_comp_retire(d);
}

void idev_comp_rx(struct idev_qp *d, struct idev_pkt *pkt)
{
	uint8_t op = pkt->opcode;
	int kind;

	/* RoCEv2 names no source QP for RC: the path's GID is the check. */
	if (d->type != IBV_QPT_RC || !d->swqe ||
	    (d->state != IBV_QPS_RTS && d->state != IBV_QPS_SQD) ||
	    !idev_qp_from_peer(d, pkt)) {
		d->cnt.drops++;
		return;
	}
	switch (op) {
	case IDEV_OP_RC_ACK:
		kind = idev_aeth_kind(pkt->syndrome);
		if (kind < 0) {
			d->cnt.drops++; /* reserved syndrome */
			return;
		}
		if (kind != IDEV_NAK_NONE) {
			comp_nak(d, pkt, kind);
			return;
		}
		comp_ack(d, pkt->psn);
		break;
	case IDEV_OP_RC_ATOMIC_ACK:
		comp_atomic_ack(d, pkt);
		break;
	case IDEV_OP_RC_READ_RESP_FIRST:
	case IDEV_OP_RC_READ_RESP_MIDDLE:
	case IDEV_OP_RC_READ_RESP_LAST:
	case IDEV_OP_RC_READ_RESP_ONLY:
		comp_read_resp(d, pkt);
		break;
	default:
		d->cnt.drops++;
		return;
	}
	if (d->state == IBV_QPS_RTS || d->state == IBV_QPS_SQD)
		idev_req_xmit(d);
}
