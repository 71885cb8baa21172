// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Data path through ionic-sim: RC and UD SEND / SEND_WITH_IMM, inline and
 * SGL, signalled and unsignalled, data compared byte for byte, every
 * completion field a user reads; and the error paths (post in the wrong
 * state, too many SGEs, full SQ, bad lkey + flush, short receive buffer,
 * modify to ERR, RNR and transport retry exhaustion, UD with a wrong qkey).
 *
 * Registered several times with different launcher options (UDMA pipeline
 * count, firmware version): the expectations are the same for all.
 */
#include <unistd.h>

#include "fixture.h"

#define TMO 5000 /* ms: generous bound for anything that must happen */
#define GRH 40

static struct ibv_context *ctx;
static struct ibv_pd *pd;

static void pair(struct fx_pair *p, enum ibv_qp_type t, int sig_all, size_t len)
{
	struct fx_qp_opts o;

	fx_qp_opts_default(&o, t);
	o.sq_sig_all = sig_all;
	o.max_send_sge = 8;
	o.max_recv_sge = 8;
	fx_pair_create(p, ctx, pd, &o, len);
	fx_pair_connect(p);
}

static void check_wc(const struct ibv_wc *wc, uint64_t wr_id,
		     enum ibv_wc_status st, enum ibv_wc_opcode op,
		     const char *what)
{
	if (wc->wr_id != wr_id || wc->status != st ||
	    (st == IBV_WC_SUCCESS && wc->opcode != op))
		check_fail(
			__FILE__, __LINE__,
			"%s: wc wr_id %llu status %s opcode %d, expected wr_id %llu status %s opcode %d",
			what, (unsigned long long)wc->wr_id,
			fx_wc_status(wc->status), wc->opcode,
			(unsigned long long)wr_id, fx_wc_status(st), op);
}

/* ---- success paths ------------------------------------------------------ */

static void test_send(enum ibv_qp_type t)
{
	static const size_t sizes[] = { 1, 64, 1000, 1024, 1025, 4000 };
	bool ud = t == IBV_QPT_UD;
	struct fx_pair p;
	struct ibv_wc wc;

	SECTION(ud ? "UD SEND / SEND_WITH_IMM" : "RC SEND / SEND_WITH_IMM");
	pair(&p, t, 0, 1 << 16);
	for (unsigned int k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t len = sizes[k];
		bool imm = k & 1;
		uint32_t immv = htobe32(0xabc00000u + (uint32_t)k);

		if (ud && len > 1024) /* one MTU at most */
			continue;
		fx_fill(p.buf[0], len, (unsigned int)k);
		memset(p.buf[1], 0xee, len + GRH + 16);
		CHECK_RC(fx_post_recv(&p, 1, 100 + k, 0, len + GRH + 16), 0);
		CHECK_RC(fx_post_send(&p, 0, 200 + k, 0, len, IBV_SEND_SIGNALED,
				      imm, immv),
			 0);
		fx_poll_one(p.scq[0], &wc, TMO);
		check_wc(&wc, 200 + k, IBV_WC_SUCCESS, IBV_WC_SEND, "send");
		CHECK_EQ(wc.qp_num, p.qp[0]->qp_num);
		fx_poll_one(p.rcq[1], &wc, TMO);
		check_wc(&wc, 100 + k, IBV_WC_SUCCESS, IBV_WC_RECV, "recv");
		CHECK_EQ(wc.qp_num, p.qp[1]->qp_num);
		CHECK_EQ(wc.byte_len, len + (ud ? GRH : 0));
		CHECK_EQ(!!(wc.wc_flags & IBV_WC_WITH_IMM), imm);
		if (imm)
			CHECK_EQ(wc.imm_data, immv);
		if (ud) {
			CHECK_EQ(wc.src_qp, p.qp[0]->qp_num);
			CHECK(wc.wc_flags & IBV_WC_GRH);
			CHECK(!memcmp(p.buf[1] + GRH, p.buf[0], len));
			CHECK_EQ(p.buf[1][GRH + len], 0xee);
		} else {
			CHECK(!memcmp(p.buf[1], p.buf[0], len));
			CHECK_EQ(p.buf[1][len], 0xee);
		}
	}
	/* and back the other way */
	fx_fill(p.buf[1], 512, 99);
	CHECK_RC(fx_post_recv(&p, 0, 7, 1024, 512 + GRH), 0);
	CHECK_RC(fx_post_send(&p, 1, 8, 0, 512, IBV_SEND_SIGNALED, false, 0),
		 0);
	fx_poll_one(p.scq[1], &wc, TMO);
	check_wc(&wc, 8, IBV_WC_SUCCESS, IBV_WC_SEND, "send back");
	fx_poll_one(p.rcq[0], &wc, TMO);
	check_wc(&wc, 7, IBV_WC_SUCCESS, IBV_WC_RECV, "recv back");
	CHECK_EQ(wc.byte_len, 512 + (ud ? GRH : 0));
	CHECK(!memcmp(p.buf[0] + 1024 + (ud ? GRH : 0), p.buf[1], 512));

	/* zero-byte send (RC only: UD still gets the GRH) */
	CHECK_RC(fx_post_recv(&p, 1, 9, 0, 64), 0);
	CHECK_RC(fx_post_send(&p, 0, 10, 0, 0, IBV_SEND_SIGNALED, true,
			      htobe32(0x1234)),
		 0);
	fx_poll_one(p.scq[0], &wc, TMO);
	check_wc(&wc, 10, IBV_WC_SUCCESS, IBV_WC_SEND, "zero send");
	fx_poll_one(p.rcq[1], &wc, TMO);
	check_wc(&wc, 9, IBV_WC_SUCCESS, IBV_WC_RECV, "zero recv");
	CHECK_EQ(wc.byte_len, ud ? GRH : 0);
	CHECK_EQ(wc.imm_data, htobe32(0x1234));

	fx_expect_none(p.scq[0], 20);
	fx_expect_none(p.rcq[1], 0);
	fx_pair_destroy(&p);
}

