// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: the completer of RC QPs (rxe_comp.c's role): ACKs,
 * NAKs, READ responses and atomic ACKs coming back for our requests, and
 * the send-side CQEs they produce.
 *
 * Completion rules (ionic-device.md §7.2): SEND and WRITE messages are
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
#include "dqp.h"
#include "mem.h"

/* Retire complete WQEs from una, in order; one MSN CQE for the batch. */
void isim_comp_retire(struct isim_dev_qp *d)
{
	struct isim_req *r = &d->req;
	uint16_t end = isim_req_end(d);
	struct ionic_cqe cqe;
	struct isim_swqe *s;
	bool msn = false;

	while (r->una != end && d->swqe[r->una].complete) {
		s = &d->swqe[r->una];
		if (s->remote) {
			r->msn_done = s->seq + 1;
			msn = true;
		}
		r->una = isim_sq_next(d, r->una);
	}
	if (msn) {
		isim_cqe_msn(&cqe, d->qp->qpn, r->msn_done, IONIC_STS_OK);
		isim_dqp_cqe(d, true, &cqe, false);
	}
	isim_req_check_err(d);
	isim_dqp_check_drained(d);
}

/* The first WQE from una that is not complete yet, or end. */
static uint16_t comp_first_open(const struct isim_dev_qp *d)
{
	uint16_t slot, end = isim_req_end(d);

	for (slot = d->req.una; slot != end; slot = isim_sq_next(d, slot))
		if (!d->swqe[slot].complete)
			break;
	return slot;
}

/* The message that owns 'psn', or end. */
static uint16_t comp_find(const struct isim_dev_qp *d, uint32_t psn)
{
	uint16_t slot, end = isim_req_end(d);
	const struct isim_swqe *s;
	int32_t off;

	for (slot = d->req.una; slot != end; slot = isim_sq_next(d, slot)) {
		s = &d->swqe[slot];
		off = ifab_psn_diff(psn, s->first_psn);
		if (off >= 0 && (uint32_t)off < s->npkts)
			break;
	}
	return slot;
}

/* Progress: the retry budgets are per unacknowledged request (IBTA). */
static void comp_progress(struct isim_dev_qp *d)
{
	d->req.retry_left = d->qp->retry_cnt;
	d->req.rnr_left = d->qp->rnr_retry;
	if (ifab_psn_diff(d->req.snd_psn, d->req.una_psn) < 0)
		isim_req_seek(d, d->req.una_psn);
	isim_req_arm_timer(d);
}

/* The responder has every request up to and including 'psn'. */
static void comp_ack(struct isim_dev_qp *d, uint32_t psn)
{
	struct isim_req *r = &d->req;
	uint16_t slot, end = isim_req_end(d);
	struct isim_swqe *s;
	uint32_t expect;

	/* Older than what we know (duplicate) or never sent (bogus). */
	if (ifab_psn_diff(psn, r->una_psn) < 0 ||
	    ifab_psn_diff(psn, r->next_psn) >= 0)
		return;
	for (slot = r->una; slot != end; slot = isim_sq_next(d, slot)) {
		s = &d->swqe[slot];
		if (s->complete)
			continue;
		if (!s->npkts)
			break; /* a local operation not executed yet */
		if (isim_swqe_needs_resp(s)) {
			expect = ifab_psn_add(s->first_psn, s->rcvd);
			if (ifab_psn_diff(psn, expect) >= 0) {
				/* The responder is past responses we never
				 * got: ask again (an implied NAK). */
				if (!r->retry_left) {
					isim_req_fail(d, slot,
						      IONIC_STS_RETRY_EXCEEDED);
					return;
				}
				r->retry_left--;
				r->una_psn = expect;
				isim_req_go_back(d, expect);
				isim_comp_retire(d);
				isim_req_arm_timer(d);
				return;
			}
			break;
		}
		if (ifab_psn_diff(ifab_psn_add(s->first_psn, s->npkts - 1),
				  psn) > 0)
			break;
		s->complete = true;
	}
	r->una_psn = ifab_psn_add(psn, 1);
	comp_progress(d);
	isim_comp_retire(d);
}

