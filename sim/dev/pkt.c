// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: the RoCEv2 frame builder and parser, the
 * opcode table and the invariant CRC.  The format is described in pkt.h.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "pkt.h"

#define RC_REQ (IDEV_PKT_M_RC | IDEV_PKT_M_REQ)
#define RC_RESP (IDEV_PKT_M_RC | IDEV_PKT_M_RESP)
#define SEND (IDEV_PKT_M_SEND | IDEV_PKT_M_PAYLOAD)
#define WRITE (IDEV_PKT_M_WRITE | IDEV_PKT_M_PAYLOAD)
#define RDRESP (RC_RESP | IDEV_PKT_M_READ | IDEV_PKT_M_PAYLOAD)
#define M(x) IDEV_PKT_M_##x

const struct idev_pkt_opinfo idev_pkt_opinfo[256] = {
	[IDEV_OP_RC_SEND_FIRST] = { "RC_SEND_FIRST", RC_REQ | SEND | M(FIRST) },
	[IDEV_OP_RC_SEND_MIDDLE] = { "RC_SEND_MIDDLE",
				     RC_REQ | SEND | M(MIDDLE) },
	[IDEV_OP_RC_SEND_LAST] = { "RC_SEND_LAST", RC_REQ | SEND | M(LAST) },
	[IDEV_OP_RC_SEND_LAST_IMM] = { "RC_SEND_LAST_IMM",
				       RC_REQ | SEND | M(LAST) | M(IMM) },
	[IDEV_OP_RC_SEND_ONLY] = { "RC_SEND_ONLY", RC_REQ | SEND | M(ONLY) },
	[IDEV_OP_RC_SEND_ONLY_IMM] = { "RC_SEND_ONLY_IMM",
				       RC_REQ | SEND | M(ONLY) | M(IMM) },
	[IDEV_OP_RC_WRITE_FIRST] = { "RC_WRITE_FIRST",
				     RC_REQ | WRITE | M(FIRST) | M(RETH) },
	[IDEV_OP_RC_WRITE_MIDDLE] = { "RC_WRITE_MIDDLE",
				      RC_REQ | WRITE | M(MIDDLE) },
	[IDEV_OP_RC_WRITE_LAST] = { "RC_WRITE_LAST", RC_REQ | WRITE | M(LAST) },
	[IDEV_OP_RC_WRITE_LAST_IMM] = { "RC_WRITE_LAST_IMM",
					RC_REQ | WRITE | M(LAST) | M(IMM) },
	[IDEV_OP_RC_WRITE_ONLY] = { "RC_WRITE_ONLY",
				    RC_REQ | WRITE | M(ONLY) | M(RETH) },
	[IDEV_OP_RC_WRITE_ONLY_IMM] = { "RC_WRITE_ONLY_IMM",
					RC_REQ | WRITE | M(ONLY) | M(IMM) |
						M(RETH) },
	[IDEV_OP_RC_READ_REQ] = { "RC_READ_REQ",
				  RC_REQ | M(READ) | M(ONLY) | M(RETH) },
	[IDEV_OP_RC_READ_RESP_FIRST] = { "RC_READ_RESP_FIRST",
					 RDRESP | M(FIRST) | M(AETH) },
	[IDEV_OP_RC_READ_RESP_MIDDLE] = { "RC_READ_RESP_MIDDLE",
					  RDRESP | M(MIDDLE) },
	[IDEV_OP_RC_READ_RESP_LAST] = { "RC_READ_RESP_LAST",
					RDRESP | M(LAST) | M(AETH) },
	[IDEV_OP_RC_READ_RESP_ONLY] = { "RC_READ_RESP_ONLY",
					RDRESP | M(ONLY) | M(AETH) },
	[IDEV_OP_RC_ACK] = { "RC_ACK", RC_RESP | M(ACK) | M(AETH) },
	[IDEV_OP_RC_ATOMIC_ACK] = { "RC_ATOMIC_ACK",
				    RC_RESP | M(ACK) | M(ATOMIC) | M(AETH) |
					    M(ATOMIC_ACK) },
	[IDEV_OP_RC_CMP_SWAP] = { "RC_CMP_SWAP", RC_REQ | M(ATOMIC) | M(ONLY) |
							 M(ATOMIC_ETH) },
	[IDEV_OP_RC_FETCH_ADD] = { "RC_FETCH_ADD", RC_REQ | M(ATOMIC) |
							   M(ONLY) |
							   M(ATOMIC_ETH) },
	[IDEV_OP_RC_SEND_LAST_INV] = { "RC_SEND_LAST_INV",
				       RC_REQ | SEND | M(LAST) | M(INV) },
	[IDEV_OP_RC_SEND_ONLY_INV] = { "RC_SEND_ONLY_INV",
				       RC_REQ | SEND | M(ONLY) | M(INV) },
	[IDEV_OP_UD_SEND_ONLY] = { "UD_SEND_ONLY",
				   M(UD) | M(REQ) | SEND | M(ONLY) },
	[IDEV_OP_UD_SEND_ONLY_IMM] = { "UD_SEND_ONLY_IMM",
				       M(UD) | M(REQ) | SEND | M(ONLY) |
					       M(IMM) },
};

