// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: the direct path's hello and the peers' ports
 * (direct.h; the port itself is direct.c's).
 *
 * Hello: when an RC QP enters RTR on a device with a port, it sends its
 * peer QP's endpoint one datagram that is not a frame (struct
 * dhello: our pid, the descriptor number of our segment, its address
 * here).  The receiver opens the segment through /proc/<pid>/fd/<n> (the
 * kernel allows that exactly when it allows process_vm_* on the pid:
 * same user, dumpable, ptrace policy), checks it, reads our header back
 * with process_vm_readv as the probe, and attaches the segment to its QP.
 * Until then, and whenever any of it fails (the trace says why), the QP
 * sends packets.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "../common/sys.h"
#include "../common/trace.h"
#include "direct.h"
#include "direct_priv.h"
#include "qp.h"

#define DHELLO_MAGIC 0x4f4c4c4548444d49ull /* "IMDHELLO": no MAC starts so */
#define DNOTIFY_MAGIC 0x5946544f4e444d49ull /* "IMDNOTFY" */

struct dhello {
	uint64_t magic;
	int32_t pid;
	int32_t segfd;
	uint32_t src_qpn, dst_qpn;
	uint64_t self; /* our address of the segment header */
	uint64_t size;
	/* our host's hardware-counter page (-1: none) and our NIC's row:
	 * executors count our side of the messages they run there */
	int32_t statsfd;
	uint32_t stats_nic;
};

/* ---- hello ---------------------------------------------------------------- */

void idev_direct_qp_rtr(struct idev_qp *d)
{
	struct idev_direct *x = d->dev->direct;
	struct dhello h = {
		.magic = DHELLO_MAGIC,
		.pid = getpid(),
		.src_qpn = d->qpn,
		.dst_qpn = d->dest_qpn,
	};

	if (!x || x->closed) {
		idev_dtrace_path(d, IDEV_DWHY_NO_PORT);
		return;
	}
	if (!isim_gid_to_node(d->av.dgid)) {
		idev_dtrace_path(d, IDEV_DWHY_OFF_HOST);
		return;
	}
	h.segfd = x->fd;
	h.self = (uint64_t)(uintptr_t)x->hdr;
	h.size = x->size;
	h.statsfd = d->dev->cfg.stats_fd;
	h.stats_nic = d->dev->cfg.stats_nic;
	ifab_send(&d->ep, d->av.dgid, d->dest_qpn, &h, sizeof(h));
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_DIRECT, "qp %u: hello to %u/%u", d->qpn,
			   isim_gid_to_node(d->av.dgid), d->dest_qpn);
}

void idev_direct_notify_send(struct idev_qp *d)
{
	uint64_t m = DNOTIFY_MAGIC;

	ifab_send(&d->ep, d->av.dgid, d->dest_qpn, &m, sizeof(m));
}

void idev_dpeer_put(struct idev_dpeer *p)
{
	if (p && p->refs && !--p->refs)
		idev_dpeer_unmap(p);
}

void idev_direct_qp_gone(struct idev_qp *d)
{
	struct idev_direct *x = d->dev->direct;
	struct idev_dseg_qp *q = x ? idev_dseg_own_qp(x, d->qpn) : NULL;

	if (q && x->held)
		q->valid = 0;
	idev_dring_drop(d);
	idev_dpeer_put(d->dpeer);
	d->dpeer = NULL;
	d->dwhy = 0;
}

/* The peer's hardware-counter row, where we count its side of the
 * messages we execute (its frames received, its ACKs and responses
 * sent); left NULL when the page cannot be had: those go uncounted.
 * The page is numbers only: whatever a scribbler put there, adding to
 * them is harmless. */
