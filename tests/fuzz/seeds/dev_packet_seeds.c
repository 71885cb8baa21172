// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Seed inputs of sim-fuzz-dev-packet (tests/fuzz/sim_dev_packet.c): the
 * frames a correct peer (node 2, QP 5) sends to the target's device, in
 * the target's encoding (the comment of fz_packet() there): mostly field
 * descriptions the target turns into RoCEv2 frames, and one seed of raw
 * frames made with the device's own builder (sim/dev/pkt.h).  They
 * follow the state the target sets up: the RC QP expects PSN 200 from the
 * peer and has sent PSNs 100 (SEND of 300 bytes), 101 and 102 (READ of
 * 2000 bytes: two responses at MTU 1024) and 103 (FETCH_ADD); its
 * receive buffers hold 1024 bytes; MR A is key 0x142 at iova
 * 0x100000 (key choice 0); the UD QP takes qkey 0x1111; window 4 (key
 * 0x442, key choice 3) is unbound.
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

#include "common/profile.h"
#include "dev/pkt.h"

#define NODE 1
#define PEER_NODE 2
#define PEER_QPN 5
#define RC_QPN 2
#define UD_QPN 3
#define KEY_A 0x142
#define IOVA_A 0x100000ull

/* Selector bits of the target's encoding. */
#define SEL_RAW 0x03
#define SEL_OTHER_QP 0x08
#define SEL_IPV6 0x20

/* Key choices (the target's fz_target()). */
#define K_A 0
#define K_B 1
#define K_MW 3

struct seed {
	uint8_t buf[16384];
	size_t len;
};

static void put(struct seed *s, uint64_t v, unsigned int bytes)
{
	for (unsigned int i = 0; i < bytes; i++)
		s->buf[s->len++] = (uint8_t)(v >> 8 * i);
}

/* The fields of one frame, as the target reads them for its opcode. */
struct frame {
	uint8_t sel, op, flags;
	int8_t psn_step;
	uint8_t qkey_xor, src_qpn; /* DETH */
	uint8_t key; /* RETH, AtomicETH: key choice */
	int16_t offset;
	uint16_t dmalen;
	uint64_t swap_add, compare; /* AtomicETH */
	uint8_t syndrome, msn; /* AETH */
	uint64_t orig; /* AtomicAckETH */
	uint32_t imm;
	uint8_t inv_key; /* IETH: key choice */
	uint16_t paylen;
};

static void emit(struct seed *s, const struct frame *f)
{
	uint32_t mask = idev_pkt_opmask(f->op);

	put(s, f->sel, 1);
	put(s, f->op, 1);
	put(s, f->flags, 1);
	put(s, (uint8_t)f->psn_step, 1);
	if (mask & IDEV_PKT_M_UD) {
		put(s, f->qkey_xor, 1);
		put(s, f->src_qpn, 1);
	}
	if (mask & (IDEV_PKT_M_RETH | IDEV_PKT_M_ATOMIC_ETH)) {
		put(s, f->key, 1);
		put(s, (uint16_t)f->offset, 2);
	}
	if (mask & IDEV_PKT_M_RETH)
		put(s, f->dmalen, 2);
	if (mask & IDEV_PKT_M_ATOMIC_ETH) {
		put(s, f->swap_add, 8);
		put(s, f->compare, 8);
	}
	if (mask & IDEV_PKT_M_AETH) {
		put(s, f->syndrome, 1);
		put(s, f->msn, 1);
	}
	if (mask & IDEV_PKT_M_ATOMIC_ACK)
		put(s, f->orig, 8);
	if (mask & IDEV_PKT_M_IMM)
		put(s, f->imm, 4);
	if (mask & IDEV_PKT_M_INV)
		put(s, f->inv_key, 1);
	if (mask & IDEV_PKT_M_PAYLOAD) {
		put(s, f->paylen, 2);
		put(s, 0, 1); /* fill: a counting pattern from 0 */
	}
}

/* A raw frame made by the fabric's builder, to the RC QP or the UD QP. */
static void emit_raw(struct seed *s, struct idev_pkt *p, uint32_t paylen)
{
	static uint8_t buf[IDEV_PKT_MAX_SIZE];
	uint8_t *pay;

	p->buf = buf;
	isim_node_mac(NODE, p->dmac);
	isim_node_mac(PEER_NODE, p->smac);
	isim_node_gid(NODE, 1, p->dgid);
	isim_node_gid(PEER_NODE, 1, p->sgid);
	p->sport = 0xc000 | PEER_QPN;
	pay = idev_pkt_payload_at(p);
	for (uint32_t i = 0; i < paylen; i++)
		pay[i] = (uint8_t)i;
	p->payload = pay;
	p->paylen = paylen;
	if (idev_pkt_build(p)) {
		fprintf(stderr, "cannot build %s\n",
			idev_pkt_opname(p->opcode));
		exit(1);
	}
	put(s, SEL_RAW | (p->dqpn == UD_QPN ? SEL_OTHER_QP : 0), 1);
	put(s, p->len, 2);
	memcpy(s->buf + s->len, buf, p->len);
	s->len += p->len;
}

