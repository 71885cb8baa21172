/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * libibverbs provider ABI of layout family G: rdma-core v59, v60.
 * After F: private ABI 59; verbs_context gains three leading pointers
 * (672 bytes, ibv_context at 344) and verbs_context_ops three entries
 * (632 bytes); ibv_cmd_create_cq_ex gains prov_attr.
 *
 * Chosen by cmake/IbverbsPrivate.cmake from families.h; included only
 * through ibverbs_private.h.
 */
#ifndef IONIC_IBVERBS_FAMILY_H
#define IONIC_IBVERBS_FAMILY_H

#define IONIC_IBVERBS_FAMILY G
#define IONIC_IBVERBS_PABI 59

#include "shared.h"

/*
 * What the library file shows, checked by configure
 * (cmake/IbverbsPrivate.cmake): how many symbols of version
 * IBVERBS_PRIVATE_<pabi> it exports (the version entry itself not counted;
 * another count is only a warning), and the y of its file name
 * libibverbs.so.1.y.<release>.<patch>.
 */
#define IONIC_IBVERBS_PRIVATE_EXPORTS 76
#define IONIC_IBVERBS_LIB_MINOR 15

/* qp_ex, port_attr, verbs_context, its ibv_context, verbs_context_ops */
IONIC_IBV_FINGERPRINT(360, 56, 672, 344, 632);

/* Where the three new entries and pointers are. */
IONIC_IBV_OFF(struct verbs_context_ops, alloc_dmah, 16);
IONIC_IBV_OFF(struct verbs_context_ops, dealloc_dmah, 208);
IONIC_IBV_OFF(struct verbs_context_ops, reg_mr_ex, 568);
IONIC_IBV_OFF(struct verbs_context, reg_mr_ex, 0);
IONIC_IBV_OFF(struct verbs_context, dealloc_dmah, 8);
IONIC_IBV_OFF(struct verbs_context, alloc_dmah, 16);

#endif /* IONIC_IBVERBS_FAMILY_H */
