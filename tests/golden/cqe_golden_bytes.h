/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Golden CQEs, written out by hand from the device reference
 * (docs/device-contract.md §5.1-§5.6, §12.2), shared by:
 *
 *   sim/tests/test_dev_cqe.c     the emulator's CQE writer (sim/dev/cqe.c)
 *                                must WRITE exactly these bytes;
 *   tests/datapath/poll_unit.c   the provider's poll path must DECODE
 *                                them into the expected work completions.
 *
 * No struct or macro of common/ionic_hw.h is used: every byte is spelled
 * out.  All belong to QP 0x45 and carry colour 1 (first pass, §6.1).
 * Conventions (§0.3, §5): the index fields are LE64 with the 16-bit
 * wqe_idx in bits 0..15 and the 48-bit timestamp in bits 16..63; all
 * other fields are BE.  qid_type_flags @28 = qid << 8 | type << 5 |
 * error << 1 | colour (types: 1 RECV, 2 SEND_MSN, 3 SEND_NPG).
 *
 * Every CQE carries the same completion timestamp GC_TS (the emulator
 * test's clock stub returns it); a device may also leave it 0 (§5.7), the
 * provider ignores it unless a timestamp is requested.
 */
#ifndef IONIC_CQE_GOLDEN_BYTES_H
#define IONIC_CQE_GOLDEN_BYTES_H
/* clang-format off */

#include <stdint.h>

#define GC_SIZE 32
#define GC_QPN 0x45u
#define GC_TS 0xfedcba987654ull        /* 48-bit timestamp */

/* RECV, success, on a UD QP: RQ slot 2, SEND_WITH_IMM from QP 0xabc over
 * IPv4 (bit 31 of src_qpn_op), 4136 bytes, imm 0x11223344, VLAN TCI
 * 0xa123 (PCP 5, VID 0x123), source MAC 02:1d:d8:00:00:01
 * (docs/device-contract.md §5.2, §5.4).  The provider reports the network
 * header type in wc.sl (2 = IPv4), not the PCP (§7.1). */
#define GC_RECV_SLOT 2
#define GC_RECV_SRC_QPN 0xabcu
#define GC_RECV_OP 2                   /* docs/device-contract.md §5.4: SEND_IMM */
#define GC_RECV_IMM 0x11223344u        /* host value; BE on the wire */
#define GC_RECV_LEN 4136u
#define GC_RECV_VLAN 0xa123u
#define GC_RECV_SL 2                   /* IPv4; PCP 5 is not reported */
static const uint8_t gc_recv_mac[6] = { 0x02, 0x1d, 0xd8, 0x00, 0x00, 0x01 };
static const uint8_t gc_recv[GC_SIZE] = {
	/*  0 wqe_idx_timestamp LE64 = GC_TS << 16 | 2 */
	0x02, 0x00, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe,
	/*  8 src_qpn_op BE32 = IPv4 1 << 31 | op 2 << 24 | 0x000abc */
	0x82, 0x00, 0x0a, 0xbc,
	/* 12 src_mac */
	0x02, 0x1d, 0xd8, 0x00, 0x00, 0x01,
	/* 18 vlan_tag BE16 */
	0xa1, 0x23,
	/* 20 imm_data_rkey BE32 */
	0x11, 0x22, 0x33, 0x44,
	/* 24 status_length BE32 = byte count 4136 */
	0x00, 0x00, 0x10, 0x28,
	/* 28 qid_type_flags BE32 = 0x00004521: QP 0x45, RECV, colour */
	0x00, 0x00, 0x45, 0x21,
};

/* SEND_NPG, success: SQ slot 5 (docs/device-contract.md §5.3). */
#define GC_NPG_SLOT 5
static const uint8_t gc_npg[GC_SIZE] = {
	/*  0 reserved, 4 msg_msn (unused for NPG) */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/*  8 reserved */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* 16 npg_wqe_idx_timestamp LE64 = GC_TS << 16 | 5 */
	0x05, 0x00, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe,
	/* 24 status_length 0, 28 qtf 0x00004561: SEND_NPG, colour */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x45, 0x61,
};

/* SQ flush indicator: SEND_NPG + error, status 4 WQE_FLUSHED, naming no
 * WQE (docs/device-contract.md §12.2). */
static const uint8_t gc_sq_flush[GC_SIZE] = {
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* 16 LE64: index 0, timestamp */
	0x00, 0x00, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe,
	/* 24 status 4, 28 qtf 0x00004563: SEND_NPG, error, colour */
	0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x45, 0x63,
};

/* RQ flush indicator: RECV + error, status 4 (docs/device-contract.md §12.2).
 * */
static const uint8_t gc_rq_flush[GC_SIZE] = {
	/*  0 LE64: index 0, timestamp */
	0x00, 0x00, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe,
	/*  8 src_qpn_op, 12 src_mac, 18 vlan, 20 imm: zero */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* 24 status 4, 28 qtf 0x00004523: RECV, error, colour */
	0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x45, 0x23,
};

/* RECV error on an RC QP: RQ slot 3, status 1 LOCAL_LEN
 * (docs/device-contract.md §5.6, §12.1). */
#define GC_RECV_ERR_SLOT 3
#define GC_RECV_ERR_STATUS 1
static const uint8_t gc_recv_err[GC_SIZE] = {
	/*  0 LE64: index 3, timestamp */
	0x03, 0x00, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* 24 status 1, 28 qtf 0x00004523: RECV, error, colour */
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x45, 0x23,
};

/* SEND_MSN, success: every RC WQE with MSN < 3 is complete
 * (docs/device-contract.md §5.3, §7.2). */
#define GC_MSN 3
static const uint8_t gc_msn[GC_SIZE] = {
	/*  0 reserved, 4 msg_msn BE32 = 3 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,
	/*  8 reserved */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* 16 LE64: index bits 0, timestamp */
	0x00, 0x00, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe,
	/* 24 status_length 0, 28 qtf 0x00004541: SEND_MSN, colour */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x45, 0x41,
};

/* SEND_MSN error: MSN 4, status 9 REMOTE_ACC: the WQE with MSN 3 failed
 * (docs/device-contract.md §5.6, §7.2, §12.1). */
#define GC_MSN_ERR 4
#define GC_MSN_ERR_STATUS 9
static const uint8_t gc_msn_err[GC_SIZE] = {
	/*  0 reserved, 4 msg_msn BE32 = 4 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* 16 LE64: index bits 0, timestamp */
	0x00, 0x00, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe,
	/* 24 status 9, 28 qtf 0x00004543: SEND_MSN, error, colour */
	0x00, 0x00, 0x00, 0x09, 0x00, 0x00, 0x45, 0x43,
};

/* clang-format on */
#endif /* IONIC_CQE_GOLDEN_BYTES_H */
