// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The DV library as the GPU stacks find it (docs/gpu-direct-verbs.md §1),
 * under ionic-sim.  Not linked with libionic: like MORI, rocSHMEM and
 * RCCL it dlopen()s "libionic.so" (the development link; RCCL falls back
 * to "libionic.so.1") and then
 *  - binds every name at every version node that exists (dlvsym, as
 *    RCCL and the MRC shim do) and checks that nothing else is there;
 *  - checks that plain dlsym (MORI, rocSHMEM, torchcomms) gets the
 *    default version;
 *  - runs RCCL's sequence (pd_set_udma_mask@IONIC_1.0, a QP with the
 *    sq_sig_all vendor bits, qp_set_gda@IONIC_1.0, create_qp_ex@IONIC_1.3
 *    with RCCL's attributes), then that set-up with traffic on each
 *    pipeline, the proposal's create_qp_ex@IONIC_1.1 with
 *    its own attribute layout, and MORI's descriptor calls and its
 *    device-side posting (dv_poster.h) moving verified data, on objects
 *    libibverbs made with the provider it loaded: the same library.
 */
#define _GNU_SOURCE /* dlvsym */
#include <dlfcn.h>
#include <unistd.h>

#include <infiniband/ionic_dv.h>

#include "dv_poster.h"
#include "verbs_fixture.h"

static void *lib;

struct sym {
	const char *name;
	const char *versions[3]; /* the first is the default */
};

/* The exact set (tests/check-symbols.sh lists the same). */
static const struct sym syms[] = {
	{ "ionic_dv_ctx_get_udma_count", { "IONIC_1.0" } },
	{ "ionic_dv_ctx_get_udma_mask", { "IONIC_1.0" } },
	{ "ionic_dv_pd_get_udma_mask", { "IONIC_1.0" } },
	{ "ionic_dv_pd_set_udma_mask", { "IONIC_1.0" } },
	{ "ionic_dv_pd_set_sqcmb", { "IONIC_1.0" } },
	{ "ionic_dv_pd_set_rqcmb", { "IONIC_1.0" } },
	{ "ionic_dv_is_ionic_ctx", { "IONIC_1.1", "IONIC_1.0" } },
	{ "ionic_dv_is_ionic_pd", { "IONIC_1.1", "IONIC_1.0" } },
	{ "ionic_dv_is_ionic_cq", { "IONIC_1.1", "IONIC_1.0" } },
	{ "ionic_dv_is_ionic_qp", { "IONIC_1.1", "IONIC_1.0" } },
	{ "ionic_dv_cq_get_udma_mask", { "IONIC_1.1", "IONIC_1.0" } },
	{ "ionic_dv_qp_get_udma_idx", { "IONIC_1.1", "IONIC_1.0" } },
	{ "ionic_dv_pd_set_expdb_mask", { "IONIC_1.1", "IONIC_1.0" } },
	{ "ionic_dv_qp_set_gda", { "IONIC_1.1", "IONIC_1.0" } },
	{ "ionic_dv_qp_get_send_dbell_data", { "IONIC_1.1", "IONIC_1.0" } },
	{ "ionic_dv_qp_get_recv_dbell_data", { "IONIC_1.1", "IONIC_1.0" } },
	{ "ionic_dv_get_ctx", { "IONIC_1.1", "IONIC_1.0" } },
	{ "ionic_dv_get_cq", { "IONIC_1.1", "IONIC_1.0" } },
	{ "ionic_dv_get_qp", { "IONIC_1.1", "IONIC_1.0" } },
	{ "ionic_dv_create_cq_ex", { "IONIC_1.1" } },
	{ "ionic_dv_create_qp_ex", { "IONIC_1.3", "IONIC_1.1" } },
};

static const char *const nodes[] = { "IONIC_1.0", "IONIC_1.1", "IONIC_1.2",
				     "IONIC_1.3" };

static bool has_version(const struct sym *s, const char *v)
{
	for (int i = 0; i < 3 && s->versions[i]; i++)
		if (!strcmp(s->versions[i], v))
			return true;
	return false;
}

