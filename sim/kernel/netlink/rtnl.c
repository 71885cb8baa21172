// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: the NICs' network interfaces in rtnetlink
 * (NETLINK_ROUTE) answers, docs/kernel-contract.md §20: its link
 * (RTM_NEWLINK) and its IPv4 and IPv6 addresses (RTM_NEWADDR), as
 * `ip link` / `ip addr` and pyverbs' `ip -j addr show` read them.  The
 * host's interfaces stay the host kernel's: the platform forwards what
 * ik_rtnl_classify() does not keep and appends ours to full dumps.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <linux/if.h>
#include <linux/if_addr.h>
#include <linux/if_arp.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "../ik.h"
#include "nlmsg.h"

/* Does a request name interface 'd': by index or (links) by name? */
static bool names(const struct nlmsghdr *nlh, const struct ik_netdev *d)
{
	struct ik_nla_view tb[IFLA_MAX + 1];
	struct ifinfomsg ifi;
	struct ifaddrmsg ifa;

	switch (nlh->nlmsg_type) {
	case RTM_GETLINK:
	case RTM_NEWLINK:
	case RTM_SETLINK:
	case RTM_DELLINK:
		if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(ifi)))
			return false;
		memcpy(&ifi, NLMSG_DATA(nlh), sizeof(ifi));
		if (ifi.ifi_index)
			return ifi.ifi_index == d->ifindex;
		if (ik_nla_parse(nlh, sizeof(ifi), tb, IFLA_MAX))
			return false;
		for (int t = IFLA_IFNAME; t;
		     t = t == IFLA_IFNAME ? IFLA_ALT_IFNAME : 0) {
			const char *name;

			if (tb[t].data &&
			    !ik_nla_get_str(&tb[t], &name, IFNAMSIZ) &&
			    !strcmp(name, d->name))
				return true;
		}
		return false;
	case RTM_GETADDR:
	case RTM_NEWADDR:
	case RTM_DELADDR:
		if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(ifa)))
			return false;
		memcpy(&ifa, NLMSG_DATA(nlh), sizeof(ifa));
		return ifa.ifa_index == (uint32_t)d->ifindex;
	default:
		return false;
	}
}

/* The NIC whose interface a request names, or NULL. */
static const struct ik_netdev *names_ours(const struct nlmsghdr *nlh)
{
	const struct ik_netdev *d;

	for (unsigned int k = 0; (d = ik_netdev_get(k)); k++)
		if (names(nlh, d))
			return d;
	return NULL;
}

enum ik_rtnl_route ik_rtnl_classify(const void *msg, size_t len)
{
	struct nlmsghdr h;
	const struct nlmsghdr *nlh = msg;

	if (len < sizeof(h))
		return IK_RTNL_HOST;
	memcpy(&h, msg, sizeof(h));
	if (h.nlmsg_len < sizeof(h) || h.nlmsg_len > len ||
	    !(h.nlmsg_flags & NLM_F_REQUEST))
		return IK_RTNL_HOST;
	if (names_ours(nlh))
		return IK_RTNL_OURS;
	/* whole-table dumps: the host's entries, then ours */
	if ((h.nlmsg_flags & NLM_F_DUMP) &&
	    (h.nlmsg_type == RTM_GETLINK || h.nlmsg_type == RTM_GETADDR))
		return IK_RTNL_BOTH;
	return IK_RTNL_HOST;
}

