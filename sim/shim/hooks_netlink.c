// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Netlink sockets the emulated kernel answers: NETLINK_RDMA
 * (docs/kernel-contract.md §19), and NETLINK_ROUTE, where the host
 * kernel's answers are relayed with the NIC's network interface added
 * (§20).  The application's descriptor is one end
 * of an AF_UNIX SOCK_SEQPACKET pair (message boundaries, MSG_PEEK and
 * MSG_TRUNC behave as on a netlink socket; poll() works unmodified); the
 * shim keeps the other end.  A request is answered synchronously inside
 * send, as the kernel's netlink_unicast_kernel does: the replies are
 * queued on our end before send returns.  Replies that do not fit in the
 * socket buffer wait in a list and follow as the application reads, the
 * way a kernel dump continues.
 *
 * Not emulated: dup() of such a socket (the copy is an unanswered unix
 * socket), RDMA multicast groups (accepted, never delivered to).  A
 * route socket that joins multicast groups (ip monitor) becomes the
 * host's socket itself: notifications cannot be merged.
 */
#undef _FORTIFY_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../common/trace.h"
#include "shim.h"

#ifndef NETLINK_RDMA
#define NETLINK_RDMA 20
#endif
#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

struct nl_pending {
	struct nl_pending *next;
	size_t len;
	uint8_t data[];
};

struct nl_sock {
	int fd; /* the application's end */
	int peer; /* ours */
	int real; /* NETLINK_ROUTE: the host kernel's socket we proxy */
	int proto;
	bool bound;
	struct ik_nl_sock k;
	struct nl_pending *head, *tail;
};

typedef int (*socket_fn)(int, int, int);
typedef int (*socketpair_fn)(int, int, int, int[2]);
typedef int (*bind_fn)(int, const struct sockaddr *, socklen_t);
typedef int (*getsockname_fn)(int, struct sockaddr *, socklen_t *);
typedef int (*setsockopt_fn)(int, int, int, const void *, socklen_t);
typedef int (*getsockopt_fn)(int, int, int, void *, socklen_t *);
typedef ssize_t (*send_fn)(int, const void *, size_t, int);
typedef ssize_t (*sendto_fn)(int, const void *, size_t, int,
			     const struct sockaddr *, socklen_t);
typedef ssize_t (*sendmsg_fn)(int, const struct msghdr *, int);
typedef ssize_t (*recvmsg_fn)(int, struct msghdr *, int);
typedef ssize_t (*recvfrom_fn)(int, void *, size_t, int, struct sockaddr *,
			       socklen_t *);
typedef ssize_t (*recv_fn)(int, void *, size_t, int);
typedef int (*close_fn)(int);

int ishim_nl_socks;
static pthread_mutex_t nl_lock = PTHREAD_MUTEX_INITIALIZER;
static struct nl_sock **socks;
static unsigned int nsocks;
static uint32_t next_autobind = 0xfffff000u; /* the kernel's rover: -4096 */

static struct nl_sock *find_locked(int fd)
{
	for (unsigned int i = 0; i < nsocks; i++)
		if (socks[i]->fd == fd)
			return socks[i];
	return NULL;
}

bool ishim_nl_is(int fd)
{
	bool found;

	if (fd < 0 || !__atomic_load_n(&ishim_nl_socks, __ATOMIC_RELAXED))
		return false;
	pthread_mutex_lock(&nl_lock);
	found = find_locked(fd) != NULL;
	pthread_mutex_unlock(&nl_lock);
	return found;
}

static bool portid_used(uint32_t portid)
{
	for (unsigned int i = 0; i < nsocks; i++)
		if (socks[i]->bound && socks[i]->k.portid == portid)
			return true;
	return false;
}

/* netlink_autobind: the process id first, then the rover downwards */
static void autobind(struct nl_sock *s)
{
	uint32_t id = (uint32_t)getpid();

	if (s->bound)
		return;
	while (portid_used(id))
		id = next_autobind--;
	s->k.portid = id;
	s->bound = true;
}

