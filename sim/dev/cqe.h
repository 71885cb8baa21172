/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim device: hardware CQs (admin CREATE/DESTROY_CQ in cq.c), the
 * one place that writes CQEs into user CQ rings (docs/device-contract.md §5,
 * §6, §8) and the CQ doorbell rings.
 *
 * Caller holds the device lock.
 */
#ifndef IDEV_CQE_H
#define IDEV_CQE_H

#include <stdbool.h>
#include <stdint.h>

#include "../../common/ionic_hw.h"
#include "dev.h"

/* One hardware CQ.  The host owns the ring memory; the device owns the
 * producer index, the colour and the arm state. */
struct idev_cq {
	struct idev *dev;
	uint32_t cqid;
	uint32_t eqid; /* completion notifications go there */
	uint32_t dbid; /* doorbell page it accepts doorbells on */
	uint8_t *ring;
	uint16_t mask; /* slots - 1 */
	uint8_t stride_log2;
	uint32_t prod; /* next slot the device writes (mod slots) */
	uint8_t color; /* colour of the current pass, starts at 1 */
	uint16_t host_cons; /* last consumer index reported on ring 0 */
	uint16_t arm_any_idx; /* last ring-1 index seen */
	uint16_t arm_sol_idx; /* last ring-2 index seen */
	bool armed_any;
	bool armed_sol;
	bool overflowed; /* overran: CQ_ERR raised, until there is room */
	bool sol_pending; /* a solicited CQE lies past host_cons */
	uint32_t sol_slot; /* slot of the newest solicited CQE */
	struct idev_ring_share share; /* the ring, for direct-path peers */
};

/*
 * Write one CQE at the device producer position of 'cq'.  'cqe' carries
 * the body, status_length and qid_type_flags without the colour bit; the
 * writer adds the colour of the current pass and publishes the last word
 * with release ordering.  'solicited' marks CQEs that fire a
 * solicited-only arm.
 *
 * Returns 0, or -ENOSPC when the CQ has no credit left (the host's last
 * reported consumer index would be overrun): the CQE is not written and
 * the CQ raises CQ_ERR (once until the host makes room again, when
 * idev_cq_room() lets the QPs that lost CQEs write their flush
 * indicators).
 */
int idev_cqe_post(struct idev_cq *cq, const struct ionic_cqe *cqe,
		  bool solicited);

/* The slot image of 'cqe' in the pass of colour 'color', stamped with the
 * device clock 'clock': what idev_cqe_post writes (its last word, the
 * colour, published last), and what a remote executor writes. */
void idev_cqe_image(struct ionic_cqe *img, const struct ionic_cqe *cqe,
		    uint64_t clock, bool color);

/* Builders: fill *cqe (zeroed first) for idev_cqe_post().  'ipv4' sets
 * the receive CQE's IPv4 bit (docs/device-contract.md §5.4): the message
 * came over RoCEv2/IPv4. */
void idev_cqe_recv(struct ionic_cqe *cqe, uint32_t qpn, uint16_t wqe_idx,
		   uint32_t byte_len, uint32_t src_qpn, unsigned int op,
		   uint32_t imm_raw, const uint8_t src_mac[6],
		   uint16_t vlan_tci, bool ipv4);
void idev_cqe_recv_err(struct ionic_cqe *cqe, uint32_t qpn, uint16_t wqe_idx,
		       enum ionic_status status);
void idev_cqe_msn(struct ionic_cqe *cqe, uint32_t qpn, uint32_t msn,
		  enum ionic_status status);
void idev_cqe_npg(struct ionic_cqe *cqe, uint32_t qpn, uint16_t wqe_idx,
		  enum ionic_status status);
/* Flush indicator: error + WQE_FLUSHED, NPG type for the SQ, RECV for the
 * RQ, naming no WQE (docs/device-contract.md §12.2). */
void idev_cqe_flush(struct ionic_cqe *cqe, uint32_t qpn, bool sq);

/* A CQE some other writer put into the ring (a direct-path executor,
 * sim/dev/direct.h): the event an arm waits for, as idev_cqe_post would
 * have raised it. */
void idev_cq_remote_cqe(struct idev_cq *cq, bool solicited);

/* CQ doorbell, rings 0 (consumer index), 1 (arm any), 2 (arm solicited). */
void idev_cq_doorbell(struct idev_cq *cq, unsigned int ring, uint16_t index);

/* Device state of a fresh hardware CQ: colour 1, producer 0, no arm. */
void idev_cq_reset(struct idev_cq *cq);

/* CQEs written and not yet reported consumed on ring 0. */
static inline uint32_t idev_cq_outstanding(const struct idev_cq *cq)
{
	return (cq->prod - cq->host_cons) & cq->mask;
}

#endif /* IDEV_CQE_H */
