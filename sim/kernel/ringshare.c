// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel model: rings in memory direct-path peers map.
 *
 * A direct-path executor in another process reads an RC responder's
 * receive WQE and writes its RECV CQE (sim/dev/direct_exec.c).  Through
 * process_vm_* each costs a page pin in the kernel per message; with the
 * rings in a memfd both processes map, they are plain memory accesses.
 * So when a CQ or an RC QP is created on a NIC whose device keeps a
 * direct-path port, its CQ ring and its RQ ring move to a memfd mapped
 * MAP_SHARED over the same addresses (the application keeps its memory,
 * contents and all, as pinned memory stays the application's), and the
 * device publishes the memfd's descriptor and inode in its port's
 * records; peers open it through /proc/<pid>/fd, as they open the port.
 *
 * Only when it is plainly safe: whole pages (no neighbour shares them)
 * of one anonymous private read-write mapping with no flag but the
 * ordinary ones (no hugepages, mlock, userfaultfd, KSM, names, ...),
 * as /proc/self/smaps says, for a caller of this process (an importer's
 * rings are its own memfd already), and at most IK_SHARE_MAX of them
 * (each keeps a descriptor open).  The ring was just allocated and its
 * creating thread is inside this command: nothing else writes it during
 * the move.  Anything else stays as it was: peers use process_vm_*.
 *
 * A fork child gets what the anonymous memory would have given it: a
 * private copy, or nothing with MADV_DONTFORK (re-applied to the new
 * mapping when the old one had it).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../common/sys.h"
#include "../common/trace.h"
#include "kpriv.h"

#define IK_SHARE_MAX 64
#define IK_SHARE_MAX_LEN (1ull << 30)

struct ik_share {
	uint8_t *addr;
	uint64_t len;
	int fd;
	bool dontfork;
};

static pthread_mutex_t share_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ik_share shares[IK_SHARE_MAX];

/* The VmFlags of an ordinary anonymous mapping (proc(5)): anything else
 * (lo, hg, nh, mg, um, uw, sl, dd, ...) leaves the ring alone. */
static bool vmflags_plain(char *flags, bool *dontfork)
{
	/* sh, ms: a shared mapping (whose perms say so already) */
	static const char *const ok[] = { "rd", "wr", "mr", "mw", "me", "ac",
					  "sd", "nr", "dc", "sh", "ms" };
	char *save = NULL;
	bool known;

	*dontfork = false;
	for (char *t = strtok_r(flags, " \t\n", &save); t;
	     t = strtok_r(NULL, " \t\n", &save)) {
		known = false;
		for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
			known |= !strcmp(t, ok[i]);
		if (!known)
			return false;
		*dontfork |= !strcmp(t, "dc");
	}
	return true;
}

struct vma_scan {
	uint64_t a;
	struct ik_vma *v;
	bool in; /* the lines after the header of the mapping holding a */
	bool done;
};

static void vma_line(struct vma_scan *sc, char *line)
{
	unsigned long long s, e, off, ino;
	unsigned int maj, min;
	char perms[5];
	int n = 0;

	if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu %n", &s, &e, perms,
		   &off, &maj, &min, &ino, &n) == 7 &&
	    n > 0) {
		if (sc->in) { /* past our mapping without its VmFlags */
			sc->done = true;
			return;
		}
		if (sc->a < s || sc->a >= e)
			return;
		sc->in = true;
		sc->v->start = s;
		sc->v->end = e;
		sc->v->off = off;
		sc->v->ino = ino;
		sc->v->dev = makedev(maj, min);
		memcpy(sc->v->perms, perms, sizeof(perms));
		sc->v->named = line[n] && line[n] != '\n';
		sc->v->heap = !strncmp(line + n, "[heap]", 6);
		return;
	}
	if (!sc->in || strncmp(line, "VmFlags:", 8))
		return;
	sc->done = true;
	sc->v->has_flags = true;
	sc->v->plain = vmflags_plain(line + 8, &sc->v->dontfork);
}

