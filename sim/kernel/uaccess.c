// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * copy_from_user / copy_to_user for the emulated kernel.  The model runs
 * inside the application, so a pointer an application hands to write(),
 * ioctl() or in a command (the response buffer) is dereferenced in the
 * same address space; a bad one must come back as EFAULT, as from the
 * kernel, and never fault inside the emulator.  process_vm_readv/writev
 * on our own pid copy with the kernel's own checks and fail with EFAULT
 * instead of faulting.  Where they are not allowed (a seccomp filter),
 * the mapping check of ik_user_mapped() and a plain copy stand in.
 * A command an export serves (uverbs/export.c) names the importer's memory: the
 * same calls on its pid, with no stand-in.  Pinning memory for the device
 * is the same address for our own caller; an importer's pages are made
 * shared memory that we map (ik_caller_pin).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../common/sys.h"
#include "kpriv.h"

/* One copy between our buffer 'kbuf' and the caller's 'uaddr'. */
static int uaccess(void *kbuf, uint64_t uaddr, size_t len, bool to_user)
{
	struct iovec local = { .iov_base = kbuf, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)uaddr,
				.iov_len = len };
	void *ubuf = (void *)(uintptr_t)uaddr;
	pid_t pid = ik_caller ? ik_caller->pid : getpid();
	ssize_t n;

	if (!len)
		return 0;
	if (!uaddr || uaddr + len < uaddr)
		return -EFAULT;
	n = to_user ? process_vm_writev(pid, &local, 1, &remote, 1, 0) :
		      process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (n == (ssize_t)len)
		return 0;
	/* partly accessible, or not at all */
	if (n >= 0 || ik_caller || (errno != ENOSYS && errno != EPERM))
		return -EFAULT;
	if (!ik_user_mapped(uaddr, len))
		return -EFAULT;
	memcpy(to_user ? ubuf : kbuf, to_user ? kbuf : ubuf, len);
	return 0;
}

int ik_copy_from_user(void *dst, uint64_t uaddr, size_t len)
{
	return uaccess(dst, uaddr, len, false);
}

int ik_copy_to_user(uint64_t uaddr, const void *src, size_t len)
{
	return uaccess((void *)src, uaddr, len, true);
}

int ik_user_writable(uint64_t uaddr, size_t len)
{
	uint8_t *tmp;
	int rc;

	if (!len)
		return 0;
	tmp = malloc(len);
	if (!tmp)
		return -ENOMEM;
	/* the bytes go back unchanged: the caller's buffer keeps them */
	rc = ik_copy_from_user(tmp, uaddr, len);
	if (!rc)
		rc = ik_copy_to_user(uaddr, tmp, len);
	free(tmp);
	return rc;
}

int ik_pin_user(uint64_t uaddr, uint64_t len, struct ik_pin *p)
{
	uint64_t pages = (len + IK_PAGE_SIZE - 1) & ~(IK_PAGE_SIZE - 1);
	struct stat st;
	int fd, seals;
	void *m;

	p->addr = (uint8_t *)(uintptr_t)uaddr;
	p->maplen = 0;
	if (!ik_caller)
		return 0;
	/* ib_umem_get pins whole pages */
	if (!pages || pages < len || pages > SIZE_MAX)
		return -EINVAL;
	fd = ik_caller_pin(uaddr, pages);
	if (fd < 0)
		return fd;
	/* the importer's memfd, sealed so that it cannot shrink under the
	 * device (a page gone would be SIGBUS in our engine) */
	seals = isim_sys_fcntl(fd, F_GET_SEALS, 0);
	if (seals < 0 || !(seals & F_SEAL_SHRINK) || isim_sys_fstat(fd, &st) ||
	    !S_ISREG(st.st_mode) || (uint64_t)st.st_size < pages) {
		isim_sys_close(fd);
		return -EFAULT;
	}
	m = isim_sys_mmap(NULL, (size_t)pages, PROT_READ | PROT_WRITE,
			  MAP_SHARED, fd, 0);
	isim_sys_close(fd);
	if (m == MAP_FAILED)
		return -ENOMEM;
	p->addr = m;
	p->maplen = (size_t)pages;
	return 0;
}

void ik_unpin(struct ik_pin *p)
{
	ik_ring_unshare(p);
	if (p->maplen)
		isim_sys_munmap(p->addr, p->maplen);
	p->addr = NULL;
	p->maplen = 0;
}
