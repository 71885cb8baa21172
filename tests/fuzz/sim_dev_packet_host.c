// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The dev-packet fuzz target's host (sim_dev_packet.h): a transport that
 * swallows what the device sends, the device with its QPs, MRs, rings and
 * posted work, and the oracle that checks them after the packets.
 */
#include <errno.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "sim_dev_packet.h"
#include "fabric/fabric.h"
#include "dev/pkt.h"

/* ---- a transport that never delivers ------------------------------------- */

static int fz_bind(struct ifab_ep *ep, uint32_t node, uint32_t qpn)
{
	(void)node;
	ep->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ep->sport = (uint16_t)(0xc000 | qpn);
	return ep->fd < 0 ? -errno : 0;
}

static void fz_close(struct ifab_ep *ep)
{
	if (ep->fd >= 0)
		close(ep->fd);
	ep->fd = -1;
}

static int fz_xmit(struct ifab_ep *ep, const uint8_t dgid[16], uint32_t qpn,
		   const void *buf, size_t len)
{
	(void)ep;
	(void)dgid;
	(void)qpn;
	(void)buf;
	(void)len;
	return 0; /* sent, into the void */
}

static void fz_unpeer(struct ifab_ep *ep)
{
	(void)ep;
}

static ssize_t fz_recv(struct ifab_ep *ep, void *buf, size_t len)
{
	(void)ep;
	(void)buf;
	(void)len;
	return -EAGAIN;
}

static const struct ifab_transport fz_transport = {
	.name = "fuzz",
	.bind = fz_bind,
	.close = fz_close,
	.xmit = fz_xmit,
	.unpeer = fz_unpeer,
	.recv = fz_recv,
};

/* ---- the device and its host --------------------------------------------- */

pthread_mutex_t fz_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int fz_events;

static void fz_event(void *host, const struct idev_eqe *eqe)
{
	(void)host;
	(void)eqe;
	fz_events++;
}

static const struct idev_host_ops fz_ops = { .event = fz_event };

static uint64_t fz_clock(void)
{
	return 1000000000ull; /* frozen: no timer ever expires */
}

static void *fz_zalloc(size_t len, uint8_t fill)
{
	/* exact size (a multiple of 64), so ASan sees a write one byte past
	 * the end */
	uint8_t *p = aligned_alloc(64, len);

	FUZZ_CHECK(p, "out of memory");
	memset(p, fill, len);
	return p;
}

static uint32_t fz_key(struct fz_host *h, uint32_t index, uint8_t *buf,
		       uint64_t iova, size_t len, uint32_t access)
{
	struct idev_mr_create c = {
		.key = index << 8 | 0x42,
		.kind = buf ? IDEV_MR_USER : IDEV_MW_TYPE2,
		.pdid = FZ_PDID,
		.access = access,
		.iova = iova,
		.length = len,
		.host = buf,
	};

	FUZZ_CHECK(!idev_mr_create(h->dev, &c), "MR %u", index);
	return c.key;
}

static void fz_cq(struct fz_host *h, unsigned int i)
{
	struct idev_cq_create c = {
		.cqid = 1 + i,
		.eqid = 2,
		.dbid = FZ_DBID,
		.ring = { .mask = FZ_CQ_SLOTS - 1,
			  .depth_log2 = 7,
			  .stride_log2 = 5 },
	};

	h->cq[i] = fz_zalloc(FZ_CQ_SLOTS * IONIC_CQE_SIZE, 0);
	c.ring.addr = h->cq[i];
	FUZZ_CHECK(!idev_cq_create(h->dev, &c), "CQ %u", c.cqid);
}

static void fz_modify(struct fz_host *h, struct idev_qp_modify *m,
		      enum ibv_qp_state st, uint32_t mask)
{
	m->attr_mask = IBV_QP_STATE | mask;
	m->state = st;
	FUZZ_CHECK(!idev_qp_modify(h->dev, m), "QP %u to %d", m->qpn, st);
}

static void fz_qp(struct fz_host *h, unsigned int i, uint32_t qpn,
		  enum ibv_qp_type type)
{
	struct idev_qp_create c = {
		.qpn = qpn,
		.type = type,
		.pdid = FZ_PDID,
		.dbid = FZ_DBID,
		.sq_cqid = 1 + i,
		.rq_cqid = 1 + i,
		.sq = { .mask = FZ_SLOTS - 1,
			.depth_log2 = 6,
			.stride_log2 = 6 },
	};
	struct idev_qp_modify m = {
		.qpn = qpn,
		.access_flags = IBV_ACCESS_REMOTE_WRITE |
				IBV_ACCESS_REMOTE_READ |
				IBV_ACCESS_REMOTE_ATOMIC,
		.qkey = 0x1111,
		.dest_qpn = FZ_PEER_QPN,
		.path_mtu = IBV_MTU_1024,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.min_rnr_timer = 1,
		.timeout = 14,
		.max_rd_atomic = 4,
		.max_dest_rd_atomic = 4,
		.sq_psn = 100,
		.rq_psn = 200,
	};

