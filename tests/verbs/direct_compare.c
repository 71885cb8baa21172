// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The same RC scenarios between two processes, for comparing the direct
 * path with the packet path (tests/e2e/direct_compare.sh runs this with
 * --direct on and off and compares the completion streams line by line).
 *
 * The parent (A) is the requester, a forked child (B) with its own device
 * context the responder; they agree on QPs over pipes.  Four QP pairs:
 *   1  SEND (10000 bytes: ten packets, 64 with immediate, 0 bytes, two
 *      SGEs, inline), WRITE, WRITE_IMM, READ; then B SENDs back, so B's
 *      one CQ holds its own send CQE after the receive CQEs A wrote;
 *   2  WRITE with a bad rkey: remote access error, then a flush; B's
 *      posted receive flushes;
 *   3  WRITE to a region without remote write: the same;
 *   4  SEND with nothing posted and rnr_retry 1: RNR retries exceeded,
 *      then a flush;
 *   5  FETCH_ADD at a misaligned address: invalid request, then a flush;
 *   6  CMP_SWP on a region without remote atomic access: the same.
 * Pair 1 also runs CMP_SWP and FETCH_ADD on one word of B.  A UD pair:
 * SENDs of 100, 0 and 1000 bytes, one with immediate, one with a wrong
 * qkey (dropped), last one of 100 bytes into a 64-byte receive (a local
 * length error); B's receive lines add the GRH flag, wc.sl and a sum of
 * the 40-byte GRH area.
 * Each side writes its completions (wr_id, status, opcode, byte_len,
 * immediate, whether the source QP is the peer) to ARGV[1].a / .b, and
 * checks the data itself.
 *
 * ARGV[2], optional: "thread": B is a thread of A's process with its own
 * context of the same NIC (same-process peers on one device);
 * "thread1": B is a thread on the process' second NIC (--nics 2);
 * "userring": both sides' RC QP rings come from a parent domain's
 * allocator, out of a MAP_SHARED pool, which ionic-sim does not move to
 * shared memory (sim/kernel/ringshare.c): executors read the peer's
 * receive WQEs with process_vm_readv and write its CQEs into its shared
 * CQ rings.  The registered buffer is a MAP_SHARED mapping too, which
 * REG_MR leaves where it is (sim/kernel/mrshare.c): payloads go with
 * process_vm_*.
 *
 * IONIC_TEST_DIRECT_REFUSE (direct_refuse.c): each side makes its memory
 * untouchable for the other before it opens its device (not dumpable,
 * process_vm_* refused), so that every QP must fall back to packets.
 *
 * IONIC_TEST_DIRECT_TABLE: before any device opens, A fills the run's
 * table of ports (<rundir>/direct-ports, sim/dev/direct_udx.c): its first
 * half with pairs of words (the launcher's pid, our NIC's node id), as
 * its lines begin: lines of a living process on our node that name no
 * usable port, looked at before any real one; the rest with words that
 * are, at random, one of those or no process: lines of "dead" processes,
 * whose slots the devices take over.
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "direct_refuse.h"
#include "verbs_fixture.h"

#define NPAIRS 6
#define ATOMIC_OFF 57344 /* B's word the atomics change */
#define RESULT_OFF 60000 /* A's results */
#define BUF 65536

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr, *mr_ro; /* mr_ro: no remote write */
	uint8_t *buf, *buf_ro;
	struct ibv_cq *cq[NPAIRS];
	struct ibv_qp *qp[NPAIRS];
	struct ibv_cq *ud_cq;
	struct ibv_qp *ud;
	union ibv_gid gid;
	FILE *out;
	char name;
};

struct hello_b {
	uint32_t qpn[NPAIRS];
	uint32_t rkey, rkey_ro;
	uint64_t addr, addr_ro;
	union ibv_gid gid;
	uint32_t ud_qpn;
};