static void test_inline(enum ibv_qp_type t)
{
	bool ud = t == IBV_QPT_UD;
	struct fx_pair p;
	struct ibv_wc wc;
	uint8_t src[2048], ref[2048];

	SECTION(ud ? "UD inline" : "RC inline");
	pair(&p, t, 0, 8192);
	CHECK_GE(p.cap[0].max_inline_data, 64);
	for (uint32_t len = 1; len <= p.cap[0].max_inline_data && len <= 1024;
	     len = len * 3 + 1) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)src,
			.length = len,
			.lkey = 0xdeadbeef, /* not registered: inline */
		};
		struct ibv_send_wr wr = {
			.wr_id = len, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED,
		}, *bad = NULL;

		if (ud) {
			wr.wr.ud.ah = p.ah[0];
			wr.wr.ud.remote_qpn = p.qp[1]->qp_num;
			wr.wr.ud.remote_qkey = p.o.qkey;
		}
		fx_fill(src, len, len);
		memcpy(ref, src, len);
		CHECK_RC(fx_post_recv(&p, 1, len, 0, 4096), 0);
		CHECK_RC(ibv_post_send(p.qp[0], &wr, &bad), 0);
		/* inline data is copied at post time */
		memset(src, 0, len);
		fx_poll_one(p.scq[0], &wc, TMO);
		check_wc(&wc, len, IBV_WC_SUCCESS, IBV_WC_SEND, "inline send");
		fx_poll_one(p.rcq[1], &wc, TMO);
		check_wc(&wc, len, IBV_WC_SUCCESS, IBV_WC_RECV, "inline recv");
		CHECK_EQ(wc.byte_len, len + (ud ? GRH : 0));
		CHECK(!memcmp(p.buf[1] + (ud ? GRH : 0), ref, len));
	}
	/* longer than max_inline_data: EINVAL, nothing posted */
	{
		uint32_t len = p.cap[0].max_inline_data + 1;
		uint8_t *big = calloc(1, len);
		struct ibv_sge sge = { .addr = (uintptr_t)big, .length = len };
		struct ibv_send_wr wr = {
			.wr_id = 1, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED,
		}, *bad = NULL;

		REQUIRE(big);
		if (ud) {
			wr.wr.ud.ah = p.ah[0];
			wr.wr.ud.remote_qpn = p.qp[1]->qp_num;
			wr.wr.ud.remote_qkey = p.o.qkey;
		}
		CHECK_RC(ibv_post_send(p.qp[0], &wr, &bad), EINVAL);
		CHECK(bad == &wr);
		fx_expect_none(p.scq[0], 20);
		free(big);
	}
	fx_pair_destroy(&p);
}

static void test_sgl(enum ibv_qp_type t)
{
	bool ud = t == IBV_QPT_UD;
	struct fx_pair p;
	struct ibv_wc wc;

	SECTION(ud ? "UD SGL 1..max_sge" : "RC SGL 1..max_sge");
	pair(&p, t, 1, 1 << 16);
	CHECK_GE(p.cap[0].max_send_sge, 8);
	CHECK_GE(p.cap[1].max_recv_sge, 8);
	for (uint32_t n = 1; n <= p.cap[0].max_send_sge; n++) {
		struct ibv_sge sge[32], rsge[32];
		struct ibv_send_wr wr = {
			.wr_id = n, .sg_list = sge, .num_sge = (int)n,
			.opcode = IBV_WR_SEND_WITH_IMM,
			.imm_data = htobe32(n),
		}, *bad = NULL;
		struct ibv_recv_wr rwr = {
			.wr_id = n, .sg_list = rsge, .num_sge = 0,
		}, *rbad = NULL;
		uint8_t expect[8192];
		size_t total = 0, got = 0;
		uint32_t rn = n < p.cap[1].max_recv_sge ? n :
							  p.cap[1].max_recv_sge;

		if (n > 32)
			break;
		/* pieces of odd sizes at scattered offsets of buf[0] */
		fx_fill(p.buf[0], 1 << 15, n);
		for (uint32_t i = 0; i < n; i++) {
			uint32_t l = ud ? 13 + 7 * i : 37 + 61 * i;

			sge[i].addr = (uintptr_t)p.buf[0] + 2048 * i + i;
			sge[i].length = l;
			sge[i].lkey = p.mr[0]->lkey;
			memcpy(expect + total, p.buf[0] + 2048 * i + i, l);
			total += l;
		}
		/* the receive side scatters too: rn pieces */
		memset(p.buf[1], 0, 1 << 16);
		for (uint32_t i = 0; i < rn; i++) {
			rsge[i].addr = (uintptr_t)p.buf[1] + 4096 * i;
			rsge[i].length = i + 1 < rn ? 100 : 4000;
			if (ud && i == 0 && rn > 1)
				rsge[i].length = GRH + 10;
			rsge[i].lkey = p.mr[1]->lkey;
		}
		rwr.num_sge = (int)rn;
		if (ud) {
			wr.wr.ud.ah = p.ah[0];
			wr.wr.ud.remote_qpn = p.qp[1]->qp_num;
			wr.wr.ud.remote_qkey = p.o.qkey;
		}
		CHECK_RC(ibv_post_recv(p.qp[1], &rwr, &rbad), 0);
		CHECK_RC(ibv_post_send(p.qp[0], &wr, &bad), 0);
		fx_poll_one(p.scq[0], &wc, TMO);
		check_wc(&wc, n, IBV_WC_SUCCESS, IBV_WC_SEND, "sgl send");
		fx_poll_one(p.rcq[1], &wc, TMO);
		check_wc(&wc, n, IBV_WC_SUCCESS, IBV_WC_RECV, "sgl recv");
		CHECK_EQ(wc.byte_len, total + (ud ? GRH : 0));
		CHECK_EQ(wc.imm_data, htobe32(n));
		/* gather what arrived from the receive pieces */
		{
			uint8_t gotb[8192];
			size_t skip = ud ? GRH : 0, left = total + skip;

			for (uint32_t i = 0; i < rn && left; i++) {
				size_t l = rsge[i].length < left ?
						   rsge[i].length :
						   left;

				memcpy(gotb + got,
				       (void *)(uintptr_t)rsge[i].addr, l);
				got += l;
				left -= l;
			}
			CHECK_EQ(got, total + skip);
			if (memcmp(gotb + skip, expect, total))
				check_fail(__FILE__, __LINE__,
					   "SGL %u: data differs", n);
		}
	}
	fx_pair_destroy(&p);
}

