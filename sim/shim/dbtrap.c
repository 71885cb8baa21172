// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Doorbell trap: pages handed out by ishim_dbpage_map() are read-only, so
 * every store to them faults.  The SIGSEGV handler decodes the store,
 * pushes one record into a lock-free bounded MPSC ring (Vyukov's bounded
 * queue), kicks an eventfd and resumes after the instruction.  The device
 * engine drains the ring with ishim_dbtrap_pop() in capture order.
 *
 * Faults that are not stores to a trapped page go to the application's
 * SIGSEGV handler, which the sigaction()/signal() interposers record
 * instead of installing once the trap is armed.
 *
 * Everything the handler touches is static memory, atomics and raw
 * syscalls: it is async-signal-safe and costs nothing until the first
 * doorbell page is mapped.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "../common/profile.h"
#include "../common/trace.h"
#include "shim.h"
#include "x86_decode.h"

/* ---- trapped page table ------------------------------------------------- */

#define MAX_TRAPS 256

struct trap_ent {
	_Atomic uintptr_t start; /* 0 = free slot; published last */
	uintptr_t end;
	uint64_t tag; /* names the page in the records */
	_Atomic bool revoked; /* stores are dropped */
};

static struct trap_ent traps[MAX_TRAPS];
static pthread_mutex_t trap_lock = PTHREAD_MUTEX_INITIALIZER;
static bool armed;
static int db_efd = -1;

/* ---- record ring -------------------------------------------------------- */

#define RING_ORDER 12
#define RING_SIZE (1u << RING_ORDER)
#define RING_MASK (RING_SIZE - 1)

/*
 * Cell i stores "seq - i", so all-zero memory is the initial state
 * (seq == i) and the ring needs no initialisation pass: untouched BSS
 * costs ordinary processes nothing.
 */
struct ring_cell {
	_Atomic size_t seq_rel;
	struct isim_mmio_store rec;
};

static struct {
	_Alignas(64) _Atomic size_t enq;
	_Alignas(64) _Atomic size_t deq;
	_Alignas(64) struct ring_cell cell[RING_SIZE];
} ring;

static _Atomic pid_t consumer_tid;

/*
 * The model's consumer in the storing thread (ik_platform.mmio_set_apply),
 * and whether this thread is running it: its pops are not the engine's,
 * so they do not make it "the consumer" that must never store.
 */
static bool (*_Atomic apply_fn)(void);
static __thread bool in_apply __attribute__((tls_model("initial-exec")));

static size_t cell_seq(size_t idx)
{
	return atomic_load_explicit(&ring.cell[idx].seq_rel,
				    memory_order_acquire) +
	       idx;
}

static void cell_set_seq(size_t idx, size_t seq)
{
	atomic_store_explicit(&ring.cell[idx].seq_rel, seq - idx,
			      memory_order_release);
}

static bool ring_push(const struct isim_mmio_store *rec)
{
	size_t pos = atomic_load_explicit(&ring.enq, memory_order_relaxed);

	for (;;) {
		size_t idx = pos & RING_MASK;
		intptr_t diff = (intptr_t)cell_seq(idx) - (intptr_t)pos;

		if (diff == 0) {
			if (atomic_compare_exchange_weak_explicit(
				    &ring.enq, &pos, pos + 1,
				    memory_order_relaxed,
				    memory_order_relaxed)) {
				ring.cell[idx].rec = *rec;
				cell_set_seq(idx, pos + 1);
				return true;
			}
		} else if (diff < 0) {
			return false; /* full */
		} else {
			pos = atomic_load_explicit(&ring.enq,
						   memory_order_relaxed);
		}
	}
}

static bool ring_pop(struct isim_mmio_store *rec)
{
	size_t pos = atomic_load_explicit(&ring.deq, memory_order_relaxed);

	for (;;) {
		size_t idx = pos & RING_MASK;
		intptr_t diff = (intptr_t)cell_seq(idx) - (intptr_t)(pos + 1);

		if (diff == 0) {
			if (atomic_compare_exchange_weak_explicit(
				    &ring.deq, &pos, pos + 1,
				    memory_order_relaxed,
				    memory_order_relaxed)) {
				*rec = ring.cell[idx].rec;
				cell_set_seq(idx, pos + RING_SIZE);
				return true;
			}
		} else if (diff < 0) {
			return false; /* empty */
		} else {
			pos = atomic_load_explicit(&ring.deq,
						   memory_order_relaxed);
		}
	}
}

