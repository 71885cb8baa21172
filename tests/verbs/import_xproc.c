// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * A second process imports the first one's device fd, passed over a unix
 * socket (SCM_RIGHTS), through ionic-sim (docs/kernel-contract.md §21.1).
 * The exporter forks and execs this program as the importer, sends it the
 * command fd and the handles of a PD and an MR; the importer imports the
 * device, the PD and the MR, queries the device, the port and the clock,
 * and allocates a PD of the shared context, which the exporter then uses
 * as its own: one kernel ucontext behind both descriptors.
 *
 * Then the importer moves data: a completion channel, a CQ and an RC QP
 * of its own on the imported PD, connected to a QP of the exporter; a
 * SEND and an RDMA WRITE from the imported MR land in the exporter's
 * buffer (compared byte for byte there), the importer's CQ gets exactly
 * its two completions and its channel the event.  MRs of the importer's
 * own memory stay refused with EOPNOTSUPP (not emulated); the test says
 * so, so it changes when they are.  Neither process keeps a mapping of
 * the pinned rings once the queues are gone.
 */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "verbs_fixture.h"

struct handles {
	uint32_t pd, mr, lkey, rkey;
	uint64_t length;
	int32_t ncv;
	uint32_t vendor_part_id;
	/* the data step: the imported MR's bytes (the source), the
	 * exporter's QP and its destination buffer */
	uint64_t src, dst;
	uint32_t dst_rkey, qpn;
	union ibv_gid gid;
};

/* Bytes of one message: the SEND lands at dst, the WRITE at dst + MSG. */
#define MSG 3000

/* Mappings of this process whose name contains 'what'. */
static int maps_with(const char *what)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;

	REQUIRE(f);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, what) != NULL;
	fclose(f);
	return n;
}

static int send_fd(int sock, int fd, const void *data, size_t len)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} c;
	struct iovec iov = { .iov_base = (void *)data, .iov_len = len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };

	memset(&c, 0, sizeof(c));
	m.msg_control = c.buf;
	m.msg_controllen = sizeof(c.buf);
	c.h.cmsg_level = SOL_SOCKET;
	c.h.cmsg_type = SCM_RIGHTS;
	c.h.cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(&c.h), &fd, sizeof(fd));
	return sendmsg(sock, &m, 0) == (ssize_t)len ? 0 : -1;
}

static int recv_fd(int sock, void *data, size_t len)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} c;
	struct iovec iov = { .iov_base = data, .iov_len = len };
	struct msghdr m = { .msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = c.buf,
			    .msg_controllen = sizeof(c.buf) };
	struct cmsghdr *h;
	int fd = -1;

	if (recvmsg(sock, &m, MSG_CMSG_CLOEXEC) != (ssize_t)len)
		return -1;
	h = CMSG_FIRSTHDR(&m);
	if (h && h->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(h), sizeof(fd));
	return fd;
}

/* An RC QP of a few one-SGE WRs completing into 'cq'. */
static struct ibv_qp *rc_qp(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 8,
			 .max_recv_wr = 8,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};

	return ibv_create_qp(pd, &qa);
}

/*
 * The importer's queues on the imported PD: an RC QP connected to the
 * exporter's, a SEND and an RDMA WRITE from the imported MR, the CQ's
 * event on a channel of the importer, then exactly two completions.
 */
