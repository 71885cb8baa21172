// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* The emulator test fixture: see fixture.h. */
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include "verbs_fixture.h"

uint64_t fx_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

struct ibv_context *fx_try_open_named(const char *name)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int n, i, err = ENODEV;

	list = ibv_get_device_list(&n);
	if (!list) {
		fprintf(stderr, "ibv_get_device_list: %s\n", strerror(errno));
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if (strcmp(ibv_get_device_name(list[i]), name))
			continue;
		errno = 0;
		ctx = ibv_open_device(list[i]);
		err = errno;
		break;
	}
	ibv_free_device_list(list);
	if (i == n)
		fprintf(stderr, "no %s among %d device(s)\n", name, n);
	errno = ctx ? 0 : err;
	return ctx;
}

struct ibv_context *fx_try_open(void)
{
	return fx_try_open_named("ionic_0");
}

struct ibv_context *fx_open(void)
{
	struct ibv_context *ctx = fx_try_open();

	REQUIRE(ctx);
	return ctx;
}

int fx_poll(struct ibv_cq *cq, struct ibv_wc *wc, int n, int timeout_ms)
{
	uint64_t end = fx_now_ms() + (uint64_t)timeout_ms;
	int got = 0;

	while (got < n) {
		int rc = ibv_poll_cq(cq, n - got, wc + got);

		if (rc < 0) {
			check_fail(__FILE__, __LINE__,
				   "ibv_poll_cq returned %d", rc);
			break;
		}
		got += rc;
		if (got >= n)
			break;
		if (fx_now_ms() > end)
			break;
		if (!rc)
			usleep(50);
	}
	return got;
}

void fx_poll_one(struct ibv_cq *cq, struct ibv_wc *wc, int timeout_ms)
{
	int n = fx_poll(cq, wc, 1, timeout_ms);

	if (n != 1)
		check_fatal(__FILE__, __LINE__, "no completion within %d ms",
			    timeout_ms);
}

int fx_expect_none(struct ibv_cq *cq, int ms)
{
	struct ibv_wc wc[4];
	int n = fx_poll(cq, wc, 4, ms);

	for (int i = 0; i < n; i++)
		check_fail(
			__FILE__, __LINE__,
			"unexpected completion wr_id %llu status %s opcode %d",
			(unsigned long long)wc[i].wr_id,
			fx_wc_status(wc[i].status), wc[i].opcode);
	return n;
}

void fx_qp_opts_default(struct fx_qp_opts *o, enum ibv_qp_type type)
{
	memset(o, 0, sizeof(*o));
	o->type = type;
	o->max_send_wr = 64;
	o->max_recv_wr = 64;
	o->max_send_sge = 4;
	o->max_recv_sge = 4;
	o->max_inline = 64;
	o->timeout = 14;
	o->retry_cnt = 7;
	o->rnr_retry = 7;
	o->min_rnr_timer = 1;
	o->qkey = 0x11111111;
}

struct ibv_ah *fx_make_ah(struct ibv_pd *pd, const union ibv_gid *dgid)
{
	struct ibv_ah_attr ah = {
		.is_global = 1,
		.port_num = 1,
		.grh = {
			.dgid = *dgid,
			.sgid_index = 1,
			.hop_limit = 64,
		},
	};

	return ibv_create_ah(pd, &ah);
}

int fx_rc_to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};

	return ibv_modify_qp(qp, &a,
			     IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				     IBV_QP_ACCESS_FLAGS);
}

int fx_rc_to_rtr(struct ibv_qp *qp, const union ibv_gid *dgid, uint32_t dqpn,
		 const struct fx_qp_opts *o)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = IBV_MTU_1024,
		.dest_qp_num = dqpn,
		.rq_psn = 0x100,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = o->min_rnr_timer,
		.ah_attr = {
			.is_global = 1,
			.port_num = 1,
			.grh = {
				.dgid = *dgid,
				.sgid_index = 1,
				.hop_limit = 64,
			},
		},
	};

	return ibv_modify_qp(qp, &a,
			     IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				     IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				     IBV_QP_MAX_DEST_RD_ATOMIC |
				     IBV_QP_MIN_RNR_TIMER);
}

int fx_rc_to_rts(struct ibv_qp *qp, const struct fx_qp_opts *o)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS,
		.timeout = o->timeout,
		.retry_cnt = o->retry_cnt,
		.rnr_retry = o->rnr_retry,
		.sq_psn = 0x100,
		.max_rd_atomic = 1,
	};

	return ibv_modify_qp(qp, &a,
			     IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				     IBV_QP_MAX_QP_RD_ATOMIC);
}

int fx_ud_to_rts(struct ibv_qp *qp, uint32_t qkey)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = 1,
		.qkey = qkey,
	};
	int rc;

	rc = ibv_modify_qp(qp, &a,
			   IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				   IBV_QP_QKEY);
	if (rc)
		return rc;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	rc = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	if (rc)
		return rc;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0x200;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

