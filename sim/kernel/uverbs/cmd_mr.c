// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: protection domains, memory regions, memory
 * windows and address handles (docs/kernel-contract.md §7, §10, §11; IB core
 * ib_check_mr_access, rdma_check_ah_attr).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kpriv.h"

/* ---- PD ------------------------------------------------------------------ */

int ik_cmd_alloc_pd(struct ik_cmd *c)
{
	struct ib_uverbs_alloc_pd_resp *r = c->resp;
	struct ik_pd *pd;
	int64_t id;
	int rc;

	rc = ik_udata_empty(c);
	if (rc)
		return rc;
	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return -ENOMEM;
	id = ik_ida_alloc(&c->nic->pd_ida);
	if (id < 0) {
		free(pd);
		return (int)id;
	}
	pd->pdid = (uint32_t)id;
	rc = ik_handle_add(c->f, &pd->uobj, IK_UOBJ_PD);
	if (rc) {
		ik_ida_free(&c->nic->pd_ida, pd->pdid);
		free(pd);
		return rc;
	}
	r->pd_handle = pd->uobj.handle;
	KNOTE(c, "pd_handle=%u pdid=%u", pd->uobj.handle, pd->pdid);
	return 0;
}

void ik_pd_free(struct ik_file *f, struct ik_pd *pd)
{
	ik_ida_free(&f->nic->pd_ida, pd->pdid);
	ik_handle_del(f, &pd->uobj);
	free(pd);
}

int ik_cmd_dealloc_pd(struct ik_cmd *c)
{
	const struct ib_uverbs_dealloc_pd *cmd = c->req;
	struct ik_pd *pd;
	int rc;

	pd = ik_handle_get(c->f, cmd->pd_handle, IK_UOBJ_PD);
	if (!pd)
		return -EINVAL;
	rc = ik_udata_empty(c);
	if (rc)
		return rc;
	if (pd->usecnt)
		return -EBUSY; /* ib_destroy_usecnt */
	KNOTE(c, "pd_handle=%u pdid=%u", pd->uobj.handle, pd->pdid);
	ik_pd_free(c->f, pd);
	return 0;
}

/* ---- MR / MW ------------------------------------------------------------- */

/* IB_ACCESS_SUPPORTED: bits up to FLUSH_PERSISTENT plus the optional
 * range 20..29 */
#define IK_ACCESS_SUPPORTED (0x3ffu | 0x3ff00000u)
#define IK_ACCESS_ON_DEMAND (1u << 6)
#define IK_ACCESS_FLUSH (3u << 8)

