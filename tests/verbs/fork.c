// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * fork() while QPs exist: the child inherits copies of the emulated
 * device's fds, but a QP belongs to the parent alone.  Once the parent
 * destroys its QP, the QP's fabric name must be free again even while the
 * child lives, so that peers see the QP gone and the number can be reused.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "verbs_fixture.h"

/* Is some socket bound to an abstract name ending in "/<qpn>" of our node? */
static int qpn_bound(uint32_t qpn)
{
	const char *node = getenv("IONIC_SIM_NODE");
	const char *fabric = getenv("IONIC_SIM_FABRIC");
	char want[128], line[512];
	int found = 0;
	FILE *f;

	snprintf(want, sizeof(want), "@ionic-sim/%s/%s/%u\n",
		 fabric ? fabric : "default", node ? node : "?", qpn);
	f = fopen("/proc/net/unix", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		size_t l = strlen(line), w = strlen(want);

		if (l >= w && !strcmp(line + l - w, want))
			found = 1;
	}
	fclose(f);
	return found;
}

int main(void)
{
	struct fx_qp_opts o;
	struct fx_pair p;
	uint32_t qpn;
	int status, pipefd[2], ready[2];
	pid_t child;
	char c;

	SECTION("a destroyed QP's fabric name is free while a fork child lives");
	fx_qp_opts_default(&o, IBV_QPT_RC);
	fx_pair_create(&p, NULL, NULL, &o, 4096);
	fx_pair_connect(&p);
	qpn = p.qp[0]->qp_num;
	REQUIRE_EQ(qpn_bound(qpn), 1);

	REQUIRE(pipe(pipefd) == 0 && pipe(ready) == 0);
	child = fork();
	REQUIRE(child >= 0);
	if (child == 0) {
		/* fork() has returned here, so the emulator's atfork handlers
		 * are done: tell the parent, then hold the inherited fds until
		 * the parent closes the pipe */
		close(pipefd[1]);
		close(ready[0]);
		if (write(ready[1], "r", 1) != 1)
			_exit(2);
		while (read(pipefd[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(pipefd[0]);
	close(ready[1]);
	REQUIRE(read(ready[0], &c, 1) == 1);
	close(ready[0]);

	fx_pair_destroy(&p);
	CHECK_EQ(qpn_bound(qpn), 0);

	close(pipefd[1]);
	REQUIRE(waitpid(child, &status, 0) == child);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	return check_finish();
}
