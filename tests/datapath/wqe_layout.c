// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * WQE layout tests: the provider's preparers (providers/ionic/wqe.c)
 * build SEND, SEND_WITH_IMM, UD SEND and receive WQEs on real QPs in host
 * memory (tests/support/provider_fixture.h), and every byte is compared with a WQE
 * written by hand from the device reference (docs/device-contract.md §3, §4),
 * for firmware opcode versions 1 and 2.  Also checks slot metadata, COLOR
 * flipping, MSN accounting, and the EINVAL cases of §16.4 without
 * posting anything.  The WQEs shared with the emulator: wqe_golden.c.
 */
#include <errno.h>
#include <string.h>

#include "provider_fixture.h"
#include "wqe.h"

/* RC SEND, one SGE, signalled, slot 0: v1 op 0, v2 op 0x20. */
static void test_rc_send(uint8_t version)
{
	struct ionic_qp *qp = unit_lone_qp(false, version, 1, 1, 0);
	struct ibv_sge sge = { .addr = 0x1122334455667788ull,
			       .length = 0x100,
			       .lkey = 0xabcd };
	struct ibv_send_wr wr = { .wr_id = 77,
				  .sg_list = &sge,
				  .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };
	/* clang-format off */
	uint8_t want[64] = {
		/* 0: wqe_idx LE64 = slot 0 */
		0, 0, 0, 0, 0, 0, 0, 0,
		/* 8: op, num_sge 1, flags BE16 COLOR|SIG, imm 0 */
		version >= 2 ? 0x20 : 0x00, 1, 0x00, 0x18, 0, 0, 0, 0,
		/* 16: RC send: no UD addressing */
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		/* 28: length BE32 */
		0x00, 0x00, 0x01, 0x00,
		/* 32: sgl[0]: va BE64, len BE32, lkey BE32 */
		0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
		0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0xab, 0xcd,
		/* 48: sgl[1] unused */
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	};
	/* clang-format on */

	CHECK(qp->sq.q.stride_log2 == 6);
	CHECK(ionic_prep_send(qp, &wr) == 0);
	unit_check_bytes(version >= 2 ? "RC SEND v2" : "RC SEND v1",
			 qp->sq.q.ptr, want, sizeof(want));

	CHECK(qp->sq.q.prod == 1);
	CHECK(qp->sq.meta[0].wr_id == 77);
	CHECK(qp->sq.meta[0].len == 0x100);
	CHECK(qp->sq.meta[0].ibop == IBV_WC_SEND);
	CHECK(qp->sq.meta[0].signal);
	CHECK(qp->sq.meta[0].remote);
	CHECK(qp->sq.meta[0].seq == 0);
	CHECK(qp->sq.msn_prod == 1);
	CHECK(qp->sq.msn_idx[0] == 0);
	unit_lone_qp_destroy(qp);
}

/* RC SEND_WITH_IMM, unsignalled, two SGEs, at slot 1 (wqe_idx 1). */
static void test_rc_send_imm(uint8_t version)
{
	struct ionic_qp *qp = unit_lone_qp(false, version, 1, 2, 0);
	struct ibv_sge sge[2] = {
		{ .addr = 0x1000, .length = 8, .lkey = 0x01020304 },
		{ .addr = 0xfedcba9876543210ull,
		  .length = 0x10000,
		  .lkey = 0x0a0b0c0d },
	};
	struct ibv_send_wr wr0 = { .wr_id = 1, .opcode = IBV_WR_SEND };
	struct ibv_send_wr wr = { .wr_id = 2,
				  .sg_list = sge,
				  .num_sge = 2,
				  .opcode = IBV_WR_SEND_WITH_IMM,
				  .imm_data = htobe32(1234) };
	/* clang-format off */
	uint8_t want[64] = {
		1, 0, 0, 0, 0, 0, 0, 0,
		/* op, 2 SGEs, flags COLOR only, imm BE 1234 = 0x04d2 */
		version >= 2 ? 0x60 : 0x02, 2, 0x00, 0x10, 0x00, 0x00, 0x04, 0xd2,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		/* length 0x10008 */
		0x00, 0x01, 0x00, 0x08,
		0, 0, 0, 0, 0, 0, 0x10, 0x00,
		0x00, 0x00, 0x00, 0x08, 0x01, 0x02, 0x03, 0x04,
		0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10,
		0x00, 0x01, 0x00, 0x00, 0x0a, 0x0b, 0x0c, 0x0d,
	};
	/* clang-format on */

	/* zero-length SEND first, then the one under test */
	CHECK(ionic_prep_send(qp, &wr0) == 0);
	CHECK(ionic_prep_send(qp, &wr) == 0);
	unit_check_bytes(version >= 2 ? "RC SEND_IMM v2" : "RC SEND_IMM v1",
			 ionic_queue_at(&qp->sq.q, 1), want, sizeof(want));
	CHECK(!qp->sq.meta[1].signal);
	CHECK(qp->sq.meta[1].seq == 1);
	CHECK(qp->sq.msn_prod == 2);
	CHECK(qp->sq.msn_idx[1] == 1);
	unit_lone_qp_destroy(qp);
}

