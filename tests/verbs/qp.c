// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * QP verbs through ionic-sim: create with various capabilities (returned
 * caps >= requested, max_recv_wr exact), unsupported types and attributes,
 * impossible capabilities, the state machine with errno on illegal
 * transitions, query_qp, reset and reuse, destroy.
 */
#include "verbs_fixture.h"

#define TMO 5000

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_device_attr da;

static struct ibv_qp *mk(enum ibv_qp_type t, uint32_t swr, uint32_t rwr,
			 uint32_t ssge, uint32_t rsge, uint32_t inl,
			 struct ibv_qp_cap *out)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = t,
		.cap = { swr, rwr, ssge, rsge, inl },
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &ia);

	if (out)
		*out = ia.cap;
	return qp;
}

static void test_caps(void)
{
	static const uint32_t wrs[] = { 1, 2, 3, 63, 64, 65, 100, 1000, 4096 };
	static const uint32_t inls[] = { 0, 1, 32, 200 };

	SECTION("create RC/UD with various caps: returned >= requested");
	for (int t = 0; t < 2; t++) {
		enum ibv_qp_type type = t ? IBV_QPT_UD : IBV_QPT_RC;

		for (unsigned int w = 0; w < sizeof(wrs) / sizeof(wrs[0]); w++)
			for (uint32_t sge = 1; sge <= 8; sge += 3)
				for (unsigned int k = 0; k < 4; k++) {
					struct ibv_qp_cap c;
					struct ibv_qp_attr qa;
					struct ibv_qp_init_attr qi;
					uint32_t sw = wrs[w],
						 rw = wrs[(w + 3) % 9];
					struct ibv_qp *qp = mk(type, sw, rw,
							       sge, 9 - sge,
							       inls[k], &c);

					if (!qp) {
						check_fail(
							__FILE__, __LINE__,
							"create type %d wr %u/%u sge %u/%u inline %u: errno %d",
							type, sw, rw, sge,
							9 - sge, inls[k],
							errno);
						continue;
					}
					CHECK_GE(c.max_send_wr, sw);
					CHECK_GE(c.max_recv_wr, rw);
					CHECK_GE(c.max_send_sge, sge);
					CHECK_GE(c.max_recv_sge, 9 - sge);
					CHECK_GE(c.max_inline_data, inls[k]);
					CHECK(c.max_send_wr <=
					      (uint32_t)da.max_qp_wr);
					/* query_qp reports the same capabilities */
					memset(&qi, 0, sizeof(qi));
					CHECK_RC(ibv_query_qp(qp, &qa,
							      IBV_QP_CAP, &qi),
						 0);
					CHECK_EQ(qa.cap.max_send_wr,
						 c.max_send_wr);
					CHECK_EQ(qa.cap.max_recv_wr,
						 c.max_recv_wr);
					CHECK_EQ(qa.cap.max_send_sge,
						 c.max_send_sge);
					CHECK_EQ(qa.cap.max_recv_sge,
						 c.max_recv_sge);
					CHECK_EQ(qa.cap.max_inline_data,
						 c.max_inline_data);
					CHECK_EQ(qi.qp_type, type);
					CHECK(qi.send_cq == cq &&
					      qi.recv_cq == cq);
					CHECK_RC(ibv_destroy_qp(qp), 0);
				}
	}

	SECTION("reported device limits are creatable");
	{
		struct ibv_qp_cap c;
		struct ibv_qp *qp = mk(IBV_QPT_RC, (uint32_t)da.max_qp_wr / 8,
				       (uint32_t)da.max_qp_wr / 8,
				       (uint32_t)da.max_sge,
				       (uint32_t)da.max_sge, 0, &c);

		CHECK(qp);
		if (qp)
			CHECK_RC(ibv_destroy_qp(qp), 0);
	}
}

