/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The only place with memory barriers and MMIO doorbell stores.
 *
 * A doorbell is ONE 64-bit little-endian store to dbpage[qtype].  It is
 * written through a volatile uint64_t lvalue so the compiler emits a single
 * plain MOV: ionic-sim emulates the doorbell page by trapping the store and
 * decoding it, and it understands plain MOV stores only (no SSE/AVX, no
 * MOVDIR64B, no memcpy).  Never write a doorbell any other way.
 */
#ifndef IONIC_DOORBELL_H
#define IONIC_DOORBELL_H

#include <endian.h>
#include <stddef.h>
#include <stdint.h>

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

#define IONIC_CMB_CHUNK 64 /* express-doorbell copy unit, bytes */

/*
 * Copy 'nqw' 64-bit words of prepared WQEs from the host ring to a queue's
 * controller-memory (CMB) window (ionic-device.md §11.4): plain 64-bit
 * stores through a volatile lvalue, in ascending address order, like
 * doorbells (top of this file) and for the same reason: ionic-sim decodes
 * plain stores only (its window is ordinary shared memory).  On real hardware a WC
 * mapping is better served by 64-byte bursts (MOVDIR64B, ST64B); whatever
 * the primitive, the WC buffers must be drained with ionic_wc_flush()
 * before the doorbell store that makes the device read the window, and
 * for express doorbells before each WQE's last 64-byte chunk and after the
 * last WQE of a batch (D17).
 */
static inline void ionic_cmb_copy(volatile uint64_t *dst, const uint64_t *src,
				  size_t nqw)
{
	size_t i;

	for (i = 0; i < nqw; i++)
		dst[i] = src[i];
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
 * Write a doorbell: register 'qtype' of the doorbell page, value 'val'
 * (see ionic_dbell_val()).  Callers issue ionic_to_device_barrier() first
 * when the doorbell publishes WQEs, ionic_cq_release_barrier() when it
 * returns CQ slots.
 */
static inline void ionic_dbell_write(volatile uint64_t *dbpage,
				     unsigned int qtype, uint64_t val)
{
	*(volatile uint64_t *)(dbpage + qtype) = htole64(val);
}

#endif /* IONIC_DOORBELL_H */
