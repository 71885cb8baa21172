// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Golden-byte WQE tests: RDMA WRITE / WRITE_IMM / READ, both atomics (v1
 * and v2 bodies), LOCAL_INV, SEND_WITH_INV and BIND_MW (type 1 and 2),
 * prepared by providers/ionic/wqe.c on real QPs in host memory
 * (tests/support/provider_fixture.h), are compared with the hand-written WQEs of
 * tests/golden/wqe_golden_bytes.h, which the emulator's decoder is
 * checked against too (sim/tests/test_dev_wqe_golden.c).  SEND and RECV
 * layouts: wqe_layout.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "provider_fixture.h"
#include "golden/wqe_golden_bytes.h"

/* Produce the next WQE at 'slot' with SQ colour 'color' (empty ring). */
static void at_slot(struct ionic_qp *qp, uint16_t slot, bool color)
{
	qp->sq.q.prod = qp->sq.q.cons = slot;
	qp->sq.msn_prod = qp->sq.msn_cons = slot;
	qp->sq.color = color;
}

/* A 64-byte-slot RC QP, like any QP created with max_send_sge <= 2. */
static struct ionic_qp *make_rc64(uint8_t version)
{
	struct ionic_qp *qp = unit_lone_qp(false, version, 16, 2, 0);

	CHECK(qp->sq.q.stride_log2 == 6);
	return qp;
}

static void check_golden(const char *what, uint8_t version, struct ionic_qp *qp,
			 uint16_t slot, const uint8_t *v1, const uint8_t *v2)
{
	char name[64];

	snprintf(name, sizeof(name), "%s v%u", what, version);
	unit_check_bytes(name, ionic_queue_at(&qp->sq.q, slot),
			 version >= 2 ? v2 : v1, GW_SIZE);
	CHECK(qp->sq.q.prod == slot + 1);
}

static void test_golden_rdma_write(uint8_t version)
{
	struct ionic_qp *qp = make_rc64(version);
	struct ibv_sge sge[2] = {
		{ GW_WRITE_SGE0_VA, GW_WRITE_SGE0_LEN, GW_WRITE_SGE0_LKEY },
		{ GW_WRITE_SGE1_VA, GW_WRITE_SGE1_LEN, GW_WRITE_SGE1_LKEY },
	};
	struct ibv_send_wr wr = {
		.wr_id = 31,
		.sg_list = sge,
		.num_sge = 2,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE,
		.wr.rdma = { .remote_addr = GW_WRITE_RVA,
			     .rkey = GW_WRITE_RKEY },
	};

	at_slot(qp, GW_WRITE_SLOT, true);
	CHECK(ionic_prep_send(qp, &wr) == 0);
	check_golden("RDMA_WRITE", version, qp, GW_WRITE_SLOT, gw_write_v1,
		     gw_write_v2);
	CHECK(qp->sq.meta[GW_WRITE_SLOT].ibop == IBV_WC_RDMA_WRITE);
	CHECK(qp->sq.meta[GW_WRITE_SLOT].len == GW_WRITE_LEN);
	CHECK(qp->sq.meta[GW_WRITE_SLOT].remote);
	CHECK(qp->sq.meta[GW_WRITE_SLOT].signal);
	/* SOLICITED is refused for RDMA WRITE (docs/device-contract.md §16.4)
	 * */
	wr.send_flags = IBV_SEND_SOLICITED;
	CHECK(ionic_prep_send(qp, &wr) == EINVAL);
	unit_lone_qp_destroy(qp);
}

static void test_golden_rdma_write_imm(uint8_t version)
{
	struct ionic_qp *qp = make_rc64(version);
	static const char d0[] = GW_WRIMM_DATA0, d1[] = GW_WRIMM_DATA1;
	struct ibv_sge sge[2] = {
		{ (uintptr_t)d0, sizeof(d0) - 1, 0x999 },
		{ (uintptr_t)d1, sizeof(d1) - 1, 0x998 },
	};
	struct ibv_send_wr wr = {
		.wr_id = 32,
		.sg_list = sge,
		.num_sge = 2,
		.opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
		.send_flags = IBV_SEND_INLINE | IBV_SEND_SOLICITED,
		.imm_data = htobe32(GW_WRIMM_IMM),
		.wr.rdma = { .remote_addr = GW_WRIMM_RVA,
			     .rkey = GW_WRIMM_RKEY },
	};

	CHECK(sizeof(d0) - 1 + sizeof(d1) - 1 == GW_WRIMM_LEN);
	at_slot(qp, GW_WRIMM_SLOT, false);
	CHECK(ionic_prep_send(qp, &wr) == 0);
	check_golden("RDMA_WRITE_IMM", version, qp, GW_WRIMM_SLOT, gw_wrimm_v1,
		     gw_wrimm_v2);
	CHECK(qp->sq.meta[GW_WRIMM_SLOT].ibop == IBV_WC_RDMA_WRITE);
	CHECK(!qp->sq.meta[GW_WRIMM_SLOT].signal);
	unit_lone_qp_destroy(qp);
}

