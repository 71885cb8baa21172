/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Publishing work to the device: the one module that tells the device
 * about new WQEs and about consumed CQEs, and the only place with memory
 * barriers and MMIO stores.
 *
 *  - SQ and RQ: struct ionic_pub says how the new WQEs of one queue reach
 *    the device.  ionic_pub_init() (publish.c) chooses it once, when the
 *    QP is created and the kernel has said where the ring lives:
 *      IONIC_PUB_HOST   the device reads the host ring; one doorbell store
 *                       per publish;
 *      IONIC_PUB_CMB    the WQEs are copied to the queue's window in
 *                       controller memory (CMB), then one doorbell store;
 *      IONIC_PUB_EXPDB  the WQEs are copied to the window in 64-byte
 *                       chunks and each WQE's last chunk, whose trailer
 *                       names the queue and the next index, is its own
 *                       doorbell (express doorbell).
 *    On top of HOST or CMB, the application may hold the doorbell back
 *    (IONIC_PUB_GDA, ionic_dv_qp_set_gda()): the WQEs are written (and
 *    copied) as usual, but the doorbell store is left to the application,
 *    which takes its value from ionic_pub_dbell_val().
 *    ionic_publish() publishes everything produced since its last call.
 *  - CQ: struct ionic_cq_pub holds the credits of the reservation
 *    protocol (every WQE rung may produce one CQE, so the host must never
 *    ring more WQEs than the CQ has free slots), the ring-0 sync that
 *    hands consumed slots back to the device, and the arm doorbells.
 *
 * Used by ionic_post_publish() (qp_priv.h: post.c and wr.c publish
 * through it), poll.c and qp.c (credits), cq.c (arm) and qp.c (init,
 * reset).  It knows rings (queue.h) and the
 * doorbell format (common/ionic_hw.h), never QPs, CQs or verbs, so it
 * calls nothing above it.
 *
 * A doorbell is ONE 64-bit little-endian store to a register of the
 * doorbell page: the device takes a doorbell from an 8-byte write and
 * ignores writes of other sizes (ionic-sim, which traps and decodes each
 * store to the page, does the same).  It is written through a volatile
 * uint64_t lvalue so the compiler emits exactly one 8-byte store, never
 * split, merged or left out.  Never write a doorbell any other way.
 */
#ifndef IONIC_PUBLISH_H
#define IONIC_PUBLISH_H

#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "queue.h"
#include "../../common/ionic_hw.h"

/* ---- barriers and the doorbell store -------------------------------- */

/*
 * Make WQE (host memory) writes visible to the device before the doorbell
 * store that tells the device to read them.
 *  - x86-64: stores are not reordered with other stores (TSO) and an
 *    uncached MMIO store is not reordered with earlier write-back stores,
 *    so only the compiler must be stopped from sinking WQE stores below
 *    the doorbell.
 *  - arm64: a store-store barrier for the outer-shareable domain.
 *  - elsewhere: a full fence is always sufficient.
 */
static inline void ionic_to_device_barrier(void)
{
#if defined(__x86_64__) || defined(__i386__)
	asm volatile("" ::: "memory");
#elif defined(__aarch64__)
	asm volatile("dmb oshst" ::: "memory");
#else
	__sync_synchronize();
#endif
}

/*
 * After seeing a CQE's colour bit, the rest of the CQE must not be read
 * from before the colour was read (the device writes the colour last).
 *  - x86-64: loads are not reordered with other loads; compiler barrier.
 *  - arm64: load-load/load-store barrier for the outer-shareable domain.
 */
static inline void ionic_from_device_barrier(void)
{
#if defined(__x86_64__) || defined(__i386__)
	asm volatile("" ::: "memory");
#elif defined(__aarch64__)
	asm volatile("dmb oshld" ::: "memory");
#else
	__sync_synchronize();
#endif
}

/*
 * The memory order of the load that sees a word the device writes last
 * (a CQE's colour word, ionic_cqe_valid()): relaxed, followed by
 * ionic_from_device_barrier(), which is what orders the rest of the CQE
 * on hardware.  In a ThreadSanitizer build the device is ionic-sim's
 * engine thread publishing that word with a release store, and TSan does
 * not model fences: the load is an acquire there, so TSan sees the
 * ordering the barrier gives (docs/testing.md §6).  Same instructions on
 * x86-64 either way.
 */
#if defined(__SANITIZE_THREAD__)
#define IONIC_FROM_DEVICE_LOAD __ATOMIC_ACQUIRE
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define IONIC_FROM_DEVICE_LOAD __ATOMIC_ACQUIRE
#endif
#endif
#ifndef IONIC_FROM_DEVICE_LOAD
#define IONIC_FROM_DEVICE_LOAD __ATOMIC_RELAXED
#endif

