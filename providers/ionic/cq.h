/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Completion queues: a verbs CQ is a virtual CQ (vCQ) over one hardware CQ
 * per UDMA pipeline in its mask.  Creation and arming live in cq.c, the
 * poll path in poll.c (its error and flush half in poll_error.c), the
 * extended-CQ readers in cq_ex.c.
 */
#ifndef IONIC_CQ_H
#define IONIC_CQ_H

#include "ionic.h"

/* cq.c */
struct ibv_cq *ionic_create_cq(struct ibv_context *ibctx, int cqe,
			       struct ibv_comp_channel *channel,
			       int comp_vector);
struct ibv_cq_ex *ionic_create_cq_ex(struct ibv_context *ibctx,
				     struct ibv_cq_init_attr_ex *attr);
int ionic_destroy_cq(struct ibv_cq *ibcq);
int ionic_req_notify_cq(struct ibv_cq *ibcq, int solicited_only);

/* poll.c */
int ionic_poll_cq(struct ibv_cq *ibcq, int nwc, struct ibv_wc *wc);

#endif /* IONIC_CQ_H */