static void test_golden_rdma_read(uint8_t version)
{
	struct ionic_qp *qp = make_rc64(version);
	struct ibv_sge sge = { GW_READ_SGE_VA, GW_READ_SGE_LEN,
			       GW_READ_SGE_LKEY };
	struct ibv_send_wr wr = {
		.wr_id = 33,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_READ,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = GW_READ_RVA, .rkey = GW_READ_RKEY },
	};

	at_slot(qp, GW_READ_SLOT, true);
	CHECK(ionic_prep_send(qp, &wr) == 0);
	check_golden("RDMA_READ", version, qp, GW_READ_SLOT, gw_read_v1,
		     gw_read_v2);
	CHECK(qp->sq.meta[GW_READ_SLOT].ibop == IBV_WC_RDMA_READ);
	CHECK(qp->sq.meta[GW_READ_SLOT].remote);
	/* READ refuses INLINE and SOLICITED (docs/device-contract.md §16.4) */
	wr.send_flags = IBV_SEND_INLINE;
	CHECK(ionic_prep_send(qp, &wr) == EINVAL);
	wr.send_flags = IBV_SEND_SOLICITED;
	CHECK(ionic_prep_send(qp, &wr) == EINVAL);
	unit_lone_qp_destroy(qp);
}

static void test_golden_atomic_cs(uint8_t version)
{
	struct ionic_qp *qp = make_rc64(version);
	struct ibv_sge sge = { GW_CS_LOCAL_VA, 8, GW_CS_LKEY };
	struct ibv_send_wr wr = {
		.wr_id = 34,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_ATOMIC_CMP_AND_SWP,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.atomic = { .remote_addr = GW_CS_RVA,
			       .compare_add = GW_CS_COMPARE,
			       .swap = GW_CS_SWAP,
			       .rkey = GW_CS_RKEY },
	};

	at_slot(qp, GW_CS_SLOT, true);
	CHECK(ionic_prep_send(qp, &wr) == 0);
	check_golden("ATOMIC_CS", version, qp, GW_CS_SLOT, gw_cs_v1, gw_cs_v2);
	CHECK(qp->sq.meta[GW_CS_SLOT].ibop == IBV_WC_COMP_SWAP);
	CHECK(qp->sq.meta[GW_CS_SLOT].remote);
	/* exactly one 8-byte SGE */
	sge.length = 4;
	CHECK(ionic_prep_send(qp, &wr) == EINVAL);
	unit_lone_qp_destroy(qp);
}

static void test_golden_atomic_fa(uint8_t version)
{
	struct ionic_qp *qp = make_rc64(version);
	struct ibv_sge sge = { GW_FA_LOCAL_VA, 8, GW_FA_LKEY };
	struct ibv_send_wr wr = {
		.wr_id = 35,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
		.send_flags = IBV_SEND_FENCE,
		.wr.atomic = { .remote_addr = GW_FA_RVA,
			       .compare_add = GW_FA_ADD,
			       .swap = GW_FA_JUNK_SWAP,
			       .rkey = GW_FA_RKEY },
	};

	at_slot(qp, GW_FA_SLOT, true);
	CHECK(ionic_prep_send(qp, &wr) == 0);
	check_golden("ATOMIC_FA", version, qp, GW_FA_SLOT, gw_fa_v1, gw_fa_v2);
	CHECK(qp->sq.meta[GW_FA_SLOT].ibop == IBV_WC_FETCH_ADD);
	CHECK(!qp->sq.meta[GW_FA_SLOT].signal);
	unit_lone_qp_destroy(qp);
}

static void test_golden_local_inv(uint8_t version)
{
	struct ionic_qp *qp = make_rc64(version);
	struct ibv_send_wr wr = {
		.wr_id = 36,
		.opcode = IBV_WR_LOCAL_INV,
		.send_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE,
		.invalidate_rkey = GW_LINV_RKEY,
	};

	at_slot(qp, GW_LINV_SLOT, true);
	CHECK(ionic_prep_send(qp, &wr) == 0);
	check_golden("LOCAL_INV", version, qp, GW_LINV_SLOT, gw_linv_v1,
		     gw_linv_v2);
	CHECK(qp->sq.meta[GW_LINV_SLOT].ibop == IBV_WC_LOCAL_INV);
	/* local: completed by its own NPG CQE, no MSN taken
	 * (docs/device-contract.md §16.4) */
	CHECK(!qp->sq.meta[GW_LINV_SLOT].remote);
	CHECK(qp->sq.msn_prod == GW_LINV_SLOT);
	unit_lone_qp_destroy(qp);
}

