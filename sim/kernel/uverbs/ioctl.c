// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: the uverbs ioctl interface (RDMA_VERBS_IOCTL),
 * docs/kernel-contract.md §21.  The methods a kernel serves to an ionic
 * context that libibverbs 44 needs: querying a context and allocating its
 * async event file (ibv_import_device), querying an MR (ibv_import_mr),
 * the port query, and creating CQs and QPs (the only way an imported
 * context can).  They run the same handlers as the write() commands.
 *
 * Every other method answers EPROTONOSUPPORT, which makes libibverbs fall
 * back to write() for that method (docs/libibverbs-provider-abi.md §4.5,
 * §4.8) - INVOKE_WRITE included, so write() stays the channel of the
 * commands it carries - except REG_DMABUF_MR, refused with EOPNOTSUPP as
 * ionic's driver does without real DMA.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

/* kpriv.h first: it reaches libibverbs' verbs_api.h, which defines
 * RDMA_UAPI_PTR for the uapi headers below (they define it only when
 * nobody did, and some releases' verbs_api.h does not check). */
#include "../../common/sys.h"
#include "../kpriv.h"

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#define MAX_ATTRS 32
#define UHW_IN_MAX 4096 /* the driver's requests are a few dozen bytes */

/* One method call being served. */
struct ioc {
	struct ik_file *f;
	struct ib_uverbs_attr *attrs; /* the caller's array (outputs go there) */
	unsigned int nattrs;
	char note[160]; /* the handler's decoded result, for the trace */
};

static struct ib_uverbs_attr *attr(const struct ioc *x, uint16_t id)
{
	for (unsigned int i = 0; i < x->nattrs; i++)
		if (x->attrs[i].attr_id == id)
			return &x->attrs[i];
	return NULL;
}

/* Any mandatory attribute the method does not know: EPROTONOSUPPORT, as
 * uverbs_process_attr does. */
static int check_known(const struct ioc *x, const uint16_t *known, size_t n)
{
	for (unsigned int i = 0; i < x->nattrs; i++) {
		bool ok = false;

		for (size_t k = 0; k < n && !ok; k++)
			ok = x->attrs[i].attr_id == known[k];
		if (!ok && (x->attrs[i].flags & UVERBS_ATTR_F_MANDATORY))
			return -EPROTONOSUPPORT;
	}
	return 0;
}

/* A scalar input (u32 or u64 in 'data'); -EINVAL if missing. */
static int in_u64(const struct ioc *x, uint16_t id, uint64_t *v)
{
	const struct ib_uverbs_attr *a = attr(x, id);

	if (!a)
		return -EINVAL;
	*v = a->data;
	if (a->len == 4)
		*v &= 0xffffffffu;
	return 0;
}

/* PTR_IN: up to 8 bytes inline, else 'data' points at them in the
 * caller's memory: copied in as copy_from_user would (EFAULT when the
 * pointer is bad).  NULL when the attribute is absent. */
static int in_ptr(const struct ioc *x, uint16_t id, void *dst, size_t cap,
		  size_t *len)
{
	const struct ib_uverbs_attr *a = attr(x, id);
	size_t n;

	*len = 0;
	if (!a)
		return -ENOENT;
	n = a->len < cap ? a->len : cap;
	*len = a->len;
	if (a->len <= sizeof(a->data)) {
		memcpy(dst, &a->data, n);
		return 0;
	}
	return ik_copy_from_user(dst, a->data, n) ? -EFAULT : 0;
}

/* PTR_OUT: copy at most the caller's length (copy_to_user). */
static void out_ptr(const struct ioc *x, uint16_t id, const void *src,
		    size_t len)
{
	struct ib_uverbs_attr *a = attr(x, id);

	if (!a || !a->data)
		return;
	if (ik_copy_to_user(a->data, src, len < a->len ? len : a->len))
		return; /* the output stays invalid */
	a->flags |= UVERBS_ATTR_F_VALID_OUTPUT;
}

/* IDR and FD outputs: the new handle or fd goes into the attribute. */
static void out_obj(const struct ioc *x, uint16_t id, uint64_t v)
{
	struct ib_uverbs_attr *a = attr(x, id);

	if (a)
		a->data = v;
}

/* Run a write() command's handler with a request built from attributes,
 * as uverbs.c's dispatch would: lock, context check, resource tracking. */
