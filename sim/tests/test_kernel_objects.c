// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: protection domains, memory regions and
 * windows (access rules, keys, pinning, busy PDs), completion channels and
 * CQs (qdesc validation, ids per UDMA pipeline, the extended command).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <sys/mman.h>

#include "kernel_fixture.h"

int main(void)
{
	struct ionic_cq_resp cdr;
	struct ionic_cq_req creq;
	uint32_t pd, cq, cq2, mr_handle;
	int chan_fd;

	kx_open(false);
	/* PD, MR, MW */
	pd = alloc_pd();
	/* A driver response the driver does not write (ionic's ALLOC_PD has
	 * none) leaves the caller's bytes alone (ib_copy_to_udata copies only
	 * what the driver wrote): 8 response bytes, 4 of them core. */
	{
		struct ib_uverbs_alloc_pd core = { 0 };
		struct ib_uverbs_dealloc_pd dp2 = { 0 };
		uint32_t pd2;

		CHECK_RET(leg(F, IB_USER_VERBS_CMD_ALLOC_PD, &core,
			      sizeof(core), NULL, 0, 8),
			  16);
		memcpy(&pd2, respbuf, 4);
		CHECK_MSG(pd2 != pd, "second pd handle %u", pd2);
		CHECK_MSG(respbuf[4] == 0xa5 && respbuf[7] == 0xa5,
			  "untouched driver response %02x %02x", respbuf[4],
			  respbuf[7]);
		dp2.pd_handle = pd2;
		CHECK_RET(leg(F, IB_USER_VERBS_CMD_DEALLOC_PD, &dp2,
			      sizeof(dp2), NULL, 0, 0),
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
		CHECK_RET(leg(F, IB_USER_VERBS_CMD_REG_MR, &core, sizeof(core),
			      NULL, 0, 12),
			  -EINVAL);
		core.access_flags = IBV_ACCESS_REMOTE_ATOMIC;
		CHECK_RET(leg(F, IB_USER_VERBS_CMD_REG_MR, &core, sizeof(core),
			      NULL, 0, 12),
			  -EINVAL);
		core.access_flags = IBV_ACCESS_LOCAL_WRITE |
				    IBV_ACCESS_REMOTE_WRITE;
		core.hca_va = 0x10000123;
		CHECK_RET(leg(F, IB_USER_VERBS_CMD_REG_MR, &core, sizeof(core),
			      NULL, 0, 12),
			  -EINVAL);
		core.hca_va = 0x10000000;
		CHECK_RET(leg(F, IB_USER_VERBS_CMD_REG_MR, &core, sizeof(core),
			      NULL, 0, 12),
			  48);
		CHECK_MSG(r->lkey == r->rkey && r->lkey == ((1u << 8) | 1),
			  "first key 0x%x", r->lkey);
		mr_handle = r->mr_handle;
		pthread_mutex_lock(&ik_nics[0]->lock);
		CHECK_MSG(idev_key_valid(ik_nics[0]->dev, r->lkey),
			  "device key");
		pthread_mutex_unlock(&ik_nics[0]->lock);
		core.start = 0x1000; /* unmapped */
		core.hca_va = 0x1000;
		CHECK_RET(leg(F, IB_USER_VERBS_CMD_REG_MR, &core, sizeof(core),
			      NULL, 0, 12),
			  -EFAULT);

		mw.pd_handle = pd;
		mw.mw_type = 3;
		CHECK_RET(leg(F, IB_USER_VERBS_CMD_ALLOC_MW, &mw, sizeof(mw),
			      NULL, 0, 8),
			  -EINVAL);
		mw.mw_type = 2;
		CHECK_RET(leg(F, IB_USER_VERBS_CMD_ALLOC_MW, &mw, sizeof(mw),
			      NULL, 0, 8),
			  24);
		CHECK_MSG(((struct ib_uverbs_alloc_mw_resp *)respbuf)->rkey ==
				  ((2u << 8) | 2),
			  "mw key");
		CHECK_RET(leg(F, IB_USER_VERBS_CMD_DEALLOC_PD, &dp, sizeof(dp),
			      NULL, 0, 0),
			  -EBUSY);
	}

	/* completion channel and CQs */
	chan_fd = create_channel();
	creq = cq_req();
	CHECK_RET(create_cq(100, 0, chan_fd, &creq, &cq, &cdr), 80);
	CHECK_MSG(cdr.udma_mask == 3 && cdr.cqid[0] == 0 && cdr.cqid[1] == 16,
		  "cqids %u %u mask %u", cdr.cqid[0], cdr.cqid[1],
		  cdr.udma_mask);
	CHECK_MSG(ik_nics[0]->cqs[16] != NULL && kx_dev_stats().cqs == 2,
		  "hardware CQs");
	creq.cq[0].mask = 7;
	CHECK_RET(create_cq(100, 0, -1, &creq, &cq2, &cdr), -EINVAL);
	creq = cq_req();
	creq.cq[1].addr += 8;
	CHECK_RET(create_cq(100, 0, -1, &creq, &cq2, &cdr), -EINVAL);
	creq = cq_req();
	creq.cq[0].size = 4096 - 1;
	CHECK_RET(create_cq(100, 0, -1, &creq, &cq2, &cdr), -EINVAL);
	/* the device writes CQEs: a read-only ring cannot be pinned */
	creq = cq_req();
	CHECK_RET(mprotect((void *)(uintptr_t)creq.cq[1].addr, creq.cq[1].size,
			   PROT_READ),
		  0);
	CHECK_RET(create_cq(100, 0, -1, &creq, &cq2, &cdr), -EFAULT);
	creq = cq_req();
	CHECK_RET(create_cq(65436, 0, -1, &creq, &cq2, &cdr), -EINVAL);
	CHECK_RET(create_cq(0, 0, -1, &creq, &cq2, &cdr), -EINVAL);
	CHECK_RET(create_cq(100, 4, -1, &creq, &cq2, &cdr), -EINVAL);
	CHECK_RET(create_cq(100, 0, 0, &creq, &cq2, &cdr), -EBADF);
	creq.udma_mask = 0;
	CHECK_RET(create_cq(100, 0, -1, &creq, &cq2, &cdr), -EINVAL);
	creq = cq_req();
	creq.udma_mask = 2;
	CHECK_RET(create_cq(65435, 3, -1, &creq, &cq2, &cdr), 80);
	CHECK_MSG(cdr.udma_mask == 2 && cdr.cqid[0] == 0 && cdr.cqid[1] == 17,
		  "cq2 ids %u %u", cdr.cqid[0], cdr.cqid[1]);
	{
		struct ib_uverbs_ex_create_cq ex = {
			.user_handle = 1,
			.cqe = 10,
			.comp_channel = -1,
			.flags = 1,
		};

		creq = cq_req();
		CHECK_RET(exc(F, IB_USER_VERBS_EX_CMD_CREATE_CQ, &ex,
			      sizeof(ex), &creq, sizeof(creq), 16, 16),
			  -EOPNOTSUPP);
		ex.flags = 0;
		CHECK_RET(exc(F, IB_USER_VERBS_EX_CMD_CREATE_CQ, &ex,
			      sizeof(ex), &creq, sizeof(creq), 16, 16),
			  24 + 32 + 40);
		CHECK_MSG(((struct ib_uverbs_ex_create_cq_resp *)respbuf)
					  ->response_length == 16,
			  "ex cq response_length");
	}

	(void)mr_handle;
	(void)cq;
	return kx_finish();
}
