// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * verbs-misuse: the calls of the table's QP rows (create, modify, post,
 * extended send API, address handles).  Each builds what it needs, makes
 * the bad call, undoes everything and returns the errno it saw.
 */
#include "misuse.h"
#include "misuse_calls.h"

static const struct fx_qp_opts *mu_opts(void)
{
	static struct fx_qp_opts o;

	fx_qp_opts_default(&o, IBV_QPT_RC);
	return &o;
}

struct ibv_qp_init_attr mu_qp_attr(struct mu_env *e, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = e->cq,
		.recv_cq = e->cq,
		.qp_type = type,
		.cap = { 8, 8, 2, 2, 32 },
	};

	return ia;
}

struct ibv_qp_attr mu_rtr_attr(const struct mu_env *e, uint32_t dqpn,
			       uint8_t max_dest_rd_atomic)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = IBV_MTU_1024,
		.dest_qp_num = dqpn,
		.max_dest_rd_atomic = max_dest_rd_atomic,
		.min_rnr_timer = 12,
		.ah_attr = { .is_global = 1,
			     .port_num = 1,
			     .grh = { .dgid = e->gid,
				      .sgid_index = 1,
				      .hop_limit = 64 } },
	};

	return a;
}

struct ibv_qp_attr mu_rts_attr(uint8_t max_rd_atomic)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTS,
				 .timeout = 14,
				 .retry_cnt = 7,
				 .rnr_retry = 7,
				 .max_rd_atomic = max_rd_atomic };

	return a;
}

struct ibv_qp *mu_qp(struct mu_env *e, enum ibv_qp_type type,
		     enum ibv_qp_state state)
{
	struct ibv_qp_init_attr ia = mu_qp_attr(e, type);
	struct ibv_qp *qp = ibv_create_qp(e->pd, &ia);
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	int rc = 0;

	REQUIRE(qp);
	if (state == IBV_QPS_RESET)
		return qp;
	if (state == IBV_QPS_ERR) {
		CHECK_RC(ibv_modify_qp(qp, &a, IBV_QP_STATE), 0);
		return qp;
	}
	if (type == IBV_QPT_UD) {
		/* INIT, RTR, RTS in turn; fx_ud_to_rts goes all the way */
		struct ibv_qp_attr u = { .qp_state = IBV_QPS_INIT,
					 .port_num = 1,
					 .qkey = 0x11111111 };

		rc = ibv_modify_qp(qp, &u,
				   IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					   IBV_QP_PORT | IBV_QP_QKEY);
		if (!rc && state >= IBV_QPS_RTR) {
			u.qp_state = IBV_QPS_RTR;
			rc = ibv_modify_qp(qp, &u, IBV_QP_STATE);
		}
		if (!rc && state >= IBV_QPS_RTS) {
			u.qp_state = IBV_QPS_RTS;
			rc = ibv_modify_qp(qp, &u,
					   IBV_QP_STATE | IBV_QP_SQ_PSN);
		}
	} else {
		rc = fx_rc_to_init(qp);
		if (!rc && state >= IBV_QPS_RTR)
			rc = fx_rc_to_rtr(qp, &e->gid, qp->qp_num, mu_opts());
		if (!rc && state >= IBV_QPS_RTS)
			rc = fx_rc_to_rts(qp, mu_opts());
	}
	CHECK_RC(rc, 0);
	return qp;
}

static void mu_destroy_qp(struct mu_env *e, struct ibv_qp *qp)
{
	struct ibv_wc wc[16];

	CHECK_RC(ibv_destroy_qp(qp), 0);
	/* the shared CQ keeps nothing of it */
	while (ibv_poll_cq(e->cq, 16, wc) > 0)
		;
}

/* ---- create ---------------------------------------------------------- */

/* What a creation call gave: its errno, or 0 once the QP is gone again. */
static int mu_created(struct ibv_qp *qp)
{
	MU_CREATED(qp, ibv_destroy_qp);
}

/* Create with one capability replaced: a = which (MU_CAP_*, plus MU_CAP_UD
 * for a UD QP), b = value. */
