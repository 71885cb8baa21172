// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Fuzz target: the provider's completion path against a hostile or broken
 * device (docs/testing.md §5.2).
 *
 * Real vCQs and QPs are built in host memory by the device-free
 * constructors of tests/support/provider_fixture.h.  The input is a program: a few
 * bytes of configuration (pipelines, firmware version, CQ and queue
 * sizes, RC or UD, which CQs, timestamps, extended polling), then
 * operations: post sends and receives, let a correct device model
 * complete them, let the device write a CQE of arbitrary bytes, colour and
 * queue id, poll (ibv_poll_cq or start/next/end_poll), move a QP to ERR or
 * RESET, destroy and re-create a QP, arm a CQ.
 *
 * The oracle knows every work request posted and checks, after every
 * poll:
 *  - each WC names a live QP and a work request of that QP still
 *    outstanding on the queue its opcode says, with that request's
 *    opcode: never a completion for a request that was not posted, none
 *    twice;
 *  - send completions come in posting order, and only unsignalled
 *    requests are retired without a WC; success only for signalled ones;
 *    after a queue's first error or flush, only flushes;
 *  - the host read every CQE the device wrote (its read position is the
 *    device's write position) whenever a poll returned less than asked
 *    and the device never overran the ring: the CQ never stalls;
 *  - CQ credits are conserved: free credits plus work requests
 *    outstanding on a CQ always equal its capacity.
 * At the end every QP goes to ERR and its CQs are polled until empty:
 * every work request then has exactly its one completion (or was retired
 * unsignalled), within a bounded number of polls, and once every QP is
 * destroyed every credit is back.
 *
 * ASan and UBSan (always on under libFuzzer) catch out-of-bounds reads
 * and writes of rings and slot metadata.
 *
 * This file holds the program: set-up, posting, polling, state changes
 * and the final drain.  The oracle is provider_cq_oracle.c, the device
 * model provider_cq_device.c, what they share provider_cq.h.
 */
#include <errno.h>

#include "fuzz.h"
#include "provider_cq.h"

/* ibv_cmd_modify_qp without a kernel: ionic_modify_qp runs for real. */
int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask, struct ibv_modify_qp *cmd, size_t cmd_size)
{
	(void)qp;
	(void)attr;
	(void)attr_mask;
	(void)cmd;
	(void)cmd_size;
	return 0;
}

static struct ibv_comp_channel fz_channel = { .fd = -1 };

/* IONIC_FUZZ_TRACE=1: print every operation (to understand a finding). */
bool fz_trace_on;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_trace_on = getenv("IONIC_FUZZ_TRACE") != NULL;
	return 0;
}

/* ---- set-up ------------------------------------------------------------ */

static void fz_queue_reset(struct fz_queue *q, uint16_t cons)
{
	q->head = q->tail = q->dev_next = 0;
	q->failed = false;
	q->cons = cons;
}

static void fz_qp_create(struct fz *fz, struct fz_qp *f)
{
	struct unit_qp_opts o = {
		.ud = f->ud,
		.qpid = f->qpid,
		.depth = f->depth,
		.max_sge = f->max_sge,
		.udma = f->udma,
		.recv_vcq = fz->vcq[f->recv_vcq],
	};

	f->qp = unit_qp_create(fz->dev, fz->vcq[f->send_vcq], &o);
	fz_queue_reset(&f->sq, f->qp->sq.q.cons);
	fz_queue_reset(&f->rq, f->qp->rq.q.cons);
}

