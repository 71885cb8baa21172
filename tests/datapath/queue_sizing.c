// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Ring geometry and WQE sizing (providers/ionic/queue.c) against the test
 * vectors of the device reference: ring sizing examples
 * (docs/device-contract.md §2.3) and the send/receive stride and capability
 * tables (§3.8), with and without express doorbells.
 */
#include <errno.h>
#include <stdio.h>

#include "queue.h"
#include "check.h"

static void test_ring_geometry(void)
{
	struct ionic_queue q;

	/* SQ, max_wr 1, 64-byte WQEs, 4 KiB pages: 64 slots, capacity 63 */
	CHECK_EQ(ionic_queue_geometry(&q, 1, 64, 12), 0);
	CHECK_EQ(q.depth_log2, 6);
	CHECK_EQ(q.stride_log2, 6);
	CHECK_EQ(q.mask, 63);
	CHECK_EQ(q.size, 4096);

	/* max_wr 64 -> 128 slots: strictly more slots than requested */
	CHECK_EQ(ionic_queue_geometry(&q, 64, 64, 12), 0);
	CHECK_EQ(q.mask, 127);
	CHECK_EQ(q.size, 8192);

	/* max_wr 63 still fits one page exactly */
	CHECK_EQ(ionic_queue_geometry(&q, 63, 64, 12), 0);
	CHECK_EQ(q.mask, 63);

	/* CQ with cqe 1: 1 + 100 grace = 101 -> 128 slots of 32 B = 4 KiB */
	CHECK_EQ(ionic_queue_geometry(&q, 1 + 100, 32, 12), 0);
	CHECK_EQ(q.depth_log2, 7);
	CHECK_EQ(q.stride_log2, 5);
	CHECK_EQ(q.mask, 127);
	CHECK_EQ(q.size, 4096);

	/* depth 0 is one element; stride rounds up to a power of two */
	CHECK_EQ(ionic_queue_geometry(&q, 0, 80, 12), 0);
	CHECK_EQ(q.stride_log2, 7);
	CHECK_EQ(q.mask, 31);
	CHECK_EQ(q.prod, 0);
	CHECK_EQ(q.cons, 0);

	/* largest depth: 0xffff -> 65536 slots, mask 0xffff */
	CHECK_EQ(ionic_queue_geometry(&q, 0xffff, 64, 12), 0);
	CHECK_EQ(q.mask, 0xffff);
	CHECK_EQ(q.depth_log2, 16);

	/* positive EINVAL, never negative (upstream defect
	 * docs/upstream-defects.md D11) */
	CHECK_EQ(ionic_queue_geometry(&q, 0x10000, 64, 12), EINVAL);
	CHECK_EQ(ionic_queue_geometry(&q, 1, 0, 12), EINVAL);
	CHECK_EQ(ionic_queue_geometry(&q, 1, 0x10001, 12), EINVAL);

	/* 64 KiB pages: still at least one page */
	CHECK_EQ(ionic_queue_geometry(&q, 1, 64, 16), 0);
	CHECK_EQ(q.size, 65536);
	CHECK_EQ(q.mask, 1023);
}

static void test_ring_helpers(void)
{
	struct ionic_queue q;

	CHECK_EQ(ionic_queue_geometry(&q, 1, 64, 12), 0);
	CHECK(ionic_queue_empty(&q));
	q.prod = 63;
	CHECK(ionic_queue_full(&q));
	CHECK_EQ(ionic_queue_next(&q, 63), 0);
	q.cons = 10;
	q.prod = 5;
	CHECK_EQ(ionic_queue_length(&q), 59);
}

struct send_vec {
	uint32_t max_sge, inline_lo, inline_hi;
	uint8_t spec;
	uint32_t stride, caps_sge, caps_inline;
	uint32_t recv_stride, recv_sge; /* 0: not in the table */
};

/* ctx max_spec 8, no express doorbell */
static const struct send_vec vec_plain[] = {
	{ 0, 0, 0, 2, 64, 2, 32, 64, 2 },
	{ 1, 0, 0, 2, 64, 2, 32, 64, 2 },
	{ 2, 0, 0, 2, 64, 2, 32, 64, 2 },
	{ 3, 0, 0, 8, 128, 4, 96, 128, 4 },
	{ 4, 0, 0, 8, 128, 4, 96, 128, 4 },
	{ 5, 0, 0, 8, 256, 8, 224, 256, 8 },
	{ 8, 0, 0, 8, 256, 8, 224, 256, 8 },
	{ 9, 0, 0, 0, 256, 14, 224, 256, 14 },
	{ 12, 0, 0, 0, 256, 14, 224, 256, 14 },
	{ 16, 0, 0, 0, 512, 30, 480, 512, 30 },
	{ 1, 33, 96, 2, 128, 2, 96, 0, 0 },
	{ 1, 97, 224, 2, 256, 2, 224, 0, 0 },
};

