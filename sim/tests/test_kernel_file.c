// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: event files and completion channels with
 * the counts destroy reports (unread events dropped), the mmap table
 * (doorbell, PHC page), a file released with objects alive, fork.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "kernel_fixture.h"

int main(void)
{
	struct ib_uverbs_create_qp_resp qr;
	struct ionic_qp_resp qdr;
	struct ionic_ctx_resp cr;
	struct ionic_cq_resp cdr;
	struct ionic_cq_req creq;
	struct ionic_qp_req qreq;
	struct ik_file *f2;
	uint32_t pd, cq, qp;
	int async_fd, chan_fd, err;
	uint8_t buf[64];
	void *p;

	kx_open(true);
	CHECK_RET(get_context(F, &cr, &async_fd), 0);
	pd = alloc_pd();
	chan_fd = create_channel();
	creq = cq_req();
	CHECK_RET(create_cq(100, 0, chan_fd, &creq, &cq, &cdr), 80);
	qreq = qp_req();
	CHECK_RET(create_qp(IBV_QPT_RC, pd, cq, 1, &qreq, &qr, &qdr), 104);
	qp = qr.qp_handle;
	CHECK_MSG(qr.qpn == 2, "qpn %u", qr.qpn);

	/* events and destroy counts */
	{
		struct ik_qp *q = ik_qp_lookup(ik_nics[0], 2);
		struct ik_cq *c = ik_nics[0]->cqs[0];
		struct ib_uverbs_destroy_qp dq = { .qp_handle = qp };
		struct ib_uverbs_destroy_cq dc = { .cq_handle = cq };
		uint8_t ev[16];

		CHECK_MSG(q && c, "objects by id");
		post_async(q);
		post_async(q);
		CHECK_RET(read(async_fd, ev, sizeof(ev)), 16);
		CHECK_MSG(((struct ib_uverbs_async_event_desc *)ev)->element ==
				  0x5000,
			  "async element");
		post_comp(c);
		post_comp(c);
		post_comp(c);
		CHECK_RET(read(chan_fd, ev, sizeof(ev)), 8);

		CHECK_RET(leg(F, IB_USER_VERBS_CMD_DESTROY_CQ, &dc, sizeof(dc),
			      NULL, 0, 8),
			  -EBUSY);
		CHECK_RET(leg(F, IB_USER_VERBS_CMD_DESTROY_QP, &dq, sizeof(dq),
			      NULL, 0, 4),
			  24);
		CHECK_MSG(((struct ib_uverbs_destroy_qp_resp *)respbuf)
					  ->events_reported == 1,
			  "qp events_reported %u",
			  ((struct ib_uverbs_destroy_qp_resp *)respbuf)
				  ->events_reported);
		CHECK_RET(leg(F, IB_USER_VERBS_CMD_DESTROY_CQ, &dc, sizeof(dc),
			      NULL, 0, 8),
			  24);
		CHECK_MSG(((struct ib_uverbs_destroy_cq_resp *)respbuf)
					  ->comp_events_reported == 1,
			  "cq comp events %u",
			  ((struct ib_uverbs_destroy_cq_resp *)respbuf)
				  ->comp_events_reported);
		CHECK_MSG(recv(chan_fd, ev, sizeof(ev), MSG_DONTWAIT) < 0,
			  "unread events dropped");
		CHECK_MSG(ik_nics[0]->cqs[0] == NULL, "cqid freed");
	}

	/* mmap */
	p = ik_file_mmap(F, NULL, 8192, PROT_WRITE, MAP_SHARED, 0, &err);
	CHECK_MSG(!p && err == -EINVAL, "dbell len");
	p = ik_file_mmap(F, NULL, 4096, PROT_WRITE, MAP_PRIVATE, 0, &err);
	CHECK_MSG(!p && err == -EINVAL, "dbell private");
	p = ik_file_mmap(F, NULL, 4096, PROT_WRITE, MAP_SHARED, 0, &err);
	CHECK_MSG(p && !err, "dbell map");
	p = ik_file_mmap(F, NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
			 4096, &err);
	CHECK_MSG(!p && err == -EPERM, "phc write");
	p = ik_file_mmap(F, NULL, 4096, PROT_READ, MAP_SHARED, 4096, &err);
	CHECK_MSG(p && !err, "phc map err %d", err);
	if (p) {
		uint32_t sign = *(volatile uint32_t *)p;
		uint64_t mask;

		memcpy(&mask, (uint8_t *)p + 40, 8);
		CHECK_MSG(!(sign & 1) && sign && mask == IDEV_CLOCK_MASK,
			  "phc page sign %u", sign);
		CHECK_MSG(mprotect(p, 4096, PROT_READ | PROT_WRITE) < 0,
			  "phc mprotect write must fail");
	}
	p = ik_file_mmap(F, NULL, 4096, PROT_READ, MAP_SHARED, 8192, &err);
	CHECK_MSG(!p && err == -EINVAL, "no entry");

	/* a second file, released with objects still alive */
	CHECK_RET(ik_file_open(0, &f2), 0);
	{
		struct ik_file *save = F;
		struct idev_stats before;
		uint32_t dbid;

		CHECK_RET(get_context(f2, &cr, NULL), 0);
		F = f2;
		pd = alloc_pd();
		creq = cq_req();
		CHECK_RET(create_cq(10, 0, -1, &creq, &cq, &cdr), 80);
		qreq = qp_req();
		CHECK_RET(create_qp(IBV_QPT_RC, pd, cq, 1, &qreq, &qr, &qdr),
			  104);
		before = kx_dev_stats();
		dbid = f2->dbid;
		ik_file_release(f2); /* frees f2 */
		CHECK_MSG(kx_dev_stats().qps == before.qps - 1 &&
				  kx_dev_stats().cqs == before.cqs - 2,
			  "release tore down");
		CHECK_MSG(ik_qp_lookup(ik_nics[0], qr.qpn) == NULL,
			  "qpn freed");
		/* stores to its doorbell page, still mapped, go nowhere */
		CHECK_MSG(kx_revoked == dbid, "page %u revoked (last %llu)",
			  dbid, (unsigned long long)kx_revoked);
		F = save;
	}
	/* fork: the child's inherited file is dead, a new open works */
	{
		pid_t pid = fork();

		if (pid == 0) {
			struct ik_file *fc;
			int bad = 0;

			ik_model_atfork_child();
			bad |= leg(F, IB_USER_VERBS_CMD_ALLOC_PD, buf, 8, NULL,
				   0, 4) != -EIO;
			bad |= ik_file_open(0, &fc) != 0;
			bad |= get_context(fc, NULL, NULL) != 0;
			ik_file_release(F);
			ik_file_release(fc);
			_exit(bad);
		}
		int st = -1;

		waitpid(pid, &st, 0);
		CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "fork child");
	}
	return kx_finish();
}
