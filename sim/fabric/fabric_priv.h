/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim fabric internals shared by the core (fabric.c) and the fault
 * injector (fault.c).  Not for the layers above.
 */
#ifndef IFAB_FABRIC_PRIV_H
#define IFAB_FABRIC_PRIV_H

#include "fabric.h"
#include "frame.h"

/* A frame kept by the fabric: in the backlog, or held by a fault. */
struct ifab_pend {
	struct ifab_pend *next;
	uint8_t gid[16];
	uint32_t qpn;
	uint64_t due; /* held: when it goes on the wire (ns, monotonic) */
	size_t len;
	uint8_t data[];
};

struct ifab_pend *ifab_pend_new(const uint8_t gid[16], uint32_t qpn,
				const void *buf, size_t len);
/* The frame to the transport, in order behind the backlog. */
enum ifab_result ifab_send_wire(struct ifab_ep *ep, const uint8_t gid[16],
				uint32_t qpn, const void *buf, size_t len);

/* fault.c */
bool ifab_faults_active(void);
enum ifab_result ifab_fault_tx(struct ifab_ep *ep, const uint8_t gid[16],
			       uint32_t qpn, const void *buf, size_t len);
void ifab_fault_release(struct ifab_ep *ep);
void ifab_fault_drop_held(struct ifab_ep *ep);
bool ifab_fault_rx_drop(struct ifab_ep *ep);

#endif /* IFAB_FABRIC_PRIV_H */
