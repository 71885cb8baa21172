/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim fabric: the "wire" between emulated NICs, in one process or in
 * many.  Every QP owns one endpoint, an abstract AF_UNIX SOCK_DGRAM socket
 * named "\0ionic-sim/<fabric>/<node>/<qpn>" (fabric from $IONIC_SIM_FABRIC,
 * default "default").  Abstract names leave nothing in the file system and
 * vanish with the last descriptor, so a process that exits simply
 * disappears from the fabric: its peers see ECONNREFUSED and treat the
 * packet as lost.
 *
 * Binding the name is also how processes that share a node id agree on QP
 * numbers: a second bind of the same name fails with EADDRINUSE.
 *
 * Unix datagrams are reliable and ordered per sender/receiver pair.  The
 * only back-pressure is EAGAIN (the receiver's queue or our send buffer is
 * full); the device engine must never block on it (two engines sending to
 * each other would deadlock), so such packets wait in a per-endpoint
 * backlog, in order, and are retried from the engine.
 *
 * RC endpoints connect() to their one peer: Linux then exempts the pair
 * from the receiver's small datagram-queue limit (net.unix.max_dgram_qlen,
 * often 10) and reports EPOLLOUT when the peer drains, so only our own
 * send buffer limits the flow.  UD endpoints stay unconnected.
 *
 * Not thread safe: callers serialise (nic->lock).
 */
#ifndef ISIM_FABRIC_H
#define ISIM_FABRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct isim_fab_pend;

struct isim_fab_ep {
	int fd; /* -1 when closed */
	uint32_t node, qpn; /* our own address */
	bool want_peer; /* RC: connect to peer_node/peer_qpn */
	bool connected;
	uint32_t peer_node, peer_qpn;
	struct isim_fab_pend *head, *tail; /* backlog, oldest first */
	unsigned int nbacklog;
	/* counters */
	uint64_t tx_pkts, rx_pkts, tx_lost, tx_queued, tx_dropped;
};

/* Most packets a backlog holds; beyond it packets are dropped as by a
 * congested switch (RC retransmits, UD loses them). */
#define ISIM_FAB_BACKLOG_MAX 4096

enum isim_fab_result {
	ISIM_FAB_SENT, /* handed to the peer's socket */
	ISIM_FAB_QUEUED, /* peer busy: kept in the backlog */
	ISIM_FAB_LOST, /* no such peer (or backlog full): gone */
};

/* The fabric name in use ($IONIC_SIM_FABRIC or "default"). */
const char *isim_fab_name(void);

/* Bind the endpoint of (node, qpn).  0, -EADDRINUSE if another endpoint
 * holds the name, or another negative errno. */
int isim_fab_open(struct isim_fab_ep *ep, uint32_t node, uint32_t qpn);
/* Close the socket and drop the backlog.  Safe on a closed endpoint. */
void isim_fab_close(struct isim_fab_ep *ep);

/* RC: from now on talk to (node, qpn) over a connected socket.  A peer that
 * does not exist yet is retried at the next send. */
void isim_fab_set_peer(struct isim_fab_ep *ep, uint32_t node, uint32_t qpn);
/* Forget the peer (QP reset). */
void isim_fab_clear_peer(struct isim_fab_ep *ep);

/* Send one packet to (node, qpn), never blocking.  Packets are delivered
 * in the order they were passed here. */
enum isim_fab_result isim_fab_send(struct isim_fab_ep *ep, uint32_t node,
				   uint32_t qpn, const void *buf, size_t len);
/* Retry the backlog; true when it is empty afterwards. */
bool isim_fab_flush(struct isim_fab_ep *ep);
/* Throw the backlog away (go-back-N retransmit, reset, error). */
void isim_fab_drop_backlog(struct isim_fab_ep *ep);

static inline bool isim_fab_backlogged(const struct isim_fab_ep *ep)
{
	return ep->head != NULL;
}

/* Receive one datagram: its length (may exceed len: truncated), 0 if none
 * is waiting, or a negative errno. */
ssize_t isim_fab_recv(struct isim_fab_ep *ep, void *buf, size_t len);

#endif /* ISIM_FABRIC_H */
