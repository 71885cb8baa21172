// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The NIC's network interface as libc shows it under ionic-sim
 * (docs/kernel-contract.md §20): if_nametoindex / if_indextoname /
 * if_nameindex, getifaddrs (link, IPv4 with mask and broadcast, IPv6
 * link-local), the SIOCGIF* ioctls, and the /sys paths that name it.
 * The host's interfaces stay visible (lo).  Run under the launcher;
 * argument --port-down expects no carrier.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include "check.h"

#define NAME "isim0"

int main(int argc, char **argv)
{
	bool down = argc > 1 && !strcmp(argv[1], "--port-down");
	unsigned int node = (unsigned int)atoi(getenv("IONIC_SIM_NODE") ?: "1");
	char ip[32], name[IF_NAMESIZE], text[64];
	bool saw[3] = { false }, lo = false;
	struct if_nameindex *ni;
	struct ifaddrs *ifa;
	struct ifreq ifr;
	unsigned int idx;
	FILE *f;
	int s;

	snprintf(ip, sizeof(ip), "198.18.%u.%u", (node >> 8) & 0xff,
		 node & 0xff);
	idx = if_nametoindex(NAME);
	CHECK_MSG(idx == 122240, "if_nametoindex %u", idx);
	CHECK_MSG(if_indextoname(idx, name) && !strcmp(name, NAME),
		  "if_indextoname");
	CHECK_MSG(if_nametoindex("lo") == 1, "the host's lo");
	ni = if_nameindex();
	CHECK_MSG(ni, "if_nameindex");
	for (struct if_nameindex *p = ni; p && p->if_index; p++)
		saw[0] |= p->if_index == idx && !strcmp(p->if_name, NAME);
	if_freenameindex(ni);
	CHECK_MSG(saw[0], "if_nameindex lists " NAME);

	saw[0] = false;
	CHECK_MSG(getifaddrs(&ifa) == 0, "getifaddrs");
	for (struct ifaddrs *p = ifa; p; p = p->ifa_next) {
		if (!strcmp(p->ifa_name, "lo"))
			lo = true;
		if (strcmp(p->ifa_name, NAME) || !p->ifa_addr)
			continue;
		CHECK_MSG(!!(p->ifa_flags & IFF_RUNNING) == !down,
			  "carrier follows the port");
		if (p->ifa_addr->sa_family == AF_PACKET) {
			const struct sockaddr_ll *ll = (void *)p->ifa_addr;

			saw[0] = ll->sll_halen == 6 && ll->sll_addr[0] == 2 &&
				 ll->sll_addr[5] == (node & 0xff);
		} else if (p->ifa_addr->sa_family == AF_INET) {
			const struct sockaddr_in *in = (void *)p->ifa_addr;
			const struct sockaddr_in *m = (void *)p->ifa_netmask;

			inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text));
			saw[1] = !strcmp(text, ip) &&
				 m->sin_addr.s_addr == htonl(0xfffe0000u);
		} else if (p->ifa_addr->sa_family == AF_INET6) {
			const struct sockaddr_in6 *in6 = (void *)p->ifa_addr;

			saw[2] = in6->sin6_addr.s6_addr[0] == 0xfe &&
				 in6->sin6_addr.s6_addr[1] == 0x80;
		}
	}
	freeifaddrs(ifa);
	CHECK_MSG(saw[0] && saw[1] && saw[2],
		  "getifaddrs: MAC %d IPv4 %d IPv6 %d", saw[0], saw[1], saw[2]);
	CHECK_MSG(lo, "getifaddrs keeps the host's interfaces");

	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	CHECK_MSG(s >= 0, "socket");
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, NAME);
	CHECK_MSG(ioctl(s, SIOCGIFINDEX, &ifr) == 0 &&
			  ifr.ifr_ifindex == 122240,
		  "SIOCGIFINDEX");
	CHECK_MSG(ioctl(s, SIOCGIFMTU, &ifr) == 0 && ifr.ifr_mtu == 1500,
		  "SIOCGIFMTU");
	CHECK_MSG(ioctl(s, SIOCGIFFLAGS, &ifr) == 0 &&
			  (ifr.ifr_flags & IFF_UP) &&
			  !!(ifr.ifr_flags & IFF_RUNNING) == !down,
		  "SIOCGIFFLAGS");
	CHECK_MSG(ioctl(s, SIOCGIFHWADDR, &ifr) == 0 &&
			  (uint8_t)ifr.ifr_hwaddr.sa_data[1] == 0x1d,
		  "SIOCGIFHWADDR");
	CHECK_MSG(ioctl(s, SIOCGIFADDR, &ifr) == 0 &&
			  inet_ntop(AF_INET,
				    &((struct sockaddr_in *)&ifr.ifr_addr)
					     ->sin_addr,
				    text, sizeof(text)) &&
			  !strcmp(text, ip),
		  "SIOCGIFADDR %s", text);
	ifr.ifr_mtu = 9000;
	errno = 0;
	CHECK_MSG(ioctl(s, SIOCSIFMTU, &ifr) < 0 && errno == EOPNOTSUPP,
		  "setting is refused");
	ifr.ifr_ifindex = 122240;
	memset(ifr.ifr_name, 0, sizeof(ifr.ifr_name));
	CHECK_MSG(ioctl(s, SIOCGIFNAME, &ifr) == 0 &&
			  !strcmp(ifr.ifr_name, NAME),
		  "SIOCGIFNAME");
	strcpy(ifr.ifr_name, "lo");
	CHECK_MSG(ioctl(s, SIOCGIFINDEX, &ifr) == 0 && ifr.ifr_ifindex == 1,
		  "host interfaces answered by the host");
	close(s);

	f = fopen("/sys/class/net/" NAME "/address", "r");
	CHECK_MSG(f && fgets(text, sizeof(text), f) &&
			  !strncmp(text, "02:1d:d8", 8),
		  "/sys/class/net/" NAME "/address");
	if (f)
		fclose(f);
	CHECK_MSG(access("/sys/class/infiniband/ionic_0/device/net/" NAME,
			 F_OK) == 0,
		  "device/net names it");

	return check_finish();
}
