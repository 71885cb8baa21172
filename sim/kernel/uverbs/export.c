// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: serving another process's commands on one of
 * our open files (docs/kernel-contract.md §21.1).  When the application
 * passes a device fd in SCM_RIGHTS, the platform passes instead the
 * descriptor ik_file_export() returns, one end of a socket pair; a thread
 * of ours serves what arrives on the other end as this process's kernel
 * would serve the importer on a real node: the commands run on the same
 * ucontext, with the importer's memory as user memory (process_vm_readv
 * and _writev on its pid), descriptors they create sent back to it.
 *
 * The thread ends when the importer closes its last descriptor of the
 * export (or exits); it then closes the tracked duplicate it was handed,
 * which releases the file if the application closed its own meanwhile,
 * as the kernel releases a file on its last reference.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "../../common/sys.h"
#include "../ik.h"
#include "../kpriv.h"
#include "xproc.h"

_Thread_local struct ik_caller *ik_caller;
int ik_xp_answer_ms = 10000;

struct xport {
	struct ik_file *f;
	int hold; /* tracked duplicate of the exported fd */
	int sock;
	struct ik_caller caller;
	struct xport *next;
};

/* The exports being served, for a fork child to drop its copies. */
static struct xport *exports;
static pthread_mutex_t exports_lock = PTHREAD_MUTEX_INITIALIZER;

static void export_unlink(struct xport *x)
{
	pthread_mutex_lock(&exports_lock);
	for (struct xport **pp = &exports; *pp; pp = &(*pp)->next) {
		if (*pp == x) {
			*pp = x->next;
			break;
		}
	}
	pthread_mutex_unlock(&exports_lock);
}

/*
 * In a fork() child: the threads serving the exports stayed in the
 * parent.  The child's copies of their sockets would keep an importer's
 * command waiting for an answer no thread gives once the parent is gone,
 * so they are closed, and the duplicates of the (now dead) files let go.
 */
void ik_export_atfork_child(void)
{
	struct xport *x = exports;

	pthread_mutex_init(&exports_lock, NULL);
	exports = NULL;
	while (x) {
		struct xport *next = x->next;

		isim_sys_close(x->sock);
		isim_sys_close(x->hold);
		free(x->caller.held);
		free(x);
		x = next;
	}
}

int ik_xp_send(int sock, const struct ixp_msg *m, int fd)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} cbuf;
	struct iovec iov = { .iov_base = (void *)m, .iov_len = sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fd >= 0) {
		memset(&cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf.buf;
		mh.msg_controllen = sizeof(cbuf.buf);
		cbuf.h.cmsg_level = SOL_SOCKET;
		cbuf.h.cmsg_type = SCM_RIGHTS;
		cbuf.h.cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(&cbuf.h), &fd, sizeof(int));
	}
	return isim_sys_sendmsg(sock, &mh, MSG_NOSIGNAL) ==
			       (ssize_t)sizeof(*m) ?
		       0 :
		       -EPIPE;
}

int ik_xp_recv(int sock, struct ixp_msg *m, pid_t *pid, int *fd)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(struct ucred)) +
			 CMSG_SPACE(4 * sizeof(int))];
	} cbuf;
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = cbuf.buf,
			     .msg_controllen = sizeof(cbuf.buf) };
	struct cmsghdr *c;
	int keep = -1;
	ssize_t n;

	do
		n = isim_sys_recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	for (c = n >= 0 ? CMSG_FIRSTHDR(&mh) : NULL; c;
	     c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != SOL_SOCKET)
			continue;
		if (c->cmsg_type == SCM_CREDENTIALS && pid &&
		    c->cmsg_len >= CMSG_LEN(sizeof(struct ucred))) {
			struct ucred uc;

			memcpy(&uc, CMSG_DATA(c), sizeof(uc));
			*pid = uc.pid;
		} else if (c->cmsg_type == SCM_RIGHTS) {
			/* the first descriptor if asked for; the others (or
			 * all: an importer passes us nothing) are dropped */
			size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			for (size_t i = 0; i < k; i++) {
				int d;

				memcpy(&d, CMSG_DATA(c) + i * sizeof(int),
				       sizeof(d));
				if (fd && keep < 0)
					keep = d;
				else
					isim_sys_close(d);
			}
		}
	}
	if (n != (ssize_t)sizeof(*m) || (mh.msg_flags & MSG_TRUNC)) {
		if (keep >= 0)
			isim_sys_close(keep);
		keep = -1;
		n = -1;
	}
	if (fd)
		*fd = keep;
	return n < 0 ? -EPIPE : 0;
}

