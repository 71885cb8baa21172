// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim fabric packets: the opcode property table and the ingress
 * sanity check.  Everything else about the format is in pkt.h.
 */
#include "pkt.h"

#define RC_REQ (IFAB_PKT_M_RC | IFAB_PKT_M_REQ)
#define RC_RESP (IFAB_PKT_M_RC | IFAB_PKT_M_RESP)
#define SEND (IFAB_PKT_M_SEND | IFAB_PKT_M_PAYLOAD)
#define WRITE (IFAB_PKT_M_WRITE | IFAB_PKT_M_PAYLOAD)

const struct ifab_pkt_opinfo ifab_pkt_opinfo[256] = {
	[IFAB_OP_RC_SEND_FIRST] = { "RC_SEND_FIRST",
				    RC_REQ | SEND | IFAB_PKT_M_FIRST },
	[IFAB_OP_RC_SEND_MIDDLE] = { "RC_SEND_MIDDLE",
				     RC_REQ | SEND | IFAB_PKT_M_MIDDLE },
	[IFAB_OP_RC_SEND_LAST] = { "RC_SEND_LAST",
				   RC_REQ | SEND | IFAB_PKT_M_LAST },
	[IFAB_OP_RC_SEND_LAST_IMM] = { "RC_SEND_LAST_IMM",
				       RC_REQ | SEND | IFAB_PKT_M_LAST |
					       IFAB_PKT_M_IMM },
	[IFAB_OP_RC_SEND_ONLY] = { "RC_SEND_ONLY",
				   RC_REQ | SEND | IFAB_PKT_M_ONLY },
	[IFAB_OP_RC_SEND_ONLY_IMM] = { "RC_SEND_ONLY_IMM",
				       RC_REQ | SEND | IFAB_PKT_M_ONLY |
					       IFAB_PKT_M_IMM },
	[IFAB_OP_RC_WRITE_FIRST] = { "RC_WRITE_FIRST",
				     RC_REQ | WRITE | IFAB_PKT_M_FIRST },
	[IFAB_OP_RC_WRITE_MIDDLE] = { "RC_WRITE_MIDDLE",
				      RC_REQ | WRITE | IFAB_PKT_M_MIDDLE },
	[IFAB_OP_RC_WRITE_LAST] = { "RC_WRITE_LAST",
				    RC_REQ | WRITE | IFAB_PKT_M_LAST },
	[IFAB_OP_RC_WRITE_LAST_IMM] = { "RC_WRITE_LAST_IMM",
					RC_REQ | WRITE | IFAB_PKT_M_LAST |
						IFAB_PKT_M_IMM },
	[IFAB_OP_RC_WRITE_ONLY] = { "RC_WRITE_ONLY",
				    RC_REQ | WRITE | IFAB_PKT_M_ONLY },
	[IFAB_OP_RC_WRITE_ONLY_IMM] = { "RC_WRITE_ONLY_IMM",
					RC_REQ | WRITE | IFAB_PKT_M_ONLY |
						IFAB_PKT_M_IMM },
	[IFAB_OP_RC_READ_REQ] = { "RC_READ_REQ",
				  RC_REQ | IFAB_PKT_M_READ | IFAB_PKT_M_ONLY },
	[IFAB_OP_RC_READ_RESP_FIRST] = { "RC_READ_RESP_FIRST",
					 RC_RESP | IFAB_PKT_M_READ |
						 IFAB_PKT_M_PAYLOAD |
						 IFAB_PKT_M_FIRST },
	[IFAB_OP_RC_READ_RESP_MIDDLE] = { "RC_READ_RESP_MIDDLE",
					  RC_RESP | IFAB_PKT_M_READ |
						  IFAB_PKT_M_PAYLOAD |
						  IFAB_PKT_M_MIDDLE },
	[IFAB_OP_RC_READ_RESP_LAST] = { "RC_READ_RESP_LAST",
					RC_RESP | IFAB_PKT_M_READ |
						IFAB_PKT_M_PAYLOAD |
						IFAB_PKT_M_LAST },
	[IFAB_OP_RC_READ_RESP_ONLY] = { "RC_READ_RESP_ONLY",
					RC_RESP | IFAB_PKT_M_READ |
						IFAB_PKT_M_PAYLOAD |
						IFAB_PKT_M_ONLY },
	[IFAB_OP_RC_ACK] = { "RC_ACK", RC_RESP | IFAB_PKT_M_ACK },
	[IFAB_OP_RC_ATOMIC_ACK] = { "RC_ATOMIC_ACK",
				    RC_RESP | IFAB_PKT_M_ACK |
					    IFAB_PKT_M_ATOMIC },
	[IFAB_OP_RC_CMP_SWAP] = { "RC_CMP_SWAP", RC_REQ | IFAB_PKT_M_ATOMIC |
							 IFAB_PKT_M_ONLY },
	[IFAB_OP_RC_FETCH_ADD] = { "RC_FETCH_ADD", RC_REQ | IFAB_PKT_M_ATOMIC |
							   IFAB_PKT_M_ONLY },
	[IFAB_OP_RC_SEND_LAST_INV] = { "RC_SEND_LAST_INV",
				       RC_REQ | SEND | IFAB_PKT_M_LAST |
					       IFAB_PKT_M_INV },
	[IFAB_OP_RC_SEND_ONLY_INV] = { "RC_SEND_ONLY_INV",
				       RC_REQ | SEND | IFAB_PKT_M_ONLY |
					       IFAB_PKT_M_INV },
	[IFAB_OP_RC_NAK] = { "RC_NAK", RC_RESP | IFAB_PKT_M_NAK },
	[IFAB_OP_UD_SEND_ONLY] = { "UD_SEND_ONLY",
				   IFAB_PKT_M_UD | IFAB_PKT_M_REQ | SEND |
					   IFAB_PKT_M_ONLY },
	[IFAB_OP_UD_SEND_ONLY_IMM] = { "UD_SEND_ONLY_IMM",
				       IFAB_PKT_M_UD | IFAB_PKT_M_REQ | SEND |
					       IFAB_PKT_M_ONLY |
					       IFAB_PKT_M_IMM },
};

bool ifab_pkt_valid(const struct ifab_pkt *pkt)
{
	const struct ifab_pkt_hdr *h;
	uint32_t paylen;

	if (pkt->len < IFAB_PKT_HDR_SIZE)
		return false;
	h = ifab_pkt_hdr(pkt);
	if (ifab_pkt_magic(pkt) != IFAB_PKT_MAGIC ||
	    h->version != IFAB_PKT_VERSION)
		return false;
	if (!ifab_pkt_opinfo[h->opcode].name)
		return false;
	paylen = ifab_pkt_paylen(pkt);
	if (paylen > IFAB_PKT_MAX_PAYLOAD ||
	    paylen != pkt->len - IFAB_PKT_HDR_SIZE)
		return false;
	/* Only opcodes that carry data may have a payload. */
	if (paylen && !(ifab_pkt_opmask(h->opcode) & IFAB_PKT_M_PAYLOAD))
		return false;
	return true;
}
