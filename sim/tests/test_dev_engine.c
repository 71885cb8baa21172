// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device rules, end to end through the real engine thread and
 * fabric but without the provider or the kernel layer: a small fake
 * kernel (objects built by hand, lookups, event counters) posts WQEs into
 * rings, rings doorbells through isim_dev_doorbell() and polls CQEs the
 * way a host does (colour, ring-0 credits).
 *
 * Checked: RC SEND segmentation and MSN completions (cumulative, strictly
 * advancing, final value = remote WQEs completed), RECV CQEs in order with
 * echoed wqe_idx; RNR NAK wait and retry, RNR retry exhaustion; ACK
 * timeout to a vanished peer (RETRY_EXCEEDED); receive length error on
 * both sides; local protection error on NPG; flush indicators; RESET
 * restarting the MSN; UD NPG per WQE, GRH area, qkey filter, MTU limit.
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "common/profile.h"
#include "dev/cqe.h"
#include "dev/device.h"
#include "dev/dqp.h"

static int failures;

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, \
				__LINE__, #cond);                              \
			failures++;                                            \
		}                                                              \
	} while (0)

/* ---- the fake kernel layer ----------------------------------------------- */

#define NQP 64
#define NCQ 16
#define NMR 16

static struct isim_nic nic;
static struct isim_file file;
static struct isim_pd pd = { .pdid = 1 };
static struct isim_qp *qps[NQP];
static struct isim_cq *cqs[NCQ];
static struct isim_mr mrs[NMR];
static struct isim_mr *mr_table[NMR];
static struct isim_uobj *handles[4];
static int async_qp_events, comp_events;

struct isim_qp *isim_qp_lookup(struct isim_nic *n, uint32_t qpn)
{
	return qpn < n->qpn_limit ? n->qps[qpn] : NULL;
}

struct isim_mr *isim_key_lookup(struct isim_nic *n, uint32_t key)
{
	uint32_t idx = key >> 8;

	(void)n;
	if (!idx || idx >= NMR || !mrs[idx].valid || mrs[idx].key != key)
		return NULL;
	return &mrs[idx];
}

void isim_post_async_qp(struct isim_qp *qp, enum ibv_event_type ev)
{
	(void)qp;
	(void)ev;
	async_qp_events++;
}

void isim_post_async_cq(struct isim_cq *cq, enum ibv_event_type ev)
{
	(void)cq;
	(void)ev;
}

void isim_post_comp_event(struct isim_cq *cq)
{
	(void)cq;
	comp_events++;
}

/* The doorbell trap as the platform provides it: a FIFO of records and
 * an eventfd that is readable while records are pending.  The engine
 * thread, not the test, runs isim_dev_doorbell(). */
#define DB_FIFO 1024
static struct isim_db_rec db_fifo[DB_FIFO];
static unsigned int db_head, db_tail;
static pthread_mutex_t db_lock = PTHREAD_MUTEX_INITIALIZER;
static int db_efd = -1;

uint64_t isim_phc_cycles(void)
{
	return isim_now_ns() & ((1ull << 48) - 1);
}

int isim_dbtrap_eventfd(void)
{
	return db_efd;
}

int isim_dbtrap_pop(struct isim_db_rec *rec)
{
	int got = 0;

	pthread_mutex_lock(&db_lock);
	if (db_head != db_tail) {
		*rec = db_fifo[db_head++ % DB_FIFO];
		got = 1;
	}
	pthread_mutex_unlock(&db_lock);
	return got;
}

static void db_store(uint32_t offset, uint64_t value)
{
	uint64_t one = 1;

	pthread_mutex_lock(&db_lock);
	while (db_tail - db_head >= DB_FIFO) {
		pthread_mutex_unlock(&db_lock);
		usleep(100);
		pthread_mutex_lock(&db_lock);
	}
	db_fifo[db_tail++ % DB_FIFO] = (struct isim_db_rec){
		.cookie = &file,
		.offset = offset,
		.size = 8,
		.value = value,
	};
	pthread_mutex_unlock(&db_lock);
	if (write(db_efd, &one, sizeof(one)) < 0)
		abort();
}

static void lock(void)
{
	pthread_mutex_lock(&nic.lock);
}

static void unlock(void)
{
	pthread_mutex_unlock(&nic.lock);
}

/* ---- host side: rings, posting, polling ---------------------------------- */

struct hcq { /* the host's view of one CQ */
	struct isim_cq cq;
	uint16_t pos;
	uint8_t colour;
};

static void *zalloc_pages(size_t len)
{
	void *p = aligned_alloc(4096, (len + 4095) & ~4095ul);

	memset(p, 0, (len + 4095) & ~4095ul);
	return p;
}

static struct hcq *make_cq(uint32_t cqid)
{
	struct hcq *h = calloc(1, sizeof(*h));
	struct isim_hwcq *hw = &h->cq.hw[0];

	hw->vcq = &h->cq;
	hw->present = true;
	hw->cqid = cqid;
	hw->desc.depth_log2 = 7;
	hw->desc.stride_log2 = 5;
	hw->desc.mask = 127;
	hw->desc.size = 128 * 32;
	hw->ring = zalloc_pages(hw->desc.size);
	h->cq.uobj.file = &file;
	h->colour = 1;
	CHECK(isim_dev_cq_create(&nic, hw) == 0);
	cqs[cqid] = &h->cq;
	return h;
}

/* Wait up to 'ms' for the next CQE; copy it out and give the slot back
 * on ring 0 as the host's reservation step would. */
static bool poll_cqe(struct hcq *h, struct ionic_cqe *out, int ms)
{
	struct isim_hwcq *hw = &h->cq.hw[0];
	struct ionic_cqe *c = (struct ionic_cqe *)(hw->ring + h->pos * 32);
	uint64_t end = isim_now_ns() + (uint64_t)ms * 1000000;

	for (;;) {
		uint32_t qtf = be32toh(
			__atomic_load_n(&c->qid_type_flags, __ATOMIC_ACQUIRE));

		if ((qtf & IONIC_CQE_COLOR) == h->colour) {
			*out = *c;
			h->pos = (h->pos + 1) & hw->desc.mask;
			if (!h->pos)
				h->colour ^= 1;
			db_store(8 * nic.prof.cq_qtype,
				 ionic_dbell_val(hw->cqid, 0, h->pos));
			return true;
		}
		if (isim_now_ns() > end)
			return false;
		usleep(100);
	}
}

