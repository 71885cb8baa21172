// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The ports' hardware counters (ionic-sim --nics 2, with and without the
 * direct path): one process connects an RC QP of ionic_0 to one of
 * ionic_1 and a UD QP to a UD QP, moves messages of known sizes and
 * reads /sys/class/infiniband/ionic_K/ports/1/hw_counters/ before and
 * after each: both NICs' tx/rx_rdma_ucast_pkts and _bytes must have
 * moved by exactly the frames RoCEv2 needs for it (requests by the path
 * MTU, the ACKs asked for, READ responses, the atomic ACK), whichever
 * path carried the message.  Also: the files refuse writing, and an
 * unknown name is no counter.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verbs_fixture.h"

#define MTU 1024 /* the fixture's path MTU */
#define BUF (64 * 1024)
/* A frame's headers: Ethernet, IPv4 (GID 1), UDP, BTH, and the ICRC. */
#define HDR (14 + 20 + 8 + 12 + 4)
#define RETH 16
#define AETH 4
#define DETH 8
#define ATOMIC_ETH 28
#define ATOMIC_ACK 8
#define ACK (HDR + AETH)
#define ACKREQ_EVERY 16 /* the requester asks for an ACK this often */
#define NSENDS 5 /* RC SENDs of rc_messages() */
#define UD_LEN 1000

enum { TX_BYTES, TX_PKTS, RX_BYTES, RX_PKTS, NCNT };
static const char *const names[NCNT] = {
	"tx_rdma_ucast_bytes",
	"tx_rdma_ucast_pkts",
	"rx_rdma_ucast_bytes",
	"rx_rdma_ucast_pkts",
};

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *rc, *ud;
	struct ibv_ah *ah; /* UD: to the other side */
	union ibv_gid gid;
	uint8_t *buf;
	struct ibv_mr *mr;
};

/* The frames of one direction of a message: count and bytes. */
struct frames {
	uint64_t n, bytes;
};

static void frame(struct frames *f, uint64_t bytes)
{
	f->n++;
	f->bytes += bytes;
}

static uint64_t pad4(uint64_t n)
{
	return (n + 3) & ~3ull;
}

/* Counter 'c' of NIC k; fopen and open are served apart by the preload:
 * use both. */
static uint64_t counter(int k, int c)
{
	char path[128], text[32] = "";
	unsigned long long v = ~0ull;
	ssize_t n;
	FILE *f;
	int fd;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/ionic_%d/ports/1/hw_counters/%s", k,
		 names[c]);
	if (c & 1) {
		f = fopen(path, "r");
		REQUIRE(f);
		REQUIRE_EQ(fscanf(f, "%llu", &v), 1);
		fclose(f);
		return v;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	REQUIRE(fd >= 0);
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	REQUIRE(n > 1 && text[n - 1] == '\n');
	return strtoull(text, NULL, 10);
}

static void snapshot(uint64_t v[2][NCNT])
{
	for (int k = 0; k < 2; k++)
		for (int c = 0; c < NCNT; c++)
			v[k][c] = counter(k, c);
}

/* Both NICs moved by the frames 'req' (side 'from' to the other) and
 * 'rsp' (back). */
static void expect(const char *what, uint64_t before[2][NCNT], int from,
		   struct frames req, struct frames rsp)
{
	uint64_t now[2][NCNT], want[2][NCNT] = { { 0 } };

	want[from][TX_PKTS] = want[1 - from][RX_PKTS] = req.n;
	want[from][TX_BYTES] = want[1 - from][RX_BYTES] = req.bytes;
	want[1 - from][TX_PKTS] = want[from][RX_PKTS] = rsp.n;
	want[1 - from][TX_BYTES] = want[from][RX_BYTES] = rsp.bytes;
	snapshot(now);
	for (int k = 0; k < 2; k++)
		for (int c = 0; c < NCNT; c++)
			if (now[k][c] - before[k][c] != want[k][c])
				check_fail(__FILE__, __LINE__,
					   "%s: ionic_%d %s moved by %llu, "
					   "want %llu",
					   what, k, names[c],
					   (unsigned long long)(now[k][c] -
								before[k][c]),
					   (unsigned long long)want[k][c]);
}

static struct ibv_qp *qp_new(struct side *s, enum ibv_qp_type t)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = t,
		.send_cq = s->cq,
		.recv_cq = s->cq,
		.cap = { .max_send_wr = 16,
			 .max_recv_wr = 16,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(s->pd, &qa);

	REQUIRE(qp);
	return qp;
}

