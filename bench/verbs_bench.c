// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The verbs benchmark behind ./build.sh bench (bench/report.py): two RC
 * queue pairs in one process talking over the emulated fabric, driven in
 * a fixed pattern so that the number of calls of every verb, and with it
 * the instructions callgrind counts per call, does not depend on thread
 * timing.  Wall time here says nothing about the provider; the report
 * takes wall-clock figures from perftest (bench/run-wallclock.sh).
 *
 *   ionic-bench pingpong [options]  per iteration: one SEND (with its
 *       receive) or one RDMA WRITE, each side sleeping on the completion
 *       channel and reaping its completion with one ibv_poll_cq
 *   ionic-bench batch [options]     per iteration: 32 receives and 32
 *       SENDs in one post each; once the ring holds every completion
 *       (read through the DV ring descriptor, not polled), one
 *       ibv_poll_cq of 32 on each side
 *   ionic-bench qp [options]        per iteration: create and destroy a
 *       QP with the report's default caps
 *   ionic-bench mr [options]        per iteration: register and
 *       deregister a 64 KiB region
 *   ionic-bench probe-expdb         exit 0 if the device grants express
 *       doorbells to a send queue (ionic-sim: --cmb-pages, --expdb-qtypes)
 *
 * Options: -n ITERATIONS, --td (every queue and CQ through a parent domain
 * with a thread domain: the lock-free build), --write (RDMA WRITE instead
 * of SEND), --size BYTES (default 32), --sge (a gather entry instead of
 * inline data).  Each verb call the report separates has a caller of its
 * own below (bench_*), so callgrind's call graph tells them apart.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <infiniband/ionic_dv.h>

#include "common/ionic_hw.h"
#include "verbs_fixture.h"

#define GID_INDEX 1
#define BATCH 32
#define BUF_BYTES 65536

/* The report's default caps (bench/README.md). */
#define DEF_SEND_WR 128
#define DEF_RECV_WR 128
#define DEF_CQE 256

/* kept whole and under its own name: the report looks callers up by name */
#define NOINLINE __attribute__((noipa))

struct opts {
	long iters;
	bool td, write, sge;
	size_t size;
};

/* Where the provider will read a hardware CQ next, as the bench sees it. */
struct ring_peek {
	const uint8_t *ring;
	uint16_t mask, pos;
	bool color;
};

struct side {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char *buf;
	struct ring_peek peek;
};

struct bench {
	struct ibv_context *ctx;
	struct ibv_pd *pd; /* the PD queues are created with */
	struct ibv_pd *root;
	struct ibv_td *td;
	struct ibv_comp_channel *ch;
	union ibv_gid gid;
	struct side a, b;
	struct opts o;
};

static void die(const char *what, int err)
{
	fprintf(stderr, "ionic-bench: %s: %s\n", what, strerror(err));
	exit(1);
}

static struct ibv_cq *make_cq(struct bench *bn)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = DEF_CQE,
		.channel = bn->ch,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD,
		.parent_domain = bn->pd,
	};
	struct ibv_cq_ex *cqx;

	if (!bn->o.td)
		return ibv_create_cq(bn->ctx, DEF_CQE, NULL, bn->ch, 0);
	cqx = ibv_create_cq_ex(bn->ctx, &attr);
	return cqx ? ibv_cq_ex_to_cq(cqx) : NULL;
}

static struct ibv_qp *make_qp(struct bench *bn, struct ibv_cq *cq,
			      uint32_t max_inline)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = DEF_SEND_WR,
			 .max_recv_wr = DEF_RECV_WR,
			 .max_send_sge = 1,
			 .max_recv_sge = 1,
			 .max_inline_data = max_inline },
	};

	return ibv_create_qp(bn->pd, &ia);
}

/* The ring of the pipeline the side's QP completes on. */
static void peek_init(struct side *s)
{
	struct ionic_dv_cq dvcq;
	int rc;

	rc = ionic_dv_get_cq(&dvcq, s->cq, ionic_dv_qp_get_udma_idx(s->qp));
	if (rc)
		die("ionic_dv_get_cq", rc);
	s->peek.ring = dvcq.q.ptr;
	s->peek.mask = dvcq.q.mask;
	s->peek.pos = 0;
	s->peek.color = true;
}

