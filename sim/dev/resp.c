// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: the responder (receive side) of RC and UD QPs.
 *
 * RC (IBTA ch. 9.7, as rxe_resp.c): a packet with the expected PSN is
 * executed; an older PSN is a duplicate and only re-ACKed; a newer one
 * means packets were lost: one sequence NAK, then silence until the
 * expected PSN shows up.  A SEND's first packet needs a receive WQE, or
 * the requester gets an RNR NAK (no CQE).  The last packet completes the
 * receive WQE (RECV CQE) and is ACKed with the message count.  Errors
 * complete the receive WQE in error, NAK the requester and move the QP to
 * ERR.
 *
 * UD: packets for a QP that is not ready, with the wrong qkey, or finding
 * no receive WQE are dropped silently.  The receive buffer starts with the
 * 40-byte GRH area (docs/device-contract.md §7.1), counted in byte_len.
 *
 * Packets for a QP in RESET, INIT or ERR are dropped silently: an RC
 * requester then times out.
 */
#include <endian.h>
#include <string.h>

#include "../common/trace.h"
#include "cqe.h"
#include "qp.h"
#include "mem.h"
#include "mw.h"

void idev_resp_reset(struct idev_qp *d)
{
	uint8_t *copy = d->resp.copy;

	memset(&d->resp, 0, sizeof(d->resp));
	d->resp.copy = copy;
}

static inline uint16_t rq_next(const struct idev_qp *d, uint16_t slot)
{
	return (slot + 1) & d->rq.mask;
}

/* Snapshot and decode the receive WQE at rq.cons; false if the RQ is
 * empty. */
static bool resp_take_wqe(struct idev_qp *d)
{
	if (!d->resp.copy || d->rq.cons == d->rq.db_prod)
		return false;
	idev_wqe_fetch(&d->rq, d->rq.cons, d->resp.copy);
	d->resp.wst =
		idev_wqe_decode_rq(&d->resp.w, d->resp.copy, d->rq_stride);
	idev_wqe_trace("rq", d->qpn, d->rq.cons, &d->resp.w, d->resp.wst);
	d->cnt.wqes++;
	return true;
}

/* The receive WQE at rq.cons is done: one RECV CQE, in order. */
static void resp_complete(struct idev_qp *d, const struct ionic_cqe *cqe,
			  bool solicited)
{
	idev_qp_cqe(d, false, cqe, solicited);
	d->rq.cons = rq_next(d, d->rq.cons);
	d->resp.in_msg = false;
	d->resp.msg_off = 0;
}

static void resp_fail_wqe(struct idev_qp *d, enum ionic_status st)
{
	struct ionic_cqe cqe;

	idev_cqe_recv_err(&cqe, d->qpn, d->resp.w.wqe_idx, st);
	resp_complete(d, &cqe, true);
}

/* ---- RC ------------------------------------------------------------------ */

/* Headers-only packets: an ACK, a NAK, an atomic ACK. */
#define RESP_SMALL (IDEV_PKT_MAX_HDR + IDEV_ICRC_LEN)

static void resp_ack(struct idev_qp *d, uint32_t psn)
{
	uint8_t buf[RESP_SMALL];
	struct idev_pkt pkt;

	idev_resp_pkt(d, &pkt, buf, IDEV_OP_RC_ACK, psn);
	idev_resp_out_small(d, &pkt); /* behind READ data */
}

static void resp_nak(struct idev_qp *d, enum idev_nak kind, uint32_t psn)
{
	uint8_t buf[RESP_SMALL];
	struct idev_pkt pkt;

	idev_resp_pkt(d, &pkt, buf, IDEV_OP_RC_ACK, psn);
	pkt.syndrome = idev_aeth_nak(kind, d->min_rnr_timer);
	idev_resp_out_small(d, &pkt); /* behind READ data */
}

/* A fatal responder error: NAK with 'kind', QP to ERR. */
static void resp_rc_error(struct idev_qp *d, enum idev_nak kind, uint32_t psn,
			  enum idev_eqe_code ev)
{
	resp_nak(d, kind, psn);
	idev_qp_error(d, ev);
}

/* No receive WQE: Receiver Not Ready.  The PSN does not advance; the
 * requester retries this packet after the RNR timer. */
static void resp_rnr(struct idev_qp *d, uint32_t psn)
{
	resp_nak(d, IDEV_NAK_RNR, psn);
	d->resp.nak_sent = true;
}

