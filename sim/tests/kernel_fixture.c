// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer tests: the fixture of kernel_fixture.h and a
 * platform (kernel/ik.h) whose doorbell pages are plain memory.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sys/mman.h>
#include <unistd.h>

#include "kernel_fixture.h"

struct ik_file *F;
uint8_t respbuf[4096];

/* ---- the platform -------------------------------------------------------- */

static void *dbpage_map(uint64_t tag, void *addr, size_t len, int *err)
{
	void *p = mmap(addr, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	(void)tag;
	if (p == MAP_FAILED) {
		*err = -errno;
		return NULL;
	}
	return p;
}

/* The express-doorbell window as plain shared memory: its stores are not
 * seen by the device here either. */
static void *window_map(uint64_t tag, void *addr, size_t len, int fd, off_t off,
			int *err)
{
	void *p = mmap(addr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);

	(void)tag;
	if (p == MAP_FAILED) {
		*err = -errno;
		return NULL;
	}
	return p;
}

uint64_t kx_revoked;

static void dbpage_revoke(uint64_t tag)
{
	kx_revoked = tag;
}

/* No stores are captured: the device's MMIO port has nothing to pop. */
static const struct ik_platform plain_memory = {
	.dbpage_map = dbpage_map,
	.window_map = window_map,
	.dbpage_revoke = dbpage_revoke,
};

/* ---- harness -------------------------------------------------------------- */

void kx_open(bool bare)
{
	char name[64];

	snprintf(name, sizeof(name), "test-kernel-%d", (int)getpid());
	setenv(ISIM_ENV_FABRIC, name, 1);
	setenv(ISIM_ENV_PROFILE, "cmb_pages=64", 1);
	CHECK_RET(ik_model_init(&plain_memory), 0);
	CHECK_RET(ik_file_open(0, &F), 0);
	if (!bare)
		CHECK_RET(get_context(F, NULL, NULL), 0);
}

int kx_finish(void)
{
	ik_file_release(F);
	return check_finish();
}

struct idev_stats kx_dev_stats(void)
{
	struct idev_stats st;

	pthread_mutex_lock(&ik_nics[0]->lock);
	idev_get_stats(ik_nics[0]->dev, &st);
	pthread_mutex_unlock(&ik_nics[0]->lock);
	return st;
}

ssize_t destroy_qp(uint32_t qp_handle)
{
	struct ib_uverbs_destroy_qp dq = { .qp_handle = qp_handle };

	return leg(F, IB_USER_VERBS_CMD_DESTROY_QP, &dq, sizeof(dq), NULL, 0,
		   4);
}

/* Legacy command: hdr | core | drv.  When out > 0 the core request's first
 * u64 is set to respbuf; 'out' is core + driver response bytes. */
ssize_t leg(struct ik_file *f, uint32_t cmd, void *core, size_t core_len,
	    const void *drv, size_t drv_len, size_t out)
{
	uint8_t buf[1024];

	return ik_file_write(
		f, buf, leg_build(buf, cmd, core, core_len, drv, drv_len, out));
}

size_t leg_build(uint8_t *buf, uint32_t cmd, void *core, size_t core_len,
		 const void *drv, size_t drv_len, size_t out)
{
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
	return 8 + core_len + drv_len;
}

/* Extended command: hdr | ex_hdr | core | drv (core/drv multiples of 8) */
ssize_t exc(struct ik_file *f, uint32_t cmd, const void *core, size_t core_len,
	    const void *drv, size_t drv_len, size_t core_out, size_t drv_out)
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
	return ik_file_write(f, buf, 24 + core_len + drv_len);
}

void *ring(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

struct ionic_qdesc qdesc(unsigned int depth_log2, unsigned int stride_log2)
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

int get_context(struct ik_file *f, struct ionic_ctx_resp *dr, int *async_fd)
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

uint32_t alloc_pd(void)
{
	struct ib_uverbs_alloc_pd core = { 0 };

	CHECK_RET(leg(F, IB_USER_VERBS_CMD_ALLOC_PD, &core, sizeof(core), NULL,
		      0, 4),
		  16);
	return ((struct ib_uverbs_alloc_pd_resp *)respbuf)->pd_handle;
}

int create_channel(void)
{
	struct ib_uverbs_create_comp_channel core = { 0 };

	CHECK_RET(leg(F, IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL, &core,
		      sizeof(core), NULL, 0, 4),
		  16);
	return ((struct ib_uverbs_create_comp_channel_resp *)respbuf)->fd;
}

ssize_t create_cq(uint32_t cqe, uint32_t vector, int channel,
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

struct ionic_cq_req cq_req(void)
{
	struct ionic_cq_req r;

	memset(&r, 0, sizeof(r));
	r.cq[0] = qdesc(8, 5);
	r.cq[1] = qdesc(8, 5);
	r.udma_mask = 3;
	return r;
}

struct ionic_qp_req qp_req(void)
{
	struct ionic_qp_req r;

	memset(&r, 0, sizeof(r));
	r.sq = qdesc(6, 6);
	r.rq = qdesc(6, 6);
	r.sq_spec = 2;
	r.rq_spec = 2;
	return r;
}

ssize_t create_qp(uint8_t type, uint32_t pd, uint32_t cq, uint32_t sge,
		  const struct ionic_qp_req *req,
		  struct ib_uverbs_create_qp_resp *r, struct ionic_qp_resp *dr)
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

ssize_t modify(uint32_t qp, uint32_t mask,
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

void fill_init(struct ib_uverbs_modify_qp *m)
{
	m->port_num = 1;
	m->qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
}

void fill_rtr(struct ib_uverbs_modify_qp *m)
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

void fill_rtr_noglobal(struct ib_uverbs_modify_qp *m)
{
	fill_rtr(m);
	m->dest.is_global = 0;
}

void fill_rts(struct ib_uverbs_modify_qp *m)
{
	m->sq_psn = 0x456;
	m->timeout = 14;
	m->retry_cnt = 7;
	m->rnr_retry = 7;
	m->max_rd_atomic = 1;
}

void fill_ud_init(struct ib_uverbs_modify_qp *m)
{
	m->port_num = 1;
	m->qkey = 0x80000001u;
}

void post_async(struct ik_qp *qp)
{
	pthread_mutex_lock(&ik_nics[0]->lock);
	ik_post_async_qp(qp, IBV_EVENT_COMM_EST);
	pthread_mutex_unlock(&ik_nics[0]->lock);
}

void post_comp(struct ik_cq *cq)
{
	pthread_mutex_lock(&ik_nics[0]->lock);
	ik_post_comp_event(cq);
	pthread_mutex_unlock(&ik_nics[0]->lock);
}
