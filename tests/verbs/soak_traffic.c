// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * verbs-soak: a traffic worker (see soak.h).  Each RC pair sends from side
 * 0 (A) to side 1 (B); slot i of a batch is WR i's: A's source at
 * A_SRC + i * SOAK_SLOT, its target, receive buffer or READ source on B,
 * READ and atomic results back on A.  Everything is checked once the
 * batch's last WR (always signalled) completes: RC completes in order, so
 * every earlier WR, signalled or not, has taken effect by then.
 */
#include <endian.h>

#include "soak.h"

/* A's buffer */
#define A_SRC 0
#define A_READ (16 * 1024)
#define A_ATOMIC (32 * 1024)
/* B's buffer */
#define B_DST 0
#define B_READ (16 * 1024)
#define B_COUNTER (32 * 1024)
#define B_WINDOW (64 * 1024)
#define BUF_LEN (128 * 1024)

#define NPAIRS_MAX 4
#define RESET_EVERY 40 /* batches of a pair between resets */
#define MW_EVERY 7 /* batches of a pair between window cycles */

#define ACC_ALL                                              \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |  \
	 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC | \
	 IBV_ACCESS_MW_BIND)

struct soak_pair {
	struct fx_pair p;
	uint64_t counter; /* B's atomic counter, as it must be */
	struct ibv_mw *mw; /* type 2, over B's window area */
	uint32_t rkey; /* its last key */
	unsigned int batches;
};

struct soak_worker {
	struct soak_run *run;
	unsigned int id;
	uint64_t rng;
	unsigned int npairs;
	struct soak_pair rc[NPAIRS_MAX];
	struct fx_pair ud;
	struct soak_stats st;
};

/* One WR of a batch, as planned. */
struct soak_wr {
	enum ibv_wr_opcode op;
	uint32_t len;
	bool signaled, inl;
	uint64_t add_swap, compare; /* atomics */
	uint64_t expect_orig; /* atomics: what must come back */
	uint32_t imm;
	int recv; /* index of its receive on B, or -1 */
};

static uint8_t *a_at(struct soak_pair *sp, size_t off)
{
	return sp->p.buf[0] + off;
}

static uint8_t *b_at(struct soak_pair *sp, size_t off)
{
	return sp->p.buf[1] + off;
}

static void mr_full_access(struct fx_pair *p)
{
	for (int i = 0; i < 2; i++) {
		REQUIRE_EQ(ibv_dereg_mr(p->mr[i]), 0);
		p->mr[i] = ibv_reg_mr(p->pd, p->buf[i], p->buf_len, ACC_ALL);
		REQUIRE(p->mr[i]);
	}
}

static void pair_counter_init(struct soak_worker *w, struct soak_pair *sp)
{
	sp->counter = ((uint64_t)soak_rand(&w->rng) << 32) | soak_rand(&w->rng);
	memcpy(b_at(sp, B_COUNTER), &sp->counter, 8);
}

struct soak_worker *soak_worker_create(struct soak_run *run, unsigned int id,
				       unsigned int rc_pairs)
{
	struct soak_worker *w = calloc(1, sizeof(*w));
	struct fx_qp_opts o;
	unsigned int i;

	REQUIRE(w);
	w->run = run;
	w->id = id;
	w->rng = 0x50a4 + id;
	w->npairs = rc_pairs < NPAIRS_MAX ? rc_pairs : NPAIRS_MAX;
	fx_qp_opts_default(&o, IBV_QPT_RC);
	for (i = 0; i < w->npairs; i++) {
		struct soak_pair *sp = &w->rc[i];

		fx_pair_create(&sp->p, run->ctx, run->pd, &o, BUF_LEN);
		mr_full_access(&sp->p);
		fx_pair_connect(&sp->p);
		fx_fill(b_at(sp, B_READ), 16 * 1024, id * 16 + i);
		pair_counter_init(w, sp);
		sp->mw = ibv_alloc_mw(run->pd, IBV_MW_TYPE_2);
		REQUIRE(sp->mw);
		sp->rkey = sp->mw->rkey;
	}
	fx_qp_opts_default(&o, IBV_QPT_UD);
	fx_pair_create(&w->ud, run->ctx, run->pd, &o, BUF_LEN);
	fx_pair_connect(&w->ud);
	return w;
}

