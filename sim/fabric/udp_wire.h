/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim fabric: the UDP wire state a node's relay and processes share
 * (udp_wire.c says why).  Not for the layers above.
 */
#ifndef IFAB_UDP_WIRE_H
#define IFAB_UDP_WIRE_H

#include <stdbool.h>
#include <stdint.h>

/* in the run directory */
#define IFAB_UDP_WIRE_FILE "udp-wire"
/* the relay's connected sockets, by destination QP */
#define IFAB_UDP_RELAY_SLOTS 256

/* a QP's socket is in one of the IFAB_UDP_RELAY_PROBES slots from its
 * hash on (two QPs of one hash must not evict each other's queue) */
#define IFAB_UDP_RELAY_PROBES 4

static inline uint32_t ifab_udp_relay_slot(uint32_t qpn)
{
	return (qpn * 2654435761u) % IFAB_UDP_RELAY_SLOTS;
}

/* The k-th slot qpn may be in. */
static inline uint32_t ifab_udp_relay_probe(uint32_t qpn, unsigned int k)
{
	return (ifab_udp_relay_slot(qpn) + k) % IFAB_UDP_RELAY_SLOTS;
}

/*
 * A pause (PFC's XOFF/XON on this wire): a datagram to port 4791 of the
 * sender's address from the receiving node's relay, whose queues for its
 * endpoints grew past a mark.  IFAB_UDP_PAUSE_LEN bytes: the magic (its
 * first byte is a manufacturer-specific BTH opcode, so a RoCE parser
 * drops it), then for how long (microseconds, big-endian; 0: resume).
 */
#define IFAB_UDP_PAUSE_MAGIC "\xffisimpfc"
#define IFAB_UDP_PAUSE_MAGIC_LEN 8
#define IFAB_UDP_PAUSE_LEN 12
/* addresses that paused this node at once, at most */
#define IFAB_UDP_PAUSE_PEERS 16

struct ifab_udp_pause {
	uint32_t ip; /* network order; 0: free */
	uint32_t pad;
	uint64_t until_ns; /* sending to ip waits until then; 0: not */
};

/* Shared by processes of one build: CLOCK_MONOTONIC nanoseconds, each
 * stamp on a cache line of its own (every sender writes sent_ns). */
struct ifab_udp_wire {
	uint64_t sent_ns; /* a process sent to its own address */
	uint64_t pad0[7];
	uint64_t drained_ns; /* the relay found port 4791 empty */
	uint64_t pad1[7];
	uint32_t backlog[IFAB_UDP_RELAY_SLOTS]; /* qpn + 1 waits; 0 none */
	/* who paused us (the relay writes, the node's processes read) */
	struct ifab_udp_pause pause[IFAB_UDP_PAUSE_PEERS];
	/* frames for this node may wait behind a pause the relay sent, or
	 * after its resume in the senders' backlogs, until then */
	uint64_t pausing_ns;
	uint64_t pad2[7];
	/* datagrams the node's processes sent to its own address, and those
	 * the relay has read (or found gone: a drain accounts for all sent
	 * before it); at most self_max in between (the relay's receive
	 * buffer, with room to spare) */
	uint64_t self_sent;
	uint64_t pad3[7];
	uint64_t self_read;
	uint32_t self_max;
};

uint64_t ifab_udp_wire_now(void);
/* The launcher's, made in its run directory (or joined: the relays of a
 * launcher's NICs share one, which at worst makes a timeout wait for
 * another NIC's frames too); NULL on failure. */
struct ifab_udp_wire *ifab_udp_wire_create(const char *rundir);
/* A process's, from $IONIC_SIM_RUNDIR; NULL when there is none. */
struct ifab_udp_wire *ifab_udp_wire_attach(void);
void ifab_udp_wire_unmap(struct ifab_udp_wire *w);
/* A datagram to our own address leaves; 't' taken before the send. */
void ifab_udp_wire_sent(struct ifab_udp_wire *w, uint64_t t);
/* The relay's receive queue was empty at 't' (taken before the read). */
void ifab_udp_wire_drained(struct ifab_udp_wire *w, uint64_t t);
/* Relay slot 'slot' has frames waiting for qpn (qpn + 1), or none (0). */
void ifab_udp_wire_backlog(struct ifab_udp_wire *w, uint32_t slot,
			   uint32_t qpn_plus1);
/* The relay got a pause from 'ip' for 'us' microseconds (0: resume). */
void ifab_udp_wire_pause(struct ifab_udp_wire *w, const uint8_t ip[4],
			 uint32_t us);
/* Is sending to 'ip' paused? */
bool ifab_udp_wire_paused(const struct ifab_udp_wire *w, const uint8_t ip[4]);
/* The relay paused senders to this node, or resumed them: frames for it
 * wait in their backlogs until 'until' at the latest. */
void ifab_udp_wire_pausing(struct ifab_udp_wire *w, uint64_t until);
/* A process may send one more datagram to its own address (counted) if
 * fewer than self_max wait for the relay; false: wait (lossless wire). */
bool ifab_udp_wire_self_take(struct ifab_udp_wire *w);
/* ... and the send failed after all. */
void ifab_udp_wire_self_untake(struct ifab_udp_wire *w);
/* The relay: how many the receive buffer takes; one read; a drain that
 * began when 'sent' had been sent (ifab_udp_wire_self_sent). */
void ifab_udp_wire_self_max(struct ifab_udp_wire *w, uint32_t max);
void ifab_udp_wire_self_read(struct ifab_udp_wire *w);
uint64_t ifab_udp_wire_self_sent(const struct ifab_udp_wire *w);
void ifab_udp_wire_self_drained(struct ifab_udp_wire *w, uint64_t sent);
/* Frames for qpn may still be between the sender and its endpoint. */
bool ifab_udp_wire_holds(const struct ifab_udp_wire *w, uint32_t qpn);

#endif /* IFAB_UDP_WIRE_H */
