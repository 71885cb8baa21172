// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Context verbs through ionic-sim: open/close, query_device(_ex),
 * query_port, query_gid; and context creation under firmware values the
 * provider must refuse.
 *
 *   verbs-context [--phc 0|1] [--port-down]
 *       full checks; --phc says whether the run offers the PHC page
 *   verbs-context --open-fails ERRNO
 *       ibv_open_device(ionic_0) must fail with exactly ERRNO
 *   verbs-context --open-ok
 *       ibv_open_device must succeed and a QP must still pass data
 *       (used with firmware values the provider must tolerate)
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "verbs_fixture.h"

static void read_sysfs_fw(char *buf, size_t len)
{
	const char *root = getenv("SYSFS_PATH");
	char path[512];
	ssize_t n;
	int fd;

	buf[0] = 0;
	snprintf(path, sizeof(path), "%s/class/infiniband/ionic_0/fw_ver",
		 root ? root : "/sys");
	fd = open(path, O_RDONLY);
	REQUIRE(fd >= 0);
	n = read(fd, buf, len - 1);
	close(fd);
	REQUIRE(n > 0);
	buf[n] = 0;
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
}

static void test_open_close(void)
{
	SECTION("open/close many times");
	for (int i = 0; i < 50; i++) {
		struct ibv_context *ctx = fx_open();
		struct ibv_pd *pd = ibv_alloc_pd(ctx);

		CHECK(pd);
		if (pd)
			CHECK_RC(ibv_dealloc_pd(pd), 0);
		CHECK_RC(ibv_close_device(ctx), 0);
	}

	/* several contexts open at once are independent */
	struct ibv_context *c[4];

	for (int i = 0; i < 4; i++)
		c[i] = fx_open();
	for (int i = 0; i < 4; i++) {
		struct ibv_cq *cq = ibv_create_cq(c[i], 8, NULL, NULL, 0);

		CHECK(cq);
		if (cq)
			CHECK_RC(ibv_destroy_cq(cq), 0);
	}
	for (int i = 3; i >= 0; i--)
		CHECK_RC(ibv_close_device(c[i]), 0);
}

static void test_query_device(struct ibv_context *ctx, int phc)
{
	struct ibv_device_attr_ex ax;
	struct ibv_device_attr a;
	char fw[128];

	SECTION("query_device_ex");
	memset(&ax, 0xa5, sizeof(ax));
	CHECK_RC(ibv_query_device_ex(ctx, NULL, &ax), 0);
	CHECK_EQ(ax.orig_attr.vendor_id, 0x1dd8);
	CHECK_EQ(ax.orig_attr.vendor_part_id, 0x1002);
	read_sysfs_fw(fw, sizeof(fw));
	CHECK(fw[0] != 0);
	CHECK(memchr(ax.orig_attr.fw_ver, 0, sizeof(ax.orig_attr.fw_ver)));
	if (strcmp(ax.orig_attr.fw_ver, fw))
		check_fail(__FILE__, __LINE__, "fw_ver '%.64s' != sysfs '%s'",
			   ax.orig_attr.fw_ver, fw);
	CHECK(ax.orig_attr.max_qp > 0);
	CHECK(ax.orig_attr.max_qp_wr > 0);
	CHECK(ax.orig_attr.max_sge > 0);
	CHECK(ax.orig_attr.max_cq > 0);
	CHECK(ax.orig_attr.max_cqe > 0);
	CHECK(ax.orig_attr.max_mr > 0);
	CHECK(ax.orig_attr.max_pd > 0);
	CHECK(ax.orig_attr.max_ah > 0);
	CHECK(ax.orig_attr.max_mr_size > 0);
	CHECK_EQ(ax.orig_attr.phys_port_cnt, 1);
	if (phc) {
		CHECK(ax.completion_timestamp_mask != 0);
		CHECK(ax.hca_core_clock != 0);
	} else {
		CHECK_EQ(ax.completion_timestamp_mask, 0);
		CHECK_EQ(ax.hca_core_clock, 0);
	}

	SECTION("query_rt_values_ex: the device clock now");
	{
		struct ibv_values_ex v1 = { .comp_mask =
						    IBV_VALUES_MASK_RAW_CLOCK },
				     v2 = v1, bad = { .comp_mask = 1u << 5 };
		struct timespec t1, t2, nap = { 0, 20 * 1000 * 1000 };
		int64_t dev_ns, host_ns;

		CHECK_RC(ibv_query_rt_values_ex(ctx, &bad), EINVAL);
		if (!phc) {
			CHECK_RC(ibv_query_rt_values_ex(ctx, &v1), EOPNOTSUPP);
		} else {
			clock_gettime(CLOCK_REALTIME, &t1);
			CHECK_RC(ibv_query_rt_values_ex(ctx, &v1), 0);
			nanosleep(&nap, NULL);
			CHECK_RC(ibv_query_rt_values_ex(ctx, &v2), 0);
			clock_gettime(CLOCK_REALTIME, &t2);
			CHECK_EQ(v1.comp_mask, IBV_VALUES_MASK_RAW_CLOCK);
			CHECK_EQ(v1.raw_clock.tv_sec, 0);
			/* counter ticks at hca_core_clock kHz: the device's
			 * elapsed time is the host's, within the interval */
			dev_ns = (int64_t)((uint64_t)(v2.raw_clock.tv_nsec -
						      v1.raw_clock.tv_nsec) *
					   1000000ull / ax.hca_core_clock);
			host_ns = (t2.tv_sec - t1.tv_sec) * 1000000000ll +
				  (t2.tv_nsec - t1.tv_nsec);
			CHECK(dev_ns >= 20 * 1000 * 1000);
			CHECK(dev_ns <= host_ns);
		}
	}

	SECTION("query_device (legacy) agrees");
	memset(&a, 0, sizeof(a));
	CHECK_RC(ibv_query_device(ctx, &a), 0);
	CHECK_EQ(a.vendor_id, ax.orig_attr.vendor_id);
	CHECK_EQ(a.max_qp, ax.orig_attr.max_qp);
	CHECK_EQ(a.max_cqe, ax.orig_attr.max_cqe);
	CHECK(!strcmp(a.fw_ver, fw));
}

