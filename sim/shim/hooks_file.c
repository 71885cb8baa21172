// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Path-level interposers: make /dev/infiniband/uverbs0 exist (stat family,
 * access) and open it (open family), and show programs that read /sys
 * directly the fake sysfs tree.
 *
 * Unversioned definitions here satisfy libibverbs' versioned imports
 * (stat@GLIBC_2.33 etc.).  Every other path goes straight to libc.
 */
#undef _FORTIFY_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdarg.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../common/trace.h"
#include "shim.h"

#ifndef NETLINK_RDMA
#define NETLINK_RDMA 20
#endif
#ifndef AF_NETLINK
#define AF_NETLINK 16
#endif

/* What stat() reports for the device node: the same char device the
 * /dev/null-backed fds really are, so fstat() needs no interposer and
 * st_rdev matches the sysfs "dev" file (1:3). */
static void fake_stat(struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_dev = makedev(0, 5);
	st->st_ino = 0x1b0000; /* arbitrary, stable */
	st->st_mode = S_IFCHR | 0666;
	st->st_nlink = 1;
	st->st_rdev = makedev(ISHIM_CDEV_MAJOR, ISHIM_CDEV_MINOR);
	st->st_blksize = 4096;
}

static bool is_dev(int dirfd, const char *path)
{
	(void)dirfd; /* only absolute paths name the device */
	return ishim_dev_path_index(path) >= 0 || ishim_cm_path(path);
}

/* Programs that read /sys itself (pyverbs, UCX, ls) see the fake tree:
 * the RDMA classes and the NIC's network interface are under $SYSFS_PATH
 * (docs/kernel-contract.md §20).  No buffer in the interposer's frame:
 * these run from library constructors, maybe before the sanitizer runtime
 * (sysredir.c). */
#define REDIRECT(path) path = ishim_sys_redirect(path)

/* The stat family: true (and *st filled) if 'path' is the device node. */
static bool dev_stat(int dirfd, const char *path, void *st)
{
	if (!is_dev(dirfd, path))
		return false;
	fake_stat(st);
	if (ishim_cm_path(path))
		ishim_cm_fake_stat(st);
	return true;
}

typedef int (*stat_fn)(const char *, struct stat *);
typedef int (*fstatat_fn)(int, const char *, struct stat *, int);
typedef int (*xstat_fn)(int, const char *, struct stat *);
typedef int (*fxstatat_fn)(int, int, const char *, struct stat *, int);

/* struct stat64 is struct stat on 64-bit glibc: the *64 forms share it. */
int stat(const char *path, struct stat *st)
{
	REDIRECT(path);

	if (dev_stat(AT_FDCWD, path, st))
		return 0;
	return ISHIM_REAL(stat, stat_fn)(path, st);
}

int stat64(const char *path, struct stat64 *st)
{
	REDIRECT(path);

	if (dev_stat(AT_FDCWD, path, st))
		return 0;
	return ISHIM_REAL(stat64, stat_fn)(path, (struct stat *)st);
}

int lstat(const char *path, struct stat *st)
{
	REDIRECT(path);

	if (dev_stat(AT_FDCWD, path, st))
		return 0;
	return ISHIM_REAL(lstat, stat_fn)(path, st);
}

int lstat64(const char *path, struct stat64 *st)
{
	REDIRECT(path);

	if (dev_stat(AT_FDCWD, path, st))
		return 0;
	return ISHIM_REAL(lstat64, stat_fn)(path, (struct stat *)st);
}

int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	REDIRECT(path);

	if (dev_stat(dirfd, path, st))
		return 0;
	return ISHIM_REAL(fstatat, fstatat_fn)(dirfd, path, st, flags);
}

int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
	REDIRECT(path);

	if (dev_stat(dirfd, path, st))
		return 0;
	return ISHIM_REAL(fstatat64, fstatat_fn)(dirfd, path, (struct stat *)st,
						 flags);
}

/* Pre-2.33 binaries call the versioned __xstat family instead. */
int __xstat(int ver, const char *path, struct stat *st)
{
	REDIRECT(path);

	if (dev_stat(AT_FDCWD, path, st))
		return 0;
	return ISHIM_REAL(__xstat, xstat_fn)(ver, path, st);
}

int __xstat64(int ver, const char *path, struct stat64 *st)
{
	REDIRECT(path);

	if (dev_stat(AT_FDCWD, path, st))
		return 0;
	return ISHIM_REAL(__xstat64, xstat_fn)(ver, path, (struct stat *)st);
}

int __lxstat(int ver, const char *path, struct stat *st)
{
	REDIRECT(path);

	if (dev_stat(AT_FDCWD, path, st))
		return 0;
	return ISHIM_REAL(__lxstat, xstat_fn)(ver, path, st);
}

