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
 * The tests live in datapath_send.c, datapath_post_errors.c,
 * datapath_flush.c and datapath_transport.c; an argument runs only the
 * tests whose name (first column of main's table) contains it.
 */
#include "datapath.h"

struct ibv_context *ctx;
struct ibv_pd *pd;

void pair(struct fx_pair *p, enum ibv_qp_type t, int sig_all, size_t len)
{
	struct fx_qp_opts o;

	fx_qp_opts_default(&o, t);
	o.sq_sig_all = sig_all;
	o.max_send_sge = 8;
	o.max_recv_sge = 8;
	fx_pair_create(p, ctx, pd, &o, len);
	fx_pair_connect(p);
}

void check_wc(const struct ibv_wc *wc, uint64_t wr_id, enum ibv_wc_status st,
	      enum ibv_wc_opcode op, const char *what)
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
	RUN("hdrtype-ud", test_ud_header_type());
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
