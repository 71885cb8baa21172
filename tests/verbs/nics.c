// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Several NICs per emulated host (ionic-sim --nics N, run with N >= 2):
 * libibverbs lists ionic_0..ionic_<N-1> with distinct GUIDs and GIDs;
 * ONE process opens two of them and moves data between them over RC and
 * UD, both directions interleaved (the doorbells of both NICs pass the
 * same trap and must each reach their own device, in order); and two
 * processes holding QPs on the same NIC get distinct QP numbers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "verbs_fixture.h"

#define MSG 4096
/* UD: one datagram, below the port's active MTU (1024) */
#define UD_MSG 1000
#define ROUNDS 64

/* One NIC's side: context, PD, CQ, QP and a registered buffer. */
struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_ah *ah; /* UD: to the other side */
	union ibv_gid gid;
	uint8_t *buf; /* [0, MSG) send, [MSG, 2 MSG + 40) receive */
	struct ibv_mr *mr;
	uint32_t len; /* bytes per message */
};

static void side_create(struct side *s, const char *dev, enum ibv_qp_type t)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = t,
		.cap = { .max_send_wr = 16,
			 .max_recv_wr = 16,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};

	memset(s, 0, sizeof(*s));
	s->ctx = fx_try_open_named(dev);
	REQUIRE(s->ctx);
	REQUIRE_EQ(ibv_query_gid(s->ctx, 1, 1, &s->gid), 0);
	s->pd = ibv_alloc_pd(s->ctx);
	s->cq = ibv_create_cq(s->ctx, 64, NULL, NULL, 0);
	REQUIRE(s->pd && s->cq);
	qa.send_cq = qa.recv_cq = s->cq;
	s->qp = ibv_create_qp(s->pd, &qa);
	REQUIRE(s->qp);
	s->buf = calloc(1, 2 * MSG + 64);
	REQUIRE(s->buf);
	s->mr = ibv_reg_mr(s->pd, s->buf, 2 * MSG + 64, IBV_ACCESS_LOCAL_WRITE);
	REQUIRE(s->mr);
	s->len = t == IBV_QPT_UD ? UD_MSG : MSG;
}

static void side_destroy(struct side *s)
{
	if (s->ah)
		CHECK_EQ(ibv_destroy_ah(s->ah), 0);
	CHECK_EQ(ibv_destroy_qp(s->qp), 0);
	CHECK_EQ(ibv_dereg_mr(s->mr), 0);
	CHECK_EQ(ibv_destroy_cq(s->cq), 0);
	CHECK_EQ(ibv_dealloc_pd(s->pd), 0);
	CHECK_EQ(ibv_close_device(s->ctx), 0);
	free(s->buf);
}

