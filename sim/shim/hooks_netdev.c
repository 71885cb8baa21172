// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The NICs' network interfaces where programs look for interfaces through
 * libc (docs/kernel-contract.md §20): the if_* name/index calls,
 * getifaddrs() and the SIOCGIF* ioctls.  glibc answers these with its own
 * internal netlink and ioctl calls, which no interposer sees, so each is
 * answered here: the emulated interfaces (isim0, isim1, ...) first, then
 * the host's.
 */
#undef _FORTIFY_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "shim.h"

typedef unsigned int (*nametoindex_fn)(const char *);
typedef char *(*indextoname_fn)(unsigned int, char[IF_NAMESIZE]);
typedef struct if_nameindex *(*nameindex_fn)(void);
typedef void (*freenameindex_fn)(struct if_nameindex *);
typedef int (*getifaddrs_fn)(struct ifaddrs **);
typedef void (*freeifaddrs_fn)(struct ifaddrs *);
typedef int (*ioctl_fn)(int, unsigned long, void *);

/* NIC k's interface, NULL past the last */
static const struct ik_netdev *nd(unsigned int k)
{
	return ik_netdev_get(k);
}

static unsigned int nd_count(void)
{
	unsigned int n = 0;

	while (nd(n))
		n++;
	return n;
}

/* Ours named 'name' (IFNAMSIZ bytes at most compared), or NULL. */
static const struct ik_netdev *nd_named(const char *name)
{
	const struct ik_netdev *d;

	for (unsigned int k = 0; name && (d = nd(k)); k++)
		if (!strncmp(name, d->name, IFNAMSIZ))
			return d;
	return NULL;
}

static const struct ik_netdev *nd_indexed(int index)
{
	const struct ik_netdev *d;

	for (unsigned int k = 0; (d = nd(k)); k++)
		if (d->ifindex == index)
			return d;
	return NULL;
}

unsigned int if_nametoindex(const char *name)
{
	const struct ik_netdev *d = nd_named(name);

	if (d)
		return (unsigned int)d->ifindex;
	return ISHIM_REAL(if_nametoindex, nametoindex_fn)(name);
}

char *if_indextoname(unsigned int index, char name[IF_NAMESIZE])
{
	const struct ik_netdev *d =
		index <= INT32_MAX ? nd_indexed((int)index) : NULL;

	if (d) {
		memcpy(name, d->name, IF_NAMESIZE);
		return name;
	}
	return ISHIM_REAL(if_indextoname, indextoname_fn)(index, name);
}

/* if_nameindex: the host's list with ours appended, in one block that
 * if_freenameindex recognises by its marker entry after the end. */
#define NAMEINDEX_MARK 0x15e1u

struct if_nameindex *if_nameindex(void)
{
	struct if_nameindex *host, *out;
	size_t n = 0, names = 0, ours = nd_count();
	char *strs;

	host = ISHIM_REAL(if_nameindex, nameindex_fn)();
	if (!host)
		return NULL;
	for (; host[n].if_index; n++)
		names += strlen(host[n].if_name) + 1;
	for (size_t k = 0; k < ours; k++)
		names += strlen(nd(k)->name) + 1;
	out = malloc((n + ours + 2) * sizeof(*out) + names);
	if (!out) {
		ISHIM_REAL(if_freenameindex, freenameindex_fn)(host);
		errno = ENOBUFS;
		return NULL;
	}
	strs = (char *)(out + n + ours + 2);
	for (size_t i = 0; i < n + ours; i++) {
		const struct ik_netdev *d = i < n ? NULL : nd(i - n);
		const char *src = d ? d->name : host[i].if_name;

		out[i].if_index = d ? (unsigned int)d->ifindex :
				      host[i].if_index;
		out[i].if_name = strcpy(strs, src);
		strs += strlen(src) + 1;
	}
	n += ours;
	out[n].if_index = 0;
	out[n].if_name = NULL;
	out[n + 1].if_index = NAMEINDEX_MARK;
	out[n + 1].if_name = (char *)out;
	ISHIM_REAL(if_freenameindex, freenameindex_fn)(host);
	return out;
}

