// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: CQE writer rules, checked on a small ring without the
 * provider (docs/device-contract.md §5, §6.1, §8): byte layout of each CQE
 * type, colour 1 on the first pass and flipped on every wrap, the credit limit
 * set by the consumer index on ring 0 (overflow = CQ_ERR, no write), and
 * arming (one event per arm, immediate if a CQE is already unread,
 * solicited-only arms fire on solicited CQEs only).  test_golden() compares
 * every builder's output, byte for byte, with the CQEs written by hand
 * from the spec in tests/golden/cqe_golden_bytes.h, which the provider's
 * poll path decodes in tests/datapath/poll_unit.c.
 */
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev/cqe.h"
#include "golden/cqe_golden_bytes.h"
#include "check.h"

#define SLOTS 8
#define CQID 5
#define EQID 2

/* ---- the device, with a test event sink for a host ---- */
static int comp_events, cq_err_events, dev_fatal_events;

static void sink(void *host, const struct idev_eqe *e)
{
	(void)host;
	if (e->type == IDEV_EQE_TYPE_DEV && e->code == IDEV_EQE_DEV_FATAL)
		dev_fatal_events++;
	if (e->type != IDEV_EQE_TYPE_CQ || e->qid != CQID)
		return;
	if (e->code == IDEV_EQE_CQ_NOTIFY && e->eqid == EQID)
		comp_events++;
	if (e->code == IDEV_EQE_CQ_ERR)
		cq_err_events++;
}

static const struct idev_host_ops sink_ops = { .event = sink };