static void *need(const char *name, const char *version)
{
	void *p = dlvsym(lib, name, version);

	if (!p)
		check_fatal(__FILE__, __LINE__, "%s@%s not found", name,
			    version);
	return p;
}

static void test_bindings(void)
{
	SECTION("every name at exactly its version nodes; dlsym = default");
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		const struct sym *s = &syms[i];
		void *dflt = dlsym(lib, s->name);

		CHECK(dflt);
		CHECK(dflt == dlvsym(lib, s->name, s->versions[0]));
		for (size_t n = 0; n < sizeof(nodes) / sizeof(nodes[0]); n++) {
			void *p = dlvsym(lib, s->name, nodes[n]);

			if (!!p != has_version(s, nodes[n]))
				check_fail(__FILE__, __LINE__, "%s@%s: %s",
					   s->name, nodes[n],
					   p ? "exported, should not be" :
					       "missing");
		}
	}
	/* the MRC shim's other names: not offered, their semantics are not
	 * public */
	CHECK(!dlvsym(lib, "ionic_dv_qp_set_puec_plane_route", "IONIC_1.0"));
	CHECK(!dlvsym(lib, "ionic_dv_qp_set_multiplane_conn_info",
		      "IONIC_1.2"));
	/* provider internals stay hidden */
	CHECK(!dlsym(lib, "ionic_is_ionic_ctx"));
	CHECK(!dlsym(lib, "ionic_dv_qp_set_gda_v1_0"));
}

