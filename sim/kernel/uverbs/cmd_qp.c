// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: queue pair create, query and destroy
 * (docs/kernel-contract.md §9.2, §9.5, §9.6, §15).  Modify is in qp_modify.c.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kpriv.h"

/* IB_QPT_* numbering of the kernel (ibv_qp_type agrees for these) */
#define IK_QPT_SMI 0
#define IK_QPT_GSI 1

/* What query_qp reports as port_num.  The ionic driver returns 0
 * (docs/kernel-contract.md §9.5); kept faithful, see the note in the report. */
#define IK_QUERY_QP_PORT_NUM 0

struct qp_args {
	uint64_t user_handle;
	uint32_t pd_handle, send_cq_handle, recv_cq_handle, srq_handle;
	uint32_t max_send_wr, max_recv_wr, max_send_sge, max_recv_sge;
	uint32_t max_inline_data;
	uint8_t sq_sig_all, qp_type, is_srq;
};

/* SGEs a WQE of 2^stride bytes holds (ionic_fw.h send/recv_max_sge) */
static uint32_t wqe_max_sge(unsigned int stride_log2, unsigned int spec,
			    bool expdb)
{
	uint32_t end = (1u << stride_log2) - (expdb ? 16 : 0);
	uint32_t first = 32 + (spec > 2 ? 32 : 0);
	uint32_t k = end > first ? (end - first) / 16 : 0;

	if (spec && k > spec)
		k = spec;
	return k;
}

/* inline bytes a WQE of 2^stride bytes holds (send_max_data) */
static uint32_t wqe_max_data(unsigned int stride_log2, bool expdb)
{
	uint32_t n = 1u << stride_log2;

	return n > 32u + (expdb ? 8 : 0) ? n - 32 - (expdb ? 8 : 0) : 0;
}

static void qp_caps(const struct ik_qp *qp, uint32_t *swr, uint32_t *rwr,
		    uint32_t *ssge, uint32_t *rsge, uint32_t *inl)
{
	*swr = qp->sq.desc.mask;
	*rwr = qp->rq.desc.mask;
	/* an express-doorbell SQ gives its last 8 bytes to the doorbell */
	bool expdb = qp->sq.cmb & IONIC_CMB_EXPDB;

	*ssge = wqe_max_sge(qp->sq.desc.stride_log2, qp->sq.spec, expdb);
	*rsge = wqe_max_sge(qp->rq.desc.stride_log2, qp->rq.spec, false);
	*inl = wqe_max_data(qp->sq.desc.stride_log2, expdb);
}

void ik_qp_free(struct ik_file *f, struct ik_qp *qp)
{
	struct ik_nic *nic = f->nic;

	if (qp->dev_live)
		idev_qp_destroy(nic->dev, qp->qpn);
	qp->dev_live = false;
	if (qp->qpn && qp->qpn < nic->qpn_limit && nic->qps[qp->qpn] == qp) {
		nic->qps[qp->qpn] = NULL;
		ik_ida_free(&nic->qp_ida[qp->udma], ik_udma_idx(nic, qp->qpn));
	}
	ik_cmb_sq_release(f, qp);
	/* the device has let go of the rings */
	ik_unpin(&qp->sq.pin);
	ik_unpin(&qp->rq.pin);
	if (qp->has_ah)
		ik_ida_free(&nic->ah_ida, qp->ahid);
	if (qp->pd)
		qp->pd->usecnt--;
	if (qp->send_cq)
		qp->send_cq->usecnt--;
	if (qp->recv_cq)
		qp->recv_cq->usecnt--;
	ik_handle_del(f, &qp->uobj);
	free(qp);
}

static void ring_of(struct idev_ring *r, const struct ik_wq *wq)
{
	r->addr = wq->ring;
	r->mask = wq->desc.mask;
	r->depth_log2 = wq->desc.depth_log2;
	r->stride_log2 = wq->desc.stride_log2;
	r->share = wq->pin.share;
}