/* ---- the application's SIGSEGV disposition ------------------------------ */

/* Double buffer: the handler reads app_sa[app_cur] without a lock while
 * the sigaction interposer (under trap_lock) fills the other slot. */
static struct sigaction app_sa[2];
static _Atomic int app_cur;

static __thread pid_t my_tid __attribute__((tls_model("initial-exec")));

static pid_t cur_tid(void)
{
	if (!my_tid)
		my_tid = syscall(SYS_gettid);
	return my_tid;
}

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);

static void restore_default_and_refault(void)
{
	struct sigaction dfl;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	ISHIM_REAL(sigaction, sigaction_fn)(SIGSEGV, &dfl, NULL);
	/* Returning re-executes the faulting instruction, which now kills
	 * the process the way it would have without us. */
}

static void chain(int sig, siginfo_t *si, void *uc)
{
	struct sigaction *a = &app_sa[atomic_load(&app_cur)];
	sigset_t old;

	if (a->sa_handler == SIG_DFL || a->sa_handler == SIG_IGN) {
		/* SIG_IGN cannot ignore a synchronous fault either. */
		restore_default_and_refault();
		return;
	}
	/* Run it as the kernel would: its sa_mask added (SIGSEGV itself is
	 * already blocked unless SA_NODEFER, which we cannot honour). */
	pthread_sigmask(SIG_BLOCK, &a->sa_mask, &old);
	if (a->sa_flags & SA_SIGINFO)
		a->sa_sigaction(sig, si, uc);
	else
		a->sa_handler(sig);
	if (a->sa_flags & SA_RESETHAND)
		a->sa_handler = SIG_DFL;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static struct trap_ent *trap_find(uintptr_t a)
{
	for (unsigned int i = 0; i < MAX_TRAPS; i++) {
		uintptr_t s = atomic_load_explicit(&traps[i].start,
						   memory_order_acquire);

		if (s && a >= s && a < traps[i].end)
			return &traps[i];
	}
	return NULL;
}

/*
 * The upper halves of the YMM registers in the signal frame: the frame's
 * FP area is an XSAVE area (standard format) when its software-reserved
 * bytes carry FP_XSTATE_MAGIC1; the AVX component sits at the offset
 * CPUID leaf 0xD sub-leaf 2 gives (576 on every x86-64 so far), present
 * unless XSTATE_BV says it is in its initial (zero) state.
 */
#define XSAVE_SW_BYTES 464 /* struct _fpx_sw_bytes in the FXSAVE area */
#define XSAVE_MAGIC1 0x46505853u
#define XSAVE_HDR 512 /* XSTATE_BV */
#define XFEATURE_YMM (1ull << 2)

static uint32_t ymm_offset = 576;

static const uint8_t (*frame_ymmh(const void *fp))[16]
{
	const uint8_t *b = fp;
	uint32_t magic;
	uint64_t features, bv;

	if (!fp)
		return NULL;
	memcpy(&magic, b + XSAVE_SW_BYTES, 4);
	memcpy(&features, b + XSAVE_SW_BYTES + 8, 8);
	if (magic != XSAVE_MAGIC1 || !(features & XFEATURE_YMM))
		return NULL;
	memcpy(&bv, b + XSAVE_HDR, 8);
	if (!(bv & XFEATURE_YMM))
		return NULL;
	return (const uint8_t(*)[16])(b + ymm_offset);
}

static void fill_regs(const ucontext_t *uc, struct ishim_x86_regs *r)
{
	const greg_t *g = uc->uc_mcontext.gregs;

	r->gpr[X86_RAX] = g[REG_RAX];
	r->gpr[X86_RCX] = g[REG_RCX];
	r->gpr[X86_RDX] = g[REG_RDX];
	r->gpr[X86_RBX] = g[REG_RBX];
	r->gpr[X86_RSP] = g[REG_RSP];
	r->gpr[X86_RBP] = g[REG_RBP];
	r->gpr[X86_RSI] = g[REG_RSI];
	r->gpr[X86_RDI] = g[REG_RDI];
	r->gpr[X86_R8] = g[REG_R8];
	r->gpr[X86_R9] = g[REG_R9];
	r->gpr[X86_R10] = g[REG_R10];
	r->gpr[X86_R11] = g[REG_R11];
	r->gpr[X86_R12] = g[REG_R12];
	r->gpr[X86_R13] = g[REG_R13];
	r->gpr[X86_R14] = g[REG_R14];
	r->gpr[X86_R15] = g[REG_R15];
	r->rip = g[REG_RIP];
	r->xmm = uc->uc_mcontext.fpregs ?
			 (const uint8_t(*)[16])uc->uc_mcontext.fpregs->_xmm :
			 NULL;
	r->ymmh = frame_ymmh(uc->uc_mcontext.fpregs);
}

static void die(const char *msg)
{
	syscall(SYS_write, 2, msg, strlen(msg));
	abort();
}

static void kick(void)
{
	uint64_t one = 1;

	/* EAGAIN (counter saturated) is fine: the engine is awake anyway. */
	syscall(SYS_write, db_efd, &one, sizeof(one));
}

/*
 * Let the model apply the captured stores in this thread; false when it
 * did not (no consumer, the model busy, an alternate signal stack), and
 * the engine must be woken.  The model's work takes some KiB of stack
 * (frames on the way to the fabric): the thread's own stack has them,
 * an alternate signal stack (sigaltstack: Python's faulthandler, Go)
 * may not.  The handler runs on the interrupted stack exactly when its
 * frame lies just below the interrupted stack pointer (the signal frame
 * with the XSAVE area in between).
 */
static bool apply_here(const ucontext_t *uc)
{
	bool (*fn)(void) =
		atomic_load_explicit(&apply_fn, memory_order_acquire);
	uintptr_t sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);
	bool done;

	if (!fn || in_apply || here > sp || sp - here > 64 * 1024)
		return false;
	in_apply = true;
	done = fn();
	in_apply = false;
	return done;
}

