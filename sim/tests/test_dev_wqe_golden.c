// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: the WQE decoder (sim/dev/wqe.c) against the WQEs
 * written by hand from docs/device-contract.md §3 in
 * tests/golden/wqe_golden_bytes.h.  The provider test
 * tests/datapath/wqe_golden.c builds the very same bytes, so each side is
 * checked against the spec rather than against the other.
 *
 * For every golden WQE, under the firmware version its opcode byte belongs
 * to: the operation, index, flags, lengths, remote address and rkey, SGEs,
 * inline payload, immediate, atomic operands and result buffer, bind
 * fields and keys.  The same bytes under the other version's opcode table
 * must not decode as the same operation.
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev/wqe.h"
#include "golden/wqe_golden_bytes.h"
#include "check.h"

static uint8_t snap[GW_SIZE] __attribute__((aligned(64)));
static struct idev_wqe w;

/* Decode a golden WQE as an RC send WQE of firmware 'version'. */
static void decode(const char *name, const uint8_t *bytes, uint16_t version)
{
	static char label[64];

	snprintf(label, sizeof(label), "%s v%u", name, version);
	SECTION(label); /* names the failures of this WQE */
	memcpy(snap, bytes, GW_SIZE);
	CHECK_EQ(idev_wqe_decode_sq(&w, snap, GW_SIZE, version, IBV_QPT_RC),
		 IONIC_STS_OK);
	if (!w.op) {
		check_fail(__FILE__, __LINE__, "%s: opcode 0x%x unknown", label,
			   bytes[8]);
		memset(&w, 0, sizeof(w));
		return;
	}
	CHECK_EQ(w.opcode, bytes[8]);
	/* the other version's table must not read it as the same thing */
	CHECK_EQ(idev_wqe_op_lookup(version < 2 ? 2 : 1, bytes[8]) == w.op, 0);
}

static void check_sge(unsigned int i, uint64_t va, uint32_t len, uint32_t lkey)
{
	struct idev_sge sge;

	idev_wqe_sge(&w, i, &sge);
	CHECK_EQ(sge.va, va);
	CHECK_EQ(sge.len, len);
	CHECK_EQ(sge.lkey, lkey);
}

static void test_rdma_write(const uint8_t *bytes, uint16_t version)
{
	decode("RDMA_WRITE", bytes, version);
	CHECK_EQ(w.op ? w.op->op : 99, IDEV_WR_RDMA_WRITE);
	CHECK_EQ(w.opcode, version < 2 ? GW_WRITE_V1_OP : GW_WRITE_V2_OP);
	CHECK_EQ(w.wqe_idx, GW_WRITE_SLOT);
	CHECK_EQ(w.flags, GW_WRITE_FLAGS);
	CHECK_EQ(w.num_sge, 2);
	CHECK_EQ(w.spec, 0);
	CHECK_EQ(w.inl, 0);
	CHECK_EQ(w.length, GW_WRITE_LEN);
	CHECK_EQ(w.remote_va, GW_WRITE_RVA);
	CHECK_EQ(w.rkey, GW_WRITE_RKEY);
	CHECK_EQ(be32toh(w.imm_raw), 0);
	check_sge(0, GW_WRITE_SGE0_VA, GW_WRITE_SGE0_LEN, GW_WRITE_SGE0_LKEY);
	check_sge(1, GW_WRITE_SGE1_VA, GW_WRITE_SGE1_LEN, GW_WRITE_SGE1_LKEY);
}