/*
 * The importer's answer to what a command asked of it mid-command: the
 * next message that is not a doorbell or a close.  Those its other
 * threads sent meanwhile are held and applied once the command is done,
 * so a command never runs device work (or frees a channel) in its
 * middle.
 */
static int caller_await(struct ik_caller *c, struct ixp_msg *m, int *fd)
{
	for (;;) {
		struct pollfd p = { .fd = c->sock, .events = POLLIN };
		int rc;

		/* the command holds the NIC: an importer that never answers
		 * (stopped, or hostile) fails it instead of stalling the
		 * device for good; a late answer is dropped (serve) */
		do
			rc = poll(&p, 1, ik_xp_answer_ms);
		while (rc < 0 && errno == EINTR);
		if (rc == 0)
			return -ETIMEDOUT;
		rc = ik_xp_recv(c->sock, m, NULL, fd);

		if (rc || (m->op != IXP_DOORBELL && m->op != IXP_CLOSE))
			return rc;
		if (fd && *fd >= 0)
			isim_sys_close(*fd);
		if (c->nheld == c->held_cap) {
			unsigned int n = c->held_cap ? 2 * c->held_cap : 16;
			struct ixp_msg *t = realloc(c->held, n * sizeof(*t));

			if (!t)
				continue; /* a store lost as on a full bus */
			c->held = t;
			c->held_cap = n;
		}
		c->held[c->nheld++] = *m;
	}
}

/* The importer's FD answer: the number (or a negative errno) and, for a
 * PIN, the descriptor that came with it. */
static int caller_ask(struct ik_caller *c, const struct ixp_msg *q, int qfd,
		      int *fd)
{
	struct ixp_msg m;
	int rc;

	rc = ik_xp_send(c->sock, q, qfd);
	if (qfd >= 0)
		isim_sys_close(qfd);
	if (rc)
		return rc;
	rc = caller_await(c, &m, fd);
	if (rc)
		return rc;
	if (m.op != IXP_FD)
		rc = -EPIPE;
	else if (m.ret < 0)
		rc = m.ret < -4095 ? -EINVAL : (int)m.ret;
	else
		rc = m.a <= INT32_MAX ? (int)m.a : -EINVAL;
	if (rc < 0 && fd && *fd >= 0) {
		isim_sys_close(*fd);
		*fd = -1;
	}
	return rc;
}

static int fd_to_caller(int fd, uint64_t kind)
{
	struct ixp_msg m = { .op = IXP_INSTALL, .b = kind };

	if (!ik_caller || fd < 0)
		return fd;
	return caller_ask(ik_caller, &m, fd, NULL);
}

int ik_fd_to_caller(int fd)
{
	return fd_to_caller(fd, 0);
}

int ik_channel_to_caller(int fd)
{
	return fd_to_caller(fd, 1);
}

int ik_caller_pin(uint64_t uaddr, uint64_t len)
{
	struct ixp_msg m = { .op = IXP_PIN, .a = uaddr, .b = len };
	int fd = -1, rc;

	if (!ik_caller)
		return -EINVAL;
	rc = caller_ask(ik_caller, &m, -1, &fd);
	if (rc < 0)
		return rc;
	return fd >= 0 ? fd : -EPIPE;
}

/* A store of the importer to its doorbell page, as a store to our page
 * of the file: the device checks it like any other. */
static void doorbell_apply(struct xport *x, const struct ixp_msg *m)
{
	struct ik_nic *nic = x->f->nic;
	struct isim_mmio_store st = { .offset = (uint32_t)m->a,
				      .size = (uint32_t)m->c,
				      .value = m->b };

	if (m->a >= IK_PAGE_SIZE || m->c > sizeof(st.value))
		return;
	ik_nic_lock(nic);
	if (!x->f->dead && x->f->has_ucontext) {
		st.page = x->f->dbid;
		idev_mmio_inject(nic->dev, &st);
	}
	ik_nic_unlock(nic);
}

/* The importer closed a channel of ours it had (CREATE_COMP_CHANNEL). */
static void channel_closed(struct xport *x, const struct ixp_msg *m)
{
	if (m->a <= INT32_MAX && !x->f->dead)
		ik_file_channel_closed(x->f, (int)m->a);
}

