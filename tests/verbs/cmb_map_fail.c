// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The kernel places a QP's SQ in controller memory but the window cannot
 * be mapped (ionic-sim's cmb_map_fail): creation fails with the mmap's
 * errno, and everything is unwound, the kernel QP and its CMB pages
 * included, as docs/upstream-defects.md D23 says libionic keeps it (no
 * host-ring fallback: the device already reads the ring from CMB).  Run
 * with few QP ids and CMB pages, so that a leak of either would show
 * within the attempts: as ENOMEM, or as a QP without CMB that creates.
 */
#include <infiniband/ionic_dv.h>

#include "verbs_fixture.h"

#define ATTEMPTS 32
#define WARM_UP 4
/*
 * What a leak would leave: the mappings of each attempt's rings (adjacent
 * anonymous mappings merge into one line of /proc/self/maps, so the
 * address space is what grows by a ring per attempt).  The sanitizers'
 * allocators reserve address space on their own, so only the line count
 * is checked there, with slack.  Natively the address space may move by
 * a few pages either way without a leak (glibc grows and trims the top of
 * its heap at whichever call crosses its threshold, and the emulator's
 * threads allocate too), while a leaked SQ or RQ ring would add at least
 * a page per attempt: the check allows less than half of that.
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MAPS_SLACK 6
#define VMSIZE_CHECKED 0
#else
#define MAPS_SLACK 0
#define VMSIZE_CHECKED 1
#endif

int main(void)
{
	struct ibv_context *ctx = fx_open();
	struct ibv_pd *pd = ibv_alloc_pd(ctx), *host_pd;
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { 16, 16, 1, 1, 0 },
	};
	union ibv_gid gid;
	struct fx_qp_opts o;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	uint8_t *buf;
	long maps, vm_kb;

	REQUIRE(pd && cq);
	ia.send_cq = ia.recv_cq = cq;

	SECTION("the CMB window cannot be mapped: EAGAIN, nothing left over");
	/* the first attempts may map the allocator's own memory (a new
	 * AddressSanitizer size class, say); a leak would grow every time */
	for (int i = 0; i < WARM_UP; i++)
		CHECK_NULL_ERRNO(ibv_create_qp(pd, &ia), EAGAIN);
	maps = fx_file_lines("/proc/self/maps");
	vm_kb = fx_status_kb("VmSize");
	for (int i = WARM_UP; i < ATTEMPTS; i++)
		CHECK_NULL_ERRNO(ibv_create_qp(pd, &ia), EAGAIN);
	CHECK(fx_file_lines("/proc/self/maps") - maps <= MAPS_SLACK);
	if (VMSIZE_CHECKED)
		CHECK(fx_status_kb("VmSize") - vm_kb <
		      (ATTEMPTS - WARM_UP) / 2 * 4);

	SECTION("a host-ring QP still creates and carries data");
	host_pd = ibv_alloc_pd(ctx);
	REQUIRE(host_pd);
	CHECK_RC(ionic_dv_pd_set_sqcmb(host_pd, false, false, false), 0);
	qp = ibv_create_qp(host_pd, &ia);
	REQUIRE(qp);
	buf = aligned_alloc(4096, 8192);
	REQUIRE(buf);
	mr = ibv_reg_mr(host_pd, buf, 8192, IBV_ACCESS_LOCAL_WRITE);
	REQUIRE(mr);
	fx_qp_opts_default(&o, IBV_QPT_RC);
	REQUIRE_EQ(ibv_query_gid(ctx, 1, 1, &gid), 0);
	REQUIRE_EQ(fx_rc_to_init(qp), 0);
	REQUIRE_EQ(fx_rc_to_rtr(qp, &gid, qp->qp_num, &o), 0);
	REQUIRE_EQ(fx_rc_to_rts(qp, &o), 0);
	{
		struct ibv_sge s = { (uintptr_t)buf, 100, mr->lkey };
		struct ibv_sge r = { (uintptr_t)buf + 4096, 100, mr->lkey };
		struct ibv_recv_wr rw = { .wr_id = 1,
					  .sg_list = &r,
					  .num_sge = 1 },
				   *rbad;
		struct ibv_send_wr sw = { .wr_id = 2,
					  .sg_list = &s,
					  .num_sge = 1,
					  .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED },
				   *sbad;

		fx_fill(buf, 100, 3);
		REQUIRE_EQ(ibv_post_recv(qp, &rw, &rbad), 0);
		REQUIRE_EQ(ibv_post_send(qp, &sw, &sbad), 0);
		for (int i = 0; i < 2; i++) {
			fx_poll_one(cq, &wc, 5000);
			CHECK_EQ(wc.status, IBV_WC_SUCCESS);
		}
		CHECK(!memcmp(buf, buf + 4096, 100));
	}
	CHECK_RC(ibv_destroy_qp(qp), 0);
	CHECK_RC(ibv_dereg_mr(mr), 0);
	free(buf);
	CHECK_RC(ibv_dealloc_pd(host_pd), 0);
	CHECK_RC(ibv_destroy_cq(cq), 0);
	CHECK_RC(ibv_dealloc_pd(pd), 0);
	CHECK_RC(ibv_close_device(ctx), 0);
	return check_finish();
}
