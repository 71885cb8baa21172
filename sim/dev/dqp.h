/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim device: per-QP device state (struct isim_dev_qp, qp->dev) and
 * the calls between the device's parts:
 *
 *   doorbell.c  decode doorbells, hand SQ/RQ/CQ work to the parts below
 *   wqe.c       WQE snapshot and decode (one opcode table, v1/v2)
 *   req.c       requester: SQ WQEs -> packets, window, retry timers, UD
 *   comp.c      completer: ACK/NAK/READ response/atomic ACK -> SQ CQEs
 *   resp.c      responder: request packets -> memory, RQ WQEs, RECV CQEs
 *   mem.c/mw.c  keys -> host memory; window bind and invalidation
 *   cqe.c       the one CQE writer, CQ credits and arming
 *   qp.c        admin create/modify/destroy, RESET, SQD and ERR effects
 *   engine.c    the device thread: epoll, timers, dispatch
 *
 * All of it runs with nic->lock held.
 */
#ifndef ISIM_DEV_DQP_H
#define ISIM_DEV_DQP_H

#include <stdbool.h>
#include <stdint.h>

#include "../fabric/fabric.h"
#include "../fabric/pkt.h"
#include "../kernel/objects.h"
#include "wqe.h"

/* An SQ slot as the device consumed it. */
struct isim_swqe {
	struct isim_wqe w; /* decoded snapshot (points into sq_copy) */
	uint32_t first_psn; /* RC: PSN of its first packet */
	uint32_t npkts; /* RC: packets of the message */
	uint32_t seq; /* MSN sequence number, if remote */
	bool remote; /* completed through the MSN */
	bool complete; /* done; retired in order from una */
	uint32_t rcvd; /* READ/atomic: response packets received */
	uint32_t rd_base; /* READ: packet index the last request began at */
};

/* READ and atomics complete through response packets, not ACKs. */
static inline bool isim_swqe_needs_resp(const struct isim_swqe *s)
{
	return s->w.op && (s->w.op->op == ISIM_WR_RDMA_READ ||
			   s->w.op->op == ISIM_WR_ATOMIC_CS ||
			   s->w.op->op == ISIM_WR_ATOMIC_FA);
}

/* RC requester (rxe req + comp).  Slots run una .. end: una is the oldest
 * WQE the device has not completed, end is where fetching stopped
 * (sq.cons, or the slot of a pending local error). */
struct isim_req {
	uint16_t una; /* oldest uncompleted SQ slot */
	uint16_t snd; /* slot of the next packet to send */
	uint32_t snd_idx; /* its packet index in the message */
	uint32_t snd_psn; /* PSN of the next packet to send */
	uint32_t una_psn; /* oldest unacknowledged PSN */
	uint32_t next_psn; /* PSN of the next fetched message */
	uint32_t msn_next; /* seq of the next remote WQE fetched */
	uint32_t msn_done; /* remote WQEs completed (CQE msg_msn) */
	uint8_t retry_left; /* transport retries left (retry_cnt) */
	uint8_t rnr_left; /* RNR retries left (rnr_retry, 7 = inf) */
	bool rnr_wait; /* paused until deadline by an RNR NAK */
	uint64_t deadline; /* ns: RNR wait end or ACK timeout; 0 none */
	bool err_pending; /* a fetched WQE failed locally ... */
	uint16_t err_slot; /* ... this one; completed when una gets */
	enum ionic_status err_status; /* there, so CQEs stay in order */
};

/* Atomics the responder executed, to answer duplicates without executing
 * them twice (IBTA 9.7.5.1.5). */
#define ISIM_ATOMIC_CACHE 16
struct isim_atomic_res {
	bool valid;
	uint32_t psn;
	uint64_t orig;
};

/* RC/UD responder. */
struct isim_resp {
	uint32_t epsn; /* RC: expected PSN */
	uint32_t msn; /* RC: messages completed (sent in ACKs) */
	bool in_msg; /* RC: a multi-packet SEND/WRITE is going on */
	uint32_t msg_kind; /* ... IFAB_PKT_M_SEND or IFAB_PKT_M_WRITE */
	uint64_t msg_off; /* bytes of it placed so far */
	uint8_t *wr_host; /* WRITE: target memory (rkey resolved) */
	uint64_t wr_len; /* WRITE: DMA length from the RETH */
	struct isim_atomic_res atomics[ISIM_ATOMIC_CACHE];
	unsigned int atomic_next;
	struct isim_wqe w; /* the RQ WQE being filled (at rq.cons) */
	enum ionic_status wst; /* its decode status */
	bool nak_sent; /* RC: NAK outstanding, drop OOS silently */
	uint8_t *copy; /* snapshot buffer, one RQ stride */
};

struct isim_dev_qp {
	struct isim_qp *qp;
	struct isim_nic *nic;
	struct isim_dev_qp *next; /* engine's list of device QPs */
	struct ifab_ep ep; /* fabric endpoint "<node>/<qpn>" */
	uint32_t peer_node; /* RC: from av.dgid at RTR; 0 = none */
	uint32_t sq_stride, rq_stride;
	uint8_t *sq_copy; /* WQE snapshots, one stride per slot */
	struct isim_swqe *swqe; /* per SQ slot */
	struct isim_req req;
	struct isim_resp resp;
	bool sq_errored, rq_errored; /* error or flush CQE given since RESET */
	bool drain_reported; /* SQD: SQ_DRAINED raised for this drain */
	/* counters */
	uint64_t wqes, cqes, rnr_naks_rx, retransmits, drops;
};

