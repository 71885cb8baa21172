// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel model: registered memory direct-path peers map.
 *
 * As ringshare.c does for rings: a direct-path executor in another
 * process places a SEND's payload in the receive buffer (an MR of ours),
 * an RDMA WRITE's in the rkey's range, and reads an RDMA READ's source,
 * with process_vm_* (a page pin per page per message) unless that memory
 * is in a memfd both map.  So REG_MR on a NIC keeping a direct-path port
 * moves the region's whole pages (the head and tail pages it shares with
 * other memory stay as they are; the pages may span several mappings) to
 * a sealed memfd mapped MAP_SHARED at the same address, and the MR's key
 * record names it (struct idev_mr_share).  The application keeps its memory, contents and all.
 *
 * Unlike a ring just allocated, a buffer being registered may be written
 * by other threads meanwhile.  The move fences it: the pages are made
 * read-only, copied, and the copy mapped over them in one mremap; a store
 * in that window faults, and the doorbell trap's handler (shim/dbtrap.c)
 * asks ik_mr_share_fault(), which waits for the move to end and lets the
 * store run again on the new pages.  A system call writing there in that
 * window (microseconds) fails with EFAULT instead, as it would on any
 * read-only page.  Peers' executors are out (the NIC lock holds our
 * port's lock), our engine too; with other NICs in the process nothing
 * moves (their peers could still be writing the old pages).
 *
 * A second MR over pages already moved shares the memfd (a reference
 * each); the last DEREG_MR leaves the memory where it is, in the memfd,
 * closes our descriptor (the mapping keeps the file) and keeps the entry
 * for fork: a fork child gets private copies of what is still mapped from
 * the memfds, as anonymous memory gives it (MADV_DONTFORK ranges are not
 * in the child at all).  A later REG_MR there moves the pages again, to
 * a memfd of its own.  Caps: IK_MRS_MAX_LEN per region, IK_MRS_TOTAL registered at
 * a time, IK_MRS_MAX entries; beyond them peers use process_vm_*, and the
 * trace says why.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/sys.h"
#include "../common/trace.h"
#include "kpriv.h"

#define IK_MRS_MAX 64
#define IK_MRS_MAX_LEN (64ull << 20)
#define IK_MRS_TOTAL (256ull << 20)
#define IK_MRS_MOVED 8 /* moves the fault hook still recognises */

struct ik_mrs {
	uint8_t *addr;
	uint64_t len, ino;
	dev_t dev;
	int fd; /* open while MRs hold it, else -1 */
	unsigned int refs; /* MRs on it; 0: kept for fork */
};

static pthread_mutex_t mrs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ik_mrs mrs[IK_MRS_MAX];
static uint64_t mrs_total; /* bytes of entries with references */

/* The move in progress ([mv_lo, mv_hi), mv_hi 0: none), and the ones
 * done (generation mv_gen, ranges in 'moved'), read by the fault hook in
 * any thread, in signal context: atomics only. */
static uintptr_t mv_lo, mv_hi;
static uint64_t mv_gen;
static struct {
	uintptr_t lo, hi;
	uint64_t gen;
} moved[IK_MRS_MOVED];
static __thread uintptr_t retried_addr;
static __thread uint64_t retried_gen;

bool ik_mr_share_fault(uintptr_t addr)
{
	uint64_t g = __atomic_load_n(&mv_gen, __ATOMIC_ACQUIRE);
	uintptr_t hi = __atomic_load_n(&mv_hi, __ATOMIC_ACQUIRE);
	uintptr_t lo = __atomic_load_n(&mv_lo, __ATOMIC_ACQUIRE);

	if (addr >= lo && addr < hi) {
		/* the new pages are there once the generation moves on */
		while (__atomic_load_n(&mv_gen, __ATOMIC_ACQUIRE) == g)
			sched_yield();
		retried_addr = addr;
		retried_gen = g + 1;
		return true;
	}
	/* the move ended before we looked: retry once, the store was made
	 * on the old pages (a second fault there is the application's) */
	for (unsigned int i = 0; i < IK_MRS_MOVED; i++) {
		hi = __atomic_load_n(&moved[i].hi, __ATOMIC_ACQUIRE);
		lo = __atomic_load_n(&moved[i].lo, __ATOMIC_ACQUIRE);
		g = __atomic_load_n(&moved[i].gen, __ATOMIC_ACQUIRE);
		if (addr < lo || addr >= hi)
			continue;
		if (retried_addr == addr && retried_gen == g)
			return false;
		retried_addr = addr;
		retried_gen = g;
		return true;
	}
	return false;
}

