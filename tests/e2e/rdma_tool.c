// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * What iproute2 shows of the emulated NIC while this program holds verbs
 * objects: `rdma dev/link/resource show` (plain and -j) list the device,
 * its port and network interface, and exactly the PD, CQ, QP, MR and
 * context created here, with their ids and our pid; `ip -j addr show`
 * gives the interface the address behind GID 1.  Run under ionic-sim:
 *   e2e-rdma-tool [--port-down | --no-netlink]
 */
#include <stdarg.h>
#include <unistd.h>

#include "verbs_fixture.h"

static char out[65536];

/* Run a shell command; its stdout in 'out', its exit status returned. */
static int run(const char *fmt, ...)
{
	char cmd[512];
	size_t n = 0, got;
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	f = popen(cmd, "r");
	REQUIRE(f);
	while (n < sizeof(out) - 1 &&
	       (got = fread(out + n, 1, sizeof(out) - 1 - n, f)) > 0)
		n += got;
	out[n] = 0;
	return pclose(f);
}

static void has(const char *fmt, ...)
{
	char want[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(want, sizeof(want), fmt, ap);
	va_end(ap);
	if (!strstr(out, want))
		check_fail(__FILE__, __LINE__, "missing '%s' in:\n%s", want,
			   out);
}

int main(int argc, char **argv)
{
	bool port_down = argc > 1 && !strcmp(argv[1], "--port-down");
	bool no_nl = argc > 1 && !strcmp(argv[1], "--no-netlink");
	unsigned int node = (unsigned int)atoi(getenv("IONIC_SIM_NODE") ?: "1");
	struct ibv_qp_init_attr qia;
	struct ibv_qp_attr qa;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_qp *qp;
	char buf[4096];
	int pid = (int)getpid();

	if (access("/usr/bin/rdma", X_OK) && access("/sbin/rdma", X_OK))
		check_skip("iproute2's rdma is not installed");

	if (no_nl) {
		SECTION("no RDMA netlink: rdma fails, verbs still find ionic_0");
		CHECK(run("rdma dev show 2>&1") != 0);
		ctx = fx_open();
		CHECK_EQ(ibv_get_device_index(ctx->device), -1);
		CHECK_RC(ibv_close_device(ctx), 0);
		return check_finish();
	}

	SECTION("rdma dev / link / sys");
	CHECK_EQ(run("rdma dev show"), 0);
	/* iproute2 6.x also prints the protocol, from the netlink attribute */
	if (strstr(out, " protocol "))
		has("0: ionic_0: node_type ca protocol roce fw ");
	else
		has("0: ionic_0: node_type ca fw ");
	has("node_guid 001d:d8ff:fe00:%04x", node);
	CHECK_EQ(run("rdma link show"), 0);
	has("link ionic_0/1 state %s physical_state %s netdev isim0",
	    port_down ? "DOWN" : "ACTIVE", port_down ? "POLLING" : "LINK_UP");
	CHECK_EQ(run("rdma -j link show"), 0);
	has("\"ifname\":\"ionic_0\",\"port\":1");
	has("\"netdev\":\"isim0\",\"netdev_index\":122240");
	CHECK_EQ(run("rdma sys show"), 0);
	has("copy-on-fork on");
	CHECK_EQ(run("rdma res show"), 0);
	has("0: ionic_0: pd 0 cq 0 qp 0 cm_id 0 mr 0 ctx 0 srq 0");

	SECTION("ip: the interface behind GID 1");
	CHECK_EQ(run("ip -j addr show isim0"), 0);
	has("\"ifname\":\"isim0\"");
	has("\"address\":\"02:1d:d8:00:%02x:%02x\"", (node >> 8) & 0xff,
	    node & 0xff);
	has("\"local\":\"198.18.%u.%u\",\"prefixlen\":15", (node >> 8) & 0xff,
	    node & 0xff);
	has("\"operstate\":\"%s\"", port_down ? "DOWN" : "UP");

	SECTION("the objects this process holds");
	ctx = fx_open();
	CHECK(ibv_get_device_index(ctx->device) == 0);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 100, NULL, NULL, 0);
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	REQUIRE(pd && cq && mr);
	memset(&qia, 0, sizeof(qia));
	qia.send_cq = qia.recv_cq = cq;
	qia.qp_type = IBV_QPT_RC;
	qia.cap.max_send_wr = qia.cap.max_recv_wr = 4;
	qia.cap.max_send_sge = qia.cap.max_recv_sge = 1;
	qp = ibv_create_qp(pd, &qia);
	REQUIRE(qp);
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_INIT;
	qa.port_num = 1;
	CHECK_RC(ibv_modify_qp(qp, &qa,
			       IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				       IBV_QP_ACCESS_FLAGS),
		 0);

	CHECK_EQ(run("rdma res show"), 0);
	has("0: ionic_0: pd 1 cq 1 qp 1 cm_id 0 mr 1 ctx 1 srq 0");
	CHECK_EQ(run("rdma -j res show qp"), 0);
	has("\"port\":1,\"lqpn\":%u,", qp->qp_num);
	has("\"type\":\"RC\",\"state\":\"INIT\"");
	has("\"pid\":%d", pid);
	CHECK_EQ(run("rdma -j res show cq"), 0);
	has("\"cqe\":100,\"users\":2"); /* the QP's send and recv CQ */
	has("\"pid\":%d", pid);
	CHECK_EQ(run("rdma -j res show mr"), 0);
	has("\"rkey\":\"%x\",\"lkey\":\"%x\",\"mrlen\":%zu", mr->rkey, mr->lkey,
	    sizeof(buf));
	CHECK_EQ(run("rdma -j res show pd"), 0);
	has("\"users\":2"); /* the MR and the QP */
	CHECK_EQ(run("rdma res show qp lqpn %u", qp->qp_num), 0);
	has("lqpn %u ", qp->qp_num);

	SECTION("gone with the objects");
	CHECK_RC(ibv_destroy_qp(qp), 0);
	CHECK_RC(ibv_dereg_mr(mr), 0);
	CHECK_RC(ibv_destroy_cq(cq), 0);
	CHECK_RC(ibv_dealloc_pd(pd), 0);
	CHECK_EQ(run("rdma res show"), 0);
	has("0: ionic_0: pd 0 cq 0 qp 0 cm_id 0 mr 0 ctx 1 srq 0");
	CHECK_RC(ibv_close_device(ctx), 0);
	CHECK_EQ(run("rdma res show"), 0);
	has("0: ionic_0: pd 0 cq 0 qp 0 cm_id 0 mr 0 ctx 0 srq 0");
	return check_finish();
}
