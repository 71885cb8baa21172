/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim device internals: the device object, its tables (QPs by qpn,
 * CQs by cqid, keys by MR index, AHs by ahid) and the calls its parts
 * share.  Everything here runs with the device's lock held (idev.h).
 *
 *   device.c    create/destroy, the clock, events to the host, stats
 *   mr.c        admin MR/MW/AH: the key and address-handle tables
 *   cq.c        admin CQ: create/destroy, reset
 *   cqe.c       the one CQE writer, CQ credits and arming
 *   qp.c        admin QP: create/modify/query/destroy, RESET/SQD/ERR
 *   tx.c        transmit: MTUs, a packet's addresses, build and send
 *   cq_route.c  a QP's CQEs to its CQs, overruns, flush indicators
 *   pkt.c       the IB transport codec: frames, headers, ICRC
 *   doorbell.c  decode doorbells, hand SQ/RQ/CQ work to the parts below
 *   wqe.c       WQE snapshot and decode (one opcode table, v1/v2)
 *   req.c       requester: SQ WQEs -> packets, window, retry timers, UD
 *   comp.c      completer: ACK/NAK/READ response/atomic ACK -> SQ CQEs
 *   resp.c      responder: request packets -> memory, RQ WQEs, RECV CQEs
 *   mem.c/mw.c  keys -> host memory; window bind and invalidation
 *   engine.c    the device thread: epoll, dispatch, the lock per batch
 *   rx.c        receive: frames -> parse -> responder or completer
 *   timer.c     ACK/RNR timers, busy backlogs, held frames, link changes
 *   fatal.c     a firmware failure or reset: everything lost at once
 */
#ifndef IDEV_DEV_H
#define IDEV_DEV_H

#include <stdbool.h>
#include <stdint.h>

#include "../common/hwstats.h"
#include "idev.h"

struct idev_qp;
struct idev_cq;
struct idev_engine;

/* A key-table entry: a memory region or a memory window.  The data path
 * owns a window's binding and every key's validity once it exists. */
struct idev_mr {
	uint32_t key; /* (index << 8) | key8 */
	uint32_t pdid;
	bool is_mw;
	uint8_t mw_type; /* IBV_MW_TYPE_1 or _2, windows only */
	bool valid; /* MW: bound; MR: not invalidated */
	uint32_t access; /* IBV_ACCESS_* */
	uint64_t iova; /* start of the range as addressed by the key */
	uint64_t length;
	uint8_t *host; /* host address corresponding to iova */
	struct idev_mr *bound_mr; /* MW: region it is bound to */
	struct idev_mr_share share; /* MR: its pages in shared memory */
};

struct idev_ah {
	uint32_t pdid;
	struct idev_av av;
};

struct idev {
	struct idev_config cfg;
	const struct isim_profile *prof; /* &cfg.prof */
	uint8_t gid[2][16]; /* [0] link-local (MAC EUI-64), [1] IPv4 */
	struct idev_qp **qps; /* by qpn, nqps entries */
	uint32_t nqps;
	struct idev_cq **cqs; /* by cqid, ncqs entries */
	uint32_t ncqs;
	struct idev_mr **mrs; /* by MR index, prof->nmrs entries */
	struct idev_ah **ahs; /* by ahid, prof->nahs entries */
	struct idev_qp *qp_list; /* every live QP */
	struct idev_engine *engine; /* NULL until idev_start() */
	bool link_up; /* as last reported to the host */
	uint32_t nlive_qps, nlive_cqs, nlive_mrs, nlive_ahs;
	uint64_t started_ns; /* idev_start(): fatal_after_ms counts from it */
	bool failed; /* the firmware failed (fatal.c): once per device */
	bool dead; /* ... and stayed dead: every create is refused */
	struct idev_direct *direct; /* direct.h; NULL: packets only */
	uint32_t dkeys_lo, dkeys_hi; /* key indexes to mirror at leave */
	uint64_t *stats; /* hardware counters: cfg.stats or own_stats */
	uint64_t own_stats[ISIM_HWSTATS_SLOTS];
	/* idev_rx_batch() is reading frames under the NIC lock: a UD
	 * receive finding its RQ empty may apply captured doorbells first
	 * (resp.c, resp_ud_take) */
	bool rx_may_pop;
};

