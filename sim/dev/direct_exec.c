// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: the direct path's executor (direct.h).  The thread
 * that applies an RC SQ doorbell (usually the one that rang it) executes
 * each fetched message in the peer's memory when nothing of this QP is
 * in flight on the packet path:
 *
 *   WRITE       payload -> the rkey's range        (process_vm_writev)
 *   WRITE_IMM   ... and a receive WQE + RECV CQE
 *   SEND(_IMM)  payload -> the receive WQE's SGL, RECV CQE
 *               (the WQE and the CQE: through the responder's rings
 *               mapped here when they are shared memory, direct_ring.c)
 *   READ        the rkey's range -> our SGL        (process_vm_readv)
 *
 * The responder's registered memory its kernel moved to shared memory
 * (sim/kernel/mrshare.c) is mapped here too: the parts of a range inside
 * it are copied with memcpy, the rest with process_vm_*.
 *
 * under the peer port's lock (only tried), with the responder's checks
 * made by the same functions on the mirrored records (mem.c key views,
 * wqe.c RQ decode, cqe.c CQE image).  The responder's expected PSN
 * advances by the message's packet count and its MSN by one, exactly as
 * packets would have moved them, so the packet path takes over at any
 * message.  Whatever is not the plain success case returns false and the
 * message goes as packets: the responder decides the failure (NAK, RNR,
 * ERR, events) as it always did.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <endian.h>
#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#include "../common/sys.h"
#include "../common/trace.h"
#include "cqe.h"
#include "direct.h"
#include "direct_priv.h"
#include "mem.h"
#include "qp.h"

#define DX_MAX_IOV 64 /* SGEs of one side of a copy */
#define DX_MAX_RQ_STRIDE_LOG2 12

struct dx {
	struct idev_qp *d;
	struct idev_dpeer *p;
	struct idev_swqe *s;
	struct idev_dseg_qp *q; /* the responder */
	bool notify; /* wake the responder's engine for an event */
	/* a same-process peer: its device, its QP, and the records built
	 * from them (q and the receive CQ point here) */
	struct idev *own;
	struct idev_qp *rd;
	struct idev_dseg_qp qrec;
	struct idev_dseg_cq crec;
	struct idev_iovec_set {
		struct iovec v[DX_MAX_IOV];
		/* where a remote piece is mapped here (NULL: process_vm_*) */
		uint8_t *map[DX_MAX_IOV];
		unsigned long n;
		bool mapped; /* some piece is */
	} l, r;
};

static struct idev_dseg_qp *peer_qp(const struct idev_dpeer *p, uint32_t qpn)
{
	return qpn < p->nqps ?
		       (struct idev_dseg_qp *)(p->seg + p->qp_off) + qpn :
		       NULL;
}

static struct idev_dseg_cq *peer_cq(const struct idev_dpeer *p, uint32_t cqid)
{
	return cqid < p->ncqs ?
		       (struct idev_dseg_cq *)(p->seg + p->cq_off) + cqid :
		       NULL;
}

/* The peer's key 'key' as a view (a copy: the checks must see one
 * consistent record whatever else writes the segment). */
static void peer_key(const struct dx *x, uint32_t key, struct idev_key_view *v)
{
	const struct idev_dpeer *p = x->p;
	const struct idev_dseg_key *k;
	uint32_t idx = key >> 8;

	memset(v, 0, sizeof(*v));
	if (x->own) {
		/* the owner's own table (we hold its port's lock) */
		if (idx && idx < x->own->prof->nmrs)
			idev_key_view_of(x->own->mrs[idx], v);
		return;
	}
	if (!idx || idx >= p->nkeys)
		return;
	k = (const struct idev_dseg_key *)(p->seg + p->key_off) + idx;
	v->key = k->key;
	v->pdid = k->pdid;
	v->access = k->access;
	v->usable = k->usable & 1;
	v->is_mw = k->is_mw & 1;
	v->iova = k->iova;
	v->length = k->length;
	v->host = k->host;
	v->share.addr = k->share_addr;
	v->share.len = k->share_len;
	v->share.ino = k->share_ino;
	v->share.fd = k->share_fd;
}