void if_freenameindex(struct if_nameindex *ni)
{
	size_t n = 0;

	if (!ni)
		return;
	while (ni[n].if_index)
		n++;
	if (ni[n + 1].if_index == NAMEINDEX_MARK &&
	    ni[n + 1].if_name == (char *)ni) {
		free(ni);
		return;
	}
	ISHIM_REAL(if_freenameindex, freenameindex_fn)(ni);
}

/* ---- getifaddrs ------------------------------------------------------- */

/* One interface's entries (link, IPv4, IPv6). */
struct one_ifaddrs {
	struct ifaddrs ifa[3];
	struct sockaddr_ll ll, ll_brd;
	struct sockaddr_in in, in_mask, in_brd;
	struct sockaddr_in6 in6, in6_mask;
	char name[IF_NAMESIZE];
};

/* Ours in one block in front of the host's list; freeifaddrs recognises
 * the block by its address. */
struct our_ifaddrs {
	struct one_ifaddrs nic[ISIM_MAX_NICS];
	struct ifaddrs *host; /* what libc gave, freed with us */
	struct our_ifaddrs *next; /* live blocks */
};

static pthread_mutex_t ifa_lock = PTHREAD_MUTEX_INITIALIZER;
static struct our_ifaddrs *live;

static void prefix_mask(uint8_t *m, size_t len, unsigned int bits)
{
	memset(m, 0, len);
	for (size_t i = 0; i < len && bits; i++) {
		unsigned int b = bits >= 8 ? 8 : bits;

		m[i] = (uint8_t)(0xff00 >> b);
		bits -= b;
	}
}

/* NIC d's entries, followed by 'next'. */
static void fill_one(struct one_ifaddrs *o, const struct ik_netdev *d,
		     struct ifaddrs *next)
{
	memset(o, 0, sizeof(*o));
	memcpy(o->name, d->name, sizeof(o->name));
	o->ll.sll_family = AF_PACKET;
	o->ll.sll_ifindex = d->ifindex;
	o->ll.sll_hatype = ARPHRD_ETHER;
	o->ll.sll_halen = 6;
	memcpy(o->ll.sll_addr, d->mac, 6);
	o->ll_brd = o->ll;
	memset(o->ll_brd.sll_addr, 0xff, 6);
	o->in.sin_family = AF_INET;
	memcpy(&o->in.sin_addr, d->ipv4, 4);
	o->in_mask.sin_family = AF_INET;
	prefix_mask((uint8_t *)&o->in_mask.sin_addr, 4, d->ipv4_prefix);
	o->in_brd.sin_family = AF_INET;
	memcpy(&o->in_brd.sin_addr, d->ipv4_brd, 4);
	o->in6.sin6_family = AF_INET6;
	memcpy(&o->in6.sin6_addr, d->ipv6_ll, 16);
	o->in6.sin6_scope_id = (uint32_t)d->ifindex;
	o->in6_mask.sin6_family = AF_INET6;
	prefix_mask((uint8_t *)&o->in6_mask.sin6_addr, 16, d->ipv6_prefix);
	for (int i = 0; i < 3; i++) {
		o->ifa[i].ifa_name = o->name;
		o->ifa[i].ifa_flags = d->flags;
		o->ifa[i].ifa_next = i < 2 ? &o->ifa[i + 1] : next;
	}
	o->ifa[0].ifa_addr = (struct sockaddr *)&o->ll;
	o->ifa[0].ifa_broadaddr = (struct sockaddr *)&o->ll_brd;
	o->ifa[1].ifa_addr = (struct sockaddr *)&o->in;
	o->ifa[1].ifa_netmask = (struct sockaddr *)&o->in_mask;
	o->ifa[1].ifa_broadaddr = (struct sockaddr *)&o->in_brd;
	o->ifa[2].ifa_addr = (struct sockaddr *)&o->in6;
	o->ifa[2].ifa_netmask = (struct sockaddr *)&o->in6_mask;
}

