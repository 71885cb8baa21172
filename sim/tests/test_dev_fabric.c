// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim fabric: endpoint naming, QPN coordination (EADDRINUSE),
 * ordered delivery, loss on a vanished peer, the EAGAIN backlog, and the
 * UDP relay holding frames for a receiver that does not drain for a
 * while.  The frames' codec is the device's (test_dev_pkt.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabric/fabric.h"
#include "fabric/udp_wire.h"
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
 * The launcher's UDP relay (udp_relay.c) in front of two endpoints whose
 * engine is busy elsewhere for 50 ms: far more datagrams than the unix
 * receive queue holds (max_dgram_qlen) wait in the relay and all arrive,
 * whole and in order, once the endpoints read.  The two QP numbers hash to
 * the same relay slot (ifab_udp_relay_slot), their datagrams interleaved:
 * neither may throw the other's queue away.  Loopback only: the relay
 * owns port 4791 of a free 127.18.255.N.
 */
static void test_udp_relay(void)
{
	enum { NODE = 9, N = 200 };
	/* 102 + 256: one slot (the hash's multiplier is odd) */
	static const uint32_t qpn[2] = { 102, 358 };
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons(IFAB_ROCE_PORT) };
	struct timespec pause = { 0, 2000000 }, idle = { 0, 50000000 };
	struct ifab_relay *relay = NULL;
	struct ifab_ep ep[2];
	uint8_t dgram[IFAB_BTH_LEN + 4] = { 0 }, buf[256];
	char addr[32];
	int fd, want[2] = { 0, 0 }, rounds = 0, rc = -EADDRINUSE;

	CHECK(ifab_udp_relay_slot(qpn[0]) == ifab_udp_relay_slot(qpn[1]));
	for (int i = 0; i < 64 && rc == -EADDRINUSE; i++) {
		snprintf(addr, sizeof(addr), "127.18.255.%d",
			 (int)((getpid() + i) % 250) + 1);
		setenv("IONIC_SIM_ADDR", addr, 1);
		rc = ifab_udp_relay_start(NODE, &relay);
	}
	CHECK(rc == 0);
	if (rc)
		return;
	for (int q = 0; q < 2; q++)
		CHECK(ifab_open(&ep[q], NULL, NODE, qpn[q]) == 0);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	CHECK(fd >= 0 && inet_pton(AF_INET, addr, &to.sin_addr) == 1);
	for (int i = 0; i < N; i++) {
		uint32_t dqpn = qpn[i % 2];
		int seq = i / 2;

		dgram[5] = (dqpn >> 16) & 0xff; /* BTH destination QP */
		dgram[6] = (dqpn >> 8) & 0xff;
		dgram[7] = dqpn & 0xff;
		memcpy(dgram + IFAB_BTH_LEN, &seq, sizeof(seq));
		CHECK(sendto(fd, dgram, sizeof(dgram), 0,
			     (struct sockaddr *)&to,
			     sizeof(to)) == (ssize_t)sizeof(dgram));
		if (i % 20 ==
		    19) /* a pace the relay's UDP socket keeps up with */
			nanosleep(&pause, NULL);
	}
	nanosleep(&idle, NULL);
	while (want[0] + want[1] < N && rounds++ < 2000) {
		bool any = false;

		for (int q = 0; q < 2; q++) {
			ssize_t n = ifab_recv(&ep[q], buf, sizeof(buf));
			int got;

			if (n <= 0)
				continue;
			any = true;
			/* Ethernet, IPv4, UDP to 4791, then the datagram */
			CHECK(n == IFAB_ETH_HLEN + IFAB_IPV4_HLEN +
					   IFAB_UDP_HLEN +
					   (ssize_t)sizeof(dgram));
			memcpy(&got, buf + n - sizeof(got), sizeof(got));
			CHECK(got == want[q]);
			want[q] = got + 1;
		}
		if (!any)
			nanosleep(&pause, NULL);
	}
	CHECK(want[0] == N / 2 && want[1] == N / 2);
	close(fd);
	for (int q = 0; q < 2; q++)
		ifab_close(&ep[q]);
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
