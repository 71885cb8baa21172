// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim fabric: the receiving half of the UDP transport (fab_udp.c),
 * run by the launcher for its node.  It owns UDP port 4791 of the NIC's
 * address and turns every datagram into the frame a NIC would have
 * received: Ethernet (to our MAC, from the sender's: our own for our own
 * address, else isim_gid_mac), IPv4 (the datagram's addresses, TOS and
 * TTL, identification 0, DF, as the sender's frame had them), UDP (its
 * ports, checksum 0: the ICRC does not cover it) and the datagram.  The
 * frame goes to the endpoint the BTH's destination QP names, the abstract
 * unix socket of (node, qpn), as the unix transport would have delivered
 * it.  Anything not RoCEv2 is left to the device's parser, which drops
 * it.
 *
 * One connected unix socket per destination QP.  The receiving socket
 * holds only a few datagrams (net.unix.max_dgram_qlen, often 10), and a
 * loaded host may not run the receiving engine for tens of milliseconds:
 * frames for a full receiver wait in a queue of their own, in order, sent
 * on as it drains (poll for POLLOUT), without holding up the frames for
 * other QPs.  Dropping them instead turned a slow engine into a lossy
 * link: its peer's go-back-N retransmissions filled the same small queue
 * again and an RC QP ran out of retries with no fault configured (seen
 * in verbs-stress-udp on a loaded machine).  And the queues do not grow
 * without end: past RELAY_PAUSE_HIGH bytes the relay pauses the senders
 * whose frames keep coming (a pause datagram to their port 4791, PFC's
 * role; udp_wire.c), resuming them once the queues drained, so with no
 * fault configured nothing is lost.  Only a queue past RELAY_QUEUE_BYTES
 * (senders that ignore pauses, a lossy run) loses frames, as a congested
 * switch would.
 *
 * Each wake-up reads port 4791 until it is empty and then says so in the
 * node's shared wire state (udp_wire.c), with the destination QPs whose
 * frames wait here, so the device does not time out on them; the receive
 * buffer is forced to RELAY_RCVBUF where privileges allow (root, as in
 * CI; net.core.rmem_max caps it otherwise).  Counters of what the relay
 * saw (datagrams, the socket's drops, queue losses, the longest a
 * datagram waited in the socket for this thread) are printed when the
 * run fails (ifab_udp_relay_end).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../common/profile.h"
#include "../common/sys.h"
#include "fabric.h"
#include "frame.h"
#include "udp_wire.h"

#define RELAY_HDR (IFAB_ETH_HLEN + IFAB_IPV4_HLEN + IFAB_UDP_HLEN)
#define RELAY_SLOTS IFAB_UDP_RELAY_SLOTS
/* datagrams read per wake-up before the queues get their turn */
#define RELAY_BURST 1024
#define RELAY_RCVBUF (8 << 20)
/* frames held for one full receiver; with no fault configured the
 * senders are paused long before (RELAY_PAUSE_HIGH), so this is only a
 * bound on memory against senders that ignore pauses */
#define RELAY_QUEUE_BYTES (32u << 20)
/* lossless wire: pause the senders whose frames find the queues this
 * full (bytes, all QPs), resume them below RELAY_PAUSE_LOW; a pause lasts
 * RELAY_PAUSE_US unless renewed (every RELAY_PAUSE_RENEW_MS while still
 * congested), so a lost resume or a relay that died stalls nobody */
#define RELAY_PAUSE_HIGH (256u << 10)
#define RELAY_PAUSE_LOW (64u << 10)
#define RELAY_PAUSE_US 50000u
#define RELAY_PAUSE_RENEW_MS 10
/* receive buffer bytes a datagram of a 4 KiB MTU frame takes */
#define RELAY_SELF_FRAME 8192

struct relay_frame {
	struct relay_frame *next;
	size_t len;
	uint8_t b[];
};

struct relay_slot {
	uint32_t qpn; /* + 1; 0: free */
	int fd;
	struct relay_frame *head, **tail; /* waiting for the receiver */
	size_t queued; /* bytes */
};

/* A sender we paused. */
struct relay_paused {
	uint8_t ip[4];
	uint64_t sent_ns; /* the last pause we sent it */
};