	h->sq[i] = fz_zalloc(FZ_SLOTS * 64, 0);
	h->rq[i] = fz_zalloc(FZ_SLOTS * 64, 0);
	c.sq.addr = h->sq[i];
	c.rq = c.sq;
	c.rq.addr = h->rq[i];
	FUZZ_CHECK(!idev_qp_create(h->dev, &c), "QP %u", qpn);
	isim_node_gid(FZ_PEER_NODE, 1, m.av.dgid);
	fz_modify(h, &m, IBV_QPS_INIT, IBV_QP_QKEY | IBV_QP_ACCESS_FLAGS);
	fz_modify(h, &m, IBV_QPS_RTR,
		  type == IBV_QPT_RC ?
			  IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				  IBV_QP_RQ_PSN | IBV_QP_MIN_RNR_TIMER |
				  IBV_QP_MAX_DEST_RD_ATOMIC :
			  0);
	fz_modify(h, &m, IBV_QPS_RTS,
		  IBV_QP_SQ_PSN | (type == IBV_QPT_RC ?
					   IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
						   IBV_QP_RNR_RETRY |
						   IBV_QP_MAX_QP_RD_ATOMIC :
					   0));
}

static void fz_ring(struct fz_host *h, unsigned int i, bool sq)
{
	uint32_t qpn = i ? FZ_UD_QPN : FZ_RC_QPN;
	const struct isim_profile *p = &h->prof;

	idev_doorbell(h->dev, FZ_DBID, 8 * (sq ? p->sq_qtype : p->rq_qtype),
		      ionic_dbell_val(qpn, 0,
				      sq ? h->sq_prod[i] : h->rq_prod[i]));
}

static void fz_sge(struct ionic_sge *sge, void *buf, uint32_t len,
		   uint32_t lkey)
{
	sge->va = htobe64((uintptr_t)buf);
	sge->len = htobe32(len);
	sge->lkey = htobe32(lkey);
}

static void fz_post_recv(struct fz_host *h, unsigned int i, unsigned int n)
{
	for (unsigned int k = 0; k < n; k++) {
		uint16_t slot = h->rq_prod[i];
		struct ionic_wqe *w =
			(struct ionic_wqe *)(h->rq[i] + slot * 64);
		uint8_t *buf = h->buf_r + (i * FZ_RC_RECVS + k) % 4 * 1024;

		memset(w, 0, 64);
		w->base.wqe_idx = htole64(slot);
		w->base.num_sge_key = 1;
		w->base.imm_data_key = htobe32(i ? FZ_RECV_LEN : 1024);
		fz_sge(&w->recv.pld.sgl[0], buf, i ? FZ_RECV_LEN : 1024,
		       h->key_r);
		h->rq_prod[i] = (uint16_t)((slot + 1) & (FZ_SLOTS - 1));
	}
	fz_ring(h, i, false);
}

/* The next RC send WQE, zeroed, signalled. */
static struct ionic_wqe *fz_sq_slot(struct fz_host *h, uint8_t op)
{
	uint16_t slot = h->sq_prod[0];
	struct ionic_wqe *w = (struct ionic_wqe *)(h->sq[0] + slot * 64);

	memset(w, 0, 64);
	w->base.wqe_idx = htole64(slot);
	w->base.op = op;
	w->base.num_sge_key = 1;
	w->base.flags = htobe16(IONIC_WQE_FLAG_SIG);
	h->sq_prod[0] = (uint16_t)((slot + 1) & (FZ_SLOTS - 1));
	h->sends_posted++;
	return w;
}

static void fz_post_sends(struct fz_host *h)
{
	struct ionic_wqe *w;
	uint64_t rva = 0x7000;

	/* SEND of 300 bytes */
	w = fz_sq_slot(h, IONIC_V2_OP_SEND);
	w->common.length = htobe32(300);
	fz_sge(&w->common.pld.sgl[0], h->buf_r, 300, h->key_r);
	/* RDMA READ of 2000 bytes (two responses at MTU 1024) */
	w = fz_sq_slot(h, IONIC_V2_OP_RDMA_READ);
	w->common.rdma.remote_va_high = htobe32((uint32_t)(rva >> 32));
	w->common.rdma.remote_va_low = htobe32((uint32_t)rva);
	w->common.rdma.remote_rkey = htobe32(0x1234);
	w->common.length = htobe32(2000);
	fz_sge(&w->common.pld.sgl[0], h->buf_r + 1024, 2000, h->key_r);
	/* FETCH_ADD into 8 bytes of the receive buffers */
	w = fz_sq_slot(h, IONIC_V2_OP_ATOMIC_FA);
	w->atomic_v2.remote_va_low = htobe32(0x8000);
	w->atomic_v2.remote_rkey = htobe32(0x1234);
	w->atomic_v2.swap_add_low = htobe32(1);
	w->atomic_v2.lkey = htobe32(h->key_r);
	w->atomic_v2.local_va = htobe64((uintptr_t)(h->buf_r + 4088));
	fz_ring(h, 0, true);
}

