// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Fuzz target: the emulated device's packet parser against a hostile
 * peer on the fabric (docs/testing.md §5.4).
 *
 * One device (sim/dev/idev.h) per input, on a transport that swallows
 * what the device sends and receives nothing by itself, without its
 * engine thread: the packets of the input go to idev_rx(), the entry
 * every received datagram takes.  The device holds
 *   - an RC QP (qpn 2) in RTS, connected to QP 5 of node 2, with receives
 *     posted and a SEND, an RDMA READ and a FETCH_ADD outstanding, so
 *     that requests, ACKs, NAKs, read responses and atomic ACKs all meet
 *     state to act on;
 *   - a UD QP (qpn 3) in RTS with receives posted;
 *   - MR A (remote write, read, atomic), the receive buffers' MR and MR
 *     B, local only and used by no work request; a type-2 window, unbound.
 * Each packet is the input's bytes, optionally with the header fixed up
 * (magic and version, destination, the RC peer as source, the payload
 * length) so that the fuzzer spends its time past the first checks.
 *
 * The oracle: ASan sees every byte the device writes (each buffer is a
 * heap block of its exact size, rings included); MR B and every byte
 * outside the buffers the peer may target keep their pattern; every CQE
 * the device writes names a posted receive or, for sends, acknowledges
 * no more than was posted; the device never writes more CQEs than the
 * ring holds; and it returns (libFuzzer's timeout).
 */
#include <errno.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "fuzz.h"
#include "dev/idev.h"
#include "fabric/fabric.h"
#include "fabric/pkt.h"

#define FZ_NODE 1
#define FZ_PEER_NODE 2
#define FZ_PEER_QPN 5
#define FZ_RC_QPN 2
#define FZ_UD_QPN 3
#define FZ_DBID 1
#define FZ_PDID 1
#define FZ_SLOTS 64 /* SQ and RQ slots, 64 bytes each */
#define FZ_CQ_SLOTS 128
#define FZ_BUF 4096
#define FZ_RECV_LEN 1064 /* UD: 40-byte GRH area + MTU */
#define FZ_RC_RECVS 8
#define FZ_UD_RECVS 4
#define FZ_MAX_PKTS 32
#define FZ_PATTERN 0xcd

/* ---- a transport that never delivers ------------------------------------- */

static int fz_bind(uint32_t node, uint32_t qpn)
{
	int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);

	(void)node;
	(void)qpn;
	return fd < 0 ? -errno : fd;
}

static int fz_xmit(struct ifab_ep *ep, uint32_t node, uint32_t qpn,
		   const void *buf, size_t len)
{
	(void)ep;
	(void)node;
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
	.xmit = fz_xmit,
	.unpeer = fz_unpeer,
	.recv = fz_recv,
};

/* ---- the device and its host --------------------------------------------- */

static pthread_mutex_t fz_lock = PTHREAD_MUTEX_INITIALIZER;
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

struct fz_host {
	struct idev *dev;
	struct isim_profile prof;
	uint8_t *cq[2]; /* RC's and UD's CQ rings */
	uint8_t *sq[2], *rq[2];
	uint16_t sq_prod[2], rq_prod[2];
	uint8_t *buf_a; /* MR A: the peer may write, read, atomics */
	uint8_t *buf_b; /* MR B: local only, never used */
	uint8_t *buf_r; /* receive buffers and local READ/atomic targets */
	uint32_t key_a, key_b, key_r;
	unsigned int sends_posted; /* signalled RC send WQEs */
};

static void *fz_zalloc(size_t len, uint8_t fill)
{
	/* exact size (a multiple of 64), so ASan sees a write one byte past
	 * the end */
	uint8_t *p = aligned_alloc(64, len);

	FUZZ_CHECK(p, "out of memory");
	memset(p, fill, len);
	return p;
}

/* MR A and B at fixed iovas, so that a packet can address them. */
#define FZ_IOVA_A 0x100000ull
#define FZ_IOVA_B 0x200000ull

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

static void fz_setup(struct fz_host *h)
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

static void fz_check_cq(const struct fz_host *h, unsigned int i)
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

static void fz_check_pattern(const uint8_t *buf, const char *what)
{
	for (size_t i = 0; i < FZ_BUF; i++)
		FUZZ_CHECK(buf[i] == FZ_PATTERN, "%s byte %zu changed to %#x",
			   what, i, buf[i]);
}

static void fz_teardown(struct fz_host *h)
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

/* ---- packets ------------------------------------------------------------- */

/*
 * One packet: a selector byte, its length, its bytes.  It arrives on the
 * endpoint its header names (the fabric delivers by address), or with
 * selector bit 32 on the other QP's.  Selector bits fix the header: 1
 * magic and version, 2 the destination (4: the UD QP, else the RC QP),
 * 8 the RC peer as source, 16 the payload length.
 */
static void fz_packet(struct fz_host *h, struct fuzz_in *in)
{
	static uint8_t buf[IFAB_PKT_MAX_SIZE + 64] IFAB_PKT_ALIGN;
	uint8_t sel = fuzz_u8(in);
	size_t len = fuzz_u16(in) % sizeof(buf);
	uint32_t qpn = FZ_RC_QPN;
	struct ifab_pkt pkt = { .buf = buf };
	uint8_t *exact;

	fuzz_bytes(in, buf, len);
	pkt.len = len;
	if (len >= IFAB_PKT_HDR_SIZE) {
		struct ifab_pkt_hdr *hd = ifab_pkt_hdr(&pkt);

		if (sel & 1) {
			ifab_pkt_set_magic(&pkt, IFAB_PKT_MAGIC);
			hd->version = IFAB_PKT_VERSION;
		}
		if (sel & 2)
			ifab_pkt_set_dst_qpn(&pkt,
					     sel & 4 ? FZ_UD_QPN : FZ_RC_QPN);
		qpn = ifab_pkt_dst_qpn(&pkt);
		if (sel & 8) {
			ifab_pkt_set_src_node(&pkt, FZ_PEER_NODE);
			ifab_pkt_set_src_qpn(&pkt, FZ_PEER_QPN);
		}
		if (sel & 16)
			ifab_pkt_set_paylen(
				&pkt, (uint32_t)(len - IFAB_PKT_HDR_SIZE));
	}
	if (sel & 32)
		qpn = qpn == FZ_RC_QPN ? FZ_UD_QPN : FZ_RC_QPN;
	/* the datagram in a block of its own size: over-reads are seen */
	exact = malloc(len ? len : 1);
	FUZZ_CHECK(exact, "out of memory");
	memcpy(exact, buf, len);
	idev_rx(h->dev, qpn, exact, len);
	free(exact);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { .p = data, .n = size };
	struct fz_host h;
	unsigned int i;

	memset(&h, 0, sizeof(h));
	pthread_mutex_lock(&fz_lock);
	fz_setup(&h);
	for (i = 0; i < FZ_MAX_PKTS && fuzz_more(&in); i++)
		fz_packet(&h, &in);
	fz_check_cq(&h, 0);
	fz_check_cq(&h, 1);
	fz_check_pattern(h.buf_b, "MR B (local only)");
	fz_teardown(&h);
	pthread_mutex_unlock(&fz_lock);
	return 0;
}
