// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: express doorbells (docs/device-contract.md §11.3),
 * through the real engine thread and fabric without the provider or the
 * kernel layer (dev_fixture.h).  An RC SQ in controller memory is posted
 * only through its express-doorbell window, by plain 8-byte stores and by
 * 64-byte MOVDIR64B-style stores, across several laps of its ring; every
 * message arrives and completes.  Stores that complete no WQE, trailers
 * naming another queue or window, and stores outside the CMB ring
 * nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "dev_fixture.h"

static uint8_t sbuf[4096], rbuf[8][512];

/* 'n' SENDs from a (express) to b, checked one by one. */
static void traffic(struct hqp *a, struct hqp *b, struct hcq *cq_a,
		    struct hcq *cq_b, uint32_t skey, uint32_t rkey, int n,
		    uint32_t *msn)
{
	enum ionic_status st = IONIC_STS_OK;
	struct ionic_cqe c;

	for (int i = 0; i < n; i++) {
		uint32_t len = 1 + (i * 37) % 500;

		for (uint32_t j = 0; j < len; j++)
			sbuf[j] = (uint8_t)(i + j * 3);
		post_recv(b, rbuf[i % 8], 512, rkey);
		post_send(a, IONIC_V2_OP_SEND, sbuf, len, skey,
			  IONIC_WQE_FLAG_SIG, 0, 0, 0);
		CHECK(poll_cqe(cq_b, &c, 2000));
		CHECK(cqe_type(&c) == IONIC_CQE_TYPE_RECV && !cqe_err(&c));
		CHECK(cqe_status_len(&c) == len);
		CHECK(!memcmp(rbuf[i % 8], sbuf, len));
		CHECK(wait_msn(cq_a, ++*msn, &st) && st == IONIC_STS_OK);
	}
}

static void test_express(unsigned int chunk, uint32_t pgid)
{
	struct hcq *cq_a = make_cq(1), *cq_b = make_cq(2);
	struct hqp *a = make_qp_expdb(10, IBV_QPT_RC, cq_a, cq_a, pgid, chunk);
	struct hqp *b = make_qp(11, IBV_QPT_RC, cq_b, cq_b);
	uint32_t skey = mr_key(sbuf, sizeof(sbuf), 0);
	uint32_t rkey = mr_key(rbuf, sizeof(rbuf), IBV_ACCESS_LOCAL_WRITE);
	uint8_t junk[64];
	struct ionic_cqe c;
	uint32_t msn = 0;

	bring_up(a, 11, 7, 7, 14);
	bring_up(b, 10, 7, 7, 14);
	/* three laps of the 64-slot ring */
	traffic(a, b, cq_a, cq_b, skey, rkey, 3 * 64 + 5, &msn);

	/* A store that completes no WQE slot rings nothing; one that does
	 * but whose trailer names another QP, or no SQ, neither. */
	memset(junk, 0, sizeof(junk));
	fx_mmio_store(a->expdb_tag, 8, junk, 8);
	{
		uint64_t tr = htole64((uint64_t)fx_profile()->sq_qtype
					      << IONIC_DBELL_QTYPE_SHIFT |
				      ionic_dbell_val(11, 0, 1) |
				      IONIC_DBELL_EXPDB_SCHED
					      << IONIC_DBELL_EXPDB_SCHED_SHIFT);

		memcpy(junk + 56, &tr, 8);
		/* QP 11 is not in this window */
		fx_mmio_store(a->expdb_tag, 64 * 63, junk, 64);
		tr = htole64(ionic_dbell_val(10, 0, 1));
		memcpy(junk + 56, &tr, 8);
		/* no qtype, no express flags */
		fx_mmio_store(a->expdb_tag, 64 * 62, junk, 64);
	}
	/* outside the CMB */
	fx_mmio_store(idev_expdb_tag(6, FX_CMB_PAGES), 0, junk, 64);
	fx_mmio_store(idev_expdb_tag(5, pgid), 0, junk, 64);
	CHECK(!poll_cqe(cq_a, &c, 50));
	CHECK(!poll_cqe(cq_b, &c, 10));
	/* and the queue still works */
	traffic(a, b, cq_a, cq_b, skey, rkey, 3, &msn);

	destroy_qp(a);
	destroy_qp(b);
	destroy_cq(cq_a);
	destroy_cq(cq_b);
}

int main(void)
{
	if (fx_start())
		return 1;
	test_express(8, 0); /* plain 64-bit stores */
	test_express(64, 3); /* MOVDIR64B-style chunks */
	return fx_stop();
}
