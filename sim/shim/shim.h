/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim platform layer internals (sim/shim): what the interposers,
 * the fd table and the doorbell trap share.  The model never includes
 * this; its boundary is sim/kernel/ik.h.
 */
#ifndef ISHIM_SHIM_H
#define ISHIM_SHIM_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "../kernel/ik.h"

/*
 * Sanitizer runtimes call libc while they initialise themselves, and
 * those calls reach our interposers: gcc's ThreadSanitizer maps memory
 * for its symbolizer (mmap) before its own first thread exists, when any
 * instrumented function crashes on entry.  The interposers it can reach
 * that early, and what they call on the way to libc, are therefore never
 * instrumented by TSan (docs/testing.md §6).
 */
#define ISHIM_RUNTIME_SAFE __attribute__((no_sanitize("thread")))

/* ---- real libc functions (dlsym RTLD_NEXT, resolved once) -------------- */
/* Two threads may resolve one at once (the same answer): relaxed atomics. */

ISHIM_RUNTIME_SAFE void *ishim_real(const char *name);
#define ISHIM_REAL(name, type)                                          \
	({                                                              \
		static type __fn;                                       \
		type __f = __atomic_load_n(&__fn, __ATOMIC_RELAXED);    \
		if (!__f) {                                             \
			__f = (type)ishim_real(#name);                  \
			__atomic_store_n(&__fn, __f, __ATOMIC_RELAXED); \
		}                                                       \
		__f;                                                    \
	})

/* ---- doorbell trap (dbtrap.c) ------------------------------------------ */

/* sigaction(SIGSEGV) as seen by the application.  Returns 1 if handled
 * (trap armed: the application's handler is recorded and ours stays
 * installed), 0 if the caller should pass the call to libc. */
ISHIM_RUNTIME_SAFE int ishim_dbtrap_app_sigaction(const struct sigaction *act,
						  struct sigaction *old);
/* The platform half of sim/kernel/ik.h (struct ik_platform). */
void *ishim_dbpage_map(uint64_t tag, void *addr, size_t len, int *err);
void *ishim_window_map(uint64_t tag, void *addr, size_t len, int fd, off_t off,
		       int *err);
void ishim_dbpage_revoke(uint64_t tag);
int ishim_dbtrap_eventfd(void);
/* Pop the oldest store; returns 0 if the FIFO is empty. */
int ishim_dbtrap_pop(struct isim_mmio_store *st);
/* The model's consumer for the storing thread (ik_platform.mmio_set_apply):
 * called by the trap handler after each captured store. */
void ishim_dbtrap_set_apply(bool (*apply)(void));
/* munmap() of [addr, addr+len): untrack overlapping trapped pages. */
void ishim_dbtrap_munmap(void *addr, size_t len);
ISHIM_RUNTIME_SAFE bool ishim_dbtrap_overlaps(const void *addr, size_t len);
void ishim_dbtrap_atfork_prepare(void);
void ishim_dbtrap_atfork_parent(void);
void ishim_dbtrap_atfork_child(void);

/* ---- fd table (fdtable.c) ---------------------------------------------- */

/* Number of the emulated uverbs device of a path, or -1. */
int ishim_dev_path_index(const char *path);
/* Major/minor the device fds really have ("/dev/null"), as in sysfs. */
#define ISHIM_CDEV_MAJOR IK_CDEV_MAJOR
#define ISHIM_CDEV_MINOR IK_CDEV_MINOR

/* Is any fd tracked at all?  Cheap gate for every interposer. */
extern int ishim_fds_tracked;
/* The open file behind a tracked fd, or NULL. */
ISHIM_RUNTIME_SAFE struct ik_file *ishim_fd_file(int fd);
/* Track a freshly opened device fd. 0 or negative errno. */
int ishim_fd_track_new(int fd, struct ik_file *f);
/* 'newfd' now refers to the same open file as 'oldfd' (tracked). */
void ishim_fd_track_dup(int oldfd, int newfd);
/* 'fd' was closed (or replaced): drop it; the last reference releases
 * the file.  Safe to call for untracked fds. */
void ishim_fd_untrack(int fd);
/* Is this a vfork() child running in the memory of the process that owns
 * the tables?  It must leave them alone. */
bool ishim_fd_foreign_process(void);
void ishim_fd_atfork_prepare(void);
void ishim_fd_atfork_parent(void);
void ishim_fd_atfork_child(void);

/* ---- patched interposers (hookheal.c) ------------------------------- */

/* The interposers behind the exported mmap, mmap64 and munmap stubs.
 * Hidden, so the stubs' jumps bind to them directly: through the PLT,
 * the stub's bytes would not name the body and hookheal.c would take
 * its own PLT slot for a program's hook (a jump loop).  Runtime-safe:
 * a sanitizer runtime maps memory before it has initialised. */
#define ISHIM_HIDDEN __attribute__((visibility("hidden")))
#define ISHIM_STUB_BODY ISHIM_RUNTIME_SAFE ISHIM_HIDDEN
ISHIM_STUB_BODY void *ishim_mmap_body(void *addr, size_t len, int prot,
				      int flags, int fd, off_t off);
ISHIM_STUB_BODY void *ishim_mmap64_body(void *addr, size_t len, int prot,
					int flags, int fd, off_t off);
ISHIM_STUB_BODY int ishim_munmap_body(void *addr, size_t len);
/* Undo a program's patch of them (before every device command). */
void ishim_hooks_heal(void);
/* The hook a healed patch jumped to (0 mmap, 1 mmap64, 2 munmap), which
 * then receives the calls that are not the device's; NULL if none.
 * Runtime-safe: the mmap body asks before any sanitizer has started. */
ISHIM_RUNTIME_SAFE void *ishim_hooks_chain(unsigned int which);

/* ---- /sys redirection (sysredir.c) ---------------------------------- */

/* 'path' under /sys/class/{infiniband,infiniband_verbs,net/<our netdev>}
 * rewritten into $SYSFS_PATH (in a per-thread buffer, valid until this
 * thread's next call); any other path as it is.  Safe to call before a
 * sanitizer runtime is initialised. */
const char *ishim_sys_redirect(const char *path);
/* A hardware-counter file, /sys/class/infiniband/ionic_K/ports/1/
 * hw_counters/NAME ('path' as the program gave it), opened: a descriptor
 * of a memory file holding the current value (sysfs computes it on each
 * open too), or -1 with errno (EACCES: opened for writing, as sysfs
 * refuses).  ISHIM_NOT_COUNTER for any other path. */
#define ISHIM_NOT_COUNTER (-2)
int ishim_hw_counter_open(const char *path, int flags);

/* ---- the network interface (hooks_netdev.c) ------------------------- */

/* ioctl(fd, SIOCGIF*, ifr) naming our interface: 1 with *rc set (0 or a
 * negative errno), or 0 to let the host answer. */
int ishim_netdev_ioctl(int fd, unsigned long req, void *arg, int *rc);

/* ---- emulated netlink sockets (hooks_netlink.c) ------------------------ */

/* Number of emulated netlink sockets open (cheap gate). */
extern int ishim_nl_socks;
bool ishim_nl_is(int fd);
/* write()/read() on one: a request / the next reply. */
ssize_t ishim_nl_send(int fd, const void *buf, size_t len);
ssize_t ishim_nl_read(int fd, void *buf, size_t len);
/* 'fd' is being closed. */
void ishim_nl_untrack(int fd);
void ishim_nl_atfork_child(void);

/* ---- device fds in SCM_RIGHTS (hooks_scm.c) ---------------------------- */

struct msghdr;
/* sendmsg() on a socket that is not ours: device fds travel as exports. */
ssize_t ishim_scm_sendmsg(int sock, const struct msghdr *msg, int flags);
/* ishim_shim_model_init, set by the preload's start-up (shim.c). */
extern int (*ishim_model_start)(void);
/* After a real recvmsg() with control data: exports become device fds. */
void ishim_scm_received(struct msghdr *msg, int flags);

/* ---- the rdma_cm device (hooks_rdmacm.c) --------------------------------- */

struct stat;
/* Number of rdma_cm descriptors open (cheap gate). */
extern int ishim_cm_fds;
bool ishim_cm_path(const char *path);
/* open() of it (the model initialised): the descriptor, or -1 with
 * errno. */
int ishim_cm_open(int flags);
ISHIM_RUNTIME_SAFE struct ik_ucma_file *ishim_cm_file(int fd);
ssize_t ishim_cm_write(struct ik_ucma_file *f, const void *buf, size_t len);
/* 'fd' is being closed: the last reference releases the file. */
void ishim_cm_untrack(int fd);
/* What stat()/fstat() report for the device node. */
void ishim_cm_fake_stat(struct stat *st);

/* Model start-up, once per process, on the first device open. */
int ishim_shim_model_init(void);

#endif /* ISHIM_SHIM_H */