struct ifab_relay {
	pthread_t thread;
	int udp, stop;
	uint32_t node;
	uint8_t ip[4], mac[6];
	unsigned int backlogged; /* slots with a queue */
	size_t queued; /* bytes in all queues */
	struct relay_paused paused[IFAB_UDP_PAUSE_PEERS];
	unsigned int npaused;
	struct relay_slot slot[RELAY_SLOTS];
	struct pollfd p[2 + RELAY_SLOTS];
	struct relay_slot *polled[RELAY_SLOTS]; /* p[2 + i] is theirs */
	struct ifab_udp_wire *wire; /* atomic; NULL until shared */
	struct ifab_relay_stats st; /* this thread's */
	uint8_t buf[RELAY_HDR + 65536];
};

/* Tell the node's processes whether frames for s's QP wait here. */
static void relay_publish(struct ifab_relay *r, struct relay_slot *s,
			  bool waiting)
{
	struct ifab_udp_wire *w = __atomic_load_n(&r->wire, __ATOMIC_ACQUIRE);

	if (w)
		ifab_udp_wire_backlog(w, (uint32_t)(s - r->slot),
				      waiting ? s->qpn : 0);
}

/* Tell 'ip' to stop sending to us for 'us' microseconds (0: go on). */
static void relay_send_pause(struct ifab_relay *r, const uint8_t ip[4],
			     uint32_t us)
{
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons(IFAB_ROCE_PORT) };
	uint8_t b[IFAB_UDP_PAUSE_LEN];

	memcpy(&to.sin_addr, ip, 4);
	memcpy(b, IFAB_UDP_PAUSE_MAGIC, IFAB_UDP_PAUSE_MAGIC_LEN);
	b[8] = (uint8_t)(us >> 24);
	b[9] = (uint8_t)(us >> 16);
	b[10] = (uint8_t)(us >> 8);
	b[11] = (uint8_t)us;
	/* best effort: a lost pause is a dropped frame at worst, a lost
	 * resume a pause that expires */
	isim_sys_sendto(r->udp, b, sizeof(b), MSG_DONTWAIT | MSG_NOSIGNAL,
			(struct sockaddr *)&to, sizeof(to));
}

/* Frames for this node wait behind our pause (or, once resumed, in the
 * senders' backlogs) for a pause's length after 'now' at most. */
static void relay_pausing(struct ifab_relay *r, uint64_t now)
{
	struct ifab_udp_wire *w = __atomic_load_n(&r->wire, __ATOMIC_ACQUIRE);

	if (w)
		ifab_udp_wire_pausing(w, now + RELAY_PAUSE_US * 1000ull);
}

/* A frame from 'ip' found the queues past the mark: pause its sender. */
static void relay_pause(struct ifab_relay *r, const uint8_t ip[4])
{
	uint64_t now = ifab_udp_wire_now();
	struct relay_paused *p = NULL;

	for (unsigned int i = 0; i < r->npaused; i++)
		if (!memcmp(r->paused[i].ip, ip, 4))
			p = &r->paused[i];
	if (!p) {
		if (r->npaused == IFAB_UDP_PAUSE_PEERS)
			return;
		p = &r->paused[r->npaused++];
		memcpy(p->ip, ip, 4);
		p->sent_ns = 0;
	}
	if (now - p->sent_ns < RELAY_PAUSE_RENEW_MS * 1000000ull)
		return;
	p->sent_ns = now;
	relay_pausing(r, now);
	relay_send_pause(r, ip, RELAY_PAUSE_US);
}

/* The queues drained below the low mark: resume everyone paused; still
 * congested: renew pauses about to expire.  The poll timeout: when to
 * look again. */
static int relay_pause_check(struct ifab_relay *r)
{
	uint64_t now;

	if (!r->npaused)
		return -1;
	now = ifab_udp_wire_now();
	if (r->queued < RELAY_PAUSE_LOW) {
		relay_pausing(r, now);
		for (unsigned int i = 0; i < r->npaused; i++)
			relay_send_pause(r, r->paused[i].ip, 0);
		r->npaused = 0;
		return -1;
	}
	for (unsigned int i = 0; i < r->npaused; i++) {
		if (now - r->paused[i].sent_ns <
		    RELAY_PAUSE_RENEW_MS * 1000000ull)
			continue;
		r->paused[i].sent_ns = now;
		relay_pausing(r, now);
		relay_send_pause(r, r->paused[i].ip, RELAY_PAUSE_US);
	}
	return RELAY_PAUSE_RENEW_MS;
}

