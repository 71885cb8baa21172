/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The PHC clock page the kernel may map at GET_CONTEXT (ctx->phc): reading
 * a consistent snapshot of its conversion parameters, and turning raw
 * device timestamps (CQE cycles) into nanoseconds of the PHC clock.
 */
#ifndef IONIC_PHC_H
#define IONIC_PHC_H

#include <stdint.h>

struct ionic_phc_snapshot {
	uint64_t nsec; /* clock time at 'cycles' */
	uint64_t cycles; /* counter value of the last kernel update */
	uint64_t frac; /* sub-ns remainder, scaled by 2^shift */
	uint64_t mask; /* valid counter bits */
	uint32_t mult; /* ns per cycle, scaled by 2^shift */
	uint32_t shift;
};

/* Copy the parameters while the kernel is not updating them; 0 or EBUSY. */
int ionic_phc_snapshot(const void *phc_page, struct ionic_phc_snapshot *snap);

/* Nanoseconds of the raw counter value 'cycles' (before or after snap). */
uint64_t ionic_phc_cycles_to_ns(const struct ionic_phc_snapshot *snap,
				uint64_t cycles);

/* The counter value at clock time 'ns', extrapolated from the snapshot
 * (masked to the counter's width). */
uint64_t ionic_phc_ns_to_cycles(const struct ionic_phc_snapshot *snap,
				uint64_t ns);

/* Counter frequency in kHz, as ibv_device_attr_ex.hca_core_clock; 0 if none. */
uint64_t ionic_phc_khz(const struct ionic_phc_snapshot *snap);

#endif /* IONIC_PHC_H */
