// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: a device fd another process passed us
 * (docs/kernel-contract.md §21.1).  What arrived is a socket to that
 * process's kernel (export.c); the platform makes it an open file of ours
 * whose every command goes there, so the commands act on the exporter's
 * ucontext as on a real node, where both descriptors name one file.
 * Mappings are the exception: the exporter says what an offset maps and
 * we map it here (the clock page and controller memory are shared
 * memory; a doorbell page is trapped under a tag of its own, whose stores
 * our device's MMIO port sends to the exporter).  Memory the exporter's
 * device is to use (queue rings) it asks us to pin: we move the range to
 * a memfd mapped in its place and send that.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "../../common/sys.h"
#include "../ik.h"
#include "../kpriv.h"
#include "xproc.h"

struct import_chan {
	int fd;
	ino_t ino;
};

struct ik_import {
	int sock;
	pid_t pid; /* ours: a fork child's copy is dead, as for an open */
	pthread_mutex_t lock; /* one command at a time on the socket */
	uint32_t seq; /* its doorbell page's tag: IXP_IMPORT_TAG(seq) */
	struct ik_import *next; /* imports */
	/* completion channels it installed here, until we close them */
	struct import_chan *chans;
	unsigned int nchans;
};

/* The imports of this process, for the MMIO port to find the one a
 * doorbell store belongs to; imports_lock also orders a doorbell's send
 * before the release that closes its socket. */
static struct ik_import *imports;
static pthread_mutex_t imports_lock = PTHREAD_MUTEX_INITIALIZER;
/* channels of all imports: a close() elsewhere looks no further */
static atomic_uint import_channels;

bool ik_import_probe(int fd)
{
	struct sockaddr_un sa;
	socklen_t len = sizeof(sa);
	const size_t n = sizeof(IXP_NAME_PREFIX) - 1;

	memset(&sa, 0, sizeof(sa));
	if (getpeername(fd, (struct sockaddr *)&sa, &len) ||
	    sa.sun_family != AF_UNIX ||
	    len < offsetof(struct sockaddr_un, sun_path) + 1 + n)
		return false;
	return !sa.sun_path[0] && !memcmp(sa.sun_path + 1, IXP_NAME_PREFIX, n);
}

static int hello(int sock)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(struct ucred))];
	} cbuf;
	struct ixp_msg m = { .op = IXP_HELLO };
	struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
	struct msghdr mh = { .msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = cbuf.buf,
			     .msg_controllen = sizeof(cbuf.buf) };
	struct ucred uc = { .pid = getpid(), .uid = getuid(), .gid = getgid() };

	memset(&cbuf, 0, sizeof(cbuf));
	cbuf.h.cmsg_level = SOL_SOCKET;
	cbuf.h.cmsg_type = SCM_CREDENTIALS;
	cbuf.h.cmsg_len = CMSG_LEN(sizeof(uc));
	memcpy(CMSG_DATA(&cbuf.h), &uc, sizeof(uc));
	return isim_sys_sendmsg(sock, &mh, MSG_NOSIGNAL) == (ssize_t)sizeof(m) ?
		       0 :
		       -errno;
}

static atomic_uint import_seq = 1;

int ik_import_open(int sock, struct ik_file **out)
{
	struct ucred peer;
	socklen_t plen = sizeof(peer);
	struct ik_import *im = NULL;
	struct ik_file *f = NULL;
	struct ik_nic *nic;
	int rc;

	if (!ik_plat)
		return -ENODEV;
	/* NIC 0's engine pops this process's doorbell stores, which sends
	 * those of imported pages on to their exporters (ik_mmio_pop) */
	rc = ik_nic_get(0, &nic);
	if (rc)
		goto fail;
	f = calloc(1, sizeof(*f));
	im = calloc(1, sizeof(*im));
	if (!f || !im) {
		rc = -ENOMEM;
		goto fail;
	}
	/* the exporter reads and writes our memory for the commands it
	 * serves (uaccess.c): let it past Yama's ptrace scope 1 */
	if (!isim_sys_getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &peer, &plen))
		prctl(PR_SET_PTRACER, (unsigned long)peer.pid, 0, 0, 0);
	rc = hello(sock);
	if (rc)
		goto fail;
	im->sock = sock;
	im->pid = getpid();
	pthread_mutex_init(&im->lock, NULL);
	im->seq = atomic_fetch_add(&import_seq, 1);
	pthread_mutex_lock(&imports_lock);
	im->next = imports;
	imports = im;
	pthread_mutex_unlock(&imports_lock);
	f->imp = im;
	f->async_q.rd = -1;
	*out = f;
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_FD, "import file=%p from pid %d", (void *)f,
			   (int)peer.pid);
	return 0;
fail:
	free(im);
	free(f);
	isim_sys_close(sock);
	return rc;
}

