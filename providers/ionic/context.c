// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Provider registration, device matching and the device context: the
 * GET_CONTEXT exchange with the kernel, its validation, the doorbell and
 * clock page mappings, and the op table every verb dispatches through.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ionic.h"
#include "cq.h"
#include "qp.h"
#include "table.h"
#include "../../common/ionic_abi_layout.h"

#define IONIC_PCI_VENDOR_ID 0x1dd8
#define IONIC_PCI_DEVICE_PF 0x1002
#define IONIC_PCI_DEVICE_VF 0x1003

/* Firmware version 1 must know opcodes 0..IONIC_V1_OP_BIND_MW (10). */
#define IONIC_V1_MIN_QP_OPCODES 11
/* Speculative SGL formats exist for at most 16 SGEs. */
#define IONIC_SPEC_MAX 16
/* Sanity bounds for the kernel's page size. */
#define IONIC_MIN_PAGE_SHIFT 12
#define IONIC_MAX_PAGE_SHIFT 30

/* GET_CONTEXT with the ionic driver data appended. */
IBV_DRV_CMD(ionic_get_context_cmd, ibv_get_context, ionic_ctx_req,
	    ib_uverbs_get_context_resp, ionic_ctx_resp);
static_assert(sizeof(struct ionic_get_context_cmd) == 24,
	      "GET_CONTEXT request with driver data");
static_assert(sizeof(struct ionic_get_context_cmd_resp) == 48,
	      "GET_CONTEXT response with driver data");

/* ------------------------------------------------------------------------
 * Matching
 */
static const struct verbs_match_ent ionic_match_table[] = {
	/* netlink discovery reports the kernel driver id */
	VERBS_DRIVER_ID(RDMA_DRIVER_IONIC),
	/* sysfs discovery: the PCI function ... */
	VERBS_PCI_MATCH(IONIC_PCI_VENDOR_ID, IONIC_PCI_DEVICE_PF, NULL),
	VERBS_PCI_MATCH(IONIC_PCI_VENDOR_ID, IONIC_PCI_DEVICE_VF, NULL),
	/* ... or the IB device name the driver gives, ionic_<n> */
	VERBS_NAME_MATCH("ionic_", NULL),
	{},
};

/*
 * Called by libibverbs after the table lookup, before its kernel-ABI range
 * check.  Upstream Linux speaks driver ABI 1; AMD's out-of-tree ionic
 * stack reports other numbers with a different udata layout, which this
 * provider must not guess at.  libibverbs only says "does not support the
 * kernel ABI", so say here what to do about it; the device is then
 * skipped by libibverbs' own check.
 */
static bool ionic_abi_hint_printed;

static bool ionic_match_device(struct verbs_sysfs_dev *sysfs_dev)
{
	if (!sysfs_dev->match)
		return false;

	/* once per process: libibverbs re-runs matching on every scan */
	if (sysfs_dev->abi_ver != IONIC_ABI_VERSION &&
	    !__atomic_exchange_n(&ionic_abi_hint_printed, true,
				 __ATOMIC_RELAXED))
		fprintf(stderr,
			"libionic: %s uses ionic kernel ABI %u, this libionic (rdma-core %d) supports only ABI %d of the upstream Linux ionic_rdma driver. Use the libionic shipped with the ionic kernel driver you run, or the upstream driver.\n",
			sysfs_dev->ibdev_name, sysfs_dev->abi_ver,
			IONIC_IBVERBS_RDMA_CORE, IONIC_ABI_VERSION);

	return true;
}

/* ------------------------------------------------------------------------
 * Context
 */

