// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * PHC page access (see phc.h).  The page holds the generic uverbs clock
 * info (struct ib_uverbs_clock_info of newer kernel headers; Debian 12's
 * lack it), host endian; 'sign' is a sequence count, odd while the kernel
 * rewrites the page.
 */
#include <assert.h>
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>

#include <stdbool.h>

#include "phc.h"
#include "../../common/ionic_hw.h"

#define IONIC_PHC_READ_ATTEMPTS 10

int ionic_phc_snapshot(const void *phc_page, struct ionic_phc_snapshot *snap)
{
	const volatile struct ionic_clock_info *phc = phc_page;
	uint32_t seq;
	int i;

	for (i = 0; i < IONIC_PHC_READ_ATTEMPTS; i++) {
		seq = __atomic_load_n(&phc->sign, __ATOMIC_ACQUIRE);
		if (seq & 1)
			continue; /* update in progress */
		snap->nsec = phc->nsec;
		snap->cycles = phc->cycles;
		snap->frac = phc->frac;
		snap->mask = phc->mask;
		snap->mult = phc->mult;
		snap->shift = phc->shift;
		atomic_thread_fence(memory_order_acquire);
		if (__atomic_load_n(&phc->sign, __ATOMIC_RELAXED) == seq)
			return 0;
	}
	return EBUSY;
}

uint64_t ionic_phc_cycles_to_ns(const struct ionic_phc_snapshot *snap,
				uint64_t cycles)
{
	uint64_t delta = (cycles - snap->cycles) & snap->mask;
	uint64_t sign_bit = snap->mask & ~(snap->mask >> 1);

	/* the counter wraps: a "negative" delta is a time before the snapshot */
	if (delta & sign_bit) {
		delta = (0 - delta) & snap->mask;
		return snap->nsec -
		       ((delta * snap->mult - snap->frac) >> snap->shift);
	}
	return snap->nsec + ((delta * snap->mult + snap->frac) >> snap->shift);
}

uint64_t ionic_phc_ns_to_cycles(const struct ionic_phc_snapshot *snap,
				uint64_t ns)
{
	uint64_t dns, dcyc;
	bool before = ns < snap->nsec;

	if (!snap->mult)
		return snap->cycles & snap->mask;
	dns = before ? snap->nsec - ns : ns - snap->nsec;
	/* cycles = ns * 2^shift / mult, split so the product cannot
	 * overflow for any interval the counter's width can express */
	dcyc = (dns / snap->mult << snap->shift) +
	       ((dns % snap->mult << snap->shift) / snap->mult);
	return (before ? snap->cycles - dcyc : snap->cycles + dcyc) &
	       snap->mask;
}

uint64_t ionic_phc_khz(const struct ionic_phc_snapshot *snap)
{
	/* 10^6 ns per ms; the shift bound keeps the numerator in 64 bits */
	if (!snap->mult || snap->shift >= 44)
		return 0;
	return ((1000000ull << snap->shift) + snap->mult / 2) / snap->mult;
}
