/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim fabric packets: the one header every emulated NIC puts on the
 * wire (an abstract unix datagram, see fabric.h), followed by the payload.
 *
 * The header folds what RoCEv2 spreads over IP/UDP/BTH/DETH/RETH/AETH into
 * one fixed-width, big-endian block: it is our wire format, so it is
 * pinned by static assertions and read only through the accessors below
 * (rxe_hdr.h style: __ifab_pkt_x() works on a raw header, ifab_pkt_x() on
 * a struct ifab_pkt).  Byte order is converted inside the accessors, never
 * at the call site.
 *
 * Opcodes reuse the IBTA BTH numbering (transport in bits 7..5, operation
 * in bits 4..0) so traces read like IB captures.  NAKs get an opcode of
 * their own instead of an AETH syndrome; the kind says which NAK.
 */
#ifndef IFAB_PKT_H
#define IFAB_PKT_H

#include <assert.h>
#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define IFAB_PKT_MAGIC 0x4953494du /* "ISIM" */
#define IFAB_PKT_VERSION 1
#define IFAB_PKT_MAX_PAYLOAD 4096 /* largest path MTU */
#define IFAB_PSN_MASK 0xffffffu

enum ifab_pkt_op {
	/* RC requests (IBTA RC opcodes) */
	IFAB_OP_RC_SEND_FIRST = 0x00,
	IFAB_OP_RC_SEND_MIDDLE = 0x01,
	IFAB_OP_RC_SEND_LAST = 0x02,
	IFAB_OP_RC_SEND_LAST_IMM = 0x03,
	IFAB_OP_RC_SEND_ONLY = 0x04,
	IFAB_OP_RC_SEND_ONLY_IMM = 0x05,
	IFAB_OP_RC_WRITE_FIRST = 0x06, /* reserved for RDMA WRITE */
	IFAB_OP_RC_WRITE_MIDDLE = 0x07,
	IFAB_OP_RC_WRITE_LAST = 0x08,
	IFAB_OP_RC_WRITE_LAST_IMM = 0x09,
	IFAB_OP_RC_WRITE_ONLY = 0x0a,
	IFAB_OP_RC_WRITE_ONLY_IMM = 0x0b,
	IFAB_OP_RC_READ_REQ = 0x0c, /* reserved for RDMA READ */
	IFAB_OP_RC_READ_RESP_FIRST = 0x0d,
	IFAB_OP_RC_READ_RESP_MIDDLE = 0x0e,
	IFAB_OP_RC_READ_RESP_LAST = 0x0f,
	IFAB_OP_RC_READ_RESP_ONLY = 0x10,
	/* RC responses */
	IFAB_OP_RC_ACK = 0x11,
	IFAB_OP_RC_ATOMIC_ACK = 0x12, /* reserved for atomics */
	IFAB_OP_RC_CMP_SWAP = 0x13,
	IFAB_OP_RC_FETCH_ADD = 0x14,
	IFAB_OP_RC_SEND_LAST_INV = 0x16, /* reserved for SEND_INV */
	IFAB_OP_RC_SEND_ONLY_INV = 0x17,
	IFAB_OP_RC_NAK = 0x1f, /* emulator: NAK with a kind */
	/* UD */
	IFAB_OP_UD_SEND_ONLY = 0x64,
	IFAB_OP_UD_SEND_ONLY_IMM = 0x65,
};

/* NAK kinds (IFAB_OP_RC_NAK) and the requester status they map to. */
enum ifab_nak {
	IFAB_NAK_NONE = 0,
	IFAB_NAK_RNR = 1, /* no receive WQE; retry after rnr_timer */
	IFAB_NAK_SEQ = 2, /* PSN sequence error; go back to psn */
	IFAB_NAK_INV_REQ = 3, /* -> IONIC_STS_REMOTE_INV_REQ_ERR */
	IFAB_NAK_REM_ACC = 4, /* -> IONIC_STS_REMOTE_ACC_ERR */
	IFAB_NAK_REM_OP = 5, /* -> IONIC_STS_REMOTE_OPER_ERR */
};

/* Header flags */
#define IFAB_PKT_F_SOL 0x01 /* solicited event (BTH SE) */
#define IFAB_PKT_F_ACKREQ 0x02 /* requester wants an ACK (BTH A) */