#define UD_QKEY 0x11111111
#define UD_RECV_OFF 40960 /* B's UD receive buffers: 4 x 4096 */

static int to_b[2], to_a[2];

static void say(int fd, uint32_t v)
{
	REQUIRE(write(fd, &v, sizeof(v)) == sizeof(v));
}

static uint32_t hear(int fd)
{
	uint32_t v = 0;

	REQUIRE(read(fd, &v, sizeof(v)) == sizeof(v));
	return v;
}

/* The context of side B: the first NIC, or the second one (thread1). */
static int b_nic;

static struct ibv_context *open_nic(int index)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	int n = 0;

	if (!index)
		return fx_open();
	list = ibv_get_device_list(&n);
	REQUIRE(list && n > index);
	ctx = ibv_open_device(list[index]);
	ibv_free_device_list(list);
	REQUIRE(ctx);
	return ctx;
}

/* userring: QP rings, bump-allocated from one shared mapping */
#define POOL (1u << 20)
static bool user_rings;
static uint8_t *pool;
static size_t pool_used;

static void *pool_alloc(struct ibv_pd *pd, void *pd_context, size_t size,
			size_t align, uint64_t tag)
{
	size_t off = (pool_used + align - 1) & ~(align - 1);

	(void)pd;
	(void)pd_context;
	(void)tag;
	if (off + size > POOL)
		return NULL;
	pool_used = off + size;
	return pool + off;
}

static void pool_free(struct ibv_pd *pd, void *pd_context, void *ptr,
		      uint64_t tag)
{
	(void)pd;
	(void)pd_context;
	(void)ptr;
	(void)tag; /* the pool goes with the process */
}

/* The PD RC QPs are created on: a parent domain with the pool's
 * allocator (userring), else the PD itself. */
static struct ibv_pd *qp_pd(struct side *s)
{
	struct ibv_parent_domain_init_attr pa = {
		.pd = s->pd,
		.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS,
		.alloc = pool_alloc,
		.free = pool_free,
	};
	struct ibv_pd *p;

	if (!user_rings)
		return s->pd;
	pool = mmap(NULL, POOL, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	REQUIRE(pool != MAP_FAILED);
	p = ibv_alloc_parent_domain(s->ctx, &pa);
	REQUIRE(p);
	return p;
}

static void side_create(struct side *s, char name)
{
	struct ibv_pd *rc_pd;
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16,
			 .max_recv_wr = 16,
			 .max_send_sge = 2,
			 .max_recv_sge = 2,
			 .max_inline_data = 64 },
	};
	int i;

	s->name = name;
	direct_refuse_apply();
	s->ctx = open_nic(name == 'b' ? b_nic : 0);
	s->pd = ibv_alloc_pd(s->ctx);
	REQUIRE(s->pd);
	/* heap memory REG_MR moves to shared memory, or (userring) a
	 * shared mapping it leaves alone */
	s->buf = user_rings ? mmap(NULL, BUF, PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_ANONYMOUS, -1, 0) :
			      calloc(1, BUF);
	REQUIRE(s->buf != MAP_FAILED);
	s->buf_ro = calloc(1, 4096);
	REQUIRE(s->buf && s->buf_ro);
	fx_fill(s->buf, BUF, name);
	s->mr = ibv_reg_mr(s->pd, s->buf, BUF,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC);
	s->mr_ro = ibv_reg_mr(s->pd, s->buf_ro, 4096,
			      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	REQUIRE(s->mr && s->mr_ro);
	rc_pd = qp_pd(s);
	for (i = 0; i < NPAIRS; i++) {
		s->cq[i] = ibv_create_cq(s->ctx, 32, NULL, NULL, 0);
		REQUIRE(s->cq[i]);
		ia.send_cq = ia.recv_cq = s->cq[i];
		s->qp[i] = ibv_create_qp(rc_pd, &ia);
		REQUIRE(s->qp[i]);
	}
	REQUIRE_EQ(ibv_query_gid(s->ctx, 1, 1, &s->gid), 0);
	s->ud_cq = ibv_create_cq(s->ctx, 32, NULL, NULL, 0);
	REQUIRE(s->ud_cq);
	ia.qp_type = IBV_QPT_UD;
	ia.send_cq = ia.recv_cq = s->ud_cq;
	ia.cap.max_inline_data = 0;
	s->ud = ibv_create_qp(s->pd, &ia);
	REQUIRE(s->ud);
	REQUIRE_EQ(fx_ud_to_rts(s->ud, UD_QKEY), 0);
}