void soak_worker_destroy(struct soak_worker *w, struct soak_stats *total)
{
	for (unsigned int i = 0; i < w->npairs; i++) {
		CHECK_RC(ibv_dealloc_mw(w->rc[i].mw), 0);
		fx_pair_destroy(&w->rc[i].p);
	}
	fx_pair_destroy(&w->ud);
	for (unsigned int i = 0; i < SOAK_NOPS; i++)
		total->ops[i] += w->st.ops[i];
	total->ud_sends += w->st.ud_sends;
	total->wcs += w->st.wcs;
	total->flushed += w->st.flushed;
	total->resets += w->st.resets;
	free(w);
}

/* ---- RC batches ------------------------------------------------------- */

static const enum ibv_wr_opcode batch_ops[] = {
	IBV_WR_SEND,
	IBV_WR_SEND_WITH_IMM,
	IBV_WR_RDMA_WRITE,
	IBV_WR_RDMA_WRITE_WITH_IMM,
	IBV_WR_RDMA_READ,
	IBV_WR_ATOMIC_CMP_AND_SWP,
	IBV_WR_ATOMIC_FETCH_AND_ADD,
};

static enum ibv_wc_opcode wc_op(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return IBV_WC_RDMA_WRITE;
	case IBV_WR_RDMA_READ:
		return IBV_WC_RDMA_READ;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return IBV_WC_COMP_SWAP;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return IBV_WC_FETCH_ADD;
	default:
		return IBV_WC_SEND;
	}
}

static bool is_atomic(enum ibv_wr_opcode op)
{
	return op == IBV_WR_ATOMIC_CMP_AND_SWP ||
	       op == IBV_WR_ATOMIC_FETCH_AND_ADD;
}

static bool takes_recv(enum ibv_wr_opcode op)
{
	return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM ||
	       op == IBV_WR_RDMA_WRITE_WITH_IMM;
}

/* Decide the batch, fill the sources, compute what atomics return. */
static int plan(struct soak_worker *w, struct soak_pair *sp, struct soak_wr *b,
		int *nrecv)
{
	int n = 1 + (int)(soak_rand(&w->rng) % SOAK_BATCH), i;

	*nrecv = 0;
	for (i = 0; i < n; i++) {
		struct soak_wr *x = &b[i];

		memset(x, 0, sizeof(*x));
		x->op = batch_ops[soak_rand(&w->rng) % 7];
		x->len = soak_rand(&w->rng) % (SOAK_SLOT + 1);
		x->signaled = i == n - 1 || soak_rand(&w->rng) % 4;
		x->imm = soak_rand(&w->rng);
		x->recv = takes_recv(x->op) ? (*nrecv)++ : -1;
		if (is_atomic(x->op)) {
			x->len = 8;
			x->add_swap = soak_rand(&w->rng);
			x->compare = soak_rand(&w->rng) % 2 ? sp->counter :
							      sp->counter + 1;
			x->expect_orig = sp->counter;
			if (x->op == IBV_WR_ATOMIC_FETCH_AND_ADD)
				sp->counter += x->add_swap;
			else if (x->compare == sp->counter)
				sp->counter = x->add_swap;
		}
		x->inl = x->op != IBV_WR_RDMA_READ && !is_atomic(x->op) &&
			 x->len <= sp->p.cap[0].max_inline_data &&
			 soak_rand(&w->rng) % 2;
		fx_fill(a_at(sp, A_SRC + (size_t)i * SOAK_SLOT), x->len,
			soak_rand(&w->rng));
	}
	return n;
}

