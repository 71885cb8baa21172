// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Per-run resources of the launcher: the fabric node id (an abstract unix
 * socket name, which the kernel frees when the last descriptor closes,
 * so nothing can leak on disk) and the private run directory.
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "launcher.h"

#define MAX_NODE 65535 /* node ids are MAC/GID bytes hi.lo */

uint32_t ilaunch_node_claim(const char *fabric, int *out)
{
	struct sockaddr_un sa;

	for (uint32_t n = 1; n <= MAX_NODE; n++) {
		int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		socklen_t len;
		int k;

		if (fd < 0)
			return 0;
		memset(&sa, 0, sizeof(sa));
		sa.sun_family = AF_UNIX;
		/* sun_path[0] = 0: abstract namespace */
		k = snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1,
			     "ionic-sim/%s/node/%u", fabric, n);
		if (k < 0 || k >= (int)sizeof(sa.sun_path) - 1) {
			close(fd);
			return 0;
		}
		len = offsetof(struct sockaddr_un, sun_path) + 1 + k;
		if (bind(fd, (struct sockaddr *)&sa, len) == 0) {
			*out = fd;
			return n;
		}
		close(fd);
		if (errno != EADDRINUSE)
			return 0;
	}
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int type,
		  struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		return rmdir(path) && errno != ENOENT ? -1 : 0;
	return unlink(path) && errno != ENOENT ? -1 : 0;
}

int ilaunch_rundir_remove(const char *path)
{
	if (nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS) && errno != ENOENT)
		return -errno;
	return 0;
}

static const char *tmp_root(void)
{
	const char *t = getenv("TMPDIR");

	return t && *t ? t : "/tmp";
}

/* Directories of launchers killed with SIGKILL (the only way ours can be
 * left behind): "ionic-sim.<pid>.XXXXXX" whose pid is gone, owned by us. */
static void sweep_stale(const char *root)
{
	DIR *d = opendir(root);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[4096];
		struct stat st;
		char *end;
		long pid;

		if (strncmp(e->d_name, "ionic-sim.", 10))
			continue;
		pid = strtol(e->d_name + 10, &end, 10);
		if (pid <= 0 || *end != '.')
			continue;
		if (kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", root, e->d_name);
		if (lstat(path, &st) || !S_ISDIR(st.st_mode) ||
		    st.st_uid != geteuid())
			continue;
		ilaunch_rundir_remove(path);
	}
	closedir(d);
}

int ilaunch_rundir_create(char *path, size_t len)
{
	const char *root = tmp_root();
	int n;

	sweep_stale(root);
	n = snprintf(path, len, "%s/ionic-sim.%d.XXXXXX", root, (int)getpid());
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	if (!mkdtemp(path))
		return -errno;
	return 0;
}
