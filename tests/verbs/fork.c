// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * fork() while QPs exist: the child inherits copies of the emulated
 * device's fds, but a QP belongs to the parent alone.  Once the parent
 * destroys its QP, the QP's fabric name must be free again even while the
 * child lives, so that peers see the QP gone and the number can be reused.
 *
 * Rings ionic-sim moved to shared memory for the direct path
 * (sim/kernel/ringshare.c) are the child's private copies, as the
 * anonymous memory they were: the child trashes its copies, the parent's
 * QPs still work.
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

/* The shared rings of this process (their memfds' names), at most 'max':
 * how many there are. */
static int shared_rings(uint8_t **at, size_t *len, int max)
{
	unsigned long long s, e;
	char line[512];
	int n = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "memfd:ionic-sim-ring-") ||
		    sscanf(line, "%llx-%llx", &s, &e) != 2)
			continue;
		if (n < max) {
			at[n] = (uint8_t *)(uintptr_t)s;
			len[n] = (size_t)(e - s);
		}
		n++;
	}
	fclose(f);
	return n;
}

/* A SEND from side 0 to side 1 of the pair, data checked. */
static void send_one(struct fx_pair *p, uint64_t id)
{
	struct ibv_wc wc;

	fx_fill(p->buf[0], 1024, (unsigned int)id);
	memset(p->buf[1], 0, 1024);
	REQUIRE_EQ(fx_post_recv(p, 1, id, 0, 1024), 0);
	REQUIRE_EQ(fx_post_send(p, 0, id, 0, 1024, IBV_SEND_SIGNALED, false, 0),
		   0);
	fx_poll_one(p->scq[0], &wc, 5000);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	fx_poll_one(p->rcq[1], &wc, 5000);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK_EQ(wc.wr_id, id);
	CHECK_EQ(wc.byte_len, 1024);
	CHECK(!memcmp(p->buf[0], p->buf[1], 1024));
}

static void shared_rings_private_in_child(void)
{
	struct fx_qp_opts o;
	struct fx_pair p;
	uint8_t *at[64];
	size_t len[64];
	int n, status;
	pid_t child;

	SECTION("shared rings are a fork child's private copies");
	fx_qp_opts_default(&o, IBV_QPT_RC);
	fx_pair_create(&p, NULL, NULL, &o, 4096);
	fx_pair_connect(&p);
	send_one(&p, 1);
	n = shared_rings(at, len, 64);
	/* none with the direct path off (IONIC_SIM_DIRECT=0, valgrind) */
	printf("%d shared rings\n", n);
	REQUIRE(n >= 0 && n <= 64);
	child = fork();
	REQUIRE(child >= 0);
	if (child == 0) {
		/* ours to trash; still shared, it would be the parent's */
		for (int i = 0; i < n; i++)
			memset(at[i], 0xff, len[i]);
		_exit(shared_rings(at, len, 0) == 0 ? 0 : 3);
	}
	REQUIRE(waitpid(child, &status, 0) == child);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_EQ(shared_rings(at, len, 0), n);
	send_one(&p, 2);
	fx_pair_destroy(&p);
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

	shared_rings_private_in_child();
	return check_finish();
}