static void post_batch(struct soak_pair *sp, const struct soak_wr *b, int n)
{
	struct ibv_send_wr wr[SOAK_BATCH], *bad;
	struct ibv_recv_wr rwr[SOAK_BATCH], *rbad;
	struct ibv_sge sge[SOAK_BATCH], rsge[SOAK_BATCH];
	int i, r = 0;

	memset(wr, 0, sizeof(wr));
	for (i = 0; i < n; i++) {
		const struct soak_wr *x = &b[i];
		uint64_t remote =
			(uintptr_t)b_at(sp, B_DST) + (uint64_t)i * SOAK_SLOT;

		sge[i] = (struct ibv_sge){ (uintptr_t)a_at(sp, A_SRC) +
						   (uint64_t)i * SOAK_SLOT,
					   x->len, sp->p.mr[0]->lkey };
		wr[i].wr_id = (uint64_t)i;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].opcode = x->op;
		wr[i].send_flags = (x->signaled ? IBV_SEND_SIGNALED : 0) |
				   (x->inl ? IBV_SEND_INLINE : 0);
		wr[i].imm_data = htobe32(x->imm);
		if (x->op == IBV_WR_RDMA_READ) {
			sge[i].addr = (uintptr_t)a_at(sp, A_READ) +
				      (uint64_t)i * SOAK_SLOT;
			remote = (uintptr_t)b_at(sp, B_READ) +
				 (uint64_t)i * SOAK_SLOT;
		}
		wr[i].wr.rdma.remote_addr = remote;
		wr[i].wr.rdma.rkey = sp->p.mr[1]->rkey;
		if (is_atomic(x->op)) {
			sge[i].addr =
				(uintptr_t)a_at(sp, A_ATOMIC) + (uint64_t)i * 8;
			wr[i].wr.atomic.remote_addr =
				(uintptr_t)b_at(sp, B_COUNTER);
			wr[i].wr.atomic.rkey = sp->p.mr[1]->rkey;
			wr[i].wr.atomic.compare_add =
				x->op == IBV_WR_ATOMIC_CMP_AND_SWP ?
					x->compare :
					x->add_swap;
			wr[i].wr.atomic.swap = x->add_swap;
		}
		if (x->recv < 0)
			continue;
		/* B's receive for it: slot i, which a WRITE_WITH_IMM also
		 * targets (its receive gets no data) */
		rsge[r] = (struct ibv_sge){ remote, SOAK_SLOT,
					    sp->p.mr[1]->lkey };
		rwr[r] = (struct ibv_recv_wr){ .wr_id = (uint64_t)i,
					       .sg_list = &rsge[r],
					       .num_sge = 1 };
		rwr[r].next = NULL;
		if (r)
			rwr[r - 1].next = &rwr[r];
		r++;
	}
	if (r)
		REQUIRE_EQ(ibv_post_recv(sp->p.qp[1], rwr, &rbad), 0);
	REQUIRE_EQ(ibv_post_send(sp->p.qp[0], wr, &bad), 0);
}

/* A completed WR's effect, as a user would check it. */
static bool verify_send(struct soak_pair *sp, const struct soak_wr *x, int i,
			const struct ibv_wc *wc)
{
	const uint8_t *src = a_at(sp, A_SRC + (size_t)i * SOAK_SLOT);
	bool ok = wc->opcode == wc_op(x->op) && wc->byte_len == x->len;

	if (x->op == IBV_WR_RDMA_WRITE || x->op == IBV_WR_RDMA_WRITE_WITH_IMM)
		ok &= !memcmp(b_at(sp, B_DST + (size_t)i * SOAK_SLOT), src,
			      x->len);
	if (x->op == IBV_WR_RDMA_READ)
		ok &= !memcmp(a_at(sp, A_READ + (size_t)i * SOAK_SLOT),
			      b_at(sp, B_READ + (size_t)i * SOAK_SLOT), x->len);
	if (is_atomic(x->op)) {
		uint64_t orig;

		memcpy(&orig, a_at(sp, A_ATOMIC + (size_t)i * 8), 8);
		ok &= orig == x->expect_orig;
	}
	if (!ok)
		check_fail(__FILE__, __LINE__,
			   "WR %d op %d len %u: wc op %d len %u, data wrong", i,
			   x->op, x->len, wc->opcode, wc->byte_len);
	return ok;
}