/* Admin CREATE_QP for qp->qpn. */
static int qp_dev_create(struct ik_nic *nic, const struct ik_qp *qp)
{
	struct idev_qp_create dc = {
		.qpn = qp->qpn,
		.type = qp->type,
		.pdid = qp->pd->pdid,
		.dbid = qp->uobj.file->dbid,
		.sq_cqid = ik_qp_cqid(qp, true),
		.rq_cqid = ik_qp_cqid(qp, false),
	};

	ring_of(&dc.sq, &qp->sq);
	ring_of(&dc.rq, &qp->rq);
	return idev_qp_create(nic->dev, &dc);
}

/*
 * ionic_get_qpid: the preferred pipeline alternates on every create across
 * the device; the lowest free id of the preferred UDMA half is taken, else
 * the other half's.  An id the fabric reports as held by another process of
 * the same node (-EADDRINUSE) is skipped.
 */
static int qp_assign_id(struct ik_nic *nic, struct ik_qp *qp, uint8_t mask)
{
	unsigned int pref = nic->next_qp_udma;
	uint32_t skipped[64];
	unsigned int nskip = 0;
	int rc = -ENOMEM;

	if (nic->prof.udma_count >= 2)
		nic->next_qp_udma ^= 1;
	for (unsigned int t = 0; t < 2 && rc; t++) {
		unsigned int u = t ? !pref : pref;

		if (!(mask & (1u << u)))
			continue;
		for (;;) {
			int64_t idx = ik_ida_alloc(&nic->qp_ida[u]);

			if (idx < 0) {
				rc = -ENOMEM;
				break;
			}
			qp->udma = (uint8_t)u;
			qp->qpn = ik_udma_qid(nic, u, (uint32_t)idx);
			rc = qp->qpn == 0xffffff ? -EADDRINUSE :
						   qp_dev_create(nic, qp);
			if (!rc) {
				qp->dev_live = true;
				break;
			}
			if (rc != -EADDRINUSE || nskip == 64) {
				ik_ida_free(&nic->qp_ida[u], (uint32_t)idx);
				if (rc == -EADDRINUSE)
					rc = -ENOMEM;
				goto out;
			}
			skipped[nskip++] = (uint32_t)idx | (u << 31);
		}
	}
out:
	for (unsigned int i = 0; i < nskip; i++)
		ik_ida_free(&nic->qp_ida[skipped[i] >> 31],
			    skipped[i] & 0x7fffffff);
	if (rc)
		qp->qpn = 0;
	return rc;
}

static int check_caps(const struct isim_profile *p, const struct qp_args *a)
{
	uint32_t sge_cap = wqe_max_sge(p->max_stride, 0, false);

	if (sge_cap > IK_MAX_SGE_CAP)
		sge_cap = IK_MAX_SGE_CAP;
	if (a->max_send_wr > IK_MAX_DEPTH || a->max_recv_wr > IK_MAX_DEPTH)
		return -EINVAL;
	if (a->max_send_sge < 1 || a->max_send_sge > sge_cap)
		return -EINVAL;
	if (a->max_recv_sge < 1 || a->max_recv_sge > sge_cap)
		return -EINVAL;
	if (a->max_inline_data > wqe_max_data(p->max_stride, false))
		return -EINVAL;
	return 0;
}

static int qp_create(struct ik_cmd *c, const struct qp_args *a,
		     struct ib_uverbs_create_qp_resp *r)
{
	struct ik_nic *nic = c->nic;
	struct ik_cq *scq, *rcq;
	struct ionic_qp_resp dr;
	struct ionic_qp_req req;
	uint64_t sq_cmb_off = 0;
	struct ik_pd *pd;
	struct ik_qp *qp;
	uint8_t sq_cmb = 0;
	uint8_t mask;
	int rc;

