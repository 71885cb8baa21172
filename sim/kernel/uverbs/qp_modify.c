// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: modify_qp (docs/kernel-contract.md §9.4).  The IB
 * core's checks (port validity, AV resolution, the IBTA state transition table
 * with required and optional attributes per QP type) come first, then the
 * ionic driver's own (current-state rule, rate limit, privileged qkey,
 * UC paths), then the admin MODIFY_QP to the device.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../kpriv.h"

#define NSTATES (IBV_QPS_ERR + 1)

enum { T_UD, T_UC, T_RC, NT };

struct qp_trans {
	bool valid;
	uint32_t req[NT];
	uint32_t opt[NT];
};

#define PKEY IBV_QP_PKEY_INDEX
#define PORT IBV_QP_PORT
#define QKEY IBV_QP_QKEY
#define ACC IBV_QP_ACCESS_FLAGS
#define CUR IBV_QP_CUR_STATE
#define ALT IBV_QP_ALT_PATH
#define MIG IBV_QP_PATH_MIG_STATE
#define RNR IBV_QP_MIN_RNR_TIMER

/* Every state may go to RESET and to ERR, with no other attribute. */
#define TO_RESET_OR_ERR \
	[IBV_QPS_RESET] = { .valid = true }, [IBV_QPS_ERR] = { .valid = true }

/* clang-format 14 and 19 disagree here (tests/check-format.sh) */
/* clang-format off */
/* Required by RESET->INIT, optional in INIT->INIT. */
#define INIT_ATTRS                           \
	{                                    \
		[T_UD] = PKEY | PORT | QKEY, \
		[T_UC] = PKEY | PORT | ACC,  \
		[T_RC] = PKEY | PORT | ACC,  \
	}

/* Optional in RTR->RTS, RTS->RTS and SQD->RTS. */
#define TO_RTS_OPT                                    \
	{                                             \
		[T_UD] = CUR | QKEY,                  \
		[T_UC] = CUR | ALT | ACC | MIG,       \
		[T_RC] = CUR | ALT | ACC | RNR | MIG, \
	}
/* clang-format on */

/* The IBTA QP state machine (IB spec vol. 1, 11.2.5 / 10.3.1), written
 * as the IB core's qp_state_table encodes it for UD, UC and RC. */
static const struct qp_trans qp_table[NSTATES][NSTATES] = {
	[IBV_QPS_RESET] = {
		TO_RESET_OR_ERR,
		[IBV_QPS_INIT] = { .valid = true, .req = INIT_ATTRS },
	},
	[IBV_QPS_INIT] = {
		TO_RESET_OR_ERR,
		[IBV_QPS_INIT] = { .valid = true, .opt = INIT_ATTRS },
		[IBV_QPS_RTR] = {
			.valid = true,
			.req = {
				[T_UC] = IBV_QP_AV | IBV_QP_PATH_MTU |
					 IBV_QP_DEST_QPN | IBV_QP_RQ_PSN,
				[T_RC] = IBV_QP_AV | IBV_QP_PATH_MTU |
					 IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					 IBV_QP_MAX_DEST_RD_ATOMIC | RNR,
			},
			.opt = {
				[T_UD] = PKEY | QKEY,
				[T_UC] = ALT | ACC | PKEY,
				[T_RC] = ALT | ACC | PKEY,
			},
		},
	},
	[IBV_QPS_RTR] = {
		TO_RESET_OR_ERR,
		[IBV_QPS_RTS] = {
			.valid = true,
			.req = {
				[T_UD] = IBV_QP_SQ_PSN,
				[T_UC] = IBV_QP_SQ_PSN,
				[T_RC] = IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					 IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
					 IBV_QP_MAX_QP_RD_ATOMIC,
			},
			.opt = TO_RTS_OPT,
		},
	},
	[IBV_QPS_RTS] = {
		TO_RESET_OR_ERR,
		[IBV_QPS_RTS] = { .valid = true, .opt = TO_RTS_OPT },
		[IBV_QPS_SQD] = {
			.valid = true,
			.opt = {
				[T_UD] = IBV_QP_EN_SQD_ASYNC_NOTIFY,
				[T_UC] = IBV_QP_EN_SQD_ASYNC_NOTIFY,
				[T_RC] = IBV_QP_EN_SQD_ASYNC_NOTIFY,
			},
		},
	},
	[IBV_QPS_SQD] = {
		TO_RESET_OR_ERR,
		[IBV_QPS_RTS] = { .valid = true, .opt = TO_RTS_OPT },
		[IBV_QPS_SQD] = {
			.valid = true,
			.opt = {
				[T_UD] = PKEY | QKEY,
				[T_UC] = IBV_QP_AV | ALT | ACC | PKEY | MIG,
				[T_RC] = PORT | IBV_QP_AV | IBV_QP_TIMEOUT |
					 IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
					 IBV_QP_MAX_QP_RD_ATOMIC |
					 IBV_QP_MAX_DEST_RD_ATOMIC | ALT | ACC |
					 PKEY | RNR | MIG,
			},
		},
	},
	[IBV_QPS_SQE] = {
		TO_RESET_OR_ERR,
		[IBV_QPS_RTS] = {
			.valid = true,
			.opt = {
				[T_UD] = CUR | QKEY,
				[T_UC] = CUR | ACC,
			},
		},
	},
	[IBV_QPS_ERR] = {
		TO_RESET_OR_ERR,
	},
};