void fx_pair_create(struct fx_pair *p, struct ibv_context *ctx,
		    struct ibv_pd *pd, const struct fx_qp_opts *o,
		    size_t buf_len)
{
	memset(p, 0, sizeof(*p));
	p->o = *o;
	p->own_ctx = !ctx;
	p->ctx = ctx ? ctx : fx_open();
	p->own_pd = !pd;
	p->pd = pd ? pd : ibv_alloc_pd(p->ctx);
	REQUIRE(p->pd);
	REQUIRE(!ibv_query_gid(p->ctx, 1, 1, &p->gid));
	p->buf_len = buf_len;

	for (int i = 0; i < 2; i++) {
		struct ibv_qp_init_attr ia;

		p->scq[i] = ibv_create_cq(p->ctx, (int)o->max_send_wr + 1, NULL,
					  o->send_channel, 0);
		REQUIRE(p->scq[i]);
		p->rcq[i] = ibv_create_cq(p->ctx, (int)o->max_recv_wr + 1, NULL,
					  NULL, 0);
		REQUIRE(p->rcq[i]);
		memset(&ia, 0, sizeof(ia));
		ia.send_cq = p->scq[i];
		ia.recv_cq = p->rcq[i];
		ia.qp_type = o->type;
		ia.sq_sig_all = o->sq_sig_all;
		ia.cap.max_send_wr = o->max_send_wr;
		ia.cap.max_recv_wr = o->max_recv_wr;
		ia.cap.max_send_sge = o->max_send_sge;
		ia.cap.max_recv_sge = o->max_recv_sge;
		ia.cap.max_inline_data = o->max_inline;
		p->qp[i] = ibv_create_qp(p->pd, &ia);
		REQUIRE(p->qp[i]);
		p->cap[i] = ia.cap;
		p->buf[i] = aligned_alloc(4096, (buf_len + 4095) & ~4095ul);
		REQUIRE(p->buf[i]);
		memset(p->buf[i], 0, buf_len);
		p->mr[i] = ibv_reg_mr(p->pd, p->buf[i], buf_len,
				      IBV_ACCESS_LOCAL_WRITE |
					      IBV_ACCESS_REMOTE_WRITE |
					      IBV_ACCESS_REMOTE_READ);
		REQUIRE(p->mr[i]);
	}
}

void fx_pair_connect(struct fx_pair *p)
{
	for (int i = 0; i < 2; i++) {
		if (p->o.type == IBV_QPT_UD) {
			REQUIRE_EQ(fx_ud_to_rts(p->qp[i], p->o.qkey), 0);
			p->ah[i] = fx_make_ah(p->pd, &p->gid);
			REQUIRE(p->ah[i]);
		} else {
			REQUIRE_EQ(fx_rc_to_init(p->qp[i]), 0);
		}
	}
	if (p->o.type != IBV_QPT_UD)
		fx_pair_rc_rtr_rts(p);
}

void fx_pair_rc_rtr_rts(struct fx_pair *p)
{
	for (int i = 0; i < 2; i++)
		REQUIRE_EQ(fx_rc_to_rtr(p->qp[i], &p->gid, p->qp[!i]->qp_num,
					&p->o),
			   0);
	for (int i = 0; i < 2; i++)
		REQUIRE_EQ(fx_rc_to_rts(p->qp[i], &p->o), 0);
}

void fx_pair_destroy(struct fx_pair *p)
{
	for (int i = 0; i < 2; i++) {
		if (p->qp[i])
			CHECK_RC(ibv_destroy_qp(p->qp[i]), 0);
		if (p->ah[i])
			CHECK_RC(ibv_destroy_ah(p->ah[i]), 0);
		if (p->mr[i])
			CHECK_RC(ibv_dereg_mr(p->mr[i]), 0);
		if (p->scq[i])
			CHECK_RC(ibv_destroy_cq(p->scq[i]), 0);
		if (p->rcq[i])
			CHECK_RC(ibv_destroy_cq(p->rcq[i]), 0);
		free(p->buf[i]);
	}
	if (p->pd && p->own_pd)
		CHECK_RC(ibv_dealloc_pd(p->pd), 0);
	if (p->ctx && p->own_ctx)
		CHECK_RC(ibv_close_device(p->ctx), 0);
	memset(p, 0, sizeof(*p));
}

int fx_post_recv(struct fx_pair *p, int i, uint64_t wr_id, size_t off,
		 size_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)p->buf[i] + off,
		.length = (uint32_t)len,
		.lkey = p->mr[i]->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
	};
	struct ibv_recv_wr *bad = NULL;

	return ibv_post_recv(p->qp[i], &wr, &bad);
}

int fx_post_send(struct fx_pair *p, int i, uint64_t wr_id, size_t off,
		 size_t len, unsigned int flags, bool with_imm, uint32_t imm)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)p->buf[i] + off,
		.length = (uint32_t)len,
		.lkey = p->mr[i]->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = with_imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
		.send_flags = flags,
		.imm_data = imm,
	};
	struct ibv_send_wr *bad = NULL;

	if (p->o.type == IBV_QPT_UD) {
		wr.wr.ud.ah = p->ah[i];
		wr.wr.ud.remote_qpn = p->qp[!i]->qp_num;
		wr.wr.ud.remote_qkey = p->o.qkey;
	}
	return ibv_post_send(p->qp[i], &wr, &bad);
}

void fx_fill(uint8_t *b, size_t len, unsigned int seed)
{
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < len; i++) {
		x = x * 1103515245u + 12345u;
		b[i] = (uint8_t)(x >> 16);
	}
}

const char *fx_wc_status(enum ibv_wc_status s)
{
	return ibv_wc_status_str(s);
}

long fx_open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	long n = 0;

	REQUIRE(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

long fx_file_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	long n = 0;
	int c;

	REQUIRE(f);
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

long fx_status_kb(const char *field)
{
	FILE *f = fopen("/proc/self/status", "r");
	size_t len = strlen(field);
	char line[256];
	long kb = -1;

	REQUIRE(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, len) && line[len] == ':') {
			kb = strtol(line + len + 1, NULL, 10);
			break;
		}
	fclose(f);
	return kb;
}