/*
 * Remote memory for an incoming RDMA WRITE / READ / ATOMIC: the QP must
 * enable that kind of remote access (modify_qp's qp_access_flags, which
 * the firmware gets in admin MODIFY_QP, docs/kernel-contract.md "Admin
 * MODIFY_QP fields"), then the key, PD, access and range are checked.  A QP
 * without REMOTE_ATOMIC must fail atomics (docs/testing.md §1.6; IBTA: the
 * responder validates its QP's remote access enables before the R_Key).
 */
enum ionic_status idev_resp_resolve(struct idev_qp *d, uint32_t rkey,
				    uint64_t va, uint64_t len, uint32_t access,
				    uint8_t **host)
{
	if ((d->access_flags & access) != access) {
		*host = NULL;
		return IONIC_STS_REMOTE_ACC_ERR;
	}
	return idev_mem_resolve_remote(d->dev, d->pdid, rkey, va, len, access,
				       host);
}

static void resp_rc_send(struct idev_qp *d, struct idev_pkt *pkt, uint32_t mask)
{
	struct idev_resp *r = &d->resp;
	uint32_t psn = pkt->psn;
	uint32_t len = pkt->paylen;
	struct ionic_cqe cqe;
	enum ionic_status st;

	if (mask & IDEV_PKT_M_FIRST) {
		if (!resp_take_wqe(d)) {
			resp_rnr(d, psn);
			return;
		}
		r->in_msg = true;
		r->msg_kind = IDEV_PKT_M_SEND;
		r->msg_off = 0;
	}
	r->nak_sent = false;

	st = r->wst;
	if (!st)
		st = idev_mem_scatter(d->dev, d->pdid, &r->w, r->msg_off,
				      pkt->payload, len);
	if (st) {
		/* The WQE completes in error here, the requester's with the
		 * matching remote status: a message longer than the buffer
		 * is the requester's fault (invalid request), a bad receive
		 * WQE or key is ours (remote operational error). */
		bool too_long = !r->wst && st == IONIC_STS_LOCAL_LEN_ERR;

		resp_fail_wqe(d, st);
		resp_rc_error(d, too_long ? IDEV_NAK_INV_REQ : IDEV_NAK_REM_OP,
			      psn, 0);
		return;
	}
	r->msg_off += len;
	r->epsn = idev_psn_add(r->epsn, 1);

	if (mask & IDEV_PKT_M_LAST) {
		unsigned int op = IONIC_CQE_RECV_OP_SEND;
		uint32_t imm = 0;

		if (mask & IDEV_PKT_M_INV) {
			/* SEND_WITH_INV: invalidate, then report the rkey
			 * (BE32, docs/device-contract.md §7.1).  A key we may
			 * not invalidate is the requester's invalid request (as
			 * rxe). */
			if (idev_mw_remote_inv(d->dev, d->pdid,
					       pkt->inv_rkey)) {
				resp_fail_wqe(d, IONIC_STS_REMOTE_INV_REQ_ERR);
				resp_rc_error(d, IDEV_NAK_INV_REQ, psn, 0);
				return;
			}
			op = IONIC_CQE_RECV_OP_SEND_INV;
			imm = htobe32(pkt->inv_rkey);
		} else if (mask & IDEV_PKT_M_IMM) {
			op = IONIC_CQE_RECV_OP_SEND_IMM;
			imm = pkt->imm_raw;
		}
		/* RC carries no source QP: the connected one sent it.  The
		 * IPv4 bit is left clear on RC: only UD/GSI completions are
		 * known to carry it (docs/device-contract.md §5.4). */
		idev_cqe_recv(&cqe, d->qpn, r->w.wqe_idx, r->msg_off,
			      d->dest_qpn, op, imm, pkt->smac, 0, false);
		resp_complete(d, &cqe, pkt->flags & IDEV_PKT_F_SOL);
		r->msn++;
		resp_ack(d, psn);
	} else if (pkt->flags & IDEV_PKT_F_ACKREQ) {
		resp_ack(d, psn);
	}
}

/* RDMA WRITE (+IMM): the RETH of the first packet names the target; the
 * immediate form consumes a receive WQE at the last packet. */