static bool verify_recv(struct soak_pair *sp, const struct soak_wr *x, int i,
			const struct ibv_wc *wc)
{
	bool imm = x->op != IBV_WR_SEND;
	bool ok = wc->byte_len == x->len &&
		  !!(wc->wc_flags & IBV_WC_WITH_IMM) == imm &&
		  (!imm || wc->imm_data == htobe32(x->imm)) &&
		  wc->opcode == (x->op == IBV_WR_RDMA_WRITE_WITH_IMM ?
					 IBV_WC_RECV_RDMA_WITH_IMM :
					 IBV_WC_RECV) &&
		  !memcmp(b_at(sp, B_DST + (size_t)i * SOAK_SLOT),
			  a_at(sp, A_SRC + (size_t)i * SOAK_SLOT), x->len);

	if (!ok)
		check_fail(__FILE__, __LINE__,
			   "receive of WR %d op %d len %u: wc op %d len %u "
			   "flags 0x%x, or its data, wrong",
			   i, x->op, x->len, wc->opcode, wc->byte_len,
			   wc->wc_flags);
	return ok;
}

/*
 * Collect a batch: A's completions up to the last WR's, B's receives.  In
 * a reset batch a WR completes successfully or flushed (unsignalled ones
 * only when flushed); otherwise every signalled one successfully, checked.
 */
static bool collect(struct soak_worker *w, struct soak_pair *sp,
		    const struct soak_wr *b, int n, int nrecv, bool reset)
{
	struct ibv_wc wc[SOAK_BATCH];
	uint8_t seen[SOAK_BATCH] = { 0 };
	bool ok = true, last = false;
	int got, i, k;
	uint64_t t0 = fx_now_ms();

	while (!last && fx_now_ms() - t0 < SOAK_TMO) {
		got = ibv_poll_cq(sp->p.scq[0], SOAK_BATCH, wc);
		REQUIRE(got >= 0);
		for (k = 0; k < got; k++) {
			i = (int)wc[k].wr_id;
			REQUIRE(i >= 0 && i < n);
			w->st.wcs++;
			ok &= !seen[i]++;
			last |= i == n - 1;
			if (reset && wc[k].status == IBV_WC_WR_FLUSH_ERR) {
				w->st.flushed++;
				continue;
			}
			if (wc[k].status != IBV_WC_SUCCESS || !b[i].signaled) {
				check_fail(
					__FILE__, __LINE__,
					"WR %d op %d: status %s, signalled %d",
					i, b[i].op, fx_wc_status(wc[k].status),
					b[i].signaled);
				ok = false;
				continue;
			}
			w->st.ops[b[i].op]++;
			if (!reset)
				ok &= verify_send(sp, &b[i], i, &wc[k]);
		}
	}
	CHECK(last);
	for (i = 0; !reset && i < n; i++)
		ok &= seen[i] == b[i].signaled;

	got = fx_poll(sp->p.rcq[1], wc, nrecv, SOAK_TMO);
	CHECK_EQ(got, nrecv);
	for (k = 0; k < got; k++) {
		i = (int)wc[k].wr_id;
		REQUIRE(i >= 0 && i < n && b[i].recv == k);
		w->st.wcs++;
		if (reset && wc[k].status == IBV_WC_WR_FLUSH_ERR) {
			w->st.flushed++;
			continue;
		}
		CHECK_EQ(wc[k].status, IBV_WC_SUCCESS);
		if (!reset)
			ok &= verify_recv(sp, &b[i], i, &wc[k]);
	}
	return ok && last && got == nrecv;
}

/* Both QPs to ERR with the batch in flight, then RESET and a new
 * connection; the counter is set again (its flushed atomics may or may
 * not have run). */
static void reset_pair(struct soak_pair *sp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct fx_pair *p = &sp->p;

	for (int i = 0; i < 2; i++)
		REQUIRE_EQ(ibv_modify_qp(p->qp[i], &a, IBV_QP_STATE), 0);
}