static void put_link(struct ik_nlmsg *m, const struct ik_netdev *d)
{
	static const uint8_t brd[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	bool up = d->flags & IFF_LOWER_UP;
	struct ifinfomsg *ifi = ik_nlmsg_hdr(m, sizeof(*ifi));

	if (!ifi)
		return;
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_type = ARPHRD_ETHER;
	ifi->ifi_index = d->ifindex;
	ifi->ifi_flags = d->flags;
	ik_nla_str(m, IFLA_IFNAME, d->name);
	ik_nla_u32(m, IFLA_TXQLEN, 1000);
	ik_nla_u8(m, IFLA_OPERSTATE, up ? IF_OPER_UP : IF_OPER_DOWN);
	ik_nla_u8(m, IFLA_LINKMODE, 0);
	ik_nla_u32(m, IFLA_MTU, d->mtu);
	ik_nla_u32(m, IFLA_MIN_MTU, 68);
	ik_nla_u32(m, IFLA_MAX_MTU, d->max_mtu);
	ik_nla_u32(m, IFLA_GROUP, 0);
	ik_nla_u32(m, IFLA_PROMISCUITY, 0);
	ik_nla_u32(m, IFLA_NUM_TX_QUEUES, 1);
	ik_nla_u32(m, IFLA_NUM_RX_QUEUES, 1);
	ik_nla_u8(m, IFLA_CARRIER, up);
	ik_nla_str(m, IFLA_QDISC, "mq");
	ik_nla_put(m, IFLA_ADDRESS, d->mac, 6);
	ik_nla_put(m, IFLA_BROADCAST, brd, 6);
	ik_nla_put(m, IFLA_PERM_ADDRESS, d->mac, 6);
}

static void put_addr(struct ik_nlmsg *m, const struct ik_netdev *d, int family)
{
	struct ifa_cacheinfo ci = { .ifa_prefered = 0xffffffffu,
				    .ifa_valid = 0xffffffffu };
	struct ifaddrmsg *ifa = ik_nlmsg_hdr(m, sizeof(*ifa));

	if (!ifa)
		return;
	ifa->ifa_family = (uint8_t)family;
	ifa->ifa_flags = IFA_F_PERMANENT;
	ifa->ifa_index = (uint32_t)d->ifindex;
	if (family == AF_INET) {
		ifa->ifa_prefixlen = d->ipv4_prefix;
		ifa->ifa_scope = RT_SCOPE_UNIVERSE;
		ik_nla_put(m, IFA_ADDRESS, d->ipv4, 4);
		ik_nla_put(m, IFA_LOCAL, d->ipv4, 4);
		ik_nla_put(m, IFA_BROADCAST, d->ipv4_brd, 4);
		ik_nla_str(m, IFA_LABEL, d->name);
	} else {
		ifa->ifa_prefixlen = d->ipv6_prefix;
		ifa->ifa_scope = RT_SCOPE_LINK;
		ik_nla_put(m, IFA_ADDRESS, d->ipv6_ll, 16);
	}
	ik_nla_u32(m, IFA_FLAGS, IFA_F_PERMANENT);
	ik_nla_put(m, IFA_CACHEINFO, &ci, sizeof(ci));
}

void ik_rtnl_answer(const struct ik_nl_sock *s, const void *msg, size_t len,
		    bool complete, ik_nl_emit_fn emit, void *ctx)
{
	const struct nlmsghdr *nlh = msg;
	const struct ik_netdev *one, *d;
	struct ik_nlmsg *m;
	bool dump;
	int rc = 0;

	if (len < sizeof(*nlh) || nlh->nlmsg_len > len)
		return;
	dump = !!(nlh->nlmsg_flags & NLM_F_DUMP);
	/* the interface asked for, else (a dump) every one of ours */
	one = names_ours(nlh);
	m = malloc(sizeof(*m));
	if (!m)
		return;
	switch (nlh->nlmsg_type) {
	case RTM_GETLINK:
		for (unsigned int k = 0;
		     !rc && (d = one ? one : ik_netdev_get(k)); k++) {
			ik_nlmsg_start(m, RTM_NEWLINK, dump ? NLM_F_MULTI : 0,
				       nlh->nlmsg_seq, s->portid);
			put_link(m, d);
			rc = ik_nlmsg_emit(m, emit, ctx);
			if (one)
				break;
		}
		break;
	case RTM_GETADDR: {
		struct ifaddrmsg req = { 0 };

		if (nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(req)))
			memcpy(&req, NLMSG_DATA(nlh), sizeof(req));
		for (int fam = AF_INET; fam;
		     fam = fam == AF_INET ? AF_INET6 : 0) {
			if (req.ifa_family != AF_UNSPEC &&
			    req.ifa_family != fam)
				continue;
			for (unsigned int k = 0;
			     (d = one ? one : ik_netdev_get(k)); k++) {
				ik_nlmsg_start(m, RTM_NEWADDR,
					       dump ? NLM_F_MULTI : 0,
					       nlh->nlmsg_seq, s->portid);
				put_addr(m, d, fam);
				rc = ik_nlmsg_emit(m, emit, ctx);
				if (one)
					break;
			}
		}
		if (!dump)
			rc = -EOPNOTSUPP; /* addresses have no doit */
		break;
	}
	default:
		/* changing the interface: ionic-sim changes nothing */
		rc = -EOPNOTSUPP;
		break;
	}
	free(m);
	if (!complete)
		return;
	if (dump)
		ik_nl_done(nlh, s->portid, rc, emit, ctx);
	else if (rc || (nlh->nlmsg_flags & NLM_F_ACK))
		ik_nl_ack(nlh, s->portid, s->cap_ack, rc, emit, ctx);
}