void fz_setup(struct fz_host *h)
{
	struct idev_config cfg = {
		.node = FZ_NODE,
		.lock = &fz_lock,
		.ops = &fz_ops,
		.fabric = &fz_transport,
		.clock_ns = fz_clock,
	};

	isim_profile_defaults(&cfg.prof);
	cfg.prof.version = 2;
	cfg.prof.netdev_mtu = 1500;
	cfg.prof.nmrs = 16;
	cfg.prof.qp_count = 16;
	cfg.prof.cq_count = 8;
	h->prof = cfg.prof;
	FUZZ_CHECK(!idev_create(&cfg, &h->dev), "idev_create");

	/* MR A, B: the peer's targets; R: receives, READ and atomic results */
	h->buf_a = fz_zalloc(FZ_BUF, FZ_PATTERN);
	h->buf_b = fz_zalloc(FZ_BUF, FZ_PATTERN);
	h->buf_r = fz_zalloc(FZ_BUF, 0);
	h->key_a = fz_key(h, 1, h->buf_a, FZ_IOVA_A, FZ_BUF,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				  IBV_ACCESS_REMOTE_READ |
				  IBV_ACCESS_REMOTE_ATOMIC);
	h->key_b = fz_key(h, 2, h->buf_b, FZ_IOVA_B, FZ_BUF,
			  IBV_ACCESS_LOCAL_WRITE);
	/* local work requests address the receive buffers by their VA */
	h->key_r = fz_key(h, 3, h->buf_r, (uintptr_t)h->buf_r, FZ_BUF,
			  IBV_ACCESS_LOCAL_WRITE);
	fz_key(h, 4, NULL, 0, 0, 0); /* a type-2 window, unbound */

	fz_cq(h, 0);
	fz_cq(h, 1);
	fz_qp(h, 0, FZ_RC_QPN, IBV_QPT_RC);
	fz_qp(h, 1, FZ_UD_QPN, IBV_QPT_UD);
	fz_post_recv(h, 0, FZ_RC_RECVS);
	fz_post_recv(h, 1, FZ_UD_RECVS);
	fz_post_sends(h);
}

/* ---- the oracle ---------------------------------------------------------- */

void fz_check_cq(const struct fz_host *h, unsigned int i)
{
	unsigned int posted_recvs = i ? FZ_UD_RECVS : FZ_RC_RECVS;
	unsigned int n;

	/* first lap only (the ring is never handed back): colour 1 */
	for (n = 0; n < FZ_CQ_SLOTS; n++) {
		const struct ionic_cqe *c =
			(const struct ionic_cqe *)(h->cq[i] +
						   n * IONIC_CQE_SIZE);
		uint32_t qtf = be32toh(c->qid_type_flags);
		uint32_t type = (qtf >> IONIC_CQE_TYPE_SHIFT) &
				IONIC_CQE_TYPE_MASK;
		bool err = qtf & IONIC_CQE_ERROR;

		if (!(qtf & IONIC_CQE_COLOR))
			break;
		if (type == IONIC_CQE_TYPE_RECV && !err) {
			uint64_t slot = le64toh(c->recv.wqe_idx_timestamp) &
					IONIC_CQE_WQE_IDX_MASK;

			FUZZ_CHECK(
				slot < posted_recvs,
				"CQ %u: RECV CQE for RQ slot %llu, %u posted",
				1 + i, (unsigned long long)slot, posted_recvs);
			FUZZ_CHECK(be32toh(c->status_length) <=
					   (i ? FZ_RECV_LEN : 1024),
				   "CQ %u: RECV of %u bytes into a %u-byte "
				   "buffer",
				   1 + i, be32toh(c->status_length),
				   i ? FZ_RECV_LEN : 1024);
		}
		if (type == IONIC_CQE_TYPE_SEND_MSN && !err)
			FUZZ_CHECK(be32toh(c->send.msg_msn) <= h->sends_posted,
				   "CQ %u: MSN %u acknowledged, %u posted",
				   1 + i, be32toh(c->send.msg_msn),
				   h->sends_posted);
	}
	/* the device holds its credits: never more CQEs than slots - 1 */
	FUZZ_CHECK(n < FZ_CQ_SLOTS, "CQ %u: the device filled the ring", 1 + i);
}

void fz_check_pattern(const uint8_t *buf, const char *what)
{
	for (size_t i = 0; i < FZ_BUF; i++)
		FUZZ_CHECK(buf[i] == FZ_PATTERN, "%s byte %zu changed to %#x",
			   what, i, buf[i]);
}

void fz_teardown(struct fz_host *h)
{
	idev_destroy(h->dev);
	for (unsigned int i = 0; i < 2; i++) {
		free(h->cq[i]);
		free(h->sq[i]);
		free(h->rq[i]);
	}
	free(h->buf_a);
	free(h->buf_b);
	free(h->buf_r);
}
