// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: the requester (send side) of RC and UD QPs, including
 * what rxe calls the completer: ACK/NAK processing, retransmission, RNR
 * waits and the send-side CQEs.
 *
 * RC: each fetched WQE becomes a message of ceil(len / path MTU) packets
 * with consecutive PSNs starting at sq_psn.  At most ISIM_REQ_WINDOW
 * packets are unacknowledged.  An ACK for PSN p completes every message
 * whose last packet is <= p and produces one SEND_MSN CQE carrying the
 * count of remote WQEs completed since create/reset (ionic-device.md
 * §7.2): cumulative, coalescing, strictly advancing.  Recovery is
 * go-back-N from the oldest unacknowledged PSN.
 *
 * UD: one packet per WQE and one SEND_NPG CQE per WQE, signalled or not
 * (§7.3): the host completes its SQ strictly in order and waits for it.
 *
 * A local error (bad WQE, key, length) completes that slot with an NPG
 * error CQE and moves the QP to ERR.  On RC it waits until every earlier
 * message is acknowledged, so the host sees completions in order.
 */
#include <endian.h>
#include <string.h>

#include "../common/trace.h"
#include "cqe.h"
#include "dqp.h"
#include "mem.h"

/* Unacknowledged packets in flight per QP: a window of 4 KiB packets fits
 * the fabric send buffer, so a connected pair rarely backs up. */
#define ISIM_REQ_WINDOW 64
/* Ask for an ACK at least this often inside long messages. */
#define ISIM_REQ_ACKREQ_EVERY 16
/* rnr_retry value meaning "retry forever" (IBTA). */
#define ISIM_RNR_INFINITE 7

/* IBTA RNR NAK timer field -> microseconds (table 45). */
static const uint32_t rnr_timer_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

/* Local ACK timeout: 4.096 us * 2^timeout (0 = infinite).  Clamped to at
 * least 10 ms (an emulated fabric has scheduling jitter far above the
 * microsecond values) and at most 60 s. */
static uint64_t req_timeout_ns(const struct isim_qp *qp)
{
	uint64_t ns;

	if (!qp->timeout)
		return 0;
	ns = 4096ull << (qp->timeout & 31);
	if (ns < 10000000ull)
		ns = 10000000ull;
	if (ns > 60000000000ull)
		ns = 60000000000ull;
	return ns;
}

static inline uint16_t sq_next(const struct isim_dev_qp *d, uint16_t slot)
{
	return (slot + 1) & d->qp->sq.desc.mask;
}

/* Where fetching stopped: the pending local error, or the consumer. */
static inline uint16_t req_end(const struct isim_dev_qp *d)
{
	return d->req.err_pending ? d->req.err_slot : d->qp->sq.cons;
}

static inline bool req_outstanding(const struct isim_dev_qp *d)
{
	return isim_psn_diff(d->req.snd_psn, d->req.una_psn) > 0;
}

void isim_req_reset(struct isim_dev_qp *d)
{
	memset(&d->req, 0, sizeof(d->req));
}

void isim_req_start(struct isim_dev_qp *d)
{
	struct isim_req *r = &d->req;
	struct isim_qp *qp = d->qp;

	r->next_psn = r->una_psn = r->snd_psn = qp->sq_psn & ISIM_PSN_MASK;
	r->una = r->snd = qp->sq.cons;
	r->snd_idx = 0;
	r->retry_left = qp->retry_cnt;
	r->rnr_left = qp->rnr_retry;
}

/* Snapshot, decode and check the WQE in 'slot'. */
static enum ionic_status req_snapshot(struct isim_dev_qp *d, uint16_t slot,
				      struct isim_swqe *s)
{
	struct isim_qp *qp = d->qp;
	uint8_t *raw = d->sq_copy + (size_t)slot * d->sq_stride;
	enum ionic_status st;

	isim_wqe_fetch(&qp->sq, slot, raw);
	st = isim_wqe_decode_sq(&s->w, raw, d->sq_stride, d->nic->prof.version,
				qp->type);
	if (!st && (s->w.op->flags & ISIM_WRF_GATHER))
		st = isim_mem_check_sgl(d->nic, qp->pd, &s->w, 0);
	isim_wqe_trace("sq", qp->qpn, slot, &s->w, st);
	d->wqes++;
	return st;
}