static void trap_handler(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	uintptr_t fault = (uintptr_t)si->si_addr;
	int saved_errno = errno;
	struct isim_mmio_store rec;
	struct trap_ent *e;
	struct ishim_x86_regs r;
	struct ishim_x86_store st;
	bool spun = false;

	e = si->si_code == SEGV_ACCERR ? trap_find(fault) : NULL;
	if (!e)
		goto not_ours;
	fill_regs(uc, &r);
	if (ishim_x86_decode_store((const uint8_t *)r.rip, 15, &r, &st))
		goto not_ours;
	/* fs:/gs: addressing: trust the kernel's address instead. */
	if (st.seg_base)
		st.addr = fault;
	/* A wide store faults at its first byte in a read-only page, which
	 * for one that straddles two trapped pages is not its start. */
	if (fault < st.addr || fault >= st.addr + st.size ||
	    st.addr < atomic_load(&e->start) || st.addr + st.size > e->end)
		goto not_ours;

	if (atomic_load_explicit(&e->revoked, memory_order_relaxed))
		goto done; /* a page of a context that is gone */
	rec.page = e->tag;
	rec.offset = st.addr - atomic_load(&e->start);
	rec.size = st.size;
	memset(rec.data, 0, sizeof(rec.data));
	if (st.src) /* movdir64b: the source is ordinary readable memory */
		memcpy(rec.data, (const void *)(uintptr_t)st.src, 64);
	else
		memcpy(rec.data, st.data, st.size);
	rec.tid = cur_tid();
	while (!ring_push(&rec)) {
		/* Full: the engine drains it, unless this IS the engine, which
		 * would wait on itself forever.  The engine never rings
		 * doorbells, so this is a model bug: fail loudly. */
		if (rec.tid == atomic_load(&consumer_tid))
			die("ionic-sim: doorbell ring full in its consumer thread\n");
		if (apply_here(uc))
			continue;
		if (!spun) {
			kick();
			spun = true;
		}
		syscall(SYS_sched_yield);
	}
	if (!apply_here(uc))
		kick();
done:
	uc->uc_mcontext.gregs[REG_RIP] += st.len;
	errno = saved_errno;
	return;

not_ours:
	/* a store into registered memory being moved: run it again */
	if (si->si_code == SEGV_ACCERR && ik_mr_share_fault(fault)) {
		errno = saved_errno;
		return;
	}
	chain(sig, si, ucv);
	errno = saved_errno;
}