static uint32_t cqe_type(const struct ionic_cqe *c)
{
	return (be32toh(c->qid_type_flags) >> IONIC_CQE_TYPE_SHIFT) &
	       IONIC_CQE_TYPE_MASK;
}

static bool cqe_err(const struct ionic_cqe *c)
{
	return be32toh(c->qid_type_flags) & IONIC_CQE_ERROR;
}

static uint32_t cqe_status_len(const struct ionic_cqe *c)
{
	return be32toh(c->status_length);
}

static uint32_t mr_key(void *buf, size_t len, uint32_t access)
{
	static uint32_t next = 1;
	struct isim_mr *mr = &mrs[next];

	mr->pd = &pd;
	mr->index = next;
	mr->key = (next << 8) | 0x42;
	mr->valid = true;
	mr->access = access;
	mr->iova = (uintptr_t)buf;
	mr->length = len;
	mr->host = buf;
	mr_table[next] = mr;
	next++;
	return mr->key;
}

/* A memory window as alloc_mw leaves it: unbound, not valid. */
static struct isim_mr *make_mw(uint8_t type)
{
	uint32_t k = mr_key(NULL, 0, 0) >> 8;
	struct isim_mr *mw = &mrs[k];

	mw->is_mw = true;
	mw->mw_type = type;
	mw->valid = false;
	mw->host = NULL;
	return mw;
}

struct hqp {
	struct isim_qp qp;
	uint16_t sq_prod, rq_prod;
};

static struct hqp *make_qp(uint32_t qpn, enum ibv_qp_type type, struct hcq *scq,
			   struct hcq *rcq)
{
	struct hqp *h = calloc(1, sizeof(*h));
	struct isim_qp *qp = &h->qp;

	qp->uobj.file = &file;
	qp->pd = &pd;
	qp->send_cq = &scq->cq;
	qp->recv_cq = &rcq->cq;
	qp->qpn = qpn;
	qp->type = type;
	/* the responder checks the QP's remote access enables */
	qp->access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC;
	qp->state = IBV_QPS_RESET;
	qp->sq.desc.depth_log2 = 6;
	qp->sq.desc.stride_log2 = 6;
	qp->sq.desc.mask = 63;
	qp->sq.desc.size = 64 * 64;
	qp->sq.ring = zalloc_pages(qp->sq.desc.size);
	qp->rq.desc = qp->sq.desc;
	qp->rq.ring = zalloc_pages(qp->rq.desc.size);
	lock();
	CHECK(isim_dev_qp_create(&nic, qp) == 0);
	nic.qps[qpn] = qp;
	unlock();
	return h;
}

static void modify(struct hqp *h, enum ibv_qp_state st)
{
	enum ibv_qp_state old;

	lock();
	old = h->qp.state;
	h->qp.state = st;
	isim_dev_qp_modify(&nic, &h->qp, old, IBV_QP_STATE);
	if (st == IBV_QPS_RESET)
		h->sq_prod = h->rq_prod = 0;
	unlock();
}

/* RESET -> INIT -> RTR -> RTS, RC connected to (node 1, peer) or UD. */
static void bring_up(struct hqp *h, uint32_t peer, uint8_t retry,
		     uint8_t rnr_retry, uint8_t timeout)
{
	struct isim_qp *qp = &h->qp;

	qp->dest_qpn = peer;
	qp->qkey = 0x1111;
	qp->path_mtu = IBV_MTU_1024;
	qp->retry_cnt = retry;
	qp->rnr_retry = rnr_retry;
	qp->min_rnr_timer = 1; /* 10 us */
	qp->timeout = timeout;
	qp->sq_psn = 0xfffffe; /* wraps during the tests */
	qp->rq_psn = 0xfffffe;
	isim_node_gid(1, 1, qp->av.dgid);
	modify(h, IBV_QPS_INIT);
	modify(h, IBV_QPS_RTR);
	modify(h, IBV_QPS_RTS);
}

static void ring_db(struct hqp *h, bool sq)
{
	uint16_t prod = sq ? h->sq_prod : h->rq_prod;

	db_store(8 * (sq ? nic.prof.sq_qtype : nic.prof.rq_qtype),
		 ionic_dbell_val(h->qp.qpn, 0, prod));
}

static void post_send(struct hqp *h, uint8_t v2op, void *buf, uint32_t len,
		      uint32_t lkey, uint16_t flags, uint32_t ahid,
		      uint32_t dqpn, uint32_t qkey)
{
	uint16_t slot = h->sq_prod;
	struct ionic_wqe *w = (struct ionic_wqe *)(h->qp.sq.ring + slot * 64);

	memset(w, 0, 64);
	w->base.wqe_idx = htole64(slot);
	w->base.op = v2op;
	w->base.num_sge_key = 1;
	w->base.flags = htobe16(flags);
	w->base.imm_data_key = htobe32(0xabcd0000 | slot);
	w->common.send.ah_id = htobe32(ahid);
	w->common.send.dest_qpn = htobe32(dqpn);
	w->common.send.dest_qkey = htobe32(qkey);
	w->common.length = htobe32(len);
	w->common.pld.sgl[0].va = htobe64((uintptr_t)buf);
	w->common.pld.sgl[0].len = htobe32(len);
	w->common.pld.sgl[0].lkey = htobe32(lkey);
	h->sq_prod = (slot + 1) & h->qp.sq.desc.mask;
	ring_db(h, true);
}

