// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The second character device: /dev/infiniband/rdma_cm (the rdma_ucm
 * module).  Which descriptors are its open files, and what the libc calls
 * on them do: write() is the command channel (the model's parser), fstat
 * reports the misc device netlink names, close releases the file.  poll,
 * select, epoll and fcntl need nothing: the descriptor is a real socket
 * the model makes readable while events wait (sim/kernel/cm/ucma_file.c).
 */
#undef _FORTIFY_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../common/trace.h"
#include "shim.h"

#define MAX_CM_FDS 65536

/* fstat runs before the sanitizer runtimes are up (the loader, ASan's own
 * start-up): these paths touch no shadow memory. */
#define CM_EARLY ISHIM_RUNTIME_SAFE __attribute__((no_sanitize("address")))

static struct ik_ucma_file *_Atomic cm_tab[MAX_CM_FDS];
int ishim_cm_fds;

bool ishim_cm_path(const char *path)
{
	return path && !strcmp(path, "/dev/infiniband/rdma_cm");
}

CM_EARLY struct ik_ucma_file *ishim_cm_file(int fd)
{
	if (!__atomic_load_n(&ishim_cm_fds, __ATOMIC_RELAXED) || fd < 0 ||
	    fd >= MAX_CM_FDS)
		return NULL;
	return atomic_load_explicit(&cm_tab[fd], memory_order_acquire);
}

int ishim_cm_open(int flags)
{
	struct ik_ucma_file *f = NULL;
	int fd = -1, rc;

	fd = ik_ucma_open(flags, &f);
	rc = fd < 0 ? fd : 0;
	if (rc == 0 && fd >= MAX_CM_FDS) {
		ik_ucma_release(f);
		close(fd);
		rc = -EMFILE;
	}
	if (rc < 0) {
		errno = -rc;
		return -1;
	}
	atomic_store_explicit(&cm_tab[fd], f, memory_order_release);
	__atomic_add_fetch(&ishim_cm_fds, 1, __ATOMIC_RELAXED);
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_FD, "open rdma_cm fd=%d file=%p", fd,
			   (void *)f);
	return fd;
}

void ishim_cm_untrack(int fd)
{
	struct ik_ucma_file *f;

	if (!ishim_cm_file(fd) || ishim_fd_foreign_process())
		return;
	f = atomic_exchange(&cm_tab[fd], NULL);
	if (!f)
		return;
	__atomic_sub_fetch(&ishim_cm_fds, 1, __ATOMIC_RELAXED);
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_FD, "close rdma_cm fd=%d", fd);
	ik_ucma_release(f);
}

ssize_t ishim_cm_write(struct ik_ucma_file *f, const void *buf, size_t len)
{
	ssize_t rc = ik_ucma_write(f, buf, len);

	if (rc < 0) {
		errno = (int)-rc;
		return -1;
	}
	return rc;
}

void ishim_cm_fake_stat(struct stat *st)
{
	st->st_mode = S_IFCHR | 0666;
	st->st_rdev = makedev(IK_UCMA_CDEV_MAJOR, IK_UCMA_CDEV_MINOR);
	st->st_size = 0;
	st->st_blksize = 4096;
}

/* fstat: what the misc device's descriptor reports (open_cdev checks
 * S_ISCHR and st_rdev against netlink's CHARDEV). */
typedef int (*fstat_fn)(int, struct stat *);
typedef int (*fxstat_fn)(int, int, struct stat *);

CM_EARLY int fstat(int fd, struct stat *st)
{
	int rc = ISHIM_REAL(fstat, fstat_fn)(fd, st);

	if (rc == 0 && ishim_cm_file(fd))
		ishim_cm_fake_stat(st);
	return rc;
}

CM_EARLY int fstat64(int fd, struct stat64 *st)
{
	int rc = ISHIM_REAL(fstat64, fstat_fn)(fd, (struct stat *)st);

	if (rc == 0 && ishim_cm_file(fd))
		ishim_cm_fake_stat((struct stat *)st);
	return rc;
}

CM_EARLY int __fxstat(int ver, int fd, struct stat *st)
{
	int rc = ISHIM_REAL(__fxstat, fxstat_fn)(ver, fd, st);

	if (rc == 0 && ishim_cm_file(fd))
		ishim_cm_fake_stat(st);
	return rc;
}

CM_EARLY int __fxstat64(int ver, int fd, struct stat64 *st)
{
	int rc = ISHIM_REAL(__fxstat64, fxstat_fn)(ver, fd, (struct stat *)st);

	if (rc == 0 && ishim_cm_file(fd))
		ishim_cm_fake_stat((struct stat *)st);
	return rc;
}