static void setup_side(struct bench *bn, struct side *s)
{
	s->buf = calloc(1, BUF_BYTES);
	s->cq = make_cq(bn);
	if (!s->buf || !s->cq)
		die("create cq", errno);
	s->mr = ibv_reg_mr(bn->root, s->buf, BUF_BYTES,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!s->mr)
		die("reg mr", errno);
	s->qp = make_qp(bn, s->cq, 64);
	if (!s->qp)
		die("create qp", errno);
	peek_init(s);
}

/* RC connection, as the tests make it (tests/support/verbs_fixture.h). */
static void connect_to(struct side *s, uint32_t dest_qpn,
		       const union ibv_gid *dgid)
{
	struct fx_qp_opts o;
	int rc;

	fx_qp_opts_default(&o, IBV_QPT_RC);
	rc = fx_rc_to_init(s->qp);
	if (!rc)
		rc = fx_rc_to_rtr(s->qp, dgid, dest_qpn, &o);
	if (!rc)
		rc = fx_rc_to_rts(s->qp, &o);
	if (rc)
		die("connect", rc);
}

static void open_bench(struct bench *bn)
{
	struct ibv_device **list = ibv_get_device_list(NULL);

	if (!list || !list[0])
		die("no device", ENODEV);
	bn->ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	if (!bn->ctx)
		die("open", errno);
	bn->root = ibv_alloc_pd(bn->ctx);
	if (!bn->root || ibv_query_gid(bn->ctx, 1, GID_INDEX, &bn->gid))
		die("pd/gid", errno);
	bn->pd = bn->root;
	if (bn->o.td) {
		struct ibv_td_init_attr ta = { 0 };
		struct ibv_parent_domain_init_attr pa = { 0 };

		bn->td = ibv_alloc_td(bn->ctx, &ta);
		if (!bn->td)
			die("alloc td", errno);
		pa.pd = bn->root;
		pa.td = bn->td;
		bn->pd = ibv_alloc_parent_domain(bn->ctx, &pa);
		if (!bn->pd)
			die("parent domain", errno);
	}
	bn->ch = ibv_create_comp_channel(bn->ctx);
	if (!bn->ch)
		die("comp channel", errno);
}

static void close_side(struct side *s)
{
	if (ibv_destroy_qp(s->qp) || ibv_dereg_mr(s->mr) ||
	    ibv_destroy_cq(s->cq))
		die("teardown", errno);
	free(s->buf);
}

static void close_bench(struct bench *bn)
{
	ibv_destroy_comp_channel(bn->ch);
	if (bn->pd != bn->root)
		ibv_dealloc_pd(bn->pd);
	if (bn->td)
		ibv_dealloc_td(bn->td);
	ibv_dealloc_pd(bn->root);
	ibv_close_device(bn->ctx);
}

/* ---- the calls the report counts -------------------------------------- */

static NOINLINE void bench_post_recv(struct side *s, struct ibv_recv_wr *wr)
{
	struct ibv_recv_wr *bad;
	int rc = ibv_post_recv(s->qp, wr, &bad);

	if (rc)
		die("post_recv", rc);
}

static NOINLINE void bench_post_send(struct side *s, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;
	int rc = ibv_post_send(s->qp, wr, &bad);

	if (rc)
		die("post_send", rc);
}

static NOINLINE void bench_arm(struct side *s)
{
	int rc = ibv_req_notify_cq(s->cq, 0);

	if (rc)
		die("req_notify_cq", rc);
}

static void check_wcs(const struct ibv_wc *wc, int got, int want)
{
	if (got != want) {
		fprintf(stderr, "ionic-bench: polled %d, want %d\n", got, want);
		exit(1);
	}
	for (int i = 0; i < got; i++)
		if (wc[i].status != IBV_WC_SUCCESS) {
			fprintf(stderr, "ionic-bench: completion %s\n",
				ibv_wc_status_str(wc[i].status));
			exit(1);
		}
}

/*
 * One caller per completion kind, so the report can tell them apart; the
 * empty asm keeps the call from becoming a tail jump, which callgrind
 * would file under our caller instead.
 */
static NOINLINE int bench_poll_send(struct side *s, int n, struct ibv_wc *wc)
{
	int got = ibv_poll_cq(s->cq, n, wc);

	asm volatile("" ::: "memory");
	return got;
}

static NOINLINE int bench_poll_recv(struct side *s, int n, struct ibv_wc *wc)
{
	int got = ibv_poll_cq(s->cq, n, wc);

	asm volatile("" ::: "memory");
	return got;
}

/* ---- pingpong ------------------------------------------------------------ */