static void post_rdma(struct hqp *h, uint8_t v2op, void *buf, uint32_t len,
		      uint32_t lkey, void *rbuf, uint32_t rkey, uint16_t flags)
{
	uint16_t slot = h->sq_prod;
	struct ionic_wqe *w = (struct ionic_wqe *)(h->qp.sq.ring + slot * 64);
	uint64_t rva = (uintptr_t)rbuf;

	memset(w, 0, 64);
	w->base.wqe_idx = htole64(slot);
	w->base.op = v2op;
	w->base.num_sge_key = 1;
	w->base.flags = htobe16(flags);
	w->base.imm_data_key = htobe32(0x5eed0000 | slot);
	w->common.rdma.remote_va_high = htobe32(rva >> 32);
	w->common.rdma.remote_va_low = htobe32((uint32_t)rva);
	w->common.rdma.remote_rkey = htobe32(rkey);
	w->common.length = htobe32(len);
	w->common.pld.sgl[0].va = htobe64((uintptr_t)buf);
	w->common.pld.sgl[0].len = htobe32(len);
	w->common.pld.sgl[0].lkey = htobe32(lkey);
	h->sq_prod = (slot + 1) & h->qp.sq.desc.mask;
	ring_db(h, true);
}

/* Firmware v2 atomic layout: lkey @44, local_va @48 (§3.3 (d)). */
static void post_atomic(struct hqp *h, uint8_t v2op, uint64_t *res,
			uint32_t lkey, uint64_t *target, uint32_t rkey,
			uint64_t swap_add, uint64_t cmp)
{
	uint16_t slot = h->sq_prod;
	struct ionic_wqe *w = (struct ionic_wqe *)(h->qp.sq.ring + slot * 64);
	uint64_t rva = (uintptr_t)target;

	memset(w, 0, 64);
	w->base.wqe_idx = htole64(slot);
	w->base.op = v2op;
	w->base.num_sge_key = 1;
	w->base.flags = htobe16(IONIC_WQE_FLAG_SIG);
	w->atomic_v2.remote_va_high = htobe32(rva >> 32);
	w->atomic_v2.remote_va_low = htobe32((uint32_t)rva);
	w->atomic_v2.remote_rkey = htobe32(rkey);
	w->atomic_v2.swap_add_high = htobe32(swap_add >> 32);
	w->atomic_v2.swap_add_low = htobe32((uint32_t)swap_add);
	w->atomic_v2.compare_high = htobe32(cmp >> 32);
	w->atomic_v2.compare_low = htobe32((uint32_t)cmp);
	w->atomic_v2.lkey = htobe32(lkey);
	w->atomic_v2.local_va = htobe64((uintptr_t)res);
	h->sq_prod = (slot + 1) & h->qp.sq.desc.mask;
	ring_db(h, true);
}

static void post_local(struct hqp *h, uint8_t v2op, uint32_t key, uint8_t key8,
		       void *va, uint64_t len, uint32_t lkey, uint16_t fwflags)
{
	uint16_t slot = h->sq_prod;
	struct ionic_wqe *w = (struct ionic_wqe *)(h->qp.sq.ring + slot * 64);

	memset(w, 0, 64);
	w->base.wqe_idx = htole64(slot);
	w->base.op = v2op;
	w->base.num_sge_key = key8;
	w->base.imm_data_key = htobe32(key);
	if (v2op == IONIC_V2_OP_BIND_MW) {
		w->bind_mw.va = htobe64((uintptr_t)va);
		w->bind_mw.length = htobe64(len);
		w->bind_mw.lkey = htobe32(lkey);
		w->bind_mw.flags = htobe16(fwflags);
	}
	h->sq_prod = (slot + 1) & h->qp.sq.desc.mask;
	ring_db(h, true);
}

/* SEND_WITH_INV: imm_data_key carries the rkey to invalidate. */
static void post_send_inv(struct hqp *h, void *buf, uint32_t len, uint32_t lkey,
			  uint32_t rkey)
{
	uint16_t slot = h->sq_prod;
	struct ionic_wqe *w = (struct ionic_wqe *)(h->qp.sq.ring + slot * 64);

	memset(w, 0, 64);
	w->base.wqe_idx = htole64(slot);
	w->base.op = IONIC_V2_OP_SEND_INV;
	w->base.num_sge_key = 1;
	w->base.flags = htobe16(IONIC_WQE_FLAG_SIG);
	w->base.imm_data_key = htobe32(rkey);
	w->common.length = htobe32(len);
	w->common.pld.sgl[0].va = htobe64((uintptr_t)buf);
	w->common.pld.sgl[0].len = htobe32(len);
	w->common.pld.sgl[0].lkey = htobe32(lkey);
	h->sq_prod = (slot + 1) & h->qp.sq.desc.mask;
	ring_db(h, true);
}

static void post_recv(struct hqp *h, void *buf, uint32_t len, uint32_t lkey)
{
	uint16_t slot = h->rq_prod;
	struct ionic_wqe *w = (struct ionic_wqe *)(h->qp.rq.ring + slot * 64);

	memset(w, 0, 64);
	w->base.wqe_idx = htole64(slot);
	w->base.num_sge_key = 1;
	w->base.imm_data_key = htobe32(len);
	w->recv.pld.sgl[0].va = htobe64((uintptr_t)buf);
	w->recv.pld.sgl[0].len = htobe32(len);
	w->recv.pld.sgl[0].lkey = htobe32(lkey);
	h->rq_prod = (slot + 1) & h->qp.rq.desc.mask;
	ring_db(h, false);
}

static void destroy_qp(struct hqp *h)
{
	lock();
	nic.qps[h->qp.qpn] = NULL;
	isim_dev_qp_destroy(&nic, &h->qp);
	unlock();
	free(h->qp.sq.ring);
	free(h->qp.rq.ring);
	free(h);
}

/* ---- tests --------------------------------------------------------------- */

static uint8_t sbuf[8192], rbuf[4][4096];