/* Wait for n UD completions and write them down, receives with their
 * GRH area (at UD_RECV_OFF + 4096 * i for the i-th receive): a sum of
 * the IPv4 header but its checksum and addresses, and whether those are
 * the two sides' GIDs (IPv4-mapped). */
static void drain_ud(struct side *s, int n, uint32_t peer,
		     const union ibv_gid *pgid)
{
	const uint8_t *grh;
	struct ibv_wc wc;
	unsigned int sum;
	bool addrs;

	for (int i = 0; i < n; i++) {
		fx_poll_one(s->ud_cq, &wc, 20000);
		sum = 0;
		addrs = false;
		if (wc.status == IBV_WC_SUCCESS && wc.opcode & IBV_WC_RECV) {
			grh = s->buf + UD_RECV_OFF + (wc.wr_id - 700) * 4096;
			for (int j = 20; j < 30; j++)
				sum = sum * 31 + grh[j];
			addrs = !memcmp(grh + 32, pgid->raw + 12, 4) &&
				!memcmp(grh + 36, s->gid.raw + 12, 4);
		}
		fprintf(s->out,
			"ud %c wr %llu %s op %d len %u imm 0x%x src %s grh %d "
			"sl %u sum %08x addrs %d\n",
			s->name, (unsigned long long)wc.wr_id,
			fx_wc_status(wc.status), (int)wc.opcode, wc.byte_len,
			wc.wc_flags & IBV_WC_WITH_IMM ? be32toh(wc.imm_data) :
							0,
			!(wc.opcode & IBV_WC_RECV) ? "-" :
			wc.src_qp == peer	   ? "peer" :
						     "other",
			!!(wc.wc_flags & IBV_WC_GRH), wc.sl, sum, addrs);
	}
}

static void ud_send(struct side *s, struct ibv_ah *ah, uint32_t qpn,
		    uint32_t qkey, uint64_t id, uint32_t len, bool imm)
{
	struct ibv_sge sge = { (uintptr_t)s->buf, len, s->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = id,
				  .sg_list = &sge,
				  .num_sge = 1,
				  .opcode = imm ? IBV_WR_SEND_WITH_IMM :
						  IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad;

	wr.imm_data = htobe32(0x9abc);
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = qpn;
	wr.wr.ud.remote_qkey = qkey;
	REQUIRE_EQ(ibv_post_send(s->ud, &wr, &bad), 0);
}

static void side_connect(struct side *s, const union ibv_gid *gid,
			 const uint32_t *peer)
{
	struct fx_qp_opts o;

	for (int i = 0; i < NPAIRS; i++) {
		fx_qp_opts_default(&o, IBV_QPT_RC);
		o.timeout = 12;
		if (i == 3)
			o.rnr_retry = 1; /* pair 4: give up after one RNR */
		REQUIRE_EQ(fx_rc_to_init(s->qp[i]), 0);
		REQUIRE_EQ(fx_rc_to_rtr(s->qp[i], gid, peer[i], &o), 0);
		REQUIRE_EQ(fx_rc_to_rts(s->qp[i], &o), 0);
	}
}

/* Wait for n completions of pair p and write them down. */
static void drain(struct side *s, int p, int n, const uint32_t *peer)
{
	struct ibv_wc wc;

	for (int i = 0; i < n; i++) {
		fx_poll_one(s->cq[p], &wc, 20000);
		fprintf(s->out,
			"p%d %c wr %llu %s op %d len %u imm 0x%x src %s\n",
			p + 1, s->name, (unsigned long long)wc.wr_id,
			fx_wc_status(wc.status), (int)wc.opcode, wc.byte_len,
			wc.wc_flags & IBV_WC_WITH_IMM ? be32toh(wc.imm_data) :
							0,
			!(wc.opcode & IBV_WC_RECV) ? "-" :
			wc.src_qp == peer[p]	   ? "peer" :
						     "other");
	}
}

static void post_recv(struct side *s, int p, uint64_t id, size_t off,
		      uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)s->buf + off, len, s->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	REQUIRE_EQ(ibv_post_recv(s->qp[p], &wr, &bad), 0);
}

