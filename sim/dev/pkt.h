/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim device: the InfiniBand transport codec - RoCEv2 frames, as an
 * ionic NIC puts them on Ethernet.  Every packet an emulated NIC sends is
 * a whole frame, which the fabric moves (fabric/frame.h):
 *
 *   Ethernet (optional 802.1Q priority tag carrying the SL in its PCP)
 *   IPv4 (both GIDs IPv4-mapped) or IPv6, protocol UDP
 *   UDP, destination port 4791, checksum 0
 *   BTH and the extension headers its opcode calls for, in IBTA order:
 *     DETH (UD), RETH (RDMA WRITE first/only, READ request), AtomicETH,
 *     AETH (ACK/NAK, READ responses but the middle ones, atomic ACK),
 *     AtomicAckETH, ImmDt, IETH
 *   payload, padded to a multiple of 4 bytes (BTH pad count)
 *   ICRC (the invariant CRC: CRC-32 over the frame from the IP header on
 *   with the variant fields masked, RoCEv2 annex; little-endian)
 *
 * The unix-socket transport carries these frames as they are; the UDP
 * transport sends what follows the UDP header over a real UDP socket and
 * rebuilds the rest on the receiving side; a capture writes them as they
 * are (fabric/pcap.c).  Fields are converted to and from the wire only here:
 * the device works on struct idev_pkt, a decoded packet, and calls
 * idev_pkt_build() to serialise one and idev_pkt_parse() to check and
 * decode one.  The receive path takes any bytes (a peer, a corrupted
 * wire, a fuzzer): idev_pkt_parse() validates every length and the ICRC
 * before anything else looks at them.
 *
 * Opcodes are the IBTA ones (transport in bits 7..5, operation in 4..0).
 * A NAK is an ACKNOWLEDGE whose AETH syndrome says NAK (RNR, sequence
 * error, invalid request, remote access, remote operational).
 */
#ifndef IDEV_PKT_H
#define IDEV_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../fabric/frame.h"

#define IDEV_PKT_MAX_PAYLOAD 4096 /* largest path MTU */
#define IDEV_PSN_MASK 0xffffffu

/* Transport header sizes (the BTH's and the lower ones: fabric/frame.h). */
#define IDEV_DETH_LEN 8
#define IDEV_RETH_LEN 16
#define IDEV_ATOMIC_ETH_LEN 28
#define IDEV_AETH_LEN 4
#define IDEV_ATOMIC_ACK_LEN 8
#define IDEV_IMMDT_LEN 4
#define IDEV_IETH_LEN 4
#define IDEV_ICRC_LEN 4

/* Longest headers any packet has (IPv6, VLAN, RETH + ImmDt). */
#define IDEV_PKT_MAX_HDR                                                   \
	(IFAB_ETH_HLEN + IFAB_VLAN_HLEN + IFAB_IPV6_HLEN + IFAB_UDP_HLEN + \
	 IFAB_BTH_LEN + IDEV_ATOMIC_ETH_LEN + IDEV_IMMDT_LEN)
#define IDEV_PKT_MAX_SIZE \
	(IDEV_PKT_MAX_HDR + IDEV_PKT_MAX_PAYLOAD + 3 + IDEV_ICRC_LEN)
_Static_assert(IDEV_PKT_MAX_SIZE <= IFAB_FRAME_MAX,
	       "the fabric keeps copies of the largest packet");

enum idev_pkt_op {
	/* RC requests */
	IDEV_OP_RC_SEND_FIRST = 0x00,
	IDEV_OP_RC_SEND_MIDDLE = 0x01,
	IDEV_OP_RC_SEND_LAST = 0x02,
	IDEV_OP_RC_SEND_LAST_IMM = 0x03,
	IDEV_OP_RC_SEND_ONLY = 0x04,
	IDEV_OP_RC_SEND_ONLY_IMM = 0x05,
	IDEV_OP_RC_WRITE_FIRST = 0x06,
	IDEV_OP_RC_WRITE_MIDDLE = 0x07,
	IDEV_OP_RC_WRITE_LAST = 0x08,
	IDEV_OP_RC_WRITE_LAST_IMM = 0x09,
	IDEV_OP_RC_WRITE_ONLY = 0x0a,
	IDEV_OP_RC_WRITE_ONLY_IMM = 0x0b,
	IDEV_OP_RC_READ_REQ = 0x0c,
	/* RC responses */
	IDEV_OP_RC_READ_RESP_FIRST = 0x0d,
	IDEV_OP_RC_READ_RESP_MIDDLE = 0x0e,
	IDEV_OP_RC_READ_RESP_LAST = 0x0f,
	IDEV_OP_RC_READ_RESP_ONLY = 0x10,
	IDEV_OP_RC_ACK = 0x11, /* ACK or NAK, by the AETH syndrome */
	IDEV_OP_RC_ATOMIC_ACK = 0x12,
	/* RC requests */
	IDEV_OP_RC_CMP_SWAP = 0x13,
	IDEV_OP_RC_FETCH_ADD = 0x14,
	IDEV_OP_RC_SEND_LAST_INV = 0x16,
	IDEV_OP_RC_SEND_ONLY_INV = 0x17,
	/* UD */
	IDEV_OP_UD_SEND_ONLY = 0x64,
	IDEV_OP_UD_SEND_ONLY_IMM = 0x65,
};