/* Complete 'slot' with an error and move the QP to ERR (§12.1): remote
 * WQEs on an MSN CQE naming them (msg_msn = seq + 1), others on NPG. */
static void req_fail(struct isim_dev_qp *d, uint16_t slot, enum ionic_status st)
{
	struct isim_swqe *s = &d->swqe[slot];
	struct ionic_cqe cqe;

	if (s->remote)
		isim_cqe_msn(&cqe, d->qp->qpn, s->seq + 1, st);
	else
		isim_cqe_npg(&cqe, d->qp->qpn, s->w.wqe_idx, st);
	isim_dqp_cqe(d, true, &cqe, true);
	d->sq_errored = true;
	isim_dqp_error(d, 0);
}

/* A pending local error is reported once everything before it is done. */
static void req_check_err(struct isim_dev_qp *d)
{
	if (d->req.err_pending && d->req.una == d->req.err_slot &&
	    d->qp->state != IBV_QPS_ERR) {
		d->swqe[d->req.err_slot].remote = false;
		req_fail(d, d->req.err_slot, d->req.err_status);
	}
}

static void req_set_err(struct isim_dev_qp *d, uint16_t slot, enum ionic_status st)
{
	d->req.err_pending = true;
	d->req.err_slot = slot;
	d->req.err_status = st;
}

/* ---- RC ------------------------------------------------------------------ */

static void req_fetch_rc(struct isim_dev_qp *d)
{
	struct isim_qp *qp = d->qp;
	struct isim_req *r = &d->req;
	uint32_t mtu = isim_qp_mtu(qp);
	enum ionic_status st;
	struct isim_swqe *s;
	uint16_t slot;

	while (!r->err_pending && qp->sq.cons != qp->sq.db_prod) {
		slot = qp->sq.cons;
		s = &d->swqe[slot];
		s->remote = false;
		st = req_snapshot(d, slot, s);
		qp->sq.cons = sq_next(d, slot);
		if (st) {
			req_set_err(d, slot, st);
			break;
		}
		s->remote = s->w.op->flags & ISIM_WRF_REMOTE;
		s->npkts = s->w.length ? (s->w.length + mtu - 1) / mtu : 1;
		s->first_psn = r->next_psn;
		r->next_psn = isim_psn_add(r->next_psn, s->npkts);
		if (s->remote)
			s->seq = r->msn_next++;
	}
}

/* Point the sender at 'psn' (go-back-N, or after ACKs overtook it). */
static void req_seek(struct isim_dev_qp *d, uint32_t psn)
{
	struct isim_req *r = &d->req;
	uint16_t slot, end = req_end(d);
	struct isim_swqe *s;
	int32_t off;

	for (slot = r->una; slot != end; slot = sq_next(d, slot)) {
		s = &d->swqe[slot];
		off = isim_psn_diff(psn, s->first_psn);
		if (off >= 0 && (uint32_t)off < s->npkts) {
			r->snd = slot;
			r->snd_idx = off;
			r->snd_psn = psn;
			return;
		}
	}
	r->snd = end;
	r->snd_idx = 0;
	r->snd_psn = end == d->qp->sq.cons ? r->next_psn : d->swqe[end].first_psn;
}

static uint8_t rc_send_opcode(bool first, bool last, bool imm)
{
	if (first && last)
		return imm ? ISIM_OP_RC_SEND_ONLY_IMM : ISIM_OP_RC_SEND_ONLY;
	if (first)
		return ISIM_OP_RC_SEND_FIRST;
	if (last)
		return imm ? ISIM_OP_RC_SEND_LAST_IMM : ISIM_OP_RC_SEND_LAST;
	return ISIM_OP_RC_SEND_MIDDLE;
}