static bool iov_add(struct idev_iovec_set *set, uint64_t addr, uint64_t len)
{
	if (!len)
		return true;
	if (set->n == DX_MAX_IOV)
		return false;
	set->v[set->n].iov_base = (void *)(uintptr_t)addr;
	set->v[set->n].iov_len = len;
	set->map[set->n] = NULL;
	set->n++;
	return true;
}

/* A piece of the responder's memory under key view 'v': the part inside
 * the region's pages in shared memory, if they are and we can map them,
 * with its address in our mapping (checked against it: the record may
 * be anything). */
static bool remote_add(struct dx *x, const struct idev_key_view *v,
		       uint64_t addr, uint64_t len)
{
	const struct idev_mr_share *s = &v->share;
	uint64_t end = addr + len, lo, hi;
	uint8_t *m;

	if (x->own || !s->len || !len || end < addr ||
	    s->addr + s->len < s->addr || end <= s->addr ||
	    addr >= s->addr + s->len || !(m = idev_dmr_get(x->d, x->p, s)))
		return iov_add(&x->r, addr, len);
	lo = addr > s->addr ? addr : s->addr;
	hi = end < s->addr + s->len ? end : s->addr + s->len;
	if (!iov_add(&x->r, addr, lo - addr) || !iov_add(&x->r, lo, hi - lo))
		return false;
	x->r.map[x->r.n - 1] = m + (lo - s->addr);
	x->r.mapped = true;
	return iov_add(&x->r, hi, end - hi);
}

/* Our side of the copy: the SGL (checked when the WQE was fetched) or
 * the inline data. */
static bool local_iov(struct dx *x, uint32_t access)
{
	const struct idev_wqe *w = &x->s->w;
	struct idev_sge sge;
	uint8_t *host;

	if (w->inl)
		return iov_add(&x->l, (uint64_t)(uintptr_t)idev_wqe_inline(w),
			       w->length);
	for (unsigned int i = 0; i < w->num_sge; i++) {
		idev_wqe_sge(w, i, &sge);
		if (idev_mem_resolve(x->d->dev, x->d->pdid, sge.lkey, sge.va,
				     sge.len, access, &host) ||
		    !iov_add(&x->l, (uint64_t)(uintptr_t)host, sge.len))
			return false;
	}
	return true;
}

/* A remote piece that is one aligned 32-bit word: a CQE's colour word,
 * which the poller loads with acquire. */
static bool word_of_its_own(const struct iovec *r, size_t n)
{
	return n == sizeof(uint32_t) && r->iov_len == sizeof(uint32_t) &&
	       !((uintptr_t)r->iov_base & (sizeof(uint32_t) - 1));
}

/* Store it as the packet path's CQE writer does (cqe.c): one release
 * store after the body, so no poller sees the colour before the rest. */
static void store_word(void *dst, const void *src)
{
	uint32_t v;

	memcpy(&v, src, sizeof(v));
	__atomic_store_n((uint32_t *)dst, v, __ATOMIC_RELEASE);
}

/* Plain copies between two iovec lists (a same-process peer), in
 * order, each of the remote side's pieces visible before the next (the
 * CQE's colour word after its body). */
static ssize_t mem_move(bool out, const struct iovec *l, unsigned long ln,
			const struct iovec *r, unsigned long rn)
{
	unsigned long li = 0, ri = 0;
	size_t lo = 0, ro = 0, n, total = 0;

	while (li < ln && ri < rn) {
		n = l[li].iov_len - lo;
		if (r[ri].iov_len - ro < n)
			n = r[ri].iov_len - ro;
		if (out && word_of_its_own(&r[ri], n))
			store_word(r[ri].iov_base,
				   (const uint8_t *)l[li].iov_base + lo);
		else if (out)
			memcpy((uint8_t *)r[ri].iov_base + ro,
			       (const uint8_t *)l[li].iov_base + lo, n);
		else
			memcpy((uint8_t *)l[li].iov_base + lo,
			       (const uint8_t *)r[ri].iov_base + ro, n);
		total += n;
		lo += n;
		ro += n;
		if (lo == l[li].iov_len) {
			li++;
			lo = 0;
		}
		if (ro == r[ri].iov_len) {
			__atomic_thread_fence(__ATOMIC_RELEASE);
			ri++;
			ro = 0;
		}
	}
	return (ssize_t)total;
}