static void test_signaling(enum ibv_qp_type t)
{
	bool ud = t == IBV_QPT_UD;
	struct ibv_wc wc[64];
	struct fx_pair p;
	int n, sig = 0;

	SECTION(ud ? "UD signalled/unsignalled" : "RC signalled/unsignalled");
	pair(&p, t, 0, 8192);
	/* 40 sends, every 4th signalled: exactly 10 completions, in order */
	for (int i = 0; i < 40; i++)
		CHECK_RC(fx_post_recv(&p, 1, 1000 + i, 0, 256), 0);
	for (int i = 0; i < 40; i++) {
		bool s = (i % 4) == 3;

		sig += s;
		CHECK_RC(fx_post_send(&p, 0, i, 0, 100,
				      s ? IBV_SEND_SIGNALED : 0, false, 0),
			 0);
		/* keep the SQ from filling: reap now and then */
		if (i % 16 == 15) {
			n = fx_poll(p.scq[0], wc, 4, TMO);
			CHECK_EQ(n, 4);
			for (int k = 0; k < n; k++)
				check_wc(&wc[k], (uint64_t)(i - 15 + 4 * k + 3),
					 IBV_WC_SUCCESS, IBV_WC_SEND, "sig");
			sig -= n;
		}
	}
	n = fx_poll(p.scq[0], wc, sig, TMO);
	CHECK_EQ(n, sig);
	for (int k = 0; k < n; k++)
		check_wc(&wc[k], (uint64_t)(35 + 4 * k), IBV_WC_SUCCESS,
			 IBV_WC_SEND, "sig tail");
	n = fx_poll(p.rcq[1], wc, 40, TMO);
	CHECK_EQ(n, 40);
	for (int k = 0; k < n; k++)
		check_wc(&wc[k], (uint64_t)(1000 + k), IBV_WC_SUCCESS,
			 IBV_WC_RECV, "recv all");
	fx_expect_none(p.scq[0], 30);
	fx_pair_destroy(&p);

	SECTION(ud ? "UD sq_sig_all" : "RC sq_sig_all");
	pair(&p, t, 1, 8192);
	for (int i = 0; i < 20; i++)
		CHECK_RC(fx_post_recv(&p, 1, 1000 + i, 0, 256), 0);
	for (int i = 0; i < 20; i++)
		CHECK_RC(fx_post_send(&p, 0, i, 0, 10, 0, false, 0), 0);
	n = fx_poll(p.scq[0], wc, 20, TMO);
	CHECK_EQ(n, 20);
	for (int k = 0; k < n; k++)
		check_wc(&wc[k], (uint64_t)k, IBV_WC_SUCCESS, IBV_WC_SEND,
			 "sig_all");
	CHECK_EQ(fx_poll(p.rcq[1], wc, 20, TMO), 20);
	fx_expect_none(p.scq[0], 30);
	fx_pair_destroy(&p);
}

/* ---- error paths -------------------------------------------------------- */

static void test_post_state(void)
{
	struct fx_qp_opts o;
	struct fx_pair p;
	struct ibv_sge sge;
	struct ibv_send_wr wr, wr2, *bad;
	struct ibv_recv_wr rwr, *rbad;

	SECTION("post_send in RESET/INIT/RTR: EINVAL, *bad_wr == wr");
	fx_qp_opts_default(&o, IBV_QPT_RC);
	fx_pair_create(&p, ctx, pd, &o, 4096);
	sge = (struct ibv_sge){ (uintptr_t)p.buf[0], 16, p.mr[0]->lkey };
	wr = (struct ibv_send_wr){ .wr_id = 1,
				   .sg_list = &sge,
				   .num_sge = 1,
				   .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED,
				   .next = &wr2 };
	wr2 = wr;
	wr2.next = NULL;
	rwr = (struct ibv_recv_wr){ .wr_id = 2, .sg_list = &sge, .num_sge = 1 };

	bad = NULL;
	CHECK_RC(ibv_post_send(p.qp[0], &wr, &bad), EINVAL);
	CHECK(bad == &wr);
	rbad = NULL;
	CHECK_RC(ibv_post_recv(p.qp[0], &rwr, &rbad), EINVAL);
	CHECK(rbad == &rwr);

	CHECK_RC(fx_rc_to_init(p.qp[0]), 0);
	CHECK_RC(fx_rc_to_init(p.qp[1]), 0);
	bad = NULL;
	CHECK_RC(ibv_post_send(p.qp[0], &wr, &bad), EINVAL);
	CHECK(bad == &wr);
	/* receives are fine from INIT on */
	rbad = NULL;
	CHECK_RC(ibv_post_recv(p.qp[1], &rwr, &rbad), 0);
	CHECK(rbad == NULL);

	CHECK_RC(fx_rc_to_rtr(p.qp[0], &p.gid, p.qp[1]->qp_num, &o), 0);
	CHECK_RC(fx_rc_to_rtr(p.qp[1], &p.gid, p.qp[0]->qp_num, &o), 0);
	bad = NULL;
	CHECK_RC(ibv_post_send(p.qp[0], &wr, &bad), EINVAL);
	CHECK(bad == &wr);
	fx_expect_none(p.scq[0], 20);

	/* NULL bad_wr is refused too */
	CHECK_RC(fx_rc_to_rts(p.qp[0], &o), 0);
	CHECK_RC(fx_rc_to_rts(p.qp[1], &o), 0);
	CHECK_RC(ibv_post_send(p.qp[0], &wr2, NULL), EINVAL);

	/* and now it works; the receive posted in INIT is used */
	{
		struct ibv_wc wc;

		bad = NULL;
		CHECK_RC(ibv_post_send(p.qp[0], &wr2, &bad), 0);
		CHECK(bad == NULL);
		fx_poll_one(p.scq[0], &wc, TMO);
		check_wc(&wc, 1, IBV_WC_SUCCESS, IBV_WC_SEND, "after RTS");
		fx_poll_one(p.rcq[1], &wc, TMO);
		check_wc(&wc, 2, IBV_WC_SUCCESS, IBV_WC_RECV, "recv from INIT");
	}
	fx_pair_destroy(&p);
}

