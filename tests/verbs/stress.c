// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Multi-threaded post/poll stress through ionic-sim, default (thread-safe)
 * mode, with exact completion accounting.
 *
 * One RC pair A <-> B.  Both QPs share ONE send CQ and ONE receive CQ.
 * P poster threads (half on A, half on B) each send N signalled messages
 * whose payload names (thread, seq) and is derived from them; Q poller
 * threads poll both CQs, return send credits to the posters, check and
 * re-post receive buffers (post_recv racing post_send on the same QP).
 *
 * Checked: every send completes exactly once, successfully, on the right
 * QP; every message is received
 * exactly once, intact, with the right length and immediate; nothing
 * extra; no stall (a hang is STALL_MS without any completion; a slow,
 * loaded or sanitized run that keeps completing is not one).
 *
 *   verbs-stress [posters [pollers [messages-per-poster [signal-every]]]]
 *
 * With signal-every k > 1 only every k-th send (and the last) is
 * signalled: the others must never be reported, and a completion frees
 * the credits of every earlier send of that poster (one SQ completes in
 * order).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "verbs_fixture.h"

#define MAX_T 16
#define CREDITS 24 /* outstanding sends per poster */
#define RECVS 128 /* receive buffers per QP */
#define SLOT 2048 /* bytes per send/receive slot */
#define STALL_MS 30000

static int nposters = 4, npollers = 2, nmsgs = 3000, sigevery = 1;

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *scq, *rcq;
static struct ibv_qp *qp[2];
static uint8_t *sbuf, *rbuf;
static struct ibv_mr *smr, *rmr;

static _Atomic uint32_t completed[MAX_T]; /* sends completed per poster */
static _Atomic uint64_t sends_done, recvs_done, errors;
static uint8_t *send_seen, *recv_seen; /* [poster][seq] counts */
static _Atomic int stop;
/* moved on by STALL_MS while completions keep coming */
static _Atomic uint64_t deadline, progress_seen;
/* Every error counts; only the first 20 are printed. */
#define ERR(...)                                                     \
	do {                                                         \
		if (atomic_fetch_add(&errors, 1) < 20)               \
			check_fail(__FILE__, __LINE__, __VA_ARGS__); \
		else                                                 \
			check_fail_quietly();                        \
	} while (0)

static uint32_t msg_len(int t, uint32_t seq)
{
	return 8 + (uint32_t)((seq * 131u + (unsigned int)t * 17u) % 1500u);
}

static void msg_fill(uint8_t *b, int t, uint32_t seq, uint32_t len)
{
	uint32_t hdr[2] = { (uint32_t)t, seq };

	memcpy(b, hdr, 8);
	fx_fill(b + 8, len - 8, (unsigned int)t * 1000003u + seq);
}

static bool is_signaled(uint32_t seq)
{
	return seq % (uint32_t)sigevery == (uint32_t)sigevery - 1 ||
	       seq == (uint32_t)nmsgs - 1;
}

static uint8_t *send_slot(int t, uint32_t seq)
{
	return sbuf + ((size_t)t * CREDITS + seq % CREDITS) * SLOT;
}

static void *poster(void *arg)
{
	int t = (int)(intptr_t)arg;
	struct ibv_qp *q = qp[t & 1];

	for (uint32_t seq = 0; seq < (uint32_t)nmsgs && !stop; seq++) {
		uint32_t len = msg_len(t, seq);
		uint8_t *b = send_slot(t, seq);
		struct ibv_sge sge[2];
		struct ibv_send_wr wr = {
			.wr_id = ((uint64_t)t << 32) | seq,
			.sg_list = sge,
			.opcode = IBV_WR_SEND_WITH_IMM,
			.imm_data = htobe32(((uint32_t)t << 24) | seq),
		}, *bad = NULL;
		int rc;

		/* wait for a credit: seq - CREDITS must have completed */
		while (seq >= completed[t] + CREDITS) {
			if (stop)
				return NULL;
			sched_yield();
		}
		if (is_signaled(seq))
			wr.send_flags |= IBV_SEND_SIGNALED;
		msg_fill(b, t, seq, len);
		if (len <= 64) {
			wr.send_flags |= IBV_SEND_INLINE;
			sge[0] = (struct ibv_sge){ (uintptr_t)b, len, 0 };
			wr.num_sge = 1;
		} else {
			/* two SGEs: exercise gather under load */
			uint32_t a = len / 3;

			sge[0] = (struct ibv_sge){ (uintptr_t)b, a, smr->lkey };
			sge[1] = (struct ibv_sge){ (uintptr_t)b + a, len - a,
						   smr->lkey };
			wr.num_sge = 2;
		}
		rc = ibv_post_send(q, &wr, &bad);
		if (rc) {
			ERR("poster %d seq %u: post_send %d", t, seq, rc);
			stop = 1;
			return NULL;
		}
	}
	return NULL;
}