static void fz_setup(struct fz *fz, struct fuzz_in *in)
{
	uint8_t c = fuzz_u8(in);
	struct unit_dev_opts dopts = {
		.udma_count = (uint8_t)(1 + (c & 1)),
		.version = (uint8_t)(1 + ((c >> 1) & 1)),
	};
	bool want_ts = c & 4;
	unsigned int i, u;

	fz->ex_poll = c & 8;
	fz->nvcq = 1 + ((c >> 4) & 1);
	fz->dev = unit_dev_create(&dopts);
	for (i = 0; i < fz->nvcq; i++) {
		/* 1..300 entries: rings of 128, 256 or 512 slots */
		int cqe = 1 + fuzz_u8(in) % 200 + (fuzz_u8(in) & 1) * 100;

		fz->vcq[i] = unit_cq_create(fz->dev, cqe);
		fz->vcq[i]->want_ts = want_ts;
		/* as if created with a completion channel: arming works */
		fz->vcq[i]->vcq.cq.channel = &fz_channel;
		if (fz->ex_poll)
			ionic_vcq_init_ex(
				fz->vcq[i],
				IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM |
					IBV_WC_EX_WITH_QP_NUM |
					IBV_WC_EX_WITH_SRC_QP |
					IBV_WC_EX_WITH_SL |
					IBV_WC_EX_WITH_COMPLETION_TIMESTAMP);
		for (u = 0; u < IONIC_MAX_UDMA; u++) {
			struct fz_hwcq *hw = fz_hw_of(fz, i, u);

			if (!(fz->vcq[i]->udma_mask & (1u << u)))
				continue;
			hw->d = unit_cq_dev(&fz->vcq[i]->cq[u]);
			hw->prod = hw->d.cq->q.prod;
			hw->color = !!hw->d.cq->color;
		}
	}

	fz->nqp = 1 + (c >> 6);
	for (i = 0; i < fz->nqp; i++) {
		struct fz_qp *f = &fz->qp[i];
		uint8_t q = fuzz_u8(in);

		f->qpid = 0x40 + i;
		f->ud = q & 1;
		f->udma = (uint8_t)((q >> 1) & (dopts.udma_count - 1));
		f->send_vcq = (uint8_t)(((q >> 2) & 1) % fz->nvcq);
		f->recv_vcq = (uint8_t)(((q >> 3) & 1) % fz->nvcq);
		f->max_sge = 1 + ((q >> 4) & 3);
		f->depth = 1 + fuzz_u8(in) % 64;
		fz_qp_create(fz, f);
	}
	fz->next_wr_id = 0x1000;
}

/* ---- operations ---------------------------------------------------------- */

static void fz_record(struct fz_queue *q, const struct fz_wr *w)
{
	FUZZ_CHECK(fz_len(q) < FZ_FIFO, "oracle FIFO full");
	*fz_at(q, q->tail++) = *w;
}

