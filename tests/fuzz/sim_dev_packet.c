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
 * Each packet is a RoCEv2 frame (sim/fabric/pkt.h) that the harness
 * builds from fields the input chooses, with correct lengths, IPv4
 * checksum and ICRC so that it gets past the parser (possibly with one
 * byte changed and the checksums fixed, or cut short), or, one time in
 * four, the input's raw bytes (fz_packet() says how the bytes encode
 * them).
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

/* Every valid opcode, for an opcode byte that names none. */
static const uint8_t fz_opcodes[] = {
	IFAB_OP_RC_SEND_FIRST,	     IFAB_OP_RC_SEND_MIDDLE,
	IFAB_OP_RC_SEND_LAST,	     IFAB_OP_RC_SEND_LAST_IMM,
	IFAB_OP_RC_SEND_ONLY,	     IFAB_OP_RC_SEND_ONLY_IMM,
	IFAB_OP_RC_WRITE_FIRST,	     IFAB_OP_RC_WRITE_MIDDLE,
	IFAB_OP_RC_WRITE_LAST,	     IFAB_OP_RC_WRITE_LAST_IMM,
	IFAB_OP_RC_WRITE_ONLY,	     IFAB_OP_RC_WRITE_ONLY_IMM,
	IFAB_OP_RC_READ_REQ,	     IFAB_OP_RC_READ_RESP_FIRST,
	IFAB_OP_RC_READ_RESP_MIDDLE, IFAB_OP_RC_READ_RESP_LAST,
	IFAB_OP_RC_READ_RESP_ONLY,   IFAB_OP_RC_ACK,
	IFAB_OP_RC_ATOMIC_ACK,	     IFAB_OP_RC_CMP_SWAP,
	IFAB_OP_RC_FETCH_ADD,	     IFAB_OP_RC_SEND_LAST_INV,
	IFAB_OP_RC_SEND_ONLY_INV,    IFAB_OP_UD_SEND_ONLY,
	IFAB_OP_UD_SEND_ONLY_IMM,
};

#define FZ_NKEYS 6

/* Key choice k: the key and the start of what it covers. */
static void fz_target(const struct fz_host *h, uint8_t k, uint32_t *key,
		      uint64_t *base)
{
	const uint32_t keys[FZ_NKEYS] = { h->key_a, h->key_b, h->key_r,
					  0x442,    0x1234,   0 };
	const uint64_t bases[FZ_NKEYS] = {
		FZ_IOVA_A, FZ_IOVA_B, (uintptr_t)h->buf_r, 0, 0x7000, 0
	};

	*key = keys[k % FZ_NKEYS];
	*base = bases[k % FZ_NKEYS];
}

static uint64_t fz_u64(struct fuzz_in *in)
{
	uint64_t lo = fuzz_u32(in);

	return lo | (uint64_t)fuzz_u32(in) << 32;
}

/* A remote address and key: near the start of a key's range, or any. */
static void fz_addr(const struct fz_host *h, struct fuzz_in *in, bool wide,
		    uint64_t *va, uint32_t *rkey)
{
	uint64_t base;

	if (wide) {
		*va = fz_u64(in);
		*rkey = fuzz_u32(in);
		return;
	}
	fz_target(h, fuzz_u8(in), rkey, &base);
	*va = base + (uint64_t)(int64_t)(int16_t)fuzz_u16(in);
}

/* The extension headers of the opcode, from the input, in IBTA order. */
static void fz_ext(const struct fz_host *h, struct fuzz_in *in, bool wide,
		   struct ifab_pkt *p)
{
	uint32_t mask = ifab_pkt_opmask(p->opcode), key;
	uint64_t base;