	/* IB core: object lookups (no SRQ objects exist on ionic) */
	pd = ik_handle_get(c->f, a->pd_handle, IK_UOBJ_PD);
	scq = ik_handle_get(c->f, a->send_cq_handle, IK_UOBJ_CQ);
	rcq = ik_handle_get(c->f, a->recv_cq_handle, IK_UOBJ_CQ);
	if (!pd || !scq || !rcq || a->is_srq)
		return -EINVAL;
	/* ionic_create_qp: RC, UC and UD only from userspace */
	if (a->qp_type != IBV_QPT_RC && a->qp_type != IBV_QPT_UC &&
	    a->qp_type != IBV_QPT_UD)
		return -EOPNOTSUPP;
	rc = ik_udata_in(c, &req, sizeof(req));
	if (rc)
		return rc;
	rc = ik_admin_ok(c->f, IK_ADMIN_CREATE_QP);
	if (rc)
		return rc;
	mask = ik_udma_all(nic) & scq->udma_mask & rcq->udma_mask;
	if (req.udma_mask)
		mask &= req.udma_mask;
	if (!mask)
		return -EINVAL;
	rc = check_caps(&nic->prof, a);
	if (rc)
		return rc;
	/* has_sq and has_rq are always set: both rings must be valid */
	rc = ik_qdesc_check(&req.sq);
	if (!rc)
		rc = ik_qdesc_check(&req.rq);
	if (rc)
		return rc;

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return -ENOMEM;
	qp->uobj.user_handle = a->user_handle;
	qp->uobj.handle = UINT32_MAX;
	qp->type = a->qp_type;
	qp->sq_sig_all = !!a->sq_sig_all;
	qp->sq.desc = req.sq;
	qp->sq.spec = req.sq_spec;
	qp->rq.desc = req.rq;
	qp->rq.spec = req.rq_spec;
	rc = ik_pin_user(req.sq.addr, req.sq.size, &qp->sq.pin);
	if (!rc)
		rc = ik_pin_user(req.rq.addr, req.rq.size, &qp->rq.pin);
	if (rc)
		goto err_unpin;
	/* an RC responder's RQ is what direct-path peers read */
	if (qp->type == IBV_QPT_RC)
		ik_ring_share(nic, &qp->rq.pin, req.rq.size, "rq");
	qp->sq.ring = qp->sq.pin.addr;
	qp->rq.ring = qp->rq.pin.addr;
	/* the RQ is never placed in CMB (IONIC_RQCMB_ORDER 0) */
	qp->sq.cmb = 0;
	qp->rq.cmb = 0;
	if (qp->type == IBV_QPT_RC) {
		/* RC QPs own a header template slot for their path */
		int64_t ahid = ik_ida_alloc(&nic->ah_ida);

		if (ahid < 0) {
			rc = (int)ahid;
			goto err_unpin;
		}
		qp->ahid = (uint32_t)ahid;
		qp->has_ah = true;
	}
	/* the device needs the owner for doorbell and event routing */
	qp->uobj.file = c->f;
	rc = ik_cmb_sq_setup(c->f, qp, req.sq_cmb, &sq_cmb, &sq_cmb_off);
	if (rc) {
		if (qp->has_ah)
			ik_ida_free(&nic->ah_ida, qp->ahid);
		goto err_unpin;
	}
	/* caps once the placement (express doorbell or not) is known */
	qp_caps(qp, &qp->sq.max_wr, &qp->rq.max_wr, &qp->sq.max_sge,
		&qp->rq.max_sge, &qp->sq.max_inline);
	qp->rq.max_inline = 0;
	qp->pd = pd;
	qp->send_cq = scq;
	qp->recv_cq = rcq;
	pd->usecnt++;
	scq->usecnt++;
	rcq->usecnt++;
	rc = qp_assign_id(nic, qp, mask);
	if (rc)
		goto err;
	nic->qps[qp->qpn] = qp;
	rc = ik_handle_add(c->f, &qp->uobj, IK_UOBJ_QP);
	if (rc)
		goto err;