int mu_create_cap(struct mu_env *e, const struct mu_row *r)
{
	enum ibv_qp_type type = r->a & MU_CAP_UD ? IBV_QPT_UD : IBV_QPT_RC;
	uint32_t v = (uint32_t)r->b;
	struct ibv_qp_init_attr ia = mu_qp_attr(e, type);
	uint32_t *f[] = { &ia.cap.max_send_wr, &ia.cap.max_recv_wr,
			  &ia.cap.max_send_sge, &ia.cap.max_recv_sge,
			  &ia.cap.max_inline_data };
	struct ibv_qp *qp;

	*f[r->a & ~MU_CAP_UD] = v;
	qp = ibv_create_qp(e->pd, &ia);
	if (!qp)
		return errno;
	/* what was granted covers what was asked, and one SGE at least */
	CHECK_GE(*f[r->a & ~MU_CAP_UD], v);
	CHECK_GE(ia.cap.max_send_sge, 1);
	CHECK_GE(ia.cap.max_recv_sge, 1);
	CHECK_RC(ibv_destroy_qp(qp), 0);
	return 0;
}

/* a = QP type */
int mu_create_type(struct mu_env *e, const struct mu_row *r)
{
	struct ibv_qp_init_attr ia = mu_qp_attr(e, (enum ibv_qp_type)r->a);

	return mu_created(ibv_create_qp(e->pd, &ia));
}

/* a = 0: no send CQ, 1: no receive CQ */
int mu_create_no_cq(struct mu_env *e, const struct mu_row *r)
{
	struct ibv_qp_init_attr ia = mu_qp_attr(e, IBV_QPT_RC);

	if (r->a)
		ia.recv_cq = NULL;
	else
		ia.send_cq = NULL;
	return mu_created(ibv_create_qp(e->pd, &ia));
}

/* ibv_create_qp_ex with a = comp_mask extra bits, b = create_flags /
 * send_ops_flags (by the bit in a) */
int mu_create_ex(struct mu_env *e, const struct mu_row *r)
{
	struct ibv_qp_init_attr ia = mu_qp_attr(e, IBV_QPT_RC);
	struct ibv_qp_init_attr_ex x = {
		.send_cq = ia.send_cq,
		.recv_cq = ia.recv_cq,
		.cap = ia.cap,
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD | (uint32_t)r->a,
		.pd = e->pd,
	};

	if (r->a & IBV_QP_INIT_ATTR_CREATE_FLAGS)
		x.create_flags = (uint32_t)r->b;
	if (r->a & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
		x.send_ops_flags = (uint64_t)r->b;
	return mu_created(ibv_create_qp_ex(e->ctx, &x));
}

/* ---- modify ---------------------------------------------------------- */

int mu_modify_rc(struct mu_env *e, const struct mu_row *r)
{
	enum ibv_qp_state from = IBV_QPS_RESET;
	struct ibv_qp_attr a = { 0 };
	struct ibv_qp *qp;
	int mask, rc;

	switch (r->a) {
	case MU_BAD_RD_ATOMIC:
	case MU_BAD_CUR_STATE:
		from = IBV_QPS_RTR;
		break;
	case MU_BAD_DEST_RD_ATOMIC:
	case MU_BAD_DEST_QPN:
	case MU_BAD_PATH_MTU:
	case MU_BAD_NO_GRH:
	case MU_BAD_SGID_INDEX:
	case MU_BAD_MISSING:
		from = IBV_QPS_INIT;
		break;
	default:
		break;
	}
	if (r->a == MU_BAD_CUR_STATE)
		from = IBV_QPS_RTS;
	qp = mu_qp(e, IBV_QPT_RC, from);

	if (from == IBV_QPS_RESET) {
		a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_INIT,
					  .port_num = 1 };
		mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		       IBV_QP_ACCESS_FLAGS;
	} else if (from == IBV_QPS_INIT) {
		a = mu_rtr_attr(e, qp->qp_num, 1);
		mask = MU_RTR_MASK;
	} else if (from == IBV_QPS_RTR) {
		a = mu_rts_attr(1);
		mask = MU_RTS_MASK;
	} else {
		a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS };
		mask = IBV_QP_STATE;
	}

	switch (r->a) {
	case MU_BAD_RD_ATOMIC:
		a.max_rd_atomic = (uint8_t)r->b;
		break;
	case MU_BAD_DEST_RD_ATOMIC:
		a.max_dest_rd_atomic = (uint8_t)r->b;
		break;
	case MU_BAD_DEST_QPN:
		a.dest_qp_num = (uint32_t)r->b;
		break;
	case MU_BAD_PATH_MTU:
		a.path_mtu = (enum ibv_mtu)r->b;
		break;
	case MU_BAD_NO_GRH:
		a.ah_attr.is_global = 0;
		break;
	case MU_BAD_SGID_INDEX:
		a.ah_attr.grh.sgid_index = (uint8_t)r->b;
		break;
	case MU_BAD_PORT:
		a.port_num = (uint8_t)r->b;
		break;
	case MU_BAD_PKEY_INDEX:
		a.pkey_index = (uint16_t)r->b;
		break;
	case MU_BAD_CAP:
		mask |= IBV_QP_CAP;
		break;
	case MU_BAD_MISSING:
		mask &= ~IBV_QP_AV;
		break;
	case MU_BAD_CUR_STATE:
		a.cur_qp_state = IBV_QPS_RTR;
		mask |= IBV_QP_CUR_STATE;
		break;
	case MU_BAD_NEW_STATE:
		a.qp_state = (enum ibv_qp_state)r->b;
		break;
	case MU_BAD_TIMEOUT_IN_INIT:
		a.timeout = 14;
		mask |= IBV_QP_TIMEOUT;
		break;
	default:
		break;
	}
	rc = ibv_modify_qp(qp, &a, mask);
	if (rc) {
		/* a refused modify changes nothing */
		struct ibv_qp_init_attr init;
		struct ibv_qp_attr q;

		CHECK_RC(ibv_query_qp(qp, &q, IBV_QP_STATE, &init), 0);
		CHECK_EQ(q.qp_state, from);
	}
	mu_destroy_qp(e, qp);
	return rc;
}

