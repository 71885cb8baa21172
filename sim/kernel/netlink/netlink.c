// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: RDMA netlink, the NLDEV client of the kernel's
 * NETLINK_RDMA socket (docs/kernel-contract.md §19): what libibverbs
 * discovers devices with, and what iproute2's `rdma` shows.
 *
 * Framing follows the netlink core: every message of a datagram is
 * handled in turn; a dump answers with NLM_F_MULTI messages and
 * NLMSG_DONE (whose payload carries a dump's error), a request answers
 * with its data and, if it asked (NLM_F_ACK) or failed, an NLMSG_ERROR.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <rdma/rdma_netlink.h>
#include <rdma/rdma_user_cm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../kpriv.h"
#include "nlmsg.h"
#include "../restrack.h"

#define NLDEV_MAX (RDMA_NLDEV_ATTR_MAX - 1)
#define NLDEV_TYPE(op) RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op)
/* nldev_policy: the client names are at most this long */
#define IK_NL_CHARDEV_TYPE_SIZE 32

/* One request being answered. */
struct nl_req {
	const struct ik_nl_sock *s;
	const struct nlmsghdr *nlh;
	struct ik_nla_view tb[NLDEV_MAX + 1];
	ik_nl_emit_fn emit;
	void *ctx;
	struct ik_nlmsg *m; /* reply under construction */
	bool dump;
	unsigned int dev; /* the device the request named (req_dev) */
};

static void reply_start(struct nl_req *r, uint16_t op)
{
	ik_nlmsg_start(r->m, NLDEV_TYPE(op), r->dump ? NLM_F_MULTI : 0,
		       r->nlh->nlmsg_seq, r->s->portid);
}

static int reply_emit(struct nl_req *r)
{
	return ik_nlmsg_emit(r->m, r->emit, r->ctx);
}

/* fill_nldev_handle: NIC k is device index k */
static void put_handle(struct ik_nlmsg *m, unsigned int k)
{
	char name[16];

	snprintf(name, sizeof(name), IK_DEV_NAME, k);
	ik_nla_u32(m, RDMA_NLDEV_ATTR_DEV_INDEX, k);
	ik_nla_str(m, RDMA_NLDEV_ATTR_DEV_NAME, name);
}

/* The device index a request names, in r->dev: -ENODEV-style lookups
 * fail with EINVAL in nldev; 'required' says whether it must be there
 * (1 when it is not). */
static int req_dev(struct nl_req *r, bool required)
{
	uint32_t idx;

	r->dev = 0;
	if (!r->tb[RDMA_NLDEV_ATTR_DEV_INDEX].data)
		return required ? -EINVAL : 1;
	if (ik_nla_get_u32(&r->tb[RDMA_NLDEV_ATTR_DEV_INDEX], &idx) ||
	    idx >= ik_host_get()->nnics)
		return -EINVAL;
	r->dev = idx;
	return 0;
}

/* the node GUID as nldev sends it: be64_to_cpu of the GUID bytes */
static uint64_t node_guid(unsigned int k)
{
	const struct ik_host *h = ik_host_get();
	uint8_t gid[16];
	uint64_t v = 0;

	isim_node_gid(h->node[k], 0, gid);
	for (int i = 8; i < 16; i++)
		v = v << 8 | gid[i];
	return v;
}

/* fill_dev_info */
static void put_dev_info(struct ik_nlmsg *m, unsigned int k)
{
	const struct ik_host *h = ik_host_get();

	put_handle(m, k);
	ik_nla_u32(m, RDMA_NLDEV_ATTR_PORT_INDEX, 1); /* rdma_end_port */
	ik_nla_u64(m, RDMA_NLDEV_ATTR_CAP_FLAGS, IK_DEV_CAPS);
	if (h->prof.fw_ver[0])
		ik_nla_str(m, RDMA_NLDEV_ATTR_FW_VERSION, h->prof.fw_ver);
	ik_nla_u64(m, RDMA_NLDEV_ATTR_NODE_GUID, node_guid(k));
	ik_nla_u64(m, RDMA_NLDEV_ATTR_SYS_IMAGE_GUID, node_guid(k));
	ik_nla_u8(m, RDMA_NLDEV_ATTR_DEV_NODE_TYPE, 1); /* RDMA_NODE_IB_CA */
	ik_nla_u8(m, RDMA_NLDEV_ATTR_DEV_DIM, 0);
	ik_nla_str(m, RDMA_NLDEV_ATTR_DEV_PROTOCOL, "roce");
}

static int nldev_get(struct nl_req *r)
{
	int rc = req_dev(r, !r->dump);

	if (rc < 0)
		return rc;
	if (!r->dump) {
		reply_start(r, RDMA_NLDEV_CMD_GET);
		put_dev_info(r->m, r->dev);
		return reply_emit(r);
	}
	/* a dump lists every device, in index order */
	rc = 0;
	for (unsigned int k = 0; k < ik_host_get()->nnics && !rc; k++) {
		reply_start(r, RDMA_NLDEV_CMD_GET);
		put_dev_info(r->m, k);
		rc = reply_emit(r);
	}
	return rc;
}

/* fill_port_info; the doit reply has type GET, as the kernel's */
static int nldev_port_get(struct nl_req *r)
{
	const struct ik_host *h = ik_host_get();
	uint32_t port = 1;
	int rc;

	rc = req_dev(r, true);
	if (rc < 0)
		return rc;
	if (!r->dump) {
		if (ik_nla_get_u32(&r->tb[RDMA_NLDEV_ATTR_PORT_INDEX], &port) ||
		    port != 1)
			return -EINVAL;
	}
	reply_start(r, r->dump ? RDMA_NLDEV_CMD_PORT_GET : RDMA_NLDEV_CMD_GET);
	put_handle(r->m, r->dev);
	ik_nla_u32(r->m, RDMA_NLDEV_ATTR_PORT_INDEX, port);
	/* no CAP_FLAGS/LID/SM_LID/LMC: those are InfiniBand ports' */
	ik_nla_u8(r->m, RDMA_NLDEV_ATTR_PORT_STATE,
		  h->prof.port_up ? IBV_PORT_ACTIVE : IBV_PORT_DOWN);
	ik_nla_u8(r->m, RDMA_NLDEV_ATTR_PORT_PHYS_STATE,
		  h->prof.port_up ? 5 /* LINK_UP */ : 2 /* POLLING */);
	ik_nla_u32(r->m, RDMA_NLDEV_ATTR_NDEV_INDEX,
		   (uint32_t)h->netdev[r->dev].ifindex);
	ik_nla_str(r->m, RDMA_NLDEV_ATTR_NDEV_NAME, h->netdev[r->dev].name);
	return reply_emit(r);
}

/* stat_get_doit_default_counter: a port's hardware counters.  Per-QP
 * counters (STAT_RES) and their modes are not emulated. */
static int nldev_stat_get(struct nl_req *r)
{
	uint32_t port;
	uint64_t v;
	int rc;

	if (r->tb[RDMA_NLDEV_ATTR_STAT_RES].data)
		return -EOPNOTSUPP;
	if (r->dump)
		return -EINVAL; /* the kernel's dumpit needs STAT_RES */
	rc = req_dev(r, true);
	if (rc < 0)
		return rc;
	if (ik_nla_get_u32(&r->tb[RDMA_NLDEV_ATTR_PORT_INDEX], &port) ||
	    port != 1)
		return -EINVAL;
	reply_start(r, RDMA_NLDEV_CMD_STAT_GET);
	put_handle(r->m, r->dev);
	ik_nla_u32(r->m, RDMA_NLDEV_ATTR_PORT_INDEX, port);
	ik_nla_nest_start(r->m, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
	for (unsigned int i = 0; i < ik_hw_stats_count(); i++) {
		if (ik_hw_stat_get(r->dev, i, &v))
			continue;
		ik_nla_nest_start(r->m, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
		ik_nla_str(r->m, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME,
			   ik_hw_stat_name(i));
		ik_nla_u64(r->m, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, v);
		ik_nla_nest_end(r->m);
	}
	ik_nla_nest_end(r->m);
	return reply_emit(r);
}

/* nldev_get_chardev: "uverbs" of a device; other clients are not here */
static int nldev_get_chardev(struct nl_req *r)
{
	const struct ik_host *h = ik_host_get();
	char name[16];
	const char *type;
	int rc;

	if (ik_nla_get_str(&r->tb[RDMA_NLDEV_ATTR_CHARDEV_TYPE], &type,
			   IK_NL_CHARDEV_TYPE_SIZE))
		return -EINVAL;
	rc = req_dev(r, false);
	if (rc < 0)
		return rc;
	if (r->tb[RDMA_NLDEV_ATTR_PORT_INDEX].data && rc == 1)
		return -EINVAL; /* a port without a device */
	if (!strcmp(type, "rdma_cm")) {
		/* the rdma_ucm misc device: global, no per-device answer
		 * (ucma_get_global_nl_info only) */
		if (rc == 0)
			return -EOPNOTSUPP;
		reply_start(r, RDMA_NLDEV_CMD_GET_CHARDEV);
		ik_nla_u64(r->m, RDMA_NLDEV_ATTR_CHARDEV,
			   (IK_UCMA_CDEV_MINOR & 0xff) |
				   (IK_UCMA_CDEV_MAJOR << 8));
		ik_nla_u64(r->m, RDMA_NLDEV_ATTR_CHARDEV_ABI,
			   RDMA_USER_CM_ABI_VERSION);
		ik_nla_str(r->m, RDMA_NLDEV_ATTR_CHARDEV_NAME, "rdma_cm");
		return reply_emit(r);
	}
	if (strcmp(type, "uverbs"))
		return -EOPNOTSUPP; /* no such client (umad) */
	if (rc == 1 || r->tb[RDMA_NLDEV_ATTR_PORT_INDEX].data)
		return -EINVAL; /* uverbs is per device, not per port */
	reply_start(r, RDMA_NLDEV_CMD_GET_CHARDEV);
	ik_nla_u32(r->m, RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID,
		   IK_RDMA_DRIVER_IONIC);
	/* huge_encode_dev of the character device the fds really are
	 * (/dev/null, 1:3): open_cdev compares it with fstat's st_rdev */
	ik_nla_u64(r->m, RDMA_NLDEV_ATTR_CHARDEV,
		   (IK_CDEV_MINOR & 0xff) | (IK_CDEV_MAJOR << 8) |
			   ((uint64_t)(IK_CDEV_MINOR & ~0xffu) << 12));
	ik_nla_u64(r->m, RDMA_NLDEV_ATTR_CHARDEV_ABI, h->prof.abi_version);
	snprintf(name, sizeof(name), "uverbs%u", r->dev);
	ik_nla_str(r->m, RDMA_NLDEV_ATTR_CHARDEV_NAME, name);
	return reply_emit(r);
}

static int nldev_sys_get(struct nl_req *r)
{
	reply_start(r, RDMA_NLDEV_CMD_SYS_GET);
	ik_nla_u8(r->m, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, 1); /* shared */
	ik_nla_u8(r->m, RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK, 1);
	return reply_emit(r);
}

struct res_kind {
	const char *name;
	uint8_t type; /* 0: nothing of it exists here */
};
static int res_summary(struct nl_req *r, const struct res_kind *kinds,
		       size_t nkinds);

/* fill_res_info: the summary, in the kernel's order */
static int nldev_res_get(struct nl_req *r)
{
	static const struct res_kind kinds[] = {
		{ "pd", IK_RES_PD }, { "cq", IK_RES_CQ }, { "qp", IK_RES_QP },
		{ "cm_id", 0 },	     { "mr", IK_RES_MR }, { "ctx", IK_RES_CTX },
		{ "srq", 0 },
	};
	int rc = req_dev(r, !r->dump);
	unsigned int first = r->dev, end = r->dev + 1;

	if (rc < 0)
		return rc;
	if (r->dump) /* every device */
		first = 0, end = ik_host_get()->nnics;
	for (r->dev = first, rc = 0; r->dev < end && !rc; r->dev++)
		rc = res_summary(r, kinds, sizeof(kinds) / sizeof(kinds[0]));
	return rc;
}

/* Counts the records of one device. */
static int res_count(void *ctx, const struct ik_res_rec *e)
{
	uint64_t *n = ctx;

	if (e->dev == (uint8_t)(n[1]))
		n[0]++;
	return 0;
}

/* One device's summary message. */
static int res_summary(struct nl_req *r, const struct res_kind *kinds,
		       size_t nkinds)
{
	reply_start(r, RDMA_NLDEV_CMD_RES_GET);
	put_handle(r->m, r->dev);
	ik_nla_nest_start(r->m, RDMA_NLDEV_ATTR_RES_SUMMARY);
	for (size_t i = 0; i < nkinds; i++) {
		uint64_t n[2] = { 0, r->dev }; /* count, device */

		if (kinds[i].type)
			ik_res_walk(kinds[i].type, res_count, n);

		ik_nla_nest_start(r->m, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY);
		ik_nla_str(r->m, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME,
			   kinds[i].name);
		ik_nla_u64(r->m, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR, n[0]);
		ik_nla_nest_end(r->m);
	}
	ik_nla_nest_end(r->m);
	return reply_emit(r);
}

/* ---- resource dumps (res_get_common_dumpit) ------------------------------ */

struct res_dump {
	struct nl_req *r;
	uint16_t op;
	uint16_t table, entry; /* nest attribute types */
	uint8_t type;
	uint32_t want_id; /* doit: the object asked for */
	bool by_id, found;
	int err;
};

static void res_msg_open(struct res_dump *d)
{
	reply_start(d->r, d->op);
	put_handle(d->r->m, d->r->dev);
	ik_nla_nest_start(d->r->m, d->table);
}

static void res_msg_close(struct res_dump *d)
{
	ik_nla_nest_end(d->r->m);
	if (!d->err)
		d->err = reply_emit(d->r);
}

/* fill_res_{qp,cq,mr,pd}_entry, as root sees them (CAP_NET_ADMIN) */
static void put_res_entry(struct ik_nlmsg *m, const struct ik_res_rec *e)
{
	switch (e->type) {
	case IK_RES_QP:
		if (e->port)
			ik_nla_u32(m, RDMA_NLDEV_ATTR_PORT_INDEX, e->port);
		ik_nla_u32(m, RDMA_NLDEV_ATTR_RES_LQPN, e->id);
		ik_nla_u32(m, RDMA_NLDEV_ATTR_RES_PDN, e->pdn);
		ik_nla_u32(m, RDMA_NLDEV_ATTR_RES_PID, e->pid);
		if (e->qp_type == IBV_QPT_RC || e->qp_type == IBV_QPT_UC) {
			ik_nla_u32(m, RDMA_NLDEV_ATTR_RES_RQPN, e->rqpn);
			ik_nla_u32(m, RDMA_NLDEV_ATTR_RES_RQ_PSN, e->rq_psn);
		}
		ik_nla_u32(m, RDMA_NLDEV_ATTR_RES_SQ_PSN, e->sq_psn);
		if (e->qp_type == IBV_QPT_RC || e->qp_type == IBV_QPT_UC)
			ik_nla_u8(m, RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE,
				  IBV_MIG_MIGRATED);
		ik_nla_u8(m, RDMA_NLDEV_ATTR_RES_TYPE, e->qp_type);
		ik_nla_u8(m, RDMA_NLDEV_ATTR_RES_STATE, e->qp_state);
		break;
	case IK_RES_CQ:
		ik_nla_u32(m, RDMA_NLDEV_ATTR_RES_CQE, e->cqe);
		ik_nla_u64(m, RDMA_NLDEV_ATTR_RES_USECNT, e->usecnt);
		ik_nla_u8(m, RDMA_NLDEV_ATTR_DEV_DIM, 0);
		ik_nla_u32(m, RDMA_NLDEV_ATTR_RES_CQN, e->id);
		ik_nla_u32(m, RDMA_NLDEV_ATTR_RES_CTXN, e->ctxn);
		ik_nla_u32(m, RDMA_NLDEV_ATTR_RES_PID, e->pid);
		break;
	case IK_RES_MR:
		ik_nla_u32(m, RDMA_NLDEV_ATTR_RES_RKEY, e->rkey);
		ik_nla_u32(m, RDMA_NLDEV_ATTR_RES_LKEY, e->lkey);
		ik_nla_u64(m, RDMA_NLDEV_ATTR_RES_MRLEN, e->mrlen);
		ik_nla_u32(m, RDMA_NLDEV_ATTR_RES_MRN, e->id);
		ik_nla_u32(m, RDMA_NLDEV_ATTR_RES_PDN, e->pdn);
		ik_nla_u32(m, RDMA_NLDEV_ATTR_RES_PID, e->pid);
		break;
	case IK_RES_PD:
		ik_nla_u32(m, RDMA_NLDEV_ATTR_RES_LOCAL_DMA_LKEY, 0);
		ik_nla_u64(m, RDMA_NLDEV_ATTR_RES_USECNT, e->usecnt);
		ik_nla_u32(m, RDMA_NLDEV_ATTR_RES_PDN, e->id);
		ik_nla_u32(m, RDMA_NLDEV_ATTR_RES_CTXN, e->ctxn);
		ik_nla_u32(m, RDMA_NLDEV_ATTR_RES_PID, e->pid);
		break;
	case IK_RES_CTX:
		ik_nla_u32(m, RDMA_NLDEV_ATTR_RES_CTXN, e->id);
		ik_nla_u32(m, RDMA_NLDEV_ATTR_RES_PID, e->pid);
		break;
	}
}

static int res_visit(void *ctx, const struct ik_res_rec *e)
{
	struct res_dump *d = ctx;
	struct ik_nlmsg *m = d->r->m;
	size_t before;

	if (e->dev != d->r->dev || (d->by_id && e->id != d->want_id))
		return 0;
	d->found = true;
	before = m->len;
	ik_nla_nest_start(m, d->entry);
	put_res_entry(m, e);
	ik_nla_nest_end(m);
	if (m->full && d->r->dump) {
		/* this entry starts the next message, as the kernel's dump
		 * continues in the next skb */
		m->full = false;
		m->len = before;
		m->depth = 1;
		res_msg_close(d);
		res_msg_open(d);
		ik_nla_nest_start(m, d->entry);
		put_res_entry(m, e);
		ik_nla_nest_end(m);
	}
	return d->err || m->full;
}

static int nldev_res_dump(struct nl_req *r, uint8_t type, uint16_t table,
			  uint16_t entry, uint16_t id_attr)
{
	struct res_dump d = {
		.r = r,
		.op = r->nlh->nlmsg_type & 0x3ff,
		.table = table,
		.entry = entry,
		.type = type,
	};
	int rc = req_dev(r, true);

	if (rc < 0)
		return rc;
	if (!r->dump) {
		/* res_get_common_doit: one object, by its id */
		if (ik_nla_get_u32(&r->tb[id_attr], &d.want_id))
			return -EINVAL;
		d.by_id = true;
	}
	res_msg_open(&d);
	ik_res_walk(type, res_visit, &d);
	if (!d.by_id || d.found)
		res_msg_close(&d);
	if (d.by_id && !d.found)
		return -ENOENT;
	return d.err;
}

/* ---- dispatch ----------------------------------------------------------- */

static int dispatch(struct nl_req *r, uint16_t op)
{
	switch (op) {
	case RDMA_NLDEV_CMD_GET:
		return nldev_get(r);
	case RDMA_NLDEV_CMD_PORT_GET:
		return nldev_port_get(r);
	case RDMA_NLDEV_CMD_SYS_GET:
		return r->dump ? -EINVAL : nldev_sys_get(r);
	case RDMA_NLDEV_CMD_GET_CHARDEV:
		return r->dump ? -EINVAL : nldev_get_chardev(r);
	case RDMA_NLDEV_CMD_RES_GET:
		return nldev_res_get(r);
	case RDMA_NLDEV_CMD_RES_QP_GET:
		return nldev_res_dump(r, IK_RES_QP, RDMA_NLDEV_ATTR_RES_QP,
				      RDMA_NLDEV_ATTR_RES_QP_ENTRY,
				      RDMA_NLDEV_ATTR_RES_LQPN);
	case RDMA_NLDEV_CMD_RES_CQ_GET:
		return nldev_res_dump(r, IK_RES_CQ, RDMA_NLDEV_ATTR_RES_CQ,
				      RDMA_NLDEV_ATTR_RES_CQ_ENTRY,
				      RDMA_NLDEV_ATTR_RES_CQN);
	case RDMA_NLDEV_CMD_RES_MR_GET:
		return nldev_res_dump(r, IK_RES_MR, RDMA_NLDEV_ATTR_RES_MR,
				      RDMA_NLDEV_ATTR_RES_MR_ENTRY,
				      RDMA_NLDEV_ATTR_RES_MRN);
	case RDMA_NLDEV_CMD_RES_PD_GET:
		return nldev_res_dump(r, IK_RES_PD, RDMA_NLDEV_ATTR_RES_PD,
				      RDMA_NLDEV_ATTR_RES_PD_ENTRY,
				      RDMA_NLDEV_ATTR_RES_PDN);
	case RDMA_NLDEV_CMD_RES_CTX_GET:
		return nldev_res_dump(r, IK_RES_CTX, RDMA_NLDEV_ATTR_RES_CTX,
				      RDMA_NLDEV_ATTR_RES_CTX_ENTRY,
				      RDMA_NLDEV_ATTR_RES_CTXN);
	case RDMA_NLDEV_CMD_RES_CM_ID_GET:
	case RDMA_NLDEV_CMD_RES_SRQ_GET:
		/* none exist: an empty table */
		return nldev_res_dump(r, 0,
				      op == RDMA_NLDEV_CMD_RES_SRQ_GET ?
					      RDMA_NLDEV_ATTR_RES_SRQ :
					      RDMA_NLDEV_ATTR_RES_CM_ID,
				      op == RDMA_NLDEV_CMD_RES_SRQ_GET ?
					      RDMA_NLDEV_ATTR_RES_SRQ_ENTRY :
					      RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY,
				      op == RDMA_NLDEV_CMD_RES_SRQ_GET ?
					      RDMA_NLDEV_ATTR_RES_SRQN :
					      RDMA_NLDEV_ATTR_RES_CM_IDN);
	case RDMA_NLDEV_CMD_SET:
	case RDMA_NLDEV_CMD_NEWLINK:
	case RDMA_NLDEV_CMD_DELLINK:
	case RDMA_NLDEV_CMD_SYS_SET:
	case RDMA_NLDEV_CMD_STAT_SET:
	case RDMA_NLDEV_CMD_STAT_DEL:
	case RDMA_NLDEV_CMD_RES_QP_GET_RAW:
	case RDMA_NLDEV_CMD_RES_CQ_GET_RAW:
	case RDMA_NLDEV_CMD_RES_MR_GET_RAW:
		/* RDMA_NL_ADMIN_PERM ops: root may ask, ionic-sim does not
		 * change its device or hand out raw contexts */
		return geteuid() ? -EPERM : -EOPNOTSUPP;
	case RDMA_NLDEV_CMD_STAT_GET:
		return nldev_stat_get(r);
	case RDMA_NLDEV_CMD_STAT_GET_STATUS:
		return -EOPNOTSUPP; /* no optional (dynamic) counters */
	default:
		return -EINVAL; /* no such op */
	}
}

/* Ops that have a dumpit in the kernel's nldev table. */
static bool has_dumpit(uint16_t op)
{
	switch (op) {
	case RDMA_NLDEV_CMD_GET:
	case RDMA_NLDEV_CMD_PORT_GET:
	case RDMA_NLDEV_CMD_RES_GET:
	case RDMA_NLDEV_CMD_RES_QP_GET:
	case RDMA_NLDEV_CMD_RES_CM_ID_GET:
	case RDMA_NLDEV_CMD_RES_CQ_GET:
	case RDMA_NLDEV_CMD_RES_MR_GET:
	case RDMA_NLDEV_CMD_RES_PD_GET:
	case RDMA_NLDEV_CMD_STAT_GET:
	case RDMA_NLDEV_CMD_RES_QP_GET_RAW:
	case RDMA_NLDEV_CMD_RES_CQ_GET_RAW:
	case RDMA_NLDEV_CMD_RES_MR_GET_RAW:
	case RDMA_NLDEV_CMD_RES_CTX_GET:
	case RDMA_NLDEV_CMD_RES_SRQ_GET:
	case RDMA_NLDEV_CMD_STAT_GET_STATUS:
		return true;
	default:
		return false;
	}
}

/* rdma_nl_rcv_msg for one message: -EINTR when a dump ran (its answer
 * ends in NLMSG_DONE, no ACK), else the doit's result. */
static int rcv_msg(struct nl_req *r)
{
	uint16_t type = r->nlh->nlmsg_type;
	uint16_t op = RDMA_NL_GET_OP(type);
	int rc;

	if (RDMA_NL_GET_CLIENT(type) != RDMA_NL_NLDEV ||
	    op >= RDMA_NLDEV_NUM_OPS)
		return -EINVAL; /* no such client or op */
	r->dump = !!(r->nlh->nlmsg_flags & NLM_F_DUMP);
	if (r->dump && !has_dumpit(op))
		return -EINVAL;
	rc = ik_nla_parse(r->nlh, 0, r->tb, NLDEV_MAX);
	if (!rc)
		rc = dispatch(r, op);
	if (r->dump) {
		/* a failing dumpit ends the dump with its errno in DONE */
		ik_nl_done(r->nlh, r->s->portid, rc, r->emit, r->ctx);
		return -EINTR;
	}
	return rc;
}

void ik_nl_rdma_input(const struct ik_nl_sock *s, const void *buf, size_t len,
		      ik_nl_emit_fn emit, void *ctx)
{
	const uint8_t *p = buf;
	struct nl_req r;

	memset(&r, 0, sizeof(r));
	r.s = s;
	r.emit = emit;
	r.ctx = ctx;
	r.m = malloc(sizeof(*r.m));
	if (!r.m)
		return;
	/* netlink_rcv_skb: whole messages only; the rest is ignored */
	while (len >= NLMSG_HDRLEN) {
		struct nlmsghdr h;
		size_t step;
		int rc = 0;

		memcpy(&h, p, sizeof(h));
		if (h.nlmsg_len < NLMSG_HDRLEN || h.nlmsg_len > len)
			break;
		/* work on an aligned copy: a datagram may be unaligned */
		r.nlh = malloc(h.nlmsg_len);
		if (!r.nlh)
			break;
		memcpy((void *)r.nlh, p, h.nlmsg_len);
		if ((h.nlmsg_flags & NLM_F_REQUEST) &&
		    h.nlmsg_type >= NLMSG_MIN_TYPE)
			rc = rcv_msg(&r);
		if (isim_trace_enabled())
			isim_trace(ISIM_TR_CMD,
				   "nldev type=0x%x flags=0x%x len=%u -> %d%s",
				   h.nlmsg_type, h.nlmsg_flags, h.nlmsg_len,
				   rc == -EINTR ? 0 : rc,
				   rc == -EINTR ? " (dump)" : "");
		if (rc != -EINTR && (rc || (h.nlmsg_flags & NLM_F_ACK)))
			ik_nl_ack(r.nlh, s->portid, s->cap_ack, rc, emit, ctx);
		free((void *)r.nlh);
		step = NLMSG_ALIGN(h.nlmsg_len);
		if (step >= len)
			break;
		p += step;
		len -= step;
	}
	free(r.m);
}
