// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: the process' IB CM agent (proto.h) - one
 * thread that polls the agent endpoints (one per NIC) and every listen
 * endpoint, hands
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
	unsigned int nep; /* the host's NICs, once running */
	struct ifab_ep ep[ISIM_MAX_NICS]; /* NIC k's on its node */
} agent = { .wake = -1 };

/* Some listen endpoint of this process was closed (see
 * ik_cm_listen_open). */
static bool closed_listeners;

struct ifab_ep *ik_cm_agent_ep(unsigned int nic)
{
	return &agent.ep[nic < agent.nep ? nic : 0];
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

/* A listener's endpoint on its k-th NIC (lep: its own, or NIC 0's). */
static struct ifab_ep *listen_ep(struct ik_cm_id *l, unsigned int k)
{
	return k ? &l->lep_more[k - 1] : &l->lep;
}

static void *agent_main(void *arg)
{
	struct pollfd p[AGENT_MAX_FDS];
	uint32_t owner[AGENT_MAX_FDS]; /* id handle per pollfd */

	(void)arg;
	for (;;) {
		nfds_t n = 1 + agent.nep;
		int timeout = -1;

		pthread_mutex_lock(&ik_cm_lock);
		if (!agent.running) {
			pthread_mutex_unlock(&ik_cm_lock);
			return NULL;
		}
		p[0] = (struct pollfd){ .fd = agent.wake, .events = POLLIN };
		for (unsigned int k = 0; k < agent.nep; k++) {
			p[1 + k] = (struct pollfd){ .fd = agent.ep[k].fd,
						    .events = POLLIN };
			if (ifab_backlogged(&agent.ep[k]))
				timeout = 10;
		}
		for (uint32_t h = 0; h < ik_cm_nids && n < AGENT_MAX_FDS; h++)
			for (unsigned int k = 0;
			     ik_cm_ids[h] && k < ISIM_MAX_NICS &&
			     n < AGENT_MAX_FDS;
			     k++) {
				struct ifab_ep *ep = listen_ep(ik_cm_ids[h], k);

				if (ep->fd < 0)
					continue;
				owner[n] = h;
				p[n++] = (struct pollfd){ .fd = ep->fd,
							  .events = POLLIN };
			}
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
		for (unsigned int k = 0; k < agent.nep; k++)
			ifab_flush(&agent.ep[k]);
		for (uint32_t h = 0; h < ik_cm_nids; h++)
			if (ik_cm_ids[h] && ik_cm_ids[h]->rtx_due)
				ik_cm_retry(ik_cm_ids[h], ik_cm_now_ns());
		for (unsigned int k = 0; k < agent.nep; k++)
			if (p[1 + k].revents & POLLIN)
				drain(&agent.ep[k], NULL);
		for (nfds_t i = 1 + agent.nep; i < n; i++) {
			struct ik_cm_id *l = owner[i] < ik_cm_nids ?
						     ik_cm_ids[owner[i]] :
						     NULL;

			for (unsigned int k = 0;
			     (p[i].revents & POLLIN) && l && l->lep.fd >= 0 &&
			     k < ISIM_MAX_NICS;
			     k++)
				if (listen_ep(l, k)->fd == p[i].fd)
					drain(listen_ep(l, k), l);
		}
		pthread_mutex_unlock(&ik_cm_lock);
	}
}

int ik_cm_agent_start(void)
{
	const struct ik_host *h = ik_host_get();
	pthread_attr_t attr;
	pthread_t th;
	int rc = 0;

	if (agent.running)
		return 0;
	/* a free agent QPN on each NIC's node (other processes of the
	 * host hold some) */
	for (agent.nep = 0; !rc && agent.nep < h->nnics; agent.nep++) {
		rc = -EADDRINUSE;
		for (uint32_t q = 1; q < 4096 && rc == -EADDRINUSE; q++)
			rc = ik_cm_wire_open(&agent.ep[agent.nep],
					     ik_cm_own_node(agent.nep),
					     IK_CM_AGENT_QPN + q);
		if (rc)
			goto fail;
	}
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
	while (agent.nep--)
		ik_cm_wire_close(&agent.ep[agent.nep]);
	agent.nep = 0;
	return rc;
}

void ik_cm_agent_atfork_child(void)
{
	/* the thread did not come along; its endpoints are the parent's */
	for (unsigned int k = 0; k < agent.nep; k++)
		if (agent.ep[k].fd >= 0)
			isim_sys_close(agent.ep[k].fd);
	if (agent.wake >= 0)
		isim_sys_close(agent.wake);
	memset(&agent, 0, sizeof(agent));
	agent.wake = -1;
}

static int listen_one(struct ik_cm_id *ctx, struct ifab_ep *ep, uint32_t node)
{
	int rc = 0;

	/* A listen endpoint of ours closed a moment ago keeps its address
	 * while the agent's poll() still holds it: wake the agent and let
	 * that poll return before calling the port taken. */
	for (int i = 0; i < 50; i++) {
		rc = ik_cm_wire_open(
			ep, node,
			ik_cm_listen_qpn(ctx->ps, ik_cm_addr_port(&ctx->src)));
		if (rc != -EADDRINUSE || !closed_listeners)
			break;
		ik_cm_agent_kick();
		usleep(1000);
	}
	if (rc)
		ep->fd = -1;
	return rc;
}

int ik_cm_listen_open(struct ik_cm_id *ctx)
{
	const struct ik_host *h = ik_host_get();
	int rc = ik_cm_agent_start();

	if (rc)
		return rc;
	/* bound to an address: that NIC's node; else every NIC's */
	for (unsigned int k = 0; !rc && k < h->nnics; k++) {
		if (ctx->has_dev && k)
			break;
		rc = listen_one(ctx, listen_ep(ctx, k),
				ik_cm_own_node(ctx->has_dev ? ctx->dev : k));
	}
	if (rc) {
		ik_cm_listen_close(ctx);
		return rc;
	}
	ik_cm_agent_kick();
	return 0;
}

void ik_cm_listen_close(struct ik_cm_id *ctx)
{
	bool closed = false;

	for (unsigned int k = 0; k < ISIM_MAX_NICS; k++) {
		struct ifab_ep *ep = listen_ep(ctx, k);

		if (ep->fd < 0)
			continue;
		ik_cm_wire_close(ep);
		ep->fd = -1;
		closed = true;
	}
	if (!closed)
		return;
	closed_listeners = true;
	ik_cm_agent_kick();
}