struct ifab_pkt_hdr {
	uint32_t magic; /* BE IFAB_PKT_MAGIC */
	uint8_t version;
	uint8_t opcode; /* enum ifab_pkt_op */
	uint8_t flags; /* IFAB_PKT_F_* */
	uint8_t nak; /* enum ifab_nak, NAK only */
	uint32_t src_node;
	uint32_t src_qpn;
	uint32_t dst_qpn;
	uint32_t psn; /* 24 bits */
	uint32_t msn; /* ACK/NAK: responder's message count */
	uint32_t imm; /* raw bytes, network order as posted */
	uint32_t qkey; /* UD */
	uint32_t paylen; /* payload bytes after the header */
	uint32_t flow_label;
	uint8_t tclass;
	uint8_t hop_limit;
	uint8_t sl;
	uint8_t rnr_timer; /* RNR NAK: responder's min_rnr_timer code */
	uint8_t sgid[16]; /* sender's GID (UD: for the GRH) */
	uint8_t dgid[16];
	/* RETH / AtomicETH, reserved for RDMA and atomics */
	uint64_t va;
	uint32_t rkey;
	uint32_t dmalen;
	uint64_t swap_add;
	uint64_t compare;
};

static_assert(sizeof(struct ifab_pkt_hdr) == 112, "ifab_pkt_hdr size");
static_assert(offsetof(struct ifab_pkt_hdr, opcode) == 5, "opcode");
static_assert(offsetof(struct ifab_pkt_hdr, src_node) == 8, "src_node");
static_assert(offsetof(struct ifab_pkt_hdr, psn) == 20, "psn");
static_assert(offsetof(struct ifab_pkt_hdr, imm) == 28, "imm");
static_assert(offsetof(struct ifab_pkt_hdr, paylen) == 36, "paylen");
static_assert(offsetof(struct ifab_pkt_hdr, tclass) == 44, "tclass");
static_assert(offsetof(struct ifab_pkt_hdr, sgid) == 48, "sgid");
static_assert(offsetof(struct ifab_pkt_hdr, dgid) == 64, "dgid");
static_assert(offsetof(struct ifab_pkt_hdr, va) == 80, "va");
static_assert(offsetof(struct ifab_pkt_hdr, compare) == 104, "compare");

#define IFAB_PKT_HDR_SIZE sizeof(struct ifab_pkt_hdr)
#define IFAB_PKT_MAX_SIZE (IFAB_PKT_HDR_SIZE + IFAB_PKT_MAX_PAYLOAD)

/* Opcode properties: code asks masks, not lists of opcodes (rxe_opcode). */
#define IFAB_PKT_M_REQ 0x0001 /* request (to the responder) */
#define IFAB_PKT_M_RESP 0x0002 /* ACK/NAK/read response (to the requester) */
#define IFAB_PKT_M_SEND 0x0004
#define IFAB_PKT_M_WRITE 0x0008
#define IFAB_PKT_M_READ 0x0010
#define IFAB_PKT_M_ATOMIC 0x0020
#define IFAB_PKT_M_FIRST 0x0040
#define IFAB_PKT_M_MIDDLE 0x0080
#define IFAB_PKT_M_LAST 0x0100
#define IFAB_PKT_M_ONLY (IFAB_PKT_M_FIRST | IFAB_PKT_M_LAST)
#define IFAB_PKT_M_IMM 0x0200
#define IFAB_PKT_M_INV 0x0400
#define IFAB_PKT_M_PAYLOAD 0x0800
#define IFAB_PKT_M_RC 0x1000
#define IFAB_PKT_M_UD 0x2000
#define IFAB_PKT_M_ACK 0x4000
#define IFAB_PKT_M_NAK 0x8000

struct ifab_pkt_opinfo {
	const char *name; /* NULL: not a valid opcode */
	uint32_t mask;
};

extern const struct ifab_pkt_opinfo ifab_pkt_opinfo[256];

static inline uint32_t ifab_pkt_opmask(uint8_t op)
{
	return ifab_pkt_opinfo[op].mask;
}

static inline const char *ifab_pkt_opname(uint8_t op)
{
	return ifab_pkt_opinfo[op].name ? ifab_pkt_opinfo[op].name : "?";
}

/* Packet buffers must be aligned for the header's 64-bit fields. */
#define IFAB_PKT_ALIGN __attribute__((aligned(8)))

/* A packet in a buffer: header at buf, payload right after it. */
struct ifab_pkt {
	uint8_t *buf;
	size_t len; /* bytes valid in buf */
};

static inline struct ifab_pkt_hdr *ifab_pkt_hdr(const struct ifab_pkt *pkt)
{
	return (struct ifab_pkt_hdr *)pkt->buf;
}

static inline uint8_t *ifab_pkt_payload(const struct ifab_pkt *pkt)
{
	return pkt->buf + IFAB_PKT_HDR_SIZE;
}

