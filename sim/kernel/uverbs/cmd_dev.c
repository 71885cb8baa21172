// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: context, device and port commands
 * (docs/kernel-contract.md §2, §3, §6; IB core copy_query_dev_fields and
 * make_port_cap_flags).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/sys.h"
#include "../kpriv.h"

void ik_ctx_resp_fill(const struct ik_file *f, struct ionic_ctx_resp *dr)
{
	const struct isim_profile *p = &f->nic->prof;

	memset(dr, 0, sizeof(*dr));
	for (const struct ik_mmap_entry *e = f->mmaps; e; e = e->next)
		if (e->kind == IK_MMAP_PHC)
			dr->phc_offset = e->pgoff << IK_PAGE_SHIFT;
	dr->page_shift = IK_PAGE_SHIFT;
	dr->dbell_offset = 0; /* BAR1 is page aligned */
	dr->version = p->version;
	dr->qp_opcodes = p->qp_opcodes;
	dr->admin_opcodes = p->admin_opcodes;
	dr->sq_qtype = p->sq_qtype;
	dr->rq_qtype = p->rq_qtype;
	dr->cq_qtype = p->cq_qtype;
	dr->admin_qtype = p->admin_qtype;
	dr->max_stride = p->max_stride;
	dr->max_spec = p->max_spec;
	dr->udma_count = p->udma_count;
	dr->expdb_mask = p->expdb_mask;
	dr->expdb_qtypes = p->expdb_qtypes;
}

int ik_cmd_get_context(struct ik_cmd *c)
{
	struct ib_uverbs_get_context_resp *r = c->resp;
	struct ik_file *f = c->f;
	struct ik_nic *nic = c->nic;
	const struct isim_profile *p = &nic->prof;
	struct ionic_ctx_resp dr;
	struct ionic_ctx_req req;
	uint64_t pgoff;
	int64_t dbid;
	int rc;

	if (f->has_ucontext)
		return -EINVAL; /* one ucontext per file */
	rc = ik_udata_in(c, &req, sizeof(req));
	if (rc)
		return rc;
	dbid = ik_ida_alloc(&nic->dbid_ida);
	if (dbid < 0)
		return (int)dbid;
	rc = ik_evq_create(&f->async_q);
	if (rc)
		goto err_dbid;
	/* first entry of an empty table: the doorbell page is pgoff 0 */
	rc = ik_mmap_insert(f, IK_MMAP_DBELL, 1, &pgoff);
	if (rc)
		goto err_evq;
	if (p->phc) {
		rc = ik_mmap_insert(f, IK_MMAP_PHC, 1, &pgoff);
		if (rc)
			goto err_mmap;
		ik_phc_update(nic);
	}
	f->dbid = (uint32_t)dbid;
	f->has_ucontext = true;

	r->async_fd = (uint32_t)f->async_q.rd;
	r->num_comp_vectors = p->eq_count - 2;

	ik_ctx_resp_fill(f, &dr);
	ik_udata_out(c, &dr, sizeof(dr));
	KNOTE(c,
	      "async_fd=%d num_comp_vectors=%u dbid=%u version=%u phc_offset=%llu",
	      f->async_q.rd, r->num_comp_vectors, f->dbid, dr.version,
	      (unsigned long long)dr.phc_offset);
	return 0;

err_mmap:
	ik_mmap_clear(f);
err_evq:
	ik_evq_close(&f->async_q);
	isim_sys_close(f->async_q.rd);
	f->async_q.rd = -1;
err_dbid:
	ik_ida_free(&nic->dbid_ida, (uint32_t)dbid);
	return rc;
}

static uint32_t dev_max_sge(const struct isim_profile *p)
{
	uint32_t n = p->max_stride >= 6 ? ((1u << p->max_stride) - 32) / 16 : 0;

	return n < IK_MAX_SGE_CAP ? n : IK_MAX_SGE_CAP;
}

static void fill_device(struct ik_nic *nic,
			struct ib_uverbs_query_device_resp *r)
{
	const struct isim_profile *p = &nic->prof;
	/* the EUI-64 of the netdev MAC (addrconf_ifid_eui48), big endian:
	 * the interface id of the link-local GID, as in sysfs node_guid */
	const uint8_t *guid = &nic->gid[0][8];

	r->fw_ver = 0;
	memcpy(&r->node_guid, guid, 8);
	memcpy(&r->sys_image_guid, guid, 8);
	r->max_mr_size = (uint64_t)p->npts * IK_PAGE_SIZE / 2;
	r->page_size_cap = 0x40201000; /* 4K | 2M | 1G before RDMA v2.1 */
	r->vendor_id = IK_VENDOR_ID;
	r->vendor_part_id = p->vendor_part_id;
	r->hw_ver = p->hw_rev;
	r->max_qp = p->qp_count;
	r->max_qp_wr = IK_MAX_DEPTH;
	r->device_cap_flags = IK_DEV_CAPS;
	r->max_sge = dev_max_sge(p);
	r->max_sge_rd = r->max_sge;
	r->max_cq = p->cq_count / (p->udma_count ? p->udma_count : 2);
	r->max_cqe = IK_MAX_CQE;
	r->max_mr = p->nmrs;
	r->max_pd = IK_MAX_PD;
	r->max_qp_rd_atom = IK_MAX_RD_ATOM;
	r->max_res_rd_atom = IK_MAX_RD_ATOM;
	r->max_qp_init_rd_atom = IK_MAX_RD_ATOM;
	r->atomic_cap = IBV_ATOMIC_GLOB;
	r->max_mw = p->nmrs;
	r->max_ah = p->nahs;
	r->max_pkeys = 1;
	r->local_ca_ack_delay = 0;
	r->phys_port_cnt = 1;
}

