// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The differential scenarios (docs/oracle-comparison.md): plain libibverbs,
 * no extension of ours, so the same binary runs with libionic and with
 * upstream's provider (tests/oracle/diff.sh runs it under both and compares
 * what reaches ionic-sim's device).
 *
 * Each scenario writes a "MARK <name>" line into the emulator's trace
 * ($IONIC_SIM_TRACE) before it starts, so the comparison can cut both
 * traces at the same points, and prints on stdout the work completions the
 * application sees, in the order it polls them: every field but those that
 * must differ between two runs (qp_num, src_qp, slid, timestamps).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/ionic_dv.h>
#include <infiniband/verbs.h>

#include "check.h"
#include "diff_scenario.h"
#include "verbs_fixture.h"

int trace_fd = -1;
/* Put before every scenario's name: which pass of diff.sh it belongs to
 * ("fw1 ": firmware RDMA version 1; "cmb ": the sizes with controller
 * memory and express doorbells offered). */
static const char *prefix = "";

void mark(const char *name)
{
	char line[160];
	int n = snprintf(line, sizeof(line), "0 0 t=0 MARK %s%s\n", prefix,
			 name);

	printf("== %s%s\n", prefix, name);
	if (trace_fd >= 0 && write(trace_fd, line, (size_t)n) != n)
		perror("trace mark");
}

static void show(int side, const struct ibv_wc *wc)
{
	printf("wc side %d wr_id %llu status %s opcode %d byte_len %u imm 0x%x "
	       "wc_flags 0x%x sl %u\n",
	       side, (unsigned long long)wc->wr_id, fx_wc_status(wc->status),
	       wc->opcode, wc->byte_len,
	       (wc->wc_flags & IBV_WC_WITH_IMM) ? ntohl(wc->imm_data) : 0,
	       wc->wc_flags, wc->sl);
}

/* Poll n completions of cq and print them. */
void reap(int side, struct ibv_cq *cq, int n)
{
	struct ibv_wc wc[16];
	int got = fx_poll(cq, wc, n, TMO);

	CHECK_MSG(got == n, "side %d: %d of %d completions", side, got, n);
	for (int i = 0; i < got; i++)
		show(side, &wc[i]);
	CHECK_MSG(fx_expect_none(cq, 20) == 0, "side %d: extra completion",
		  side);
}

int recv1(struct fx_pair *p, int i, uint64_t id, uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)p->buf[i] + 4096, len,
			       p->mr[i]->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(p->qp[i], &wr, &bad);
}

/* One send WR from side 0: nsge SGEs of len bytes each at buf + 64k. */
static int send_wr(struct fx_pair *p, struct ibv_send_wr *wr, int nsge,
		   uint32_t len)
{
	struct ibv_sge sge[16];
	struct ibv_send_wr *bad;

	for (int k = 0; k < nsge; k++) {
		sge[k].addr = (uintptr_t)p->buf[0] + 64u * (unsigned)k;
		sge[k].length = len;
		sge[k].lkey = p->mr[0]->lkey;
	}
	wr->sg_list = sge;
	wr->num_sge = nsge;
	if (p->o.type == IBV_QPT_UD) {
		wr->wr.ud.ah = p->ah[0];
		wr->wr.ud.remote_qpn = p->qp[1]->qp_num;
		wr->wr.ud.remote_qkey = p->o.qkey;
	}
	return ibv_post_send(p->qp[0], wr, &bad);
}

