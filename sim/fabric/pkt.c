// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim fabric packets: the opcode property table and the ingress
 * sanity check.  Everything else about the format is in pkt.h.
 */
#include "pkt.h"

#define RC_REQ (ISIM_PKT_M_RC | ISIM_PKT_M_REQ)
#define RC_RESP (ISIM_PKT_M_RC | ISIM_PKT_M_RESP)
#define SEND (ISIM_PKT_M_SEND | ISIM_PKT_M_PAYLOAD)
#define WRITE (ISIM_PKT_M_WRITE | ISIM_PKT_M_PAYLOAD)

const struct isim_pkt_opinfo isim_pkt_opinfo[256] = {
	[ISIM_OP_RC_SEND_FIRST] = { "RC_SEND_FIRST",
				    RC_REQ | SEND | ISIM_PKT_M_FIRST },
	[ISIM_OP_RC_SEND_MIDDLE] = { "RC_SEND_MIDDLE",
				     RC_REQ | SEND | ISIM_PKT_M_MIDDLE },
	[ISIM_OP_RC_SEND_LAST] = { "RC_SEND_LAST",
				   RC_REQ | SEND | ISIM_PKT_M_LAST },
	[ISIM_OP_RC_SEND_LAST_IMM] = { "RC_SEND_LAST_IMM",
				       RC_REQ | SEND | ISIM_PKT_M_LAST |
					       ISIM_PKT_M_IMM },
	[ISIM_OP_RC_SEND_ONLY] = { "RC_SEND_ONLY",
				   RC_REQ | SEND | ISIM_PKT_M_ONLY },
	[ISIM_OP_RC_SEND_ONLY_IMM] = { "RC_SEND_ONLY_IMM",
				       RC_REQ | SEND | ISIM_PKT_M_ONLY |
					       ISIM_PKT_M_IMM },
	[ISIM_OP_RC_WRITE_FIRST] = { "RC_WRITE_FIRST",
				     RC_REQ | WRITE | ISIM_PKT_M_FIRST },
	[ISIM_OP_RC_WRITE_MIDDLE] = { "RC_WRITE_MIDDLE",
				      RC_REQ | WRITE | ISIM_PKT_M_MIDDLE },
	[ISIM_OP_RC_WRITE_LAST] = { "RC_WRITE_LAST",
				    RC_REQ | WRITE | ISIM_PKT_M_LAST },
	[ISIM_OP_RC_WRITE_LAST_IMM] = { "RC_WRITE_LAST_IMM",
					RC_REQ | WRITE | ISIM_PKT_M_LAST |
						ISIM_PKT_M_IMM },
	[ISIM_OP_RC_WRITE_ONLY] = { "RC_WRITE_ONLY",
				    RC_REQ | WRITE | ISIM_PKT_M_ONLY },
	[ISIM_OP_RC_WRITE_ONLY_IMM] = { "RC_WRITE_ONLY_IMM",
					RC_REQ | WRITE | ISIM_PKT_M_ONLY |
						ISIM_PKT_M_IMM },
	[ISIM_OP_RC_READ_REQ] = { "RC_READ_REQ",
				  RC_REQ | ISIM_PKT_M_READ | ISIM_PKT_M_ONLY },
	[ISIM_OP_RC_READ_RESP_FIRST] = { "RC_READ_RESP_FIRST",
					 RC_RESP | ISIM_PKT_M_READ |
						 ISIM_PKT_M_PAYLOAD |
						 ISIM_PKT_M_FIRST },
	[ISIM_OP_RC_READ_RESP_MIDDLE] = { "RC_READ_RESP_MIDDLE",
					  RC_RESP | ISIM_PKT_M_READ |
						  ISIM_PKT_M_PAYLOAD |
						  ISIM_PKT_M_MIDDLE },
	[ISIM_OP_RC_READ_RESP_LAST] = { "RC_READ_RESP_LAST",
					RC_RESP | ISIM_PKT_M_READ |
						ISIM_PKT_M_PAYLOAD |
						ISIM_PKT_M_LAST },
	[ISIM_OP_RC_READ_RESP_ONLY] = { "RC_READ_RESP_ONLY",
					RC_RESP | ISIM_PKT_M_READ |
						ISIM_PKT_M_PAYLOAD |
						ISIM_PKT_M_ONLY },
	[ISIM_OP_RC_ACK] = { "RC_ACK", RC_RESP | ISIM_PKT_M_ACK },
	[ISIM_OP_RC_ATOMIC_ACK] = { "RC_ATOMIC_ACK",
				    RC_RESP | ISIM_PKT_M_ACK |
					    ISIM_PKT_M_ATOMIC },
	[ISIM_OP_RC_CMP_SWAP] = { "RC_CMP_SWAP", RC_REQ | ISIM_PKT_M_ATOMIC |
							 ISIM_PKT_M_ONLY },
	[ISIM_OP_RC_FETCH_ADD] = { "RC_FETCH_ADD", RC_REQ | ISIM_PKT_M_ATOMIC |
							   ISIM_PKT_M_ONLY },
	[ISIM_OP_RC_SEND_LAST_INV] = { "RC_SEND_LAST_INV",
				       RC_REQ | SEND | ISIM_PKT_M_LAST |
					       ISIM_PKT_M_INV },
	[ISIM_OP_RC_SEND_ONLY_INV] = { "RC_SEND_ONLY_INV",
				       RC_REQ | SEND | ISIM_PKT_M_ONLY |
					       ISIM_PKT_M_INV },
	[ISIM_OP_RC_NAK] = { "RC_NAK", RC_RESP | ISIM_PKT_M_NAK },
	[ISIM_OP_UD_SEND_ONLY] = { "UD_SEND_ONLY",
				   ISIM_PKT_M_UD | ISIM_PKT_M_REQ | SEND |
					   ISIM_PKT_M_ONLY },
	[ISIM_OP_UD_SEND_ONLY_IMM] = { "UD_SEND_ONLY_IMM",
				       ISIM_PKT_M_UD | ISIM_PKT_M_REQ | SEND |
					       ISIM_PKT_M_ONLY |
					       ISIM_PKT_M_IMM },
};

bool isim_pkt_valid(const struct isim_pkt *pkt)
{
	const struct isim_pkt_hdr *h;
	uint32_t paylen;

	if (pkt->len < ISIM_PKT_HDR_SIZE)
		return false;
	h = isim_pkt_hdr(pkt);
	if (isim_pkt_magic(pkt) != ISIM_PKT_MAGIC ||
	    h->version != ISIM_PKT_VERSION)
		return false;
	if (!isim_pkt_opinfo[h->opcode].name)
		return false;
	paylen = isim_pkt_paylen(pkt);
	if (paylen > ISIM_PKT_MAX_PAYLOAD ||
	    paylen != pkt->len - ISIM_PKT_HDR_SIZE)
		return false;
	/* Only opcodes that carry data may have a payload. */
	if (paylen && !(isim_pkt_opmask(h->opcode) & ISIM_PKT_M_PAYLOAD))
		return false;
	return true;
}