static ssize_t pvm(const struct dx *x, bool out, const struct iovec *l,
		   unsigned long ln, const struct iovec *r, unsigned long rn)
{
	return out ? process_vm_writev(x->p->pid, l, ln, r, rn, 0) :
		     process_vm_readv(x->p->pid, l, ln, r, rn, 0);
}

/* Our iovecs and the peer's set 'rs', some of whose pieces are mapped
 * here: those copied with memcpy first, then the others in one
 * process_vm_* (the CQE among them after the payload). */
static ssize_t split_move(const struct dx *x, bool out, const struct iovec *l,
			  unsigned long ln, const struct idev_iovec_set *rs)
{
	struct iovec pl[2 * DX_MAX_IOV], pr[DX_MAX_IOV];
	unsigned long li = 0, ri = 0, pln = 0, prn = 0;
	size_t lo = 0, ro = 0, n, total = 0;
	uint8_t *lp;
	ssize_t got;

	while (li < ln && ri < rs->n) {
		n = l[li].iov_len - lo;
		if (rs->v[ri].iov_len - ro < n)
			n = rs->v[ri].iov_len - ro;
		lp = (uint8_t *)l[li].iov_base + lo;
		if (rs->map[ri] && out) {
			memcpy(rs->map[ri] + ro, lp, n);
			total += n;
		} else if (rs->map[ri]) {
			memcpy(lp, rs->map[ri] + ro, n);
			total += n;
		} else {
			if (pln == 2 * DX_MAX_IOV)
				return -1;
			pl[pln].iov_base = lp;
			pl[pln++].iov_len = n;
			if (!ro)
				pr[prn++] = rs->v[ri];
		}
		lo += n;
		ro += n;
		if (lo == l[li].iov_len) {
			li++;
			lo = 0;
		}
		if (ro == rs->v[ri].iov_len) {
			ri++;
			ro = 0;
		}
	}
	if (!prn)
		return (ssize_t)total;
	got = pvm(x, out, pl, pln, pr, prn);
	return got < 0 ? got : (ssize_t)total + got;
}

/* The copy step: our iovecs to the peer's (out) or back; memory copies
 * for a peer in this process, process_vm_* for another one (memcpy for
 * what it shares with us). */
static ssize_t dx_move(const struct dx *x, bool out, const struct iovec *l,
		       unsigned long ln, const struct iovec *r,
		       unsigned long rn)
{
	if (x->own)
		return mem_move(out, l, ln, r, rn);
	if (r == x->r.v && x->r.mapped)
		return split_move(x, out, l, ln, &x->r);
	return pvm(x, out, l, ln, r, rn);
}

/* process_vm_* moved 'want' bytes; a peer that is gone (or no longer
 * lets us) is dead to the direct path. */
static bool moved(struct dx *x, ssize_t n, uint64_t want)
{
	if (n >= 0 && (uint64_t)n == want)
		return true;
	if (n < 0 && (errno == ESRCH || errno == EPERM)) {
		x->p->dead = true;
		idev_dtrace_path(x->d, IDEV_DWHY_PEER_GONE);
	}
	return false;
}

static bool remote_range(struct dx *x, uint32_t access, uint64_t *addr,
			 struct idev_key_view *v)
{
	if ((x->q->access_flags & access) != access)
		return false;
	peer_key(x, x->s->w.rkey, v);
	return !idev_key_check_remote(v, x->q->pdid, x->s->w.rkey,
				      x->s->w.remote_va, x->s->w.length, access,
				      addr);
}

/* The receive WQE at the responder's RQ consumer, decoded by the
 * responder's decoder; false if there is none or it is not a good one. */
