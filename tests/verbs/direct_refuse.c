// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Make this process one whose memory its peers may not touch, before it
 * opens a device: the cases in which ionic-sim's direct path must fall
 * back to packets (sim/README.md "Direct path", "When the packet path is
 * used").  IONIC_TEST_DIRECT_REFUSE says how:
 *
 *   nondump   prctl(PR_SET_DUMPABLE, 0): the kernel refuses other
 *             processes of the same user /proc/PID/fd and process_vm_*
 *             (a setuid program, or one that asked, is so);
 *   pvm-eperm process_vm_readv/_writev fail with EPERM in this process (a
 *             seccomp filter), as Yama's ptrace_scope makes them fail for
 *             a peer that is not our ancestor, with /proc/PID/fd still
 *             readable: the probe's step, not the open, is refused;
 *   noptrace  nothing but the capability below, for observing a real
 *             Yama policy (tests/e2e/direct_compare.sh, mode yama).
 *
 * Every one also drops CAP_SYS_PTRACE, so that a test run as root (CI) is
 * held to the policy as any user is: the capability overrides both the
 * dumpable flag and Yama.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "check.h"
#include "direct_refuse.h"

static void drop_ptrace_cap(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	const uint32_t bit = 1u << CAP_SYS_PTRACE; /* in the first word */

	REQUIRE(syscall(SYS_capget, &h, d) == 0);
	d[0].effective &= ~bit;
	d[0].permitted &= ~bit;
	d[0].inheritable &= ~bit;
	REQUIRE(syscall(SYS_capset, &h, d) == 0);
	/* children (side B is forked) inherit the sets as they are now */
	memset(d, 0, sizeof(d));
	REQUIRE(syscall(SYS_capget, &h, d) == 0);
	REQUIRE(!(d[0].effective & bit) && !(d[0].permitted & bit));
}

static void deny_process_vm(void)
{
#if defined(__x86_64__)
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_readv, 2,
			 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_writev, 1,
			 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]),
				   .filter = f };
	char probe;
	struct iovec l = { &probe, 1 }, r = { &probe, 1 };

	REQUIRE(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0);
	/* every thread: the emulator may have started some already */
	REQUIRE(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			SECCOMP_FILTER_FLAG_TSYNC, &prog) == 0);
	errno = 0;
	REQUIRE(process_vm_readv(getpid(), &l, 1, &r, 1, 0) < 0 &&
		errno == EPERM);
#else
	check_skip("the seccomp filter is written for x86_64");
#endif
}

void direct_refuse_apply(void)
{
	const char *how = getenv("IONIC_TEST_DIRECT_REFUSE");

	if (!how || !*how)
		return;
	drop_ptrace_cap();
	if (!strcmp(how, "nondump")) {
		REQUIRE(prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0);
		REQUIRE(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 0);
	} else if (!strcmp(how, "pvm-eperm")) {
		deny_process_vm();
	} else {
		REQUIRE(!strcmp(how, "noptrace"));
	}
}