/* Move queued replies into the socket while it has room. */
static void pump(struct nl_sock *s)
{
	while (s->head) {
		struct nl_pending *p = s->head;

		if (ISHIM_REAL(send, send_fn)(s->peer, p->data, p->len,
					      MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
			return;
		s->head = p->next;
		if (!s->head)
			s->tail = NULL;
		free(p);
	}
}

/* Replies of one request, collected without the table lock: the model
 * calls libc (close, open), which comes back through our interposers. */
struct nl_replies {
	struct nl_pending *head, *tail;
};

static int emit(void *ctx, const void *msg, size_t len)
{
	struct nl_replies *q = ctx;
	struct nl_pending *p;

	p = malloc(sizeof(*p) + len);
	if (!p)
		return -ENOMEM; /* the kernel drops what it cannot queue */
	p->next = NULL;
	p->len = len;
	memcpy(p->data, msg, len);
	if (q->tail)
		q->tail->next = p;
	else
		q->head = p;
	q->tail = p;
	return 0;
}

static void free_list(struct nl_pending *p)
{
	while (p) {
		struct nl_pending *n = p->next;

		free(p);
		p = n;
	}
}

/* ---- socket creation and teardown ----------------------------------------- */

static int nl_socket(int type, int protocol)
{
	struct timeval tmo = { .tv_sec = 10 };
	struct nl_sock *s, **t;
	int sv[2], real = -1;

	if (protocol == NETLINK_ROUTE) {
		real = ISHIM_REAL(socket, socket_fn)(
			AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, protocol);
		if (real < 0)
			return -1;
		/* a host that stops answering must not hang the caller */
		ISHIM_REAL(setsockopt, setsockopt_fn)
		(real, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo));
	}
	if (ISHIM_REAL(socketpair, socketpair_fn)(
		    AF_UNIX, SOCK_SEQPACKET | (type & SOCK_CLOEXEC), 0, sv)) {
		if (real >= 0)
			ISHIM_REAL(close, close_fn)(real);
		return -1;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		goto nomem;
	s->real = real;
	if ((type & SOCK_NONBLOCK) &&
	    fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK))
		goto nomem;
	/* ours never leaks into an exec'd program */
	fcntl(sv[1], F_SETFD, FD_CLOEXEC);
	s->fd = sv[0];
	s->peer = sv[1];
	s->proto = protocol;
	pthread_mutex_lock(&nl_lock);
	t = realloc(socks, (nsocks + 1) * sizeof(*t));
	if (!t) {
		pthread_mutex_unlock(&nl_lock);
		goto nomem;
	}
	socks = t;
	socks[nsocks++] = s;
	__atomic_store_n(&ishim_nl_socks, (int)nsocks, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&nl_lock);
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_FD, "netlink socket proto=%d fd=%d",
			   protocol, s->fd);
	return s->fd;
nomem:
	free(s);
	ISHIM_REAL(close, close_fn)(sv[0]);
	ISHIM_REAL(close, close_fn)(sv[1]);
	if (real >= 0)
		ISHIM_REAL(close, close_fn)(real);
	errno = ENOMEM;
	return -1;
}

int socket(int domain, int type, int protocol)
{
	if (domain == AF_NETLINK && protocol == NETLINK_RDMA) {
		/* sysfs-only runs: no RDMA netlink, as on kernels without
		 * it (and never the host's: it would report zero devices) */
		if (!ik_nl_rdma_enabled()) {
			errno = EPROTONOSUPPORT;
			return -1;
		}
		return nl_socket(type, protocol);
	}
	if (domain == AF_NETLINK && protocol == NETLINK_ROUTE)
		return nl_socket(type, protocol);
	return ISHIM_REAL(socket, socket_fn)(domain, type, protocol);
}