static void importer_data(int sock, struct ibv_context *ictx,
			  struct ibv_pd *ipd, struct ibv_mr *imr,
			  const struct handles *h)
{
	struct ibv_sge sge[2] = {
		{ .addr = h->src, .length = MSG, .lkey = imr->lkey },
		{ .addr = h->src + MSG, .length = MSG, .lkey = imr->lkey },
	};
	struct ibv_send_wr wr[2], *bad = NULL;
	struct ibv_comp_channel *ch;
	struct fx_qp_opts o;
	struct ibv_cq *cq, *ev_cq = NULL;
	struct pollfd pfd;
	struct ibv_wc wc[2] = { 0 };
	struct ibv_qp *qp;
	void *ev_ctx = NULL;
	uint32_t qpn;
	char c;

	SECTION("importer: a completion channel, a CQ and an RC QP");
	ch = ibv_create_comp_channel(ictx);
	REQUIRE(ch);
	cq = ibv_create_cq(ictx, 16, NULL, ch, 0);
	REQUIRE(cq);
	qp = rc_qp(ipd, cq);
	REQUIRE(qp);
	CHECK(maps_with("ionic-sim-pin") > 0);
	fx_qp_opts_default(&o, IBV_QPT_RC);
	REQUIRE_EQ(fx_rc_to_init(qp), 0);
	REQUIRE_EQ(fx_rc_to_rtr(qp, &h->gid, h->qpn, &o), 0);
	REQUIRE_EQ(fx_rc_to_rts(qp, &o), 0);
	qpn = qp->qp_num;
	REQUIRE(write(sock, &qpn, sizeof(qpn)) == (ssize_t)sizeof(qpn));
	/* the exporter's QP is connected and its receive posted */
	REQUIRE(read(sock, &c, 1) == 1);

	/*
	 * The WRITE first: RC places it before the SEND, so the exporter's
	 * receive completion orders both for its own threads (its buffer is
	 * written by its device, and a WRITE alone completes nothing there).
	 */
	SECTION("importer: RDMA WRITE and SEND from the imported MR");
	REQUIRE_EQ(ibv_req_notify_cq(cq, 0), 0);
	memset(wr, 0, sizeof(wr));
	wr[0].wr_id = 1;
	wr[0].sg_list = &sge[1];
	wr[0].num_sge = 1;
	wr[0].opcode = IBV_WR_RDMA_WRITE;
	wr[0].send_flags = IBV_SEND_SIGNALED;
	wr[0].wr.rdma.remote_addr = h->dst + MSG;
	wr[0].wr.rdma.rkey = h->dst_rkey;
	wr[0].next = &wr[1];
	wr[1].wr_id = 2;
	wr[1].sg_list = &sge[0];
	wr[1].num_sge = 1;
	wr[1].opcode = IBV_WR_SEND;
	wr[1].send_flags = IBV_SEND_SIGNALED;
	CHECK_RC(ibv_post_send(qp, wr, &bad), 0);

	SECTION("importer: the channel's event, then exactly two completions");
	pfd = (struct pollfd){ .fd = ch->fd, .events = POLLIN };
	CHECK_EQ(poll(&pfd, 1, 10000), 1);
	CHECK_RC(ibv_get_cq_event(ch, &ev_cq, &ev_ctx), 0);
	CHECK(ev_cq == cq);
	ibv_ack_cq_events(cq, 1);
	CHECK_EQ(fx_poll(cq, wc, 2, 10000), 2);
	for (int i = 0; i < 2; i++) {
		CHECK_EQ(wc[i].status, IBV_WC_SUCCESS);
		CHECK_EQ(wc[i].wr_id, (uint64_t)i + 1);
		CHECK_EQ(wc[i].opcode, i ? IBV_WC_SEND : IBV_WC_RDMA_WRITE);
	}
	CHECK_EQ(fx_expect_none(cq, 200), 0);
	/* the exporter checks its buffer */
	REQUIRE(write(sock, "d", 1) == 1);
	REQUIRE(read(sock, &c, 1) == 1);

	SECTION("importer: its queues go, and the pinned rings with them");
	CHECK_RC(ibv_destroy_qp(qp), 0);
	CHECK_RC(ibv_destroy_cq(cq), 0);
	CHECK_RC(ibv_destroy_comp_channel(ch), 0);
	CHECK_EQ(maps_with("ionic-sim-pin"), 0);
}

/* The second process: everything through the received descriptor. */
static int importer(int sock)
{
	struct ibv_values_ex rt = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };
	struct ibv_context *ictx;
	struct ibv_device_attr a;
	struct ibv_port_attr pa;
	struct ibv_pd *ipd, *own;
	struct ibv_mr *imr;
	struct handles h;
	struct stat st;
	uint32_t own_handle = 0;
	uint8_t page[4096];
	int fd;

	SECTION("importer: the received descriptor is the device");
	fd = recv_fd(sock, &h, sizeof(h));
	REQUIRE(fd >= 0);
	REQUIRE(fstat(fd, &st) == 0);
	CHECK(S_ISCHR(st.st_mode));

	SECTION("importer: import_device, queries and the clock page");
	ictx = ibv_import_device(fd);
	REQUIRE(ictx);
	CHECK_EQ(ictx->num_comp_vectors, h.ncv);
	CHECK(ictx->async_fd >= 0 && ictx->async_fd != fd);
	CHECK_RC(ibv_query_device(ictx, &a), 0);
	CHECK_EQ(a.vendor_id, 0x1dd8);
	CHECK_EQ(a.vendor_part_id, h.vendor_part_id);
	CHECK_RC(ibv_query_port(ictx, 1, &pa), 0);
	CHECK_EQ(pa.state, IBV_PORT_ACTIVE);
	CHECK_RC(ibv_query_rt_values_ex(ictx, &rt), 0);
	CHECK(rt.raw_clock.tv_nsec != 0);

	SECTION("importer: import_pd and import_mr by handle");
	ipd = ibv_import_pd(ictx, h.pd);
	REQUIRE(ipd);
	imr = ibv_import_mr(ipd, h.mr);
	REQUIRE(imr);
	CHECK_EQ(imr->lkey, h.lkey);
	CHECK_EQ(imr->rkey, h.rkey);
	CHECK_EQ(imr->length, h.length);
	errno = 0;
	CHECK(!ibv_import_mr(ipd, h.mr + 1000));
	CHECK_EQ(errno, EINVAL);

	SECTION("importer: a PD of the shared context");
	own = ibv_alloc_pd(ictx);
	REQUIRE(own);
	own_handle = own->handle;
	CHECK(own_handle != h.pd);

	SECTION("importer: MRs of its own memory are not the device's");
	errno = 0;
	CHECK(!ibv_reg_mr(ipd, page, sizeof(page), IBV_ACCESS_LOCAL_WRITE));
	CHECK_EQ(errno, EOPNOTSUPP);

	importer_data(sock, ictx, ipd, imr, &h);

	/* the exporter takes the PD over; then the importer lets go */
	REQUIRE(write(sock, &own_handle, sizeof(own_handle)) ==
		(ssize_t)sizeof(own_handle));
	/* the PD stays in the context for the exporter to free */
	ibv_unimport_pd(own);
	ibv_unimport_mr(imr);
	ibv_unimport_pd(ipd);
	CHECK_RC(ibv_close_device(ictx), 0);
	close(sock);
	return check_finish();
}