/*
 * The exporter pins [a, a + len) of ours for its device (a queue ring):
 * the pages' contents move to a memfd mapped MAP_SHARED | MAP_FIXED over
 * the same addresses, so the application keeps its memory, now shared
 * with the exporter, as pinned memory stays the application's.  The ring
 * was just allocated and its creating thread is inside this command:
 * nothing else writes it meanwhile.  The memfd, or a negative errno.
 */
static int pin_here(uint64_t a, uint64_t len)
{
	uint8_t *p = (uint8_t *)(uintptr_t)a;
	void *m;
	int fd, rc;

	if (!a || !len || ((a | len) & (IK_PAGE_SIZE - 1)) || a + len < a ||
	    len > SIZE_MAX / 2)
		return -EINVAL;
	fd = memfd_create("ionic-sim-pin", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	/* sealed against shrinking: the exporter's device never meets a
	 * page that is gone (it checks the seal) */
	if (ftruncate(fd, (off_t)len) ||
	    isim_sys_fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL)) {
		rc = -errno;
		goto fail;
	}
	/* a range that is not mapped readable is EFAULT, as ib_umem_get
	 * would say */
	rc = ik_memfd_fill(fd, p, len);
	if (rc)
		goto fail;
	m = isim_sys_mmap(p, len, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_FIXED, fd, 0);
	if (m == MAP_FAILED) {
		rc = -errno;
		goto fail;
	}
	return fd;
fail:
	isim_sys_close(fd);
	return rc;
}

/* The exporter installed a completion channel as 'fd': remembered, so
 * that our close() of it reaches the exporter (ik_import_fd_closing). */
static void channel_installed(struct ik_import *im, int fd)
{
	struct import_chan *t;
	struct stat st;

	if (isim_sys_fstat(fd, &st))
		return;
	pthread_mutex_lock(&imports_lock);
	t = realloc(im->chans, (im->nchans + 1) * sizeof(*t));
	if (t) {
		im->chans = t;
		im->chans[im->nchans++] = (struct import_chan){ fd, st.st_ino };
		atomic_fetch_add(&import_channels, 1);
	}
	pthread_mutex_unlock(&imports_lock);
}

void ik_import_fd_closing(int fd)
{
	struct ixp_msg m = { .op = IXP_CLOSE, .a = (uint64_t)fd };
	pid_t self;
	struct stat st;

	if (!atomic_load_explicit(&import_channels, memory_order_relaxed) ||
	    fd < 0 || isim_sys_fstat(fd, &st))
		return;
	self = getpid();
	pthread_mutex_lock(&imports_lock);
	for (struct ik_import *im = imports; im; im = im->next) {
		for (unsigned int i = 0; i < im->nchans; i++) {
			if (im->chans[i].fd != fd ||
			    im->chans[i].ino != st.st_ino)
				continue;
			/* a fork child's copy is not the import's */
			if (im->pid == self)
				ik_xp_send(im->sock, &m, -1);
			im->chans[i] = im->chans[--im->nchans];
			atomic_fetch_sub(&import_channels, 1);
			break;
		}
	}
	pthread_mutex_unlock(&imports_lock);
}

/* Our doorbell stores reach the exporter in order with our commands:
 * those captured before a command go first. */
static void doorbells_flush(void)
{
	for (unsigned int k = 0; k < ISIM_MAX_NICS; k++) {
		struct ik_nic *nic =
			__atomic_load_n(&ik_nics[k], __ATOMIC_ACQUIRE);

		if (!nic || !nic->dev)
			continue;
		ik_nic_lock(nic);
		idev_sync_doorbells(nic->dev);
		ik_nic_unlock(nic);
	}
}

/*
 * One command: the request, the descriptors it creates for us (they
 * stay open here: the command's answer names them) and the memory it
 * pins, then its answer.  A command of the fork child of an importer
 * fails as on a dead file.
 */
static int64_t call(struct ik_import *im, const struct ixp_msg *q,
		    struct ixp_msg *r, int *rfd)
{
	int64_t rc = 0;
	int fd;

	if (getpid() != im->pid)
		return -EIO;
	doorbells_flush();
	pthread_mutex_lock(&im->lock);
	if (ik_xp_send(im->sock, q, -1))
		rc = -EIO;
	while (!rc) {
		struct ixp_msg a = { .op = IXP_FD };
		int give = -1;

		rc = ik_xp_recv(im->sock, r, NULL, &fd) ? -EIO : 0;
		if (rc)
			break;
		if (r->op == IXP_REPLY) {
			rc = r->ret;
			if (rfd)
				*rfd = fd;
			else if (fd >= 0)
				isim_sys_close(fd);
			break;
		}
		if (r->op == IXP_PIN && fd < 0) {
			give = pin_here(r->a, r->b);
			if (give < 0)
				a.ret = give;
		} else if (r->op == IXP_INSTALL && fd >= 0) {
			a.a = (uint64_t)fd;
		} else {
			if (fd >= 0)
				isim_sys_close(fd);
			rc = -EIO;
			break;
		}
		if (ik_xp_send(im->sock, &a, give)) {
			if (r->op == IXP_INSTALL)
				isim_sys_close(fd);
			rc = -EIO;
		} else if (r->op == IXP_INSTALL && r->b == 1) {
			channel_installed(im, fd);
		}
		if (give >= 0)
			isim_sys_close(give);
	}
	pthread_mutex_unlock(&im->lock);
	return rc;
}

