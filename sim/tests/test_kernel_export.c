// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: an exported file serving an importer
 * (docs/kernel-contract.md §21.1), both ends in this process.  Through a
 * proxy file of our own export (ik_import_open), a CQ's rings are pinned
 * (moved to shared memory the device reaches at another address of ours)
 * and a completion channel is installed by number; then a hostile
 * importer speaks the protocol on a raw socket: wrong answers to PIN
 * (no seal, too small, not a memfd, an error, no descriptor, another
 * message, none in time), stray and malformed doorbells, unknown
 * requests.  Every one
 * fails its command with an errno or is ignored, nothing stays mapped,
 * and the server lets go of its file when the socket goes.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kernel_fixture.h"

/* Mappings of this process of the memfds pinning moves rings to. */
static int pinned_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, "ionic-sim-pin") != NULL;
	fclose(f);
	return n;
}

/* CREATE_CQ on file 'f' (the fixture's helpers act on F). */
static ssize_t create_cq_on(struct ik_file *f, int channel,
			    struct ionic_cq_req *req, uint32_t *handle)
{
	struct ik_file *saved = F;
	struct ionic_cq_resp dr;
	ssize_t rc;

	F = f;
	rc = create_cq(64, 0, channel, req, handle, &dr);
	F = saved;
	return rc;
}

static ssize_t destroy_cq(struct ik_file *f, uint32_t handle)
{
	struct ib_uverbs_destroy_cq dc = { .cq_handle = handle };

	return leg(f, IB_USER_VERBS_CMD_DESTROY_CQ, &dc, sizeof(dc), NULL, 0,
		   8);
}

/* An export of F whose server closes 'hold[1]' when it is done. */
static int export_F(int hold[2])
{
	int sock;

	CHECK_RET(pipe2(hold, O_CLOEXEC), 0);
	sock = ik_file_export(F, hold[1]);
	CHECK_MSG(sock >= 0, "export: %d", sock);
	return sock;
}

/* The server let go of the file: its end of the pipe is closed. */
static void export_done(int hold[2])
{
	char c;

	CHECK_RET(read(hold[0], &c, 1), 0);
	close(hold[0]);
}

/* CREATE_COMP_CHANNEL on 'f': the descriptor, ours. */
static int channel_on(struct ik_file *f)
{
	struct ib_uverbs_create_comp_channel core = { 0 };

	CHECK_RET(leg(f, IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL, &core,
		      sizeof(core), NULL, 0, 4),
		  16);
	return (int)((struct ib_uverbs_create_comp_channel_resp *)respbuf)->fd;
}

/* close() of a channel as the platform does it; then a command on 'f',
 * after which the exporter has heard of the close (one socket, in
 * order). */
static void channel_close(struct ik_file *f, int fd)
{
	struct ib_uverbs_query_device core = { 0 };

	ik_fd_closing(fd);
	close(fd);
	CHECK_MSG(leg(f, IB_USER_VERBS_CMD_QUERY_DEVICE, &core, sizeof(core),
		      NULL, 0, sizeof(struct ib_uverbs_query_device_resp)) > 0,
		  "query");
}

