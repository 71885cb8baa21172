/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim: the boundary between the process-facing platform layer
 * (sim/shim: libc interposition, fake character device, doorbell trap) and
 * the emulated ionic kernel driver and NIC (sim/kernel, sim/dev, sim/fabric).
 *
 * The platform knows nothing about RDMA; the model never touches libc
 * interposition.  Everything crossing the line is declared here.
 *
 * Error convention: functions returning int return 0 or a NEGATIVE errno,
 * as a kernel would; the shim turns that into -1/errno for the caller.
 */
#ifndef ISIM_H
#define ISIM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- implemented by the model (sim/kernel) ------------------------------ */

/* One open of /dev/infiniband/uverbs0, shared by all dups of that fd. */
struct isim_file;

/* First use in a process: read the profile and node identity from the
 * environment (see sim/common/profile.h), start the device engine. */
int isim_model_init(void);

/* open("/dev/infiniband/uverbsN"): device index N must exist. */
int isim_file_open(unsigned int devidx, struct isim_file **out);
/* Last close of the fd and all its dups. Tears down the ucontext. */
void isim_file_release(struct isim_file *f);
/* A uverbs write() command. Returns len on success or a negative errno. */
ssize_t isim_file_write(struct isim_file *f, const void *buf, size_t len);
/* ioctl(fd, req, arg) on the uverbs fd. 0 or negative errno. */
int isim_file_ioctl(struct isim_file *f, unsigned long req, void *arg);
/* mmap(fd, off) on the uverbs fd. Returns the mapping or NULL with *err set
 * to a negative errno. 'addr' is the caller's hint (MAP_FIXED honoured). */
void *isim_file_mmap(struct isim_file *f, void *addr, size_t len, int prot,
		     int flags, off_t off, int *err);

/* Called in the child after fork(): the child starts with a fresh device;
 * contexts inherited from the parent are dead (their commands fail). */
void isim_model_atfork_child(void);

/* ---- implemented by the platform (sim/shim) ----------------------------- */

/*
 * Doorbell pages.  isim_dbpage_map() returns 'len' bytes of memory whose
 * stores are trapped: every store is captured exactly, in program order
 * across all threads, as a record {cookie, offset, value, size} and pushed
 * to one process-wide FIFO.  The device engine drains the FIFO; the
 * platform signals isim_dbtrap_eventfd() (readable) whenever records are
 * pending.
 */
struct isim_db_rec {
	void *cookie; /* as passed to isim_dbpage_map() */
	uint32_t offset; /* byte offset of the store inside the page */
	uint32_t size; /* 1, 2, 4, 8 or 16 bytes */
	uint64_t value; /* low 8 bytes of the stored value */
	uint64_t value_hi; /* high 8 bytes of a 16-byte store */
	pid_t tid; /* storing thread, for tracing */
};

void *isim_dbpage_map(void *cookie, void *addr, size_t len, int *err);
/* Forget a trapped range (munmap hook calls this too). */
void isim_dbpage_forget(void *page, size_t len);
int isim_dbtrap_eventfd(void);
/* Pop the oldest record; returns 0 if the FIFO is empty. */
int isim_dbtrap_pop(struct isim_db_rec *rec);

#endif /* ISIM_H */
