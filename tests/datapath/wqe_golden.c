// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Golden-byte WQE tests: the provider's preparers (providers/ionic/wqe.c)
 * build SEND, SEND_WITH_IMM, UD SEND and receive WQEs into plain memory,
 * and every byte is compared with a WQE written by hand from the device
 * reference (ionic-device.md §3, §4), for firmware opcode versions 1 and 2.
 * Also checks slot metadata, COLOR flipping, MSN accounting, and the
 * EINVAL cases of §16.4 without posting anything.
 *
 * RDMA WRITE / WRITE_IMM / READ, both atomics (v1 and v2 bodies),
 * LOCAL_INV, SEND_WITH_INV and BIND_MW (type 1 and 2) are compared with
 * the hand-written WQEs of tests/golden/wqe_golden_bytes.h, which the
 * emulator's decoder is checked against too (sim/tests/test_dev_wqe_golden.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qp_priv.h"
#include "golden/wqe_golden_bytes.h"

static int failures;

#define CHECK(cond)                                                    \
	do {                                                           \
		if (!(cond)) {                                         \
			fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__, \
				__LINE__, #cond);                      \
			failures++;                                    \
		}                                                      \
	} while (0)

static void check_bytes(const char *what, const void *got, const uint8_t *want,
			size_t len)
{
	const uint8_t *g = got;
	size_t i;

	for (i = 0; i < len; i++) {
		if (g[i] != want[i]) {
			fprintf(stderr,
				"FAIL %s: byte %zu is %02x, want %02x\n", what,
				i, g[i], want[i]);
			failures++;
			return;
		}
	}
}

/* A QP with rings in plain memory, sized like qp.c would size it. */
static struct ionic_qp *make_qp(bool ud, uint8_t version, uint32_t depth,
				uint32_t max_sge, uint32_t max_inline,
				uint8_t ctx_spec)
{
	struct ionic_qp *qp = calloc(1, sizeof(*qp));
	uint32_t sz;

	if (!qp)
		abort();
	qp->is_ud = ud;
	qp->version = version;
	qp->qpid = 0x123;

	qp->sq.spec = ionic_queue_spec(max_sge, ctx_spec);
	sz = ionic_send_min_size(max_sge, max_inline, qp->sq.spec, false);
	if (ionic_queue_geometry(&qp->sq.q, depth, sz, 12))
		abort();
	qp->sq.q.ptr = aligned_alloc(4096, qp->sq.q.size);
	qp->sq.meta = calloc(qp->sq.q.mask + 1, sizeof(*qp->sq.meta));
	qp->sq.msn_idx = calloc(qp->sq.q.mask + 1, sizeof(*qp->sq.msn_idx));
	if (!qp->sq.q.ptr || !qp->sq.meta || !qp->sq.msn_idx)
		abort();
	/* stale bytes must not survive preparation */
	memset(qp->sq.q.ptr, 0xa5, qp->sq.q.size);
	qp->sq.max_sge =
		ionic_send_max_sge(qp->sq.q.stride_log2, qp->sq.spec, false);
	qp->sq.max_inline = ionic_send_max_inline(qp->sq.q.stride_log2, false);
	qp->sq.color = true;

	qp->rq.spec = ionic_queue_spec(max_sge, ctx_spec);
	sz = ionic_recv_min_size(max_sge, qp->rq.spec, false);
	if (ionic_queue_geometry(&qp->rq.q, depth, sz, 12))
		abort();
	qp->rq.q.ptr = aligned_alloc(4096, qp->rq.q.size);
	qp->rq.meta = calloc(qp->rq.q.mask + 1, sizeof(*qp->rq.meta));
	if (!qp->rq.q.ptr || !qp->rq.meta)
		abort();
	memset(qp->rq.q.ptr, 0x5a, qp->rq.q.size);
	/* FENCE clear in every slot: the host owns them all */
	for (sz = 0; sz <= qp->rq.q.mask; sz++) {
		struct ionic_wqe *w = ionic_queue_at(&qp->rq.q, sz);

		w->base.flags = 0;
	}
	qp->rq.max_sge =
		ionic_recv_max_sge(qp->rq.q.stride_log2, qp->rq.spec, false);
	return qp;
}

static void free_qp(struct ionic_qp *qp)
{
	free(qp->sq.q.ptr);
	free(qp->sq.meta);
	free(qp->sq.msn_idx);
	free(qp->rq.q.ptr);
	free(qp->rq.meta);
	free(qp);
}

/* RC SEND, one SGE, signalled, slot 0: v1 op 0, v2 op 0x20. */
static void test_rc_send(uint8_t version)
{
	struct ionic_qp *qp = make_qp(false, version, 1, 1, 0, 8);
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
	check_bytes(version >= 2 ? "RC SEND v2" : "RC SEND v1", qp->sq.q.ptr,
		    want, sizeof(want));

	CHECK(qp->sq.q.prod == 1);
	CHECK(qp->sq.meta[0].wr_id == 77);
	CHECK(qp->sq.meta[0].len == 0x100);
	CHECK(qp->sq.meta[0].ibop == IBV_WC_SEND);
	CHECK(qp->sq.meta[0].signal);
	CHECK(qp->sq.meta[0].remote);
	CHECK(qp->sq.meta[0].seq == 0);
	CHECK(qp->sq.msn_prod == 1);
	CHECK(qp->sq.msn_idx[0] == 0);
	free_qp(qp);
}

