// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * A small, deterministic verbs scenario for the trace golden test
 * (tests/e2e/trace_golden.sh): two RC QPs of one process talk over the
 * emulated fabric, one operation at a time.  Each step posts, then
 * busy-polls both CQs until exactly the expected completions arrived, so
 * the emulator sees the same doorbells in the same order on every run and
 * is idle whenever a command is issued.
 *
 * Steps: SEND (SGL), SEND (inline), RDMA WRITE WITH IMM, RDMA WRITE,
 * RDMA READ, ATOMIC FETCH_AND_ADD, ATOMIC CMP_AND_SWP.  Exits 0 only if
 * every completion and every byte moved is right.  The QPs are set up here,
 * not with the fixture's pairs: their attributes are part of the golden
 * trace.
 */
#include <endian.h>

#include "verbs_fixture.h"

#define GID_INDEX 1
#define BUF_SIZE 4096

struct side {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
};

#define die(what, err)                                                  \
	check_fatal(__FILE__, __LINE__, "trace_scenario: %s: %s", what, \
		    strerror(err))

static void setup(struct ibv_context *ctx, struct ibv_pd *pd, struct side *s)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8,
			 .max_recv_wr = 8,
			 .max_send_sge = 1,
			 .max_recv_sge = 1,
			 .max_inline_data = 16 },
	};

	s->buf = aligned_alloc(4096, BUF_SIZE);
	s->cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!s->buf || !s->cq)
		die("create cq", errno);
	memset(s->buf, 0, BUF_SIZE);
	s->mr = ibv_reg_mr(pd, s->buf, BUF_SIZE,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC);
	if (!s->mr)
		die("reg mr", errno);
	ia.send_cq = ia.recv_cq = s->cq;
	s->qp = ibv_create_qp(pd, &ia);
	if (!s->qp)
		die("create qp", errno);
}

static void connect_to(struct side *s, uint32_t dest_qpn,
		       const union ibv_gid *dgid)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags =
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
	};
	int rc;

	rc = ibv_modify_qp(s->qp, &a,
			   IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				   IBV_QP_ACCESS_FLAGS);
	if (rc)
		die("INIT", rc);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest_qpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *dgid;
	a.ah_attr.grh.sgid_index = GID_INDEX;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	rc = ibv_modify_qp(s->qp, &a,
			   IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				   IBV_QP_MAX_DEST_RD_ATOMIC |
				   IBV_QP_MIN_RNR_TIMER);
	if (rc)
		die("RTR", rc);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	/* ~4 s ACK timeout: no retransmission even on a loaded machine */
	a.timeout = 20;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	rc = ibv_modify_qp(s->qp, &a,
			   IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				   IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				   IBV_QP_MAX_QP_RD_ATOMIC);
	if (rc)
		die("RTS", rc);
}

static void post_recv(struct side *s, uint64_t wr_id, size_t off, size_t len)
{
	struct ibv_sge sge = { (uintptr_t)s->buf + off, len, s->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id,
				  .sg_list = &sge,
				  .num_sge = 1 };
	struct ibv_recv_wr *bad;
	int rc = ibv_post_recv(s->qp, &wr, &bad);

	if (rc)
		die("post_recv", rc);
}

static void post(struct side *s, struct ibv_send_wr *wr, size_t off, size_t len)
{
	struct ibv_sge sge = { (uintptr_t)s->buf + off, len, s->mr->lkey };
	struct ibv_send_wr *bad;
	int rc;

	wr->sg_list = &sge;
	wr->num_sge = 1;
	wr->send_flags |= IBV_SEND_SIGNALED;
	rc = ibv_post_send(s->qp, wr, &bad);
	if (rc)
		die("post_send", rc);
}

/* Wait (10 s at most) for exactly one successful WC on 'cq'. */
static void expect_wc(struct ibv_cq *cq, uint64_t wr_id,
		      enum ibv_wc_opcode opcode, uint32_t byte_len)
{
	struct ibv_wc wc;

	fx_poll_one(cq, &wc, 10000);
	if (wc.status != IBV_WC_SUCCESS || wc.wr_id != wr_id ||
	    wc.opcode != opcode ||
	    ((opcode & IBV_WC_RECV) && wc.byte_len != byte_len))
		check_fatal(
			__FILE__, __LINE__,
			"trace_scenario: wr %llu: status %s wr_id %llu opcode %d len %u",
			(unsigned long long)wr_id, ibv_wc_status_str(wc.status),
			(unsigned long long)wc.wr_id, wc.opcode, wc.byte_len);
}

static void require_data(bool ok, const char *what)
{
	if (!ok)
		check_fatal(__FILE__, __LINE__,
			    "trace_scenario: wrong data after %s", what);
}