/* Where XSAVE puts the AVX state (outside the handler: CPUID is slow
 * under some hypervisors). */
static void ymm_offset_probe(void)
{
	uint32_t a = 0xd, b = 0, c = 2, d = 0;

	asm volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	if (a >= 256 && b >= 576)
		ymm_offset = b;
}

/* Caller holds trap_lock. */
static int arm_locked(void)
{
	struct sigaction ours;

	if (db_efd < 0) {
		db_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (db_efd < 0)
			return -errno;
	}
	if (armed)
		return 0;
	ymm_offset_probe();
	memset(&ours, 0, sizeof(ours));
	ours.sa_sigaction = trap_handler;
	ours.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	sigemptyset(&ours.sa_mask);
	/* Whatever was installed so far becomes the chained handler. */
	if (ISHIM_REAL(sigaction, sigaction_fn)(SIGSEGV, &ours, &app_sa[0]) < 0)
		return -errno;
	atomic_store(&app_cur, 0);
	armed = true;
	return 0;
}

ISHIM_RUNTIME_SAFE int ishim_dbtrap_app_sigaction(const struct sigaction *act,
						  struct sigaction *old)
{
	int cur;

	pthread_mutex_lock(&trap_lock);
	if (!armed) {
		pthread_mutex_unlock(&trap_lock);
		return 0;
	}
	cur = atomic_load(&app_cur);
	if (old)
		*old = app_sa[cur];
	if (act) {
		app_sa[!cur] = *act;
		atomic_store(&app_cur, !cur);
	}
	pthread_mutex_unlock(&trap_lock);
	return 1;
}

/* ---- the platform of kernel/ik.h (struct ik_platform, shim.c) ---------- */

static void untrack_locked(uintptr_t a, uintptr_t end)
{
	for (unsigned int i = 0; i < MAX_TRAPS; i++) {
		uintptr_t s = atomic_load(&traps[i].start);

		if (!s || end <= s || a >= traps[i].end)
			continue;
		atomic_store(&traps[i].start, 0);
	}
}

/* Trapped pages: anonymous (fd < 0) or a read-only shared view of fd. */
static void *trap_map(uint64_t tag, void *addr, size_t len, int fd, off_t off,
		      int *err)
{
	size_t pg = sysconf(_SC_PAGESIZE);
	struct trap_ent *slot = NULL;
	void *p;
	int rc;

	len = (len + pg - 1) & ~(pg - 1);
	if (!len) {
		*err = -EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&trap_lock);
	rc = arm_locked();
	for (unsigned int i = 0; !rc && i < MAX_TRAPS && !slot; i++)
		if (!atomic_load(&traps[i].start))
			slot = &traps[i];
	if (!rc && !slot)
		rc = -ENOMEM;
	if (rc) {
		pthread_mutex_unlock(&trap_lock);
		*err = rc;
		return NULL;
	}
	/* A non-NULL addr means the application asked for MAP_FIXED. */
	if (fd < 0)
		p = mmap(addr, len, PROT_READ,
			 MAP_PRIVATE | MAP_ANONYMOUS | (addr ? MAP_FIXED : 0),
			 -1, 0);
	else
		p = mmap(addr, len, PROT_READ,
			 MAP_SHARED | (addr ? MAP_FIXED : 0), fd, off);
	if (p == MAP_FAILED) {
		pthread_mutex_unlock(&trap_lock);
		*err = -errno;
		return NULL;
	}
	/* Whatever was mapped in [p, p + len) before is gone, even if its
	 * munmap() never reached our hook (a raw syscall, or a sanitizer's
	 * munmap interceptor bound ahead of ours): a stale entry there would
	 * shadow the new page and, revoked, drop every store into it. */
	untrack_locked((uintptr_t)p, (uintptr_t)p + len);
	slot->end = (uintptr_t)p + len;
	slot->tag = tag;
	atomic_store(&slot->revoked, false);
	atomic_store_explicit(&slot->start, (uintptr_t)p, memory_order_release);
	pthread_mutex_unlock(&trap_lock);
	return p;
}

