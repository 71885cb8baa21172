// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: the uverbs ioctl interface.  No method is
 * implemented: libibverbs 44 falls back to write() per method when a method
 * answers EPROTONOSUPPORT, and the INVOKE_WRITE probe answered that way
 * keeps it on plain write() (docs/libibverbs-provider-abi.md §4.5, §4.8).
 * ioctl-only verbs then fail with EPROTONOSUPPORT, which pyverbs treats as
 * "unsupported", except REG_DMABUF_MR whose test skips only on EOPNOTSUPP.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <string.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "kpriv.h"

int ik_file_ioctl(struct ik_file *f, unsigned long req, void *arg)
{
	struct ib_uverbs_ioctl_hdr hdr;
	int rc;

	if (req != RDMA_VERBS_IOCTL)
		return -ENOTTY;
	if (f->dead)
		return -EIO;
	if (ik_copy_from_user(&hdr, (uintptr_t)arg, sizeof(hdr)))
		return -EFAULT;
	if (hdr.object_id == UVERBS_OBJECT_MR &&
	    hdr.method_id == UVERBS_METHOD_REG_DMABUF_MR)
		rc = -EOPNOTSUPP; /* dma-buf import needs real DMA */
	else
		rc = -EPROTONOSUPPORT;
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_CMD,
			   "ioctl object=%u method=%u nattrs=%u -> %d",
			   hdr.object_id, hdr.method_id, hdr.num_attrs, rc);
	return rc;
}
