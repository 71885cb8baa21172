// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: send queues in controller memory (CMB,
 * docs/kernel-contract.md §9.3).  The CMB is a memfd of profile cmb_pages
 * pages, the device's memory (handed to it at creation): the device reads
 * the SQ ring there, the application writes WQEs through its own mapping
 * of the QP's window.
 *
 * Express doorbells (docs/device-contract.md §11.2, §11.3): the driver
 * grants EXPDB when the device offers it for SQs (expdb_qtypes) and has an
 * express-doorbell window for the SQ's WQE size (expdb_mask, 64..512
 * bytes).  The window the application then maps aliases the same pages,
 * but its stores go to the device instead of the memory: it is mapped
 * through the platform's trap (window_map), tagged with the device's name
 * for that window (idev_expdb_tag), and the device writes each store into
 * its memory and treats a WQE's last chunk as the doorbell.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../../common/sys.h"
#include "../kpriv.h"

#define IK_SQCMB_ORDER 5 /* order must be below: at most 16 pages */
#define IK_CMB_KNOWN                                              \
	(IONIC_CMB_ENABLE | IONIC_CMB_REQUIRE | IONIC_CMB_EXPDB | \
	 IONIC_CMB_WC | IONIC_CMB_UC)

int ik_cmb_init(struct ik_nic *nic)
{
	uint32_t n = nic->prof.cmb_pages;
	void *p;
	int fd;

	nic->cmb_memfd = -1;
	if (!n)
		return 0;
	fd = memfd_create("ionic-sim-cmb", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)n * IK_PAGE_SIZE) < 0)
		goto err;
	p = isim_sys_mmap(NULL, (size_t)n * IK_PAGE_SIZE,
			  PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		goto err;
	nic->cmb_bits = calloc((n + 63) / 64, sizeof(uint64_t));
	if (!nic->cmb_bits) {
		errno = ENOMEM;
		goto err;
	}
	nic->cmb_base = p;
	nic->cmb_memfd = fd;
	return 0;
err:
	isim_sys_close(fd);
	return -errno;
}

static bool cmb_range_free(struct ik_nic *nic, uint32_t first, uint32_t n)
{
	for (uint32_t i = first; i < first + n; i++)
		if (nic->cmb_bits[i / 64] & (1ull << (i % 64)))
			return false;
	return true;
}

static void cmb_range_set(struct ik_nic *nic, uint32_t first, uint32_t n,
			  bool used)
{
	for (uint32_t i = first; i < first + n; i++) {
		if (used)
			nic->cmb_bits[i / 64] |= 1ull << (i % 64);
		else
			nic->cmb_bits[i / 64] &= ~(1ull << (i % 64));
	}
}

/* bitmap_find_free_region: 2^order pages aligned to their size */
static int64_t cmb_get(struct ik_nic *nic, unsigned int order)
{
	uint32_t n = 1u << order;

	for (uint32_t first = 0; first + n <= nic->prof.cmb_pages; first += n) {
		if (cmb_range_free(nic, first, n)) {
			cmb_range_set(nic, first, n, true);
			return first;
		}
	}
	return -ENOMEM;
}

bool ik_cmb_expdb_ok(const struct ik_nic *nic, unsigned int stride_log2)
{
	const struct isim_profile *p = &nic->prof;

	/* the lif offers express doorbells on its SQs, and a window for
	 * WQEs of this size (64 B -> bit 0 ... 512 B -> bit 3) exists */
	return (p->expdb_qtypes & IONIC_EXPDB_SQ) && stride_log2 >= 6 &&
	       stride_log2 <= 9 && (p->expdb_mask & (1u << (stride_log2 - 6)));
}

uint64_t ik_cmb_expdb_tag(const struct ik_qp *qp)
{
	return idev_expdb_tag(qp->sq.desc.stride_log2, qp->sq_cmb_pgid);
}

/*
 * Place the SQ of 'qp' in CMB if asked and possible.  Never fails the
 * create for lack of CMB (REQUIRE only turns a partial grant into none);
 * returns 0 or -ENOMEM when the mmap entry cannot be made.
 */
