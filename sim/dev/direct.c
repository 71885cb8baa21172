// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: the direct path's responder port (direct.h) - the
 * segment this device keeps for its peers, its records and lock, and the
 * devices of this process that have one.  The hello that offers the
 * segment to a peer, and the peers' segments this device maps, are in
 * direct_hello.c.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif

#include "../common/sys.h"
#include "../common/trace.h"
#include "../fabric/pcap.h"
#include "cqe.h"
#include "direct.h"
#include "direct_priv.h"
#include "mem.h"
#include "qp.h"

/* How long the owner waits for its own segment's lock (a peer holds it
 * for one message) before it gives the port up. */
#define DIRECT_OWNER_WAIT_S 2

static bool direct_env_off(void)
{
	const char *v = getenv(ISIM_ENV_DIRECT);

	return v && (!strcmp(v, "0") || !strcmp(v, "off"));
}

static bool under_valgrind(void)
{
#ifdef RUNNING_ON_VALGRIND
	return RUNNING_ON_VALGRIND;
#else
	const char *p = getenv("LD_PRELOAD");

	return p && strstr(p, "vgpreload");
#endif
}

/* Why this device keeps no port, or NULL when it may. */
static const char *direct_why_not(const struct idev *dev)
{
	const struct ifab_transport *tp =
		dev->cfg.fabric ? dev->cfg.fabric : ifab_default_transport();

	if (direct_env_off())
		return ISIM_ENV_DIRECT "=0 (--direct off)";
	if (!tp || strcmp(tp->name, "unix"))
		return "the UDP transport";
	if (ifab_pcap_enabled())
		return "--pcap (every frame is captured)";
	if (isim_profile_faults(dev->prof))
		return "a fault profile key (frames are lost, delayed, ...)";
	if (under_valgrind())
		return "running under valgrind";
	return NULL;
}

void idev_dtrace_path(struct idev_qp *d, enum idev_dwhy why)
{
	static const char *const text[] = {
		[IDEV_DWHY_DIRECT] = "direct",
		[IDEV_DWHY_NO_PORT] = "packets: no direct path on this device",
		[IDEV_DWHY_NO_PEER] = "packets: the peer offered no port",
		[IDEV_DWHY_PEER_GONE] = "packets: the peer is gone",
		[IDEV_DWHY_OFF_HOST] = "packets: the peer is on another host",
		[IDEV_DWHY_SELF] = "packets: the peer is in this process",
	};

	if (d->dwhy == why)
		return;
	d->dwhy = (uint8_t)why;
	if (isim_trace_enabled() && why < sizeof(text) / sizeof(text[0]))
		isim_trace(ISIM_TR_DIRECT, "qp %u -> %u: %s", d->qpn,
			   d->dest_qpn, text[why]);
}

/* ---- the devices of this process ----------------------------------------- */

/* Devices with a port in this process: a hello from our own pid names
 * one of them (same-process peers execute with plain memory copies). */
static pthread_mutex_t self_lock = PTHREAD_MUTEX_INITIALIZER;
static struct idev *self_devs[IDEV_DPEERS];

static void self_register(struct idev *dev, bool add)
{
	pthread_mutex_lock(&self_lock);
	for (unsigned int i = 0; i < IDEV_DPEERS; i++) {
		if (add && !self_devs[i]) {
			self_devs[i] = dev;
			break;
		}
		if (!add && self_devs[i] == dev)
			self_devs[i] = NULL;
	}
	pthread_mutex_unlock(&self_lock);
}

/* The device of this process whose segment a hello names, or NULL. */
struct idev *idev_dself_find(uint64_t self, int32_t segfd)
{
	struct idev *found = NULL;

	pthread_mutex_lock(&self_lock);
	for (unsigned int i = 0; i < IDEV_DPEERS && !found; i++)
		if (self_devs[i] && self_devs[i]->direct &&
		    (uint64_t)(uintptr_t)self_devs[i]->direct->hdr == self &&
		    self_devs[i]->direct->fd == segfd)
			found = self_devs[i];
	pthread_mutex_unlock(&self_lock);
	return found;
}