static void resp_rc_write(struct idev_qp *d, struct idev_pkt *pkt,
			  uint32_t mask)
{
	struct idev_resp *r = &d->resp;
	uint32_t psn = pkt->psn;
	uint32_t len = pkt->paylen;
	bool imm = mask & IDEV_PKT_M_IMM;
	struct ionic_cqe cqe;
	enum ionic_status st;

	if (mask & IDEV_PKT_M_FIRST) {
		r->wr_len = pkt->dmalen;
		st = idev_resp_resolve(d, pkt->rkey, pkt->va, r->wr_len,
				       IBV_ACCESS_REMOTE_WRITE, &r->wr_host);
		if (st) {
			resp_rc_error(d, IDEV_NAK_REM_ACC, psn,
				      IDEV_EQE_QP_ERR_ACCESS);
			return;
		}
	}
	/* Check the receive WQE before touching memory, so an RNR retry of
	 * this packet finds everything as it was. */
	if ((mask & IDEV_PKT_M_LAST) && imm && !resp_take_wqe(d)) {
		resp_rnr(d, psn);
		return;
	}
	if (mask & IDEV_PKT_M_FIRST) {
		r->in_msg = true;
		r->msg_kind = IDEV_PKT_M_WRITE;
		r->msg_off = 0;
	}
	r->nak_sent = false;
	if (r->msg_off + len > r->wr_len ||
	    ((mask & IDEV_PKT_M_LAST) && r->msg_off + len != r->wr_len)) {
		resp_rc_error(d, IDEV_NAK_INV_REQ, psn,
			      IDEV_EQE_QP_ERR_REQUEST);
		return;
	}
	if (len)
		memcpy(r->wr_host + r->msg_off, pkt->payload, len);
	r->msg_off += len;
	r->epsn = idev_psn_add(r->epsn, 1);
	if (!(mask & IDEV_PKT_M_LAST)) {
		if (pkt->flags & IDEV_PKT_F_ACKREQ)
			resp_ack(d, psn);
		return;
	}
	r->in_msg = false;
	r->msn++;
	if (imm) {
		if (r->wst) {
			resp_fail_wqe(d, r->wst);
			resp_rc_error(d, IDEV_NAK_REM_OP, psn, 0);
			return;
		}
		idev_cqe_recv(&cqe, d->qpn, r->w.wqe_idx, r->wr_len,
			      d->dest_qpn, IONIC_CQE_RECV_OP_RDMA_IMM,
			      pkt->imm_raw, pkt->smac, 0, false);
		resp_complete(d, &cqe, pkt->flags & IDEV_PKT_F_SOL);
	}
	resp_ack(d, psn);
}

/*
 * RDMA READ: answer with the data, one response per path-MTU chunk, PSNs
 * from the request's on, as the wire takes them (resp_out.c): later
 * responses wait behind them.  A duplicate request (the requester lost
 * responses) is executed again.
 */
static void resp_rc_read(struct idev_qp *d, struct idev_pkt *pkt, bool dup)
{
	struct idev_resp *r = &d->resp;
	uint32_t psn = pkt->psn, mtu = idev_qp_mtu(d);
	uint64_t len = pkt->dmalen;
	uint32_t n = len ? (uint32_t)((len + mtu - 1) / mtu) : 1;
	enum ionic_status st;
	uint8_t *host;

	st = idev_resp_resolve(d, pkt->rkey, pkt->va, len,
			       IBV_ACCESS_REMOTE_READ, &host);
	if (st) {
		if (!dup)
			resp_rc_error(d, IDEV_NAK_REM_ACC, psn,
				      IDEV_EQE_QP_ERR_ACCESS);
		return;
	}
	if (!dup) {
		r->epsn = idev_psn_add(r->epsn, n);
		r->msn++;
		r->nak_sent = false;
	}
	idev_resp_out_read(d, psn, pkt->rkey, pkt->va, len);
}

static void resp_atomic_ack(struct idev_qp *d, uint32_t psn, uint64_t orig)
{
	uint8_t buf[RESP_SMALL];
	struct idev_pkt pkt;

	idev_resp_pkt(d, &pkt, buf, IDEV_OP_RC_ATOMIC_ACK, psn);
	pkt.orig = orig;
	idev_resp_out_small(d, &pkt); /* behind READ data */
}

