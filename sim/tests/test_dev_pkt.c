// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: the InfiniBand transport codec (dev/pkt.c) - the
 * RoCEv2 frame layout, parser and ICRC, AETH syndromes, PSN arithmetic.
 */
#include <string.h>

#include "dev/pkt.h"
#include "check.h"

static const uint8_t gid_a[16] = { [10] = 0xff, [11] = 0xff, 198, 18, 0, 7 };
static const uint8_t gid_b[16] = { [10] = 0xff, [11] = 0xff, 198, 18, 0, 8 };

/* A RoCEv2 frame: every header at its pinned offset, big endian. */
static void test_frame_layout(void)
{
	uint8_t buf[IDEV_PKT_MAX_SIZE], *b = buf;
	struct idev_pkt p, q;

	idev_pkt_init(&p, buf, IDEV_OP_RC_WRITE_ONLY_IMM);
	memcpy(p.sgid, gid_a, 16);
	memcpy(p.dgid, gid_b, 16);
	memset(p.smac, 0x11, 6);
	memset(p.dmac, 0x22, 6);
	p.tclass = 0x28;
	p.sport = 0xc123;
	p.dqpn = 0xabcdef;
	p.psn = 0x12345678; /* 24 bits kept */
	p.flags = IDEV_PKT_F_SOL | IDEV_PKT_F_ACKREQ;
	p.va = 0x0102030405060708ull;
	p.rkey = 0xa1a2a3a4;
	p.dmalen = 5;
	memcpy(&p.imm_raw, "\xde\xad\xbe\xef", 4);
	p.payload = idev_pkt_payload_at(&p);
	memcpy(p.payload, "hello", 5);
	p.paylen = 5;
	CHECK(idev_pkt_build(&p) == 0);
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
	CHECK(b[42] == IDEV_OP_RC_WRITE_ONLY_IMM);
	CHECK(b[43] == (0x80 | 3 << 4)); /* SE, pad 3, TVer 0 */
	CHECK(b[44] == 0xff && b[45] == 0xff && b[46] == 0);
	CHECK(b[47] == 0xab && b[49] == 0xef);
	CHECK(b[50] == 0x80 && b[51] == 0x34 && b[53] == 0x78);
	CHECK(b[54] == 1 && b[61] == 8 && b[62] == 0xa1 && b[69] == 5);
	CHECK(b[70] == 0xde && b[73] == 0xef);
	CHECK(!memcmp(b + 74, "hello", 5) && !b[79] && !b[81]);

	/* and back */
	CHECK(idev_pkt_parse(&q, buf, p.len) == 0);
	CHECK(q.opcode == p.opcode && q.psn == 0x345678 && q.dqpn == 0xabcdef &&
	      q.va == p.va && q.rkey == p.rkey && q.dmalen == 5 &&
	      q.imm_raw == p.imm_raw && q.paylen == 5 &&
	      !memcmp(q.payload, "hello", 5) &&
	      q.flags == (IDEV_PKT_F_SOL | IDEV_PKT_F_ACKREQ) &&
	      !memcmp(q.sgid, gid_a, 16) && !memcmp(q.dgid, gid_b, 16) &&
	      q.tclass == 0x28 && q.sport == 0xc123 && !q.vlan);

	/* The variant fields are outside the ICRC: a router may change
	 * them (the IPv4 checksum then follows), the frame stays good. */
	b[15] = 0x02; /* ECN */
	b[22] = 3; /* TTL */
	b[24] = b[25] = 0;
	b[24] = ifab_ip_csum(b + 14, 20) >> 8;
	b[25] = ifab_ip_csum(b + 14, 20) & 0xff;
	CHECK(idev_pkt_parse(&q, buf, p.len) == 0 && q.hop_limit == 3);
	/* Any other bit is caught. */
	for (size_t i = 34; i < p.len; i++) {
		if (i == 40 || i == 41 || i == 46) /* UDP checksum, resv8a */
			continue;
		b[i] ^= 0x10;
		if (idev_pkt_parse(&q, buf, p.len) == 0) {
			check_fail(__FILE__, __LINE__,
				   "flip of byte %zu undetected", i);
		}
		b[i] ^= 0x10;
	}
	CHECK(idev_pkt_parse(&q, buf, p.len) == 0);
	/* Truncated, wrong port, IPv4 checksum. */
	CHECK(idev_pkt_parse(&q, buf, p.len - 1) != 0);
	CHECK(idev_pkt_parse(&q, buf, 13) != 0);
	b[37] ^= 1;
	CHECK(idev_pkt_parse(&q, buf, p.len) != 0);
	b[37] ^= 1;
	b[20] ^= 0x20; /* MF */
	CHECK(idev_pkt_parse(&q, buf, p.len) != 0);
	b[20] ^= 0x20;

	/* NAK and the SL as a priority tag; an IPv6 frame. */
	idev_pkt_init(&p, buf, IDEV_OP_RC_ACK);
	memcpy(p.sgid, gid_a, 16);
	memcpy(p.dgid, gid_b, 16);
	p.pcp = 5;
	p.syndrome = idev_aeth_nak(IDEV_NAK_RNR, 14);
	p.msn = 77;
	CHECK(idev_pkt_build(&p) == 0);
	CHECK(b[12] == 0x81 && b[13] == 0 && (b[14] >> 5) == 5 &&
	      b[16] == 0x08);
	CHECK(idev_pkt_parse(&q, buf, p.len) == 0 && q.vlan && q.pcp == 5 &&
	      idev_aeth_kind(q.syndrome) == IDEV_NAK_RNR &&
	      (q.syndrome & 0x1f) == 14 && q.msn == 77 && !q.paylen);
	idev_pkt_init(&p, buf, IDEV_OP_UD_SEND_ONLY);
	p.sgid[0] = p.dgid[0] = 0xfe;
	p.sgid[1] = p.dgid[1] = 0x80;
	p.sgid[15] = 1;
	p.dgid[15] = 2;
	p.flow_label = 0x12345;
	p.qkey = 0x11223344;
	p.src_qpn = 0x123;
	CHECK(idev_pkt_build(&p) == 0);
	CHECK(b[12] == 0x86 && b[13] == 0xdd && (b[14] >> 4) == 6);
	CHECK(idev_pkt_parse(&q, buf, p.len) == 0 && q.qkey == 0x11223344 &&
	      q.src_qpn == 0x123 && q.flow_label == 0x12345 && q.sgid[15] == 1);
	/* GIDs of two families make no frame */
	memcpy(p.dgid, gid_b, 16);
	CHECK(idev_pkt_build(&p) != 0);

	/* Opcode table: masks answer the questions the engine asks. */
	CHECK(idev_pkt_opmask(IDEV_OP_RC_SEND_ONLY) & IDEV_PKT_M_FIRST);
	CHECK(idev_pkt_opmask(IDEV_OP_RC_SEND_ONLY) & IDEV_PKT_M_LAST);
	CHECK(idev_pkt_opmask(IDEV_OP_RC_SEND_LAST_IMM) & IDEV_PKT_M_IMM);
	CHECK(!(idev_pkt_opmask(IDEV_OP_RC_SEND_MIDDLE) &
		(IDEV_PKT_M_FIRST | IDEV_PKT_M_LAST)));
	CHECK(idev_pkt_opmask(IDEV_OP_RC_ACK) & IDEV_PKT_M_RESP);
	CHECK(idev_pkt_opmask(IDEV_OP_UD_SEND_ONLY) & IDEV_PKT_M_UD);
	CHECK(idev_pkt_opmask(IDEV_OP_RC_WRITE_ONLY) & IDEV_PKT_M_WRITE);
	CHECK(!(idev_pkt_opmask(IDEV_OP_RC_READ_RESP_MIDDLE) &
		IDEV_PKT_M_AETH));
	CHECK(idev_aeth_kind(idev_aeth_nak(IDEV_NAK_SEQ, 0)) == IDEV_NAK_SEQ);
	CHECK(idev_aeth_kind(idev_aeth_nak(IDEV_NAK_REM_OP, 0)) ==
	      IDEV_NAK_REM_OP);
	CHECK(idev_aeth_kind(0x40) < 0); /* reserved */
}

static void test_psn(void)
{
	CHECK(idev_psn_diff(5, 3) == 2);
	CHECK(idev_psn_diff(3, 5) == -2);
	CHECK(idev_psn_diff(0, IDEV_PSN_MASK) == 1);
	CHECK(idev_psn_diff(IDEV_PSN_MASK, 0) == -1);
	CHECK(idev_psn_add(IDEV_PSN_MASK, 2) == 1);
}

int main(void)
{
	test_frame_layout();
	test_psn();
	return check_finish();
}
