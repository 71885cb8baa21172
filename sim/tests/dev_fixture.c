// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device tests: the fixture of dev_fixture.h.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "dev_fixture.h"

struct idev *fx_dev;
struct fx_events fx_ev;

static pthread_mutex_t dev_lock = PTHREAD_MUTEX_INITIALIZER;

void fx_lock(void)
{
	pthread_mutex_lock(&dev_lock);
}

void fx_unlock(void)
{
	pthread_mutex_unlock(&dev_lock);
}

uint64_t fx_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* ---- the kernel's place: an event sink ------------------------------------ */

static void sink(void *host, const struct idev_eqe *e)
{
	(void)host;
	if (e->type == IDEV_EQE_TYPE_CQ) {
		if (e->code == IDEV_EQE_CQ_NOTIFY)
			fx_ev.comp++;
		else if (e->code == IDEV_EQE_CQ_ERR)
			fx_ev.cq_err++;
		return;
	}
	fx_ev.qp_async++;
	if (e->code == IDEV_EQE_QP_SQ_DRAIN)
		fx_ev.sq_drained++;
}

static const struct idev_host_ops sink_ops = { .event = sink };

/* ---- the platform's place: a doorbell FIFO -------------------------------- */

/* A FIFO of stores and an eventfd readable while stores are pending.  The
 * engine thread, not the test, applies them. */
#define DB_FIFO 1024
static struct isim_mmio_store db_fifo[DB_FIFO];
static unsigned int db_head, db_tail;
static pthread_mutex_t db_lock = PTHREAD_MUTEX_INITIALIZER;
static int db_efd = -1;

static int db_eventfd(void)
{
	return db_efd;
}

static int db_pop(struct isim_mmio_store *st)
{
	int got = 0;

	pthread_mutex_lock(&db_lock);
	if (db_head != db_tail) {
		*st = db_fifo[db_head++ % DB_FIFO];
		got = 1;
	}
	pthread_mutex_unlock(&db_lock);
	return got;
}

void fx_mmio_store(uint64_t tag, uint32_t offset, const void *data,
		   uint32_t size)
{
	struct isim_mmio_store st = {
		.page = tag,
		.offset = offset,
		.size = size,
	};
	uint64_t one = 1;

	memcpy(st.data, data, size);
	pthread_mutex_lock(&db_lock);
	while (db_tail - db_head >= DB_FIFO) {
		pthread_mutex_unlock(&db_lock);
		usleep(100);
		pthread_mutex_lock(&db_lock);
	}
	db_fifo[db_tail++ % DB_FIFO] = st;
	pthread_mutex_unlock(&db_lock);
	if (write(db_efd, &one, sizeof(one)) < 0)
		abort();
}

static void db_store(uint32_t offset, uint64_t value)
{
	fx_mmio_store(FX_DBID, offset, &value, 8);
}

/* The device's controller memory: FX_CMB_PAGES pages. */
uint8_t fx_cmb[FX_CMB_PAGES * IDEV_CMB_PAGE] __attribute__((aligned(4096)));

int fx_start(void)
{
	struct idev_config cfg = {
		.node = FX_NODE,
		.lock = &dev_lock,
		.ops = &sink_ops,
		.mmio = { .eventfd = db_eventfd, .pop = db_pop },
		.cmb = fx_cmb,
		.cmb_size = sizeof(fx_cmb),
	};
	char name[64];
	int rc;

	snprintf(name, sizeof(name), "test-dev-%d", (int)getpid());
	setenv(ISIM_ENV_FABRIC, name, 1);
	db_efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	isim_profile_defaults(&cfg.prof);
	cfg.prof.version = 2;
	cfg.prof.netdev_mtu = 1500;
	cfg.prof.nmrs = 16;
	cfg.prof.qp_count = 128;
	cfg.prof.cq_count = 32;
	rc = idev_create(&cfg, &fx_dev);
	if (!rc)
		rc = idev_start(fx_dev);
	CHECK(rc == 0);
	return rc;
}

