// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim fabric transport over abstract unix datagram sockets: one
 * host, one network namespace.
 *
 * The endpoint (node, qpn) is the socket named
 * "\0ionic-sim/<fabric>/<node>/<qpn>"; a frame for (GID, qpn) goes to the
 * node the GID belongs to (isim_gid_to_node), whole, as one datagram.  Abstract names leave nothing in
 * the file system and vanish with the last descriptor, so a process that
 * exits simply disappears from the fabric: its peers see ECONNREFUSED and
 * treat the packet as lost.  Unix datagrams are reliable and ordered per
 * sender/receiver pair.
 *
 * RC endpoints connect() to their one peer: Linux then exempts the pair
 * from the receiver's small datagram-queue limit (net.unix.max_dgram_qlen,
 * often 10) and reports EPOLLOUT when the peer drains, so only our own
 * send buffer limits the flow.  UD endpoints stay unconnected.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/sockios.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "../common/profile.h"
#include "../common/sys.h"
#include "fabric.h"

/* Send buffer we ask for: a full RC window of 4 KiB packets plus headers
 * fits, so a connected pair rarely sees EAGAIN.  Capped by wmem_max. */
#define FAB_UNIX_SNDBUF (1 << 20)

socklen_t ifab_unix_addr(struct sockaddr_un *sun, uint32_t node, uint32_t qpn)
{
	int n;

	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	/* Abstract namespace: sun_path[0] stays 0, the name follows. */
	n = snprintf(sun->sun_path + 1, sizeof(sun->sun_path) - 1,
		     "ionic-sim/%s/%u/%u", ifab_name(), node, qpn);
	if (n < 0 || (size_t)n >= sizeof(sun->sun_path) - 1)
		n = sizeof(sun->sun_path) - 2;
	return offsetof(struct sockaddr_un, sun_path) + 1 + n;
}

/* Flow entropy for the UDP source port, as RoCEv2 NICs derive it from
 * the QP: 0xc000 | the low 14 bits of the QPN. */
static uint16_t qp_sport(uint32_t qpn)
{
	return (uint16_t)(0xc000 | (qpn & 0x3fff));
}

int ifab_unix_bind_fd(uint32_t node, uint32_t qpn)
{
	struct sockaddr_un sun;
	socklen_t len = ifab_unix_addr(&sun, node, qpn);
	int sndbuf = FAB_UNIX_SNDBUF;
	int fd, err;

	fd = isim_sys_socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			     0);
	if (fd < 0)
		return -errno;
	if (isim_sys_bind(fd, (struct sockaddr *)&sun, len) < 0) {
		err = -errno;
		isim_sys_close(fd);
		return err;
	}
	/* Best effort: the default is enough for correctness. */
	isim_sys_setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	return fd;
}

static int unix_bind(struct ifab_ep *ep, uint32_t node, uint32_t qpn)
{
	int fd = ifab_unix_bind_fd(node, qpn);

	if (fd < 0)
		return fd;
	ep->fd = fd;
	ep->sport = qp_sport(qpn);
	return 0;
}

static void unix_close(struct ifab_ep *ep)
{
	isim_sys_close(ep->fd);
}

static void unix_unpeer(struct ifab_ep *ep)
{
	struct sockaddr sa = { .sa_family = AF_UNSPEC };

	if (ep->connected && ep->fd >= 0)
		connect(ep->fd, &sa, sizeof(sa));
	ep->connected = false;
}

/* Try to connect to the wanted peer; a missing peer is not an error here:
 * the packet about to be sent will simply be lost. */
static void unix_try_connect(struct ifab_ep *ep)
{
	struct sockaddr_un sun;
	uint32_t node;
	socklen_t len;

	if (ep->connected || !ep->want_peer)
		return;
	node = isim_gid_to_node(ep->peer_gid);
	if (!node)
		return;
	len = ifab_unix_addr(&sun, node, ep->peer_qpn);
	if (connect(ep->fd, (struct sockaddr *)&sun, len) == 0)
		ep->connected = true;
}

static int unix_xmit(struct ifab_ep *ep, const uint8_t gid[16], uint32_t qpn,
		     const void *buf, size_t len)
{
	uint32_t node = isim_gid_to_node(gid);
	struct sockaddr_un sun;
	socklen_t alen;
	ssize_t n;

	if (!node)
		return -EHOSTUNREACH; /* no NIC has that address */
	if (ifab_is_peer(ep, gid, qpn)) {
		unix_try_connect(ep);
		if (ep->connected) {
			n = isim_sys_send(ep->fd, buf, len,
					  MSG_DONTWAIT | MSG_NOSIGNAL);
			goto out;
		}
	}
	alen = ifab_unix_addr(&sun, node, qpn);
	n = isim_sys_sendto(ep->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL,
			    (struct sockaddr *)&sun, alen);
out:
	if (n >= 0)
		return 0;
	if (errno == EWOULDBLOCK || errno == ENOBUFS || errno == ENOMEM)
		return -EAGAIN;
	/* ECONNREFUSED/ENOENT: no such peer; EPERM: the receiver is connected
	 * to someone else (an RC endpoint of another pair).  Both are loss. */
	return -errno;
}

ssize_t ifab_unix_recv(struct ifab_ep *ep, void *buf, size_t len)
{
	ssize_t n = isim_sys_recv(ep->fd, buf, len, MSG_DONTWAIT | MSG_TRUNC);

	if (n >= 0)
		return n;
	if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
		return -EAGAIN;
	return -errno;
}

/*
 * Frames we sent that the receiver has not read yet: a unix datagram stays
 * charged to its sender's socket until the receiver takes it (SIOCOUTQ),
 * so a non-zero count means our requests still wait in the peer's queue,
 * its engine not scheduled yet (a loaded host): the ACK timeout waits for
 * it (dev/timer.c) instead of retransmitting what is not lost.
 */
static bool unix_holds(const struct ifab_ep *ep)
{
	int n = 0;

	return isim_sys_ioctl(ep->fd, SIOCOUTQ, &n) == 0 && n > 0;
}

const struct ifab_transport ifab_unix_transport = {
	.name = "unix",
	.bind = unix_bind,
	.close = unix_close,
	.xmit = unix_xmit,
	.unpeer = unix_unpeer,
	.recv = ifab_unix_recv,
	.tells_absent = true, /* ECONNREFUSED: nobody bound that name */
	.pollout = true, /* a connected pair: the peer's drain wakes us */
	.holds = unix_holds,
};