static bool take_rq(struct dx *x, struct idev_wqe *w)
{
	static __thread _Alignas(64) uint8_t raw[1u << DX_MAX_RQ_STRIDE_LOG2];
	const struct idev_dseg_qp *q = x->q;
	unsigned int slog2 = q->rq_stride_log2;
	uint64_t off = (uint64_t)(q->rq_cons & q->rq_mask) << slog2;
	struct iovec l, r;
	uint8_t *ring;

	if (!q->rq_ring || slog2 > DX_MAX_RQ_STRIDE_LOG2 ||
	    ((q->rq_cons ^ q->rq_db_prod) & q->rq_mask) == 0)
		return false;
	l.iov_base = raw;
	l.iov_len = (size_t)1 << slog2;
	ring = x->own ? NULL :
			idev_dring_get(x->d, &x->d->dring_rq, x->p->pid,
				       q->rq_share_fd, q->rq_share_ino,
				       q->rq_share_len, "RQ");
	if (ring) {
		/* shared memory: a snapshot, decoded from our copy */
		if (off + l.iov_len > x->d->dring_rq.len)
			return false;
		memcpy(raw, ring + off, l.iov_len);
		return idev_wqe_decode_rq(w, raw, (uint32_t)l.iov_len) ==
		       IONIC_STS_OK;
	}
	r.iov_base = (void *)(uintptr_t)(q->rq_ring + off);
	r.iov_len = l.iov_len;
	if (!moved(x, dx_move(x, false, &l, 1, &r, 1), l.iov_len))
		return false;
	return idev_wqe_decode_rq(w, raw, (uint32_t)l.iov_len) == IONIC_STS_OK;
}

/* The responder's side of a receive: its SGL for 'len' bytes, under its
 * keys (local write access in its PD), as idev_mem_scatter checks. */
static bool recv_iov(struct dx *x, const struct idev_wqe *w, uint64_t len)
{
	struct idev_key_view v;
	struct idev_sge sge;
	uint64_t addr, n;

	if (len > w->length)
		return false;
	for (unsigned int i = 0; i < w->num_sge && len; i++) {
		idev_wqe_sge(w, i, &sge);
		n = sge.len < len ? sge.len : len;
		peer_key(x, sge.lkey, &v);
		if (idev_key_check_local(&v, x->q->pdid, sge.lkey, sge.va, n,
					 IBV_ACCESS_LOCAL_WRITE, &addr) ||
		    !remote_add(x, &v, addr, n))
			return false;
		len -= n;
	}
	return !len;
}

/* Room for one CQE in the responder's receive CQ (an armed one's event
 * is its owner's to raise: copy_out_recv tells it). */
static struct idev_dseg_cq *recv_cq(struct dx *x)
{
	struct idev_dseg_cq *c = x->own ? &x->crec :
					  peer_cq(x->p, x->q->rq_cqid);

	if (!c || !c->valid || c->cqid != x->q->rq_cqid || !c->ring ||
	    c->overflowed || c->stride_log2 < 5 || c->stride_log2 > 12 ||
	    ((c->prod - c->host_cons) & c->mask) >= c->mask)
		return NULL;
	return c;
}

/* The CQE into the peer's CQ ring mapped here, after the payload (its
 * own process_vm_writev, if any): body, then the colour word with one
 * release store, as cqe.c writes a CQE. */
static bool cqe_to_ring(struct dx *x, uint8_t *ring, uint64_t off,
			const struct ionic_cqe *img, uint64_t len)
{
	const size_t qtf = offsetof(struct ionic_cqe, qid_type_flags);

	if (off + sizeof(*img) > x->d->dring_cq.len ||
	    (len &&
	     !moved(x, dx_move(x, true, x->l.v, x->l.n, x->r.v, x->r.n), len)))
		return false;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(ring + off, img, qtf);
	store_word(ring + off + qtf, &img->qid_type_flags);
	return true;
}

/*
 * The payload and the RECV CQE in one process_vm_writev: the copies run
 * in iovec order, the CQE's body before the word with its colour (its
 * own iovec, so its own copy: the poller never sees the colour before
 * the body, nor the CQE before the data).  Or the CQE with plain stores
 * when the CQ ring is shared memory.  Then the responder's indices.
 * 'len': the payload's bytes (the iovecs before the CQE's), 'sol': the
 * message asks for a solicited event.
 */
