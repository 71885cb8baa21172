// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Device-initiated posting under ionic-sim: a "device-side poster"
 * thread per UDMA pipeline (dv_poster.h) that, given only the
 * ionic_dv_get_ctx/cq/qp descriptors, does what the GPU code of rocSHMEM
 * and MORI does (docs/gpu-direct-verbs.md §4): SEND (SGE and inline) and
 * RDMA WRITE WQEs in bursts, one SQ doorbell per burst, the CQ ring
 * polled by colour and MSN, credits returned every 100 CQEs and at the
 * end.
 *
 * The main thread is the peer: ordinary verbs receives, checking every
 * SEND's length and bytes, and at the end every RDMA WRITE's bytes.
 * Enough work that both rings wrap several times, so colours and credits
 * really matter.
 *
 *   verbs-dv-gpu [--cmb] [--fw N]
 *     --cmb   the run's device has controller memory (--cmb-pages): the
 *             SQs stay there and the descriptor must name the window
 *     --fw N  firmware RDMA version of the run (opcode table)
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "dv_link.h"
#include "dv_poster.h"

#define OPS 900
#define DEPTH 64
#define MSG_MAX 512 /* SEND slot in the peer buffer */
#define WR_MAX 256 /* RDMA WRITE slot */
#define INL_MAX DVP_INLINE_MAX
#define WAIT_MS 20000

static bool cmb;
static int fw = 2;

enum op_kind {
	OP_SEND = DVP_SEND,
	OP_SEND_INL = DVP_SEND_INL,
	OP_WRITE = DVP_WRITE
};

/* Op i: its kind, length, and slot in the poster's and the peer's buffer. */
static enum op_kind op_kind(int i)
{
	return (enum op_kind)(i % 3);
}

static uint32_t op_len(int i)
{
	switch (op_kind(i)) {
	case OP_SEND:
		return 1 + (uint32_t)(i * 37) % MSG_MAX;
	case OP_SEND_INL:
		return 1 + (uint32_t)(i * 11) % INL_MAX;
	default:
		return 8 + (uint32_t)(i * 29) % (WR_MAX - 8);
	}
}

/* SENDs first in the buffers, then the WRITE slots. */
static size_t op_off(int i)
{
	if (op_kind(i) == OP_WRITE)
		return (size_t)OPS * MSG_MAX + (size_t)(i / 3) * WR_MAX;
	return (size_t)i * MSG_MAX;
}

/* ---- the device side: descriptors only (dv_poster.h) ---------------- */

struct poster {
	struct dvp d;
	uint8_t *buf;
	uint64_t peer_va;
	uint32_t peer_rkey;
};

/* Bursts of 1..4 WQEs, one doorbell each, then wait for them. */
static void *poster_run(void *arg)
{
	struct poster *p = arg;
	int i = 0;

	while (i < OPS) {
		int burst = 1 + (i * 7) % 4;

		for (int b = 0; b < burst && i < OPS; b++, i++) {
			struct dvp_op op = {
				.kind = (enum dvp_kind)op_kind(i),
				.len = op_len(i),
				.src = p->buf + op_off(i),
				.remote_va = p->peer_va + op_off(i),
				.rkey = p->peer_rkey,
			};

			dvp_write_wqe(&p->d, &op,
				      b == burst - 1 || i == OPS - 1);
		}
		dvp_ring_sq(&p->d);
		if (!dvp_drain(&p->d, WAIT_MS))
			return NULL;
	}
	/* the last credits */
	dvp_return_credits(&p->d);
	return NULL;
}

/* ---- host side: set-up from the descriptors, the peer, checks ------- */

