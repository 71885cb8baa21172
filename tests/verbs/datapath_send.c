// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * verbs-datapath, success paths: RC and UD SEND / SEND_WITH_IMM of many
 * sizes, inline, scatter/gather lists, signalled and unsignalled sends;
 * data compared byte for byte, every completion field a user reads; the
 * UD receive's network header type (wc.sl) and GRH area.
 */
#include "datapath.h"

void test_send(enum ibv_qp_type t)
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

void test_inline(enum ibv_qp_type t)
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

void test_sgl(enum ibv_qp_type t)
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

void test_signaling(enum ibv_qp_type t)
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

/*
 * One 64-byte UD SEND from QP 0 through 'ah' whose source and destination
 * GID is 'gid': the receive reports the network header type in wc.sl
 * (2 IPv4, 1 IPv6; the mlx5 convention UCX reads the GRH area by) and
 * the GRH area holds that header, as libibverbs and UCX parse it: 20
 * zero bytes and the IPv4 header, or the IPv6 header.
 */
static void ud_header(struct fx_pair *p, struct ibv_ah *ah,
		      const union ibv_gid *gid, bool v4, uint64_t id)
{
	static const uint8_t zero[20];
	const uint8_t *g = p->buf[1];
	struct ibv_ah *keep = p->ah[0];
	struct ibv_ah_attr aa;
	struct ibv_wc wc;

	fx_fill(p->buf[0], 64, (unsigned int)id);
	memset(p->buf[1], 0xee, GRH + 64);
	CHECK_RC(fx_post_recv(p, 1, id, 0, GRH + 64), 0);
	p->ah[0] = ah;
	CHECK_RC(fx_post_send(p, 0, id, 0, 64, IBV_SEND_SIGNALED, false, 0), 0);
	p->ah[0] = keep;
	fx_poll_one(p->scq[0], &wc, TMO);
	check_wc(&wc, id, IBV_WC_SUCCESS, IBV_WC_SEND, "header send");
	fx_poll_one(p->rcq[1], &wc, TMO);
	check_wc(&wc, id, IBV_WC_SUCCESS, IBV_WC_RECV, "header recv");
	CHECK(wc.wc_flags & IBV_WC_GRH);
	CHECK_EQ(wc.sl, v4 ? 2 : 1);
	if (v4) {
		CHECK(!memcmp(g, zero, sizeof(zero)));
		CHECK_EQ(g[20], 0x45); /* version 4, 5-word header */
		CHECK_EQ(g[29], 17); /* UDP */
		CHECK(!memcmp(g + 32, gid->raw + 12, 4)); /* source */
		CHECK(!memcmp(g + 36, gid->raw + 12, 4)); /* destination */
	} else {
		CHECK_EQ(g[0] >> 4, 6);
		CHECK_EQ(g[6], 17); /* next header: UDP */
		CHECK(!memcmp(g + 8, gid->raw, 16));
		CHECK(!memcmp(g + 24, gid->raw, 16));
	}
	CHECK(!memcmp(g + GRH, p->buf[0], 64));
	/* libibverbs reads the sender's GID back out of that area */
	CHECK_RC(ibv_init_ah_from_wc(p->ctx, 1, &wc, (struct ibv_grh *)g, &aa),
		 0);
	CHECK(aa.is_global);
	CHECK(!memcmp(aa.grh.dgid.raw, gid->raw, 16));
}

void test_ud_header_type(void)
{
	const char *tr = getenv("IONIC_SIM_TRANSPORT");
	union ibv_gid ll;
	struct ibv_ah *ah;
	struct fx_pair p;

	SECTION("UD network header type in wc.sl and the GRH area");
	pair(&p, IBV_QPT_UD, 0, 4096);
	ud_header(&p, p.ah[0], &p.gid, true, 1); /* GID 1: IPv4-mapped */
	/* GID 0 is link-local IPv6, which the UDP fabric does not carry */
	if (!tr || strcmp(tr, "udp")) {
		REQUIRE_EQ(ibv_query_gid(ctx, 1, 0, &ll), 0);
		ah = ibv_create_ah(pd, &(struct ibv_ah_attr){
					       .is_global = 1,
					       .port_num = 1,
					       .grh = { .dgid = ll,
							.sgid_index = 0,
							.hop_limit = 64 },
				       });
		REQUIRE(ah);
		ud_header(&p, ah, &ll, false, 2);
		CHECK_RC(ibv_destroy_ah(ah), 0);
	}
	fx_expect_none(p.rcq[1], 0);
	fx_pair_destroy(&p);
}
