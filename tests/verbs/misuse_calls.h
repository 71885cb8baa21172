/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * verbs-misuse: the calls the table's rows name (misuse_qp_calls.c,
 * misuse_obj_calls.c).  Each returns the errno its one bad call gave, 0
 * if the call was accepted.
 */
#ifndef IONIC_TESTS_VERBS_MISUSE_CALLS_H
#define IONIC_TESTS_VERBS_MISUSE_CALLS_H

#include <fcntl.h>

#include "misuse.h"

/* the argument encodings of the QP calls */
enum {
	MU_CAP_SEND_WR,
	MU_CAP_RECV_WR,
	MU_CAP_SEND_SGE,
	MU_CAP_RECV_SGE,
	MU_CAP_INLINE,
	MU_CAP_UD = 0x100,
};

/* The attributes of the transition out of 'from' on an RC QP toward
 * itself, with one field made bad by 'which' = r->a (value r->b). */
enum mu_bad {
	MU_BAD_NONE,
	MU_BAD_RD_ATOMIC, /* RTR->RTS max_rd_atomic */
	MU_BAD_DEST_RD_ATOMIC, /* INIT->RTR max_dest_rd_atomic */
	MU_BAD_DEST_QPN,
	MU_BAD_PATH_MTU,
	MU_BAD_NO_GRH,
	MU_BAD_SGID_INDEX,
	MU_BAD_PORT, /* RESET->INIT */
	MU_BAD_PKEY_INDEX, /* RESET->INIT */
	MU_BAD_CAP, /* RESET->INIT with IBV_QP_CAP */
	MU_BAD_MISSING, /* INIT->RTR without IBV_QP_AV */
	MU_BAD_CUR_STATE, /* RTS->RTS naming cur_qp_state RTR */
	MU_BAD_NEW_STATE, /* a state number beyond ERR */
	MU_BAD_TIMEOUT_IN_INIT, /* RESET->INIT with an RTS attribute */
};

enum mu_post {
	MU_POST_OK, /* one valid SEND (to itself) */
	MU_POST_SGE, /* num_sge = b */
	MU_POST_INLINE, /* inline SEND of b bytes */
	MU_POST_OPCODE, /* opcode b */
	MU_POST_TOO_MANY, /* one WR more than max_send_wr */
	MU_POST_NO_BAD_WR, /* bad_wr == NULL */
	MU_POST_UD_NO_AH,
	MU_POST_RECV_SGE, /* receive with num_sge = b */
	MU_POST_RECV_TOO_MANY,
	MU_POST_RECV_OK,
	MU_POST_RECV_NO_BAD_WR,
};

#define MU_ABOVE_MAX 0x7fffffffl

/* The end of a call that creates an object: the errno if 'obj' is NULL,
 * else 0 once 'destroy' has removed it again. */
#define MU_CREATED(obj, destroy)           \
	do {                               \
		if (!(obj))                \
			return errno;      \
		CHECK_RC(destroy(obj), 0); \
		return 0;                  \
	} while (0)
#define MU_QP(type, state) ((long)(type) << 8 | (long)(state))
#define MU_HOW(how, arg) ((long)(how) << 16 | (long)(arg))

int mu_create_cap(struct mu_env *e, const struct mu_row *r);
int mu_create_type(struct mu_env *e, const struct mu_row *r);
int mu_create_no_cq(struct mu_env *e, const struct mu_row *r);
int mu_create_ex(struct mu_env *e, const struct mu_row *r);
int mu_modify_rc(struct mu_env *e, const struct mu_row *r);
int mu_modify_transition(struct mu_env *e, const struct mu_row *r);
int mu_modify_ud_qkey(struct mu_env *e, const struct mu_row *r);
int mu_modify_nothing(struct mu_env *e, const struct mu_row *r);
int mu_post(struct mu_env *e, const struct mu_row *r);
int mu_wr_complete(struct mu_env *e, const struct mu_row *r);
int mu_create_ah(struct mu_env *e, const struct mu_row *r);

int mu_query_port(struct mu_env *e, const struct mu_row *r);
int mu_query_gid_ex(struct mu_env *e, const struct mu_row *r);
int mu_dealloc_pd_busy(struct mu_env *e, const struct mu_row *r);
int mu_reg_mr(struct mu_env *e, const struct mu_row *r);
int mu_reg_dmabuf_mr(struct mu_env *e, const struct mu_row *r);
int mu_alloc_mw(struct mu_env *e, const struct mu_row *r);
int mu_bind_mw(struct mu_env *e, const struct mu_row *r);
int mu_create_cq(struct mu_env *e, const struct mu_row *r);
int mu_create_cq_ex(struct mu_env *e, const struct mu_row *r);
int mu_destroy_cq_busy(struct mu_env *e, const struct mu_row *r);
int mu_resize_cq(struct mu_env *e, const struct mu_row *r);
int mu_req_notify_no_channel(struct mu_env *e, const struct mu_row *r);
int mu_destroy_channel_busy(struct mu_env *e, const struct mu_row *r);
int mu_alloc_td(struct mu_env *e, const struct mu_row *r);
int mu_dealloc_td_busy(struct mu_env *e, const struct mu_row *r);
int mu_parent_domain(struct mu_env *e, const struct mu_row *r);
int mu_create_srq(struct mu_env *e, const struct mu_row *r);
int mu_open_xrcd(struct mu_env *e, const struct mu_row *r);
int mu_alloc_dm(struct mu_env *e, const struct mu_row *r);
int mu_attach_mcast(struct mu_env *e, const struct mu_row *r);

#endif