static int run_cmd(struct ioc *x, uint32_t cmd, int (*fn)(struct ik_cmd *),
		   const void *req, size_t req_len, void *resp, size_t resp_len)
{
	struct ik_nic *nic = x->f->nic;
	struct ib_uverbs_attr *uout = attr(x, UVERBS_ATTR_UHW_OUT);
	const void *uin = NULL;
	uint8_t *uin_buf = NULL;
	struct ik_cmd c;
	size_t uin_len = 0;
	int rc;

	memset(&c, 0, sizeof(c));
	if (attr(x, UVERBS_ATTR_UHW_IN)) {
		uin_len = attr(x, UVERBS_ATTR_UHW_IN)->len;
		if (uin_len > UHW_IN_MAX)
			return -EINVAL;
		uin = uin_buf = malloc(uin_len + 1);
		if (!uin_buf)
			return -ENOMEM;
		if (in_ptr(x, UVERBS_ATTR_UHW_IN, uin_buf, uin_len, &uin_len)) {
			free(uin_buf);
			return -EFAULT;
		}
	}
	c.f = x->f;
	c.nic = nic;
	c.req = req;
	c.req_len = req_len;
	c.uin = uin;
	c.uin_len = uin ? uin_len : 0;
	c.resp = resp;
	c.resp_len = resp_len;
	c.uout_len = uout ? uout->len : 0;
	c.uout = calloc(1, c.uout_len + 8);
	if (!c.uout) {
		free(uin_buf);
		return -ENOMEM;
	}
	ik_nic_lock(nic);
	if (x->f->dead)
		rc = -EIO;
	else if (!x->f->has_ucontext)
		rc = -EINVAL;
	else
		rc = fn(&c);
	memcpy(x->note, c.note, sizeof(x->note));
	if (!rc) {
		ik_res_cmd_done(&c, cmd);
		if (uout && c.uout_written)
			out_ptr(x, UVERBS_ATTR_UHW_OUT, c.uout, c.uout_written);
	}
	ik_nic_unlock(nic);
	free(c.uout);
	free(uin_buf);
	return rc;
}

/* ---- DEVICE -------------------------------------------------------------- */

/* ib_uverbs_handler_UVERBS_METHOD_QUERY_CONTEXT; ours adds the driver's
 * GET_CONTEXT answer as UHW_OUT, what an importer needs to drive the
 * device (docs/kernel-contract.md §21). */
static int query_context(struct ioc *x)
{
	static const uint16_t known[] = {
		UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS,
		UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT, UVERBS_ATTR_UHW_OUT
	};
	struct ionic_ctx_resp dr;
	uint32_t ncv;
	uint64_t core = 0; /* as the write() GET_CONTEXT implies */
	int rc = check_known(x, known, 3);

	if (rc)
		return rc;
	ik_nic_lock(x->f->nic);
	if (!x->f->has_ucontext) {
		ik_nic_unlock(x->f->nic);
		return -EINVAL;
	}
	ik_ctx_resp_fill(x->f, &dr);
	ncv = x->f->nic->prof.eq_count - 2;
	ik_nic_unlock(x->f->nic);
	out_ptr(x, UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS, &ncv,
		sizeof(ncv));
	out_ptr(x, UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT, &core, sizeof(core));
	out_ptr(x, UVERBS_ATTR_UHW_OUT, &dr, sizeof(dr));
	return 0;
}

static int query_port(struct ioc *x)
{
	static const uint16_t known[] = { UVERBS_ATTR_QUERY_PORT_PORT_NUM,
					  UVERBS_ATTR_QUERY_PORT_RESP };
	struct ib_uverbs_query_port_resp_ex r;
	struct ib_uverbs_query_port req;
	uint64_t port = 0;
	int rc = check_known(x, known, 2);

	if (!rc)
		rc = in_u64(x, UVERBS_ATTR_QUERY_PORT_PORT_NUM, &port);
	if (rc)
		return rc;
	memset(&req, 0, sizeof(req));
	memset(&r, 0, sizeof(r));
	req.port_num = (uint8_t)port;
	if (port > 255)
		return -EINVAL;
	rc = run_cmd(x, IB_USER_VERBS_CMD_QUERY_PORT, ik_cmd_query_port, &req,
		     sizeof(req), &r.legacy_resp, sizeof(r.legacy_resp));
	if (rc)
		return rc;
	out_ptr(x, UVERBS_ATTR_QUERY_PORT_RESP, &r, sizeof(r));
	return 0;
}

/* ---- ASYNC_EVENT ------------------------------------------------------ */

/* A new descriptor of the context's async event file: an importer reads
 * the events of the objects it shares. */
