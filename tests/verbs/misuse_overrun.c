// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * verbs-misuse: the misuse cases that need more than one errno to check.
 *
 *  - CQ overrun (issue 13): a CQ of one entry under 200 signalled work
 *    requests.  The CQ reports IBV_EVENT_CQ_ERR, the QP whose completion
 *    was lost IBV_EVENT_QP_FATAL and goes to ERR, and every work request
 *    still completes exactly once, the first ones successfully, the rest
 *    flushed; a post afterwards completes as flushed too.  The same for a
 *    receive CQ (UD), and when the completion lost is the last one posted.
 *    Nothing waits forever (docs/device-contract.md §8.1).
 *  - query_qp reports the max_rd_atomic / max_dest_rd_atomic that were set
 *    (the kernel's own decoding reads 2 back as 1, 16 as 15).
 *  - max_send_sge / max_recv_sge 0 grant one, and such QPs carry data.
 */
#include <poll.h>

#include "misuse.h"

#define OVERRUN_WRS 200
#define OVERRUN_RECV_STRIDE 64 /* a UD receive: 40 bytes of GRH, 8 of data */

struct overrun {
	struct ibv_cq *small; /* 1 entry: the victim queue's CQ */
	struct ibv_qp *qp[2]; /* [0] sends to [1] */
	struct ibv_ah *ah;
	bool rq; /* small is [1]'s receive CQ, not [0]'s send CQ */
};

static void overrun_setup(struct mu_env *e, struct overrun *o,
			  enum ibv_qp_type type, bool rq)
{
	struct fx_qp_opts opts;
	int i;

	fx_qp_opts_default(&opts, type);
	memset(o, 0, sizeof(*o));
	o->rq = rq;
	o->small = ibv_create_cq(e->ctx, 1, NULL, NULL, 0);
	REQUIRE(o->small);
	for (i = 0; i < 2; i++) {
		struct ibv_qp_init_attr ia = {
			.send_cq = !i && !rq ? o->small : e->cq,
			.recv_cq = i && rq ? o->small : e->cq,
			.qp_type = type,
			.sq_sig_all = 1,
			.cap = { 2 * OVERRUN_WRS, 2 * OVERRUN_WRS, 1, 1, 0 },
		};

		o->qp[i] = ibv_create_qp(e->pd, &ia);
		REQUIRE(o->qp[i]);
	}
	for (i = 0; i < 2; i++) {
		if (type == IBV_QPT_UD) {
			REQUIRE_EQ(fx_ud_to_rts(o->qp[i], opts.qkey), 0);
			continue;
		}
		REQUIRE_EQ(fx_rc_to_init(o->qp[i]), 0);
		REQUIRE_EQ(fx_rc_to_rtr(o->qp[i], &e->gid, o->qp[!i]->qp_num,
					&opts),
			   0);
		REQUIRE_EQ(fx_rc_to_rts(o->qp[i], &opts), 0);
	}
	if (type == IBV_QPT_UD) {
		o->ah = fx_make_ah(e->pd, &e->gid);
		REQUIRE(o->ah);
	}
}

static int overrun_post(struct mu_env *e, struct overrun *o, uint64_t wr_id)
{
	struct ibv_sge sge = { (uintptr_t)e->buf + 8 * wr_id, 8, e->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = o->ah ? IBV_WR_SEND : IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	if (o->ah) {
		wr.wr.ud.ah = o->ah;
		wr.wr.ud.remote_qpn = o->qp[1]->qp_num;
		wr.wr.ud.remote_qkey = 0x11111111;
	} else {
		/* into the upper half of the same region */
		wr.wr.rdma.remote_addr =
			(uintptr_t)e->buf + e->len / 2 + 8 * wr_id;
		wr.wr.rdma.rkey = e->mr->rkey;
	}
	return ibv_post_send(o->qp[0], &wr, &bad);
}

/* A receive on [1], into the upper half (UD only: RC sends are WRITEs) */
static int overrun_post_recv(struct mu_env *e, struct overrun *o,
			     uint64_t wr_id)
{
	struct ibv_sge sge = { (uintptr_t)e->buf + e->len / 2 +
				       OVERRUN_RECV_STRIDE * wr_id,
			       OVERRUN_RECV_STRIDE, e->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id,
				  .sg_list = &sge,
				  .num_sge = 1 },
			   *bad;

	return ibv_post_recv(o->qp[1], &wr, &bad);
}

/* The next async event within 'ms' (REQUIRE), acknowledged. */
static void next_event(struct mu_env *e, struct ibv_async_event *ev, int ms)
{
	struct pollfd pfd = { .fd = e->ctx->async_fd, .events = POLLIN };

	REQUIRE_EQ(poll(&pfd, 1, ms), 1);
	REQUIRE_EQ(ibv_get_async_event(e->ctx, ev), 0);
	ibv_ack_async_event(ev);
}

/* Every one of the 'nwr' work requests completes exactly once on the
 * small CQ, in order: successes, then flushes; nothing after.  Returns
 * how many succeeded. */
static unsigned int overrun_drain(struct overrun *o, unsigned int nwr)
{
	static uint8_t seen[OVERRUN_WRS + 1];
	unsigned int ok = 0, flushed = 0, total = 0;
	bool flushing = false;
	struct ibv_wc wc[16];
	uint64_t t0;
	int i, n;

	memset(seen, 0, sizeof(seen));
	t0 = fx_now_ms();
	while (total < nwr && fx_now_ms() - t0 < MU_TMO) {
		n = ibv_poll_cq(o->small, 16, wc);
		REQUIRE(n >= 0);
		for (i = 0; i < n; i++) {
			uint64_t id = wc[i].wr_id;

			REQUIRE(id < nwr);
			CHECK_EQ(seen[id]++, 0);
			CHECK_EQ(id, total + (unsigned int)i);
			if (wc[i].status == IBV_WC_SUCCESS) {
				CHECK(!flushing);
				ok++;
			} else {
				CHECK_EQ(wc[i].status, IBV_WC_WR_FLUSH_ERR);
				flushing = true;
				flushed++;
			}
		}
		total += (unsigned int)n;
	}
	printf("%s overrun, %u WRs: %u completed, %u flushed\n",
	       o->rq ? "UD receive" :
	       o->ah ? "UD send" :
		       "RC send",
	       nwr, ok, flushed);
	CHECK_EQ(total, nwr);
	CHECK(ok > 0 && flushed > 0);
	fx_expect_none(o->small, 200);
	return ok;
}

static unsigned int overrun_case(struct mu_env *e, enum ibv_qp_type type,
				 bool rq, unsigned int nwr)
{
	struct ibv_qp_init_attr init;
	struct ibv_async_event ev;
	struct ibv_qp *victim;
	struct ibv_wc wc[16];
	struct ibv_qp_attr qa;
	bool cq_err = false, qp_fatal = false;
	unsigned int i, ok;
	struct overrun o;
	uint8_t *got;

	REQUIRE(nwr <= OVERRUN_WRS);
	overrun_setup(e, &o, type, rq);
	victim = o.qp[rq];
	for (i = 0; rq && i < nwr; i++)
		REQUIRE_EQ(overrun_post_recv(e, &o, i), 0);
	for (i = 0; i < nwr; i++) {
		fx_fill(e->buf + 8 * i, 8, i + 1);
		REQUIRE_EQ(overrun_post(e, &o, i), 0);
	}

	/* both events, for the right objects */
	for (i = 0; i < 2; i++) {
		next_event(e, &ev, MU_TMO);
		if (ev.event_type == IBV_EVENT_CQ_ERR) {
			CHECK(ev.element.cq == o.small);
			cq_err = true;
		} else if (ev.event_type == IBV_EVENT_QP_FATAL) {
			CHECK(ev.element.qp == victim);
			qp_fatal = true;
		} else {
			check_fail(__FILE__, __LINE__, "unexpected event %d",
				   ev.event_type);
		}
	}
	CHECK(cq_err && qp_fatal);

	ok = overrun_drain(&o, nwr);
	/* the WRITEs or messages that completed really landed */
	for (i = 0; (type == IBV_QPT_RC || rq) && i < ok; i++) {
		got = e->buf + e->len / 2 +
		      (rq ? OVERRUN_RECV_STRIDE * i + 40 : 8 * i);
		CHECK(!memcmp(got, e->buf + 8 * i, 8));
	}

	/* the victim is in ERR; a post there completes, flushed */
	REQUIRE_EQ(ibv_query_qp(victim, &qa, IBV_QP_STATE, &init), 0);
	CHECK_EQ(qa.qp_state, IBV_QPS_ERR);
	if (rq)
		CHECK_RC(overrun_post_recv(e, &o, OVERRUN_WRS), 0);
	else
		CHECK_RC(overrun_post(e, &o, OVERRUN_WRS), 0);
	fx_poll_one(o.small, wc, MU_TMO);
	CHECK_EQ(wc[0].wr_id, OVERRUN_WRS);
	CHECK_EQ(wc[0].status, IBV_WC_WR_FLUSH_ERR);

	/* destroying returns: the events were acknowledged */
	CHECK_RC(ibv_destroy_qp(o.qp[0]), 0);
	CHECK_RC(ibv_destroy_qp(o.qp[1]), 0);
	if (o.ah)
		CHECK_RC(ibv_destroy_ah(o.ah), 0);
	CHECK_RC(ibv_destroy_cq(o.small), 0);
	while (ibv_poll_cq(e->cq, 16, wc) > 0)
		;
	memset(e->buf, 0, e->len);
	return ok;
}

/*
 * Each overrun twice: under many more work requests than fit, and with
 * exactly one more than fits, so that the completion lost is the last
 * one posted and nothing but the lost one can make the device flush.
 */
void mu_cq_overrun(struct mu_env *e)
{
	unsigned int fit;

	fit = overrun_case(e, IBV_QPT_RC, false, OVERRUN_WRS);
	overrun_case(e, IBV_QPT_RC, false, fit + 1);
	fit = overrun_case(e, IBV_QPT_UD, false, OVERRUN_WRS);
	overrun_case(e, IBV_QPT_UD, false, fit + 1);
	fit = overrun_case(e, IBV_QPT_UD, true, OVERRUN_WRS);
	overrun_case(e, IBV_QPT_UD, true, fit + 1);
}

/* query_qp's two read-queue depths, as an application reads them */
static void check_depths(struct ibv_qp *qp, uint8_t init_d, uint8_t dest_d)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	REQUIRE_EQ(ibv_query_qp(qp, &a,
				IBV_QP_MAX_QP_RD_ATOMIC |
					IBV_QP_MAX_DEST_RD_ATOMIC,
				&ia),
		   0);
	CHECK_EQ(a.max_rd_atomic, init_d);
	CHECK_EQ(a.max_dest_rd_atomic, dest_d);
}

void mu_rd_atomic_round_trip(struct mu_env *e)
{
	static const uint8_t depth[] = { 0, 1, 2, 3, 4, 7, 8, 15, 16 };
	struct fx_qp_opts opts;
	struct ibv_qp *qp = mu_qp(e, IBV_QPT_RC, IBV_QPS_RESET);
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	unsigned int i;

	fx_qp_opts_default(&opts, IBV_QPT_RC);
	for (i = 0; i < sizeof(depth); i++) {
		uint8_t init_d = depth[i],
			dest_d = depth[sizeof(depth) - 1 - i];

		a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RESET };
		REQUIRE_EQ(ibv_modify_qp(qp, &a, IBV_QP_STATE), 0);
		REQUIRE_EQ(fx_rc_to_init(qp), 0);
		a = mu_rtr_attr(e, qp->qp_num, dest_d);
		REQUIRE_EQ(ibv_modify_qp(qp, &a, MU_RTR_MASK), 0);
		memset(&a, 0, sizeof(a));
		REQUIRE_EQ(ibv_query_qp(qp, &a, IBV_QP_MAX_DEST_RD_ATOMIC, &ia),
			   0);
		CHECK_EQ(a.max_dest_rd_atomic, dest_d);

		a = mu_rts_attr(init_d);
		REQUIRE_EQ(ibv_modify_qp(qp, &a, MU_RTS_MASK), 0);
		check_depths(qp, init_d, dest_d);
	}
	/* a RESET keeps them, as the kernel does: the last ones set read back
	 * (the kernel alone would decode 16 as 15) */
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RESET };
	REQUIRE_EQ(ibv_modify_qp(qp, &a, IBV_QP_STATE), 0);
	check_depths(qp, depth[sizeof(depth) - 1], depth[0]);
	CHECK_RC(ibv_destroy_qp(qp), 0);
}

