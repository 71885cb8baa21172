// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Send queues in controller memory (CMB, docs/device-contract.md §11.4,
 * docs/kernel-contract.md §9.3) through ionic-sim.
 *
 *   verbs-cmb --cmb [--expdb]  the run's device has CMB (--cmb-pages 64),
 *                              with --expdb also SQ express doorbells
 *                              (expdb_qtypes bit 0): every SQ the kernel
 *                              puts in CMB then rings by its WQEs' trailers
 *   verbs-cmb --no-cmb         the default device: no CMB
 *
 * Placement is observed from the application side: the emulator's CMB is
 * a memfd named "ionic-sim-cmb", so every window the provider maps shows
 * up in /proc/self/maps under that name, with the ring's size (next to
 * the emulated device's own mapping of the whole CMB, counted once at the
 * start as the base).  An express-doorbell window is the emulator's
 * trapped view of the same pages: mapped read-only ("r--s"), where the
 * provider's own write-only mapping of a plain window reads "-w-s".
 */
#include <infiniband/ionic_dv.h>

#include "verbs_fixture.h"

#define TMO 5000
#define BUF (1 << 16)
#define MSG 300
#define SLOT 512
#define RECV_OFF (BUF / 2)

static struct ibv_context *ctx;
static bool have_cmb, have_expdb;
/* the emulated device's own view of its CMB, mapped before any QP */
static int base_n;
static size_t base_bytes;

/* CMB windows mapped in this process; their total size in *bytes. */
static int cmb_maps(size_t *bytes)
{
	char line[512];
	unsigned long lo, hi;
	int n = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	REQUIRE(f);
	if (bytes)
		*bytes = 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "ionic-sim-cmb"))
			continue;
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && bytes)
			*bytes += hi - lo;
		n++;
	}
	fclose(f);
	return n;
}

/* Express-doorbell windows mapped in this process. */
static int express_maps(void)
{
	char line[512], perms[8];
	unsigned long lo, hi;
	int n = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	REQUIRE(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "ionic-sim-cmb") &&
		    sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 &&
		    !strcmp(perms, "r--s"))
			n++;
	fclose(f);
	return n;
}

/*
 * 'count' messages from side 0 to side 1 in batches of up to 'batch'
 * (one ibv_post_send each), alternately SEND (every third one inline)
 * and RDMA WRITE; every payload is checked.  With count beyond the ring
 * size the SQ wraps, also in the middle of a batch.
 */
