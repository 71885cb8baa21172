// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Fuzz target: the provider's completion path against a hostile or broken
 * device (docs/testing.md §5.2).
 *
 * Real vCQs and QPs are built in host memory by the device-free
 * constructors of tests/support/unit.h.  The input is a program: a few
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
 */
#include <errno.h>

#include "fuzz.h"
#include "unit.h"

#define FZ_MAX_QP 4
#define FZ_MAX_VCQ 2
#define FZ_FIFO 512 /* > any ring the configuration can make */
#define FZ_MAX_OPS 400 /* per input: keeps every run short */

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

/* One work request as posted. */
struct fz_wr {
	uint64_t wr_id;
	uint16_t slot; /* ring slot it was prepared in */
	uint16_t seq; /* MSN, for remote (MSN-tracked) sends */
	uint8_t wc_op; /* enum ibv_wc_opcode its WC must carry */
	bool signaled;
	bool remote;
	bool done; /* receive queue: reported */
};

/* The oracle's view of one SQ or RQ: requests in posting order. */
struct fz_queue {
	struct fz_wr wr[FZ_FIFO];
	unsigned int head, tail; /* absolute: head = oldest outstanding */
	unsigned int dev_next; /* first one the device model has not done */
	bool failed; /* an error or flush WC was seen: only flushes now */
	uint16_t cons; /* provider's consumer index at the last check */
};

struct fz_qp {
	struct ionic_qp *qp; /* NULL once destroyed */
	uint32_t qpid;
	bool ud;
	uint8_t udma;
	uint8_t send_vcq, recv_vcq;
	uint32_t depth, max_sge;
	struct fz_queue sq, rq;
};

/* The device side of one hardware CQ. */
struct fz_hwcq {
	struct unit_cq_dev d;
	unsigned int unread; /* CQEs written, not yet read by the host */
	bool overrun; /* the device once wrote over an unread CQE */
	uint16_t prod; /* host read position at the last check */
	bool color;
};

struct fz {
	struct unit_dev *dev;
	struct ionic_vcq *vcq[FZ_MAX_VCQ];
	unsigned int nvcq;
	bool ex_poll; /* poll through start/next/end_poll */
	struct fz_hwcq hw[FZ_MAX_VCQ][IONIC_MAX_UDMA];
	struct fz_qp qp[FZ_MAX_QP];
	unsigned int nqp;
	uint64_t next_wr_id;
};

static struct ibv_comp_channel fz_channel = { .fd = -1 };

/* IONIC_FUZZ_TRACE=1: print every operation (to understand a finding). */
static bool fz_trace_on;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_trace_on = getenv("IONIC_FUZZ_TRACE") != NULL;
	return 0;
}

#define fz_trace(...)                                 \
	do {                                          \
		if (fz_trace_on)                      \
			fprintf(stderr, __VA_ARGS__); \
	} while (0)

static struct fz_wr *fz_at(struct fz_queue *q, unsigned int abs)
{
	return &q->wr[abs % FZ_FIFO];
}

static unsigned int fz_len(const struct fz_queue *q)
{
	return q->tail - q->head;
}

