// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: the key table (admin CREATE_MR / DESTROY_MR for
 * memory regions and windows) and the address-handle table (CREATE_AH /
 * DESTROY_AH).  Keys are (index << 8) | key8 as the driver allocates them
 * (docs/kernel-contract.md §11.1); the table is indexed by the index.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dev.h"
#include "direct.h"

struct idev_mr *idev_mr_at(const struct idev *dev, uint32_t key)
{
	uint32_t idx = key >> 8;

	if (!idx || idx >= dev->prof->nmrs)
		return NULL;
	return dev->mrs[idx];
}

struct idev_mr *idev_key_lookup(const struct idev *dev, uint32_t key)
{
	struct idev_mr *mr = idev_mr_at(dev, key);

	if (!mr || mr->key != key || !mr->valid)
		return NULL;
	return mr;
}

uint32_t idev_mr_key(const struct idev *dev, uint32_t index)
{
	struct idev_mr *mr = idev_mr_at(dev, index << 8);

	return mr ? mr->key : 0;
}

bool idev_key_valid(const struct idev *dev, uint32_t key)
{
	return idev_key_lookup(dev, key) != NULL;
}

int idev_mr_create(struct idev *dev, const struct idev_mr_create *c)
{
	uint32_t idx = c->key >> 8;
	struct idev_mr *mr;

	if (dev->dead)
		return -ENODEV; /* the firmware is gone (fatal.c) */
	if (!idx || idx >= dev->prof->nmrs || dev->mrs[idx])
		return -EINVAL;
	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return -ENOMEM;
	mr->key = c->key;
	mr->pdid = c->pdid;
	if (c->kind == IDEV_MR_USER) {
		mr->access = c->access;
		mr->iova = c->iova;
		mr->length = c->length;
		mr->host = c->host;
		mr->share = c->share;
		mr->valid = true;
	} else {
		/* a window is usable only once bound */
		mr->is_mw = true;
		mr->mw_type = c->kind == IDEV_MW_TYPE1 ? IBV_MW_TYPE_1 :
							 IBV_MW_TYPE_2;
	}
	dev->mrs[idx] = mr;
	dev->nlive_mrs++;
	idev_direct_keys_changed(dev, idx, idx + 1);
	return 0;
}

int idev_mr_destroy(struct idev *dev, uint32_t key)
{
	struct idev_mr *mr = idev_mr_at(dev, key);

	if (!mr)
		return -EINVAL;
	/* the key stops working at once */
	dev->mrs[key >> 8] = NULL;
	dev->nlive_mrs--;
	/* a region takes its windows with it: all of them may change */
	idev_direct_keys_changed(dev, mr->is_mw ? key >> 8 : 0,
				 mr->is_mw ? (key >> 8) + 1 : dev->prof->nmrs);
	/* windows bound to this region lose it */
	for (uint32_t i = 1; !mr->is_mw && i < dev->prof->nmrs; i++) {
		struct idev_mr *mw = dev->mrs[i];

		if (mw && mw->is_mw && mw->bound_mr == mr) {
			mw->bound_mr = NULL;
			mw->valid = false;
		}
	}
	free(mr);
	return 0;
}

int idev_ah_create(struct idev *dev, const struct idev_ah_create *c)
{
	struct idev_ah *ah;

	if (dev->dead)
		return -ENODEV; /* the firmware is gone (fatal.c) */
	if (c->ahid >= dev->prof->nahs || dev->ahs[c->ahid])
		return -EINVAL;
	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return -ENOMEM;
	ah->pdid = c->pdid;
	ah->av = c->av;
	dev->ahs[c->ahid] = ah;
	dev->nlive_ahs++;
	return 0;
}

int idev_ah_destroy(struct idev *dev, uint32_t ahid)
{
	struct idev_ah *ah = idev_ah_lookup(dev, ahid);

	if (!ah)
		return -EINVAL;
	dev->ahs[ahid] = NULL;
	dev->nlive_ahs--;
	free(ah);
	return 0;
}
