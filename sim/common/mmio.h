/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim: stores to emulated device memory (the doorbell pages), as the
 * platform captures them and the device consumes them.  The platform (the
 * shim's doorbell trap) plays the PCIe bus: it knows pages and stores,
 * nothing about queues.  The kernel model maps each page with a tag (the
 * doorbell page's dbid, the BAR page the real driver would map; for an
 * express-doorbell window of controller memory, the tag the device gives
 * that window, sim/dev/idev.h) and hands the port to the device when it
 * creates it.
 */
#ifndef ISIM_MMIO_H
#define ISIM_MMIO_H

#include <stdint.h>
#include <sys/types.h>

/* Largest single store the bus carries: a 64-byte direct store
 * (MOVDIR64B), the way a WQE chunk reaches an express-doorbell window. */
#define ISIM_MMIO_MAX_STORE 64

struct isim_mmio_store {
	uint64_t page; /* tag of the page, as mapped */
	uint32_t offset; /* byte offset of the store inside the mapping */
	uint32_t size; /* 1, 2, 4, 8, 16, 32 or 64 bytes */
	pid_t tid; /* storing thread, for tracing */
	union {
		/* the stored bytes in address order; value is the first
		 * eight as a little-endian number (a doorbell) */
		uint8_t data[ISIM_MMIO_MAX_STORE];
		struct {
			uint64_t value; /* bytes 0..7 */
			uint64_t value_hi; /* bytes 8..15 */
		};
	};
};

/* Where a device reads its stores from, in capture order (program order
 * across all threads of the process). */
struct isim_mmio_port {
	/* A descriptor readable while stores are pending, or negative when
	 * the platform has none (stores are then only seen by pop). */
	int (*eventfd)(void);
	/* Take the oldest store: 1, or 0 when none is pending.  The thread
	 * that pops must never store to a trapped page itself. */
	int (*pop)(struct isim_mmio_store *st);
};

#endif /* ISIM_MMIO_H */