void ishim_nl_untrack(int fd)
{
	struct nl_sock *s = NULL;

	if (fd < 0 || !__atomic_load_n(&ishim_nl_socks, __ATOMIC_RELAXED) ||
	    ishim_fd_foreign_process())
		return;
	pthread_mutex_lock(&nl_lock);
	for (unsigned int i = 0; i < nsocks; i++) {
		if (socks[i]->fd == fd) {
			s = socks[i];
			socks[i] = socks[--nsocks];
			break;
		}
	}
	__atomic_store_n(&ishim_nl_socks, (int)nsocks, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&nl_lock);
	if (!s)
		return;
	ISHIM_REAL(close, close_fn)(s->peer);
	if (s->real >= 0)
		ISHIM_REAL(close, close_fn)(s->real);
	free_list(s->head);
	free(s);
}

void ishim_nl_atfork_child(void)
{
	/* the table is the parent's copy: both processes now share each
	 * socket pair, as they would share a netlink socket */
	pthread_mutex_init(&nl_lock, NULL);
}

/* ---- NETLINK_ROUTE: the host's answers, plus our interface ------------ */

static int route_fd(int fd)
{
	struct nl_sock *s;
	int real = -1;

	if (!ishim_nl_is(fd))
		return -1;
	pthread_mutex_lock(&nl_lock);
	s = find_locked(fd);
	if (s)
		real = s->real;
	pthread_mutex_unlock(&nl_lock);
	return real;
}

/* Bind the host socket (autobind when 'addr' is NULL and it is not
 * bound yet) and take its port id as ours.  Lock held; 0 or -errno. */
static int route_bind(struct nl_sock *s, const struct sockaddr *addr,
		      socklen_t len)
{
	struct sockaddr_nl a = { .nl_family = AF_NETLINK };
	socklen_t alen = sizeof(a);

	if (!addr) {
		if (s->bound)
			return 0;
		addr = (const struct sockaddr *)&a;
		len = sizeof(a);
	}
	if (ISHIM_REAL(bind, bind_fn)(s->real, addr, len))
		return -errno;
	if (ISHIM_REAL(getsockname, getsockname_fn)(
		    s->real, (struct sockaddr *)&a, &alen) == 0)
		s->k.portid = a.nl_pid;
	s->bound = true;
	return 0;
}

/* A socket that wants notifications becomes the host's socket under
 * the same descriptor number; our interface is then not in it. */
static int route_give_up(int fd, const struct sockaddr *addr, socklen_t len)
{
	int real = route_fd(fd);

	if (real < 0 || dup2(real, fd) < 0)
		return -1;
	/* forget it: our end and the host socket's first number go */
	ishim_nl_untrack(fd);
	if (addr)
		return ISHIM_REAL(bind, bind_fn)(fd, addr, len);
	return 0;
}

/* One request message to the host kernel; its whole answer (until DONE,
 * or the error/ACK we asked for) is queued, our interface's part of a
 * full dump in front of DONE. */
static void route_forward(int real, const struct ik_nl_sock *k,
			  const struct nlmsghdr *req, bool both,
			  struct nl_replies *q)
{
	bool dump = !!(req->nlmsg_flags & NLM_F_DUMP);
	bool want_ack = !!(req->nlmsg_flags & NLM_F_ACK);
	struct nlmsghdr *copy;
	uint8_t *buf;
	int err = 0;

	copy = malloc(req->nlmsg_len);
	buf = malloc(65536);
	if (!copy || !buf) {
		err = -ENOMEM;
		goto out;
	}
	memcpy(copy, req, req->nlmsg_len);
	if (!dump)
		copy->nlmsg_flags |= NLM_F_ACK; /* so we know the end */
	if (ISHIM_REAL(send, send_fn)(real, copy, copy->nlmsg_len, 0) < 0) {
		err = -errno;
		goto out;
	}
	for (;;) {
		ssize_t n = ISHIM_REAL(recv, recv_fn)(real, buf, 65536, 0);
		size_t left = n > 0 ? (size_t)n : 0;
		uint8_t *p = buf;

		if (n < 0) {
			err = -errno;
			goto out;
		}
		while (left >= sizeof(struct nlmsghdr)) {
			struct nlmsghdr h;
			size_t step;

			memcpy(&h, p, sizeof(h));
			if (h.nlmsg_len < sizeof(h) || h.nlmsg_len > left)
				break;
			step = NLMSG_ALIGN(h.nlmsg_len);
			if (h.nlmsg_seq != req->nlmsg_seq) {
				/* not ours: an old answer */
			} else if (h.nlmsg_type == NLMSG_DONE && dump) {
				if (both)
					ik_rtnl_answer(k, req, req->nlmsg_len,
						       false, emit, q);
				emit(q, p, h.nlmsg_len);
				goto out;
			} else if (h.nlmsg_type == NLMSG_ERROR) {
				int32_t e = 0;

				if (h.nlmsg_len >= sizeof(h) + sizeof(e))
					memcpy(&e, p + sizeof(h), sizeof(e));
				if (e || want_ack || dump)
					emit(q, p, h.nlmsg_len);
				goto out;
			} else {
				emit(q, p, h.nlmsg_len);
			}
			if (step >= left)
				break;
			p += step;
			left -= step;
		}
	}
out:
	if (err)
		ik_nl_error(k, req, err, emit, q);
	free(copy);
	free(buf);
}