struct idev *idev_direct_self_ud(struct idev *dev, const uint8_t *gid,
				 uint32_t qpn)
{
	struct idev_qp *rd;
	struct idev *o, *found = NULL;

	pthread_mutex_lock(&self_lock);
	for (unsigned int i = 0; i < IDEV_DPEERS && !found; i++) {
		o = self_devs[i];
		if (!o || !o->direct ||
		    (memcmp(o->gid[0], gid, 16) && memcmp(o->gid[1], gid, 16)))
			continue;
		/* the QP number is the node's: another process has it if
		 * this device has no such UD QP */
		if (__atomic_load_n(&o->direct->hdr->closed,
				    __ATOMIC_ACQUIRE) ||
		    (o != dev &&
		     idev_dseg_lock_brief(o->direct->hdr, dev->direct->pid)))
			break;
		rd = idev_qp_lookup(o, qpn);
		if (rd && rd->type == IBV_QPT_UD && !o->direct->closed) {
			found = o;
			break;
		}
		if (o != dev)
			idev_dseg_unlock(o->direct->hdr);
		break;
	}
	pthread_mutex_unlock(&self_lock);
	return found;
}

/* ---- the segment ---------------------------------------------------------- */

size_t idev_dseg_layout(struct idev_direct *x, uint32_t nqps, uint32_t ncqs,
			uint32_t nkeys)
{
	size_t off = (sizeof(struct idev_dseg_hdr) + 63) & ~(size_t)63;

	x->qp_off = off;
	off += (size_t)nqps * sizeof(struct idev_dseg_qp);
	x->cq_off = off;
	off += (size_t)ncqs * sizeof(struct idev_dseg_cq);
	x->key_off = off;
	off += (size_t)nkeys * sizeof(struct idev_dseg_key);
	return (off + 4095) & ~(size_t)4095;
}

int idev_direct_init(struct idev *dev)
{
	const char *why = direct_why_not(dev);
	struct idev_direct *x;
	int rc;

	if (why) {
		if (isim_trace_enabled())
			isim_trace(ISIM_TR_DIRECT, "packets only: %s", why);
		return 0;
	}
	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->nqps = dev->nqps;
	x->ncqs = dev->ncqs;
	x->nkeys = dev->prof->nmrs;
	x->size = idev_dseg_layout(x, x->nqps, x->ncqs, x->nkeys);
	x->fd = memfd_create("ionic-sim-direct", MFD_CLOEXEC);
	if (x->fd < 0 || ftruncate(x->fd, (off_t)x->size) < 0)
		goto err;
	x->seg = isim_sys_mmap(NULL, x->size, PROT_READ | PROT_WRITE,
			       MAP_SHARED, x->fd, 0);
	if (x->seg == MAP_FAILED) {
		x->seg = NULL;
		goto err;
	}
	x->hdr = (struct idev_dseg_hdr *)x->seg;
	x->hdr->nqps = x->nqps;
	x->hdr->ncqs = x->ncqs;
	x->hdr->nkeys = x->nkeys;
	x->hdr->size = x->size;
	x->hdr->pid = getpid();
	x->hdr->node = dev->cfg.node;
	x->hdr->self = (uint64_t)(uintptr_t)x->hdr;
	x->pid = (uint32_t)getpid();
	__atomic_store_n(&x->hdr->magic, IDEV_DSEG_MAGIC, __ATOMIC_RELEASE);
	dev->direct = x;
	self_register(dev, true);
	idev_dudtab_set(dev, true);
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_DIRECT, "port: %zu bytes, fd %d", x->size,
			   x->fd);
	return 0;
err:
	rc = -errno;
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_DIRECT, "packets only: no segment (%s)",
			   strerror(-rc));
	if (x->seg)
		isim_sys_munmap(x->seg, x->size);
	if (x->fd >= 0)
		isim_sys_close(x->fd);
	free(x);
	return 0; /* the packet path works without it */
}

void idev_dpeer_unmap(struct idev_dpeer *p)
{
	idev_dmr_drop(p);
	if (p->seg)
		isim_sys_munmap(p->seg, p->size);
	if (p->stats_page)
		isim_sys_munmap(p->stats_page, sizeof(*p->stats_page));
	if (p->watched)
		isim_sys_close(p->pidfd);
	memset(p, 0, sizeof(*p));
}

void idev_direct_fini(struct idev *dev)
{
	struct idev_direct *x = dev->direct;

	if (!x)
		return;
	self_register(dev, false);
	idev_dudtab_set(dev, false);
	/* same-process executors use this device only under the lock and
	 * while the port is open: close it under the lock (or without it,
	 * if it cannot be had: peers only try it then) */
	if (x->held) {
		__atomic_store_n(&x->hdr->closed, 1, __ATOMIC_RELEASE);
	} else if (!x->closed) {
		bool locked = !idev_dseg_lock(x->hdr, x->pid, true);

		__atomic_store_n(&x->hdr->closed, 1, __ATOMIC_RELEASE);
		if (locked)
			idev_dseg_unlock(x->hdr);
	}
	for (unsigned int i = 0; i < IDEV_DPEERS; i++)
		idev_dpeer_unmap(&x->peers[i]);
	isim_sys_munmap(x->seg, x->size);
	isim_sys_close(x->fd);
	free(x);
	dev->direct = NULL;
}