static int async_event_alloc(struct ioc *x)
{
	static const uint16_t known[] = {
		UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE
	};
	int rc = check_known(x, known, 1), fd;

	if (rc)
		return rc;
	if (!attr(x, UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE))
		return -EINVAL;
	ik_nic_lock(x->f->nic);
	fd = x->f->has_ucontext && x->f->async_q.rd >= 0 ?
		     isim_sys_fcntl(x->f->async_q.rd, F_DUPFD_CLOEXEC, 0) :
		     -1;
	rc = fd < 0 ? (x->f->has_ucontext ? -errno : -EINVAL) : 0;
	ik_nic_unlock(x->f->nic);
	if (rc)
		return rc;
	/* an importer's own descriptor of the file (export.c) */
	fd = ik_fd_to_caller(fd);
	if (fd < 0)
		return fd;
	out_obj(x, UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE, (uint64_t)fd);
	return 0;
}

/* ---- MR --------------------------------------------------------------- */

static int query_mr(struct ioc *x)
{
	static const uint16_t known[] = { UVERBS_ATTR_QUERY_MR_HANDLE,
					  UVERBS_ATTR_QUERY_MR_RESP_LKEY,
					  UVERBS_ATTR_QUERY_MR_RESP_RKEY,
					  UVERBS_ATTR_QUERY_MR_RESP_LENGTH,
					  UVERBS_ATTR_QUERY_MR_RESP_IOVA };
	uint32_t lkey = 0, rkey = 0;
	uint64_t handle = 0, len = 0, iova = 0;
	struct ik_mr *mr;
	int rc = check_known(x, known, 5);

	if (!rc)
		rc = in_u64(x, UVERBS_ATTR_QUERY_MR_HANDLE, &handle);
	if (rc)
		return rc;
	ik_nic_lock(x->f->nic);
	mr = x->f->has_ucontext && !x->f->dead && handle <= UINT32_MAX ?
		     ik_handle_get(x->f, (uint32_t)handle, IK_UOBJ_MR) :
		     NULL;
	if (mr) {
		lkey = rkey = mr->key;
		len = mr->length;
		iova = mr->iova;
	}
	ik_nic_unlock(x->f->nic);
	if (!mr)
		return -EINVAL; /* uverbs_get_uobject: no such MR */
	out_ptr(x, UVERBS_ATTR_QUERY_MR_RESP_LKEY, &lkey, sizeof(lkey));
	out_ptr(x, UVERBS_ATTR_QUERY_MR_RESP_RKEY, &rkey, sizeof(rkey));
	out_ptr(x, UVERBS_ATTR_QUERY_MR_RESP_LENGTH, &len, sizeof(len));
	out_ptr(x, UVERBS_ATTR_QUERY_MR_RESP_IOVA, &iova, sizeof(iova));
	return 0;
}

/* ---- CQ and QP creation ------------------------------------------------- */

static int cq_create(struct ioc *x)
{
	static const uint16_t known[] = { UVERBS_ATTR_CREATE_CQ_HANDLE,
					  UVERBS_ATTR_CREATE_CQ_CQE,
					  UVERBS_ATTR_CREATE_CQ_USER_HANDLE,
					  UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL,
					  UVERBS_ATTR_CREATE_CQ_COMP_VECTOR,
					  UVERBS_ATTR_CREATE_CQ_FLAGS,
					  UVERBS_ATTR_CREATE_CQ_RESP_CQE,
					  UVERBS_ATTR_CREATE_CQ_EVENT_FD,
					  UVERBS_ATTR_UHW_IN,
					  UVERBS_ATTR_UHW_OUT };
	struct ib_uverbs_create_cq_resp r;
	struct ib_uverbs_create_cq req;
	uint64_t cqe = 0, uh = 0, vec = 0, flags = 0, chan;
	int rc = check_known(x, known, sizeof(known) / sizeof(known[0]));

	if (!rc)
		rc = in_u64(x, UVERBS_ATTR_CREATE_CQ_CQE, &cqe);
	if (!rc)
		rc = in_u64(x, UVERBS_ATTR_CREATE_CQ_USER_HANDLE, &uh);
	if (!rc)
		rc = in_u64(x, UVERBS_ATTR_CREATE_CQ_COMP_VECTOR, &vec);
	if (rc || !attr(x, UVERBS_ATTR_CREATE_CQ_HANDLE))
		return rc ? rc : -EINVAL;
	in_u64(x, UVERBS_ATTR_CREATE_CQ_FLAGS, &flags);
	if (flags)
		return -EOPNOTSUPP; /* as EX_CREATE_CQ: no CQ flags */
	if (in_u64(x, UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL, &chan))
		chan = (uint64_t)-1;
	memset(&req, 0, sizeof(req));
	memset(&r, 0, sizeof(r));
	req.user_handle = uh;
	req.cqe = (uint32_t)cqe;
	req.comp_vector = (uint32_t)vec;
	req.comp_channel = (int32_t)chan;
	/* the EVENT_FD attribute names the context's async file, which is
	 * where ionic-sim posts a CQ's async events anyway */
	rc = run_cmd(x, IB_USER_VERBS_CMD_CREATE_CQ, ik_cmd_create_cq, &req,
		     sizeof(req), &r, sizeof(r));
	if (rc)
		return rc;
	out_obj(x, UVERBS_ATTR_CREATE_CQ_HANDLE, r.cq_handle);
	out_ptr(x, UVERBS_ATTR_CREATE_CQ_RESP_CQE, &r.cqe, sizeof(r.cqe));
	return 0;
}

