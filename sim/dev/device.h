/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim device: the calls the emulated kernel driver (sim/kernel) makes
 * into the emulated NIC (sim/dev + sim/fabric).  They stand for the admin
 * commands the real driver sends to firmware.  All are called with
 * nic->lock held, from application threads; the engine thread takes the
 * same lock whenever it touches objects.
 *
 * Return convention: 0 or a negative errno.
 */
#ifndef ISIM_DEVICE_H
#define ISIM_DEVICE_H

#include "../kernel/objects.h"

/* Start/stop the engine thread of a NIC (doorbells, fabric, timers). */
int isim_dev_start(struct isim_nic *nic);
void isim_dev_stop(struct isim_nic *nic);
/* In a fork() child: close the fds of the parent's device (its QPs'
 * fabric endpoints, the engine's epoll and wake fds) so that the child
 * holds no name on the fabric.  The parent's device is unaffected. */
void isim_dev_atfork_child(struct isim_nic *old);

/* Admin CREATE_QP: claim qp->qpn on the fabric (fails with -EADDRINUSE if
 * another process of the same node holds it: the kernel then tries the
 * next id) and allocate the device state (qp->dev). */
int isim_dev_qp_create(struct isim_nic *nic, struct isim_qp *qp);
/* Admin MODIFY_QP, after the kernel validated and applied the attributes.
 * RESET restarts the device indices and MSN; ERR stops processing and emits
 * flush indicators for queues that have work. */
void isim_dev_qp_modify(struct isim_nic *nic, struct isim_qp *qp,
			enum ibv_qp_state old_state, int attr_mask);
/* Admin DESTROY_QP: release the fabric endpoint and device state. */
void isim_dev_qp_destroy(struct isim_nic *nic, struct isim_qp *qp);

/* Admin CREATE_CQ/DESTROY_CQ for one hardware CQ. */
int isim_dev_cq_create(struct isim_nic *nic, struct isim_hwcq *hw);
void isim_dev_cq_destroy(struct isim_nic *nic, struct isim_hwcq *hw);

/* A doorbell store captured on the page of 'file' (cookie of the page).
 * Called by the engine thread, in capture order, with nic->lock held. */
void isim_dev_doorbell(struct isim_nic *nic, struct isim_file *file,
		       uint32_t offset, uint64_t value);

#endif /* ISIM_DEVICE_H */
