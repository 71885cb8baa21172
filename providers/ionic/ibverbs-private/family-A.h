/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * libibverbs provider ABI of layout family A: rdma-core v39 (Ubuntu 22.04).
 * The oldest family.  Its ibv_qp_ex has no wr_atomic_write slot yet
 * (344 bytes), so verbs_qp.comp_mask sits at 344.
 *
 * Chosen by cmake/IbverbsPrivate.cmake from families.h; included only
 * through ibverbs_private.h.
 */
#ifndef IONIC_IBVERBS_FAMILY_H
#define IONIC_IBVERBS_FAMILY_H

#define IONIC_IBVERBS_FAMILY A
#define IONIC_IBVERBS_PABI 34

#include "shared.h"

/* qp_ex, port_attr, verbs_context, its ibv_context, verbs_context_ops */
IONIC_IBV_FINGERPRINT(344, 52, 648, 320, 608);

#endif /* IONIC_IBVERBS_FAMILY_H */