/* NAK kinds and the AETH syndromes that carry them (IBTA 9.7.5.2.9). */
enum idev_nak {
	IDEV_NAK_NONE = 0, /* an ACK */
	IDEV_NAK_RNR = 1, /* no receive WQE; retry after the RNR timer */
	IDEV_NAK_SEQ = 2, /* PSN sequence error; go back to the PSN */
	IDEV_NAK_INV_REQ = 3, /* -> IONIC_STS_REMOTE_INV_REQ_ERR */
	IDEV_NAK_REM_ACC = 4, /* -> IONIC_STS_REMOTE_ACC_ERR */
	IDEV_NAK_REM_OP = 5, /* -> IONIC_STS_REMOTE_OPER_ERR */
};

#define IDEV_AETH_ACK 0x00 /* 000 + credit count */
#define IDEV_AETH_RNR 0x20 /* 001 + timer */
#define IDEV_AETH_NAK 0x60 /* 011 + code */
#define IDEV_AETH_CREDITS_INVALID 0x1f /* end-to-end credits not used */

/* Packet flags (BTH) */
#define IDEV_PKT_F_SOL 0x01 /* solicited event (SE) */
#define IDEV_PKT_F_ACKREQ 0x02 /* acknowledge request (A) */

/* Opcode properties: code asks masks, not lists of opcodes. */
#define IDEV_PKT_M_REQ 0x0001 /* request (to the responder) */
#define IDEV_PKT_M_RESP 0x0002 /* ACK/NAK/read response (to the requester) */
#define IDEV_PKT_M_SEND 0x0004
#define IDEV_PKT_M_WRITE 0x0008
#define IDEV_PKT_M_READ 0x0010
#define IDEV_PKT_M_ATOMIC 0x0020
#define IDEV_PKT_M_FIRST 0x0040
#define IDEV_PKT_M_MIDDLE 0x0080
#define IDEV_PKT_M_LAST 0x0100
#define IDEV_PKT_M_ONLY (IDEV_PKT_M_FIRST | IDEV_PKT_M_LAST)
#define IDEV_PKT_M_IMM 0x0200 /* ImmDt */
#define IDEV_PKT_M_INV 0x0400 /* IETH */
#define IDEV_PKT_M_PAYLOAD 0x0800
#define IDEV_PKT_M_RC 0x1000
#define IDEV_PKT_M_UD 0x2000 /* DETH */
#define IDEV_PKT_M_ACK 0x4000
/* extension headers (besides ImmDt, IETH and DETH above) */
#define IDEV_PKT_M_RETH 0x10000
#define IDEV_PKT_M_ATOMIC_ETH 0x20000
#define IDEV_PKT_M_AETH 0x40000
#define IDEV_PKT_M_ATOMIC_ACK 0x80000

struct idev_pkt_opinfo {
	const char *name; /* NULL: not a valid opcode */
	uint32_t mask;
};

extern const struct idev_pkt_opinfo idev_pkt_opinfo[256];

static inline uint32_t idev_pkt_opmask(uint8_t op)
{
	return idev_pkt_opinfo[op].mask;
}

static inline const char *idev_pkt_opname(uint8_t op)
{
	return idev_pkt_opinfo[op].name ? idev_pkt_opinfo[op].name : "?";
}

/*
 * A packet, decoded.  The device fills one and builds the frame from it,
 * or parses a received frame into one.  Multi-byte fields are host order
 * except imm_raw (the four bytes as the WQE and the CQE carry them).
 */