static void comp_nak(struct isim_dev_qp *d, struct ifab_pkt *pkt)
{
	struct isim_req *r = &d->req;
	struct isim_qp *qp = d->qp;
	uint32_t psn = ifab_pkt_psn(pkt);
	uint8_t kind = ifab_pkt_hdr(pkt)->nak;
	uint16_t slot;

	if (ifab_psn_diff(psn, r->una_psn) < 0 ||
	    ifab_psn_diff(psn, r->next_psn) >= 0)
		return;
	/* A NAK acknowledges everything before the PSN it names. */
	if (psn != r->una_psn)
		comp_ack(d, ifab_psn_add(psn, IFAB_PSN_MASK));
	if (qp->state != IBV_QPS_RTS && qp->state != IBV_QPS_SQD)
		return;
	slot = comp_find(d, psn);
	if (slot == isim_req_end(d))
		return;

	switch (kind) {
	case IFAB_NAK_RNR:
		d->rnr_naks_rx++;
		if (qp->rnr_retry != 7) { /* 7: retry forever */
			if (!r->rnr_left) {
				isim_req_fail(d, slot,
					      IONIC_STS_RNR_RETRY_EXCEEDED);
				return;
			}
			r->rnr_left--;
		}
		isim_req_go_back(d, psn);
		r->rnr_wait = true;
		r->deadline = isim_now_ns() +
			      isim_rnr_delay_ns(ifab_pkt_hdr(pkt)->rnr_timer);
		break;
	case IFAB_NAK_SEQ:
		if (!r->retry_left) {
			isim_req_fail(d, slot, IONIC_STS_RETRY_EXCEEDED);
			return;
		}
		r->retry_left--;
		isim_req_go_back(d, psn);
		isim_req_xmit(d);
		break;
	case IFAB_NAK_INV_REQ:
		isim_req_fail(d, slot, IONIC_STS_REMOTE_INV_REQ_ERR);
		break;
	case IFAB_NAK_REM_ACC:
		isim_req_fail(d, slot, IONIC_STS_REMOTE_ACC_ERR);
		break;
	case IFAB_NAK_REM_OP:
		isim_req_fail(d, slot, IONIC_STS_REMOTE_OPER_ERR);
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
static struct isim_swqe *comp_resp_target(struct isim_dev_qp *d, uint32_t psn,
					  enum isim_wr_op want1,
					  enum isim_wr_op want2)
{
	struct isim_req *r = &d->req;
	uint16_t slot = comp_find(d, psn);
	struct isim_swqe *s;

	if (slot == isim_req_end(d))
		return NULL;
	s = &d->swqe[slot];
	if (s->complete || (s->w.op->op != want1 && s->w.op->op != want2) ||
	    psn != ifab_psn_add(s->first_psn, s->rcvd))
		return NULL;
	if (s->rcvd == 0 &&
	    ifab_psn_diff(ifab_psn_add(psn, IFAB_PSN_MASK), r->una_psn) >= 0)
		comp_ack(d, ifab_psn_add(psn, IFAB_PSN_MASK));
	if (comp_first_open(d) != slot)
		return NULL;
	return s;
}

static void comp_read_resp(struct isim_dev_qp *d, struct ifab_pkt *pkt)
{
	uint32_t psn = ifab_pkt_psn(pkt), mtu = isim_qp_mtu(d->qp);
	uint32_t mask = ifab_pkt_opmask(ifab_pkt_opcode(pkt));
	struct isim_swqe *s;
	enum ionic_status st;
	uint32_t rel, nrel, want;
	uint64_t off;

	s = comp_resp_target(d, psn, ISIM_WR_RDMA_READ, ISIM_WR_RDMA_READ);
	if (!s)
		return;
	/* Responses to a (re)issued request run FIRST .. LAST again. */
	rel = s->rcvd - s->rd_base;
	nrel = s->npkts - s->rd_base;
	off = (uint64_t)s->rcvd * mtu;
	want = s->w.length - off < mtu ? s->w.length - off : mtu;
	if (!!(mask & IFAB_PKT_M_FIRST) != (rel == 0) ||
	    !!(mask & IFAB_PKT_M_LAST) != (rel + 1 == nrel) ||
	    ifab_pkt_paylen(pkt) != want) {
		isim_req_fail(d, (uint16_t)(s - d->swqe),
			      IONIC_STS_BAD_RESP_ERR);
		return;
	}
	st = isim_mem_scatter(d->nic, d->qp->pd, &s->w, off,
			      ifab_pkt_payload(pkt), want);
	if (st) {
		isim_req_fail(d, (uint16_t)(s - d->swqe), st);
		return;
	}
	s->rcvd++;
	d->req.una_psn = ifab_psn_add(psn, 1);
	if (s->rcvd == s->npkts)
		s->complete = true;
	comp_progress(d);
	isim_comp_retire(d);
}

static void comp_atomic_ack(struct isim_dev_qp *d, struct ifab_pkt *pkt)
{
	uint32_t psn = ifab_pkt_psn(pkt);
	uint64_t orig = ifab_pkt_swap_add(pkt);
	struct isim_swqe *s;
	enum ionic_status st;
	uint8_t *host;

	s = comp_resp_target(d, psn, ISIM_WR_ATOMIC_CS, ISIM_WR_ATOMIC_FA);
	if (!s)
		return;
	/* The original value lands in host byte order (as rxe does). */
	st = isim_mem_resolve(d->nic, d->qp->pd, s->w.result.lkey,
			      s->w.result.va, ISIM_ATOMIC_SIZE,
			      IBV_ACCESS_LOCAL_WRITE, &host);
	if (st) {
		isim_req_fail(d, (uint16_t)(s - d->swqe), st);
		return;
	}
	memcpy(host, &orig, sizeof(orig));
	s->rcvd = 1;
	s->complete = true;
	d->req.una_psn = ifab_psn_add(psn, 1);
	comp_progress(d);
	isim_comp_retire(d);
}

void isim_comp_rx(struct isim_dev_qp *d, struct ifab_pkt *pkt)
{
	struct isim_qp *qp = d->qp;
	uint8_t op = ifab_pkt_opcode(pkt);

	if (qp->type != IBV_QPT_RC || !d->swqe ||
	    (qp->state != IBV_QPS_RTS && qp->state != IBV_QPS_SQD) ||
	    ifab_pkt_src_node(pkt) != d->peer_node ||
	    ifab_pkt_src_qpn(pkt) != qp->dest_qpn) {
		d->drops++;
		return;
	}
	switch (op) {
	case IFAB_OP_RC_ACK:
		comp_ack(d, ifab_pkt_psn(pkt));
		break;
	case IFAB_OP_RC_NAK:
		comp_nak(d, pkt);
		return;
	case IFAB_OP_RC_ATOMIC_ACK:
		comp_atomic_ack(d, pkt);
		break;
	case IFAB_OP_RC_READ_RESP_FIRST:
	case IFAB_OP_RC_READ_RESP_MIDDLE:
	case IFAB_OP_RC_READ_RESP_LAST:
	case IFAB_OP_RC_READ_RESP_ONLY:
		comp_read_resp(d, pkt);
		break;
	default:
		d->drops++;
		return;
	}
	if (qp->state == IBV_QPS_RTS || qp->state == IBV_QPS_SQD)
		isim_req_xmit(d);
}
