// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Fuzz target: the emulated device's packet parser against a hostile
 * peer on the fabric (docs/testing.md §5.4).
 *
 * One device (sim/dev/idev.h) per input, on a transport that swallows
 * what the device sends and receives nothing by itself, without its
 * engine thread: the packets of the input go to idev_rx(), the entry
 * every received datagram takes.  The device holds
 *   - an RC QP (qpn 2) in RTS, connected to QP 5 of node 2, with receives
 *     posted and a SEND, an RDMA READ and a FETCH_ADD outstanding, so
 *     that requests, ACKs, NAKs, read responses and atomic ACKs all meet
 *     state to act on;
 *   - a UD QP (qpn 3) in RTS with receives posted;
 *   - MR A (remote write, read, atomic), the receive buffers' MR and MR
 *     B, local only and used by no work request; a type-2 window, unbound.
 * Each packet is a RoCEv2 frame (sim/dev/pkt.h) that the harness
 * builds from fields the input chooses, with correct lengths, IPv4
 * checksum and ICRC so that it gets past the parser (possibly with one
 * byte changed and the checksums fixed, or cut short), or, one time in
 * four, the input's raw bytes (fz_packet() says how the bytes encode
 * them).
 *
 * The oracle: ASan sees every byte the device writes (each buffer is a
 * heap block of its exact size, rings included); MR B and every byte
 * outside the buffers the peer may target keep their pattern; every CQE
 * the device writes names a posted receive or, for sends, acknowledges
 * no more than was posted; the device never writes more CQEs than the
 * ring holds; and it returns (libFuzzer's timeout).
 */
#include "sim_dev_packet.h"
#include "fabric/fabric.h"
#include "dev/pkt.h"

/* ---- packets ------------------------------------------------------------- */

/* Every valid opcode, for an opcode byte that names none. */
static const uint8_t fz_opcodes[] = {
	IDEV_OP_RC_SEND_FIRST,	     IDEV_OP_RC_SEND_MIDDLE,
	IDEV_OP_RC_SEND_LAST,	     IDEV_OP_RC_SEND_LAST_IMM,
	IDEV_OP_RC_SEND_ONLY,	     IDEV_OP_RC_SEND_ONLY_IMM,
	IDEV_OP_RC_WRITE_FIRST,	     IDEV_OP_RC_WRITE_MIDDLE,
	IDEV_OP_RC_WRITE_LAST,	     IDEV_OP_RC_WRITE_LAST_IMM,
	IDEV_OP_RC_WRITE_ONLY,	     IDEV_OP_RC_WRITE_ONLY_IMM,
	IDEV_OP_RC_READ_REQ,	     IDEV_OP_RC_READ_RESP_FIRST,
	IDEV_OP_RC_READ_RESP_MIDDLE, IDEV_OP_RC_READ_RESP_LAST,
	IDEV_OP_RC_READ_RESP_ONLY,   IDEV_OP_RC_ACK,
	IDEV_OP_RC_ATOMIC_ACK,	     IDEV_OP_RC_CMP_SWAP,
	IDEV_OP_RC_FETCH_ADD,	     IDEV_OP_RC_SEND_LAST_INV,
	IDEV_OP_RC_SEND_ONLY_INV,    IDEV_OP_UD_SEND_ONLY,
	IDEV_OP_UD_SEND_ONLY_IMM,
};

#define FZ_NKEYS 6

/* Key choice k: the key and the start of what it covers. */
static void fz_target(const struct fz_host *h, uint8_t k, uint32_t *key,
		      uint64_t *base)
{
	const uint32_t keys[FZ_NKEYS] = { h->key_a, h->key_b, h->key_r,
					  0x442,    0x1234,   0 };
	const uint64_t bases[FZ_NKEYS] = {
		FZ_IOVA_A, FZ_IOVA_B, (uintptr_t)h->buf_r, 0, 0x7000, 0
	};

	*key = keys[k % FZ_NKEYS];
	*base = bases[k % FZ_NKEYS];
}

static uint64_t fz_u64(struct fuzz_in *in)
{
	uint64_t lo = fuzz_u32(in);

	return lo | (uint64_t)fuzz_u32(in) << 32;
}

/* A remote address and key: near the start of a key's range, or any. */
static void fz_addr(const struct fz_host *h, struct fuzz_in *in, bool wide,
		    uint64_t *va, uint32_t *rkey)
{
	uint64_t base;

	if (wide) {
		*va = fz_u64(in);
		*rkey = fuzz_u32(in);
		return;
	}
	fz_target(h, fuzz_u8(in), rkey, &base);
	*va = base + (uint64_t)(int64_t)(int16_t)fuzz_u16(in);
}

/* The extension headers of the opcode, from the input, in IBTA order. */
static void fz_ext(const struct fz_host *h, struct fuzz_in *in, bool wide,
		   struct idev_pkt *p)
{
	uint32_t mask = idev_pkt_opmask(p->opcode), key;
	uint64_t base;

	if (mask & IDEV_PKT_M_UD) {
		p->qkey = wide ? fuzz_u32(in) : 0x1111u ^ fuzz_u8(in);
		p->src_qpn = wide ? fuzz_u32(in) & IDEV_PSN_MASK : fuzz_u8(in);
	}
	if (mask & (IDEV_PKT_M_RETH | IDEV_PKT_M_ATOMIC_ETH))
		fz_addr(h, in, wide, &p->va, &p->rkey);
	if (mask & IDEV_PKT_M_RETH)
		p->dmalen = wide ? fuzz_u32(in) : fuzz_u16(in);
	if (mask & IDEV_PKT_M_ATOMIC_ETH) {
		p->swap_add = fz_u64(in);
		p->compare = fz_u64(in);
	}
	if (mask & IDEV_PKT_M_AETH) {
		p->syndrome = fuzz_u8(in);
		p->msn = (wide ? fuzz_u32(in) : fuzz_u8(in)) & IDEV_PSN_MASK;
	}
	if (mask & IDEV_PKT_M_ATOMIC_ACK)
		p->orig = fz_u64(in);
	if (mask & IDEV_PKT_M_IMM)
		p->imm_raw = fuzz_u32(in);
	if (mask & IDEV_PKT_M_INV) {
		fz_target(h, fuzz_u8(in), &key, &base);
		p->inv_rkey = wide ? fuzz_u32(in) : key;
	}
}

/* After a change to the frame: the IPv4 header checksum and the ICRC
 * right again, wherever the (changed) headers say they are. */
static void fz_reseal(uint8_t *b, size_t len)
{
	size_t l3 = IFAB_ETH_HLEN, iplen;
	uint32_t icrc;

	if (len >= IFAB_ETH_HLEN + IFAB_VLAN_HLEN &&
	    (b[12] << 8 | b[13]) == IFAB_ETHERTYPE_VLAN)
		l3 += IFAB_VLAN_HLEN;
	if (len < l3 + IFAB_IPV4_HLEN)
		return;
	if (b[l3] == 0x45) {
		uint16_t csum;

		b[l3 + 10] = b[l3 + 11] = 0;
		csum = ifab_ip_csum(b + l3, IFAB_IPV4_HLEN);
		b[l3 + 10] = (uint8_t)(csum >> 8);
		b[l3 + 11] = (uint8_t)csum;
	}
	iplen = b[l3] >> 4 == 4 ? IFAB_IPV4_HLEN : IFAB_IPV6_HLEN;
	if (len < l3 + iplen + IFAB_UDP_HLEN + IFAB_BTH_LEN + IDEV_ICRC_LEN)
		return;
	icrc = idev_icrc(b, l3, len - IDEV_ICRC_LEN);
	for (unsigned int i = 0; i < 4; i++)
		b[len - IDEV_ICRC_LEN + i] = (uint8_t)(icrc >> 8 * i);
}

/*
 * A frame from the peer, built from the input's fields (the selector 'sel'
 * as in the comment of fz_packet()); its length, 0 if none was built.
 * The PSN is a signed step from where the QP's state expects it: 200 for
 * requests to the RC QP, 100 (our first request) for responses, 0 on UD.
 */
static size_t fz_frame(const struct fz_host *h, struct fuzz_in *in, uint8_t sel,
		       uint8_t *buf, uint32_t *qpn)
{
	bool wide = sel & 0x10;
	unsigned int gid = sel & 0x20 ? 0 : 1;
	uint8_t op = fuzz_u8(in), flags = fuzz_u8(in);
	uint32_t src = FZ_PEER_NODE, mask, psn;
	struct idev_pkt p;

	if (!idev_pkt_opinfo[op].name)
		op = fz_opcodes[op % (sizeof(fz_opcodes) / sizeof(*fz_opcodes))];
	mask = idev_pkt_opmask(op);
	*qpn = (mask & IDEV_PKT_M_UD) ? FZ_UD_QPN : FZ_RC_QPN;
	if (sel & 8)
		*qpn = *qpn == FZ_RC_QPN ? FZ_UD_QPN : FZ_RC_QPN;
	psn = *qpn == FZ_UD_QPN ? 0 : mask & IDEV_PKT_M_REQ ? 200 : 100;
	psn = wide ? fuzz_u32(in) : psn + (uint32_t)(int8_t)fuzz_u8(in);
	if (sel & 4)
		src = fuzz_u8(in); /* someone else, or no node at all */

	idev_pkt_init(&p, buf, op);
	isim_node_mac(FZ_NODE, p.dmac);
	isim_node_mac(src ? src : FZ_PEER_NODE, p.smac);
	isim_node_gid(FZ_NODE, gid, p.dgid);
	isim_node_gid(src ? src : FZ_PEER_NODE, gid, p.sgid);
	if (!src)
		p.sgid[15] ^= 0x5a; /* a GID of no node */
	p.flags = flags & (IDEV_PKT_F_SOL | IDEV_PKT_F_ACKREQ);
	p.pcp = flags >> 5;
	p.sport = 0xc000 | FZ_PEER_QPN;
	p.dqpn = *qpn;
	p.psn = psn & IDEV_PSN_MASK;
	fz_ext(h, in, wide, &p);
	if (mask & IDEV_PKT_M_PAYLOAD) {
		uint8_t fill;

		p.paylen = fuzz_u16(in) % (IDEV_PKT_MAX_PAYLOAD + 1);
		fill = fuzz_u8(in);
		p.payload = idev_pkt_payload_at(&p);
		for (uint32_t i = 0; i < p.paylen; i++)
			p.payload[i] = (uint8_t)(fill + i);
	}
	if (idev_pkt_build(&p))
		return 0;
	if (sel & 0x40) {
		size_t at = fuzz_u16(in) % p.len;

		buf[at] ^= fuzz_u8(in);
		fz_reseal(buf, p.len);
	}
	if (sel & 0x80)
		return fuzz_u16(in) % (p.len + 1);
	return p.len;
}

/*
 * One packet: a selector byte, then
 *   - selector & 3 == 3: raw bytes, a 16-bit length and the bytes, on the
 *     RC QP's endpoint (selector bit 0x08: the UD QP's);
 *   - otherwise a frame of correct lengths, checksums and ICRC from node
 *     2 (fz_frame): an opcode byte (any byte: one that names no opcode
 *     picks one from the list), a flags byte (bit 0 solicited, bit 1 ACK
 *     request, bits 7..5 the VLAN priority, 0: untagged), the PSN step,
 *     with selector bit 0x04 a source node byte (0: a GID of no node), the
 *     opcode's extension header fields in IBTA order (a key choice and a
 *     16-bit offset from its range for an address, a qkey xor byte, a
 *     byte for a source QP and an MSN), a 16-bit payload length and a
 *     fill byte, with selector bit 0x40 a 16-bit offset and a byte to
 *     xor there (checksums and ICRC recomputed), with bit 0x80 a 16-bit
 *     length to cut the frame to.  It goes to the QP of the opcode's
 *     transport, the other one with bit 0x08.  Bit 0x10 reads addresses,
 *     keys, lengths, qkey, MSN and PSN as whole 32- and 64-bit values;
 *     bit 0x20 uses IPv6 GIDs instead of IPv4-mapped ones.
 * Multi-byte fields are little-endian.
 */
static void fz_packet(struct fz_host *h, struct fuzz_in *in)
{
	static uint8_t buf[IDEV_PKT_MAX_SIZE + 64];
	uint8_t sel = fuzz_u8(in);
	uint32_t qpn = sel & 8 ? FZ_UD_QPN : FZ_RC_QPN;
	size_t len;
	uint8_t *exact;

	if ((sel & 3) == 3) {
		len = fuzz_u16(in) % sizeof(buf);
		fuzz_bytes(in, buf, len);
	} else {
		len = fz_frame(h, in, sel, buf, &qpn);
	}
	/* the frame in a block of its own size: over-reads are seen */
	exact = malloc(len ? len : 1);
	FUZZ_CHECK(exact, "out of memory");
	memcpy(exact, buf, len);
	idev_rx(h->dev, qpn, exact, len);
	free(exact);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { .p = data, .n = size };
	struct fz_host h;
	unsigned int i;

	memset(&h, 0, sizeof(h));
	pthread_mutex_lock(&fz_lock);
	fz_setup(&h);
	for (i = 0; i < FZ_MAX_PKTS && fuzz_more(&in); i++)
		fz_packet(&h, &in);
	fz_check_cq(&h, 0);
	fz_check_cq(&h, 1);
	fz_check_pattern(h.buf_b, "MR B (local only)");
	fz_teardown(&h);
	pthread_mutex_unlock(&fz_lock);
	return 0;
}
