// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: hardware CQ objects - admin CREATE_CQ / DESTROY_CQ
 * and the reset of a CQ's producer, colour and arm state.  What a CQ does
 * with CQEs is cqe.c.
 */
#include <errno.h>
#include <stdlib.h>

#include "cqe.h"

void idev_cq_reset(struct idev_cq *cq)
{
	cq->prod = 0;
	cq->color = 1;
	cq->host_cons = 0;
	cq->arm_any_idx = 0;
	cq->arm_sol_idx = 0;
	cq->armed_any = false;
	cq->armed_sol = false;
	cq->overflowed = false;
	cq->sol_pending = false;
	cq->sol_slot = 0;
}

int idev_cq_create(struct idev *dev, const struct idev_cq_create *c)
{
	struct idev_cq *cq;

	if (dev->dead)
		return -ENODEV; /* the firmware is gone (fatal.c) */
	/* CQEs are 32 bytes; a smaller stride can't hold them. */
	if (c->ring.stride_log2 < 5 || !c->ring.addr)
		return -EINVAL;
	if (c->cqid >= dev->ncqs || dev->cqs[c->cqid])
		return -EINVAL;
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return -ENOMEM;
	cq->dev = dev;
	cq->cqid = c->cqid;
	cq->eqid = c->eqid;
	cq->dbid = c->dbid;
	cq->ring = c->ring.addr;
	cq->mask = c->ring.mask;
	cq->stride_log2 = c->ring.stride_log2;
	cq->share = c->ring.share;
	idev_cq_reset(cq);
	dev->cqs[c->cqid] = cq;
	dev->nlive_cqs++;
	return 0;
}

int idev_cq_destroy(struct idev *dev, uint32_t cqid)
{
	struct idev_cq *cq;

	idev_sync_doorbells(dev);
	cq = idev_cq_lookup(dev, cqid);
	if (!cq)
		return -EINVAL;
	dev->cqs[cqid] = NULL;
	dev->nlive_cqs--;
	free(cq);
	return 0;
}
