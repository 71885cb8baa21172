/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim device: memory operations carried by work requests: binding a
 * memory window (BIND_MW), local invalidation (LOCAL_INV) and remote
 * invalidation by a received SEND_WITH_INV (docs/device-contract.md §3.3
 * (e)-(h), docs/kernel-contract.md §11.4).  They change the key objects admin
 * CREATE_MR made (struct idev_mr, dev.h): as on the real device, the data path
 * owns a window's binding and every key's validity once the object exists.
 *
 * Caller holds the device lock.
 */
#ifndef IDEV_DEV_MW_H
#define IDEV_DEV_MW_H

#include "../../common/ionic_hw.h"
#include "dev.h"
#include "wqe.h"

/* Execute a BIND_MW WQE of a QP in 'pd'.  MEM_MGMT_OPER_ERR if refused. */
enum ionic_status idev_mw_bind(struct idev *dev, uint32_t pdid,
			       const struct idev_wqe *w);
/* LOCAL_INV of 'key' (a type-2 window of 'pd').  MEM_MGMT_OPER_ERR if
 * refused. */
enum ionic_status idev_mw_local_inv(struct idev *dev, uint32_t pdid,
				    uint32_t key);
/* Invalidation requested by a SEND_WITH_INV from the peer; same rules. */
enum ionic_status idev_mw_remote_inv(struct idev *dev, uint32_t pdid,
				     uint32_t rkey);

#endif /* IDEV_DEV_MW_H */
