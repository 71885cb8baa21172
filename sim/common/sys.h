/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim: the one gate to the operating system for every layer below
 * the shim (kernel model, device, fabric, common).
 *
 * Inside libionic-sim.so the shim defines read, write, close, send, recv,
 * open, stat, mmap, ... (its interposers), and a call of one of those
 * names from any file of the library binds to the interposer, not to
 * libc: a frame sent by the fabric would pass the shim's netlink check, an
 * eventfd read of the device engine its fd-table lookup, and the kernel
 * and device unit tests, which link without the shim, would run another
 * path than production.  So the layers below the shim never call an
 * interposed name; they call these, which enter the kernel directly
 * (syscall(), not interposed), the same in the preload and in a unit
 * test, at the cost of one system call and nothing more.  Return values
 * and errno are libc's.
 *
 * sim-layering (sim/tests/check_layers.sh) fails when a lower layer's
 * library references a name the shim interposes.  A libc function the
 * shim does not interpose (poll, epoll_wait, socketpair, ftruncate, ...)
 * may be called as it is; when the shim comes to interpose it, the check
 * says so and its wrapper goes here.
 */
#ifndef ISIM_SYS_H
#define ISIM_SYS_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

/*
 * Under ThreadSanitizer the calls that move data through a descriptor,
 * make or close one, or map memory go to TSan's own interceptors
 * (__interceptor_read, ...), which libtsan exports: TSan learns there that
 * threads synchronise through a descriptor (a write happens before the
 * read that sees it) and keeps the shadow of mappings, and a raw system
 * call would hide both from it (the device thread's DMA would look racy
 * against the application that learnt of it from a completion event).
 * The interceptor's own "real" function is the next definition after
 * libtsan in the search order, libc's, so this still passes the shim by.
 */
#if defined(__SANITIZE_THREAD__)
/* ISIM_SYS_CALL(TSAN, RAW): the call of each build */
#define ISIM_SYS_CALL(tsan, raw) (tsan)
int __interceptor_open(const char *path, int flags, ...);
int __interceptor_close(int fd);
ssize_t __interceptor_read(int fd, void *buf, size_t len);
ssize_t __interceptor_write(int fd, const void *buf, size_t len);
void *__interceptor_mmap(void *addr, size_t len, int prot, int flags, int fd,
			 off_t off);
int __interceptor_munmap(void *addr, size_t len);
int __interceptor_socket(int domain, int type, int proto);
ssize_t __interceptor_sendto(int fd, const void *buf, size_t len, int flags,
			     const struct sockaddr *to, socklen_t tolen);
ssize_t __interceptor_recvfrom(int fd, void *buf, size_t len, int flags,
			       struct sockaddr *from, socklen_t *fromlen);
ssize_t __interceptor_sendmsg(int fd, const struct msghdr *msg, int flags);
ssize_t __interceptor_recvmsg(int fd, struct msghdr *msg, int flags);
#else
#define ISIM_SYS_CALL(tsan, raw) (raw)
#endif

/* ---- files ---------------------------------------------------------- */

static inline int isim_sys_open(const char *path, int flags, mode_t mode)
{
	return ISIM_SYS_CALL(__interceptor_open(path, flags, mode),
			     (int)syscall(SYS_openat, AT_FDCWD, path, flags,
					  mode));
}

static inline int isim_sys_close(int fd)
{
	return ISIM_SYS_CALL(__interceptor_close(fd),
			     (int)syscall(SYS_close, fd));
}

static inline ssize_t isim_sys_read(int fd, void *buf, size_t len)
{
	return ISIM_SYS_CALL(__interceptor_read(fd, buf, len),
			     syscall(SYS_read, fd, buf, len));
}

static inline ssize_t isim_sys_write(int fd, const void *buf, size_t len)
{
	return ISIM_SYS_CALL(__interceptor_write(fd, buf, len),
			     syscall(SYS_write, fd, buf, len));
}

static inline int isim_sys_fcntl(int fd, int cmd, long arg)
{
	return (int)syscall(SYS_fcntl, fd, cmd, arg);
}

