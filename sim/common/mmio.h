/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim: stores to emulated device memory (the doorbell pages), as the
 * platform captures them and the device consumes them.  The platform (the
 * shim's doorbell trap) plays the PCIe bus: it knows pages and stores,
 * nothing about queues.  The kernel model maps each page with a tag (the
 * doorbell page's dbid, the BAR page the real driver would map) and hands
 * the port to the device when it creates it.
 */
#ifndef ISIM_MMIO_H
#define ISIM_MMIO_H

#include <stdint.h>
#include <sys/types.h>

struct isim_mmio_store {
	uint64_t page; /* tag of the page, as mapped */
	uint32_t offset; /* byte offset of the store inside the page */
	uint32_t size; /* 1, 2, 4, 8 or 16 bytes */
	uint64_t value; /* low 8 bytes of the stored value */
	uint64_t value_hi; /* high 8 bytes of a 16-byte store */
	pid_t tid; /* storing thread, for tracing */
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
