/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * libibverbs provider ABI of layout family F: rdma-core v57, v58.
 * After E: private ABI 57 (libionic-rdmav57.so, IBVERBS_PRIVATE_57);
 * ibv_cmd_get_context gains struct ibv_fd_arr *fd_arr.
 *
 * Chosen by cmake/IbverbsPrivate.cmake from families.h; included only
 * through ibverbs_private.h.
 */
#ifndef IONIC_IBVERBS_FAMILY_H
#define IONIC_IBVERBS_FAMILY_H

#define IONIC_IBVERBS_FAMILY F
#define IONIC_IBVERBS_PABI 57

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