static void test_rc_send_msn(void)
{
	struct hcq *cq_a = make_cq(1), *cq_b = make_cq(2);
	struct hqp *a = make_qp(10, IBV_QPT_RC, cq_a, cq_a);
	struct hqp *b = make_qp(11, IBV_QPT_RC, cq_b, cq_b);
	uint32_t skey = mr_key(sbuf, sizeof(sbuf), 0);
	uint32_t rkey = mr_key(rbuf, sizeof(rbuf), IBV_ACCESS_LOCAL_WRITE);
	static const uint32_t lens[3] = { 10, 3000, 0 };
	struct ionic_cqe c;
	uint32_t last_msn = 0, i;

	for (i = 0; i < sizeof(sbuf); i++)
		sbuf[i] = (uint8_t)(i * 7 + 1);
	bring_up(a, 11, 7, 7, 14);
	bring_up(b, 10, 7, 7, 14);
	for (i = 0; i < 4; i++)
		post_recv(b, rbuf[i], 4096, rkey);
	/* Unsignalled sends are completed too: the MSN covers them all. */
	for (i = 0; i < 3; i++)
		post_send(a, IONIC_V2_OP_SEND, sbuf + 100 * i, lens[i], skey,
			  i == 1 ? 0 : IONIC_WQE_FLAG_SIG, 0, 0, 0);

	for (i = 0; i < 3; i++) {
		CHECK(poll_cqe(cq_b, &c, 2000));
		CHECK(cqe_type(&c) == IONIC_CQE_TYPE_RECV && !cqe_err(&c));
		CHECK((le64toh(c.recv.wqe_idx_timestamp) & 0xffff) == i);
		CHECK(cqe_status_len(&c) == lens[i]);
		CHECK((be32toh(c.recv.src_qpn_op) & 0xffffff) == 10);
		CHECK(!memcmp(rbuf[i], sbuf + 100 * i, lens[i]));
	}
	/* MSN CQEs: strictly advancing, ending at 3. */
	while (last_msn < 3 && poll_cqe(cq_a, &c, 2000)) {
		CHECK(cqe_type(&c) == IONIC_CQE_TYPE_SEND_MSN && !cqe_err(&c));
		CHECK(be32toh(c.send.msg_msn) > last_msn);
		last_msn = be32toh(c.send.msg_msn);
	}
	CHECK(last_msn == 3);
	CHECK(!poll_cqe(cq_a, &c, 20));

	/* SEND_IMM with the solicited flag: op and raw imm echoed. */
	post_send(a, IONIC_V2_OP_SEND_IMM, sbuf, 5, skey,
		  IONIC_WQE_FLAG_SIG | IONIC_WQE_FLAG_SOL, 0, 0, 0);
	CHECK(poll_cqe(cq_b, &c, 2000));
	CHECK(((be32toh(c.recv.src_qpn_op) >> 24) & 0x1f) ==
	      IONIC_CQE_RECV_OP_SEND_IMM);
	CHECK(c.recv.imm_data_rkey == htobe32(0xabcd0003));
	CHECK(poll_cqe(cq_a, &c, 2000) && be32toh(c.send.msg_msn) == 4);

	/* RNR: no receive WQE left after the one below is used ... */
	post_send(a, IONIC_V2_OP_SEND, sbuf, 64, skey, IONIC_WQE_FLAG_SIG, 0, 0,
		  0);
	CHECK(!poll_cqe(cq_a, &c, 50)); /* RNR NAKs, retrying forever */
	CHECK(a->qp.dev->rnr_naks_rx > 0);
	post_recv(b, rbuf[0], 4096, rkey); /* ... until one is posted */
	CHECK(poll_cqe(cq_b, &c, 2000) && !cqe_err(&c) &&
	      cqe_status_len(&c) == 64);
	CHECK(poll_cqe(cq_a, &c, 2000) && be32toh(c.send.msg_msn) == 5);

	/* RESET restarts the MSN at 0 (the first completion says 1). */
	modify(a, IBV_QPS_RESET);
	modify(b, IBV_QPS_RESET);
	bring_up(a, 11, 7, 7, 14);
	bring_up(b, 10, 7, 7, 14);
	post_recv(b, rbuf[0], 4096, rkey);
	post_send(a, IONIC_V2_OP_SEND, sbuf, 2048, skey, IONIC_WQE_FLAG_SIG, 0,
		  0, 0);
	CHECK(poll_cqe(cq_b, &c, 2000) &&
	      (le64toh(c.recv.wqe_idx_timestamp) & 0xffff) == 0);
	CHECK(poll_cqe(cq_a, &c, 2000) && be32toh(c.send.msg_msn) == 1);

	/* Receive buffer too small: LOCAL_LEN on the receiver, REMOTE_INV_REQ
	 * on the sender (msg_msn = its seq + 1), both QPs in ERR. */
	post_recv(b, rbuf[0], 16, rkey);
	post_send(a, IONIC_V2_OP_SEND, sbuf, 100, skey, 0, 0, 0, 0);
	CHECK(poll_cqe(cq_b, &c, 2000));
	CHECK(cqe_type(&c) == IONIC_CQE_TYPE_RECV && cqe_err(&c) &&
	      cqe_status_len(&c) == IONIC_STS_LOCAL_LEN_ERR);
	CHECK(poll_cqe(cq_a, &c, 2000));
	CHECK(cqe_type(&c) == IONIC_CQE_TYPE_SEND_MSN && cqe_err(&c) &&
	      cqe_status_len(&c) == IONIC_STS_REMOTE_INV_REQ_ERR &&
	      be32toh(c.send.msg_msn) == 2);
	CHECK(a->qp.state == IBV_QPS_ERR && b->qp.state == IBV_QPS_ERR);

	/* A doorbell in ERR with work posted: one flush indicator. */
	post_recv(a, rbuf[1], 64, rkey);
	CHECK(poll_cqe(cq_a, &c, 2000));
	CHECK(cqe_type(&c) == IONIC_CQE_TYPE_RECV && cqe_err(&c) &&
	      cqe_status_len(&c) == IONIC_STS_WQE_FLUSHED_ERR);
	post_recv(a, rbuf[1], 64, rkey);
	CHECK(!poll_cqe(cq_a, &c, 20));

	destroy_qp(a);
	destroy_qp(b);
}