static void test_golden_send_inv(uint8_t version)
{
	struct ionic_qp *qp = make_rc64(version);
	struct ibv_sge sge = { GW_SINV_SGE_VA, GW_SINV_SGE_LEN,
			       GW_SINV_SGE_LKEY };
	struct ibv_send_wr wr = {
		.wr_id = 37,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND_WITH_INV,
		.send_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED,
		.invalidate_rkey = GW_SINV_RKEY,
	};

	at_slot(qp, GW_SINV_SLOT, true);
	CHECK(ionic_prep_send(qp, &wr) == 0);
	check_golden("SEND_INV", version, qp, GW_SINV_SLOT, gw_sinv_v1,
		     gw_sinv_v2);
	CHECK(qp->sq.meta[GW_SINV_SLOT].ibop == IBV_WC_SEND);
	CHECK(qp->sq.meta[GW_SINV_SLOT].remote);
	unit_lone_qp_destroy(qp);
}

static void test_golden_bind(uint8_t version)
{
	struct ionic_qp *qp = make_rc64(version);
	struct ibv_mr mr1 = { .lkey = GW_BIND1_MR_LKEY };
	struct ibv_mr mr2 = { .lkey = GW_BIND2_MR_LKEY };
	struct ibv_mw mw1 = { .rkey = GW_BIND1_RKEY, .type = IBV_MW_TYPE_1 };
	struct ibv_mw mw2 = { .rkey = GW_BIND2_RKEY, .type = IBV_MW_TYPE_2 };
	struct ibv_send_wr wr = {
		.wr_id = 38, .opcode = IBV_WR_BIND_MW,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_mw = {
			.mw = &mw1, .rkey = GW_BIND1_NEW_RKEY,
			.bind_info = {
				.mr = &mr1, .addr = GW_BIND1_VA,
				.length = GW_BIND1_LEN,
				.mw_access_flags = IBV_ACCESS_LOCAL_WRITE |
						   IBV_ACCESS_REMOTE_WRITE |
						   IBV_ACCESS_REMOTE_READ,
			},
		},
	};

	/* type 1: only through ibv_bind_mw (send_path false) */
	at_slot(qp, GW_BIND1_SLOT, true);
	CHECK(ionic_prep_send(qp, &wr) == EINVAL);
	CHECK(ionic_prep_send_path(qp, &wr, false) == 0);
	check_golden("BIND_MW type 1", version, qp, GW_BIND1_SLOT, gw_bind1_v1,
		     gw_bind1_v2);
	CHECK(qp->sq.meta[GW_BIND1_SLOT].ibop == IBV_WC_BIND_MW);
	CHECK(!qp->sq.meta[GW_BIND1_SLOT].remote);

	/* type 2: only through post_send / ibv_wr_bind_mw */
	wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE;
	wr.bind_mw.mw = &mw2;
	wr.bind_mw.rkey = GW_BIND2_NEW_RKEY;
	wr.bind_mw.bind_info.mr = &mr2;
	wr.bind_mw.bind_info.addr = GW_BIND2_VA;
	wr.bind_mw.bind_info.length = GW_BIND2_LEN;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_ATOMIC |
					       IBV_ACCESS_MW_BIND |
					       IBV_ACCESS_ZERO_BASED;
	at_slot(qp, GW_BIND2_SLOT, false);
	CHECK(ionic_prep_send_path(qp, &wr, false) == EINVAL);
	CHECK(ionic_prep_send(qp, &wr) == 0);
	check_golden("BIND_MW type 2", version, qp, GW_BIND2_SLOT, gw_bind2_v1,
		     gw_bind2_v2);
	unit_lone_qp_destroy(qp);
}

int main(void)
{
	for (uint8_t v = 1; v <= 2; v++) {
		test_golden_rdma_write(v);
		test_golden_rdma_write_imm(v);
		test_golden_rdma_read(v);
		test_golden_atomic_cs(v);
		test_golden_atomic_fa(v);
		test_golden_local_inv(v);
		test_golden_send_inv(v);
		test_golden_bind(v);
	}
	return check_finish();
}