/* RC SEND_WITH_IMM, unsignalled, two SGEs, at slot 1 (wqe_idx 1). */
static void test_rc_send_imm(uint8_t version)
{
	struct ionic_qp *qp = make_qp(false, version, 1, 2, 0, 8);
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
	check_bytes(version >= 2 ? "RC SEND_IMM v2" : "RC SEND_IMM v1",
		    ionic_queue_at(&qp->sq.q, 1), want, sizeof(want));
	CHECK(!qp->sq.meta[1].signal);
	CHECK(qp->sq.meta[1].seq == 1);
	CHECK(qp->sq.msn_prod == 2);
	CHECK(qp->sq.msn_idx[1] == 1);
	free_qp(qp);
}

/* UD SEND_WITH_IMM, inline, solicited: AH id, dest QPN and qkey @16. */
static void test_ud_send(uint8_t version)
{
	struct ionic_qp *qp = make_qp(true, version, 1, 1, 40, 8);
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
	CHECK(qp->sq.q.stride_log2 == 7);
	CHECK(ionic_prep_send(qp, &wr) == 0);
	check_bytes(version >= 2 ? "UD SEND_IMM v2" : "UD SEND_IMM v1",
		    qp->sq.q.ptr, want, sizeof(want));
	/* UD sends complete through NPG CQEs: not MSN-tracked */
	CHECK(!qp->sq.meta[0].remote);
	CHECK(qp->sq.msn_prod == 0);
	CHECK(qp->sq.meta[0].len == 38);
	free_qp(qp);
}

/* UD plain SEND with one SGE, signalled through sq_sig_all. */
static void test_ud_send_sgl(void)
{
	struct ionic_qp *qp = make_qp(true, 2, 1, 1, 0, 8);
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

	qp->sig_all = true;
	CHECK(ionic_prep_send(qp, &wr) == 0);
	check_bytes("UD SEND v2", qp->sq.q.ptr, want, sizeof(want));
	CHECK(qp->sq.meta[0].signal);
	free_qp(qp);
}

/* Speculative SGL: 3 SGEs -> SPEC32 table @32, SGEs from @64. */
static void test_spec_sgl(void)
{
	struct ionic_qp *qp = make_qp(false, 1, 1, 3, 0, 8);
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

	CHECK(qp->sq.spec == 8);
	CHECK(qp->sq.q.stride_log2 == 7);
	CHECK(ionic_prep_send(qp, &wr) == 0);
	check_bytes("spec32 SGL", qp->sq.q.ptr, want, sizeof(want));
	free_qp(qp);
}

/* Receive WQE: op 0, num_sge, imm_data_key = total length, slot index. */
static void test_recv(void)
{
	struct ionic_qp *qp = make_qp(false, 2, 1, 2, 0, 8);
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
	check_bytes("RECV empty", ionic_queue_at(&qp->rq.q, 0), want0, 64);
	check_bytes("RECV", ionic_queue_at(&qp->rq.q, 1), want, sizeof(want));
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
	free_qp(qp);
}

/* COLOR flips when the producer wraps; MSN indexes wrap with the ring. */
static void test_color_wrap(void)
{
	struct ionic_qp *qp = make_qp(false, 2, 1, 1, 0, 8);
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
	free_qp(qp);
}

static void test_send_einval(void)
{
	struct ionic_qp *rc = make_qp(false, 2, 1, 2, 0, 8);
	struct ionic_qp *ud = make_qp(true, 2, 1, 1, 0, 8);
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
	free_qp(rc);
	free_qp(ud);
}

/* ---- golden WQEs shared with the emulator (golden/wqe_golden_bytes.h) - */

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
	struct ionic_qp *qp = make_qp(false, version, 16, 2, 0, 8);

	CHECK(qp->sq.q.stride_log2 == 6);
	return qp;
}

static void check_golden(const char *what, uint8_t version, struct ionic_qp *qp,
			 uint16_t slot, const uint8_t *v1, const uint8_t *v2)
{
	char name[64];

	snprintf(name, sizeof(name), "%s v%u", what, version);
	check_bytes(name, ionic_queue_at(&qp->sq.q, slot),
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
	/* SOLICITED is refused for RDMA WRITE (§16.4) */
	wr.send_flags = IBV_SEND_SOLICITED;
	CHECK(ionic_prep_send(qp, &wr) == EINVAL);
	free_qp(qp);
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
	free_qp(qp);
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
	/* READ refuses INLINE and SOLICITED (§16.4) */
	wr.send_flags = IBV_SEND_INLINE;
	CHECK(ionic_prep_send(qp, &wr) == EINVAL);
	wr.send_flags = IBV_SEND_SOLICITED;
	CHECK(ionic_prep_send(qp, &wr) == EINVAL);
	free_qp(qp);
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
	free_qp(qp);
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
	free_qp(qp);
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
	/* local: completed by its own NPG CQE, no MSN taken (§16.4) */
	CHECK(!qp->sq.meta[GW_LINV_SLOT].remote);
	CHECK(qp->sq.msn_prod == GW_LINV_SLOT);
	free_qp(qp);
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
	free_qp(qp);
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
	free_qp(qp);
}

int main(void)
{
	uint8_t v;

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
	for (v = 1; v <= 2; v++) {
		test_golden_rdma_write(v);
		test_golden_rdma_write_imm(v);
		test_golden_rdma_read(v);
		test_golden_atomic_cs(v);
		test_golden_atomic_fa(v);
		test_golden_local_inv(v);
		test_golden_send_inv(v);
		test_golden_bind(v);
	}

	if (failures) {
		fprintf(stderr, "%d failure(s)\n", failures);
		return 1;
	}
	printf("WQE golden bytes: all checks passed\n");
	return 0;
}