static void post(struct side *s, int p, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;

	wr->send_flags |= IBV_SEND_SIGNALED;
	REQUIRE_EQ(ibv_post_send(s->qp[p], wr, &bad), 0);
}

static void send_one(struct side *s, int p, uint64_t id, size_t off,
		     uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)s->buf + off, len, s->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = id,
				  .sg_list = &sge,
				  .num_sge = 1,
				  .opcode = IBV_WR_SEND };

	post(s, p, &wr);
}

static void rdma(struct side *s, int p, uint64_t id, enum ibv_wr_opcode op,
		 size_t off, uint32_t len, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = { (uintptr_t)s->buf + off, len, s->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1, .opcode = op
	};

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	wr.imm_data = htobe32(0x5678);
	post(s, p, &wr);
}

static void atomic(struct side *s, int p, uint64_t id, enum ibv_wr_opcode op,
		   size_t off, uint64_t raddr, uint32_t rkey, uint64_t cmp,
		   uint64_t swap_add)
{
	struct ibv_sge sge = { (uintptr_t)s->buf + off, 8, s->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1, .opcode = op
	};

	wr.wr.atomic.remote_addr = raddr;
	wr.wr.atomic.rkey = rkey;
	wr.wr.atomic.compare_add = op == IBV_WR_ATOMIC_CMP_AND_SWP ? cmp :
								     swap_add;
	wr.wr.atomic.swap = swap_add;
	post(s, p, &wr);
}