static inline int isim_sys_ioctl(int fd, unsigned long req, void *arg)
{
	return (int)syscall(SYS_ioctl, fd, req, arg);
}

static inline int isim_sys_fstat(int fd, struct stat *st)
{
	return (int)syscall(SYS_fstat, fd, st);
}

static inline int isim_sys_stat(const char *path, struct stat *st)
{
	return (int)syscall(SYS_newfstatat, AT_FDCWD, path, st, 0);
}

static inline int isim_sys_access(const char *path, int mode)
{
	return (int)syscall(SYS_faccessat, AT_FDCWD, path, mode);
}

/* opendir(): the descriptor from the gate, the stream from libc
 * (fdopendir, and closedir's close, stay inside libc). */
static inline DIR *isim_sys_opendir(const char *path)
{
	int fd = isim_sys_open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	DIR *d;

	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (!d) {
		int err = errno;

		isim_sys_close(fd);
		errno = err;
	}
	return d;
}

/* ---- memory --------------------------------------------------------- */

static inline void *isim_sys_mmap(void *addr, size_t len, int prot, int flags,
				  int fd, off_t off)
{
	return ISIM_SYS_CALL(
		__interceptor_mmap(addr, len, prot, flags, fd, off),
		(void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off));
}

static inline int isim_sys_munmap(void *addr, size_t len)
{
	return ISIM_SYS_CALL(__interceptor_munmap(addr, len),
			     (int)syscall(SYS_munmap, addr, len));
}

/* ---- sockets -------------------------------------------------------- */

static inline int isim_sys_socket(int domain, int type, int proto)
{
	return ISIM_SYS_CALL(__interceptor_socket(domain, type, proto),
			     (int)syscall(SYS_socket, domain, type, proto));
}

static inline int isim_sys_bind(int fd, const struct sockaddr *sa,
				socklen_t len)
{
	return (int)syscall(SYS_bind, fd, sa, len);
}

static inline int isim_sys_getsockname(int fd, struct sockaddr *sa,
				       socklen_t *len)
{
	return (int)syscall(SYS_getsockname, fd, sa, len);
}

static inline int isim_sys_setsockopt(int fd, int level, int name,
				      const void *val, socklen_t len)
{
	return (int)syscall(SYS_setsockopt, fd, level, name, val, len);
}

static inline int isim_sys_getsockopt(int fd, int level, int name, void *val,
				      socklen_t *len)
{
	return (int)syscall(SYS_getsockopt, fd, level, name, val, len);
}

static inline ssize_t isim_sys_send(int fd, const void *buf, size_t len,
				    int flags)
{
	return ISIM_SYS_CALL(__interceptor_sendto(fd, buf, len, flags, NULL, 0),
			     syscall(SYS_sendto, fd, buf, len, flags, NULL, 0));
}

static inline ssize_t isim_sys_sendto(int fd, const void *buf, size_t len,
				      int flags, const struct sockaddr *to,
				      socklen_t tolen)
{
	return ISIM_SYS_CALL(
		__interceptor_sendto(fd, buf, len, flags, to, tolen),
		syscall(SYS_sendto, fd, buf, len, flags, to, tolen));
}

static inline ssize_t isim_sys_recv(int fd, void *buf, size_t len, int flags)
{
	return ISIM_SYS_CALL(
		__interceptor_recvfrom(fd, buf, len, flags, NULL, NULL),
		syscall(SYS_recvfrom, fd, buf, len, flags, NULL, NULL));
}

static inline ssize_t isim_sys_sendmsg(int fd, const struct msghdr *msg,
				       int flags)
{
	return ISIM_SYS_CALL(__interceptor_sendmsg(fd, msg, flags),
			     syscall(SYS_sendmsg, fd, msg, flags));
}

static inline ssize_t isim_sys_recvmsg(int fd, struct msghdr *msg, int flags)
{
	return ISIM_SYS_CALL(__interceptor_recvmsg(fd, msg, flags),
			     syscall(SYS_recvmsg, fd, msg, flags));
}

#endif /* ISIM_SYS_H */
