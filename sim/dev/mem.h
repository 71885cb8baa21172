/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim device: memory access through keys.  The only code of the
 * device that turns (key, va, length, access) into host pointers
 * (docs/kernel-contract.md §11; statuses per docs/device-contract.md §5.6,
 * §12):
 *
 *   no such valid key, MW used as lkey, other PD,
 *   range outside the region, missing access right  -> LOCAL_PROT_ERR
 *   more data than the receive SGL holds              -> LOCAL_LEN_ERR
 *
 * The memory is the application's own (same process): host pointer =
 * mr->host + (va - mr->iova).  Caller holds the device lock.
 */
#ifndef IDEV_DEV_MEM_H
#define IDEV_DEV_MEM_H

#include <stdbool.h>
#include <stdint.h>

#include "../../common/ionic_hw.h"
#include "dev.h"
#include "wqe.h"

/*
 * A key as the checks see it: an entry of the device's own table, or a
 * peer's mirror of one (direct.h), so both paths decide the same way.
 * 'usable': an MR not invalidated, or a window bound to a live region.
 */
struct idev_key_view {
	uint32_t key, pdid, access;
	bool usable, is_mw;
	uint64_t iova, length;
	uint64_t host; /* the address of iova, in the owner's memory */
	/* the region's pages in shared memory (a window: its region's) */
	struct idev_mr_share share;
};
/* The view of a table entry (NULL: none, never usable). */
void idev_key_view_of(const struct idev_mr *mr, struct idev_key_view *k);
/* The checks of idev_mem_resolve / idev_mem_resolve_remote on a view:
 * *addr is the address of va in the owner's memory. */
enum ionic_status idev_key_check_local(const struct idev_key_view *k,
				       uint32_t pdid, uint32_t key, uint64_t va,
				       uint64_t len, uint32_t access,
				       uint64_t *addr);
enum ionic_status idev_key_check_remote(const struct idev_key_view *k,
					uint32_t pdid, uint32_t rkey,
					uint64_t va, uint64_t len,
					uint32_t access, uint64_t *addr);

/* Resolve [va, va + len) under 'key' needing the IBV_ACCESS_* bits in
 * 'access' (0 for a local read).  len 0 always succeeds with *host NULL. */
enum ionic_status idev_mem_resolve(struct idev *dev, uint32_t pdid,
				   uint32_t key, uint64_t va, uint64_t len,
				   uint32_t access, uint8_t **host);

/*
 * Resolve a remote access [va, va + len) under 'rkey' for the responder:
 * an MR of 'pd' with the IBV_ACCESS_REMOTE_* right, or a bound memory
 * window (its own range and rights, memory of the MR it is bound to).
 * Any failure is a remote access error (the caller NAKs the requester).
 */
enum ionic_status idev_mem_resolve_remote(struct idev *dev, uint32_t pdid,
					  uint32_t rkey, uint64_t va,
					  uint64_t len, uint32_t access,
					  uint8_t **host);

/* Check every SGE of a decoded WQE (nothing for inline data). */
enum ionic_status idev_mem_check_sgl(struct idev *dev, uint32_t pdid,
				     const struct idev_wqe *w, uint32_t access);

/* Copy 'len' payload bytes starting at message offset 'off' out of the
 * WQE's SGL or inline data. */
enum ionic_status idev_mem_gather(struct idev *dev, uint32_t pdid,
				  const struct idev_wqe *w, uint64_t off,
				  void *dst, uint32_t len);

/* Copy 'len' bytes into a receive WQE's SGL at message offset 'off'
 * (needs IBV_ACCESS_LOCAL_WRITE); LOCAL_LEN_ERR if the SGL is too short. */
enum ionic_status idev_mem_scatter(struct idev *dev, uint32_t pdid,
				   const struct idev_wqe *w, uint64_t off,
				   const void *src, uint32_t len);

#endif /* IDEV_DEV_MEM_H */