static void run_a(struct side *a, const struct hello_b *h)
{
	uint64_t word, got[2];
	struct ibv_sge two[2] = {
		{ (uintptr_t)a->buf + 100, 50, a->mr->lkey },
		{ (uintptr_t)a->buf + 300, 50, a->mr->lkey },
	};
	struct ibv_send_wr wr = { .wr_id = 4, .sg_list = two, .num_sge = 1 };

	/* pair 1: everything that succeeds */
	send_one(a, 0, 1, 0, 10000);
	wr.opcode = IBV_WR_SEND_WITH_IMM;
	wr.imm_data = htobe32(0x1234);
	wr.wr_id = 2;
	two[0].length = 64;
	post(a, 0, &wr);
	send_one(a, 0, 3, 0, 0);
	two[0].length = 50;
	wr.opcode = IBV_WR_SEND;
	wr.wr_id = 4;
	wr.num_sge = 2;
	post(a, 0, &wr);
	wr.wr_id = 5;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_INLINE;
	two[0].length = 32;
	post(a, 0, &wr);
	rdma(a, 0, 6, IBV_WR_RDMA_WRITE, 1000, 4096, h->addr + 32768, h->rkey);
	rdma(a, 0, 7, IBV_WR_RDMA_WRITE_WITH_IMM, 6000, 200, h->addr + 40960,
	     h->rkey);
	rdma(a, 0, 8, IBV_WR_RDMA_READ, 16384, 8000, h->addr + 49152, h->rkey);
	/* B's word holds its pattern: swap it for 0x1111, then add 5 (the
	 * pattern on the heap: a 64 KiB frame below which nothing was
	 * touched yet is where valgrind cannot deliver the doorbell trap's
	 * SIGSEGV, "Can't extend stack", e2e-direct-compare-valgrind) */
	{
		uint8_t *pat = malloc(BUF);

		REQUIRE(pat);
		fx_fill(pat, BUF, 'b');
		memcpy(&word, pat + ATOMIC_OFF, sizeof(word));
		free(pat);
	}
	atomic(a, 0, 10, IBV_WR_ATOMIC_CMP_AND_SWP, RESULT_OFF,
	       h->addr + ATOMIC_OFF, h->rkey, word, 0x1111);
	atomic(a, 0, 11, IBV_WR_ATOMIC_FETCH_AND_ADD, RESULT_OFF + 8,
	       h->addr + ATOMIC_OFF, h->rkey, 0, 5);
	drain(a, 0, 10, h->qpn);
	memcpy(got, a->buf + RESULT_OFF, sizeof(got));
	CHECK_EQ(got[0], word);
	CHECK_EQ(got[1], 0x1111);
	/* READ: B's pattern, from 48 KiB on */
	{
		uint8_t *want = malloc(BUF);

		REQUIRE(want);
		fx_fill(want, BUF, 'b');
		CHECK(!memcmp(a->buf + 16384, want + 49152, 8000));
		free(want);
	}
	say(to_b[1], 1);
	/* B answers on the same QP: a receive here, a send CQE there */
	post_recv(a, 0, 9, 32768, 4096);
	say(to_b[1], 2);
	drain(a, 0, 1, h->qpn);

	/* pair 2: a bad rkey, then a flush */
	rdma(a, 1, 20, IBV_WR_RDMA_WRITE, 0, 64, h->addr, h->rkey ^ 0x80);
	drain(a, 1, 1, h->qpn);
	send_one(a, 1, 21, 0, 64);
	drain(a, 1, 1, h->qpn);
	/* pair 3: no remote write on the region */
	rdma(a, 2, 30, IBV_WR_RDMA_WRITE, 0, 64, h->addr_ro, h->rkey_ro);
	drain(a, 2, 1, h->qpn);
	send_one(a, 2, 31, 0, 64);
	drain(a, 2, 1, h->qpn);
	/* pair 4: nothing posted: RNR until the retries run out */
	send_one(a, 3, 40, 0, 64);
	drain(a, 3, 1, h->qpn);
	send_one(a, 3, 41, 0, 64);
	drain(a, 3, 1, h->qpn);
	/* pair 5: a misaligned atomic */
	atomic(a, 4, 50, IBV_WR_ATOMIC_FETCH_AND_ADD, RESULT_OFF,
	       h->addr + ATOMIC_OFF + 4, h->rkey, 0, 1);
	drain(a, 4, 1, h->qpn);
	send_one(a, 4, 51, 0, 64);
	drain(a, 4, 1, h->qpn);
	/* pair 6: no remote atomic access on the region */
	atomic(a, 5, 60, IBV_WR_ATOMIC_CMP_AND_SWP, RESULT_OFF, h->addr_ro,
	       h->rkey_ro, 0, 1);
	drain(a, 5, 1, h->qpn);
	send_one(a, 5, 61, 0, 64);
	drain(a, 5, 1, h->qpn);
	/* UD: the wrong qkey's message is dropped, the others arrive */
	{
		struct ibv_ah *ah = fx_make_ah(a->pd, &h->gid);

		REQUIRE(ah);
		ud_send(a, ah, h->ud_qpn, UD_QKEY, 70, 100, false);
		ud_send(a, ah, h->ud_qpn, UD_QKEY, 71, 64, true);
		ud_send(a, ah, h->ud_qpn, UD_QKEY ^ 1, 72, 64, false);
		ud_send(a, ah, h->ud_qpn, UD_QKEY, 73, 0, false);
		ud_send(a, ah, h->ud_qpn, UD_QKEY, 74, 1000, false);
		ud_send(a, ah, h->ud_qpn, UD_QKEY, 75, 100, false);
		drain_ud(a, 6, h->ud_qpn, &h->gid);
		ibv_destroy_ah(ah);
	}
	say(to_b[1], 3);
}

