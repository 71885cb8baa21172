// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: completion queues (docs/kernel-contract.md §8).  One
 * verbs CQ is a "virtual CQ" backed by one hardware CQ per UDMA pipeline
 * in its mask; each hardware CQ is a ring in user memory described by an
 * ionic_qdesc.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kpriv.h"

/* ionic_validate_qdesc, plus the pinning ib_umem_get would do. */
int ik_qdesc_check(const struct ionic_qdesc *q)
{
	if (!q->addr || (q->addr & (IK_PAGE_SIZE - 1)))
		return -EINVAL;
	if (!q->size || !q->mask || !q->depth_log2 || !q->stride_log2)
		return -EINVAL;
	if (q->depth_log2 > 16 || q->stride_log2 > 16)
		return -EINVAL; /* mask is 16 bits; no larger stride exists */
	if (q->mask != (1u << q->depth_log2) - 1)
		return -EINVAL;
	if (q->size < (1ull << (q->depth_log2 + q->stride_log2)))
		return -EINVAL;
	/* an importer's range is checked when it pins it (ik_pin_user) */
	if (!ik_caller && !ik_user_mapped(q->addr, q->size))
		return -EFAULT;
	return 0;
}

void ik_cq_free(struct ik_file *f, struct ik_cq *cq)
{
	struct ik_nic *nic = f->nic;

	/* ionic_destroy_cq handles the UDMAs in descending order */
	for (int i = 1; i >= 0; i--) {
		struct ik_hwcq *hw = &cq->hw[i];

		if (!hw->present)
			continue;
		idev_cq_destroy(nic->dev, hw->cqid);
		if (hw->cqid < nic->cqid_limit && nic->cqs[hw->cqid] == cq)
			nic->cqs[hw->cqid] = NULL;
		ik_ida_free(&nic->cq_ida[i], ik_udma_idx(nic, hw->cqid));
		hw->present = false;
	}
	/* the device has let go of the rings */
	ik_unpin(&cq->hw[0].ring);
	ik_unpin(&cq->hw[1].ring);
	if (cq->channel)
		ik_channel_put(f, cq->channel);
	ik_handle_del(f, &cq->uobj);
	free(cq);
}

/* Admin CREATE_CQ for one hardware CQ. */
static int cq_dev_create(struct ik_file *f, const struct ik_hwcq *hw,
			 const struct ionic_qdesc *q)
{
	struct idev_cq_create dc = {
		.cqid = hw->cqid,
		.eqid = hw->eqid,
		.dbid = f->dbid,
		.ring = {
			.addr = hw->ring.addr,
			.mask = q->mask,
			.depth_log2 = q->depth_log2,
			.stride_log2 = q->stride_log2,
			.share = hw->ring.share,
		},
	};

	return idev_cq_create(f->nic->dev, &dc);
}

static int cq_create(struct ik_cmd *c, uint64_t user_handle, uint32_t cqe,
		     uint32_t comp_vector, int32_t comp_channel, uint32_t flags,
		     struct ib_uverbs_create_cq_resp *r)
{
	struct ik_nic *nic = c->nic;
	const struct isim_profile *p = &nic->prof;
	struct ik_event_queue *ch = NULL;
	struct ionic_cq_resp dr;
	struct ionic_cq_req req;
	struct ik_cq *cq;
	uint8_t mask;
	int rc;

	/* IB core (create_cq in uverbs_cmd.c) */
	if (comp_vector >= p->eq_count - 2)
		return -EINVAL;
	if (comp_channel >= 0) {
		ch = ik_file_channel(c->f, comp_channel);
		if (!ch)
			return -EBADF; /* not a completion channel of ours */
	}
	/* ionic_create_cq */
	if (flags)
		return -EOPNOTSUPP;
	rc = ik_udata_in(c, &req, sizeof(req));
	if (rc)
		return rc;
	mask = req.udma_mask & ik_udma_all(nic);
	if (!mask)
		return -EINVAL;
	if (cqe < 1 || cqe > IK_MAX_CQE)
		return -EINVAL;
	rc = ik_admin_ok(c->f, IK_ADMIN_CREATE_CQ);
	if (rc)
		return rc;
	for (int i = 0; i < 2; i++) {
		if (!(mask & (1u << i)))
			continue;
		rc = ik_qdesc_check(&req.cq[i]);
		/* pinned with IB_ACCESS_LOCAL_WRITE: the device writes CQEs
		 * there, so a read-only ring is EFAULT, not a fault later in
		 * the engine thread */
		if (!rc)
			rc = ik_user_writable(req.cq[i].addr, req.cq[i].size);
		if (rc)
			return rc;
	}

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return -ENOMEM;
	cq->uobj.user_handle = user_handle;
	cq->channel = ch;
	if (ch)
		ik_channel_get(ch);
	cq->cqe = cqe;
	cq->comp_vector = comp_vector;
	cq->udma_mask = mask;
	for (int i = 0; i < 2; i++) {
		struct ik_hwcq *hw = &cq->hw[i];
		int64_t idx;

		if (!(mask & (1u << i)))
			continue;
		idx = ik_ida_alloc(&nic->cq_ida[i]);
		if (idx < 0) {
			rc = (int)idx;
			goto err;
		}
		hw->udma = (uint8_t)i;
		hw->cqid = ik_udma_qid(nic, (unsigned int)i, (uint32_t)idx);
		/* EQs 0 and 1 carry async events; completion vectors map to
		 * the pairs after them, one EQ per UDMA */
		hw->eqid = ((comp_vector % (p->eq_count / 2 - 1)) + 1) * 2 + i;
		rc = ik_pin_user(req.cq[i].addr, req.cq[i].size, &hw->ring);
		if (!rc)
			ik_ring_share(nic, &hw->ring, req.cq[i].size, "cq");
		if (!rc)
			rc = cq_dev_create(c->f, hw, &req.cq[i]);
		if (rc) {
			ik_ida_free(&nic->cq_ida[i], (uint32_t)idx);
			goto err;
		}
		hw->present = true;
		nic->cqs[hw->cqid] = cq;
	}
	rc = ik_handle_add(c->f, &cq->uobj, IK_UOBJ_CQ);
	if (rc)
		goto err;

