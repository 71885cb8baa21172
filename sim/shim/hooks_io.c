// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Descriptor-level interposers: the uverbs command channel (write, ioctl),
 * its mmap offsets, and the bookkeeping that keeps the fd table in step
 * with the kernel's (close, close_range, closefrom, dup*, fcntl dup).
 *
 * Untracked descriptors cost one relaxed load of ishim_fds_tracked.
 */
#undef _FORTIFY_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <rdma/rdma_user_ioctl_cmds.h>
#include <stdarg.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../common/trace.h"
#include "shim.h"
#include "vgcheck.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*read_fn)(int, void *, size_t);
typedef int (*ioctl_fn)(int, unsigned long, void *);
typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);
typedef int (*munmap_fn)(void *, size_t);
typedef int (*close_fn)(int);
typedef int (*close_range_fn)(unsigned int, unsigned int, int);
typedef void (*closefrom_fn)(int);
typedef int (*dup_fn)(int);
typedef int (*dup2_fn)(int, int);
typedef int (*dup3_fn)(int, int, int);
typedef int (*fcntl_fn)(int, int, ...);

ssize_t write(int fd, const void *buf, size_t len)
{
	struct ik_file *f = ishim_fd_file(fd);
	ssize_t rc;

	if (!f) {
		struct ik_ucma_file *cm = ishim_cm_file(fd);

		if (cm)
			return ishim_cm_write(cm, buf, len);
		if (ishim_nl_is(fd))
			return ishim_nl_send(fd, buf, len);
		return ISHIM_REAL(write, write_fn)(fd, buf, len);
	}
	ishim_hooks_heal();
	/* what valgrind checks for a real write(2): the whole buffer */
	ISHIM_CHECK_DEFINED(buf, len, "write(uverbs, buf)");
	rc = ik_file_write(f, buf, len);
	if (rc < 0) {
		errno = -rc;
		return -1;
	}
	return rc;
}

/* Only emulated netlink sockets: the device's event fds are real. */
ssize_t read(int fd, void *buf, size_t len)
{
	if (ishim_nl_is(fd))
		return ishim_nl_read(fd, buf, len);
	return ISHIM_REAL(read, read_fn)(fd, buf, len);
}

int ioctl(int fd, unsigned long req, ...)
{
	struct ik_file *f;
	va_list ap;
	void *arg;
	int rc;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	f = ishim_fd_file(fd);
	if (!f) {
		/* SIOCGIF* naming the NIC's network interface */
		if (ishim_netdev_ioctl(fd, req, arg, &rc)) {
			if (rc < 0) {
				errno = -rc;
				return -1;
			}
			return 0;
		}
		return ISHIM_REAL(ioctl, ioctl_fn)(fd, req, arg);
	}
	/* RDMA_VERBS_IOCTL: the header and its attribute array (hdr.length
	 * bytes), as the kernel copies them in */
	if (req == RDMA_VERBS_IOCTL && arg) {
		const struct ib_uverbs_ioctl_hdr *h = arg;

		ISHIM_CHECK_DEFINED(h, sizeof(*h),
				    "ioctl(RDMA_VERBS_IOCTL, hdr)");
		if (h->length > sizeof(*h))
			ISHIM_CHECK_DEFINED(h, h->length,
					    "ioctl(RDMA_VERBS_IOCTL, attrs)");
	}
	ishim_hooks_heal();
	rc = ik_file_ioctl(f, req, arg);
	if (rc < 0) {
		errno = -rc;
		return -1;
	}
	return rc;
}

static void *dev_mmap(struct ik_file *f, int fd, void *addr, size_t len,
		      int prot, int flags, off_t off)
{
	int err = 0;
	void *p = ik_file_mmap(f, addr, len, prot, flags, off, &err);

	if (isim_trace_enabled())
		isim_trace(
			ISIM_TR_MMAP,
			"mmap fd=%d off=0x%llx len=%zu prot=0x%x flags=0x%x -> %p%s%s",
			fd, (unsigned long long)off, len, prot, flags, p,
			p ? "" : " error ", p ? "" : strerror(-err));
	if (!p) {
		errno = err ? -err : EINVAL;
		return MAP_FAILED;
	}
	return p;
}

/* Behind the exported mmap stub (hookheal.c). */
ISHIM_STUB_BODY void *ishim_mmap_body(void *addr, size_t len, int prot,
				      int flags, int fd, off_t off)
{
	struct ik_file *f = (flags & MAP_ANONYMOUS) ? NULL : ishim_fd_file(fd);

	mmap_fn chain;

	if (f)
		return dev_mmap(f, fd, addr, len, prot, flags, off);
	chain = (mmap_fn)ishim_hooks_chain(0);
	if (chain)
		return chain(addr, len, prot, flags, fd, off);
	return ISHIM_REAL(mmap, mmap_fn)(addr, len, prot, flags, fd, off);
}

