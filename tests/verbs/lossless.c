// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * A lossless wire (issue 22 item 3): with no fault configured, ionic-sim's
 * packet path paces frames by the receiver instead of dropping them, READ
 * responses like everything else.  One RC pair, path MTU 1024, one big
 * RDMA WRITE, RDMA READ and SEND each (every packet of a message goes
 * through the wire's back-pressure), as a user moving big buffers would:
 *
 *   - each completes successfully and its data arrives intact;
 *   - the device retransmitted nothing and the fabric dropped nothing:
 *     the per-QP counters the device writes to the run's trace when a QP
 *     is destroyed ("qp N counters: ..."), read back from $IONIC_SIM_TRACE
 *     (tests/run-traced.sh gives a private one).
 *
 * The rates are printed, not asserted: a READ that recovered by timeouts
 * (6 times slower than a WRITE at this size, before the wire paced READ
 * responses) shows in the retransmission counter whatever the load, while
 * on the shared machine the rates alone swing by more than that (at a
 * load of 12: WRITE 113 MB/s, READ 24 MB/s on the packet path, with no
 * retransmission).  Speed is the benchmark's (bench/run-lossless.sh);
 * --rate-factor F asks for the three rates within a factor F of each other
 * on a quiet machine.
 *
 *   verbs-lossless [--mib N] [--rate-factor F]
 *
 * Prints one line per operation: "<op> <MiB> MiB <MB/s> MB/s".
 */
#include <getopt.h>
#include <inttypes.h>
#include <time.h>
#include <unistd.h>

#include "verbs_fixture.h"

enum { OP_WRITE, OP_READ, OP_SEND, NOPS };
static const char *const op_name[NOPS] = { "WRITE", "READ", "SEND" };

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One message of 'len' bytes from side 0 to side 1 (READ: from side 1's
 * memory into side 0's); its rate in MB/s, 0 on failure. */
static double one_op(struct fx_pair *p, int op, size_t len, int timeout_ms)
{
	uint8_t *src = op == OP_READ ? p->buf[1] : p->buf[0];
	uint8_t *dst = op == OP_READ ? p->buf[0] : p->buf[1];
	struct ibv_sge sge = { (uintptr_t)p->buf[0], (uint32_t)len,
			       p->mr[0]->lkey };
	struct ibv_send_wr wr = { .wr_id = 100 + op,
				  .sg_list = &sge,
				  .num_sge = 1,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad = NULL;
	struct ibv_wc wc;
	double t0, t;

	SECTION(op_name[op]);
	fx_fill(src, len, 7 + op);
	memset(dst, 0, len);
	if (op == OP_SEND) {
		wr.opcode = IBV_WR_SEND;
		REQUIRE_EQ(fx_post_recv(p, 1, 200, 0, len), 0);
	} else {
		wr.opcode = op == OP_READ ? IBV_WR_RDMA_READ :
					    IBV_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = (uintptr_t)p->buf[1];
		wr.wr.rdma.rkey = p->mr[1]->rkey;
	}
	t0 = now_s();
	REQUIRE_EQ(ibv_post_send(p->qp[0], &wr, &bad), 0);
	fx_poll_one(p->scq[0], &wc, timeout_ms);
	t = now_s() - t0;
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK_EQ(wc.wr_id, (uint64_t)(100 + op));
	if (op == OP_SEND) {
		fx_poll_one(p->rcq[1], &wc, timeout_ms);
		CHECK_EQ(wc.status, IBV_WC_SUCCESS);
		CHECK_EQ(wc.byte_len, (uint32_t)len);
		t = now_s() - t0;
	}
	CHECK_MSG(!memcmp(src, dst, len), "%s: data differs", op_name[op]);
	printf("%-5s %zu MiB %.1f MB/s (%.3f s)\n", op_name[op], len >> 20,
	       len / t / 1e6, t);
	fflush(stdout);
	return wc.status == IBV_WC_SUCCESS && t > 0 ? len / t / 1e6 : 0;
}

/* Sum a "<key> N" field over this process' "qp N counters:" trace lines;
 * -1 if there are none. */
static long long trace_counter(const char *path, const char *key)
{
	char line[1024], pid[32], field[64];
	long long sum = -1, v;
	const char *at;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	snprintf(pid, sizeof(pid), "%d ", (int)getpid());
	snprintf(field, sizeof(field), " %s ", key);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, pid, strlen(pid)) ||
		    !strstr(line, " counters:") || !(at = strstr(line, field)))
			continue;
		if (sscanf(at + strlen(field), "%lld", &v) == 1)
			sum = (sum < 0 ? 0 : sum) + v;
	}
	fclose(f);
	return sum;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "mib", required_argument, NULL, 'm' },
		{ "rate-factor", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	const char *trace = getenv("IONIC_SIM_TRACE");
	double rate[NOPS], lo_rate = 0, hi_rate = 0, factor = 0;
	size_t mib = 64, len;
	struct fx_qp_opts o;
	struct fx_pair p;
	int c, timeout_ms;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (c == 'm')
			mib = strtoul(optarg, NULL, 0);
		else if (c == 'f')
			factor = strtod(optarg, NULL);
		else
			return CHECK_EXIT_FAIL;
	}
	if (mib < 1 || mib > 1024)
		check_fatal(__FILE__, __LINE__, "--mib 1..1024");
	if (!trace || !*trace)
		check_fatal(__FILE__, __LINE__,
			    "needs the run's trace (ionic-sim --trace, "
			    "tests/run-traced.sh)");
	len = mib << 20;
	/* generous: 1 MB/s is far below any rate this machine gives */
	timeout_ms = 60000 + (int)mib * 1000;

	fx_qp_opts_default(&o, IBV_QPT_RC); /* path MTU 1024 */
	fx_pair_create(&p, NULL, NULL, &o, len);
	fx_pair_connect(&p);
	for (int op = 0; op < NOPS; op++) {
		rate[op] = one_op(&p, op, len, timeout_ms);
		if (!op || rate[op] < lo_rate)
			lo_rate = rate[op];
		if (rate[op] > hi_rate)
			hi_rate = rate[op];
	}
	/* the counters are traced when the QPs go */
	fx_pair_destroy(&p);
	fflush(stdout);

	SECTION("counters");
	long long rexmit = trace_counter(trace, "retransmits");
	long long dropped = trace_counter(trace, "backlog_drops");
	long long lost = trace_counter(trace, "lost");

	printf("retransmits %lld backlog_drops %lld lost %lld\n", rexmit,
	       dropped, lost);
	CHECK_MSG(rexmit == 0, "retransmits: %lld (want 0)", rexmit);
	CHECK_MSG(dropped == 0, "backlog drops: %lld (want 0)", dropped);
	CHECK_MSG(lost == 0, "frames lost: %lld (want 0)", lost);
	if (factor > 0) {
		SECTION("rates");
		CHECK_MSG(lo_rate > 0 && hi_rate <= lo_rate * factor,
			  "rates %.1f .. %.1f MB/s differ by more than %.1fx",
			  lo_rate, hi_rate, factor);
	}
	return check_finish();
}
