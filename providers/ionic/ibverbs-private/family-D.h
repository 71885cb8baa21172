/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * libibverbs provider ABI of layout family D: rdma-core v49 (SLES 15 SP6,
 * openSUSE Leap 15.6), v50 (Ubuntu 24.04), v51, v52.
 * After C: ibv_port_attr gains active_speed_ex (v49; 52 -> 56 bytes),
 * which ibv_cmd_query_port fills; ibv_wr_opcode_str is exported.
 *
 * Chosen by cmake/IbverbsPrivate.cmake from families.h; included only
 * through ibverbs_private.h.
 */
#ifndef IONIC_IBVERBS_FAMILY_H
#define IONIC_IBVERBS_FAMILY_H

#define IONIC_IBVERBS_FAMILY D
#define IONIC_IBVERBS_PABI 34

#include "shared.h"

/*
 * What the library file shows, checked by configure
 * (cmake/IbverbsPrivate.cmake): how many symbols of version
 * IBVERBS_PRIVATE_<pabi> it exports (the version entry itself not counted;
 * another count is only a warning), and the y of its file name
 * libibverbs.so.1.y.<release>.<patch>.
 */
#define IONIC_IBVERBS_PRIVATE_EXPORTS 72
#define IONIC_IBVERBS_LIB_MINOR 14

/* qp_ex, port_attr, verbs_context, its ibv_context, verbs_context_ops */
IONIC_IBV_FINGERPRINT(360, 56, 648, 320, 608);

#endif /* IONIC_IBVERBS_FAMILY_H */
