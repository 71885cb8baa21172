// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: memory window bind and key invalidation.
 *
 * Rules (IBTA 10.6.7, as rxe_mw.c checks them):
 *  - the window and the region belong to the QP's PD;
 *  - a type-2 window must be free (not bound) to be bound, and can't be
 *    bound with length 0; a type-1 window may be rebound, length 0 unbinds;
 *  - zero-based addressing is for type-2 windows only;
 *  - the region must allow MW_BIND, and LOCAL_WRITE if the window grants
 *    remote write or atomic access; the window must lie inside the region;
 *  - only type-2 windows are invalidated by LOCAL_INV or SEND_WITH_INV
 *    (user MRs are not fast-register MRs; type-1 windows unbind by a
 *    zero-length bind).
 * A bound window addresses [iova, iova + length) of its own, mapped onto
 * the region's memory from bind_va on: host = window start in the region.
 */
#include "direct.h"
#include "mw.h"

/* The key object at the index of 'key', valid or not (a window being
 * bound is not valid yet); with 'exact', only if its key byte matches. */
static struct idev_mr *mw_key_obj(struct idev *dev, uint32_t key, bool exact)
{
	struct idev_mr *mr = idev_mr_at(dev, key);

	return mr && (!exact || mr->key == key) ? mr : NULL;
}

/* Firmware MR flags (docs/device-contract.md §3.7) use the IBV_ACCESS_* bit
 * values. */
static uint32_t mw_access(uint16_t flags)
{
	return flags & (IONIC_MRF_LOCAL_WRITE | IONIC_MRF_REMOTE_WRITE |
			IONIC_MRF_REMOTE_READ | IONIC_MRF_REMOTE_ATOMIC |
			IONIC_MRF_MW_BIND | IONIC_MRF_ZERO_BASED);
}

enum ionic_status idev_mw_bind(struct idev *dev, uint32_t pdid,
			       const struct idev_wqe *w)
{
	/*
	 * A bind names its window by index: for a type-2 window the verbs
	 * consumer owns the key byte (it picks the new one in the bind), so
	 * the "current key" a provider can send may be stale once the window
	 * was bound and invalidated before.  Invalidations, which present
	 * the key to be killed, must match it exactly.
	 */
	struct idev_mr *mw = mw_key_obj(dev, w->key, false);
	uint32_t access = mw_access(w->bind_flags);
	struct idev_mr *mr;

	if (!mw || !mw->is_mw || mw->pdid != pdid)
		return IONIC_STS_MEM_MGMT_OPER_ERR;
	if (mw->mw_type == IBV_MW_TYPE_2 && (mw->valid || !w->bind_len))
		return IONIC_STS_MEM_MGMT_OPER_ERR;
	if (mw->mw_type == IBV_MW_TYPE_1 && (access & IBV_ACCESS_ZERO_BASED))
		return IONIC_STS_MEM_MGMT_OPER_ERR;

	idev_direct_keys_changed(dev, w->key >> 8, (w->key >> 8) + 1);
	if (!w->bind_len) {
		/* Type-1 unbind: the key byte may change, nothing else. */
		mw->valid = false;
		mw->bound_mr = NULL;
		mw->key = (mw->key & ~0xffu) | w->new_key8;
		return IONIC_STS_OK;
	}
	mr = idev_key_lookup(dev, w->bind_lkey);
	if (!mr || mr->is_mw || mr->pdid != pdid ||
	    !(mr->access & IBV_ACCESS_MW_BIND))
		return IONIC_STS_MEM_MGMT_OPER_ERR;
	if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
	    !(mr->access & IBV_ACCESS_LOCAL_WRITE))
		return IONIC_STS_MEM_MGMT_OPER_ERR;
	if (w->bind_va < mr->iova || w->bind_va - mr->iova > mr->length ||
	    w->bind_len > mr->length - (w->bind_va - mr->iova))
		return IONIC_STS_MEM_MGMT_OPER_ERR;

	mw->bound_mr = mr;
	mw->host = mr->host + (w->bind_va - mr->iova);
	mw->iova = (access & IBV_ACCESS_ZERO_BASED) ? 0 : w->bind_va;
	mw->length = w->bind_len;
	mw->access = access;
	mw->key = (mw->key & ~0xffu) | w->new_key8;
	mw->valid = true;
	return IONIC_STS_OK;
}

static enum ionic_status mw_invalidate(struct idev *dev, uint32_t pdid,
				       uint32_t key)
{
	struct idev_mr *mw = mw_key_obj(dev, key, true);

	if (!mw || !mw->is_mw || mw->mw_type != IBV_MW_TYPE_2 ||
	    mw->pdid != pdid || !mw->valid)
		return IONIC_STS_MEM_MGMT_OPER_ERR;
	mw->valid = false;
	mw->bound_mr = NULL;
	idev_direct_keys_changed(dev, key >> 8, (key >> 8) + 1);
	return IONIC_STS_OK;
}

enum ionic_status idev_mw_local_inv(struct idev *dev, uint32_t pdid,
				    uint32_t key)
{
	return mw_invalidate(dev, pdid, key);
}

enum ionic_status idev_mw_remote_inv(struct idev *dev, uint32_t pdid,
				     uint32_t rkey)
{
	return mw_invalidate(dev, pdid, rkey);
}