static void zero_sge_case(struct mu_env *e, enum ibv_qp_type type)
{
	size_t grh = type == IBV_QPT_UD ? 40 : 0;
	struct fx_qp_opts o;
	struct ibv_wc wc;
	struct fx_pair p;
	int i;

	fx_qp_opts_default(&o, type);
	o.max_send_sge = 0;
	o.max_recv_sge = 0;
	o.max_inline = 0;
	fx_pair_create(&p, e->ctx, e->pd, &o, 4096);
	for (i = 0; i < 2; i++) {
		CHECK_GE(p.cap[i].max_send_sge, 1);
		CHECK_GE(p.cap[i].max_recv_sge, 1);
	}
	fx_pair_connect(&p);
	fx_fill(p.buf[0], 256, 77);
	REQUIRE_EQ(fx_post_recv(&p, 1, 1, 0, 256 + grh), 0);
	REQUIRE_EQ(fx_post_send(&p, 0, 2, 0, 256, IBV_SEND_SIGNALED, false, 0),
		   0);
	fx_poll_one(p.scq[0], &wc, MU_TMO);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	fx_poll_one(p.rcq[1], &wc, MU_TMO);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK_EQ(wc.byte_len, 256 + grh);
	CHECK(!memcmp(p.buf[1] + grh, p.buf[0], 256));
	fx_pair_destroy(&p);
}

void mu_zero_sge(struct mu_env *e)
{
	zero_sge_case(e, IBV_QPT_RC);
	zero_sge_case(e, IBV_QPT_UD);
}