struct idev_pkt {
	uint8_t *buf; /* the frame */
	size_t len; /* its length, ICRC included (after build/parse) */
	/* Ethernet */
	uint8_t dmac[6], smac[6];
	bool vlan; /* 802.1Q tag present (sent when pcp != 0) */
	uint8_t pcp; /* priority: the SL */
	/* IP: IPv4 when both GIDs are IPv4-mapped, IPv6 otherwise */
	uint8_t sgid[16], dgid[16];
	uint8_t tclass; /* IPv4 TOS / IPv6 traffic class */
	uint8_t hop_limit; /* TTL */
	uint32_t flow_label; /* IPv6 only */
	uint16_t sport; /* UDP source port (flow entropy) */
	/* BTH */
	uint8_t opcode;
	uint8_t flags; /* IDEV_PKT_F_* */
	uint16_t pkey;
	uint32_t dqpn, psn; /* 24 bits each */
	/* RETH; AtomicETH uses va and rkey too */
	uint64_t va;
	uint32_t rkey;
	uint32_t dmalen;
	uint64_t swap_add, compare; /* AtomicETH */
	uint8_t syndrome; /* AETH */
	uint32_t msn; /* AETH, 24 bits */
	uint64_t orig; /* AtomicAckETH */
	uint32_t imm_raw; /* ImmDt */
	uint32_t inv_rkey; /* IETH */
	uint32_t qkey, src_qpn; /* DETH */
	uint8_t *payload; /* inside buf */
	uint32_t paylen;
};

/* IPv4 (RoCEv2 over IPv4) when both GIDs are IPv4-mapped */
static inline bool idev_pkt_is_v4(const struct idev_pkt *p)
{
	return ifab_gid_is_v4(p->sgid) && ifab_gid_is_v4(p->dgid);
}

/* Start a packet with opcode 'op' in 'buf' (IDEV_PKT_MAX_SIZE bytes):
 * every field zero but pkey 0xffff and hop limit 64. */
void idev_pkt_init(struct idev_pkt *p, uint8_t *buf, uint8_t op);
/* Where the payload goes for the packet as set up so far (addresses,
 * opcode, pcp): gather it there, set paylen, then build. */
uint8_t *idev_pkt_payload_at(const struct idev_pkt *p);
/* Serialise: headers, pad, ICRC; sets len.  -EINVAL if the GIDs are of
 * different families or the payload is too long. */
int idev_pkt_build(struct idev_pkt *p);
/* The length idev_pkt_build() would give the frame of p's opcode,
 * addresses and paylen (p->buf unused): what the hardware counters count
 * for a message the direct path moved without frames. */
size_t idev_pkt_frame_len(const struct idev_pkt *p);
/* Check and decode 'len' bytes at 'buf' (the frame stays there; payload
 * points into it).  0, or -EBADMSG for anything a NIC would drop:
 * truncated or inconsistent headers, not RoCEv2, unknown opcode, bad
 * IPv4 checksum, bad ICRC. */
int idev_pkt_parse(struct idev_pkt *p, uint8_t *buf, size_t len);

/* The invariant CRC of a frame of 'len' bytes (ICRC excluded) whose IP
 * header starts at 'l3'. */
uint32_t idev_icrc(const uint8_t *frame, size_t l3, size_t len);

/* AETH syndromes. */
static inline uint8_t idev_aeth_nak(enum idev_nak kind, uint8_t rnr_timer)
{
	switch (kind) {
	case IDEV_NAK_RNR:
		return IDEV_AETH_RNR | (rnr_timer & 0x1f);
	case IDEV_NAK_SEQ:
		return IDEV_AETH_NAK | 0;
	case IDEV_NAK_INV_REQ:
		return IDEV_AETH_NAK | 1;
	case IDEV_NAK_REM_ACC:
		return IDEV_AETH_NAK | 2;
	case IDEV_NAK_REM_OP:
		return IDEV_AETH_NAK | 3;
	default:
		return IDEV_AETH_ACK | IDEV_AETH_CREDITS_INVALID;
	}
}

/* What an AETH syndrome says; an unknown NAK code reads as an invalid
 * request, reserved syndromes as nothing (-1). */
static inline int idev_aeth_kind(uint8_t syndrome)
{
	switch (syndrome & 0xe0) {
	case IDEV_AETH_ACK:
		return IDEV_NAK_NONE;
	case IDEV_AETH_RNR:
		return IDEV_NAK_RNR;
	case IDEV_AETH_NAK:
		switch (syndrome & 0x1f) {
		case 0:
			return IDEV_NAK_SEQ;
		case 2:
			return IDEV_NAK_REM_ACC;
		case 3:
			return IDEV_NAK_REM_OP;
		default:
			return IDEV_NAK_INV_REQ;
		}
	default:
		return -1;
	}
}

/* 24-bit PSN arithmetic: signed distance a - b in (-2^23, 2^23]. */
static inline int32_t idev_psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

static inline uint32_t idev_psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & IDEV_PSN_MASK;
}

#endif /* IDEV_PKT_H */
