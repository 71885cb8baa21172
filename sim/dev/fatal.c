// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: a firmware failure (docs/device-contract.md §9.1).
 *
 * When the firmware dies or resets, everything it held is gone: queues,
 * keys, address handles.  The device frees them all at once (their fabric
 * endpoints close, so peers see silence and retry until they give up),
 * writes no CQE and raises nothing more for them, and tells the host with
 * one DEV event (the eth driver's reset notice, which the kernel turns
 * into IBV_EVENT_DEVICE_FATAL).  A dead device then refuses every create;
 * a reset one takes new objects again, for contexts the kernel opens
 * afterwards.
 *
 * What makes it fail: the profile's fatal_after_ms (time since
 * idev_start), the trigger file of the configuration (polled by the
 * engine every IDEV_FATAL_POLL_MS), or idev_fail() itself.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "../common/sys.h"
#include "../common/trace.h"
#include "cqe.h"
#include "direct.h"
#include "qp.h"

void idev_tables_clear(struct idev *dev)
{
	uint32_t i;

	while (dev->qp_list)
		idev_qp_free(dev->qp_list);
	for (i = 0; dev->cqs && i < dev->ncqs; i++) {
		free(dev->cqs[i]);
		dev->cqs[i] = NULL;
	}
	for (i = 0; dev->mrs && i < dev->prof->nmrs; i++) {
		free(dev->mrs[i]);
		dev->mrs[i] = NULL;
	}
	for (i = 0; dev->ahs && i < dev->prof->nahs; i++) {
		free(dev->ahs[i]);
		dev->ahs[i] = NULL;
	}
	dev->nlive_qps = dev->nlive_cqs = dev->nlive_mrs = dev->nlive_ahs = 0;
	idev_direct_keys_changed(dev, 0, dev->prof->nmrs);
}

void idev_fail(struct idev *dev)
{
	bool reset = dev->prof->fatal_reset;

	if (dev->failed)
		return;
	dev->failed = true;
	dev->dead = !reset;
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_EVENT, "device %s: %u QPs, %u CQs lost",
			   reset ? "RESET" : "FATAL", dev->nlive_qps,
			   dev->nlive_cqs);
	/* doorbells still captured find no queue and are dropped */
	idev_tables_clear(dev);
	idev_raise(dev, IDEV_ASYNC_EQ, IDEV_EQE_TYPE_DEV,
		   reset ? IDEV_EQE_DEV_RESET : IDEV_EQE_DEV_FATAL, 0);
}

bool idev_dead(const struct idev *dev)
{
	return dev->dead;
}

int idev_fatal_poll(struct idev *dev)
{
	const struct isim_profile *p = dev->prof;
	uint64_t now, at;
	int ms = -1;

	if (dev->failed)
		return -1;
	if (p->fatal_after_ms) {
		now = idev_now_ns();
		at = dev->started_ns + (uint64_t)p->fatal_after_ms * 1000000ull;
		if (now >= at) {
			idev_fail(dev);
			return -1;
		}
		ms = (int)((at - now + 999999) / 1000000);
	}
	if (dev->cfg.fatal_file) {
		if (isim_sys_access(dev->cfg.fatal_file, F_OK) == 0) {
			idev_fail(dev);
			return -1;
		}
		if (ms < 0 || ms > IDEV_FATAL_POLL_MS)
			ms = IDEV_FATAL_POLL_MS;
	}
	return ms;
}