static void fz_post_send(struct fz *fz, struct fz_qp *f, struct fuzz_in *in)
{
	static const struct {
		enum ibv_wr_opcode wr;
		enum ibv_wc_opcode wc;
	} ops[] = {
		/* UD takes the first two */
		{ IBV_WR_SEND, IBV_WC_SEND },
		{ IBV_WR_SEND_WITH_IMM, IBV_WC_SEND },
		{ IBV_WR_RDMA_WRITE, IBV_WC_RDMA_WRITE },
		{ IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WC_RDMA_WRITE },
		{ IBV_WR_RDMA_READ, IBV_WC_RDMA_READ },
		{ IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WC_COMP_SWAP },
		{ IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WC_FETCH_ADD },
		{ IBV_WR_SEND_WITH_INV, IBV_WC_SEND },
		{ IBV_WR_LOCAL_INV, IBV_WC_LOCAL_INV }, /* local: NPG */
	};
	struct ibv_send_wr wr[8], *bad = NULL;
	struct ibv_sge sge[8];
	uint64_t buf[8];
	unsigned int kind[8];
	unsigned int n = 1 + fuzz_u8(in) % 8, i, posted;
	uint8_t sig = fuzz_u8(in);
	struct ionic_sq *sq = &f->qp->sq;
	uint16_t prod = sq->q.prod;
	int rc;

	memset(wr, 0, sizeof(wr));
	for (i = 0; i < n; i++) {
		uint8_t o = fuzz_u8(in);
		/* low nibble: the operation; high nibble: 4-byte units */
		unsigned int k = (o & 15) % (f->ud ? 2 : 9);

		kind[i] = k;
		wr[i].wr_id = fz->next_wr_id++;
		wr[i].opcode = ops[k].wr;
		wr[i].send_flags = (sig >> i) & 1 ? IBV_SEND_SIGNALED : 0;
		wr[i].imm_data = htobe32(o);
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
		/* 0..60 bytes; atomics take exactly 8 */
		sge[i] = (struct ibv_sge){ .addr = (uintptr_t)&buf[i],
					   .length = (o >> 4) * 4,
					   .lkey = 0x100 };
		if (k == 5 || k == 6)
			sge[i].length = 8;
		if (sge[i].length && k != 8) {
			wr[i].sg_list = &sge[i];
			wr[i].num_sge = 1;
		}
		if (f->ud) {
			wr[i].wr.ud.ah = &unit_ah.ibah;
			wr[i].wr.ud.remote_qpn = 0x99;
			wr[i].wr.ud.remote_qkey = 0x11111111;
		} else if (k == 5 || k == 6) {
			wr[i].wr.atomic.remote_addr = 0x10000;
			wr[i].wr.atomic.rkey = 0x200;
		} else if (k >= 7) {
			wr[i].invalidate_rkey = 0x300;
		} else {
			wr[i].wr.rdma.remote_addr = 0x20000;
			wr[i].wr.rdma.rkey = 0x200;
		}
	}

	rc = ionic_post_send(&f->qp->vqp.qp, wr, &bad);
	fz_trace("post_send qp %u n %u sig %#x -> %d\n", f->qpid, n, sig, rc);
	/* the requests before *bad were prepared, one slot each */
	for (posted = 0; posted < n && &wr[posted] != bad; posted++) {
		uint16_t slot = (uint16_t)(prod + posted) & sq->q.mask;
		bool remote = !f->ud && kind[posted] != 8;

		FUZZ_CHECK(sq->meta[slot].remote == remote,
			   "QP %u slot %u: remote %d", f->qpid, slot,
			   sq->meta[slot].remote);
		fz_record(&f->sq,
			  &(struct fz_wr){
				  .wr_id = wr[posted].wr_id,
				  .slot = slot,
				  .seq = sq->meta[slot].seq,
				  .wc_op = (uint8_t)ops[kind[posted]].wc,
				  .signaled = wr[posted].send_flags &
					      IBV_SEND_SIGNALED,
				  .remote = remote,
			  });
	}
	FUZZ_CHECK(rc ? posted < n : posted == n,
		   "post_send: %d, %u of %u posted", rc, posted, n);
	FUZZ_CHECK(!rc || rc == ENOMEM, "post_send: errno %d", rc);
	FUZZ_CHECK(((uint16_t)(sq->q.prod - prod) & sq->q.mask) == posted,
		   "QP %u: SQ advanced by other than %u", f->qpid, posted);
}