/* ib_modify_qp_is_ok */
static bool modify_is_ok(enum ibv_qp_state cur, enum ibv_qp_state next,
			 enum ibv_qp_type type, uint32_t mask)
{
	const struct qp_trans *t;
	int ti;

	if (cur > IBV_QPS_ERR || next > IBV_QPS_ERR)
		return false;
	if ((mask & CUR) && cur != IBV_QPS_RTR && cur != IBV_QPS_RTS &&
	    cur != IBV_QPS_SQD && cur != IBV_QPS_SQE)
		return false;
	t = &qp_table[cur][next];
	if (!t->valid)
		return false;
	ti = type == IBV_QPT_UD ? T_UD : type == IBV_QPT_UC ? T_UC : T_RC;
	if ((mask & t->req[ti]) != t->req[ti])
		return false;
	if (mask & ~(t->req[ti] | t->opt[ti] | IBV_QP_STATE))
		return false;
	return true;
}

static const char *state_name(enum ibv_qp_state s)
{
	static const char *const n[] = { "RESET", "INIT", "RTR", "RTS",
					 "SQD",	  "SQE",  "ERR" };

	return s < NSTATES ? n[s] : "?";
}

/* order_base_2: smallest n with 2^n >= v */
static uint8_t order_base_2(uint32_t v)
{
	uint8_t n = 0;

	while ((1ull << n) < v)
		n++;
	return n;
}

/* Admin MODIFY_QP: the attributes the mask names, as the driver stored
 * them, and the new state. */
static void qp_dev_modify(struct ik_nic *nic, const struct ik_qp *qp,
			  uint32_t mask, enum ibv_qp_state next)
{
	struct idev_qp_modify m = {
		.qpn = qp->qpn,
		.attr_mask = mask,
		.state = next,
		.qkey = qp->qkey,
		.dest_qpn = qp->dest_qpn,
		.sq_psn = qp->sq_psn,
		.rq_psn = qp->rq_psn,
		.path_mtu = qp->path_mtu,
		.access_flags = qp->access_flags,
		.retry_cnt = qp->retry_cnt,
		.rnr_retry = qp->rnr_retry,
		.min_rnr_timer = qp->min_rnr_timer,
		.timeout = qp->timeout,
		.max_rd_atomic = qp->max_rd_atomic,
		.max_dest_rd_atomic = qp->max_dest_rd_atomic,
		.en_sqd_async_notify = qp->en_sqd_async_notify,
		.rate_limit = qp->rate_limit,
	};

	ik_av_to_dev(&qp->av, &m.av);
	idev_qp_modify(nic->dev, &m);
}

