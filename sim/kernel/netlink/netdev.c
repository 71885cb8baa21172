// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: the host side of the emulated NIC, as the ionic
 * Ethernet driver would register it - its network interface (name,
 * ifindex, MAC, MTU, link state, addresses) and the identity netlink
 * reports (docs/kernel-contract.md §19, §20).
 *
 * Everything here derives from the run's environment (profile and the
 * NICs' fabric nodes, common/nics.h), not from the NIC objects: programs that only look (ip, rdma,
 * getifaddrs) must not start a device, and every process of a run must
 * see the same interface.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/if.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kpriv.h"

static struct ik_host host;
static pthread_once_t host_once = PTHREAD_ONCE_INIT;

static void netdev_init(struct ik_netdev *nd, unsigned int k, uint32_t node)
{
	uint8_t gid[16];

	snprintf(nd->name, sizeof(nd->name), IK_NETDEV_NAME, k);
	nd->ifindex = IK_NETDEV_IFINDEX + (int)k;
	isim_node_mac(node, nd->mac);
	nd->mtu = host.prof.netdev_mtu;
	nd->max_mtu = IK_NETDEV_MAX_MTU;
	/* administratively up; carrier follows the port
	 * (docs/kernel-contract.md §3) */
	nd->flags = IFF_UP | IFF_BROADCAST | IFF_MULTICAST;
	if (host.prof.port_up)
		nd->flags |= IFF_RUNNING | IFF_LOWER_UP;
	/* the addresses behind GID 1 (::ffff:a.b.c.d) and GID 0 */
	isim_node_gid(node, 1, gid);
	memcpy(nd->ipv4, &gid[12], 4);
	nd->ipv4_prefix = IK_NETDEV_IPV4_PREFIX;
	for (unsigned int i = 0; i < 4; i++) {
		unsigned int bits = IK_NETDEV_IPV4_PREFIX > 8 * i ?
					    IK_NETDEV_IPV4_PREFIX - 8 * i :
					    0;
		uint8_t mask = bits >= 8 ? 0xff : (uint8_t)(0xff00 >> bits);

		nd->ipv4_brd[i] = nd->ipv4[i] | (uint8_t)~mask;
	}
	isim_node_gid(node, 0, nd->ipv6_ll);
	nd->ipv6_prefix = 64;
}

static void host_init(void)
{
	if (isim_profile_from_env(&host.prof))
		isim_profile_defaults(&host.prof); /* the model refuses it */
	host.nnics = isim_nics(host.node);
	for (unsigned int k = 0; k < host.nnics; k++)
		netdev_init(&host.netdev[k], k, host.node[k]);
}

const struct ik_host *ik_host_get(void)
{
	pthread_once(&host_once, host_init);
	return &host;
}

const struct ik_netdev *ik_netdev_get(unsigned int k)
{
	const struct ik_host *h = ik_host_get();

	return k < h->nnics ? &h->netdev[k] : NULL;
}

bool ik_nl_rdma_enabled(void)
{
	return ik_host_get()->prof.netlink;
}