/* RCCL and its network plugin (docs/gpu-direct-verbs.md §1, §6). */
static void test_rccl(struct ibv_context *ctx)
{
	int (*set_udma)(struct ibv_pd *, uint8_t) =
		need("ionic_dv_pd_set_udma_mask", "IONIC_1.0");
	int (*set_gda)(struct ibv_qp *, bool, bool) =
		need("ionic_dv_qp_set_gda", "IONIC_1.0");
	__typeof__(ionic_dv_create_qp_ex) *create_1_3 =
		need("ionic_dv_create_qp_ex", "IONIC_1.3");
	struct ibv_qp *(*create_1_1)(struct ibv_context *,
				     struct ibv_qp_init_attr_ex *,
				     struct ionic_dv_qp_init_attr_ex_1_1 *) =
		need("ionic_dv_create_qp_ex", "IONIC_1.1");
	bool (*is_ctx_1_0)(struct ibv_context *) =
		need("ionic_dv_is_ionic_ctx", "IONIC_1.0");
	bool (*is_ctx_1_1)(struct ibv_context *) =
		need("ionic_dv_is_ionic_ctx", "IONIC_1.1");
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 32, NULL, NULL, 0);
	struct ibv_qp_init_attr ia = { .qp_type = IBV_QPT_RC,
				       .cap = { 8, 8, 1, 1, 0 } };
	struct ibv_qp_init_attr_ex xa = { .qp_type = IBV_QPT_RC,
					  .cap = { 8, 8, 1, 1, 0 },
					  .comp_mask = IBV_QP_INIT_ATTR_PD };
	struct ionic_dv_qp_init_attr_ex amd = {
		.comp_mask = IONIC_DV_QP_INIT_ATTR_MASK_FLAGS,
		.ionic_flags = IONIC_DV_CREATE_QP_TYPE_RCCL |
			       IONIC_DV_CREATE_QP_RCCL_RDFENCE,
	};
	struct ionic_dv_qp_init_attr_ex_1_1 prop = {
		.comp_mask = IONIC_DV_QP_INIT_ATTR_MASK_FLAGS,
		.ionic_flags = IONIC_DV_CREATE_QP_RCCL_RCQ,
	};
	struct ibv_qp *qp;

	SECTION("RCCL: the IONIC_1.0 pair, vendor sq_sig_all, create_qp_ex@1.3");
	REQUIRE(pd && cq);
	/* the library libibverbs loaded is the one dlopen() found */
	CHECK(is_ctx_1_0(ctx) && is_ctx_1_1(ctx));
	CHECK_RC(set_udma(pd, IONIC_UDMA_MASK_LOW), 0);
	ia.send_cq = ia.recv_cq = cq;
	ia.sq_sig_all = IONIC_DV_CREATE_QP_TYPE_RCCL |
			IONIC_DV_CREATE_QP_RCCL_DATA |
			IONIC_DV_CREATE_QP_RCCL_RDFENCE;
	qp = ibv_create_qp(pd, &ia);
	REQUIRE(qp);
	CHECK_RC(set_gda(qp, false, true), 0);
	CHECK_RC(fx_rc_to_init(qp), 0);
	CHECK_RC(ibv_destroy_qp(qp), 0);

	xa.send_cq = xa.recv_cq = cq;
	xa.pd = pd;
	qp = create_1_3(ctx, &xa, &amd);
	CHECK(qp);
	if (qp)
		CHECK_RC(ibv_destroy_qp(qp), 0);
	/* RCCL's layout: the flags at offset 4, the transport mode at 8 */
	amd.ionic_flags |= IONIC_DV_CREATE_QP_RCCL_RCQ;
	CHECK_NULL_ERRNO(create_1_3(ctx, &xa, &amd), EINVAL);
	amd.ionic_flags &= ~(uint32_t)IONIC_DV_CREATE_QP_RCCL_RCQ;
	amd.comp_mask |= IONIC_DV_QP_INIT_ATTR_MASK_TRANSPORT_MODE;
	amd.transport_mode = IONIC_DV_QPT_TRANSPORT_MRC;
	CHECK_NULL_ERRNO(create_1_3(ctx, &xa, &amd), EOPNOTSUPP);

	SECTION("create_qp_ex@IONIC_1.1 reads the proposal's layout");
	/* RCQ at offset 8 of the 1.1 layout: refused (no RCQ) */
	CHECK_NULL_ERRNO(create_1_1(ctx, &xa, &prop), EINVAL);
	prop.ionic_flags = IONIC_DV_CREATE_QP_TYPE_RCCL;
	qp = create_1_1(ctx, &xa, &prop);
	CHECK(qp);
	if (qp)
		CHECK_RC(ibv_destroy_qp(qp), 0);
	/* an unknown comp_mask bit of the 1.1 layout's 64-bit mask */
	prop.comp_mask = 1ull << 40;
	CHECK_NULL_ERRNO(create_1_1(ctx, &xa, &prop), EOPNOTSUPP);

	CHECK_RC(ibv_destroy_cq(cq), 0);
	CHECK_RC(ibv_dealloc_pd(pd), 0);
}

/* One RDMA WRITE from side 0 into side 1's buffer at 'off'. */
static int post_write(struct fx_pair *p, uint64_t wr_id, size_t off,
		      uint32_t len, unsigned int flags)
{
	struct ibv_sge sge = { (uintptr_t)(p->buf[0] + off), len,
			       p->mr[0]->lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = flags,
		.wr.rdma = { (uintptr_t)(p->buf[1] + off), p->mr[1]->rkey },
	};
	struct ibv_send_wr *bad;

	return ibv_post_send(p->qp[0], &wr, &bad);
}

/* The first CQE of a ring: colour (bit 0) and QP number (bits 8-31). */
static uint32_t first_cqe_word(const struct ionic_dv_cq *c)
{
	const uint32_t *w = (const uint32_t *)((const uint8_t *)c->q.ptr + 28);

	return be32toh(__atomic_load_n(w, __ATOMIC_ACQUIRE));
}

/*
 * get_cq per pipeline: a CQ over every pipeline has one ring each, and
 * the completion of a QP on pipeline 'ch' lands in that one.
 */