static void test_recv_exact(void)
{
	SECTION("max_recv_wr is exact: +1 gives ENOMEM");
	for (uint32_t want = 1; want <= 300; want = want * 3 + 2) {
		struct ibv_qp_cap c;
		struct ibv_qp *qp = mk(IBV_QPT_RC, 4, want, 1, 1, 0, &c);
		uint8_t buf[64];
		struct ibv_mr *mr;
		struct ibv_sge sge;
		struct ibv_recv_wr wr, *bad;
		struct ibv_qp_attr qa;
		struct ibv_qp_init_attr qi;

		REQUIRE(qp);
		/* the figure a client reads back is the one to trust */
		CHECK_RC(ibv_query_qp(qp, &qa, IBV_QP_CAP, &qi), 0);
		CHECK_EQ(qa.cap.max_recv_wr, c.max_recv_wr);
		CHECK_RC(fx_rc_to_init(qp), 0);
		mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
		REQUIRE(mr);
		sge = (struct ibv_sge){ (uintptr_t)buf, sizeof(buf), mr->lkey };
		wr = (struct ibv_recv_wr){ .sg_list = &sge, .num_sge = 1 };
		for (uint32_t i = 0; i < qa.cap.max_recv_wr; i++) {
			wr.wr_id = i;
			bad = NULL;
			if (ibv_post_recv(qp, &wr, &bad)) {
				check_fail(
					__FILE__, __LINE__,
					"receive %u of max_recv_wr %u refused",
					i, qa.cap.max_recv_wr);
				break;
			}
		}
		bad = NULL;
		CHECK_RC(ibv_post_recv(qp, &wr, &bad), ENOMEM);
		CHECK(bad == &wr);
		CHECK_RC(ibv_destroy_qp(qp), 0);
		CHECK_RC(ibv_dereg_mr(mr), 0);
	}
}