/* Build and send packet 'idx' of message 's'. */
static enum ionic_status req_send_rc(struct isim_dev_qp *d, struct isim_swqe *s,
				     uint32_t idx, uint32_t psn)
{
	uint8_t buf[ISIM_PKT_MAX_SIZE];
	struct isim_pkt pkt = { .buf = buf };
	struct isim_qp *qp = d->qp;
	uint32_t mtu = isim_qp_mtu(qp);
	uint64_t off = (uint64_t)idx * mtu;
	uint32_t len = s->w.length - off < mtu ? s->w.length - off : mtu;
	bool first = idx == 0, last = idx + 1 == s->npkts;
	bool imm = s->w.op->flags & ISIM_WRF_IMM;
	struct isim_pkt_hdr *h;
	enum ionic_status st;

	isim_pkt_init(&pkt, rc_send_opcode(first, last, imm), d->nic->node,
		      qp->qpn, qp->dest_qpn);
	h = isim_pkt_hdr(&pkt);
	isim_pkt_set_psn(&pkt, psn);
	if (last) {
		h->flags |= ISIM_PKT_F_ACKREQ;
		if (s->w.flags & IONIC_WQE_FLAG_SOL)
			h->flags |= ISIM_PKT_F_SOL;
		if (imm)
			h->imm = s->w.imm_raw;
	}
	if (idx % ISIM_REQ_ACKREQ_EVERY == ISIM_REQ_ACKREQ_EVERY - 1 ||
	    isim_psn_diff(psn, d->req.una_psn) + 1 >= ISIM_REQ_WINDOW)
		h->flags |= ISIM_PKT_F_ACKREQ;
	st = isim_mem_gather(d->nic, qp->pd, &s->w, off, isim_pkt_payload(&pkt), len);
	if (st)
		return st;
	pkt.len += len;
	if (d->peer_node)
		isim_dqp_xmit(d, d->peer_node, qp->dest_qpn, &pkt);
	/* else: no route to the peer's GID, the packet is lost. */
	return IONIC_STS_OK;
}

static void req_arm_timer(struct isim_dev_qp *d)
{
	uint64_t to = req_timeout_ns(d->qp);

	d->req.deadline = to && req_outstanding(d) ? isim_now_ns() + to : 0;
}

static void req_xmit_rc(struct isim_dev_qp *d)
{
	struct isim_req *r = &d->req;
	uint16_t end = req_end(d);
	enum ionic_status st;
	struct isim_swqe *s;
	bool sent = false;

	if (r->rnr_wait || d->qp->state != IBV_QPS_RTS)
		return;
	while (r->snd != end && isim_psn_diff(r->snd_psn, r->una_psn) < ISIM_REQ_WINDOW) {
		s = &d->swqe[r->snd];
		st = req_send_rc(d, s, r->snd_idx, r->snd_psn);
		if (st) {
			/* The memory went away under a posted WQE. */
			req_set_err(d, r->snd, st);
			break;
		}
		sent = true;
		r->snd_psn = isim_psn_add(r->snd_psn, 1);
		if (++r->snd_idx == s->npkts) {
			r->snd = sq_next(d, r->snd);
			r->snd_idx = 0;
		}
	}
	if (sent && !r->deadline)
		req_arm_timer(d);
	req_check_err(d);
}

/* The responder has every packet up to and including 'psn'. */
static void req_ack(struct isim_dev_qp *d, uint32_t psn)
{
	struct isim_req *r = &d->req;
	uint16_t end = req_end(d);
	struct ionic_cqe cqe;
	struct isim_swqe *s;
	bool done = false;

	/* Older than what we know (duplicate) or never sent (bogus). */
	if (isim_psn_diff(psn, r->una_psn) < 0 || isim_psn_diff(psn, r->next_psn) >= 0)
		return;
	while (r->una != end) {
		s = &d->swqe[r->una];
		if (isim_psn_diff(isim_psn_add(s->first_psn, s->npkts - 1), psn) > 0)
			break;
		if (s->remote)
			r->msn_done = s->seq + 1;
		r->una = sq_next(d, r->una);
		done = true;
	}
	r->una_psn = isim_psn_add(psn, 1);
	/* Progress renews the retry budgets (IBTA: per unacked request). */
	r->retry_left = d->qp->retry_cnt;
	r->rnr_left = d->qp->rnr_retry;
	if (isim_psn_diff(r->snd_psn, r->una_psn) < 0)
		req_seek(d, r->una_psn);
	req_arm_timer(d);
	if (done) {
		isim_cqe_msn(&cqe, d->qp->qpn, r->msn_done, IONIC_STS_OK);
		isim_dqp_cqe(d, true, &cqe, false);
	}
}