void idev_direct_atfork_child(struct idev *dev)
{
	struct idev_direct *x = dev->direct;

	/* the parent's devices are dead here, whoever held the registry's
	 * lock at the fork */
	self_lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
	memset(self_devs, 0, sizeof(self_devs));
	if (!x)
		return;
	/* our copy only: hdr->closed is the parent's */
	x->closed = true;
	x->held = false;
	for (unsigned int i = 0; i < IDEV_DPEERS; i++)
		x->peers[i].dead = true;
}

/* The owner stops keeping the port (its lock is unusable): peers see
 * 'closed' and send packets; our private state stays the authority. */
static void direct_close(struct idev_direct *x, const char *why)
{
	x->closed = true;
	__atomic_store_n(&x->hdr->closed, 1, __ATOMIC_RELEASE);
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_DIRECT, "port closed: %s", why);
}

/* Spins before the owner sleeps between tries, and its sleep. */
#define DSEG_SPINS 64
#define DSEG_NAP_NS 20000
#define DSEG_OWNER_SPIN_NS 50000

/* Nobody holds the lock with this value: a process that died, or not a
 * pid at all (a scribble). */
static bool dseg_holder_gone(uint32_t cur, uint32_t me)
{
	return cur != me && (cur > (uint32_t)INT32_MAX ||
			     (kill((pid_t)cur, 0) < 0 && errno == ESRCH));
}

#if defined(__SANITIZE_THREAD__)
char idev_dseg_tsan_sync; /* direct_priv.h: one lock for TSan */
#endif