static void test_rc_errors(void)
{
	struct hcq *cq = make_cq(3);
	struct hqp *a = make_qp(20, IBV_QPT_RC, cq, cq);
	struct hqp *b = make_qp(21, IBV_QPT_RC, cq, cq);
	uint32_t skey = mr_key(sbuf, sizeof(sbuf), 0);
	uint32_t rkey = mr_key(rbuf, sizeof(rbuf), IBV_ACCESS_LOCAL_WRITE);
	struct ionic_cqe c;
	uint64_t rexmit, t0;

	/* RNR retries exhausted: RNR_RETRY_EXCEEDED on the MSN CQE; the
	 * requester's RQ had work, so it gets a flush indicator. */
	bring_up(a, 21, 7, 2, 14);
	bring_up(b, 20, 7, 7, 14);
	post_recv(a, rbuf[3], 64, rkey);
	post_send(a, IONIC_V2_OP_SEND, sbuf, 8, skey, IONIC_WQE_FLAG_SIG, 0, 0,
		  0);
	CHECK(poll_cqe(cq, &c, 2000));
	CHECK(cqe_type(&c) == IONIC_CQE_TYPE_SEND_MSN && cqe_err(&c) &&
	      cqe_status_len(&c) == IONIC_STS_RNR_RETRY_EXCEEDED &&
	      be32toh(c.send.msg_msn) == 1);
	CHECK(poll_cqe(cq, &c, 2000));
	CHECK(cqe_type(&c) == IONIC_CQE_TYPE_RECV && cqe_err(&c) &&
	      cqe_status_len(&c) == IONIC_STS_WQE_FLUSHED_ERR &&
	      (be32toh(c.qid_type_flags) >> 8) == 20);
	CHECK(a->qp.state == IBV_QPS_ERR);
	CHECK(a->qp.dev->rnr_naks_rx == 3);

	/* Peer gone: ACK timeouts, then RETRY_EXCEEDED (timeout 1 is
	 * clamped to 10 ms; retry_cnt 2 = three transmissions). */
	modify(a, IBV_QPS_RESET);
	bring_up(a, 55, 2, 7, 1);
	rexmit = a->qp.dev->retransmits;
	t0 = isim_now_ns();
	post_send(a, IONIC_V2_OP_SEND, sbuf, 8, skey, 0, 0, 0, 0);
	post_send(a, IONIC_V2_OP_SEND, sbuf, 8, skey, 0, 0, 0, 0);
	CHECK(poll_cqe(cq, &c, 2000));
	CHECK(isim_now_ns() - t0 >= 30000000ull);
	CHECK(cqe_type(&c) == IONIC_CQE_TYPE_SEND_MSN && cqe_err(&c) &&
	      cqe_status_len(&c) == IONIC_STS_RETRY_EXCEEDED &&
	      be32toh(c.send.msg_msn) == 1);
	CHECK(a->qp.dev->retransmits - rexmit == 2);

	/* Local protection error (bad lkey): NPG CQE naming the slot. */
	modify(a, IBV_QPS_RESET);
	modify(b, IBV_QPS_RESET);
	bring_up(a, 21, 7, 7, 14);
	bring_up(b, 20, 7, 7, 14);
	post_recv(b, rbuf[0], 4096, rkey);
	post_send(a, IONIC_V2_OP_SEND, sbuf, 8, skey, 0, 0, 0, 0);
	post_send(a, IONIC_V2_OP_SEND, sbuf, 8, 0x7777, 0, 0, 0, 0);
	/* In order: the good send's MSN first, then the error. */
	CHECK(poll_cqe(cq, &c, 2000) && cqe_type(&c) == IONIC_CQE_TYPE_RECV);
	CHECK(poll_cqe(cq, &c, 2000) &&
	      cqe_type(&c) == IONIC_CQE_TYPE_SEND_MSN &&
	      be32toh(c.send.msg_msn) == 1);
	CHECK(poll_cqe(cq, &c, 2000));
	CHECK(cqe_type(&c) == IONIC_CQE_TYPE_SEND_NPG && cqe_err(&c) &&
	      cqe_status_len(&c) == IONIC_STS_LOCAL_PROT_ERR &&
	      (le64toh(c.send.npg_wqe_idx_timestamp) & 0xffff) == 1);
	CHECK(a->qp.state == IBV_QPS_ERR);

	/* User modify to ERR with receives posted: RECV flush indicator. */
	post_recv(b, rbuf[0], 4096, rkey);
	modify(b, IBV_QPS_ERR);
	CHECK(poll_cqe(cq, &c, 2000));
	CHECK(cqe_type(&c) == IONIC_CQE_TYPE_RECV && cqe_err(&c) &&
	      cqe_status_len(&c) == IONIC_STS_WQE_FLUSHED_ERR &&
	      (be32toh(c.qid_type_flags) >> 8) == 21);
	CHECK(!poll_cqe(cq, &c, 20));

	destroy_qp(a);
	destroy_qp(b);
}

/* Wait for the send CQ to report msg_msn 'want' (MSN CQEs may coalesce). */
static bool wait_msn(struct hcq *cq, uint32_t want, enum ionic_status *st)
{
	struct ionic_cqe c;

	*st = IONIC_STS_OK;
	while (poll_cqe(cq, &c, 2000)) {
		if (cqe_type(&c) != IONIC_CQE_TYPE_SEND_MSN)
			return false;
		if (cqe_err(&c))
			*st = cqe_status_len(&c);
		if (be32toh(c.send.msg_msn) == want || cqe_err(&c))
			return be32toh(c.send.msg_msn) == want;
	}
	return false;
}

static uint8_t big_src[20000], big_dst[20000];
static uint64_t atomic_target[2] __attribute__((aligned(8)));

