// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * WQE preparation (docs/device-contract.md §3, §4, §16.4, §16.6): the
 * opcode table generated from wqe.h's IONIC_SEND_OPS, the bodies the data
 * path rarely builds (atomics, window binds), and the out-of-line
 * preparers.  The hot part is inline in wqe.h, shared with post.c.
 */
#include <errno.h>
#include <string.h>

#include "wqe.h"

#define IONIC_QPT_RC 0x1
#define IONIC_QPT_UD 0x2
#define IONIC_QPT_RC_UD (IONIC_QPT_RC | IONIC_QPT_UD)
#define IONIC_BAD_NONE 0
#define IONIC_BAD_SOL IBV_SEND_SOLICITED
#define IONIC_BAD_SOL_INL (IBV_SEND_SOLICITED | IBV_SEND_INLINE)

/* One row of IONIC_SEND_OPS for QP type 'qpt' and firmware 'v2' or not. */
#define IONIC_SEND_OP_ROW(qpt, v2, ibop, fw, wc, types, body_, key_, remote_,                 \
			  bad)                                                                \
	[IBV_WR_##ibop] = {                                                                   \
		.fwop = (v2) ? IONIC_V2_OP_##fw : IONIC_V1_OP_##fw,                           \
		.body = (IONIC_QPT_##types & (qpt)) ? IONIC_BODY_##body_ :                    \
						      IONIC_BODY_NONE,                        \
		.key = IONIC_KEY_##key_,                                                      \
		.bad_flags = IONIC_BAD_##bad,                                                 \
		.wc_opcode =                                                                  \
			IBV_WC_##wc, /* remote WQEs complete through MSN CQEs: never on UD */ \
		.remote = (remote_) && (qpt) == IONIC_QPT_RC,                                 \
	},
#define IONIC_ROW_RC_V1(...) IONIC_SEND_OP_ROW(IONIC_QPT_RC, 0, __VA_ARGS__)
#define IONIC_ROW_RC_V2(...) IONIC_SEND_OP_ROW(IONIC_QPT_RC, 1, __VA_ARGS__)
#define IONIC_ROW_UD_V1(...) IONIC_SEND_OP_ROW(IONIC_QPT_UD, 0, __VA_ARGS__)
#define IONIC_ROW_UD_V2(...) IONIC_SEND_OP_ROW(IONIC_QPT_UD, 1, __VA_ARGS__)

const struct ionic_send_op ionic_send_ops[2][2][IONIC_NUM_SEND_OPS] = {
	{ { IONIC_SEND_OPS(IONIC_ROW_RC_V1) },
	  { IONIC_SEND_OPS(IONIC_ROW_RC_V2) } },
	{ { IONIC_SEND_OPS(IONIC_ROW_UD_V1) },
	  { IONIC_SEND_OPS(IONIC_ROW_UD_V2) } },
};

const struct ionic_send_op *ionic_send_ops_of(bool is_ud, unsigned int version)
{
	return ionic_send_ops[is_ud][version >= 2];
}

/* ibv_wr_* (wr.c) names the operations by IBV_QP_EX_WITH_<op> bits */
#define IONIC_WR_OP_BIT(ibop, ...) \
	static_assert(IBV_QP_EX_WITH_##ibop == 1u << IBV_WR_##ibop, #ibop);
IONIC_SEND_OPS(IONIC_WR_OP_BIT)

/*
 * The operations a QP of this type accepts in send_ops_flags: exactly
 * those the preparer implements, so a client asking for more
 * (ATOMIC_WRITE, TSO, ...) gets EOPNOTSUPP at creation and can skip,
 * rather than a failing WR later.
 */
uint32_t ionic_send_ops_mask(bool is_ud)
{
	const struct ionic_send_op *ops = ionic_send_ops_of(is_ud, 2);
	uint32_t mask = 0;

	for (unsigned int i = 0; i < IONIC_NUM_SEND_OPS; i++)
		if (ops[i].body != IONIC_BODY_NONE)
			mask |= 1u << i;
	return mask;
}

void ionic_sq_init_flags(struct ionic_sq *sq, bool sig_all)
{
	for (unsigned int i = 0; i <= IONIC_SQ_WQE_FLAGS_MASK; i++) {
		unsigned int f = i | (sig_all ? IBV_SEND_SIGNALED : 0);

		sq->wqe_flags[i] =
			(f & IBV_SEND_FENCE ? IONIC_WQE_FLAG_FENCE : 0) |
			(f & IBV_SEND_SIGNALED ? IONIC_WQE_FLAG_SIG : 0) |
			(f & IBV_SEND_SOLICITED ? IONIC_WQE_FLAG_SOL : 0);
	}
}

/*
 * Atomic body (docs/device-contract.md §3.3 c/d): exactly one 8-byte local SGE
 * for the original remote value.  CAS: swap <- swap, compare <- compare_add;
 * FAA: the addend goes to swap_add and compare is 0.  v1 carries the whole SGE
 * at offset 48, v2 the lkey at 44 and the address at 48, keeping the last 8
 * bytes free for an express doorbell.
 */
int ionic_prep_atomic(struct ionic_qp *qp, struct ionic_wqe *wqe,
		      const struct ibv_send_wr *wr)
{
	struct ionic_wqe_atomic_v1 *a1 = &wqe->atomic_v1;
	struct ionic_wqe_atomic_v2 *a2 = &wqe->atomic_v2;
	const struct ibv_sge *sge = wr->sg_list;
	uint64_t va = wr->wr.atomic.remote_addr;
	uint64_t swap_add, compare;

	if (wr->num_sge != 1 || !sge || sge->length != IONIC_ATOMIC_LEN)
		return EINVAL;

	if (wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP) {
		swap_add = wr->wr.atomic.swap;
		compare = wr->wr.atomic.compare_add;
	} else {
		swap_add = wr->wr.atomic.compare_add;
		compare = 0;
	}

	a1->remote_va_high = htobe32((uint32_t)(va >> 32));
	a1->remote_va_low = htobe32((uint32_t)va);
	a1->remote_rkey = htobe32(wr->wr.atomic.rkey);
	a1->swap_add_high = htobe32((uint32_t)(swap_add >> 32));
	a1->swap_add_low = htobe32((uint32_t)swap_add);
	a1->compare_high = htobe32((uint32_t)(compare >> 32));
	a1->compare_low = htobe32((uint32_t)compare);

	if (qp->version >= 2) {
		a2->lkey = htobe32(sge->lkey);
		a2->local_va = htobe64(sge->addr);
	} else {
		/*
		 * The v1 SGE ends at byte 63: with an express doorbell in a
		 * 64-byte slot it would overwrite the trailer (upstream:
		 * docs/upstream-defects.md D7).  Queue sizing never builds that
		 * layout for v1; refuse it here all the same rather than
		 * corrupt the doorbell.
		 */
		if (qp->sq.expdb &&
		    ionic_queue_stride(&qp->sq.q) <= IONIC_WQE_MIN_SIZE)
			return EINVAL;
		a1->sge.va = htobe64(sge->addr);
		a1->sge.len = htobe32(IONIC_ATOMIC_LEN);
		a1->sge.lkey = htobe32(sge->lkey);
	}
	wqe->base.num_sge_key = 1;
	return 0;
}

/* ibv_access_flags of a window -> firmware access bits (docs/device-contract.md
 * §3.7). */
static uint16_t ionic_mw_access(unsigned int access)
{
	uint16_t flags = 0;

	if (access & IBV_ACCESS_LOCAL_WRITE)
		flags |= IONIC_MRF_LOCAL_WRITE;
	if (access & IBV_ACCESS_REMOTE_WRITE)
		flags |= IONIC_MRF_REMOTE_WRITE;
	if (access & IBV_ACCESS_REMOTE_READ)
		flags |= IONIC_MRF_REMOTE_READ;
	if (access & IBV_ACCESS_REMOTE_ATOMIC)
		flags |= IONIC_MRF_REMOTE_ATOMIC;
	if (access & IBV_ACCESS_MW_BIND)
		flags |= IONIC_MRF_MW_BIND;
	if (access & IBV_ACCESS_ZERO_BASED)
		flags |= IONIC_MRF_ZERO_BASED;
	return flags;
}

/*
 * Bind body (docs/device-contract.md §3.3 e).  A type-1 window is bound only
 * through ibv_bind_mw (send_path false), a type-2 window only through
 * ibv_post_send or ibv_wr_bind_mw; only a type-1 window may be bound with
 * length 0, which unbinds it, and then the region may be NULL (upstream:
 * docs/upstream-defects.md D12).  The new rkey may differ from the window's
 * current one in its key byte only: the device takes nothing else from it.
 */
int ionic_prep_bind(struct ionic_wqe *wqe, struct ibv_mw *mw, uint32_t new_rkey,
		    const struct ibv_mw_bind_info *bi, bool send_path)
{
	uint16_t flags;

	if (!mw)
		return EINVAL;
	switch (mw->type) {
	case IBV_MW_TYPE_1:
		if (send_path)
			return EINVAL;
		flags = IONIC_MRF_MW_1;
		break;
	case IBV_MW_TYPE_2:
		if (!send_path || !bi->length)
			return EINVAL;
		flags = IONIC_MRF_MW_2;
		break;
	default:
		return EINVAL;
	}
	if (!bi->mr && bi->length)
		return EINVAL;
	if ((new_rkey ^ mw->rkey) & ~0xffu)
		return EINVAL;

	wqe->base.num_sge_key = (uint8_t)new_rkey;
	wqe->base.imm_data_key = htobe32(mw->rkey);
	wqe->bind_mw.va = htobe64(bi->addr);
	wqe->bind_mw.length = htobe64(bi->length);
	wqe->bind_mw.lkey = htobe32(bi->mr ? bi->mr->lkey : 0);
	wqe->bind_mw.flags =
		htobe16(flags | ionic_mw_access(bi->mw_access_flags));
	return 0;
}

int ionic_prep_send_rare(struct ionic_qp *qp, struct ionic_wqe *wqe,
			 const struct ibv_send_wr *wr, unsigned int body,
			 bool send_path, uint32_t *len)
{
	switch (body) {
	case IONIC_BODY_ATOMIC:
		*len = IONIC_ATOMIC_LEN;
		return ionic_prep_atomic(qp, wqe, wr);
	case IONIC_BODY_BIND:
		return ionic_prep_bind(wqe, wr->bind_mw.mw, wr->bind_mw.rkey,
				       &wr->bind_mw.bind_info, send_path);
	case IONIC_BODY_LOCAL:
		return 0; /* the key in the header only */
	default:
		return EINVAL;
	}
}

int ionic_prep_send_path(struct ionic_qp *qp, const struct ibv_send_wr *wr,
			 bool send_path)
{
	return ionic_prep_send_inl(qp, wr, send_path, qp->is_ud);
}

int ionic_prep_send(struct ionic_qp *qp, const struct ibv_send_wr *wr)
{
	return ionic_prep_send_inl(qp, wr, true, qp->is_ud);
}

int ionic_prep_recv(struct ionic_qp *qp, const struct ibv_recv_wr *wr)
{
	return ionic_prep_recv_inl(qp, wr);
}