static void sends(struct fx_pair *p, const char *t, int max_sge)
{
	uint32_t grh = p->o.type == IBV_QPT_UD ? 40 : 0;
	char name[64];

	for (int nsge = 0; nsge <= max_sge; nsge++) {
		struct ibv_send_wr wr = { .wr_id = 10 + (uint64_t)nsge,
					  .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED };

		snprintf(name, sizeof(name), "%s send %d sge", t, nsge);
		mark(name);
		REQUIRE(recv1(p, 1, 100, 2048 + grh) == 0);
		CHECK(send_wr(p, &wr, nsge, 24) == 0);
		reap(0, p->scq[0], 1);
		reap(1, p->rcq[1], 1);
	}
	for (int imm = 0; imm < 2; imm++) {
		struct ibv_send_wr wr = {
			.wr_id = 20,
			.opcode = imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE,
			.imm_data = htonl(0x12345678)
		};

		snprintf(name, sizeof(name), "%s send inline%s", t,
			 imm ? " imm" : "");
		mark(name);
		REQUIRE(recv1(p, 1, 101, 2048 + grh) == 0);
		CHECK(send_wr(p, &wr, 2, 20) == 0);
		reap(0, p->scq[0], 1);
		reap(1, p->rcq[1], 1);
	}
	snprintf(name, sizeof(name), "%s send unsignalled", t);
	mark(name);
	for (int k = 0; k < 3; k++) {
		struct ibv_send_wr wr = {
			.wr_id = 30 + (uint64_t)k,
			.opcode = IBV_WR_SEND,
			.send_flags = k == 2 ? IBV_SEND_SIGNALED : 0
		};

		REQUIRE(recv1(p, 1, 102 + (uint64_t)k, 2048 + grh) == 0);
		CHECK(send_wr(p, &wr, 1, 100 + (uint32_t)k) == 0);
	}
	reap(0, p->scq[0], 1);
	reap(1, p->rcq[1], 3);
}

static void rdma(struct fx_pair *p)
{
	static const struct {
		const char *name;
		enum ibv_wr_opcode op;
		int recv;
	} ops[] = {
		{ "rc write", IBV_WR_RDMA_WRITE, 0 },
		{ "rc write imm", IBV_WR_RDMA_WRITE_WITH_IMM, 1 },
		{ "rc read", IBV_WR_RDMA_READ, 0 },
		{ "rc atomic cmp swp", IBV_WR_ATOMIC_CMP_AND_SWP, 0 },
		{ "rc atomic fetch add", IBV_WR_ATOMIC_FETCH_AND_ADD, 0 },
	};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		bool atomic = ops[i].op == IBV_WR_ATOMIC_CMP_AND_SWP ||
			      ops[i].op == IBV_WR_ATOMIC_FETCH_AND_ADD;
		struct ibv_send_wr wr = { .wr_id = 40 + i,
					  .opcode = ops[i].op,
					  .send_flags = IBV_SEND_SIGNALED,
					  .imm_data = htonl(0xabcd0000u + i) };

		mark(ops[i].name);
		if (atomic) {
			wr.wr.atomic.remote_addr = (uintptr_t)p->buf[1] + 8192;
			wr.wr.atomic.rkey = p->mr[1]->rkey;
			wr.wr.atomic.compare_add = 0;
			wr.wr.atomic.swap = 0x1122334455667788ull;
		} else {
			wr.wr.rdma.remote_addr = (uintptr_t)p->buf[1] + 8192;
			wr.wr.rdma.rkey = p->mr[1]->rkey;
		}
		if (ops[i].recv)
			REQUIRE(recv1(p, 1, 110, 64) == 0);
		CHECK(send_wr(p, &wr, 1, atomic ? 8 : 200) == 0);
		reap(0, p->scq[0], 1);
		if (ops[i].recv)
			reap(1, p->rcq[1], 1);
	}
}

/* Error paths: a bad lkey (local protection error, then the QP flushes
 * what follows), and the receive queue flushed by a move to ERR. */
static void errors(struct fx_pair *p)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct ibv_send_wr wr = { .wr_id = 50,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };

	mark("rc recv flush");
	for (int k = 0; k < 3; k++)
		REQUIRE(recv1(p, 1, 120 + (uint64_t)k, 64) == 0);
	CHECK(ibv_modify_qp(p->qp[1], &a, IBV_QP_STATE) == 0);
	reap(1, p->rcq[1], 3);

	mark("rc bad lkey");
	p->mr[0]->lkey ^= 0x5500;
	CHECK(send_wr(p, &wr, 1, 10) == 0);
	p->mr[0]->lkey ^= 0x5500;
	wr.wr_id = 51;
	CHECK(send_wr(p, &wr, 1, 10) == 0);
	reap(0, p->scq[0], 2);
}