/* ---- byte order helpers -------------------------------------------------- */

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = (uint8_t)v;
}

static void put24(uint8_t *p, uint32_t v)
{
	p[0] = (v >> 16) & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = v & 0xff;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, (uint16_t)v);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, v >> 32);
	put32(p + 4, (uint32_t)v);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

/* ---- the invariant CRC -------------------------------------------------- */

/* CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), eight bytes at a
 * time ("slicing by 8": table k advances a byte k positions further). */
static uint32_t crc_table[8][256];

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc_table[t][i] =
				crc_table[0][crc_table[t - 1][i] & 0xff] ^
				(crc_table[t - 1][i] >> 8);
}

static uint32_t crc_update(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n >= 8) {
		uint32_t lo = crc ^
			      ((uint32_t)p[0] | (uint32_t)p[1] << 8 |
			       (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);

		crc = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^
		      crc_table[5][(lo >> 16) & 0xff] ^ crc_table[4][lo >> 24] ^
		      crc_table[3][p[4]] ^ crc_table[2][p[5]] ^
		      crc_table[1][p[6]] ^ crc_table[0][p[7]];
		p += 8;
		n -= 8;
	}
	while (n--)
		crc = crc_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

/*
 * RoCEv2 ICRC: CRC-32 over 8 bytes of ones (in place of the LRH of native
 * InfiniBand), then the IP header, UDP header and BTH with their variant
 * fields replaced by ones (IPv4: TOS, TTL, header checksum; IPv6: traffic
 * class, flow label, hop limit; UDP checksum; the BTH reserved byte that
 * holds FECN/BECN), then the rest of the packet.
 */
uint32_t idev_icrc(const uint8_t *frame, size_t l3, size_t len)
{
	static const uint8_t ones[8] = { 0xff, 0xff, 0xff, 0xff,
					 0xff, 0xff, 0xff, 0xff };
	uint8_t hdr[IFAB_IPV6_HLEN + IFAB_UDP_HLEN + IFAB_BTH_LEN];
	const uint8_t *ip = frame + l3;
	size_t iplen = (ip[0] >> 4) == 4 ? IFAB_IPV4_HLEN : IFAB_IPV6_HLEN;
	size_t n = iplen + IFAB_UDP_HLEN + IFAB_BTH_LEN;
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	uint32_t crc;

	pthread_once(&once, crc_init);
	memcpy(hdr, ip, n);
	if (iplen == IFAB_IPV4_HLEN) {
		hdr[1] = 0xff; /* TOS */
		hdr[8] = 0xff; /* TTL */
		hdr[10] = hdr[11] = 0xff; /* header checksum */
	} else {
		hdr[0] |= 0x0f; /* traffic class and flow label */
		hdr[1] = hdr[2] = hdr[3] = 0xff;
		hdr[7] = 0xff; /* hop limit */
	}
	hdr[iplen + 6] = hdr[iplen + 7] = 0xff; /* UDP checksum */
	hdr[iplen + IFAB_UDP_HLEN + 4] = 0xff; /* BTH resv8a (FECN, BECN) */
	crc = crc_update(0xffffffffu, ones, sizeof(ones));
	crc = crc_update(crc, hdr, n);
	crc = crc_update(crc, ip + n, len - l3 - n);
	return ~crc;
}

/* ---- layout -------------------------------------------------------------- */

static size_t ext_len(uint32_t mask)
{
	return (mask & M(UD) ? IDEV_DETH_LEN : 0) +
	       (mask & M(RETH) ? IDEV_RETH_LEN : 0) +
	       (mask & M(ATOMIC_ETH) ? IDEV_ATOMIC_ETH_LEN : 0) +
	       (mask & M(AETH) ? IDEV_AETH_LEN : 0) +
	       (mask & M(ATOMIC_ACK) ? IDEV_ATOMIC_ACK_LEN : 0) +
	       (mask & M(IMM) ? IDEV_IMMDT_LEN : 0) +
	       (mask & M(INV) ? IDEV_IETH_LEN : 0);
}

static size_t l3_off(const struct idev_pkt *p)
{
	return IFAB_ETH_HLEN + (p->pcp ? IFAB_VLAN_HLEN : 0);
}

static size_t l4_off(const struct idev_pkt *p)
{
	return l3_off(p) +
	       (idev_pkt_is_v4(p) ? IFAB_IPV4_HLEN : IFAB_IPV6_HLEN);
}

void idev_pkt_init(struct idev_pkt *p, uint8_t *buf, uint8_t op)
{
	memset(p, 0, sizeof(*p));
	p->buf = buf;
	p->opcode = op;
	p->pkey = 0xffff;
	p->hop_limit = 64;
}

static size_t payload_off(const struct idev_pkt *p)
{
	return l4_off(p) + IFAB_UDP_HLEN + IFAB_BTH_LEN +
	       ext_len(idev_pkt_opmask(p->opcode));
}

uint8_t *idev_pkt_payload_at(const struct idev_pkt *p)
{
	return p->buf + payload_off(p);
}

size_t idev_pkt_frame_len(const struct idev_pkt *p)
{
	/* as idev_pkt_build: payload padded to 4 bytes, then the ICRC */
	return payload_off(p) + ((p->paylen + 3u) & ~3u) + IDEV_ICRC_LEN;
}

/* The extension headers, in IBTA order; returns the byte after them. */
static uint8_t *build_ext(const struct idev_pkt *p, uint8_t *q, uint32_t mask)
{
	if (mask & M(UD)) {
		put32(q, p->qkey);
		q[4] = 0;
		put24(q + 5, p->src_qpn);
		q += IDEV_DETH_LEN;
	}
	if (mask & M(RETH)) {
		put64(q, p->va);
		put32(q + 8, p->rkey);
		put32(q + 12, p->dmalen);
		q += IDEV_RETH_LEN;
	}
	if (mask & M(ATOMIC_ETH)) {
		put64(q, p->va);
		put32(q + 8, p->rkey);
		put64(q + 12, p->swap_add);
		put64(q + 20, p->compare);
		q += IDEV_ATOMIC_ETH_LEN;
	}
	if (mask & M(AETH)) {
		q[0] = p->syndrome;
		put24(q + 1, p->msn);
		q += IDEV_AETH_LEN;
	}
	if (mask & M(ATOMIC_ACK)) {
		put64(q, p->orig);
		q += IDEV_ATOMIC_ACK_LEN;
	}
	if (mask & M(IMM)) {
		memcpy(q, &p->imm_raw, 4);
		q += IDEV_IMMDT_LEN;
	}
	if (mask & M(INV)) {
		put32(q, p->inv_rkey);
		q += IDEV_IETH_LEN;
	}
	return q;
}

int idev_pkt_build(struct idev_pkt *p)
{
	uint32_t mask = idev_pkt_opmask(p->opcode);
	uint8_t *b = p->buf, *ip, *udp, *bth, *pay;
	bool v4 = idev_pkt_is_v4(p);
	unsigned int pad;
	size_t l3 = l3_off(p), l4 = l4_off(p), udplen, end;
	uint32_t icrc;

	if (!idev_pkt_opinfo[p->opcode].name ||
	    p->paylen > IDEV_PKT_MAX_PAYLOAD ||
	    (!v4 && (ifab_gid_is_v4(p->sgid) || ifab_gid_is_v4(p->dgid))))
		return -EINVAL;
	pay = idev_pkt_payload_at(p);
	if (p->paylen && p->payload != pay)
		memmove(pay, p->payload, p->paylen);
	p->payload = pay;
	pad = (4 - (p->paylen & 3)) & 3;
	memset(pay + p->paylen, 0, pad);
	end = (size_t)(pay - b) + p->paylen + pad;
	udplen = end + IDEV_ICRC_LEN - l4;

	/* Ethernet */
	memcpy(b, p->dmac, 6);
	memcpy(b + 6, p->smac, 6);
	if (p->pcp) {
		put16(b + 12, IFAB_ETHERTYPE_VLAN);
		put16(b + 14, (uint16_t)(p->pcp & 7) << 13); /* VID 0 */
	}
	put16(b + l3 - 2, v4 ? IFAB_ETHERTYPE_IPV4 : IFAB_ETHERTYPE_IPV6);
	ip = b + l3;
	if (v4) {
		ip[0] = 0x45;
		ip[1] = p->tclass;
		put16(ip + 2, (uint16_t)(IFAB_IPV4_HLEN + udplen));
		put16(ip + 4, 0); /* identification: 0, as Linux for DF */
		put16(ip + 6, 0x4000); /* DF */
		ip[8] = p->hop_limit;
		ip[9] = 17; /* UDP */
		put16(ip + 10, 0);
		memcpy(ip + 12, p->sgid + 12, 4);
		memcpy(ip + 16, p->dgid + 12, 4);
		put16(ip + 10, ifab_ip_csum(ip, IFAB_IPV4_HLEN));
	} else {
		put32(ip, 6u << 28 | (uint32_t)p->tclass << 20 |
				  (p->flow_label & 0xfffff));
		put16(ip + 4, (uint16_t)udplen);
		ip[6] = 17;
		ip[7] = p->hop_limit;
		memcpy(ip + 8, p->sgid, 16);
		memcpy(ip + 24, p->dgid, 16);
	}
	udp = b + l4;
	put16(udp, p->sport);
	put16(udp + 2, IFAB_ROCE_PORT);
	put16(udp + 4, (uint16_t)udplen);
	put16(udp + 6, 0); /* no UDP checksum: the ICRC protects the data */
	bth = udp + IFAB_UDP_HLEN;
	bth[0] = p->opcode;
	bth[1] = (p->flags & IDEV_PKT_F_SOL ? 0x80 : 0) | pad << 4; /* TVer 0 */
	put16(bth + 2, p->pkey);
	bth[4] = 0;
	put24(bth + 5, p->dqpn & IDEV_PSN_MASK);
	bth[8] = p->flags & IDEV_PKT_F_ACKREQ ? 0x80 : 0;
	put24(bth + 9, p->psn & IDEV_PSN_MASK);
	build_ext(p, bth + IFAB_BTH_LEN, mask);
	icrc = idev_icrc(b, l3, end);
	b[end] = (uint8_t)icrc; /* little-endian, as the Ethernet FCS */
	b[end + 1] = (uint8_t)(icrc >> 8);
	b[end + 2] = (uint8_t)(icrc >> 16);
	b[end + 3] = (uint8_t)(icrc >> 24);
	p->len = end + IDEV_ICRC_LEN;
	return 0;
}

/* ---- parsing ------------------------------------------------------------- */

static void parse_ext(struct idev_pkt *p, const uint8_t *q, uint32_t mask)
{
	if (mask & M(UD)) {
		p->qkey = get32(q);
		p->src_qpn = get24(q + 5);
		q += IDEV_DETH_LEN;
	}
	if (mask & M(RETH)) {
		p->va = get64(q);
		p->rkey = get32(q + 8);
		p->dmalen = get32(q + 12);
		q += IDEV_RETH_LEN;
	}
	if (mask & M(ATOMIC_ETH)) {
		p->va = get64(q);
		p->rkey = get32(q + 8);
		p->swap_add = get64(q + 12);
		p->compare = get64(q + 20);
		q += IDEV_ATOMIC_ETH_LEN;
	}
	if (mask & M(AETH)) {
		p->syndrome = q[0];
		p->msn = get24(q + 1);
		q += IDEV_AETH_LEN;
	}
	if (mask & M(ATOMIC_ACK)) {
		p->orig = get64(q);
		q += IDEV_ATOMIC_ACK_LEN;
	}
	if (mask & M(IMM)) {
		memcpy(&p->imm_raw, q, 4);
		q += IDEV_IMMDT_LEN;
	}
	if (mask & M(INV))
		p->inv_rkey = get32(q);
}

/* The IP header at 'ip' ('room' bytes left): addresses and the UDP length;
 * the L4 offset from ip, or 0 if it is not an unfragmented UDP datagram. */
static size_t parse_ip(struct idev_pkt *p, const uint8_t *ip, size_t room,
		       uint16_t type, size_t *udplen)
{
	static const uint8_t v4map[12] = { [10] = 0xff, [11] = 0xff };

	if (type == IFAB_ETHERTYPE_IPV4) {
		uint16_t tot;

		if (room < IFAB_IPV4_HLEN || ip[0] != 0x45 || ip[9] != 17 ||
		    (get16(ip + 6) & 0x3fff) || /* MF or an offset */
		    ifab_ip_csum(ip, IFAB_IPV4_HLEN))
			return 0;
		tot = get16(ip + 2);
		if (tot < IFAB_IPV4_HLEN || tot > room)
			return 0;
		p->tclass = ip[1];
		p->hop_limit = ip[8];
		memcpy(p->sgid, v4map, 12);
		memcpy(p->sgid + 12, ip + 12, 4);
		memcpy(p->dgid, v4map, 12);
		memcpy(p->dgid + 12, ip + 16, 4);
		*udplen = tot - IFAB_IPV4_HLEN;
		return IFAB_IPV4_HLEN;
	}
	if (type == IFAB_ETHERTYPE_IPV6) {
		uint32_t w;

		if (room < IFAB_IPV6_HLEN || (ip[0] >> 4) != 6 || ip[6] != 17)
			return 0;
		w = get32(ip);
		p->tclass = (w >> 20) & 0xff;
		p->flow_label = w & 0xfffff;
		p->hop_limit = ip[7];
		memcpy(p->sgid, ip + 8, 16);
		memcpy(p->dgid, ip + 24, 16);
		*udplen = get16(ip + 4);
		if (*udplen > room - IFAB_IPV6_HLEN)
			return 0;
		return IFAB_IPV6_HLEN;
	}
	return 0;
}

int idev_pkt_parse(struct idev_pkt *p, uint8_t *buf, size_t len)
{
	size_t l3 = IFAB_ETH_HLEN, l4, iph, udplen, hdrs, end;
	const uint8_t *bth, *ic;
	uint16_t type;
	uint32_t mask, icrc;
	unsigned int pad;

	memset(p, 0, sizeof(*p));
	p->buf = buf;
	if (len < IFAB_ETH_HLEN)
		return -EBADMSG;
	memcpy(p->dmac, buf, 6);
	memcpy(p->smac, buf + 6, 6);
	type = get16(buf + 12);
	if (type == IFAB_ETHERTYPE_VLAN) {
		if (len < IFAB_ETH_HLEN + IFAB_VLAN_HLEN)
			return -EBADMSG;
		p->vlan = true;
		p->pcp = buf[14] >> 5;
		type = get16(buf + 16);
		l3 += IFAB_VLAN_HLEN;
	}
	iph = parse_ip(p, buf + l3, len - l3, type, &udplen);
	if (!iph)
		return -EBADMSG;
	l4 = l3 + iph;
	if (udplen < IFAB_UDP_HLEN + IFAB_BTH_LEN + IDEV_ICRC_LEN ||
	    get16(buf + l4 + 2) != IFAB_ROCE_PORT ||
	    get16(buf + l4 + 4) != udplen)
		return -EBADMSG;
	p->sport = get16(buf + l4);
	end = l4 + udplen; /* trailing bytes (Ethernet padding) ignored */
	bth = buf + l4 + IFAB_UDP_HLEN;
	p->opcode = bth[0];
	mask = idev_pkt_opmask(p->opcode);
	if (!idev_pkt_opinfo[p->opcode].name || (bth[1] & 0x0f)) /* TVer */
		return -EBADMSG;
	p->flags = (bth[1] & 0x80 ? IDEV_PKT_F_SOL : 0) |
		   (bth[8] & 0x80 ? IDEV_PKT_F_ACKREQ : 0);
	pad = (bth[1] >> 4) & 3;
	p->pkey = get16(bth + 2);
	p->dqpn = get24(bth + 5);
	p->psn = get24(bth + 9);
	hdrs = IFAB_UDP_HLEN + IFAB_BTH_LEN + ext_len(mask);
	if (udplen < hdrs + pad + IDEV_ICRC_LEN)
		return -EBADMSG;
	p->paylen = (uint32_t)(udplen - hdrs - pad - IDEV_ICRC_LEN);
	if (p->paylen > IDEV_PKT_MAX_PAYLOAD || (p->paylen + pad) & 3 ||
	    (p->paylen && !(mask & M(PAYLOAD))))
		return -EBADMSG;
	ic = buf + end - IDEV_ICRC_LEN;
	icrc = (uint32_t)ic[0] | (uint32_t)ic[1] << 8 | (uint32_t)ic[2] << 16 |
	       (uint32_t)ic[3] << 24;
	if (icrc != idev_icrc(buf, l3, end - IDEV_ICRC_LEN))
		return -EBADMSG;
	parse_ext(p, bth + IFAB_BTH_LEN, mask);
	p->payload = buf + l4 + hdrs;
	p->len = end;
	return 0;
}