/* An exporter that goes away while its context is imported. */
static int short_exporter(int sock)
{
	struct handles h;
	struct ibv_context *ctx = fx_open();
	char c;

	memset(&h, 0, sizeof(h));
	h.ncv = ctx->num_comp_vectors;
	REQUIRE(send_fd(sock, ctx->cmd_fd, &h, sizeof(h)) == 0);
	REQUIRE(read(sock, &c, 1) == 1);
	/* exit with everything open: the kernel lets go of it all */
	_exit(0);
}

static pid_t spawn(const char *self, const char *mode, int sock)
{
	char arg[16];
	pid_t pid;

	snprintf(arg, sizeof(arg), "%d", sock);
	pid = fork();
	if (!pid) {
		execl("/proc/self/exe", self, mode, arg, (char *)NULL);
		_exit(127);
	}
	return pid;
}

static void test_exporter_gone(const char *self)
{
	struct ibv_device_attr a;
	struct ibv_context *ictx;
	struct handles h;
	int sv[2], fd, status;
	pid_t pid;

	SECTION("the exporter exits: the import's commands fail with EIO");
	REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
	REQUIRE(fcntl(sv[1], F_SETFD, 0) == 0);
	pid = spawn(self, "--short-exporter", sv[1]);
	REQUIRE(pid > 0);
	close(sv[1]);
	fd = recv_fd(sv[0], &h, sizeof(h));
	REQUIRE(fd >= 0);
	ictx = ibv_import_device(fd);
	REQUIRE(ictx);
	CHECK_EQ(ictx->num_comp_vectors, h.ncv);
	CHECK_RC(ibv_query_device(ictx, &a), 0);
	REQUIRE(write(sv[0], "x", 1) == 1);
	REQUIRE(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_RC(ibv_query_device(ictx, &a), EIO);
	errno = 0;
	CHECK(!ibv_alloc_pd(ictx));
	CHECK_EQ(errno, EIO);
	CHECK_RC(ibv_close_device(ictx), 0);
	close(sv[0]);
}

/* The exporter's end of the data step: its QP, CQ and destination. */
struct peer {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *dst;
	size_t len;
};

static void peer_create(struct peer *e, struct ibv_context *ctx,
			struct ibv_pd *pd, struct handles *h)
{
	struct ibv_sge sge;
	struct ibv_recv_wr rwr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad = NULL;

	e->len = 4 * MSG;
	e->dst = calloc(1, e->len);
	REQUIRE(e->dst);
	e->mr = ibv_reg_mr(pd, e->dst, e->len,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	REQUIRE(e->mr);
	e->cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	REQUIRE(e->cq);
	e->qp = rc_qp(pd, e->cq);
	REQUIRE(e->qp);
	REQUIRE_EQ(fx_rc_to_init(e->qp), 0);
	sge = (struct ibv_sge){ .addr = (uintptr_t)e->dst,
				.length = MSG,
				.lkey = e->mr->lkey };
	REQUIRE_EQ(ibv_post_recv(e->qp, &rwr, &bad), 0);
	REQUIRE_EQ(ibv_query_gid(ctx, 1, 1, &h->gid), 0);
	h->dst = (uintptr_t)e->dst;
	h->dst_rkey = e->mr->rkey;
	h->qpn = e->qp->qp_num;
}

/* The importer's SEND and WRITE, checked where they landed. */
static void peer_check(struct peer *e, int sock, const uint8_t *src)
{
	struct fx_qp_opts o;
	union ibv_gid gid;
	struct ibv_wc wc = { 0 };
	uint32_t qpn = 0;
	size_t zero = 0;
	char c = 0;

	SECTION("exporter: our QP connected to the importer's");
	REQUIRE(read(sock, &qpn, sizeof(qpn)) == (ssize_t)sizeof(qpn));
	/* the importer's rings, as our device reaches them */
	CHECK(maps_with("ionic-sim-pin") > 0);
	fx_qp_opts_default(&o, IBV_QPT_RC);
	/* both QPs are on our NIC: the path is to ourselves */
	REQUIRE_EQ(ibv_query_gid(e->qp->context, 1, 1, &gid), 0);
	REQUIRE_EQ(fx_rc_to_rtr(e->qp, &gid, qpn, &o), 0);
	REQUIRE_EQ(fx_rc_to_rts(e->qp, &o), 0);
	REQUIRE(write(sock, "g", 1) == 1);

	SECTION("exporter: the WRITE and the SEND in our buffer");
	CHECK_EQ(fx_poll(e->cq, &wc, 1, 10000), 1);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK_EQ(wc.opcode, IBV_WC_RECV);
	CHECK_EQ(wc.byte_len, MSG);
	CHECK_EQ(wc.wr_id, 7);
	CHECK(read(sock, &c, 1) == 1 && c == 'd');
	CHECK(!memcmp(e->dst, src, MSG));
	CHECK(!memcmp(e->dst + MSG, src + MSG, MSG));
	for (size_t i = 2 * MSG; i < e->len; i++)
		zero += !e->dst[i];
	CHECK_EQ(zero, e->len - 2 * MSG);
	CHECK_EQ(fx_expect_none(e->cq, 100), 0);
	REQUIRE(write(sock, "k", 1) == 1);
}

static void peer_destroy(struct peer *e)
{
	CHECK_RC(ibv_destroy_qp(e->qp), 0);
	CHECK_RC(ibv_destroy_cq(e->cq), 0);
	CHECK_RC(ibv_dereg_mr(e->mr), 0);
	free(e->dst);
}

int main(int argc, char **argv)
{
	const size_t len = 8192;
	struct ibv_device_attr a;
	struct ibv_context *ctx;
	struct ibv_pd *pd, *taken;
	struct ibv_mr *mr, *mr2;
	struct handles h;
	struct peer e;
	uint32_t handle = 0;
	uint8_t *buf;
	int sv[2], status;
	pid_t pid;

	if (argc == 3 && !strcmp(argv[1], "--importer"))
		return importer(atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "--short-exporter"))
		return short_exporter(atoi(argv[2]));

	ctx = fx_open();
	REQUIRE(ibv_query_device(ctx, &a) == 0);
	pd = ibv_alloc_pd(ctx);
	REQUIRE(pd);
	buf = calloc(1, len);
	REQUIRE(buf);
	mr = ibv_reg_mr(pd, buf, len,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	REQUIRE(mr);
	h = (struct handles){ .pd = pd->handle,
			      .mr = mr->handle,
			      .lkey = mr->lkey,
			      .rkey = mr->rkey,
			      .length = len,
			      .ncv = ctx->num_comp_vectors,
			      .vendor_part_id = a.vendor_part_id,
			      .src = (uintptr_t)buf };
	fx_fill(buf, len, 9);
	peer_create(&e, ctx, pd, &h);

	SECTION("exporter: the importer is another program");
	REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
	/* only the importer's end crosses exec */
	REQUIRE(fcntl(sv[1], F_SETFD, 0) == 0);
	pid = spawn(argv[0], "--importer", sv[1]);
	REQUIRE(pid > 0);
	close(sv[1]);
	CHECK_RC(send_fd(sv[0], ctx->cmd_fd, &h, sizeof(h)), 0);
	peer_check(&e, sv[0], buf);

	SECTION("exporter: the importer's PD is in our context");
	CHECK(read(sv[0], &handle, sizeof(handle)) == (ssize_t)sizeof(handle));
	REQUIRE(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* its queues were destroyed: we map none of its rings */
	CHECK_EQ(maps_with("ionic-sim-pin"), 0);
	/* the PD outlives the importer's close: it belongs to the context */
	taken = ibv_import_pd(ctx, handle);
	REQUIRE(taken);
	mr2 = ibv_reg_mr(taken, buf, len, IBV_ACCESS_LOCAL_WRITE);
	CHECK(mr2 != NULL);
	if (mr2)
		CHECK_RC(ibv_dereg_mr(mr2), 0);
	CHECK_RC(ibv_dealloc_pd(taken), 0);

	SECTION("exporter: the context is ours alone again");
	peer_destroy(&e);
	CHECK_RC(ibv_dereg_mr(mr), 0);
	CHECK_RC(ibv_dealloc_pd(pd), 0);
	CHECK_RC(ibv_close_device(ctx), 0);
	close(sv[0]);
	free(buf);

	test_exporter_gone(argv[0]);
	return check_finish();
}
