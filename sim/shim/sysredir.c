// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * /sys paths programs hard-code (pyverbs' device/net lookup, UCX's GID
 * types and netdev files, `ls` started from a test) mapped into the
 * launcher's fake tree, $SYSFS_PATH, which libibverbs itself reads
 * (docs/kernel-contract.md §20).  Only the RDMA classes and the NIC's own
 * interface move: the rest of /sys stays the host's.  The port's
 * hardware-counter files are the exception to a plain file: their open
 * gets the value of the moment, as sysfs computes it on each read.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../common/sys.h"

#include "shim.h"

/* 'path' starts with 'prefix' followed by the end or a '/'. */
static bool under(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);

	return !strncmp(path, prefix, n) && (!path[n] || path[n] == '/');
}

/* The rewritten path: one per thread, used by the interposer at once. */
static __thread char redirect_buf[4096];

static __attribute__((noinline)) const char *redirect(const char *path)
{
	size_t len = sizeof(redirect_buf);
	char *buf = redirect_buf;
	const struct ik_netdev *nd;
	bool ours = under(path, "/sys/class/infiniband") ||
		    under(path, "/sys/class/infiniband_verbs");
	char net[64];
	const char *root;

	for (unsigned int k = 0; !ours && (nd = ik_netdev_get(k)); k++) {
		snprintf(net, sizeof(net), "/sys/class/net/%s", nd->name);
		ours = under(path, net);
	}
	if (!ours)
		return path;
	root = getenv("SYSFS_PATH");
	if (!root || !*root || !strcmp(root, "/sys"))
		return path;
	if ((size_t)snprintf(buf, len, "%s%s", root, path + 4) >= len)
		return path;
	return buf;
}

/*
 * Every path-taking interposer comes through here first, also from library
 * constructors that run before a sanitizer runtime has mapped its shadow
 * memory (libnl-route's stat("/etc/libnl/classid") in a program linked
 * with libibverbs).  So the common case, a path outside /sys/class, is
 * decided without instrumented memory accesses and with no local array
 * whose red zones would be poisoned in this frame; the rewriting is
 * redirect()'s, reached only for /sys/class paths.
 */
__attribute__((no_sanitize_address)) const char *
ishim_sys_redirect(const char *path)
{
	if (!path || strncmp(path, "/sys/class/", 11))
		return path;
	return redirect(path);
}

int ishim_hw_counter_open(const char *path, int flags)
{
	static const char pre[] = "/sys/class/infiniband/ionic_";
	unsigned int k, i, n = ik_hw_stats_count();
	char text[32];
	uint64_t v;
	char *end;
	int fd, len;

	if (strncmp(path, pre, sizeof(pre) - 1))
		return ISHIM_NOT_COUNTER;
	k = (unsigned int)strtoul(path + sizeof(pre) - 1, &end, 10);
	if (end == path + sizeof(pre) - 1 ||
	    strncmp(end, "/ports/1/hw_counters/", 21))
		return ISHIM_NOT_COUNTER;
	for (i = 0; i < n; i++)
		if (!strcmp(end + 21, ik_hw_stat_name(i)))
			break;
	if (i == n || ik_hw_stat_get(k, i, &v))
		return ISHIM_NOT_COUNTER; /* lifespan, or no such NIC */
	if ((flags & O_ACCMODE) != O_RDONLY) {
		errno = EACCES;
		return -1;
	}
	len = snprintf(text, sizeof(text), "%llu\n", (unsigned long long)v);
	fd = memfd_create("hw_counter", flags & O_CLOEXEC ? MFD_CLOEXEC : 0);
	if (fd < 0)
		return -1;
	if (isim_sys_write(fd, text, (size_t)len) != len ||
	    lseek(fd, 0, SEEK_SET) != 0) {
		isim_sys_close(fd);
		errno = EIO;
		return -1;
	}
	return fd;
}