static void check_cq_pipelines(struct fx_pair *p, int channels, int ch)
{
	__typeof__(ionic_dv_get_cq) *get_cq =
		need("ionic_dv_get_cq", "IONIC_1.0");
	struct ionic_dv_cq ring[2], none;
	uint64_t end = fx_now_ms() + 5000;

	for (int u = 0; u < channels; u++)
		REQUIRE_EQ(get_cq(&ring[u], p->scq[0], (uint8_t)u), 0);
	CHECK_RC(get_cq(&none, p->scq[0], (uint8_t)channels), EINVAL);
	if (channels == 2) {
		CHECK(ring[0].q.ptr != ring[1].q.ptr);
		CHECK(ring[0].q.db_val != ring[1].q.db_val);
	}
	while (!(first_cqe_word(&ring[ch]) & 1) && fx_now_ms() < end)
		usleep(100);
	CHECK_EQ(first_cqe_word(&ring[ch]) & 1, 1);
	CHECK_EQ(first_cqe_word(&ring[ch]) >> 8, p->qp[0]->qp_num);
	if (channels == 2)
		CHECK_EQ(first_cqe_word(&ring[!ch]), 0);
}

/*
 * RCCL's QP set-up with traffic (docs/gpu-direct-verbs.md §6, §8): the
 * PD's pipeline alternating per channel, sq_sig_all with the vendor bits,
 * qp_set_gda(qp, false, true) right after creation, all through the
 * IONIC_1.0 bindings.  The send queue is the provider's: RDMA WRITEs move
 * data and only the signalled one completes.  The receive queue is in GDA
 * mode: a receive is seen only after the application writes the doorbell
 * value (RCCL itself never does, see §8).
 */
static void test_rccl_traffic(struct ibv_context *ctx)
{
	int (*set_udma)(struct ibv_pd *, uint8_t) =
		need("ionic_dv_pd_set_udma_mask", "IONIC_1.0");
	int (*set_gda)(struct ibv_qp *, bool, bool) =
		need("ionic_dv_qp_set_gda", "IONIC_1.0");
	uint8_t (*udma_count)(struct ibv_context *) =
		need("ionic_dv_ctx_get_udma_count", "IONIC_1.0");
	uint8_t (*udma_idx)(struct ibv_qp *) =
		need("ionic_dv_qp_get_udma_idx", "IONIC_1.0");
	__typeof__(ionic_dv_get_ctx) *get_ctx =
		need("ionic_dv_get_ctx", "IONIC_1.0");
	__typeof__(ionic_dv_qp_get_recv_dbell_data) *recv_db =
		need("ionic_dv_qp_get_recv_dbell_data", "IONIC_1.0");
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	int channels = udma_count(ctx);
	struct ionic_dv_ctx dctx;

	REQUIRE(pd);
	REQUIRE_EQ(get_ctx(&dctx, ctx), 0);
	for (int ch = 0; ch < channels; ch++) {
		uint8_t mask = ch ? IONIC_UDMA_MASK_HIGH : IONIC_UDMA_MASK_LOW;
		volatile uint64_t *rq_reg = dctx.db_ptr + dctx.rq_qtype;
		struct fx_qp_opts o;
		struct fx_pair p;
		struct ibv_wc wc[4];
		uint64_t v = 0;

		SECTION("RCCL set-up: WRITEs move data, GDA receives wait");
		CHECK_RC(set_udma(pd, mask), 0);
		fx_qp_opts_default(&o, IBV_QPT_RC);
		o.sq_sig_all = IONIC_DV_CREATE_QP_TYPE_RCCL |
			       IONIC_DV_CREATE_QP_RCCL_DATA |
			       IONIC_DV_CREATE_QP_RCCL_RDFENCE;
		fx_pair_create(&p, ctx, pd, &o, 8192);
		for (int i = 0; i < 2; i++) {
			CHECK_EQ(udma_idx(p.qp[i]), ch);
			CHECK_RC(set_gda(p.qp[i], false, true), 0);
		}
		fx_pair_connect(&p);

		fx_fill(p.buf[0], 8192, 17u + (unsigned int)ch);
		CHECK_RC(post_write(&p, 1, 0, 3000, 0), 0);
		CHECK_RC(post_write(&p, 2, 3000, 1000, 0), 0);
		CHECK_RC(post_write(&p, 3, 4000, 96, IBV_SEND_SIGNALED), 0);
		check_cq_pipelines(&p, channels, ch);
		/* the unsignalled WRITEs complete first: none may show */
		CHECK_EQ(fx_poll(p.scq[0], wc, 1, 5000), 1);
		CHECK_EQ(wc[0].status, IBV_WC_SUCCESS);
		CHECK_EQ(wc[0].wr_id, 3);
		CHECK_EQ(fx_expect_none(p.scq[0], 100), 0);
		CHECK(!memcmp(p.buf[1], p.buf[0], 4096));

		CHECK_RC(fx_post_recv(&p, 1, 10, 4096, 1024), 0);
		CHECK_RC(fx_post_send(&p, 0, 11, 5000, 700, IBV_SEND_SIGNALED,
				      false, 0),
			 0);
		CHECK_EQ(fx_expect_none(p.rcq[1], 300), 0);
		CHECK_EQ(fx_expect_none(p.scq[0], 10), 0);
		CHECK_RC(recv_db(p.qp[1], &v), 0);
		CHECK_EQ(v, ((uint64_t)p.qp[1]->qp_num << 24) | 1);
		*rq_reg = htole64(v);
		fx_poll_one(p.rcq[1], wc, 5000);
		CHECK_EQ(wc[0].status, IBV_WC_SUCCESS);
		CHECK_EQ(wc[0].wr_id, 10);
		CHECK_EQ(wc[0].byte_len, 700);
		CHECK(!memcmp(p.buf[1] + 4096, p.buf[0] + 5000, 700));
		fx_poll_one(p.scq[0], wc, 5000);
		CHECK_EQ(wc[0].status, IBV_WC_SUCCESS);
		CHECK_EQ(wc[0].wr_id, 11);
		fx_pair_destroy(&p);
	}
	CHECK_RC(ibv_dealloc_pd(pd), 0);
}

