// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Seed inputs of sim-fuzz-kernel-uverbs (tests/fuzz/sim_kernel_uverbs.c):
 * the uverbs commands libibverbs and libionic send for a context, a PD, a
 * completion channel, an MR, CQs, RC and UD QPs through their state
 * machine, an AH, queries and the destroys, built from the uverbs and
 * ionic ABI structs, in the target's encoding (a call byte, a pointer
 * selector, the length, the command).  Addresses are the target's marks
 * (FZ_ADDR_MARK).  Object handles are the ones the emulated kernel hands
 * out in order in a fresh file: 0, 1, 2, ...
 *
 *     fuzz-seeds-kernel-uverbs tests/fuzz/corpus/kernel-uverbs
 *
 * writes the seed-*.bin files (regression inputs, named otherwise, are
 * left alone).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ionic-abi.h>
#include <infiniband/verbs.h>

#include "seeds.h"

#define FZ_ADDR_MARK 0x5afe5afe5afe5a00ull

struct seed {
	uint8_t buf[8192];
	size_t len;
};

/* One write call: hdr | core | udata, valid response buffer. */
static void leg(struct seed *s, uint32_t cmd, const void *core, size_t clen,
		const void *drv, size_t dlen, size_t out)
{
	struct ib_uverbs_cmd_hdr h = {
		.command = cmd,
		.in_words = (uint16_t)((sizeof(h) + clen + dlen) / 4),
		.out_words = (uint16_t)(out / 4),
	};
	uint16_t n = (uint16_t)(sizeof(h) + clen + dlen);
	uint8_t *p = s->buf + s->len;

	p[0] = 0; /* write */
	p[1] = 0; /* response: a buffer of the declared size */
	memcpy(p + 2, &n, 2);
	memcpy(p + 4, &h, sizeof(h));
	memcpy(p + 4 + sizeof(h), core, clen);
	if (dlen)
		memcpy(p + 4 + sizeof(h) + clen, drv, dlen);
	s->len += 4 + n;
}

static struct ionic_qdesc qdesc(unsigned int buf, unsigned int depth_log2,
				unsigned int stride_log2)
{
	struct ionic_qdesc q = {
		.addr = FZ_ADDR_MARK | buf,
		.size = 1u << (depth_log2 + stride_log2),
		.mask = (uint16_t)((1u << depth_log2) - 1),
		.depth_log2 = (uint8_t)depth_log2,
		.stride_log2 = (uint8_t)stride_log2,
	};

	return q;
}

static void get_context(struct seed *s)
{
	struct ib_uverbs_get_context core = { 0 };
	struct ionic_ctx_req req = { { 0 } };

	leg(s, IB_USER_VERBS_CMD_GET_CONTEXT, &core, sizeof(core), &req,
	    sizeof(req), 8 + sizeof(struct ionic_ctx_resp));
}

static void simple(struct seed *s, uint32_t cmd, const void *core, size_t clen,
		   size_t out)
{
	leg(s, cmd, core, clen, NULL, 0, out);
}

/* handle 0: PD; 1: CQ; 2: MR; 3: QP (RC or UD) */
static void pd_cq_mr_qp(struct seed *s, uint8_t qp_type)
{
	struct ib_uverbs_alloc_pd pd = { 0 };
	struct ib_uverbs_create_cq cq = { .user_handle = 1,
					  .cqe = 16,
					  .comp_channel = -1 };
	struct ionic_cq_req cqr = { .udma_mask = 3 };
	struct ib_uverbs_reg_mr mr = { .start = FZ_ADDR_MARK | 3,
				       .length = 4096,
				       .hca_va = 0x10000,
				       .pd_handle = 0,
				       .access_flags = 0xf };
	struct ib_uverbs_create_qp qp = { .user_handle = 3,
					  .pd_handle = 0,
					  .send_cq_handle = 1,
					  .recv_cq_handle = 1,
					  .max_send_wr = 16,
					  .max_recv_wr = 16,
					  .max_send_sge = 2,
					  .max_recv_sge = 2,
					  .qp_type = qp_type };
	struct ionic_qp_req qpr = { .sq_spec = 2, .rq_spec = 2 };

	get_context(s);
	simple(s, IB_USER_VERBS_CMD_ALLOC_PD, &pd, sizeof(pd), 4);
	cqr.cq[0] = qdesc(0, 7, 5);
	cqr.cq[1] = qdesc(1, 7, 5);
	leg(s, IB_USER_VERBS_CMD_CREATE_CQ, &cq, sizeof(cq), &cqr, sizeof(cqr),
	    8 + sizeof(struct ionic_cq_resp));
	simple(s, IB_USER_VERBS_CMD_REG_MR, &mr, sizeof(mr), 12);
	qpr.sq = qdesc(2, 6, 6);
	qpr.rq = qdesc(2, 5, 6);
	qpr.rq.addr = FZ_ADDR_MARK | 2; /* first half: SQ, then RQ */
	qpr.sq.size = qpr.rq.size = 4096;
	leg(s, IB_USER_VERBS_CMD_CREATE_QP, &qp, sizeof(qp), &qpr, sizeof(qpr),
	    32 + sizeof(struct ionic_qp_resp));
}

static void modify(struct seed *s, uint32_t qp, uint32_t mask,
		   enum ibv_qp_state st, int rc_path)
{
	struct ib_uverbs_modify_qp m;