/* The move of [p, p + len), fenced, published to the fault hook. */
static int move_fenced(uint8_t *p, uint64_t len, bool dontfork)
{
	uint64_t g = __atomic_load_n(&mv_gen, __ATOMIC_RELAXED);
	unsigned int i = (unsigned int)(g % IK_MRS_MOVED);
	int fd;

	__atomic_store_n(&mv_lo, (uintptr_t)p, __ATOMIC_RELEASE);
	__atomic_store_n(&mv_hi, (uintptr_t)p + len, __ATOMIC_RELEASE);
	fd = ik_memfd_move(p, len, dontfork, "ionic-sim-mr", true);
	__atomic_store_n(&moved[i].hi, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&moved[i].lo, (uintptr_t)p, __ATOMIC_RELEASE);
	__atomic_store_n(&moved[i].gen, g + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&moved[i].hi, (uintptr_t)p + len, __ATOMIC_RELEASE);
	__atomic_store_n(&mv_hi, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&mv_gen, g + 1, __ATOMIC_RELEASE);
	return fd;
}

/* Another NIC of this process could have peers writing these pages. */
static bool other_nics(const struct ik_nic *nic)
{
	for (unsigned int k = 0; k < ISIM_MAX_NICS; k++) {
		struct ik_nic *n =
			__atomic_load_n(&ik_nics[k], __ATOMIC_ACQUIRE);

		if (n && n != nic)
			return true;
	}
	return false;
}

/* A free entry, or one no MR holds whose memory is gone (closed). */
static struct ik_mrs *mrs_slot(void)
{
	struct ik_vma v;

	for (unsigned int i = 0; i < IK_MRS_MAX; i++)
		if (!mrs[i].len)
			return &mrs[i];
	for (unsigned int i = 0; i < IK_MRS_MAX; i++) {
		struct ik_mrs *s = &mrs[i];

		if (s->refs || (!ik_vma_at((uint64_t)(uintptr_t)s->addr, &v) &&
				v.ino == s->ino && v.dev == s->dev))
			continue;
		memset(s, 0, sizeof(*s));
		return s;
	}
	return NULL;
}

/* The entry whose memfd is mapping 'v', holding [a, e) at its place. */
static struct ik_mrs *mrs_of(const struct ik_vma *v, uint64_t a, uint64_t e)
{
	for (unsigned int i = 0; i < IK_MRS_MAX; i++) {
		struct ik_mrs *s = &mrs[i];
		uint64_t sa = (uint64_t)(uintptr_t)s->addr;

		if (s->len && s->ino == v->ino && s->dev == v->dev && a >= sa &&
		    e <= sa + s->len && v->off + (a - v->start) == a - sa)
			return s;
	}
	return NULL;
}

/* Under mrs_lock: may [a, e) move, mapping by mapping?  Each one plain
 * anonymous private rw memory or pages of an entry no MR holds any more
 * (they move on to a memfd of their own), with MADV_DONTFORK on all or
 * none.  A buffer may well span several: the allocator reuses memory
 * whose pages an earlier region moved.  NULL, or why not. */
static const char *movable(uint64_t a, uint64_t e, bool *dontfork)
{
	struct ik_mrs *old;
	struct ik_vma v;
	uint64_t cur, hi;

	for (cur = a; cur < e; cur = hi) {
		if (ik_vma_at(cur, &v))
			return "not all mapped";
		hi = v.end < e ? v.end : e;
		old = v.ino ? mrs_of(&v, cur, hi) : NULL;
		if (old && old->refs)
			return "part of it is registered shared already";
		if (old ? strcmp(v.perms, "rw-s") :
			  strcmp(v.perms, "rw-p") || v.off || v.ino ||
				    (v.named && !v.heap))
			return "not anonymous private rw memory";
		if (!v.has_flags || !v.plain)
			return "the mapping has unusual flags";
		if (cur != a && v.dontfork != *dontfork)
			return "MADV_DONTFORK on part of it";
		*dontfork = v.dontfork;
	}
	return NULL;
}

/* Under mrs_lock: [a, e) shared (an entry with a reference more), or
 * NULL and why not. */
static struct ik_mrs *share_locked(uint64_t a, uint64_t e, const char **why)
{
	struct ik_mrs *s = NULL, *old;
	bool dontfork = false;
	struct stat st;
	struct ik_vma v;
	int fd;