static void test_too_many_sge(enum ibv_qp_type t)
{
	struct fx_pair p;
	struct ibv_sge sge[64];
	struct ibv_send_wr wr, *bad;
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_wc wc;

	SECTION("too many SGEs: EINVAL, *bad_wr == wr");
	pair(&p, t, 1, 4096);
	for (int i = 0; i < 64; i++)
		sge[i] = (struct ibv_sge){ (uintptr_t)p.buf[0] + i, 1,
					   p.mr[0]->lkey };
	wr = (struct ibv_send_wr){ .wr_id = 1,
				   .sg_list = sge,
				   .num_sge = (int)p.cap[0].max_send_sge + 1,
				   .opcode = IBV_WR_SEND };
	if (t == IBV_QPT_UD) {
		wr.wr.ud.ah = p.ah[0];
		wr.wr.ud.remote_qpn = p.qp[1]->qp_num;
		wr.wr.ud.remote_qkey = p.o.qkey;
	}
	bad = NULL;
	CHECK_RC(ibv_post_send(p.qp[0], &wr, &bad), EINVAL);
	CHECK(bad == &wr);
	rwr = (struct ibv_recv_wr){ .wr_id = 1,
				    .sg_list = sge,
				    .num_sge = (int)p.cap[1].max_recv_sge + 1 };
	rbad = NULL;
	CHECK_RC(ibv_post_recv(p.qp[1], &rwr, &rbad), EINVAL);
	CHECK(rbad == &rwr);
	fx_expect_none(p.scq[0], 20);
	fx_expect_none(p.rcq[1], 0);
	/* the QP is still usable */
	CHECK_RC(fx_post_recv(&p, 1, 5, 0, 4096), 0);
	CHECK_RC(fx_post_send(&p, 0, 6, 0, 8, 0, false, 0), 0);
	fx_poll_one(p.scq[0], &wc, TMO);
	check_wc(&wc, 6, IBV_WC_SUCCESS, IBV_WC_SEND, "after bad sge");
	fx_poll_one(p.rcq[1], &wc, TMO);
	check_wc(&wc, 5, IBV_WC_SUCCESS, IBV_WC_RECV, "after bad sge");
	fx_pair_destroy(&p);
}

static void test_full_queues(void)
{
	struct fx_qp_opts o;
	struct fx_pair p;
	struct ibv_sge sge;
	struct ibv_send_wr *wrs, *bad;
	struct ibv_recv_wr *rwrs, *rbad;
	struct ibv_wc wc[256];
	uint32_t sq, rq;
	int n;

	SECTION("full SQ: ENOMEM at max_send_wr + 1; full RQ likewise");
	fx_qp_opts_default(&o, IBV_QPT_RC);
	o.max_send_wr = 16;
	o.max_recv_wr = 100;
	o.sq_sig_all = 1;
	fx_pair_create(&p, ctx, pd, &o, 4096);
	fx_pair_connect(&p);
	sq = p.cap[0].max_send_wr;
	rq = p.cap[1].max_recv_wr;
	CHECK_GE(sq, 16);
	CHECK_GE(rq, 100);
	REQUIRE(sq < 200 && rq < 200);

	sge = (struct ibv_sge){ (uintptr_t)p.buf[0], 8, p.mr[0]->lkey };
	rwrs = calloc(rq + 1, sizeof(*rwrs));
	wrs = calloc(sq + 1, sizeof(*wrs));
	REQUIRE(rwrs && wrs);
	for (uint32_t i = 0; i <= rq; i++) {
		rwrs[i].wr_id = 500 + i;
		rwrs[i].sg_list = &sge;
		rwrs[i].num_sge = 1;
		rwrs[i].next = i < rq ? &rwrs[i + 1] : NULL;
	}
	/* receive sge may use buf[1]'s key: post on qp[1] */
	{
		struct ibv_sge rs = { (uintptr_t)p.buf[1], 64, p.mr[1]->lkey };

		for (uint32_t i = 0; i <= rq; i++)
			rwrs[i].sg_list = &rs;
		rbad = NULL;
		CHECK_RC(ibv_post_recv(p.qp[1], rwrs, &rbad), ENOMEM);
		CHECK(rbad == &rwrs[rq]);
	}
	for (uint32_t i = 0; i <= sq; i++) {
		wrs[i].wr_id = i;
		wrs[i].sg_list = &sge;
		wrs[i].num_sge = 1;
		wrs[i].opcode = IBV_WR_SEND;
		wrs[i].next = i < sq ? &wrs[i + 1] : NULL;
	}
	bad = NULL;
	CHECK_RC(ibv_post_send(p.qp[0], wrs, &bad), ENOMEM);
	CHECK(bad == &wrs[sq]);
	/* the WRs before the failing one were posted and complete once each */
	n = fx_poll(p.scq[0], wc, (int)sq, TMO);
	CHECK_EQ(n, sq);
	for (int i = 0; i < n; i++)
		check_wc(&wc[i], (uint64_t)i, IBV_WC_SUCCESS, IBV_WC_SEND,
			 "full sq");
	n = fx_poll(p.rcq[1], wc, (int)sq, TMO);
	CHECK_EQ(n, sq);
	fx_expect_none(p.scq[0], 30);
	/* after reaping there is room again */
	bad = NULL;
	wrs[sq].next = NULL;
	CHECK_RC(ibv_post_send(p.qp[0], &wrs[sq], &bad), 0);
	fx_poll(p.scq[0], wc, 1, TMO);
	check_wc(&wc[0], sq, IBV_WC_SUCCESS, IBV_WC_SEND, "after full");
	free(wrs);
	free(rwrs);
	fx_pair_destroy(&p);
}

static void expect_flushes(struct ibv_cq *cq, uint64_t first, int count,
			   const char *what)
{
	struct ibv_wc wc[128];
	int n = fx_poll(cq, wc, count, TMO);

	if (n != count)
		check_fail(__FILE__, __LINE__,
			   "%s: %d flush completions, expected %d", what, n,
			   count);
	for (int i = 0; i < n; i++)
		check_wc(&wc[i], first + (uint64_t)i, IBV_WC_WR_FLUSH_ERR, 0,
			 what);
	/* exactly once: nothing more */
	fx_expect_none(cq, 50);
}

static void test_bad_lkey(void)
{
	struct fx_pair p;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	struct ibv_wc wc;
	struct ibv_sge sge[6];
	struct ibv_send_wr wr[6], *bad;

	SECTION("bad lkey: LOC_PROT_ERR, then every outstanding WR flushed once");
	pair(&p, IBV_QPT_RC, 0, 4096);
	for (int i = 0; i < 3; i++)
		CHECK_RC(fx_post_recv(&p, 0, 300 + i, 0, 64), 0);
	for (int i = 0; i < 6; i++) {
		sge[i] = (struct ibv_sge){ (uintptr_t)p.buf[0], 32,
					   i == 0 ? p.mr[0]->lkey ^ 0x5a5a00 :
						    p.mr[0]->lkey };
		wr[i] = (struct ibv_send_wr){
			.wr_id = 10 + i,
			.sg_list = &sge[i],
			.num_sge = 1,
			.opcode = IBV_WR_SEND,
			/* the failing one is unsignalled: errors always show */
			.send_flags = i == 0 ? 0 : IBV_SEND_SIGNALED,
			.next = i < 5 ? &wr[i + 1] : NULL,
		};
	}
	bad = NULL;
	CHECK_RC(ibv_post_send(p.qp[0], wr, &bad), 0);
	fx_poll_one(p.scq[0], &wc, TMO);
	check_wc(&wc, 10, IBV_WC_LOC_PROT_ERR, 0, "bad lkey");
	expect_flushes(p.scq[0], 11, 5, "send flush after bad lkey");
	expect_flushes(p.rcq[0], 300, 3, "recv flush after bad lkey");
	CHECK_RC(ibv_query_qp(p.qp[0], &qa, IBV_QP_STATE, &qi), 0);
	CHECK_EQ(qa.qp_state, IBV_QPS_ERR);
	/* WRs posted in ERR flush too, exactly once */
	wr[5].next = NULL;
	bad = NULL;
	CHECK_RC(ibv_post_send(p.qp[0], &wr[5], &bad), 0);
	expect_flushes(p.scq[0], 15, 1, "send posted in ERR");
	CHECK_RC(fx_post_recv(&p, 0, 400, 0, 64), 0);
	expect_flushes(p.rcq[0], 400, 1, "recv posted in ERR");
	/* the peer received nothing */
	fx_expect_none(p.rcq[1], 0);
	fx_pair_destroy(&p);
}