static int post_recv_slot(int side, uint32_t slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)rbuf + ((size_t)side * RECVS + slot) * SLOT,
		.length = SLOT,
		.lkey = rmr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = ((uint64_t)side << 32) | slot,
		.sg_list = &sge,
		.num_sge = 1,
	}, *bad = NULL;

	return ibv_post_recv(qp[side], &wr, &bad);
}

static void on_send(const struct ibv_wc *wc)
{
	int t = (int)(wc->wr_id >> 32);
	uint32_t seq = (uint32_t)wc->wr_id;

	if (t < 0 || t >= nposters || seq >= (uint32_t)nmsgs) {
		ERR("send wc with bogus wr_id %#llx",
		    (unsigned long long)wc->wr_id);
		return;
	}
	if (wc->status != IBV_WC_SUCCESS || wc->opcode != IBV_WC_SEND)
		ERR("send t%d seq %u: status %s opcode %d", t, seq,
		    fx_wc_status(wc->status), wc->opcode);
	if (wc->qp_num != qp[t & 1]->qp_num)
		ERR("send t%d seq %u: qp_num %u, expected %u", t, seq,
		    wc->qp_num, qp[t & 1]->qp_num);
	if (!is_signaled(seq))
		ERR("send t%d seq %u was not signalled but reported", t, seq);
	if (send_seen[(size_t)t * nmsgs + seq]++)
		ERR("send t%d seq %u completed twice", t, seq);
	/* poster t's sends up to seq are done: credits and payload slots
	 * (atomic max: two pollers may process in either order) */
	{
		uint32_t cur = completed[t];

		while (cur < seq + 1 && !atomic_compare_exchange_weak(
						&completed[t], &cur, seq + 1))
			;
	}
	atomic_fetch_add(&sends_done, 1);
}

static void on_recv(const struct ibv_wc *wc)
{
	int side = (int)(wc->wr_id >> 32);
	uint32_t slot = (uint32_t)wc->wr_id;
	uint8_t *b, ref[SLOT];
	uint32_t hdr[2], imm;
	int t;

	if (side < 0 || side > 1 || slot >= RECVS) {
		ERR("recv wc with bogus wr_id %#llx",
		    (unsigned long long)wc->wr_id);
		return;
	}
	if (wc->status != IBV_WC_SUCCESS || wc->opcode != IBV_WC_RECV) {
		ERR("recv side %d slot %u: status %s opcode %d", side, slot,
		    fx_wc_status(wc->status), wc->opcode);
		return;
	}
	if (wc->qp_num != qp[side]->qp_num)
		ERR("recv on qp %u, wr_id says %u", wc->qp_num,
		    qp[side]->qp_num);
	b = rbuf + ((size_t)side * RECVS + slot) * SLOT;
	memcpy(hdr, b, 8);
	t = (int)hdr[0];
	if (t < 0 || t >= nposters || hdr[1] >= (uint32_t)nmsgs ||
	    (t & 1) == side) {
		ERR("recv side %d: bogus header t=%u seq=%u", side, hdr[0],
		    hdr[1]);
	} else {
		uint32_t len = msg_len(t, hdr[1]);

		if (wc->byte_len != len)
			ERR("recv t%d seq %u: byte_len %u, expected %u", t,
			    hdr[1], wc->byte_len, len);
		imm = be32toh(wc->imm_data);
		if (!(wc->wc_flags & IBV_WC_WITH_IMM) ||
		    imm != (((uint32_t)t << 24) | hdr[1]))
			ERR("recv t%d seq %u: imm %#x flags %#x", t, hdr[1],
			    imm, wc->wc_flags);
		msg_fill(ref, t, hdr[1], len);
		if (memcmp(ref, b, len))
			ERR("recv t%d seq %u: payload differs", t, hdr[1]);
		if (recv_seen[(size_t)t * nmsgs + hdr[1]]++)
			ERR("recv t%d seq %u received twice", t, hdr[1]);
	}
	atomic_fetch_add(&recvs_done, 1);
	memset(b, 0, 8);
	if (post_recv_slot(side, slot))
		ERR("re-post receive side %d slot %u", side, slot);
}