static void run_b(struct side *b, const uint32_t *aqpn, uint32_t aud,
		  const union ibv_gid *agid)
{
	uint8_t *want = malloc(BUF);

	REQUIRE(want);
	fx_fill(want, BUF, 'a');
	post_recv(b, 0, 100, 0, 12288);
	for (int i = 1; i < 6; i++)
		post_recv(b, 0, 100 + i, 12288 + (size_t)(i - 1) * 4096, 4096);
	post_recv(b, 1, 200, 0, 4096);
	post_recv(b, 2, 300, 0, 4096);
	post_recv(b, 4, 500, 0, 4096);
	post_recv(b, 5, 600, 0, 4096);
	for (int i = 0; i < 5; i++) {
		/* the fifth: too short for the GRH area and 100 bytes (in
		 * the fourth's buffer, past the 1040 bytes it gets) */
		struct ibv_sge sge = { (uintptr_t)b->buf + UD_RECV_OFF +
					       (size_t)(i < 4 ? i : 3) * 4096 +
					       (i < 4 ? 0 : 2048),
				       i < 4 ? 4096 : 64, b->mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = 700 + (uint64_t)i,
					  .sg_list = &sge,
					  .num_sge = 1 };
		struct ibv_recv_wr *bad;

		REQUIRE_EQ(ibv_post_recv(b->ud, &wr, &bad), 0);
	}
	say(to_a[1], 0); /* receives posted */
	REQUIRE_EQ(hear(to_b[0]), 1);
	drain(b, 0, 6, aqpn);
	CHECK(!memcmp(b->buf, want, 10000));
	CHECK(!memcmp(b->buf + 12288, want + 100, 64));
	CHECK(!memcmp(b->buf + 12288 + 2 * 4096, want + 100, 50));
	CHECK(!memcmp(b->buf + 12288 + 2 * 4096 + 50, want + 300, 50));
	CHECK(!memcmp(b->buf + 12288 + 3 * 4096, want + 100, 32));
	CHECK(!memcmp(b->buf + 32768, want + 1000, 4096));
	CHECK(!memcmp(b->buf + 40960, want + 6000, 200));
	REQUIRE_EQ(hear(to_b[0]), 2);
	send_one(b, 0, 110, 0, 64);
	drain(b, 0, 1, aqpn);
	REQUIRE_EQ(hear(to_b[0]), 3);
	drain(b, 1, 1, aqpn); /* flushed by the access error */
	drain(b, 2, 1, aqpn);
	CHECK_EQ(fx_expect_none(b->cq[3], 100), 0);
	drain(b, 4, 1, aqpn);
	drain(b, 5, 1, aqpn);
	{
		uint64_t word;

		memcpy(&word, b->buf + ATOMIC_OFF, sizeof(word));
		CHECK_EQ(word, 0x1116);
	}
	drain_ud(b, 5, aud, agid);
	CHECK(!memcmp(b->buf + UD_RECV_OFF + 3 * 4096 + 40, want, 1000));
	CHECK_EQ(fx_expect_none(b->ud_cq, 100), 0);
	free(want);
}

