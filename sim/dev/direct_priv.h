/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim device: what direct.c (the port, hellos, peers) and
 * direct_exec.c (the requester's executor) share.
 */
#ifndef IDEV_DIRECT_PRIV_H
#define IDEV_DIRECT_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../common/hwstats.h"
#include "direct.h"

/* Peers (processes) whose ports one device maps at a time. */
#define IDEV_DPEERS 16
/* Registered memory (memfds) of one peer mapped at a time. */
#define IDEV_DMRS 8

/* A peer's registered memory in shared memory, as we mapped it
 * (direct_ring.c): the memfd its key records name, and the mapping. */
struct idev_dmr {
	int32_t fd;
	uint64_t ino, len;
	uint8_t *map;
	bool failed; /* not what the record says: process_vm_* */
};

/* A peer's port as we mapped it.  The layout is read once, when mapped,
 * and checked against the size: records are found from these copies,
 * never from the (writable by anyone) header again. */
struct idev_dpeer {
	unsigned int refs; /* QPs attached; 0: free slot */
	bool dead; /* process_vm_* said it is gone: packets from now on */
	/* A device of this process (same-process peer, possibly ourselves):
	 * the executor copies with memcpy and reads the responder's records
	 * from the device itself, under the port's lock, while the port is
	 * open (idev_direct_fini closes it under the lock). */
	struct idev *owner;
	pid_t pid;
	/* another process's: a pidfd, readable once it has exited (its
	 * memory we share stays mapped here: no copy fails any more) */
	bool watched;
	int pidfd;
	dev_t st_dev; /* the segment's file, to tell a reused pid */
	ino_t st_ino;
	uint8_t *seg;
	size_t size;
	struct idev_dseg_hdr *hdr;
	uint32_t nqps, ncqs, nkeys;
	size_t qp_off, cq_off, key_off;
	/* its host's hardware-counter page, and its NIC's row there (NULL:
	 * its side goes uncounted) */
	struct isim_hwstats_page *stats_page;
	uint64_t *stats;
	/* its registered memory we mapped, and the slot to reuse next */
	struct idev_dmr mrs[IDEV_DMRS];
	unsigned int mrs_next;
};

struct idev_direct {
	int fd; /* the memfd peers open through /proc/<pid>/fd */
	uint32_t pid; /* ours: what our locks hold */
	uint8_t *seg;
	size_t size;
	struct idev_dseg_hdr *hdr;
	uint32_t nqps, ncqs, nkeys;
	size_t qp_off, cq_off, key_off;
	bool held; /* between enter and leave */
	uint32_t ntf_cons; /* notify entries handled */
	bool closed; /* the port was given up: packets only */
	struct idev_dpeer peers[IDEV_DPEERS];
};

/* Why a QP's messages take the path they take (traced on change). */
enum idev_dwhy {
	IDEV_DWHY_NONE,
	IDEV_DWHY_DIRECT,
	IDEV_DWHY_NO_PORT,
	IDEV_DWHY_NO_PEER,
	IDEV_DWHY_PEER_GONE,
	IDEV_DWHY_OFF_HOST,
	IDEV_DWHY_SELF,
};
void idev_dtrace_path(struct idev_qp *d, enum idev_dwhy why);

/* Lock a segment as process 'me' (a holder that died leaves it to us);
 * 'wait': up to a bound, else only a few tries.  0 or an errno. */
int idev_dseg_lock(struct idev_dseg_hdr *h, uint32_t me, bool wait);
/* Tries for as long as a holder takes over one message (tens of
 * microseconds), never sleeping: a UD frame that found the port busy
 * would go as a packet, and every later one of its QP would wait for it
 * (direct_ud.c).  0 or EBUSY. */
int idev_dseg_lock_brief(struct idev_dseg_hdr *h, uint32_t me);
/*
 * ThreadSanitizer keys a lock by its address, and a segment is mapped
 * twice when its owner is in this process (the owner's mapping and the
 * peer's, through /proc/self/fd): the same lock word at two addresses,
 * so TSan would see no order between an executor and the owner.  Under
 * TSan every segment lock also acquires and releases one object of its
 * own (more order than there is, never less: it can hide a race between
 * two segments, not invent one).
 */
#if defined(__SANITIZE_THREAD__)
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
extern char idev_dseg_tsan_sync;
#define IDEV_DSEG_TSAN_ACQUIRE() __tsan_acquire(&idev_dseg_tsan_sync)
#define IDEV_DSEG_TSAN_RELEASE() __tsan_release(&idev_dseg_tsan_sync)
#else
#define IDEV_DSEG_TSAN_ACQUIRE() ((void)0)
#define IDEV_DSEG_TSAN_RELEASE() ((void)0)
#endif

static inline void idev_dseg_unlock(struct idev_dseg_hdr *h)
{
	IDEV_DSEG_TSAN_RELEASE();
	__atomic_store_n(&h->lock, 0, __ATOMIC_RELEASE);
}

/* Same-process peers (owner: a device of this process whose port lock
 * we hold; 'held': it is our own device, inside its locked section):
 * the responder QP 'qpn' and its receive CQ as records built from the
 * owner's own state (never from the segment's addresses, which any peer
 * may scribble), NULL if there is no such RC QP; and after executing,
 * the records' shared indices back into the owner's state and segment. */
struct idev_qp *idev_direct_self_begin(struct idev *owner, uint32_t qpn,
				       bool held, struct idev_dseg_qp *q,
				       struct idev_dseg_cq *c);
void idev_direct_self_end(struct idev *owner, struct idev_qp *rd,
			  const struct idev_dseg_qp *q,
			  const struct idev_dseg_cq *c);

/* direct_ring.c: the peer's ring a record names (its memfd, inode and
 * size), mapped here once and kept in 'r' while the record names the
 * same file; NULL when it names none or it cannot be mapped (then
 * process_vm_* reaches the ring).  'what' names it in the trace. */
uint8_t *idev_dring_get(struct idev_qp *d, struct idev_dring *r, pid_t pid,
			int32_t fd, uint64_t ino, uint64_t len,
			const char *what);
/* Unmap both of a QP's (its peer changes, it is going away). */
void idev_dring_drop(struct idev_qp *d);
/* The peer's registered memory share 's' (from one of its key records:
 * anything) mapped here, s->len bytes, kept while the peer is; NULL when
 * it cannot be (then process_vm_*).  And all of them unmapped. */
struct idev_mr_share;
uint8_t *idev_dmr_get(struct idev_qp *d, struct idev_dpeer *p,
		      const struct idev_mr_share *s);
void idev_dmr_drop(struct idev_dpeer *p);

/* UD: the device of this process with GID 'gid' and UD QP 'qpn', its
 * port locked for us (unless it is 'dev', whose lock we hold), or NULL
 * (not in this process, busy, closed). */
struct idev *idev_direct_self_ud(struct idev *dev, const uint8_t *gid,
				 uint32_t qpn);
/* Another device's private state from and to its segment, as its own
 * enter and leave do (the caller holds its port's lock). */
void idev_direct_sync_in(struct idev *dev);
void idev_direct_sync_out(struct idev *dev);

/* direct.c, for direct_hello.c: the device of this process whose
 * segment is at 'self' with descriptor 'segfd' (NULL: none); a
 * segment's layout for these counts (its size; the offsets into 'x');
 * a peer's port unmapped and its slot cleared; our own QP record. */
struct idev *idev_dself_find(uint64_t self, int32_t segfd);
size_t idev_dseg_layout(struct idev_direct *x, uint32_t nqps, uint32_t ncqs,
			uint32_t nkeys);
void idev_dpeer_unmap(struct idev_dpeer *p);
struct idev_dseg_qp *idev_dseg_own_qp(struct idev_direct *x, uint32_t qpn);

/* direct_hello.c: the port of process 'pid' whose segment is its
 * descriptor 'segfd' at its address 'self', 'size' bytes (its counter
 * page: 'statsfd', row 'stats_nic'), mapped and checked as a hello's is,
 * with a reference; NULL with 'what' and 'err' saying why.  And letting
 * go of one. */
struct idev_dpeer *idev_dpeer_get(struct idev_direct *x, pid_t pid,
				  int32_t segfd, uint64_t self, uint64_t size,
				  int32_t statsfd, uint32_t stats_nic,
				  const char **what, int *err);
void idev_dpeer_put(struct idev_dpeer *p);
/* Is peer p's process still there?  One system call (a pidfd polled);
 * false marks it dead: packets from now on, as to any peer gone. */
bool idev_dpeer_alive(struct idev_dpeer *p);
/* Descriptor 'fd' of peer p's process, ours too now (pidfd_getfd, the
 * permission process_vm_* needs), or -1. */
int idev_dpeer_getfd(struct idev_dpeer *p, int32_t fd);

/* direct_ud.c: may UD QP d's next frame go directly to the QP whose
 * endpoint (receive socket) is 'fd', without overtaking one of its
 * frames sent as a packet before?  The destination's port lock is held. */
bool idev_direct_ud_in_order(const struct idev_qp *d, int fd);

/* direct_udx.c: this device's line in the run's table of ports (UD
 * destinations in other processes find it there), added or removed. */
void idev_dudtab_set(struct idev *dev, bool add);
/* A UD frame for a QP of another process on this host: received there
 * by us (direct_exec.c) instead of sent.  False: send it. */
struct idev_pkt;
bool idev_direct_ud_other(struct idev_qp *d, struct idev_pkt *pkt);

/* direct_exec.c: UD frame 'rp' (parsed as its receiver parses it) into
 * peer p's QP; 'why' says why not. */
enum idev_dud {
	IDEV_DUD_DONE,
	IDEV_DUD_PACKETS, /* the peer decides it: send the frame */
	/* its record says it drops the frame: sent all the same (the
	 * decision and the counters are the peer's), and nothing observable
	 * for a later frame to overtake */
	IDEV_DUD_DROPS,
	IDEV_DUD_NOT_HERE, /* the peer has no UD QP of that number */
};
enum idev_dud idev_direct_ud_exec(struct idev_qp *d, struct idev_dpeer *p,
				  const struct idev_pkt *rp, const char **why);

/* direct_count.c: the frames message 's' would have been, counted on
 * our NIC and on the responder's ('peer', NULL: not counted). */
struct idev_swqe;
void idev_direct_count(struct idev_qp *d, const struct idev_swqe *s,
		       uint64_t *peer);

#endif /* IDEV_DIRECT_PRIV_H */