static void req_go_back(struct isim_dev_qp *d, uint32_t psn)
{
	/* Anything still queued for the wire is stale now. */
	isim_fab_drop_backlog(&d->ep);
	req_seek(d, psn);
	d->retransmits++;
}

static void req_nak(struct isim_dev_qp *d, struct isim_pkt *pkt)
{
	struct isim_req *r = &d->req;
	struct isim_qp *qp = d->qp;
	uint32_t psn = isim_pkt_psn(pkt);
	uint8_t kind = isim_pkt_hdr(pkt)->nak;

	if (isim_psn_diff(psn, r->una_psn) < 0 || isim_psn_diff(psn, r->next_psn) >= 0)
		return;
	/* A NAK acknowledges everything before the PSN it names. */
	if (psn != r->una_psn)
		req_ack(d, isim_psn_add(psn, ISIM_PSN_MASK));
	if (r->una == req_end(d))
		return;

	switch (kind) {
	case ISIM_NAK_RNR:
		d->rnr_naks_rx++;
		if (qp->rnr_retry != ISIM_RNR_INFINITE) {
			if (!r->rnr_left) {
				req_fail(d, r->una, IONIC_STS_RNR_RETRY_EXCEEDED);
				return;
			}
			r->rnr_left--;
		}
		req_go_back(d, psn);
		r->rnr_wait = true;
		r->deadline = isim_now_ns() +
			      1000ull * rnr_timer_us[isim_pkt_hdr(pkt)->rnr_timer & 31];
		break;
	case ISIM_NAK_SEQ:
		if (!r->retry_left) {
			req_fail(d, r->una, IONIC_STS_RETRY_EXCEEDED);
			return;
		}
		r->retry_left--;
		req_go_back(d, psn);
		req_xmit_rc(d);
		break;
	case ISIM_NAK_INV_REQ:
		req_fail(d, r->una, IONIC_STS_REMOTE_INV_REQ_ERR);
		break;
	case ISIM_NAK_REM_ACC:
		req_fail(d, r->una, IONIC_STS_REMOTE_ACC_ERR);
		break;
	case ISIM_NAK_REM_OP:
		req_fail(d, r->una, IONIC_STS_REMOTE_OPER_ERR);
		break;
	default:
		break;
	}
}

void isim_req_rx(struct isim_dev_qp *d, struct isim_pkt *pkt)
{
	struct isim_qp *qp = d->qp;

	if (qp->type != IBV_QPT_RC || !d->swqe ||
	    (qp->state != IBV_QPS_RTS && qp->state != IBV_QPS_SQD) ||
	    isim_pkt_src_node(pkt) != d->peer_node ||
	    isim_pkt_src_qpn(pkt) != qp->dest_qpn) {
		d->drops++;
		return;
	}
	if (isim_pkt_opcode(pkt) == ISIM_OP_RC_ACK) {
		req_ack(d, isim_pkt_psn(pkt));
		req_check_err(d);
		req_xmit_rc(d);
	} else if (isim_pkt_opcode(pkt) == ISIM_OP_RC_NAK) {
		req_nak(d, pkt);
	} else {
		d->drops++; /* read responses, atomic ACKs: not modelled yet */
	}
}

void isim_req_timer(struct isim_dev_qp *d)
{
	struct isim_req *r = &d->req;

	r->deadline = 0;
	if (d->qp->state != IBV_QPS_RTS)
		return;
	if (r->rnr_wait) {
		r->rnr_wait = false;
		req_xmit_rc(d);
		return;
	}
	if (!req_outstanding(d))
		return;
	if (!r->retry_left) {
		req_fail(d, r->una, IONIC_STS_RETRY_EXCEEDED);
		return;
	}
	r->retry_left--;
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_PKT, "qp %u ack timeout, retransmit from psn %u (%u left)",
			   d->qp->qpn, r->una_psn, r->retry_left);
	req_go_back(d, r->una_psn);
	req_xmit_rc(d);
}

/* ---- UD ------------------------------------------------------------------ */

