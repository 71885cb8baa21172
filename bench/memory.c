// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Host memory the provider takes per QP and per CQ at the report's
 * default caps (bench/README.md): heap bytes (glibc's
 * mallinfo2() before and after) plus the rings, which are mapped pages of
 * their own.  The objects are built by the provider's own creation code
 * without a kernel (tests/support/provider_fixture.h), so nothing else allocates in
 * between; the kernel's and the device's share (pinned pages, device
 * tables) is not host memory of the application.
 *
 * Prints one JSON object.
 */
#include <malloc.h>
#include <stdio.h>

#include "provider_fixture.h"

#define DEF_CQE 256 /* as bench/verbs_bench.c */
#define DEF_WR 128

static size_t heap_bytes(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

static size_t cq_ring_bytes(const struct ionic_vcq *vcq)
{
	size_t sum = 0;

	for (int i = 0; i < IONIC_MAX_UDMA; i++)
		if (vcq->udma_mask & (1u << i))
			sum += vcq->cq[i].q.size;
	return sum;
}

int main(void)
{
	struct unit_dev_opts o = { .udma_count = 2 };
	struct unit_dev *dev = unit_dev_create(&o);
	struct unit_qp_opts qo = { .qpid = 0x40,
				   .depth = DEF_WR,
				   .max_sge = 1 };
	struct ionic_vcq *vcq, *first_cq;
	struct ionic_qp *first, *qp;
	size_t before, cq_heap, qp_heap, leaf_heap;

	/* the first QP also allocates its QP table leaf (4096 numbers) */
	first_cq = unit_cq_create(dev, DEF_CQE);
	before = heap_bytes();
	first = unit_qp_create(dev, first_cq, &qo);
	leaf_heap = heap_bytes() - before;

	before = heap_bytes();
	vcq = unit_cq_create(dev, DEF_CQE);
	cq_heap = heap_bytes() - before;

	qo.qpid++;
	before = heap_bytes();
	qp = unit_qp_create(dev, vcq, &qo);
	qp_heap = heap_bytes() - before;
	leaf_heap -= qp_heap;

	printf("{\"cq\": {\"cqe\": %d, \"pipelines\": 2, \"heap\": %zu, "
	       "\"rings\": %zu}, ",
	       DEF_CQE, cq_heap, cq_ring_bytes(vcq));
	printf("\"qp\": {\"send_wr\": %d, \"recv_wr\": %d, \"sge\": 1, "
	       "\"heap\": %zu, \"rings\": %zu, \"sq_stride\": %zu, "
	       "\"rq_stride\": %zu}, ",
	       DEF_WR, DEF_WR, qp_heap, qp->sq.q.size + qp->rq.q.size,
	       ionic_queue_stride(&qp->sq.q), ionic_queue_stride(&qp->rq.q));
	printf("\"qp_table_leaf\": %zu}\n", leaf_heap);

	unit_qp_destroy(qp);
	unit_qp_destroy(first);
	unit_cq_destroy(vcq);
	unit_cq_destroy(first_cq);
	unit_dev_destroy(dev);
	return 0;
}