static void write_seed(const char *dir, const char *name, struct seed *s)
{
	fuzz_seed_write(dir, name, s->buf, s->len);
	s->len = 0;
}

#define F(...) emit(&s, &(struct frame){ __VA_ARGS__ })

/* A packet of the peer's to one of our QPs, to fill in and emit_raw(). */
static struct idev_pkt *raw_pkt(uint8_t op, uint32_t dqpn, uint32_t psn)
{
	static struct idev_pkt p;

	idev_pkt_init(&p, NULL, op);
	p.dqpn = dqpn;
	p.psn = psn;
	return &p;
}

static void raw_frames(const char *dir, struct seed *s)
{
	struct idev_pkt *p;

	emit_raw(s, raw_pkt(IDEV_OP_RC_SEND_ONLY, RC_QPN, 200), 64);
	p = raw_pkt(IDEV_OP_RC_WRITE_ONLY, RC_QPN, 201);
	p->va = IOVA_A + 64;
	p->rkey = KEY_A;
	p->dmalen = 128;
	emit_raw(s, p, 128);
	p = raw_pkt(IDEV_OP_RC_READ_REQ, RC_QPN, 202);
	p->va = IOVA_A;
	p->rkey = KEY_A;
	p->dmalen = 100;
	emit_raw(s, p, 0);
	p = raw_pkt(IDEV_OP_RC_ACK, RC_QPN, 100);
	p->syndrome = idev_aeth_nak(IDEV_NAK_NONE, 0);
	p->msn = 1;
	emit_raw(s, p, 0);
	p = raw_pkt(IDEV_OP_UD_SEND_ONLY, UD_QPN, 0);
	p->qkey = 0x1111;
	p->src_qpn = PEER_QPN;
	emit_raw(s, p, 200);
	write_seed(dir, "raw-frames", s);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	static struct seed s;
	const uint8_t ack = idev_aeth_nak(IDEV_NAK_NONE, 0);

	/* requests from the peer: SEND, WRITE, READ, atomics, SEND_INV */
	F(.op = IDEV_OP_RC_SEND_ONLY, .paylen = 64);
	F(.op = IDEV_OP_RC_SEND_ONLY_IMM, .psn_step = 1, .imm = 0x34120000,
	  .paylen = 8, .flags = IDEV_PKT_F_SOL);
	write_seed(dir, "rc-sends", &s);
	/* one SEND more than the 8 receives posted: an RNR NAK, then the
	 * same PSN again */
	for (int i = 0; i < 9; i++)
		F(.op = IDEV_OP_RC_SEND_ONLY, .psn_step = (int8_t)i,
		  .paylen = 4);
	F(.op = IDEV_OP_RC_SEND_ONLY, .psn_step = 8, .paylen = 4);
	write_seed(dir, "rc-sends-rnr", &s);

	/* a SEND of exactly one receive buffer in two packets, then one of
	 * three that overflows the next buffer (an invalid request NAK) */
	F(.op = IDEV_OP_RC_SEND_FIRST, .paylen = 1024);
	F(.op = IDEV_OP_RC_SEND_LAST, .psn_step = 1, .paylen = 0);
	F(.op = IDEV_OP_RC_SEND_FIRST, .psn_step = 2, .paylen = 1024);
	F(.op = IDEV_OP_RC_SEND_MIDDLE, .psn_step = 3, .paylen = 1024);
	F(.op = IDEV_OP_RC_SEND_LAST, .psn_step = 4, .paylen = 100,
	  .flags = IDEV_PKT_F_ACKREQ);
	write_seed(dir, "rc-send-multi", &s);

	F(.op = IDEV_OP_RC_WRITE_ONLY, .key = K_A, .offset = 16, .dmalen = 256,
	  .paylen = 256);
	F(.op = IDEV_OP_RC_WRITE_ONLY_IMM, .psn_step = 1, .key = K_A,
	  .offset = 4000, .dmalen = 96, .imm = 7, .paylen = 96);
	F(.op = IDEV_OP_RC_WRITE_FIRST, .psn_step = 2, .key = K_A, .offset = 0,
	  .dmalen = 2100, .paylen = 1024);
	F(.op = IDEV_OP_RC_WRITE_MIDDLE, .psn_step = 3, .paylen = 1024);
	F(.op = IDEV_OP_RC_WRITE_LAST, .psn_step = 4, .paylen = 52);
	/* into local-only MR B: a remote access NAK */
	F(.op = IDEV_OP_RC_WRITE_ONLY, .psn_step = 5, .key = K_B, .dmalen = 8,
	  .paylen = 8);
	write_seed(dir, "rc-writes", &s);

	F(.op = IDEV_OP_RC_READ_REQ, .key = K_A, .dmalen = 3000);
	F(.op = IDEV_OP_RC_FETCH_ADD, .psn_step = 3, .key = K_A, .offset = 8,
	  .swap_add = 5);
	F(.op = IDEV_OP_RC_CMP_SWAP, .psn_step = 4, .key = K_A, .offset = 16,
	  .compare = 0xcdcdcdcdcdcdcdcdull, .swap_add = 7);
	F(.op = IDEV_OP_RC_SEND_ONLY_INV, .psn_step = 5, .inv_key = K_MW,
	  .paylen = 16);
	write_seed(dir, "rc-read-atomics-inv", &s);

	/* responses to our requests: ACK, read responses, atomic ACK */
	F(.op = IDEV_OP_RC_ACK, .syndrome = ack, .msn = 1);
	F(.op = IDEV_OP_RC_READ_RESP_FIRST, .psn_step = 1, .syndrome = ack,
	  .msn = 1, .paylen = 1024);
	F(.op = IDEV_OP_RC_READ_RESP_LAST, .psn_step = 2, .syndrome = ack,
	  .msn = 2, .paylen = 976);
	F(.op = IDEV_OP_RC_ATOMIC_ACK, .psn_step = 3, .syndrome = ack, .msn = 3,
	  .orig = 41);
	write_seed(dir, "rc-responses", &s);

	/* an ACK from the peer's IPv6 GID, not the path's (dropped), then
	 * the responses with a VLAN tag (priority 3), each twice (the second
	 * a duplicate) */
	F(.sel = SEL_IPV6, .op = IDEV_OP_RC_ACK, .syndrome = ack, .msn = 1);
	for (int i = 0; i < 2; i++)
		F(.flags = 3 << 5, .op = IDEV_OP_RC_ACK, .syndrome = ack,
		  .msn = 1);
	for (int i = 0; i < 2; i++)
		F(.flags = 3 << 5, .op = IDEV_OP_RC_READ_RESP_FIRST,
		  .psn_step = 1, .syndrome = ack, .msn = 1, .paylen = 1024);
	for (int i = 0; i < 2; i++)
		F(.flags = 3 << 5, .op = IDEV_OP_RC_READ_RESP_LAST,
		  .psn_step = 2, .syndrome = ack, .msn = 2, .paylen = 976);
	for (int i = 0; i < 2; i++)
		F(.flags = 3 << 5, .op = IDEV_OP_RC_ATOMIC_ACK, .psn_step = 3,
		  .syndrome = ack, .msn = 3, .orig = 41);
	write_seed(dir, "rc-responses-vlan-dup", &s);

	/* NAKs: RNR, PSN sequence error, remote access, invalid request,
	 * remote operational */
	F(.op = IDEV_OP_RC_ACK, .syndrome = idev_aeth_nak(IDEV_NAK_RNR, 3));
	F(.op = IDEV_OP_RC_ACK, .syndrome = idev_aeth_nak(IDEV_NAK_SEQ, 0));
	F(.op = IDEV_OP_RC_ACK, .psn_step = 1,
	  .syndrome = idev_aeth_nak(IDEV_NAK_REM_ACC, 0));
	write_seed(dir, "rc-naks", &s);
	F(.op = IDEV_OP_RC_ACK, .syndrome = idev_aeth_nak(IDEV_NAK_INV_REQ, 0));
	write_seed(dir, "rc-nak-inv-req", &s);
	F(.op = IDEV_OP_RC_ACK, .syndrome = ack, .msn = 1);
	F(.op = IDEV_OP_RC_ACK, .psn_step = 3,
	  .syndrome = idev_aeth_nak(IDEV_NAK_REM_OP, 0));
	write_seed(dir, "rc-nak-rem-op", &s);

	/* UD with DETH: a SEND and a SEND_IMM with the right qkey, one with
	 * another, one over IPv6 */
	F(.op = IDEV_OP_UD_SEND_ONLY, .src_qpn = PEER_QPN, .paylen = 512);
	F(.op = IDEV_OP_UD_SEND_ONLY_IMM, .psn_step = 1, .src_qpn = PEER_QPN,
	  .imm = 7, .paylen = 1024);
	F(.op = IDEV_OP_UD_SEND_ONLY, .psn_step = 2, .qkey_xor = 0x33,
	  .src_qpn = PEER_QPN, .paylen = 10);
	F(.sel = SEL_IPV6, .op = IDEV_OP_UD_SEND_ONLY, .psn_step = 3,
	  .src_qpn = PEER_QPN, .paylen = 100);
	write_seed(dir, "ud-sends", &s);

	raw_frames(dir, &s);
	return 0;
}
