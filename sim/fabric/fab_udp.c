// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim fabric transport over UDP: RoCEv2 as it travels between
 * hosts.  A frame for (GID, qpn) goes as one UDP datagram from the NIC's
 * IPv4 address ($IONIC_SIM_ADDR, isim_node_ipv4) to the GID's IPv4
 * address, port 4791: the datagram is what follows the frame's UDP
 * header (BTH ... ICRC); the host's IP stack puts its own IP and UDP
 * headers on it.  Only IPv4-mapped GIDs are reachable this way.
 *
 * Sending: each endpoint has its own UDP socket bound to (our address,
 * an ephemeral port), the UDP source port of its frames (flow entropy,
 * as RoCEv2 allows), unconnected and with DF set, so that the host sends
 * IP identification 0 as the frame said and the receiver can rebuild the
 * frame the ICRC covers; TOS and TTL go as ancillary data.
 *
 * Receiving: port 4791 of an address can have one owner, but every
 * process of a launcher is a NIC of the same node.  The launcher owns
 * the port (ifab_udp_relay, run by ionic-sim --transport udp): it rebuilds
 * each datagram's Ethernet, IPv4 and UDP headers and hands the frame to
 * the endpoint its BTH names, the same abstract unix socket the unix
 * transport receives on.  So an endpoint receives on that socket here too.
 *
 * Each datagram to our own address is stamped in the node's shared wire
 * state (udp_wire.c), so the device can tell an ACK that is late from
 * one the relay has not handed on yet (udp_holds).  With no fault
 * configured, an address whose node paused us (udp_wire.c) gets nothing
 * until it resumes: xmit says EAGAIN and the frame waits in the backlog.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "../common/profile.h"
#include "../common/sys.h"
#include "fabric.h"
#include "frame.h"
#include "udp_wire.h"

#define UDP_SNDBUF (1 << 20)

/* One NIC per process: its address and its node's wire state, mapped at
 * the first bind (NULL outside a launcher's run). */
static struct ifab_udp_wire *wire;
static uint8_t self_ip[4];
static pthread_once_t wire_once = PTHREAD_ONCE_INIT;

static void wire_attach(void)
{
	wire = ifab_udp_wire_attach();
}

static int udp_bind(struct ifab_ep *ep, uint32_t node, uint32_t qpn)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t slen = sizeof(sin);
	int pmtu = IP_PMTUDISC_DO, sndbuf = UDP_SNDBUF;
	int fd, tx, err;

	fd = ifab_unix_bind_fd(node, qpn);
	if (fd < 0)
		return fd;
	tx = isim_sys_socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			     0);
	if (tx < 0)
		goto fail;
	isim_node_ipv4(node, (uint8_t *)&sin.sin_addr);
	memcpy(self_ip, &sin.sin_addr, 4);
	pthread_once(&wire_once, wire_attach);
	if (isim_sys_bind(tx, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
	    isim_sys_getsockname(tx, (struct sockaddr *)&sin, &slen) < 0 ||
	    isim_sys_setsockopt(tx, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu,
				sizeof(pmtu)))
		goto fail;
	isim_sys_setsockopt(tx, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	ep->fd = fd;
	ep->txfd = tx;
	ep->sport = ntohs(sin.sin_port);
	return 0;
fail:
	err = -errno;
	if (tx >= 0)
		isim_sys_close(tx);
	isim_sys_close(fd);
	return err;
}

static void udp_close(struct ifab_ep *ep)
{
	isim_sys_close(ep->fd);
	if (ep->txfd >= 0)
		isim_sys_close(ep->txfd);
}

static void udp_unpeer(struct ifab_ep *ep)
{
	(void)ep; /* unconnected: nothing to undo */
}

static int udp_xmit(struct ifab_ep *ep, const uint8_t gid[16], uint32_t qpn,
		    const void *buf, size_t len)
{
	const uint8_t *f = buf;
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons(IFAB_ROCE_PORT) };
	union {
		char b[CMSG_SPACE(sizeof(int)) * 2];
		struct cmsghdr align;
	} ctl;
	struct iovec iov;
	struct msghdr m = { .msg_name = &to,
			    .msg_namelen = sizeof(to),
			    .msg_iov = &iov,
			    .msg_iovlen = 1 };
	struct cmsghdr *c;
	size_t l3 = IFAB_ETH_HLEN, l4;
	uint64_t t = 0;
	bool self, lossless;
	int tos, ttl;

	(void)qpn; /* it is in the BTH */
	if (!ifab_gid_is_v4(gid))
		return -EHOSTUNREACH;
	if (len > l3 + 2 && f[12] == 0x81 && f[13] == 0x00)
		l3 += IFAB_VLAN_HLEN;
	l4 = l3 + IFAB_IPV4_HLEN;
	if (len < l4 + IFAB_UDP_HLEN || (f[l3] >> 4) != 4)
		return -EINVAL;
	/* the receiving node paused us (udp_wire.c): wait, unless faults
	 * make the wire lossy anyway */
	if (wire && ifab_lossless() && ifab_udp_wire_paused(wire, gid + 12))
		return -EAGAIN;
	memcpy(&to.sin_addr, gid + 12, 4);
	tos = f[l3 + 1];
	ttl = f[l3 + 8];
	iov.iov_base = (void *)(f + l4 + IFAB_UDP_HLEN);
	iov.iov_len = len - l4 - IFAB_UDP_HLEN;
	memset(&ctl, 0, sizeof(ctl));
	m.msg_control = ctl.b;
	m.msg_controllen = sizeof(ctl.b);
	c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = IPPROTO_IP;
	c->cmsg_type = IP_TOS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &tos, sizeof(tos));
	c = CMSG_NXTHDR(&m, c);
	c->cmsg_level = IPPROTO_IP;
	c->cmsg_type = IP_TTL;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &ttl, sizeof(ttl));
	self = wire && !memcmp(gid + 12, self_ip, 4);
	/* to our own relay: no more than its receive buffer takes
	 * (udp_wire.c) */
	lossless = self && ifab_lossless();
	if (lossless && !ifab_udp_wire_self_take(wire))
		return -EAGAIN;
	if (self)
		t = ifab_udp_wire_now();
	if (isim_sys_sendmsg(ep->txfd, &m, MSG_DONTWAIT | MSG_NOSIGNAL) >= 0) {
		if (self)
			ifab_udp_wire_sent(wire, t);
		return 0;
	}
	if (lossless)
		ifab_udp_wire_self_untake(wire);
	if (errno == EWOULDBLOCK || errno == ENOBUFS || errno == ENOMEM)
		return -EAGAIN;
	/* EMSGSIZE (beyond the path MTU, DF), ECONNREFUSED (an ICMP error
	 * of an earlier datagram), EHOSTUNREACH...: the frame is lost */
	return -errno;
}

/* Frames for ep, or from ep for its peer on this node, still wait on the
 * node's side of the wire (the relay). */
static bool udp_holds(const struct ifab_ep *ep)
{
	if (!wire)
		return false;
	return ifab_udp_wire_holds(wire, ep->qpn) ||
	       (ep->want_peer && !memcmp(ep->peer_gid + 12, self_ip, 4) &&
		ifab_udp_wire_holds(wire, ep->peer_qpn));
}

const struct ifab_transport ifab_udp_transport = {
	.name = "udp",
	.bind = udp_bind,
	.close = udp_close,
	.xmit = udp_xmit,
	.unpeer = udp_unpeer,
	.recv = ifab_unix_recv, /* the relay delivers there */
	.tells_absent = false, /* the peer's relay drops it unseen */
	.holds = udp_holds,
};