static bool is_remote_err(enum ibv_wc_status s)
{
	return s == IBV_WC_REM_INV_REQ_ERR || s == IBV_WC_REM_ACCESS_ERR ||
	       s == IBV_WC_REM_OP_ERR;
}

static void test_short_recv(void)
{
	struct fx_pair p;
	struct ibv_wc wc;

	SECTION("receive buffer too small: LOC_LEN_ERR / remote error");
	pair(&p, IBV_QPT_RC, 1, 8192);
	CHECK_RC(fx_post_recv(&p, 1, 1, 0, 100), 0);
	CHECK_RC(fx_post_send(&p, 0, 2, 0, 1000, 0, false, 0), 0);
	fx_poll_one(p.rcq[1], &wc, TMO);
	check_wc(&wc, 1, IBV_WC_LOC_LEN_ERR, 0, "short recv");
	fx_poll_one(p.scq[0], &wc, TMO);
	if (wc.wr_id != 2 || !is_remote_err(wc.status))
		check_fail(
			__FILE__, __LINE__,
			"sender: wr_id %llu status %s, expected 2 and a remote error (REM_INV_REQ_ERR)",
			(unsigned long long)wc.wr_id, fx_wc_status(wc.status));
	else if (wc.status != IBV_WC_REM_INV_REQ_ERR)
		fprintf(stderr,
			"note: sender status %s (IBTA: REM_INV_REQ_ERR)\n",
			fx_wc_status(wc.status));
	fx_pair_destroy(&p);

	SECTION("UD receive buffer too small");
	pair(&p, IBV_QPT_UD, 1, 8192);
	CHECK_RC(fx_post_recv(&p, 1, 1, 0, GRH + 10), 0);
	CHECK_RC(fx_post_send(&p, 0, 2, 0, 500, 0, false, 0), 0);
	fx_poll_one(p.scq[0], &wc, TMO);
	/* UD: the sender cannot know */
	check_wc(&wc, 2, IBV_WC_SUCCESS, IBV_WC_SEND, "UD sender");
	fx_poll_one(p.rcq[1], &wc, TMO);
	check_wc(&wc, 1, IBV_WC_LOC_LEN_ERR, 0, "UD short recv");
	fx_pair_destroy(&p);
}

static void test_modify_err(enum ibv_qp_type t)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct fx_pair p;

	SECTION(t == IBV_QPT_UD ? "UD modify to ERR flushes" :
				  "RC modify to ERR flushes");
	pair(&p, t, 1, 4096);
	for (int i = 0; i < 10; i++)
		CHECK_RC(fx_post_recv(&p, 1, 50 + i, 0, 64), 0);
	CHECK_RC(ibv_modify_qp(p.qp[1], &a, IBV_QP_STATE), 0);
	expect_flushes(p.rcq[1], 50, 10, "recv flush on modify ERR");
	fx_expect_none(p.scq[1], 0);
	fx_pair_destroy(&p);
}

/* D1: the receive flush must name the right WRs after the free list of
 * receive metadata has been recycled. */
static void test_flush_after_recycle(enum ibv_qp_type t)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct ibv_wc wc[64];
	struct fx_pair p;
	int n;

	SECTION(t == IBV_QPT_UD ?
			"UD flush names the right WRs after recycling" :
			"RC flush names the right WRs after recycling");
	pair(&p, t, 1, 4096);
	for (int i = 0; i < 10; i++)
		CHECK_RC(fx_post_recv(&p, 1, 100 + i, 0, 256), 0);
	/* consume 4, then post 6 more: slots and metadata recycle */
	for (int i = 0; i < 4; i++)
		CHECK_RC(fx_post_send(&p, 0, i, 0, 8, 0, false, 0), 0);
	CHECK_EQ(fx_poll(p.scq[0], wc, 4, TMO), 4);
	n = fx_poll(p.rcq[1], wc, 4, TMO);
	CHECK_EQ(n, 4);
	for (int i = 0; i < n; i++)
		check_wc(&wc[i], 100 + (uint64_t)i, IBV_WC_SUCCESS, IBV_WC_RECV,
			 "before recycle");
	for (int i = 0; i < 6; i++)
		CHECK_RC(fx_post_recv(&p, 1, 200 + i, 0, 256), 0);
	/* consume 3 more (104..106) */
	for (int i = 0; i < 3; i++)
		CHECK_RC(fx_post_send(&p, 0, 10 + i, 0, 8, 0, false, 0), 0);
	CHECK_EQ(fx_poll(p.scq[0], wc, 3, TMO), 3);
	n = fx_poll(p.rcq[1], wc, 3, TMO);
	CHECK_EQ(n, 3);
	for (int i = 0; i < n; i++)
		check_wc(&wc[i], 104 + (uint64_t)i, IBV_WC_SUCCESS, IBV_WC_RECV,
			 "after recycle");
	/* outstanding: 107..109 then 200..205, flushed in that order */
	CHECK_RC(ibv_modify_qp(p.qp[1], &a, IBV_QP_STATE), 0);
	n = fx_poll(p.rcq[1], wc, 9, TMO);
	CHECK_EQ(n, 9);
	for (int i = 0; i < n; i++)
		check_wc(&wc[i],
			 i < 3 ? 107 + (uint64_t)i : 200 + (uint64_t)i - 3,
			 IBV_WC_WR_FLUSH_ERR, 0, "recycled flush");
	fx_expect_none(p.rcq[1], 50);
	fx_pair_destroy(&p);
}

