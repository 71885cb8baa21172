// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The direct path against a peer that misbehaves (sim/README.md "Direct
 * path"): the requester (the parent, A) keeps RC WRITEs and SENDs going
 * to a forked responder (B, its own device context) while B
 *
 *   --kill      is killed with SIGKILL mid-transfer: A's work completes
 *               as the packet path's would (RETRY_EXC_ERR, then flushes),
 *               within the retry budget, no hang, no crash;
 *   --scribble  writes garbage over its own direct-path segment (the
 *               memfd its device shares with A, found in /proc/self/fd),
 *               lock included, and over its RQ ring (which A maps too),
 *               and gives its key records' shared-memory fields (its
 *               buffer's memfd, sim/kernel/mrshare.c) wrong addresses,
 *               sizes and descriptors, again and again: A may see
 *               errors, never a crash or a hang, and every work request
 *               it posted completes.
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "verbs_fixture.h"

#define BUF (1u << 20)
#define MSG 65536
#define DEPTH 32

/* One side: a QP on a CQ of its own, 1 MiB registered for everything. */
struct end {
	uint8_t *buf;
	struct ibv_mr *mr;
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_pd *pd;
	struct ibv_context *ctx;
	union ibv_gid gid;
};

struct info {
	uint32_t qpn, rkey;
	uint64_t addr;
};

static void end_create(struct end *e)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = DEPTH,
			 .max_recv_wr = DEPTH,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};

	e->buf = calloc(1, BUF);
	REQUIRE(e->buf);
	e->ctx = fx_open();
	e->pd = ibv_alloc_pd(e->ctx);
	REQUIRE(e->pd);
	e->cq = ibv_create_cq(e->ctx, 2 * DEPTH, NULL, NULL, 0);
	REQUIRE(e->cq);
	e->mr = ibv_reg_mr(e->pd, e->buf, BUF,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ);
	REQUIRE(e->mr);
	ia.send_cq = ia.recv_cq = e->cq;
	e->qp = ibv_create_qp(e->pd, &ia);
	REQUIRE(e->qp);
	REQUIRE_EQ(ibv_query_gid(e->ctx, 1, 1, &e->gid), 0);
}

static void end_connect(struct end *e, uint32_t dqpn)
{
	struct fx_qp_opts o;

	fx_qp_opts_default(&o, IBV_QPT_RC);
	o.timeout = 12; /* 16.8 ms */
	o.retry_cnt = 3;
	o.rnr_retry = 7; /* B may fall behind reposting: wait for it */
	REQUIRE_EQ(fx_rc_to_init(e->qp), 0);
	REQUIRE_EQ(fx_rc_to_rtr(e->qp, &e->gid, dqpn, &o), 0);
	REQUIRE_EQ(fx_rc_to_rts(e->qp, &o), 0);
}

