// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: the port's hardware counters, as the ionic
 * driver reads them from its firmware (alloc_hw_port_stats /
 * get_hw_stats: names from STATS_HDRS, values from STATS_VALS) and IB
 * core shows them, in sysfs ports/1/hw_counters/ and through RDMA
 * netlink STAT_GET (netlink.c).  The emulated firmware keeps them in the
 * host's counter page (common/hwstats.h), so any process of the host
 * reads them, with or without a device of its own.
 */
#include <errno.h>

#include "../common/hwstats.h"
#include "ik.h"

unsigned int ik_hw_stats_count(void)
{
	return ISIM_HWS_N;
}

const char *ik_hw_stat_name(unsigned int i)
{
	return i < ISIM_HWS_N ? isim_hwstat_names[i] : NULL;
}

int ik_hw_stat_get(unsigned int k, unsigned int i, uint64_t *val)
{
	struct isim_hwstats_page *p;

	if (k >= ik_host_get()->nnics || i >= ISIM_HWS_N)
		return -ENOENT;
	p = isim_hwstats(NULL);
	*val = p ? isim_hwstat_get(p->v[k], i) : 0;
	return 0;
}