static void check_descriptors(struct dvl_link *l, struct dvp *p, int udma)
{
	const struct dvl_alloc *a = &l->alloc;
	struct ionic_dv_cq other;

	SECTION("descriptors");
	REQUIRE_EQ(ionic_dv_get_ctx(&p->dctx, l->ctx), 0);
	REQUIRE_EQ(ionic_dv_qp_get_udma_idx(l->qp), udma);
	CHECK_EQ(ionic_dv_cq_get_udma_mask(ibv_cq_ex_to_cq(l->cq)), 1 << udma);
	REQUIRE_EQ(ionic_dv_get_cq(&p->dcq, ibv_cq_ex_to_cq(l->cq),
				   ionic_dv_qp_get_udma_idx(l->qp)),
		   0);
	CHECK_RC(ionic_dv_get_cq(&other, ibv_cq_ex_to_cq(l->cq),
				 (uint8_t)!udma),
		 EINVAL);
	REQUIRE_EQ(ionic_dv_get_qp(&p->dqp, l->qp), 0);

	/* the doorbell base lies in the page-sized mapping */
	CHECK((uintptr_t)p->dctx.db_ptr >= (uintptr_t)p->dctx.db_page);
	CHECK((uintptr_t)p->dctx.db_ptr + 8 * 16 <=
	      (uintptr_t)p->dctx.db_page + 4096);
	CHECK(((uintptr_t)p->dctx.db_page & 4095) == 0);

	/* the rings are the ones the parent domain's allocator gave */
	CHECK(p->dcq.q.ptr == a->ptr[DVL_CQ]);
	CHECK_EQ(p->dcq.q.size, a->size[DVL_CQ]);
	CHECK_EQ(p->dcq.q.stride_log2, 5);
	CHECK(p->dqp.rq.ptr == a->ptr[DVL_RQ]);
	CHECK_EQ(p->dqp.rq.size, a->size[DVL_RQ]);
	CHECK_EQ(p->dqp.sq.size, a->size[DVL_SQ]);
	/* in controller memory the SQ the device reads is the window */
	if (cmb)
		CHECK(p->dqp.sq.ptr != a->ptr[DVL_SQ]);
	else
		CHECK(p->dqp.sq.ptr == a->ptr[DVL_SQ]);
	CHECK_EQ(p->dqp.sq.stride_log2, 6);
	CHECK_EQ(p->dqp.sq.db_val, (uint64_t)l->qp->qp_num << 24);
	CHECK_EQ(p->dqp.rq.db_val, (uint64_t)l->qp->qp_num << 24);
	CHECK_EQ(p->dcq.q.db_val & 0xffffff, 0);
	for (int t = 0; t < DVL_TAGS; t++) {
		CHECK_EQ(a->allocs[t], 1);
		CHECK_GE(a->align[t], 4096);
	}
	CHECK_GE(p->dqp.sq.mask, DEPTH);
	CHECK_GE(p->dcq.q.mask, 2 * DEPTH);
}

/* The peer side of one link: its next SEND to receive, its receives. */
struct peer {
	struct dvl_link *l;
	int next_post; /* next SEND index to post a receive for */
	int next_recv; /* next SEND index expected */
};

static int next_send(int i)
{
	while (i < OPS && op_kind(i) == OP_WRITE)
		i++;
	return i;
}

static void peer_post(struct peer *pr, int room)
{
	while (room-- > 0 && (pr->next_post = next_send(pr->next_post)) < OPS) {
		CHECK_RC(dvl_peer_recv(pr->l, (uint64_t)pr->next_post,
				       op_off(pr->next_post), MSG_MAX),
			 0);
		pr->next_post++;
	}
}

/* Reap the peer's receives; false once all SENDs arrived or on error. */
static bool peer_service(struct peer *pr)
{
	struct ibv_wc wc[16];
	int n = ibv_poll_cq(pr->l->peer_cq, 16, wc);

	for (int k = 0; k < n && !check_failures(); k++) {
		int i = pr->next_recv;

		CHECK_EQ(wc[k].status, IBV_WC_SUCCESS);
		CHECK_EQ(wc[k].opcode, IBV_WC_RECV);
		CHECK_EQ(wc[k].wr_id, i);
		CHECK_EQ(wc[k].byte_len, op_len(i));
		if (memcmp(pr->l->peer_buf + op_off(i), pr->l->buf + op_off(i),
			   op_len(i)))
			check_fail(__FILE__, __LINE__, "SEND %d: bytes differ",
				   i);
		pr->next_recv = next_send(i + 1);
	}
	peer_post(pr, n);
	return pr->next_recv < OPS && !check_failures();
}