	if (ik_vma_at(a, &v)) {
		*why = "not mapped";
		return NULL;
	}
	/* all of it in a region registered already: one more reference */
	old = v.ino && e <= v.end ? mrs_of(&v, a, e) : NULL;
	if (old && old->refs) {
		old->refs++;
		return old;
	}
	*why = movable(a, e, &dontfork);
	if (*why)
		return NULL;
	if (mrs_total + (e - a) > IK_MRS_TOTAL)
		*why = "the process has too much shared already";
	else if (!(s = mrs_slot()))
		*why = "too many shared regions";
	if (*why)
		return NULL;
	fd = move_fenced((uint8_t *)(uintptr_t)a, e - a, dontfork);
	if (fd >= 0 && isim_sys_fstat(fd, &st)) {
		isim_sys_close(fd);
		fd = -errno;
	}
	if (fd < 0) {
		*why = strerror(-fd);
		return NULL;
	}
	/* entries whose pages all moved again have nothing left */
	for (unsigned int i = 0; i < IK_MRS_MAX; i++) {
		old = &mrs[i];
		if (old != s && old->len && !old->refs &&
		    (uint64_t)(uintptr_t)old->addr >= a &&
		    (uint64_t)(uintptr_t)old->addr + old->len <= e)
			memset(old, 0, sizeof(*old));
	}
	*s = (struct ik_mrs){
		(uint8_t *)(uintptr_t)a, e - a, st.st_ino, st.st_dev, fd, 1
	};
	mrs_total += s->len;
	return s;
}

void ik_mr_share(struct ik_nic *nic, struct ik_mr *mr, uint64_t start,
		 uint64_t len)
{
	uint64_t a = (start + IK_PAGE_SIZE - 1) & ~(uint64_t)(IK_PAGE_SIZE - 1);
	uint64_t e = (start + len) & ~(uint64_t)(IK_PAGE_SIZE - 1);
	const char *why = NULL;
	struct ik_mrs *s = NULL;

	memset(&mr->share, 0, sizeof(mr->share));
	if (ik_caller || !nic->dev || !idev_direct_port(nic->dev))
		return; /* an importer's, or no peers to share with */
	if (e <= a || start + len < start)
		why = "no whole page";
	else if (e - a > IK_MRS_MAX_LEN)
		why = "larger than 64 MiB";
	else if (other_nics(nic))
		why = "other NICs in the process";
	if (!why) {
		pthread_mutex_lock(&mrs_lock);
		s = share_locked(a, e, &why);
		if (s)
			mr->share = (struct idev_mr_share){
				.addr = (uint64_t)(uintptr_t)s->addr,
				.len = s->len,
				.ino = s->ino,
				.fd = s->fd,
			};
		pthread_mutex_unlock(&mrs_lock);
	}
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_DIRECT, "mr %#llx (%llu bytes): %s%s",
			   (unsigned long long)start, (unsigned long long)len,
			   s ? "shared" : "not shared: ", s ? "" : why);
}

void ik_mr_unshare(struct ik_mr *mr)
{
	if (!mr->share.len)
		return;
	pthread_mutex_lock(&mrs_lock);
	for (unsigned int i = 0; i < IK_MRS_MAX; i++) {
		struct ik_mrs *s = &mrs[i];

		if (s->len && s->fd == mr->share.fd &&
		    s->ino == mr->share.ino && s->refs) {
			/* the memory stays in the memfd; the entry stays for
			 * fork, without a descriptor */
			if (!--s->refs) {
				mrs_total -= s->len;
				isim_sys_close(s->fd);
				s->fd = -1;
			}
			break;
		}
	}
	pthread_mutex_unlock(&mrs_lock);
	memset(&mr->share, 0, sizeof(mr->share));
}

/* The child's mapping [p, p + len) of a memfd, privately: a copy. */
static void privatise(uint8_t *p, uint64_t len, const char *perms)
{
	int prot = (perms[0] == 'r' ? PROT_READ : 0) |
		   (perms[1] == 'w' ? PROT_WRITE : 0) |
		   (perms[2] == 'x' ? PROT_EXEC : 0);
	void *m;

	if (!(prot & PROT_READ))
		return; /* unreadable: left as it is */
	m = isim_sys_mmap(NULL, len, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return;
	if (!ik_copy_own(m, p, len) || mprotect(m, len, prot) ||
	    !ik_remap_over(m, p, len))
		isim_sys_munmap(m, len);
}

void ik_mr_share_atfork_child(void)
{
	struct ik_vma v;
	uint64_t cur, end, hi;

	mrs_lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
	for (unsigned int i = 0; i < IK_MRS_MAX; i++) {
		struct ik_mrs *s = &mrs[i];

		if (!s->len)
			continue;
		/* what is still mapped from the memfd, mapping by mapping
		 * (up to the first hole) */
		cur = (uint64_t)(uintptr_t)s->addr;
		end = cur + s->len;
		while (cur < end && !ik_vma_at(cur, &v)) {
			hi = v.end < end ? v.end : end;
			if (v.ino == s->ino && v.dev == s->dev)
				privatise((uint8_t *)(uintptr_t)cur, hi - cur,
					  v.perms);
			cur = hi;
		}
		if (s->fd >= 0)
			isim_sys_close(s->fd);
		memset(s, 0, sizeof(*s));
	}
	mrs_total = 0;
}
