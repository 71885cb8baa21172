// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: queue pairs: create (types, caps, qpn and
 * UDMA choice, a qpn another process of the node holds), SQ in controller
 * memory, the modify_qp state machine and the driver's own checks,
 * query_qp, address handles.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sys/mman.h>

#include "fabric/fabric.h"

#include "kernel_fixture.h"

static void fill_rtr_rd_atomic_17(struct ib_uverbs_modify_qp *m)
{
	fill_rtr(m);
	m->max_dest_rd_atomic = 17;
}

static void fill_rtr_qpn_25_bits(struct ib_uverbs_modify_qp *m)
{
	fill_rtr(m);
	m->dest_qp_num = 0x1000011;
}

static void fill_rts_rd_atomic_17(struct ib_uverbs_modify_qp *m)
{
	fill_rts(m);
	m->max_rd_atomic = 17;
}

int main(void)
{
	struct ib_uverbs_create_qp_resp qr;
	struct ionic_qp_resp qdr;
	struct ionic_cq_resp cdr;
	struct ionic_cq_req creq;
	struct ionic_qp_req qreq;
	uint32_t pd, cq, cq2, qp, qp2, uc, ud;
	struct ifab_ep busy;
	int err;
	void *p;

	kx_open(false);
	pd = alloc_pd();
	creq = cq_req();
	CHECK_RET(create_cq(100, 0, -1, &creq, &cq, &cdr), 80);
	creq = cq_req();
	creq.udma_mask = 2;
	CHECK_RET(create_cq(65435, 3, -1, &creq, &cq2, &cdr), 80);

	/* QPs */
	qreq = qp_req();
	CHECK_RET(create_qp(IBV_QPT_RC, pd, cq, 1, &qreq, &qr, &qdr), 104);
	qp = qr.qp_handle;
	CHECK_MSG(qr.qpn == 2 && qdr.qpid == 2 && qdr.udma_idx == 0,
		  "first qpn %u udma %u", qr.qpn, qdr.udma_idx);
	CHECK_MSG(qr.max_send_wr == 63 && qr.max_send_sge == 2 &&
			  qr.max_inline_data == 32 && qr.max_recv_sge == 2,
		  "caps");
	qreq = qp_req();
	CHECK_RET(create_qp(IBV_QPT_UD, pd, cq, 1, &qreq, &qr, &qdr), 104);
	ud = qr.qp_handle;
	CHECK_MSG(qr.qpn == 16 && qdr.udma_idx == 1, "second qpn %u", qr.qpn);
	/* qpn 3 is held on the fabric by "another process" of node 1 */
	CHECK_RET(ifab_open(&busy, NULL, 1, 3), 0);
	qreq = qp_req();
	CHECK_RET(create_qp(IBV_QPT_UC, pd, cq, 1, &qreq, &qr, &qdr), 104);
	uc = qr.qp_handle;
	CHECK_MSG(qr.qpn == 4, "EADDRINUSE skipped: qpn %u", qr.qpn);
	ifab_close(&busy);
	qreq = qp_req();
	CHECK_RET(create_qp(IBV_QPT_RAW_PACKET, pd, cq, 1, &qreq, &qr, &qdr),
		  -EOPNOTSUPP);
	CHECK_RET(create_qp(IBV_QPT_XRC_SEND, pd, cq, 1, &qreq, &qr, &qdr),
		  -EOPNOTSUPP);
	CHECK_RET(create_qp(IBV_QPT_RC, pd, cq, 0, &qreq, &qr, &qdr), -EINVAL);
	CHECK_RET(create_qp(IBV_QPT_RC, pd, cq, 9, &qreq, &qr, &qdr), -EINVAL);
	qreq.rq.stride_log2 = 0;
	CHECK_RET(create_qp(IBV_QPT_RC, pd, cq, 1, &qreq, &qr, &qdr), -EINVAL);
	qreq = qp_req();
	qreq.udma_mask = 2;
	CHECK_RET(create_qp(IBV_QPT_RC, pd, cq2, 1, &qreq, &qr, &qdr), 104);
	qp2 = qr.qp_handle;
	CHECK_MSG(qdr.udma_idx == 1 && qr.qpn == 17, "masked qp udma %u qpn %u",
		  qdr.udma_idx, qr.qpn);

	/* SQ in controller memory */
	{
		struct ik_qp *q;
		uint32_t h;

		qreq = qp_req();
		qreq.sq_cmb = IONIC_CMB_ENABLE;
		CHECK_RET(create_qp(IBV_QPT_UD, pd, cq, 1, &qreq, &qr, &qdr),
			  104);
		h = qr.qp_handle;
		CHECK_MSG(qdr.sq_cmb == (IONIC_CMB_ENABLE | IONIC_CMB_WC) &&
				  qdr.sq_cmb_offset == 8192 && qdr.rq_cmb == 0,
			  "cmb resp 0x%x off %llu", qdr.sq_cmb,
			  (unsigned long long)qdr.sq_cmb_offset);
		q = ik_qp_lookup(ik_nics[0], qdr.qpid);
		p = ik_file_mmap(F, NULL, 4096, PROT_READ | PROT_WRITE,
				 MAP_SHARED, 8192, &err);
		CHECK_MSG(p && !err && q &&
				  q->sq.ring !=
					  (uint8_t *)(uintptr_t)qreq.sq.addr,
			  "cmb map err %d", err);
		if (p && q) {
			((volatile uint8_t *)p)[100] = 0x5a;
			CHECK_MSG(q->sq.ring[100] == 0x5a,
				  "device sees CMB ring");
		}
		qreq.sq_cmb = IONIC_CMB_ENABLE | IONIC_CMB_REQUIRE |
			      IONIC_CMB_EXPDB;
		CHECK_RET(create_qp(IBV_QPT_UD, pd, cq, 1, &qreq, &qr, &qdr),
			  104);
		CHECK_MSG(qdr.sq_cmb == 0 && qdr.sq_cmb_offset == 0,
			  "no expdb");
		{
			struct ib_uverbs_destroy_qp dq = {
				.qp_handle = qr.qp_handle
			};

			CHECK_RET(leg(F, IB_USER_VERBS_CMD_DESTROY_QP, &dq,
				      sizeof(dq), NULL, 0, 4),
				  24);
		}
		qreq.sq_cmb = IONIC_CMB_ENABLE | IONIC_CMB_UC | IONIC_CMB_EXPDB;
		CHECK_RET(create_qp(IBV_QPT_UD, pd, cq, 1, &qreq, &qr, &qdr),
			  104);
		CHECK_MSG(qdr.sq_cmb == (IONIC_CMB_ENABLE | IONIC_CMB_UC) &&
				  qdr.sq_cmb_offset == 12288,
			  "cmb uc 0x%x off %llu", qdr.sq_cmb,
			  (unsigned long long)qdr.sq_cmb_offset);
		{
			struct ib_uverbs_destroy_qp dq = { .qp_handle = h };

			CHECK_RET(leg(F, IB_USER_VERBS_CMD_DESTROY_QP, &dq,
				      sizeof(dq), NULL, 0, 4),
				  24);
			dq.qp_handle = qr.qp_handle;
			CHECK_RET(leg(F, IB_USER_VERBS_CMD_DESTROY_QP, &dq,
				      sizeof(dq), NULL, 0, 4),
				  24);
		}
		p = ik_file_mmap(F, NULL, 4096, PROT_READ | PROT_WRITE,
				 MAP_SHARED, 8192, &err);
		CHECK_MSG(!p && err == -EINVAL, "cmb window gone with its QP");
	}

	/* modify_qp transitions */
	CHECK_RET(modify(qp, RC_RTR, fill_rtr, IBV_QPS_RTR), -EINVAL);
	CHECK_RET(modify(qp, IBV_QP_STATE | IBV_QP_PORT, fill_init,
			 IBV_QPS_INIT),
		  -EINVAL);
	CHECK_RET(modify(qp, RC_INIT | IBV_QP_CAP, fill_init, IBV_QPS_INIT),
		  -EINVAL);
	CHECK_RET(modify(qp, RC_INIT, fill_init, IBV_QPS_INIT), 120);
	CHECK_RET(modify(qp, RC_RTR & ~IBV_QP_AV, fill_rtr, IBV_QPS_RTR),
		  -EINVAL);
	CHECK_RET(modify(qp, RC_RTR, fill_rtr_noglobal, IBV_QPS_RTR), -EINVAL);
	/* beyond max_qp_rd_atom / max_qp_init_rd_atom (16), a QPN beyond 24
	 * bits: refused, the QP stays where it was */
	CHECK_RET(modify(qp, RC_RTR, fill_rtr_rd_atomic_17, IBV_QPS_RTR),
		  -EINVAL);
	CHECK_RET(modify(qp, RC_RTR, fill_rtr_qpn_25_bits, IBV_QPS_RTR),
		  -EINVAL);
	CHECK_RET(modify(qp, RC_RTR, fill_rtr, IBV_QPS_RTR), 120);
	CHECK_RET(modify(qp, RC_RTS, fill_rts_rd_atomic_17, IBV_QPS_RTS),
		  -EINVAL);
	CHECK_RET(modify(qp, RC_RTS, fill_rts, IBV_QPS_RTS), 120);
	CHECK_RET(modify(uc,
			 IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				 IBV_QP_ACCESS_FLAGS,
			 fill_init, IBV_QPS_INIT),
		  120);
	CHECK_RET(modify(uc,
			 IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				 IBV_QP_DEST_QPN | IBV_QP_RQ_PSN,
			 fill_rtr, IBV_QPS_RTR),
		  -ENOMEM);
	CHECK_RET(modify(ud,
			 IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				 IBV_QP_QKEY,
			 fill_ud_init, IBV_QPS_INIT),
		  -EPERM);
	CHECK_RET(modify(ud, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT,
			 fill_ud_init, IBV_QPS_INIT),
		  -EINVAL);
	CHECK_RET(modify(ud, IBV_QP_STATE, NULL, IBV_QPS_ERR), 120);
	CHECK_RET(modify(ud, IBV_QP_STATE, NULL, IBV_QPS_RTS), -EINVAL);
	CHECK_RET(modify(ud, IBV_QP_STATE, NULL, IBV_QPS_RESET), 120);

	/* query_qp */
	{
		struct ib_uverbs_query_qp core = {
			.qp_handle = qp,
			.attr_mask = 0x1ffffff,
		};
		struct ib_uverbs_query_qp_resp *r =
			(struct ib_uverbs_query_qp_resp *)respbuf;

		CHECK_RET(leg(F, IB_USER_VERBS_CMD_QUERY_QP, &core,
			      sizeof(core), NULL, 0, 128),
			  24);
		CHECK_MSG(r->qp_state == IBV_QPS_RTS &&
				  r->path_mtu == IBV_MTU_1024 &&
				  r->dest_qp_num == 17 && r->sq_psn == 0x456 &&
				  r->rq_psn == 0x123 && r->max_send_wr == 63 &&
				  r->dest.is_global == 1 &&
				  r->dest.sgid_index == 1 &&
				  r->max_rd_atomic == 1 &&
				  r->max_dest_rd_atomic == 1 &&
				  r->retry_cnt == 7 && r->port_num == 0,
			  "query_qp");
	}

	/* address handles */
	{
		struct ib_uverbs_create_ah core;

		memset(&core, 0, sizeof(core));
		core.pd_handle = pd;
		core.attr.port_num = 1;
		CHECK_RET(leg(F, IB_USER_VERBS_CMD_CREATE_AH, &core,
			      sizeof(core), NULL, 0, 12),
			  -EINVAL);
		core.attr.is_global = 1;
		core.attr.grh.sgid_index = 1;
		CHECK_RET(leg(F, IB_USER_VERBS_CMD_CREATE_AH, &core,
			      sizeof(core), NULL, 0, 12),
			  64);
		/* RC QPs took ahids 0 and 1 */
		CHECK_MSG(((uint32_t *)respbuf)[1] == 2, "ahid %u",
			  ((uint32_t *)respbuf)[1]);
		CHECK_MSG(kx_dev_stats().ahs == 1, "device AH");
		core.attr.port_num = 2;
		CHECK_RET(leg(F, IB_USER_VERBS_CMD_CREATE_AH, &core,
			      sizeof(core), NULL, 0, 12),
			  -EINVAL);
	}

	CHECK_RET(destroy_qp(qp), 24);
	CHECK_RET(destroy_qp(qp2), 24);
	CHECK_RET(destroy_qp(ud), 24);
	CHECK_RET(destroy_qp(uc), 24);
	CHECK_MSG(kx_dev_stats().qps == 0, "device QPs");
	return kx_finish();
}