static void test_refused(void)
{
	static const enum ibv_qp_type types[] = {
		IBV_QPT_UC,
		IBV_QPT_RAW_PACKET,
		IBV_QPT_XRC_SEND,
		IBV_QPT_XRC_RECV,
	};

	SECTION("unsupported QP types: EOPNOTSUPP");
	for (unsigned int i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		struct ibv_qp_init_attr_ex ia = {
			.send_cq = cq,
			.recv_cq = cq,
			.qp_type = types[i],
			.cap = { 4, 4, 1, 1, 0 },
			.comp_mask = IBV_QP_INIT_ATTR_PD,
			.pd = pd,
		};

		CHECK_NULL_ERRNO(ibv_create_qp_ex(ctx, &ia), EOPNOTSUPP);
	}
	{
		struct ibv_qp_init_attr ia = {
			.send_cq = cq,
			.recv_cq = cq,
			.qp_type = IBV_QPT_UC,
			.cap = { 4, 4, 1, 1, 0 },
		};

		CHECK_NULL_ERRNO(ibv_create_qp(pd, &ia), EOPNOTSUPP);
	}

	SECTION("unsupported send_ops_flags / create_flags: EOPNOTSUPP");
	{
		struct ibv_qp_init_attr_ex ia = {
			.send_cq = cq,
			.recv_cq = cq,
			.qp_type = IBV_QPT_RC,
			.cap = { 4, 4, 1, 1, 0 },
			.comp_mask = IBV_QP_INIT_ATTR_PD |
				     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
			.pd = pd,
			/* an operation ionic has no opcode for */
			.send_ops_flags = IBV_QP_EX_WITH_TSO,
		};
		struct ibv_qp *qp;

		CHECK_NULL_ERRNO(ibv_create_qp_ex(ctx, &ia), EOPNOTSUPP);
		ia.send_ops_flags = IBV_QP_EX_WITH_SEND |
				    IBV_QP_EX_WITH_SEND_WITH_IMM;
		qp = ibv_create_qp_ex(ctx, &ia);
		CHECK(qp);
		if (qp)
			CHECK_RC(ibv_destroy_qp(qp), 0);
		ia.qp_type = IBV_QPT_UD;
		qp = ibv_create_qp_ex(ctx, &ia);
		CHECK(qp);
		if (qp)
			CHECK_RC(ibv_destroy_qp(qp), 0);
		ia.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE;
		CHECK_NULL_ERRNO(ibv_create_qp_ex(ctx, &ia), EOPNOTSUPP);
		ia.qp_type = IBV_QPT_RC;
		ia.comp_mask = IBV_QP_INIT_ATTR_PD |
			       IBV_QP_INIT_ATTR_CREATE_FLAGS;
		ia.create_flags = 0; /* "nothing special": accepted */
		qp = ibv_create_qp_ex(ctx, &ia);
		CHECK(qp);
		if (qp)
			CHECK_RC(ibv_destroy_qp(qp), 0);
		ia.create_flags = IBV_QP_CREATE_SCATTER_FCS;
		CHECK_NULL_ERRNO(ibv_create_qp_ex(ctx, &ia), EOPNOTSUPP);
	}

	SECTION("impossible capabilities fail");
	{
		struct {
			uint32_t sw, rw, ss, rs, inl;
		} bad[] = {
			{ 0xffffffff, 4, 1, 1, 0 }, { 4, 0xffffffff, 1, 1, 0 },
			{ 4, 4, 0xffff, 1, 0 },	    { 4, 4, 1, 0xffff, 0 },
			{ 0x10000, 4, 1, 1, 0 },    { 4, 4, 1, 1, 0x100000 },
		};

		for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]);
		     i++) {
			struct ibv_qp *qp;

			errno = 0;
			qp = mk(IBV_QPT_RC, bad[i].sw, bad[i].rw, bad[i].ss,
				bad[i].rs, bad[i].inl, NULL);
			if (qp) {
				check_fail(__FILE__, __LINE__,
					   "caps #%u accepted", i);
				ibv_destroy_qp(qp);
			} else {
				CHECK_EQ(errno, EINVAL);
			}
		}
	}

	SECTION("QP without CQ fails");
	{
		struct ibv_qp_init_attr ia = {
			.send_cq = NULL,
			.recv_cq = cq,
			.qp_type = IBV_QPT_RC,
			.cap = { 4, 4, 1, 1, 0 },
		};
		struct ibv_qp *qp = ibv_create_qp(pd, &ia);

		CHECK(!qp);
		if (qp)
			ibv_destroy_qp(qp);
	}
}

static enum ibv_qp_state state_of(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr i;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &i))
		return (enum ibv_qp_state) - 1;
	return a.qp_state;
}

static void traffic(struct fx_pair *p, uint64_t id)
{
	struct ibv_wc wc;

	fx_fill(p->buf[0], 300, (unsigned int)id);
	CHECK_RC(fx_post_recv(p, 1, id, 0, 4096), 0);
	CHECK_RC(fx_post_send(p, 0, id + 1, 0, 300, IBV_SEND_SIGNALED, false,
			      0),
		 0);
	fx_poll_one(p->scq[0], &wc, TMO);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK_EQ(wc.wr_id, id + 1);
	fx_poll_one(p->rcq[1], &wc, TMO);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK_EQ(wc.wr_id, id);
	CHECK_EQ(wc.byte_len, 300);
	CHECK(!memcmp(p->buf[0], p->buf[1], 300));
}