static void test_rc_rdma(void)
{
	struct hcq *cq_a = make_cq(6), *cq_b = make_cq(7);
	struct hqp *a = make_qp(40, IBV_QPT_RC, cq_a, cq_a);
	struct hqp *b = make_qp(41, IBV_QPT_RC, cq_b, cq_b);
	uint32_t lsrc =
		mr_key(big_src, sizeof(big_src), IBV_ACCESS_LOCAL_WRITE);
	uint32_t rdst =
		mr_key(big_dst, sizeof(big_dst),
		       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			       IBV_ACCESS_REMOTE_READ);
	uint32_t ratom =
		mr_key(atomic_target, sizeof(atomic_target),
		       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC);
	uint32_t rnone = mr_key(rbuf[2], 4096, IBV_ACCESS_LOCAL_WRITE);
	uint32_t rkey = mr_key(rbuf, sizeof(rbuf), IBV_ACCESS_LOCAL_WRITE);
	static uint64_t result;
	uint32_t lres = mr_key(&result, sizeof(result), IBV_ACCESS_LOCAL_WRITE);
	enum ionic_status st;
	struct ionic_cqe c;
	size_t i;

	for (i = 0; i < sizeof(big_src); i++)
		big_src[i] = (uint8_t)(i * 13 + 5);
	a->qp.max_rd_atomic = 4;
	bring_up(a, 41, 7, 7, 14);
	bring_up(b, 40, 7, 7, 14);

	/* WRITE of 20000 bytes (20 packets), then READ it back elsewhere. */
	post_rdma(a, IONIC_V2_OP_RDMA_WRITE, big_src, 20000, lsrc, big_dst,
		  rdst, 0);
	CHECK(wait_msn(cq_a, 1, &st) && st == IONIC_STS_OK);
	CHECK(!memcmp(big_src, big_dst, 20000));
	memset(big_src, 0, 20000);
	post_rdma(a, IONIC_V2_OP_RDMA_READ, big_src, 20000, lsrc, big_dst, rdst,
		  IONIC_WQE_FLAG_SIG);
	CHECK(wait_msn(cq_a, 2, &st) && st == IONIC_STS_OK);
	CHECK(!memcmp(big_src, big_dst, 20000));
	CHECK(!poll_cqe(cq_b, &c, 10)); /* no CQE at the target */

	/* Mixed, pipelined: SEND, READ, WRITE_IMM, READ (one MSN sequence). */
	post_recv(b, rbuf[0], 4096, rkey);
	post_recv(b, rbuf[1], 4096, rkey);
	post_send(a, IONIC_V2_OP_SEND, big_src, 100, lsrc, 0, 0, 0, 0);
	post_rdma(a, IONIC_V2_OP_RDMA_READ, big_src + 1000, 3000, lsrc, big_dst,
		  rdst, 0);
	/* Its source overlaps the READ's destination: fenced. */
	post_rdma(a, IONIC_V2_OP_RDMA_WRITE_IMM, big_src, 5000, lsrc,
		  big_dst + 10000, rdst,
		  IONIC_WQE_FLAG_SIG | IONIC_WQE_FLAG_FENCE);
	post_rdma(a, IONIC_V2_OP_RDMA_READ, big_src + 8000, 1, lsrc,
		  big_dst + 7, rdst, 0);
	CHECK(wait_msn(cq_a, 6, &st) && st == IONIC_STS_OK);
	CHECK(!memcmp(big_src + 1000, big_dst, 3000));
	CHECK(big_src[8000] == big_dst[7]);
	CHECK(poll_cqe(cq_b, &c, 2000) && cqe_status_len(&c) == 100);
	CHECK(poll_cqe(cq_b, &c, 2000));
	CHECK(cqe_type(&c) == IONIC_CQE_TYPE_RECV && !cqe_err(&c) &&
	      cqe_status_len(&c) == 5000 &&
	      ((be32toh(c.recv.src_qpn_op) >> 24) & 0x1f) ==
		      IONIC_CQE_RECV_OP_RDMA_IMM &&
	      c.recv.imm_data_rkey == htobe32(0x5eed0000 | 4) &&
	      (le64toh(c.recv.wqe_idx_timestamp) & 0xffff) == 1);
	CHECK(!memcmp(big_src, big_dst + 10000, 5000));

	/* Atomics: result in host order, executed once. */
	atomic_target[0] = 40;
	post_atomic(a, IONIC_V2_OP_ATOMIC_FA, &result, lres, &atomic_target[0],
		    ratom, 2, 0);
	CHECK(wait_msn(cq_a, 7, &st) && st == IONIC_STS_OK);
	CHECK(result == 40 && atomic_target[0] == 42);
	post_atomic(a, IONIC_V2_OP_ATOMIC_CS, &result, lres, &atomic_target[0],
		    ratom, 7, 42);
	CHECK(wait_msn(cq_a, 8, &st) && st == IONIC_STS_OK);
	CHECK(result == 42 && atomic_target[0] == 7);
	post_atomic(a, IONIC_V2_OP_ATOMIC_CS, &result, lres, &atomic_target[0],
		    ratom, 9, 42);
	CHECK(wait_msn(cq_a, 9, &st) && st == IONIC_STS_OK);
	CHECK(result == 7 && atomic_target[0] == 7);

	/* SQD with nothing in flight: drained at once, one SQ_DRAINED event;
	 * WQEs posted while draining wait for RTS. */
	a->qp.en_sqd_async_notify = 1;
	async_qp_events = 0;
	modify(a, IBV_QPS_SQD);
	CHECK(async_qp_events == 1 && a->qp.sq_draining == 0);
	post_rdma(a, IONIC_V2_OP_RDMA_WRITE, big_src, 8, lsrc, big_dst, rdst,
		  0);
	CHECK(!poll_cqe(cq_a, &c, 20));
	modify(a, IBV_QPS_RTS);
	CHECK(wait_msn(cq_a, 10, &st) && st == IONIC_STS_OK);

	/* WRITE without REMOTE_WRITE: REMOTE_ACC_ERR for the requester
	 * (msg_msn = seq + 1), the target QP in ERR with an access event. */
	async_qp_events = 0;
	post_rdma(a, IONIC_V2_OP_RDMA_WRITE, big_src, 8, lsrc, rbuf[2], rnone,
		  0);
	CHECK(!wait_msn(cq_a, 11, &st) || st == IONIC_STS_REMOTE_ACC_ERR);
	CHECK(st == IONIC_STS_REMOTE_ACC_ERR);
	CHECK(a->qp.state == IBV_QPS_ERR && b->qp.state == IBV_QPS_ERR);
	CHECK(async_qp_events == 1);

	/* A misaligned atomic is an invalid request. */
	modify(a, IBV_QPS_RESET);
	modify(b, IBV_QPS_RESET);
	bring_up(a, 41, 7, 7, 14);
	bring_up(b, 40, 7, 7, 14);
	post_atomic(a, IONIC_V2_OP_ATOMIC_FA, &result, lres,
		    (uint64_t *)((uint8_t *)atomic_target + 4), ratom, 1, 0);
	CHECK(!wait_msn(cq_a, 1, &st) || st);
	CHECK(st == IONIC_STS_REMOTE_INV_REQ_ERR);

	destroy_qp(a);
	destroy_qp(b);
}