static inline struct isim_dev_qp *to_isim_dqp(struct isim_qp *qp)
{
	return qp->dev;
}

/* ---- qp.c ---- */
/* Bytes of the port's active MTU (iboe_get_mtu of the netdev MTU). */
uint32_t isim_port_mtu(const struct isim_nic *nic);
/* RC path MTU in bytes. */
uint32_t isim_qp_mtu(const struct isim_qp *qp);
/* AH by id, as the device's AH table would give it; NULL if none. */
struct isim_ah *isim_dev_ah_lookup(struct isim_nic *nic, uint32_t ahid);
/* Release the device state of a QP (destroy, engine stop). */
void isim_dqp_free(struct isim_dev_qp *d);
/* Send a packet from this QP, with tracing; lost packets are fine. */
void isim_dqp_xmit(struct isim_dev_qp *d, uint32_t node, uint32_t qpn,
		   struct ifab_pkt *pkt);
/* The device moves the QP to ERR (device-detected error).  'ev' is the
 * async event to raise, or 0 for none. */
void isim_dqp_error(struct isim_dev_qp *d, enum ibv_event_type ev);
/* In ERR: give each queue that has work and no error CQE yet its flush
 * indicator (also called when a doorbell arrives in ERR). */
void isim_dqp_flush_indicators(struct isim_dev_qp *d);
/* SQD: once nothing fetched is outstanding, report the drain (once). */
void isim_dqp_check_drained(struct isim_dev_qp *d);
/* Post a CQE for this QP into its send or receive hardware CQ. */
void isim_dqp_cqe(struct isim_dev_qp *d, bool send, const struct ionic_cqe *cqe,
		  bool solicited);
/* Queue-pair states in which the device processes traffic. */
static inline bool isim_qp_can_recv(const struct isim_qp *qp)
{
	return qp->state == IBV_QPS_RTR || qp->state == IBV_QPS_RTS ||
	       qp->state == IBV_QPS_SQD;
}

/* ---- req.c: the requester ---- */
void isim_req_reset(struct isim_dev_qp *d);
/* Prepare for RTS: PSNs from sq_psn, retry budgets from the attributes. */
void isim_req_start(struct isim_dev_qp *d);
/* New SQ work (doorbell, RTS): fetch WQEs and send what the window allows. */
void isim_req_run(struct isim_dev_qp *d);
/* d->req.deadline passed. */
void isim_req_timer(struct isim_dev_qp *d);
/* Helpers shared with the completer: */
static inline uint16_t isim_sq_next(const struct isim_dev_qp *d, uint16_t slot)
{
	return (slot + 1) & d->qp->sq.desc.mask;
}
/* Where fetching stopped: a pending local error, or the SQ consumer. */
static inline uint16_t isim_req_end(const struct isim_dev_qp *d)
{
	return d->req.err_pending ? d->req.err_slot : d->qp->sq.cons;
}
/* Send what the window allows (RC). */
void isim_req_xmit(struct isim_dev_qp *d);
/* Restart transmission at 'psn' (go-back-N), dropping queued packets. */
void isim_req_go_back(struct isim_dev_qp *d, uint32_t psn);
/* Point the sender at 'psn' without dropping anything. */
void isim_req_seek(struct isim_dev_qp *d, uint32_t psn);
/* (Re)start the ACK timeout if packets are outstanding, else stop it. */
void isim_req_arm_timer(struct isim_dev_qp *d);
/* Complete 'slot' with an error status and move the QP to ERR. */
void isim_req_fail(struct isim_dev_qp *d, uint16_t slot, enum ionic_status st);
/* Report a pending local error once everything before it retired. */
void isim_req_check_err(struct isim_dev_qp *d);
/* RNR NAK timer code -> nanoseconds (IBTA table). */
uint64_t isim_rnr_delay_ns(uint8_t code);

/* ---- comp.c: the completer (responses to our requests) ---- */
/* An ACK, NAK, READ response or atomic ACK for this QP. */
void isim_comp_rx(struct isim_dev_qp *d, struct ifab_pkt *pkt);
/* Retire complete WQEs from una in order (MSN CQE for remote ones). */
void isim_comp_retire(struct isim_dev_qp *d);

/* ---- resp.c ---- */
void isim_resp_reset(struct isim_dev_qp *d);
/* A request packet (RC or UD) for this QP. */
void isim_resp_rx(struct isim_dev_qp *d, struct ifab_pkt *pkt);

/* ---- engine.c ---- */
uint64_t isim_now_ns(void);
/* Start watching a new device QP's endpoint / stop watching it. */
int isim_engine_add(struct isim_engine *eng, struct isim_dev_qp *d);
void isim_engine_del(struct isim_engine *eng, struct isim_dev_qp *d);
/* Apply every doorbell captured so far (caller holds nic->lock).  Admin
 * commands call it first: a doorbell the application rang before a
 * modify/destroy must not land after it. */
void isim_engine_drain_doorbells(struct isim_engine *eng);
/* Ask the engine thread to recompute its timers (work done by an
 * application thread may have set a deadline). */
void isim_engine_wake(struct isim_engine *eng);

#endif /* ISIM_DEV_DQP_H */