int fx_stop(void)
{
	/* Destroy with the lock held, as the kernel layer may. */
	fx_lock();
	idev_destroy(fx_dev);
	fx_dev = NULL;
	fx_unlock();
	close(db_efd);
	return check_finish();
}

/* ---- host side: rings, posting, polling ---------------------------------- */

static void *zalloc_pages(size_t len)
{
	size_t n = (len + 4095) & ~4095ul;
	void *p = aligned_alloc(4096, n);

	if (!p)
		abort();
	memset(p, 0, n);
	return p;
}

struct hcq *make_cq(uint32_t cqid)
{
	struct hcq *h = calloc(1, sizeof(*h));
	struct idev_cq_create c = {
		.cqid = cqid,
		.eqid = 2,
		.dbid = FX_DBID,
		.ring = { .mask = 127, .depth_log2 = 7, .stride_log2 = 5 },
	};

	h->cqid = cqid;
	h->mask = 127;
	h->colour = 1;
	h->ring = zalloc_pages(128 * 32);
	c.ring.addr = h->ring;
	fx_lock();
	CHECK(idev_cq_create(fx_dev, &c) == 0);
	fx_unlock();
	return h;
}

void destroy_cq(struct hcq *h)
{
	fx_lock();
	CHECK(idev_cq_destroy(fx_dev, h->cqid) == 0);
	fx_unlock();
	free(h->ring);
	free(h);
}

bool poll_cqe(struct hcq *h, struct ionic_cqe *out, int ms)
{
	struct ionic_cqe *c = (struct ionic_cqe *)(h->ring + h->pos * 32);
	uint64_t end = fx_now_ns() + (uint64_t)ms * 1000000;
	struct isim_profile p;

	isim_profile_defaults(&p);
	for (;;) {
		uint32_t qtf = be32toh(
			__atomic_load_n(&c->qid_type_flags, __ATOMIC_ACQUIRE));

		if ((qtf & IONIC_CQE_COLOR) == h->colour) {
			*out = *c;
			h->pos = (h->pos + 1) & h->mask;
			if (!h->pos)
				h->colour ^= 1;
			db_store(8 * p.cq_qtype,
				 ionic_dbell_val(h->cqid, 0, h->pos));
			return true;
		}
		if (fx_now_ns() > end)
			return false;
		usleep(100);
	}
}

uint32_t cqe_type(const struct ionic_cqe *c)
{
	return (be32toh(c->qid_type_flags) >> IONIC_CQE_TYPE_SHIFT) &
	       IONIC_CQE_TYPE_MASK;
}

bool cqe_err(const struct ionic_cqe *c)
{
	return be32toh(c->qid_type_flags) & IONIC_CQE_ERROR;
}

uint32_t cqe_status_len(const struct ionic_cqe *c)
{
	return be32toh(c->status_length);
}

bool wait_msn(struct hcq *cq, uint32_t want, enum ionic_status *st)
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

static uint32_t next_mr_index = 1;

static uint32_t key_create(enum idev_mr_kind kind, void *buf, size_t len,
			   uint32_t access)
{
	struct idev_mr_create c = {
		.key = (next_mr_index++ << 8) | 0x42,
		.kind = kind,
		.pdid = FX_PDID,
		.access = access,
		.iova = (uintptr_t)buf,
		.length = len,
		.host = buf,
	};

	fx_lock();
	CHECK(idev_mr_create(fx_dev, &c) == 0);
	fx_unlock();
	return c.key;
}

uint32_t mr_key(void *buf, size_t len, uint32_t access)
{
	return key_create(IDEV_MR_USER, buf, len, access);
}

uint32_t make_mw(uint8_t type)
{
	return key_create(type == IBV_MW_TYPE_1 ? IDEV_MW_TYPE1 : IDEV_MW_TYPE2,
			  NULL, 0, 0);
}

