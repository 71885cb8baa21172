// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: the process' IB CM agent (proto.h) - one
 * thread that polls the agent endpoint and every listen endpoint, hands
 * each message to ik_cm_input() and resends what waits for an answer
 * (ik_cm_retry), all under ik_cm_lock.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "../../common/sys.h"
#include "proto.h"

#define AGENT_MAX_FDS 256

static struct {
	bool running;
	int wake; /* eventfd: the endpoint set changed */
	struct ifab_ep ep;
} agent = { .wake = -1, .ep = { .fd = -1 } };

/* Some listen endpoint of this process was closed (see
 * ik_cm_listen_open). */
static bool closed_listeners;

struct ifab_ep *ik_cm_agent_ep(void)
{
	return &agent.ep;
}

void ik_cm_agent_kick(void)
{
	uint64_t one = 1;

	if (agent.wake >= 0)
		(void)!isim_sys_write(agent.wake, &one, sizeof(one));
}

/* Read everything waiting on ep (ik_cm_lock held). */
static void drain(struct ifab_ep *ep, struct ik_cm_id *listener)
{
	struct ik_cm_msg m;
	int rc;

	for (int i = 0; i < 64; i++) {
		rc = ik_cm_wire_recv(ep, &m);
		if (rc == 0 || (rc < 0 && rc != -EAGAIN))
			return;
		if (rc == 1)
			ik_cm_input(&m, listener);
		/* a listener destroyed by what it received */
		if (listener && listener->lep.fd < 0)
			return;
	}
}

static void *agent_main(void *arg)
{
	struct pollfd p[AGENT_MAX_FDS];
	uint32_t owner[AGENT_MAX_FDS]; /* id handle per pollfd */

	(void)arg;
	for (;;) {
		nfds_t n = 2;
		int timeout = -1;

		pthread_mutex_lock(&ik_cm_lock);
		if (!agent.running) {
			pthread_mutex_unlock(&ik_cm_lock);
			return NULL;
		}
		p[0] = (struct pollfd){ .fd = agent.wake, .events = POLLIN };
		p[1] = (struct pollfd){ .fd = agent.ep.fd, .events = POLLIN };
		for (uint32_t h = 0; h < ik_cm_nids && n < AGENT_MAX_FDS; h++)
			if (ik_cm_ids[h] && ik_cm_ids[h]->lep.fd >= 0) {
				owner[n] = h;
				p[n++] = (struct pollfd){
					.fd = ik_cm_ids[h]->lep.fd,
					.events = POLLIN
				};
			}
		if (ifab_backlogged(&agent.ep))
			timeout = 10;
		for (uint32_t h = 0; h < ik_cm_nids; h++)
			if (ik_cm_ids[h] && ik_cm_ids[h]->rtx_due) {
				uint64_t now = ik_cm_now_ns();
				uint64_t due = ik_cm_ids[h]->rtx_due;
				int ms = due > now ?
						 (int)((due - now) / 1000000) +
							 1 :
						 0;

				if (timeout < 0 || ms < timeout)
					timeout = ms;
			}
		pthread_mutex_unlock(&ik_cm_lock);

		if (poll(p, n, timeout) < 0 && errno != EINTR)
			continue;

		pthread_mutex_lock(&ik_cm_lock);
		if (p[0].revents & POLLIN) {
			uint64_t v;

			(void)!isim_sys_read(agent.wake, &v, sizeof(v));
		}
		ifab_flush(&agent.ep);
		for (uint32_t h = 0; h < ik_cm_nids; h++)
			if (ik_cm_ids[h] && ik_cm_ids[h]->rtx_due)
				ik_cm_retry(ik_cm_ids[h], ik_cm_now_ns());
		if (p[1].revents & POLLIN)
			drain(&agent.ep, NULL);
		for (nfds_t i = 2; i < n; i++) {
			struct ik_cm_id *l = owner[i] < ik_cm_nids ?
						     ik_cm_ids[owner[i]] :
						     NULL;

			if ((p[i].revents & POLLIN) && l &&
			    l->lep.fd == p[i].fd)
				drain(&l->lep, l);
		}
		pthread_mutex_unlock(&ik_cm_lock);
	}
}

int ik_cm_agent_start(void)
{
	pthread_attr_t attr;
	pthread_t th;
	int rc = -EADDRINUSE;

	if (agent.running)
		return 0;
	for (uint32_t k = 1; k < 4096 && rc == -EADDRINUSE; k++)
		rc = ik_cm_wire_open(&agent.ep, ik_cm_own_node(),
				     IK_CM_AGENT_QPN + k);
	if (rc)
		return rc;
	agent.wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (agent.wake < 0) {
		rc = -errno;
		goto fail;
	}
	agent.running = true;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	rc = -pthread_create(&th, &attr, agent_main, NULL);
	pthread_attr_destroy(&attr);
	if (!rc)
		return 0;
	agent.running = false;
	isim_sys_close(agent.wake);
	agent.wake = -1;
fail:
	ik_cm_wire_close(&agent.ep);
	return rc;
}

void ik_cm_agent_atfork_child(void)
{
	/* the thread did not come along; its endpoint is the parent's */
	if (agent.ep.fd >= 0)
		isim_sys_close(agent.ep.fd);
	if (agent.wake >= 0)
		isim_sys_close(agent.wake);
	memset(&agent, 0, sizeof(agent));
	agent.wake = -1;
	agent.ep.fd = -1;
}

int ik_cm_listen_open(struct ik_cm_id *ctx)
{
	int rc = ik_cm_agent_start();

	if (rc)
		return rc;
	/* A listen endpoint of ours closed a moment ago keeps its address
	 * while the agent's poll() still holds it: wake the agent and let
	 * that poll return before calling the port taken. */
	for (int i = 0; i < 50; i++) {
		rc = ik_cm_wire_open(
			&ctx->lep, ik_cm_own_node(),
			ik_cm_listen_qpn(ctx->ps, ik_cm_addr_port(&ctx->src)));
		if (rc != -EADDRINUSE || !closed_listeners)
			break;
		ik_cm_agent_kick();
		usleep(1000);
	}
	if (rc) {
		ctx->lep.fd = -1;
		return rc;
	}
	ik_cm_agent_kick();
	return 0;
}

void ik_cm_listen_close(struct ik_cm_id *ctx)
{
	if (ctx->lep.fd < 0)
		return;
	ik_cm_wire_close(&ctx->lep);
	ctx->lep.fd = -1;
	closed_listeners = true;
	ik_cm_agent_kick();
}