/* Side B, in a child process or a thread; the check verdict. */
static int side_b(const char *path)
{
	struct side s = { 0 };
	struct hello_b h = { 0 };
	uint32_t aqpn[NPAIRS], aud;
	union ibv_gid agid;

	side_create(&s, 'b');
	REQUIRE(read(to_b[0], &agid, sizeof(agid)) == sizeof(agid));
	for (int i = 0; i < NPAIRS; i++) {
		aqpn[i] = hear(to_b[0]);
		h.qpn[i] = s.qp[i]->qp_num;
	}
	aud = hear(to_b[0]);
	h.ud_qpn = s.ud->qp_num;
	h.rkey = s.mr->rkey;
	h.rkey_ro = s.mr_ro->rkey;
	h.addr = (uintptr_t)s.buf;
	h.addr_ro = (uintptr_t)s.buf_ro;
	h.gid = s.gid;
	REQUIRE(write(to_a[1], &h, sizeof(h)) == sizeof(h));
	side_connect(&s, &agid, aqpn);
	/* the peers' engines take the hellos (sim/README.md "Direct
	 * path"): until then messages go as packets */
	usleep(300000);
	s.out = fopen(path, "w");
	REQUIRE(s.out);
	run_b(&s, aqpn, aud, &agid);
	fclose(s.out);
	return check_failures();
}

static char path_b[512];

static void scribble_table(void)
{
	const char *run = getenv("IONIC_SIM_RUNDIR");
	const char *nodes = getenv("IONIC_SIM_NODES");
	uint32_t w[1024], v[3];
	char path[4096];
	FILE *f;

	REQUIRE(run && nodes);
	v[0] = (uint32_t)getppid();
	v[1] = (uint32_t)atoi(nodes);
	v[2] = 0x7ffffffe; /* above any pid_max: no process */
	srand((unsigned int)getpid());
	for (unsigned int i = 0; i < 1024; i++)
		w[i] = i < 512 ? v[i & 1] : v[rand() % 3];
	snprintf(path, sizeof(path), "%s/direct-ports", run);
	f = fopen(path, "w");
	REQUIRE(f);
	REQUIRE(fwrite(w, sizeof(w), 1, f) == 1);
	REQUIRE(!fclose(f));
}

static void *b_thread(void *arg)
{
	(void)arg;
	side_b(path_b);
	return NULL;
}

int main(int argc, char **argv)
{
	bool threaded = argc == 3 && !strncmp(argv[2], "thread", 6);
	struct side s = { 0 };
	struct hello_b h = { 0 };
	char path[512];
	pthread_t tid;
	pid_t child = 0;
	int status, i;

	SECTION("RC between two peers: completions to compare");
	user_rings = argc == 3 && !strcmp(argv[2], "userring");
	REQUIRE(argc == 2 || user_rings ||
		(threaded &&
		 (!strcmp(argv[2], "thread") || !strcmp(argv[2], "thread1"))));
	b_nic = threaded && argv[2][6] == '1';
	if (getenv("IONIC_TEST_DIRECT_TABLE"))
		scribble_table();
	REQUIRE(pipe(to_b) == 0 && pipe(to_a) == 0);
	snprintf(path, sizeof(path), "%s.a", argv[1]);
	snprintf(path_b, sizeof(path_b), "%s.b", argv[1]);
	if (threaded) {
		REQUIRE(!pthread_create(&tid, NULL, b_thread, NULL));
	} else {
		child = fork();
		REQUIRE(child >= 0);
		if (child == 0)
			exit(side_b(path_b) ? CHECK_EXIT_FAIL :
					      CHECK_EXIT_PASS);
	}
	side_create(&s, 'a');
	REQUIRE(write(to_b[1], &s.gid, sizeof(s.gid)) == sizeof(s.gid));
	for (i = 0; i < NPAIRS; i++)
		say(to_b[1], s.qp[i]->qp_num);
	say(to_b[1], s.ud->qp_num);
	REQUIRE(read(to_a[0], &h, sizeof(h)) == sizeof(h));
	side_connect(&s, &h.gid, h.qpn);
	usleep(300000);
	s.out = fopen(path, "w");
	REQUIRE(s.out);
	REQUIRE_EQ(hear(to_a[0]), 0);
	run_a(&s, &h);
	fclose(s.out);
	if (threaded) {
		REQUIRE(!pthread_join(tid, NULL));
	} else {
		REQUIRE(waitpid(child, &status, 0) == child);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	return check_finish();
}