	r->cq_handle = cq->uobj.handle;
	r->cqe = cqe;
	memset(&dr, 0, sizeof(dr));
	dr.cqid[0] = cq->hw[0].present ? cq->hw[0].cqid : 0;
	dr.cqid[1] = cq->hw[1].present ? cq->hw[1].cqid : 0;
	dr.udma_mask = mask;
	ik_udata_out(c, &dr, sizeof(dr));
	KNOTE(c,
	      "cq_handle=%u cqe=%u vector=%u channel=%d mask=%u cqid=%u/%u depth_log2=%u/%u",
	      cq->uobj.handle, cqe, comp_vector, comp_channel, mask, dr.cqid[0],
	      dr.cqid[1], req.cq[0].depth_log2, req.cq[1].depth_log2);
	return 0;
err:
	cq->uobj.handle = UINT32_MAX;
	ik_cq_free(c->f, cq);
	return rc;
}

int ik_cmd_create_cq(struct ik_cmd *c)
{
	const struct ib_uverbs_create_cq *cmd = c->req;

	return cq_create(c, cmd->user_handle, cmd->cqe, cmd->comp_vector,
			 cmd->comp_channel, 0, c->resp);
}

int ik_cmd_ex_create_cq(struct ik_cmd *c)
{
	struct ib_uverbs_ex_create_cq_resp *r = c->resp;
	struct ib_uverbs_ex_create_cq cmd;
	int rc;

	ik_core_req_copy(c, &cmd, sizeof(cmd));
	if (cmd.comp_mask || cmd.reserved)
		return -EINVAL;
	rc = cq_create(c, cmd.user_handle, cmd.cqe, cmd.comp_vector,
		       cmd.comp_channel, cmd.flags, &r->base);
	if (rc)
		return rc;
	r->comp_mask = 0;
	r->response_length = ik_ex_resp_len(c, sizeof(*r));
	return 0;
}

int ik_cmd_destroy_cq(struct ik_cmd *c)
{
	const struct ib_uverbs_destroy_cq *cmd = c->req;
	struct ib_uverbs_destroy_cq_resp *r = c->resp;
	struct ik_cq *cq;
	int rc;

	cq = ik_handle_get(c->f, cmd->cq_handle, IK_UOBJ_CQ);
	if (!cq)
		return -EINVAL;
	if (cq->usecnt)
		return -EBUSY; /* QPs still complete into it */
	rc = ik_admin_ok(c->f, IK_ADMIN_DESTROY_CQ);
	if (rc)
		return rc;
	/* stop the device first so no event follows the count */
	for (int i = 1; i >= 0; i--)
		if (cq->hw[i].present)
			idev_cq_destroy(c->nic->dev, cq->hw[i].cqid);
	for (int i = 0; i < 2; i++)
		if (cq->hw[i].present) {
			cq->hw[i].present = false;
			c->nic->cqs[cq->hw[i].cqid] = NULL;
			ik_ida_free(&c->nic->cq_ida[i],
				    ik_udma_idx(c->nic, cq->hw[i].cqid));
		}
	/* unread events are dropped and not reported (kernel semantics) */
	ik_evq_drop_unread(cq->channel,
			   sizeof(struct ib_uverbs_comp_event_desc),
			   cq->uobj.user_handle, &cq->comp_events_reported);
	ik_evq_drop_unread(&c->f->async_q,
			   sizeof(struct ib_uverbs_async_event_desc),
			   cq->uobj.user_handle, &cq->async_events_reported);
	r->comp_events_reported = cq->comp_events_reported;
	r->async_events_reported = cq->async_events_reported;
	KNOTE(c, "cq_handle=%u comp_events=%u async_events=%u", cq->uobj.handle,
	      r->comp_events_reported, r->async_events_reported);
	ik_cq_free(c->f, cq);
	return 0;
}
