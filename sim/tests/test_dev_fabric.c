// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim fabric: packet header layout and accessors, endpoint naming,
 * QPN coordination (EADDRINUSE), ordered delivery, loss on a vanished
 * peer, and the EAGAIN backlog.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabric/fabric.h"
#include "fabric/pkt.h"

static int failures;

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, \
				__LINE__, #cond);                              \
			failures++;                                            \
		}                                                              \
	} while (0)

static void test_header_layout(void)
{
	uint8_t buf[IFAB_PKT_MAX_SIZE] IFAB_PKT_ALIGN;
	struct ifab_pkt pkt = { .buf = buf };
	const uint8_t *b = buf;

	ifab_pkt_init(&pkt, IFAB_OP_RC_SEND_LAST_IMM, 0x01020304, 0x00a0b0c0,
		      0x00d0e0f0);
	ifab_pkt_set_psn(&pkt, 0x12345678); /* 24 bits kept */
	ifab_pkt_set_msn(&pkt, 0xcafef00d);
	ifab_pkt_set_qkey(&pkt, 0x11223344);
	ifab_pkt_hdr(&pkt)->imm = htobe32(0xdeadbeef);
	memcpy(ifab_pkt_payload(&pkt), "hello", 5);
	pkt.len += 5;
	ifab_pkt_set_paylen(&pkt, 5);

	/* Big endian at the pinned offsets. */
	CHECK(b[0] == 'I' && b[1] == 'S' && b[2] == 'I' && b[3] == 'M');
	CHECK(b[4] == IFAB_PKT_VERSION);
	CHECK(b[5] == IFAB_OP_RC_SEND_LAST_IMM);
	CHECK(b[8] == 1 && b[9] == 2 && b[10] == 3 && b[11] == 4);
	CHECK(b[13] == 0xa0 && b[15] == 0xc0);
	CHECK(b[20] == 0 && b[21] == 0x34 && b[22] == 0x56 && b[23] == 0x78);
	CHECK(b[24] == 0xca && b[27] == 0x0d);
	CHECK(b[28] == 0xde && b[31] == 0xef);
	CHECK(b[32] == 0x11 && b[35] == 0x44);
	CHECK(b[39] == 5);
	CHECK(!memcmp(b + 112, "hello", 5));

	CHECK(ifab_pkt_psn(&pkt) == 0x345678);
	CHECK(ifab_pkt_src_node(&pkt) == 0x01020304);
	CHECK(ifab_pkt_dst_qpn(&pkt) == 0x00d0e0f0);
	CHECK(ifab_pkt_valid(&pkt));

	/* Opcode table: masks answer the questions the engine asks. */
	CHECK(ifab_pkt_opmask(IFAB_OP_RC_SEND_ONLY) & IFAB_PKT_M_FIRST);
	CHECK(ifab_pkt_opmask(IFAB_OP_RC_SEND_ONLY) & IFAB_PKT_M_LAST);
	CHECK(ifab_pkt_opmask(IFAB_OP_RC_SEND_LAST_IMM) & IFAB_PKT_M_IMM);
	CHECK(!(ifab_pkt_opmask(IFAB_OP_RC_SEND_MIDDLE) &
		(IFAB_PKT_M_FIRST | IFAB_PKT_M_LAST)));
	CHECK(ifab_pkt_opmask(IFAB_OP_RC_ACK) & IFAB_PKT_M_RESP);
	CHECK(ifab_pkt_opmask(IFAB_OP_UD_SEND_ONLY) & IFAB_PKT_M_UD);
	CHECK(ifab_pkt_opmask(IFAB_OP_RC_WRITE_ONLY) & IFAB_PKT_M_WRITE);

	/* Malformed: wrong length, payload on an ACK, bad magic/opcode. */
	pkt.len = IFAB_PKT_HDR_SIZE + 4;
	CHECK(!ifab_pkt_valid(&pkt));
	pkt.len = IFAB_PKT_HDR_SIZE + 5;
	ifab_pkt_hdr(&pkt)->opcode = IFAB_OP_RC_ACK;
	CHECK(!ifab_pkt_valid(&pkt));
	ifab_pkt_hdr(&pkt)->opcode = 0x55;
	CHECK(!ifab_pkt_valid(&pkt));
	ifab_pkt_hdr(&pkt)->opcode = IFAB_OP_RC_SEND_ONLY;
	CHECK(ifab_pkt_valid(&pkt));
	buf[0] ^= 1;
	CHECK(!ifab_pkt_valid(&pkt));
	pkt.len = 10;
	CHECK(!ifab_pkt_valid(&pkt));
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
	CHECK(ifab_open(&b, NULL, 7, 101) == 0);
	/* A second bind of the same node/qpn is how QPNs are coordinated. */
	CHECK(ifab_open(&c, NULL, 7, 100) == -EADDRINUSE);
	/* Nothing waiting yet. */
	CHECK(ifab_recv(&b, buf, sizeof(buf)) == 0);

	/* In order. */
	for (i = 0; i < 5; i++) {
		snprintf(msg, sizeof(msg), "pkt%d", i);
		CHECK(ifab_send(&a, 7, 101, msg, strlen(msg) + 1) == IFAB_SENT);
	}
	for (i = 0; i < 5; i++) {
		snprintf(msg, sizeof(msg), "pkt%d", i);
		n = ifab_recv(&b, buf, sizeof(buf));
		CHECK(n == (ssize_t)strlen(msg) + 1 &&
		      !strcmp((char *)buf, msg));
	}

	/* No such peer: lost, nothing queued. */
	CHECK(ifab_send(&a, 7, 999, "x", 1) == IFAB_LOST);
	CHECK(!ifab_backlogged(&a));

	/* Unconnected receiver with a full queue (max_dgram_qlen): the
	 * sender backs up instead of blocking, in order, and drains. */
	for (i = 0; i < 2000; i++) {
		enum ifab_result r = ifab_send(&a, 7, 101, &i, sizeof(i));

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
	ifab_set_peer(&a, 7, 101);
	ifab_set_peer(&b, 7, 100);
	CHECK(ifab_send(&a, 7, 101, "rc", 2) == IFAB_SENT);
	CHECK(a.connected);
	CHECK(ifab_recv(&b, buf, sizeof(buf)) == 2);
	ifab_close(&b);
	CHECK(ifab_send(&a, 7, 101, "rc", 2) == IFAB_LOST);
	/* Rebinding the vanished name does not reconnect the old pair. */
	CHECK(ifab_open(&b, NULL, 7, 101) == 0);
	CHECK(ifab_send(&a, 7, 101, "rc", 2) == IFAB_LOST);
	CHECK(ifab_recv(&b, buf, sizeof(buf)) == 0);

	ifab_close(&a);
	ifab_close(&b);
	/* Closed names are free again. */
	CHECK(ifab_open(&a, NULL, 7, 100) == 0);
	ifab_close(&a);
}

int main(void)
{
	char name[64];

	/* A fabric of our own: parallel test runs must not meet. */
	snprintf(name, sizeof(name), "test-fabric-%d", (int)getpid());
	setenv("IONIC_SIM_FABRIC", name, 1);
	test_header_layout();
	test_psn();
	test_endpoints();
	if (failures) {
		fprintf(stderr, "%d failure(s)\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