static void post_recv(struct side *s, uint64_t id)
{
	struct ibv_sge sge = { .addr = (uintptr_t)(s->buf + MSG),
			       .length = s->len + 40,
			       .lkey = s->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	REQUIRE_EQ(ibv_post_recv(s->qp, &wr, &bad), 0);
}

static void post_send(struct side *s, const struct side *to, uint64_t id)
{
	struct ibv_sge sge = { .addr = (uintptr_t)s->buf,
			       .length = s->len,
			       .lkey = s->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = id,
				  .sg_list = &sge,
				  .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad;

	if (s->ah) {
		wr.wr.ud.ah = s->ah;
		wr.wr.ud.remote_qpn = to->qp->qp_num;
		wr.wr.ud.remote_qkey = 0x11111111;
	}
	REQUIRE_EQ(ibv_post_send(s->qp, &wr, &bad), 0);
}

/* Both sides send at once, each its own pattern; each receives the
 * other's intact.  Returns how many rounds passed. */
static int exchange(struct side s[2], bool ud)
{
	int ok = 0;

	for (int r = 0; r < ROUNDS; r++) {
		struct ibv_wc wc[2];
		int sends = 0, recvs = 0;

		for (int i = 0; i < 2; i++) {
			post_recv(&s[i], 100 + i);
			fx_fill(s[i].buf, s[i].len, (unsigned int)(r * 2 + i));
		}
		for (int i = 0; i < 2; i++)
			post_send(&s[i], &s[1 - i], 200 + i);
		for (int i = 0; i < 2; i++) {
			for (int n = 0; n < 2; n++) {
				fx_poll_one(s[i].cq, wc, 5000);
				REQUIRE_EQ(wc[0].status, IBV_WC_SUCCESS);
				if (wc[0].opcode == IBV_WC_RECV) {
					recvs++;
					CHECK_EQ(wc[0].byte_len,
						 s[i].len + (ud ? 40u : 0u));
				} else {
					sends++;
				}
			}
		}
		REQUIRE_EQ(sends, 2);
		REQUIRE_EQ(recvs, 2);
		for (int i = 0; i < 2; i++) {
			uint8_t want[MSG];

			fx_fill(want, s[i].len, (unsigned int)(r * 2 + 1 - i));
			if (memcmp(s[i].buf + MSG + (ud ? 40 : 0), want,
				   s[i].len))
				check_fail(__FILE__, __LINE__,
					   "round %d: side %d got bad data", r,
					   i);
			else
				ok++;
		}
	}
	return ok / 2;
}

static void check_listing(int want)
{
	struct ibv_device **list;
	union ibv_gid gid[8][2];
	uint64_t guid[8];
	int n = 0;

	SECTION("libibverbs lists every NIC with its own GUID and GIDs");
	list = ibv_get_device_list(&n);
	REQUIRE(list);
	REQUIRE_EQ(n, want);
	for (int i = 0; i < n && i < 8; i++) {
		char name[16];
		struct ibv_context *ctx;

		snprintf(name, sizeof(name), "ionic_%d", i);
		CHECK_MSG(!strcmp(ibv_get_device_name(list[i]), name),
			  "device %d is %s", i, ibv_get_device_name(list[i]));
		guid[i] = ibv_get_device_guid(list[i]);
		ctx = ibv_open_device(list[i]);
		REQUIRE(ctx);
		CHECK_EQ(ibv_query_gid(ctx, 1, 0, &gid[i][0]), 0);
		CHECK_EQ(ibv_query_gid(ctx, 1, 1, &gid[i][1]), 0);
		CHECK_EQ(ibv_close_device(ctx), 0);
		for (int j = 0; j < i; j++) {
			CHECK_NE(guid[i], guid[j]);
			CHECK(memcmp(&gid[i][0], &gid[j][0], 16));
			CHECK(memcmp(&gid[i][1], &gid[j][1], 16));
		}
	}
	ibv_free_device_list(list);
}

static void rc_between_nics(void)
{
	struct fx_qp_opts o;
	struct side s[2];

	SECTION("RC between ionic_0 and ionic_1 in one process");
	fx_qp_opts_default(&o, IBV_QPT_RC);
	side_create(&s[0], "ionic_0", IBV_QPT_RC);
	side_create(&s[1], "ionic_1", IBV_QPT_RC);
	for (int i = 0; i < 2; i++)
		REQUIRE_EQ(fx_rc_to_init(s[i].qp), 0);
	for (int i = 0; i < 2; i++) {
		REQUIRE_EQ(fx_rc_to_rtr(s[i].qp, &s[1 - i].gid,
					s[1 - i].qp->qp_num, &o),
			   0);
		REQUIRE_EQ(fx_rc_to_rts(s[i].qp, &o), 0);
	}
	CHECK_EQ(exchange(s, false), ROUNDS);
	side_destroy(&s[0]);
	side_destroy(&s[1]);
}

static void ud_between_nics(void)
{
	struct side s[2];

	SECTION("UD between ionic_0 and ionic_1 in one process");
	side_create(&s[0], "ionic_0", IBV_QPT_UD);
	side_create(&s[1], "ionic_1", IBV_QPT_UD);
	for (int i = 0; i < 2; i++)
		REQUIRE_EQ(fx_ud_to_rts(s[i].qp, 0x11111111), 0);
	for (int i = 0; i < 2; i++) {
		s[i].ah = fx_make_ah(s[i].pd, &s[1 - i].gid);
		REQUIRE(s[i].ah);
	}
	CHECK_EQ(exchange(s, true), ROUNDS);
	side_destroy(&s[0]);
	side_destroy(&s[1]);
}

/* A QP on ionic_1 here and one in a child process on the same NIC, both
 * alive at once: their numbers differ. */
static void qpn_unique_across_processes(void)
{
	struct side s;
	uint32_t theirs = 0;
	int up[2], down[2], status;
	ssize_t n;
	pid_t pid;

	SECTION("two processes on the same NIC get distinct QP numbers");
	side_create(&s, "ionic_1", IBV_QPT_RC);
	REQUIRE(pipe(up) == 0 && pipe(down) == 0);
	fflush(NULL);
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		struct side c;
		char go;

		close(up[0]);
		close(down[1]);
		side_create(&c, "ionic_1", IBV_QPT_RC);
		if (write(up[1], &c.qp->qp_num, 4) != 4)
			_exit(2);
		/* hold the QP until the parent has compared */
		if (read(down[0], &go, 1) < 0)
			_exit(3);
		side_destroy(&c);
		_exit(check_failures() ? 1 : 0);
	}
	close(up[1]);
	close(down[0]);
	n = read(up[0], &theirs, 4);
	REQUIRE_EQ(n, 4);
	CHECK_NE(theirs, s.qp->qp_num);
	close(down[1]); /* the child's read returns: it may go */
	REQUIRE_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(up[0]);
	side_destroy(&s);
}

int main(int argc, char **argv)
{
	const char *nodes = getenv("IONIC_SIM_NODES");
	int want = 1;

	/* how many NICs the launcher gave: one node id each */
	for (const char *p = nodes; p && *p; p++)
		want += *p == ',';
	REQUIRE(argc < 2 || atoi(argv[1]) == want);
	REQUIRE(want >= 2);
	check_listing(want);
	rc_between_nics();
	ud_between_nics();
	qpn_unique_across_processes();
	return check_finish();
}