static void side_create(struct side *s, const char *dev)
{
	memset(s, 0, sizeof(*s));
	s->ctx = fx_try_open_named(dev);
	REQUIRE(s->ctx);
	REQUIRE_EQ(ibv_query_gid(s->ctx, 1, 1, &s->gid), 0);
	s->pd = ibv_alloc_pd(s->ctx);
	s->cq = ibv_create_cq(s->ctx, 64, NULL, NULL, 0);
	REQUIRE(s->pd && s->cq);
	s->rc = qp_new(s, IBV_QPT_RC);
	s->ud = qp_new(s, IBV_QPT_UD);
	s->buf = aligned_alloc(4096, BUF);
	REQUIRE(s->buf);
	memset(s->buf, 0, BUF);
	s->mr = ibv_reg_mr(s->pd, s->buf, BUF,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC);
	REQUIRE(s->mr);
}

static void side_destroy(struct side *s)
{
	CHECK_EQ(ibv_destroy_ah(s->ah), 0);
	CHECK_EQ(ibv_destroy_qp(s->rc), 0);
	CHECK_EQ(ibv_destroy_qp(s->ud), 0);
	CHECK_EQ(ibv_dereg_mr(s->mr), 0);
	CHECK_EQ(ibv_destroy_cq(s->cq), 0);
	CHECK_EQ(ibv_dealloc_pd(s->pd), 0);
	CHECK_EQ(ibv_close_device(s->ctx), 0);
	free(s->buf);
}

static void post_recv(struct side *s, struct ibv_qp *qp, uint32_t len)
{
	struct ibv_sge sge = { .addr = (uintptr_t)(s->buf + BUF / 2),
			       .length = len,
			       .lkey = s->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	REQUIRE_EQ(ibv_post_recv(qp, &wr, &bad), 0);
}

static void connect_sides(struct side s[2])
{
	struct fx_qp_opts o;

	fx_qp_opts_default(&o, IBV_QPT_RC);
	o.timeout = 18; /* 1 s: no retransmission on a slow machine */
	for (int i = 0; i < 2; i++) {
		REQUIRE_EQ(fx_ud_to_rts(s[i].ud, o.qkey), 0);
		s[i].ah = fx_make_ah(s[i].pd, &s[1 - i].gid);
		REQUIRE(s[i].ah);
		REQUIRE_EQ(fx_rc_to_init(s[i].rc), 0);
	}
	/* Every receive the SENDs need, posted now: ionic_1's modify to
	 * RTR applies their doorbells, so no SEND finds an empty RQ (an
	 * RNR NAK and a retry are frames too). */
	post_recv(&s[1], s[1].ud, UD_LEN + 40);
	for (int i = 0; i < NSENDS; i++)
		post_recv(&s[1], s[1].rc, BUF / 2);
	for (int i = 0; i < 2; i++)
		REQUIRE_EQ(fx_rc_to_rtr(s[i].rc, &s[1 - i].gid,
					s[1 - i].rc->qp_num, &o),
			   0);
	for (int i = 0; i < 2; i++)
		REQUIRE_EQ(fx_rc_to_rts(s[i].rc, &o), 0);
}

/* One work request from s[0] (RC, or UD to s[1]); every completion it
 * makes on both sides is polled and must succeed. */
static void run(struct side s[2], enum ibv_wr_opcode op, uint32_t len, bool ud)
{
	struct ibv_sge sge = { .addr = (uintptr_t)s[0].buf,
			       .length = len,
			       .lkey = s[0].mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 2,
				  .sg_list = &sge,
				  .num_sge = 1,
				  .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED };
	bool recv = op == IBV_WR_SEND;
	struct ibv_send_wr *bad;
	struct ibv_wc wc;

	if (ud) {
		wr.wr.ud.ah = s[0].ah;
		wr.wr.ud.remote_qpn = s[1].ud->qp_num;
		wr.wr.ud.remote_qkey = 0x11111111;
	} else if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		sge.length = 8;
		wr.wr.atomic.remote_addr = (uintptr_t)s[1].buf;
		wr.wr.atomic.rkey = s[1].mr->rkey;
		wr.wr.atomic.compare_add = 1;
	} else {
		wr.wr.rdma.remote_addr = (uintptr_t)s[1].buf + 4096;
		wr.wr.rdma.rkey = s[1].mr->rkey;
	}
	REQUIRE_EQ(ibv_post_send(ud ? s[0].ud : s[0].rc, &wr, &bad), 0);
	fx_poll_one(s[0].cq, &wc, 5000);
	REQUIRE_EQ(wc.status, IBV_WC_SUCCESS);
	if (recv) {
		fx_poll_one(s[1].cq, &wc, 5000);
		REQUIRE_EQ(wc.status, IBV_WC_SUCCESS);
		CHECK_EQ(wc.byte_len, len + (ud ? 40u : 0u));
	}
}