static void peer_map_stats(struct idev_dpeer *p, const struct dhello *h)
{
	char path[64];
	struct stat st;
	void *m;
	int fd;

	if (h->statsfd < 0 || h->stats_nic >= ISIM_MAX_NICS)
		return;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", h->pid, h->statsfd);
	fd = isim_sys_open(path, O_RDWR | O_CLOEXEC, 0);
	if (fd < 0)
		return;
	m = MAP_FAILED;
	if (!isim_sys_fstat(fd, &st) && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_size >= sizeof(*p->stats_page))
		m = isim_sys_mmap(NULL, sizeof(*p->stats_page),
				  PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	isim_sys_close(fd);
	if (m == MAP_FAILED)
		return;
	p->stats_page = m;
	if (__atomic_load_n(&p->stats_page->magic, __ATOMIC_RELAXED) ==
	    ISIM_HWSTATS_MAGIC)
		p->stats = p->stats_page->v[h->stats_nic];
}

/* Map the segment a hello offers and check it; a negative errno, with
 * 'what' naming the step that failed. */
static int peer_map(struct idev_dpeer *p, const struct dhello *h,
		    const char **what)
{
	char path[64];
	struct stat st;
	struct idev_direct lay;
	struct iovec l, r;
	uint64_t magic = 0;
	int fd, rc = 0;

	/* watched first: the segment checked next is then this process's */
	if (h->pid != getpid()) {
		p->pidfd = (int)syscall(SYS_pidfd_open, h->pid, 0);
		p->watched = p->pidfd >= 0;
	}
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", h->pid, h->segfd);
	*what = "open /proc/PID/fd";
	fd = isim_sys_open(path, O_RDWR | O_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	*what = "the segment's size";
	if (isim_sys_fstat(fd, &st) < 0 || (uint64_t)st.st_size != h->size ||
	    h->size < sizeof(struct idev_dseg_hdr)) {
		isim_sys_close(fd);
		return -EINVAL;
	}
	p->seg = isim_sys_mmap(NULL, h->size, PROT_READ | PROT_WRITE,
			       MAP_SHARED, fd, 0);
	isim_sys_close(fd);
	if (p->seg == MAP_FAILED) {
		p->seg = NULL;
		*what = "mmap";
		return -errno;
	}
	p->size = h->size;
	p->st_dev = st.st_dev;
	p->st_ino = st.st_ino;
	p->hdr = (struct idev_dseg_hdr *)p->seg;
	/* the layout comes from the header once, checked against the size:
	 * later scribbles cannot move a record outside the mapping */
	p->nqps = p->hdr->nqps;
	p->ncqs = p->hdr->ncqs;
	p->nkeys = p->hdr->nkeys;
	*what = "the segment's header";
	if (__atomic_load_n(&p->hdr->magic, __ATOMIC_ACQUIRE) !=
		    IDEV_DSEG_MAGIC ||
	    p->hdr->pid != h->pid || p->hdr->self != h->self ||
	    p->nqps > (1u << 24) || p->ncqs > (1u << 24) ||
	    p->nkeys > (1u << 24) ||
	    idev_dseg_layout(&lay, p->nqps, p->ncqs, p->nkeys) != p->size)
		return -EINVAL;
	p->qp_off = lay.qp_off;
	p->cq_off = lay.cq_off;
	p->key_off = lay.key_off;
	p->pid = h->pid;
	/* the probe: process_vm_* works on this pid (ptrace policy) */
	l.iov_base = &magic;
	l.iov_len = sizeof(magic);
	r.iov_base = (void *)(uintptr_t)h->self;
	r.iov_len = sizeof(magic);
	*what = "process_vm_readv";
	if (process_vm_readv(h->pid, &l, 1, &r, 1, 0) != sizeof(magic))
		rc = -errno;
	else if (magic != IDEV_DSEG_MAGIC)
		rc = -EINVAL;
	if (!rc)
		peer_map_stats(p, h);
	return rc;
}

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434 /* the same number on every architecture */
#endif

#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

int idev_dpeer_getfd(struct idev_dpeer *p, int32_t fd)
{
	if (!p->watched || fd < 0)
		return -1;
	return (int)syscall(SYS_pidfd_getfd, p->pidfd, fd, 0);
}

bool idev_dpeer_alive(struct idev_dpeer *p)
{
	struct pollfd pfd = { .events = POLLIN };
	struct timespec now = { 0, 0 };
	long n;

	if (p->dead)
		return false;
	if (p->watched) {
		/* the system call itself: no interceptor to take it for a
		 * wait the sanitizers should order anything by */
		pfd.fd = p->pidfd;
		n = syscall(SYS_ppoll, &pfd, 1ul, &now, NULL, 0ul);
		p->dead = n == 1 &&
			  (pfd.revents & (POLLIN | POLLHUP | POLLERR));
	} else if (p->pid != getpid()) {
		/* no pidfd (Linux < 5.3): a zombie still looks alive */
		p->dead = kill(p->pid, 0) < 0 && errno == ESRCH;
	}
	return !p->dead;
}

static struct idev_dpeer *peer_get(struct idev_direct *x,
				   const struct dhello *h, const char **what,
				   int *err)
{
	struct idev_dpeer *p, *free_slot = NULL;

	char path[64];
	struct stat st;

	/* the segment a hello names, as a file: a pid the kernel gave to a
	 * new process has another one */
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", h->pid, h->segfd);
	if (isim_sys_stat(path, &st) < 0)
		st.st_ino = 0;
	for (unsigned int i = 0; i < IDEV_DPEERS; i++) {
		p = &x->peers[i];
		if (p->refs && p->pid == h->pid && !p->dead &&
		    p->st_ino == st.st_ino && p->st_dev == st.st_dev) {
			p->refs++;
			return p;
		}
		if (!p->refs && !free_slot)
			free_slot = p;
	}
	*err = -ENOSPC;
	*what = "the peer table";
	if (!free_slot)
		return NULL;
	*err = peer_map(free_slot, h, what);
	if (*err) {
		idev_dpeer_unmap(free_slot);
		return NULL;
	}
	free_slot->refs = 1;
	return free_slot;
}

struct idev_dpeer *idev_dpeer_get(struct idev_direct *x, pid_t pid,
				  int32_t segfd, uint64_t self, uint64_t size,
				  int32_t statsfd, uint32_t stats_nic,
				  const char **what, int *err)
{
	struct dhello h = {
		.magic = DHELLO_MAGIC,
		.pid = pid,
		.segfd = segfd,
		.self = self,
		.size = size,
		.statsfd = statsfd,
		.stats_nic = stats_nic,
	};

	return peer_get(x, &h, what, err);
}

bool idev_direct_rx(struct idev *dev, uint32_t qpn, const uint8_t *buf,
		    size_t len)
{
	struct idev_direct *x = dev->direct;
	struct idev_qp *d = idev_qp_lookup(dev, qpn);
	struct idev *owner = NULL;
	const char *what = "";
	struct idev_dpeer *p;
	struct dhello h;
	int err = 0;

	if (len == sizeof(h.magic)) {
		/* a notify: the ring was drained on entering already */
		memcpy(&h.magic, buf, sizeof(h.magic));
		return h.magic == DNOTIFY_MAGIC;
	}
	if (len != sizeof(h))
		return false;
	memcpy(&h, buf, sizeof(h));
	if (h.magic != DHELLO_MAGIC)
		return false;
	/* a hello is ours whatever becomes of it */
	if (!x || x->closed || !d || d->type != IBV_QPT_RC || h.dst_qpn != qpn)
		return true;
	if (h.pid == getpid() && !(owner = idev_dself_find(h.self, h.segfd))) {
		idev_dtrace_path(d, IDEV_DWHY_SELF);
		return true;
	}
	p = peer_get(x, &h, &what, &err);
	if (!p) {
		if (isim_trace_enabled())
			isim_trace(ISIM_TR_DIRECT,
				   "qp %u: packets: the port of pid %d is not "
				   "usable: %s: %s",
				   qpn, h.pid, what, strerror(-err));
		return true;
	}
	p->owner = owner;
	idev_dring_drop(d);
	idev_dpeer_put(d->dpeer);
	d->dpeer = p;
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_DIRECT, "qp %u: port of pid %d (qp %u)%s",
			   qpn, h.pid, h.src_qpn,
			   !owner	? "" :
			   owner == dev ? ", this device" :
					  ", another device of this process");
	return true;
}