static void test_query_port(struct ibv_context *ctx, bool port_down)
{
	struct ibv_port_attr pa;
	union ibv_gid gid;
	char s[INET6_ADDRSTRLEN];

	SECTION("query_port");
	memset(&pa, 0, sizeof(pa));
	CHECK_RC(ibv_query_port(ctx, 1, &pa), 0);
	CHECK_EQ(pa.state, port_down ? IBV_PORT_DOWN : IBV_PORT_ACTIVE);
	CHECK_EQ(pa.link_layer, IBV_LINK_LAYER_ETHERNET);
	CHECK_EQ(pa.gid_tbl_len, 256);
	CHECK(pa.active_mtu >= IBV_MTU_256 && pa.active_mtu <= IBV_MTU_4096);
	CHECK(pa.max_mtu >= pa.active_mtu);

	/* libibverbs forwards a bad port to the kernel: EINVAL */
	memset(&pa, 0, sizeof(pa));
	CHECK_RC(ibv_query_port(ctx, 2, &pa), EINVAL);

	SECTION("query_gid");
	CHECK_RC(ibv_query_gid(ctx, 1, 1, &gid), 0);
	inet_ntop(AF_INET6, gid.raw, s, sizeof(s));
	if (strncmp(s, "::ffff:198.18.", 14))
		check_fail(__FILE__, __LINE__,
			   "GID 1 is %s, expected ::ffff:198.18.x.y", s);
	CHECK_RC(ibv_query_gid(ctx, 1, 0, &gid), 0);
	CHECK_EQ(gid.raw[0], 0xfe);
	CHECK_EQ(gid.raw[1], 0x80);
}

/* The provider accepted odd firmware values: make sure it still works. */
static void smoke_traffic(void)
{
	struct fx_qp_opts o;
	struct fx_pair p;
	struct ibv_wc wc;

	fx_qp_opts_default(&o, IBV_QPT_RC);
	fx_pair_create(&p, NULL, NULL, &o, 4096);
	fx_pair_connect(&p);
	fx_fill(p.buf[0], 1000, 7);
	CHECK_RC(fx_post_recv(&p, 1, 1, 0, 4096), 0);
	CHECK_RC(fx_post_send(&p, 0, 2, 0, 1000, IBV_SEND_SIGNALED, false, 0),
		 0);
	fx_poll_one(p.scq[0], &wc, 5000);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	fx_poll_one(p.rcq[1], &wc, 5000);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK_EQ(wc.byte_len, 1000);
	CHECK(!memcmp(p.buf[0], p.buf[1], 1000));
	fx_pair_destroy(&p);
}

int main(int argc, char **argv)
{
	int phc = 1, open_fails = -1;
	bool port_down = false, open_ok = false;
	struct ibv_context *ctx;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--phc") && i + 1 < argc)
			phc = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--port-down"))
			port_down = true;
		else if (!strcmp(argv[i], "--open-fails") && i + 1 < argc)
			open_fails = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--open-ok"))
			open_ok = true;
		else
			check_fatal(__FILE__, __LINE__, "bad argument %s",
				    argv[i]);
	}

	if (open_fails >= 0) {
		SECTION("ibv_open_device must be refused");
		for (int i = 0; i < 3; i++) {
			ctx = fx_try_open();
			if (ctx) {
				check_fail(
					__FILE__, __LINE__,
					"ibv_open_device succeeded, expected errno %d",
					open_fails);
				ibv_close_device(ctx);
			} else {
				CHECK_EQ(errno, open_fails);
			}
		}
		return check_finish();
	}

	if (open_ok) {
		SECTION("ibv_open_device must be accepted");
		ctx = fx_try_open();
		CHECK(ctx);
		if (ctx)
			CHECK_RC(ibv_close_device(ctx), 0);
		smoke_traffic();
		return check_finish();
	}

	test_open_close();
	ctx = fx_open();
	test_query_device(ctx, phc);
	test_query_port(ctx, port_down);
	CHECK_RC(ibv_close_device(ctx), 0);
	return check_finish();
}
