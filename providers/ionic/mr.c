// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Memory regions and memory windows.  The kernel does all the work (the
 * ionic driver takes no driver data for them); the provider only chooses
 * the kernel PD: a parent domain's root PD, since parent domains do not
 * exist in the kernel.
 */
#include <errno.h>
#include <stdlib.h>

#include "ionic.h"

/* A registration's result: the MR, or NULL and errno for a failed one. */
static struct ibv_mr *ionic_mr_or_free(struct verbs_mr *vmr, int rc)
{
	if (rc) {
		free(vmr);
		errno = rc;
		return NULL;
	}
	return &vmr->ibv_mr;
}

/* The kernel object is gone: free ours.  On failure both stay valid. */
static int ionic_free_if_destroyed(void *obj, int rc)
{
	if (!rc)
		free(obj);
	return rc;
}

struct ibv_mr *ionic_reg_mr(struct ibv_pd *ibpd, void *addr, size_t len,
			    uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp;
	struct ibv_reg_mr cmd;
	struct verbs_mr *vmr;
	int rc;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr) {
		errno = ENOMEM;
		return NULL;
	}

	rc = ibv_cmd_reg_mr(ionic_root_ibpd(ibpd), addr, len, hca_va, access,
			    vmr, &cmd, sizeof(cmd), &resp, sizeof(resp));
	return ionic_mr_or_free(vmr, rc);
}

struct ibv_mr *ionic_reg_dmabuf_mr(struct ibv_pd *ibpd, uint64_t offset,
				   size_t len, uint64_t iova, int fd,
				   int access)
{
	struct verbs_mr *vmr;
	int rc;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr) {
		errno = ENOMEM;
		return NULL;
	}

	/* ioctl only in this libibverbs; its errno is the answer */
	rc = ionic_ibv_cmd_reg_dmabuf_mr(ionic_root_ibpd(ibpd), offset, len,
					 iova, fd, access, vmr);
	return ionic_mr_or_free(vmr, rc);
}

int ionic_dereg_mr(struct verbs_mr *vmr)
{
	return ionic_free_if_destroyed(vmr, ibv_cmd_dereg_mr(vmr));
}

struct ibv_mw *ionic_alloc_mw(struct ibv_pd *ibpd, enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp;
	struct ibv_alloc_mw cmd;
	struct ibv_mw *mw;
	int rc;

	mw = calloc(1, sizeof(*mw));
	if (!mw) {
		errno = ENOMEM;
		return NULL;
	}

	rc = ibv_cmd_alloc_mw(ionic_root_ibpd(ibpd), type, mw, &cmd,
			      sizeof(cmd), &resp, sizeof(resp));
	if (rc) {
		free(mw);
		errno = rc;
		return NULL;
	}

	/* report the PD the application used, as reg_mr does */
	mw->pd = ibpd;
	return mw;
}

int ionic_dealloc_mw(struct ibv_mw *mw)
{
	return ionic_free_if_destroyed(mw, ibv_cmd_dealloc_mw(mw));
}