static void route_request(int real, const struct ik_nl_sock *k, const void *buf,
			  size_t len, struct nl_replies *q)
{
	const uint8_t *p = buf;

	while (len >= sizeof(struct nlmsghdr)) {
		struct nlmsghdr h;
		struct nlmsghdr *msg;
		size_t step;

		memcpy(&h, p, sizeof(h));
		if (h.nlmsg_len < sizeof(h) || h.nlmsg_len > len)
			break;
		msg = malloc(h.nlmsg_len);
		if (!msg)
			break;
		memcpy(msg, p, h.nlmsg_len);
		switch (ik_rtnl_classify(msg, h.nlmsg_len)) {
		case IK_RTNL_OURS:
			ik_rtnl_answer(k, msg, h.nlmsg_len, true, emit, q);
			break;
		case IK_RTNL_BOTH:
			route_forward(real, k, msg, true, q);
			break;
		case IK_RTNL_HOST:
			route_forward(real, k, msg, false, q);
			break;
		}
		free(msg);
		step = NLMSG_ALIGN(h.nlmsg_len);
		if (step >= len)
			break;
		p += step;
		len -= step;
	}
}

/* ---- addressing --------------------------------------------------------- */

int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	struct sockaddr_nl a;
	struct nl_sock *s;
	int rc = 0;

	if (!ishim_nl_is(fd))
		return ISHIM_REAL(bind, bind_fn)(fd, addr, len);
	if (!addr || len < sizeof(a)) {
		errno = EINVAL;
		return -1;
	}
	memcpy(&a, addr, sizeof(a));
	if (a.nl_family != AF_NETLINK) {
		errno = EINVAL;
		return -1;
	}
	if (a.nl_groups && route_fd(fd) >= 0)
		return route_give_up(fd, addr, len);
	pthread_mutex_lock(&nl_lock);
	s = find_locked(fd);
	if (!s) {
		rc = -EBADF;
	} else if (s->real >= 0) {
		rc = route_bind(s, addr, len);
	} else if (s->bound) {
		/* rebinding to the same port is fine, another is not */
		if (a.nl_pid && a.nl_pid != s->k.portid)
			rc = -EINVAL;
	} else if (!a.nl_pid) {
		autobind(s);
	} else if (portid_used(a.nl_pid)) {
		rc = -EADDRINUSE; /* libnl then tries another port */
	} else {
		s->k.portid = a.nl_pid;
		s->bound = true;
	}
	pthread_mutex_unlock(&nl_lock);
	if (rc) {
		errno = -rc;
		return -1;
	}
	return 0;
}

static void fill_name(struct sockaddr *addr, socklen_t *len, uint32_t pid)
{
	struct sockaddr_nl a = { .nl_family = AF_NETLINK, .nl_pid = pid };

	if (!addr || !len)
		return;
	memcpy(addr, &a, *len < sizeof(a) ? *len : sizeof(a));
	*len = sizeof(a);
}