static int qp_create(struct ioc *x)
{
	static const uint16_t known[] = {
		UVERBS_ATTR_CREATE_QP_HANDLE,
		UVERBS_ATTR_CREATE_QP_XRCD_HANDLE,
		UVERBS_ATTR_CREATE_QP_PD_HANDLE,
		UVERBS_ATTR_CREATE_QP_SRQ_HANDLE,
		UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE,
		UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE,
		UVERBS_ATTR_CREATE_QP_IND_TABLE_HANDLE,
		UVERBS_ATTR_CREATE_QP_USER_HANDLE,
		UVERBS_ATTR_CREATE_QP_CAP,
		UVERBS_ATTR_CREATE_QP_TYPE,
		UVERBS_ATTR_CREATE_QP_FLAGS,
		UVERBS_ATTR_CREATE_QP_SOURCE_QPN,
		UVERBS_ATTR_CREATE_QP_EVENT_FD,
		UVERBS_ATTR_CREATE_QP_RESP_CAP,
		UVERBS_ATTR_CREATE_QP_RESP_QP_NUM,
		UVERBS_ATTR_UHW_IN,
		UVERBS_ATTR_UHW_OUT,
	};
	struct ib_uverbs_create_qp_resp r;
	struct ib_uverbs_create_qp req;
	struct ib_uverbs_qp_cap cap;
	uint64_t pd = 0, scq = 0, rcq = 0, type = 0, uh = 0, flags = 0, srq = 0;
	size_t caplen = 0;
	int rc = check_known(x, known, sizeof(known) / sizeof(known[0]));

	if (rc)
		return rc;
	if (attr(x, UVERBS_ATTR_CREATE_QP_XRCD_HANDLE) ||
	    attr(x, UVERBS_ATTR_CREATE_QP_IND_TABLE_HANDLE) ||
	    attr(x, UVERBS_ATTR_CREATE_QP_SOURCE_QPN))
		return -EOPNOTSUPP; /* no XRC, RSS or source QPNs on ionic */
	rc = in_u64(x, UVERBS_ATTR_CREATE_QP_PD_HANDLE, &pd);
	if (!rc)
		rc = in_u64(x, UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE, &scq);
	if (!rc)
		rc = in_u64(x, UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE, &rcq);
	if (!rc)
		rc = in_u64(x, UVERBS_ATTR_CREATE_QP_TYPE, &type);
	if (!rc)
		rc = in_u64(x, UVERBS_ATTR_CREATE_QP_USER_HANDLE, &uh);
	if (!rc)
		rc = in_ptr(x, UVERBS_ATTR_CREATE_QP_CAP, &cap, sizeof(cap),
			    &caplen);
	if (rc == -ENOENT || (!rc && caplen < sizeof(cap)) ||
	    (!rc && !attr(x, UVERBS_ATTR_CREATE_QP_HANDLE)))
		rc = -EINVAL;
	if (rc)
		return rc;
	in_u64(x, UVERBS_ATTR_CREATE_QP_FLAGS, &flags);
	if (flags & ~(uint64_t)IB_UVERBS_QP_CREATE_SQ_SIG_ALL)
		return -EOPNOTSUPP; /* ionic implements no create flags */
	in_u64(x, UVERBS_ATTR_CREATE_QP_SRQ_HANDLE, &srq);
	memset(&req, 0, sizeof(req));
	memset(&r, 0, sizeof(r));
	req.user_handle = uh;
	req.pd_handle = (uint32_t)pd;
	req.send_cq_handle = (uint32_t)scq;
	req.recv_cq_handle = (uint32_t)rcq;
	req.srq_handle = (uint32_t)srq;
	req.is_srq = !!attr(x, UVERBS_ATTR_CREATE_QP_SRQ_HANDLE);
	req.max_send_wr = cap.max_send_wr;
	req.max_recv_wr = cap.max_recv_wr;
	req.max_send_sge = cap.max_send_sge;
	req.max_recv_sge = cap.max_recv_sge;
	req.max_inline_data = cap.max_inline_data;
	req.sq_sig_all = !!(flags & IB_UVERBS_QP_CREATE_SQ_SIG_ALL);
	req.qp_type = (uint8_t)type;
	if (type > 255)
		return -EINVAL;
	rc = run_cmd(x, IB_USER_VERBS_CMD_CREATE_QP, ik_cmd_create_qp, &req,
		     sizeof(req), &r, sizeof(r));
	if (rc)
		return rc;
	cap.max_send_wr = r.max_send_wr;
	cap.max_recv_wr = r.max_recv_wr;
	cap.max_send_sge = r.max_send_sge;
	cap.max_recv_sge = r.max_recv_sge;
	cap.max_inline_data = r.max_inline_data;
	out_obj(x, UVERBS_ATTR_CREATE_QP_HANDLE, r.qp_handle);
	out_ptr(x, UVERBS_ATTR_CREATE_QP_RESP_CAP, &cap, sizeof(cap));
	out_ptr(x, UVERBS_ATTR_CREATE_QP_RESP_QP_NUM, &r.qpn, sizeof(r.qpn));
	return 0;
}

