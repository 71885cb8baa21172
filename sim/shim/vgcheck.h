/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim under valgrind memcheck: the checks a real system call gets.
 *
 * Memcheck checks the buffers a program hands to the kernel (write(2)'s
 * whole buffer, for instance) and reports uninitialised bytes there.  Our
 * interposers take the uverbs write()/ioctl() away from the kernel, so
 * without this memcheck would only see uninitialised request bytes when
 * the model happens to branch on them: a reserved field or a value the
 * model merely stores would go unnoticed, unlike on a real system.
 *
 * ISHIM_CHECK_DEFINED(addr, len, what) reports uninitialised bytes in
 * [addr, addr+len) as a memcheck error with the caller's stack, the way
 * "Syscall param write(buf) points to uninitialised byte(s)" would.  A
 * handful of instructions and no effect outside valgrind; compiled out
 * without <valgrind/memcheck.h>.
 */
#ifndef ISHIM_SHIM_VGCHECK_H
#define ISHIM_SHIM_VGCHECK_H

#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define ISHIM_HAVE_MEMCHECK 1
#endif
#endif

#ifdef ISHIM_HAVE_MEMCHECK
/* "what" names the check in the source only; memcheck's report shows the
 * stack of the interposed call, which is what points at the culprit. */
#define ISHIM_CHECK_DEFINED(addr, len, what) \
	((void)(what), (void)VALGRIND_CHECK_MEM_IS_DEFINED((addr), (len)))
#else
#define ISHIM_CHECK_DEFINED(addr, len, what) \
	((void)(addr), (void)(len), (void)(what))
#endif

#endif /* ISHIM_SHIM_VGCHECK_H */