int main(void)
{
	struct ibv_context *ctx;
	struct side a, b;
	union ibv_gid gid;
	struct ibv_pd *pd;
	struct ibv_send_wr wr;
	uint64_t v;
	int i;

	ctx = fx_open();
	pd = ibv_alloc_pd(ctx);
	if (!pd || ibv_query_gid(ctx, 1, GID_INDEX, &gid))
		die("pd/gid", errno);
	setup(ctx, pd, &a);
	setup(ctx, pd, &b);
	connect_to(&a, b.qp->qp_num, &gid);
	connect_to(&b, a.qp->qp_num, &gid);
	for (i = 0; i < 256; i++)
		a.buf[i] = (uint8_t)i;

	/* 1: SEND, 32 bytes from an SGE, into B at 1024 */
	post_recv(&b, 11, 1024, 64);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.opcode = IBV_WR_SEND;
	post(&a, &wr, 0, 32);
	expect_wc(b.cq, 11, IBV_WC_RECV, 32);
	expect_wc(a.cq, 1, IBV_WC_SEND, 0);
	require_data(!memcmp(b.buf + 1024, a.buf, 32), "SEND");

	/* 2: SEND inline, 8 bytes, into B at 1152 */
	post_recv(&b, 12, 1152, 64);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 2;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_INLINE;
	post(&a, &wr, 32, 8);
	expect_wc(b.cq, 12, IBV_WC_RECV, 8);
	expect_wc(a.cq, 2, IBV_WC_SEND, 0);
	require_data(!memcmp(b.buf + 1152, a.buf + 32, 8), "SEND inline");

	/* 3: RDMA WRITE WITH IMM, 16 bytes to B at 2048 */
	post_recv(&b, 13, 1280, 64);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 3;
	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr.imm_data = htobe32(0x1234abcd);
	wr.wr.rdma.remote_addr = (uintptr_t)b.buf + 2048;
	wr.wr.rdma.rkey = b.mr->rkey;
	post(&a, &wr, 64, 16);
	expect_wc(b.cq, 13, IBV_WC_RECV_RDMA_WITH_IMM, 16);
	expect_wc(a.cq, 3, IBV_WC_RDMA_WRITE, 0);
	require_data(!memcmp(b.buf + 2048, a.buf + 64, 16), "WRITE_IMM");

	/* 4: RDMA WRITE, 64 bytes to B at 2112 */
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 4;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = (uintptr_t)b.buf + 2112;
	wr.wr.rdma.rkey = b.mr->rkey;
	post(&a, &wr, 128, 64);
	expect_wc(a.cq, 4, IBV_WC_RDMA_WRITE, 0);
	require_data(!memcmp(b.buf + 2112, a.buf + 128, 64), "WRITE");

	/* 5: RDMA READ, 64 bytes of B at 2112 into A at 512 */
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 5;
	wr.opcode = IBV_WR_RDMA_READ;
	wr.wr.rdma.remote_addr = (uintptr_t)b.buf + 2112;
	wr.wr.rdma.rkey = b.mr->rkey;
	post(&a, &wr, 512, 64);
	expect_wc(a.cq, 5, IBV_WC_RDMA_READ, 0);
	require_data(!memcmp(a.buf + 512, a.buf + 128, 64), "READ");

	/* 6: FETCH_AND_ADD 5 on B's word at 3072 (was 100) */
	v = 100;
	memcpy(b.buf + 3072, &v, 8);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 6;
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = (uintptr_t)b.buf + 3072;
	wr.wr.atomic.rkey = b.mr->rkey;
	wr.wr.atomic.compare_add = 5;
	post(&a, &wr, 768, 8);
	expect_wc(a.cq, 6, IBV_WC_FETCH_ADD, 0);
	memcpy(&v, a.buf + 768, 8);
	require_data(v == 100, "FETCH_AND_ADD (result)");
	memcpy(&v, b.buf + 3072, 8);
	require_data(v == 105, "FETCH_AND_ADD (target)");

	/* 7: CMP_AND_SWP 105 -> 7 on the same word */
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 7;
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.remote_addr = (uintptr_t)b.buf + 3072;
	wr.wr.atomic.rkey = b.mr->rkey;
	wr.wr.atomic.compare_add = 105;
	wr.wr.atomic.swap = 7;
	post(&a, &wr, 776, 8);
	expect_wc(a.cq, 7, IBV_WC_COMP_SWAP, 0);
	memcpy(&v, a.buf + 776, 8);
	require_data(v == 105, "CMP_AND_SWP (result)");
	memcpy(&v, b.buf + 3072, 8);
	require_data(v == 7, "CMP_AND_SWP (target)");

	if (ibv_destroy_qp(a.qp) || ibv_destroy_qp(b.qp) ||
	    ibv_dereg_mr(a.mr) || ibv_dereg_mr(b.mr) || ibv_destroy_cq(a.cq) ||
	    ibv_destroy_cq(b.cq) || ibv_dealloc_pd(pd) || ibv_close_device(ctx))
		die("teardown", errno);
	free(a.buf);
	free(b.buf);
	printf("trace_scenario: 7 operations completed\n");
	return check_finish();
}