static void messages_held(struct xport *x)
{
	for (unsigned int i = 0; i < x->caller.nheld; i++) {
		if (x->caller.held[i].op == IXP_CLOSE)
			channel_closed(x, &x->caller.held[i]);
		else
			doorbell_apply(x, &x->caller.held[i]);
	}
	x->caller.nheld = 0;
}

static void serve_mmap(struct xport *x, const struct ixp_msg *q)
{
	struct ixp_msg r = { .op = IXP_REPLY };
	struct ik_mmap_desc d = { .fd = -1 };

	if (q->a > SIZE_MAX || q->b > INT32_MAX || q->c > INT32_MAX ||
	    q->d > INT64_MAX)
		r.ret = -EINVAL;
	else
		r.ret = ik_file_mmap_desc(x->f, (size_t)q->a, (int)q->b,
					  (int)q->c, (off_t)q->d, &d);
	if (!r.ret) {
		r.a = (uint64_t)d.kind;
		r.b = d.tag;
		r.c = (uint64_t)d.off;
	}
	ik_xp_send(x->sock, &r, r.ret ? -1 : d.fd);
}

static void *serve(void *arg)
{
	struct xport *x = arg;
	struct ixp_msg q;
	pid_t pid = 0;

	/* the first message says who the importer is; the kernel vouches
	 * for the pid in its credentials */
	if (ik_xp_recv(x->sock, &q, &pid, NULL) || q.op != IXP_HELLO ||
	    pid <= 0)
		goto out;
	x->caller.pid = pid;
	x->caller.sock = x->sock;
	while (!ik_xp_recv(x->sock, &q, NULL, NULL)) {
		struct ixp_msg r = { .op = IXP_REPLY };

		ik_caller = &x->caller;
		switch (q.op) {
		case IXP_WRITE:
			r.ret = ik_file_write(x->f, (void *)(uintptr_t)q.a,
					      (size_t)q.b);
			break;
		case IXP_IOCTL:
			r.ret = ik_file_ioctl(x->f, (unsigned long)q.a,
					      (void *)(uintptr_t)q.b);
			break;
		case IXP_MMAP:
			ik_caller = NULL;
			serve_mmap(x, &q);
			continue;
		case IXP_DOORBELL:
			ik_caller = NULL;
			doorbell_apply(x, &q);
			continue;
		case IXP_CLOSE:
			ik_caller = NULL;
			channel_closed(x, &q);
			continue;
		case IXP_FD:
			/* a late answer to a command that gave up waiting:
			 * no request, no reply (its descriptor is closed) */
			ik_caller = NULL;
			continue;
		default:
			r.ret = -EINVAL;
			break;
		}
		ik_caller = NULL;
		messages_held(x);
		if (ik_xp_send(x->sock, &r, -1))
			break;
	}
out:
	ik_caller = NULL;
	free(x->caller.held);
	export_unlink(x);
	isim_sys_close(x->sock);
	isim_sys_close(x->hold);
	free(x);
	return NULL;
}

int ik_file_export(struct ik_file *f, int hold)
{
	static atomic_uint seq;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct xport *x;
	pthread_attr_t at;
	pthread_t th;
	int sv[2], one = 1, n, rc;

	if (f->imp || f->dead)
		return -EINVAL; /* a proxy is not passed on (yet) */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	/* the name tells the receiving process's platform what it got */
	n = snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1,
		     IXP_NAME_PREFIX "%d/%u", (int)getpid(),
		     atomic_fetch_add(&seq, 1));
	if (isim_sys_bind(sv[0], (struct sockaddr *)&sa,
			  (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				      1 + n)) ||
	    isim_sys_setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &one,
				sizeof(one))) {
		rc = -errno;
		goto fail;
	}
	x = calloc(1, sizeof(*x));
	if (!x) {
		rc = -ENOMEM;
		goto fail;
	}
	x->f = f;
	x->hold = hold;
	x->sock = sv[0];
	pthread_mutex_lock(&exports_lock);
	x->next = exports;
	exports = x;
	pthread_mutex_unlock(&exports_lock);
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	rc = -pthread_create(&th, &at, serve, x);
	pthread_attr_destroy(&at);
	if (rc) {
		export_unlink(x);
		free(x);
		goto fail;
	}
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_FD, "export file=%p as fd=%d", (void *)f,
			   sv[1]);
	return sv[1];
fail:
	isim_sys_close(sv[0]);
	isim_sys_close(sv[1]);
	return rc;
}