static void test_proxy(void)
{
	struct ionic_cq_req req = cq_req();
	struct ik_file *g = NULL;
	uint32_t handle = 0, h2 = 0;
	int hold[2], sock, chan, before;
	unsigned int nch;
	struct ik_cq *cq;

	sock = export_F(hold);
	CHECK_RET(ik_import_open(sock, &g), 0);
	if (!g)
		return;

	/* the rings: ours stay where they are, the device's are our
	 * mapping of the same memory */
	before = pinned_maps();
	CHECK_RET(create_cq_on(g, -1, &req, &handle), 80);
	cq = ik_handle_get(F, handle, IK_UOBJ_CQ);
	CHECK_MSG(cq != NULL, "the CQ is the exported file's");
	for (int i = 0; cq && i < 2; i++) {
		uint8_t *user = (uint8_t *)(uintptr_t)req.cq[i].addr;

		if (!cq->hw[i].present)
			continue;
		CHECK_MSG(cq->hw[i].ring.addr != user && cq->hw[i].ring.maplen,
			  "ring %d pinned at %p", i,
			  (void *)cq->hw[i].ring.addr);
		user[100] = 0x5a;
		CHECK_MSG(cq->hw[i].ring.addr[100] == 0x5a, "ring %d shared",
			  i);
		cq->hw[i].ring.addr[200] = 0xa5;
		CHECK_MSG(user[200] == 0xa5, "ring %d shared back", i);
	}
	CHECK_MSG(pinned_maps() > before, "pinned: %d", pinned_maps());
	CHECK_RET(destroy_cq(g, handle), 24);

	/* a channel: its read end is installed in the caller, which
	 * names it by its own number; closing it there releases it here,
	 * at once or with the last CQ using it */
	nch = F->nchannels;
	chan = channel_on(g);
	CHECK_MSG(chan >= 0 && fcntl(chan, F_GETFD) >= 0, "channel fd %d",
		  chan);
	CHECK_RET(F->nchannels, nch + 1);
	req = cq_req();
	CHECK_RET(create_cq_on(g, chan, &req, &h2), 80);
	cq = ik_handle_get(F, h2, IK_UOBJ_CQ);
	CHECK_MSG(cq && cq->channel && cq->channel->remote, "remote channel");
	CHECK_RET(create_cq_on(g, chan + 1000, &req, &handle), -EBADF);
	channel_close(g, chan);
	CHECK_RET(F->nchannels, nch + 1);
	CHECK_RET(destroy_cq(g, h2), 24);
	CHECK_RET(F->nchannels, nch);
	chan = channel_on(g);
	CHECK_RET(F->nchannels, nch + 1);
	channel_close(g, chan);
	CHECK_RET(F->nchannels, nch);

	ik_file_release(g);
	export_done(hold);
	/* the device's mappings went with the CQs; ours stay until the
	 * provider would unmap its rings */
	CHECK_MSG(pinned_maps() > before, "ours still mapped");
}

/* Requests of a raw importer (this thread), answers checked. */
static int raw;
static uint8_t cmdbuf[1024];

static void raw_send(uint32_t op, uint64_t a, uint64_t b, uint64_t c,
		     int64_t ret, int fd)
{
	struct ixp_msg m = { .op = op, .a = a, .b = b, .c = c, .ret = ret };

	CHECK_RET(ik_xp_send(raw, &m, fd), 0);
}

/* Send CREATE_CQ; the first message back (a PIN, or the REPLY). */
static struct ixp_msg raw_create_cq(struct ionic_cq_req *req)
{
	struct ib_uverbs_create_cq core = { .user_handle = 7,
					    .cqe = 64,
					    .comp_channel = -1 };
	struct ixp_msg m = { 0 };
	size_t n;

	n = leg_build(cmdbuf, IB_USER_VERBS_CMD_CREATE_CQ, &core, sizeof(core),
		      req, sizeof(*req), 8 + sizeof(struct ionic_cq_resp));
	raw_send(IXP_WRITE, (uintptr_t)cmdbuf, n, 0, 0, -1);
	CHECK_RET(ik_xp_recv(raw, &m, NULL, NULL), 0);
	return m;
}

static int64_t raw_reply(void)
{
	struct ixp_msg m = { 0 };

	CHECK_RET(ik_xp_recv(raw, &m, NULL, NULL), 0);
	CHECK_MSG(m.op == IXP_REPLY, "op %u", m.op);
	return m.ret;
}

