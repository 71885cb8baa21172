// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The NICs of one launcher (`--nics N`): a fabric node id each (so a MAC
 * and GIDs each), and with `--transport udp` an IPv4 address each and a
 * relay that owns UDP port 4791 of it.  The environment names them for
 * every process of the run (common/nics.h): IONIC_SIM_NODES in NIC order,
 * IONIC_SIM_NODE the first (what a one-NIC run always had), and
 * IONIC_SIM_ADDR the addresses in the same order.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/trace.h"
#include "../fabric/fabric.h"
#include "launcher.h"

int ilaunch_nics_count(const char *val, unsigned int *n)
{
	char *end;
	unsigned long v = strtoul(val, &end, 10);

	if (end == val || *end || v < 1 || v > ISIM_MAX_NICS) {
		fprintf(stderr, "ionic-sim: --nics takes 1 to %u, not '%s'\n",
			ISIM_MAX_NICS, val);
		return -EINVAL;
	}
	*n = (unsigned int)v;
	return 0;
}

/*
 * --addr: one address per NIC, comma-separated, or a single address A
 * that gives NIC k the address A + k.  Fills ns->addr.
 */
int ilaunch_nics_addrs(struct ilaunch_nics *ns, const char *spec)
{
	unsigned int k = 0;
	const char *s = spec;
	struct in_addr in;

	while (*s && k < ns->n) {
		size_t len = strcspn(s, ",");

		if (len >= sizeof(ns->addr[k]))
			break;
		memcpy(ns->addr[k], s, len);
		ns->addr[k][len] = 0;
		if (inet_pton(AF_INET, ns->addr[k], &in) != 1)
			break;
		k++;
		s += len;
		if (*s == ',' && *++s == 0)
			break;
	}
	if (*s || !k) {
		fprintf(stderr, "ionic-sim: --addr needs an IPv4 address, or "
				"one per NIC separated by commas\n");
		return -EINVAL;
	}
	if (k == 1) {
		uint32_t a = ntohl(in.s_addr);

		if (ns->n > 1 && (a & 0xff) + ns->n - 1 > 0xfe) {
			fprintf(stderr,
				"ionic-sim: --addr %s + %u leaves the /24\n",
				spec, ns->n - 1);
			return -EINVAL;
		}
		for (; k < ns->n; k++) {
			struct in_addr next = { .s_addr = htonl(a + k) };

			inet_ntop(AF_INET, &next, ns->addr[k],
				  sizeof(ns->addr[k]));
		}
	} else if (k != ns->n) {
		fprintf(stderr,
			"ionic-sim: --addr lists %u addresses for %u NICs\n", k,
			ns->n);
		return -EINVAL;
	}
	return 0;
}

int ilaunch_nics_claim(struct ilaunch_nics *ns, const char *fabric)
{
	char list[ISIM_MAX_NICS * 8], one[16];

	for (unsigned int k = 0; k < ns->n; k++) {
		ns->node[k] = ilaunch_node_claim(fabric, &ns->node_fd[k]);
		if (!ns->node[k]) {
			fprintf(stderr,
				"ionic-sim: no free node id on fabric %s: %s\n",
				fabric, strerror(errno));
			return -EADDRINUSE;
		}
		ns->claimed = k + 1;
	}
	snprintf(one, sizeof(one), "%u", ns->node[0]);
	if (isim_nics_format(ns->node, ns->n, list, sizeof(list)) ||
	    setenv(ISIM_ENV_NODES, list, 1) || setenv(ISIM_ENV_NODE, one, 1))
		return -ENOMEM;
	return 0;
}

/* IONIC_SIM_ADDR: the addresses of NICs 0..n-1. */
static int put_addrs(const struct ilaunch_nics *ns, unsigned int n)
{
	char list[ISIM_MAX_NICS * 16] = "";

	for (unsigned int k = 0; k < n; k++) {
		strcat(list, k ? "," : "");
		strcat(list, ns->addr[k]);
	}
	return setenv(ISIM_ENV_ADDR, list, 1) ? -errno : 0;
}

/*
 * IONIC_SIM_TRANSPORT and IONIC_SIM_ADDR for the run (never inherited from
 * an outer run), and with UDP the relay of each NIC.  Without --addr
 * NIC k gets the first of 127.18.0.1, 127.18.0.2, ... whose port 4791 is
 * free: on one host the addresses, not the fabric names, keep UDP runs
 * apart.  The relay reads its node's address from the environment, so
 * the list grows one NIC at a time.
 */
int ilaunch_nics_transport(struct ilaunch_nics *ns, bool udp, bool given)
{
	uint32_t next = 1;
	int rc = 0;

	if (!udp) {
		unsetenv(ISIM_ENV_TRANSPORT);
		unsetenv(ISIM_ENV_ADDR);
		return 0;
	}
	if (setenv(ISIM_ENV_TRANSPORT, "udp", 1))
		return -errno;
	for (unsigned int k = 0; k < ns->n; k++) {
		rc = -EADDRINUSE;
		while (rc == -EADDRINUSE && next < 0xfffe) {
			if (!given)
				snprintf(ns->addr[k], sizeof(ns->addr[k]),
					 "127.18.%u.%u", next >> 8,
					 next & 0xff);
			next++;
			rc = put_addrs(ns, k + 1);
			if (!rc)
				rc = ifab_udp_relay_start(ns->node[k],
							  &ns->relay[k]);
			if (given)
				break;
		}
		if (rc) {
			fprintf(stderr,
				"ionic-sim: cannot own UDP port 4791 of %s: %s\n",
				ns->addr[k], strerror(-rc));
			return rc;
		}
	}
	return 0;
}

int ilaunch_nics_share(struct ilaunch_nics *ns, const char *rundir)
{
	int rc = 0;

	for (unsigned int k = 0; k < ns->n && !rc; k++)
		if (ns->relay[k])
			rc = ifab_udp_relay_share(ns->relay[k], rundir);
	return rc;
}

/* Stop a relay; what it saw goes to the trace, and to stderr when the
 * command failed (a starved relay or a full socket explains timeouts). */
static void relay_end(struct ifab_relay *relay, const char *addr, int status)
{
	struct ifab_relay_stats st;
	char line[256];

	memset(&st, 0, sizeof(st));
	ifab_udp_relay_end(relay, &st);
	snprintf(line, sizeof(line),
		 "UDP relay %s: %llu datagrams, %llu dropped by a full "
		 "socket, %llu lost to a full queue, %llu waited over 10 ms "
		 "for the relay, longest %.1f ms",
		 addr, (unsigned long long)st.datagrams,
		 (unsigned long long)st.socket_drops,
		 (unsigned long long)st.queue_lost,
		 (unsigned long long)st.waits_over_10ms,
		 (double)st.max_wait_ns / 1e6);
	if (isim_trace_enabled())
		isim_trace("RUN", "%s", line);
	if (status)
		fprintf(stderr, "ionic-sim: %s\n", line);
}

void ilaunch_nics_release(struct ilaunch_nics *ns, int status)
{
	for (unsigned int k = 0; k < ISIM_MAX_NICS; k++) {
		if (ns->relay[k])
			relay_end(ns->relay[k], ns->addr[k], status);
		ns->relay[k] = NULL;
	}
	for (unsigned int k = 0; k < ns->claimed; k++)
		close(ns->node_fd[k]);
	ns->claimed = 0;
}