static int post_recv(struct end *e, uint64_t id)
{
	struct ibv_sge sge = { (uintptr_t)e->buf, MSG, e->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(e->qp, &wr, &bad);
}

/* Even ids WRITE, odd ids SEND (B keeps receives posted). */
static int post_one(struct end *e, const struct info *peer, uint64_t id)
{
	struct ibv_sge sge = { (uintptr_t)e->buf + (id % 8) * MSG, MSG,
			       e->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = id & 1 ? IBV_WR_SEND : IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;

	wr.wr.rdma.remote_addr = peer->addr + (id % 8) * MSG;
	wr.wr.rdma.rkey = peer->rkey;
	return ibv_post_send(e->qp, &wr, &bad);
}

/* B's memfd named 'name' (the direct-path segment: "ionic-sim-direct";
 * its RQ ring: "ionic-sim-ring-rq"), mapped again, or NULL. */
static uint8_t *own_memfd(const char *name, size_t *len)
{
	char link[300], target[256], *t;
	struct dirent *de;
	struct stat st;
	uint8_t *p = NULL;
	DIR *d = opendir("/proc/self/fd");
	ssize_t n;

	while (d && !p && (de = readdir(d))) {
		snprintf(link, sizeof(link), "/proc/self/fd/%s", de->d_name);
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = 0;
		/* "memfd:NAME (deleted)", "/memfd:..." since Linux 6.x */
		t = target + (target[0] == '/');
		if (strncmp(t, "memfd:", 6) ||
		    strncmp(t + 6, name, strlen(name)))
			continue;
		if (fstat(atoi(de->d_name), &st) || !st.st_size)
			continue;
		p = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED,
			 atoi(de->d_name), 0);
		if (p == MAP_FAILED)
			p = NULL;
		*len = st.st_size;
	}
	if (d)
		closedir(d);
	return p;
}

/* Where B's key records name its buffer's memfd: the offsets in 'seg' of
 * the records' share_addr fields (struct idev_dseg_key: share_addr,
 * share_len, share_ino, share_fd follow each other), found by value (the
 * buffer's first whole page); how many, at most 'max'. */
static int mr_records(const uint8_t *seg, size_t len, const uint8_t *buf,
		      size_t *off, int max)
{
	uint64_t want = ((uintptr_t)buf + 4095) & ~(uint64_t)4095, v;
	int n = 0;

	for (size_t o = 0; o + 32 <= len && n < max; o += 8) {
		memcpy(&v, seg + o, sizeof(v));
		if (v == want)
			off[n++] = o;
	}
	return n;
}

/* Lies about the buffer's memfd in one of the records: an address off by
 * pages or anywhere, a wrong size, another descriptor; or the truth. */
static void mr_lie(uint8_t *rec, const uint8_t *truth, unsigned int *seed)
{
	static const uint64_t lens[] = { 0, 4096, 1ull << 40, ~0ull,
					 (1u << 20) + 4096 };
	uint64_t v;
	int32_t fd;

	switch (rand_r(seed) % 5) {
	case 0:
		memcpy(&v, rec, 8);
		v += 4096 * (uint64_t)(rand_r(seed) % 5 - 2);
		memcpy(rec, &v, 8);
		break;
	case 1:
		memcpy(rec + 8, &lens[rand_r(seed) % 5], 8);
		break;
	case 2:
		fd = rand_r(seed) % 32;
		memcpy(rec + 24, &fd, 4);
		break;
	case 3:
		v = ((uint64_t)rand_r(seed) << 33) ^ (uint64_t)rand_r(seed);
		memcpy(rec, &v, 8);
		break;
	default:
		memcpy(rec, truth, 28);
		break;
	}
}

/* The responder: keep receives posted and, with 'scribble', trash the
 * shared segment now and then. */
static void run_b(struct end *e, int rd, int wr, bool scribble)
{
	struct ibv_wc wc[16];
	uint8_t *seg = NULL, *rq = NULL, truth[4][28];
	size_t len = 0, rq_len = 0, mr_off[4];
	int nmr = 0;
	unsigned int seed = 1;
	uint64_t t0 = fx_now_ms(), t_lies = 0;
	int i, n;

	for (i = 0; i < DEPTH; i++)
		REQUIRE_EQ(post_recv(e, i), 0);
	REQUIRE(write(wr, "r", 1) == 1);
	/* until the parent says stop (or kills us); 'g': scribble from now
	 * on (traffic runs, the port is in use) */
	while (fx_now_ms() - t0 < 60000) {
		char c;

		if (read(rd, &c, 1) == 1 && c == 's')
			break;
		if (c == 'g' && scribble && !seg) {
			seg = own_memfd("ionic-sim-direct", &len);
			REQUIRE(seg);
			/* shared with A's executor (sim/kernel/ringshare.c) */
			rq = own_memfd("ionic-sim-ring-rq", &rq_len);
			REQUIRE(rq);
			/* its buffer is in shared memory too (mrshare.c) */
			nmr = mr_records(seg, len, e->buf, mr_off, 4);
			REQUIRE(nmr > 0);
			for (i = 0; i < nmr; i++)
				memcpy(truth[i], seg + mr_off[i], 28);
			t_lies = fx_now_ms();
		}
		c = 0;
		n = ibv_poll_cq(e->cq, 16, wc);
		for (i = 0; i < n; i++)
			if (wc[i].status == IBV_WC_SUCCESS)
				post_recv(e, wc[i].wr_id);
		if (seg && fx_now_ms() - t_lies < 300) {
			/* first only lies about its memory, which A's executor
			 * meets while the QP still works */
			i = rand_r(&seed) % nmr;
			mr_lie(seg + mr_off[i], truth[i], &seed);
		} else if (seg) {
			/* garbage over a random stretch, the header and its
			 * lock included every so often */
			size_t off = (size_t)rand_r(&seed) % len;
			size_t cnt = 256 + (size_t)rand_r(&seed) % 4096;

			if (!(rand_r(&seed) % 8))
				off = 0;
			for (size_t j = off; j < off + cnt && j < len; j++)
				seg[j] = (uint8_t)rand_r(&seed);
			/* and a receive WQE now and then: garbage A decodes */
			off = (size_t)rand_r(&seed) % rq_len;
			if (!(rand_r(&seed) % 4))
				rq[off] = (uint8_t)rand_r(&seed);
			/* and the key records' memfd fields */
			i = rand_r(&seed) % nmr;
			mr_lie(seg + mr_off[i], truth[i], &seed);
		}
	}
}

int main(int argc, char **argv)
{
	bool scribble = argc == 2 && !strcmp(argv[1], "--scribble");
	bool kill_it = argc == 2 && !strcmp(argv[1], "--kill");
	int to_b[2], to_a[2], status, n, i;
	uint64_t posted = 0, done = 0, t0, killed_at = 0;
	unsigned int errors = 0, after_kill_ok = 0;
	enum ibv_wc_status first_error = IBV_WC_SUCCESS;
	bool go = false;
	struct info me, peer;
	struct ibv_wc wc[16];
	struct end e;
	pid_t child;
	char c;

	REQUIRE(scribble || kill_it);
	SECTION(scribble ? "a peer scribbling its segment: no crash, no hang" :
			   "a peer killed mid-transfer: retry exceeded, flush");
	REQUIRE(pipe(to_b) == 0 && pipe(to_a) == 0);
	child = fork();
	REQUIRE(child >= 0);
	if (child == 0) {
		end_create(&e);
		me.qpn = e.qp->qp_num;
		me.rkey = e.mr->rkey;
		me.addr = (uintptr_t)e.buf;
		if (read(to_b[0], &peer, sizeof(peer)) != sizeof(peer) ||
		    write(to_a[1], &me, sizeof(me)) != sizeof(me))
			_exit(2);
		end_connect(&e, peer.qpn);
		fcntl(to_b[0], F_SETFL, O_NONBLOCK);
		run_b(&e, to_b[0], to_a[1], scribble);
		_exit(0);
	}
	end_create(&e);
	me.qpn = e.qp->qp_num;
	REQUIRE(write(to_b[1], &me, sizeof(me)) == sizeof(me));
	REQUIRE(read(to_a[0], &peer, sizeof(peer)) == sizeof(peer));
	end_connect(&e, peer.qpn);
	REQUIRE(read(to_a[0], &c, 1) == 1);

	/* traffic; the kill comes after 200 completions */
	t0 = fx_now_ms();
	while (fx_now_ms() - t0 < 30000) {
		while (posted - done < DEPTH && posted < 4000 &&
		       post_one(&e, &peer, posted) == 0)
			posted++;
		n = ibv_poll_cq(e.cq, 16, wc);
		for (i = 0; i < n; i++) {
			done++;
			if (wc[i].status != IBV_WC_SUCCESS) {
				if (!errors++)
					first_error = wc[i].status;
			} else if (killed_at) {
				after_kill_ok++;
			}
		}
		if (kill_it && !killed_at && done >= 200) {
			/* gone for good once reaped: whatever A posts after
			 * that cannot reach it */
			kill(child, SIGKILL);
			REQUIRE(waitpid(child, &status, 0) == child);
			killed_at = fx_now_ms();
		}
		if (scribble && !go && done >= 200) {
			REQUIRE(write(to_b[1], "g", 1) == 1);
			go = true;
		}
		/* an error moved the QP to ERR: what is left flushes */
		if (done == posted && (posted == 4000 || errors))
			break;
	}
	printf("posted %llu, completed %llu, %u in error (first: %s), %u "
	       "successful after the kill\n",
	       (unsigned long long)posted, (unsigned long long)done, errors,
	       fx_wc_status(first_error), after_kill_ok);
	CHECK_EQ(done, posted); /* nothing hangs */
	if (kill_it) {
		CHECK(killed_at != 0);
		/* retry exceeded, then flushes */
		CHECK_EQ(first_error, IBV_WC_RETRY_EXC_ERR);
		/* only work executed before the kill may still complete */
		CHECK(after_kill_ok <= DEPTH);
		CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	} else {
		REQUIRE(write(to_b[1], "s", 1) == 1);
	}
	if (!kill_it) {
		REQUIRE(waitpid(child, &status, 0) == child);
		/* a scribbler hurts itself at most: it scribbled all along */
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	CHECK_EQ(ibv_destroy_qp(e.qp) | ibv_destroy_cq(e.cq) |
			 ibv_dereg_mr(e.mr) | ibv_dealloc_pd(e.pd) |
			 ibv_close_device(e.ctx),
		 0);
	free(e.buf);
	return check_finish();
}
