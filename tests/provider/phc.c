// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * PHC page snapshot and timestamp conversion (providers/ionic/phc.c) on a
 * hand-written clock page: seqlock retry, forward and backward deltas,
 * counter wrap, and the kHz figure query_device_ex reports.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "phc.h"
#include "check.h"

/* ib_uverbs_clock_info as the kernel writes it */
struct page {
	uint32_t sign, resv;
	uint64_t nsec, cycles, frac;
	uint32_t mult, shift;
	uint64_t mask, overflow_period;
};

int main(void)
{
	static struct page pg;
	struct ionic_phc_snapshot s;

	/* 1 GHz counter: mult / 2^shift = 1 ns per cycle */
	memset(&pg, 0, sizeof(pg));
	pg.sign = 2;
	pg.nsec = 5000;
	pg.cycles = 1000;
	pg.shift = 10;
	pg.mult = 1u << 10;
	pg.mask = 0xffff;

	CHECK(ionic_phc_snapshot(&pg, &s) == 0);
	CHECK(s.nsec == 5000 && s.cycles == 1000 && s.mask == 0xffff);
	CHECK(ionic_phc_khz(&s) == 1000000);
	CHECK(ionic_phc_cycles_to_ns(&s, 1000) == 5000);
	CHECK(ionic_phc_cycles_to_ns(&s, 1100) == 5100);
	CHECK(ionic_phc_cycles_to_ns(&s, 900) == 4900);

	/* the 16-bit counter wrapped since the snapshot */
	pg.cycles = 0xfff0;
	CHECK(ionic_phc_snapshot(&pg, &s) == 0);
	CHECK(ionic_phc_cycles_to_ns(&s, 0x000a) == 5000 + 0x1a);

	/* 500 MHz: 2 ns per cycle, with a fractional remainder */
	pg.cycles = 0;
	pg.mult = 2u << 10;
	pg.frac = 512; /* half a ns */
	CHECK(ionic_phc_snapshot(&pg, &s) == 0);
	CHECK(ionic_phc_khz(&s) == 500000);
	CHECK(ionic_phc_cycles_to_ns(&s, 10) == 5020);

	/* an update that never finishes */
	pg.sign = 3;
	CHECK(ionic_phc_snapshot(&pg, &s) == EBUSY);

	/* no clock */
	memset(&s, 0, sizeof(s));
	CHECK(ionic_phc_khz(&s) == 0);

	return check_finish();
}
