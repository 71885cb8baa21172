/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim fabric: the "wire" between emulated NICs, in one process or in
 * many.  The lowest layer of the emulator: it knows endpoints and
 * datagrams, nothing about QPs, devices or the kernel model.
 *
 * Every QP of a device owns one endpoint, bound as (node, qpn): node is
 * the NIC's id on this host (processes of one launcher share it), and
 * binding is also how those processes agree on QP numbers: a second bind
 * of the same address fails with EADDRINUSE.  Packets are RoCEv2 frames
 * (frame.h; dev/pkt.h builds them) sent to (destination GID, destination
 * QP): the transport turns the GID into its own kind of address (a node's
 * socket name, an IPv4 address and UDP port 4791).
 *
 * The fabric core (fabric.c) keeps what every transport needs: the order
 * of packets per endpoint, the backlog of packets the transport could not
 * take yet (EAGAIN), and the counters.  A transport (struct
 * ifab_transport) moves one datagram at a time; the unix-socket one
 * (fab_unix.c) is the default.  A new transport (UDP, RoCEv2 framing) or a
 * tap on the wire (capture, fault injection) is added here without the
 * device noticing.
 *
 * Delivery is ordered per sender/receiver pair.  The only back-pressure is
 * EAGAIN; the device engine must never block on it (two engines sending
 * to each other would deadlock), so such packets wait in the endpoint's
 * backlog, in order, and are retried by the engine (ifab_flush).
 *
 * With no fault configured the wire is lossless, as a RoCE fabric with
 * PFC is: a receiver that cannot keep up pauses its sender (EAGAIN; on
 * the UDP transport a pause from the receiving node's relay) instead of
 * dropping, an RC peer's frames wait in the backlog however long it gets,
 * and the device makes no more while they wait (ifab_backlogged: its
 * requester's window, the responder's READ responses), resuming when the
 * endpoint drains (ifab_pollout: the engine waits for EPOLLOUT).  With
 * faults the backlog is bounded and frames beyond it are dropped.
 *
 * RC endpoints talk to one peer (ifab_set_peer): a transport may use a
 * connected path for it (the unix transport connect()s, which Linux
 * exempts from the receiver's small datagram-queue limit).
 *
 * Not thread safe: callers serialise (the device lock).
 */
#ifndef IFAB_FABRIC_H
#define IFAB_FABRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>

struct ifab_ep;
struct ifab_pend;

/* One way of moving frames between endpoints. */
struct ifab_transport {
	const char *name;
	/* Bind (node, qpn): set ep->fd (readable while frames wait) and
	 * ep->sport; 0 or a negative errno (-EADDRINUSE: the address is
	 * held). */
	int (*bind)(struct ifab_ep *ep, uint32_t node, uint32_t qpn);
	/* Release what bind set up (ep->fd included). */
	void (*close)(struct ifab_ep *ep);
	/* One send attempt, never blocking: 0 sent, -EAGAIN busy (keep it
	 * and retry), any other negative errno: lost. */
	int (*xmit)(struct ifab_ep *ep, const uint8_t dgid[16], uint32_t qpn,
		    const void *buf, size_t len);
	/* The peer of ep changed (or went away): drop any connected path. */
	void (*unpeer)(struct ifab_ep *ep);
	/* One frame: its length (may exceed len: truncated), -EAGAIN if
	 * none is waiting, or another negative errno. */
	ssize_t (*recv)(struct ifab_ep *ep, void *buf, size_t len);
	/* A frame for an endpoint nobody holds is refused at once (the unix
	 * sockets of one host: xmit fails) rather than leaving with no word
	 * of its fate (a UDP datagram to another host), so a sender can
	 * tell a peer that is gone without waiting for an answer. */
	bool tells_absent;
	/* Frames for ep may still be on their way to it through the host
	 * (fab_udp.c: the relay has not run yet); NULL: never. */
	bool (*holds)(const struct ifab_ep *ep);
	/* ep->fd reports EPOLLOUT when the connected peer has drained what
	 * made xmit say EAGAIN (the unix transport); else retry on a timer. */
	bool pollout;
};

/* The abstract unix datagram socket transport (fab_unix.c). */
extern const struct ifab_transport ifab_unix_transport;
/* Its endpoint socket for (node, qpn), bound: a descriptor or a negative
 * errno; and that socket's address.  The UDP transport receives on the
 * same sockets. */
struct sockaddr_un;
int ifab_unix_bind_fd(uint32_t node, uint32_t qpn);
socklen_t ifab_unix_addr(struct sockaddr_un *sun, uint32_t node, uint32_t qpn);
ssize_t ifab_unix_recv(struct ifab_ep *ep, void *buf, size_t len);

/* RoCEv2 over UDP sockets to port 4791 (fab_udp.c), IPv4-mapped GIDs
 * only; its receiving half is the launcher's relay (udp_relay.c). */
extern const struct ifab_transport ifab_udp_transport;
struct ifab_relay;
/* Own UDP port 4791 of node's address and feed its endpoints: 0 or a
 * negative errno (-EADDRINUSE: another NIC has that address). */
int ifab_udp_relay_start(uint32_t node, struct ifab_relay **out);
/* Share what the wire holds with the run's processes, through a file of
 * the run directory (udp_wire.c): 0 or a negative errno. */
int ifab_udp_relay_share(struct ifab_relay *r, const char *rundir);
/* What the relay saw: datagrams, those the socket dropped (its receive
 * buffer full), frames lost to a full queue, the longest a datagram
 * waited in the socket for the relay and how many waited over 10 ms. */
struct ifab_relay_stats {
	uint64_t datagrams, socket_drops, queue_lost, waits_over_10ms;
	int64_t max_wait_ns;
};
/* Stop it, with its counters to 'st'. */
void ifab_udp_relay_end(struct ifab_relay *r, struct ifab_relay_stats *st);
void ifab_udp_relay_stop(struct ifab_relay *r);
/* The transport of this process: $IONIC_SIM_TRANSPORT ("unix", the
 * default, or "udp"); NULL for an unknown name. */
const struct ifab_transport *ifab_default_transport(void);

struct ifab_ep {
	const struct ifab_transport *tp;
	int fd; /* -1 when closed; the device engine polls it */
	int txfd; /* transport's sending socket, -1 if it has none */
	uint32_t node, qpn; /* our own address */
	uint8_t mac[6]; /* the NIC's, set by its owner (capture) */
	uint16_t sport; /* UDP source port of our frames */
	bool want_peer; /* RC: talk to peer_gid/peer_qpn */
	bool connected; /* transport state of the peer path */
	uint8_t peer_gid[16];
	uint32_t peer_qpn;
	struct ifab_pend *head, *tail; /* backlog, oldest first */
	unsigned int nbacklog;
	struct ifab_pend *held; /* held back by a fault, by due time */
	uint64_t rng; /* fault decisions (fault.c) */
	/* counters */
	uint64_t tx_pkts, rx_pkts, tx_lost, tx_queued, tx_dropped;
	uint64_t tx_fault_drop, tx_fault_dup, tx_fault_reorder;
	uint64_t tx_fault_corrupt, rx_fault_drop;
};

/*
 * Faults on demand (fault.c), for the whole process' NIC.  Rates are in
 * frames per million.  Zero everywhere: a perfect wire.
 */
struct ifab_faults {
	uint32_t loss_ppm; /* frames lost */
	uint32_t dup_ppm; /* frames sent twice */
	uint32_t reorder_ppm; /* frames held back 0.2..2 ms (overtaken) */
	uint32_t corrupt_ppm; /* frames with one bit flipped */
	uint32_t delay_us; /* every frame held back this long */
	/* the link goes down after this many frames sent (0: never), for
	 * link_down_ms (0: for good); while down nothing passes */
	uint32_t link_down_after;
	uint32_t link_down_ms;
	/* the NIC stops answering: every frame after this many received
	 * is dropped (0: never) */
	uint32_t mute_after;
	uint64_t seed; /* of the decisions */
};

void ifab_faults_set(const struct ifab_faults *f);
/* Is the NIC's link up (link_down_after)?  When it comes up again (ns,
 * CLOCK_MONOTONIC), or 0 if it is up or down for good. */
bool ifab_link_up(void);
uint64_t ifab_link_next_change(void);
/* When the endpoint's next held frame is due (ns, CLOCK_MONOTONIC), or 0
 * for none: ifab_flush() then sends it. */
uint64_t ifab_fault_next_due(const struct ifab_ep *ep);

/* Most packets a backlog holds; beyond it packets are dropped as by a
 * congested switch (RC retransmits, UD loses them) - on a lossless wire
 * only those not for the RC peer. */
#define IFAB_BACKLOG_MAX 4096

/* No fault is configured: the wire pauses senders instead of dropping. */
bool ifab_lossless(void);

enum ifab_result {
	IFAB_SENT, /* handed to the transport */
	IFAB_QUEUED, /* peer busy: kept in the backlog */
	IFAB_LOST, /* no such peer (or backlog full): gone */
};

/* The fabric name in use ($IONIC_SIM_FABRIC or "default"): endpoints of
 * different fabrics never see each other. */
const char *ifab_name(void);
/* Use 'name' from now on, whatever the environment says (call before
 * starting threads that look the name up; 'name' must outlive them). */
void ifab_fix_name(const char *name);

/* Bind the endpoint of (node, qpn) on transport 'tp' (NULL: the unix
 * one).  0, -EADDRINUSE if another endpoint holds the address, or another
 * negative errno. */
int ifab_open(struct ifab_ep *ep, const struct ifab_transport *tp,
	      uint32_t node, uint32_t qpn);
/* Close the endpoint and drop the backlog.  Safe on a closed endpoint. */
void ifab_close(struct ifab_ep *ep);

/* RC: from now on talk to (gid, qpn).  A peer that does not exist yet is
 * retried at the next send. */
void ifab_set_peer(struct ifab_ep *ep, const uint8_t gid[16], uint32_t qpn);
/* Forget the peer (QP reset). */
void ifab_clear_peer(struct ifab_ep *ep);

/* Send one frame to (gid, qpn), never blocking.  Frames are delivered
 * in the order they were passed here. */
enum ifab_result ifab_send(struct ifab_ep *ep, const uint8_t gid[16],
			   uint32_t qpn, const void *buf, size_t len);
/* Send held frames that are due, retry the backlog; true when the
 * backlog is empty afterwards. */
bool ifab_flush(struct ifab_ep *ep);
/* Throw the backlog away (go-back-N retransmit, reset, error). */
void ifab_drop_backlog(struct ifab_ep *ep);

/* See ifab_transport.holds: the device does not let an ACK timeout
 * expire on frames the wire still holds. */
static inline bool ifab_wire_holds(const struct ifab_ep *ep)
{
	return ep->tp && ep->tp->holds && ep->tp->holds(ep);
}

/* See ifab_transport.tells_absent. */
static inline bool ifab_tells_absent(const struct ifab_ep *ep)
{
	return ep->tp && ep->tp->tells_absent;
}

static inline bool ifab_backlogged(const struct ifab_ep *ep)
{
	return ep->head != NULL;
}

/* The backlog waits for the connected peer to drain: wait for EPOLLOUT
 * on ep->fd rather than retrying on a timer. */
static inline bool ifab_pollout(const struct ifab_ep *ep)
{
	return ep->head != NULL && ep->connected && ep->tp->pollout;
}

/* Frames waiting on the endpoint: backlog or held by a fault. */
static inline bool ifab_pending(const struct ifab_ep *ep)
{
	return ep->head != NULL || ep->held != NULL;
}

/* Receive one datagram: its length (may exceed len: truncated), 0 if none
 * is waiting, or a negative errno. */
ssize_t ifab_recv(struct ifab_ep *ep, void *buf, size_t len);

/* Is (gid, qpn) the peer this endpoint talks to? */
static inline bool ifab_is_peer(const struct ifab_ep *ep, const uint8_t gid[16],
				uint32_t qpn)
{
	return ep->want_peer && ep->peer_qpn == qpn &&
	       !memcmp(ep->peer_gid, gid, 16);
}

#endif /* IFAB_FABRIC_H */
