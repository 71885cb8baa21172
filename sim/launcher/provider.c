// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Which provider the command's libibverbs loads: RDMAV_DRIVERS takes a path
 * prefix that libibverbs completes with "-rdmav<its private ABI>.so".  That
 * number is the libibverbs' own, not ours: a provider built with another
 * rdma-core (another ABI) is named by the same prefix and found by the
 * libibverbs it was built for, so every "-rdmav<N>.so" is accepted here.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher.h"

/* Length of the "-rdmav<N>.so" that ends 's', or 0. */
static size_t pabi_suffix_len(const char *s)
{
	const char *dash = strrchr(s, '-'), *p;

	if (!dash || strncmp(dash, "-rdmav", 6))
		return 0;
	p = dash + 6;
	if (!isdigit((unsigned char)*p))
		return 0;
	while (isdigit((unsigned char)*p))
		p++;
	return strcmp(p, ".so") ? 0 : strlen(dash);
}

bool ilaunch_provider_exists(const char *prefix)
{
	const char *slash = strrchr(prefix, '/');
	char dir[PATH_MAX];
	const char *base;
	struct dirent *de;
	bool found = false;
	size_t blen;
	DIR *d;

	if (!slash)
		return false;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - prefix), prefix);
	base = slash + 1;
	blen = strlen(base);
	d = opendir(dir[0] ? dir : "/");
	if (!d)
		return false;
	while (!found && (de = readdir(d)))
		found = !strncmp(de->d_name, base, blen) &&
			pabi_suffix_len(de->d_name) ==
				strlen(de->d_name) - blen;
	closedir(d);
	return found;
}

/* Files are not resolved with realpath(): the provider file is usually a
 * symlink whose target has another name. */
int ilaunch_provider_prefix(const char *path, char *out, size_t len)
{
	char abs[2 * PATH_MAX + 2], cwd[PATH_MAX];
	struct stat st;

	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		if (!realpath(path, abs))
			return -errno;
		return snprintf(out, len, "%s/libionic", abs) < (int)len ?
			       0 :
			       -ENAMETOOLONG;
	}
	if (path[0] == '/')
		snprintf(abs, sizeof(abs), "%s", path);
	else if (getcwd(cwd, sizeof(cwd)))
		snprintf(abs, sizeof(abs), "%s/%s", cwd, path);
	else
		return -errno;
	abs[strlen(abs) - pabi_suffix_len(abs)] = 0;
	return snprintf(out, len, "%s", abs) < (int)len ? 0 : -ENAMETOOLONG;
}