static enum ionic_status req_send_ud(struct isim_dev_qp *d, struct isim_swqe *s)
{
	uint8_t buf[ISIM_PKT_MAX_SIZE];
	struct isim_pkt pkt = { .buf = buf };
	struct isim_qp *qp = d->qp;
	struct isim_nic *nic = d->nic;
	bool imm = s->w.op->flags & ISIM_WRF_IMM;
	struct isim_pkt_hdr *h;
	enum ionic_status st;
	struct isim_ah *ah;
	uint32_t node;

	ah = isim_dev_ah_lookup(nic, s->w.ah_id);
	if (!ah || ah->av.sgid_index >= 2)
		return IONIC_STS_LOCAL_QP_OPER_ERR;
	if (ah->pd != qp->pd)
		return IONIC_STS_LOCAL_PROT_ERR;
	if (s->w.length > isim_port_mtu(nic))
		return IONIC_STS_LOCAL_LEN_ERR;

	isim_pkt_init(&pkt, imm ? ISIM_OP_UD_SEND_ONLY_IMM : ISIM_OP_UD_SEND_ONLY,
		      nic->node, qp->qpn, s->w.dest_qpn & 0xffffff);
	h = isim_pkt_hdr(&pkt);
	isim_pkt_set_psn(&pkt, d->req.next_psn);
	d->req.next_psn = isim_psn_add(d->req.next_psn, 1);
	/* A "privileged" qkey (bit 31) means: use the QP's own (IBTA). */
	isim_pkt_set_qkey(&pkt, s->w.dest_qkey & 0x80000000u ? qp->qkey : s->w.dest_qkey);
	if (s->w.flags & IONIC_WQE_FLAG_SOL)
		h->flags |= ISIM_PKT_F_SOL;
	if (imm)
		h->imm = s->w.imm_raw;
	isim_pkt_set_flow_label(&pkt, ah->av.flow_label);
	h->tclass = ah->av.traffic_class;
	h->hop_limit = ah->av.hop_limit;
	h->sl = ah->av.sl;
	memcpy(h->sgid, nic->gid[ah->av.sgid_index], 16);
	memcpy(h->dgid, ah->av.dgid, 16);
	st = isim_mem_gather(nic, qp->pd, &s->w, 0, isim_pkt_payload(&pkt), s->w.length);
	if (st)
		return st;
	pkt.len += s->w.length;
	node = isim_gid_to_node(ah->av.dgid);
	if (node)
		isim_dqp_xmit(d, node, s->w.dest_qpn & 0xffffff, &pkt);
	/* Sent or lost, a UD send is complete once it left the QP. */
	return IONIC_STS_OK;
}

static void req_run_ud(struct isim_dev_qp *d)
{
	struct isim_qp *qp = d->qp;
	enum ionic_status st;
	struct ionic_cqe cqe;
	struct isim_swqe *s;
	uint16_t slot;

	while (qp->state == IBV_QPS_RTS && qp->sq.cons != qp->sq.db_prod) {
		slot = qp->sq.cons;
		s = &d->swqe[slot];
		s->remote = false;
		st = req_snapshot(d, slot, s);
		if (!st)
			st = req_send_ud(d, s);
		qp->sq.cons = sq_next(d, slot);
		isim_cqe_npg(&cqe, qp->qpn, s->w.wqe_idx, st);
		isim_dqp_cqe(d, true, &cqe, st != IONIC_STS_OK);
		d->req.una = qp->sq.cons;
		if (st) {
			d->sq_errored = true;
			isim_dqp_error(d, 0);
			return;
		}
	}
}

void isim_req_run(struct isim_dev_qp *d)
{
	struct isim_qp *qp = d->qp;

	if (!d->swqe)
		return;
	if (qp->state == IBV_QPS_ERR) {
		isim_dqp_flush_indicators(d);
		return;
	}
	/* Before RTS doorbells are only recorded (db_prod); RTS starts them. */
	if (qp->state != IBV_QPS_RTS)
		return;
	if (qp->type == IBV_QPT_UD) {
		req_run_ud(d);
	} else if (qp->type == IBV_QPT_RC) {
		req_fetch_rc(d);
		req_xmit_rc(d);
	}
}