static bool copy_out_recv(struct dx *x, struct idev_dseg_cq *c,
			  const struct ionic_cqe *cqe, uint64_t len, bool sol)
{
	const size_t qtf = offsetof(struct ionic_cqe, qid_type_flags);
	struct ionic_cqe img;
	uint32_t prod = c->prod & c->mask;
	uint64_t off = (uint64_t)prod << c->stride_log2;
	uint64_t slot = c->ring + off;
	uint8_t *ring = x->own ?
				NULL :
				idev_dring_get(x->d, &x->d->dring_cq, x->p->pid,
					       c->share_fd, c->share_ino,
					       c->share_len, "CQ");

	idev_cqe_image(&img, cqe, idev_clock(x->d->dev), c->color & 1);
	if (ring) {
		if (!cqe_to_ring(x, ring, off, &img, len))
			return false;
	} else if (!iov_add(&x->l, (uint64_t)(uintptr_t)&img, qtf) ||
		   !iov_add(&x->l, (uint64_t)(uintptr_t)&img + qtf,
			    sizeof(img.qid_type_flags)) ||
		   !iov_add(&x->r, slot, qtf) ||
		   !iov_add(&x->r, slot + qtf, sizeof(img.qid_type_flags)) ||
		   !moved(x, dx_move(x, true, x->l.v, x->l.n, x->r.v, x->r.n),
			  len + sizeof(img)))
		return false;
	if (sol) {
		c->sol_pending = 1;
		c->sol_slot = prod;
	}
	c->prod = (prod + 1) & c->mask;
	if (!c->prod)
		c->color ^= 1;
	if (c->armed) {
		/* the owner's engine raises the event (direct.c) */
		x->p->hdr->ntf[x->p->hdr->ntf_prod % IDEV_DSEG_NTF] =
			c->cqid | (sol ? IDEV_DSEG_NTF_SOL : 0);
		__atomic_store_n(&x->p->hdr->ntf_prod, x->p->hdr->ntf_prod + 1,
				 __ATOMIC_RELEASE);
		x->notify = true;
	}
	x->q->rq_cons = (x->q->rq_cons + 1) & x->q->rq_mask;
	x->q->wqes++;
	x->q->cqes++;
	return true;
}

/* An RC receive's CQE (what the responder writes for our message). */
static bool rc_recv(struct dx *x, struct idev_dseg_cq *c,
		    const struct idev_wqe *w, unsigned int op, uint32_t imm)
{
	struct ionic_cqe cqe;
	uint8_t mac[6];

	isim_node_mac(x->d->dev->cfg.node, mac);
	idev_cqe_recv(&cqe, x->q->qpn, w->wqe_idx, x->s->w.length, x->d->qpn,
		      op, imm, mac, 0, false);
	return copy_out_recv(x, c, &cqe, x->s->w.length,
			     x->s->w.flags & IONIC_WQE_FLAG_SOL);
}

/* The payload, our side to theirs, in one call. */
static bool copy_out(struct dx *x)
{
	return !x->s->w.length ||
	       moved(x, dx_move(x, true, x->l.v, x->l.n, x->r.v, x->r.n),
		     x->s->w.length);
}

static bool exec_write(struct dx *x, bool imm)
{
	struct idev_dseg_cq *c = NULL;
	struct idev_key_view v;
	struct idev_wqe w;
	uint64_t addr;

	if (!remote_range(x, IBV_ACCESS_REMOTE_WRITE, &addr, &v))
		return false;
	if (imm && (!take_rq(x, &w) || !(c = recv_cq(x))))
		return false;
	if (!local_iov(x, 0) || !remote_add(x, &v, addr, x->s->w.length))
		return false;
	return imm ? rc_recv(x, c, &w, IONIC_CQE_RECV_OP_RDMA_IMM,
			     x->s->w.imm_raw) :
		     copy_out(x);
}

static bool exec_send(struct dx *x, bool imm)
{
	struct idev_dseg_cq *c;
	struct idev_wqe w;

	if (!take_rq(x, &w) || !(c = recv_cq(x)) ||
	    !recv_iov(x, &w, x->s->w.length) || !local_iov(x, 0))
		return false;
	return rc_recv(x, c, &w,
		       imm ? IONIC_CQE_RECV_OP_SEND_IMM :
			     IONIC_CQE_RECV_OP_SEND,
		       imm ? x->s->w.imm_raw : 0);
}

static bool exec_read(struct dx *x)
{
	struct idev_key_view v;
	uint64_t addr;

	if (!remote_range(x, IBV_ACCESS_REMOTE_READ, &addr, &v) ||
	    !local_iov(x, IBV_ACCESS_LOCAL_WRITE) ||
	    !remote_add(x, &v, addr, x->s->w.length))
		return false;
	return !x->s->w.length ||
	       moved(x, dx_move(x, false, x->l.v, x->l.n, x->r.v, x->r.n),
		     x->s->w.length);
}