static int qp_modify(struct ik_cmd *c, const struct ib_uverbs_modify_qp *cmd,
		     uint32_t rate_limit, bool ex)
{
	struct ik_nic *nic = c->nic;
	uint32_t mask = cmd->attr_mask;
	enum ibv_qp_state cur, next;
	struct idev_qp_attr da;
	struct ik_av av;
	struct ik_qp *qp;
	int rc;

	/* IB core (modify_qp in uverbs_cmd.c) */
	if (mask &
	    ~((ex ? (uint32_t)IBV_QP_RATE_LIMIT : (uint32_t)IBV_QP_DEST_QPN) *
		      2 -
	      1))
		return -EOPNOTSUPP;
	qp = ik_handle_get(c->f, cmd->qp_handle, IK_UOBJ_QP);
	if (!qp)
		return -EINVAL;
	if ((mask & PORT) && cmd->port_num != 1)
		return -EINVAL;
	if ((mask & IBV_QP_AV) && cmd->dest.port_num != 1)
		return -EINVAL;
	if ((mask & ALT) && cmd->alt_port_num != 1)
		return -EINVAL;
	/* ib_security_modify_qp: the pkey index must exist (table of 1) */
	if ((mask & PKEY) && cmd->pkey_index != 0)
		return -EINVAL;
	if ((mask & IBV_QP_STATE) && cmd->qp_state > IBV_QPS_ERR)
		return -EINVAL;
	if ((mask & CUR) && cmd->cur_qp_state > IBV_QPS_ERR)
		return -EINVAL;
	if (mask & IBV_QP_AV) {
		const struct ib_uverbs_qp_dest *d = &cmd->dest;

		rc = ik_av_from_uverbs(nic, &av, d->dgid, d->flow_label,
				       d->sgid_index, d->hop_limit,
				       d->traffic_class, d->sl, d->static_rate,
				       d->is_global, d->port_num);
		if (rc)
			return rc;
	}

	/* ionic_modify_qp; the current state is the device's (it moves a
	 * QP to ERR by itself) */
	rc = ik_udata_empty(c);
	if (rc)
		return rc;
	/* the admin queue first: a KILLED one has no device to ask */
	rc = ik_admin_ok(c->f, IK_ADMIN_MODIFY_QP);
	if (rc)
		return rc;
	if (idev_qp_query(nic->dev, qp->qpn, &da))
		return -EINVAL;
	if (mask & IBV_QP_CAP)
		return -EINVAL;
	if ((mask & CUR) && cmd->cur_qp_state != da.state &&
	    cmd->cur_qp_state != IBV_QPS_ERR &&
	    !(cmd->cur_qp_state == IBV_QPS_SQE &&
	      (da.state == IBV_QPS_RTS || da.state == IBV_QPS_SQD)))
		return -EINVAL;
	cur = (mask & CUR) ? (enum ibv_qp_state)cmd->cur_qp_state : da.state;
	next = (mask & IBV_QP_STATE) ? (enum ibv_qp_state)cmd->qp_state : cur;
	if (mask & IBV_QP_RATE_LIMIT) {
		bool ok_trans = (cur == IBV_QPS_INIT && next == IBV_QPS_RTR) ||
				(cur == IBV_QPS_RTR && next == IBV_QPS_RTS) ||
				(cur == IBV_QPS_RTS && next == IBV_QPS_RTS);

		if (qp->type != IBV_QPT_RC || !ok_trans)
			return -EINVAL;
	}
	if (!modify_is_ok(cur, next, qp->type, mask & ~IBV_QP_RATE_LIMIT))
		return -EINVAL;
	if ((mask & QKEY) && (cmd->qkey & 0x80000000u))
		return -EPERM; /* privileged qkey: kernel QPs only */
	if ((mask & IBV_QP_AV) && !qp->has_ah)
		return -ENOMEM; /* UC: no header buffer was allocated */
	if ((mask & IBV_QP_PATH_MTU) &&
	    (cmd->path_mtu < IBV_MTU_256 || cmd->path_mtu > IBV_MTU_4096))
		return -EINVAL;
	/* deeper than query_device's max_qp_init_rd_atom / max_qp_rd_atom:
	 * the read queues could not hold them (docs/kernel-contract.md §9.4) */
	if ((mask & IBV_QP_MAX_QP_RD_ATOMIC) &&
	    cmd->max_rd_atomic > IK_MAX_RD_ATOM)
		return -EINVAL;
	if ((mask & IBV_QP_MAX_DEST_RD_ATOMIC) &&
	    cmd->max_dest_rd_atomic > IK_MAX_RD_ATOM)
		return -EINVAL;
	/* QP numbers have 24 bits: refused, never cut (the firmware field is
	 * 24 bits wide; its BAD_ATTR is EINVAL) */
	if ((mask & IBV_QP_DEST_QPN) && (cmd->dest_qp_num & ~0xffffffu))
		return -EINVAL;

	/* apply: what the firmware stores */
	if (mask & PKEY)
		qp->pkey_index = cmd->pkey_index;
	if (mask & PORT)
		qp->port_num = cmd->port_num;
	if (mask & QKEY)
		qp->qkey = cmd->qkey;
	if (mask & IBV_QP_AV) {
		qp->av = av;
		qp->av_valid = true;
	}
	if (mask & IBV_QP_PATH_MTU)
		qp->path_mtu = (enum ibv_mtu)cmd->path_mtu;
	if (mask & IBV_QP_DEST_QPN)
		qp->dest_qpn = cmd->dest_qp_num;
	if (mask & IBV_QP_RQ_PSN)
		qp->rq_psn = cmd->rq_psn & 0xffffff;
	if (mask & IBV_QP_SQ_PSN)
		qp->sq_psn = cmd->sq_psn & 0xffffff;
	if (mask & ACC)
		qp->access_flags = cmd->qp_access_flags;
	if (mask & IBV_QP_MAX_QP_RD_ATOMIC) {
		qp->max_rd_atomic = cmd->max_rd_atomic;
		if (cmd->max_rd_atomic)
			qp->rrq_depth =
				order_base_2(cmd->max_rd_atomic + 2) - 1;
	}
	if (mask & IBV_QP_MAX_DEST_RD_ATOMIC) {
		qp->max_dest_rd_atomic = cmd->max_dest_rd_atomic;
		if (cmd->max_dest_rd_atomic)
			qp->rsq_depth =
				order_base_2(cmd->max_dest_rd_atomic + 1);
	}
	if (mask & RNR)
		qp->min_rnr_timer = cmd->min_rnr_timer;
	if (mask & IBV_QP_TIMEOUT)
		qp->timeout = cmd->timeout;
	if (mask & IBV_QP_RETRY_CNT)
		qp->retry_cnt = cmd->retry_cnt & 0xf;
	if (mask & IBV_QP_RNR_RETRY)
		qp->rnr_retry = cmd->rnr_retry & 0xf;
	if (mask & IBV_QP_EN_SQD_ASYNC_NOTIFY)
		qp->en_sqd_async_notify = cmd->en_sqd_async_notify;
	if (mask & IBV_QP_RATE_LIMIT)
		qp->rate_limit = rate_limit;
	qp_dev_modify(nic, qp, mask, next);
	KNOTE(c, "qpn=%u %s->%s mask=0x%x", qp->qpn, state_name(cur),
	      state_name(next), mask);
	return 0;
}

int ik_cmd_modify_qp(struct ik_cmd *c)
{
	return qp_modify(c, c->req, 0, false);
}

int ik_cmd_ex_modify_qp(struct ik_cmd *c)
{
	struct ib_uverbs_ex_modify_qp_resp *r = c->resp;
	struct ib_uverbs_ex_modify_qp cmd;
	int rc;

	ik_core_req_copy(c, &cmd, sizeof(cmd));
	rc = qp_modify(c, &cmd.base, cmd.rate_limit, true);
	if (rc)
		return rc;
	r->comp_mask = 0;
	r->response_length = ik_ex_resp_len(c, sizeof(*r));
	return 0;
}