	memset(&m, 0, sizeof(m));
	m.qp_handle = qp;
	m.attr_mask = mask;
	m.qp_state = st;
	m.port_num = 1;
	m.qkey = 0x11111111;
	m.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	if (rc_path) {
		m.dest.is_global = 1;
		m.dest.port_num = 1;
		m.dest.sgid_index = 1;
		m.dest.hop_limit = 64;
		m.dest.dgid[10] = m.dest.dgid[11] = 0xff;
		m.dest.dgid[12] = 198;
		m.dest.dgid[13] = 18;
		m.dest.dgid[15] = 2;
		m.path_mtu = IBV_MTU_1024;
		m.dest_qp_num = 2;
		m.rq_psn = 7;
		m.sq_psn = 9;
		m.max_dest_rd_atomic = 4;
		m.max_rd_atomic = 4;
		m.min_rnr_timer = 12;
		m.timeout = 14;
		m.retry_cnt = 7;
		m.rnr_retry = 7;
	}
	simple(s, IB_USER_VERBS_CMD_MODIFY_QP, &m, sizeof(m), 0);
}

static void destroy_all(struct seed *s)
{
	struct ib_uverbs_destroy_qp dq = { .response = 0, .qp_handle = 3 };
	struct ib_uverbs_dereg_mr dm = { .mr_handle = 2 };
	struct ib_uverbs_destroy_cq dc = { .cq_handle = 1 };
	struct ib_uverbs_dealloc_pd dp = { .pd_handle = 0 };

	simple(s, IB_USER_VERBS_CMD_DESTROY_QP, &dq, sizeof(dq), 4);
	simple(s, IB_USER_VERBS_CMD_DEREG_MR, &dm, sizeof(dm), 0);
	simple(s, IB_USER_VERBS_CMD_DESTROY_CQ, &dc, sizeof(dc), 8);
	simple(s, IB_USER_VERBS_CMD_DEALLOC_PD, &dp, sizeof(dp), 0);
}

static void write_seed(const char *dir, const char *name, const struct seed *s)
{
	fuzz_seed_write(dir, name, s->buf, s->len);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	struct ib_uverbs_query_device qd = { 0 };
	struct ib_uverbs_query_port qp = { .port_num = 1 };
	struct ib_uverbs_create_comp_channel ch = { 0 };
	struct ib_uverbs_query_qp qq = { .qp_handle = 3, .attr_mask = ~0u };
	struct ib_uverbs_alloc_mw mw = { .pd_handle = 0, .mw_type = 2 };
	struct ib_uverbs_create_ah ah = { .user_handle = 9, .pd_handle = 0 };
	struct seed s;

	memset(&s, 0, sizeof(s));
	get_context(&s);
	simple(&s, IB_USER_VERBS_CMD_QUERY_DEVICE, &qd, sizeof(qd),
	       sizeof(struct ib_uverbs_query_device_resp));
	simple(&s, IB_USER_VERBS_CMD_QUERY_PORT, &qp, sizeof(qp),
	       sizeof(struct ib_uverbs_query_port_resp));
	simple(&s, IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL, &ch, sizeof(ch), 4);
	write_seed(dir, "context-queries", &s);

	memset(&s, 0, sizeof(s));
	pd_cq_mr_qp(&s, IBV_QPT_RC);
	modify(&s, 3,
	       IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		       IBV_QP_ACCESS_FLAGS,
	       IBV_QPS_INIT, 0);
	modify(&s, 3,
	       IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		       IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
		       IBV_QP_MIN_RNR_TIMER,
	       IBV_QPS_RTR, 1);
	modify(&s, 3,
	       IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
		       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		       IBV_QP_MAX_QP_RD_ATOMIC,
	       IBV_QPS_RTS, 1);
	simple(&s, IB_USER_VERBS_CMD_QUERY_QP, &qq, sizeof(qq),
	       sizeof(struct ib_uverbs_query_qp_resp));
	modify(&s, 3, IBV_QP_STATE, IBV_QPS_ERR, 0);
	simple(&s, IB_USER_VERBS_CMD_ALLOC_MW, &mw, sizeof(mw), 8);
	destroy_all(&s);
	write_seed(dir, "rc-lifecycle", &s);

	memset(&s, 0, sizeof(s));
	pd_cq_mr_qp(&s, IBV_QPT_UD);
	modify(&s, 3,
	       IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY,
	       IBV_QPS_INIT, 0);
	modify(&s, 3, IBV_QP_STATE, IBV_QPS_RTR, 0);
	modify(&s, 3, IBV_QP_STATE | IBV_QP_SQ_PSN, IBV_QPS_RTS, 0);
	ah.attr.is_global = 1;
	ah.attr.port_num = 1;
	ah.attr.grh.sgid_index = 1;
	ah.attr.grh.hop_limit = 64;
	ah.attr.grh.dgid[10] = ah.attr.grh.dgid[11] = 0xff;
	ah.attr.grh.dgid[15] = 3;
	simple(&s, IB_USER_VERBS_CMD_CREATE_AH, &ah, sizeof(ah),
	       sizeof(struct ib_uverbs_create_ah_resp) +
		       sizeof(struct ionic_ah_resp));
	modify(&s, 3, IBV_QP_STATE, IBV_QPS_RESET, 0);
	destroy_all(&s);
	write_seed(dir, "ud-lifecycle", &s);
	return 0;
}