int idev_dseg_lock(struct idev_dseg_hdr *h, uint32_t me, bool wait)
{
	struct timespec nap = { 0, DSEG_NAP_NS };
	uint64_t now, spin_end = 0, until = 0;
	unsigned int tries = 0;
	uint32_t cur;

	for (;;) {
		cur = 0;
		if (__atomic_compare_exchange_n(&h->lock, &cur, me, false,
						__ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			break;
		/* once per round of spinning: is the holder still there? */
		if (!tries && dseg_holder_gone(cur, me) &&
		    __atomic_compare_exchange_n(&h->lock, &cur, me, false,
						__ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			break;
		if (++tries < DSEG_SPINS) {
			__builtin_ia32_pause();
			continue;
		}
		if (!wait)
			return EBUSY;
		/* a holder copies one message: spin through that, sleep
		 * only when it takes longer */
		now = idev_now_ns();
		if (!until) {
			spin_end = now + DSEG_OWNER_SPIN_NS;
			until = now + DIRECT_OWNER_WAIT_S * 1000000000ull;
		} else if (now > until) {
			return ETIMEDOUT;
		}
		if (now > spin_end)
			nanosleep(&nap, NULL);
		tries = 0;
	}
	IDEV_DSEG_TSAN_ACQUIRE();
	return 0;
}

int idev_dseg_lock_brief(struct idev_dseg_hdr *h, uint32_t me)
{
	uint64_t now, end = 0;
	int rc;

	while ((rc = idev_dseg_lock(h, me, false)) == EBUSY) {
		now = idev_now_ns();
		if (!end)
			end = now + DSEG_OWNER_SPIN_NS;
		else if (now > end)
			break;
	}
	return rc;
}

struct idev_dseg_qp *idev_dseg_own_qp(struct idev_direct *x, uint32_t qpn)
{
	return qpn < x->nqps ?
		       (struct idev_dseg_qp *)(x->seg + x->qp_off) + qpn :
		       NULL;
}

static struct idev_dseg_cq *seg_cq(struct idev_direct *x, uint32_t cqid)
{
	return cqid < x->ncqs ?
		       (struct idev_dseg_cq *)(x->seg + x->cq_off) + cqid :
		       NULL;
}

/* The QPs whose records peers use: RC responders, and UD destinations of
 * other processes (direct_udx.c). */
static bool recorded(const struct idev_qp *d)
{
	return d->type == IBV_QPT_RC || d->type == IBV_QPT_UD;
}

/* Events for CQEs executors wrote into armed CQs (after the indices:
 * an arm fires on what is in the ring). */
static void direct_notify_drain(struct idev *dev, struct idev_direct *x)
{
	uint32_t prod = __atomic_load_n(&x->hdr->ntf_prod, __ATOMIC_ACQUIRE);
	struct idev_cq *cq;
	uint32_t e;

	if (prod - x->ntf_cons > IDEV_DSEG_NTF) {
		/* more than the ring held (or a scribble): every CQ an
		 * executor may write gets its chance */
		for (struct idev_qp *d = dev->qp_list; d; d = d->next) {
			cq = idev_cq_lookup(dev, d->rq_cqid);
			if (recorded(d) && cq)
				idev_cq_remote_cqe(cq, true);
		}
		x->ntf_cons = prod;
		return;
	}
	for (; x->ntf_cons != prod; x->ntf_cons++) {
		e = x->hdr->ntf[x->ntf_cons % IDEV_DSEG_NTF];
		cq = idev_cq_lookup(dev, e & ~IDEV_DSEG_NTF_SOL);
		if (cq)
			idev_cq_remote_cqe(cq, e & IDEV_DSEG_NTF_SOL);
	}
}

/* The shared indices of RC QP 'd' and its receive CQ, as peers left
 * them: masked to what the rings allow. */
static void load_qp(struct idev *dev, struct idev_direct *x, struct idev_qp *d)
{
	struct idev_dseg_qp *q = idev_dseg_own_qp(x, d->qpn);
	struct idev_cq *cq = idev_cq_lookup(dev, d->rq_cqid);
	struct idev_dseg_cq *c = seg_cq(x, d->rq_cqid);

	if (!recorded(d) || !q || !q->valid || q->qpn != d->qpn)
		return;
	d->resp.epsn = q->epsn & IDEV_PSN_MASK;
	d->resp.msn = q->msn;
	d->rq.cons = q->rq_cons & d->rq.mask;
	d->cnt.wqes += q->wqes;
	d->cnt.cqes += q->cqes;
	q->wqes = q->cqes = 0;
	if (!cq || !c || !c->valid || c->cqid != cq->cqid)
		return;
	cq->prod = c->prod & cq->mask;
	cq->color = c->color & 1;
	cq->sol_pending = c->sol_pending & 1;
	cq->sol_slot = c->sol_slot & cq->mask;
}

static void direct_load(struct idev *dev, struct idev_direct *x)
{
	for (struct idev_qp *d = dev->qp_list; d; d = d->next)
		load_qp(dev, x, d);
}

static void cq_record(struct idev_dseg_cq *c, const struct idev_cq *cq)
{
	c->cqid = cq->cqid;
	c->ring = (uint64_t)(uintptr_t)cq->ring;
	c->mask = cq->mask;
	c->stride_log2 = cq->stride_log2;
	c->host_cons = cq->host_cons;
	c->armed = cq->armed_any || cq->armed_sol;
	c->overflowed = cq->overflowed;
	c->prod = cq->prod;
	c->color = cq->color;
	c->sol_pending = cq->sol_pending;
	c->sol_slot = cq->sol_slot;
	c->share_len = cq->share.len;
	c->share_ino = cq->share.ino;
	c->share_fd = cq->share.fd;
	c->valid = 1;
}

static void store_cq(struct idev_direct *x, const struct idev_cq *cq)
{
	struct idev_dseg_cq *c = seg_cq(x, cq->cqid);

	if (c)
		cq_record(c, cq);
}

static void qp_record(struct idev_dseg_qp *q, const struct idev_qp *d)
{
	q->qpn = d->qpn;
	q->state = (uint8_t)d->state;
	q->type = (uint8_t)d->type;
	q->in_msg = d->resp.in_msg;
	q->nak_sent = d->resp.nak_sent;
	q->pdid = d->pdid;
	q->access_flags = d->access_flags;
	q->dest_qpn = d->dest_qpn;
	q->rq_cqid = d->rq_cqid;
	memcpy(q->dgid, d->av.dgid, 16);
	q->epsn = d->resp.epsn;
	q->msn = d->resp.msn;
	q->rq_cons = d->rq.cons;
	q->rq_mask = d->rq.mask;
	q->rq_db_prod = d->rq.db_prod;
	q->rq_stride_log2 = d->rq.stride_log2;
	q->rq_ring = d->resp.copy ? (uint64_t)(uintptr_t)d->rq.ring : 0;
	q->rq_share_len = q->rq_ring ? d->rq_share.len : 0;
	q->rq_share_ino = d->rq_share.ino;
	q->rq_share_fd = d->rq_share.fd;
	q->qkey = d->qkey;
	q->ep_fd = d->ep.fd;
	q->valid = 1;
}

static void store_qp(struct idev_direct *x, const struct idev_qp *d)
{
	struct idev_dseg_qp *q = idev_dseg_own_qp(x, d->qpn);

	if (q)
		qp_record(q, d);
}

static void store_keys(struct idev *dev, struct idev_direct *x)
{
	struct idev_dseg_key *k = (struct idev_dseg_key *)(x->seg + x->key_off);
	uint32_t hi = dev->dkeys_hi < x->nkeys ? dev->dkeys_hi : x->nkeys;
	struct idev_key_view v;

	for (uint32_t i = dev->dkeys_lo; i < hi; i++) {
		idev_key_view_of(dev->mrs ? dev->mrs[i] : NULL, &v);
		k[i].key = v.key;
		k[i].pdid = v.pdid;
		k[i].access = v.access;
		k[i].usable = v.usable;
		k[i].is_mw = v.is_mw;
		k[i].iova = v.iova;
		k[i].length = v.length;
		k[i].host = v.host;
		k[i].share_addr = v.share.addr;
		k[i].share_len = v.share.len;
		k[i].share_ino = v.share.ino;
		k[i].share_fd = v.share.fd;
	}
	dev->dkeys_lo = dev->dkeys_hi = 0;
}

static void direct_store(struct idev *dev, struct idev_direct *x)
{
	struct idev_cq *cq;

	for (struct idev_qp *d = dev->qp_list; d; d = d->next) {
		if (!recorded(d))
			continue;
		store_qp(x, d);
		cq = idev_cq_lookup(dev, d->rq_cqid);
		if (cq)
			store_cq(x, cq);
	}
	if (dev->dkeys_lo < dev->dkeys_hi)
		store_keys(dev, x);
}

bool idev_direct_port(const struct idev *dev)
{
	return dev->direct && !dev->direct->closed;
}

void idev_direct_sync_in(struct idev *dev)
{
	direct_load(dev, dev->direct);
}

void idev_direct_sync_out(struct idev *dev)
{
	direct_store(dev, dev->direct);
}

void idev_direct_enter(struct idev *dev)
{
	struct idev_direct *x = dev->direct;
	int rc;

	if (!x || x->closed)
		return;
	rc = idev_dseg_lock(x->hdr, x->pid, true);
	if (rc) {
		direct_close(x, "its lock is held too long");
		return;
	}
	x->held = true;
	direct_load(dev, x);
	direct_notify_drain(dev, x);
}

void idev_direct_leave(struct idev *dev)
{
	struct idev_direct *x = dev->direct;

	if (!x || !x->held)
		return;
	direct_store(dev, x);
	x->held = false;
	idev_dseg_unlock(x->hdr);
}

/* ---- same-process peers ------------------------------------------------- */

struct idev_qp *idev_direct_self_begin(struct idev *owner, uint32_t qpn,
				       bool held, struct idev_dseg_qp *q,
				       struct idev_dseg_cq *c)
{
	struct idev_qp *rd = idev_qp_lookup(owner, qpn);
	struct idev_cq *cq;

	if (!rd || rd->type != IBV_QPT_RC || !owner->direct)
		return NULL;
	/* an owner that is not in a locked section stored everything at its
	 * last leave; since then only executors changed the shared indices
	 * in its segment: take them as its next enter would */
	if (!held)
		load_qp(owner, owner->direct, rd);
	memset(q, 0, sizeof(*q));
	memset(c, 0, sizeof(*c));
	qp_record(q, rd);
	cq = idev_cq_lookup(owner, rd->rq_cqid);
	if (cq)
		cq_record(c, cq);
	return rd;
}

void idev_direct_self_end(struct idev *owner, struct idev_qp *rd,
			  const struct idev_dseg_qp *q,
			  const struct idev_dseg_cq *c)
{
	struct idev_cq *cq = idev_cq_lookup(owner, rd->rq_cqid);

	rd->resp.epsn = q->epsn & IDEV_PSN_MASK;
	rd->resp.msn = q->msn;
	rd->rq.cons = q->rq_cons & rd->rq.mask;
	rd->cnt.wqes += q->wqes;
	rd->cnt.cqes += q->cqes;
	store_qp(owner->direct, rd);
	if (!cq || !c->valid)
		return;
	cq->prod = c->prod & cq->mask;
	cq->color = c->color & 1;
	cq->sol_pending = c->sol_pending & 1;
	cq->sol_slot = c->sol_slot & cq->mask;
	store_cq(owner->direct, cq);
}