	r->qp_handle = qp->uobj.handle;
	r->qpn = qp->qpn;
	r->max_send_wr = qp->sq.max_wr;
	r->max_recv_wr = qp->rq.max_wr;
	r->max_send_sge = qp->sq.max_sge;
	r->max_recv_sge = qp->rq.max_sge;
	r->max_inline_data = qp->sq.max_inline;
	memset(&dr, 0, sizeof(dr));
	dr.qpid = qp->qpn;
	dr.udma_idx = qp->udma;
	dr.sq_cmb = sq_cmb;
	dr.sq_cmb_offset = sq_cmb_off;
	ik_udata_out(c, &dr, sizeof(dr));
	KNOTE(c,
	      "qp_handle=%u qpn=%u type=%u udma=%u sq_cmb=0x%x sq=%u/%u rq=%u/%u caps=%u,%u,%u,%u,%u",
	      qp->uobj.handle, qp->qpn, qp->type, qp->udma, sq_cmb,
	      req.sq.depth_log2, req.sq.stride_log2, req.rq.depth_log2,
	      req.rq.stride_log2, r->max_send_wr, r->max_recv_wr,
	      r->max_send_sge, r->max_recv_sge, r->max_inline_data);
	return 0;
err:
	ik_qp_free(c->f, qp);
	return rc;
err_unpin:
	ik_unpin(&qp->sq.pin);
	ik_unpin(&qp->rq.pin);
	free(qp);
	return rc;
}

/* The legacy and the extended request name these fields alike. */
#define QP_ARGS(cmd)                                      \
	((struct qp_args){                                \
		.user_handle = (cmd).user_handle,         \
		.pd_handle = (cmd).pd_handle,             \
		.send_cq_handle = (cmd).send_cq_handle,   \
		.recv_cq_handle = (cmd).recv_cq_handle,   \
		.srq_handle = (cmd).srq_handle,           \
		.max_send_wr = (cmd).max_send_wr,         \
		.max_recv_wr = (cmd).max_recv_wr,         \
		.max_send_sge = (cmd).max_send_sge,       \
		.max_recv_sge = (cmd).max_recv_sge,       \
		.max_inline_data = (cmd).max_inline_data, \
		.sq_sig_all = (cmd).sq_sig_all,           \
		.qp_type = (cmd).qp_type,                 \
		.is_srq = (cmd).is_srq,                   \
	})

int ik_cmd_create_qp(struct ik_cmd *c)
{
	const struct ib_uverbs_create_qp *cmd = c->req;
	struct qp_args a = QP_ARGS(*cmd);

	return qp_create(c, &a, c->resp);
}

/* create flags the IB core lets through to a driver */
#define IK_QP_CREATE_CORE_FLAGS                                          \
	(IBV_QP_CREATE_BLOCK_SELF_MCAST_LB | IBV_QP_CREATE_SCATTER_FCS | \
	 IBV_QP_CREATE_CVLAN_STRIPPING | IBV_QP_CREATE_SOURCE_QPN |      \
	 IBV_QP_CREATE_PCI_WRITE_END_PADDING | (1u << 2) | (1u << 3) |   \
	 (1u << 4))

int ik_cmd_ex_create_qp(struct ik_cmd *c)
{
	struct ib_uverbs_ex_create_qp_resp *r = c->resp;
	struct ib_uverbs_ex_create_qp cmd;
	struct qp_args a;
	int rc;

	ik_core_req_copy(c, &cmd, sizeof(cmd));
	if (cmd.comp_mask & ~(uint32_t)IB_UVERBS_CREATE_QP_SUP_COMP_MASK)
		return -EINVAL;
	if (cmd.create_flags & ~(uint32_t)IK_QP_CREATE_CORE_FLAGS)
		return -EINVAL;
	if (cmd.comp_mask & IB_UVERBS_CREATE_QP_MASK_IND_TABLE)
		return -EINVAL; /* no RWQ indirection tables exist */
	if (cmd.create_flags)
		return -EOPNOTSUPP; /* ionic implements none */
	a = QP_ARGS(cmd);
	rc = qp_create(c, &a, &r->base);
	if (rc)
		return rc;
	r->comp_mask = 0;
	r->response_length = ik_ex_resp_len(c, sizeof(*r));
	return 0;
}

