// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ibv_import_device / ibv_import_pd / ibv_import_mr and their unimport
 * through ionic-sim: a second context on a dup of the first one's command
 * fd shares its PD and MR, creates CQs and QPs of its own (the ioctl-only
 * path of an imported context), moves data into the exporter's memory
 * with the exporter's keys, and lets go without destroying what it
 * borrowed.
 */
#include <fcntl.h>
#include <unistd.h>

#include "verbs_fixture.h"

static void test_bad_fds(void)
{
	int pfd[2], zero;

	SECTION("import of what is not a uverbs device");
	REQUIRE(pipe(pfd) == 0);
	errno = 0;
	CHECK(!ibv_import_device(pfd[0]));
	CHECK_EQ(errno, EINVAL); /* not a character device */
	close(pfd[0]);
	close(pfd[1]);
	zero = open("/dev/zero", O_RDWR | O_CLOEXEC);
	REQUIRE(zero >= 0);
	errno = 0;
	CHECK(!ibv_import_device(zero));
	CHECK_EQ(errno, ENODEV); /* a character device, not ours */
	close(zero);
}

int main(void)
{
	const size_t len = 4096;
	struct ibv_context *ctx, *ictx;
	struct ibv_device_attr a, ia;
	struct ibv_pd *pd, *ipd;
	struct ibv_mr *mr, *imr;
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	struct fx_qp_opts o;
	struct fx_pair p;
	struct ibv_wc wc;
	uint8_t *target;
	int fd;

	test_bad_fds();

	ctx = fx_open();
	pd = ibv_alloc_pd(ctx);
	REQUIRE(pd);
	target = calloc(1, len);
	REQUIRE(target);
	mr = ibv_reg_mr(pd, target, len,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	REQUIRE(mr);

	SECTION("import_device on a dup of the command fd");
	fd = dup(ctx->cmd_fd);
	REQUIRE(fd >= 0);
	ictx = ibv_import_device(fd);
	REQUIRE(ictx);
	CHECK_EQ(ictx->num_comp_vectors, ctx->num_comp_vectors);
	CHECK(ictx->async_fd >= 0 && ictx->async_fd != ctx->async_fd);
	CHECK_RC(ibv_query_device(ctx, &a), 0);
	CHECK_RC(ibv_query_device(ictx, &ia), 0);
	CHECK_EQ(ia.vendor_id, 0x1dd8);
	CHECK_EQ(ia.max_qp, a.max_qp);

	SECTION("import_pd and import_mr by handle");
	ipd = ibv_import_pd(ictx, pd->handle);
	REQUIRE(ipd);
	CHECK_EQ(ipd->handle, pd->handle);
	CHECK(ipd->context == ictx);
	imr = ibv_import_mr(ipd, mr->handle);
	REQUIRE(imr);
	CHECK_EQ(imr->handle, mr->handle);
	CHECK_EQ(imr->lkey, mr->lkey);
	CHECK_EQ(imr->rkey, mr->rkey);
	CHECK_EQ(imr->length, len);
	CHECK(imr->pd == ipd);
	errno = 0;
	CHECK(!ibv_import_mr(ipd, mr->handle + 1000));
	CHECK_EQ(errno, EINVAL); /* no such MR */

	SECTION("CQs and QPs of the imported context move data");
	fx_qp_opts_default(&o, IBV_QPT_RC);
	fx_pair_create(&p, ictx, ipd, &o, len);
	fx_pair_connect(&p);
	fx_fill(p.buf[0], len, 7);
	memset(&sge, 0, sizeof(sge));
	sge.addr = (uintptr_t)p.buf[0];
	sge.length = (uint32_t)len;
	sge.lkey = p.mr[0]->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	/* into the exporter's buffer, with the key the import reported */
	wr.wr.rdma.remote_addr = (uintptr_t)target;
	wr.wr.rdma.rkey = imr->rkey;
	CHECK_RC(ibv_post_send(p.qp[0], &wr, &bad), 0);
	fx_poll_one(p.scq[0], &wc, 5000);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK(!memcmp(target, p.buf[0], len));

	SECTION("unimport leaves the exporter's objects alive");
	fx_pair_destroy(&p);
	ibv_unimport_mr(imr);
	ibv_unimport_pd(ipd);
	CHECK_RC(ibv_close_device(ictx), 0);
	CHECK_RC(ibv_dereg_mr(mr), 0);
	CHECK_RC(ibv_dealloc_pd(pd), 0);
	CHECK_RC(ibv_close_device(ctx), 0);
	free(target);
	return check_finish();
}
