/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Direct-verbs API of the AMD Pensando ionic RDMA provider (libionic).
 *
 * Link with -lionic (pkg-config libionic).  Every function accepts objects
 * of any provider: with objects that do not belong to an ionic device the
 * getters return 0 and the setters return EPERM.
 *
 * UDMA pipelines: an ionic device processes queues on one or two
 * independent pipelines.  A QP runs on exactly one of them and completes
 * only into that pipeline's part of its CQs; a CQ is therefore built over
 * every pipeline in its mask.  The masks below choose which pipelines new
 * queues may use.
 *
 * Controller memory (CMB): the device can hold a send or receive ring in
 * its own memory, which saves the device a DMA read per work request; with
 * an express doorbell, writing the work request into that memory also
 * rings the doorbell.
 */
#ifndef INFINIBAND_IONIC_DV_H
#define INFINIBAND_IONIC_DV_H

#include <stdbool.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Number of UDMA pipelines of the device (1 or 2); 0 if not ionic. */
uint8_t ionic_dv_ctx_get_udma_count(struct ibv_context *ibctx);

/* Mask of all pipelines of the device, (1 << count) - 1; 0 if not ionic. */
uint8_t ionic_dv_ctx_get_udma_mask(struct ibv_context *ibctx);

/* Pipelines queues created with this PD may use; 0 if not ionic. */
uint8_t ionic_dv_pd_get_udma_mask(struct ibv_pd *ibpd);

/*
 * Restrict the pipelines of queues created afterwards with this PD (or
 * parent domain).  Returns 0, EPERM if the PD is not ionic, or EINVAL if
 * the mask has a bit outside ionic_dv_ctx_get_udma_mask().  A zero mask is
 * accepted: QPs then take any pipeline, but CQ creation fails.
 */
int ionic_dv_pd_set_udma_mask(struct ibv_pd *ibpd, uint8_t udma_mask);

/*
 * Preference for placing the send (sqcmb) or receive (rqcmb) ring of QPs
 * created afterwards with this PD in controller memory:
 *  enable   ask for controller memory at all (default: yes);
 *  expdb    also ask for express doorbells (default: if the device has them);
 *  require  make the express-doorbell wish mandatory: with expdb and a
 *           device that has no express doorbell for this queue type the
 *           call fails with EINVAL (without require the wish is dropped).
 * The device may still decline controller memory when the QP is created;
 * the ring then stays in host memory.
 * Returns 0, or EPERM if the PD is not ionic, or EINVAL as described.
 */
int ionic_dv_pd_set_sqcmb(struct ibv_pd *ibpd, bool enable, bool expdb,
			  bool require);
int ionic_dv_pd_set_rqcmb(struct ibv_pd *ibpd, bool enable, bool expdb,
			  bool require);

#ifdef __cplusplus
}
#endif

#endif /* INFINIBAND_IONIC_DV_H */
