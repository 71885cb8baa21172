/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * libibverbs provider ABI of layout family C: rdma-core v45, v46, v48 (RHEL 9
 * minor releases).
 * After B: ibv_qp_ex gains wr_flush (v45; 360 bytes), moving
 * verbs_qp.comp_mask to 360.  Same private ABI number as B.
 *
 * Chosen by cmake/IbverbsPrivate.cmake from families.h; included only
 * through ibverbs_private.h.
 */
#ifndef IONIC_IBVERBS_FAMILY_H
#define IONIC_IBVERBS_FAMILY_H

#define IONIC_IBVERBS_FAMILY C
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
IONIC_IBV_FINGERPRINT(360, 52, 648, 320, 608);

#endif /* IONIC_IBVERBS_FAMILY_H */