static struct fz_hwcq *fz_hw_of(struct fz *fz, unsigned int vcq,
				unsigned int udma)
{
	return &fz->hw[vcq][udma];
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
			hw->color = hw->d.cq->color;
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

/* ---- the oracle ---------------------------------------------------------- */

static bool fz_is_recv_op(enum ibv_wc_opcode op)
{
	return op == IBV_WC_RECV || op == IBV_WC_RECV_RDMA_WITH_IMM;
}

static struct fz_qp *fz_qp_by_num(struct fz *fz, uint32_t qpn)
{
	unsigned int i;

	for (i = 0; i < fz->nqp; i++)
		if (fz->qp[i].qp && fz->qp[i].qpid == qpn)
			return &fz->qp[i];
	return NULL;
}

/*
 * The send WCs of one poll for 'f', in order, against the requests the
 * provider retired meanwhile (its SQ consumer index moved by 'retired').
 */
static void fz_check_send(struct fz_qp *f, const struct ibv_wc *wc,
			  unsigned int nwc)
{
	struct fz_queue *q = &f->sq;
	uint16_t cons = f->qp->sq.q.cons;
	unsigned int retired = (uint16_t)(cons - q->cons) & f->qp->sq.q.mask;
	unsigned int i, w = 0;

	FUZZ_CHECK(retired <= fz_len(q),
		   "QP %u: %u sends retired, %u outstanding", f->qpid, retired,
		   fz_len(q));
	for (i = 0; i < retired; i++) {
		struct fz_wr *e = fz_at(q, q->head + i);

		if (w < nwc && wc[w].wr_id == e->wr_id) {
			const struct ibv_wc *c = &wc[w++];

			FUZZ_CHECK(c->opcode == e->wc_op,
				   "QP %u wr %#llx: opcode %d, posted %d",
				   f->qpid, (unsigned long long)e->wr_id,
				   c->opcode, e->wc_op);
			if (c->status == IBV_WC_SUCCESS) {
				FUZZ_CHECK(e->signaled,
					   "QP %u wr %#llx: WC for an "
					   "unsignalled success",
					   f->qpid,
					   (unsigned long long)e->wr_id);
				FUZZ_CHECK(!q->failed,
					   "QP %u wr %#llx: success after the "
					   "SQ failed",
					   f->qpid,
					   (unsigned long long)e->wr_id);
			} else {
				FUZZ_CHECK(
					!q->failed ||
						c->status ==
							IBV_WC_WR_FLUSH_ERR,
					"QP %u wr %#llx: status %d after the "
					"SQ failed",
					f->qpid, (unsigned long long)e->wr_id,
					c->status);
				q->failed = true;
			}
			continue;
		}
		/* retired without a WC: only an unsignalled success */
		FUZZ_CHECK(!e->signaled,
			   "QP %u wr %#llx: signalled, retired without a WC",
			   f->qpid, (unsigned long long)e->wr_id);
		FUZZ_CHECK(!q->failed,
			   "QP %u wr %#llx: retired silently after the SQ "
			   "failed",
			   f->qpid, (unsigned long long)e->wr_id);
	}
	FUZZ_CHECK(w == nwc,
		   "QP %u: send WC wr_id %#llx is no request retired in order",
		   f->qpid, (unsigned long long)wc[w].wr_id);
	q->head += retired;
	if (q->dev_next < q->head)
		q->dev_next = q->head;
	q->cons = cons;
}

static void fz_check_recv(struct fz_qp *f, const struct ibv_wc *c)
{
	struct fz_queue *q = &f->rq;
	unsigned int i;

	for (i = q->head; i != q->tail; i++) {
		struct fz_wr *e = fz_at(q, i);

		if (e->done || e->wr_id != c->wr_id)
			continue;
		e->done = true;
		FUZZ_CHECK(c->status == IBV_WC_WR_FLUSH_ERR || !q->failed,
			   "QP %u recv %#llx: status %d after the RQ failed",
			   f->qpid, (unsigned long long)c->wr_id, c->status);
		if (c->status != IBV_WC_SUCCESS)
			q->failed = true;
		/* drop the reported prefix */
		while (q->head != q->tail && fz_at(q, q->head)->done)
			q->head++;
		if (q->dev_next < q->head)
			q->dev_next = q->head;
		return;
	}
	FUZZ_CHECK(false, "QP %u: receive WC wr_id %#llx was never posted",
		   f->qpid, (unsigned long long)c->wr_id);
}

/* Outstanding requests of every live QP on hardware CQ 'cq'. */
static int fz_outstanding_on(struct fz *fz, const struct ionic_cq *cq)
{
	unsigned int i;
	int n = 0;

	for (i = 0; i < fz->nqp; i++) {
		struct fz_qp *f = &fz->qp[i];

		if (!f->qp)
			continue;
		if (f->qp->send_cq == cq)
			n += ionic_queue_length(&f->qp->sq.q);
		if (f->qp->recv_cq == cq)
			n += ionic_queue_length(&f->qp->rq.q);
	}
	return n;
}

/* Invariants of every hardware CQ of vCQ 'v'; 'drained': poll < asked. */
static void fz_check_cqs(struct fz *fz, unsigned int v, bool drained)
{
	unsigned int u;

	for (u = 0; u < IONIC_MAX_UDMA; u++) {
		struct fz_hwcq *hw = fz_hw_of(fz, v, u);
		const struct ionic_cq *cq = &fz->vcq[v]->cq[u];
		unsigned int slots = cq->q.mask + 1u;
		unsigned int read;

		if (!(fz->vcq[v]->udma_mask & (1u << u)))
			continue;

		FUZZ_CHECK(cq->pub.reserve + cq->pub.reserve_pending +
					   fz_outstanding_on(fz, cq) ==
				   (int)cq->q.mask,
			   "CQ %u: credits %d + %d + %d outstanding != %u",
			   cq->cqid, cq->pub.reserve, cq->pub.reserve_pending,
			   fz_outstanding_on(fz, cq), cq->q.mask);

		/* how far the host read: a whole lap if only the colour moved */
		read = (uint16_t)(cq->q.prod - hw->prod) & cq->q.mask;
		if (!read && cq->color != hw->color)
			read = slots;
		hw->prod = cq->q.prod;
		hw->color = cq->color;
		if (hw->overrun)
			continue;
		FUZZ_CHECK(read <= hw->unread,
			   "CQ %u: host read %u CQEs, the device wrote %u",
			   cq->cqid, read, hw->unread);
		hw->unread -= read;
		if (drained)
			FUZZ_CHECK(!hw->unread && cq->q.prod == hw->d.pos &&
					   cq->color == hw->d.color,
				   "CQ %u stalls: host at %u, device at %u, "
				   "%u unread",
				   cq->cqid, cq->q.prod, hw->d.pos, hw->unread);
	}
}

/* Check the WCs of one poll of vCQ 'v'. */
static void fz_check_poll(struct fz *fz, unsigned int v,
			  const struct ibv_wc *wc, unsigned int nwc,
			  bool drained)
{
	struct ibv_wc sends[16];
	unsigned int i, j, n;

	for (i = 0; i < nwc; i++) {
		struct fz_qp *f = fz_qp_by_num(fz, wc[i].qp_num);

		FUZZ_CHECK(f,
			   "WC wr_id %#llx names QP %u, which does not exist",
			   (unsigned long long)wc[i].wr_id, wc[i].qp_num);
		if (fz_is_recv_op(wc[i].opcode)) {
			FUZZ_CHECK(fz->vcq[f->recv_vcq] == fz->vcq[v],
				   "QP %u: receive WC on another CQ", f->qpid);
			fz_check_recv(f, &wc[i]);
		} else {
			FUZZ_CHECK(fz->vcq[f->send_vcq] == fz->vcq[v],
				   "QP %u: send WC on another CQ", f->qpid);
		}
	}
	/* send WCs per QP, in order, against what each SQ retired */
	for (j = 0; j < fz->nqp; j++) {
		struct fz_qp *f = &fz->qp[j];

		if (!f->qp)
			continue;
		for (i = n = 0; i < nwc; i++)
			if (wc[i].qp_num == f->qpid &&
			    !fz_is_recv_op(wc[i].opcode))
				sends[n++] = wc[i];
		fz_check_send(f, sends, n);
		/* one WC for every receive retired, none without */
		for (i = n = 0; i < nwc; i++)
			n += wc[i].qp_num == f->qpid &&
			     fz_is_recv_op(wc[i].opcode);
		FUZZ_CHECK(((uint16_t)(f->qp->rq.q.cons - f->rq.cons) &
			    f->qp->rq.q.mask) == n,
			   "QP %u: %u receive WCs, RQ moved from %u to %u",
			   f->qpid, n, f->rq.cons, f->qp->rq.q.cons);
		f->rq.cons = f->qp->rq.q.cons;
	}
	fz_check_cqs(fz, v, drained);
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

/* The device writes one CQE (the colour word last). */
static void fz_hw_note_write(struct fz_hwcq *hw)
{
	/* writing over a CQE the host has not read: an overrun */
	if (hw->unread > hw->d.cq->q.mask)
		hw->overrun = true;
	hw->unread++;
}

static struct fz_hwcq *fz_send_hw(struct fz *fz, struct fz_qp *f)
{
	return fz_hw_of(fz, f->send_vcq, f->udma);
}

static struct fz_hwcq *fz_recv_hw(struct fz *fz, struct fz_qp *f)
{
	return fz_hw_of(fz, f->recv_vcq, f->udma);
}

/*
 * A correct device completes the next 1..8 requests of one queue, the
 * last one with an error if asked: NPG CQEs for local and UD sends, one
 * MSN CQE for the remote ones, one RECV CQE per receive.
 */
static void fz_dev_complete(struct fz *fz, struct fz_qp *f, struct fuzz_in *in)
{
	uint8_t a = fuzz_u8(in);
	unsigned int k = 1 + (a & 7), i;
	bool recv = a & 8, err = a & 16;
	uint32_t sts = err ? 1 + fuzz_u8(in) % 16 : 0;
	struct fz_queue *q = recv ? &f->rq : &f->sq;
	struct fz_hwcq *hw = recv ? fz_recv_hw(fz, f) : fz_send_hw(fz, f);
	bool msn = false, msn_err = false;
	uint16_t last_seq = 0;

	fz_trace("dev_complete qp %u %s k %u err %u\n", f->qpid,
		 recv ? "recv" : "send", k, sts);
	for (i = 0; i < k && q->dev_next != q->tail; i++, q->dev_next++) {
		struct fz_wr *e = fz_at(q, q->dev_next);
		bool e_err = err && (i + 1 == k || q->dev_next + 1 == q->tail);

		if (recv) {
			fz_hw_note_write(hw);
			unit_cqe_recv(&hw->d, f->qpid, e->slot, a >> 5, 0x77,
				      e_err ? sts : 64, 0x1234,
				      (uint16_t)(a << 8), e_err);
		} else if (e->remote) {
			msn = true;
			msn_err = e_err;
			last_seq = e->seq;
		} else {
			fz_hw_note_write(hw);
			unit_cqe_npg(&hw->d, f->qpid, e->slot, e_err, sts);
		}
	}
	if (msn) {
		fz_hw_note_write(hw);
		unit_cqe_msn(&hw->d, f->qpid, (uint16_t)(last_seq + 1u),
			     msn_err, msn_err ? sts : 0);
	}
}

/*
 * A hostile device: one CQE of arbitrary bytes on any hardware CQ, with a
 * queue id of a live, destroyed or cleaned QP or any number, any type and
 * error bit, and the colour the host expects or the other one (a stale
 * or half-written CQE: the device has not moved on).  'repeat' copies.
 */
static void fz_dev_raw(struct fz *fz, struct fuzz_in *in)
{
	uint8_t a = fuzz_u8(in), b = fuzz_u8(in);
	unsigned int v = (a & 1) % fz->nvcq, u = (a >> 1) & 1;
	unsigned int repeat = 1 + ((b >> 5) == 7 ? fuzz_u8(in) : 0);
	struct fz_hwcq *hw;
	uint32_t qid, qtf;
	uint8_t bytes[IONIC_CQE_SIZE];
	bool color_ok = !(a & 4);
	unsigned int i;

	if (!(fz->vcq[v]->udma_mask & (1u << u)))
		u = 0;
	hw = fz_hw_of(fz, v, u);

	switch ((a >> 3) & 7) {
	case 0:
	case 1:
	case 2:
	case 3:
		qid = fz->qp[((a >> 3) & 3) % fz->nqp].qpid;
		break;
	case 4:
		qid = IONIC_CQE_QID_CLEANED;
		break;
	default:
		qid = fuzz_u32(in) & IONIC_CQE_QID_MASK;
		break;
	}
	fuzz_bytes(in, bytes, sizeof(bytes));
	fz_trace("dev_raw cq %u/%u qid %#x type %u err %u colour %s x%u\n", v,
		 u, qid, b & 7, !!(b & 8), color_ok ? "ok" : "stale", repeat);

	for (i = 0; i < repeat; i++) {
		struct ionic_cqe *cqe = ionic_queue_at(&hw->d.cq->q, hw->d.pos);
		bool color = color_ok ? hw->d.color : !hw->d.color;

		memcpy(cqe, bytes, offsetof(struct ionic_cqe, qid_type_flags));
		qtf = ionic_cqe_qtf(qid, (enum ionic_cqe_type)(b & 7), b & 8,
				    color);
		cqe->qid_type_flags = htobe32(qtf);
		if (!color_ok)
			break;
		fz_hw_note_write(hw);
		hw->d.pos = ionic_queue_next(&hw->d.cq->q, hw->d.pos);
		if (!hw->d.pos)
			hw->d.color = !hw->d.color;
	}
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
