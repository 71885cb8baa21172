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

static inline uint32_t ifab_udp_relay_slot(uint32_t qpn)
{
	return (qpn * 2654435761u) % IFAB_UDP_RELAY_SLOTS;
}

/* Shared by processes of one build: CLOCK_MONOTONIC nanoseconds, each
 * stamp on a cache line of its own (every sender writes sent_ns). */
struct ifab_udp_wire {
	uint64_t sent_ns; /* a process sent to its own address */
	uint64_t pad0[7];
	uint64_t drained_ns; /* the relay found port 4791 empty */
	uint64_t pad1[7];
	uint32_t backlog[IFAB_UDP_RELAY_SLOTS]; /* qpn + 1 waits; 0 none */
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
/* Frames for qpn may still be between the sender and its endpoint. */
bool ifab_udp_wire_holds(const struct ifab_udp_wire *w, uint32_t qpn);

#endif /* IFAB_UDP_WIRE_H */