static void test_rdma_write_imm(const uint8_t *bytes, uint16_t version)
{
	static const char data[] = GW_WRIMM_DATA0 GW_WRIMM_DATA1;

	decode("RDMA_WRITE_IMM", bytes, version);
	CHECK_EQ(w.op ? w.op->op : 99, IDEV_WR_RDMA_WRITE_IMM);
	CHECK_EQ(w.opcode, version < 2 ? GW_WRIMM_V1_OP : GW_WRIMM_V2_OP);
	CHECK_EQ(w.wqe_idx, GW_WRIMM_SLOT);
	CHECK_EQ(w.flags, GW_WRIMM_FLAGS);
	CHECK_EQ(w.inl, 1);
	CHECK_EQ(w.num_sge, 0);
	CHECK_EQ(w.length, GW_WRIMM_LEN);
	CHECK_EQ(w.remote_va, GW_WRIMM_RVA);
	CHECK_EQ(w.rkey, GW_WRIMM_RKEY);
	/* imm_raw holds the posted bytes: network order */
	CHECK_EQ(be32toh(w.imm_raw), GW_WRIMM_IMM);
	CHECK_EQ(memcmp(idev_wqe_inline(&w), data, GW_WRIMM_LEN), 0);
}

static void test_rdma_read(const uint8_t *bytes, uint16_t version)
{
	decode("RDMA_READ", bytes, version);
	CHECK_EQ(w.op ? w.op->op : 99, IDEV_WR_RDMA_READ);
	CHECK_EQ(w.opcode, version < 2 ? GW_READ_V1_OP : GW_READ_V2_OP);
	CHECK_EQ(w.wqe_idx, GW_READ_SLOT);
	CHECK_EQ(w.flags, GW_READ_FLAGS);
	CHECK_EQ(w.num_sge, 1);
	CHECK_EQ(w.length, GW_READ_SGE_LEN);
	CHECK_EQ(w.remote_va, GW_READ_RVA);
	CHECK_EQ(w.rkey, GW_READ_RKEY);
	check_sge(0, GW_READ_SGE_VA, GW_READ_SGE_LEN, GW_READ_SGE_LKEY);
}

static void test_atomic(const char *name, const uint8_t *bytes,
			uint16_t version, enum idev_wr_op op, uint8_t opcode,
			uint16_t slot, uint16_t flags, uint64_t rva,
			uint32_t rkey, uint64_t swap_add, uint64_t compare,
			uint64_t local_va, uint32_t lkey)
{
	decode(name, bytes, version);
	CHECK_EQ(w.op ? w.op->op : 99, op);
	CHECK_EQ(w.opcode, opcode);
	CHECK_EQ(w.wqe_idx, slot);
	CHECK_EQ(w.flags, flags);
	CHECK_EQ(w.remote_va, rva);
	CHECK_EQ(w.rkey, rkey);
	CHECK_EQ(w.swap_add, swap_add);
	CHECK_EQ(w.compare, compare);
	CHECK_EQ(w.result.va, local_va);
	CHECK_EQ(w.result.len, 8);
	CHECK_EQ(w.result.lkey, lkey);
	CHECK_EQ(w.length, 8);
}

static void test_local_inv(const uint8_t *bytes, uint16_t version)
{
	decode("LOCAL_INV", bytes, version);
	CHECK_EQ(w.op ? w.op->op : 99, IDEV_WR_LOCAL_INV);
	CHECK_EQ(w.opcode, version < 2 ? GW_LINV_V1_OP : GW_LINV_V2_OP);
	CHECK_EQ(w.wqe_idx, GW_LINV_SLOT);
	CHECK_EQ(w.flags, GW_LINV_FLAGS);
	CHECK_EQ(w.key, GW_LINV_RKEY);
	CHECK_EQ(w.num_sge, 0);
	CHECK_EQ(w.length, 0);
	/* a local operation: no MSN (docs/device-contract.md §7.2) */
	CHECK_EQ(w.op ? w.op->flags & IDEV_WRF_REMOTE : 1, 0);
}

static void test_send_inv(const uint8_t *bytes, uint16_t version)
{
	decode("SEND_INV", bytes, version);
	CHECK_EQ(w.op ? w.op->op : 99, IDEV_WR_SEND_INV);
	CHECK_EQ(w.opcode, version < 2 ? GW_SINV_V1_OP : GW_SINV_V2_OP);
	CHECK_EQ(w.wqe_idx, GW_SINV_SLOT);
	CHECK_EQ(w.flags, GW_SINV_FLAGS);
	CHECK_EQ(w.key, GW_SINV_RKEY);
	CHECK_EQ(w.num_sge, 1);
	CHECK_EQ(w.length, GW_SINV_SGE_LEN);
	CHECK_EQ(w.ah_id, 0);
	CHECK_EQ(w.dest_qpn, 0);
	CHECK_EQ(w.dest_qkey, 0);
	check_sge(0, GW_SINV_SGE_VA, GW_SINV_SGE_LEN, GW_SINV_SGE_LKEY);
	CHECK_EQ(w.op ? !(w.op->flags & IDEV_WRF_REMOTE) : 1, 0);
}