/* A SEND or WRITE of 'len' bytes: its packets, and the ACKs for the
 * last one and each one that asks (every 16th). */
static void seg_frames(uint32_t len, bool write, struct frames *req,
		       struct frames *rsp)
{
	uint32_t n = len ? (len + MTU - 1) / MTU : 1;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t chunk = len - i * MTU < MTU ? len - i * MTU : MTU;

		frame(req, HDR + (write && !i ? RETH : 0) + pad4(chunk));
		if (i + 1 == n || i % ACKREQ_EVERY == ACKREQ_EVERY - 1)
			frame(rsp, ACK);
	}
}

static void rc_messages(struct side s[2])
{
	static const uint32_t sizes[NSENDS] = { 0, 3, 1024, 5000, 20000 };
	uint64_t before[2][NCNT];
	char what[64];

	for (unsigned int i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (int w = 0; w < 2; w++) {
			struct frames req = { 0 }, rsp = { 0 };

			snprintf(what, sizeof(what), "RC %s of %u bytes",
				 w ? "WRITE" : "SEND", sizes[i]);
			SECTION(what);
			seg_frames(sizes[i], w, &req, &rsp);
			snapshot(before);
			run(s, w ? IBV_WR_RDMA_WRITE : IBV_WR_SEND, sizes[i],
			    false);
			expect(what, before, 0, req, rsp);
		}
	}
}

static void rc_read_atomic(struct side s[2])
{
	static const uint32_t sizes[] = { 8, 3000, 20000 };
	uint64_t before[2][NCNT];
	struct frames req, rsp;
	char what[64];

	for (unsigned int i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint32_t len = sizes[i], n = (len + MTU - 1) / MTU;

		snprintf(what, sizeof(what), "RC READ of %u bytes", len);
		SECTION(what);
		memset(&req, 0, sizeof(req));
		memset(&rsp, 0, sizeof(rsp));
		frame(&req, HDR + RETH);
		/* responses: FIRST and LAST (or ONLY) carry an AETH */
		for (uint32_t j = 0; j < n; j++) {
			uint32_t chunk = len - j * MTU < MTU ? len - j * MTU :
							       MTU;

			frame(&rsp, HDR + (!j || j + 1 == n ? AETH : 0) +
					    pad4(chunk));
		}
		snapshot(before);
		run(s, IBV_WR_RDMA_READ, len, false);
		expect(what, before, 0, req, rsp);
	}

	SECTION("RC FETCH_AND_ADD");
	memset(&req, 0, sizeof(req));
	memset(&rsp, 0, sizeof(rsp));
	frame(&req, HDR + ATOMIC_ETH);
	frame(&rsp, HDR + AETH + ATOMIC_ACK);
	snapshot(before);
	run(s, IBV_WR_ATOMIC_FETCH_AND_ADD, 8, false);
	expect("RC FETCH_AND_ADD", before, 0, req, rsp);
}

static void ud_send(struct side s[2])
{
	struct frames req = { 0 }, rsp = { 0 };
	uint64_t before[2][NCNT];

	SECTION("UD SEND of 1000 bytes");
	frame(&req, HDR + DETH + UD_LEN);
	snapshot(before);
	run(s, IBV_WR_SEND, UD_LEN, true);
	expect("UD SEND", before, 0, req, rsp);
}

static void files(void)
{
	const char *dir = "/sys/class/infiniband/ionic_0/ports/1/hw_counters";
	char path[160];

	SECTION("the counter files are read-only; lifespan is a file");
	snprintf(path, sizeof(path), "%s/%s", dir, names[TX_PKTS]);
	errno = 0;
	CHECK_EQ(open(path, O_WRONLY), -1);
	CHECK_EQ(errno, EACCES);
	CHECK(fopen(path, "w") == NULL);
	snprintf(path, sizeof(path), "%s/lifespan", dir);
	CHECK(access(path, R_OK) == 0);
	snprintf(path, sizeof(path), "%s/no_such_counter", dir);
	CHECK_EQ(access(path, F_OK), -1);
}

int main(void)
{
	struct side s[2];

	side_create(&s[0], "ionic_0");
	side_create(&s[1], "ionic_1");
	connect_sides(s);
	rc_messages(s);
	rc_read_atomic(s);
	ud_send(s);
	files();
	side_destroy(&s[0]);
	side_destroy(&s[1]);
	return check_finish();
}