int getsockname(int fd, struct sockaddr *addr, socklen_t *len)
{
	struct nl_sock *s;
	uint32_t pid = 0;

	if (!ishim_nl_is(fd))
		return ISHIM_REAL(getsockname, getsockname_fn)(fd, addr, len);
	pthread_mutex_lock(&nl_lock);
	s = find_locked(fd);
	if (s && s->real >= 0) {
		int real = s->real;

		pthread_mutex_unlock(&nl_lock);
		return ISHIM_REAL(getsockname, getsockname_fn)(real, addr, len);
	}
	if (s && s->bound)
		pid = s->k.portid;
	pthread_mutex_unlock(&nl_lock);
	fill_name(addr, len, pid);
	return 0;
}

int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	struct nl_sock *s;
	int on = 0;

	if (level != SOL_NETLINK || !ishim_nl_is(fd))
		return ISHIM_REAL(setsockopt, setsockopt_fn)(fd, level, name,
							     val, len);
	if (val && len >= sizeof(int))
		memcpy(&on, val, sizeof(on));
	if (name == NETLINK_ADD_MEMBERSHIP && route_fd(fd) >= 0) {
		if (route_give_up(fd, NULL, 0))
			return -1;
		return ISHIM_REAL(setsockopt, setsockopt_fn)(fd, level, name,
							     val, len);
	}
	pthread_mutex_lock(&nl_lock);
	s = find_locked(fd);
	if (s && name == NETLINK_CAP_ACK)
		s->k.cap_ack = !!on;
	if (s && s->real >= 0)
		ISHIM_REAL(setsockopt, setsockopt_fn)
	(s->real, level, name, val, len);
	pthread_mutex_unlock(&nl_lock);
	/* EXT_ACK, GET_STRICT_CHK, memberships: accepted */
	return 0;
}

int getsockopt(int fd, int level, int name, void *val, socklen_t *len)
{
	struct nl_sock *s;
	int on = 0;

	if (level != SOL_NETLINK || !ishim_nl_is(fd))
		return ISHIM_REAL(getsockopt, getsockopt_fn)(fd, level, name,
							     val, len);
	pthread_mutex_lock(&nl_lock);
	s = find_locked(fd);
	if (s && name == NETLINK_CAP_ACK)
		on = s->k.cap_ack;
	pthread_mutex_unlock(&nl_lock);
	if (val && len && *len >= sizeof(on)) {
		memcpy(val, &on, sizeof(on));
		*len = sizeof(on);
	}
	return 0;
}

/* ---- requests ------------------------------------------------------------ */

/* One datagram to the kernel: the request is answered before we return. */
static ssize_t nl_request(int fd, const void *buf, size_t len,
			  const struct sockaddr *to, socklen_t tolen)
{
	struct nl_replies q = { NULL, NULL };
	struct ik_nl_sock k;
	struct nl_sock *s;
	int proto = 0, real = -1;

	if (to) {
		struct sockaddr_nl a;

		if (tolen < sizeof(a)) {
			errno = EINVAL;
			return -1;
		}
		memcpy(&a, to, sizeof(a));
		if (a.nl_family != AF_NETLINK || a.nl_pid) {
			/* only the kernel listens here */
			errno = a.nl_family != AF_NETLINK ? EINVAL :
							    ECONNREFUSED;
			return -1;
		}
	}
	pthread_mutex_lock(&nl_lock);
	s = find_locked(fd);
	if (s) {
		if (s->real >= 0)
			route_bind(s, NULL, 0);
		else
			autobind(s);
		k = s->k;
		proto = s->proto;
		real = s->real;
	}
	pthread_mutex_unlock(&nl_lock);
	if (!s) {
		errno = EBADF;
		return -1;
	}
	if (proto == NETLINK_RDMA)
		ik_nl_rdma_input(&k, buf, len, emit, &q);
	else
		route_request(real, &k, buf, len, &q);
	pthread_mutex_lock(&nl_lock);
	s = find_locked(fd);
	if (s && q.head) {
		if (s->tail)
			s->tail->next = q.head;
		else
			s->head = q.head;
		s->tail = q.tail;
		q.head = NULL;
	}
	if (s)
		pump(s);
	pthread_mutex_unlock(&nl_lock);
	free_list(q.head); /* closed meanwhile */
	return (ssize_t)len;
}

