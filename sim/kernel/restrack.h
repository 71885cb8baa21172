/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim kernel layer: resource tracking, the IB core's "restrack" -
 * what `rdma resource` reports: every PD, CQ, QP, MR and user context of
 * the node, with the ids and attributes the kernel holds.
 *
 * A real kernel sees the objects of every process.  Here each process is
 * its own kernel, so each publishes its records in a shared file of the
 * run directory and readers scan all of them (docs/kernel-contract.md
 * §19.4).  Records are written under the NIC lock; readers take a
 * per-record sequence count, never a lock.
 */
#ifndef IK_RESTRACK_H
#define IK_RESTRACK_H

#include <stdint.h>

enum ik_res_type {
	IK_RES_PD = 1,
	IK_RES_CQ,
	IK_RES_QP,
	IK_RES_MR,
	IK_RES_CTX,
	IK_RES_NTYPES,
};

/* One tracked object; 64 bytes in the shared file. */
struct ik_res_rec {
	uint32_t seq; /* odd while being written */
	uint8_t type; /* enum ik_res_type, 0 = free slot */
	uint8_t qp_type; /* QP: IB_QPT_* (RC 2, UC 3, UD 4) */
	uint8_t qp_state; /* QP: IB_QPS_* as the kernel last set it */
	uint8_t port; /* QP: port after INIT, else 0 */
	uint32_t id; /* restrack id: pdn/cqn/mrn/ctxn; a QP's is its QPN */
	uint32_t pid; /* owning process */
	uint32_t pdn; /* QP, MR: the PD's id */
	uint32_t ctxn; /* PD, CQ: the context's id */
	uint32_t cqe; /* CQ */
	uint32_t rqpn, rq_psn, sq_psn; /* QP */
	uint32_t lkey, rkey; /* MR */
	uint32_t usecnt; /* PD, CQ: users */
	uint8_t dev; /* the NIC: device index of ionic_<dev> */
	uint8_t pad[3];
	uint64_t mrlen; /* MR */
};
_Static_assert(sizeof(struct ik_res_rec) == 64, "restrack record");

/* Start tracking an object: the record gets the next id of its type (a
 * QP keeps r->id, its QPN) and this process' pid.  Returns the slot
 * (>= 0) or -1 when tracking is impossible (the object still works; it
 * is only missing from `rdma resource`). */
int32_t ik_res_add(const struct ik_res_rec *r);
/* Replace the record in 'slot' (its id and type stay). */
void ik_res_update(int32_t slot, const struct ik_res_rec *r);
void ik_res_del(int32_t slot);
/* The id the record in 'slot' was given (0 for slot -1). */
uint32_t ik_res_id(int32_t slot);
/* The QP state the record in 'slot' holds. */
uint8_t ik_res_qp_state(int32_t slot);

/* Every live record of 'type' on the node (none for 0, a free slot, or a
 * type of no kind), in no particular order; fn returns non-zero to stop.
 * Returns the count visited. */
typedef int (*ik_res_visit_fn)(void *ctx, const struct ik_res_rec *r);
uint64_t ik_res_walk(uint8_t type, ik_res_visit_fn fn, void *ctx);

/* fork() child: the parent's table is not ours to write. */
void ik_res_atfork_child(void);

#endif /* IK_RESTRACK_H */