static void test_bind(const char *name, const uint8_t *bytes, uint16_t version,
		      uint16_t slot, uint16_t flags, uint32_t rkey,
		      uint32_t new_rkey, uint64_t va, uint64_t len,
		      uint32_t lkey, uint16_t mrf)
{
	decode(name, bytes, version);
	CHECK_EQ(w.op ? w.op->op : 99, IDEV_WR_BIND_MW);
	CHECK_EQ(w.opcode, version < 2 ? GW_BIND_V1_OP : GW_BIND_V2_OP);
	CHECK_EQ(w.wqe_idx, slot);
	CHECK_EQ(w.flags, flags);
	CHECK_EQ(w.key, rkey);
	CHECK_EQ(w.new_key8, new_rkey & 0xff);
	CHECK_EQ(w.bind_va, va);
	CHECK_EQ(w.bind_len, len);
	CHECK_EQ(w.bind_lkey, lkey);
	CHECK_EQ(w.bind_flags, mrf);
	CHECK_EQ(w.op ? w.op->flags & IDEV_WRF_REMOTE : 1, 0);
}

int main(void)
{
	uint16_t v;

	for (v = 1; v <= 2; v++) {
		test_rdma_write(v < 2 ? gw_write_v1 : gw_write_v2, v);
		test_rdma_write_imm(v < 2 ? gw_wrimm_v1 : gw_wrimm_v2, v);
		test_rdma_read(v < 2 ? gw_read_v1 : gw_read_v2, v);
		test_atomic("ATOMIC_CS", v < 2 ? gw_cs_v1 : gw_cs_v2, v,
			    IDEV_WR_ATOMIC_CS,
			    v < 2 ? GW_CS_V1_OP : GW_CS_V2_OP, GW_CS_SLOT,
			    GW_CS_FLAGS, GW_CS_RVA, GW_CS_RKEY, GW_CS_SWAP,
			    GW_CS_COMPARE, GW_CS_LOCAL_VA, GW_CS_LKEY);
		test_atomic("ATOMIC_FA", v < 2 ? gw_fa_v1 : gw_fa_v2, v,
			    IDEV_WR_ATOMIC_FA,
			    v < 2 ? GW_FA_V1_OP : GW_FA_V2_OP, GW_FA_SLOT,
			    GW_FA_FLAGS, GW_FA_RVA, GW_FA_RKEY, GW_FA_ADD, 0,
			    GW_FA_LOCAL_VA, GW_FA_LKEY);
		test_local_inv(v < 2 ? gw_linv_v1 : gw_linv_v2, v);
		test_send_inv(v < 2 ? gw_sinv_v1 : gw_sinv_v2, v);
		test_bind("BIND_MW type 1", v < 2 ? gw_bind1_v1 : gw_bind1_v2,
			  v, GW_BIND1_SLOT, GW_BIND1_FLAGS, GW_BIND1_RKEY,
			  GW_BIND1_NEW_RKEY, GW_BIND1_VA, GW_BIND1_LEN,
			  GW_BIND1_MR_LKEY, GW_BIND1_MRF);
		test_bind("BIND_MW type 2", v < 2 ? gw_bind2_v1 : gw_bind2_v2,
			  v, GW_BIND2_SLOT, GW_BIND2_FLAGS, GW_BIND2_RKEY,
			  GW_BIND2_NEW_RKEY, GW_BIND2_VA, GW_BIND2_LEN,
			  GW_BIND2_MR_LKEY, GW_BIND2_MRF);
	}

	return check_finish();
}