ISHIM_STUB_BODY void *ishim_mmap64_body(void *addr, size_t len, int prot,
					int flags, int fd, off_t off)
{
	struct ik_file *f = (flags & MAP_ANONYMOUS) ? NULL : ishim_fd_file(fd);

	mmap_fn chain;

	if (f)
		return dev_mmap(f, fd, addr, len, prot, flags, off);
	chain = (mmap_fn)ishim_hooks_chain(1);
	if (chain)
		return chain(addr, len, prot, flags, fd, off);
	return ISHIM_REAL(mmap64, mmap_fn)(addr, len, prot, flags, fd, off);
}

ISHIM_STUB_BODY int ishim_munmap_body(void *addr, size_t len)
{
	munmap_fn chain = (munmap_fn)ishim_hooks_chain(2);

	if (ishim_dbtrap_overlaps(addr, len)) {
		ishim_dbtrap_munmap(addr, len);
		if (isim_trace_enabled())
			isim_trace(ISIM_TR_MMAP, "munmap doorbell %p len=%zu",
				   addr, len);
	}
	if (chain)
		return chain(addr, len);
	return ISHIM_REAL(munmap, munmap_fn)(addr, len);
}

/* ---- descriptor lifetime ------------------------------------------------ */

int close(int fd)
{
	/* Forget first: once the real close returns, the number may be
	 * reused by another thread's open. */
	ishim_fd_untrack(fd);
	ishim_nl_untrack(fd);
	/* a completion channel's fd: the kernel releases its event file */
	ik_fd_closing(fd);
	ishim_cm_untrack(fd);
	return ISHIM_REAL(close, close_fn)(fd);
}

static void untrack_range(unsigned int first, unsigned int last)
{
	if (!__atomic_load_n(&ishim_fds_tracked, __ATOMIC_RELAXED))
		return;
	if (last > 65535)
		last = 65535;
	for (unsigned int fd = first; fd <= last; fd++)
		ishim_fd_untrack(fd);
}

static void untrack_nl_range(unsigned int first, unsigned int last)
{
	if (last > 65535)
		last = 65535;
	if (__atomic_load_n(&ishim_nl_socks, __ATOMIC_RELAXED))
		for (unsigned int fd = first; fd <= last; fd++)
			ishim_nl_untrack((int)fd);
	if (__atomic_load_n(&ishim_cm_fds, __ATOMIC_RELAXED))
		for (unsigned int fd = first; fd <= last; fd++)
			ishim_cm_untrack((int)fd);
}

int close_range(unsigned int first, unsigned int last, int flags)
{
	int rc = ISHIM_REAL(close_range, close_range_fn)(first, last, flags);

	/* With CLOSE_RANGE_CLOEXEC nothing is closed now; exec ends the
	 * whole process image (and our table) anyway. */
	if (rc == 0 && !(flags & CLOSE_RANGE_CLOEXEC)) {
		untrack_range(first, last);
		untrack_nl_range(first, last);
	}
	return rc;
}

void closefrom(int lowfd)
{
	if (lowfd < 0)
		lowfd = 0;
	untrack_range(lowfd, ~0u);
	untrack_nl_range(lowfd, ~0u);
	ISHIM_REAL(closefrom, closefrom_fn)(lowfd);
}

int dup(int oldfd)
{
	int fd = ISHIM_REAL(dup, dup_fn)(oldfd);

	if (fd >= 0 && ishim_fd_file(oldfd))
		ishim_fd_track_dup(oldfd, fd);
	return fd;
}

int dup2(int oldfd, int newfd)
{
	int fd = ISHIM_REAL(dup2, dup2_fn)(oldfd, newfd);

	if (fd >= 0 && oldfd != newfd) {
		if (ishim_fd_file(oldfd))
			ishim_fd_track_dup(oldfd, fd);
		else
			ishim_fd_untrack(fd); /* replaced a tracked fd */
	}
	return fd;
}

int dup3(int oldfd, int newfd, int flags)
{
	int fd = ISHIM_REAL(dup3, dup3_fn)(oldfd, newfd, flags);

	if (fd >= 0) {
		if (ishim_fd_file(oldfd))
			ishim_fd_track_dup(oldfd, fd);
		else
			ishim_fd_untrack(fd);
	}
	return fd;
}

static int do_fcntl(const char *name, int fd, int cmd, void *arg)
{
	static fcntl_fn real_fcntl, real_fcntl64;
	fcntl_fn fn;
	int rc;

	if (name[5]) {
		if (!real_fcntl64)
			real_fcntl64 = (fcntl_fn)ishim_real("fcntl64");
		fn = real_fcntl64;
	} else {
		if (!real_fcntl)
			real_fcntl = (fcntl_fn)ishim_real("fcntl");
		fn = real_fcntl;
	}
	rc = fn(fd, cmd, arg);
	if (rc >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) &&
	    ishim_fd_file(fd))
		ishim_fd_track_dup(fd, rc);
	return rc;
}

/* Every fcntl argument is an int, a long or a pointer: forwarding it as a
 * pointer-sized value is what libc itself does. */
int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	return do_fcntl("fcntl", fd, cmd, arg);
}

int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	return do_fcntl("fcntl64", fd, cmd, arg);
}