/* Check and store the device description; 0 or EINVAL. */
static int ionic_ctx_parse(struct ionic_ctx *ctx,
			   const struct ionic_ctx_resp *resp)
{
	struct verbs_context *vctx = &ctx->vctx;
	uint64_t db_in_page, page_size;
	uint8_t max_qtype;

	if (resp->version < IONIC_MIN_FW_VERSION ||
	    resp->version > IONIC_MAX_FW_VERSION) {
		verbs_err(
			vctx,
			"firmware RDMA version %u not supported (need %d..%d)\n",
			resp->version, IONIC_MIN_FW_VERSION,
			IONIC_MAX_FW_VERSION);
		return EINVAL;
	}

	if (resp->version == 1 && resp->qp_opcodes < IONIC_V1_MIN_QP_OPCODES) {
		verbs_err(
			vctx,
			"firmware v1 offers %u QP opcodes, need at least %d\n",
			resp->qp_opcodes, IONIC_V1_MIN_QP_OPCODES);
		return EINVAL;
	}

	if (resp->udma_count != 1 && resp->udma_count != 2) {
		verbs_err(vctx,
			  "device reports %u UDMA pipelines, expected 1 or 2\n",
			  resp->udma_count);
		return EINVAL;
	}

	/*
	 * Not checked upstream, but a wrong value would make us map the
	 * wrong length or ring doorbells outside the mapped page.
	 */
	if (resp->page_shift < IONIC_MIN_PAGE_SHIFT ||
	    resp->page_shift > IONIC_MAX_PAGE_SHIFT) {
		verbs_err(vctx, "kernel page shift %u out of range\n",
			  resp->page_shift);
		return EINVAL;
	}
	page_size = 1ull << resp->page_shift;
	db_in_page = resp->dbell_offset & (page_size - 1);
	max_qtype = resp->sq_qtype;
	if (resp->rq_qtype > max_qtype)
		max_qtype = resp->rq_qtype;
	if (resp->cq_qtype > max_qtype)
		max_qtype = resp->cq_qtype;
	if (db_in_page + (max_qtype + 1ull) * sizeof(uint64_t) > page_size) {
		verbs_err(
			vctx,
			"doorbell registers (offset %#llx, qtype %u) exceed the doorbell page\n",
			(unsigned long long)resp->dbell_offset, max_qtype);
		return EINVAL;
	}

	ctx->page_shift = resp->page_shift;
	ctx->version = resp->version;
	ctx->sq_qtype = resp->sq_qtype;
	ctx->rq_qtype = resp->rq_qtype;
	ctx->cq_qtype = resp->cq_qtype;
	ctx->max_stride = resp->max_stride;
	ctx->spec = resp->max_spec <= IONIC_SPEC_MAX ? resp->max_spec : 0;
	ctx->udma_count = resp->udma_count;
	ctx->udma_mask = (uint8_t)((1u << resp->udma_count) - 1);
	ctx->expdb_mask = resp->expdb_mask;
	ctx->sq_expdb = !!(resp->expdb_qtypes & IONIC_EXPDB_SQ);
	ctx->rq_expdb = !!(resp->expdb_qtypes & IONIC_EXPDB_RQ);
	return 0;
}

/* Map the doorbell page write-only; 0 or the mmap/madvise errno. */
static int ionic_map_doorbells(struct ionic_ctx *ctx, int cmd_fd,
			       uint64_t dbell_offset)
{
	size_t len = (size_t)1 << ctx->page_shift;
	uint64_t in_page = dbell_offset & (len - 1);
	void *map;
	int rc;

	map = mmap(NULL, len, PROT_WRITE, MAP_SHARED, cmd_fd,
		   (off_t)(dbell_offset - in_page));
	if (map == MAP_FAILED) {
		rc = errno;
		verbs_err(&ctx->vctx, "cannot map the doorbell page: %s\n",
			  strerror(rc));
		return rc;
	}

	/* A forked child must not inherit (and share) our doorbells. */
	rc = ibv_dontfork_range(map, len);
	if (rc) {
		rc = rc > 0 ? rc : (errno ? errno : EINVAL);
		verbs_err(&ctx->vctx,
			  "cannot protect the doorbell page from fork: %s\n",
			  strerror(rc));
		munmap(map, len);
		return rc;
	}

	ctx->dbpage_map = map;
	ctx->dbpage_len = len;
	ctx->dbpage = (volatile uint64_t *)((uint8_t *)map + in_page);
	return 0;
}