/*
 * Before a CQ ring-0 doorbell hands consumed CQE slots back to the device,
 * every read of those CQEs must be complete, or the device could overwrite
 * a slot that is still being decoded.
 *  - x86-64: loads are not reordered with later stores; compiler barrier.
 *  - arm64: a full outer-shareable barrier (loads before the store).
 */
static inline void ionic_cq_release_barrier(void)
{
#if defined(__x86_64__) || defined(__i386__)
	asm volatile("" ::: "memory");
#elif defined(__aarch64__)
	asm volatile("dmb osh" ::: "memory");
#else
	__sync_synchronize();
#endif
}

/*
 * Drain write-combining buffers: stores to a WC mapping (the CMB window)
 * become visible to the device before any later store (the doorbell).
 *  - x86-64: SFENCE (WC stores are weakly ordered).
 *  - arm64: DSB ST, like rdma-core's mmio_flush_writes().
 *  - elsewhere: a full fence.
 */
static inline void ionic_wc_flush(void)
{
#if defined(__x86_64__) || defined(__i386__)
	asm volatile("sfence" ::: "memory");
#elif defined(__aarch64__)
	asm volatile("dsb st" ::: "memory");
#else
	__sync_synchronize();
#endif
}

/*
 * Write doorbell value 'val' (see ionic_dbell_val()) to register 'reg' of
 * the doorbell page.  Callers issue ionic_to_device_barrier() first when
 * the doorbell publishes WQEs, ionic_cq_release_barrier() when it returns
 * CQ slots.
 */
static inline void ionic_dbell_write(volatile uint64_t *reg, uint64_t val)
{
	*reg = htole64(val);
}

/* ---- CQ: credits, ring-0 sync, arm ---------------------------------- */

/* Device-facing state of one hardware CQ, under the CQ lock. */
struct ionic_cq_pub {
	volatile uint64_t *dbreg; /* the CQ doorbell register */
	int reserve; /* credits: WQEs that may still be rung */
	int reserve_pending; /* credits earned since the last ring-0 sync */
	uint16_t arm_prod[2]; /* last arm index: [0] any, [1] solicited */
};

/*
 * A new CQ whose ring 'ring' has its geometry: every slot is a credit;
 * its doorbells go to register 'qtype' of 'dbpage'.
 */
void ionic_cq_pub_init(struct ionic_cq_pub *cp, const struct ionic_queue *ring,
		       volatile uint64_t *dbpage, unsigned int qtype);

/*
 * Ring-0 sync: give every consumed slot back to the device (ring->prod is
 * the host's read position, ring->cons the position last reported) and
 * bank the credits earned since the last sync.
 */
static inline void ionic_cq_sync(struct ionic_cq_pub *cp,
				 struct ionic_queue *ring)
{
	cp->reserve += cp->reserve_pending;
	cp->reserve_pending = 0;
	ring->cons = ring->prod;
	ionic_cq_release_barrier();
	ionic_dbell_write(cp->dbreg, ring->dbell | ring->prod);
}

/*
 * Reservation step: spend credits for newly rung WQEs (0 from poll) and
 * sync ring 0 once they run out, but only if the read position moved.
 */
static inline void ionic_cq_reserve(struct ionic_cq_pub *cp,
				    struct ionic_queue *ring, int spend)
{
	cp->reserve -= spend;
	if (__builtin_expect(cp->reserve <= 0, 0) && ring->prod != ring->cons)
		ionic_cq_sync(cp, ring);
}

/*
 * Credits come back for WQEs that will not produce a CQE any more: those
 * completed (by a CQE or a software flush) and those dropped by a reset or
 * a destroy.  They are banked at the next sync.
 */
static inline void ionic_cq_credit(struct ionic_cq_pub *cp, int n)
{
	cp->reserve_pending += n;
}

/*
 * Arm for the next completion (any, or solicited only): sync ring 0 first
 * so that the device knows how far the host has read and a CQE already
 * past that point raises the event at once, then ring 1 or 2 with a new
 * arm index.  When the device already has the read position (nothing
 * read since the last sync), that sync would repeat it: only the credits
 * are banked, no doorbell.
 */
static inline void ionic_cq_arm(struct ionic_cq_pub *cp,
				struct ionic_queue *ring, bool solicited_only)
{
	/* ring 1 (any) or ring 2 (solicited only), without a branch */
	uint64_t val = IONIC_DBELL_RING_ARM << solicited_only;
	uint16_t arm = (cp->arm_prod[solicited_only] + 1) & ring->mask;
	uint16_t prod = ring->prod;