static void traffic(struct fx_pair *p, int count, int batch)
{
	bool ud = p->o.type == IBV_QPT_UD;
	size_t grh = ud ? 40 : 0;
	struct ibv_wc wc[16];
	int sent = 0;

	REQUIRE(batch <= 16 && batch * SLOT <= RECV_OFF);
	while (sent < count) {
		struct ibv_send_wr wr[16], *bad = NULL;
		struct ibv_sge sge[16];
		int k = count - sent < batch ? count - sent : batch;
		int recvs = 0, got;

		for (int j = 0; j < k; j++) {
			unsigned int seed = (unsigned int)(sent + j) * 7 + 3;
			bool write = !ud && (sent + j) % 2;
			uint8_t *dst = p->buf[1] + RECV_OFF + (size_t)j * SLOT;

			fx_fill(p->buf[0] + (size_t)j * SLOT, MSG, seed);
			memset(dst, 0, SLOT);
			sge[j] = (struct ibv_sge){
				.addr = (uintptr_t)p->buf[0] + (size_t)j * SLOT,
				.length = MSG,
				.lkey = p->mr[0]->lkey,
			};
			memset(&wr[j], 0, sizeof(wr[j]));
			wr[j].wr_id = (uint64_t)(sent + j);
			wr[j].sg_list = &sge[j];
			wr[j].num_sge = 1;
			wr[j].send_flags = IBV_SEND_SIGNALED;
			wr[j].next = j + 1 < k ? &wr[j + 1] : NULL;
			if (write) {
				wr[j].opcode = IBV_WR_RDMA_WRITE;
				wr[j].wr.rdma.remote_addr = (uintptr_t)dst;
				wr[j].wr.rdma.rkey = p->mr[1]->rkey;
			} else {
				wr[j].opcode = IBV_WR_SEND;
				if ((sent + j) % 3 == 0 &&
				    p->cap[0].max_inline_data >= MSG)
					wr[j].send_flags |= IBV_SEND_INLINE;
				if (ud) {
					wr[j].wr.ud.ah = p->ah[0];
					wr[j].wr.ud.remote_qpn =
						p->qp[1]->qp_num;
					wr[j].wr.ud.remote_qkey = p->o.qkey;
				}
				REQUIRE_EQ(fx_post_recv(
						   p, 1, (uint64_t)(sent + j),
						   RECV_OFF + (size_t)j * SLOT -
							   grh,
						   SLOT),
					   0);
				recvs++;
			}
		}
		REQUIRE_EQ(ibv_post_send(p->qp[0], wr, &bad), 0);

		got = fx_poll(p->scq[0], wc, k, TMO);
		REQUIRE_EQ(got, k);
		for (int j = 0; j < k; j++) {
			CHECK_EQ(wc[j].status, IBV_WC_SUCCESS);
			CHECK_EQ(wc[j].wr_id, sent + j);
		}
		if (recvs) {
			got = fx_poll(p->rcq[1], wc, recvs, TMO);
			REQUIRE_EQ(got, recvs);
			for (int j = 0; j < recvs; j++) {
				CHECK_EQ(wc[j].status, IBV_WC_SUCCESS);
				CHECK_EQ(wc[j].byte_len, MSG + grh);
			}
		}
		for (int j = 0; j < k; j++) {
			uint8_t want[MSG];

			fx_fill(want, MSG, (unsigned int)(sent + j) * 7 + 3);
			if (memcmp(p->buf[1] + RECV_OFF + (size_t)j * SLOT,
				   want, MSG))
				check_fail(__FILE__, __LINE__,
					   "message %d corrupted", sent + j);
		}
		sent += k;
	}
}

/*
 * A pair on 'pd' (NULL: its own PD with the default preferences) with
 * 'send_wr' SQ entries: 'want' CMB windows appear (SQs only), and
 * traffic through it arrives intact, also across ring wrap-around.
 */
static void pair_check_x(enum ibv_qp_type type, struct ibv_pd *pd,
			 uint32_t send_wr, int want, int want_express)
{
	int before = cmb_maps(NULL), before_x = express_maps();
	size_t bytes;
	struct fx_qp_opts o;
	struct fx_pair p;
	int ring;

	fx_qp_opts_default(&o, type);
	o.max_send_wr = send_wr;
	o.max_inline = MSG;
	fx_pair_create(&p, ctx, pd, &o, BUF);
	CHECK_EQ(cmb_maps(&bytes) - before, want);
	CHECK_EQ(express_maps() - before_x, want_express);
	if (want && before == base_n)
		CHECK(bytes > base_bytes &&
		      bytes - base_bytes <= 2 * 16 * 4096);
	fx_pair_connect(&p);

	ring = (int)p.cap[0].max_send_wr + 1;
	traffic(&p, 1, 1);
	/* more than three laps, batches that straddle the wrap */
	traffic(&p, 3 * ring + 5, 7);
	traffic(&p, ring - 1 < 16 ? ring - 1 : 16, 16);

	fx_pair_destroy(&p);
	/* destroy unmaps the windows */
	CHECK_EQ(cmb_maps(NULL), before);
	CHECK_EQ(express_maps(), before_x);
}

/* Plain windows: the pairs' WQEs (300 bytes inline) are larger than the
 * 64 bytes a PD allows express doorbells for by default. */
static void pair_check(enum ibv_qp_type type, struct ibv_pd *pd,
		       uint32_t send_wr, int want)
{
	pair_check_x(type, pd, send_wr, want, 0);
}

/* One QP on 'pd' with SQ depth 'send_wr' and 'sge' SGEs a side: NULL with
 * errno, or the QP.  'inl' inline bytes. */
static struct ibv_qp *qp_make(struct ibv_pd *pd, struct ibv_cq *cq,
			      uint32_t send_wr, uint32_t sge, uint32_t inl)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = send_wr,
			.max_recv_wr = 16,
			.max_send_sge = sge,
			.max_recv_sge = sge,
			.max_inline_data = inl,
		},
	};

	errno = 0;
	return ibv_create_qp(pd, &a);
}