static void ionic_unmap_doorbells(struct ionic_ctx *ctx)
{
	if (!ctx->dbpage_map)
		return;
	ibv_dofork_range(ctx->dbpage_map, ctx->dbpage_len);
	munmap(ctx->dbpage_map, ctx->dbpage_len);
	ctx->dbpage_map = NULL;
	ctx->dbpage = NULL;
}

/* Map the read-only PHC clock page if the kernel offers one. */
static int ionic_map_phc(struct ionic_ctx *ctx, int cmd_fd, uint64_t phc_offset)
{
	void *map;
	int rc;

	if (!phc_offset)
		return 0;

	map = mmap(NULL, IONIC_PHC_PAGE_SIZE, PROT_READ, MAP_SHARED, cmd_fd,
		   (off_t)phc_offset);
	if (map == MAP_FAILED) {
		rc = errno;
		verbs_err(&ctx->vctx,
			  "cannot map the clock page at %#llx: %s\n",
			  (unsigned long long)phc_offset, strerror(rc));
		return rc;
	}

	ctx->phc = map;
	return 0;
}

static void ionic_unmap_phc(struct ionic_ctx *ctx)
{
	if (!ctx->phc)
		return;
	munmap((void *)ctx->phc, IONIC_PHC_PAGE_SIZE);
	ctx->phc = NULL;
}

static struct verbs_context *ionic_alloc_context(struct ibv_device *ibdev,
						 int cmd_fd, void *private_data)
{
	struct ionic_get_context_cmd_resp resp;
	struct ionic_get_context_cmd cmd;
	struct ionic_ctx *ctx;
	int rc;

	(void)private_data;

	/* takes ownership of cmd_fd, also when it fails */
	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, vctx,
					   RDMA_DRIVER_IONIC);
	if (!ctx)
		return NULL;

	/*
	 * Zero the whole response: an older kernel writes fewer bytes and
	 * must leave later fields (phc_offset) at 0, not stack garbage.
	 */
	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
	rc = ionic_ibv_cmd_get_context(&ctx->vctx, &cmd.ibv_cmd, sizeof(cmd),
				       &resp.ibv_resp, sizeof(resp));
	if (rc) {
		verbs_err(&ctx->vctx, "GET_CONTEXT failed: %s\n", strerror(rc));
		goto err_uninit;
	}

	rc = ionic_ctx_setup(ctx, cmd_fd, &resp.drv_payload);
	if (rc)
		return NULL;
	return &ctx->vctx;

err_uninit:
	verbs_uninit_context(&ctx->vctx);
	free(ctx);
	errno = rc;
	return NULL;
}

/*
 * Everything after the kernel's context answer, shared by a new context
 * and an imported one (import.c): check it, map the doorbell and clock
 * pages, install the ops.  On failure the context is uninitialised and
 * freed, and errno set.
 */
int ionic_ctx_setup(struct ionic_ctx *ctx, int cmd_fd,
		    const struct ionic_ctx_resp *resp)
{
	int rc;

	rc = ionic_ctx_parse(ctx, resp);
	if (rc)
		goto err_uninit;

	rc = ionic_map_doorbells(ctx, cmd_fd, resp->dbell_offset);
	if (rc)
		goto err_uninit;

	rc = ionic_map_phc(ctx, cmd_fd, resp->phc_offset);
	if (rc)
		goto err_unmap_db;

	rc = pthread_mutex_init(&ctx->mutex, NULL);
	if (rc) {
		verbs_err(&ctx->vctx, "mutex init failed: %s\n", strerror(rc));
		goto err_unmap_phc;
	}

	ctx->qp_table = ionic_qp_table_create();
	if (!ctx->qp_table) {
		rc = ENOMEM;
		verbs_err(&ctx->vctx, "cannot allocate the QP table\n");
		goto err_mutex;
	}

	verbs_set_ops(&ctx->vctx, &ionic_ctx_ops);
	return 0;

err_mutex:
	pthread_mutex_destroy(&ctx->mutex);
err_unmap_phc:
	ionic_unmap_phc(ctx);
err_unmap_db:
	ionic_unmap_doorbells(ctx);
err_uninit:
	verbs_uninit_context(&ctx->vctx);
	free(ctx);
	errno = rc;
	return rc;
}