	static_assert(IONIC_DBELL_RING_SONLY == IONIC_DBELL_RING_ARM << 1,
		      "arm rings");
	cp->reserve += cp->reserve_pending;
	cp->reserve_pending = 0;
	if (prod != ring->cons) {
		ring->cons = prod;
		ionic_cq_release_barrier();
		ionic_dbell_write(cp->dbreg, ring->dbell | prod);
	}
	cp->arm_prod[solicited_only] = arm;
	ionic_dbell_write(cp->dbreg, ring->dbell | val | arm);
}

/* ---- SQ and RQ: publishing WQEs ------------------------------------- */

enum ionic_pub_mode {
	IONIC_PUB_HOST,
	IONIC_PUB_CMB,
	IONIC_PUB_EXPDB,
	/* flag on HOST or CMB: the application writes the doorbell */
	IONIC_PUB_GDA = 0x80,
};

/* How one SQ or RQ is published, under the queue lock. */
struct ionic_pub {
	volatile uint64_t *dbreg; /* the queue type's doorbell register */
	volatile uint64_t *win; /* CMB window of q.size bytes, or NULL */
	uint16_t prod_rung; /* producer index published last */
	uint8_t mode; /* enum ionic_pub_mode, possibly | IONIC_PUB_GDA */
	uint8_t qtype; /* queue type, for express-doorbell trailers */
	bool wc; /* the window is mapped write-combining (else uncached) */
};

/*
 * The one place that decides how a queue is published, at QP creation:
 * queue 'q' (geometry, ring memory and doorbell template set) of queue
 * type 'qtype', doorbells to 'dbpage', in host memory if 'win' is NULL,
 * else copied to the CMB window 'win' (write-combining if 'wc'), with
 * express doorbells if 'expdb' (the WQE layout must keep the trailer).
 */
void ionic_pub_init(struct ionic_pub *pub, struct ionic_queue *q,
		    volatile uint64_t *dbpage, unsigned int qtype, void *win,
		    bool wc, bool expdb);

/*
 * After a RESET restarted the queue at index 0 (and possibly cleared its
 * host ring): publishing restarts there too.  The GDA flag stays.
 */
void ionic_pub_reset(struct ionic_pub *pub, struct ionic_queue *q);

/*
 * Write the express-doorbell trailer of every slot of the host ring of
 * 'q' (queue type 'qtype' of queue 'qid').  WQE preparation leaves these
 * last 8 bytes alone; the copy to the window carries them along.
 */
void ionic_expdb_prefill(struct ionic_queue *q, unsigned int qtype,
			 uint32_t qid);

/*
 * Hold the doorbell back for the application (on) or ring it again (off).
 * 0, or EINVAL to turn it on for express doorbells, where the copy of a
 * WQE is its doorbell.  Caller holds the queue lock.
 */
int ionic_pub_set_gda(struct ionic_pub *pub, bool on);

static inline bool ionic_pub_gda(const struct ionic_pub *pub)
{
	return pub->mode & IONIC_PUB_GDA;
}

/* The doorbell value that publishes queue 'q' up to producer index 'prod'. */
static inline uint64_t ionic_pub_dbell_val(const struct ionic_queue *q,
					   uint16_t prod)
{
	return q->dbell | prod;
}

/*
 * publish.c: ionic_publish() for everything but a plain host ring (CMB
 * copies, a doorbell held back); out of line, as rare.
 */
void ionic_publish_slow(const struct ionic_pub *pub,
			const struct ionic_queue *q, uint16_t from,
			uint16_t to);

/*
 * Publish the WQEs [from, prod) of 'q' (from = pub->prod_rung, prod =
 * q->prod, from != prod), spending one credit of CQ 'cp' (ring 'cq_ring')
 * for each: every WQE may produce one CQE, so the room is reserved before
 * the device can run them (with express doorbells the device may start
 * as soon as the first WQE's last chunk lands).  Caller holds the queue
 * lock and the CQ lock (ionic_post_publish(), qp_priv.h).
 */
static inline void ionic_publish(struct ionic_pub *pub,
				 const struct ionic_queue *q, uint16_t from,
				 uint16_t prod, struct ionic_cq_pub *cp,
				 struct ionic_queue *cq_ring)
{
	ionic_cq_reserve(cp, cq_ring, (prod - from) & q->mask);
	pub->prod_rung = prod;

	if (__builtin_expect(pub->mode != IONIC_PUB_HOST, 0)) {
		ionic_publish_slow(pub, q, from, prod);
		return;
	}
	ionic_to_device_barrier();
	ionic_dbell_write(pub->dbreg, ionic_pub_dbell_val(q, prod));
}

#endif /* IONIC_PUBLISH_H */
