// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Seed inputs of sim-fuzz-dev-packet (tests/fuzz/sim_dev_packet.c): the
 * packets a correct peer (node 2, QP 5) sends to the target's device,
 * built with the fabric's own packet builder (sim/fabric/pkt.h), in the
 * target's encoding (a selector byte 0: no fix-ups, the length, the
 * bytes).  They follow the state the target sets up: the RC QP expects
 * PSN 200 from the peer and has sent PSNs 100 (SEND), 101 (READ of 2000
 * bytes) and 102 (FETCH_ADD); MR A is key 0x142 at iova 0x100000; the UD
 * QP takes qkey 0x1111; window 4 (key 0x442) is unbound.
 *
 *     fuzz-seeds-dev-packet tests/fuzz/corpus/dev-packet
 *
 * writes the seed-*.bin files (regression inputs, named otherwise, are
 * left alone).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seeds.h"

#include "fabric/pkt.h"

#define PEER_NODE 2
#define PEER_QPN 5
#define RC_QPN 2
#define UD_QPN 3
#define KEY_A 0x142
#define IOVA_A 0x100000ull
#define KEY_MW 0x442

struct seed {
	uint8_t buf[65536];
	size_t len;
};

static uint8_t pbuf[IFAB_PKT_MAX_SIZE] IFAB_PKT_ALIGN;

static struct ifab_pkt start(uint8_t op, uint32_t dst, uint32_t psn)
{
	struct ifab_pkt p = { .buf = pbuf };

	ifab_pkt_init(&p, op, PEER_NODE, PEER_QPN, dst);
	ifab_pkt_set_psn(&p, psn);
	return p;
}

/* Append the packet with 'paylen' payload bytes (a counting pattern). */
static void emit(struct seed *s, struct ifab_pkt *p, uint32_t paylen)
{
	uint16_t n;

	for (uint32_t i = 0; i < paylen; i++)
		ifab_pkt_payload(p)[i] = (uint8_t)i;
	ifab_pkt_set_paylen(p, paylen);
	p->len = IFAB_PKT_HDR_SIZE + paylen;
	n = (uint16_t)p->len;
	s->buf[s->len++] = 0; /* selector: the bytes as they are */
	memcpy(s->buf + s->len, &n, 2);
	memcpy(s->buf + s->len + 2, p->buf, p->len);
	s->len += 2 + p->len;
}