static void ionic_free_context(struct ibv_context *ibctx)
{
	struct ionic_ctx *ctx = to_ionic_ctx(ibctx);

	ionic_qp_table_destroy(ctx->qp_table);
	pthread_mutex_destroy(&ctx->mutex);
	ionic_unmap_phc(ctx);
	ionic_unmap_doorbells(ctx);
	verbs_uninit_context(&ctx->vctx);
	free(ctx);
}

const struct verbs_context_ops ionic_ctx_ops = {
	.alloc_mw = ionic_alloc_mw,
	.alloc_parent_domain = ionic_alloc_parent_domain,
	.alloc_pd = ionic_alloc_pd,
	.alloc_td = ionic_alloc_td,
	.bind_mw = ionic_bind_mw,
	.create_ah = ionic_create_ah,
	.create_cq = ionic_create_cq,
	.create_cq_ex = ionic_create_cq_ex,
	.create_qp = ionic_create_qp,
	.create_qp_ex = ionic_create_qp_ex,
	.dealloc_mw = ionic_dealloc_mw,
	.dealloc_pd = ionic_dealloc_pd,
	.dealloc_td = ionic_dealloc_td,
	.dereg_mr = ionic_dereg_mr,
	.destroy_ah = ionic_destroy_ah,
	.destroy_cq = ionic_destroy_cq,
	.destroy_qp = ionic_destroy_qp,
	.free_context = ionic_free_context,
	.import_mr = ionic_import_mr,
	.import_pd = ionic_import_pd,
	.modify_qp = ionic_modify_qp,
	.poll_cq = ionic_poll_cq,
	.post_recv = ionic_post_recv,
	.post_send = ionic_post_send,
	.query_device_ex = ionic_query_device_ex,
	.query_rt_values = ionic_query_rt_values,
	.query_port = ionic_query_port,
	.query_qp = ionic_query_qp,
	.reg_dmabuf_mr = ionic_reg_dmabuf_mr,
	.reg_mr = ionic_reg_mr,
	.req_notify_cq = ionic_req_notify_cq,
	.unimport_mr = ionic_unimport_mr,
	.unimport_pd = ionic_unimport_pd,
};

/* ------------------------------------------------------------------------
 * Device
 */
static struct verbs_device *
ionic_alloc_device(struct verbs_sysfs_dev *sysfs_dev)
{
	struct ionic_device *dev;

	(void)sysfs_dev;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;

	return &dev->vdev;
}

static void ionic_uninit_device(struct verbs_device *vdev)
{
	free(container_of(vdev, struct ionic_device, vdev));
}

static const struct verbs_device_ops ionic_dev_ops = {
	.name = IONIC_PROVIDER_NAME,
	/* upstream Linux ionic_rdma only; see ionic_match_device() */
	.match_min_abi_version = IONIC_ABI_VERSION,
	.match_max_abi_version = IONIC_ABI_VERSION,
	.match_table = ionic_match_table,
	.match_device = ionic_match_device,
	.alloc_device = ionic_alloc_device,
	.uninit_device = ionic_uninit_device,
	.alloc_context = ionic_alloc_context,
	.import_context = ionic_import_context,
};

PROVIDER_DRIVER(ionic, ionic_dev_ops);