	if (mask & IFAB_PKT_M_UD) {
		p->qkey = wide ? fuzz_u32(in) : 0x1111u ^ fuzz_u8(in);
		p->src_qpn = wide ? fuzz_u32(in) & IFAB_PSN_MASK : fuzz_u8(in);
	}
	if (mask & (IFAB_PKT_M_RETH | IFAB_PKT_M_ATOMIC_ETH))
		fz_addr(h, in, wide, &p->va, &p->rkey);
	if (mask & IFAB_PKT_M_RETH)
		p->dmalen = wide ? fuzz_u32(in) : fuzz_u16(in);
	if (mask & IFAB_PKT_M_ATOMIC_ETH) {
		p->swap_add = fz_u64(in);
		p->compare = fz_u64(in);
	}
	if (mask & IFAB_PKT_M_AETH) {
		p->syndrome = fuzz_u8(in);
		p->msn = (wide ? fuzz_u32(in) : fuzz_u8(in)) & IFAB_PSN_MASK;
	}
	if (mask & IFAB_PKT_M_ATOMIC_ACK)
		p->orig = fz_u64(in);
	if (mask & IFAB_PKT_M_IMM)
		p->imm_raw = fuzz_u32(in);
	if (mask & IFAB_PKT_M_INV) {
		fz_target(h, fuzz_u8(in), &key, &base);
		p->inv_rkey = wide ? fuzz_u32(in) : key;
	}
}

/* After a change to the frame: the IPv4 header checksum and the ICRC
 * right again, wherever the (changed) headers say they are. */
static void fz_reseal(uint8_t *b, size_t len)
{
	size_t l3 = IFAB_ETH_HLEN, iplen;
	uint32_t icrc;

	if (len >= IFAB_ETH_HLEN + IFAB_VLAN_HLEN &&
	    (b[12] << 8 | b[13]) == IFAB_ETHERTYPE_VLAN)
		l3 += IFAB_VLAN_HLEN;
	if (len < l3 + IFAB_IPV4_HLEN)
		return;
	if (b[l3] == 0x45) {
		uint16_t csum;

		b[l3 + 10] = b[l3 + 11] = 0;
		csum = ifab_ip_csum(b + l3, IFAB_IPV4_HLEN);
		b[l3 + 10] = (uint8_t)(csum >> 8);
		b[l3 + 11] = (uint8_t)csum;
	}
	iplen = b[l3] >> 4 == 4 ? IFAB_IPV4_HLEN : IFAB_IPV6_HLEN;
	if (len < l3 + iplen + IFAB_UDP_HLEN + IFAB_BTH_LEN + IFAB_ICRC_LEN)
		return;
	icrc = ifab_icrc(b, l3, len - IFAB_ICRC_LEN);
	for (unsigned int i = 0; i < 4; i++)
		b[len - IFAB_ICRC_LEN + i] = (uint8_t)(icrc >> 8 * i);
}

/*
 * A frame from the peer, built from the input's fields (the selector 'sel'
 * as in the comment of fz_packet()); its length, 0 if none was built.
 * The PSN is a signed step from where the QP's state expects it: 200 for
 * requests to the RC QP, 100 (our first request) for responses, 0 on UD.
 */