static void relay_drop_queue(struct ifab_relay *r, struct relay_slot *s)
{
	struct relay_frame *f;

	if (s->head) {
		r->backlogged--;
		relay_publish(r, s, false);
	}
	r->queued -= s->queued;
	while ((f = s->head)) {
		s->head = f->next;
		free(f);
	}
	s->tail = &s->head;
	s->queued = 0;
}

static void relay_close(struct ifab_relay *r, struct relay_slot *s)
{
	relay_drop_queue(r, s);
	if (s->qpn)
		isim_sys_close(s->fd);
	s->qpn = 0;
}

/*
 * The slot a destination QP has, or the one to give it: a free one of its
 * probes, else one with no frames waiting (its socket is only closed).
 * Taking the hash's slot alone, two QPs of one hash took it in turns and
 * each turn threw away the other's queue: frames lost on a wire with no
 * fault.  Only when every probe holds a queue is one thrown away (counted
 * as lost).
 */
static struct relay_slot *relay_pick(struct ifab_relay *r, uint32_t qpn)
{
	struct relay_slot *s, *free_s = NULL, *idle = NULL;
	struct relay_frame *f;

	for (unsigned int k = 0; k < IFAB_UDP_RELAY_PROBES; k++) {
		s = &r->slot[ifab_udp_relay_probe(qpn, k)];
		if (s->qpn == qpn + 1)
			return s;
		if (!s->qpn && !free_s)
			free_s = s;
		if (!s->head && !idle)
			idle = s;
	}
	if (free_s || idle)
		return free_s ? free_s : idle;
	s = &r->slot[ifab_udp_relay_slot(qpn)];
	for (f = s->head; f; f = f->next)
		r->st.queue_lost++;
	return s;
}

/* The slot of a destination QP, connected; NULL: no such QP here. */
static struct relay_slot *relay_conn(struct ifab_relay *r, uint32_t qpn,
				     bool fresh)
{
	struct relay_slot *s = relay_pick(r, qpn);
	struct sockaddr_un sun;
	socklen_t len;
	int fd;

	if (s->qpn == qpn + 1 && !fresh)
		return s;
	relay_close(r, s);
	fd = isim_sys_socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			     0);
	if (fd < 0)
		return NULL;
	len = ifab_unix_addr(&sun, r->node, qpn);
	if (connect(fd, (struct sockaddr *)&sun, len) < 0) {
		isim_sys_close(fd);
		return NULL; /* no such QP on this node: the frame is lost */
	}
	s->qpn = qpn + 1;
	s->fd = fd;
	return s;
}

static void relay_enqueue(struct ifab_relay *r, struct relay_slot *s,
			  size_t len)
{
	struct relay_frame *f;

	if (s->queued + len > RELAY_QUEUE_BYTES) {
		r->st.queue_lost++;
		return; /* congested: lost */
	}
	f = malloc(sizeof(*f) + len);
	if (!f) {
		r->st.queue_lost++;
		return;
	}
	f->next = NULL;
	f->len = len;
	memcpy(f->b, r->buf, len);
	if (!s->head) {
		r->backlogged++;
		relay_publish(r, s, true);
	}
	*s->tail = f;
	s->tail = &f->next;
	s->queued += len;
	r->queued += len;
	/* the sender's address, as relay_frame() wrote it */
	if (r->queued > RELAY_PAUSE_HIGH)
		relay_pause(r, r->buf + IFAB_ETH_HLEN + 12);
}