static void fill_send(struct bench *bn, struct ibv_send_wr *wr,
		      struct ibv_sge *sge, uint64_t wr_id)
{
	sge->addr = (uintptr_t)bn->a.buf;
	sge->length = (uint32_t)bn->o.size;
	sge->lkey = bn->a.mr->lkey;
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = wr_id;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->opcode = bn->o.write ? IBV_WR_RDMA_WRITE : IBV_WR_SEND;
	wr->send_flags = IBV_SEND_SIGNALED | (bn->o.sge ? 0 : IBV_SEND_INLINE);
	wr->wr.rdma.remote_addr = (uintptr_t)bn->b.buf;
	wr->wr.rdma.rkey = bn->b.mr->rkey;
}

static void fill_recv(struct bench *bn, struct ibv_recv_wr *wr,
		      struct ibv_sge *sge, uint64_t wr_id)
{
	sge->addr = (uintptr_t)bn->b.buf + BUF_BYTES / 2;
	sge->length = BUF_BYTES / 2;
	sge->lkey = bn->b.mr->lkey;
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = wr_id;
	wr->sg_list = sge;
	wr->num_sge = 1;
}

/* Sleep until one armed CQ has a completion; reap it with one poll. */
static void reap_one_event(struct bench *bn)
{
	struct ibv_cq *cq;
	struct ibv_wc wc;
	void *cq_ctx;

	if (ibv_get_cq_event(bn->ch, &cq, &cq_ctx))
		die("get_cq_event", errno);
	ibv_ack_cq_events(cq, 1);
	if (cq == bn->a.cq)
		check_wcs(&wc, bench_poll_send(&bn->a, 1, &wc), 1);
	else
		check_wcs(&wc, bench_poll_recv(&bn->b, 1, &wc), 1);
}

static void run_pingpong(struct bench *bn)
{
	struct ibv_sge ssge, rsge;
	struct ibv_send_wr swr;
	struct ibv_recv_wr rwr;

	if (bn->o.size > BUF_BYTES / 2)
		die("--size", EINVAL);
	for (long i = 0; i < bn->o.iters; i++) {
		fill_send(bn, &swr, &ssge, (uint64_t)i);
		bench_arm(&bn->a);
		if (!bn->o.write) {
			fill_recv(bn, &rwr, &rsge, (uint64_t)i);
			bench_arm(&bn->b);
			bench_post_recv(&bn->b, &rwr);
		}
		bench_post_send(&bn->a, &swr);
		reap_one_event(bn);
		if (!bn->o.write)
			reap_one_event(bn);
	}
}

/* ---- batch ---------------------------------------------------------------- */

/* The CQE at the peek position, if the device has written it. */
static const struct ionic_cqe *peek_cqe(const struct ring_peek *p)
{
	const struct ionic_cqe *cqe =
		(const void *)(p->ring + (size_t)p->pos * IONIC_CQE_SIZE);
	uint32_t qtf = be32toh(
		__atomic_load_n(&cqe->qid_type_flags, __ATOMIC_ACQUIRE));

	return !!(qtf & IONIC_CQE_COLOR) == p->color ? cqe : NULL;
}

static void peek_next(struct ring_peek *p)
{
	p->pos = (p->pos + 1) & p->mask;
	if (!p->pos)
		p->color = !p->color;
}

/* Wait until 'n' more receive CQEs are in the ring. */
static void wait_recv_cqes(struct ring_peek *p, int n)
{
	while (n) {
		if (!peek_cqe(p)) {
			usleep(50);
			continue;
		}
		peek_next(p);
		n--;
	}
}

/* Wait until a SEND_MSN CQE says that 'msn' remote WQEs have completed. */
static void wait_send_msn(struct ring_peek *p, uint32_t msn)
{
	for (;;) {
		const struct ionic_cqe *cqe = peek_cqe(p);
		uint32_t got;

		if (!cqe) {
			usleep(50);
			continue;
		}
		got = be32toh(cqe->send.msg_msn);
		peek_next(p);
		if (((got - msn) & p->mask) == 0)
			return;
	}
}