/*
 * CMP_SWP and FETCH_ADD, for a peer in this process only: the device
 * reports IBV_ATOMIC_GLOB (atomic also against the CPUs), which the
 * responder keeps with the CPU's atomic instructions on the memory
 * itself; done here the same way, it is the same operation.  A peer in
 * another process could only do a process_vm_readv + writev pair, atomic
 * against other NIC atomics (they all run under the port's lock) but not
 * against that process's CPUs: those go as packets.  The result enters
 * the responder's replay cache as the responder would enter it.
 */
static bool exec_atomic(struct dx *x)
{
	const struct idev_wqe *w = &x->s->w;
	struct idev_atomic_res *a;
	struct idev_key_view v;
	uint64_t addr, orig, *p;
	uint8_t *host;

	if (!x->own || w->remote_va % IDEV_ATOMIC_SIZE ||
	    (x->q->access_flags & IBV_ACCESS_REMOTE_ATOMIC) == 0)
		return false;
	peer_key(x, w->rkey, &v);
	if (idev_key_check_remote(&v, x->q->pdid, w->rkey, w->remote_va,
				  IDEV_ATOMIC_SIZE, IBV_ACCESS_REMOTE_ATOMIC,
				  &addr) ||
	    idev_mem_resolve(x->d->dev, x->d->pdid, w->result.lkey,
			     w->result.va, IDEV_ATOMIC_SIZE,
			     IBV_ACCESS_LOCAL_WRITE, &host))
		return false;
	p = (uint64_t *)(uintptr_t)addr;
	if (w->op->op == IDEV_WR_ATOMIC_CS) {
		orig = w->compare;
		__atomic_compare_exchange_n(p, &orig, w->swap_add, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	} else {
		orig = __atomic_fetch_add(p, w->swap_add, __ATOMIC_SEQ_CST);
	}
	/* host byte order, as the packet path's requester writes it */
	memcpy(host, &orig, sizeof(orig));
	a = &x->rd->resp.atomics[x->rd->resp.atomic_next++ % IDEV_ATOMIC_CACHE];
	a->valid = true;
	a->psn = x->s->first_psn;
	a->orig = orig;
	return true;
}

/* Is the responder record the QP connected to us, at the PSN of this
 * message, between messages? */
static bool responder_ready(const struct dx *x)
{
	const struct idev_qp *d = x->d;
	const struct idev_dseg_qp *q = x->q;
	const uint8_t *sgid =
		d->dev->gid[d->av.sgid_index < 2 ? d->av.sgid_index : 0];

	return q && q->valid && q->qpn == d->dest_qpn &&
	       q->type == IBV_QPT_RC &&
	       (q->state == IBV_QPS_RTR || q->state == IBV_QPS_RTS ||
		q->state == IBV_QPS_SQD) &&
	       q->dest_qpn == d->qpn && !memcmp(q->dgid, sgid, 16) &&
	       !q->in_msg && !q->nak_sent &&
	       (q->epsn & IDEV_PSN_MASK) == x->s->first_psn;
}

static bool exec_one(struct idev_qp *d, struct idev_dpeer *p,
		     struct idev_swqe *s)
{
	/* field by field: an initializer would clear the iovec arrays
	 * (2 KiB) for every message */
	struct dx x;
	/* our own device's port: we are inside its locked section */
	bool self = p->owner == d->dev, done = false;

	x.d = d;
	x.p = p;
	x.s = s;
	x.q = NULL;
	x.notify = false;
	x.own = p->owner;
	x.rd = NULL;
	x.l.n = x.r.n = 0;
	x.l.mapped = x.r.mapped = false;

	if (__atomic_load_n(&p->hdr->closed, __ATOMIC_ACQUIRE) ||
	    (!self && idev_dseg_lock(p->hdr, d->dev->direct->pid, false)))
		return false;
	if (x.own) {
		/* closed under the lock before the device goes away */
		if (__atomic_load_n(&p->hdr->closed, __ATOMIC_ACQUIRE))
			goto out;
		x.rd = idev_direct_self_begin(x.own, d->dest_qpn, self, &x.qrec,
					      &x.crec);
		x.q = x.rd ? &x.qrec : NULL;
	} else {
		x.q = peer_qp(p, d->dest_qpn);
	}
	if (responder_ready(&x)) {
		switch (s->w.op->op) {
		case IDEV_WR_RDMA_WRITE:
			done = exec_write(&x, false);
			break;
		case IDEV_WR_RDMA_WRITE_IMM:
			done = exec_write(&x, true);
			break;
		case IDEV_WR_SEND:
			done = exec_send(&x, false);
			break;
		case IDEV_WR_SEND_IMM:
			done = exec_send(&x, true);
			break;
		case IDEV_WR_RDMA_READ:
			done = exec_read(&x);
			break;
		case IDEV_WR_ATOMIC_CS:
		case IDEV_WR_ATOMIC_FA:
			done = exec_atomic(&x);
			break;
		default: /* SEND_INV: packets */
			break;
		}
	}
	if (done) {
		x.q->epsn = idev_psn_add(x.q->epsn, s->npkts);
		x.q->msn++;
		idev_direct_count(d, s, x.own ? x.own->stats : p->stats);
	}
	if (x.rd)
		idev_direct_self_end(x.own, x.rd, &x.qrec, &x.crec);
out:
	if (!self)
		idev_dseg_unlock(p->hdr);
	if (done && x.notify)
		idev_direct_notify_send(d);
	return done;
}

/* The operations exec_one runs (atomics: for a peer in this process). */
static bool direct_op(const struct idev_dpeer *p, const struct idev_swqe *s)
{
	switch (s->w.op->op) {
	case IDEV_WR_ATOMIC_CS:
	case IDEV_WR_ATOMIC_FA:
		return p->owner;
	case IDEV_WR_RDMA_WRITE:
	case IDEV_WR_RDMA_WRITE_IMM:
	case IDEV_WR_SEND:
	case IDEV_WR_SEND_IMM:
	case IDEV_WR_RDMA_READ:
		return true;
	default:
		return false;
	}
}

bool idev_direct_hold(const struct idev_qp *d, const struct idev_swqe *s)
{
	return d->dpeer && !d->dpeer->dead &&
	       !__atomic_load_n(&d->dpeer->hdr->closed, __ATOMIC_RELAXED) &&
	       s->npkts && direct_op(d->dpeer, s);
}

void idev_direct_run(struct idev_qp *d)
{
	struct idev_req *r = &d->req;
	struct idev_dpeer *p = d->dpeer;
	struct idev_swqe *s;

	/* once per doorbell with work: the peer's memory stays mapped here
	 * after it died, and no copy would tell */
	if (p && r->snd != idev_req_end(d) && !p->owner)
		idev_dpeer_alive(p);
	if (!p || p->dead) {
		if (d->dev->direct)
			idev_dtrace_path(d, p ? IDEV_DWHY_PEER_GONE :
						IDEV_DWHY_NO_PEER);
		return;
	}
	/* Only between messages with nothing in flight: the responder has
	 * then executed every packet we sent, in order. */
	while (d->state == IBV_QPS_RTS && r->snd != idev_req_end(d) &&
	       r->snd == r->una && !r->snd_idx && !r->rnr_wait &&
	       r->una_psn == r->snd_psn) {
		s = &d->swqe[r->snd];
		if (!s->npkts || s->first_psn != r->snd_psn ||
		    !exec_one(d, p, s))
			break;
		idev_dtrace_path(d, IDEV_DWHY_DIRECT);
		if (isim_trace_enabled())
			isim_trace(ISIM_TR_DIRECT,
				   "qp %u -> %u: %s len %u psn %u (%u pkts)",
				   d->qpn, d->dest_qpn, s->w.op->name,
				   s->w.length, s->first_psn, s->npkts);
		s->complete = true;
		s->rcvd = s->npkts;
		r->snd = idev_sq_next(d, r->snd);
		r->snd_psn = r->una_psn = idev_psn_add(s->first_psn, s->npkts);
		r->retrying = false;
		r->retry_left = d->retry_cnt;
		r->rnr_left = d->rnr_retry;
		idev_comp_retire(d);
	}
}

/* idev_direct_ud_in_order towards another process: its QP's receive
 * socket, borrowed for the look (a lie in the record names another
 * descriptor, whose answer sends our frame as a packet or misorders our
 * own frames to the liar, nothing else). */
static bool ud_in_order(const struct idev_qp *d, struct idev_dpeer *p,
			const struct idev_dseg_qp *q)
{
	bool ok;
	int fd;

	if (!d->ud_pkts)
		return true;
	fd = idev_dpeer_getfd(p, __atomic_load_n(&q->ep_fd, __ATOMIC_RELAXED));
	ok = idev_direct_ud_in_order(d, fd);
	if (fd >= 0)
		isim_sys_close(fd);
	return ok;
}

/*
 * UD towards another process (direct_udx.c found its port): the receive
 * resp.c's resp_ud would make of frame 'rp', under the port's lock: the
 * QP's record must be a UD QP that receives, with the frame's qkey, a
 * receive WQE, room in a CQ not armed, a buffer for the GRH area and
 * the payload; the data in one process_vm_writev, the CQE as RC's.
 * Anything else is the receiver's to decide: the frame goes as a packet.
 */
enum idev_dud idev_direct_ud_exec(struct idev_qp *d, struct idev_dpeer *p,
				  const struct idev_pkt *rp, const char **why)
{
	bool imm = idev_pkt_opmask(rp->opcode) & IDEV_PKT_M_IMM;
	uint64_t len = IDEV_GRH_SIZE + (uint64_t)rp->paylen;
	enum idev_dud rc = IDEV_DUD_PACKETS;
	uint8_t grh[IDEV_GRH_SIZE];
	struct idev_dseg_cq *c;
	struct ionic_cqe cqe;
	struct idev_wqe w;
	bool ok, drops;
	struct dx x;
	uint8_t st;

	x.d = d;
	x.p = p;
	x.s = NULL;
	x.notify = false;
	x.own = NULL;
	x.rd = NULL;
	x.l.n = x.r.n = 0;
	x.l.mapped = x.r.mapped = false;
	*why = "its port is busy or closed";
	if (__atomic_load_n(&p->hdr->closed, __ATOMIC_ACQUIRE) ||
	    idev_dseg_lock_brief(p->hdr, d->dev->direct->pid))
		return IDEV_DUD_PACKETS;
	x.q = peer_qp(p, rp->dqpn);
	if (!x.q || !x.q->valid || x.q->qpn != rp->dqpn ||
	    x.q->type != IBV_QPT_UD) {
		rc = IDEV_DUD_NOT_HERE;
		goto out;
	}
	c = NULL;
	ok = false;
	st = __atomic_load_n(&x.q->state, __ATOMIC_RELAXED);
	/* the two the receiver drops: nothing observable to keep in order */
	drops = (st != IBV_QPS_RTR && st != IBV_QPS_RTS && st != IBV_QPS_SQD) ||
		x.q->qkey != rp->qkey;
	if (st != IBV_QPS_RTR && st != IBV_QPS_RTS && st != IBV_QPS_SQD)
		*why = "the QP does not receive";
	else if (drops)
		*why = "another qkey";
	else if (!ud_in_order(d, p, x.q))
		*why = "a frame of ours may still be on its way as a packet";
	else if (!take_rq(&x, &w))
		*why = "no receive WQE";
	else if (!(c = recv_cq(&x)) || c->armed)
		*why = "its CQ is full or armed";
	else if (!recv_iov(&x, &w, len))
		*why = "the receive buffer";
	else
		ok = true;
	if (!ok) {
		if (drops)
			rc = IDEV_DUD_DROPS;
		goto out;
	}
	idev_resp_ud_grh(grh, rp);
	*why = "process_vm_writev";
	if (!iov_add(&x.l, (uint64_t)(uintptr_t)grh, IDEV_GRH_SIZE) ||
	    !iov_add(&x.l, (uint64_t)(uintptr_t)rp->payload, rp->paylen))
		goto out;
	idev_cqe_recv(&cqe, x.q->qpn, w.wqe_idx, (uint32_t)len, rp->src_qpn,
		      imm ? IONIC_CQE_RECV_OP_SEND_IMM : IONIC_CQE_RECV_OP_SEND,
		      imm ? rp->imm_raw : 0, rp->smac,
		      (uint16_t)((rp->pcp & 7) << 13), idev_pkt_is_v4(rp));
	if (copy_out_recv(&x, c, &cqe, len, rp->flags & IDEV_PKT_F_SOL))
		rc = IDEV_DUD_DONE;
out:
	idev_dseg_unlock(p->hdr);
	return rc;
}
