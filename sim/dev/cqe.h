/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim device: the one place that writes CQEs into user CQ rings
 * (ionic-device.md §5, §6, §8) and handles the CQ doorbell rings.
 *
 * Caller holds nic->lock.
 */
#ifndef ISIM_DEV_CQE_H
#define ISIM_DEV_CQE_H

#include <stdbool.h>
#include <stdint.h>

#include "../../common/ionic_hw.h"
#include "../kernel/objects.h"

/*
 * Write one CQE at the device producer position of 'hw'.  'cqe' carries
 * the body, status_length and qid_type_flags without the colour bit; the
 * writer adds the colour of the current pass and publishes the last word
 * with release ordering.  'solicited' marks CQEs that fire a
 * solicited-only arm.
 *
 * Returns 0, or -ENOSPC when the CQ has no credit left (the host's last
 * reported consumer index would be overrun): the CQE is not written, the
 * CQ enters its error state (one IBV_EVENT_CQ_ERR) and stays there.
 */
int isim_cqe_post(struct isim_hwcq *hw, const struct ionic_cqe *cqe,
		  bool solicited);

/* Builders: fill *cqe (zeroed first) for isim_cqe_post(). */
void isim_cqe_recv(struct ionic_cqe *cqe, uint32_t qpn, uint16_t wqe_idx,
		   uint32_t byte_len, uint32_t src_qpn, unsigned int op,
		   uint32_t imm_raw, const uint8_t src_mac[6],
		   uint16_t vlan_tci);
void isim_cqe_recv_err(struct ionic_cqe *cqe, uint32_t qpn, uint16_t wqe_idx,
		       enum ionic_status status);
void isim_cqe_msn(struct ionic_cqe *cqe, uint32_t qpn, uint32_t msn,
		  enum ionic_status status);
void isim_cqe_npg(struct ionic_cqe *cqe, uint32_t qpn, uint16_t wqe_idx,
		  enum ionic_status status);
/* Flush indicator: error + WQE_FLUSHED, NPG type for the SQ, RECV for the
 * RQ, naming no WQE (§12.2). */
void isim_cqe_flush(struct ionic_cqe *cqe, uint32_t qpn, bool sq);

/* CQ doorbell, rings 0 (consumer index), 1 (arm any), 2 (arm solicited). */
void isim_cq_doorbell(struct isim_hwcq *hw, unsigned int ring, uint16_t index);

/* Device state of a fresh hardware CQ: colour 1, producer 0, no arm. */
void isim_cq_reset(struct isim_hwcq *hw);

/* CQEs written and not yet reported consumed on ring 0. */
static inline uint32_t isim_cq_outstanding(const struct isim_hwcq *hw)
{
	return (hw->prod - hw->host_cons) & hw->desc.mask;
}

#endif /* ISIM_DEV_CQE_H */
