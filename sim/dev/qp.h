/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim device: the device's QP (struct idev_qp: what admin commands
 * programmed, the rings' device indices, requester and responder state)
 * and the calls between the parts that work on it (see dev.h).
 */
#ifndef IDEV_QP_H
#define IDEV_QP_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "../fabric/fabric.h"
#include "pkt.h"
#include "dev.h"
#include "wqe.h"

/* An SQ slot as the device consumed it. */
struct idev_swqe {
	struct idev_wqe w; /* decoded snapshot (points into sq_copy) */
	uint32_t first_psn; /* RC: PSN of its first packet */
	uint32_t npkts; /* RC: packets of the message */
	uint32_t seq; /* MSN sequence number, if remote */
	bool remote; /* completed through the MSN */
	bool complete; /* done; retired in order from una */
	uint32_t rcvd; /* READ/atomic: response packets received */
	uint32_t rd_base; /* READ: packet index the last request began at */
};

/* READ and atomics complete through response packets, not ACKs. */
static inline bool idev_swqe_needs_resp(const struct idev_swqe *s)
{
	return s->w.op && (s->w.op->op == IDEV_WR_RDMA_READ ||
			   s->w.op->op == IDEV_WR_ATOMIC_CS ||
			   s->w.op->op == IDEV_WR_ATOMIC_FA);
}

/* RC requester (rxe req + comp).  Slots run una .. end: una is the oldest
 * WQE the device has not completed, end is where fetching stopped
 * (sq.cons, or the slot of a pending local error). */
struct idev_req {
	uint16_t una; /* oldest uncompleted SQ slot */
	uint16_t snd; /* slot of the next packet to send */
	uint32_t snd_idx; /* its packet index in the message */
	uint32_t snd_psn; /* PSN of the next packet to send */
	uint32_t una_psn; /* oldest unacknowledged PSN */
	uint32_t next_psn; /* PSN of the next fetched message */
	uint32_t msn_next; /* seq of the next remote WQE fetched */
	uint32_t msn_done; /* remote WQEs completed (CQE msg_msn) */
	uint8_t retry_left; /* transport retries left (retry_cnt) */
	/* a go-back to retry_psn was asked for by a sequence NAK or an
	 * implied one and nothing has progressed since: copies of that NAK
	 * and responses that still imply it are old news (a duplicating,
	 * reordering wire), not new retries */
	bool retrying;
	uint32_t retry_psn;
	uint8_t rnr_left; /* RNR retries left (rnr_retry, 7 = inf) */
	bool rnr_wait; /* paused until deadline by an RNR NAK */
	uint64_t deadline; /* ns: RNR wait end or ACK timeout; 0 none */
	/* the ACK timeout that expired while the wire still held frames
	 * for us (timer.c: timer_wire_wait); 0 none */
	uint64_t wire_wait_from;
	bool err_pending; /* a fetched WQE failed locally ... */
	uint16_t err_slot; /* ... this one; completed when una gets */
	enum ionic_status err_status; /* there, so CQEs stay in order */
};

/* Atomics the responder executed, to answer duplicates without executing
 * them twice (IBTA 9.7.5.1.5). */
#define IDEV_ATOMIC_CACHE 16
struct idev_atomic_res {
	bool valid;
	uint32_t psn;
	uint64_t orig;
};

/* One entry of the responder's output queue (resp_out.c): the rest of a
 * READ's responses (opcode IDEV_OP_RC_READ_REQ), or a headers-only
 * response waiting behind them. */
struct idev_resp_job {
	uint8_t opcode;
	uint32_t psn; /* READ: of its next response */
	uint32_t msn;
	uint32_t syndrome; /* ACK/NAK */
	uint64_t orig; /* atomic ACK */
	uint32_t rkey; /* READ: where the data comes from ... */
	uint64_t va; /* ... from here on, */
	uint64_t left; /* ... this many bytes, */
	uint32_t npkts; /* ... in this many responses */
	bool first; /* READ: the next response is its first */
};

#define IDEV_RESP_OUT_MAX 64
struct idev_resp_out {
	struct idev_resp_job job[IDEV_RESP_OUT_MAX];
	unsigned int head, count;
};

/* RC/UD responder. */
struct idev_resp {
	uint32_t epsn; /* RC: expected PSN */
	uint32_t msn; /* RC: messages completed (sent in ACKs) */
	bool in_msg; /* RC: a multi-packet SEND/WRITE is going on */
	uint32_t msg_kind; /* ... IDEV_PKT_M_SEND or IDEV_PKT_M_WRITE */
	uint64_t msg_off; /* bytes of it placed so far */
	uint8_t *wr_host; /* WRITE: target memory (rkey resolved) */
	uint64_t wr_len; /* WRITE: DMA length from the RETH */
	struct idev_atomic_res atomics[IDEV_ATOMIC_CACHE];
	unsigned int atomic_next;
	struct idev_wqe w; /* the RQ WQE being filled (at rq.cons) */
	enum ionic_status wst; /* its decode status */
	bool nak_sent; /* RC: NAK outstanding, drop OOS silently */
	uint8_t *copy; /* snapshot buffer, one RQ stride */
	struct idev_resp_out out; /* RC: responses the wire has not taken */
};

