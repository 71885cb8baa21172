// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: keeping the resource-tracking records
 * (restrack.h) in step with the objects, as the IB core's restrack is:
 * a record appears when a create command succeeds, changes when a QP is
 * modified or an object's user count moves, and goes with the object.
 * Runs under the NIC lock, on the control path only.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <string.h>

#include "kpriv.h"
#include "restrack.h"

static int32_t slot_of(const struct ik_uobj *u)
{
	return u->res_slot1 - 1;
}

static uint32_t ctx_id(const struct ik_file *f)
{
	return ik_res_id(f->res_slot1 - 1);
}

static void rec_pd(const struct ik_pd *pd, struct ik_res_rec *r)
{
	r->type = IK_RES_PD;
	r->ctxn = ctx_id(pd->uobj.file);
	r->usecnt = pd->usecnt;
}

static void rec_cq(const struct ik_cq *cq, struct ik_res_rec *r)
{
	r->type = IK_RES_CQ;
	r->ctxn = ctx_id(cq->uobj.file);
	r->cqe = cq->cqe;
	r->usecnt = cq->usecnt;
}

static void rec_mr(const struct ik_mr *mr, struct ik_res_rec *r)
{
	r->type = IK_RES_MR;
	r->lkey = r->rkey = mr->key;
	r->mrlen = mr->length;
	r->pdn = mr->pd ? ik_res_id(slot_of(&mr->pd->uobj)) : 0;
}

static void rec_qp(const struct ik_qp *qp, uint8_t state, struct ik_res_rec *r)
{
	r->type = IK_RES_QP;
	r->id = qp->qpn;
	r->qp_type = (uint8_t)qp->type; /* IB_QPT_* share the numbers */
	r->qp_state = state;
	r->port = qp->port_num;
	r->pdn = ik_res_id(slot_of(&qp->pd->uobj));
	r->rqpn = qp->dest_qpn;
	r->rq_psn = qp->rq_psn;
	r->sq_psn = qp->sq_psn;
}

/* Record an object 'u' of the file, or refresh its record. */
static void publish(struct ik_uobj *u, const struct ik_res_rec *r)
{
	if (u->res_slot1)
		ik_res_update(slot_of(u), r);
	else
		u->res_slot1 = ik_res_add(r) + 1;
}

static void refresh_pd(struct ik_pd *pd)
{
	struct ik_res_rec r;

	if (!pd || !pd->uobj.res_slot1)
		return;
	memset(&r, 0, sizeof(r));
	rec_pd(pd, &r);
	ik_res_update(slot_of(&pd->uobj), &r);
}

static void refresh_cq(struct ik_cq *cq)
{
	struct ik_res_rec r;

	if (!cq || !cq->uobj.res_slot1)
		return;
	memset(&r, 0, sizeof(r));
	rec_cq(cq, &r);
	ik_res_update(slot_of(&cq->uobj), &r);
}

static void *resp_obj(struct ik_cmd *c, enum ik_uobj_type type)
{
	uint32_t handle;

	/* every create response starts with the new object's handle */
	memcpy(&handle, c->resp, sizeof(handle));
	return ik_handle_get(c->f, handle, type);
}

void ik_res_cmd_done(struct ik_cmd *c, uint32_t cmd)
{
	struct ik_res_rec r;
	struct ik_pd *pd;
	struct ik_mr *mr;
	struct ik_cq *cq;
	struct ik_qp *qp;
	struct ik_ah *ah;

	memset(&r, 0, sizeof(r));
	/* the NIC the objects are on (updates keep what the add said) */
	r.dev = c->nic ? (uint8_t)c->nic->index : 0;
	switch (cmd & IB_USER_VERBS_CMD_COMMAND_MASK) {
	case IB_USER_VERBS_CMD_GET_CONTEXT:
		r.type = IK_RES_CTX;
		c->f->res_slot1 = ik_res_add(&r) + 1;
		break;
	case IB_USER_VERBS_CMD_ALLOC_PD:
		pd = resp_obj(c, IK_UOBJ_PD);
		if (pd) {
			rec_pd(pd, &r);
			publish(&pd->uobj, &r);
		}
		break;
	case IB_USER_VERBS_CMD_REG_MR:
		mr = resp_obj(c, IK_UOBJ_MR);
		if (mr) {
			rec_mr(mr, &r);
			publish(&mr->uobj, &r);
			refresh_pd(mr->pd);
		}
		break;
	case IB_USER_VERBS_CMD_ALLOC_MW:
		mr = resp_obj(c, IK_UOBJ_MW);
		if (mr)
			refresh_pd(mr->pd); /* windows are not tracked */
		break;
	case IB_USER_VERBS_CMD_CREATE_AH:
		ah = resp_obj(c, IK_UOBJ_AH);
		if (ah)
			refresh_pd(ah->pd);
		break;
	case IB_USER_VERBS_CMD_CREATE_CQ: /* and EX_CREATE_CQ */
		cq = resp_obj(c, IK_UOBJ_CQ);
		if (cq) {
			rec_cq(cq, &r);
			publish(&cq->uobj, &r);
		}
		break;
	case IB_USER_VERBS_CMD_CREATE_QP: /* and EX_CREATE_QP */
		qp = resp_obj(c, IK_UOBJ_QP);
		if (qp) {
			rec_qp(qp, IBV_QPS_RESET, &r);
			publish(&qp->uobj, &r);
			refresh_pd(qp->pd);
			refresh_cq(qp->send_cq);
			refresh_cq(qp->recv_cq);
		}
		break;
	case IB_USER_VERBS_CMD_MODIFY_QP: { /* and EX_MODIFY_QP */
		struct ib_uverbs_modify_qp m;

		ik_core_req_copy(c, &m, sizeof(m));
		qp = ik_handle_get(c->f, m.qp_handle, IK_UOBJ_QP);
		if (qp && qp->uobj.res_slot1 && (m.attr_mask & IBV_QP_STATE)) {
			rec_qp(qp, (uint8_t)m.qp_state, &r);
			publish(&qp->uobj, &r);
		} else if (qp && qp->uobj.res_slot1) {
			/* same state, new attributes */
			rec_qp(qp, ik_res_qp_state(slot_of(&qp->uobj)), &r);
			publish(&qp->uobj, &r);
		}
		break;
	}
	default:
		break;
	}
}

void ik_res_forget(struct ik_uobj *u)
{
	switch (u->type) {
	case IK_UOBJ_QP: {
		struct ik_qp *qp = (struct ik_qp *)u;

		refresh_pd(qp->pd);
		refresh_cq(qp->send_cq);
		refresh_cq(qp->recv_cq);
		break;
	}
	case IK_UOBJ_MR:
	case IK_UOBJ_MW:
		refresh_pd(((struct ik_mr *)u)->pd);
		break;
	case IK_UOBJ_AH:
		refresh_pd(((struct ik_ah *)u)->pd);
		break;
	default:
		break;
	}
	if (u->res_slot1)
		ik_res_del(slot_of(u));
	u->res_slot1 = 0;
}

void ik_res_file_release(struct ik_file *f)
{
	if (f->res_slot1)
		ik_res_del(f->res_slot1 - 1);
	f->res_slot1 = 0;
}