static struct hqp *make_qp_at(uint32_t qpn, enum ibv_qp_type type,
			      struct hcq *scq, struct hcq *rcq,
			      uint8_t *sq_window, uint64_t tag,
			      unsigned int chunk);

const struct isim_profile *fx_profile(void)
{
	static struct isim_profile p;

	if (!p.version)
		isim_profile_defaults(&p);
	return &p;
}

struct hqp *make_qp_expdb(uint32_t qpn, enum ibv_qp_type type, struct hcq *scq,
			  struct hcq *rcq, uint32_t pgid, unsigned int chunk)
{
	return make_qp_at(qpn, type, scq, rcq, fx_cmb + pgid * IDEV_CMB_PAGE,
			  idev_expdb_tag(6, pgid), chunk);
}

struct hqp *make_qp(uint32_t qpn, enum ibv_qp_type type, struct hcq *scq,
		    struct hcq *rcq)
{
	return make_qp_at(qpn, type, scq, rcq, NULL, 0, 0);
}

static struct hqp *make_qp_at(uint32_t qpn, enum ibv_qp_type type,
			      struct hcq *scq, struct hcq *rcq,
			      uint8_t *sq_window, uint64_t tag,
			      unsigned int chunk)
{
	struct hqp *h = calloc(1, sizeof(*h));
	struct idev_qp_create c = {
		.qpn = qpn,
		.type = type,
		.pdid = FX_PDID,
		.dbid = FX_DBID,
		.sq_cqid = scq->cqid,
		.rq_cqid = rcq->cqid,
		.sq = { .mask = 63, .depth_log2 = 6, .stride_log2 = 6 },
	};

	h->qpn = qpn;
	h->type = type;
	h->mask = 63;
	h->sq = zalloc_pages(64 * 64);
	h->rq = zalloc_pages(64 * 64);
	/* a CMB SQ: the device reads the window, the host stages in h->sq */
	c.sq.addr = sq_window ? sq_window : h->sq;
	h->expdb_tag = tag;
	h->expdb_chunk = chunk;
	c.rq = c.sq;
	c.rq.addr = h->rq;
	h->attr.qpn = qpn;
	/* the responder checks the QP's remote access enables */
	h->attr.access_flags = IBV_ACCESS_REMOTE_WRITE |
			       IBV_ACCESS_REMOTE_READ |
			       IBV_ACCESS_REMOTE_ATOMIC;
	fx_lock();
	CHECK(idev_qp_create(fx_dev, &c) == 0);
	fx_unlock();
	return h;
}

void modify_attrs(struct hqp *h, enum ibv_qp_state st, uint32_t mask)
{
	fx_lock();
	h->attr.attr_mask = IBV_QP_STATE | mask;
	h->attr.state = st;
	CHECK(idev_qp_modify(fx_dev, &h->attr) == 0);
	if (st == IBV_QPS_RESET)
		h->sq_prod = h->rq_prod = 0;
	fx_unlock();
}

void modify(struct hqp *h, enum ibv_qp_state st)
{
	modify_attrs(h, st, 0);
}