static void test_sizing_plain(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(vec_plain) / sizeof(vec_plain[0]); i++) {
		const struct send_vec *v = &vec_plain[i];
		uint32_t inl;

		for (inl = v->inline_lo; inl <= v->inline_hi; inl++) {
			uint8_t spec = ionic_queue_spec(v->max_sge, 8);
			uint32_t sz = ionic_send_min_size(v->max_sge, inl, spec,
							  false);
			unsigned int sl = ionic_bitlen(sz - 1);

			CHECK_EQ(spec, v->spec);
			CHECK_EQ(sz, v->stride);
			CHECK_EQ(ionic_send_max_sge(sl, spec, false),
				 v->caps_sge);
			CHECK_EQ(ionic_send_max_inline(sl, false),
				 v->caps_inline);
		}
		if (v->recv_stride) {
			uint8_t spec = ionic_queue_spec(v->max_sge, 8);
			uint32_t sz =
				ionic_recv_min_size(v->max_sge, spec, false);
			unsigned int sl = ionic_bitlen(sz - 1);

			CHECK_EQ(1u << sl, v->recv_stride);
			CHECK_EQ(ionic_recv_max_sge(sl, spec, false),
				 v->recv_sge);
		}
	}

	/* spec disabled: stride -> SGE / inline capacity */
	CHECK_EQ(ionic_send_max_sge(6, 0, false), 2);
	CHECK_EQ(ionic_send_max_inline(6, false), 32);
	CHECK_EQ(ionic_send_max_sge(7, 0, false), 6);
	CHECK_EQ(ionic_send_max_inline(7, false), 96);
	CHECK_EQ(ionic_send_max_sge(8, 0, false), 14);
	CHECK_EQ(ionic_send_max_inline(8, false), 224);
	CHECK_EQ(ionic_send_max_sge(9, 0, false), 30);
	CHECK_EQ(ionic_send_max_inline(9, false), 480);
	CHECK_EQ(ionic_send_max_sge(10, 0, false), 62);
	CHECK_EQ(ionic_send_max_inline(10, false), 992);

	/* spec choice */
	CHECK_EQ(ionic_queue_spec(3, 0), 0);
	CHECK_EQ(ionic_queue_spec(2, 8), 2);
	CHECK_EQ(ionic_queue_spec(8, 8), 8);
	CHECK_EQ(ionic_queue_spec(9, 8), 0);
	CHECK_EQ(ionic_queue_spec(12, 16), 16);
}

struct expdb_vec {
	uint32_t max_sge;
	uint8_t spec;
	uint32_t sq_stride;
	uint32_t sq_sge, sq_inline;
	uint32_t rq_size; /* receive size tested for EXPDB */
	uint32_t rq_stride;
	int rq_expdb;
	uint32_t rq_sge;
};

/*
 * ctx max_spec 8, express doorbell asked for both queues, expdb_mask all
 * four sizes, inline 0.  The SQ always keeps EXPDB in this table.
 * rq_size is the provider's unrounded recv_min_size (the upstream test).
 */
static const struct expdb_vec vec_expdb[] = {
	{ 0, 2, 64, 1, 24, 64, 64, 1, 1 },
	{ 1, 2, 64, 1, 24, 64, 64, 1, 1 },
	{ 2, 2, 128, 2, 88, 80, 64, 0, 2 },
	{ 3, 8, 128, 3, 88, 128, 128, 1, 3 },
	{ 4, 8, 256, 8, 216, 144, 128, 0, 4 },
	{ 5, 8, 256, 8, 216, 160, 256, 0, 8 },
	{ 8, 8, 256, 8, 216, 208, 256, 0, 8 },
	{ 9, 0, 256, 13, 216, 192, 256, 0, 14 },
	{ 12, 0, 256, 13, 216, 240, 256, 0, 14 },
	{ 13, 0, 256, 13, 216, 256, 256, 1, 13 },
	{ 14, 0, 512, 29, 472, 272, 256, 0, 14 },
	{ 16, 0, 512, 29, 472, 304, 512, 0, 30 },
};

static void test_sizing_expdb(void)
{
	const uint8_t all = IONIC_EXPDB_64 | IONIC_EXPDB_128 | IONIC_EXPDB_256 |
			    IONIC_EXPDB_512;
	unsigned int i;

	for (i = 0; i < sizeof(vec_expdb) / sizeof(vec_expdb[0]); i++) {
		const struct expdb_vec *v = &vec_expdb[i];
		uint8_t spec = ionic_queue_spec(v->max_sge, 8);
		uint32_t sz = ionic_send_min_size(v->max_sge, 0, spec, true);
		unsigned int sl = ionic_bitlen(sz - 1);
		uint32_t rsz;
		bool rq_expdb;

		CHECK_EQ(spec, v->spec);
		CHECK_EQ(sz, v->sq_stride);
		CHECK(ionic_expdb_size_ok(sz, all));
		CHECK_EQ(ionic_send_max_sge(sl, spec, true), v->sq_sge);
		CHECK_EQ(ionic_send_max_inline(sl, true), v->sq_inline);

		/* the reference table: the upstream test on the raw size */
		rsz = ionic_recv_min_size(v->max_sge, spec, true);
		CHECK_EQ(rsz, v->rq_size);
		rq_expdb = ionic_expdb_size_ok(rsz, all);
		CHECK_EQ(rq_expdb, v->rq_expdb);
		if (!rq_expdb)
			rsz = ionic_recv_min_size(v->max_sge, spec, false);
		sl = ionic_bitlen(rsz - 1);
		CHECK_EQ(1u << sl, v->rq_stride);
		CHECK_EQ(ionic_recv_max_sge(sl, spec, rq_expdb), v->rq_sge);
	}

	/* sizes the device does not offer */
	CHECK(!ionic_expdb_size_ok(64, IONIC_EXPDB_128));
	CHECK(!ionic_expdb_size_ok(1024, 0xff));
	CHECK(!ionic_expdb_size_ok(80, 0xff));
}

int main(void)
{
	test_ring_geometry();
	test_ring_helpers();
	test_sizing_plain();
	test_sizing_expdb();

	return check_finish();
}
