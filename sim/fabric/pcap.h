/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim fabric capture (pcap.c): frames as a pcap file that tshark
 * decodes as RoCEv2.
 */
#ifndef IFAB_PCAP_H
#define IFAB_PCAP_H

#include <stdbool.h>
#include <stddef.h>

struct ifab_ep;

/* The capture file of the run (the launcher's --pcap). */
#define IFAB_ENV_PCAP "IONIC_SIM_PCAP"

/* Create (truncate) 'path' with the pcap file header: 0 or -errno. */
int ifab_pcap_create(const char *path);
/* Is this process capturing ($IONIC_SIM_PCAP names a file)? */
bool ifab_pcap_enabled(void);
/* Append one frame. */
void ifab_pcap_frame(const void *frame, size_t len);
/* A frame received on 'ep': appended unless the NIC sent it to itself. */
void ifab_pcap_rx(const struct ifab_ep *ep, const void *frame, size_t len);

#endif /* IFAB_PCAP_H */