static void test_state_machine(void)
{
	struct fx_qp_opts o;
	struct fx_pair p;
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr qi;

	SECTION("RC state machine, illegal transitions: EINVAL");
	fx_qp_opts_default(&o, IBV_QPT_RC);
	o.timeout = 12;
	o.retry_cnt = 5;
	o.rnr_retry = 4;
	o.min_rnr_timer = 3;
	fx_pair_create(&p, ctx, pd, &o, 4096);
	CHECK_EQ(state_of(p.qp[0]), IBV_QPS_RESET);
	CHECK_EQ(p.qp[0]->state, IBV_QPS_RESET);

	/* RESET -> RTR / RTS: illegal */
	CHECK_RC(fx_rc_to_rtr(p.qp[0], &p.gid, p.qp[1]->qp_num, &o), EINVAL);
	CHECK_RC(fx_rc_to_rts(p.qp[0], &o), EINVAL);
	CHECK_EQ(state_of(p.qp[0]), IBV_QPS_RESET);
	/* INIT without its required attributes */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	CHECK_RC(ibv_modify_qp(p.qp[0], &a, IBV_QP_STATE), EINVAL);
	CHECK_EQ(state_of(p.qp[0]), IBV_QPS_RESET);

	for (int i = 0; i < 2; i++)
		CHECK_RC(fx_rc_to_init(p.qp[i]), 0);
	CHECK_EQ(state_of(p.qp[0]), IBV_QPS_INIT);
	/* INIT -> RTS skips RTR */
	CHECK_RC(fx_rc_to_rts(p.qp[0], &o), EINVAL);
	/* RTR without the address vector */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	CHECK_RC(ibv_modify_qp(p.qp[0], &a, IBV_QP_STATE), EINVAL);
	CHECK_EQ(state_of(p.qp[0]), IBV_QPS_INIT);
	/* INIT -> INIT is legal */
	CHECK_RC(fx_rc_to_init(p.qp[0]), 0);

	for (int i = 0; i < 2; i++)
		CHECK_RC(fx_rc_to_rtr(p.qp[i], &p.gid, p.qp[!i]->qp_num, &o),
			 0);
	CHECK_EQ(state_of(p.qp[0]), IBV_QPS_RTR);
	/* RTR -> INIT: illegal */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	CHECK_RC(ibv_modify_qp(p.qp[0], &a, IBV_QP_STATE), EINVAL);
	for (int i = 0; i < 2; i++)
		CHECK_RC(fx_rc_to_rts(p.qp[i], &o), 0);
	CHECK_EQ(state_of(p.qp[0]), IBV_QPS_RTS);
	CHECK_EQ(p.qp[0]->state, IBV_QPS_RTS);

	SECTION("query_qp with every attribute bit");
	memset(&a, 0, sizeof(a));
	memset(&qi, 0, sizeof(qi));
	CHECK_RC(ibv_query_qp(p.qp[0], &a, 0x1ffffff, &qi), 0);
	CHECK_EQ(a.qp_state, IBV_QPS_RTS);
	CHECK_EQ(a.path_mtu, IBV_MTU_1024);
	CHECK_EQ(a.dest_qp_num, p.qp[1]->qp_num);
	CHECK_EQ(a.rq_psn, 0x100);
	CHECK_EQ(a.sq_psn, 0x100);
	CHECK_EQ(a.timeout, 12);
	CHECK_EQ(a.retry_cnt, 5);
	CHECK_EQ(a.rnr_retry, 4);
	CHECK_EQ(a.min_rnr_timer, 3);
	/* the ionic kernel reports port_num 0 (docs/kernel-contract.md §9.5) */
	CHECK_EQ(a.ah_attr.is_global, 1);
	CHECK_EQ(a.ah_attr.grh.sgid_index, 1);
	CHECK(!memcmp(a.ah_attr.grh.dgid.raw, p.gid.raw, 16));
	CHECK_EQ(a.cap.max_send_wr, p.cap[0].max_send_wr);
	CHECK_EQ(a.cap.max_recv_wr, p.cap[0].max_recv_wr);
	CHECK_EQ(qi.qp_type, IBV_QPT_RC);
	CHECK_EQ(qi.sq_sig_all, 0);

	traffic(&p, 100);

	SECTION("RTS -> RESET -> reconnect: traffic works again");
	for (int round = 0; round < 3; round++) {
		/* different ring positions each round */
		for (int k = 0; k < round * 5; k++)
			traffic(&p, 200 + 2 * (uint64_t)k);
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RESET;
		for (int i = 0; i < 2; i++) {
			CHECK_RC(ibv_modify_qp(p.qp[i], &a, IBV_QP_STATE), 0);
			CHECK_EQ(state_of(p.qp[i]), IBV_QPS_RESET);
		}
		fx_expect_none(p.scq[0], 0);
		fx_expect_none(p.rcq[1], 0);
		fx_pair_connect(&p);
		traffic(&p, 1000 + 10 * (uint64_t)round);
	}

	SECTION("any -> ERR -> RESET -> INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_ERR;
	CHECK_RC(ibv_modify_qp(p.qp[0], &a, IBV_QP_STATE), 0);
	CHECK_EQ(state_of(p.qp[0]), IBV_QPS_ERR);
	/* ERR -> RTS: illegal */
	a.qp_state = IBV_QPS_RTS;
	CHECK_RC(ibv_modify_qp(p.qp[0], &a, IBV_QP_STATE), EINVAL);
	a.qp_state = IBV_QPS_RESET;
	CHECK_RC(ibv_modify_qp(p.qp[0], &a, IBV_QP_STATE), 0);
	CHECK_RC(fx_rc_to_init(p.qp[0]), 0);
	CHECK_EQ(state_of(p.qp[0]), IBV_QPS_INIT);

	SECTION("destroy a CQ still used by a QP: EBUSY");
	CHECK_RC(ibv_destroy_cq(p.scq[0]), EBUSY);

	fx_pair_destroy(&p);
}

static void test_ud_state(void)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr qi;
	struct ibv_qp *qp;

	SECTION("UD: INIT needs a qkey; query_qp returns it");
	qp = mk(IBV_QPT_UD, 8, 8, 1, 1, 0, NULL);
	REQUIRE(qp);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	CHECK_RC(ibv_modify_qp(qp, &a,
			       IBV_QP_STATE | IBV_QP_PORT | IBV_QP_PKEY_INDEX),
		 EINVAL);
	CHECK_RC(fx_ud_to_rts(qp, 0x12345678), 0);
	memset(&a, 0, sizeof(a));
	CHECK_RC(ibv_query_qp(qp, &a,
			      IBV_QP_STATE | IBV_QP_QKEY | IBV_QP_SQ_PSN, &qi),
		 0);
	CHECK_EQ(a.qp_state, IBV_QPS_RTS);
	CHECK_EQ(a.qkey, 0x12345678);
	CHECK_EQ(a.sq_psn, 0x200);
	CHECK_EQ(qi.qp_type, IBV_QPT_UD);
	CHECK_RC(ibv_destroy_qp(qp), 0);
}

