// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim fabric core: endpoints, their order-keeping backlog and
 * counters, over whichever transport the endpoint was opened on.  See
 * fabric.h for the model.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/profile.h"
#include "fabric.h"
#include "pcap.h"

struct ifab_pend {
	struct ifab_pend *next;
	uint8_t gid[16];
	uint32_t qpn;
	size_t len;
	uint8_t data[];
};

const char *ifab_name(void)
{
	const char *name = getenv(ISIM_ENV_FABRIC);

	return name && *name ? name : "default";
}

int ifab_open(struct ifab_ep *ep, const struct ifab_transport *tp,
	      uint32_t node, uint32_t qpn)
{
	int rc;

	memset(ep, 0, sizeof(*ep));
	ep->fd = -1;
	ep->txfd = -1;
	ep->tp = tp ? tp : &ifab_unix_transport;
	ep->node = node;
	ep->qpn = qpn;
	rc = ep->tp->bind(ep, node, qpn);
	if (rc)
		ep->fd = ep->txfd = -1;
	return rc;
}

void ifab_close(struct ifab_ep *ep)
{
	ifab_drop_backlog(ep);
	if (ep->fd >= 0 && ep->tp)
		ep->tp->close(ep);
	ep->fd = ep->txfd = -1;
	ep->connected = false;
	ep->want_peer = false;
}

void ifab_set_peer(struct ifab_ep *ep, const uint8_t gid[16], uint32_t qpn)
{
	if (ifab_is_peer(ep, gid, qpn))
		return;
	ep->tp->unpeer(ep);
	ep->want_peer = true;
	memcpy(ep->peer_gid, gid, 16);
	ep->peer_qpn = qpn;
}

void ifab_clear_peer(struct ifab_ep *ep)
{
	ep->tp->unpeer(ep);
	ep->want_peer = false;
}

static int fab_xmit(struct ifab_ep *ep, const uint8_t gid[16], uint32_t qpn,
		    const void *buf, size_t len)
{
	if (ep->fd < 0)
		return -EBADF;
	return ep->tp->xmit(ep, gid, qpn, buf, len);
}

static bool fab_enqueue(struct ifab_ep *ep, const uint8_t gid[16], uint32_t qpn,
			const void *buf, size_t len)
{
	struct ifab_pend *p;

	if (ep->nbacklog >= IFAB_BACKLOG_MAX)
		return false;
	p = malloc(sizeof(*p) + len);
	if (!p)
		return false;
	p->next = NULL;
	memcpy(p->gid, gid, 16);
	p->qpn = qpn;
	p->len = len;
	memcpy(p->data, buf, len);
	if (ep->tail)
		ep->tail->next = p;
	else
		ep->head = p;
	ep->tail = p;
	ep->nbacklog++;
	return true;
}

enum ifab_result ifab_send(struct ifab_ep *ep, const uint8_t gid[16],
			   uint32_t qpn, const void *buf, size_t len)
{
	int rc;

	ifab_pcap_frame(buf, len); /* what the NIC sent, faults or not */
	/* Anything already waiting goes first: the fabric keeps order. */
	if (ep->head && !ifab_flush(ep))
		goto queue;
	rc = fab_xmit(ep, gid, qpn, buf, len);
	if (rc == 0) {
		ep->tx_pkts++;
		return IFAB_SENT;
	}
	if (rc != -EAGAIN) {
		ep->tx_lost++;
		return IFAB_LOST;
	}
queue:
	if (!fab_enqueue(ep, gid, qpn, buf, len)) {
		ep->tx_dropped++;
		return IFAB_LOST;
	}
	ep->tx_queued++;
	return IFAB_QUEUED;
}

bool ifab_flush(struct ifab_ep *ep)
{
	struct ifab_pend *p;
	int rc;

	while ((p = ep->head)) {
		rc = fab_xmit(ep, p->gid, p->qpn, p->data, p->len);
		if (rc == -EAGAIN)
			return false;
		if (rc == 0)
			ep->tx_pkts++;
		else
			ep->tx_lost++;
		ep->head = p->next;
		if (!ep->head)
			ep->tail = NULL;
		ep->nbacklog--;
		free(p);
	}
	return true;
}

void ifab_drop_backlog(struct ifab_ep *ep)
{
	struct ifab_pend *p;

	while ((p = ep->head)) {
		ep->head = p->next;
		free(p);
	}
	ep->tail = NULL;
	ep->nbacklog = 0;
}

ssize_t ifab_recv(struct ifab_ep *ep, void *buf, size_t len)
{
	ssize_t n;

	if (ep->fd < 0)
		return -EBADF;
	n = ep->tp->recv(ep, buf, len);
	if (n >= 0) {
		ep->rx_pkts++;
		ifab_pcap_rx(ep, buf, (size_t)n < len ? (size_t)n : len);
		return n;
	}
	return n == -EAGAIN ? 0 : n;
}
