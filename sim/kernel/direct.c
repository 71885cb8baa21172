// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel model: the direct path's switch, and doorbells applied
 * by the thread that stored them.
 *
 * The switch (IONIC_SIM_DIRECT, the launcher's --direct on|off; on
 * unless "0" or "off") says whether work may skip the engine thread.
 * Off, the emulator runs as it always did: the doorbell trap only
 * records a store and the engine applies it (sim/README.md, "Direct
 * path"); the benchmark compares both ways.
 *
 * On, the platform calls ik_direct_apply() in the trapping thread right
 * after capturing its store.  That thread is inside provider or
 * application code, at the store instruction of a doorbell: it holds no
 * lock of the model (the model never stores to a doorbell page itself,
 * ik.h), so taking the NIC lock there cannot deadlock against itself,
 * and the lock is only tried, never waited for: a busy lock leaves the
 * store to the engine, which the platform then wakes.  The signal is
 * synchronous, so the interrupted code is at a known point of its own,
 * not inside the allocator or stdio the model may use.
 */
#include <stdlib.h>
#include <string.h>

#include "kpriv.h"

bool ik_direct_enabled(void)
{
	const char *v = getenv(ISIM_ENV_DIRECT);

	return !v || (strcmp(v, "0") && strcmp(v, "off"));
}

/*
 * The store may be any open NIC's (its page's tag says which, and with
 * several NICs the bus hands each device its own stores, bus.c): every
 * NIC this process has a device for pops what is its.  A fork child has
 * no NIC until its first open.  False (the engines apply it) when any
 * NIC's lock was busy.
 */
static bool ik_direct_apply(void)
{
	bool all = true;

	for (unsigned int k = 0; k < ISIM_MAX_NICS; k++) {
		struct ik_nic *nic =
			__atomic_load_n(&ik_nics[k], __ATOMIC_ACQUIRE);

		if (nic && nic->dev && !idev_doorbells_apply_now(nic->dev))
			all = false;
	}
	return all;
}

void ik_direct_start(void)
{
	bool on = ik_direct_enabled();

	if (ik_plat && ik_plat->mmio_set_apply)
		ik_plat->mmio_set_apply(on ? ik_direct_apply : NULL);
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_DIRECT, "doorbells applied by %s",
			   on ? "the storing thread" :
				"the engine (" ISIM_ENV_DIRECT "=0)");
}