void *ishim_dbpage_map(uint64_t tag, void *addr, size_t len, int *err)
{
	return trap_map(tag, addr, len, -1, 0, err);
}

void *ishim_window_map(uint64_t tag, void *addr, size_t len, int fd, off_t off,
		       int *err)
{
	return trap_map(tag, addr, len, fd, off, err);
}

void ishim_dbpage_revoke(uint64_t tag)
{
	pthread_mutex_lock(&trap_lock);
	for (unsigned int i = 0; i < MAX_TRAPS; i++)
		if (atomic_load(&traps[i].start) && traps[i].tag == tag)
			atomic_store(&traps[i].revoked, true);
	pthread_mutex_unlock(&trap_lock);
}

void ishim_dbtrap_munmap(void *addr, size_t len)
{
	pthread_mutex_lock(&trap_lock);
	untrack_locked((uintptr_t)addr, (uintptr_t)addr + len);
	pthread_mutex_unlock(&trap_lock);
}

ISHIM_RUNTIME_SAFE bool ishim_dbtrap_overlaps(const void *addr, size_t len)
{
	uintptr_t a = (uintptr_t)addr, end = a + len;

	for (unsigned int i = 0; i < MAX_TRAPS; i++) {
		uintptr_t s = atomic_load(&traps[i].start);

		if (s && a < traps[i].end && end > s)
			return true;
	}
	return false;
}

int ishim_dbtrap_eventfd(void)
{
	int fd;

	pthread_mutex_lock(&trap_lock);
	if (db_efd < 0)
		db_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	fd = db_efd < 0 ? -errno : db_efd;
	pthread_mutex_unlock(&trap_lock);
	return fd;
}

static void trace_db(const struct isim_mmio_store *rec)
{
	static struct isim_profile prof;
	static bool have_prof;
	unsigned int qtype = rec->offset / 8;
	const char *name = "?";

	if (!have_prof) {
		isim_profile_from_env(&prof);
		have_prof = true;
	}
	if (qtype == prof.sq_qtype)
		name = "sq";
	else if (qtype == prof.rq_qtype)
		name = "rq";
	else if (qtype == prof.cq_qtype)
		name = "cq";
	else if (qtype == prof.admin_qtype)
		name = "admin";
	isim_trace(ISIM_TR_DB,
		   "page=0x%llx off=0x%x size=%u value=0x%016llx qtype=%u(%s) "
		   "qid=%llu ring=%llu index=%llu from_tid=%d",
		   (unsigned long long)rec->page, rec->offset, rec->size,
		   (unsigned long long)rec->value, qtype, name,
		   (unsigned long long)(rec->value >> 24) & 0xffffff,
		   (unsigned long long)(rec->value >> 16) & 7,
		   (unsigned long long)rec->value & 0xffff, (int)rec->tid);
}

void ishim_dbtrap_set_apply(bool (*apply)(void))
{
	atomic_store_explicit(&apply_fn, apply, memory_order_release);
}

int ishim_dbtrap_pop(struct isim_mmio_store *rec)
{
	if (!in_apply)
		atomic_store_explicit(&consumer_tid, cur_tid(),
				      memory_order_relaxed);
	if (!ring_pop(rec))
		return 0;
	if (isim_trace_enabled())
		trace_db(rec);
	return 1;
}

/* ---- fork --------------------------------------------------------------- */

void ishim_dbtrap_atfork_prepare(void)
{
	pthread_mutex_lock(&trap_lock);
}

void ishim_dbtrap_atfork_parent(void)
{
	pthread_mutex_unlock(&trap_lock);
}

void ishim_dbtrap_atfork_child(void)
{
	int fresh;

	pthread_mutex_init(&trap_lock, NULL);
	my_tid = 0;
	atomic_store(&consumer_tid, 0);
	if (db_efd < 0)
		return;
	/* Pending records belong to the parent's device.  The inherited
	 * eventfd is shared with the parent: give the child its own under
	 * the same number, so descriptors the model keeps stay valid. */
	memset(&ring, 0, sizeof(ring));
	fresh = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (fresh >= 0) {
		/* raw syscalls: not the application's dup3/close bookkeeping */
		syscall(SYS_dup3, fresh, db_efd, O_CLOEXEC);
		syscall(SYS_close, fresh);
	}
}