#define MORI_OPS 60
#define MORI_SLOT 1024 /* bytes of each op in both buffers */

static struct dvp_op mori_op(int i, uint8_t *buf, uint8_t *peer_buf,
			     uint32_t rkey)
{
	struct dvp_op op = { .kind = (enum dvp_kind)(i % 3),
			     .src = buf + (size_t)i * MORI_SLOT };

	switch (op.kind) {
	case DVP_SEND:
		op.len = 1 + (uint32_t)(i * 53) % MORI_SLOT;
		break;
	case DVP_SEND_INL:
		op.len = 1 + (uint32_t)(i * 7) % DVP_INLINE_MAX;
		break;
	default:
		op.len = 8 + (uint32_t)(i * 31) % (MORI_SLOT - 8);
		op.remote_va = (uintptr_t)(peer_buf + (size_t)i * MORI_SLOT);
		op.rkey = rkey;
		break;
	}
	return op;
}

/*
 * MORI's and rocSHMEM's device code, here the dv_poster.h thread-free
 * poster: given only the descriptors (in p), SENDs, inline SENDs and RDMA
 * WRITEs in bursts of three, the last signalled, to a verbs peer that
 * checks every byte.
 */
static void mori_traffic(struct ibv_context *ctx, struct ibv_pd *pd,
			 struct ibv_qp *qp, struct dvp *p)
{
	size_t len = (size_t)MORI_OPS * MORI_SLOT;
	uint8_t *buf = aligned_alloc(4096, len), *peer_buf = calloc(1, len);
	struct ibv_cq *peer_cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	struct ibv_qp_init_attr ia = { .qp_type = IBV_QPT_RC,
				       .cap = { 16, 256, 1, 1, 0 } };
	struct ibv_mr *mr, *peer_mr;
	struct ibv_qp *peer;
	struct fx_qp_opts o;
	union ibv_gid gid;
	struct ibv_wc wc[MORI_OPS];
	int sends = 0, got;