/* A transition the state table does not have: a = from, b = to */
int mu_modify_transition(struct mu_env *e, const struct mu_row *r)
{
	struct ibv_qp *qp = mu_qp(e, IBV_QPT_RC, (enum ibv_qp_state)r->a);
	struct ibv_qp_attr a = { .qp_state = (enum ibv_qp_state)r->b };
	int rc = ibv_modify_qp(qp, &a, IBV_QP_STATE);

	mu_destroy_qp(e, qp);
	return rc;
}

/* UD RESET->INIT with qkey a (bit 31: privileged) */
int mu_modify_ud_qkey(struct mu_env *e, const struct mu_row *r)
{
	struct ibv_qp *qp = mu_qp(e, IBV_QPT_UD, IBV_QPS_RESET);
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT,
				 .port_num = 1,
				 .qkey = (uint32_t)r->a };
	int rc = ibv_modify_qp(qp, &a,
			       IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				       IBV_QP_QKEY);

	mu_destroy_qp(e, qp);
	return rc;
}

/* attr_mask 0 is "nothing to do" */
int mu_modify_nothing(struct mu_env *e, const struct mu_row *r)
{
	struct ibv_qp *qp = mu_qp(e, IBV_QPT_RC, IBV_QPS_RESET);
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTS };
	int rc = ibv_modify_qp(qp, &a, 0);

	(void)r;
	mu_destroy_qp(e, qp);
	return rc;
}

/* ---- post ------------------------------------------------------------ */

/* Post on a QP of type a >> 8 in state a & 0xff; how by b >> 16, argument
 * b & 0xffff.  A rejected post names the first WR in *bad_wr. */
