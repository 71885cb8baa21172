// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer unit test: drives the emulated driver through its
 * C API (isim_file_write/ioctl/mmap) with hand-built uverbs command buffers
 * and checks validation, errno values, ids and event accounting.  The
 * device and the doorbell trap are stubbed here so the kernel layer is
 * tested alone.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "kernel/kpriv.h"
#include "dev/device.h"

/* ---- stubs of the device and the platform -------------------------------- */

static int dev_qp_created, dev_qp_destroyed, dev_cq_created, dev_cq_destroyed;
static int dev_qp_modified;
static uint32_t busy_qpn = UINT32_MAX;

int isim_dev_start(struct isim_nic *nic)
{
	(void)nic;
	return 0;
}
void isim_dev_stop(struct isim_nic *nic)
{
	(void)nic;
}
void isim_dev_atfork_child(struct isim_nic *old)
{
	(void)old;
}
int isim_dev_qp_create(struct isim_nic *nic, struct isim_qp *qp)
{
	(void)nic;
	if (qp->qpn == busy_qpn)
		return -EADDRINUSE;
	dev_qp_created++;
	return 0;
}
void isim_dev_qp_modify(struct isim_nic *nic, struct isim_qp *qp,
			enum ibv_qp_state old_state, int attr_mask)
{
	(void)nic;
	(void)qp;
	(void)old_state;
	(void)attr_mask;
	dev_qp_modified++;
}
void isim_dev_qp_destroy(struct isim_nic *nic, struct isim_qp *qp)
{
	(void)nic;
	(void)qp;
	dev_qp_destroyed++;
}
int isim_dev_cq_create(struct isim_nic *nic, struct isim_hwcq *hw)
{
	(void)nic;
	(void)hw;
	dev_cq_created++;
	return 0;
}
void isim_dev_cq_destroy(struct isim_nic *nic, struct isim_hwcq *hw)
{
	(void)nic;
	(void)hw;
	dev_cq_destroyed++;
}
void isim_dev_doorbell(struct isim_nic *nic, struct isim_file *file,
		       uint32_t offset, uint64_t value)
{
	(void)nic;
	(void)file;
	(void)offset;
	(void)value;
}
void *isim_dbpage_map(void *cookie, void *addr, size_t len, int *err)
{
	void *p = mmap(addr, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	(void)cookie;
	if (p == MAP_FAILED) {
		*err = -errno;
		return NULL;
	}
	return p;
}
void isim_dbpage_forget(void *page, size_t len)
{
	(void)page;
	(void)len;
}
int isim_dbtrap_eventfd(void)
{
	return -1;
}
int isim_dbtrap_pop(struct isim_db_rec *rec)
{
	(void)rec;
	return 0;
}

/* ---- harness -------------------------------------------------------------- */

static int failures, checks;

#define CHECK(cond, ...)                                            \
	do {                                                        \
		checks++;                                           \
		if (!(cond)) {                                      \
			failures++;                                 \
			printf("FAIL %s:%d: ", __FILE__, __LINE__); \
			printf(__VA_ARGS__);                        \
			printf("\n");                               \
		}                                                   \
	} while (0)

#define CHECK_RC(expr, want)                                               \
	do {                                                               \
		long _r = (long)(expr);                                    \
		CHECK(_r == (long)(want), "%s = %ld, want %ld", #expr, _r, \
		      (long)(want));                                       \
	} while (0)

static struct isim_file *F;
static uint8_t respbuf[4096];

/* Legacy command: hdr | core | drv.  When out > 0 the core request's first
 * u64 is set to respbuf; 'out' is core + driver response bytes. */
static ssize_t leg(struct isim_file *f, uint32_t cmd, void *core,
		   size_t core_len, const void *drv, size_t drv_len, size_t out)
{
	uint8_t buf[1024];
	struct ib_uverbs_cmd_hdr h = {
		.command = cmd,
		.in_words = (uint16_t)((8 + core_len + drv_len) / 4),
		.out_words = (uint16_t)(out / 4),
	};

	memset(respbuf, 0xa5, sizeof(respbuf));
	if (out) {
		uint64_t p = (uintptr_t)respbuf;

		memcpy(core, &p, 8);
	}
	memcpy(buf, &h, 8);
	memcpy(buf + 8, core, core_len);
	if (drv_len)
		memcpy(buf + 8 + core_len, drv, drv_len);
	return isim_file_write(f, buf, 8 + core_len + drv_len);
}

/* Extended command: hdr | ex_hdr | core | drv (core/drv multiples of 8) */
static ssize_t exc(struct isim_file *f, uint32_t cmd, const void *core,
		   size_t core_len, const void *drv, size_t drv_len,
		   size_t core_out, size_t drv_out)
{
	uint8_t buf[1024];
	struct ib_uverbs_cmd_hdr h = {
		.command = IB_USER_VERBS_CMD_FLAG_EXTENDED | cmd,
		.in_words = (uint16_t)(core_len / 8),
		.out_words = (uint16_t)(core_out / 8),
	};
	struct ib_uverbs_ex_cmd_hdr x = {
		.response = (uintptr_t)respbuf,
		.provider_in_words = (uint16_t)(drv_len / 8),
		.provider_out_words = (uint16_t)(drv_out / 8),
	};

	memset(respbuf, 0xa5, sizeof(respbuf));
	memcpy(buf, &h, 8);
	memcpy(buf + 8, &x, 16);
	memcpy(buf + 24, core, core_len);
	if (drv_len)
		memcpy(buf + 24 + core_len, drv, drv_len);
	return isim_file_write(f, buf, 24 + core_len + drv_len);
}

static void *ring(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static struct ionic_qdesc qdesc(unsigned int depth_log2,
				unsigned int stride_log2)
{
	size_t size = (size_t)1 << (depth_log2 + stride_log2);
	struct ionic_qdesc q = {
		.addr = (uintptr_t)ring(size < 4096 ? 4096 : size),
		.size = (uint32_t)(size < 4096 ? 4096 : size),
		.mask = (uint16_t)((1u << depth_log2) - 1),
		.depth_log2 = (uint8_t)depth_log2,
		.stride_log2 = (uint8_t)stride_log2,
	};

	return q;
}

/* ---- pieces of the test ---------------------------------------------------- */

static int get_context(struct isim_file *f, struct ionic_ctx_resp *dr,
		       int *async_fd)
{
	struct ib_uverbs_get_context core = { 0 };
	struct ionic_ctx_req req = { { 0 } };
	ssize_t rc;

	rc = leg(f, IB_USER_VERBS_CMD_GET_CONTEXT, &core, sizeof(core), &req,
		 sizeof(req), 8 + sizeof(*dr));
	if (rc < 0)
		return (int)rc;
	if (async_fd)
		*async_fd =
			((struct ib_uverbs_get_context_resp *)respbuf)->async_fd;
	if (dr)
		memcpy(dr, respbuf + 8, sizeof(*dr));
	return 0;
}

static uint32_t alloc_pd(void)
{
	struct ib_uverbs_alloc_pd core = { 0 };

	CHECK_RC(leg(F, IB_USER_VERBS_CMD_ALLOC_PD, &core, sizeof(core), NULL,
		     0, 4),
		 16);
	return ((struct ib_uverbs_alloc_pd_resp *)respbuf)->pd_handle;
}

static ssize_t create_cq(uint32_t cqe, uint32_t vector, int channel,
			 struct ionic_cq_req *req, uint32_t *handle,
			 struct ionic_cq_resp *dr)
{
	struct ib_uverbs_create_cq core = {
		.user_handle = 0x1000 + cqe,
		.cqe = cqe,
		.comp_vector = vector,
		.comp_channel = channel,
	};
	ssize_t rc = leg(F, IB_USER_VERBS_CMD_CREATE_CQ, &core, sizeof(core),
			 req, sizeof(*req), 8 + sizeof(*dr));

	if (rc > 0) {
		*handle =
			((struct ib_uverbs_create_cq_resp *)respbuf)->cq_handle;
		memcpy(dr, respbuf + 8, sizeof(*dr));
	}
	return rc;
}

static struct ionic_cq_req cq_req(void)
{
	struct ionic_cq_req r;

	memset(&r, 0, sizeof(r));
	r.cq[0] = qdesc(8, 5);
	r.cq[1] = qdesc(8, 5);
	r.udma_mask = 3;
	return r;
}

static struct ionic_qp_req qp_req(void)
{
	struct ionic_qp_req r;

	memset(&r, 0, sizeof(r));
	r.sq = qdesc(6, 6);
	r.rq = qdesc(6, 6);
	r.sq_spec = 2;
	r.rq_spec = 2;
	return r;
}

static ssize_t create_qp(uint8_t type, uint32_t pd, uint32_t cq, uint32_t sge,
			 const struct ionic_qp_req *req,
			 struct ib_uverbs_create_qp_resp *r,
			 struct ionic_qp_resp *dr)
{
	struct ib_uverbs_create_qp core = {
		.user_handle = 0x5000,
		.pd_handle = pd,
		.send_cq_handle = cq,
		.recv_cq_handle = cq,
		.max_send_wr = 16,
		.max_recv_wr = 16,
		.max_send_sge = sge,
		.max_recv_sge = sge,
		.qp_type = type,
	};
	ssize_t rc = leg(F, IB_USER_VERBS_CMD_CREATE_QP, &core, sizeof(core),
			 req, sizeof(*req), 32 + 24);

	if (rc > 0) {
		memcpy(r, respbuf, sizeof(*r));
		memcpy(dr, respbuf + 32, sizeof(*dr));
	}
	return rc;
}

static ssize_t modify(uint32_t qp, uint32_t mask,
		      void (*fill)(struct ib_uverbs_modify_qp *m),
		      enum ibv_qp_state state)
{
	struct ib_uverbs_modify_qp m;

	memset(&m, 0, sizeof(m));
	m.qp_handle = qp;
	m.attr_mask = mask;
	m.qp_state = state;
	if (fill)
		fill(&m);
	return leg(F, IB_USER_VERBS_CMD_MODIFY_QP, &m, sizeof(m), NULL, 0, 0);
}

static void fill_init(struct ib_uverbs_modify_qp *m)
{
	m->port_num = 1;
	m->qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
}

static void fill_rtr(struct ib_uverbs_modify_qp *m)
{
	m->dest.is_global = 1;
	m->dest.port_num = 1;
	m->dest.sgid_index = 1;
	m->dest.hop_limit = 64;
	m->path_mtu = IBV_MTU_1024;
	m->dest_qp_num = 17;
	m->rq_psn = 0x123;
	m->max_dest_rd_atomic = 1;
	m->min_rnr_timer = 12;
}

static void fill_rtr_noglobal(struct ib_uverbs_modify_qp *m)
{
	fill_rtr(m);
	m->dest.is_global = 0;
}

static void fill_rts(struct ib_uverbs_modify_qp *m)
{
	m->sq_psn = 0x456;
	m->timeout = 14;
	m->retry_cnt = 7;
	m->rnr_retry = 7;
	m->max_rd_atomic = 1;
}

static void fill_ud_init(struct ib_uverbs_modify_qp *m)
{
	m->port_num = 1;
	m->qkey = 0x80000001u;
}

#define RC_INIT \
	(IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)
#define RC_RTR                                                          \
	(IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | \
	 IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)
#define RC_RTS                                                              \
	(IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | \
	 IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC)

static void post_async(struct isim_qp *qp)
{
	pthread_mutex_lock(&isim_nic->lock);
	isim_post_async_qp(qp, IBV_EVENT_COMM_EST);
	pthread_mutex_unlock(&isim_nic->lock);
}

static void post_comp(struct isim_cq *cq)
{
	pthread_mutex_lock(&isim_nic->lock);
	isim_post_comp_event(cq);
	pthread_mutex_unlock(&isim_nic->lock);
}

int main(void)
{
	struct ib_uverbs_query_device_resp *dev;
	struct ib_uverbs_create_qp_resp qr;
	struct ionic_qp_resp qdr;
	struct ionic_ctx_resp cr;
	struct ionic_cq_resp cdr;
	struct ionic_cq_req creq;
	struct ionic_qp_req qreq;
	struct isim_file *f2;
	uint32_t pd, cq, cq2, qp, qp2, uc, ud, mr_handle;
	int async_fd, chan_fd, err;
	uint8_t buf[64];
	void *p;

	setenv(ISIM_ENV_PROFILE, "cmb_pages=64", 1);
	CHECK_RC(isim_file_open(1, &F), -ENODEV);
	CHECK_RC(isim_file_open(0, &F), 0);

	/* header decoding */
	{
		struct ib_uverbs_alloc_pd core = { 0 };
		struct ib_uverbs_cmd_hdr h = { 50, 2, 0 };

		CHECK_RC(isim_file_write(F, &h, 8), -EOPNOTSUPP);
		h.command = 0x100 | IB_USER_VERBS_CMD_ALLOC_PD;
		CHECK_RC(isim_file_write(F, &h, 8), -EINVAL);
		CHECK_RC(isim_file_write(F, &h, 4), -EINVAL);
		/* no context yet */
		CHECK_RC(leg(F, IB_USER_VERBS_CMD_ALLOC_PD, &core, sizeof(core),
			     NULL, 0, 4),
			 -EINVAL);
		/* in_words not matching the length */
		h.command = IB_USER_VERBS_CMD_QUERY_DEVICE;
		h.in_words = 5;
		h.out_words = 44;
		memcpy(buf, &h, 8);
		CHECK_RC(isim_file_write(F, buf, 16), -EINVAL);
	}

	/* GET_CONTEXT */
	{
		struct ib_uverbs_get_context core = { 0 };
		uint8_t drv[16] = { 0 };

		CHECK_RC(leg(F, IB_USER_VERBS_CMD_GET_CONTEXT, &core,
			     sizeof(core), NULL, 0, 48),
			 -EINVAL);
		drv[12] = 1;
		CHECK_RC(leg(F, IB_USER_VERBS_CMD_GET_CONTEXT, &core,
			     sizeof(core), drv, 16, 48),
			 -EOPNOTSUPP);
	}
	CHECK_RC(get_context(F, &cr, &async_fd), 0);
	CHECK(async_fd > 2, "async_fd %d", async_fd);
	CHECK(((struct ib_uverbs_get_context_resp *)respbuf)->num_comp_vectors ==
		      4,
	      "num_comp_vectors");
	CHECK(cr.page_shift == 12 && cr.version == 2 && cr.udma_count == 2 &&
		      cr.max_spec == 8 && cr.phc_offset == 4096 &&
		      cr.sq_qtype == 2,
	      "ctx resp page_shift=%u version=%u phc=%llu", cr.page_shift,
	      cr.version, (unsigned long long)cr.phc_offset);
	CHECK_RC(get_context(F, NULL, NULL), -EINVAL);

	/* QUERY_DEVICE, legacy and extended */
	{
		struct ib_uverbs_query_device core = { 0 };
		struct ib_uverbs_ex_query_device ex = { 0 };
		struct ib_uverbs_ex_query_device_resp *x =
			(struct ib_uverbs_ex_query_device_resp *)respbuf;

		CHECK_RC(leg(F, IB_USER_VERBS_CMD_QUERY_DEVICE, &core,
			     sizeof(core), NULL, 0, 176),
			 16);
		dev = (struct ib_uverbs_query_device_resp *)respbuf;
		CHECK(dev->vendor_id == 0x1dd8 && dev->vendor_part_id == 0x1002,
		      "vendor");
		CHECK(dev->max_sge == 8 && dev->phys_port_cnt == 1 &&
			      dev->max_cqe == 65435 &&
			      dev->max_qp_wr == 0xffff && dev->max_pkeys == 1 &&
			      dev->max_qp_rd_atom == 16 &&
			      dev->atomic_cap == IBV_ATOMIC_GLOB,
		      "device limits");
		CHECK(((uint8_t *)&dev->node_guid)[3] == 0xff &&
			      ((uint8_t *)&dev->node_guid)[4] == 0xfe,
		      "eui64 guid");
		CHECK(dev->reserved[0] == 0, "zero filled");
		CHECK_RC(exc(F, IB_USER_VERBS_EX_CMD_QUERY_DEVICE, &ex,
			     sizeof(ex), NULL, 0, 304, 0),
			 32);
		CHECK(x->response_length == 304 && x->base.max_sge == 8,
		      "ex response_length %u", x->response_length);
		ex.comp_mask = 1;
		CHECK_RC(exc(F, IB_USER_VERBS_EX_CMD_QUERY_DEVICE, &ex,
			     sizeof(ex), NULL, 0, 304, 0),
			 -EINVAL);
	}

	/* QUERY_PORT */
	{
		struct ib_uverbs_query_port core = { 0 };
		struct ib_uverbs_query_port_resp *r =
			(struct ib_uverbs_query_port_resp *)respbuf;

		core.port_num = 1;
		CHECK_RC(leg(F, IB_USER_VERBS_CMD_QUERY_PORT, &core,
			     sizeof(core), NULL, 0, 40),
			 24);
		CHECK(r->state == IBV_PORT_ACTIVE &&
			      r->link_layer == IBV_LINK_LAYER_ETHERNET &&
			      r->gid_tbl_len == 256 &&
			      r->active_mtu == IBV_MTU_1024 &&
			      r->max_mtu == IBV_MTU_4096 &&
			      r->max_msg_sz == 0x80000000u,
		      "port");
		core.port_num = 2;
		CHECK_RC(leg(F, IB_USER_VERBS_CMD_QUERY_PORT, &core,
			     sizeof(core), NULL, 0, 40),
			 -EINVAL);
	}

	/* PD, MR, MW */
	pd = alloc_pd();
	/* A driver response the driver does not write (ionic's ALLOC_PD has
	 * none) leaves the caller's bytes alone (ib_copy_to_udata copies only
	 * what the driver wrote): 8 response bytes, 4 of them core. */
	{
		struct ib_uverbs_alloc_pd core = { 0 };
		struct ib_uverbs_dealloc_pd dp2 = { 0 };
		uint32_t pd2;

		CHECK_RC(leg(F, IB_USER_VERBS_CMD_ALLOC_PD, &core, sizeof(core),
			     NULL, 0, 8),
			 16);
		memcpy(&pd2, respbuf, 4);
		CHECK(pd2 != pd, "second pd handle %u", pd2);
		CHECK(respbuf[4] == 0xa5 && respbuf[7] == 0xa5,
		      "untouched driver response %02x %02x", respbuf[4],
		      respbuf[7]);
		dp2.pd_handle = pd2;
		CHECK_RC(leg(F, IB_USER_VERBS_CMD_DEALLOC_PD, &dp2, sizeof(dp2),
			     NULL, 0, 0),
			 12);
	}
	{
		struct ib_uverbs_reg_mr core = { 0 };
		struct ib_uverbs_reg_mr_resp *r =
			(struct ib_uverbs_reg_mr_resp *)respbuf;
		struct ib_uverbs_alloc_mw mw = { 0 };
		struct ib_uverbs_dealloc_pd dp = { .pd_handle = pd };
		void *mem = ring(8192);

		core.start = (uintptr_t)mem;
		core.length = 8192;
		core.hca_va = (uintptr_t)mem;
		core.pd_handle = pd;
		core.access_flags = IBV_ACCESS_REMOTE_WRITE;
		CHECK_RC(leg(F, IB_USER_VERBS_CMD_REG_MR, &core, sizeof(core),
			     NULL, 0, 12),
			 -EINVAL);
		core.access_flags = IBV_ACCESS_REMOTE_ATOMIC;
		CHECK_RC(leg(F, IB_USER_VERBS_CMD_REG_MR, &core, sizeof(core),
			     NULL, 0, 12),
			 -EINVAL);
		core.access_flags = IBV_ACCESS_LOCAL_WRITE |
				    IBV_ACCESS_REMOTE_WRITE;
		core.hca_va = 0x10000123;
		CHECK_RC(leg(F, IB_USER_VERBS_CMD_REG_MR, &core, sizeof(core),
			     NULL, 0, 12),
			 -EINVAL);
		core.hca_va = 0x10000000;
		CHECK_RC(leg(F, IB_USER_VERBS_CMD_REG_MR, &core, sizeof(core),
			     NULL, 0, 12),
			 48);
		CHECK(r->lkey == r->rkey && r->lkey == ((1u << 8) | 1),
		      "first key 0x%x", r->lkey);
		mr_handle = r->mr_handle;
		CHECK(isim_key_lookup(isim_nic, r->lkey) != NULL, "key lookup");
		core.start = 0x1000; /* unmapped */
		core.hca_va = 0x1000;
		CHECK_RC(leg(F, IB_USER_VERBS_CMD_REG_MR, &core, sizeof(core),
			     NULL, 0, 12),
			 -EFAULT);

		mw.pd_handle = pd;
		mw.mw_type = 3;
		CHECK_RC(leg(F, IB_USER_VERBS_CMD_ALLOC_MW, &mw, sizeof(mw),
			     NULL, 0, 8),
			 -EINVAL);
		mw.mw_type = 2;
		CHECK_RC(leg(F, IB_USER_VERBS_CMD_ALLOC_MW, &mw, sizeof(mw),
			     NULL, 0, 8),
			 24);
		CHECK(((struct ib_uverbs_alloc_mw_resp *)respbuf)->rkey ==
			      ((2u << 8) | 2),
		      "mw key");
		CHECK_RC(leg(F, IB_USER_VERBS_CMD_DEALLOC_PD, &dp, sizeof(dp),
			     NULL, 0, 0),
			 -EBUSY);
	}

	/* completion channel and CQs */
	{
		struct ib_uverbs_create_comp_channel core = { 0 };

		CHECK_RC(leg(F, IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL, &core,
			     sizeof(core), NULL, 0, 4),
			 16);
		chan_fd = ((struct ib_uverbs_create_comp_channel_resp *)respbuf)
				  ->fd;
	}
	creq = cq_req();
	CHECK_RC(create_cq(100, 0, chan_fd, &creq, &cq, &cdr), 80);
	CHECK(cdr.udma_mask == 3 && cdr.cqid[0] == 0 && cdr.cqid[1] == 16,
	      "cqids %u %u mask %u", cdr.cqid[0], cdr.cqid[1], cdr.udma_mask);
	CHECK(isim_hwcq_lookup(isim_nic, 16) != NULL, "hwcq lookup");
	creq.cq[0].mask = 7;
	CHECK_RC(create_cq(100, 0, -1, &creq, &cq2, &cdr), -EINVAL);
	creq = cq_req();
	creq.cq[1].addr += 8;
	CHECK_RC(create_cq(100, 0, -1, &creq, &cq2, &cdr), -EINVAL);
	creq = cq_req();
	creq.cq[0].size = 4096 - 1;
	CHECK_RC(create_cq(100, 0, -1, &creq, &cq2, &cdr), -EINVAL);
	creq = cq_req();
	CHECK_RC(create_cq(65436, 0, -1, &creq, &cq2, &cdr), -EINVAL);
	CHECK_RC(create_cq(0, 0, -1, &creq, &cq2, &cdr), -EINVAL);
	CHECK_RC(create_cq(100, 4, -1, &creq, &cq2, &cdr), -EINVAL);
	CHECK_RC(create_cq(100, 0, 0, &creq, &cq2, &cdr), -EBADF);
	creq.udma_mask = 0;
	CHECK_RC(create_cq(100, 0, -1, &creq, &cq2, &cdr), -EINVAL);
	creq = cq_req();
	creq.udma_mask = 2;
	CHECK_RC(create_cq(65435, 3, -1, &creq, &cq2, &cdr), 80);
	CHECK(cdr.udma_mask == 2 && cdr.cqid[0] == 0 && cdr.cqid[1] == 17,
	      "cq2 ids %u %u", cdr.cqid[0], cdr.cqid[1]);
	{
		struct ib_uverbs_ex_create_cq ex = {
			.user_handle = 1,
			.cqe = 10,
			.comp_channel = -1,
			.flags = 1,
		};

		creq = cq_req();
		CHECK_RC(exc(F, IB_USER_VERBS_EX_CMD_CREATE_CQ, &ex, sizeof(ex),
			     &creq, sizeof(creq), 16, 16),
			 -EOPNOTSUPP);
		ex.flags = 0;
		CHECK_RC(exc(F, IB_USER_VERBS_EX_CMD_CREATE_CQ, &ex, sizeof(ex),
			     &creq, sizeof(creq), 16, 16),
			 24 + 32 + 40);
		CHECK(((struct ib_uverbs_ex_create_cq_resp *)respbuf)
				      ->response_length == 16,
		      "ex cq response_length");
	}

	/* QPs */
	qreq = qp_req();
	CHECK_RC(create_qp(IBV_QPT_RC, pd, cq, 1, &qreq, &qr, &qdr), 104);
	qp = qr.qp_handle;
	CHECK(qr.qpn == 2 && qdr.qpid == 2 && qdr.udma_idx == 0,
	      "first qpn %u udma %u", qr.qpn, qdr.udma_idx);
	CHECK(qr.max_send_wr == 63 && qr.max_send_sge == 2 &&
		      qr.max_inline_data == 32 && qr.max_recv_sge == 2,
	      "caps");
	qreq = qp_req();
	CHECK_RC(create_qp(IBV_QPT_UD, pd, cq, 1, &qreq, &qr, &qdr), 104);
	ud = qr.qp_handle;
	CHECK(qr.qpn == 16 && qdr.udma_idx == 1, "second qpn %u", qr.qpn);
	busy_qpn = 3;
	qreq = qp_req();
	CHECK_RC(create_qp(IBV_QPT_UC, pd, cq, 1, &qreq, &qr, &qdr), 104);
	uc = qr.qp_handle;
	CHECK(qr.qpn == 4, "EADDRINUSE skipped: qpn %u", qr.qpn);
	busy_qpn = UINT32_MAX;
	qreq = qp_req();
	CHECK_RC(create_qp(IBV_QPT_RAW_PACKET, pd, cq, 1, &qreq, &qr, &qdr),
		 -EOPNOTSUPP);
	CHECK_RC(create_qp(IBV_QPT_XRC_SEND, pd, cq, 1, &qreq, &qr, &qdr),
		 -EOPNOTSUPP);
	CHECK_RC(create_qp(IBV_QPT_RC, pd, cq, 0, &qreq, &qr, &qdr), -EINVAL);
	CHECK_RC(create_qp(IBV_QPT_RC, pd, cq, 9, &qreq, &qr, &qdr), -EINVAL);
	qreq.rq.stride_log2 = 0;
	CHECK_RC(create_qp(IBV_QPT_RC, pd, cq, 1, &qreq, &qr, &qdr), -EINVAL);
	qreq = qp_req();
	qreq.udma_mask = 2;
	CHECK_RC(create_qp(IBV_QPT_RC, pd, cq2, 1, &qreq, &qr, &qdr), 104);
	qp2 = qr.qp_handle;
	CHECK(qdr.udma_idx == 1 && qr.qpn == 17, "masked qp udma %u qpn %u",
	      qdr.udma_idx, qr.qpn);

	/* SQ in controller memory */
	{
		struct isim_qp *q;
		uint32_t h;

		qreq = qp_req();
		qreq.sq_cmb = IONIC_CMB_ENABLE;
		CHECK_RC(create_qp(IBV_QPT_UD, pd, cq, 1, &qreq, &qr, &qdr),
			 104);
		h = qr.qp_handle;
		CHECK(qdr.sq_cmb == (IONIC_CMB_ENABLE | IONIC_CMB_WC) &&
			      qdr.sq_cmb_offset == 8192 && qdr.rq_cmb == 0,
		      "cmb resp 0x%x off %llu", qdr.sq_cmb,
		      (unsigned long long)qdr.sq_cmb_offset);
		q = isim_qp_lookup(isim_nic, qdr.qpid);
		p = isim_file_mmap(F, NULL, 4096, PROT_READ | PROT_WRITE,
				   MAP_SHARED, 8192, &err);
		CHECK(p && !err && q &&
			      q->sq.ring != (uint8_t *)(uintptr_t)qreq.sq.addr,
		      "cmb map err %d", err);
		if (p && q) {
			((volatile uint8_t *)p)[100] = 0x5a;
			CHECK(q->sq.ring[100] == 0x5a, "device sees CMB ring");
		}
		qreq.sq_cmb = IONIC_CMB_ENABLE | IONIC_CMB_REQUIRE |
			      IONIC_CMB_EXPDB;
		CHECK_RC(create_qp(IBV_QPT_UD, pd, cq, 1, &qreq, &qr, &qdr),
			 104);
		CHECK(qdr.sq_cmb == 0 && qdr.sq_cmb_offset == 0, "no expdb");
		{
			struct ib_uverbs_destroy_qp dq = {
				.qp_handle = qr.qp_handle
			};

			CHECK_RC(leg(F, IB_USER_VERBS_CMD_DESTROY_QP, &dq,
				     sizeof(dq), NULL, 0, 4),
				 24);
		}
		qreq.sq_cmb = IONIC_CMB_ENABLE | IONIC_CMB_UC | IONIC_CMB_EXPDB;
		CHECK_RC(create_qp(IBV_QPT_UD, pd, cq, 1, &qreq, &qr, &qdr),
			 104);
		CHECK(qdr.sq_cmb == (IONIC_CMB_ENABLE | IONIC_CMB_UC) &&
			      qdr.sq_cmb_offset == 12288,
		      "cmb uc 0x%x off %llu", qdr.sq_cmb,
		      (unsigned long long)qdr.sq_cmb_offset);
		{
			struct ib_uverbs_destroy_qp dq = { .qp_handle = h };

			CHECK_RC(leg(F, IB_USER_VERBS_CMD_DESTROY_QP, &dq,
				     sizeof(dq), NULL, 0, 4),
				 24);
			dq.qp_handle = qr.qp_handle;
			CHECK_RC(leg(F, IB_USER_VERBS_CMD_DESTROY_QP, &dq,
				     sizeof(dq), NULL, 0, 4),
				 24);
		}
		p = isim_file_mmap(F, NULL, 4096, PROT_READ | PROT_WRITE,
				   MAP_SHARED, 8192, &err);
		CHECK(!p && err == -EINVAL, "cmb window gone with its QP");
	}

	/* modify_qp transitions */
	CHECK_RC(modify(qp, RC_RTR, fill_rtr, IBV_QPS_RTR), -EINVAL);
	CHECK_RC(modify(qp, IBV_QP_STATE | IBV_QP_PORT, fill_init,
			IBV_QPS_INIT),
		 -EINVAL);
	CHECK_RC(modify(qp, RC_INIT | IBV_QP_CAP, fill_init, IBV_QPS_INIT),
		 -EINVAL);
	CHECK_RC(modify(qp, RC_INIT, fill_init, IBV_QPS_INIT), 120);
	CHECK_RC(modify(qp, RC_RTR & ~IBV_QP_AV, fill_rtr, IBV_QPS_RTR),
		 -EINVAL);
	CHECK_RC(modify(qp, RC_RTR, fill_rtr_noglobal, IBV_QPS_RTR), -EINVAL);
	CHECK_RC(modify(qp, RC_RTR, fill_rtr, IBV_QPS_RTR), 120);
	CHECK_RC(modify(qp, RC_RTS, fill_rts, IBV_QPS_RTS), 120);
	CHECK_RC(modify(uc,
			IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				IBV_QP_ACCESS_FLAGS,
			fill_init, IBV_QPS_INIT),
		 120);
	CHECK_RC(modify(uc,
			IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				IBV_QP_DEST_QPN | IBV_QP_RQ_PSN,
			fill_rtr, IBV_QPS_RTR),
		 -ENOMEM);
	CHECK_RC(modify(ud,
			IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				IBV_QP_QKEY,
			fill_ud_init, IBV_QPS_INIT),
		 -EPERM);
	CHECK_RC(modify(ud, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT,
			fill_ud_init, IBV_QPS_INIT),
		 -EINVAL);
	CHECK_RC(modify(ud, IBV_QP_STATE, NULL, IBV_QPS_ERR), 120);
	CHECK_RC(modify(ud, IBV_QP_STATE, NULL, IBV_QPS_RTS), -EINVAL);
	CHECK_RC(modify(ud, IBV_QP_STATE, NULL, IBV_QPS_RESET), 120);

	/* query_qp */
	{
		struct ib_uverbs_query_qp core = {
			.qp_handle = qp,
			.attr_mask = 0x1ffffff,
		};
		struct ib_uverbs_query_qp_resp *r =
			(struct ib_uverbs_query_qp_resp *)respbuf;

		CHECK_RC(leg(F, IB_USER_VERBS_CMD_QUERY_QP, &core, sizeof(core),
			     NULL, 0, 128),
			 24);
		CHECK(r->qp_state == IBV_QPS_RTS &&
			      r->path_mtu == IBV_MTU_1024 &&
			      r->dest_qp_num == 17 && r->sq_psn == 0x456 &&
			      r->rq_psn == 0x123 && r->max_send_wr == 63 &&
			      r->dest.is_global == 1 &&
			      r->dest.sgid_index == 1 &&
			      r->max_rd_atomic == 1 &&
			      r->max_dest_rd_atomic == 1 && r->retry_cnt == 7 &&
			      r->port_num == 0,
		      "query_qp");
	}

	/* address handles */
	{
		struct ib_uverbs_create_ah core;

		memset(&core, 0, sizeof(core));
		core.pd_handle = pd;
		core.attr.port_num = 1;
		CHECK_RC(leg(F, IB_USER_VERBS_CMD_CREATE_AH, &core,
			     sizeof(core), NULL, 0, 12),
			 -EINVAL);
		core.attr.is_global = 1;
		core.attr.grh.sgid_index = 1;
		CHECK_RC(leg(F, IB_USER_VERBS_CMD_CREATE_AH, &core,
			     sizeof(core), NULL, 0, 12),
			 64);
		/* RC QPs took ahids 0 and 1 */
		CHECK(((uint32_t *)respbuf)[1] == 2, "ahid %u",
		      ((uint32_t *)respbuf)[1]);
		CHECK(isim_ah_lookup(isim_nic, 2) != NULL, "ah lookup");
		core.attr.port_num = 2;
		CHECK_RC(leg(F, IB_USER_VERBS_CMD_CREATE_AH, &core,
			     sizeof(core), NULL, 0, 12),
			 -EINVAL);
	}

	/* events and destroy counts */
	{
		struct isim_qp *q = isim_qp_lookup(isim_nic, 2);
		struct isim_cq *c = isim_nic->cqs[0];
		struct ib_uverbs_destroy_qp dq = { .qp_handle = qp };
		struct ib_uverbs_destroy_cq dc = { .cq_handle = cq };
		uint8_t ev[16];

		CHECK(q && c, "objects by id");
		post_async(q);
		post_async(q);
		CHECK_RC(read(async_fd, ev, sizeof(ev)), 16);
		CHECK(((struct ib_uverbs_async_event_desc *)ev)->element ==
			      0x5000,
		      "async element");
		post_comp(c);
		post_comp(c);
		post_comp(c);
		CHECK_RC(read(chan_fd, ev, sizeof(ev)), 8);

		CHECK_RC(leg(F, IB_USER_VERBS_CMD_DESTROY_CQ, &dc, sizeof(dc),
			     NULL, 0, 8),
			 -EBUSY);
		CHECK_RC(leg(F, IB_USER_VERBS_CMD_DESTROY_QP, &dq, sizeof(dq),
			     NULL, 0, 4),
			 24);
		CHECK(((struct ib_uverbs_destroy_qp_resp *)respbuf)
				      ->events_reported == 1,
		      "qp events_reported %u",
		      ((struct ib_uverbs_destroy_qp_resp *)respbuf)
			      ->events_reported);
		dq.qp_handle = ud;
		CHECK_RC(leg(F, IB_USER_VERBS_CMD_DESTROY_QP, &dq, sizeof(dq),
			     NULL, 0, 4),
			 24);
		dq.qp_handle = uc;
		CHECK_RC(leg(F, IB_USER_VERBS_CMD_DESTROY_QP, &dq, sizeof(dq),
			     NULL, 0, 4),
			 24);
		CHECK_RC(leg(F, IB_USER_VERBS_CMD_DESTROY_CQ, &dc, sizeof(dc),
			     NULL, 0, 8),
			 24);
		CHECK(((struct ib_uverbs_destroy_cq_resp *)respbuf)
				      ->comp_events_reported == 1,
		      "cq comp events %u",
		      ((struct ib_uverbs_destroy_cq_resp *)respbuf)
			      ->comp_events_reported);
		CHECK(recv(chan_fd, ev, sizeof(ev), MSG_DONTWAIT) < 0,
		      "unread events dropped");
		CHECK(isim_nic->cqs[0] == NULL, "cqid freed");
	}

	/* mmap */
	p = isim_file_mmap(F, NULL, 8192, PROT_WRITE, MAP_SHARED, 0, &err);
	CHECK(!p && err == -EINVAL, "dbell len");
	p = isim_file_mmap(F, NULL, 4096, PROT_WRITE, MAP_PRIVATE, 0, &err);
	CHECK(!p && err == -EINVAL, "dbell private");
	p = isim_file_mmap(F, NULL, 4096, PROT_WRITE, MAP_SHARED, 0, &err);
	CHECK(p && !err, "dbell map");
	p = isim_file_mmap(F, NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
			   4096, &err);
	CHECK(!p && err == -EPERM, "phc write");
	p = isim_file_mmap(F, NULL, 4096, PROT_READ, MAP_SHARED, 4096, &err);
	CHECK(p && !err, "phc map err %d", err);
	if (p) {
		uint32_t sign = *(volatile uint32_t *)p;
		uint64_t mask;

		memcpy(&mask, (uint8_t *)p + 40, 8);
		CHECK(!(sign & 1) && sign && mask == ISIM_PHC_MASK,
		      "phc page sign %u", sign);
		CHECK(mprotect(p, 4096, PROT_READ | PROT_WRITE) < 0,
		      "phc mprotect write must fail");
	}
	p = isim_file_mmap(F, NULL, 4096, PROT_READ, MAP_SHARED, 8192, &err);
	CHECK(!p && err == -EINVAL, "no entry");

	/* ioctl */
	{
		struct ib_uverbs_ioctl_hdr h = { 0 };

		h.length = sizeof(h);
		CHECK_RC(isim_file_ioctl(F, RDMA_VERBS_IOCTL, &h),
			 -EPROTONOSUPPORT);
		h.object_id = UVERBS_OBJECT_MR;
		h.method_id = UVERBS_METHOD_REG_DMABUF_MR;
		CHECK_RC(isim_file_ioctl(F, RDMA_VERBS_IOCTL, &h), -EOPNOTSUPP);
		CHECK_RC(isim_file_ioctl(F, 0x5401, &h), -ENOTTY);
	}

	/* a second file, released with objects still alive */
	CHECK_RC(isim_file_open(0, &f2), 0);
	{
		struct isim_file *save = F;
		int qd = dev_qp_destroyed, cd = dev_cq_destroyed;

		CHECK_RC(get_context(f2, &cr, NULL), 0);
		F = f2;
		pd = alloc_pd();
		creq = cq_req();
		CHECK_RC(create_cq(10, 0, -1, &creq, &cq, &cdr), 80);
		qreq = qp_req();
		CHECK_RC(create_qp(IBV_QPT_RC, pd, cq, 1, &qreq, &qr, &qdr),
			 104);
		isim_file_release(f2);
		CHECK(dev_qp_destroyed == qd + 1 && dev_cq_destroyed == cd + 2,
		      "release tore down");
		CHECK(isim_qp_lookup(isim_nic, qr.qpn) == NULL, "qpn freed");
		CHECK_RC(leg(f2, IB_USER_VERBS_CMD_ALLOC_PD, buf, 8, NULL, 0,
			     4),
			 -EIO);
		F = save;
	}
	/* fork: the child's inherited file is dead, a new open works */
	{
		pid_t pid = fork();

		if (pid == 0) {
			struct isim_file *fc;
			int bad = 0;

			isim_model_atfork_child();
			bad |= leg(F, IB_USER_VERBS_CMD_ALLOC_PD, buf, 8, NULL,
				   0, 4) != -EIO;
			bad |= isim_file_open(0, &fc) != 0;
			bad |= get_context(fc, NULL, NULL) != 0;
			isim_file_release(F);
			isim_file_release(fc);
			_exit(bad);
		}
		int st = -1;

		waitpid(pid, &st, 0);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "fork child");
	}
	(void)mr_handle;
	(void)qp2;
	isim_file_release(F);
	printf("%d checks, %d failures\n", checks, failures);
	return failures ? 1 : 0;
}
