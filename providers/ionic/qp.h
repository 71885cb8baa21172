/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Queue pairs: creation, modify, query and destroy in qp.c; the send and
 * receive posting path in post.c.
 */
#ifndef IONIC_QP_H
#define IONIC_QP_H

#include "ionic.h"

/* qp.c */
struct ibv_qp *ionic_create_qp(struct ibv_pd *ibpd,
			       struct ibv_qp_init_attr *attr);
struct ibv_qp *ionic_create_qp_ex(struct ibv_context *ibctx,
				  struct ibv_qp_init_attr_ex *attr);
int ionic_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		    int attr_mask);
int ionic_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int attr_mask,
		   struct ibv_qp_init_attr *init_attr);
int ionic_destroy_qp(struct ibv_qp *ibqp);

/* post.c */
int ionic_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr);
int ionic_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
		  struct ibv_mw_bind *mw_bind);
int ionic_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr);

#endif /* IONIC_QP_H */