static void reconnect_pair(struct soak_worker *w, struct soak_pair *sp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
	struct fx_pair *p = &sp->p;

	fx_expect_none(p->scq[0], 5);
	fx_expect_none(p->rcq[1], 5);
	for (int i = 0; i < 2; i++)
		REQUIRE_EQ(ibv_modify_qp(p->qp[i], &a, IBV_QP_STATE), 0);
	for (int i = 0; i < 2; i++)
		REQUIRE_EQ(fx_rc_to_init(p->qp[i]), 0);
	fx_pair_rc_rtr_rts(p);
	pair_counter_init(w, sp);
	w->st.resets++;
}

static bool rc_batch(struct soak_worker *w, struct soak_pair *sp)
{
	struct soak_wr b[SOAK_BATCH];
	bool reset = ++sp->batches % RESET_EVERY == 0, ok;
	int nrecv, n = plan(w, sp, b, &nrecv);

	post_batch(sp, b, n);
	if (reset)
		reset_pair(sp);
	ok = collect(w, sp, b, n, nrecv, reset);
	if (reset)
		reconnect_pair(w, sp);
	else
		CHECK(!memcmp(b_at(sp, B_COUNTER), &sp->counter, 8));
	return ok;
}

/* ---- memory-window cycles and UD ----------------------------------- */

static void post1(struct ibv_qp *qp, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;

	wr->send_flags |= IBV_SEND_SIGNALED;
	REQUIRE_EQ(ibv_post_send(qp, wr, &bad), 0);
}

static bool expect1(struct soak_worker *w, struct ibv_cq *cq, uint64_t id,
		    enum ibv_wc_opcode op, struct ibv_wc *wc)
{
	fx_poll_one(cq, wc, SOAK_TMO);
	w->st.wcs++;
	if (wc->wr_id == id && wc->status == IBV_WC_SUCCESS && wc->opcode == op)
		return true;
	check_fail(__FILE__, __LINE__, "wr %llu: status %s opcode %d",
		   (unsigned long long)wc->wr_id, fx_wc_status(wc->status),
		   wc->opcode);
	return false;
}

/* B binds its window, A writes through it, then A's SEND_WITH_INV or
 * B's LOCAL_INV kills the key. */