/* The QP pair_check() makes: 4 SGEs, MSG inline bytes. */
static struct ibv_qp *qp_try(struct ibv_pd *pd, struct ibv_cq *cq,
			     uint32_t send_wr)
{
	return qp_make(pd, cq, send_wr, 4, MSG);
}

/* Creating one QP on 'pd' gives 'want' windows (or fails with 'err'). */
static void qp_check(struct ibv_pd *pd, uint32_t send_wr, int want, int err)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	int before = cmb_maps(NULL);
	struct ibv_qp *qp;

	REQUIRE(cq);
	qp = qp_try(pd, cq, send_wr);
	if (err) {
		CHECK(!qp);
		CHECK_EQ(errno, err);
	} else {
		CHECK(qp);
	}
	CHECK_EQ(cmb_maps(NULL) - before, want);
	if (qp)
		CHECK_RC(ibv_destroy_qp(qp), 0);
	CHECK_EQ(cmb_maps(NULL), before);
	CHECK_RC(ibv_destroy_cq(cq), 0);
}

int main(int argc, char **argv)
{
	int one = 0;
	struct ibv_pd *pd;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--cmb"))
			have_cmb = true;
		else if (!strcmp(argv[i], "--expdb"))
			have_expdb = true;
		else if (strcmp(argv[i], "--no-cmb"))
			check_fatal(__FILE__, __LINE__,
				    "usage: %s --cmb|--no-cmb", argv[0]);
	}
	one = have_cmb ? 1 : 0;

	ctx = fx_open();
	base_n = cmb_maps(&base_bytes);

	SECTION("default preferences: RC SQs in CMB, traffic intact");
	pair_check(IBV_QPT_RC, NULL, 64, 2 * one);
	SECTION("default preferences: UD SQs in CMB, traffic intact");
	pair_check(IBV_QPT_UD, NULL, 64, 2 * one);
	SECTION("small SQ: many laps of the ring");
	pair_check(IBV_QPT_RC, NULL, 7, 2 * one);

	pd = ibv_alloc_pd(ctx);
	REQUIRE(pd);

	SECTION("set_sqcmb(enable=false): host ring");
	CHECK_RC(ionic_dv_pd_set_sqcmb(pd, false, false, false), 0);
	pair_check(IBV_QPT_RC, pd, 64, 0);
	qp_check(pd, 64, 0, 0);

	SECTION("RQ CMB request: the RQ stays in host memory");
	CHECK_RC(ionic_dv_pd_set_rqcmb(pd, true, false, false), 0);
	pair_check(IBV_QPT_RC, pd, 64, 0);
	/* REQUIRE that the kernel cannot meet fails creation */
	CHECK_RC(ionic_dv_pd_set_rqcmb(pd, true, false, true), 0);
	qp_check(pd, 64, 0, EOPNOTSUPP);
	CHECK_RC(ionic_dv_pd_set_rqcmb(pd, false, false, false), 0);

	SECTION("set_sqcmb(enable=true) again: CMB");
	CHECK_RC(ionic_dv_pd_set_sqcmb(pd, true, false, false), 0);
	pair_check(IBV_QPT_RC, pd, 64, 2 * one);

	SECTION("SQ over 16 pages: host ring; with REQUIRE: EOPNOTSUPP");
	/* 4096 entries of at least 64 bytes: 64 pages or more */
	qp_check(pd, 4095, 0, 0);
	pair_check(IBV_QPT_RC, pd, 4095, 0);
	CHECK_RC(ionic_dv_pd_set_sqcmb(pd, true, false, true), 0);
	qp_check(pd, 4095, 0, EOPNOTSUPP);

	SECTION("REQUIRE with a small SQ");
	qp_check(pd, 64, one, have_cmb ? 0 : EOPNOTSUPP);
	if (have_cmb)
		pair_check(IBV_QPT_RC, pd, 64, 2);

	SECTION("REQUIRE with an express doorbell");
	if (have_expdb) {
		struct ibv_cq *cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
		int before = cmb_maps(NULL), before_x = express_maps();
		struct ibv_qp *qp;

		REQUIRE(cq);
		CHECK_RC(ionic_dv_pd_set_sqcmb(pd, true, true, true), 0);
		/*
		 * 64-byte WQEs (128 with firmware version 1, whose atomic
		 * WQE leaves no room for the trailer) qualify for an express
		 * doorbell once the PD allows their size, so it is asked
		 * for, and the kernel grants it: an express window.
		 */
		CHECK_RC(ionic_dv_pd_set_expdb_mask(
				 pd, IONIC_EXPDB_64 | IONIC_EXPDB_128),
			 0);
		qp = qp_make(pd, cq, 16, 1, 0);
		CHECK(qp);
		CHECK_EQ(cmb_maps(NULL), before + 1);
		CHECK_EQ(express_maps(), before_x + 1);
		if (qp)
			CHECK_RC(ibv_destroy_qp(qp), 0);
		CHECK_EQ(cmb_maps(NULL), before);
		/* traffic through express windows: the pair's SQs, once
		 * the PD allows their WQE size too */
		CHECK_RC(ionic_dv_pd_set_expdb_mask(
				 pd, IONIC_EXPDB_64 | IONIC_EXPDB_128 |
					     IONIC_EXPDB_256 | IONIC_EXPDB_512),
			 0);
		pair_check_x(IBV_QPT_RC, pd, 64, 2, 2);
		pair_check_x(IBV_QPT_UD, pd, 64, 2, 2);
		pair_check_x(IBV_QPT_RC, pd, 7, 2, 2);
		/* a size the PD does not allow: a plain window */
		CHECK_RC(ionic_dv_pd_set_expdb_mask(pd, IONIC_EXPDB_64), 0);
		CHECK_RC(ionic_dv_pd_set_sqcmb(pd, true, true, false), 0);
		pair_check_x(IBV_QPT_RC, pd, 64, 2, 0);
		/*
		 * A ring too big for the CMB, sized for an express doorbell
		 * (64-byte WQEs with the 8-byte trailer): the kernel puts it
		 * in host memory, no trailer is written, and the caps give
		 * the trailer's bytes back (a whole SGE and its 16 inline
		 * bytes: 2 SGEs and 32 bytes, not 1 and 24).
		 */
		before = cmb_maps(NULL);
		before_x = express_maps();
		qp = qp_make(pd, cq, 4095, 1, 0);
		CHECK(qp);
		CHECK_EQ(cmb_maps(NULL), before);
		CHECK_EQ(express_maps(), before_x);
		if (qp) {
			struct ibv_qp_init_attr ia;
			struct ibv_qp_attr qa;

			CHECK_RC(ibv_query_qp(qp, &qa, IBV_QP_CAP, &ia), 0);
			CHECK_EQ(qa.cap.max_inline_data,
				 16 * qa.cap.max_send_sge);
			CHECK_RC(ibv_destroy_qp(qp), 0);
		}
		CHECK_RC(ibv_destroy_cq(cq), 0);
	} else {
		CHECK_RC(ionic_dv_pd_set_sqcmb(pd, true, true, true), EINVAL);
	}

	SECTION("16-page SQ: CMB; 32 pages: host");
	CHECK_RC(ionic_dv_pd_set_sqcmb(pd, true, false, false), 0);
	{
		struct ibv_cq *cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
		struct ibv_qp *qp;
		size_t bytes = 0;
		uint32_t wr = 16;

		REQUIRE(cq);
		/* grow the SQ until its ring is 16 pages (by the window) */
		for (; have_cmb && wr <= 4096; wr *= 2) {
			qp = qp_try(pd, cq, wr - 1);
			REQUIRE(qp);
			cmb_maps(&bytes);
			bytes -= base_bytes;
			CHECK_RC(ibv_destroy_qp(qp), 0);
			if (bytes >= 16 * 4096)
				break;
		}
		if (have_cmb) {
			CHECK_EQ(bytes, 16 * 4096);
			/* twice the entries: 32 pages, over the limit */
			qp_check(pd, 2 * wr - 1, 0, 0);
			pair_check(IBV_QPT_RC, pd, wr - 1, 2);
		}
		CHECK_RC(ibv_destroy_cq(cq), 0);
	}

	CHECK_RC(ibv_dealloc_pd(pd), 0);
	CHECK_RC(ibv_close_device(ctx), 0);
	return check_finish();
}
