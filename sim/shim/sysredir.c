// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * /sys paths programs hard-code (pyverbs' device/net lookup, UCX's GID
 * types and netdev files, `ls` started from a test) mapped into the
 * launcher's fake tree, $SYSFS_PATH, which libibverbs itself reads
 * (docs/kernel-contract.md §20).  Only the RDMA classes and the NIC's own
 * interface move: the rest of /sys stays the host's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
