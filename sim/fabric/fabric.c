// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim fabric endpoints over abstract unix datagram sockets.  See
 * fabric.h for the model.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "../common/profile.h"
#include "fabric.h"

struct isim_fab_pend {
	struct isim_fab_pend *next;
	uint32_t node, qpn;
	size_t len;
	uint8_t data[];
};

/* Send buffer we ask for: a full RC window of 4 KiB packets plus headers
 * fits, so a connected pair rarely sees EAGAIN.  Capped by wmem_max. */
#define ISIM_FAB_SNDBUF (1 << 20)

const char *isim_fab_name(void)
{
	const char *name = getenv(ISIM_ENV_FABRIC);

	return name && *name ? name : "default";
}

static socklen_t fab_addr(struct sockaddr_un *sun, uint32_t node, uint32_t qpn)
{
	int n;

	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	/* Abstract namespace: sun_path[0] stays 0, the name follows. */
	n = snprintf(sun->sun_path + 1, sizeof(sun->sun_path) - 1,
		     "ionic-sim/%s/%u/%u", isim_fab_name(), node, qpn);
	if (n < 0 || (size_t)n >= sizeof(sun->sun_path) - 1)
		n = sizeof(sun->sun_path) - 2;
	return offsetof(struct sockaddr_un, sun_path) + 1 + n;
}

int isim_fab_open(struct isim_fab_ep *ep, uint32_t node, uint32_t qpn)
{
	struct sockaddr_un sun;
	socklen_t len = fab_addr(&sun, node, qpn);
	int sndbuf = ISIM_FAB_SNDBUF;
	int fd, err;

	memset(ep, 0, sizeof(*ep));
	ep->fd = -1;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sun, len) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	/* Best effort: the default is enough for correctness. */
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	ep->fd = fd;
	ep->node = node;
	ep->qpn = qpn;
	return 0;
}

void isim_fab_close(struct isim_fab_ep *ep)
{
	isim_fab_drop_backlog(ep);
	if (ep->fd >= 0)
		close(ep->fd);
	ep->fd = -1;
	ep->connected = false;
	ep->want_peer = false;
}

static void fab_disconnect(struct isim_fab_ep *ep)
{
	struct sockaddr sa = { .sa_family = AF_UNSPEC };

	if (ep->connected && ep->fd >= 0)
		connect(ep->fd, &sa, sizeof(sa));
	ep->connected = false;
}

void isim_fab_set_peer(struct isim_fab_ep *ep, uint32_t node, uint32_t qpn)
{
	if (ep->want_peer && ep->peer_node == node && ep->peer_qpn == qpn)
		return;
	fab_disconnect(ep);
	ep->want_peer = true;
	ep->peer_node = node;
	ep->peer_qpn = qpn;
}

void isim_fab_clear_peer(struct isim_fab_ep *ep)
{
	fab_disconnect(ep);
	ep->want_peer = false;
}

static bool fab_is_peer(const struct isim_fab_ep *ep, uint32_t node,
			uint32_t qpn)
{
	return ep->want_peer && ep->peer_node == node && ep->peer_qpn == qpn;
}

/* Try to connect to the wanted peer; a missing peer is not an error here:
 * the packet about to be sent will simply be lost. */
static void fab_try_connect(struct isim_fab_ep *ep)
{
	struct sockaddr_un sun;
	socklen_t len;

	if (ep->connected || !ep->want_peer || ep->fd < 0)
		return;
	len = fab_addr(&sun, ep->peer_node, ep->peer_qpn);
	if (connect(ep->fd, (struct sockaddr *)&sun, len) == 0)
		ep->connected = true;
}

/* One attempt: 0 sent, -EAGAIN busy, other negative errno: lost. */
static int fab_xmit(struct isim_fab_ep *ep, uint32_t node, uint32_t qpn,
		    const void *buf, size_t len)
{
	struct sockaddr_un sun;
	socklen_t alen;
	ssize_t n;

	if (ep->fd < 0)
		return -EBADF;
	if (fab_is_peer(ep, node, qpn)) {
		fab_try_connect(ep);
		if (ep->connected) {
			n = send(ep->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
			goto out;
		}
	}
	alen = fab_addr(&sun, node, qpn);
	n = sendto(ep->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL,
		   (struct sockaddr *)&sun, alen);
out:
	if (n >= 0)
		return 0;
	if (errno == EWOULDBLOCK || errno == ENOBUFS || errno == ENOMEM)
		return -EAGAIN;
	/* ECONNREFUSED/ENOENT: no such peer; EPERM: the receiver is connected
	 * to someone else (an RC endpoint of another pair).  Both are loss. */
	return -errno;
}

static bool fab_enqueue(struct isim_fab_ep *ep, uint32_t node, uint32_t qpn,
			const void *buf, size_t len)
{
	struct isim_fab_pend *p;

	if (ep->nbacklog >= ISIM_FAB_BACKLOG_MAX)
		return false;
	p = malloc(sizeof(*p) + len);
	if (!p)
		return false;
	p->next = NULL;
	p->node = node;
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

enum isim_fab_result isim_fab_send(struct isim_fab_ep *ep, uint32_t node,
				   uint32_t qpn, const void *buf, size_t len)
{
	int rc;

	/* Anything already waiting goes first: the fabric keeps order. */
	if (ep->head && !isim_fab_flush(ep))
		goto queue;
	rc = fab_xmit(ep, node, qpn, buf, len);
	if (rc == 0) {
		ep->tx_pkts++;
		return ISIM_FAB_SENT;
	}
	if (rc != -EAGAIN) {
		ep->tx_lost++;
		return ISIM_FAB_LOST;
	}
queue:
	if (!fab_enqueue(ep, node, qpn, buf, len)) {
		ep->tx_dropped++;
		return ISIM_FAB_LOST;
	}
	ep->tx_queued++;
	return ISIM_FAB_QUEUED;
}

bool isim_fab_flush(struct isim_fab_ep *ep)
{
	struct isim_fab_pend *p;
	int rc;

	while ((p = ep->head)) {
		rc = fab_xmit(ep, p->node, p->qpn, p->data, p->len);
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

void isim_fab_drop_backlog(struct isim_fab_ep *ep)
{
	struct isim_fab_pend *p;

	while ((p = ep->head)) {
		ep->head = p->next;
		free(p);
	}
	ep->tail = NULL;
	ep->nbacklog = 0;
}

ssize_t isim_fab_recv(struct isim_fab_ep *ep, void *buf, size_t len)
{
	ssize_t n;

	if (ep->fd < 0)
		return -EBADF;
	n = recv(ep->fd, buf, len, MSG_DONTWAIT | MSG_TRUNC);
	if (n >= 0) {
		ep->rx_pkts++;
		return n;
	}
	if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
		return 0;
	return -errno;
}
