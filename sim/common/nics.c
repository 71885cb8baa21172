// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim: the NICs of an emulated host, from the environment the
 * launcher sets (nics.h).  Read on every call: the lists are short, the
 * callers are set-up paths, and a test may change the environment.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nics.h"
#include "profile.h"

/* Up to 'max' comma-separated numbers; stops at the first bad one. */
static unsigned int parse_nodes(const char *s, uint32_t *out, unsigned int max)
{
	unsigned int n = 0;

	while (s && *s && n < max) {
		char *end;
		unsigned long v = strtoul(s, &end, 0);

		if (end == s || !v || v > 0xffff || (*end && *end != ','))
			break;
		out[n++] = (uint32_t)v;
		s = *end ? end + 1 : end;
	}
	return n;
}

unsigned int isim_nics(uint32_t nodes[ISIM_MAX_NICS])
{
	unsigned int n =
		parse_nodes(getenv(ISIM_ENV_NODES), nodes, ISIM_MAX_NICS);

	if (n)
		return n;
	if (!parse_nodes(getenv(ISIM_ENV_NODE), nodes, 1))
		nodes[0] = 1;
	return 1;
}

int isim_nic_of_node(uint32_t node)
{
	uint32_t nodes[ISIM_MAX_NICS];
	unsigned int n = isim_nics(nodes);

	for (unsigned int k = 0; k < n; k++)
		if (nodes[k] == node)
			return (int)k;
	return -1;
}

bool isim_nic_addr(unsigned int k, uint8_t ip[4])
{
	const char *s = getenv(ISIM_ENV_ADDR);
	char one[INET_ADDRSTRLEN];
	struct in_addr in;

	for (; s && *s; k--) {
		size_t len = strcspn(s, ",");

		if (!k) {
			if (len >= sizeof(one))
				return false;
			memcpy(one, s, len);
			one[len] = 0;
			if (inet_pton(AF_INET, one, &in) != 1)
				return false;
			memcpy(ip, &in, 4);
			return true;
		}
		s += len;
		if (*s)
			s++;
	}
	return false;
}

int isim_nics_format(const uint32_t *nodes, unsigned int n, char *buf,
		     unsigned long len)
{
	unsigned long used = 0;

	buf[0] = 0;
	for (unsigned int k = 0; k < n; k++) {
		int w = snprintf(buf + used, len - used, "%s%u", k ? "," : "",
				 nodes[k]);

		if (w < 0 || (unsigned long)w >= len - used)
			return -ENOSPC;
		used += (unsigned long)w;
	}
	return 0;
}
