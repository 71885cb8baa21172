/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim: the hardware counters of an emulated host's NICs, the ones
 * the ionic driver shows as ports/1/hw_counters/ in sysfs and through
 * `rdma statistic show` (RDMA netlink STAT_GET).  Every process of a
 * host counts into one page of the launcher's run directory
 * ($IONIC_SIM_RUNDIR/hw_counters), which each maps shared: NIC k's
 * counters are the row v[k], added to with relaxed atomics (the data path
 * pays one locked add per counter and frame).  The values are only
 * numbers: a process that scribbles on the page makes them wrong, it
 * cannot make another process fail.  Without a run directory (the preload
 * on its own, unit tests) the page is this process's alone.
 *
 * Semantics (docs/device-contract.md §17.1): every RoCEv2
 * frame a NIC's queue pairs send or receive, requests, responses and
 * ACKs, retransmissions included; bytes are the frame's, Ethernet header
 * to ICRC.  The direct path, which moves messages without frames, counts
 * the frames the packet path would have used for them.
 */
#ifndef ISIM_HWSTATS_H
#define ISIM_HWSTATS_H

#include <stdint.h>

#include "nics.h"

#define ISIM_HWSTATS_FILE "hw_counters" /* in the run directory */
#define ISIM_HWSTATS_MAGIC 0x31535748u /* "HWS1" */
#define ISIM_HWSTATS_SLOTS 32 /* per NIC: room for more counters */

enum isim_hwstat {
	ISIM_HWS_TX_BYTES,
	ISIM_HWS_TX_PKTS,
	ISIM_HWS_RX_BYTES,
	ISIM_HWS_RX_PKTS,
	ISIM_HWS_N,
};

struct isim_hwstats_page {
	uint32_t magic;
	uint32_t nstats; /* ISIM_HWS_N: the rows' counters in use */
	uint32_t pad[14];
	uint64_t v[ISIM_MAX_NICS][ISIM_HWSTATS_SLOTS];
};

/* The counter names, as the ionic firmware reports them (sysfs file
 * names, netlink HWCOUNTER_ENTRY_NAME), in enum order. */
extern const char *const isim_hwstat_names[ISIM_HWS_N];

/* This process's mapping of the run's page (made on the first call; the
 * run directory's file, else anonymous memory), or NULL if no memory.
 * '*fd' (may be NULL) gets the file's descriptor, kept open for the
 * process's life (-1: anonymous). */
struct isim_hwstats_page *isim_hwstats(int *fd);

/* Count one frame of 'bytes' (row: a NIC's v[k]; NULL: not counted). */
static inline void isim_hwstat_frame(uint64_t *row, enum isim_hwstat pkts,
				     uint64_t n, uint64_t bytes)
{
	if (!row || !n)
		return;
	__atomic_fetch_add(&row[pkts], n, __ATOMIC_RELAXED);
	__atomic_fetch_add(&row[pkts - 1], bytes, __ATOMIC_RELAXED);
}

static inline uint64_t isim_hwstat_get(const uint64_t *row, enum isim_hwstat i)
{
	return __atomic_load_n(&row[i], __ATOMIC_RELAXED);
}

#endif /* ISIM_HWSTATS_H */