/* Send what waits for a receiver that has drained. */
static void relay_flush(struct ifab_relay *r, struct relay_slot *s)
{
	struct relay_frame *f;

	while ((f = s->head)) {
		if (isim_sys_send(s->fd, f->b, f->len,
				  MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
			if (errno == EAGAIN)
				return;
			/* the endpoint went away: so did its frames */
			relay_close(r, s);
			return;
		}
		s->head = f->next;
		s->queued -= f->len;
		r->queued -= f->len;
		free(f);
	}
	s->tail = &s->head;
	r->backlogged--;
	relay_publish(r, s, false);
}

static void relay_deliver(struct ifab_relay *r, uint32_t qpn, size_t len)
{
	struct relay_slot *s;

	for (int attempt = 0; attempt < 2; attempt++) {
		s = relay_conn(r, qpn, attempt > 0);
		if (!s)
			return;
		if (s->head) { /* behind the frames already waiting */
			relay_enqueue(r, s, len);
			return;
		}
		if (isim_sys_send(s->fd, r->buf, len,
				  MSG_DONTWAIT | MSG_NOSIGNAL) >= 0)
			return;
		if (errno == EAGAIN) {
			relay_enqueue(r, s, len);
			return;
		}
		/* the endpoint went away, or another took its name */
	}
}

/* Rebuild the headers in front of a datagram of 'n' bytes from 'from'. */
static void relay_frame(struct ifab_relay *r, const struct sockaddr_in *from,
			int tos, int ttl, size_t n)
{
	uint8_t *b = r->buf, *ip = b + IFAB_ETH_HLEN,
		*udp = ip + IFAB_IPV4_HLEN;
	uint8_t sgid[16] = { [10] = 0xff, [11] = 0xff };
	uint16_t tot = (uint16_t)(IFAB_IPV4_HLEN + IFAB_UDP_HLEN + n), c;

	memcpy(sgid + 12, &from->sin_addr, 4);
	memcpy(b, r->mac, 6);
	if (!memcmp(&from->sin_addr, r->ip, 4))
		memcpy(b + 6, r->mac, 6);
	else
		isim_gid_mac(sgid, b + 6);
	b[12] = IFAB_ETHERTYPE_IPV4 >> 8;
	b[13] = IFAB_ETHERTYPE_IPV4 & 0xff;
	memset(ip, 0, IFAB_IPV4_HLEN);
	ip[0] = 0x45;
	ip[1] = (uint8_t)tos;
	ip[2] = tot >> 8;
	ip[3] = tot & 0xff;
	ip[6] = 0x40; /* DF */
	ip[8] = (uint8_t)ttl;
	ip[9] = 17;
	memcpy(ip + 12, &from->sin_addr, 4);
	memcpy(ip + 16, r->ip, 4);
	c = ifab_ip_csum(ip, IFAB_IPV4_HLEN);
	ip[10] = c >> 8;
	ip[11] = c & 0xff;
	memcpy(udp, &from->sin_port, 2);
	udp[2] = IFAB_ROCE_PORT >> 8;
	udp[3] = IFAB_ROCE_PORT & 0xff;
	udp[4] = (uint8_t)((IFAB_UDP_HLEN + n) >> 8);
	udp[5] = (uint8_t)(IFAB_UDP_HLEN + n);
	udp[6] = udp[7] = 0;
}

/* The socket's drop counter, and how long the datagram waited for us. */
static void relay_sockopt_cmsg(struct ifab_relay *r, const struct cmsghdr *c)
{
	struct timespec now, arrived;
	uint32_t drops;
	int64_t waited;

	if (c->cmsg_type == SO_RXQ_OVFL) {
		memcpy(&drops, CMSG_DATA(c), sizeof(drops));
		r->st.socket_drops = drops;
	} else if (c->cmsg_type == SCM_TIMESTAMPNS) {
		memcpy(&arrived, CMSG_DATA(c), sizeof(arrived));
		clock_gettime(CLOCK_REALTIME, &now);
		waited = (int64_t)(now.tv_sec - arrived.tv_sec) * 1000000000ll +
			 (now.tv_nsec - arrived.tv_nsec);
		if (waited > r->st.max_wait_ns)
			r->st.max_wait_ns = waited;
		if (waited > 10000000ll)
			r->st.waits_over_10ms++;
	}
}

/* A receiving node paused us, or resumed us: its address's senders in
 * the node's processes wait (fab_udp.c) until the pause expires. */
static void relay_got_pause(struct ifab_relay *r,
			    const struct sockaddr_in *from)
{
	struct ifab_udp_wire *w = __atomic_load_n(&r->wire, __ATOMIC_ACQUIRE);
	const uint8_t *b = r->buf + RELAY_HDR;
	uint32_t us = (uint32_t)b[8] << 24 | (uint32_t)b[9] << 16 |
		      (uint32_t)b[10] << 8 | b[11];

	if (w)
		ifab_udp_wire_pause(w, (const uint8_t *)&from->sin_addr,
				    us > RELAY_PAUSE_US ? RELAY_PAUSE_US : us);
}

/* Relay one datagram; false: none was waiting. */
static bool relay_one(struct ifab_relay *r)
{
	union {
		char b[CMSG_SPACE(sizeof(int)) * 4 +
		       CMSG_SPACE(sizeof(struct timespec)) +
		       CMSG_SPACE(sizeof(uint32_t))];
		struct cmsghdr align;
	} ctl;
	struct sockaddr_in from;
	struct iovec iov = { .iov_base = r->buf + RELAY_HDR,
			     .iov_len = sizeof(r->buf) - RELAY_HDR };
	struct msghdr m = { .msg_name = &from,
			    .msg_namelen = sizeof(from),
			    .msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = ctl.b,
			    .msg_controllen = sizeof(ctl.b) };
	struct ifab_udp_wire *w = __atomic_load_n(&r->wire, __ATOMIC_ACQUIRE);
	int tos = 0, ttl = 64;
	const uint8_t *dqpn = r->buf + RELAY_HDR + IFAB_BTH_DQPN_OFF;
	ssize_t n = isim_sys_recvmsg(r->udp, &m, MSG_DONTWAIT);

	if (n < 0)
		return false;
	if (n == IFAB_UDP_PAUSE_LEN &&
	    !memcmp(iov.iov_base, IFAB_UDP_PAUSE_MAGIC,
		    IFAB_UDP_PAUSE_MAGIC_LEN)) {
		relay_got_pause(r, &from);
		return true;
	}
	if (w && !memcmp(&from.sin_addr, r->ip, 4))
		ifab_udp_wire_self_read(w);
	if (n < IFAB_BTH_LEN || (m.msg_flags & MSG_TRUNC))
		return true;
	r->st.datagrams++;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_level == SOL_SOCKET) {
			relay_sockopt_cmsg(r, c);
			continue;
		}
		if (c->cmsg_level != IPPROTO_IP)
			continue;
		if (c->cmsg_type == IP_TOS)
			tos = *(const uint8_t *)CMSG_DATA(c);
		else if (c->cmsg_type == IP_TTL)
			memcpy(&ttl, CMSG_DATA(c), sizeof(ttl));
	}
	relay_frame(r, &from, tos, ttl, (size_t)n);
	relay_deliver(
		r, (uint32_t)dqpn[0] << 16 | (uint32_t)dqpn[1] << 8 | dqpn[2],
		RELAY_HDR + (size_t)n);
	return true;
}

