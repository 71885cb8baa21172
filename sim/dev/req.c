// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: the requester (send side) of RC and UD QPs: WQE fetch,
 * packet generation, the send window, retransmission timers.  What comes
 * back (ACK, NAK, READ responses, atomic ACKs) is the completer's (comp.c).
 *
 * RC: each fetched WQE becomes a message with consecutive PSNs starting at
 * sq_psn: SEND/WRITE ceil(len / path MTU) packets, READ one request that
 * reserves the PSNs of its ceil(len / MTU) responses, atomics one.  At
 * most IDEV_REQ_WINDOW PSNs are unacknowledged, and at most max_rd_atomic
 * READ/atomic requests are outstanding.  Recovery is go-back-N from the
 * oldest unacknowledged PSN (a READ resumes with a request for the rest).
 *
 * UD: one packet per WQE and one SEND_NPG CQE per WQE, signalled or not
 * (docs/device-contract.md §7.3): the host completes its SQ strictly in order.
 *
 * A local error (bad WQE, key, length) completes that slot with an NPG
 * error CQE and moves the QP to ERR.  On RC it waits until every earlier
 * message is complete, so the host sees completions in order.
 */
#include <endian.h>
#include <string.h>

#include "../common/trace.h"
#include "cqe.h"
#include "direct.h"
#include "qp.h"
#include "mem.h"
#include "mw.h"

/* Unacknowledged PSNs in flight per QP: a window of 4 KiB packets fits the
 * fabric send buffer, so a connected pair rarely backs up. */
#define IDEV_REQ_WINDOW 64

