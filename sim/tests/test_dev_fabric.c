// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim fabric: endpoint naming, QPN coordination (EADDRINUSE),
 * ordered delivery, loss on a vanished peer, the EAGAIN backlog, and the
 * UDP relay holding frames for a receiver that does not drain for a
 * while.  The frames' codec is the device's (test_dev_pkt.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabric/fabric.h"
#include "fabric/frame.h"
#include "check.h"

static const uint8_t gid_a[16] = { [10] = 0xff, [11] = 0xff, 198, 18, 0, 7 };
static const uint8_t gid_b[16] = { [10] = 0xff, [11] = 0xff, 198, 18, 0, 8 };

static void test_endpoints(void)
{
	struct ifab_ep a, b, c;
	uint8_t buf[256];
	char msg[32];
	ssize_t n;
	int i;

	CHECK(ifab_open(&a, NULL, 7, 100) == 0);
	CHECK(ifab_open(&b, NULL, 8, 101) == 0);
	/* A second bind of the same node/qpn is how QPNs are coordinated. */
	CHECK(ifab_open(&c, NULL, 7, 100) == -EADDRINUSE);
	/* Nothing waiting yet. */
	CHECK(ifab_recv(&b, buf, sizeof(buf)) == 0);

	/* In order. */
	for (i = 0; i < 5; i++) {
		snprintf(msg, sizeof(msg), "pkt%d", i);
		CHECK(ifab_send(&a, gid_b, 101, msg, strlen(msg) + 1) ==
		      IFAB_SENT);
	}
	for (i = 0; i < 5; i++) {
		snprintf(msg, sizeof(msg), "pkt%d", i);
		n = ifab_recv(&b, buf, sizeof(buf));
		CHECK(n == (ssize_t)strlen(msg) + 1 &&
		      !strcmp((char *)buf, msg));
	}

	/* No such peer: lost, nothing queued. */
	CHECK(ifab_send(&a, gid_b, 999, "x", 1) == IFAB_LOST);
	CHECK(!ifab_backlogged(&a));

	/* Unconnected receiver with a full queue (max_dgram_qlen): the
	 * sender backs up instead of blocking, in order, and drains. */
	for (i = 0; i < 2000; i++) {
		enum ifab_result r = ifab_send(&a, gid_b, 101, &i, sizeof(i));

		CHECK(r != IFAB_LOST);
		if (r == IFAB_QUEUED)
			break;
	}
	CHECK(ifab_backlogged(&a));
	{
		int want = 0, got, rounds = 0;

		while (want <= i && rounds++ < 100000) {
			n = ifab_recv(&b, &got, sizeof(got));
			if (n == sizeof(got)) {
				CHECK(got == want);
				want++;
			}
			ifab_flush(&a);
		}
		CHECK(want == i + 1);
		CHECK(!ifab_backlogged(&a));
	}

	/* Connected pair (RC): a vanished peer means loss, not a hang. */
	ifab_set_peer(&a, gid_b, 101);
	ifab_set_peer(&b, gid_a, 100);
	CHECK(ifab_send(&a, gid_b, 101, "rc", 2) == IFAB_SENT);
	CHECK(a.connected);
	CHECK(ifab_recv(&b, buf, sizeof(buf)) == 2);
	ifab_close(&b);
	CHECK(ifab_send(&a, gid_b, 101, "rc", 2) == IFAB_LOST);
	/* Rebinding the vanished name does not reconnect the old pair. */
	CHECK(ifab_open(&b, NULL, 8, 101) == 0);
	CHECK(ifab_send(&a, gid_b, 101, "rc", 2) == IFAB_LOST);
	CHECK(ifab_recv(&b, buf, sizeof(buf)) == 0);

	ifab_close(&a);
	ifab_close(&b);
	/* Closed names are free again. */
	CHECK(ifab_open(&a, NULL, 7, 100) == 0);
	ifab_close(&a);
}

/*
 * The launcher's UDP relay (udp_relay.c) in front of an endpoint whose
 * engine is busy elsewhere for 50 ms: far more datagrams than the unix
 * receive queue holds (max_dgram_qlen) wait in the relay and all arrive,
 * whole and in order, once the endpoint reads.  Loopback only: the relay
 * owns port 4791 of a free 127.18.255.N.
 */
static void test_udp_relay(void)
{
	enum { NODE = 9, QPN = 102, N = 200 };
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons(IFAB_ROCE_PORT) };
	struct timespec pause = { 0, 2000000 }, idle = { 0, 50000000 };
	struct ifab_relay *relay = NULL;
	struct ifab_ep ep;
	uint8_t dgram[IFAB_BTH_LEN + 4] = { 0 }, buf[256];
	char addr[32];
	int fd, want = 0, rounds = 0, rc = -EADDRINUSE;

	for (int i = 0; i < 64 && rc == -EADDRINUSE; i++) {
		snprintf(addr, sizeof(addr), "127.18.255.%d",
			 (int)((getpid() + i) % 250) + 1);
		setenv("IONIC_SIM_ADDR", addr, 1);
		rc = ifab_udp_relay_start(NODE, &relay);
	}
	CHECK(rc == 0);
	if (rc)
		return;
	CHECK(ifab_open(&ep, NULL, NODE, QPN) == 0);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	CHECK(fd >= 0 && inet_pton(AF_INET, addr, &to.sin_addr) == 1);
	dgram[5] = (QPN >> 16) & 0xff; /* BTH destination QP */
	dgram[6] = (QPN >> 8) & 0xff;
	dgram[7] = QPN & 0xff;
	for (int i = 0; i < N; i++) {
		memcpy(dgram + IFAB_BTH_LEN, &i, sizeof(i));
		CHECK(sendto(fd, dgram, sizeof(dgram), 0,
			     (struct sockaddr *)&to,
			     sizeof(to)) == (ssize_t)sizeof(dgram));
		if (i % 20 ==
		    19) /* a pace the relay's UDP socket keeps up with */
			nanosleep(&pause, NULL);
	}
	nanosleep(&idle, NULL);
	while (want < N && rounds++ < 2000) {
		ssize_t n = ifab_recv(&ep, buf, sizeof(buf));
		int got;

		if (n <= 0) {
			nanosleep(&pause, NULL);
			continue;
		}
		/* Ethernet, IPv4, UDP to 4791, then the datagram */
		CHECK(n == IFAB_ETH_HLEN + IFAB_IPV4_HLEN + IFAB_UDP_HLEN +
				   (ssize_t)sizeof(dgram));
		memcpy(&got, buf + n - sizeof(got), sizeof(got));
		CHECK(got == want);
		want = got + 1;
	}
	CHECK(want == N);
	close(fd);
	ifab_close(&ep);
	ifab_udp_relay_stop(relay);
	unsetenv("IONIC_SIM_ADDR");
}

int main(void)
{
	char name[64];

	/* A fabric of our own: parallel test runs must not meet. */
	snprintf(name, sizeof(name), "test-fabric-%d", (int)getpid());
	setenv("IONIC_SIM_FABRIC", name, 1);
	test_endpoints();
	test_udp_relay();
	return check_finish();
}