struct idev_qp {
	struct idev *dev;
	struct idev_qp *next; /* dev->qp_list */
	struct idev_qp *eng_next; /* the engine's list */
	bool eng_pollout; /* the engine waits for EPOLLOUT on ep.fd */
	/* UD: a frame of ours went as a packet; a later one goes directly
	 * only once none can still be on its way (direct_ud.c) */
	bool ud_pkts;
	/* CREATE_QP */
	uint32_t qpn;
	enum ibv_qp_type type;
	uint32_t pdid;
	uint32_t dbid; /* doorbells are accepted on this page only */
	uint32_t sq_cqid, rq_cqid;
	struct idev_wq sq, rq;
	/* the state, owned by the device (it moves the QP to ERR itself) */
	enum ibv_qp_state state;
	uint8_t sq_draining;
	/* MODIFY_QP attributes, used live */
	uint32_t qkey;
	uint32_t dest_qpn;
	uint32_t sq_psn, rq_psn;
	enum ibv_mtu path_mtu;
	uint32_t access_flags; /* remote access enables */
	uint8_t retry_cnt, rnr_retry, min_rnr_timer, timeout;
	uint8_t max_rd_atomic, max_dest_rd_atomic;
	uint8_t en_sqd_async_notify;
	uint32_t rate_limit;
	struct idev_av av; /* RC: the path */
	/* the engine's */
	struct ifab_ep ep; /* fabric endpoint "<node>/<qpn>" */
	bool has_path; /* RC: av set at RTR (the peer is av.dgid) */
	uint32_t sq_stride, rq_stride;
	uint8_t *sq_copy; /* WQE snapshots, one stride per slot */
	struct idev_swqe *swqe; /* per SQ slot */
	struct idev_req req;
	struct idev_resp resp;
	bool sq_errored, rq_errored; /* error or flush CQE given since RESET */
	bool sq_lost, rq_lost; /* a CQE of the queue was lost (CQ overrun) */
	bool drain_reported; /* SQD: SQ_DRAINED raised for this drain */
	struct idev_counters cnt;
	struct idev_dpeer *dpeer; /* direct.c: the peer's port, if offered */
	uint8_t dwhy; /* direct.c: the path last traced for it */
	struct idev_ring_share rq_share; /* the RQ ring, for peers */
	/* direct_exec.c: the peer's RQ ring and receive CQ ring, mapped */
	struct idev_dring {
		uint8_t *map;
		uint64_t len, ino;
		int32_t fd;
		bool failed; /* not mappable: process_vm_* for it */
	} dring_rq, dring_cq;
};

/* ---- tx.c ---- */
/* Bytes of the port's active MTU (iboe_get_mtu of the netdev MTU). */
uint32_t idev_port_mtu(const struct idev *dev);
/* RC path MTU in bytes. */
uint32_t idev_qp_mtu(const struct idev_qp *qp);
/* Start a packet of this QP in 'buf' to the QP 'dqpn' behind 'av' (the
 * RC path, or a UD AH): the GIDs, traffic class, hop limit, SL and UDP
 * source port.  Build with idev_pkt_build() after the payload. */
void idev_qp_pkt_start(const struct idev_qp *d, struct idev_pkt *pkt,
		       uint8_t *buf, uint8_t opcode, const struct idev_av *av,
		       uint32_t dqpn);
/* Build the frame and send it, with tracing; lost packets are fine. */
void idev_qp_xmit(struct idev_qp *d, struct idev_pkt *pkt);
/* Is this packet from the RC peer (the path's GID)? */
static inline bool idev_qp_from_peer(const struct idev_qp *d,
				     const struct idev_pkt *pkt)
{
	return d->has_path && !memcmp(pkt->sgid, d->av.dgid, 16);
}

/* ---- qp.c ---- */
/* Release a QP: table entry, fabric endpoint, memory (destroy, device
 * destroy). */
void idev_qp_free(struct idev_qp *d);
/* The device moves the QP to ERR (device-detected error).  'code' is the
 * async event to raise (IDEV_EQE_QP_ERR_*), or 0 for none. */
void idev_qp_error(struct idev_qp *d, enum idev_eqe_code code);
/* SQD: once nothing fetched is outstanding, report the drain (once). */
void idev_qp_check_drained(struct idev_qp *d);

/* ---- cq_route.c ---- */
/* In ERR: give each queue that has work and no error CQE yet its flush
 * indicator (also called when a doorbell arrives in ERR). */
void idev_qp_flush_indicators(struct idev_qp *d);
/* Post a CQE for this QP into its send or receive hardware CQ.  0, or
 * -ENOSPC when the CQ overran: the CQE is lost and the QP went to ERR
 * (QP_FATAL), owing the queue a flush indicator. */