static bool mw_cycle(struct soak_worker *w, struct soak_pair *sp)
{
	struct fx_pair *p = &sp->p;
	uint32_t rkey = ibv_inc_rkey(sp->rkey), len, off;
	struct ibv_send_wr wr = { .wr_id = 100, .opcode = IBV_WR_BIND_MW };
	struct ibv_sge sge;
	struct ibv_wc wc;
	bool ok;

	sp->rkey = rkey;
	wr.bind_mw.mw = sp->mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info =
		(struct ibv_mw_bind_info){ p->mr[1],
					   (uintptr_t)b_at(sp, B_WINDOW), 4096,
					   IBV_ACCESS_REMOTE_WRITE };
	post1(p->qp[1], &wr);
	ok = expect1(w, p->scq[1], 100, IBV_WC_BIND_MW, &wc);
	w->st.ops[IBV_WR_BIND_MW] += ok;

	len = 1 + soak_rand(&w->rng) % SOAK_SLOT;
	off = soak_rand(&w->rng) % (4096 - len + 1);
	fx_fill(a_at(sp, A_SRC), len, soak_rand(&w->rng));
	sge = (struct ibv_sge){ (uintptr_t)a_at(sp, A_SRC), len,
				p->mr[0]->lkey };
	wr = (struct ibv_send_wr){ .wr_id = 101,
				   .sg_list = &sge,
				   .num_sge = 1,
				   .opcode = IBV_WR_RDMA_WRITE };
	wr.wr.rdma.remote_addr = (uintptr_t)b_at(sp, B_WINDOW) + off;
	wr.wr.rdma.rkey = rkey;
	post1(p->qp[0], &wr);
	ok &= expect1(w, p->scq[0], 101, IBV_WC_RDMA_WRITE, &wc);
	ok &= !memcmp(b_at(sp, B_WINDOW + off), a_at(sp, A_SRC), len);
	w->st.ops[IBV_WR_RDMA_WRITE] += ok;

	if (soak_rand(&w->rng) % 2) {
		REQUIRE_EQ(fx_post_recv(p, 1, 102, B_DST, SOAK_SLOT), 0);
		sge.length = 16;
		wr = (struct ibv_send_wr){ .wr_id = 103,
					   .sg_list = &sge,
					   .num_sge = 1,
					   .opcode = IBV_WR_SEND_WITH_INV,
					   .invalidate_rkey = rkey };
		post1(p->qp[0], &wr);
		ok &= expect1(w, p->scq[0], 103, IBV_WC_SEND, &wc);
		ok &= expect1(w, p->rcq[1], 102, IBV_WC_RECV, &wc);
		ok &= (wc.wc_flags & IBV_WC_WITH_INV) &&
		      wc.invalidated_rkey == rkey;
		w->st.ops[IBV_WR_SEND_WITH_INV] += ok;
	} else {
		wr = (struct ibv_send_wr){ .wr_id = 104,
					   .opcode = IBV_WR_LOCAL_INV,
					   .invalidate_rkey = rkey };
		post1(p->qp[1], &wr);
		ok &= expect1(w, p->scq[1], 104, IBV_WC_LOCAL_INV, &wc);
		w->st.ops[IBV_WR_LOCAL_INV] += ok;
	}
	if (!ok)
		check_fail(__FILE__, __LINE__, "window cycle failed");
	return ok;
}

static bool ud_batch(struct soak_worker *w)
{
	struct fx_pair *p = &w->ud;
	int n = 1 + (int)(soak_rand(&w->rng) % 8), i;
	uint32_t len[8];
	struct ibv_wc wc[8];
	bool ok = true;

	for (i = 0; i < n; i++) {
		len[i] = soak_rand(&w->rng) % 1025;
		fx_fill(p->buf[0] + i * 2048, len[i], soak_rand(&w->rng));
		REQUIRE_EQ(fx_post_recv(p, 1, (uint64_t)i, (size_t)i * 2048,
					len[i] + 40),
			   0);
		REQUIRE_EQ(fx_post_send(p, 0, (uint64_t)i, (size_t)i * 2048,
					len[i], IBV_SEND_SIGNALED, false, 0),
			   0);
	}
	CHECK_EQ(fx_poll(p->scq[0], wc, n, SOAK_TMO), n);
	for (i = 0; i < n; i++)
		ok &= wc[i].status == IBV_WC_SUCCESS &&
		      wc[i].wr_id == (uint64_t)i;
	CHECK_EQ(fx_poll(p->rcq[1], wc, n, SOAK_TMO), n);
	for (i = 0; i < n; i++)
		ok &= wc[i].status == IBV_WC_SUCCESS &&
		      wc[i].wr_id == (uint64_t)i &&
		      wc[i].byte_len == len[i] + 40 &&
		      wc[i].src_qp == p->qp[0]->qp_num &&
		      !memcmp(p->buf[1] + i * 2048 + 40, p->buf[0] + i * 2048,
			      len[i]);
	w->st.wcs += 2 * (uint64_t)n;
	w->st.ud_sends += ok ? (uint64_t)n : 0;
	if (!ok)
		check_fail(__FILE__, __LINE__, "UD batch of %d wrong", n);
	return ok;
}

bool soak_worker_epoch(struct soak_worker *w)
{
	while (fx_now_ms() < w->run->end_ms) {
		for (unsigned int i = 0; i < w->npairs; i++) {
			struct soak_pair *sp = &w->rc[i];

			if (!rc_batch(w, sp))
				return false;
			if (sp->batches % MW_EVERY == 0 && !mw_cycle(w, sp))
				return false;
		}
		if (!ud_batch(w))
			return false;
	}
	return true;
}
