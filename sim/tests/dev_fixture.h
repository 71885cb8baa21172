/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim device tests: one device with its real engine thread and the
 * real fabric, driven the way its kernel model drives it and nothing
 * more - admin commands through idev.h, doorbell stores through an MMIO
 * port (a FIFO standing for the platform's trap), events into a sink
 * standing for the kernel - plus a host side that writes WQEs into rings
 * and polls CQEs as a provider does (colour, ring-0 credits).
 *
 * One fixture per layer, not two of the same: the device tests link
 * ionic-sim-dev and ionic-sim-fabric only (sim/CMakeLists.txt), so this
 * fixture plays the kernel model itself, where kernel_fixture.h drives
 * the real kernel model (which then needs the device below it).  A
 * device test that linked the kernel would no longer prove the device
 * stands on its own.  Both report through tests/support/check.h.
 */
#ifndef ISIM_TESTS_DEV_FIXTURE_H
#define ISIM_TESTS_DEV_FIXTURE_H

#include <endian.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "dev/idev.h"

/* Checks: tests/support/check.h. */

/* The device under test, its node and the doorbell page of the host. */
extern struct idev *fx_dev;
#define FX_NODE 1
#define FX_DBID 1
#define FX_PDID 1

/* Events the sink received. */
struct fx_events {
	int comp; /* CQ_NOTIFY */
	int cq_err;
	int qp_async; /* every QP event (errors, SQ drained) */
	int sq_drained;
};
extern struct fx_events fx_ev;

/* Start the device (engine running) on a fabric of this process' own;
 * 0 on success.  fx_stop() destroys it with the lock held, as the kernel
 * layer may, and returns the exit status (check_finish). */
int fx_start(void);
int fx_stop(void);
void fx_lock(void);
void fx_unlock(void);
uint64_t fx_now_ns(void);

/* ---- host side ------------------------------------------------------------ */

struct hcq { /* the host's view of one CQ */
	uint32_t cqid;
	uint8_t *ring;
	uint16_t mask;
	uint16_t pos;
	uint8_t colour;
};

struct hqp {
	uint32_t qpn;
	enum ibv_qp_type type;
	uint8_t *sq, *rq; /* 64 slots of 64 bytes each */
	/* express-doorbell SQ in CMB: the window's tag, the store size */
	uint64_t expdb_tag;
	unsigned int expdb_chunk;
	uint16_t mask;
	uint16_t sq_prod, rq_prod;
	/* the attributes bring_up() and modify() program */
	struct idev_qp_modify attr;
};

/* A 128-slot CQ with id 'cqid' (admin CREATE_CQ). */
struct hcq *make_cq(uint32_t cqid);
void destroy_cq(struct hcq *h);
/* Wait up to 'ms' for the next CQE; copy it out and give the slot back
 * on ring 0 as the host's reservation step would. */
bool poll_cqe(struct hcq *h, struct ionic_cqe *out, int ms);
uint32_t cqe_type(const struct ionic_cqe *c);
bool cqe_err(const struct ionic_cqe *c);
uint32_t cqe_status_len(const struct ionic_cqe *c);
/* Wait for the send CQ to report msg_msn 'want' (MSN CQEs may coalesce);
 * *st is the status of an error CQE on the way. */
bool wait_msn(struct hcq *cq, uint32_t want, enum ionic_status *st);

/* A memory region of PD FX_PDID over [buf, buf + len): its key. */
uint32_t mr_key(void *buf, size_t len, uint32_t access);
/* A memory window as alloc_mw leaves it (unbound): its key. */
uint32_t make_mw(uint8_t type);

/* A QP (admin CREATE_QP) with remote write/read/atomic enabled. */
struct hqp *make_qp(uint32_t qpn, enum ibv_qp_type type, struct hcq *scq,
		    struct hcq *rcq);
/* The same with its SQ in controller memory from page 'pgid' on, posted
 * through the express-doorbell window in stores of 'chunk' bytes (8 or
 * 64) that end with each WQE's trailer. */
struct hqp *make_qp_expdb(uint32_t qpn, enum ibv_qp_type type, struct hcq *scq,
			  struct hcq *rcq, uint32_t pgid, unsigned int chunk);

/* The device's controller memory and a raw store to the MMIO port. */
#define FX_CMB_PAGES 16
extern uint8_t fx_cmb[];
void fx_mmio_store(uint64_t tag, uint32_t offset, const void *data,
		   uint32_t size);
const struct isim_profile *fx_profile(void);
/* Admin MODIFY_QP to 'st' with the attributes 'mask' names (besides the
 * state) from h->attr. */
void modify_attrs(struct hqp *h, enum ibv_qp_state st, uint32_t mask);
void modify(struct hqp *h, enum ibv_qp_state st);
/* RESET -> INIT -> RTR -> RTS, RC connected to (FX_NODE, peer), or UD. */
void bring_up(struct hqp *h, uint32_t peer, uint8_t retry, uint8_t rnr_retry,
	      uint8_t timeout);
/* What QUERY_QP reports. */
struct idev_qp_attr qp_query(struct hqp *h);
void destroy_qp(struct hqp *h);

void post_send(struct hqp *h, uint8_t v2op, void *buf, uint32_t len,
	       uint32_t lkey, uint16_t flags, uint32_t ahid, uint32_t dqpn,
	       uint32_t qkey);
void post_rdma(struct hqp *h, uint8_t v2op, void *buf, uint32_t len,
	       uint32_t lkey, void *rbuf, uint32_t rkey, uint16_t flags);
/* Firmware v2 atomic layout: lkey @44, local_va @48 (docs/device-contract.md
 * §3.3 (d)). */
void post_atomic(struct hqp *h, uint8_t v2op, uint64_t *res, uint32_t lkey,
		 uint64_t *target, uint32_t rkey, uint64_t swap_add,
		 uint64_t cmp);
/* BIND_MW / LOCAL_INV. */
void post_local(struct hqp *h, uint8_t v2op, uint32_t key, uint8_t key8,
		void *va, uint64_t len, uint32_t lkey, uint16_t fwflags);
/* SEND_WITH_INV: imm_data_key carries the rkey to invalidate. */
void post_send_inv(struct hqp *h, void *buf, uint32_t len, uint32_t lkey,
		   uint32_t rkey);
void post_recv(struct hqp *h, void *buf, uint32_t len, uint32_t lkey);

#endif /* ISIM_TESTS_DEV_FIXTURE_H */