/* IBTA RNR NAK timer field -> microseconds (table 45). */
static const uint32_t rnr_timer_us[32] = {
	655360, 10,    20,    30,     40,     60,     80,     120,
	160,	240,   320,   480,    640,    960,    1280,   1920,
	2560,	3840,  5120,  7680,   10240,  15360,  20480,  30720,
	40960,	61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

uint64_t idev_rnr_delay_ns(uint8_t code)
{
	return 1000ull * rnr_timer_us[code & 31];
}

/* Local ACK timeout: 4.096 us * 2^timeout (0 = infinite).  Clamped to at
 * least 10 ms (an emulated fabric has scheduling jitter far above the
 * microsecond values) and at most 60 s. */
static uint64_t req_timeout_ns(const struct idev_qp *d)
{
	uint64_t ns;

	if (!d->timeout)
		return 0;
	ns = 4096ull << (d->timeout & 31);
	if (ns < 10000000ull)
		ns = 10000000ull;
	if (ns > 60000000000ull)
		ns = 60000000000ull;
	return ns;
}

static inline bool req_outstanding(const struct idev_qp *d)
{
	return idev_psn_diff(d->req.snd_psn, d->req.una_psn) > 0;
}

void idev_req_reset(struct idev_qp *d)
{
	memset(&d->req, 0, sizeof(d->req));
}

void idev_req_start(struct idev_qp *d)
{
	struct idev_req *r = &d->req;

	r->next_psn = r->una_psn = r->snd_psn = d->sq_psn & IDEV_PSN_MASK;
	r->una = r->snd = d->sq.cons;
	r->snd_idx = 0;
	r->retry_left = d->retry_cnt;
	r->rnr_left = d->rnr_retry;
}

void idev_req_arm_timer(struct idev_qp *d)
{
	uint64_t to = req_timeout_ns(d);

	d->req.deadline = to && req_outstanding(d) ? idev_now_ns() + to : 0;
	d->req.wire_wait_from = 0;
}

/* Snapshot, decode and check the WQE in 'slot'. */
static enum ionic_status req_snapshot(struct idev_qp *d, uint16_t slot,
				      struct idev_swqe *s)
{
	uint8_t *raw = d->sq_copy + (size_t)slot * d->sq_stride;
	enum ionic_status st;
	uint8_t *host;

	memset(s, 0, sizeof(*s));
	idev_wqe_fetch(&d->sq, slot, raw);
	st = idev_wqe_decode_sq(&s->w, raw, d->sq_stride, d->dev->prof->version,
				d->type);
	if (st)
		goto out;
	switch (s->w.op->op) {
	case IDEV_WR_RDMA_READ:
		/* The responses land in the SGL. */
		st = idev_mem_check_sgl(d->dev, d->pdid, &s->w,
					IBV_ACCESS_LOCAL_WRITE);
		break;
	case IDEV_WR_ATOMIC_CS:
	case IDEV_WR_ATOMIC_FA:
		st = idev_mem_resolve(d->dev, d->pdid, s->w.result.lkey,
				      s->w.result.va, IDEV_ATOMIC_SIZE,
				      IBV_ACCESS_LOCAL_WRITE, &host);
		break;
	default:
		if (s->w.op->flags & IDEV_WRF_GATHER)
			st = idev_mem_check_sgl(d->dev, d->pdid, &s->w, 0);
		break;
	}
out:
	idev_wqe_trace("sq", d->qpn, slot, &s->w, st);
	d->cnt.wqes++;
	return st;
}

/* Complete 'slot' with an error and move the QP to ERR (docs/device-contract.md
 * §12.1): remote WQEs on an MSN CQE naming them (msg_msn = seq + 1), others on
 * NPG. */
void idev_req_fail(struct idev_qp *d, uint16_t slot, enum ionic_status st)
{
	struct idev_swqe *s = &d->swqe[slot];
	struct ionic_cqe cqe;

	if (s->remote)
		idev_cqe_msn(&cqe, d->qpn, s->seq + 1, st);
	else
		idev_cqe_npg(&cqe, d->qpn, s->w.wqe_idx, st);
	idev_qp_cqe(d, true, &cqe, true);
	idev_qp_error(d, 0);
}

void idev_req_check_err(struct idev_qp *d)
{
	if (d->req.err_pending && d->req.una == d->req.err_slot &&
	    d->state != IBV_QPS_ERR) {
		/* A local error is reported on NPG even for a remote WQE
		 * (the host then treats it as non-remote,
		 * docs/device-contract.md §7.3). */
		d->swqe[d->req.err_slot].remote = false;
		idev_req_fail(d, d->req.err_slot, d->req.err_status);
	}
}

static void req_set_err(struct idev_qp *d, uint16_t slot, enum ionic_status st)
{
	d->req.err_pending = true;
	d->req.err_slot = slot;
	d->req.err_status = st;
}

/* ---- RC ------------------------------------------------------------------ */

static uint32_t req_npkts(const struct idev_swqe *s, uint32_t mtu)
{
	switch (s->w.op->op) {
	case IDEV_WR_ATOMIC_CS:
	case IDEV_WR_ATOMIC_FA:
		return 1;
	case IDEV_WR_LOCAL_INV:
	case IDEV_WR_BIND_MW:
	case IDEV_WR_REG_MR:
		return 0; /* local: no packet, no PSN */
	default:
		return s->w.length ? (s->w.length + mtu - 1) / mtu : 1;
	}
}

static void req_fetch_rc(struct idev_qp *d)
{
	struct idev_req *r = &d->req;
	uint32_t mtu = idev_qp_mtu(d);
	enum ionic_status st;
	struct idev_swqe *s;
	uint16_t slot;

	while (!r->err_pending && d->sq.cons != d->sq.db_prod) {
		slot = d->sq.cons;
		s = &d->swqe[slot];
		st = req_snapshot(d, slot, s);
		d->sq.cons = idev_sq_next(d, slot);
		if (st) {
			req_set_err(d, slot, st);
			break;
		}
		s->remote = s->w.op->flags & IDEV_WRF_REMOTE;
		s->npkts = req_npkts(s, mtu);
		s->first_psn = r->next_psn;
		r->next_psn = idev_psn_add(r->next_psn, s->npkts);
		if (s->remote)
			s->seq = r->msn_next++;
	}
}

void idev_req_seek(struct idev_qp *d, uint32_t psn)
{
	struct idev_req *r = &d->req;
	uint16_t slot, end = idev_req_end(d);
	struct idev_swqe *s;
	int32_t off;

	for (slot = r->una; slot != end; slot = idev_sq_next(d, slot)) {
		s = &d->swqe[slot];
		off = idev_psn_diff(psn, s->first_psn);
		if (off >= 0 && (uint32_t)off < s->npkts) {
			r->snd = slot;
			r->snd_idx = off;
			r->snd_psn = psn;
			return;
		}
	}
	r->snd = end;
	r->snd_idx = 0;
	r->snd_psn = end == d->sq.cons ? r->next_psn : d->swqe[end].first_psn;
}

void idev_req_go_back(struct idev_qp *d, uint32_t psn)
{
	/* Anything still queued for the wire is stale now. */
	ifab_drop_backlog(&d->ep);
	idev_req_seek(d, psn);
	d->cnt.retransmits++;
}

uint8_t idev_req_seg_opcode(bool first, bool last, const struct idev_wqe *w)
{
	bool imm = w->op->flags & IDEV_WRF_IMM,
	     inv = w->op->flags & IDEV_WRF_INV;
	bool write = w->op->op == IDEV_WR_RDMA_WRITE ||
		     w->op->op == IDEV_WR_RDMA_WRITE_IMM;

	if (first && last)
		return write ? (imm ? IDEV_OP_RC_WRITE_ONLY_IMM :
				      IDEV_OP_RC_WRITE_ONLY) :
		       inv   ? IDEV_OP_RC_SEND_ONLY_INV :
		       imm   ? IDEV_OP_RC_SEND_ONLY_IMM :
			       IDEV_OP_RC_SEND_ONLY;
	if (first)
		return write ? IDEV_OP_RC_WRITE_FIRST : IDEV_OP_RC_SEND_FIRST;
	if (last)
		return write ? (imm ? IDEV_OP_RC_WRITE_LAST_IMM :
				      IDEV_OP_RC_WRITE_LAST) :
		       inv   ? IDEV_OP_RC_SEND_LAST_INV :
		       imm   ? IDEV_OP_RC_SEND_LAST_IMM :
			       IDEV_OP_RC_SEND_LAST;
	return write ? IDEV_OP_RC_WRITE_MIDDLE : IDEV_OP_RC_SEND_MIDDLE;
}

/* Fill packet 'idx' of a SEND or WRITE message. */
static enum ionic_status req_build_seg(struct idev_qp *d, struct idev_swqe *s,
				       uint32_t idx, struct idev_pkt *pkt)
{
	uint32_t mtu = idev_qp_mtu(d);
	uint64_t off = (uint64_t)idx * mtu;
	uint32_t len = s->w.length - off < mtu ? s->w.length - off : mtu;
	bool first = idx == 0, last = idx + 1 == s->npkts;
	bool imm = s->w.op->flags & IDEV_WRF_IMM;
	bool write = s->w.op->op == IDEV_WR_RDMA_WRITE ||
		     s->w.op->op == IDEV_WR_RDMA_WRITE_IMM;
	enum ionic_status st;

	pkt->opcode = idev_req_seg_opcode(first, last, &s->w);
	if (write && first) { /* RETH */
		pkt->va = s->w.remote_va;
		pkt->rkey = s->w.rkey;
		pkt->dmalen = s->w.length;
	}
	if (last && (s->w.op->flags & IDEV_WRF_INV)) /* IETH */
		pkt->inv_rkey = s->w.key;
	if (last) {
		pkt->flags |= IDEV_PKT_F_ACKREQ;
		if (s->w.flags & IONIC_WQE_FLAG_SOL)
			pkt->flags |= IDEV_PKT_F_SOL;
		if (imm)
			pkt->imm_raw = s->w.imm_raw;
	}
	if (idx % IDEV_REQ_ACKREQ_EVERY == IDEV_REQ_ACKREQ_EVERY - 1)
		pkt->flags |= IDEV_PKT_F_ACKREQ;
	pkt->payload = idev_pkt_payload_at(pkt);
	st = idev_mem_gather(d->dev, d->pdid, &s->w, off, pkt->payload, len);
	if (!st)
		pkt->paylen = len;
	return st;
}

/* A READ request for the rest of the message from packet 'idx' on. */
static void req_build_read(struct idev_qp *d, struct idev_swqe *s, uint32_t idx,
			   struct idev_pkt *pkt)
{
	uint64_t off = (uint64_t)idx * idev_qp_mtu(d);

	pkt->opcode = IDEV_OP_RC_READ_REQ;
	pkt->flags |= IDEV_PKT_F_ACKREQ;
	pkt->va = s->w.remote_va + off;
	pkt->rkey = s->w.rkey;
	pkt->dmalen = (uint32_t)(s->w.length - off);
	s->rd_base = idx;
}

static void req_build_atomic(struct idev_swqe *s, struct idev_pkt *pkt)
{
	pkt->opcode = s->w.op->op == IDEV_WR_ATOMIC_CS ? IDEV_OP_RC_CMP_SWAP :
							 IDEV_OP_RC_FETCH_ADD;
	pkt->flags |= IDEV_PKT_F_ACKREQ;
	pkt->va = s->w.remote_va;
	pkt->rkey = s->w.rkey;
	pkt->swap_add = s->w.swap_add;
	pkt->compare = s->w.compare;
}

/* Build and send the packet at the send position; returns the PSNs it
 * used up (a READ request covers all its responses), 0 on error. */
static uint32_t req_send_one(struct idev_qp *d, struct idev_swqe *s,
			     enum ionic_status *st)
{
	uint8_t buf[IDEV_PKT_MAX_SIZE];
	struct idev_pkt pkt;
	struct idev_req *r = &d->req;
	uint32_t used = 1;

	idev_qp_pkt_start(d, &pkt, buf, 0, &d->av, d->dest_qpn);
	pkt.psn = r->snd_psn;
	*st = IONIC_STS_OK;
	switch (s->w.op->op) {
	case IDEV_WR_RDMA_READ:
		req_build_read(d, s, r->snd_idx, &pkt);
		used = s->npkts - r->snd_idx;
		break;
	case IDEV_WR_ATOMIC_CS:
	case IDEV_WR_ATOMIC_FA:
		req_build_atomic(s, &pkt);
		break;
	default:
		*st = req_build_seg(d, s, r->snd_idx, &pkt);
		if (*st)
			return 0;
		break;
	}
	if (idev_psn_diff(idev_psn_add(r->snd_psn, used), r->una_psn) >=
	    IDEV_REQ_WINDOW)
		pkt.flags |= IDEV_PKT_F_ACKREQ;
	if (d->has_path)
		idev_qp_xmit(d, &pkt);
	return used;
}

/* Execute a local operation (once, even if go-back passes it again) and
 * complete it with its own NPG CQE.  A failure waits, like any local
 * error, until everything before it is complete; false then. */
static bool req_exec_local(struct idev_qp *d, struct idev_swqe *s)
{
	uint16_t slot = (uint16_t)(s - d->swqe);
	enum ionic_status st;
	struct ionic_cqe cqe;

	if (s->complete)
		return true;
	switch (s->w.op->op) {
	case IDEV_WR_BIND_MW:
		st = idev_mw_bind(d->dev, d->pdid, &s->w);
		break;
	case IDEV_WR_LOCAL_INV:
		st = idev_mw_local_inv(d->dev, d->pdid, s->w.key);
		break;
	default:
		st = IONIC_STS_LOCAL_QP_OPER_ERR;
		break;
	}
	if (st) {
		req_set_err(d, slot, st);
		return false;
	}
	idev_cqe_npg(&cqe, d->qpn, s->w.wqe_idx, IONIC_STS_OK);
	idev_qp_cqe(d, true, &cqe, false);
	s->complete = true;
	idev_comp_retire(d);
	return true;
}

/* READ/atomic requests sent and not yet answered (IBTA: at most
 * max_rd_atomic may be outstanding). */
static unsigned int req_rd_outstanding(const struct idev_qp *d)
{
	const struct idev_req *r = &d->req;
	unsigned int n = 0;
	uint16_t slot;

	for (slot = r->una; slot != r->snd; slot = idev_sq_next(d, slot))
		if (!d->swqe[slot].complete &&
		    idev_swqe_needs_resp(&d->swqe[slot]))
			n++;
	return n;
}

void idev_req_xmit(struct idev_qp *d)
{
	struct idev_req *r = &d->req;
	uint16_t end = idev_req_end(d);
	unsigned int rd_max = d->max_rd_atomic ? d->max_rd_atomic : 1;
	enum ionic_status st;
	struct idev_swqe *s;
	bool sent = false;
	uint32_t used;

	/* SQD: messages already fetched still go out (and complete). */
	if (r->rnr_wait || (d->state != IBV_QPS_RTS && d->state != IBV_QPS_SQD))
		return;
	idev_direct_run(d);
	while (r->snd != end &&
	       idev_psn_diff(r->snd_psn, r->una_psn) < IDEV_REQ_WINDOW) {
		s = &d->swqe[r->snd];
		/* a message the direct path could take waits for what is
		 * in flight, then goes directly (idev_direct_run above, when
		 * the ACK comes) */
		if (!r->snd_idx && r->snd_psn != r->una_psn &&
		    idev_direct_hold(d, s))
			break;
		if (!s->npkts) {
			/* A local operation, executed in SQ order. */
			if (s->w.flags & IONIC_WQE_FLAG_FENCE &&
			    req_rd_outstanding(d))
				break;
			if (!req_exec_local(d, s))
				break;
			r->snd = idev_sq_next(d, r->snd);
			continue;
		}
		if (idev_swqe_needs_resp(s) && r->snd_idx == s->rd_base &&
		    req_rd_outstanding(d) >= rd_max)
			break;
		/* Fence: start only after earlier READs/atomics completed
		 * (their results may be this WQE's source). */
		if ((s->w.flags & IONIC_WQE_FLAG_FENCE) && r->snd_idx == 0 &&
		    req_rd_outstanding(d))
			break;
		used = req_send_one(d, s, &st);
		if (st) {
			/* The memory went away under a posted WQE. */
			req_set_err(d, r->snd, st);
			break;
		}
		sent = true;
		r->snd_psn = idev_psn_add(r->snd_psn, used);
		r->snd_idx += used;
		if (r->snd_idx >= s->npkts) {
			r->snd = idev_sq_next(d, r->snd);
			r->snd_idx = 0;
		}
	}
	if (sent && !r->deadline)
		idev_req_arm_timer(d);
	idev_req_check_err(d);
}

void idev_req_timer(struct idev_qp *d)
{
	struct idev_req *r = &d->req;

	r->deadline = 0;
	r->wire_wait_from = 0;
	if (d->state != IBV_QPS_RTS && d->state != IBV_QPS_SQD)
		return;
	if (r->rnr_wait) {
		r->rnr_wait = false;
		idev_req_xmit(d);
		return;
	}
	if (!req_outstanding(d))
		return;
	if (!r->retry_left) {
		idev_req_fail(d, r->una, IONIC_STS_RETRY_EXCEEDED);
		return;
	}
	r->retry_left--;
	/* a sequence NAK for this PSN, answering what was sent before the
	 * timeout, asks for this same go-back: not another retry */
	r->retrying = true;
	r->retry_psn = r->una_psn;
	if (isim_trace_enabled())
		isim_trace(
			ISIM_TR_PKT,
			"qp %u ack timeout, retransmit from psn %u (%u left)",
			d->qpn, r->una_psn, r->retry_left);
	idev_req_go_back(d, r->una_psn);
	idev_req_xmit(d);
}

/* ---- UD ------------------------------------------------------------------ */

/* The frame of a UD SEND, in 'buf'; sent by the caller after the send
 * CQE (a receive CQE the direct path writes comes after it, as with
 * packets). */
static enum ionic_status req_send_ud(struct idev_qp *d, struct idev_swqe *s,
				     struct idev_pkt *pkt, uint8_t *buf)
{
	struct idev *dev = d->dev;
	bool imm = s->w.op->flags & IDEV_WRF_IMM;
	enum ionic_status st;
	struct idev_ah *ah;

	ah = idev_ah_lookup(dev, s->w.ah_id);
	if (!ah || ah->av.sgid_index >= 2)
		return IONIC_STS_LOCAL_QP_OPER_ERR;
	if (ah->pdid != d->pdid)
		return IONIC_STS_LOCAL_PROT_ERR;
	if (s->w.length > idev_port_mtu(dev))
		return IONIC_STS_LOCAL_LEN_ERR;

	idev_qp_pkt_start(d, pkt, buf,
			  imm ? IDEV_OP_UD_SEND_ONLY_IMM : IDEV_OP_UD_SEND_ONLY,
			  &ah->av, s->w.dest_qpn);
	pkt->psn = d->req.next_psn;
	d->req.next_psn = idev_psn_add(d->req.next_psn, 1);
	/* A "privileged" qkey (bit 31) means: use the QP's own (IBTA). */
	pkt->qkey = s->w.dest_qkey & 0x80000000u ? d->qkey : s->w.dest_qkey;
	pkt->src_qpn = d->qpn;
	if (s->w.flags & IONIC_WQE_FLAG_SOL)
		pkt->flags |= IDEV_PKT_F_SOL;
	if (imm)
		pkt->imm_raw = s->w.imm_raw;
	pkt->payload = idev_pkt_payload_at(pkt);
	st = idev_mem_gather(dev, d->pdid, &s->w, 0, pkt->payload, s->w.length);
	if (st)
		return st;
	pkt->paylen = s->w.length;
	/* Sent or lost, a UD send is complete once it left the QP. */
	return IONIC_STS_OK;
}

static void req_run_ud(struct idev_qp *d)
{
	uint8_t buf[IDEV_PKT_MAX_SIZE];
	struct idev_pkt pkt;
	enum ionic_status st;
	struct ionic_cqe cqe;
	struct idev_swqe *s;
	uint16_t slot;

	while (d->state == IBV_QPS_RTS && d->sq.cons != d->sq.db_prod) {
		slot = d->sq.cons;
		s = &d->swqe[slot];
		st = req_snapshot(d, slot, s);
		if (!st)
			st = req_send_ud(d, s, &pkt, buf);
		d->sq.cons = idev_sq_next(d, slot);
		idev_cqe_npg(&cqe, d->qpn, s->w.wqe_idx, st);
		idev_qp_cqe(d, true, &cqe, st != IONIC_STS_OK);
		d->req.una = d->sq.cons;
		if (st) {
			idev_qp_error(d, 0);
			return;
		}
		/* to a QP of this process: received right here (direct_ud.c) */
		if (!idev_direct_ud(d, &pkt))
			idev_qp_xmit(d, &pkt);
	}
}

void idev_req_run(struct idev_qp *d)
{
	if (!d->swqe)
		return;
	if (d->state == IBV_QPS_ERR) {
		idev_qp_flush_indicators(d);
		return;
	}
	/* Before RTS doorbells are only recorded (db_prod); RTS starts them. */
	if (d->state != IBV_QPS_RTS)
		return;
	if (d->type == IBV_QPT_UD) {
		req_run_ud(d);
	} else if (d->type == IBV_QPT_RC) {
		req_fetch_rc(d);
		idev_req_xmit(d);
	}
}