/* Read port 4791 until it is empty (or a burst is done); say when it was. */
static void relay_drain(struct ifab_relay *r)
{
	struct ifab_udp_wire *w = __atomic_load_n(&r->wire, __ATOMIC_ACQUIRE);
	uint64_t t, sent;

	for (int i = 0; i < RELAY_BURST; i++) {
		t = w ? ifab_udp_wire_now() : 0;
		sent = w ? ifab_udp_wire_self_sent(w) : 0;
		if (!relay_one(r)) {
			if (w) {
				ifab_udp_wire_drained(w, t);
				ifab_udp_wire_self_drained(w, sent);
			}
			return;
		}
	}
}

static void *relay_main(void *arg)
{
	struct ifab_relay *r = arg;
	struct pollfd *p = r->p;
	nfds_t n;

	p[0] = (struct pollfd){ .fd = r->udp, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = r->stop, .events = POLLIN };
	for (;;) {
		n = 2;
		for (int i = 0; r->backlogged && i < RELAY_SLOTS; i++) {
			if (!r->slot[i].head)
				continue;
			r->polled[n - 2] = &r->slot[i];
			p[n++] = (struct pollfd){ .fd = r->slot[i].fd,
						  .events = POLLOUT };
		}
		if (poll(p, n, relay_pause_check(r)) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break;
		/* receivers that drained first: their frames are older */
		for (nfds_t i = 2; i < n; i++)
			if (p[i].revents && r->polled[i - 2]->head)
				relay_flush(r, r->polled[i - 2]);
		if (p[0].revents & POLLIN)
			relay_drain(r);
		relay_pause_check(r);
	}
	return NULL;
}

int ifab_udp_relay_start(uint32_t node, struct ifab_relay **out)
{
	struct ifab_relay *r = calloc(1, sizeof(*r));
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(IFAB_ROCE_PORT) };
	int one = 1, rcvbuf = RELAY_RCVBUF, rc;
	sigset_t all, old;

	if (!r)
		return -ENOMEM;
	r->node = node;
	r->udp = r->stop = -1;
	for (int i = 0; i < RELAY_SLOTS; i++)
		r->slot[i].tail = &r->slot[i].head;
	isim_node_ipv4(node, r->ip);
	isim_node_mac(node, r->mac);
	memcpy(&sin.sin_addr, r->ip, 4);
	r->udp = isim_sys_socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	r->stop = eventfd(0, EFD_CLOEXEC);
	if (r->udp < 0 || r->stop < 0 ||
	    isim_sys_setsockopt(r->udp, IPPROTO_IP, IP_RECVTOS, &one,
				sizeof(one)) ||
	    isim_sys_setsockopt(r->udp, IPPROTO_IP, IP_RECVTTL, &one,
				sizeof(one)) ||
	    isim_sys_setsockopt(r->udp, SOL_SOCKET, SO_RXQ_OVFL, &one,
				sizeof(one)) ||
	    isim_sys_setsockopt(r->udp, SOL_SOCKET, SO_TIMESTAMPNS, &one,
				sizeof(one)) ||
	    isim_sys_bind(r->udp, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
		rc = -errno;
		goto err;
	}
	if (isim_sys_setsockopt(r->udp, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
				sizeof(rcvbuf)))
		isim_sys_setsockopt(r->udp, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
				    sizeof(rcvbuf));
	/* the launcher's signals are not the relay's */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = -pthread_create(&r->thread, NULL, relay_main, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc)
		goto err;
	*out = r;
	return 0;
err:
	if (r->udp >= 0)
		isim_sys_close(r->udp);
	if (r->stop >= 0)
		isim_sys_close(r->stop);
	free(r);
	return rc;
}

int ifab_udp_relay_share(struct ifab_relay *r, const char *rundir)
{
	struct ifab_udp_wire *w = ifab_udp_wire_create(rundir);
	int rcvbuf = 0;
	socklen_t len = sizeof(rcvbuf);

	if (!w)
		return -errno;
	/* datagrams to ourselves in flight: a quarter of what the receive
	 * buffer holds of the largest frames (SO_RCVBUF reports the doubled
	 * figure the kernel accounts with) */
	if (isim_sys_getsockopt(r->udp, SOL_SOCKET, SO_RCVBUF, &rcvbuf, &len) ||
	    rcvbuf < RELAY_SELF_FRAME * 4 * 16)
		rcvbuf = RELAY_SELF_FRAME * 4 * 16;
	ifab_udp_wire_self_max(w, (uint32_t)(rcvbuf / RELAY_SELF_FRAME / 4));
	__atomic_store_n(&r->wire, w, __ATOMIC_RELEASE);
	return 0;
}

void ifab_udp_relay_end(struct ifab_relay *r, struct ifab_relay_stats *st)
{
	uint64_t one = 1;
	bool joined;

	if (!r)
		return;
	joined = isim_sys_write(r->stop, &one, sizeof(one)) == sizeof(one) &&
		 !pthread_join(r->thread, NULL);
	if (st && joined)
		*st = r->st;
	for (int i = 0; i < RELAY_SLOTS; i++)
		relay_close(r, &r->slot[i]);
	ifab_udp_wire_unmap(r->wire);
	isim_sys_close(r->udp);
	isim_sys_close(r->stop);
	free(r);
}

void ifab_udp_relay_stop(struct ifab_relay *r)
{
	ifab_udp_relay_end(r, NULL);
}