ssize_t ishim_nl_send(int fd, const void *buf, size_t len)
{
	return nl_request(fd, buf, len, NULL, 0);
}

ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	if (!ishim_nl_is(fd))
		return ISHIM_REAL(send, send_fn)(fd, buf, len, flags);
	return nl_request(fd, buf, len, NULL, 0);
}

ssize_t sendto(int fd, const void *buf, size_t len, int flags,
	       const struct sockaddr *to, socklen_t tolen)
{
	if (!ishim_nl_is(fd))
		return ISHIM_REAL(sendto, sendto_fn)(fd, buf, len, flags, to,
						     tolen);
	return nl_request(fd, buf, len, to, tolen);
}

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	size_t total = 0, off = 0;
	uint8_t *buf;
	ssize_t rc;

	if (!ishim_nl_is(fd))
		return ishim_scm_sendmsg(fd, msg, flags);
	for (size_t i = 0; i < msg->msg_iovlen; i++)
		total += msg->msg_iov[i].iov_len;
	buf = malloc(total ? total : 1);
	if (!buf) {
		errno = ENOBUFS;
		return -1;
	}
	for (size_t i = 0; i < msg->msg_iovlen; i++) {
		memcpy(buf + off, msg->msg_iov[i].iov_base,
		       msg->msg_iov[i].iov_len);
		off += msg->msg_iov[i].iov_len;
	}
	rc = nl_request(fd, buf, total, msg->msg_name, msg->msg_namelen);
	free(buf);
	return rc;
}

/* ---- replies ------------------------------------------------------------- */

static void pump_fd(int fd)
{
	struct nl_sock *s;

	pthread_mutex_lock(&nl_lock);
	s = find_locked(fd);
	if (s)
		pump(s);
	pthread_mutex_unlock(&nl_lock);
}

/* Every message comes from the kernel: port 0. */
ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	struct sockaddr *name;
	socklen_t namelen;
	ssize_t rc;

	if (!ishim_nl_is(fd)) {
		rc = ISHIM_REAL(recvmsg, recvmsg_fn)(fd, msg, flags);
		if (rc >= 0 && msg->msg_controllen)
			ishim_scm_received(msg, flags);
		return rc;
	}
	pump_fd(fd);
	name = msg->msg_name;
	namelen = msg->msg_namelen;
	msg->msg_name = NULL;
	msg->msg_namelen = 0;
	rc = ISHIM_REAL(recvmsg, recvmsg_fn)(fd, msg, flags);
	msg->msg_name = name;
	msg->msg_namelen = namelen;
	if (rc >= 0 && name)
		fill_name(name, &msg->msg_namelen, 0);
	pump_fd(fd);
	return rc;
}

ssize_t recvfrom(int fd, void *buf, size_t len, int flags,
		 struct sockaddr *from, socklen_t *fromlen)
{
	ssize_t rc;

	if (!ishim_nl_is(fd))
		return ISHIM_REAL(recvfrom, recvfrom_fn)(fd, buf, len, flags,
							 from, fromlen);
	pump_fd(fd);
	rc = ISHIM_REAL(recvfrom, recvfrom_fn)(fd, buf, len, flags, NULL, NULL);
	if (rc >= 0)
		fill_name(from, fromlen, 0);
	pump_fd(fd);
	return rc;
}

ssize_t recv(int fd, void *buf, size_t len, int flags)
{
	ssize_t rc;

	if (!ishim_nl_is(fd))
		return ISHIM_REAL(recv, recv_fn)(fd, buf, len, flags);
	pump_fd(fd);
	rc = ISHIM_REAL(recv, recv_fn)(fd, buf, len, flags);
	pump_fd(fd);
	return rc;
}

ssize_t ishim_nl_read(int fd, void *buf, size_t len)
{
	ssize_t rc;

	pump_fd(fd);
	rc = ISHIM_REAL(recv, recv_fn)(fd, buf, len, 0);
	pump_fd(fd);
	return rc;
}
