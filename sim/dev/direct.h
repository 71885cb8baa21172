/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim device: the direct path (sim/README.md, "Direct path").
 *
 * Two devices in two processes of one host, on the unix transport with
 * nothing that needs frames (capture, faults), let the requester's
 * thread execute an RC work request in the responder's memory itself:
 * one process_vm_writev (SEND, WRITE) or process_vm_readv (READ) of the
 * payload, the responder's receive WQE read and its CQE written the same
 * way, or with plain memory accesses when the responder's kernel put
 * those rings in memory both map (sim/kernel/ringshare.c, direct_ring.c).
 * What the requester needs of the responder is its "responder
 * port": a memfd segment the responder's device keeps (struct
 * idev_dseg_*), the authority for the responder state both the packet
 * path and remote executors change (expected PSN, MSN, RQ consumer, CQ
 * producer and colour), and a mirror of what they only read (QP state
 * and attributes, RQ and CQ rings and their memfds, the key table).
 *
 * The owner holds the segment's lock whenever it holds its device lock
 * (idev_direct_enter/leave: the engine's batches, the storing thread,
 * every admin command through the kernel's NIC lock): entering loads the
 * shared indices into the device's private state, masked to their
 * rings, and leaving stores them and the mirror back.  The owner never
 * dereferences an address it finds in the segment: they are its own, for
 * peers, which reach them only through process_vm_* (a bad one fails
 * with EFAULT).
 *
 * Anything but the plain success case (a key or access the responder
 * refuses, no receive WQE, a receive buffer too short, an armed or full
 * CQ, a QP not ready, a message already in flight on the packet path,
 * the lock busy) goes the packet way instead, whose responder decides it:
 * the same outcome by construction.
 */
#ifndef IDEV_DIRECT_H
#define IDEV_DIRECT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "dev.h"

#define IDEV_DSEG_MAGIC 0x315443455249444dull /* "MDIRECT1" */
#define IDEV_DSEG_NTF 64 /* notify ring entries */
#define IDEV_DSEG_NTF_SOL (1u << 31)

struct idev_dseg_hdr {
	uint64_t magic;
	uint32_t nqps, ncqs, nkeys; /* record counts, as below */
	uint32_t closed; /* the owner stopped keeping it: use packets */
	uint64_t size; /* bytes of the segment */
	int32_t pid; /* the owner, for process_vm_* */
	uint32_t node; /* its NIC's fabric node (UD destinations: QP
			* numbers are the node's) */
	uint64_t self; /* the owner's address of this header (the probe) */
	/* The lock: the holder's pid, 0 when free (idev_dseg_lock).  Not
	 * a pthread mutex: a robust one links itself through pointers kept
	 * in the mutex, which a scribbling peer would own. */
	uint32_t lock;
	/* Completions executors wrote into an armed CQ: the owner raises
	 * the events (entries: cqid | IDEV_DSEG_NTF_SOL), woken by a notify
	 * datagram on the QP's endpoint. */
	uint32_t ntf_prod;
	uint32_t ntf[IDEV_DSEG_NTF];
};

/* A QP as a remote executor needs it (RC and UD responders). */
struct idev_dseg_qp {
	uint32_t qpn; /* its index, when valid */
	uint8_t valid, state, type, in_msg;
	uint8_t nak_sent, rq_stride_log2, pad[2];
	uint32_t pdid, access_flags, dest_qpn, rq_cqid;
	uint8_t dgid[16]; /* the path: whom it accepts requests from */
	/* shared, mutable: loaded by the owner on entering */
	uint32_t epsn, msn;
	uint16_t rq_cons;
	/* mirror */
	uint16_t rq_mask, rq_db_prod, pad2;
	uint64_t rq_ring; /* the owner's address */
	uint64_t wqes, cqes; /* counted by executors, added by the owner */
	/* mirror: the RQ ring in shared memory, if it is (idev_ring_share:
	 * peers map it instead of reading WQEs with process_vm_readv) */
	uint64_t rq_share_len, rq_share_ino;
	int32_t rq_share_fd;
	uint32_t qkey; /* UD: what its sends must carry */
	int32_t ep_fd; /* UD: its endpoint's descriptor (direct_ud.c) */
};

struct idev_dseg_cq {
	uint32_t cqid;
	uint8_t valid, stride_log2, armed, overflowed;
	uint16_t mask, host_cons;
	/* shared, mutable */
	uint32_t prod, sol_slot;
	uint8_t color, sol_pending, pad[6];
	/* mirror */
	uint64_t ring; /* the owner's address */
	/* the ring in shared memory, if it is: peers write CQEs there */
	uint64_t share_len, share_ino;
	int32_t share_fd;
	uint32_t pad2;
};

/* A key as the responder's checks see it (mem.c: struct idev_key_view). */
struct idev_dseg_key {
	uint32_t key, pdid, access;
	uint8_t usable, is_mw, pad[2];
	uint64_t iova, length, host;
	/* its pages in shared memory, if they are (struct idev_mr_share:
	 * peers copy there instead of process_vm_*) */
	uint64_t share_addr, share_len, share_ino;
	int32_t share_fd;
	uint32_t pad2;
};

struct idev_swqe;
struct idev_dring;

/* Per device, in struct idev (dev->direct). */
struct idev_direct;

/* Create the segment (idev_create, when the switch and the fabric allow
 * it); without it the device runs the packet path only.  0 or -errno. */
int idev_direct_init(struct idev *dev);
void idev_direct_fini(struct idev *dev);
/* In a fork child: the segment and the peers' are the parent's (shared
 * memory): the child's copy of the device lets go of them untouched. */
void idev_direct_atfork_child(struct idev *dev);
/* Around every hold of the device lock (no-ops without a segment). */
void idev_direct_enter(struct idev *dev);
void idev_direct_leave(struct idev *dev);
/* Key indexes [lo, hi) changed (mr.c, mw.c, fatal.c): mirror them at
 * leave. */
static inline void idev_direct_keys_changed(struct idev *dev, uint32_t lo,
					    uint32_t hi)
{
	if (dev->dkeys_lo >= dev->dkeys_hi) {
		dev->dkeys_lo = lo;
		dev->dkeys_hi = hi;
		return;
	}
	if (lo < dev->dkeys_lo)
		dev->dkeys_lo = lo;
	if (hi > dev->dkeys_hi)
		dev->dkeys_hi = hi;
}

/* An RC QP entered RTR: offer our port to its peer (a hello frame). */
void idev_direct_qp_rtr(struct idev_qp *d);
/* A QP is going away or restarting (free, RESET): its record, its peer. */
void idev_direct_qp_gone(struct idev_qp *d);
/* A frame that is a hello or a notify (rx.c): true if it was one
 * (consumed). */
bool idev_direct_rx(struct idev *dev, uint32_t qpn, const uint8_t *buf,
		    size_t len);

/* ---- direct_exec.c: the requester's side ---- */
/* Execute fetched RC messages from the send position directly while
 * that is possible (req.c, before sending packets). */
void idev_direct_run(struct idev_qp *d);
/* The datagram that wakes a peer's engine for its notify ring. */
void idev_direct_notify_send(struct idev_qp *d);
/* Should message 's' wait for the packets in flight rather than go as
 * packets itself (the peer's port is usable, the operation is one the
 * executor runs)? */
bool idev_direct_hold(const struct idev_qp *d, const struct idev_swqe *s);

/* ---- direct_ud.c ---- */
struct idev_pkt;
/* A UD frame for a QP of this host: received right here, by the
 * destination device's own receive code (this process) or the executor
 * (another process, direct_udx.c), instead of sent.  False: send it. */
bool idev_direct_ud(struct idev_qp *d, struct idev_pkt *pkt);

#endif /* IDEV_DIRECT_H */
