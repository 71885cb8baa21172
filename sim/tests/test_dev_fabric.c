// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim fabric: the RoCEv2 frame layout, parser and ICRC, endpoint
 * naming, QPN coordination (EADDRINUSE), ordered delivery, loss on a
 * vanished peer, the EAGAIN backlog, and the UDP relay holding frames for
 * a receiver that does not drain for a while.
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
#include "fabric/pkt.h"
#include "check.h"

static const uint8_t gid_a[16] = { [10] = 0xff, [11] = 0xff, 198, 18, 0, 7 };
static const uint8_t gid_b[16] = { [10] = 0xff, [11] = 0xff, 198, 18, 0, 8 };

/* A RoCEv2 frame: every header at its pinned offset, big endian. */
static void test_frame_layout(void)
{
	uint8_t buf[IFAB_PKT_MAX_SIZE], *b = buf;
	struct ifab_pkt p, q;

	ifab_pkt_init(&p, buf, IFAB_OP_RC_WRITE_ONLY_IMM);
	memcpy(p.sgid, gid_a, 16);
	memcpy(p.dgid, gid_b, 16);
	memset(p.smac, 0x11, 6);
	memset(p.dmac, 0x22, 6);
	p.tclass = 0x28;
	p.sport = 0xc123;
	p.dqpn = 0xabcdef;
	p.psn = 0x12345678; /* 24 bits kept */
	p.flags = IFAB_PKT_F_SOL | IFAB_PKT_F_ACKREQ;
	p.va = 0x0102030405060708ull;
	p.rkey = 0xa1a2a3a4;
	p.dmalen = 5;
	memcpy(&p.imm_raw, "\xde\xad\xbe\xef", 4);
	p.payload = ifab_pkt_payload_at(&p);
	memcpy(p.payload, "hello", 5);
	p.paylen = 5;
	CHECK(ifab_pkt_build(&p) == 0);
	/* Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + RETH 16 + ImmDt 4 +
	 * 5 bytes and 3 of pad + ICRC 4 */
	CHECK(p.len == 14 + 20 + 8 + 12 + 16 + 4 + 8 + 4);
	CHECK(b[0] == 0x22 && b[6] == 0x11 && b[12] == 0x08 && b[13] == 0);
	CHECK(b[14] == 0x45 && b[15] == 0x28 && b[16] == 0 &&
	      b[17] == p.len - 14);
	CHECK(b[20] == 0x40 && b[22] == 64 && b[23] == 17);
	CHECK(!ifab_ip_csum(b + 14, 20));
	CHECK(b[26] == 198 && b[29] == 7 && b[30] == 198 && b[33] == 8);
	CHECK(b[34] == 0xc1 && b[35] == 0x23 && b[36] == 0x12 &&
	      b[37] == 0xb7); /* port 4791 */
	CHECK(b[38] == 0 && b[39] == p.len - 34 && b[40] == 0 && b[41] == 0);
	CHECK(b[42] == IFAB_OP_RC_WRITE_ONLY_IMM);
	CHECK(b[43] == (0x80 | 3 << 4)); /* SE, pad 3, TVer 0 */
	CHECK(b[44] == 0xff && b[45] == 0xff && b[46] == 0);
	CHECK(b[47] == 0xab && b[49] == 0xef);
	CHECK(b[50] == 0x80 && b[51] == 0x34 && b[53] == 0x78);
	CHECK(b[54] == 1 && b[61] == 8 && b[62] == 0xa1 && b[69] == 5);
	CHECK(b[70] == 0xde && b[73] == 0xef);
	CHECK(!memcmp(b + 74, "hello", 5) && !b[79] && !b[81]);

	/* and back */
	CHECK(ifab_pkt_parse(&q, buf, p.len) == 0);
	CHECK(q.opcode == p.opcode && q.psn == 0x345678 && q.dqpn == 0xabcdef &&
	      q.va == p.va && q.rkey == p.rkey && q.dmalen == 5 &&
	      q.imm_raw == p.imm_raw && q.paylen == 5 &&
	      !memcmp(q.payload, "hello", 5) &&
	      q.flags == (IFAB_PKT_F_SOL | IFAB_PKT_F_ACKREQ) &&
	      !memcmp(q.sgid, gid_a, 16) && !memcmp(q.dgid, gid_b, 16) &&
	      q.tclass == 0x28 && q.sport == 0xc123 && !q.vlan);

	/* The variant fields are outside the ICRC: a router may change
	 * them (the IPv4 checksum then follows), the frame stays good. */
	b[15] = 0x02; /* ECN */
	b[22] = 3; /* TTL */
	b[24] = b[25] = 0;
	b[24] = ifab_ip_csum(b + 14, 20) >> 8;
	b[25] = ifab_ip_csum(b + 14, 20) & 0xff;
	CHECK(ifab_pkt_parse(&q, buf, p.len) == 0 && q.hop_limit == 3);
	/* Any other bit is caught. */
	for (size_t i = 34; i < p.len; i++) {
		if (i == 40 || i == 41 || i == 46) /* UDP checksum, resv8a */
			continue;
		b[i] ^= 0x10;
		if (ifab_pkt_parse(&q, buf, p.len) == 0) {
			check_fail(__FILE__, __LINE__,
				   "flip of byte %zu undetected", i);
		}
		b[i] ^= 0x10;
	}
	CHECK(ifab_pkt_parse(&q, buf, p.len) == 0);
	/* Truncated, wrong port, IPv4 checksum. */
	CHECK(ifab_pkt_parse(&q, buf, p.len - 1) != 0);
	CHECK(ifab_pkt_parse(&q, buf, 13) != 0);
	b[37] ^= 1;
	CHECK(ifab_pkt_parse(&q, buf, p.len) != 0);
	b[37] ^= 1;
	b[20] ^= 0x20; /* MF */
	CHECK(ifab_pkt_parse(&q, buf, p.len) != 0);
	b[20] ^= 0x20;

	/* NAK and the SL as a priority tag; an IPv6 frame. */
	ifab_pkt_init(&p, buf, IFAB_OP_RC_ACK);
	memcpy(p.sgid, gid_a, 16);
	memcpy(p.dgid, gid_b, 16);
	p.pcp = 5;
	p.syndrome = ifab_aeth_nak(IFAB_NAK_RNR, 14);
	p.msn = 77;
	CHECK(ifab_pkt_build(&p) == 0);
	CHECK(b[12] == 0x81 && b[13] == 0 && (b[14] >> 5) == 5 &&
	      b[16] == 0x08);
	CHECK(ifab_pkt_parse(&q, buf, p.len) == 0 && q.vlan && q.pcp == 5 &&
	      ifab_aeth_kind(q.syndrome) == IFAB_NAK_RNR &&
	      (q.syndrome & 0x1f) == 14 && q.msn == 77 && !q.paylen);
	ifab_pkt_init(&p, buf, IFAB_OP_UD_SEND_ONLY);
	p.sgid[0] = p.dgid[0] = 0xfe;
	p.sgid[1] = p.dgid[1] = 0x80;
	p.sgid[15] = 1;
	p.dgid[15] = 2;
	p.flow_label = 0x12345;
	p.qkey = 0x11223344;
	p.src_qpn = 0x123;
	CHECK(ifab_pkt_build(&p) == 0);
	CHECK(b[12] == 0x86 && b[13] == 0xdd && (b[14] >> 4) == 6);
	CHECK(ifab_pkt_parse(&q, buf, p.len) == 0 && q.qkey == 0x11223344 &&
	      q.src_qpn == 0x123 && q.flow_label == 0x12345 && q.sgid[15] == 1);
	/* GIDs of two families make no frame */
	memcpy(p.dgid, gid_b, 16);
	CHECK(ifab_pkt_build(&p) != 0);

	/* Opcode table: masks answer the questions the engine asks. */
	CHECK(ifab_pkt_opmask(IFAB_OP_RC_SEND_ONLY) & IFAB_PKT_M_FIRST);
	CHECK(ifab_pkt_opmask(IFAB_OP_RC_SEND_ONLY) & IFAB_PKT_M_LAST);
	CHECK(ifab_pkt_opmask(IFAB_OP_RC_SEND_LAST_IMM) & IFAB_PKT_M_IMM);
	CHECK(!(ifab_pkt_opmask(IFAB_OP_RC_SEND_MIDDLE) &
		(IFAB_PKT_M_FIRST | IFAB_PKT_M_LAST)));
	CHECK(ifab_pkt_opmask(IFAB_OP_RC_ACK) & IFAB_PKT_M_RESP);
	CHECK(ifab_pkt_opmask(IFAB_OP_UD_SEND_ONLY) & IFAB_PKT_M_UD);
	CHECK(ifab_pkt_opmask(IFAB_OP_RC_WRITE_ONLY) & IFAB_PKT_M_WRITE);
	CHECK(!(ifab_pkt_opmask(IFAB_OP_RC_READ_RESP_MIDDLE) &
		IFAB_PKT_M_AETH));
	CHECK(ifab_aeth_kind(ifab_aeth_nak(IFAB_NAK_SEQ, 0)) == IFAB_NAK_SEQ);
	CHECK(ifab_aeth_kind(ifab_aeth_nak(IFAB_NAK_REM_OP, 0)) ==
	      IFAB_NAK_REM_OP);
	CHECK(ifab_aeth_kind(0x40) < 0); /* reserved */
}

static void test_psn(void)
{
	CHECK(ifab_psn_diff(5, 3) == 2);
	CHECK(ifab_psn_diff(3, 5) == -2);
	CHECK(ifab_psn_diff(0, IFAB_PSN_MASK) == 1);
	CHECK(ifab_psn_diff(IFAB_PSN_MASK, 0) == -1);
	CHECK(ifab_psn_add(IFAB_PSN_MASK, 2) == 1);
}

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
	test_frame_layout();
	test_psn();
	test_endpoints();
	test_udp_relay();
	return check_finish();
}
