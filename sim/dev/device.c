// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: the device object - creation from its configuration,
 * the tables sized from the firmware profile, the clock, events to the
 * host and the counters.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common/sys.h"
#include "../common/trace.h"
#include "cqe.h"
#include "direct.h"
#include "qp.h"

uint64_t idev_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

uint64_t idev_clock(const struct idev *dev)
{
	uint64_t ns = dev->cfg.clock_ns ? dev->cfg.clock_ns() : idev_now_ns();

	return ns & IDEV_CLOCK_MASK;
}

void idev_raise(struct idev *dev, uint32_t eqid, enum idev_eqe_type type,
		enum idev_eqe_code code, uint32_t qid)
{
	struct idev_eqe e = {
		.eqid = eqid,
		.type = type,
		.code = code,
		.qid = qid,
	};

	if (dev->cfg.ops && dev->cfg.ops->event)
		dev->cfg.ops->event(dev->cfg.host, &e);
}

/* Size of an id table: the largest qid of either pipeline plus one
 * (ids of the two pipelines interleave, docs/kernel-contract.md §15). */
static uint32_t qid_table_size(const struct isim_profile *p, uint32_t count)
{
	uint32_t half = count / 2, a, b;

	if (!half)
		return 1;
	a = isim_profile_qid(p, 0, half - 1);
	b = isim_profile_qid(p, 1, half - 1);
	return (a > b ? a : b) + 1;
}

/* The wire's faults, as the profile asks (docs/device-contract.md §17). */
static void device_faults(const struct isim_profile *p)
{
	struct ifab_faults f = {
		.loss_ppm = p->loss_ppm,
		.dup_ppm = p->dup_ppm,
		.reorder_ppm = p->reorder_ppm,
		.corrupt_ppm = p->corrupt_ppm,
		.delay_us = p->delay_us,
		.link_down_after = p->link_down_after,
		.link_down_ms = p->link_down_ms,
		.mute_after = p->mute_after,
		.seed = p->fault_seed,
	};

	ifab_faults_set(&f);
	if (isim_profile_faults(p) && isim_trace_enabled())
		isim_trace(ISIM_TR_PKT,
			   "faults: loss %u dup %u reorder %u corrupt %u ppm, "
			   "delay %u us, link down after %u for %u ms, mute "
			   "after %u, seed %u",
			   p->loss_ppm, p->dup_ppm, p->reorder_ppm,
			   p->corrupt_ppm, p->delay_us, p->link_down_after,
			   p->link_down_ms, p->mute_after, p->fault_seed);
}

int idev_create(const struct idev_config *cfg, struct idev **out)
{
	struct idev *dev;

	if (!cfg->lock)
		return -EINVAL;
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	dev->cfg = *cfg;
	dev->prof = &dev->cfg.prof;
	dev->stats = cfg->stats ? cfg->stats : dev->own_stats;
	if (!cfg->stats)
		dev->cfg.stats_fd = -1;
	isim_node_gid(cfg->node, 0, dev->gid[0]);
	isim_node_gid(cfg->node, 1, dev->gid[1]);
	device_faults(dev->prof);
	dev->link_up = true;
	dev->nqps = qid_table_size(dev->prof, dev->prof->qp_count);
	dev->ncqs = qid_table_size(dev->prof, dev->prof->cq_count);
	dev->qps = calloc(dev->nqps, sizeof(*dev->qps));
	dev->cqs = calloc(dev->ncqs, sizeof(*dev->cqs));
	dev->mrs = calloc(dev->prof->nmrs ? dev->prof->nmrs : 1,
			  sizeof(*dev->mrs));
	dev->ahs = calloc(dev->prof->nahs ? dev->prof->nahs : 1,
			  sizeof(*dev->ahs));
	if (!dev->qps || !dev->cqs || !dev->mrs || !dev->ahs) {
		idev_destroy(dev);
		return -ENOMEM;
	}
	if (cfg->direct)
		idev_direct_init(dev); /* without it: packets only */
	*out = dev;
	return 0;
}

void idev_enter(struct idev *dev)
{
	idev_direct_enter(dev);
}

void idev_leave(struct idev *dev)
{
	idev_direct_leave(dev);
}

int idev_start(struct idev *dev)
{
	if (dev->engine)
		return 0;
	dev->started_ns = idev_now_ns();
	return idev_engine_start(dev);
}

void idev_destroy(struct idev *dev)
{
	if (!dev)
		return;
	idev_engine_stop(dev);
	/* QPs never destroyed (process exit): close their endpoints so
	 * nothing is left behind. */
	idev_tables_clear(dev);
	idev_direct_fini(dev);
	free(dev->qps);
	free(dev->cqs);
	free(dev->mrs);
	free(dev->ahs);
	free(dev);
}

void idev_atfork_child(struct idev *dev)
{
	/* Only this process' copies of the fds are closed: the parent keeps
	 * its endpoints bound and its engine running.  No lock: the threads
	 * that could hold it do not exist in the child. */
	for (struct idev_qp *d = dev->qp_list; d; d = d->next) {
		if (d->ep.fd >= 0)
			isim_sys_close(d->ep.fd);
		if (d->ep.txfd >= 0)
			isim_sys_close(
				d->ep.txfd); /* the UDP transport's socket */
		d->ep.fd = d->ep.txfd = -1;
	}
	if (dev->engine)
		idev_engine_atfork_child(dev->engine);
	idev_direct_atfork_child(dev);
}

void idev_get_stats(const struct idev *dev, struct idev_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->qps = dev->nlive_qps;
	st->cqs = dev->nlive_cqs;
	st->mrs = dev->nlive_mrs;
	st->ahs = dev->nlive_ahs;
	for (const struct idev_qp *d = dev->qp_list; d; d = d->next) {
		st->cnt.wqes += d->cnt.wqes;
		st->cnt.cqes += d->cnt.cqes;
		st->cnt.rnr_naks_rx += d->cnt.rnr_naks_rx;
		st->cnt.retransmits += d->cnt.retransmits;
		st->cnt.drops += d->cnt.drops;
	}
}