static void fz_post_recv(struct fz *fz, struct fz_qp *f, struct fuzz_in *in)
{
	struct ibv_recv_wr wr[8], *bad = NULL;
	struct ibv_sge sge[8];
	unsigned int n = 1 + fuzz_u8(in) % 8, i, posted;
	struct ionic_rq *rq = &f->qp->rq;
	uint16_t prod = rq->q.prod;
	int rc;

	memset(wr, 0, sizeof(wr));
	for (i = 0; i < n; i++) {
		sge[i] = (struct ibv_sge){ .addr = 0x30000,
					   .length = 4096,
					   .lkey = 0x100 };
		wr[i].wr_id = fz->next_wr_id++;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	rc = ionic_post_recv(&f->qp->vqp.qp, wr, &bad);
	fz_trace("post_recv qp %u n %u -> %d\n", f->qpid, n, rc);
	for (posted = 0; posted < n && &wr[posted] != bad; posted++)
		fz_record(&f->rq, &(struct fz_wr){
					  .wr_id = wr[posted].wr_id,
					  .slot = (uint16_t)(prod + posted) &
						  rq->q.mask,
					  .wc_op = IBV_WC_RECV,
					  .signaled = true,
				  });
	FUZZ_CHECK(rc ? posted < n : posted == n,
		   "post_recv: %d, %u of %u posted", rc, posted, n);
	/* a full ring, or a slot whose last receive is still out (ooo) */
	FUZZ_CHECK(!rc || rc == ENOMEM, "post_recv: errno %d", rc);
}

/* Poll up to 0..16 WCs from vCQ 'v', plainly or through the extended API. */
static unsigned int fz_poll(struct fz *fz, unsigned int v, unsigned int want)
{
	struct ionic_vcq *vcq = fz->vcq[v];
	struct ibv_wc wc[16];
	unsigned int n = 0;
	int rc;

	if (!fz->ex_poll) {
		rc = ionic_poll_cq(&vcq->vcq.cq, (int)want, wc);
		FUZZ_CHECK(rc >= 0 && (unsigned int)rc <= want,
			   "poll_cq(%u): %d", want, rc);
		n = (unsigned int)rc;
	} else if (want) {
		struct ibv_cq_ex *cq_ex = &vcq->vcq.cq_ex;
		struct ibv_poll_cq_attr attr = { 0 };

		for (rc = ibv_start_poll(cq_ex, &attr); !rc && n < want;
		     rc = n < want ? ibv_next_poll(cq_ex) : 0) {
			struct ibv_wc *c = &wc[n++];

			memset(c, 0, sizeof(*c));
			c->wr_id = cq_ex->wr_id;
			c->status = cq_ex->status;
			c->opcode = ibv_wc_read_opcode(cq_ex);
			c->qp_num = ibv_wc_read_qp_num(cq_ex);
			/* every reader, for what it may read */
			c->byte_len = ibv_wc_read_byte_len(cq_ex);
			c->imm_data = ibv_wc_read_imm_data(cq_ex);
			c->src_qp = ibv_wc_read_src_qp(cq_ex);
			c->sl = ibv_wc_read_sl(cq_ex);
			c->wc_flags = ibv_wc_read_wc_flags(cq_ex);
			c->vendor_err = ibv_wc_read_vendor_err(cq_ex);
			(void)ibv_wc_read_completion_ts(cq_ex);
		}
		FUZZ_CHECK(!rc || rc == ENOENT, "start/next_poll: %d", rc);
		if (n)
			ibv_end_poll(cq_ex);
	}
	fz_trace("poll cq %u want %u -> %u\n", v, want, n);
	for (unsigned int i = 0; i < n; i++)
		fz_trace("  wc qp %u wr %#llx op %d status %d\n", wc[i].qp_num,
			 (unsigned long long)wc[i].wr_id, wc[i].opcode,
			 wc[i].status);
	fz_check_poll(fz, v, wc, n, n < want);
	return n;
}

static void fz_modify(struct fz_qp *f, enum ibv_qp_state state)
{
	struct ibv_qp_attr attr = { .qp_state = state };
	int rc = ionic_modify_qp(&f->qp->vqp.qp, &attr, IBV_QP_STATE);

	fz_trace("modify qp %u -> %d\n", f->qpid, state);

	FUZZ_CHECK(!rc, "modify_qp(%d): %d", state, rc);
	/* what ibv_modify_qp records once the provider succeeded */
	f->qp->vqp.qp.state = state;
	if (state == IBV_QPS_RESET) {
		/* work requests are gone without completions */
		fz_queue_reset(&f->sq, f->qp->sq.q.cons);
		fz_queue_reset(&f->rq, f->qp->rq.q.cons);
		/* and the QP goes back to work: RESET -> ... -> RTS */
		f->qp->vqp.qp.state = IBV_QPS_RTS;
	}
}

/* Destroy a live QP; re-create a destroyed one (same or another qpid). */
static void fz_destroy_create(struct fz *fz, struct fz_qp *f, uint8_t arg)
{
	fz_trace("%s qp %u\n", f->qp ? "destroy" : "create", f->qpid);
	if (f->qp) {
		unit_qp_destroy(f->qp);
		f->qp = NULL;
		return;
	}
	if (arg & 0x80)
		f->qpid ^= 0x10;
	fz_qp_create(fz, f);
}

static void fz_op(struct fz *fz, struct fuzz_in *in)
{
	uint8_t op = fuzz_u8(in);
	struct fz_qp *f = &fz->qp[(op >> 4) % fz->nqp];
	unsigned int v = (op >> 4) % fz->nvcq;

	/* operations on a destroyed QP create it again */
	if (!f->qp && (op & 15) < 6) {
		fz_destroy_create(fz, f, op);
		return;
	}

	switch (op & 15) {
	case 0:
	case 1:
		fz_post_send(fz, f, in);
		break;
	case 2:
		fz_post_recv(fz, f, in);
		break;
	case 3:
	case 4:
		fz_dev_complete(fz, f, in);
		break;
	case 5:
		fz_modify(f, (fuzz_u8(in) & 1) ? IBV_QPS_RESET : IBV_QPS_ERR);
		break;
	case 6:
		fz_destroy_create(fz, f, fuzz_u8(in));
		break;
	case 7:
		FUZZ_CHECK(!ionic_req_notify_cq(&fz->vcq[v]->vcq.cq, op & 1),
			   "req_notify_cq failed");
		fz_check_cqs(fz, v, false);
		break;
	case 8:
	case 9:
	case 10:
		fz_dev_raw(fz, in);
		break;
	default:
		fz_poll(fz, v, fuzz_u8(in) % 17); /* 0: polls nothing */
		break;
	}
}

/*
 * Every live QP to ERR, then poll until nothing comes: every request has
 * had its completion, and it took a bounded number of polls.
 */
static void fz_finish(struct fz *fz)
{
	unsigned int i, v, bound = 8, iter;
	bool progress = true;

	for (i = 0; i < fz->nqp; i++) {
		if (!fz->qp[i].qp)
			continue;
		fz_modify(&fz->qp[i], IBV_QPS_ERR);
		bound += fz_len(&fz->qp[i].sq) + fz_len(&fz->qp[i].rq);
	}
	for (iter = 0; progress; iter++) {
		FUZZ_CHECK(iter <= bound, "still completing after %u polls",
			   iter);
		progress = false;
		for (v = 0; v < fz->nvcq; v++)
			if (fz_poll(fz, v, 16))
				progress = true;
	}

	for (i = 0; i < fz->nqp; i++) {
		struct fz_qp *f = &fz->qp[i];

		if (!f->qp)
			continue;
		FUZZ_CHECK(!fz_len(&f->sq) && ionic_queue_empty(&f->qp->sq.q),
			   "QP %u: %u sends never completed", f->qpid,
			   fz_len(&f->sq));
		FUZZ_CHECK(!fz_len(&f->rq) && ionic_queue_empty(&f->qp->rq.q),
			   "QP %u: %u receives never completed", f->qpid,
			   fz_len(&f->rq));
		unit_qp_destroy(f->qp);
		f->qp = NULL;
	}
	/* every credit back (fz_check_cqs with nothing outstanding) */
	for (v = 0; v < fz->nvcq; v++) {
		fz_check_cqs(fz, v, false);
		unit_cq_destroy(fz->vcq[v]);
	}
	unit_dev_destroy(fz->dev);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { .p = data, .n = size };
	struct fz *fz = calloc(1, sizeof(*fz));
	unsigned int ops;

	FUZZ_CHECK(fz, "out of memory");
	fz_setup(fz, &in);
	for (ops = 0; ops < FZ_MAX_OPS && fuzz_more(&in); ops++)
		fz_op(fz, &in);
	fz_finish(fz);
	free(fz);
	return 0;
}