/* UD SEND_WITH_IMM, inline, solicited: AH id, dest QPN and qkey @16. */
static void test_ud_send(uint8_t version)
{
	struct ionic_qp *qp = unit_lone_qp(true, version, 1, 1, 40);
	struct ionic_ah ah = { .ahid = 0x00000042 };
	static const char payload[] = "0123456789abcdefghijklmnopqrstuvwxyz!?";
	struct ibv_sge sge[2] = {
		{ .addr = (uintptr_t)payload, .length = 30, .lkey = 99 },
		{ .addr = (uintptr_t)payload + 30, .length = 8, .lkey = 98 },
	};
	struct ibv_send_wr wr = {
		.wr_id = 5,
		.sg_list = sge,
		.num_sge = 2,
		.opcode = IBV_WR_SEND_WITH_IMM,
		.send_flags = IBV_SEND_INLINE | IBV_SEND_SOLICITED,
		.imm_data = htobe32(0xdeadbeef),
		.wr.ud = { .ah = &ah.ibah,
			   .remote_qpn = 0x000abc,
			   .remote_qkey = 0x11111111 },
	};
	/* clang-format off */
	uint8_t want[128] = {
		0, 0, 0, 0, 0, 0, 0, 0,
		/* op, 0 SGEs (inline), flags COLOR|INL|SOL, imm */
		version >= 2 ? 0x60 : 0x02, 0, 0x00, 0x16, 0xde, 0xad, 0xbe, 0xef,
		/* 16: ah_id, dest_qpn, dest_qkey BE32 */
		0x00, 0x00, 0x00, 0x42, 0x00, 0x00, 0x0a, 0xbc,
		0x11, 0x11, 0x11, 0x11,
		/* 28: length 38 */
		0x00, 0x00, 0x00, 0x26,
	};
	/* clang-format on */

	memcpy(want + 32, payload, 38);
	/* past the 64-byte WQE only the payload is written (wqe.h) */
	memset(want + 32 + 38, UNIT_SQ_JUNK, sizeof(want) - 32 - 38);
	CHECK(qp->sq.q.stride_log2 == 7);
	CHECK(ionic_prep_send(qp, &wr) == 0);
	unit_check_bytes(version >= 2 ? "UD SEND_IMM v2" : "UD SEND_IMM v1",
			 qp->sq.q.ptr, want, sizeof(want));
	/* UD sends complete through NPG CQEs: not MSN-tracked */
	CHECK(!qp->sq.meta[0].remote);
	CHECK(qp->sq.msn_prod == 0);
	CHECK(qp->sq.meta[0].len == 38);
	unit_lone_qp_destroy(qp);
}

/* UD plain SEND with one SGE, signalled through sq_sig_all. */
static void test_ud_send_sgl(void)
{
	struct ionic_qp *qp = unit_lone_qp(true, 2, 1, 1, 0);
	struct ionic_ah ah = { .ahid = 0x01020304 };
	struct ibv_sge sge = { .addr = 0xabc0, .length = 1024, .lkey = 7 };
	struct ibv_send_wr wr = {
		.wr_id = 6,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.wr.ud = { .ah = &ah.ibah,
			   .remote_qpn = 0xffffff,
			   .remote_qkey = 0x80010000 },
	};
	/* clang-format off */
	uint8_t want[64] = {
		0, 0, 0, 0, 0, 0, 0, 0,
		0x20, 1, 0x00, 0x18, 0, 0, 0, 0,
		0x01, 0x02, 0x03, 0x04, 0x00, 0xff, 0xff, 0xff,
		0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
		0, 0, 0, 0, 0, 0, 0xab, 0xc0,
		0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x07,
	};
	/* clang-format on */

	/* as a QP created with sq_sig_all is */
	qp->sig_all = true;
	ionic_sq_init_flags(&qp->sq, true);
	CHECK(ionic_prep_send(qp, &wr) == 0);
	unit_check_bytes("UD SEND v2", qp->sq.q.ptr, want, sizeof(want));
	CHECK(qp->sq.meta[0].signal);
	unit_lone_qp_destroy(qp);
}