	SECTION("MORI: the descriptors alone move data");
	REQUIRE(buf && peer_buf && peer_cq);
	ia.send_cq = ia.recv_cq = peer_cq;
	peer = ibv_create_qp(pd, &ia);
	mr = ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE);
	peer_mr = ibv_reg_mr(pd, peer_buf, len,
			     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	REQUIRE(peer && mr && peer_mr);
	REQUIRE(!ibv_query_gid(ctx, 1, 1, &gid));
	fx_qp_opts_default(&o, IBV_QPT_RC);
	REQUIRE_EQ(fx_rc_to_init(qp), 0);
	REQUIRE_EQ(fx_rc_to_init(peer), 0);
	REQUIRE_EQ(fx_rc_to_rtr(qp, &gid, peer->qp_num, &o), 0);
	REQUIRE_EQ(fx_rc_to_rtr(peer, &gid, qp->qp_num, &o), 0);
	REQUIRE_EQ(fx_rc_to_rts(qp, &o), 0);
	REQUIRE_EQ(fx_rc_to_rts(peer, &o), 0);

	fx_fill(buf, len, 61);
	for (int i = 0; i < MORI_OPS; i++) {
		struct ibv_sge sge = { (uintptr_t)(peer_buf + i * MORI_SLOT),
				       MORI_SLOT, peer_mr->lkey };
		struct ibv_recv_wr rwr = { .wr_id = (uint64_t)i,
					   .sg_list = &sge,
					   .num_sge = 1 },
				   *bad;

		if (i % 3 == DVP_WRITE)
			continue;
		CHECK_RC(ibv_post_recv(peer, &rwr, &bad), 0);
		sends++;
	}
	p->qpn = qp->qp_num;
	p->lkey = mr->lkey;
	p->fw = 2;
	for (int i = 0; i < MORI_OPS && !p->err[0]; i += 3) {
		for (int b = 0; b < 3; b++) {
			struct dvp_op op =
				mori_op(i + b, buf, peer_buf, peer_mr->rkey);

			dvp_write_wqe(p, &op, b == 2);
		}
		dvp_ring_sq(p);
		dvp_drain(p, 5000);
	}
	dvp_return_credits(p);
	if (p->err[0])
		check_fail(__FILE__, __LINE__, "poster: %s", p->err);
	CHECK_EQ(p->msn, MORI_OPS);

	got = fx_poll(peer_cq, wc, sends, 5000);
	CHECK_EQ(got, sends);
	for (int k = 0; k < got; k++) {
		int i = (int)wc[k].wr_id;
		struct dvp_op op = mori_op(i, buf, peer_buf, peer_mr->rkey);

		CHECK_EQ(wc[k].status, IBV_WC_SUCCESS);
		CHECK_EQ(wc[k].byte_len, op.len);
		if (memcmp(peer_buf + i * MORI_SLOT, op.src, op.len))
			check_fail(__FILE__, __LINE__, "SEND %d differs", i);
	}
	for (int i = DVP_WRITE; i < MORI_OPS; i += 3) {
		struct dvp_op op = mori_op(i, buf, peer_buf, peer_mr->rkey);

		if (memcmp(peer_buf + i * MORI_SLOT, op.src, op.len))
			check_fail(__FILE__, __LINE__, "WRITE %d differs", i);
	}
	CHECK_RC(ibv_destroy_qp(peer), 0);
	CHECK_RC(ibv_destroy_cq(peer_cq), 0);
	CHECK_RC(ibv_dereg_mr(mr), 0);
	CHECK_RC(ibv_dereg_mr(peer_mr), 0);
	free(buf);
	free(peer_buf);
}