int ik_cmd_query_qp(struct ik_cmd *c)
{
	const struct ib_uverbs_query_qp *cmd = c->req;
	struct ib_uverbs_query_qp_resp *r = c->resp;
	struct idev_qp_attr da;
	struct ik_qp *qp;
	uint32_t qkey_dest;
	int rc;

	qp = ik_handle_get(c->f, cmd->qp_handle, IK_UOBJ_QP);
	if (!qp)
		return -EINVAL;
	rc = ik_admin_ok(c->f, IK_ADMIN_QUERY_QP);
	if (rc)
		return rc;
	/* admin QUERY_QP: the state is the device's */
	rc = idev_qp_query(c->nic->dev, qp->qpn, &da);
	if (rc)
		return -EINVAL;
	if (qp->av_valid) {
		/* rebuilt from the cached header template */
		memcpy(r->dest.dgid, qp->av.dgid, 16);
		r->dest.flow_label = qp->av.flow_label;
		r->dest.sgid_index = qp->av.sgid_index;
		r->dest.hop_limit = qp->av.hop_limit;
		r->dest.traffic_class = qp->av.traffic_class;
		r->dest.sl = qp->av.sl;
		r->dest.is_global = 1;
		r->dest.port_num = 1;
	}
	qp_caps(qp, &r->max_send_wr, &r->max_recv_wr, &r->max_send_sge,
		&r->max_recv_sge, &r->max_inline_data);
	/* one firmware field holds the dest QPN (RC/UC) or the qkey (UD) and
	 * the driver reports it as both */
	qkey_dest = qp->type == IBV_QPT_UD ? qp->qkey : qp->dest_qpn;
	r->qkey = qkey_dest;
	r->dest_qp_num = qkey_dest;
	r->rq_psn = qp->rq_psn;
	r->sq_psn = qp->sq_psn;
	r->qp_access_flags = qp->access_flags;
	r->pkey_index = 0;
	r->qp_state = da.state;
	r->cur_qp_state = da.state;
	r->path_mtu = qp->path_mtu;
	r->path_mig_state = IBV_MIG_MIGRATED;
	r->sq_draining = da.sq_draining;
	r->max_rd_atomic = (uint8_t)((1u << qp->rrq_depth) - 1);
	r->max_dest_rd_atomic = (uint8_t)((1u << qp->rsq_depth) - 1);
	r->min_rnr_timer = qp->min_rnr_timer;
	r->port_num = IK_QUERY_QP_PORT_NUM;
	r->timeout = qp->timeout;
	r->retry_cnt = qp->retry_cnt;
	r->rnr_retry = qp->rnr_retry;
	r->sq_sig_all = qp->sq_sig_all;
	KNOTE(c, "qpn=%u state=%u mask=0x%x", qp->qpn, da.state,
	      cmd->attr_mask);
	return 0;
}

int ik_cmd_destroy_qp(struct ik_cmd *c)
{
	const struct ib_uverbs_destroy_qp *cmd = c->req;
	struct ib_uverbs_destroy_qp_resp *r = c->resp;
	struct ik_qp *qp;
	int rc;

	qp = ik_handle_get(c->f, cmd->qp_handle, IK_UOBJ_QP);
	if (!qp)
		return -EINVAL;
	rc = ik_admin_ok(c->f, IK_ADMIN_DESTROY_QP);
	if (rc)
		return rc;
	/* admin DESTROY_QP first: no event can follow the count */
	idev_qp_destroy(c->nic->dev, qp->qpn);
	qp->dev_live = false;
	ik_evq_drop_unread(&c->f->async_q,
			   sizeof(struct ib_uverbs_async_event_desc),
			   qp->uobj.user_handle, &qp->events_reported);
	r->events_reported = qp->events_reported;
	KNOTE(c, "qp_handle=%u qpn=%u events=%u", qp->uobj.handle, qp->qpn,
	      r->events_reported);
	ik_qp_free(c->f, qp);
	return 0;
}