/* Speculative SGL: 3 SGEs -> SPEC32 table @32, SGEs from @64. */
static void test_spec_sgl(void)
{
	struct ionic_qp *qp = unit_lone_qp(false, 1, 1, 3, 0);
	struct ibv_sge sge[3] = {
		{ .addr = 0x10, .length = 1, .lkey = 0x21 },
		{ .addr = 0x20, .length = 2, .lkey = 0x22 },
		{ .addr = 0x30, .length = 3, .lkey = 0x23 },
	};
	struct ibv_send_wr wr = { .wr_id = 9,
				  .sg_list = sge,
				  .num_sge = 3,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_FENCE };
	/* clang-format off */
	uint8_t want[128] = {
		0, 0, 0, 0, 0, 0, 0, 0,
		/* flags: SPEC32 (0x1000) | COLOR | FENCE */
		0x00, 3, 0x10, 0x11, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0x00, 0x00, 0x00, 0x06,
		/* 32: spec32 lengths */
		0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		/* 64: SGEs */
		0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 1, 0, 0, 0, 0x21,
		0, 0, 0, 0, 0, 0, 0, 0x20, 0, 0, 0, 2, 0, 0, 0, 0x22,
		0, 0, 0, 0, 0, 0, 0, 0x30, 0, 0, 0, 3, 0, 0, 0, 0x23,
	};
	/* clang-format on */

	/* past the 64-byte WQE only the three SGEs are written (wqe.h) */
	memset(want + 64 + 3 * 16, UNIT_SQ_JUNK, sizeof(want) - 64 - 3 * 16);
	CHECK(qp->sq.spec == 8);
	CHECK(qp->sq.q.stride_log2 == 7);
	CHECK(ionic_prep_send(qp, &wr) == 0);
	unit_check_bytes("spec32 SGL", qp->sq.q.ptr, want, sizeof(want));
	unit_lone_qp_destroy(qp);
}

/* Receive WQE: op 0, num_sge, imm_data_key = total length, slot index. */
static void test_recv(void)
{
	struct ionic_qp *qp = unit_lone_qp(false, 2, 1, 2, 0);
	struct ibv_sge sge[2] = {
		{ .addr = 0x7f0000001000ull, .length = 1064, .lkey = 0x100 },
		{ .addr = 0x2000, .length = 24, .lkey = 0x200 },
	};
	struct ibv_recv_wr wr = { .wr_id = 11, .sg_list = sge, .num_sge = 2 };
	struct ibv_recv_wr wr0 = { .wr_id = 10 };
	/* clang-format off */
	uint8_t want[64] = {
		1, 0, 0, 0, 0, 0, 0, 0,
		0, 2, 0, 0, 0x00, 0x00, 0x04, 0x40,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0x00, 0x00, 0x7f, 0x00, 0x00, 0x00, 0x10, 0x00,
		0x00, 0x00, 0x04, 0x28, 0x00, 0x00, 0x01, 0x00,
		0, 0, 0, 0, 0, 0, 0x20, 0x00,
		0x00, 0x00, 0x00, 0x18, 0x00, 0x00, 0x02, 0x00,
	};
	/* clang-format on */
	uint8_t want0[64] = { 0 };

	CHECK(ionic_prep_recv(qp, &wr0) == 0);
	CHECK(ionic_prep_recv(qp, &wr) == 0);
	unit_check_bytes("RECV empty", ionic_queue_at(&qp->rq.q, 0), want0, 64);
	unit_check_bytes("RECV", ionic_queue_at(&qp->rq.q, 1), want,
			 sizeof(want));
	CHECK(qp->rq.meta[1].posted && qp->rq.meta[1].wr_id == 11);
	CHECK(qp->rq.q.prod == 2);

	/* too many SGEs for the stride: EINVAL, nothing produced */
	wr.num_sge = 3;
	CHECK(ionic_prep_recv(qp, &wr) == EINVAL);
	CHECK(qp->rq.q.prod == 2);

	/* a slot still marked device-owned (FENCE) is refused, positive */
	((struct ionic_wqe *)ionic_queue_at(&qp->rq.q, 2))->base.flags =
		htobe16(IONIC_WQE_FLAG_FENCE);
	wr.num_sge = 1;
	CHECK(ionic_prep_recv(qp, &wr) == EAGAIN);
	unit_lone_qp_destroy(qp);
}