/* MORI / rocSHMEM: plain dlsym, descriptors, CCQE probe, traffic. */
static void test_mori(struct ibv_context *ctx)
{
	__typeof__(ionic_dv_get_ctx) *get_ctx = dlsym(lib, "ionic_dv_get_ctx");
	__typeof__(ionic_dv_get_cq) *get_cq = dlsym(lib, "ionic_dv_get_cq");
	__typeof__(ionic_dv_get_qp) *get_qp = dlsym(lib, "ionic_dv_get_qp");
	__typeof__(ionic_dv_qp_get_udma_idx) *udma_idx =
		dlsym(lib, "ionic_dv_qp_get_udma_idx");
	__typeof__(ionic_dv_pd_set_sqcmb) *sqcmb =
		dlsym(lib, "ionic_dv_pd_set_sqcmb");
	__typeof__(ionic_dv_pd_set_rqcmb) *rqcmb =
		dlsym(lib, "ionic_dv_pd_set_rqcmb");
	__typeof__(ionic_dv_create_cq_ex) *create_cq =
		dlsym(lib, "ionic_dv_create_cq_ex");
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_parent_domain_init_attr pa = { .pd = pd };
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 1, .comp_mask = IBV_CQ_INIT_ATTR_MASK_PD
	};
	struct ionic_cq_init_attr_ex ccqe = {
		.comp_mask = IONIC_CQ_INIT_ATTR_MASK_FLAGS,
		.flags = IONIC_CQ_INIT_ATTR_CCQE,
	};
	struct ibv_qp_init_attr_ex xa = { .qp_type = IBV_QPT_RC,
					  .cap = { 8, 8, 1, 1, 32 },
					  .comp_mask = IBV_QP_INIT_ATTR_PD };
	struct dvp p = { 0 };
	struct ibv_cq_ex *cq;
	struct ibv_qp *qp;

	SECTION("MORI: plain dlsym, CCQE probe, descriptors");
	REQUIRE(get_ctx && get_cq && get_qp && udma_idx && sqcmb && rqcmb &&
		create_cq && pd);
	ca.parent_domain = ibv_alloc_parent_domain(ctx, &pa);
	REQUIRE(ca.parent_domain);
	CHECK_RC(sqcmb(ca.parent_domain, false, false, false), 0);
	CHECK_RC(rqcmb(ca.parent_domain, false, false, false), 0);
	/* compact CQEs are refused clearly, so the caller can fall back */
	CHECK_NULL_ERRNO(create_cq(ctx, &ca, &ccqe), EOPNOTSUPP);
	ca.cqe = 2 * 8;
	cq = create_cq(ctx, &ca, NULL);
	REQUIRE(cq);
	xa.send_cq = xa.recv_cq = ibv_cq_ex_to_cq(cq);
	xa.pd = ca.parent_domain;
	qp = ibv_create_qp_ex(ctx, &xa);
	REQUIRE(qp);
	REQUIRE_EQ(get_ctx(&p.dctx, ctx), 0);
	CHECK(p.dctx.db_ptr && p.dctx.db_page);
	REQUIRE_EQ(get_cq(&p.dcq, ibv_cq_ex_to_cq(cq), udma_idx(qp)), 0);
	REQUIRE_EQ(get_qp(&p.dqp, qp), 0);
	REQUIRE(p.dcq.q.ptr && p.dqp.sq.ptr && p.dqp.rq.ptr);
	CHECK_EQ(p.dqp.sq.db_val, (uint64_t)qp->qp_num << 24);
	/* torchcomms requires 64-byte WQEs */
	REQUIRE_EQ(p.dqp.sq.stride_log2, 6);
	mori_traffic(ctx, pd, qp, &p);
	CHECK_RC(ibv_destroy_qp(qp), 0);
	CHECK_RC(ibv_destroy_cq(ibv_cq_ex_to_cq(cq)), 0);
	CHECK_RC(ibv_dealloc_pd(ca.parent_domain), 0);
	CHECK_RC(ibv_dealloc_pd(pd), 0);
}

int main(void)
{
	struct ibv_context *ctx;
	void *again;

	/* MORI's flags; RCCL's RTLD_NOW open must find the same object */
	lib = dlopen("libionic.so", RTLD_LAZY | RTLD_LOCAL);
	if (!lib)
		check_fatal(__FILE__, __LINE__, "dlopen(libionic.so): %s",
			    dlerror());
	again = dlopen("libionic.so.1", RTLD_NOW);
	CHECK(again == lib);
	test_bindings();

	ctx = fx_open();
	test_rccl(ctx);
	test_rccl_traffic(ctx);
	test_mori(ctx);
	CHECK_RC(ibv_close_device(ctx), 0);
	if (again)
		dlclose(again);
	dlclose(lib);
	return check_finish();
}
