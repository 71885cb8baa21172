// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Importing objects another ibv_context owns: ibv_import_device on a
 * duplicate of its command fd, then ibv_import_pd / ibv_import_mr by
 * handle, and their ibv_unimport_* (upstream's ionic provider has none).
 *
 * An imported context is the same kernel ucontext: the provider asks the
 * kernel for the context's description (QUERY_CONTEXT with the driver's
 * answer, docs/kernel-contract.md §21) instead of creating one, and maps
 * the same doorbell and clock pages.  A PD needs nothing from the kernel
 * (the handle is all the commands carry); an MR's keys and length come
 * from QUERY_MR.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "ionic.h"

/* DEVICE / QUERY_CONTEXT with the ionic answer as driver output. */
static int ionic_query_context(int cmd_fd, uint32_t *ncv,
			       struct ionic_ctx_resp *resp)
{
	struct {
		struct ib_uverbs_ioctl_hdr hdr;
		struct ib_uverbs_attr attrs[3];
	} cmd;
	uint64_t core = 0;

	memset(&cmd, 0, sizeof(cmd));
	cmd.hdr.length = sizeof(cmd);
	cmd.hdr.object_id = UVERBS_OBJECT_DEVICE;
	cmd.hdr.method_id = UVERBS_METHOD_QUERY_CONTEXT;
	cmd.hdr.num_attrs = 3;
	cmd.hdr.driver_id = RDMA_DRIVER_IONIC;
	cmd.attrs[0] = (struct ib_uverbs_attr){
		.attr_id = UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS,
		.len = sizeof(*ncv),
		.flags = UVERBS_ATTR_F_MANDATORY,
		.data = (uintptr_t)ncv,
	};
	cmd.attrs[1] = (struct ib_uverbs_attr){
		.attr_id = UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT,
		.len = sizeof(core),
		.flags = UVERBS_ATTR_F_MANDATORY,
		.data = (uintptr_t)&core,
	};
	/* mandatory: a kernel that cannot describe the context to us
	 * refuses the import (EPROTONOSUPPORT) instead of half doing it */
	cmd.attrs[2] = (struct ib_uverbs_attr){
		.attr_id = UVERBS_ATTR_UHW_OUT,
		.len = sizeof(*resp),
		.flags = UVERBS_ATTR_F_MANDATORY,
		.data = (uintptr_t)resp,
	};
	if (ioctl(cmd_fd, RDMA_VERBS_IOCTL, &cmd))
		return errno;
	return 0;
}

struct verbs_context *ionic_import_context(struct ibv_device *ibdev, int cmd_fd)
{
	struct ionic_ctx_resp resp;
	struct ionic_ctx *ctx;
	uint32_t ncv = 0;
	int rc;

	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, vctx,
					   RDMA_DRIVER_IONIC);
	if (!ctx)
		return NULL;

	memset(&resp, 0, sizeof(resp));
	rc = ionic_query_context(cmd_fd, &ncv, &resp);
	if (rc) {
		verbs_err(&ctx->vctx, "cannot query the imported context: %s\n",
			  strerror(rc));
		verbs_uninit_context(&ctx->vctx);
		free(ctx);
		errno = rc;
		return NULL;
	}
	ctx->vctx.context.num_comp_vectors = (int)ncv;
	if (ionic_ctx_setup(ctx, cmd_fd, &resp))
		return NULL;
	return &ctx->vctx;
}

struct ibv_pd *ionic_import_pd(struct ibv_context *ibctx, uint32_t handle)
{
	struct ionic_pd *pd;

	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	pd->ibpd.context = ibctx;
	pd->ibpd.handle = handle;
	ionic_pd_init_root(pd, to_ionic_ctx(ibctx));
	return &pd->ibpd;
}

/* The kernel PD stays: its owner (or a later ibv_dealloc_pd) frees it. */
void ionic_unimport_pd(struct ibv_pd *ibpd)
{
	free(to_ionic_pd(ibpd));
}

struct ibv_mr *ionic_import_mr(struct ibv_pd *ibpd, uint32_t handle)
{
	struct verbs_mr *vmr;
	int rc;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr) {
		errno = ENOMEM;
		return NULL;
	}
	rc = ibv_cmd_query_mr(ibpd, vmr, handle);
	if (rc) {
		free(vmr);
		errno = rc;
		return NULL;
	}
	return &vmr->ibv_mr;
}

void ionic_unimport_mr(struct ibv_mr *ibmr)
{
	free(container_of(ibmr, struct verbs_mr, ibv_mr));
}