static size_t fz_frame(const struct fz_host *h, struct fuzz_in *in, uint8_t sel,
		       uint8_t *buf, uint32_t *qpn)
{
	bool wide = sel & 0x10;
	unsigned int gid = sel & 0x20 ? 0 : 1;
	uint8_t op = fuzz_u8(in), flags = fuzz_u8(in);
	uint32_t src = FZ_PEER_NODE, mask, psn;
	struct ifab_pkt p;

	if (!ifab_pkt_opinfo[op].name)
		op = fz_opcodes[op % (sizeof(fz_opcodes) / sizeof(*fz_opcodes))];
	mask = ifab_pkt_opmask(op);
	*qpn = (mask & IFAB_PKT_M_UD) ? FZ_UD_QPN : FZ_RC_QPN;
	if (sel & 8)
		*qpn = *qpn == FZ_RC_QPN ? FZ_UD_QPN : FZ_RC_QPN;
	psn = *qpn == FZ_UD_QPN ? 0 : mask & IFAB_PKT_M_REQ ? 200 : 100;
	psn = wide ? fuzz_u32(in) : psn + (uint32_t)(int8_t)fuzz_u8(in);
	if (sel & 4)
		src = fuzz_u8(in); /* someone else, or no node at all */

	ifab_pkt_init(&p, buf, op);
	isim_node_mac(FZ_NODE, p.dmac);
	isim_node_mac(src ? src : FZ_PEER_NODE, p.smac);
	isim_node_gid(FZ_NODE, gid, p.dgid);
	isim_node_gid(src ? src : FZ_PEER_NODE, gid, p.sgid);
	if (!src)
		p.sgid[15] ^= 0x5a; /* a GID of no node */
	p.flags = flags & (IFAB_PKT_F_SOL | IFAB_PKT_F_ACKREQ);
	p.pcp = flags >> 5;
	p.sport = 0xc000 | FZ_PEER_QPN;
	p.dqpn = *qpn;
	p.psn = psn & IFAB_PSN_MASK;
	fz_ext(h, in, wide, &p);
	if (mask & IFAB_PKT_M_PAYLOAD) {
		uint8_t fill;

		p.paylen = fuzz_u16(in) % (IFAB_PKT_MAX_PAYLOAD + 1);
		fill = fuzz_u8(in);
		p.payload = ifab_pkt_payload_at(&p);
		for (uint32_t i = 0; i < p.paylen; i++)
			p.payload[i] = (uint8_t)(fill + i);
	}
	if (ifab_pkt_build(&p))
		return 0;
	if (sel & 0x40) {
		size_t at = fuzz_u16(in) % p.len;

		buf[at] ^= fuzz_u8(in);
		fz_reseal(buf, p.len);
	}
	if (sel & 0x80)
		return fuzz_u16(in) % (p.len + 1);
	return p.len;
}

/*
 * One packet: a selector byte, then
 *   - selector & 3 == 3: raw bytes, a 16-bit length and the bytes, on the
 *     RC QP's endpoint (selector bit 0x08: the UD QP's);
 *   - otherwise a frame of correct lengths, checksums and ICRC from node
 *     2 (fz_frame): an opcode byte (any byte: one that names no opcode
 *     picks one from the list), a flags byte (bit 0 solicited, bit 1 ACK
 *     request, bits 7..5 the VLAN priority, 0: untagged), the PSN step,
 *     with selector bit 0x04 a source node byte (0: a GID of no node), the
 *     opcode's extension header fields in IBTA order (a key choice and a
 *     16-bit offset from its range for an address, a qkey xor byte, a
 *     byte for a source QP and an MSN), a 16-bit payload length and a
 *     fill byte, with selector bit 0x40 a 16-bit offset and a byte to
 *     xor there (checksums and ICRC recomputed), with bit 0x80 a 16-bit
 *     length to cut the frame to.  It goes to the QP of the opcode's
 *     transport, the other one with bit 0x08.  Bit 0x10 reads addresses,
 *     keys, lengths, qkey, MSN and PSN as whole 32- and 64-bit values;
 *     bit 0x20 uses IPv6 GIDs instead of IPv4-mapped ones.
 * Multi-byte fields are little-endian.
 */
static void fz_packet(struct fz_host *h, struct fuzz_in *in)
{
	static uint8_t buf[IFAB_PKT_MAX_SIZE + 64];
	uint8_t sel = fuzz_u8(in);
	uint32_t qpn = sel & 8 ? FZ_UD_QPN : FZ_RC_QPN;
	size_t len;
	uint8_t *exact;

	if ((sel & 3) == 3) {
		len = fuzz_u16(in) % sizeof(buf);
		fuzz_bytes(in, buf, len);
	} else {
		len = fz_frame(h, in, sel, buf, &qpn);
	}
	/* the frame in a block of its own size: over-reads are seen */
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
