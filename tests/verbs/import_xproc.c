// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * A second process imports the first one's device fd, passed over a unix
 * socket (SCM_RIGHTS), through ionic-sim (docs/kernel-contract.md §21.1).
 * The exporter forks and execs this program as the importer, sends it the
 * command fd and the handles of a PD and an MR; the importer imports the
 * device, the PD and the MR, queries the device, the port and the clock,
 * and allocates a PD of the shared context, which the exporter then uses
 * as its own: one kernel ucontext behind both descriptors.  Queues and
 * MRs of the importer's own memory are refused with EOPNOTSUPP (not yet
 * emulated); the test says so, so it changes when they are.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixture.h"

struct handles {
	uint32_t pd, mr, lkey, rkey;
	uint64_t length;
	int32_t ncv;
	uint32_t vendor_part_id;
};

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

	SECTION("importer: its own memory is not the device's yet");
	errno = 0;
	CHECK(!ibv_reg_mr(ipd, page, sizeof(page), IBV_ACCESS_LOCAL_WRITE));
	CHECK_EQ(errno, EOPNOTSUPP);
	errno = 0;
	CHECK(!ibv_create_cq(ictx, 16, NULL, NULL, 0));
	CHECK_EQ(errno, EOPNOTSUPP);

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

int main(int argc, char **argv)
{
	const size_t len = 8192;
	struct ibv_device_attr a;
	struct ibv_context *ctx;
	struct ibv_pd *pd, *taken;
	struct ibv_mr *mr, *mr2;
	struct handles h;
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
			      .vendor_part_id = a.vendor_part_id };

	SECTION("exporter: the importer is another program");
	REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
	/* only the importer's end crosses exec */
	REQUIRE(fcntl(sv[1], F_SETFD, 0) == 0);
	pid = spawn(argv[0], "--importer", sv[1]);
	REQUIRE(pid > 0);
	close(sv[1]);
	CHECK_RC(send_fd(sv[0], ctx->cmd_fd, &h, sizeof(h)), 0);

	SECTION("exporter: the importer's PD is in our context");
	CHECK(read(sv[0], &handle, sizeof(handle)) == (ssize_t)sizeof(handle));
	REQUIRE(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* the PD outlives the importer's close: it belongs to the context */
	taken = ibv_import_pd(ctx, handle);
	REQUIRE(taken);
	mr2 = ibv_reg_mr(taken, buf, len, IBV_ACCESS_LOCAL_WRITE);
	CHECK(mr2 != NULL);
	if (mr2)
		CHECK_RC(ibv_dereg_mr(mr2), 0);
	CHECK_RC(ibv_dealloc_pd(taken), 0);

	SECTION("exporter: the context is ours alone again");
	CHECK_RC(ibv_dereg_mr(mr), 0);
	CHECK_RC(ibv_dealloc_pd(pd), 0);
	CHECK_RC(ibv_close_device(ctx), 0);
	close(sv[0]);
	free(buf);

	test_exporter_gone(argv[0]);
	return check_finish();
}
