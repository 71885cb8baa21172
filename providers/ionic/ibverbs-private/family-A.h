/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * libibverbs provider ABI of layout family A: rdma-core v39 (Ubuntu 22.04),
 * v40, v41, v42, v43.
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

/*
 * What the library file shows, checked by configure
 * (cmake/IbverbsPrivate.cmake): how many symbols of version
 * IBVERBS_PRIVATE_<pabi> it exports (the version entry itself not counted;
 * another count is only a warning), and the y of its file name
 * libibverbs.so.1.y.<release>.<patch>.
 */
#define IONIC_IBVERBS_PRIVATE_EXPORTS 71
#define IONIC_IBVERBS_LIB_MINOR 14

/* qp_ex, port_attr, verbs_context, its ibv_context, verbs_context_ops */
IONIC_IBV_FINGERPRINT(344, 52, 648, 320, 608);

#endif /* IONIC_IBVERBS_FAMILY_H */