int ik_cmb_sq_setup(struct ik_file *f, struct ik_qp *qp, uint8_t req,
		    uint8_t *resp, uint64_t *offset)
{
	struct ik_nic *nic = f->nic;
	uint64_t pages, pgoff;
	unsigned int order = 0;
	int64_t pgid;
	int rc;

	*resp = 0;
	*offset = 0;
	if (!(req & IONIC_CMB_ENABLE) || !nic->cmb_base)
		return 0;
	if (req & ~IK_CMB_KNOWN) {
		if (req & IONIC_CMB_REQUIRE)
			return 0;
		req &= IK_CMB_KNOWN;
	}
	/* an importer's stores to an express window are not forwarded
	 * (xproc.h): its SQs are offered the CMB without express doorbell */
	if ((req & IONIC_CMB_EXPDB) &&
	    (ik_caller || !ik_cmb_expdb_ok(nic, qp->sq.desc.stride_log2))) {
		if (req & IONIC_CMB_REQUIRE)
			return 0;
		req &= ~IONIC_CMB_EXPDB;
	}
	pages = (qp->sq.desc.size + IK_PAGE_SIZE - 1) / IK_PAGE_SIZE;
	while ((1ull << order) < pages)
		order++;
	if (order >= IK_SQCMB_ORDER)
		return 0;
	pgid = cmb_get(nic, order);
	if (pgid < 0)
		return 0;
	rc = ik_mmap_insert(f, IK_MMAP_CMB, pages, &pgoff);
	if (rc) {
		cmb_range_set(nic, (uint32_t)pgid, 1u << order, false);
		return rc;
	}
	/* the driver zeroes the pages before handing them out */
	memset(nic->cmb_base + (size_t)pgid * IK_PAGE_SIZE, 0,
	       ((size_t)1 << order) * IK_PAGE_SIZE);
	/* mapping type: write-combining unless UC alone was asked for */
	if ((req & (IONIC_CMB_WC | IONIC_CMB_UC)) == IONIC_CMB_UC)
		req = (req & ~IONIC_CMB_WC) | IONIC_CMB_UC;
	else
		req = (req & ~IONIC_CMB_UC) | IONIC_CMB_WC;
	qp->sq_in_cmb = true;
	qp->sq_cmb_pgid = (uint32_t)pgid;
	qp->sq_cmb_order = (uint8_t)order;
	for (struct ik_mmap_entry *e = f->mmaps; e; e = e->next)
		if (e->pgoff == pgoff)
			qp->sq_cmb_entry = e;
	if (qp->sq_cmb_entry) {
		qp->sq_cmb_entry->qp = qp;
		qp->sq_cmb_entry->sq = true;
	}
	qp->sq.cmb = req;
	qp->sq.ring = nic->cmb_base + (size_t)pgid * IK_PAGE_SIZE;
	*resp = req;
	*offset = pgoff << IK_PAGE_SHIFT;
	return 0;
}

void ik_cmb_sq_release(struct ik_file *f, struct ik_qp *qp)
{
	if (!qp->sq_in_cmb)
		return;
	/* the entry stays as a tombstone: its offsets are not handed out
	 * again while old mappings may exist, and new mmaps of it fail */
	if (qp->sq_cmb_entry)
		qp->sq_cmb_entry->qp = NULL;
	if (qp->sq.cmb & IONIC_CMB_EXPDB) {
		/* stores to a window still mapped must not reach the pages'
		 * next owner: cut them off, then let the device apply what
		 * was captured before */
		ik_plat->dbpage_revoke(
			ik_nic_tag(f->nic, ik_cmb_expdb_tag(qp)));
		idev_sync_doorbells(f->nic->dev);
	}
	cmb_range_set(f->nic, qp->sq_cmb_pgid, 1u << qp->sq_cmb_order, false);
	qp->sq_in_cmb = false;
}

/* Byte offset in the CMB memfd of the window an entry names, or -EINVAL
 * when its QP is gone; *tag: the express-doorbell tag, 0 for a plain
 * window. */
int64_t ik_cmb_window(const struct ik_mmap_entry *e, uint64_t *tag)
{
	if (!e->qp || !e->qp->sq_in_cmb)
		return -EINVAL;
	*tag = e->qp->sq.cmb & IONIC_CMB_EXPDB ? ik_cmb_expdb_tag(e->qp) : 0;
	return (int64_t)e->qp->sq_cmb_pgid * IK_PAGE_SIZE;
}
