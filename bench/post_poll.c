// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Data-path benchmark: one RC queue pair talking to another in the same
 * process over the emulated fabric, ping-ponging small SENDs.  It exists to
 * be run under callgrind (bench/run-callgrind.sh), which counts the
 * instructions the provider executes per ibv_post_send, ibv_post_recv,
 * ibv_req_notify_cq and ibv_poll_cq; wall time under the emulator says
 * nothing about the provider.
 *
 * Every iteration does exactly one post_recv, one post_send, two arms and
 * two polls: the program sleeps on the completion channel instead of
 * spinning on poll_cq, so the number of calls, and with it the instruction
 * count, does not depend on thread timing.
 *
 * Usage: post_poll [iterations] [message bytes]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#define GID_INDEX 1

struct side {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char *buf;
};

static void die(const char *what, int err)
{
	fprintf(stderr, "post_poll: %s: %s\n", what, strerror(err));
	exit(1);
}

static void setup(struct ibv_context *ctx, struct ibv_pd *pd, struct side *s,
		  struct ibv_comp_channel *ch, size_t len)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 64,
			 .max_recv_wr = 64,
			 .max_send_sge = 1,
			 .max_recv_sge = 1,
			 .max_inline_data = 64 },
	};

	s->buf = calloc(1, 2 * len);
	s->cq = ibv_create_cq(ctx, 256, s, ch, 0);
	if (!s->buf || !s->cq)
		die("create cq", errno);
	s->mr = ibv_reg_mr(pd, s->buf, 2 * len, IBV_ACCESS_LOCAL_WRITE);
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
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE,
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
	a.timeout = 14;
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

static void post_recv(struct side *s, size_t len)
{
	struct ibv_sge sge = { (uintptr_t)s->buf + len, len, s->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	int rc = ibv_post_recv(s->qp, &wr, &bad);

	if (rc)
		die("post_recv", rc);
}

static void post_send(struct side *s, size_t len)
{
	struct ibv_sge sge = { (uintptr_t)s->buf, len, s->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 1,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED |
			      (len <= 64 ? IBV_SEND_INLINE : 0),
	};
	struct ibv_send_wr *bad;
	int rc = ibv_post_send(s->qp, &wr, &bad);

	if (rc)
		die("post_send", rc);
}

static void arm(struct side *s)
{
	int rc = ibv_req_notify_cq(s->cq, 0);

	if (rc)
		die("req_notify_cq", rc);
}

/* Sleep until one armed CQ has a completion, then reap it with one poll. */
static void reap_one_event(struct ibv_comp_channel *ch)
{
	struct ibv_cq *cq;
	struct ibv_wc wc;
	void *cq_ctx;
	int got;

	if (ibv_get_cq_event(ch, &cq, &cq_ctx))
		die("get_cq_event", errno);
	ibv_ack_cq_events(cq, 1);
	got = ibv_poll_cq(cq, 1, &wc);
	if (got != 1) {
		fprintf(stderr, "post_poll: poll after event returned %d\n",
			got);
		exit(1);
	}
	if (wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "post_poll: completion %s\n",
			ibv_wc_status_str(wc.status));
		exit(1);
	}
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 1000;
	size_t len = argc > 2 ? (size_t)atol(argv[2]) : 32;
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct side a, b;
	union ibv_gid gid;
	struct ibv_comp_channel *ch;
	struct ibv_pd *pd;

	list = ibv_get_device_list(NULL);
	if (!list || !list[0])
		die("no device", ENODEV);
	ctx = ibv_open_device(list[0]);
	if (!ctx)
		die("open", errno);
	pd = ibv_alloc_pd(ctx);
	if (!pd || ibv_query_gid(ctx, 1, GID_INDEX, &gid))
		die("pd/gid", errno);
	ch = ibv_create_comp_channel(ctx);
	if (!ch)
		die("comp channel", errno);
	setup(ctx, pd, &a, ch, len);
	setup(ctx, pd, &b, ch, len);
	connect_to(&a, b.qp->qp_num, &gid);
	connect_to(&b, a.qp->qp_num, &gid);

	for (long i = 0; i < iters; i++) {
		arm(&a);
		arm(&b);
		post_recv(&b, len);
		post_send(&a, len);
		reap_one_event(ch);
		reap_one_event(ch);
	}
	printf("post_poll: %ld round trips of %zu bytes\n", iters, len);

	ibv_destroy_qp(a.qp);
	ibv_destroy_qp(b.qp);
	ibv_dereg_mr(a.mr);
	ibv_dereg_mr(b.mr);
	ibv_destroy_cq(a.cq);
	ibv_destroy_cq(b.cq);
	free(a.buf);
	free(b.buf);
	ibv_destroy_comp_channel(ch);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return 0;
}