/* D21: WRs the device already completed, then modify to ERR: each WR
 * still completes exactly once. */
static void test_err_after_done(void)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct ibv_wc wc[32];
	uint8_t seen[16] = { 0 };
	struct fx_pair p;
	int n, ok = 0;

	SECTION("modify to ERR with completed, unpolled WRs: exactly once each");
	pair(&p, IBV_QPT_RC, 1, 4096);
	for (int i = 0; i < 8; i++)
		CHECK_RC(fx_post_recv(&p, 1, 100 + i, 0, 256), 0);
	for (int i = 0; i < 8; i++)
		CHECK_RC(fx_post_send(&p, 0, i, 0, 8, 0, false, 0), 0);
	/* wait until everything arrived (receiver side), sender unpolled */
	CHECK_EQ(fx_poll(p.rcq[1], wc, 8, TMO), 8);
	usleep(20000);
	CHECK_RC(ibv_modify_qp(p.qp[0], &a, IBV_QP_STATE), 0);
	n = fx_poll(p.scq[0], wc, 8, TMO);
	CHECK_EQ(n, 8);
	for (int i = 0; i < n; i++) {
		if (wc[i].wr_id >= 8) {
			check_fail(__FILE__, __LINE__, "bogus wr_id %llu",
				   (unsigned long long)wc[i].wr_id);
			continue;
		}
		seen[wc[i].wr_id]++;
		if (wc[i].status == IBV_WC_SUCCESS)
			ok++;
		else
			CHECK_EQ(wc[i].status, IBV_WC_WR_FLUSH_ERR);
	}
	for (int i = 0; i < 8; i++)
		CHECK_EQ(seen[i], 1);
	if (ok != 8)
		fprintf(stderr,
			"note: %d of 8 delivered sends reported as flushed (D21)\n",
			8 - ok);
	fx_expect_none(p.scq[0], 50);
	fx_pair_destroy(&p);
}

/* A chain whose middle WR is bad: the ones before are posted and
 * complete, *bad_wr names the bad one, the ones after are not posted. */
static void test_partial_chain(enum ibv_qp_type t)
{
	struct ibv_sge sge[16];
	struct ibv_send_wr wr[4], *bad;
	struct ibv_recv_wr rwr[4], *rbad;
	struct ibv_wc wc[8];
	struct fx_pair p;
	int n;

	SECTION(t == IBV_QPT_UD ? "UD chain with a bad WR in the middle" :
				  "RC chain with a bad WR in the middle");
	pair(&p, t, 1, 8192);
	for (int i = 0; i < 16; i++)
		sge[i] = (struct ibv_sge){ (uintptr_t)p.buf[0], 4,
					   p.mr[0]->lkey };
	for (int i = 0; i < 4; i++) {
		wr[i] = (struct ibv_send_wr){
			.wr_id = 10 + i,
			.sg_list = sge,
			.num_sge = 1,
			.opcode = IBV_WR_SEND,
			.next = i < 3 ? &wr[i + 1] : NULL,
		};
		if (t == IBV_QPT_UD) {
			wr[i].wr.ud.ah = p.ah[0];
			wr[i].wr.ud.remote_qpn = p.qp[1]->qp_num;
			wr[i].wr.ud.remote_qkey = p.o.qkey;
		}
	}
	wr[2].num_sge = (int)p.cap[0].max_send_sge + 1;
	for (int i = 0; i < 4; i++)
		CHECK_RC(fx_post_recv(&p, 1, 50 + i, 0, 256), 0);
	bad = NULL;
	CHECK_RC(ibv_post_send(p.qp[0], wr, &bad), EINVAL);
	CHECK(bad == &wr[2]);
	n = fx_poll(p.scq[0], wc, 2, TMO);
	CHECK_EQ(n, 2);
	for (int i = 0; i < n; i++)
		check_wc(&wc[i], 10 + (uint64_t)i, IBV_WC_SUCCESS, IBV_WC_SEND,
			 "chain head");
	CHECK_EQ(fx_poll(p.rcq[1], wc, 2, TMO), 2);
	fx_expect_none(p.scq[0], 30);
	fx_expect_none(p.rcq[1], 0);

	/* the same for receives */
	for (int i = 0; i < 4; i++)
		rwr[i] = (struct ibv_recv_wr){
			.wr_id = 60 + i,
			.sg_list = sge,
			.num_sge = 1,
			.next = i < 3 ? &rwr[i + 1] : NULL,
		};
	for (int i = 0; i < 16; i++)
		sge[i] = (struct ibv_sge){ (uintptr_t)p.buf[1], 256,
					   p.mr[1]->lkey };
	rwr[1].num_sge = (int)p.cap[1].max_recv_sge + 1;
	rbad = NULL;
	CHECK_RC(ibv_post_recv(p.qp[1], rwr, &rbad), EINVAL);
	CHECK(rbad == &rwr[1]);
	/* one posted now (60) plus 52, 53 from before: three sends land in
	 * 52, 53, 60 */
	for (int i = 0; i < 3; i++)
		CHECK_RC(fx_post_send(&p, 0, 20 + i, 0, 8, 0, false, 0), 0);
	CHECK_EQ(fx_poll(p.scq[0], wc, 3, TMO), 3);
	n = fx_poll(p.rcq[1], wc, 3, TMO);
	CHECK_EQ(n, 3);
	if (n == 3) {
		check_wc(&wc[0], 52, IBV_WC_SUCCESS, IBV_WC_RECV, "rchain");
		check_wc(&wc[1], 53, IBV_WC_SUCCESS, IBV_WC_RECV, "rchain");
		check_wc(&wc[2], 60, IBV_WC_SUCCESS, IBV_WC_RECV, "rchain");
	}
	fx_pair_destroy(&p);
}

static void test_recv_bad_lkey(void)
{
	struct ibv_sge sge;
	struct ibv_recv_wr rwr, *rbad;
	struct fx_pair p;
	struct ibv_wc wc;

	SECTION("receive with a bad lkey: receiver LOC_PROT_ERR, sender remote error");
	pair(&p, IBV_QPT_RC, 1, 4096);
	sge = (struct ibv_sge){ (uintptr_t)p.buf[1], 256,
				p.mr[1]->lkey ^ 0x3300 };
	rwr = (struct ibv_recv_wr){ .wr_id = 5, .sg_list = &sge, .num_sge = 1 };
	CHECK_RC(ibv_post_recv(p.qp[1], &rwr, &rbad), 0);
	CHECK_RC(fx_post_send(&p, 0, 6, 0, 64, 0, false, 0), 0);
	fx_poll_one(p.rcq[1], &wc, TMO);
	check_wc(&wc, 5, IBV_WC_LOC_PROT_ERR, 0, "recv bad lkey");
	fx_poll_one(p.scq[0], &wc, TMO);
	if (wc.wr_id != 6 || !is_remote_err(wc.status))
		check_fail(
			__FILE__, __LINE__,
			"sender: wr_id %llu status %s, expected 6 and a remote error",
			(unsigned long long)wc.wr_id, fx_wc_status(wc.status));
	fx_pair_destroy(&p);
}