int getifaddrs(struct ifaddrs **out)
{
	struct our_ifaddrs *o;
	struct ifaddrs *host = NULL;

	if (ISHIM_REAL(getifaddrs, getifaddrs_fn)(&host))
		return -1;
	o = malloc(sizeof(*o));
	if (!o) {
		*out = host; /* the host's interfaces at least */
		return 0;
	}
	o->host = host;
	/* from the last NIC's to the first's, each ahead of the ones after */
	for (unsigned int k = nd_count(); k--;)
		fill_one(&o->nic[k], nd(k),
			 k + 1 < nd_count() ? o->nic[k + 1].ifa : host);
	pthread_mutex_lock(&ifa_lock);
	o->next = live;
	live = o;
	pthread_mutex_unlock(&ifa_lock);
	*out = o->nic[0].ifa;
	return 0;
}

void freeifaddrs(struct ifaddrs *ifa)
{
	struct our_ifaddrs *o = NULL;

	pthread_mutex_lock(&ifa_lock);
	for (struct our_ifaddrs **pp = &live; *pp; pp = &(*pp)->next) {
		if ((*pp)->nic[0].ifa == ifa) {
			o = *pp;
			*pp = o->next;
			break;
		}
	}
	pthread_mutex_unlock(&ifa_lock);
	if (!o) {
		ISHIM_REAL(freeifaddrs, freeifaddrs_fn)(ifa);
		return;
	}
	if (o->host)
		ISHIM_REAL(freeifaddrs, freeifaddrs_fn)(o->host);
	free(o);
}

/* ---- SIOCGIF* ------------------------------------------------------------ */

static void put_in(struct sockaddr *sa, const uint8_t a[4])
{
	struct sockaddr_in in = { .sin_family = AF_INET };

	memcpy(&in.sin_addr, a, 4);
	memcpy(sa, &in, sizeof(in));
}

int ishim_netdev_ioctl(int fd, unsigned long req, void *arg, int *rc)
{
	const struct ik_netdev *d;
	struct ifreq *ifr = arg;
	uint8_t mask[4];

	(void)fd; /* any socket may ask */
	if ((req & 0xff00) != 0x8900 || !arg)
		return 0; /* not a socket-interface ioctl */
	if (req == SIOCGIFNAME) {
		d = nd_indexed(ifr->ifr_ifindex);
		if (!d)
			return 0;
		memcpy(ifr->ifr_name, d->name, IFNAMSIZ);
		*rc = 0;
		return 1;
	}
	d = nd_named(ifr->ifr_name);
	if (!d)
		return 0;
	*rc = 0;
	switch (req) {
	case SIOCGIFINDEX:
		ifr->ifr_ifindex = d->ifindex;
		break;
	case SIOCGIFFLAGS:
		ifr->ifr_flags = (short)d->flags;
		break;
	case SIOCGIFMTU:
		ifr->ifr_mtu = (int)d->mtu;
		break;
	case SIOCGIFHWADDR:
		memset(&ifr->ifr_hwaddr, 0, sizeof(ifr->ifr_hwaddr));
		ifr->ifr_hwaddr.sa_family = ARPHRD_ETHER;
		memcpy(ifr->ifr_hwaddr.sa_data, d->mac, 6);
		break;
	case SIOCGIFADDR:
		put_in(&ifr->ifr_addr, d->ipv4);
		break;
	case SIOCGIFNETMASK:
		prefix_mask(mask, 4, d->ipv4_prefix);
		put_in(&ifr->ifr_netmask, mask);
		break;
	case SIOCGIFBRDADDR:
		put_in(&ifr->ifr_broadaddr, d->ipv4_brd);
		break;
	case SIOCGIFTXQLEN:
		ifr->ifr_qlen = 1000;
		break;
	default:
		/* setting anything on it: the driver would need
		 * CAP_NET_ADMIN and ionic-sim changes nothing */
		*rc = -EOPNOTSUPP;
		break;
	}
	return 1;
}
