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
#include "fabric_priv.h"
#include "pcap.h"

/* Set once by a process that owns threads of the fabric while it still
 * changes its environment (the launcher's UDP relay): getenv() in such a
 * thread races with setenv() in another. */
static const char *fixed_name;

void ifab_fix_name(const char *name)
{
	fixed_name = name;
}

const char *ifab_name(void)
{
	const char *name = fixed_name ? fixed_name : getenv(ISIM_ENV_FABRIC);

	return name && *name ? name : "default";
}

const struct ifab_transport *ifab_default_transport(void)
{
	const char *t = getenv(ISIM_ENV_TRANSPORT);

	if (!t || !*t || !strcmp(t, "unix"))
		return &ifab_unix_transport;
	if (!strcmp(t, "udp"))
		return &ifab_udp_transport;
	return NULL;
}

int ifab_open(struct ifab_ep *ep, const struct ifab_transport *tp,
	      uint32_t node, uint32_t qpn)
{
	int rc;

	memset(ep, 0, sizeof(*ep));
	ep->fd = -1;
	ep->txfd = -1;
	ep->tp = tp ? tp : ifab_default_transport();
	if (!ep->tp)
		return -EINVAL; /* a transport this build does not know */
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
	ifab_fault_drop_held(ep);
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

struct ifab_pend *ifab_pend_new(const uint8_t gid[16], uint32_t qpn,
				const void *buf, size_t len)
{
	struct ifab_pend *p = malloc(sizeof(*p) + len);

	if (!p)
		return NULL;
	p->next = NULL;
	memcpy(p->gid, gid, 16);
	p->qpn = qpn;
	p->due = 0;
	p->len = len;
	memcpy(p->data, buf, len);
	return p;
}

static bool fab_enqueue(struct ifab_ep *ep, const uint8_t gid[16], uint32_t qpn,
			const void *buf, size_t len)
{
	struct ifab_pend *p;

	/* Lossless (no fault configured): the RC peer's frames wait however
	 * many there are, as behind a PFC pause; the device stops making
	 * more while they wait (dev/resp_out.c, the requester's window). */
	if (ep->nbacklog >= IFAB_BACKLOG_MAX &&
	    !(ifab_lossless() && ifab_is_peer(ep, gid, qpn)))
		return false;
	p = ifab_pend_new(gid, qpn, buf, len);
	if (!p)
		return false;
	if (ep->tail)
		ep->tail->next = p;
	else
		ep->head = p;
	ep->tail = p;
	ep->nbacklog++;
	return true;
}

bool ifab_lossless(void)
{
	return !ifab_faults_active();
}

enum ifab_result ifab_send(struct ifab_ep *ep, const uint8_t gid[16],
			   uint32_t qpn, const void *buf, size_t len)
{
	ifab_pcap_frame(buf, len); /* what the NIC sent, faults or not */
	if (ifab_faults_active())
		return ifab_fault_tx(ep, gid, qpn, buf, len);
	return ifab_send_wire(ep, gid, qpn, buf, len);
}

static bool backlog_flush(struct ifab_ep *ep);

enum ifab_result ifab_send_wire(struct ifab_ep *ep, const uint8_t gid[16],
				uint32_t qpn, const void *buf, size_t len)
{
	int rc;

	/* Anything already waiting goes first: the fabric keeps order. */
	if (ep->head && !backlog_flush(ep))
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
	ifab_fault_release(ep);
	return backlog_flush(ep);
}

static bool backlog_flush(struct ifab_ep *ep)
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
	for (;;) {
		n = ep->tp->recv(ep, buf, len);
		if (n < 0)
			return n == -EAGAIN ? 0 : n;
		ep->rx_pkts++;
		ifab_pcap_rx(ep, buf, (size_t)n < len ? (size_t)n : len);
		/* a link that is down, a NIC that no longer answers */
		if (!ifab_fault_rx_drop(ep))
			return n;
	}
}
