/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim kernel layer: a device fd passed to another process
 * (docs/kernel-contract.md §21.1).  Each process emulates its own kernel,
 * so the descriptor that travels in SCM_RIGHTS is a socket to the
 * exporting process's kernel (export.c), which serves the receiver's
 * commands on the open file as the one kernel of a real node would; the
 * receiver's kernel keeps a proxy file for it (import.c).
 *
 * One SOCK_SEQPACKET message per step, never crossing exec:
 *   importer -> exporter  HELLO (with SCM_CREDENTIALS), then one request
 *                         per command: WRITE, IOCTL, MMAP; at any time
 *                         DOORBELL (a store to its doorbell page) and
 *                         CLOSE (it closed a channel), no answer
 *   exporter -> importer  during a command, INSTALL (a new descriptor in
 *                         SCM_RIGHTS) or PIN (a range of its memory the
 *                         device is to use), each answered by FD; at its
 *                         end REPLY (for MMAP with the descriptor to map)
 */
#ifndef IK_XPROC_H
#define IK_XPROC_H

#include <stdint.h>
#include <sys/types.h>

#include "../../common/mmio.h"

/* abstract name the exporter's end is bound to: the importer's
 * recvmsg() recognises an export socket by its peer's name */
#define IXP_NAME_PREFIX "ionic-sim/uverbs-export/"

enum ixp_op {
	IXP_HELLO = 1,
	IXP_WRITE, /* a: buffer address, b: length */
	IXP_IOCTL, /* a: request, b: argument address */
	IXP_MMAP, /* a: length, b: prot, c: flags, d: offset */
	IXP_INSTALL, /* exporter: install the descriptor that comes with it;
		      * b = 1: a completion channel */
	IXP_FD, /* importer: a = its number, or ret = negative errno */
	IXP_REPLY, /* ret: the command's answer; MMAP: a kind, b tag, c off */
	IXP_PIN, /* exporter: a address, b length of the caller's memory */
	IXP_DOORBELL, /* importer: a offset, b value, c size of a store */
	IXP_CLOSE, /* importer: a = its number of a channel it closed */
};

/* How long (ms) the exporter waits for the importer's answer to INSTALL
 * or PIN before it fails the command with ETIMEDOUT (10 s; tests lower
 * it). */
extern int ik_xp_answer_ms;

struct ixp_msg {
	uint32_t op;
	uint32_t pad;
	int64_t ret;
	uint64_t a, b, c, d;
};
_Static_assert(sizeof(struct ixp_msg) == 48, "ixp_msg is 48 bytes");

/* One message, with descriptor 'fd' if >= 0: 0 or -EPIPE. */
int ik_xp_send(int sock, const struct ixp_msg *m, int fd);
/* The next message of exactly our size: 0, or -EPIPE when the peer is
 * gone or sent something else.  With 'pid' the sender's credentials;
 * with 'fd' the first descriptor that came with it (else -1). */
int ik_xp_recv(int sock, struct ixp_msg *m, pid_t *pid, int *fd);

/* Doorbell tags of imported pages: apart from every dbid of this
 * process's own contexts and from the express-doorbell tags (bit 63).
 * A doorbell page's tag names its import (a number of this process, not
 * the exporter's dbid: two exporters may have the same); its stores are
 * sent to the exporter (ik_mmio_pop).  An imported express-doorbell
 * window is revoked as soon as mapped: an importer's QP never gets one. */
#define IXP_IMPORT_BIT (1ull << 62)
/* clang-format 14 and 19 disagree here (tests/check-format.sh) */
/* clang-format off */
#define IXP_IMPORT_TAG(tag) (IXP_IMPORT_BIT | ((tag) & 0xffffffffull))
/* clang-format on */

/* The process a command is served for: NULL is the calling process
 * itself; an export server sets its importer around each command. */
struct ik_caller {
	pid_t pid; /* whose memory user pointers name (uaccess.c) */
	int sock; /* where descriptors for it go (ik_fd_to_caller) */
	/* DOORBELL and CLOSE messages that arrived while the command
	 * waited for an answer: applied once it is done (export.c) */
	struct ixp_msg *held;
	unsigned int nheld, held_cap;
};
extern _Thread_local struct ik_caller *ik_caller;

/* A new descriptor the command hands to its caller: 'fd' itself, or for
 * an importer the number it has there (fd is then closed here); a
 * negative errno on failure (fd closed too). */
int ik_fd_to_caller(int fd);
/* The same for a completion channel's read end: the importer tells us
 * when it closes it (CLOSE, ik_import_fd_closing). */
int ik_channel_to_caller(int fd);
/* An importer's [uaddr, uaddr + len) (whole pages) as shared memory: the
 * importer moves the range to a memfd mapped at the same addresses and
 * sends it; the descriptor (ours to close) or a negative errno. */
int ik_caller_pin(uint64_t uaddr, uint64_t len);

/* The MMIO port the kernel hands its device: the platform's, except that
 * stores to an imported doorbell page go to their exporter (import.c). */
int ik_mmio_pop(struct isim_mmio_store *st);

/* What an mmap of the file maps (mmap.c): the exporter describes it, the
 * importer maps it in its own address space. */
struct ik_mmap_desc {
	int kind; /* enum ik_mmap_kind */
	uint64_t tag; /* doorbell page: dbid; express-doorbell CMB: tag */
	int fd; /* PHC or CMB: the descriptor to map (not ours to close) */
	off_t off; /* its offset */
};
int ik_file_mmap_desc(struct ik_file *f, size_t len, int prot, int flags,
		      off_t off, struct ik_mmap_desc *d);

/* fork() child: drop the copies of the exports' sockets (export.c). */
void ik_export_atfork_child(void);

/* The proxy side (import.c): commands on a file that is an import. */
struct ik_import;
ssize_t ik_import_write(struct ik_import *im, const void *buf, size_t len);
int ik_import_ioctl(struct ik_import *im, unsigned long req, void *arg);
void *ik_import_mmap(struct ik_import *im, void *addr, size_t len, int prot,
		     int flags, off_t off, int *err);
void ik_import_release(struct ik_import *im);
/* Any close(fd) of the process (ik_fd_closing): a channel an import
 * installed is closed, its exporter hears of it. */
void ik_import_fd_closing(int fd);

#endif /* IK_XPROC_H */