/* A memfd of 'len' bytes, sealed against shrinking or not. */
static int memfd(size_t len, bool sealed)
{
	int fd = memfd_create("ionic-sim-pin", MFD_ALLOW_SEALING);

	CHECK_MSG(fd >= 0 && !ftruncate(fd, (off_t)len), "memfd");
	if (sealed)
		CHECK_RET(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	return fd;
}

static void test_hostile(void)
{
	struct ionic_cq_req req = cq_req();
	int hold[2], fd, before = pinned_maps();
	uint32_t cqs = kx_dev_stats().cqs, handle;
	struct ixp_msg m;
	int64_t rc;

	raw = export_F(hold);
	raw_send(IXP_HELLO, 0, 0, 0, 0, -1);

	/* wrong answers to the PIN: the command fails, nothing stays */
	for (int bad = 0; bad < 7; bad++) {
		m = raw_create_cq(&req);
		CHECK_MSG(m.op == IXP_PIN && m.a == req.cq[0].addr &&
				  m.b == req.cq[0].size,
			  "PIN %u 0x%llx %llu", m.op, (unsigned long long)m.a,
			  (unsigned long long)m.b);
		/* doorbells meanwhile are held, whatever they hold */
		raw_send(IXP_DOORBELL, 0x18, ~0ull, 8, 0, -1);
		raw_send(IXP_DOORBELL, 1ull << 40, 0, 8, 0, -1);
		raw_send(IXP_DOORBELL, 8, 0, 64, 0, -1);
		switch (bad) {
		case 0: /* not sealed */
			fd = memfd(m.b, false);
			raw_send(IXP_FD, 0, 0, 0, 0, fd);
			close(fd);
			rc = -EFAULT;
			break;
		case 1: /* sealed, but smaller than the range */
			fd = memfd(m.b / 2, true);
			raw_send(IXP_FD, 0, 0, 0, 0, fd);
			close(fd);
			rc = -EFAULT;
			break;
		case 2: /* not a memfd */
			fd = open("/dev/null", O_RDWR | O_CLOEXEC);
			raw_send(IXP_FD, 0, 0, 0, 0, fd);
			close(fd);
			rc = -EFAULT;
			break;
		case 3: /* an error of ours */
			raw_send(IXP_FD, 0, 0, 0, -ENOMEM, -1);
			rc = -ENOMEM;
			break;
		case 4: /* an errno out of range */
			raw_send(IXP_FD, 0, 0, 0, -100000, -1);
			rc = -EINVAL;
			break;
		case 5: /* no descriptor */
			raw_send(IXP_FD, 5, 0, 0, 0, -1);
			rc = -EPIPE;
			break;
		default: /* another message */
			raw_send(IXP_REPLY, 0, 0, 0, 0, -1);
			rc = -EPIPE;
			break;
		}
		CHECK_RET(raw_reply(), rc);
		CHECK_RET(kx_dev_stats().cqs, cqs);
		CHECK_RET(pinned_maps(), before);
	}

	/* no answer: the command gives up, the late answer is dropped and
	 * the conversation goes on in order */
	ik_xp_answer_ms = 200;
	m = raw_create_cq(&req);
	CHECK_MSG(m.op == IXP_PIN, "PIN %u", m.op);
	CHECK_RET(raw_reply(), -ETIMEDOUT);
	fd = memfd(m.b, true);
	raw_send(IXP_FD, 0, 0, 0, 0, fd);
	close(fd);
	ik_xp_answer_ms = 10000;
	CHECK_RET(kx_dev_stats().cqs, cqs);
	CHECK_RET(pinned_maps(), before);

	/* right answers: the CQ exists, its rings mapped here */
	m = raw_create_cq(&req);
	for (int i = 0; i < 2 && m.op == IXP_PIN; i++) {
		fd = memfd(m.b, true);
		raw_send(IXP_FD, 0, 0, 0, 0, fd);
		close(fd);
		CHECK_RET(ik_xp_recv(raw, &m, NULL, NULL), 0);
	}
	CHECK_MSG(m.op == IXP_REPLY && m.ret > 0, "op %u ret %lld", m.op,
		  (long long)m.ret);
	handle = ((struct ib_uverbs_create_cq_resp *)respbuf)->cq_handle;
	CHECK_MSG(kx_dev_stats().cqs > cqs, "CQ created");
	CHECK_MSG(pinned_maps() > before, "rings mapped");

	/* stray doorbells, unknown requests: ignored, refused */
	raw_send(IXP_DOORBELL, 0, 0, 8, 0, -1);
	raw_send(IXP_DOORBELL, 4095, ~0ull, 1, 0, -1);
	raw_send(IXP_DOORBELL, ~0ull, ~0ull, ~0ull, 0, -1);
	/* an answer nothing waits for gets no reply */
	fd = memfd(4096, true);
	raw_send(IXP_FD, 0, 0, 0, 0, fd);
	close(fd);
	raw_send(99, 0, 0, 0, 0, -1);
	CHECK_RET(raw_reply(), -EINVAL);
	/* a message of another size ends the conversation */
	CHECK_RET(send(raw, "x", 1, MSG_NOSIGNAL), 1);
	export_done(hold);
	close(raw);

	/* the CQ stays with the file (as on a real node): destroyed here,
	 * its mappings go */
	CHECK_RET(destroy_cq(F, handle), 24);
	CHECK_RET(kx_dev_stats().cqs, cqs);
	CHECK_RET(pinned_maps(), before);
}

int main(void)
{
	kx_open(false);
	test_proxy();
	test_hostile();
	return kx_finish();
}