/* CQEs of a QP that is reset or destroyed before they are polled must
 * vanish, and the CQ must keep working for the next QP. */
static void test_clean_on_destroy(void)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
	struct ibv_wc wc[16];
	struct fx_pair p;

	SECTION("reset/destroy with unpolled CQEs: they vanish, CQ keeps working");
	pair(&p, IBV_QPT_RC, 1, 4096);
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < 6; i++)
			CHECK_RC(fx_post_recv(&p, 1, 100 + i, 0, 256), 0);
		for (int i = 0; i < 6; i++)
			CHECK_RC(fx_post_send(&p, 0, i, 0, 8, 0, false, 0), 0);
		CHECK_EQ(fx_poll(p.rcq[1], wc, 6, TMO), 6);
		usleep(20000); /* the sender's CQEs are in its CQ now */
		if (round == 0) {
			CHECK_RC(ibv_modify_qp(p.qp[0], &a, IBV_QP_STATE), 0);
			CHECK_RC(ibv_modify_qp(p.qp[1], &a, IBV_QP_STATE), 0);
		} else {
			struct ibv_qp_init_attr ia = {
				.send_cq = p.scq[0],
				.recv_cq = p.rcq[0],
				.qp_type = IBV_QPT_RC,
				.sq_sig_all = 1,
				.cap = { p.o.max_send_wr, p.o.max_recv_wr, 4, 4,
					 0 },
			};

			CHECK_RC(ibv_destroy_qp(p.qp[0]), 0);
			p.qp[0] = ibv_create_qp(p.pd, &ia);
			REQUIRE(p.qp[0]);
			CHECK_RC(ibv_modify_qp(p.qp[1], &a, IBV_QP_STATE), 0);
		}
		fx_expect_none(p.scq[0], 30);
		fx_pair_connect(&p);
		/* the CQ still delivers, exactly */
		for (int i = 0; i < 3; i++)
			CHECK_RC(fx_post_recv(&p, 1, 300 + i, 0, 256), 0);
		for (int i = 0; i < 3; i++)
			CHECK_RC(fx_post_send(&p, 0, 30 + i, 0, 8, 0, false, 0),
				 0);
		CHECK_EQ(fx_poll(p.scq[0], wc, 3, TMO), 3);
		for (int i = 0; i < 3; i++)
			check_wc(&wc[i], 30 + (uint64_t)i, IBV_WC_SUCCESS,
				 IBV_WC_SEND, "after clean");
		CHECK_EQ(fx_poll(p.rcq[1], wc, 3, TMO), 3);
		for (int i = 0; i < 3; i++)
			check_wc(&wc[i], 300 + (uint64_t)i, IBV_WC_SUCCESS,
				 IBV_WC_RECV, "after clean");
		fx_expect_none(p.scq[0], 20);
	}
	fx_pair_destroy(&p);
}

static void test_rnr(void)
{
	static const uint8_t counts[] = { 0, 1, 3, 6 };
	struct ibv_wc wc;

	for (unsigned int k = 0; k < sizeof(counts); k++) {
		struct fx_qp_opts o;
		struct fx_pair p;
		uint64_t t0;
		char name[64];

		snprintf(name, sizeof(name), "RNR retry %u exhausted",
			 counts[k]);
		SECTION(name);
		fx_qp_opts_default(&o, IBV_QPT_RC);
		o.rnr_retry = counts[k];
		o.min_rnr_timer = 1; /* 0.01 ms */
		fx_pair_create(&p, ctx, pd, &o, 4096);
		fx_pair_connect(&p);
		t0 = fx_now_ms();
		CHECK_RC(fx_post_send(&p, 0, 77, 0, 16, IBV_SEND_SIGNALED,
				      false, 0),
			 0);
		fx_poll_one(p.scq[0], &wc, TMO);
		check_wc(&wc, 77, IBV_WC_RNR_RETRY_EXC_ERR, 0, "rnr");
		CHECK(fx_now_ms() - t0 < TMO);
		fx_expect_none(p.rcq[1], 0);
		fx_pair_destroy(&p);
	}
}

static void test_retry_exceeded(void)
{
	struct fx_qp_opts o;
	struct fx_pair p;
	struct ibv_wc wc;

	SECTION("peer QP destroyed: RETRY_EXC_ERR");
	fx_qp_opts_default(&o, IBV_QPT_RC);
	o.timeout = 1; /* the emulator clamps to 10 ms */
	o.retry_cnt = 1;
	fx_pair_create(&p, ctx, pd, &o, 4096);
	fx_pair_connect(&p);
	CHECK_RC(ibv_destroy_qp(p.qp[1]), 0);
	p.qp[1] = NULL;
	CHECK_RC(fx_post_send(&p, 0, 88, 0, 16, IBV_SEND_SIGNALED, false, 0),
		 0);
	fx_poll_one(p.scq[0], &wc, TMO);
	check_wc(&wc, 88, IBV_WC_RETRY_EXC_ERR, 0, "peer gone");
	fx_pair_destroy(&p);

	SECTION("peer never connected (RESET): RETRY_EXC_ERR");
	fx_pair_create(&p, ctx, pd, &o, 4096);
	CHECK_RC(fx_rc_to_init(p.qp[0]), 0);
	CHECK_RC(fx_rc_to_rtr(p.qp[0], &p.gid, p.qp[1]->qp_num, &o), 0);
	CHECK_RC(fx_rc_to_rts(p.qp[0], &o), 0);
	CHECK_RC(fx_post_send(&p, 0, 89, 0, 16, IBV_SEND_SIGNALED, false, 0),
		 0);
	fx_poll_one(p.scq[0], &wc, TMO);
	check_wc(&wc, 89, IBV_WC_RETRY_EXC_ERR, 0, "peer in RESET");
	fx_expect_none(p.rcq[1], 0);
	fx_pair_destroy(&p);

	SECTION("QP number that does not exist: RETRY_EXC_ERR");
	fx_pair_create(&p, ctx, pd, &o, 4096);
	CHECK_RC(fx_rc_to_init(p.qp[0]), 0);
	CHECK_RC(fx_rc_to_rtr(p.qp[0], &p.gid, 0xfffff0, &o), 0);
	CHECK_RC(fx_rc_to_rts(p.qp[0], &o), 0);
	CHECK_RC(fx_post_send(&p, 0, 90, 0, 16, IBV_SEND_SIGNALED, false, 0),
		 0);
	fx_poll_one(p.scq[0], &wc, TMO);
	check_wc(&wc, 90, IBV_WC_RETRY_EXC_ERR, 0, "no such QP");
	fx_pair_destroy(&p);
}