ssize_t ik_import_write(struct ik_import *im, const void *buf, size_t len)
{
	struct ixp_msg q = { .op = IXP_WRITE, .a = (uintptr_t)buf, .b = len },
		       r;

	return (ssize_t)call(im, &q, &r, NULL);
}

int ik_import_ioctl(struct ik_import *im, unsigned long req, void *arg)
{
	struct ixp_msg q = { .op = IXP_IOCTL, .a = req, .b = (uintptr_t)arg },
		       r;

	return (int)call(im, &q, &r, NULL);
}

void *ik_import_mmap(struct ik_import *im, void *addr, size_t len, int prot,
		     int flags, off_t off, int *err)
{
	struct ixp_msg q = { .op = IXP_MMAP,
			     .a = len,
			     .b = (uint32_t)prot,
			     .c = (uint32_t)flags,
			     .d = (uint64_t)off },
		       r;
	void *p = NULL;
	int fd = -1;
	int64_t rc;

	if (off < 0)
		q.d = UINT64_MAX; /* the exporter refuses it */
	rc = call(im, &q, &r, &fd);
	*err = (int)rc;
	if (!rc && r.a == IK_MMAP_DBELL) {
		/* armed: ik_mmio_pop sends its stores to the exporter */
		p = ik_plat->dbpage_map(IXP_IMPORT_TAG(im->seq), addr, len,
					err);
	} else if (!rc && r.a == IK_MMAP_CMB && r.b && fd >= 0) {
		/* express window: readable, its stores dropped (xproc.h);
		 * the express bit keeps its tag apart from every import's */
		uint64_t tag = IXP_IMPORT_TAG(r.b) | IDEV_TAG_EXPDB;

		p = ik_plat->window_map(tag, addr, len, fd, (off_t)r.c, err);
		if (p)
			ik_plat->dbpage_revoke(tag);
	} else if (!rc && fd >= 0) {
		/* the clock page (read only) or controller memory: shared
		 * memory of the exporter's NIC */
		p = isim_sys_mmap(addr, len,
				  r.a == IK_MMAP_PHC ? PROT_READ : prot,
				  MAP_SHARED | (flags & MAP_FIXED), fd,
				  (off_t)r.c);
		if (p == MAP_FAILED) {
			*err = -errno;
			p = NULL;
		}
	} else if (!rc) {
		*err = -EIO;
	}
	if (fd >= 0)
		isim_sys_close(fd);
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_MMAP,
			   "import mmap off=0x%llx len=%zu -> %p err=%d",
			   (unsigned long long)off, len, p, *err);
	return p;
}

/* A store to the doorbell page of one of our imports: to its exporter. */
static void import_doorbell(const struct isim_mmio_store *st)
{
	struct ixp_msg m = { .op = IXP_DOORBELL,
			     .a = st->offset,
			     .b = st->value,
			     .c = st->size };
	pid_t self = getpid();

	/* a doorbell is one 64-bit store: nothing wider is sent */
	if (st->size > sizeof(st->value))
		return;
	pthread_mutex_lock(&imports_lock);
	for (struct ik_import *im = imports; im; im = im->next) {
		if (IXP_IMPORT_TAG(im->seq) != st->page)
			continue;
		/* a fork child's copy of the page is not the import's */
		if (im->pid == self)
			ik_xp_send(im->sock, &m, -1);
		break;
	}
	pthread_mutex_unlock(&imports_lock);
}

int ik_mmio_pop(struct isim_mmio_store *st)
{
	while (ik_plat->mmio.pop(st)) {
		if ((st->page & (IXP_IMPORT_BIT | IDEV_TAG_EXPDB)) !=
		    IXP_IMPORT_BIT)
			return 1;
		import_doorbell(st);
	}
	return 0;
}

void ik_import_release(struct ik_import *im)
{
	ik_plat->dbpage_revoke(IXP_IMPORT_TAG(im->seq));
	pthread_mutex_lock(&imports_lock);
	for (struct ik_import **pp = &imports; *pp; pp = &(*pp)->next)
		if (*pp == im) {
			*pp = im->next;
			break;
		}
	atomic_fetch_sub(&import_channels, im->nchans);
	pthread_mutex_unlock(&imports_lock);
	free(im->chans);
	isim_sys_close(im->sock);
	pthread_mutex_destroy(&im->lock);
	free(im);
}