/* COLOR flips when the producer wraps; MSN indexes wrap with the ring. */
static void test_color_wrap(void)
{
	struct ionic_qp *qp = unit_lone_qp(false, 2, 1, 1, 0);
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND };
	unsigned int i, slots = qp->sq.q.mask + 1;
	struct ionic_wqe *w;

	for (i = 0; i < slots + 1; i++) {
		/* pretend everything completed: keep the ring from filling */
		qp->sq.q.cons = qp->sq.q.prod;
		qp->sq.msn_cons = qp->sq.msn_prod;
		wr.wr_id = i;
		CHECK(ionic_prep_send(qp, &wr) == 0);
	}
	w = ionic_queue_at(&qp->sq.q, slots - 1);
	CHECK(w->base.flags & htobe16(IONIC_WQE_FLAG_COLOR));
	w = ionic_queue_at(&qp->sq.q, 0);
	CHECK(!(w->base.flags & htobe16(IONIC_WQE_FLAG_COLOR)));
	CHECK(le64toh(w->base.wqe_idx) == 0);
	CHECK(qp->sq.meta[0].wr_id == slots);
	CHECK(qp->sq.meta[0].seq == 0);
	CHECK(qp->sq.msn_prod == 1);
	unit_lone_qp_destroy(qp);
}

static void test_send_einval(void)
{
	struct ionic_qp *rc = unit_lone_qp(false, 2, 1, 2, 0);
	struct ionic_qp *ud = unit_lone_qp(true, 2, 1, 1, 0);
	struct ibv_sge sge[3] = { { .length = 1 },
				  { .length = 1 },
				  { .length = 1 } };
	struct ibv_sge big[2] = { { .length = 0x80000000u }, { .length = 1 } };
	struct ibv_send_wr wr = { .sg_list = sge,
				  .num_sge = 3,
				  .opcode = IBV_WR_SEND };
	char inl[64] = { 0 };

	/* too many SGEs for the stride */
	CHECK(ionic_prep_send(rc, &wr) == EINVAL);
	/* negative SGE count */
	wr.num_sge = -1;
	CHECK(ionic_prep_send(rc, &wr) == EINVAL);
	/* total above 2 GiB; exactly 2 GiB is fine */
	wr.sg_list = big;
	wr.num_sge = 2;
	CHECK(ionic_prep_send(rc, &wr) == EINVAL);
	wr.num_sge = 1;
	CHECK(ionic_prep_send(rc, &wr) == 0);
	/* inline above the capacity (32 bytes at stride 64) */
	sge[0].addr = (uintptr_t)inl;
	sge[0].length = 33;
	wr.sg_list = sge;
	wr.send_flags = IBV_SEND_INLINE;
	CHECK(ionic_prep_send(rc, &wr) == EINVAL);
	sge[0].length = 32;
	CHECK(ionic_prep_send(rc, &wr) == 0);
	/* opcodes not (yet) supported, or unknown */
	wr.send_flags = 0;
	wr.opcode = IBV_WR_TSO;
	CHECK(ionic_prep_send(rc, &wr) == EINVAL);
	wr.opcode = (enum ibv_wr_opcode)200;
	CHECK(ionic_prep_send(rc, &wr) == EINVAL);
	/* UD without an AH */
	wr.opcode = IBV_WR_SEND;
	CHECK(ionic_prep_send(ud, &wr) == EINVAL);
	CHECK(ud->sq.q.prod == 0);
	CHECK(rc->sq.q.prod == 2);
	unit_lone_qp_destroy(rc);
	unit_lone_qp_destroy(ud);
}

int main(void)
{
	test_rc_send(1);
	test_rc_send(2);
	test_rc_send_imm(1);
	test_rc_send_imm(2);
	test_ud_send(1);
	test_ud_send(2);
	test_ud_send_sgl();
	test_spec_sgl();
	test_recv();
	test_color_wrap();
	test_send_einval();
	return check_finish();
}