int __lxstat64(int ver, const char *path, struct stat64 *st)
{
	REDIRECT(path);

	if (dev_stat(AT_FDCWD, path, st))
		return 0;
	return ISHIM_REAL(__lxstat64, xstat_fn)(ver, path, (struct stat *)st);
}

int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags)
{
	REDIRECT(path);

	if (dev_stat(dirfd, path, st))
		return 0;
	return ISHIM_REAL(__fxstatat, fxstatat_fn)(ver, dirfd, path, st, flags);
}

int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st,
		 int flags)
{
	REDIRECT(path);

	if (dev_stat(dirfd, path, st))
		return 0;
	return ISHIM_REAL(__fxstatat64, fxstatat_fn)(ver, dirfd, path,
						     (struct stat *)st, flags);
}

typedef int (*statx_fn)(int, const char *, int, unsigned int, struct statx *);

int statx(int dirfd, const char *path, int flags, unsigned int mask,
	  struct statx *stx)
{
	REDIRECT(path);

	if (is_dev(dirfd, path)) {
		memset(stx, 0, sizeof(*stx));
		stx->stx_mask = STATX_BASIC_STATS;
		stx->stx_blksize = 4096;
		stx->stx_nlink = 1;
		stx->stx_mode = S_IFCHR | 0666;
		stx->stx_ino = 0x1b0000;
		stx->stx_rdev_major = ishim_cm_path(path) ? IK_UCMA_CDEV_MAJOR :
							    ISHIM_CDEV_MAJOR;
		stx->stx_rdev_minor = ishim_cm_path(path) ? IK_UCMA_CDEV_MINOR :
							    ISHIM_CDEV_MINOR;
		stx->stx_dev_minor = 5;
		return 0;
	}
	return ISHIM_REAL(statx, statx_fn)(dirfd, path, flags, mask, stx);
}

typedef int (*access_fn)(const char *, int);
typedef int (*faccessat_fn)(int, const char *, int, int);

int access(const char *path, int mode)
{
	REDIRECT(path);

	if (is_dev(AT_FDCWD, path))
		return (mode & X_OK) ? (errno = EACCES, -1) : 0;
	return ISHIM_REAL(access, access_fn)(path, mode);
}

int faccessat(int dirfd, const char *path, int mode, int flags)
{
	REDIRECT(path);

	if (is_dev(dirfd, path))
		return (mode & X_OK) ? (errno = EACCES, -1) : 0;
	return ISHIM_REAL(faccessat, faccessat_fn)(dirfd, path, mode, flags);
}

/* ---- open ---------------------------------------------------------------- */

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);

static int dev_open(int devidx, int flags)
{
	struct ik_file *f;
	int fd, rc;

	rc = ishim_shim_model_init();
	if (rc < 0)
		goto fail;
	/* A real character device (1:3) as the descriptor: fstat, poll and
	 * O_CLOEXEC all behave naturally; write/ioctl/mmap are ours. */
	fd = ISHIM_REAL(open, open_fn)("/dev/null",
				       O_RDWR | (flags & O_CLOEXEC));
	if (fd < 0)
		return -1;
	rc = ik_file_open(devidx, &f);
	if (rc < 0) {
		close(fd);
		goto fail;
	}
	rc = ishim_fd_track_new(fd, f);
	if (rc < 0) {
		ik_file_release(f);
		close(fd);
		goto fail;
	}
	return fd;
fail:
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_FD, "open uverbs%d failed: %s", devidx,
			   strerror(-rc));
	errno = -rc;
	return -1;
}

/* The rdma_cm device: the model first, as for uverbs. */
static int cm_open(int flags)
{
	int rc = ishim_shim_model_init();

	if (rc < 0) {
		errno = -rc;
		return -1;
	}
	return ishim_cm_open(flags);
}