void bring_up(struct hqp *h, uint32_t peer, uint8_t retry, uint8_t rnr_retry,
	      uint8_t timeout)
{
	struct idev_qp_modify *a = &h->attr;

	a->dest_qpn = peer;
	a->qkey = 0x1111;
	a->path_mtu = IBV_MTU_1024;
	a->retry_cnt = retry;
	a->rnr_retry = rnr_retry;
	a->min_rnr_timer = 1; /* 10 us */
	a->timeout = timeout;
	a->sq_psn = 0xfffffe; /* wraps during the tests */
	a->rq_psn = 0xfffffe;
	isim_node_gid(FX_NODE, 1, a->av.dgid);
	a->av.sgid_index = 1; /* an IPv4 GID to an IPv4 GID */
	modify_attrs(h, IBV_QPS_INIT, IBV_QP_QKEY | IBV_QP_ACCESS_FLAGS);
	modify_attrs(h, IBV_QPS_RTR,
		     IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			     IBV_QP_RQ_PSN | IBV_QP_MIN_RNR_TIMER |
			     IBV_QP_MAX_DEST_RD_ATOMIC);
	modify_attrs(h, IBV_QPS_RTS,
		     IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

struct idev_qp_attr qp_query(struct hqp *h)
{
	struct idev_qp_attr a;

	fx_lock();
	CHECK(idev_qp_query(fx_dev, h->qpn, &a) == 0);
	fx_unlock();
	return a;
}

void destroy_qp(struct hqp *h)
{
	fx_lock();
	CHECK(idev_qp_destroy(fx_dev, h->qpn) == 0);
	fx_unlock();
	free(h->sq);
	free(h->rq);
	free(h);
}

static void ring_db(struct hqp *h, bool sq)
{
	uint16_t prod = sq ? h->sq_prod : h->rq_prod;
	struct isim_profile p;

	isim_profile_defaults(&p);
	db_store(8 * (sq ? p.sq_qtype : p.rq_qtype),
		 ionic_dbell_val(h->qpn, 0, prod));
}

/* The next SQ slot, zeroed, with the common header fields. */
static struct ionic_wqe *sq_slot(struct hqp *h, uint8_t v2op, uint8_t nsge,
				 uint16_t flags)
{
	uint16_t slot = h->sq_prod;
	struct ionic_wqe *w = (struct ionic_wqe *)(h->sq + slot * 64);

	memset(w, 0, 64);
	w->base.wqe_idx = htole64(slot);
	w->base.op = v2op;
	w->base.num_sge_key = nsge;
	w->base.flags = htobe16(flags);
	return w;
}

/*
 * An express-doorbell SQ: write the slot's trailer, then copy the slot
 * into the window in ascending address order, in chunks of h->expdb_chunk
 * bytes (8: plain stores, 64: MOVDIR64B-style).  No doorbell register.
 */
static void sq_express(struct hqp *h, uint16_t slot)
{
	const struct isim_profile *p = fx_profile();
	uint8_t *wqe = h->sq + slot * 64;
	uint64_t tr = htole64((uint64_t)p->sq_qtype << IONIC_DBELL_QTYPE_SHIFT |
			      ionic_dbell_val(h->qpn, 0, h->sq_prod) |
			      IONIC_DBELL_EXPDB_SCHED
				      << IONIC_DBELL_EXPDB_SCHED_SHIFT);

	memcpy(wqe + 64 - IONIC_EXP_DBELL_SZ, &tr, sizeof(tr));
	for (uint32_t off = 0; off < 64; off += h->expdb_chunk)
		fx_mmio_store(h->expdb_tag, slot * 64 + off, wqe + off,
			      h->expdb_chunk);
}

static void sq_ring(struct hqp *h)
{
	uint16_t slot = h->sq_prod;

	h->sq_prod = (h->sq_prod + 1) & h->mask;
	if (h->expdb_tag)
		sq_express(h, slot);
	else
		ring_db(h, true);
}

static void set_sge(struct ionic_sge *sge, void *buf, uint32_t len,
		    uint32_t lkey)
{
	sge->va = htobe64((uintptr_t)buf);
	sge->len = htobe32(len);
	sge->lkey = htobe32(lkey);
}

void post_send(struct hqp *h, uint8_t v2op, void *buf, uint32_t len,
	       uint32_t lkey, uint16_t flags, uint32_t ahid, uint32_t dqpn,
	       uint32_t qkey)
{
	struct ionic_wqe *w = sq_slot(h, v2op, 1, flags);

	w->base.imm_data_key = htobe32(0xabcd0000 | h->sq_prod);
	w->common.send.ah_id = htobe32(ahid);
	w->common.send.dest_qpn = htobe32(dqpn);
	w->common.send.dest_qkey = htobe32(qkey);
	w->common.length = htobe32(len);
	set_sge(&w->common.pld.sgl[0], buf, len, lkey);
	sq_ring(h);
}

void post_rdma(struct hqp *h, uint8_t v2op, void *buf, uint32_t len,
	       uint32_t lkey, void *rbuf, uint32_t rkey, uint16_t flags)
{
	struct ionic_wqe *w = sq_slot(h, v2op, 1, flags);
	uint64_t rva = (uintptr_t)rbuf;

	w->base.imm_data_key = htobe32(0x5eed0000 | h->sq_prod);
	w->common.rdma.remote_va_high = htobe32(rva >> 32);
	w->common.rdma.remote_va_low = htobe32((uint32_t)rva);
	w->common.rdma.remote_rkey = htobe32(rkey);
	w->common.length = htobe32(len);
	set_sge(&w->common.pld.sgl[0], buf, len, lkey);
	sq_ring(h);
}

void post_atomic(struct hqp *h, uint8_t v2op, uint64_t *res, uint32_t lkey,
		 uint64_t *target, uint32_t rkey, uint64_t swap_add,
		 uint64_t cmp)
{
	struct ionic_wqe *w = sq_slot(h, v2op, 1, IONIC_WQE_FLAG_SIG);
	uint64_t rva = (uintptr_t)target;

	w->atomic_v2.remote_va_high = htobe32(rva >> 32);
	w->atomic_v2.remote_va_low = htobe32((uint32_t)rva);
	w->atomic_v2.remote_rkey = htobe32(rkey);
	w->atomic_v2.swap_add_high = htobe32(swap_add >> 32);
	w->atomic_v2.swap_add_low = htobe32((uint32_t)swap_add);
	w->atomic_v2.compare_high = htobe32(cmp >> 32);
	w->atomic_v2.compare_low = htobe32((uint32_t)cmp);
	w->atomic_v2.lkey = htobe32(lkey);
	w->atomic_v2.local_va = htobe64((uintptr_t)res);
	sq_ring(h);
}

void post_local(struct hqp *h, uint8_t v2op, uint32_t key, uint8_t key8,
		void *va, uint64_t len, uint32_t lkey, uint16_t fwflags)
{
	struct ionic_wqe *w = sq_slot(h, v2op, key8, 0);

	w->base.imm_data_key = htobe32(key);
	if (v2op == IONIC_V2_OP_BIND_MW) {
		w->bind_mw.va = htobe64((uintptr_t)va);
		w->bind_mw.length = htobe64(len);
		w->bind_mw.lkey = htobe32(lkey);
		w->bind_mw.flags = htobe16(fwflags);
	}
	sq_ring(h);
}

void post_send_inv(struct hqp *h, void *buf, uint32_t len, uint32_t lkey,
		   uint32_t rkey)
{
	struct ionic_wqe *w =
		sq_slot(h, IONIC_V2_OP_SEND_INV, 1, IONIC_WQE_FLAG_SIG);

	w->base.imm_data_key = htobe32(rkey);
	w->common.length = htobe32(len);
	set_sge(&w->common.pld.sgl[0], buf, len, lkey);
	sq_ring(h);
}

void post_recv(struct hqp *h, void *buf, uint32_t len, uint32_t lkey)
{
	uint16_t slot = h->rq_prod;
	struct ionic_wqe *w = (struct ionic_wqe *)(h->rq + slot * 64);

	memset(w, 0, 64);
	w->base.wqe_idx = htole64(slot);
	w->base.num_sge_key = 1;
	w->base.imm_data_key = htobe32(len);
	set_sge(&w->recv.pld.sgl[0], buf, len, lkey);
	h->rq_prod = (slot + 1) & h->mask;
	ring_db(h, false);
}