static int check_mr_access(uint32_t flags)
{
	if ((flags & (IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_REMOTE_WRITE)) &&
	    !(flags & IBV_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	if (flags & ~IK_ACCESS_SUPPORTED)
		return -EINVAL;
	/* no ODP, no persistent-memory flush on ionic */
	if (flags & (IK_ACCESS_ON_DEMAND | IK_ACCESS_FLUSH))
		return -EOPNOTSUPP;
	return 0;
}

/* Take an MR index and the next device-wide key byte. */
static int mr_key_alloc(struct ik_nic *nic, struct ik_mr *mr)
{
	int64_t idx = ik_ida_alloc(&nic->mr_ida);

	if (idx < 0)
		return (int)idx;
	mr->index = (uint32_t)idx;
	mr->key = (mr->index << 8) | nic->next_key8;
	nic->next_key8++; /* wraps through 0..255 */
	return 0;
}

/* Admin CREATE_MR for a region or a window (va 0, length 0). */
static int mr_dev_create(struct ik_nic *nic, struct ik_mr *mr, uint8_t *host)
{
	struct idev_mr_create dc = {
		.key = mr->key,
		.kind = !mr->is_mw		     ? IDEV_MR_USER :
			mr->mw_type == IBV_MW_TYPE_1 ? IDEV_MW_TYPE1 :
						       IDEV_MW_TYPE2,
		.pdid = mr->pd->pdid,
		.access = mr->access,
		.iova = mr->iova,
		.length = mr->length,
		.host = host,
		.share = mr->share,
	};
	int rc = idev_mr_create(nic->dev, &dc);

	mr->dev_live = !rc;
	return rc;
}

/* Give a new MR or MW its key and its handle, make it a user of 'pd' and
 * program the device; on failure it is freed. */
static int mr_install(struct ik_cmd *c, struct ik_pd *pd, struct ik_mr *mr,
		      enum ik_uobj_type type, uint8_t *host)
{
	int rc;

	rc = mr_key_alloc(c->nic, mr);
	if (rc) {
		ik_mr_unshare(mr);
		free(mr);
		return rc;
	}
	rc = ik_handle_add(c->f, &mr->uobj, type);
	if (rc) {
		ik_mr_free(c->f, mr); /* no PD yet: none to give back */
		return rc;
	}
	mr->pd = pd;
	pd->usecnt++;
	rc = mr_dev_create(c->nic, mr, host);
	if (rc)
		ik_mr_free(c->f, mr);
	return rc;
}

/* DEREG_MR and DEALLOC_MW. */
static int mr_destroy(struct ik_cmd *c, uint32_t handle, enum ik_uobj_type type)
{
	struct ik_mr *mr;
	int rc;

	mr = ik_handle_get(c->f, handle, type);
	if (!mr)
		return -EINVAL;
	rc = ik_udata_empty(c);
	if (rc)
		return rc;
	if (type == IK_UOBJ_MW) {
		/* the key byte is the device's after a bind */
		KNOTE(c, "mw_handle=%u rkey=0x%x", mr->uobj.handle,
		      idev_mr_key(c->nic->dev, mr->index));
	} else {
		rc = ik_admin_ok(c->f, IK_ADMIN_DESTROY_MR);
		if (rc)
			return rc;
		KNOTE(c, "mr_handle=%u key=0x%x", mr->uobj.handle, mr->key);
	}
	ik_mr_free(c->f, mr);
	return 0;
}

void ik_mr_free(struct ik_file *f, struct ik_mr *mr)
{
	struct ik_nic *nic = f->nic;

	/* admin DESTROY_MR: the key stops working at once, windows bound
	 * to the region lose it */
	if (mr->dev_live)
		idev_mr_destroy(nic->dev, mr->key);
	mr->dev_live = false;
	ik_mr_unshare(mr);
	ik_ida_free(&nic->mr_ida, mr->index);
	if (mr->pd)
		mr->pd->usecnt--;
	ik_handle_del(f, &mr->uobj);
	free(mr);
}

int ik_cmd_reg_mr(struct ik_cmd *c)
{
	const struct ib_uverbs_reg_mr *cmd = c->req;
	struct ib_uverbs_reg_mr_resp *r = c->resp;
	struct ik_pd *pd;
	struct ik_mr *mr;
	int rc;

	if ((cmd->start & (IK_PAGE_SIZE - 1)) !=
	    (cmd->hca_va & (IK_PAGE_SIZE - 1)))
		return -EINVAL;
	rc = check_mr_access(cmd->access_flags);
	if (rc)
		return rc;
	pd = ik_handle_get(c->f, cmd->pd_handle, IK_UOBJ_PD);
	if (!pd)
		return -EINVAL;
	rc = ik_udata_empty(c);
	if (rc)
		return rc;
	rc = ik_admin_ok(c->f, IK_ADMIN_CREATE_MR);
	if (rc)
		return rc;
	/* ib_umem_get: no pages, or pages that cannot be pinned */
	if (!cmd->length || cmd->start + cmd->length < cmd->start)
		return -EINVAL;
	if (ik_caller)
		return IK_PIN_REMOTE_ERR;
	if (!ik_user_mapped(cmd->start, cmd->length))
		return -EFAULT;
	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return -ENOMEM;
	mr->access = cmd->access_flags;
	mr->iova = cmd->hca_va;
	mr->length = cmd->length;
	/* its pages to shared memory before the device knows the key */
	ik_mr_share(c->nic, mr, cmd->start, cmd->length);
	rc = mr_install(c, pd, mr, IK_UOBJ_MR,
			(uint8_t *)(uintptr_t)cmd->start);
	if (rc)
		return rc;
	r->mr_handle = mr->uobj.handle;
	r->lkey = mr->key;
	r->rkey = mr->key;
	KNOTE(c, "mr_handle=%u key=0x%x iova=0x%llx len=%llu access=0x%x",
	      mr->uobj.handle, mr->key, (unsigned long long)mr->iova,
	      (unsigned long long)mr->length, mr->access);
	return 0;
}

int ik_cmd_dereg_mr(struct ik_cmd *c)
{
	const struct ib_uverbs_dereg_mr *cmd = c->req;

	return mr_destroy(c, cmd->mr_handle, IK_UOBJ_MR);
}

int ik_cmd_alloc_mw(struct ik_cmd *c)
{
	const struct ib_uverbs_alloc_mw *cmd = c->req;
	struct ib_uverbs_alloc_mw_resp *r = c->resp;
	struct ik_pd *pd;
	struct ik_mr *mw;
	int rc;

	if (cmd->mw_type != IBV_MW_TYPE_1 && cmd->mw_type != IBV_MW_TYPE_2)
		return -EINVAL;
	pd = ik_handle_get(c->f, cmd->pd_handle, IK_UOBJ_PD);
	if (!pd)
		return -EINVAL;
	rc = ik_udata_empty(c);
	if (rc)
		return rc;
	rc = ik_admin_ok(c->f, IK_ADMIN_CREATE_MR);
	if (rc)
		return rc;
	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return -ENOMEM;
	mw->is_mw = true;
	mw->mw_type = cmd->mw_type; /* usable only once bound */
	rc = mr_install(c, pd, mw, IK_UOBJ_MW, NULL);
	if (rc)
		return rc;
	r->mw_handle = mw->uobj.handle;
	r->rkey = mw->key;
	KNOTE(c, "mw_handle=%u type=%u rkey=0x%x", mw->uobj.handle, mw->mw_type,
	      mw->key);
	return 0;
}

int ik_cmd_dealloc_mw(struct ik_cmd *c)
{
	const struct ib_uverbs_dealloc_mw *cmd = c->req;

	/* ionic_dealloc_mw: no admin check, unlike DEREG_MR */
	return mr_destroy(c, cmd->mw_handle, IK_UOBJ_MW);
}

/* ---- AH ------------------------------------------------------------------ */

int ik_av_from_uverbs(struct ik_nic *nic, struct ik_av *av,
		      const uint8_t dgid[16], uint32_t flow_label,
		      uint8_t sgid_index, uint8_t hop_limit, uint8_t tclass,
		      uint8_t sl, uint8_t static_rate, uint8_t is_global,
		      uint8_t port_num)
{
	(void)nic;
	if (port_num != 1)
		return -EINVAL; /* rdma_is_port_valid */
	if (!is_global)
		return -EINVAL; /* rdma_check_ah_attr: RoCE needs a GRH */
	/* rdma_get_gid_attr: only the populated GID entries resolve */
	if (sgid_index >= IK_NUM_GIDS)
		return -ENODATA;
	memset(av, 0, sizeof(*av));
	memcpy(av->dgid, dgid, 16);
	av->flow_label = flow_label & 0xfffff;
	av->sgid_index = sgid_index;
	av->hop_limit = hop_limit;
	av->traffic_class = tclass;
	av->sl = sl;
	av->static_rate = static_rate;
	av->port_num = port_num;
	av->is_global = true;
	return 0;
}

void ik_av_to_dev(const struct ik_av *av, struct idev_av *d)
{
	memset(d, 0, sizeof(*d));
	memcpy(d->dgid, av->dgid, 16);
	d->flow_label = av->flow_label;
	d->sgid_index = av->sgid_index;
	d->hop_limit = av->hop_limit;
	d->traffic_class = av->traffic_class;
	d->sl = av->sl;
}

void ik_ah_free(struct ik_file *f, struct ik_ah *ah)
{
	if (ah->dev_live)
		idev_ah_destroy(f->nic->dev, ah->ahid);
	ah->dev_live = false;
	ik_ida_free(&f->nic->ah_ida, ah->ahid);
	if (ah->pd)
		ah->pd->usecnt--;
	ik_handle_del(f, &ah->uobj);
	free(ah);
}

/* Admin CREATE_AH: the header template of a user AH. */
static int ah_dev_create(struct ik_nic *nic, struct ik_ah *ah)
{
	struct idev_ah_create dc = {
		.ahid = ah->ahid,
		.pdid = ah->pd->pdid,
	};
	int rc;

	ik_av_to_dev(&ah->av, &dc.av);
	rc = idev_ah_create(nic->dev, &dc);
	ah->dev_live = !rc;
	return rc;
}

int ik_cmd_create_ah(struct ik_cmd *c)
{
	const struct ib_uverbs_create_ah *cmd = c->req;
	struct ib_uverbs_create_ah_resp *r = c->resp;
	const struct ib_uverbs_ah_attr *a = &cmd->attr;
	struct ionic_ah_resp dr;
	struct ik_av av;
	struct ik_pd *pd;
	struct ik_ah *ah;
	int64_t id;
	int rc;

	if (a->port_num != 1)
		return -EINVAL;
	pd = ik_handle_get(c->f, cmd->pd_handle, IK_UOBJ_PD);
	if (!pd)
		return -EINVAL;
	rc = ik_av_from_uverbs(c->nic, &av, a->grh.dgid, a->grh.flow_label,
			       a->grh.sgid_index, a->grh.hop_limit,
			       a->grh.traffic_class, a->sl, a->static_rate,
			       a->is_global, a->port_num);
	if (rc)
		return rc;
	rc = ik_udata_empty(c); /* ib_is_udata_in_empty */
	if (rc)
		return rc;
	rc = ik_admin_ok(c->f, IK_ADMIN_CREATE_AH);
	if (rc)
		return rc;
	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return -ENOMEM;
	id = ik_ida_alloc(&c->nic->ah_ida);
	if (id < 0) {
		free(ah);
		return (int)id;
	}
	ah->ahid = (uint32_t)id;
	ah->av = av;
	ah->uobj.user_handle = cmd->user_handle;
	rc = ik_handle_add(c->f, &ah->uobj, IK_UOBJ_AH);
	if (rc) {
		ik_ida_free(&c->nic->ah_ida, ah->ahid);
		free(ah);
		return rc;
	}
	ah->pd = pd;
	pd->usecnt++;
	rc = ah_dev_create(c->nic, ah);
	if (rc) {
		ik_ah_free(c->f, ah);
		return rc;
	}
	r->ah_handle = ah->uobj.handle;
	memset(&dr, 0, sizeof(dr));
	dr.ahid = ah->ahid;
	ik_udata_out(c, &dr, sizeof(dr));
	KNOTE(c, "ah_handle=%u ahid=%u sgid_index=%u", ah->uobj.handle,
	      ah->ahid, av.sgid_index);
	return 0;
}

int ik_cmd_destroy_ah(struct ik_cmd *c)
{
	const struct ib_uverbs_destroy_ah *cmd = c->req;
	struct ik_ah *ah;

	ah = ik_handle_get(c->f, cmd->ah_handle, IK_UOBJ_AH);
	if (!ah)
		return -EINVAL;
	KNOTE(c, "ah_handle=%u ahid=%u", ah->uobj.handle, ah->ahid);
	/* ionic_destroy_ah always reports success */
	ik_ah_free(c->f, ah);
	return 0;
}