static mode_t open_mode(int flags, va_list ap)
{
	return (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
}

/* REDIRECT, and the open of a hardware counter (a redirected path: the
 * rare case) returns at once.  No local of the hook's frame has its
 * address taken: a hook may run before a sanitizer's shadow exists
 * (ishim_sys_redirect). */
#define COUNTER_OR_REDIRECT(path, flags)                                \
	const char *given_ = path;                                      \
	REDIRECT(path);                                                 \
	if (path != given_) {                                           \
		int counter_fd_ = ishim_hw_counter_open(given_, flags); \
		if (counter_fd_ != ISHIM_NOT_COUNTER)                   \
			return counter_fd_;                             \
	}

/*
 * Every open entry point: the device path opens the emulated device,
 * anything else goes to libc's function of the same name.  OPEN_HOOKS(fn)
 * defines fn(path, flags, ...) and its _FORTIFY_SOURCE form __fn_2(path,
 * flags), which has no mode; OPENAT_HOOKS the same with a dirfd first.
 * Each needs its own ISHIM_REAL, hence a macro rather than a helper.
 */
#define OPEN_HOOKS(fn)                                               \
	int fn(const char *path, int flags, ...)                     \
	{                                                            \
		int idx = ishim_dev_path_index(path);                \
		va_list ap;                                          \
		mode_t mode;                                         \
		COUNTER_OR_REDIRECT(path, flags);                    \
                                                                     \
		if (ishim_cm_path(path))                             \
			return cm_open(flags);                       \
		if (idx >= 0)                                        \
			return dev_open(idx, flags);                 \
		va_start(ap, flags);                                 \
		mode = open_mode(flags, ap);                         \
		va_end(ap);                                          \
		return ISHIM_REAL(fn, open_fn)(path, flags, mode);   \
	}                                                            \
                                                                     \
	int __##fn##_2(const char *path, int flags)                  \
	{                                                            \
		int idx = ishim_dev_path_index(path);                \
		COUNTER_OR_REDIRECT(path, flags);                    \
                                                                     \
		if (ishim_cm_path(path))                             \
			return cm_open(flags);                       \
		if (idx >= 0)                                        \
			return dev_open(idx, flags);                 \
		return ISHIM_REAL(__##fn##_2, open_fn)(path, flags); \
	}

#define OPENAT_HOOKS(fn)                                                      \
	int fn(int dirfd, const char *path, int flags, ...)                   \
	{                                                                     \
		int idx = ishim_dev_path_index(path);                         \
		va_list ap;                                                   \
		mode_t mode;                                                  \
		COUNTER_OR_REDIRECT(path, flags);                             \
                                                                              \
		if (ishim_cm_path(path))                                      \
			return cm_open(flags);                                \
		if (idx >= 0)                                                 \
			return dev_open(idx, flags);                          \
		va_start(ap, flags);                                          \
		mode = open_mode(flags, ap);                                  \
		va_end(ap);                                                   \
		return ISHIM_REAL(fn, openat_fn)(dirfd, path, flags, mode);   \
	}                                                                     \
                                                                              \
	int __##fn##_2(int dirfd, const char *path, int flags)                \
	{                                                                     \
		int idx = ishim_dev_path_index(path);                         \
		COUNTER_OR_REDIRECT(path, flags);                             \
                                                                              \
		if (ishim_cm_path(path))                                      \
			return cm_open(flags);                                \
		if (idx >= 0)                                                 \
			return dev_open(idx, flags);                          \
		return ISHIM_REAL(__##fn##_2, openat_fn)(dirfd, path, flags); \
	}

OPEN_HOOKS(open)
OPEN_HOOKS(open64)
OPENAT_HOOKS(openat)
OPENAT_HOOKS(openat64)

/* ---- directories and stdio (glibc opens internally: not interposable) ---- */

typedef DIR *(*opendir_fn)(const char *);
typedef FILE *(*fopen_fn)(const char *, const char *);

DIR *opendir(const char *path)
{
	REDIRECT(path);

	return ISHIM_REAL(opendir, opendir_fn)(path);
}

/* fopen of a redirected path (glibc's fopen opens internally, so a
 * hardware counter is opened here): the counter as a stream, or the
 * real fopen (which 0) or fopen64 (which 1) of the rewritten path. */
static __attribute__((noinline)) FILE *redirected_fopen(const char *given,
							const char *path,
							const char *mode,
							int which)
{
	int flags = (mode[0] == 'r' && !strchr(mode, '+')) ? O_RDONLY : O_RDWR;
	FILE *f;
	int fd;

	if (strchr(mode, 'e'))
		flags |= O_CLOEXEC;
	fd = ishim_hw_counter_open(given, flags);
	if (fd == ISHIM_NOT_COUNTER)
		return which ? ISHIM_REAL(fopen64, fopen_fn)(path, mode) :
			       ISHIM_REAL(fopen, fopen_fn)(path, mode);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, mode);
	if (!f)
		close(fd);
	return f;
}

FILE *fopen(const char *path, const char *mode)
{
	const char *given = path;

	REDIRECT(path);
	if (path != given)
		return redirected_fopen(given, path, mode, 0);
	return ISHIM_REAL(fopen, fopen_fn)(path, mode);
}

FILE *fopen64(const char *path, const char *mode)
{
	const char *given = path;

	REDIRECT(path);
	if (path != given)
		return redirected_fopen(given, path, mode, 1);
	return ISHIM_REAL(fopen64, fopen_fn)(path, mode);
}