static void write_seed(const char *dir, const char *name, struct seed *s)
{
	fuzz_seed_write(dir, name, s->buf, s->len);
	s->len = 0;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	static struct seed s;
	struct ifab_pkt p;

	/* requests from the peer: SEND, WRITE, READ, atomics, SEND_INV */
	p = start(IFAB_OP_RC_SEND_ONLY, RC_QPN, 200);
	emit(&s, &p, 64);
	p = start(IFAB_OP_RC_SEND_ONLY_IMM, RC_QPN, 201);
	ifab_pkt_hdr(&p)->imm = htobe32(0x1234);
	emit(&s, &p, 8);
	write_seed(dir, "rc-sends", &s);

	p = start(IFAB_OP_RC_SEND_FIRST, RC_QPN, 200);
	emit(&s, &p, 1024);
	p = start(IFAB_OP_RC_SEND_MIDDLE, RC_QPN, 201);
	emit(&s, &p, 1024);
	p = start(IFAB_OP_RC_SEND_LAST, RC_QPN, 202);
	emit(&s, &p, 100);
	write_seed(dir, "rc-send-multi", &s);

	p = start(IFAB_OP_RC_WRITE_ONLY, RC_QPN, 200);
	ifab_pkt_set_va(&p, IOVA_A + 16);
	ifab_pkt_set_rkey(&p, KEY_A);
	ifab_pkt_set_dmalen(&p, 256);
	emit(&s, &p, 256);
	p = start(IFAB_OP_RC_WRITE_ONLY_IMM, RC_QPN, 201);
	ifab_pkt_set_va(&p, IOVA_A + 4000);
	ifab_pkt_set_rkey(&p, KEY_A);
	ifab_pkt_set_dmalen(&p, 96);
	emit(&s, &p, 96);
	write_seed(dir, "rc-writes", &s);

	p = start(IFAB_OP_RC_READ_REQ, RC_QPN, 200);
	ifab_pkt_set_va(&p, IOVA_A);
	ifab_pkt_set_rkey(&p, KEY_A);
	ifab_pkt_set_dmalen(&p, 3000);
	emit(&s, &p, 0);
	p = start(IFAB_OP_RC_FETCH_ADD, RC_QPN, 203);
	ifab_pkt_set_va(&p, IOVA_A + 8);
	ifab_pkt_set_rkey(&p, KEY_A);
	ifab_pkt_set_swap_add(&p, 5);
	emit(&s, &p, 0);
	p = start(IFAB_OP_RC_CMP_SWAP, RC_QPN, 204);
	ifab_pkt_set_va(&p, IOVA_A + 16);
	ifab_pkt_set_rkey(&p, KEY_A);
	ifab_pkt_set_compare(&p, 0xcdcdcdcdcdcdcdcdull);
	ifab_pkt_set_swap_add(&p, 7);
	emit(&s, &p, 0);
	p = start(IFAB_OP_RC_SEND_ONLY_INV, RC_QPN, 205);
	ifab_pkt_set_rkey(&p, KEY_MW);
	emit(&s, &p, 16);
	write_seed(dir, "rc-read-atomics-inv", &s);

	/* responses to our requests: ACK, read response, atomic ACK, NAKs */
	p = start(IFAB_OP_RC_ACK, RC_QPN, 100);
	ifab_pkt_set_msn(&p, 1);
	emit(&s, &p, 0);
	p = start(IFAB_OP_RC_READ_RESP_FIRST, RC_QPN, 101);
	ifab_pkt_set_msn(&p, 1);
	emit(&s, &p, 1024);
	p = start(IFAB_OP_RC_READ_RESP_LAST, RC_QPN, 102);
	ifab_pkt_set_msn(&p, 2);
	emit(&s, &p, 976);
	p = start(IFAB_OP_RC_ATOMIC_ACK, RC_QPN, 103);
	ifab_pkt_set_msn(&p, 3);
	ifab_pkt_set_swap_add(&p, 41);
	emit(&s, &p, 0);
	write_seed(dir, "rc-responses", &s);

	p = start(IFAB_OP_RC_NAK, RC_QPN, 100);
	ifab_pkt_hdr(&p)->nak = IFAB_NAK_RNR;
	ifab_pkt_hdr(&p)->rnr_timer = 3;
	emit(&s, &p, 0);
	p = start(IFAB_OP_RC_NAK, RC_QPN, 100);
	ifab_pkt_hdr(&p)->nak = IFAB_NAK_SEQ;
	emit(&s, &p, 0);
	p = start(IFAB_OP_RC_NAK, RC_QPN, 101);
	ifab_pkt_hdr(&p)->nak = IFAB_NAK_REM_ACC;
	emit(&s, &p, 0);
	write_seed(dir, "rc-naks", &s);

	/* UD: a SEND and a SEND_IMM with the right qkey, one with another */
	p = start(IFAB_OP_UD_SEND_ONLY, UD_QPN, 0);
	ifab_pkt_set_qkey(&p, 0x1111);
	emit(&s, &p, 512);
	p = start(IFAB_OP_UD_SEND_ONLY_IMM, UD_QPN, 1);
	ifab_pkt_set_qkey(&p, 0x1111);
	ifab_pkt_hdr(&p)->imm = htobe32(7);
	emit(&s, &p, 1024);
	p = start(IFAB_OP_UD_SEND_ONLY, UD_QPN, 2);
	ifab_pkt_set_qkey(&p, 0x2222);
	emit(&s, &p, 10);
	write_seed(dir, "ud-sends", &s);
	return 0;
}