int idev_qp_cqe(struct idev_qp *d, bool send, const struct ionic_cqe *cqe,
		bool solicited);
/* The host made room in an overrun CQ: QPs in ERR that owe it a flush
 * indicator write it now. */
void idev_cq_room(struct idev_cq *cq);
/* Queue-pair states in which the device processes traffic. */
static inline bool idev_qp_can_recv(const struct idev_qp *qp)
{
	return qp->state == IBV_QPS_RTR || qp->state == IBV_QPS_RTS ||
	       qp->state == IBV_QPS_SQD;
}

/* ---- req.c: the requester ---- */
/* Ask for an ACK at least this often inside long messages. */
#define IDEV_REQ_ACKREQ_EVERY 16
/* The opcode of a SEND or WRITE packet, by its place in the message. */
uint8_t idev_req_seg_opcode(bool first, bool last, const struct idev_wqe *w);
void idev_req_reset(struct idev_qp *d);
/* Prepare for RTS: PSNs from sq_psn, retry budgets from the attributes. */
void idev_req_start(struct idev_qp *d);
/* New SQ work (doorbell, RTS): fetch WQEs and send what the window allows. */
void idev_req_run(struct idev_qp *d);
/* d->req.deadline passed. */
void idev_req_timer(struct idev_qp *d);
/* Helpers shared with the completer: */
static inline uint16_t idev_sq_next(const struct idev_qp *d, uint16_t slot)
{
	return (slot + 1) & d->sq.mask;
}
/* Where fetching stopped: a pending local error, or the SQ consumer. */
static inline uint16_t idev_req_end(const struct idev_qp *d)
{
	return d->req.err_pending ? d->req.err_slot : d->sq.cons;
}
/* Send what the window allows (RC). */
void idev_req_xmit(struct idev_qp *d);
/* Restart transmission at 'psn' (go-back-N), dropping queued packets. */
void idev_req_go_back(struct idev_qp *d, uint32_t psn);
/* Point the sender at 'psn' without dropping anything. */
void idev_req_seek(struct idev_qp *d, uint32_t psn);
/* (Re)start the ACK timeout if packets are outstanding, else stop it. */
void idev_req_arm_timer(struct idev_qp *d);
/* Complete 'slot' with an error status and move the QP to ERR. */
void idev_req_fail(struct idev_qp *d, uint16_t slot, enum ionic_status st);
/* Report a pending local error once everything before it retired. */
void idev_req_check_err(struct idev_qp *d);
/* RNR NAK timer code -> nanoseconds (IBTA table). */
uint64_t idev_rnr_delay_ns(uint8_t code);

/* ---- comp.c: the completer (responses to our requests) ---- */
/* An ACK, NAK, READ response or atomic ACK for this QP. */
void idev_comp_rx(struct idev_qp *d, struct idev_pkt *pkt);
/* Retire complete WQEs from una in order (MSN CQE for remote ones). */
void idev_comp_retire(struct idev_qp *d);

/* ---- resp.c ---- */
void idev_resp_reset(struct idev_qp *d);
/* Remote memory for an incoming request: the QP's access enables, then
 * the key, PD, access and range (IONIC_STS_OK and *host, or the status). */
enum ionic_status idev_resp_resolve(struct idev_qp *d, uint32_t rkey,
				    uint64_t va, uint64_t len, uint32_t access,
				    uint8_t **host);

/* ---- resp_out.c: the responder's output, as the wire takes it ---- */
/* Start a response packet (ACK, NAK, READ response, atomic ACK) to the
 * peer, AETH saying ACK with the message count. */
void idev_resp_pkt(struct idev_qp *d, struct idev_pkt *pkt, uint8_t *buf,
		   uint8_t opcode, uint32_t psn);
/* Send a headers-only response, behind any queued READ responses. */
void idev_resp_out_small(struct idev_qp *d, const struct idev_pkt *pkt);
/* Queue the responses of a READ (validated) of 'len' bytes at rkey/va,
 * PSNs from 'psn' on, and send what the wire takes. */
void idev_resp_out_read(struct idev_qp *d, uint32_t psn, uint32_t rkey,
			uint64_t va, uint64_t len);
/* Send queued responses while the wire takes them ('force': all of them,
 * now).  True when more are left and the wire would take them (call
 * again soon); false when done or paused (the endpoint is backlogged). */
bool idev_resp_out_run(struct idev_qp *d, bool force);
static inline bool idev_resp_out_pending(const struct idev_qp *d)
{
	return d->resp.out.count != 0;
}
/* A request packet (RC or UD) for this QP. */
void idev_resp_rx(struct idev_qp *d, struct idev_pkt *pkt);
/* The 40-byte GRH area a UD receive of (parsed) frame 'pkt' begins with
 * (direct-path executors write the same). */
#define IDEV_GRH_SIZE 40
void idev_resp_ud_grh(uint8_t grh[IDEV_GRH_SIZE], const struct idev_pkt *pkt);

#endif /* IDEV_QP_H */