static void test_many(void)
{
	struct ibv_qp *qps[64];
	uint32_t seen[64];
	int n = 0;

	SECTION("64 QPs at once: distinct numbers, not 0 or 1");
	for (int i = 0; i < 64; i++) {
		qps[i] = mk(i & 1 ? IBV_QPT_UD : IBV_QPT_RC, 4, 4, 1, 1, 0,
			    NULL);
		CHECK(qps[i]);
		if (!qps[i])
			break;
		n++;
		seen[i] = qps[i]->qp_num;
		CHECK(seen[i] > 1 && seen[i] < (1u << 24));
		for (int j = 0; j < i; j++)
			if (seen[j] == seen[i])
				check_fail(__FILE__, __LINE__,
					   "qp_num %u twice", seen[i]);
	}
	for (int i = n - 1; i >= 0; i--)
		CHECK_RC(ibv_destroy_qp(qps[i]), 0);
}

int main(void)
{
	ctx = fx_open();
	CHECK_RC(ibv_query_device(ctx, &da), 0);
	pd = ibv_alloc_pd(ctx);
	REQUIRE(pd);
	cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	REQUIRE(cq);

	test_caps();
	test_recv_exact();
	test_refused();
	test_state_machine();
	test_ud_state();
	test_many();

	CHECK_RC(ibv_destroy_cq(cq), 0);
	CHECK_RC(ibv_dealloc_pd(pd), 0);
	CHECK_RC(ibv_close_device(ctx), 0);
	return check_finish();
}
