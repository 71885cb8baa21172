// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Device fds in SCM_RIGHTS messages (docs/kernel-contract.md §21.1).  A
 * device fd is a /dev/null descriptor that only this process's model
 * knows, so sending one as it is would give the receiver a plain
 * /dev/null.  Instead the message carries a socket to the model
 * (ik_file_export), and a receiving process under ionic-sim turns such a
 * socket back into a device fd of the same number (ik_import_open), whose
 * commands its model forwards.
 *
 * Costs nothing to messages without control data, and to processes that
 * have no device fd for sending.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../common/trace.h"
#include "shim.h"

int (*ishim_model_start)(void);

typedef ssize_t (*sendmsg_fn)(int, const struct msghdr *, int);
typedef int (*fcntl_fn)(int, int, ...);
typedef int (*open_fn)(const char *, int, ...);
typedef int (*dup3_fn)(int, int, int);
typedef int (*close_fn)(int);

static int real_close(int fd)
{
	return ISHIM_REAL(close, close_fn)(fd);
}

/* The descriptors of an SCM_RIGHTS header and how many. */
static int *rights(struct cmsghdr *c, size_t *n)
{
	if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
	    c->cmsg_len < CMSG_LEN(0)) {
		*n = 0;
		return NULL;
	}
	*n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
	return (int *)(void *)CMSG_DATA(c);
}

static bool carries_device_fd(const struct msghdr *msg)
{
	struct cmsghdr *c;

	for (c = CMSG_FIRSTHDR(msg); c;
	     c = CMSG_NXTHDR((struct msghdr *)msg, c)) {
		size_t n;
		int *fds = rights(c, &n);

		for (size_t i = 0; i < n; i++) {
			int fd;

			memcpy(&fd, fds + i, sizeof(fd));
			if (ishim_fd_file(fd))
				return true;
		}
	}
	return false;
}

/* An export of device fd 'fd' (its file 'f'): the socket to send, or -1
 * with errno. */
static int export_one(int fd, struct ik_file *f)
{
	int hold, ex;

	hold = ISHIM_REAL(fcntl, fcntl_fn)(fd, F_DUPFD_CLOEXEC, 0);
	if (hold < 0)
		return -1;
	ishim_fd_track_dup(fd, hold);
	ex = ik_file_export(f, hold);
	if (ex < 0) {
		ishim_fd_untrack(hold);
		real_close(hold);
		errno = -ex;
		return -1;
	}
	return ex;
}

ssize_t ishim_scm_sendmsg(int sock, const struct msghdr *msg, int flags)
{
	struct msghdr m = *msg;
	struct cmsghdr *c;
	int *sent = NULL;
	size_t nsent = 0;
	ssize_t rc = -1;
	int err = 0;

	if (!msg->msg_control || !msg->msg_controllen ||
	    !__atomic_load_n(&ishim_fds_tracked, __ATOMIC_RELAXED) ||
	    !carries_device_fd(msg))
		return ISHIM_REAL(sendmsg, sendmsg_fn)(sock, msg, flags);
	/* our copy of the control data, device fds replaced */
	m.msg_control = malloc(msg->msg_controllen);
	sent = calloc(msg->msg_controllen / sizeof(int) + 1, sizeof(int));
	if (!m.msg_control || !sent) {
		err = ENOBUFS;
		goto out;
	}
	memcpy(m.msg_control, msg->msg_control, msg->msg_controllen);
	for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		size_t n;
		int *fds = rights(c, &n);

		for (size_t i = 0; i < n; i++) {
			struct ik_file *f;
			int fd, ex;

			memcpy(&fd, fds + i, sizeof(fd));
			f = ishim_fd_file(fd);
			if (!f)
				continue;
			ex = export_one(fd, f);
			if (ex < 0) {
				err = errno;
				goto out;
			}
			sent[nsent++] = ex;
			memcpy(fds + i, &ex, sizeof(ex));
			if (isim_trace_enabled())
				isim_trace(
					ISIM_TR_FD,
					"sendmsg uverbs fd=%d as export fd=%d",
					fd, ex);
		}
	}
	rc = ISHIM_REAL(sendmsg, sendmsg_fn)(sock, &m, flags);
	err = rc < 0 ? errno : 0;
out:
	/* the receiver has its own descriptors of what was sent; a message
	 * not sent leaves the exports unreferenced, which ends them */
	for (size_t i = 0; i < nsent; i++)
		real_close(sent[i]);
	free(sent);
	free(m.msg_control);
	if (err)
		errno = err;
	return err ? -1 : rc;
}

/* A received export socket becomes a device fd of the same number. */
static void import_one(int fd, int flags)
{
	struct ik_file *f;
	int sock, nul, rc;

	/* no model here (a unit test of the layers without the preload's
	 * start-up): it stays what it is */
	if (!ishim_model_start || ishim_model_start())
		return;
	sock = ISHIM_REAL(fcntl, fcntl_fn)(fd, F_DUPFD_CLOEXEC, 0);
	if (sock < 0)
		return;
	nul = ISHIM_REAL(open, open_fn)("/dev/null", O_RDWR | O_CLOEXEC);
	if (nul < 0) {
		real_close(sock);
		return;
	}
	/* the application's number now names a device fd (1:3) */
	rc = ISHIM_REAL(dup3, dup3_fn)(
		nul, fd, (flags & MSG_CMSG_CLOEXEC) ? O_CLOEXEC : 0);
	real_close(nul);
	if (rc < 0) {
		real_close(sock);
		return;
	}
	rc = ik_import_open(sock, &f);
	if (!rc && ishim_fd_track_new(fd, f) < 0)
		ik_file_release(f);
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_FD, "recvmsg export as uverbs fd=%d rc=%d",
			   fd, rc);
}

void ishim_scm_received(struct msghdr *msg, int flags)
{
	struct cmsghdr *c;

	if (!msg->msg_control || msg->msg_controllen < sizeof(struct cmsghdr))
		return;
	for (c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		size_t n;
		int *fds = rights(c, &n);

		for (size_t i = 0; i < n; i++) {
			int fd;

			memcpy(&fd, fds + i, sizeof(fd));
			if (ik_import_probe(fd))
				import_one(fd, flags);
		}
	}
}