static inline struct idev_qp *idev_qp_lookup(const struct idev *dev,
					     uint32_t qpn)
{
	return qpn < dev->nqps ? dev->qps[qpn] : NULL;
}

static inline struct idev_cq *idev_cq_lookup(const struct idev *dev,
					     uint32_t cqid)
{
	return cqid < dev->ncqs ? dev->cqs[cqid] : NULL;
}

static inline struct idev_ah *idev_ah_lookup(const struct idev *dev,
					     uint32_t ahid)
{
	return ahid < dev->prof->nahs ? dev->ahs[ahid] : NULL;
}

/* The key object at the index of 'key', valid or not (a window being
 * bound is not valid yet), or NULL. */
struct idev_mr *idev_mr_at(const struct idev *dev, uint32_t key);
/* Key lookup for local (lkey) or remote (rkey) access: a valid MR or MW
 * with exactly this key, or NULL.  Range and access checks are the
 * caller's. */
struct idev_mr *idev_key_lookup(const struct idev *dev, uint32_t key);

/* One event queue entry to the host (idev_host_ops.event). */
void idev_raise(struct idev *dev, uint32_t eqid, enum idev_eqe_type type,
		enum idev_eqe_code code, uint32_t qid);

/* Monotonic nanoseconds for timers (never the device clock, which a test
 * may freeze). */
uint64_t idev_now_ns(void);

/* Apply up to 'max' captured doorbells; *more says the batch was full. */
int idev_doorbells_pop(struct idev *dev, int max, bool *more);

/* ---- fatal.c ---- */
/* Free every QP, CQ, key and AH (firmware failure, device destroy). */
void idev_tables_clear(struct idev *dev);
/* The engine's check of the failure triggers: fails the device when one
 * fired; returns the ms until the next check, or -1 for none. */
#define IDEV_FATAL_POLL_MS 10
int idev_fatal_poll(struct idev *dev);

/* ---- rx.c ---- */
#define IDEV_RX_BATCH 32 /* packets per endpoint per lock hold */
/* Receive up to IDEV_RX_BATCH frames of one QP's endpoint; returns how
 * many. */
int idev_rx_batch(struct idev *dev, uint32_t qpn);

/* ---- timer.c ---- */
/* Run expired timers and retry busy backlogs for the QPs of the engine's
 * list (its head, read after a firmware failure may have emptied it);
 * returns the engine's epoll timeout (ms, -1 for none, 0 at once when
 * doorbells are left over: db_more). */
int idev_timers_run(struct idev *dev, struct idev_qp *const *qps, bool db_more);
/* The nearest deadline (monotonic ns) of those QPs' timers, busy peers
 * and held frames, or of a link change; 0 for none. */
uint64_t idev_timers_next(struct idev_qp *const *qps, uint64_t now);

/* ---- engine.c ---- */
int idev_engine_start(struct idev *dev);
/* Stop the thread (may be called with the device lock held). */
void idev_engine_stop(struct idev *dev);
/* Start watching a new QP's endpoint / stop watching it. */
int idev_engine_add(struct idev_engine *eng, struct idev_qp *d);
void idev_engine_del(struct idev_engine *eng, struct idev_qp *d);
/* Also wake for EPOLLOUT on the QP's endpoint (its backlog waits for the
 * peer to drain), or no longer. */
void idev_engine_pollout(struct idev_engine *eng, struct idev_qp *d, bool on);
/* Ask the engine thread to recompute its timers (work done by an
 * application thread may have set a deadline). */
void idev_engine_wake(struct idev_engine *eng);
/* Work was done outside the engine (cfg->lock held): wake it only if it
 * now has something to do before it planned to wake ('more': doorbells
 * left over). */
void idev_engine_poke(struct idev_engine *eng, bool more);
void idev_engine_atfork_child(struct idev_engine *eng);

#endif /* IDEV_DEV_H */
