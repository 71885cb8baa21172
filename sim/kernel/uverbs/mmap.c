// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: the mmap table of a ucontext (docs/kernel-contract.md
 * §6.5, §6.6; IB core rdma_user_mmap_entry_insert/_get).  Offsets are
 * handed out first-fit in pages in insertion order: the doorbell page is
 * pgoff 0, the PHC page pgoff 1.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../../common/sys.h"
#include "../kpriv.h"

int ik_mmap_insert(struct ik_file *f, enum ik_mmap_kind kind, uint64_t npages,
		   uint64_t *pgoff)
{
	struct ik_mmap_entry *e, **pp;
	uint64_t off = 0;

	/* first fit: the list is kept sorted by pgoff */
	for (pp = &f->mmaps; *pp; pp = &(*pp)->next) {
		if ((*pp)->pgoff >= off + npages)
			break;
		off = (*pp)->pgoff + (*pp)->npages;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->kind = kind;
	e->pgoff = off;
	e->npages = npages;
	e->next = *pp;
	*pp = e;
	*pgoff = off;
	return 0;
}

void ik_mmap_clear(struct ik_file *f)
{
	while (f->mmaps) {
		struct ik_mmap_entry *e = f->mmaps;

		f->mmaps = e->next;
		free(e);
	}
}

static const char *kind_name(enum ik_mmap_kind k)
{
	return k == IK_MMAP_DBELL ? "dbell" : k == IK_MMAP_PHC ? "phc" : "cmb";
}

/* Find the entry an mmap names and check the request against it. */
static int mmap_lookup(struct ik_file *f, size_t len, int prot, int flags,
		       off_t off, enum ik_mmap_kind *kind, int64_t *cmb_off,
		       uint64_t *cmb_tag)
{
	struct ik_mmap_entry *e;
	uint64_t pgoff;

	if (off < 0 || (off & (IK_PAGE_SIZE - 1)))
		return -EINVAL;
	pgoff = (uint64_t)off >> IK_PAGE_SHIFT;
	for (e = f->mmaps; e; e = e->next)
		if (e->pgoff == pgoff)
			break;
	/* an entry's start and exactly its length; VM_SHARED */
	if (!e || len != e->npages * IK_PAGE_SIZE ||
	    ((flags & MAP_TYPE) != MAP_SHARED &&
	     (flags & MAP_TYPE) != MAP_SHARED_VALIDATE))
		return -EINVAL;
	*kind = e->kind;
	if (e->kind == IK_MMAP_PHC && (prot & (PROT_WRITE | PROT_EXEC)))
		return -EPERM;
	if (e->kind == IK_MMAP_CMB) {
		/* fault injection: a mapping the kernel cannot make, after
		 * it placed the ring (docs/upstream-defects.md D23) */
		if (f->nic->prof.cmb_map_fail)
			return -EAGAIN;
		*cmb_off = ik_cmb_window(e, cmb_tag);
		if (*cmb_off < 0)
			return (int)*cmb_off; /* removed with its QP */
	}
	return 0;
}

/* For an importer (export.c): what the mapping is, for it to map. */
int ik_file_mmap_desc(struct ik_file *f, size_t len, int prot, int flags,
		      off_t off, struct ik_mmap_desc *d)
{
	enum ik_mmap_kind kind = 0;
	uint64_t cmb_tag = 0;
	int64_t cmb_off = 0;
	int rc;

	if (f->dead)
		return -EIO;
	pthread_mutex_lock(&f->nic->lock);
	rc = f->dead ? -EIO :
		       mmap_lookup(f, len, prot, flags, off, &kind, &cmb_off,
				   &cmb_tag);
	pthread_mutex_unlock(&f->nic->lock);
	if (rc)
		return rc;
	d->kind = (int)kind;
	d->tag = kind == IK_MMAP_DBELL ? f->dbid : cmb_tag;
	d->fd = kind == IK_MMAP_CMB ? f->nic->cmb_memfd :
		kind == IK_MMAP_PHC ? f->nic->phc_ro_fd :
				      -1;
	d->off = kind == IK_MMAP_CMB ? (off_t)cmb_off : 0;
	return 0;
}

void *ik_file_mmap(struct ik_file *f, void *addr, size_t len, int prot,
		   int flags, off_t off, int *err)
{
	enum ik_mmap_kind kind = 0;
	uint64_t cmb_tag = 0;
	int64_t cmb_off = 0;
	void *p = NULL;

	*err = 0;
	if (f->imp)
		return ik_import_mmap(f->imp, addr, len, prot, flags, off, err);
	if (f->dead) {
		/* inherited across fork: the parent's NIC lock is not ours */
		*err = -EIO;
		return NULL;
	}
	pthread_mutex_lock(&f->nic->lock);
	*err = f->dead ? -EIO :
			 mmap_lookup(f, len, prot, flags, off, &kind, &cmb_off,
				     &cmb_tag);
	pthread_mutex_unlock(&f->nic->lock);
	/* map outside the NIC lock: the doorbell trap has locks of its own
	 * that the engine holds while it takes the NIC lock */
	if (!*err && kind == IK_MMAP_DBELL) {
		p = ik_plat->dbpage_map(ik_nic_tag(f->nic, f->dbid), addr, len,
					err);
	} else if (!*err && kind == IK_MMAP_CMB && cmb_tag) {
		/* express doorbell: the stores go to the device */
		p = ik_plat->window_map(ik_nic_tag(f->nic, cmb_tag), addr, len,
					f->nic->cmb_memfd, cmb_off, err);
	} else if (!*err && kind == IK_MMAP_CMB) {
		p = isim_sys_mmap(addr, len, prot,
				  MAP_SHARED | (flags & MAP_FIXED),
				  f->nic->cmb_memfd, cmb_off);
		if (p == MAP_FAILED) {
			*err = -errno;
			p = NULL;
		}
	} else if (!*err) {
		/* the read-only descriptor keeps VM_MAYWRITE clear */
		p = isim_sys_mmap(addr, len, PROT_READ,
				  MAP_SHARED | (flags & MAP_FIXED),
				  f->nic->phc_ro_fd, (off_t)0);
		if (p == MAP_FAILED) {
			*err = -errno;
			p = NULL;
		}
	}
	if (isim_trace_enabled())
		isim_trace(
			ISIM_TR_MMAP,
			"mmap %s off=0x%llx len=%zu prot=0x%x flags=0x%x -> %p err=%d",
			kind ? kind_name(kind) : "?", (unsigned long long)off,
			len, prot, flags, p, *err);
	return p;
}