int ik_vma_at(uint64_t a, struct ik_vma *v)
{
	struct vma_scan sc = { .a = a, .v = v };
	char buf[4096 + 512];
	size_t have = 0;
	ssize_t n;
	char *nl, *line;
	int fd = isim_sys_open("/proc/self/smaps", O_RDONLY | O_CLOEXEC, 0);

	memset(v, 0, sizeof(*v));
	if (fd < 0)
		return -errno;
	while (!sc.done) {
		n = isim_sys_read(fd, buf + have, sizeof(buf) - 1 - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		buf[have] = 0;
		line = buf;
		while (!sc.done && (nl = strchr(line, '\n'))) {
			*nl = 0;
			vma_line(&sc, line);
			line = nl + 1;
		}
		have -= (size_t)(line - buf);
		memmove(buf, line, have);
		if (have == sizeof(buf) - 1) /* a line longer than that */
			have = 0;
	}
	isim_sys_close(fd);
	return sc.in ? 0 : -ENOENT;
}

/* Is [a, a + len) inside one plain anonymous private mapping? */
static bool vma_plain(uint64_t a, uint64_t len, bool *dontfork,
		      const char **why)
{
	struct ik_vma v;

	*dontfork = false;
	if (ik_vma_at(a, &v)) {
		*why = "not mapped";
		return false;
	}
	if (a + len > v.end || strcmp(v.perms, "rw-p") || v.off || v.ino ||
	    v.named) {
		*why = "not in one anonymous private rw mapping";
		return false;
	}
	if (!v.has_flags) {
		*why = "no VmFlags in smaps";
		return false;
	}
	if (!v.plain) {
		*why = "the mapping has unusual flags";
		return false;
	}
	*dontfork = v.dontfork;
	return true;
}

bool ik_copy_own(void *to, const void *from, uint64_t len)
{
	struct iovec l = { to, len }, r = { (void *)(uintptr_t)from, len };

	/* our own memory: no ptrace policy applies to ourselves */
	return syscall(SYS_process_vm_readv, getpid(), &l, 1ul, &r, 1ul, 0ul) ==
	       (long)len;
}

bool ik_remap_over(void *from, uint8_t *to, uint64_t len)
{
	/* the system call itself: a memory hook an application patched into
	 * libc's mremap (UCX's) would take the move for an unmap of its
	 * memory, which it is not */
	return syscall(SYS_mremap, from, len, len,
		       MREMAP_MAYMOVE | MREMAP_FIXED,
		       to) == (long)(uintptr_t)to;
}

/*
 * The copies of a move and of a fork child's privatisation go through the
 * kernel with raw system calls, past the sanitizers' interceptors, which
 * would check ranges they cannot judge: the fence that orders the copy
 * against other threads' stores is an mprotect ThreadSanitizer does not
 * see, and whole pages around a registered buffer may hold what
 * AddressSanitizer's allocator has freed (its quarantine, a buffer freed
 * after DEREG_MR while a fork child still gets the pages).
 */
int ik_memfd_fill(int fd, const uint8_t *p, uint64_t len)
{
	uint64_t done = 0;
	ssize_t n;

	while (done < len) {
		n = syscall(SYS_pwrite64, fd, p + done, len - done,
			    (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EFAULT;
		done += (uint64_t)n;
	}
	return 0;
}

int ik_memfd_move(uint8_t *p, uint64_t len, bool dontfork, const char *name,
		  bool fence)
{
	void *m;
	int fd, rc;

	fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	/* sealed: a peer's mapping never meets a page that is gone */
	if (ftruncate(fd, (off_t)len) ||
	    isim_sys_fcntl(fd, F_ADD_SEALS,
			   F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL))
		goto fail;
	/* no store may land in the old pages once they are copied: writers
	 * fault and wait (ik_mr_share_fault) until the new ones are there */
	if (fence && mprotect(p, len, PROT_READ))
		goto fail;
	rc = ik_memfd_fill(fd, p, len);
	if (rc) {
		errno = -rc;
		goto unfence;
	}
	/* mapped elsewhere first, then moved over the ring in one step: a
	 * failure leaves the ring as it was */
	m = isim_sys_mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		goto unfence;
	if (!ik_remap_over(m, p, len)) {
		rc = errno;
		isim_sys_munmap(m, len);
		errno = rc;
		goto unfence;
	}
	if (dontfork)
		madvise(p, len, MADV_DONTFORK);
	return fd;
unfence:
	rc = errno;
	if (fence)
		mprotect(p, len, PROT_READ | PROT_WRITE);
	errno = rc;
fail:
	rc = -errno;
	isim_sys_close(fd);
	return rc;
}

static struct ik_share *share_slot(void)
{
	for (unsigned int i = 0; i < IK_SHARE_MAX; i++)
		if (!shares[i].len)
			return &shares[i];
	return NULL;
}

void ik_ring_share(struct ik_nic *nic, struct ik_pin *p, uint64_t len,
		   const char *what)
{
	uint64_t a = (uint64_t)(uintptr_t)p->addr;
	const char *why = NULL;
	struct ik_share *s;
	struct stat st;
	bool dontfork = false;
	int fd = -EINVAL;
	char name[32];

	/* "ionic-sim-ring-rq", "...-cq": /proc/PID/fd tells them apart */
	snprintf(name, sizeof(name), "ionic-sim-ring-%s", what);
	memset(&p->share, 0, sizeof(p->share));
	if (ik_caller || p->maplen || !nic->dev || !idev_direct_port(nic->dev))
		return; /* an importer's ring, or no peers to share with */
	pthread_mutex_lock(&share_lock);
	s = share_slot();
	if (!len || ((a | len) & (IK_PAGE_SIZE - 1)) || len > IK_SHARE_MAX_LEN)
		why = "not whole pages";
	else if (!s)
		why = "too many shared rings";
	else if (vma_plain(a, len, &dontfork, &why))
		fd = ik_memfd_move(p->addr, len, dontfork, name, false);
	if (fd >= 0 && isim_sys_fstat(fd, &st)) {
		isim_sys_close(fd);
		fd = -errno;
	}
	if (fd >= 0) {
		*s = (struct ik_share){ p->addr, len, fd, dontfork };
		p->share = (struct idev_ring_share){ .len = len,
						     .ino = st.st_ino,
						     .fd = fd };
	} else if (!why) {
		why = strerror(-fd);
	}
	pthread_mutex_unlock(&share_lock);
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_DIRECT, "%s ring %#llx (%llu bytes): %s%s",
			   what, (unsigned long long)a, (unsigned long long)len,
			   fd >= 0 ? "shared" : "not shared: ",
			   fd >= 0 ? "" : why);
}

void ik_ring_unshare(struct ik_pin *p)
{
	if (!p->share.len)
		return;
	pthread_mutex_lock(&share_lock);
	/* a fork child's registry is empty: its copy of the descriptor is
	 * closed already */
	for (unsigned int i = 0; i < IK_SHARE_MAX; i++) {
		if (shares[i].len && shares[i].fd == p->share.fd &&
		    shares[i].addr == p->addr) {
			isim_sys_close(shares[i].fd);
			memset(&shares[i], 0, sizeof(shares[i]));
			break;
		}
	}
	pthread_mutex_unlock(&share_lock);
	memset(&p->share, 0, sizeof(p->share));
}

void ik_ring_share_atfork_child(void)
{
	struct ik_share *s;
	void *m;

	share_lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
	for (unsigned int i = 0; i < IK_SHARE_MAX; i++) {
		s = &shares[i];
		if (!s->len)
			continue;
		/* the parent's ring, shared: our writes would be its */
		m = s->dontfork ?
			    MAP_FAILED :
			    isim_sys_mmap(NULL, s->len, PROT_READ | PROT_WRITE,
					  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m != MAP_FAILED) {
			if (!ik_copy_own(m, s->addr, s->len) ||
			    !ik_remap_over(m, s->addr, s->len))
				isim_sys_munmap(m, s->len);
		}
		isim_sys_close(s->fd);
		memset(s, 0, sizeof(*s));
	}
}