int ik_cmd_query_device(struct ik_cmd *c)
{
	/* the legacy command answers from the cached device attributes
	 * without calling the driver, so no udata rule applies */
	fill_device(c->nic, c->resp);
	KNOTE(c, "vendor=0x%x part=0x%x max_qp=%u max_sge=%u", IK_VENDOR_ID,
	      c->nic->prof.vendor_part_id, c->nic->prof.qp_count,
	      dev_max_sge(&c->nic->prof));
	return 0;
}

int ik_cmd_ex_query_device(struct ik_cmd *c)
{
	struct ib_uverbs_ex_query_device_resp *r = c->resp;
	struct ib_uverbs_ex_query_device cmd;
	int rc;

	ik_core_req_copy(c, &cmd, sizeof(cmd));
	if (cmd.comp_mask || cmd.reserved)
		return -EINVAL;
	rc = ik_udata_empty(c); /* ionic_query_device: ib_no_udata_io */
	if (rc)
		return rc;
	fill_device(c->nic, &r->base);
	r->comp_mask = 0;
	r->response_length = ik_ex_resp_len(c, sizeof(*r));
	r->device_cap_flags_ex = IK_DEV_CAPS;
	KNOTE(c, "response_length=%u", r->response_length);
	return 0;
}

/* iboe_get_mtu: the IB MTU that fits a netdev MTU after RoCE headers. */
static uint8_t iboe_mtu(uint32_t mtu)
{
	/* GRH 40 + UDP 8 + BTH 12 + XRC 4 + AtomicETH 28 + ICRC 4 */
	mtu = mtu > 96 ? mtu - 96 : 0;
	if (mtu >= 4096)
		return IBV_MTU_4096;
	if (mtu >= 2048)
		return IBV_MTU_2048;
	if (mtu >= 1024)
		return IBV_MTU_1024;
	if (mtu >= 512)
		return IBV_MTU_512;
	if (mtu >= 256)
		return IBV_MTU_256;
	return 0;
}

int ik_cmd_query_port(struct ik_cmd *c)
{
	const struct ib_uverbs_query_port *cmd = c->req;
	struct ib_uverbs_query_port_resp *r = c->resp;
	const struct isim_profile *p = &c->nic->prof;
	uint8_t max_mtu, act;

	if (cmd->port_num != 1)
		return -EINVAL; /* rdma_is_port_valid */
	max_mtu = iboe_mtu(IK_NETDEV_MAX_MTU);
	act = iboe_mtu(p->netdev_mtu);
	if (act > max_mtu)
		act = max_mtu;
	/* make_port_cap_flags: ip_gids adds IP_BASED_GIDS */
	r->port_cap_flags = IBV_PORT_IP_BASED_GIDS;
	r->max_msg_sz = 0x80000000;
	r->gid_tbl_len = IK_GID_TBL_LEN;
	r->pkey_tbl_len = 1;
	r->lid = 0;
	r->sm_lid = 0;
	if (p->port_up && !c->nic->link_down) {
		r->state = IBV_PORT_ACTIVE;
		r->phys_state = 5; /* LINK_UP */
	} else {
		r->state = IBV_PORT_DOWN;
		r->phys_state = 2; /* POLLING: running, no carrier */
	}
	r->max_mtu = max_mtu;
	r->active_mtu = act;
	r->max_vl_num = 1;
	/* ib_get_eth_speed for a 100G netdev: 4X EDR */
	r->active_width = 2; /* IB_WIDTH_4X */
	r->active_speed = 32; /* IB_SPEED_EDR */
	r->link_layer = IBV_LINK_LAYER_ETHERNET;
	KNOTE(c, "port=1 state=%u active_mtu=%u", r->state, act);
	return 0;
}

int ik_cmd_create_comp_channel(struct ik_cmd *c)
{
	struct ib_uverbs_create_comp_channel_resp *r = c->resp;
	struct ik_file *f = c->f;
	struct ik_event_queue *q, **t;
	int rc;

	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	rc = ik_evq_create(q);
	if (rc) {
		free(q);
		return rc;
	}
	if (ik_caller) {
		/* the read end goes to the importer (closed here); the
		 * number it has there names the channel in its CREATE_CQ */
		rc = ik_channel_to_caller(q->rd);
		if (rc < 0) {
			ik_evq_close(q);
			free(q);
			return rc;
		}
		q->rd = rc;
		q->remote = true;
	}
	pthread_mutex_lock(&f->nic->chan_lock);
	t = realloc(f->channels, (f->nchannels + 1) * sizeof(*t));
	if (t) {
		f->channels = t;
		f->channels[f->nchannels++] = q;
		__atomic_add_fetch(&f->nic->nchannels, 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&f->nic->chan_lock);
	if (!t) {
		ik_evq_close(q);
		if (!q->remote)
			isim_sys_close(q->rd);
		free(q);
		return -ENOMEM;
	}
	r->fd = (uint32_t)q->rd;
	KNOTE(c, "fd=%d", q->rd);
	return 0;
}