/* The device clock, frozen at a fixed 48-bit value. */
static uint64_t frozen_clock(void)
{
	return 0xfedcba987654ull;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct idev *dev;
static uint8_t ring[SLOTS * 32] __attribute__((aligned(64)));

/* A fresh CQ (admin DESTROY_CQ + CREATE_CQ): colour 1, producer 0. */
static struct idev_cq *new_cq(void)
{
	struct idev_cq_create c = {
		.cqid = CQID,
		.eqid = EQID,
		.dbid = 1,
		.ring = { .addr = ring,
			  .mask = SLOTS - 1,
			  .depth_log2 = 3,
			  .stride_log2 = 5 },
	};

	idev_cq_destroy(dev, CQID);
	memset(ring, 0, sizeof(ring));
	CHECK(idev_cq_create(dev, &c) == 0);
	return idev_cq_lookup(dev, CQID);
}

static uint32_t qtf_at(unsigned int slot)
{
	uint32_t v;

	memcpy(&v, ring + slot * 32 + 28, 4);
	return be32toh(v);
}

static void post_npg(struct idev_cq *hw, uint16_t idx, int expect_rc)
{
	struct ionic_cqe cqe;

	idev_cqe_npg(&cqe, 0x45, idx, IONIC_STS_OK);
	CHECK(idev_cqe_post(hw, &cqe, false) == expect_rc);
}

static void test_layout(void)
{
	static const uint8_t mac[6] = { 2, 0x1d, 0xd8, 0, 0, 1 };
	struct idev_cq *hw = new_cq();
	struct ionic_cqe cqe;
	const uint8_t *s;

	/* RECV: LE64 wqe_idx @0, BE32 src_qpn|op<<24 @8 (IPv6: bit 31
	 * clear), mac @12, BE16 vlan @18, raw imm @20, BE32 byte count @24,
	 * qtf 0x00004521 @28. */
	idev_cqe_recv(&cqe, 0x45, 0x1234, 4136, 0xabcdef,
		      IONIC_CQE_RECV_OP_SEND_IMM, htobe32(0x11223344), mac,
		      3 << 13, false);
	CHECK(idev_cqe_post(hw, &cqe, false) == 0);
	s = ring;
	/* LE64 @0: wqe_idx in bits 0..15, the timestamp above it. */
	CHECK(s[0] == 0x34 && s[1] == 0x12 && s[2] == 0x54 && s[3] == 0x76 &&
	      s[7] == 0xfe);
	CHECK(s[8] == 0x02 && s[9] == 0xab && s[10] == 0xcd && s[11] == 0xef);
	CHECK(!memcmp(s + 12, mac, 6));
	CHECK(s[18] == 0x60 && s[19] == 0);
	CHECK(s[20] == 0x11 && s[23] == 0x44);
	CHECK(s[24] == 0 && s[26] == 0x10 && s[27] == 0x28);
	CHECK(qtf_at(0) == 0x00004521);

	/* SEND_MSN: BE32 msn @4, qtf 0x4541. */
	idev_cqe_msn(&cqe, 0x45, 3, IONIC_STS_OK);
	CHECK(idev_cqe_post(hw, &cqe, false) == 0);
	s = ring + 32;
	CHECK(s[4] == 0 && s[7] == 3);
	CHECK(qtf_at(1) == 0x00004541);

	/* SEND_NPG error: LE64 idx @16, status in status_length, +0x2. */
	idev_cqe_npg(&cqe, 0x45, 0x0102, IONIC_STS_LOCAL_PROT_ERR);
	CHECK(idev_cqe_post(hw, &cqe, false) == 0);
	s = ring + 64;
	CHECK(s[16] == 0x02 && s[17] == 0x01 && s[18] == 0x54 && s[23] == 0xfe);
	CHECK(s[27] == IONIC_STS_LOCAL_PROT_ERR);
	CHECK(qtf_at(2) == 0x00004563);

	/* Flush indicators: error + status 4, NPG (SQ) and RECV (RQ). */
	idev_cqe_flush(&cqe, 0x45, true);
	CHECK(idev_cqe_post(hw, &cqe, false) == 0);
	CHECK(qtf_at(3) == 0x00004563 && ring[3 * 32 + 27] == 4);
	idev_cqe_flush(&cqe, 0x45, false);
	CHECK(idev_cqe_post(hw, &cqe, false) == 0);
	CHECK(qtf_at(4) == 0x00004523 && ring[4 * 32 + 27] == 4);
}

static void test_colour_and_credits(void)
{
	struct idev_cq *hw = new_cq();
	unsigned int i;

	/* A zeroed ring holds no valid CQE; the device fills mask = 7 slots
	 * (one hole) and then must stop: the host reported nothing yet. */
	for (i = 0; i < SLOTS - 1; i++)
		post_npg(hw, i, 0);
	for (i = 0; i < SLOTS - 1; i++)
		CHECK(qtf_at(i) & IONIC_CQE_COLOR);
	CHECK(qtf_at(7) == 0);
	CHECK(idev_cq_outstanding(hw) == 7);

	/* Host consumed 5: ring 0 gives the slots back; writing wraps to
	 * slot 0 with colour 0 (second pass). */
	idev_cq_doorbell(hw, 0, 5);
	post_npg(hw, 7, 0);
	CHECK(qtf_at(7) & IONIC_CQE_COLOR);
	post_npg(hw, 8, 0);
	CHECK(!(qtf_at(0) & IONIC_CQE_COLOR));
	CHECK((qtf_at(0) >> 8) == 0x45);
	post_npg(hw, 9, 0);
	post_npg(hw, 10, 0);
	post_npg(hw, 11, 0);
	CHECK(idev_cq_outstanding(hw) == 7);
	CHECK(cq_err_events == 0);

	/* One more would overrun unread CQEs: CQ_ERR, nothing written; CQ_ERR
	 * once per overrun, and CQEs are taken again once the host makes
	 * room (the overrun's QPs then write their flush indicators). */
	post_npg(hw, 12, -ENOSPC);
	CHECK(cq_err_events == 1);
	post_npg(hw, 13, -ENOSPC);
	CHECK(cq_err_events == 1);
	/* slot 4 still holds its unread first-pass CQE (colour 1) */
	CHECK(qtf_at(4) == 0x00004561);
	idev_cq_doorbell(hw, 0, 4);
	CHECK(!hw->overflowed);
	post_npg(hw, 14, 0);
	CHECK(qtf_at(4) == 0x00004560 && cq_err_events == 1);
	for (i = 15; i < 21; i++)
		post_npg(hw, i, 0);
	post_npg(hw, 21, -ENOSPC);
	CHECK(cq_err_events == 2);

	/* Colour flips again on the third pass. */
	hw = new_cq();
	for (i = 0; i < 3 * SLOTS; i++) {
		post_npg(hw, i, 0);
		CHECK(!!(qtf_at(i % SLOTS) & IONIC_CQE_COLOR) ==
		      ((i / SLOTS) % 2 == 0));
		idev_cq_doorbell(hw, 0, (i + 1) % SLOTS);
	}
}

static void test_arming(void)
{
	struct idev_cq *hw = new_cq();
	struct ionic_cqe cqe;

	comp_events = 0;
	/* Arm with nothing unread: event on the next CQE, once. */
	idev_cq_doorbell(hw, 1, 1);
	CHECK(comp_events == 0);
	post_npg(hw, 0, 0);
	CHECK(comp_events == 1);
	post_npg(hw, 1, 0);
	CHECK(comp_events == 1);

	/* Re-arm while CQEs are unread past ring 0: immediate event. */
	idev_cq_doorbell(hw, 1, 2);
	CHECK(comp_events == 2);
	/* The same arm index again is not a new request. */
	idev_cq_doorbell(hw, 0, 2);
	idev_cq_doorbell(hw, 1, 2);
	post_npg(hw, 2, 0);
	CHECK(comp_events == 2);

	/* Solicited-only: an ordinary CQE does not fire it ... */
	idev_cq_doorbell(hw, 0, 3);
	idev_cq_doorbell(hw, 2, 1);
	CHECK(comp_events == 2);
	post_npg(hw, 3, 0);
	CHECK(comp_events == 2);
	/* ... a solicited one does. */
	idev_cqe_recv(&cqe, 0x45, 4, 10, 1, 0, 0, NULL, 0, false);
	CHECK(idev_cqe_post(hw, &cqe, true) == 0);
	CHECK(comp_events == 3);

	/* Solicited arm with an unread solicited CQE fires at once; after the
	 * host consumed it, it waits. */
	idev_cq_doorbell(hw, 2, 2);
	CHECK(comp_events == 4);
	idev_cq_doorbell(hw, 0, 5);
	idev_cq_doorbell(hw, 2, 3);
	CHECK(comp_events == 4);
	/* An arm-any pending beside it fires on any CQE. */
	idev_cq_doorbell(hw, 1, 3);
	CHECK(comp_events == 4);
	post_npg(hw, 5, 0);
	CHECK(comp_events == 5);
}

/* Post one CQE on a fresh CQ (colour 1) and compare the slot with 'want'. */
static void check_golden(const char *what, const struct ionic_cqe *cqe,
			 const uint8_t *want)
{
	struct idev_cq *hw = new_cq();
	unsigned int i;

	CHECK(idev_cqe_post(hw, cqe, false) == 0);
	for (i = 0; i < GC_SIZE; i++) {
		if (ring[i] != want[i]) {
			check_fail(__FILE__, __LINE__,
				   "golden %s: byte %u is %02x, want %02x",
				   what, i, ring[i], want[i]);
			return;
		}
	}
}

static void test_golden(void)
{
	struct ionic_cqe cqe;

	/* the frozen device clock is the golden timestamp */
	CHECK(idev_clock(dev) == GC_TS);

	idev_cqe_recv(&cqe, GC_QPN, GC_RECV_SLOT, GC_RECV_LEN, GC_RECV_SRC_QPN,
		      GC_RECV_OP, htobe32(GC_RECV_IMM), gc_recv_mac,
		      GC_RECV_VLAN, true);
	check_golden("RECV", &cqe, gc_recv);
	idev_cqe_npg(&cqe, GC_QPN, GC_NPG_SLOT, IONIC_STS_OK);
	check_golden("SEND_NPG", &cqe, gc_npg);
	idev_cqe_flush(&cqe, GC_QPN, true);
	check_golden("SQ flush indicator", &cqe, gc_sq_flush);
	idev_cqe_flush(&cqe, GC_QPN, false);
	check_golden("RQ flush indicator", &cqe, gc_rq_flush);
	idev_cqe_recv_err(&cqe, GC_QPN, GC_RECV_ERR_SLOT, GC_RECV_ERR_STATUS);
	check_golden("RECV error", &cqe, gc_recv_err);
	idev_cqe_msn(&cqe, GC_QPN, GC_MSN, IONIC_STS_OK);
	check_golden("SEND_MSN", &cqe, gc_msn);
	idev_cqe_msn(&cqe, GC_QPN, GC_MSN_ERR, GC_MSN_ERR_STATUS);
	check_golden("SEND_MSN error", &cqe, gc_msn_err);
}

/* Admin CREATE_CQ refuses what the device cannot use. */
static void test_admin(void)
{
	struct idev_cq_create c = {
		.cqid = CQID,
		.eqid = EQID,
		.dbid = 1,
		.ring = { .addr = ring,
			  .mask = SLOTS - 1,
			  .depth_log2 = 3,
			  .stride_log2 = 4 },
	};
	struct idev_stats st;

	idev_cq_destroy(dev, CQID);
	CHECK(idev_cq_create(dev, &c) == -EINVAL); /* 16-byte stride */
	c.ring.stride_log2 = 5;
	c.cqid = 1u << 30;
	CHECK(idev_cq_create(dev, &c) == -EINVAL); /* no such id */
	c.cqid = CQID;
	CHECK(idev_cq_create(dev, &c) == 0);
	CHECK(idev_cq_create(dev, &c) == -EINVAL); /* in use */
	idev_get_stats(dev, &st);
	CHECK(st.cqs == 1);
	CHECK(idev_cq_destroy(dev, CQID) == 0);
	CHECK(idev_cq_destroy(dev, CQID) == -EINVAL);
}

/* A firmware failure (sim/dev/fatal.c): the CQ is gone, nothing more is
 * written, one DEV event, every create refused; once only. */
static void test_fail(void)
{
	struct idev_cq *hw = new_cq();
	struct idev_cq_create c = {
		.cqid = CQID + 1,
		.ring = { .addr = ring, .mask = SLOTS - 1, .stride_log2 = 5 }
	};
	struct idev_stats st;

	post_npg(hw, 0, 0);
	CHECK(!idev_dead(dev));
	idev_fail(dev);
	CHECK(dev_fatal_events == 1 && idev_dead(dev));
	CHECK(!idev_cq_lookup(dev, CQID));
	idev_get_stats(dev, &st);
	CHECK(st.cqs == 0 && st.qps == 0 && st.mrs == 0 && st.ahs == 0);
	CHECK(idev_cq_create(dev, &c) == -ENODEV);
	CHECK(idev_cq_destroy(dev, CQID) == -EINVAL);
	idev_fail(dev);
	CHECK(dev_fatal_events == 1);
}

int main(void)
{
	struct idev_config cfg = {
		.node = 1,
		.lock = &lock,
		.ops = &sink_ops,
		.clock_ns = frozen_clock,
	};

	isim_profile_defaults(&cfg.prof);
	CHECK(idev_create(&cfg, &dev) == 0);
	if (!dev)
		return 1;
	/* admin commands run under the lock, as the kernel holds it */
	pthread_mutex_lock(&lock);
	test_admin();
	test_golden();
	test_layout();
	test_colour_and_credits();
	test_arming();
	test_fail();
	idev_destroy(dev);
	pthread_mutex_unlock(&lock);
	return check_finish();
}
