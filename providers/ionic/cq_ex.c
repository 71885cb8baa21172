// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Extended CQ (ibv_create_cq_ex): start_poll / next_poll / end_poll and
 * the per-field readers (docs/device-contract.md §14, §16.8).
 *
 * Each start/next call polls exactly one WC through the ordinary poll path
 * into the vCQ's "current WC", which the readers then return.  Extended
 * polling of one CQ must be single-threaded (the verbs contract), so the
 * current WC needs no lock.
 */
#include <errno.h>

#include "cq.h"
#include "cq_priv.h"
#include "phc.h"

/*
 * Convert a raw device timestamp to nanoseconds with a consistent
 * snapshot of the PHC page.  Returns 0 or EBUSY if the page kept changing
 * or holds no usable conversion.
 */
static int ionic_phc_to_ns(const void *page, uint64_t ts, uint64_t *ns)
{
	struct ionic_phc_snapshot snap;
	int rc;

	rc = ionic_phc_snapshot(page, &snap);
	if (rc)
		return rc;
	if (!snap.mask || snap.shift > 63)
		return EBUSY;
	*ns = ionic_phc_cycles_to_ns(&snap, ts);
	return 0;
}

static int ionic_ex_poll_one(struct ionic_vcq *vcq)
{
	struct ibv_cq_ex *cq_ex = &vcq->vcq.cq_ex;
	int rc;

	if (!ionic_vcq_poll(vcq, 1, &vcq->cur_wc))
		return ENOENT;

	if (vcq->want_wallclock) {
		rc = ionic_phc_to_ns(vcq->ctx->phc, vcq->cur_ts, &vcq->cur_ns);
		if (rc)
			vcq->cur_ns = 0;
	}

	cq_ex->wr_id = vcq->cur_wc.wr_id;
	cq_ex->status = vcq->cur_wc.status;
	return 0;
}

static int ionic_start_poll(struct ibv_cq_ex *cq_ex,
			    struct ibv_poll_cq_attr *attr)
{
	if (attr && attr->comp_mask)
		return EINVAL;
	return ionic_ex_poll_one(to_ionic_vcq_ex(cq_ex));
}

static int ionic_next_poll(struct ibv_cq_ex *cq_ex)
{
	return ionic_ex_poll_one(to_ionic_vcq_ex(cq_ex));
}

static void ionic_end_poll(struct ibv_cq_ex *cq_ex)
{
	/* nothing is held between calls */
	(void)cq_ex;
}

#define IONIC_WC(cq_ex) (&to_ionic_vcq_ex(cq_ex)->cur_wc)

static enum ibv_wc_opcode ionic_read_opcode(struct ibv_cq_ex *cq_ex)
{
	return IONIC_WC(cq_ex)->opcode;
}

static uint32_t ionic_read_vendor_err(struct ibv_cq_ex *cq_ex)
{
	return IONIC_WC(cq_ex)->vendor_err;
}

static unsigned int ionic_read_wc_flags(struct ibv_cq_ex *cq_ex)
{
	return IONIC_WC(cq_ex)->wc_flags;
}

static uint32_t ionic_read_byte_len(struct ibv_cq_ex *cq_ex)
{
	return IONIC_WC(cq_ex)->byte_len;
}

static __be32 ionic_read_imm_data(struct ibv_cq_ex *cq_ex)
{
	struct ibv_wc *wc = IONIC_WC(cq_ex);

	/* for SEND_WITH_INV the union holds the rkey in host order */
	if (wc->wc_flags & IBV_WC_WITH_INV)
		return htobe32(wc->invalidated_rkey);
	return wc->imm_data;
}

static uint32_t ionic_read_qp_num(struct ibv_cq_ex *cq_ex)
{
	return IONIC_WC(cq_ex)->qp_num;
}

static uint32_t ionic_read_src_qp(struct ibv_cq_ex *cq_ex)
{
	return IONIC_WC(cq_ex)->src_qp;
}

static uint32_t ionic_read_slid(struct ibv_cq_ex *cq_ex)
{
	return IONIC_WC(cq_ex)->slid;
}

static uint8_t ionic_read_sl(struct ibv_cq_ex *cq_ex)
{
	return IONIC_WC(cq_ex)->sl;
}

static uint8_t ionic_read_dlid_path_bits(struct ibv_cq_ex *cq_ex)
{
	return IONIC_WC(cq_ex)->dlid_path_bits;
}

static uint64_t ionic_read_completion_ts(struct ibv_cq_ex *cq_ex)
{
	return to_ionic_vcq_ex(cq_ex)->cur_ts;
}

static uint64_t ionic_read_completion_wallclock_ns(struct ibv_cq_ex *cq_ex)
{
	return to_ionic_vcq_ex(cq_ex)->cur_ns;
}

void ionic_vcq_init_ex(struct ionic_vcq *vcq, uint64_t wc_flags)
{
	struct ibv_cq_ex *cq_ex = &vcq->vcq.cq_ex;

	cq_ex->start_poll = ionic_start_poll;
	cq_ex->next_poll = ionic_next_poll;
	cq_ex->end_poll = ionic_end_poll;

	cq_ex->read_opcode = ionic_read_opcode;
	cq_ex->read_vendor_err = ionic_read_vendor_err;
	cq_ex->read_wc_flags = ionic_read_wc_flags;

	if (wc_flags & IBV_WC_EX_WITH_BYTE_LEN)
		cq_ex->read_byte_len = ionic_read_byte_len;
	if (wc_flags & IBV_WC_EX_WITH_IMM)
		cq_ex->read_imm_data = ionic_read_imm_data;
	if (wc_flags & IBV_WC_EX_WITH_QP_NUM)
		cq_ex->read_qp_num = ionic_read_qp_num;
	if (wc_flags & IBV_WC_EX_WITH_SRC_QP)
		cq_ex->read_src_qp = ionic_read_src_qp;
	if (wc_flags & IBV_WC_EX_WITH_SLID)
		cq_ex->read_slid = ionic_read_slid;
	if (wc_flags & IBV_WC_EX_WITH_SL)
		cq_ex->read_sl = ionic_read_sl;
	if (wc_flags & IBV_WC_EX_WITH_DLID_PATH_BITS)
		cq_ex->read_dlid_path_bits = ionic_read_dlid_path_bits;
	if (wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP)
		cq_ex->read_completion_ts = ionic_read_completion_ts;
	if (wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)
		cq_ex->read_completion_wallclock_ns =
			ionic_read_completion_wallclock_ns;
}
