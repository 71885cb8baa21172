/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim device model: the emulated NIC as its driver sees it.  This is
 * the whole interface of the device layer (sim/dev); the kernel model
 * (sim/kernel) is its only user in the emulator, the device tests the
 * other.
 *
 *   downward  (host -> device): idev_create() with a configuration, then
 *             admin commands in the shape of the ones the ionic driver
 *             sends to firmware (docs/kernel-contract.md §16): CREATE/MODIFY/
 *             QUERY/DESTROY_QP, CREATE/DESTROY_CQ, CREATE/DESTROY_MR (MRs
 *             and MWs), CREATE/DESTROY_AH, with the ids and attributes
 *             the driver passes.  The device keeps its own QP, CQ, MR and
 *             AH tables and its own clock; the host keeps nothing of the
 *             device's state and the device reads nothing of the host's.
 *   data      doorbell stores arrive through the MMIO port handed in at
 *             creation (the platform's doorbell trap plays the bus); WQEs
 *             and CQEs live in the rings whose addresses the admin
 *             commands gave.
 *   upward    (device -> host): only the host ops handed in at creation,
 *             one call per event queue entry (docs/device-contract.md §9):
 *             completion notifications, CQ errors, QP errors, SQ drained.
 *
 * Locking: every admin command is called with cfg->lock held; the engine
 * thread takes the same lock around each batch of work, and host ops are
 * called with it held (the engine thread is the host's interrupt context).
 *
 * Enumerations are the verbs ones (enum ibv_qp_type, ibv_qp_state,
 * IBV_QP_* attribute bits, IBV_ACCESS_* flags): the firmware interprets
 * the IB attribute mask directly, and the other encodings map one to one.
 *
 * Return convention: 0 or a negative errno.
 */
#ifndef IDEV_H
#define IDEV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#include "../../common/ionic_hw.h"
#include "../common/mmio.h"
#include "../common/profile.h"

struct idev;
struct ifab_transport;

/* ---- events (device -> host) --------------------------------------------- */

/* EQE types and codes (docs/device-contract.md §9). */
enum idev_eqe_type {
	IDEV_EQE_TYPE_CQ = 0,
	IDEV_EQE_TYPE_QP = 1,
	/* ionic-sim only: the firmware failed (the real driver learns it
	 * from the eth driver's reset notice, not from an EQ) */
	IDEV_EQE_TYPE_DEV = 7,
};

enum idev_eqe_code {
	IDEV_EQE_CQ_NOTIFY = 0, /* an armed CQ got a qualifying CQE */
	IDEV_EQE_CQ_ERR = 8, /* CQ overrun: a CQE was dropped */
	IDEV_EQE_QP_SQ_DRAIN = 1, /* SQD: nothing fetched is outstanding */
	IDEV_EQE_QP_COMM_EST = 2,
	IDEV_EQE_QP_LAST_WQE = 3,
	IDEV_EQE_QP_ERR = 8,
	IDEV_EQE_QP_ERR_REQUEST = 9, /* invalid request from the peer */
	IDEV_EQE_QP_ERR_ACCESS = 10, /* remote access violation */
	IDEV_EQE_DEV_FATAL = 0, /* dead: every object lost, creates refused */
	IDEV_EQE_DEV_RESET = 1, /* reset: every object lost, new ones work */
};

/* EQs 0 and 1 carry the async events (QP and CQ errors, SQ drained);
 * completion notifications go to the EQ the CQ was created with. */
#define IDEV_ASYNC_EQ 0

struct idev_eqe {
	uint32_t eqid;
	enum idev_eqe_type type;
	enum idev_eqe_code code;
	uint32_t qid; /* CQ id or QP number */
};

struct idev_host_ops {
	/* One event queue entry.  Called with cfg->lock held, from the
	 * engine thread or from inside an admin command; must not call
	 * back into the device. */
	void (*event)(void *host, const struct idev_eqe *eqe);
	/* The Ethernet link went down or came up (the carrier the NIC's
	 * netdev reports; the RDMA driver raises no EQE for it, IB core
	 * turns it into PORT_ERR / PORT_ACTIVE).  Optional; same rules. */
	void (*link)(void *host, bool up);
};

/* ---- device memory names on the MMIO port -------------------------------- */

/*
 * The MMIO port names the page a store went to by the tag it was mapped
 * with.  Doorbell pages carry their dbid.  An express-doorbell window of
 * controller memory (docs/device-contract.md §11.2) carries the name below:
 * the window for WQEs of 2^stride_log2 bytes (6..9), starting at CMB page
 * 'pgid'; the store's offset is relative to that page.  Stores there are
 * written into the CMB, and the one that completes a WQE is its doorbell.
 */
#define IDEV_CMB_PAGE 4096u
#define IDEV_TAG_EXPDB (1ull << 63)

static inline uint64_t idev_expdb_tag(unsigned int stride_log2, uint32_t pgid)
{
	return IDEV_TAG_EXPDB | (uint64_t)(stride_log2 & 0xff) << 32 | pgid;
}

/* ---- creation ------------------------------------------------------------ */

struct idev_config {
	struct isim_profile prof; /* firmware identity, limits, qtypes */
	uint32_t node; /* fabric node id: MAC and GIDs derive from it */
	pthread_mutex_t *lock; /* serialises host and engine */
	const struct idev_host_ops *ops;
	void *host; /* first argument of every host op */
	struct isim_mmio_port mmio; /* doorbell stores; pop NULL: none */
	const struct ifab_transport *fabric; /* NULL: the unix sockets */
	/* Controller memory (CMB): cmb_size bytes the device owns, in pages
	 * of IDEV_CMB_PAGE; NULL/0: none.  CMB rings point into it. */
	uint8_t *cmb;
	uint64_t cmb_size;
	/* The oscillator of the device clock in ns; NULL: CLOCK_MONOTONIC.
	 * (Tests freeze it.) */
	uint64_t (*clock_ns)(void);
	/* The firmware fails when this file exists (profile fatal_trigger);
	 * NULL: no trigger file.  Kept by the caller. */
	const char *fatal_file;
	/* Offer and use the direct path (direct.h) where the fabric allows
	 * it.  The caller then brackets every hold of 'lock' with
	 * idev_enter() / idev_leave(). */
	bool direct;
	/* The hardware counters (common/hwstats.h): this NIC's row of the
	 * host's page and, for direct-path peers that count our side of
	 * the messages they execute, the page's descriptor and the row's
	 * index.  NULL: the device counts into a row of its own (tests). */
	uint64_t *stats;
	int stats_fd; /* -1: the page is no file */
	uint32_t stats_nic;
};

int idev_create(const struct idev_config *cfg, struct idev **out);
/* Right after taking cfg->lock, and right before releasing it, with
 * cfg->direct: the state the device shares with its peers' executors
 * comes in and goes back out (sim/dev/direct.h).  No-ops otherwise. */
void idev_enter(struct idev *dev);
void idev_leave(struct idev *dev);
/* Does the device keep a direct-path port (so that rings in shared
 * memory, struct idev_ring_share, save its peers' executors copies)? */
bool idev_direct_port(const struct idev *dev);
/* Start the engine thread (doorbells, fabric, timers).  Without it the
 * device still executes admin commands and doorbells passed to
 * idev_doorbell(). */
int idev_start(struct idev *dev);
/* Stop the engine and free the device and everything it still holds
 * (QPs never destroyed release their fabric endpoints).  May be called
 * with cfg->lock held. */
void idev_destroy(struct idev *dev);
/* In a fork() child: close this process' copies of the device's fds (QP
 * endpoints, the engine's epoll and wake fds) so that the child holds no
 * address on the fabric.  The parent's device is unaffected; the child's
 * copy of it is dead and leaked. */
void idev_atfork_child(struct idev *dev);

/* The firmware fails now (what the profile's triggers do, sim/dev/fatal.c):
 * every QP, CQ, key and AH is freed, one DEV event (FATAL, or RESET with
 * the profile's fatal_reset) goes to the host.  Once per device.  A dead
 * device refuses creates with -ENODEV. */
void idev_fail(struct idev *dev);
bool idev_dead(const struct idev *dev);

/* ---- the device clock ---------------------------------------------------- */

/* Free-running 48-bit counter at 1 GHz: CQE timestamps (docs/device-contract.md
 * §5.7) and what the host's PHC page describes. */
#define IDEV_CLOCK_MASK ((1ull << 48) - 1)
uint64_t idev_clock(const struct idev *dev);

/* ---- admin commands (host -> device, cfg->lock held) --------------------- */

/* A ring the kernel moved to shared memory (kernel/ringshare.c) that
 * direct-path peers may map: its memfd (a descriptor of this process,
 * opened by peers through /proc/<pid>/fd) and that file's inode and
 * size.  len 0: not shared (peers reach it with process_vm_*). */
struct idev_ring_share {
	uint64_t len, ino;
	int32_t fd;
};

/* One ring as the driver programs it: geometry from the provider's
 * qdesc, and the address the device reads or writes it at (user memory,
 * or the controller-memory window of a CMB queue). */
struct idev_ring {
	uint8_t *addr;
	uint16_t mask; /* slots - 1 */
	uint8_t depth_log2;
	uint8_t stride_log2;
	struct idev_ring_share share;
};

struct idev_cq_create {
	uint32_t cqid;
	uint32_t eqid; /* completion notifications go there */
	uint32_t dbid; /* its doorbells are accepted on this page only */
	struct idev_ring ring;
};
/* -EINVAL: id in use or out of range, or a stride too small for CQEs. */
int idev_cq_create(struct idev *dev, const struct idev_cq_create *c);
int idev_cq_destroy(struct idev *dev, uint32_t cqid);

struct idev_qp_create {
	uint32_t qpn;
	enum ibv_qp_type type;
	uint32_t pdid;
	uint32_t dbid;
	uint32_t sq_cqid, rq_cqid; /* hardware CQs of the QP's pipeline */
	struct idev_ring sq, rq;
};
/* -EADDRINUSE: another process of the node holds qpn on the fabric (the
 * driver then tries the next id); -EINVAL: bad id or CQ; -ENOMEM. */
int idev_qp_create(struct idev *dev, const struct idev_qp_create *c);

/* An address vector (the RC path of MODIFY_QP, or an AH). */
struct idev_av {
	uint8_t dgid[16];
	uint32_t flow_label;
	uint8_t sgid_index;
	uint8_t hop_limit;
	uint8_t traffic_class;
	uint8_t sl;
};

struct idev_qp_modify {
	uint32_t qpn;
	uint32_t attr_mask; /* IBV_QP_*: which fields below apply */
	/* always: the state after the command (equal to the current one
	 * without IBV_QP_STATE) */
	enum ibv_qp_state state;
	uint32_t qkey;
	uint32_t dest_qpn;
	uint32_t sq_psn, rq_psn;
	enum ibv_mtu path_mtu;
	uint32_t access_flags; /* IBV_ACCESS_REMOTE_* enables */
	uint8_t retry_cnt, rnr_retry, min_rnr_timer, timeout;
	uint8_t max_rd_atomic, max_dest_rd_atomic;
	uint8_t en_sqd_async_notify;
	uint32_t rate_limit;
	struct idev_av av; /* IBV_QP_AV */
};
/* RESET restarts the device indices and MSN; ERR stops processing and
 * emits flush indicators for queues that have work; SQD stops fetching
 * and reports the drain. */
int idev_qp_modify(struct idev *dev, const struct idev_qp_modify *m);

/* What a QP's engine counted since it was created. */
struct idev_counters {
	uint64_t wqes; /* WQEs consumed */
	uint64_t cqes; /* CQEs written */
	uint64_t rnr_naks_rx, retransmits;
	uint64_t drops; /* packets dropped on receive */
};

struct idev_qp_attr {
	enum ibv_qp_state state; /* the device may have moved it to ERR */
	bool sq_draining;
	struct idev_counters cnt;
};
/* Doorbells rung before the query are applied first. */
int idev_qp_query(struct idev *dev, uint32_t qpn, struct idev_qp_attr *out);
/* Release the fabric endpoint and the device state of the QP. */
int idev_qp_destroy(struct idev *dev, uint32_t qpn);

enum idev_mr_kind {
	IDEV_MR_USER, /* a registered region */
	IDEV_MW_TYPE1, /* memory windows: unbound until a BIND_MW */
	IDEV_MW_TYPE2,
};

/* A region's whole pages the kernel moved to shared memory
 * (kernel/mrshare.c): memfd 'fd' (of this process), inode 'ino', 'len'
 * bytes mapped at 'addr' (page aligned, inside the region's pages).
 * len 0: none (peers reach the memory with process_vm_*). */
struct idev_mr_share {
	uint64_t addr, len, ino;
	int32_t fd;
};

struct idev_mr_create {
	uint32_t key; /* (index << 8) | key8, as the driver allocated it */
	enum idev_mr_kind kind;
	uint32_t pdid;
	uint32_t access; /* IBV_ACCESS_*; MWs: 0 */
	uint64_t iova; /* MWs: 0 */
	uint64_t length; /* MWs: 0 */
	uint8_t *host; /* host address of iova (the pinned pages) */
	struct idev_mr_share share;
};
int idev_mr_create(struct idev *dev, const struct idev_mr_create *c);
/* By index (key >> 8): the key byte of a window changes with every bind.
 * Windows bound to a destroyed region lose it. */
int idev_mr_destroy(struct idev *dev, uint32_t key);

struct idev_ah_create {
	uint32_t ahid;
	uint32_t pdid;
	struct idev_av av;
};
int idev_ah_create(struct idev *dev, const struct idev_ah_create *c);
int idev_ah_destroy(struct idev *dev, uint32_t ahid);

/* ---- data path entry and introspection ----------------------------------- */

/* Apply every doorbell store the MMIO port captured so far, as a read of
 * device memory flushes the writes posted before it.  Admin commands that
 * change or remove queues do it first themselves. */
void idev_sync_doorbells(struct idev *dev);

/* A doorbell store on page 'dbid' (what the engine does with every store
 * it pops).  The value is the 64-bit doorbell (docs/device-contract.md §1.2).
 * */
void idev_doorbell(struct idev *dev, uint32_t dbid, uint32_t offset,
		   uint64_t value);
/* Any store the MMIO port delivers: doorbell pages and express-doorbell
 * windows alike. */
void idev_mmio_store(struct idev *dev, const struct isim_mmio_store *st);
/* A store that reached the device another way than its MMIO port (one
 * another process forwarded, docs/kernel-contract.md §21.1), from a
 * thread that is not the engine's (cfg->lock held): applied as
 * idev_mmio_store() does, and the engine woken for the work it made. */
void idev_mmio_inject(struct idev *dev, const struct isim_mmio_store *st);
/*
 * The thread that just stored a doorbell applies the captured stores
 * itself (cfg->lock NOT held): if the lock is free it pops and applies a
 * batch, wakes the engine only when the work left it something to do
 * sooner than it planned (a timer, a busy peer, more stores), and
 * returns true.  False: the lock is busy, nothing was done, and the
 * caller wakes the engine as for any captured store.
 */
bool idev_doorbells_apply_now(struct idev *dev);

/* One frame from the fabric on the endpoint of QP 'qpn' (what the engine
 * does with every packet it receives; cfg->lock held): a frame that is
 * malformed (sim/dev/pkt.h: lengths, checksums, the ICRC) or not
 * addressed to that QP is counted as a drop, any other is executed.
 * Whatever a peer sends, this returns. */
void idev_rx(struct idev *dev, uint32_t qpn, uint8_t *buf, size_t len);

/* What the device holds, for tests and debugging. */
struct idev_stats {
	uint32_t qps, cqs, mrs, ahs; /* live objects */
	struct idev_counters cnt; /* of the live QPs */
};
void idev_get_stats(const struct idev *dev, struct idev_stats *st);
/* A live key (MR, or MW whatever its binding): its current key, or 0. */
uint32_t idev_mr_key(const struct idev *dev, uint32_t index);
/* Is there a live MR or bound window with exactly this key? */
bool idev_key_valid(const struct idev *dev, uint32_t key);

#endif /* IDEV_H */