/* Queue sizes at and around the limits: what the create commands ask
 * (the trace's CMD lines) and what the application is told.  few: a
 * subset, for the pass with controller memory offered (where a default PD
 * asks for the SQ there, behind an express doorbell). */
static void sizes(struct ibv_context *ctx, const struct ibv_device_attr *da,
		  bool few)
{
	static const uint32_t wrs[] = { 1, 64, 0 /* max */, 63, 65, 4095 };
	static const uint32_t inl[] = { 0, 32, 100, 1, 33, 64, 200, 1000 };
	size_t nw = few ? 3 : sizeof(wrs) / sizeof(wrs[0]);
	size_t ni = few ? 3 : sizeof(inl) / sizeof(inl[0]);
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	char name[64];

	REQUIRE(pd && cq);
	for (size_t i = 0; i < nw; i++)
		for (size_t j = 0; j < ni; j++)
			for (int t = 0; t < 2; t++) {
				uint32_t wr = wrs[i] ? wrs[i] :
						       (uint32_t)da->max_qp_wr;
				struct ibv_qp_init_attr ia = {
					.send_cq = cq,
					.recv_cq = cq,
					.qp_type = t ? IBV_QPT_UD : IBV_QPT_RC,
					.cap = { wr, wr, 1, 1, inl[j] },
				};
				struct ibv_qp *qp;

				snprintf(name, sizeof(name),
					 "size %s wr %u inline %u",
					 t ? "ud" : "rc", wr, inl[j]);
				mark(name);
				qp = ibv_create_qp(pd, &ia);
				printf("create %s: send_wr %u recv_wr %u "
				       "send_sge %u recv_sge %u inline %u\n",
				       qp ? "ok" : strerror(errno),
				       ia.cap.max_send_wr, ia.cap.max_recv_wr,
				       ia.cap.max_send_sge, ia.cap.max_recv_sge,
				       ia.cap.max_inline_data);
				if (qp)
					ibv_destroy_qp(qp);
			}
	for (int cqe = 1; !few && cqe <= 1 << 16; cqe = cqe * 4 + 1) {
		struct ibv_cq *c;

		snprintf(name, sizeof(name), "size cq %d", cqe);
		mark(name);
		c = ibv_create_cq(ctx, cqe, NULL, NULL, 0);
		printf("create cq %d: %s cqe %d\n", cqe,
		       c ? "ok" : strerror(errno), c ? c->cqe : 0);
		if (c)
			ibv_destroy_cq(c);
	}
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
}

/* Remote atomics need the access the fixture's regions lack. */
void atomic_access(struct fx_pair *p)
{
	for (int i = 0; i < 2; i++) {
		REQUIRE(ibv_dereg_mr(p->mr[i]) == 0);
		p->mr[i] = ibv_reg_mr(p->pd, p->buf[i], p->buf_len,
				      IBV_ACCESS_LOCAL_WRITE |
					      IBV_ACCESS_REMOTE_WRITE |
					      IBV_ACCESS_REMOTE_READ |
					      IBV_ACCESS_REMOTE_ATOMIC);
		REQUIRE(p->mr[i]);
	}
}

/* The pair on a PD restricted to one UDMA pipeline (the IONIC_1.0 call
 * both libraries export), and on a parent domain with a thread domain. */