/* Raw-header accessors (big endian on the wire). */
#define IFAB_PKT_U32(field)                                                 \
	static inline uint32_t __ifab_pkt_##field(const void *hdr)          \
	{                                                                   \
		return be32toh(((const struct ifab_pkt_hdr *)hdr)->field);  \
	}                                                                   \
	static inline void __ifab_pkt_set_##field(void *hdr, uint32_t v)    \
	{                                                                   \
		((struct ifab_pkt_hdr *)hdr)->field = htobe32(v);           \
	}                                                                   \
	static inline uint32_t ifab_pkt_##field(const struct ifab_pkt *pkt) \
	{                                                                   \
		return __ifab_pkt_##field(pkt->buf);                        \
	}                                                                   \
	static inline void ifab_pkt_set_##field(struct ifab_pkt *pkt,       \
						uint32_t v)                 \
	{                                                                   \
		__ifab_pkt_set_##field(pkt->buf, v);                        \
	}

IFAB_PKT_U32(magic)
IFAB_PKT_U32(src_node)
IFAB_PKT_U32(src_qpn)
IFAB_PKT_U32(dst_qpn)
IFAB_PKT_U32(msn)
IFAB_PKT_U32(qkey)
IFAB_PKT_U32(paylen)
IFAB_PKT_U32(flow_label)
IFAB_PKT_U32(rkey)
IFAB_PKT_U32(dmalen)
#undef IFAB_PKT_U32

/* RETH / AtomicETH: 64-bit fields.  ATOMIC_ACK returns the original
 * value in swap_add (AtomicAckETH). */
#define IFAB_PKT_U64(field)                                                 \
	static inline uint64_t ifab_pkt_##field(const struct ifab_pkt *pkt) \
	{                                                                   \
		uint64_t v;                                                 \
		memcpy(&v, &((const struct ifab_pkt_hdr *)pkt->buf)->field, \
		       8);                                                  \
		return be64toh(v);                                          \
	}                                                                   \
	static inline void ifab_pkt_set_##field(struct ifab_pkt *pkt,       \
						uint64_t v)                 \
	{                                                                   \
		v = htobe64(v);                                             \
		memcpy(&((struct ifab_pkt_hdr *)pkt->buf)->field, &v, 8);   \
	}

IFAB_PKT_U64(va)
IFAB_PKT_U64(swap_add)
IFAB_PKT_U64(compare)
#undef IFAB_PKT_U64

static inline uint32_t __ifab_pkt_psn(const void *hdr)
{
	return be32toh(((const struct ifab_pkt_hdr *)hdr)->psn) & IFAB_PSN_MASK;
}

static inline uint32_t ifab_pkt_psn(const struct ifab_pkt *pkt)
{
	return __ifab_pkt_psn(pkt->buf);
}

static inline void ifab_pkt_set_psn(struct ifab_pkt *pkt, uint32_t psn)
{
	ifab_pkt_hdr(pkt)->psn = htobe32(psn & IFAB_PSN_MASK);
}

/* The immediate travels as the raw 4 bytes the WQE carried. */
static inline uint32_t ifab_pkt_imm_raw(const struct ifab_pkt *pkt)
{
	return ifab_pkt_hdr(pkt)->imm;
}

static inline uint8_t ifab_pkt_opcode(const struct ifab_pkt *pkt)
{
	return ifab_pkt_hdr(pkt)->opcode;
}

/* Start a packet: zero the header, set magic, version, opcode, addresses. */
static inline void ifab_pkt_init(struct ifab_pkt *pkt, uint8_t opcode,
				 uint32_t src_node, uint32_t src_qpn,
				 uint32_t dst_qpn)
{
	struct ifab_pkt_hdr *h = ifab_pkt_hdr(pkt);

	memset(h, 0, IFAB_PKT_HDR_SIZE);
	h->magic = htobe32(IFAB_PKT_MAGIC);
	h->version = IFAB_PKT_VERSION;
	h->opcode = opcode;
	h->src_node = htobe32(src_node);
	h->src_qpn = htobe32(src_qpn);
	h->dst_qpn = htobe32(dst_qpn);
	pkt->len = IFAB_PKT_HDR_SIZE;
}

/*
 * Check a received datagram: magic, version, a known opcode, and a payload
 * length that matches the datagram.  Returns false for anything a NIC
 * would drop as malformed.
 */
bool ifab_pkt_valid(const struct ifab_pkt *pkt);

/* 24-bit PSN arithmetic: signed distance a - b in (-2^23, 2^23]. */
static inline int32_t ifab_psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

static inline uint32_t ifab_psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & IFAB_PSN_MASK;
}

#endif /* IFAB_PKT_H */