static void run_batch(struct bench *bn)
{
	struct ibv_sge ssge[BATCH], rsge[BATCH];
	struct ibv_send_wr swr[BATCH];
	struct ibv_recv_wr rwr[BATCH];
	struct ibv_wc wc[BATCH];
	uint32_t sent = 0;

	for (long i = 0; i < bn->o.iters; i++) {
		for (int k = 0; k < BATCH; k++) {
			fill_send(bn, &swr[k], &ssge[k], (uint64_t)k);
			fill_recv(bn, &rwr[k], &rsge[k], (uint64_t)k);
			swr[k].next = k + 1 < BATCH ? &swr[k + 1] : NULL;
			rwr[k].next = k + 1 < BATCH ? &rwr[k + 1] : NULL;
		}
		bench_post_recv(&bn->b, rwr);
		bench_post_send(&bn->a, swr);
		sent += BATCH;
		wait_recv_cqes(&bn->b.peek, BATCH);
		wait_send_msn(&bn->a.peek, sent);
		check_wcs(wc, bench_poll_recv(&bn->b, BATCH, wc), BATCH);
		check_wcs(wc, bench_poll_send(&bn->a, BATCH, wc), BATCH);
	}
}

/* ---- control path ------------------------------------------------------- */

static NOINLINE void bench_qp_cycle(struct bench *bn)
{
	struct ibv_qp *qp = make_qp(bn, bn->a.cq, 0);

	if (!qp)
		die("create qp", errno);
	if (ibv_destroy_qp(qp))
		die("destroy qp", errno);
}

static NOINLINE void bench_mr_cycle(struct bench *bn)
{
	struct ibv_mr *mr = ibv_reg_mr(bn->root, bn->b.buf, BUF_BYTES,
				       IBV_ACCESS_LOCAL_WRITE);

	if (!mr)
		die("reg mr", errno);
	if (ibv_dereg_mr(mr))
		die("dereg mr", errno);
}

/* Can a send queue get express doorbells (REQUIRE: all or nothing)? */
static int probe_expdb(struct bench *bn)
{
	struct ibv_cq *cq = make_cq(bn);
	struct ibv_qp *qp;
	int rc;

	if (!cq)
		die("create cq", errno);
	/* EINVAL: the device offers no express doorbell to SQs at all */
	rc = ionic_dv_pd_set_sqcmb(bn->root, true, true, true);
	if (rc) {
		ibv_destroy_cq(cq);
		printf("express doorbells: not offered (%s)\n", strerror(rc));
		return 1;
	}
	qp = make_qp(bn, cq, 0);
	if (qp)
		ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	printf("express doorbells: %s\n", qp ? "granted" : "not granted");
	return qp ? 0 : 1;
}

/* ---- main ------------------------------------------------------------------ */

static void usage(void)
{
	fprintf(stderr, "usage: ionic-bench pingpong|batch|qp|mr|probe-expdb "
			"[-n N] [--td] [--write] [--size B] [--sge]\n");
	exit(2);
}

static void parse(int argc, char **argv, struct opts *o)
{
	o->iters = 1000;
	o->size = 32;
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "-n") && i + 1 < argc)
			o->iters = atol(argv[++i]);
		else if (!strcmp(argv[i], "--size") && i + 1 < argc)
			o->size = (size_t)atol(argv[++i]);
		else if (!strcmp(argv[i], "--td"))
			o->td = true;
		else if (!strcmp(argv[i], "--write"))
			o->write = true;
		else if (!strcmp(argv[i], "--sge"))
			o->sge = true;
		else
			usage();
	}
}

int main(int argc, char **argv)
{
	struct bench bn = { 0 };
	const char *mode;
	int rc = 0;

	if (argc < 2)
		usage();
	mode = argv[1];
	parse(argc, argv, &bn.o);
	open_bench(&bn);
	if (!strcmp(mode, "probe-expdb")) {
		rc = probe_expdb(&bn);
		close_bench(&bn);
		return rc;
	}
	setup_side(&bn, &bn.a);
	setup_side(&bn, &bn.b);
	connect_to(&bn.a, bn.b.qp->qp_num, &bn.gid);
	connect_to(&bn.b, bn.a.qp->qp_num, &bn.gid);

	if (!strcmp(mode, "pingpong"))
		run_pingpong(&bn);
	else if (!strcmp(mode, "batch"))
		run_batch(&bn);
	else if (!strcmp(mode, "qp"))
		for (long i = 0; i < bn.o.iters; i++)
			bench_qp_cycle(&bn);
	else if (!strcmp(mode, "mr"))
		for (long i = 0; i < bn.o.iters; i++)
			bench_mr_cycle(&bn);
	else
		usage();
	printf("ionic-bench %s: %ld iterations\n", mode, bn.o.iters);

	close_side(&bn.a);
	close_side(&bn.b);
	close_bench(&bn);
	return rc;
}