/* Atomics execute once: a duplicate gets the saved original value. */
static void resp_rc_atomic(struct idev_qp *d, struct idev_pkt *pkt, bool dup)
{
	struct idev_resp *r = &d->resp;
	uint32_t psn = pkt->psn;
	uint64_t va = pkt->va, orig;
	struct idev_atomic_res *a;
	enum ionic_status st;
	uint64_t *p;
	uint8_t *host;
	unsigned int i;

	if (dup) {
		for (i = 0; i < IDEV_ATOMIC_CACHE; i++) {
			a = &r->atomics[i];
			if (a->valid && a->psn == psn)
				resp_atomic_ack(d, psn, a->orig);
		}
		return;
	}
	if (va % IDEV_ATOMIC_SIZE) {
		resp_rc_error(d, IDEV_NAK_INV_REQ, psn,
			      IDEV_EQE_QP_ERR_REQUEST);
		return;
	}
	st = idev_resp_resolve(d, pkt->rkey, va, IDEV_ATOMIC_SIZE,
			       IBV_ACCESS_REMOTE_ATOMIC, &host);
	if (st) {
		resp_rc_error(d, IDEV_NAK_REM_ACC, psn, IDEV_EQE_QP_ERR_ACCESS);
		return;
	}
	/* The application may use the same memory concurrently. */
	p = (uint64_t *)host;
	if (pkt->opcode == IDEV_OP_RC_CMP_SWAP) {
		orig = pkt->compare;
		__atomic_compare_exchange_n(p, &orig, pkt->swap_add, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	} else {
		orig = __atomic_fetch_add(p, pkt->swap_add, __ATOMIC_SEQ_CST);
	}
	a = &r->atomics[r->atomic_next++ % IDEV_ATOMIC_CACHE];
	a->valid = true;
	a->psn = psn;
	a->orig = orig;
	r->epsn = idev_psn_add(r->epsn, 1);
	r->msn++;
	r->nak_sent = false;
	resp_atomic_ack(d, psn, orig);
}

static void resp_rc(struct idev_qp *d, struct idev_pkt *pkt)
{
	struct idev_resp *r = &d->resp;
	uint32_t mask = idev_pkt_opmask(pkt->opcode);
	uint32_t psn = pkt->psn;
	int32_t diff;

	/* An RC QP talks to its one peer only: the path's GID (RoCEv2 names
	 * no source QP for RC). */
	if (!idev_qp_from_peer(d, pkt) || !(mask & IDEV_PKT_M_RC)) {
		d->cnt.drops++;
		return;
	}
	diff = idev_psn_diff(psn, r->epsn);
	if (diff < 0) {
		/* Duplicate: READs are answered again, atomics replayed,
		 * everything else re-ACKed (our ACK was lost or late). */
		if (mask & IDEV_PKT_M_READ)
			resp_rc_read(d, pkt, true);
		else if (mask & IDEV_PKT_M_ATOMIC)
			resp_rc_atomic(d, pkt, true);
		else
			resp_ack(d, idev_psn_add(r->epsn, IDEV_PSN_MASK));
		return;
	}
	if (diff > 0) {
		if (!r->nak_sent) {
			resp_nak(d, IDEV_NAK_SEQ, r->epsn);
			r->nak_sent = true;
		}
		d->cnt.drops++;
		return;
	}

	/* Opcode sequence: FIRST/ONLY start a message, MIDDLE/LAST continue
	 * the same kind of message. */
	if ((mask & IDEV_PKT_M_FIRST) ? r->in_msg :
					(!r->in_msg || !(mask & r->msg_kind))) {
		resp_rc_error(d, IDEV_NAK_INV_REQ, psn,
			      IDEV_EQE_QP_ERR_REQUEST);
		return;
	}
	if (mask & IDEV_PKT_M_SEND)
		resp_rc_send(d, pkt, mask);
	else if (mask & IDEV_PKT_M_WRITE)
		resp_rc_write(d, pkt, mask);
	else if (mask & IDEV_PKT_M_READ)
		resp_rc_read(d, pkt, false);
	else if (mask & IDEV_PKT_M_ATOMIC)
		resp_rc_atomic(d, pkt, false);
	else
		resp_rc_error(d, IDEV_NAK_INV_REQ, psn,
			      IDEV_EQE_QP_ERR_REQUEST);
}

/* ---- UD ------------------------------------------------------------------ */

/*
 * The 40-byte GRH area of a UD receive.  RoCEv2 has no GRH on the wire;
 * like Linux (rxe, mlx5) the device writes the packet's IP header there:
 * an IPv6 header as it came, or 20 zero bytes followed by the 20-byte
 * IPv4 header (ibv_wc's GRH convention for RoCEv2, where applications
 * read sgid/dgid with ibv_init_ah_from_wc).
 */
void idev_resp_ud_grh(uint8_t grh[IDEV_GRH_SIZE], const struct idev_pkt *pkt)
{
	const uint8_t *ip =
		pkt->buf + IFAB_ETH_HLEN + (pkt->vlan ? IFAB_VLAN_HLEN : 0);

	memset(grh, 0, IDEV_GRH_SIZE);
	if ((ip[0] >> 4) == 4)
		memcpy(grh + 20, ip, IFAB_IPV4_HLEN);
	else
		memcpy(grh, ip, IFAB_IPV6_HLEN);
}

/*
 * A UD receive WQE for this frame.  An empty RQ may only look empty: with
 * several NICs in one process another NIC's engine may have taken our
 * receive doorbell from the process' FIFO (kernel/bus.c) and queued it
 * for us after our engine last looked, and then sent the frame that
 * came before it in program order.  A UD drop is final (no RNR retry),
 * so the engine applies what is queued and looks once more; only the
 * engine may (rx_may_pop: it holds the NIC lock), and not again inside
 * the doorbells it applies.
 */
static bool resp_ud_take(struct idev_qp *d)
{
	struct idev *dev = d->dev;
	bool more;

	if (resp_take_wqe(d))
		return true;
	if (!dev->rx_may_pop || !d->resp.copy)
		return false;
	dev->rx_may_pop = false;
	do
		idev_doorbells_pop(dev, 256, &more);
	while (more);
	dev->rx_may_pop = true;
	return idev_qp_can_recv(d) && resp_take_wqe(d);
}

static void resp_ud(struct idev_qp *d, struct idev_pkt *pkt)
{
	struct idev_resp *r = &d->resp;
	uint32_t mask = idev_pkt_opmask(pkt->opcode);
	uint32_t len = pkt->paylen;
	bool imm = mask & IDEV_PKT_M_IMM;
	uint8_t grh[IDEV_GRH_SIZE];
	struct ionic_cqe cqe;
	enum ionic_status st;

	if (!(mask & IDEV_PKT_M_UD) || pkt->qkey != d->qkey ||
	    !resp_ud_take(d)) {
		d->cnt.drops++;
		return;
	}
	st = r->wst;
	if (!st && (uint64_t)IDEV_GRH_SIZE + len > r->w.length)
		st = IONIC_STS_LOCAL_LEN_ERR;
	if (!st) {
		idev_resp_ud_grh(grh, pkt);
		st = idev_mem_scatter(d->dev, d->pdid, &r->w, 0, grh,
				      IDEV_GRH_SIZE);
	}
	if (!st)
		st = idev_mem_scatter(d->dev, d->pdid, &r->w, IDEV_GRH_SIZE,
				      pkt->payload, len);
	if (st) {
		resp_fail_wqe(d, st);
		idev_qp_error(d, 0);
		return;
	}
	/* The SL came as the 802.1Q priority (VLAN ids are not used); like
	 * hardware, the IPv4 bit says which header the GRH area holds, from
	 * which the host derives wc.sl (docs/device-contract.md §7.1). */
	idev_cqe_recv(&cqe, d->qpn, r->w.wqe_idx, IDEV_GRH_SIZE + len,
		      pkt->src_qpn,
		      imm ? IONIC_CQE_RECV_OP_SEND_IMM : IONIC_CQE_RECV_OP_SEND,
		      imm ? pkt->imm_raw : 0, pkt->smac,
		      (uint16_t)((pkt->pcp & 7) << 13), idev_pkt_is_v4(pkt));
	resp_complete(d, &cqe, pkt->flags & IDEV_PKT_F_SOL);
}

void idev_resp_rx(struct idev_qp *d, struct idev_pkt *pkt)
{
	if (!idev_qp_can_recv(d)) {
		d->cnt.drops++;
		return;
	}
	if (d->type == IBV_QPT_RC)
		resp_rc(d, pkt);
	else if (d->type == IBV_QPT_UD)
		resp_ud(d, pkt);
	else
		d->cnt.drops++;
}