int mu_post(struct mu_env *e, const struct mu_row *r)
{
	enum ibv_qp_type type = (enum ibv_qp_type)(r->a >> 8);
	enum ibv_qp_state state = (enum ibv_qp_state)(r->a & 0xff);
	enum mu_post how = (enum mu_post)(r->b >> 16);
	int arg = (int)(r->b & 0xffff);
	struct ibv_qp *qp = mu_qp(e, type, state);
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr q;
	struct ibv_sge sge[32];
	struct ibv_send_wr wr[600], *bad = NULL;
	struct ibv_recv_wr rwr[600], *rbad = NULL;
	struct ibv_ah *ah = NULL;
	int i, n = 1, rc;
	bool recv = how >= MU_POST_RECV_SGE;
	bool nobad = how == MU_POST_NO_BAD_WR || how == MU_POST_RECV_NO_BAD_WR;

	REQUIRE_EQ(ibv_query_qp(qp, &q, IBV_QP_CAP, &init), 0);
	for (i = 0; i < 32; i++)
		sge[i] = (struct ibv_sge){ (uintptr_t)e->buf + 64 * i, 64,
					   e->mr->lkey };
	memset(wr, 0, sizeof(wr));
	memset(rwr, 0, sizeof(rwr));
	if (how == MU_POST_TOO_MANY)
		n = (int)q.cap.max_send_wr + 1;
	if (how == MU_POST_RECV_TOO_MANY)
		n = (int)q.cap.max_recv_wr + 1;
	REQUIRE(n <= 600);
	if (type == IBV_QPT_UD && how != MU_POST_UD_NO_AH) {
		ah = fx_make_ah(e->pd, &e->gid);
		REQUIRE(ah);
	}
	for (i = 0; i < n; i++) {
		wr[i].wr_id = (uint64_t)i;
		wr[i].sg_list = sge;
		wr[i].num_sge = 1;
		wr[i].opcode = IBV_WR_SEND;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
		wr[i].wr.ud.ah = ah;
		wr[i].wr.ud.remote_qpn = qp->qp_num;
		wr[i].wr.ud.remote_qkey = 0x11111111;
		rwr[i].wr_id = (uint64_t)i;
		rwr[i].sg_list = sge;
		rwr[i].num_sge = 1;
		rwr[i].next = i + 1 < n ? &rwr[i + 1] : NULL;
	}
	switch (how) {
	case MU_POST_SGE:
		wr[0].num_sge = arg;
		break;
	case MU_POST_INLINE:
		sge[0].length = (uint32_t)arg;
		wr[0].send_flags = IBV_SEND_INLINE;
		break;
	case MU_POST_OPCODE:
		wr[0].opcode = (enum ibv_wr_opcode)arg;
		wr[0].wr.rdma.remote_addr = (uintptr_t)e->buf;
		wr[0].wr.rdma.rkey = e->mr->rkey;
		break;
	case MU_POST_RECV_SGE:
		rwr[0].num_sge = arg;
		break;
	default:
		break;
	}
	if (recv)
		rc = ibv_post_recv(qp, rwr, nobad ? NULL : &rbad);
	else
		rc = ibv_post_send(qp, wr, nobad ? NULL : &bad);
	if (rc && !nobad) {
		if (how == MU_POST_TOO_MANY)
			CHECK(bad == &wr[n - 1]);
		else if (how == MU_POST_RECV_TOO_MANY)
			CHECK(rbad == &rwr[n - 1]);
		else if (recv)
			CHECK(rbad == &rwr[0]);
		else
			CHECK(bad == &wr[0]);
	}
	/* an accepted post in ERR completes as flushed */
	if (!rc && state == IBV_QPS_ERR && !recv) {
		struct ibv_wc wc;

		fx_poll_one(e->cq, &wc, MU_TMO);
		CHECK_EQ(wc.status, IBV_WC_WR_FLUSH_ERR);
	}
	mu_destroy_qp(e, qp);
	if (ah)
		CHECK_RC(ibv_destroy_ah(ah), 0);
	return rc;
}

/* ---- extended send API ----------------------------------------------- */

/* wr_complete on a QP in state a */
int mu_wr_complete(struct mu_env *e, const struct mu_row *r)
{
	struct ibv_qp_init_attr ia = mu_qp_attr(e, IBV_QPT_RC);
	struct ibv_qp_init_attr_ex x = {
		.send_cq = ia.send_cq,
		.recv_cq = ia.recv_cq,
		.cap = ia.cap,
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = e->pd,
		.send_ops_flags = IBV_QP_EX_WITH_SEND,
	};
	struct ibv_qp *qp = ibv_create_qp_ex(e->ctx, &x);
	struct ibv_qp_ex *qx;
	int rc;

	REQUIRE(qp);
	if (r->a == IBV_QPS_RTS) {
		CHECK_RC(fx_rc_to_init(qp), 0);
		CHECK_RC(fx_rc_to_rtr(qp, &e->gid, qp->qp_num, mu_opts()), 0);
		CHECK_RC(fx_rc_to_rts(qp, mu_opts()), 0);
	}
	qx = ibv_qp_to_qp_ex(qp);
	REQUIRE(qx);
	ibv_wr_start(qx);
	qx->wr_id = 1;
	ibv_wr_send(qx);
	ibv_wr_set_sge(qx, e->mr->lkey, (uintptr_t)e->buf, 8);
	rc = ibv_wr_complete(qx);
	mu_destroy_qp(e, qp);
	return rc;
}

/* ---- address handles ------------------------------------------------- */

/* a = 0: no GRH, 1: port b, 2: sgid_index b */
int mu_create_ah(struct mu_env *e, const struct mu_row *r)
{
	struct ibv_ah_attr aa = {
		.is_global = 1,
		.port_num = 1,
		.grh = { .dgid = e->gid, .sgid_index = 1, .hop_limit = 64 },
	};
	struct ibv_ah *ah;

	if (r->a == 0)
		aa.is_global = 0;
	else if (r->a == 1)
		aa.port_num = (uint8_t)r->b;
	else
		aa.grh.sgid_index = (uint8_t)r->b;
	ah = ibv_create_ah(e->pd, &aa);
	MU_CREATED(ah, ibv_destroy_ah);
}
