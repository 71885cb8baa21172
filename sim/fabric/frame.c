// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim fabric: the IPv4 header checksum, which both the device's
 * frame builder and the UDP relay (rebuilding frames) compute.
 */
#include "frame.h"

uint16_t ifab_ip_csum(const uint8_t *hdr, size_t len)
{
	uint32_t sum = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)hdr[i] << 8 | hdr[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}
