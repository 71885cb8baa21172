/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * libibverbs provider ABI of layout family E: rdma-core v53, v54, v56
 * (Debian 13).
 * After D: ibv_cmd_create_cq_ex2 is exported (v53) and
 * ibv_cmd_reg_dmabuf_mr gains an 8th parameter (v54).  Layouts as in D.
 * v53 has the 7-parameter ibv_cmd_reg_dmabuf_mr and is of this family all
 * the same: libionic passes NULL as the 8th argument (variants.h), which a
 * 7-parameter callee never reads (it is the last argument, and the caller
 * pops it), so every build of E is correct on v53 and v53 shows E's
 * fingerprint to the load guard.
 *
 * Chosen by cmake/IbverbsPrivate.cmake from families.h; included only
 * through ibverbs_private.h.
 */
#ifndef IONIC_IBVERBS_FAMILY_H
#define IONIC_IBVERBS_FAMILY_H

#define IONIC_IBVERBS_FAMILY E
#define IONIC_IBVERBS_PABI 34

#include "shared.h"

/*
 * What the library file shows, checked by configure
 * (cmake/IbverbsPrivate.cmake): how many symbols of version
 * IBVERBS_PRIVATE_<pabi> it exports (the version entry itself not counted;
 * another count is only a warning), and the y of its file name
 * libibverbs.so.1.y.<release>.<patch>.
 */
#define IONIC_IBVERBS_PRIVATE_EXPORTS 73
#define IONIC_IBVERBS_LIB_MINOR 14

/* qp_ex, port_attr, verbs_context, its ibv_context, verbs_context_ops */
IONIC_IBV_FINGERPRINT(360, 56, 648, 320, 608);

#endif /* IONIC_IBVERBS_FAMILY_H */