static void test_ud_qkey(void)
{
	struct fx_pair p;
	struct ibv_wc wc;
	struct ibv_sge sge;
	struct ibv_send_wr wr, *bad;

	SECTION("UD wrong qkey: no receive completion");
	pair(&p, IBV_QPT_UD, 1, 4096);
	CHECK_RC(fx_post_recv(&p, 1, 1, 0, 512), 0);
	sge = (struct ibv_sge){ (uintptr_t)p.buf[0], 32, p.mr[0]->lkey };
	wr = (struct ibv_send_wr){
		.wr_id = 2,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
	};
	wr.wr.ud.ah = p.ah[0];
	wr.wr.ud.remote_qpn = p.qp[1]->qp_num;
	wr.wr.ud.remote_qkey = p.o.qkey ^ 0x1;
	bad = NULL;
	CHECK_RC(ibv_post_send(p.qp[0], &wr, &bad), 0);
	fx_poll_one(p.scq[0], &wc, TMO);
	check_wc(&wc, 2, IBV_WC_SUCCESS, IBV_WC_SEND, "wrong qkey send");
	fx_expect_none(p.rcq[1], 300);
	/* the right qkey is received, by the same receive WR */
	wr.wr_id = 3;
	wr.wr.ud.remote_qkey = p.o.qkey;
	CHECK_RC(ibv_post_send(p.qp[0], &wr, &bad), 0);
	fx_poll_one(p.scq[0], &wc, TMO);
	check_wc(&wc, 3, IBV_WC_SUCCESS, IBV_WC_SEND, "right qkey send");
	fx_poll_one(p.rcq[1], &wc, TMO);
	check_wc(&wc, 1, IBV_WC_SUCCESS, IBV_WC_RECV, "right qkey recv");
	CHECK_EQ(wc.byte_len, GRH + 32);

	SECTION("UD to a QP number that does not exist: sender succeeds");
	wr.wr_id = 4;
	wr.wr.ud.remote_qpn = 0xfffff0;
	CHECK_RC(ibv_post_send(p.qp[0], &wr, &bad), 0);
	fx_poll_one(p.scq[0], &wc, TMO);
	check_wc(&wc, 4, IBV_WC_SUCCESS, IBV_WC_SEND, "UD to nowhere");

	SECTION("UD message larger than the path MTU: refused, nothing arrives");
	{
		struct ibv_sge big = { (uintptr_t)p.buf[0], 2000,
				       p.mr[0]->lkey };
		int rc;

		CHECK_RC(fx_post_recv(&p, 1, 6, 0, 4096), 0);
		wr.wr_id = 5;
		wr.sg_list = &big;
		wr.wr.ud.remote_qpn = p.qp[1]->qp_num;
		bad = NULL;
		rc = ibv_post_send(p.qp[0], &wr, &bad);
		if (rc) {
			CHECK_EQ(rc, EINVAL);
		} else {
			fx_poll_one(p.scq[0], &wc, TMO);
			check_wc(&wc, 5, IBV_WC_LOC_LEN_ERR, 0, "UD > MTU");
		}
		fx_expect_none(p.rcq[1], 200);
		wr.sg_list = &sge;
	}

	SECTION("UD post without AH: EINVAL");
	wr.wr.ud.ah = NULL;
	bad = NULL;
	CHECK_RC(ibv_post_send(p.qp[0], &wr, &bad), EINVAL);
	CHECK(bad == &wr);
	SECTION("UD RDMA WRITE: EINVAL");
	wr.wr.ud.ah = p.ah[0];
	wr.opcode = IBV_WR_RDMA_WRITE;
	bad = NULL;
	CHECK_RC(ibv_post_send(p.qp[0], &wr, &bad), EINVAL);
	CHECK(bad == &wr);
	fx_expect_none(p.scq[0], 20);
	fx_pair_destroy(&p);
}

int main(int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : NULL;

#define RUN(name, call)                          \
	do {                                     \
		if (!only || strstr(name, only)) \
			call;                    \
	} while (0)

	ctx = fx_open();
	pd = ibv_alloc_pd(ctx);
	REQUIRE(pd);

	RUN("send-rc", test_send(IBV_QPT_RC));
	RUN("send-ud", test_send(IBV_QPT_UD));
	RUN("inline-rc", test_inline(IBV_QPT_RC));
	RUN("inline-ud", test_inline(IBV_QPT_UD));
	RUN("sgl-rc", test_sgl(IBV_QPT_RC));
	RUN("sgl-ud", test_sgl(IBV_QPT_UD));
	RUN("signal-rc", test_signaling(IBV_QPT_RC));
	RUN("signal-ud", test_signaling(IBV_QPT_UD));
	RUN("state", test_post_state());
	RUN("sge-rc", test_too_many_sge(IBV_QPT_RC));
	RUN("sge-ud", test_too_many_sge(IBV_QPT_UD));
	RUN("full", test_full_queues());
	RUN("lkey", test_bad_lkey());
	RUN("short", test_short_recv());
	RUN("err-rc", test_modify_err(IBV_QPT_RC));
	RUN("err-ud", test_modify_err(IBV_QPT_UD));
	RUN("recycle-rc", test_flush_after_recycle(IBV_QPT_RC));
	RUN("recycle-ud", test_flush_after_recycle(IBV_QPT_UD));
	RUN("errdone", test_err_after_done());
	RUN("chain-rc", test_partial_chain(IBV_QPT_RC));
	RUN("chain-ud", test_partial_chain(IBV_QPT_UD));
	RUN("rlkey", test_recv_bad_lkey());
	RUN("clean", test_clean_on_destroy());
	RUN("rnr", test_rnr());
	RUN("retry", test_retry_exceeded());
	RUN("qkey", test_ud_qkey());

	CHECK_RC(ibv_dealloc_pd(pd), 0);
	CHECK_RC(ibv_close_device(ctx), 0);
	return check_finish();
}