/* ---- dispatch ----------------------------------------------------------- */

static int method(struct ioc *x, uint16_t object, uint16_t meth)
{
	switch (object) {
	case UVERBS_OBJECT_DEVICE:
		if (meth == UVERBS_METHOD_QUERY_CONTEXT)
			return query_context(x);
		if (meth == UVERBS_METHOD_QUERY_PORT)
			return query_port(x);
		break;
	case UVERBS_OBJECT_ASYNC_EVENT:
		if (meth == UVERBS_METHOD_ASYNC_EVENT_ALLOC)
			return async_event_alloc(x);
		break;
	case UVERBS_OBJECT_MR:
		if (meth == UVERBS_METHOD_QUERY_MR)
			return query_mr(x);
		if (meth == UVERBS_METHOD_REG_DMABUF_MR)
			return -EOPNOTSUPP; /* dma-buf import needs real DMA */
		break;
	case UVERBS_OBJECT_CQ:
		if (meth == UVERBS_METHOD_CQ_CREATE)
			return cq_create(x);
		break;
	case UVERBS_OBJECT_QP:
		if (meth == UVERBS_METHOD_QP_CREATE)
			return qp_create(x);
		break;
	default:
		break;
	}
	return -EPROTONOSUPPORT;
}

int ik_file_ioctl(struct ik_file *f, unsigned long req, void *arg)
{
	struct ib_uverbs_attr attrs[MAX_ATTRS];
	struct ib_uverbs_ioctl_hdr hdr;
	struct ioc x = { .f = f };
	int rc;

	if (f->imp)
		return ik_import_ioctl(f->imp, req, arg);
	if (req != RDMA_VERBS_IOCTL)
		return -ENOTTY;
	if (f->dead)
		return -EIO;
	if (ik_copy_from_user(&hdr, (uintptr_t)arg, sizeof(hdr)))
		return -EFAULT;
	/* ib_uverbs_ioctl: the header's length covers the attributes */
	if (hdr.length !=
	    sizeof(hdr) + (size_t)hdr.num_attrs * sizeof(struct ib_uverbs_attr))
		rc = -EINVAL;
	else if (hdr.reserved1 || hdr.reserved2)
		rc = -EPROTONOSUPPORT;
	else if (hdr.num_attrs > MAX_ATTRS)
		rc = -EINVAL;
	else if (ik_copy_from_user(attrs, (uintptr_t)arg + sizeof(hdr),
				   hdr.num_attrs * sizeof(attrs[0])))
		rc = -EFAULT;
	else {
		/* the kernel works on its copy of the attributes and writes
		 * them back (outputs, VALID_OUTPUT flags) */
		x.attrs = attrs;
		x.nattrs = hdr.num_attrs;
		rc = method(&x, hdr.object_id, hdr.method_id);
		if (ik_copy_to_user((uintptr_t)arg + sizeof(hdr), attrs,
				    hdr.num_attrs * sizeof(attrs[0])))
			rc = rc ? rc : -EFAULT;
	}
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_CMD,
			   "ioctl object=%u method=%u nattrs=%u -> %d%s%s",
			   hdr.object_id, hdr.method_id, hdr.num_attrs, rc,
			   x.note[0] ? " " : "", x.note);
	return rc;
}
