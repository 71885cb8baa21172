/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim kernel model: its interface to the layer above it, the shim
 * (sim/shim: libc interposition, fake character device, doorbell trap).
 * The shim calls the functions below; the kernel model reaches the shim
 * only through the struct ik_platform it is handed.
 *
 * The platform knows nothing about RDMA; the model never touches libc
 * interposition.  Everything crossing the line is declared here.
 *
 * Error convention: functions returning int return 0 or a NEGATIVE errno,
 * as a kernel would; the shim turns that into -1/errno for the caller.
 */
#ifndef IK_H
#define IK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../common/mmio.h"

/* ---- provided by the platform (sim/shim) ---------------------------------- */

/*
 * Doorbell pages.  dbpage_map() returns 'len' bytes of memory whose stores
 * are trapped: every store is captured exactly, in program order across
 * all threads, as a struct isim_mmio_store naming the page by the 'tag'
 * it was mapped with, and pushed to one process-wide FIFO that mmio.pop
 * drains; mmio.eventfd is readable whenever stores are pending.
 * dbpage_revoke(): from now on stores to the pages mapped with 'tag' are
 * dropped (the context behind them is gone; its tag may be reused).
 *
 * The model calls the platform only through this table, handed to it at
 * initialisation: it references no symbol of the platform.
 */
struct ik_platform {
	void *(*dbpage_map)(uint64_t tag, void *addr, size_t len, int *err);
	void (*dbpage_revoke)(uint64_t tag);
	struct isim_mmio_port mmio;
};

/* ---- implemented by the model (sim/kernel) -------------------------------- */

/* One open of /dev/infiniband/uverbs0, shared by all dups of that fd. */
struct ik_file;

/* First use in a process: remember the platform, read the profile and
 * node identity from the environment (see sim/common/profile.h), create
 * the NIC and start its device. */
int ik_model_init(const struct ik_platform *plat);

/* open("/dev/infiniband/uverbsN"): device index N must exist.  A process
 * whose model was never initialised has none (-ENODEV). */
int ik_file_open(unsigned int devidx, struct ik_file **out);
/* Last close of the fd and all its dups. Tears down the ucontext. */
void ik_file_release(struct ik_file *f);
/* A uverbs write() command. Returns len on success or a negative errno. */
ssize_t ik_file_write(struct ik_file *f, const void *buf, size_t len);
/* ioctl(fd, req, arg) on the uverbs fd. 0 or negative errno. */
int ik_file_ioctl(struct ik_file *f, unsigned long req, void *arg);
/* mmap(fd, off) on the uverbs fd. Returns the mapping or NULL with *err set
 * to a negative errno. 'addr' is the caller's hint (MAP_FIXED honoured). */
void *ik_file_mmap(struct ik_file *f, void *addr, size_t len, int prot,
		   int flags, off_t off, int *err);

/* Any close(fd) of the process, before the real close: a completion
 * channel's fd going away releases the model's ends of it. */
void ik_fd_closing(int fd);

/* Called in the child after fork(): the child starts with a fresh device;
 * contexts inherited from the parent are dead (their commands fail). */
void ik_model_atfork_child(void);

#endif /* IK_H */
