/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim fabric: what the wire knows of a frame.  The fabric moves
 * RoCEv2 frames as the device built them (dev/pkt.h has the format and
 * the codec):
 *
 *   Ethernet (optional 802.1Q tag), IPv4 or IPv6, UDP to port 4791, then
 *   the InfiniBand transport (BTH, extension headers, payload, ICRC)
 *
 * The fabric reads the Ethernet, IP and UDP headers where a transport
 * needs them (the UDP transport sends what follows the UDP header and
 * the relay rebuilds them) and, of the transport, only the destination QP
 * of the BTH, by which the UDP relay delivers a datagram.
 */
#ifndef IFAB_FRAME_H
#define IFAB_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IFAB_ROCE_PORT 4791

/* Header sizes on the wire. */
#define IFAB_ETH_HLEN 14
#define IFAB_VLAN_HLEN 4
#define IFAB_IPV4_HLEN 20
#define IFAB_IPV6_HLEN 40
#define IFAB_UDP_HLEN 8

#define IFAB_ETHERTYPE_IPV4 0x0800
#define IFAB_ETHERTYPE_IPV6 0x86dd
#define IFAB_ETHERTYPE_VLAN 0x8100

/* The BTH, first in the UDP payload; bytes 5..7 are the destination QP. */
#define IFAB_BTH_LEN 12
#define IFAB_BTH_DQPN_OFF 5

/* Largest frame the fabric keeps a copy of (a fault's held frame; a
 * larger one passes as is): the longest headers, 4 KiB of payload (the
 * largest path MTU) and room for the transport's headers and ICRC.  The
 * device's largest packet fits (checked in dev/pkt.h). */
#define IFAB_FRAME_MAX                                                     \
	(IFAB_ETH_HLEN + IFAB_VLAN_HLEN + IFAB_IPV6_HLEN + IFAB_UDP_HLEN + \
	 4096 + 64 + 64)

static inline bool ifab_gid_is_v4(const uint8_t gid[16])
{
	static const uint8_t prefix[12] = { 0, 0, 0, 0, 0,    0,
					    0, 0, 0, 0, 0xff, 0xff };

	for (int i = 0; i < 12; i++)
		if (gid[i] != prefix[i])
			return false;
	return true;
}

/* The Internet checksum of an IPv4 header. */
uint16_t ifab_ip_csum(const uint8_t *hdr, size_t len);

#endif /* IFAB_FRAME_H */
