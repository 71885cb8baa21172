// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The preload's descriptor bookkeeping, run under the launcher with
 * --trace: the uverbs fd and every kind of duplicate reach the model
 * (a malformed command is refused with EINVAL, where the /dev/null behind
 * it would accept it), replaced and closed descriptors stop reaching it,
 * and the open file is released exactly once, on the last close.
 *
 * usage: ionic-sim --trace FILE -- sim-fdtable (tests/run-traced.sh)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

static const char DEV[] = "/dev/infiniband/uverbs0";

/* 1: the model answered (EINVAL for a 4-byte command); 0: plain /dev/null */
static int reaches_model(int fd)
{
	uint32_t junk = 0;
	ssize_t n;

	errno = 0;
	n = write(fd, &junk, sizeof(junk));
	return n < 0 && errno == EINVAL;
}

static int count_lines(const char *path, const char *needle)
{
	char line[4096];
	FILE *f = fopen(path, "r");
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, needle))
			n++;
	fclose(f);
	return n;
}

int main(void)
{
	const char *trace = getenv("IONIC_SIM_TRACE");
	int fd, d1, d2, d3, d4, other, st;
	struct stat sb;
	pid_t pid;

	if (!trace) {
		printf("run under ionic-sim --trace FILE\n");
		return 2;
	}
	fd = open(DEV, O_RDWR | O_CLOEXEC);
	CHECK_MSG(fd >= 0, "open: %s", strerror(errno));
	if (fd < 0)
		return 1;
	CHECK_MSG(fstat(fd, &sb) == 0 && S_ISCHR(sb.st_mode) &&
			  sb.st_rdev == makedev(1, 3),
		  "fstat: char device 1:3");
	CHECK_MSG(reaches_model(fd), "original fd");

	d1 = dup(fd);
	d2 = fcntl(fd, F_DUPFD_CLOEXEC, 100);
	d3 = dup2(fd, 200);
	d4 = dup3(fd, 201, O_CLOEXEC);
	CHECK_MSG(d1 >= 0 && d2 >= 100 && d3 == 200 && d4 == 201, "dups");
	CHECK_MSG(reaches_model(d1) && reaches_model(d2) && reaches_model(d3) &&
			  reaches_model(d4),
		  "every dup reaches the model");

	/* dup2 over a tracked fd: it becomes plain /dev/null */
	other = open("/dev/null", O_WRONLY);
	CHECK_MSG(dup2(other, d3) == d3 && !reaches_model(d3), "dup2 replaces");
	close(other);
	close(d3);

	/* a forked child's copies are its own; closing them there does not
	 * release the parent's file */
	pid = fork();
	if (pid == 0) {
		close(fd);
		close(d1);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child");

	close(fd);
	CHECK_MSG(!reaches_model(fd), "closed fd number no longer tracked");
	CHECK_MSG(reaches_model(d1), "dup survives close of the original");
	CHECK_MSG(close_range(d2, d2, 0) == 0, "close_range");
	close(d1);
	CHECK_MSG(count_lines(trace, "(last: release)") == 0,
		  "released before the last close");
	CHECK_MSG(reaches_model(d4), "last dup");
	close(d4);
	CHECK_MSG(count_lines(trace, "(last: release)") >= 1,
		  "released on the last close");

	/* a second, independent open */
	fd = open(DEV, O_RDWR);
	CHECK_MSG(fd >= 0 && reaches_model(fd), "reopen");
	close(fd);
	return check_finish();
}