static void domains(struct ibv_context *ctx)
{
	struct ibv_td_init_attr tda = { 0 };
	struct ibv_parent_domain_init_attr pda = { 0 };
	struct ibv_pd *pd, *parent;
	struct ibv_td *td;
	struct fx_qp_opts o;
	struct fx_pair p;

	fx_qp_opts_default(&o, IBV_QPT_RC);
	for (int m = 1; m <= 2; m++) {
		char name[32];

		snprintf(name, sizeof(name), "udma mask %d", m);
		mark(name);
		pd = ibv_alloc_pd(ctx);
		REQUIRE(pd);
		CHECK(ionic_dv_pd_set_udma_mask(pd, (uint8_t)m) == 0);
		printf("pd udma mask %u of %u\n", ionic_dv_pd_get_udma_mask(pd),
		       ionic_dv_ctx_get_udma_mask(ctx));
		fx_pair_create(&p, ctx, pd, &o, 1 << 16);
		fx_pair_connect(&p);
		REQUIRE(recv1(&p, 1, 200, 64) == 0);
		CHECK(fx_post_send(&p, 0, 201, 0, 64, IBV_SEND_SIGNALED, false,
				   0) == 0);
		reap(0, p.scq[0], 1);
		reap(1, p.rcq[1], 1);
		fx_pair_destroy(&p);
		CHECK(ibv_dealloc_pd(pd) == 0);
	}
	mark("thread domain");
	pd = ibv_alloc_pd(ctx);
	td = ibv_alloc_td(ctx, &tda);
	REQUIRE(pd && td);
	pda.pd = pd;
	pda.td = td;
	parent = ibv_alloc_parent_domain(ctx, &pda);
	REQUIRE(parent);
	fx_pair_create(&p, ctx, parent, &o, 1 << 16);
	fx_pair_connect(&p);
	REQUIRE(recv1(&p, 1, 210, 64) == 0);
	CHECK(fx_post_send(&p, 0, 211, 0, 64, IBV_SEND_SIGNALED, false, 0) ==
	      0);
	reap(0, p.scq[0], 1);
	reap(1, p.rcq[1], 1);
	fx_pair_destroy(&p);
	CHECK(ibv_dealloc_pd(parent) == 0);
	CHECK(ibv_dealloc_td(td) == 0);
	CHECK(ibv_dealloc_pd(pd) == 0);
}

static void run(enum ibv_qp_type type)
{
	struct ibv_context *ctx = fx_open();
	struct ibv_device_attr da;
	struct fx_qp_opts o;
	struct fx_pair p;

	REQUIRE(ibv_query_device(ctx, &da) == 0);
	fx_qp_opts_default(&o, type);
	o.max_send_sge = o.max_recv_sge = (uint32_t)da.max_sge;
	mark(type == IBV_QPT_RC ? "rc create" : "ud create");
	fx_pair_create(&p, ctx, NULL, &o, 1 << 16);
	fx_pair_connect(&p);
	if (type == IBV_QPT_RC)
		atomic_access(&p);
	sends(&p, type == IBV_QPT_RC ? "rc" : "ud", da.max_sge);
	if (type == IBV_QPT_RC) {
		rdma(&p);
		errors(&p);
	}
	mark(type == IBV_QPT_RC ? "rc destroy" : "ud destroy");
	fx_pair_destroy(&p);
	if (type == IBV_QPT_RC) {
		if (!*prefix) /* once: most of the run, and no WQEs */
			sizes(ctx, &da, false);
		domains(ctx);
		diff_more(ctx);
	}
	ibv_close_device(ctx);
}

int main(int argc, char **argv)
{
	const char *trace = getenv("IONIC_SIM_TRACE");

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (trace && *trace)
		trace_fd = open(trace, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (argc > 1 && !strcmp(argv[1], "cmb")) {
		struct ibv_context *ctx = fx_open();
		struct ibv_device_attr da;

		REQUIRE(ibv_query_device(ctx, &da) == 0);
		diff_cmb(ctx);
		prefix = "cmb ";
		sizes(ctx, &da, true);
		ibv_close_device(ctx);
	} else {
		if (argc > 1 && !strcmp(argv[1], "fw1"))
			prefix = "fw1 ";
		run(IBV_QPT_RC);
		run(IBV_QPT_UD);
	}
	if (trace_fd >= 0)
		close(trace_fd);
	return check_finish();
}