static uint64_t n_signaled(void)
{
	uint64_t n = 0;

	for (uint32_t s = 0; s < (uint32_t)nmsgs; s++)
		n += is_signaled(s);
	return n;
}

/* Past the deadline: move it on if anything completed since it was set. */
static bool stalled(void)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	bool st = false;

	pthread_mutex_lock(&lock);
	if (fx_now_ms() > deadline) { /* not moved on by the other poller */
		uint64_t done = sends_done + recvs_done;

		if (done != progress_seen) {
			progress_seen = done;
			deadline = fx_now_ms() + STALL_MS;
		} else {
			st = true;
		}
	}
	pthread_mutex_unlock(&lock);
	return st;
}

static void *poller(void *arg)
{
	uint64_t total = (uint64_t)nposters * (uint64_t)nmsgs;
	uint64_t total_sig = (uint64_t)nposters * n_signaled();
	struct ibv_wc wc[16];

	(void)arg;
	while (!stop) {
		int n;

		if (sends_done == total_sig && recvs_done == total)
			break;
		if (fx_now_ms() > deadline && stalled()) {
			ERR("stalled: %llu/%llu sends, %llu/%llu receives",
			    (unsigned long long)sends_done,
			    (unsigned long long)total_sig,
			    (unsigned long long)recvs_done,
			    (unsigned long long)total);
			stop = 1;
			break;
		}
		n = ibv_poll_cq(scq, 16, wc);
		if (n < 0) {
			ERR("poll send cq %d", n);
			stop = 1;
		}
		for (int i = 0; i < n; i++)
			on_send(&wc[i]);
		n = ibv_poll_cq(rcq, 16, wc);
		if (n < 0) {
			ERR("poll recv cq %d", n);
			stop = 1;
		}
		for (int i = 0; i < n; i++)
			on_recv(&wc[i]);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct fx_qp_opts o;
	union ibv_gid gid;
	pthread_t pt[MAX_T], qt[MAX_T];
	uint64_t total, t0;
	struct ibv_wc wc;

	if (argc > 1)
		nposters = atoi(argv[1]);
	if (argc > 2)
		npollers = atoi(argv[2]);
	if (argc > 3)
		nmsgs = atoi(argv[3]);
	if (argc > 4)
		sigevery = atoi(argv[4]);
	REQUIRE(sigevery >= 1 && sigevery < CREDITS);
	REQUIRE(nposters >= 2 && nposters <= MAX_T && !(nposters & 1));
	REQUIRE(npollers >= 1 && npollers <= MAX_T && nmsgs > 0);
	total = (uint64_t)nposters * (uint64_t)nmsgs;
	fprintf(stderr,
		"%d posters, %d pollers, %d messages each, every %d signalled\n",
		nposters, npollers, nmsgs, sigevery);

	ctx = fx_open();
	pd = ibv_alloc_pd(ctx);
	REQUIRE(pd);
	REQUIRE(!ibv_query_gid(ctx, 1, 1, &gid));
	scq = ibv_create_cq(ctx, nposters * CREDITS + 16, NULL, NULL, 0);
	rcq = ibv_create_cq(ctx, 2 * RECVS + 16, NULL, NULL, 0);
	REQUIRE(scq && rcq);
	fx_qp_opts_default(&o, IBV_QPT_RC);
	o.rnr_retry = 7; /* a receive re-post may lag: wait */
	o.min_rnr_timer = 1;
	for (int i = 0; i < 2; i++) {
		struct ibv_qp_init_attr ia = {
			.send_cq = scq, .recv_cq = rcq, .qp_type = IBV_QPT_RC,
			.cap = {
				.max_send_wr = (uint32_t)(nposters / 2) * CREDITS,
				.max_recv_wr = RECVS,
				.max_send_sge = 2, .max_recv_sge = 1,
				.max_inline_data = 64,
			},
		};

		qp[i] = ibv_create_qp(pd, &ia);
		REQUIRE(qp[i]);
	}
	for (int i = 0; i < 2; i++)
		REQUIRE_EQ(fx_rc_to_init(qp[i]), 0);
	for (int i = 0; i < 2; i++)
		REQUIRE_EQ(fx_rc_to_rtr(qp[i], &gid, qp[!i]->qp_num, &o), 0);
	for (int i = 0; i < 2; i++)
		REQUIRE_EQ(fx_rc_to_rts(qp[i], &o), 0);

	sbuf = calloc((size_t)nposters * CREDITS, SLOT);
	rbuf = calloc(2 * RECVS, SLOT);
	send_seen = calloc(total, 1);
	recv_seen = calloc(total, 1);
	REQUIRE(sbuf && rbuf && send_seen && recv_seen);
	smr = ibv_reg_mr(pd, sbuf, (size_t)nposters * CREDITS * SLOT,
			 IBV_ACCESS_LOCAL_WRITE);
	rmr = ibv_reg_mr(pd, rbuf, 2 * RECVS * SLOT, IBV_ACCESS_LOCAL_WRITE);
	REQUIRE(smr && rmr);
	for (int s = 0; s < 2; s++)
		for (uint32_t i = 0; i < RECVS; i++)
			REQUIRE_EQ(post_recv_slot(s, i), 0);

	t0 = fx_now_ms();
	deadline = t0 + STALL_MS;
	for (int i = 0; i < npollers; i++)
		REQUIRE(!pthread_create(&qt[i], NULL, poller, NULL));
	for (int i = 0; i < nposters; i++)
		REQUIRE(!pthread_create(&pt[i], NULL, poster,
					(void *)(intptr_t)i));
	for (int i = 0; i < nposters; i++)
		pthread_join(pt[i], NULL);
	for (int i = 0; i < npollers; i++)
		pthread_join(qt[i], NULL);
	fprintf(stderr, "%llu sends, %llu receives in %llu ms\n",
		(unsigned long long)sends_done, (unsigned long long)recvs_done,
		(unsigned long long)(fx_now_ms() - t0));

	SECTION("exact accounting");
	CHECK_EQ(sends_done, (uint64_t)nposters * n_signaled());
	CHECK_EQ(recvs_done, total);
	{
		uint64_t miss_s = 0, miss_r = 0;

		for (uint64_t i = 0; i < total; i++) {
			miss_s += send_seen[i] !=
				  is_signaled((uint32_t)(i % (uint64_t)nmsgs));
			miss_r += recv_seen[i] != 1;
		}
		CHECK_EQ(miss_s, 0);
		CHECK_EQ(miss_r, 0);
	}
	for (int i = 0; i < nposters; i++)
		CHECK_EQ(completed[i], nmsgs);
	/* nothing extra arrives */
	CHECK_EQ(fx_poll(scq, &wc, 1, 100), 0);
	CHECK_EQ(fx_poll(rcq, &wc, 1, 0), 0);

	for (int i = 0; i < 2; i++)
		CHECK_RC(ibv_destroy_qp(qp[i]), 0);
	CHECK_RC(ibv_dereg_mr(smr), 0);
	CHECK_RC(ibv_dereg_mr(rmr), 0);
	CHECK_RC(ibv_destroy_cq(scq), 0);
	CHECK_RC(ibv_destroy_cq(rcq), 0);
	CHECK_RC(ibv_dealloc_pd(pd), 0);
	CHECK_RC(ibv_close_device(ctx), 0);
	free(sbuf);
	free(rbuf);
	free(send_seen);
	free(recv_seen);
	return check_finish();
}