static void run(struct ibv_context *ctx, struct ibv_pd *pd, int nlinks)
{
	struct dvl_link link[2];
	struct poster post[2];
	struct peer peer[2];
	pthread_t th[2];
	uint64_t end;
	bool busy;

	for (int u = 0; u < nlinks; u++) {
		struct dvl_opts o = { .udma = u,
				      .cmb = cmb,
				      .depth = DEPTH,
				      .buf_len =
					      (size_t)OPS * MSG_MAX +
					      (size_t)(OPS / 3 + 1) * WR_MAX };

		dvl_create(&link[u], ctx, pd, &o);
		memset(&post[u], 0, sizeof(post[u]));
		check_descriptors(&link[u], &post[u].d, u);
		post[u].d.qpn = link[u].qp->qp_num;
		post[u].d.lkey = link[u].mr->lkey;
		post[u].d.fw = fw;
		post[u].buf = link[u].buf;
		post[u].peer_va = (uintptr_t)link[u].peer_buf;
		post[u].peer_rkey = link[u].peer_mr->rkey;
		for (int i = 0; i < OPS; i++)
			fx_fill(link[u].buf + op_off(i), op_len(i),
				(unsigned int)(i + 1000 * u));
		dvl_connect(&link[u]);
		peer[u] = (struct peer){ .l = &link[u] };
		peer_post(&peer[u], 200);
		peer[u].next_recv = next_send(0);
	}

	SECTION("device-side posters, one per pipeline");
	for (int u = 0; u < nlinks; u++)
		REQUIRE(!pthread_create(&th[u], NULL, poster_run, &post[u]));
	end = fx_now_ms() + 2 * WAIT_MS;
	do {
		busy = false;
		for (int u = 0; u < nlinks; u++)
			busy |= peer_service(&peer[u]);
		if (busy)
			usleep(20);
	} while (busy && fx_now_ms() < end);
	for (int u = 0; u < nlinks; u++)
		pthread_join(th[u], NULL);

	for (int u = 0; u < nlinks; u++) {
		struct dvp *p = &post[u].d;

		if (p->err[0])
			check_fail(__FILE__, __LINE__, "poster %d: %s", u,
				   p->err);
		CHECK_EQ(peer[u].next_recv, OPS);
		CHECK_EQ(p->sq_pos, OPS);
		CHECK_EQ(p->msn, OPS);
		/* more CQEs than CQ slots: the credits were returned */
		CHECK_GE(p->cqes, (int)p->dcq.q.mask + 1);
		fprintf(stderr,
			"pipeline %d: %d WQEs (%llu SQ laps), %u CQEs\n", u,
			OPS,
			(unsigned long long)(p->sq_pos >> p->dqp.sq.depth_log2),
			p->cqes);
		for (int i = 2; i < OPS; i += 3) {
			if (!memcmp(link[u].peer_buf + op_off(i),
				    link[u].buf + op_off(i), op_len(i)))
				continue;
			check_fail(
				__FILE__, __LINE__,
				"pipeline %d: WRITE %d (and maybe more) differs",
				u, i);
			break;
		}
		dvl_destroy(&link[u]);
	}
}

int main(int argc, char **argv)
{
	struct ibv_context *ctx;
	struct ibv_pd *pd;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--cmb"))
			cmb = true;
		else if (!strcmp(argv[i], "--fw") && i + 1 < argc)
			fw = atoi(argv[++i]);
		else
			check_fatal(__FILE__, __LINE__, "bad argument %s",
				    argv[i]);
	}
	ctx = fx_open();
	pd = ibv_alloc_pd(ctx);
	REQUIRE(pd);
	run(ctx, pd, ionic_dv_ctx_get_udma_count(ctx));
	CHECK_RC(ibv_dealloc_pd(pd), 0);
	CHECK_RC(ibv_close_device(ctx), 0);
	return check_finish();
}