static void test_mw(void)
{
	struct hcq *cq_e = make_cq(8), *cq_f = make_cq(9);
	struct hqp *e = make_qp(50, IBV_QPT_RC, cq_e, cq_e);
	struct hqp *f = make_qp(51, IBV_QPT_RC, cq_f, cq_f);
	uint32_t lsrc = mr_key(sbuf, sizeof(sbuf), 0);
	uint32_t region = mr_key(rbuf, sizeof(rbuf),
				 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	struct isim_mr *mw = make_mw(IBV_MW_TYPE_2);
	uint32_t key0 = mw->key, key1 = (key0 & ~0xffu) | 0x11;
	uint32_t key2 = (key0 & ~0xffu) | 0x12;
	enum ionic_status st;
	struct ionic_cqe c;

	bring_up(e, 51, 7, 7, 14);
	bring_up(f, 50, 7, 7, 14);
	/* Bind [rbuf[1], +4096) for remote write/read with key byte 0x11. */
	post_local(f, IONIC_V2_OP_BIND_MW, key0, 0x11, rbuf[1], 4096, region,
		   IONIC_MRF_REMOTE_WRITE | IONIC_MRF_REMOTE_READ |
			   IONIC_MRF_MW_2);
	CHECK(poll_cqe(cq_f, &c, 2000));
	CHECK(cqe_type(&c) == IONIC_CQE_TYPE_SEND_NPG && !cqe_err(&c) &&
	      (le64toh(c.send.npg_wqe_idx_timestamp) & 0xffff) == 0);
	CHECK(mw->valid && mw->key == key1);

	/* The old key is dead; the new one writes into the window. */
	memset(rbuf[1], 0, 4096);
	post_rdma(e, IONIC_V2_OP_RDMA_WRITE, sbuf, 100, lsrc, rbuf[1] + 8, key1,
		  0);
	CHECK(wait_msn(cq_e, 1, &st) && st == IONIC_STS_OK);
	CHECK(!memcmp(rbuf[1] + 8, sbuf, 100));

	/* LOCAL_INV: completes on NPG; afterwards the key is refused. */
	post_local(f, IONIC_V2_OP_LOCAL_INV, key1, 0, NULL, 0, 0, 0);
	CHECK(poll_cqe(cq_f, &c, 2000));
	CHECK(cqe_type(&c) == IONIC_CQE_TYPE_SEND_NPG && !cqe_err(&c));
	CHECK(!mw->valid);
	post_rdma(e, IONIC_V2_OP_RDMA_WRITE, sbuf, 100, lsrc, rbuf[1] + 8, key1,
		  0);
	CHECK(!wait_msn(cq_e, 2, &st) || st);
	CHECK(st == IONIC_STS_REMOTE_ACC_ERR);

	/* Rebind (type 2 is free again), then SEND_WITH_INV invalidates it
	 * and the receiver learns the rkey. */
	modify(e, IBV_QPS_RESET);
	modify(f, IBV_QPS_RESET);
	while (poll_cqe(cq_f, &c, 20))
		; /* flush indicators of the error above */
	bring_up(e, 51, 7, 7, 14);
	bring_up(f, 50, 7, 7, 14);
	post_local(f, IONIC_V2_OP_BIND_MW, key1, 0x12, rbuf[1], 4096, region,
		   IONIC_MRF_REMOTE_WRITE | IONIC_MRF_MW_2);
	CHECK(poll_cqe(cq_f, &c, 2000) && !cqe_err(&c) && mw->valid &&
	      mw->key == key2);
	post_recv(f, rbuf[0], 4096, region);
	/* A key that is not ours to invalidate: invalid request. */
	post_send_inv(e, sbuf, 10, lsrc, 0xabcd0000);
	CHECK(poll_cqe(cq_f, &c, 2000));
	CHECK(cqe_type(&c) == IONIC_CQE_TYPE_RECV && cqe_err(&c) &&
	      cqe_status_len(&c) == IONIC_STS_REMOTE_INV_REQ_ERR);
	CHECK(!wait_msn(cq_e, 1, &st) || st);
	CHECK(st == IONIC_STS_REMOTE_INV_REQ_ERR);
	CHECK(mw->valid);

	modify(e, IBV_QPS_RESET);
	modify(f, IBV_QPS_RESET);
	while (poll_cqe(cq_f, &c, 20))
		;
	while (poll_cqe(cq_e, &c, 20))
		;
	bring_up(e, 51, 7, 7, 14);
	bring_up(f, 50, 7, 7, 14);
	post_recv(f, rbuf[0], 4096, region);
	post_send_inv(e, sbuf, 10, lsrc, key2);
	CHECK(poll_cqe(cq_f, &c, 2000));
	CHECK(cqe_type(&c) == IONIC_CQE_TYPE_RECV && !cqe_err(&c) &&
	      ((be32toh(c.recv.src_qpn_op) >> 24) & 0x1f) ==
		      IONIC_CQE_RECV_OP_SEND_INV &&
	      be32toh(c.recv.imm_data_rkey) == key2);
	CHECK(wait_msn(cq_e, 1, &st) && st == IONIC_STS_OK);
	CHECK(!mw->valid);

	/* A type-2 bind of length 0 is refused: NPG MEM_MGMT_OPER error. */
	post_local(f, IONIC_V2_OP_BIND_MW, key2, 0x13, rbuf[1], 0, region,
		   IONIC_MRF_MW_2);
	CHECK(poll_cqe(cq_f, &c, 2000));
	CHECK(cqe_type(&c) == IONIC_CQE_TYPE_SEND_NPG && cqe_err(&c) &&
	      cqe_status_len(&c) == IONIC_STS_MEM_MGMT_OPER_ERR);
	CHECK(f->qp.state == IBV_QPS_ERR);

	destroy_qp(e);
	destroy_qp(f);
}

static void test_ud(void)
{
	struct hcq *cq_c = make_cq(4), *cq_d = make_cq(5);
	struct hqp *c = make_qp(30, IBV_QPT_UD, cq_c, cq_c);
	struct hqp *d = make_qp(31, IBV_QPT_UD, cq_d, cq_d);
	uint32_t skey = mr_key(sbuf, sizeof(sbuf), 0);
	uint32_t rkey = mr_key(rbuf, sizeof(rbuf), IBV_ACCESS_LOCAL_WRITE);
	static struct isim_ah ah;
	struct ionic_cqe e;
	uint8_t *g = rbuf[0];

	ah.uobj.type = ISIM_UOBJ_AH;
	ah.pd = &pd;
	ah.ahid = 3;
	ah.av.sgid_index = 1;
	ah.av.hop_limit = 64;
	ah.av.sl = 5;
	isim_node_gid(1, 1, ah.av.dgid);
	handles[0] = &ah.uobj;

	bring_up(c, 0, 0, 0, 0);
	bring_up(d, 0, 0, 0, 0);
	post_recv(d, rbuf[0], 4096, rkey);
	post_recv(d, rbuf[1], 4096, rkey);
	/* Unsignalled, yet one NPG CQE per WQE naming its slot. */
	post_send(c, IONIC_V2_OP_SEND, sbuf, 100, skey, 0, 3, 31, 0x1111);
	CHECK(poll_cqe(cq_c, &e, 2000));
	CHECK(cqe_type(&e) == IONIC_CQE_TYPE_SEND_NPG && !cqe_err(&e) &&
	      (le64toh(e.send.npg_wqe_idx_timestamp) & 0xffff) == 0);
	CHECK(poll_cqe(cq_d, &e, 2000));
	CHECK(cqe_type(&e) == IONIC_CQE_TYPE_RECV && !cqe_err(&e));
	CHECK(cqe_status_len(&e) == 140);
	CHECK((be32toh(e.recv.src_qpn_op) & 0xffffff) == 30);
	CHECK(be16toh(e.recv.vlan_tag) >> 13 == 5);
	/* GRH area: IPv4-mapped GIDs -> IPv4 header at offset 20. */
	CHECK(g[0] == 0 && g[19] == 0 && g[20] == 0x45 && g[28] == 64 &&
	      g[29] == 17);
	CHECK(g[32] == 198 && g[33] == 18 && g[35] == 1);
	CHECK(g[36] == 198 && g[39] == 1);
	CHECK(!memcmp(g + 40, sbuf, 100));

	/* Wrong qkey: dropped silently.  Privileged qkey: the QP's own. */
	post_send(c, IONIC_V2_OP_SEND, sbuf, 10, skey, 0, 3, 31, 0x2222);
	CHECK(poll_cqe(cq_c, &e, 2000) && !cqe_err(&e));
	CHECK(!poll_cqe(cq_d, &e, 30));
	post_send(c, IONIC_V2_OP_SEND, sbuf, 10, skey, 0, 3, 31, 0x80000000);
	CHECK(poll_cqe(cq_c, &e, 2000) && !cqe_err(&e));
	CHECK(poll_cqe(cq_d, &e, 2000) && cqe_status_len(&e) == 50);

	/* Larger than the port MTU (1024 at netdev MTU 1500): LOCAL_LEN. */
	post_send(c, IONIC_V2_OP_SEND, sbuf, 1025, skey, 0, 3, 31, 0x1111);
	CHECK(poll_cqe(cq_c, &e, 2000));
	CHECK(cqe_type(&e) == IONIC_CQE_TYPE_SEND_NPG && cqe_err(&e) &&
	      cqe_status_len(&e) == IONIC_STS_LOCAL_LEN_ERR &&
	      (le64toh(e.send.npg_wqe_idx_timestamp) & 0xffff) == 3);
	CHECK(c->qp.state == IBV_QPS_ERR);

	destroy_qp(c);
	destroy_qp(d);
	handles[0] = NULL;
}

int main(void)
{
	char name[64];

	snprintf(name, sizeof(name), "test-dev-%d", (int)getpid());
	setenv(ISIM_ENV_FABRIC, name, 1);
	pthread_mutex_init(&nic.lock, NULL);
	db_efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	isim_profile_defaults(&nic.prof);
	nic.prof.version = 2;
	nic.prof.netdev_mtu = 1500;
	nic.node = 1;
	isim_node_gid(1, 0, nic.gid[0]);
	isim_node_gid(1, 1, nic.gid[1]);
	nic.qps = qps;
	nic.qpn_limit = NQP;
	nic.cqs = cqs;
	nic.mrs = mr_table;
	nic.prof.nmrs = NMR;
	nic.cqid_limit = NCQ;
	nic.files = &file;
	file.nic = &nic;
	file.handles = handles;
	file.nhandles = 4;

	lock();
	CHECK(isim_dev_start(&nic) == 0);
	unlock();

	test_rc_send_msn();
	test_rc_errors();
	test_rc_rdma();
	test_mw();
	test_ud();

	/* Stop with the lock held, as the kernel layer may. */
	lock();
	isim_dev_stop(&nic);
	unlock();
	CHECK(!nic.engine);

	if (failures) {
		fprintf(stderr, "%d failure(s)\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
