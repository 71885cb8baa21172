// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: the uverbs write() channel (header checks,
 * udata rules), GET_CONTEXT, QUERY_DEVICE (legacy and extended),
 * QUERY_PORT and the ioctl interface.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "kernel_fixture.h"

int main(void)
{
	struct ib_uverbs_query_device_resp *dev;
	struct ionic_ctx_resp cr;
	int async_fd;
	uint8_t buf[64];

	kx_open(true);
	{
		struct ik_file *f1;

		CHECK_RET(ik_file_open(1, &f1), -ENODEV);
	}

	/* header decoding */
	{
		struct ib_uverbs_alloc_pd core = { 0 };
		struct ib_uverbs_cmd_hdr h = { 50, 2, 0 };

		CHECK_RET(ik_file_write(F, &h, 8), -EOPNOTSUPP);
		h.command = 0x100 | IB_USER_VERBS_CMD_ALLOC_PD;
		CHECK_RET(ik_file_write(F, &h, 8), -EINVAL);
		CHECK_RET(ik_file_write(F, &h, 4), -EINVAL);
		/* no context yet */
		CHECK_RET(leg(F, IB_USER_VERBS_CMD_ALLOC_PD, &core,
			      sizeof(core), NULL, 0, 4),
			  -EINVAL);
		/* in_words not matching the length */
		h.command = IB_USER_VERBS_CMD_QUERY_DEVICE;
		h.in_words = 5;
		h.out_words = 44;
		memcpy(buf, &h, 8);
		CHECK_RET(ik_file_write(F, buf, 16), -EINVAL);
	}

	/* GET_CONTEXT */
	{
		struct ib_uverbs_get_context core = { 0 };
		uint8_t drv[16] = { 0 };

		CHECK_RET(leg(F, IB_USER_VERBS_CMD_GET_CONTEXT, &core,
			      sizeof(core), NULL, 0, 48),
			  -EINVAL);
		drv[12] = 1;
		CHECK_RET(leg(F, IB_USER_VERBS_CMD_GET_CONTEXT, &core,
			      sizeof(core), drv, 16, 48),
			  -EOPNOTSUPP);
	}
	CHECK_RET(get_context(F, &cr, &async_fd), 0);
	CHECK_MSG(async_fd > 2, "async_fd %d", async_fd);
	CHECK_MSG(((struct ib_uverbs_get_context_resp *)respbuf)
				  ->num_comp_vectors == 4,
		  "num_comp_vectors");
	CHECK_MSG(cr.page_shift == 12 && cr.version == 2 &&
			  cr.udma_count == 2 && cr.max_spec == 8 &&
			  cr.phc_offset == 4096 && cr.sq_qtype == 2,
		  "ctx resp page_shift=%u version=%u phc=%llu", cr.page_shift,
		  cr.version, (unsigned long long)cr.phc_offset);
	CHECK_RET(get_context(F, NULL, NULL), -EINVAL);

	/* QUERY_DEVICE, legacy and extended */
	{
		struct ib_uverbs_query_device core = { 0 };
		struct ib_uverbs_ex_query_device ex = { 0 };
		struct ib_uverbs_ex_query_device_resp *x =
			(struct ib_uverbs_ex_query_device_resp *)respbuf;

		CHECK_RET(leg(F, IB_USER_VERBS_CMD_QUERY_DEVICE, &core,
			      sizeof(core), NULL, 0, 176),
			  16);
		dev = (struct ib_uverbs_query_device_resp *)respbuf;
		CHECK_MSG(dev->vendor_id == 0x1dd8 &&
				  dev->vendor_part_id == 0x1002,
			  "vendor");
		CHECK_MSG(dev->max_sge == 8 && dev->phys_port_cnt == 1 &&
				  dev->max_cqe == 65435 &&
				  dev->max_qp_wr == 0xffff &&
				  dev->max_pkeys == 1 &&
				  dev->max_qp_rd_atom == 16 &&
				  dev->atomic_cap == IBV_ATOMIC_GLOB,
			  "device limits");
		CHECK_MSG(((uint8_t *)&dev->node_guid)[3] == 0xff &&
				  ((uint8_t *)&dev->node_guid)[4] == 0xfe,
			  "eui64 guid");
		CHECK_MSG(dev->reserved[0] == 0, "zero filled");
		CHECK_RET(exc(F, IB_USER_VERBS_EX_CMD_QUERY_DEVICE, &ex,
			      sizeof(ex), NULL, 0, 304, 0),
			  32);
		CHECK_MSG(x->response_length == 304 && x->base.max_sge == 8,
			  "ex response_length %u", x->response_length);
		ex.comp_mask = 1;
		CHECK_RET(exc(F, IB_USER_VERBS_EX_CMD_QUERY_DEVICE, &ex,
			      sizeof(ex), NULL, 0, 304, 0),
			  -EINVAL);
	}

	/* QUERY_PORT */
	{
		struct ib_uverbs_query_port core = { 0 };
		struct ib_uverbs_query_port_resp *r =
			(struct ib_uverbs_query_port_resp *)respbuf;

		core.port_num = 1;
		CHECK_RET(leg(F, IB_USER_VERBS_CMD_QUERY_PORT, &core,
			      sizeof(core), NULL, 0, 40),
			  24);
		CHECK_MSG(r->state == IBV_PORT_ACTIVE &&
				  r->link_layer == IBV_LINK_LAYER_ETHERNET &&
				  r->gid_tbl_len == 256 &&
				  r->active_mtu == IBV_MTU_1024 &&
				  r->max_mtu == IBV_MTU_4096 &&
				  r->max_msg_sz == 0x80000000u,
			  "port");
		core.port_num = 2;
		CHECK_RET(leg(F, IB_USER_VERBS_CMD_QUERY_PORT, &core,
			      sizeof(core), NULL, 0, 40),
			  -EINVAL);
	}

	/* ioctl */
	{
		struct ib_uverbs_ioctl_hdr h = { 0 };

		h.length = sizeof(h);
		CHECK_RET(ik_file_ioctl(F, RDMA_VERBS_IOCTL, &h),
			  -EPROTONOSUPPORT);
		h.object_id = UVERBS_OBJECT_MR;
		h.method_id = UVERBS_METHOD_REG_DMABUF_MR;
		CHECK_RET(ik_file_ioctl(F, RDMA_VERBS_IOCTL, &h), -EOPNOTSUPP);
		CHECK_RET(ik_file_ioctl(F, 0x5401, &h), -ENOTTY);
	}

	return kx_finish();
}
