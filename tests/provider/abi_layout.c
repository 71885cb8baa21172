// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Wire and private-ABI layouts.  Including the headers compiles every
 * static assertion (the family header of ibverbs-private/, ionic_abi_layout.h);
 * the run-time part
 * writes fields through the structs and checks the bytes land where the
 * installed libibverbs and the kernel read them, and exercises the match
 * patterns the way libibverbs does (fnmatch).
 */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "ionic.h"
#include "../../common/ionic_abi_layout.h"
#include "check.h"

static void *ptr_at(const void *base, size_t off)
{
	void *p;

	memcpy(&p, (const char *)base + off, sizeof(p));
	return p;
}

static void dummy_free_context(struct ibv_context *c)
{
	(void)c;
}

static void check_private_abi(void)
{
	static const struct verbs_match_ent ents[] = {
		VERBS_DRIVER_ID(21),
		VERBS_PCI_MATCH(0x1dd8, 0x1003, NULL),
		VERBS_NAME_MATCH("ionic_", NULL),
		{},
	};
	const unsigned char *b = (const unsigned char *)ents;
	struct verbs_context_ops ops;
	struct verbs_sysfs_dev sdev;
	char suffix[32];
	uint64_t id;
	uint16_t u16;

	/* the library walks the table with stride 24, kind at +20 */
	memcpy(&id, b + 8, sizeof(id));
	CHECK(id == 21 && b[20] == VERBS_MATCH_DRIVER_ID);
	memcpy(&u16, b + 24 + 16, 2);
	CHECK(u16 == 0x1dd8);
	memcpy(&u16, b + 24 + 18, 2);
	CHECK(u16 == 0x1003 && b[24 + 20] == VERBS_MATCH_PCI);
	CHECK(b[48 + 20] == VERBS_MATCH_MODALIAS);
	CHECK(b[72 + 20] == VERBS_MATCH_SENTINEL);

	/* name matching as libibverbs does it in sysfs mode */
	CHECK(fnmatch(ents[2].u.modalias, "rdma_device:Nionic_0", 0) == 0);
	CHECK(fnmatch(ents[2].u.modalias, "rdma_device:Nmlx5_0", 0) != 0);

	/* ops entry 39 is free_context (byte 312; 328 in family G) */
	memset(&ops, 0, sizeof(ops));
	ops.free_context = dummy_free_context;
	CHECK(ptr_at(&ops, IONIC_IBV_HAS_DMAH_OPS ? 328 : 312) ==
	      (void *)dummy_free_context);
	ops.alloc_parent_domain = ionic_alloc_parent_domain;
	CHECK(ptr_at(&ops, IONIC_IBV_HAS_DMAH_OPS ? 40 : 32) ==
	      (void *)ionic_alloc_parent_domain);

	memset(&sdev, 0, sizeof(sdev));
	sdev.abi_ver = 0x01020304;
	CHECK(((unsigned char *)&sdev)[968] == 0x04);

	/* the plugin name libibverbs asks for: the family's ABI number */
	snprintf(suffix, sizeof(suffix), "-rdmav%d.so", IONIC_IBVERBS_PABI);
	CHECK(strcmp(IONIC_IBVERBS_PLUGIN_SUFFIX, suffix) == 0);
	CHECK(IONIC_IBVERBS_PABI ==
	      (IONIC_IBVERBS_FAMILY_ID < IONIC_IBV_FAMILY_F  ? 34 :
	       IONIC_IBVERBS_FAMILY_ID == IONIC_IBV_FAMILY_F ? 57 :
							       59));
}

IBV_DRV_CMD(test_ctx_cmd, ibv_get_context, ionic_ctx_req,
	    ib_uverbs_get_context_resp, ionic_ctx_resp);
IBV_DRV_CMD(test_cq_cmd, ibv_create_cq, ionic_cq_req, ib_uverbs_create_cq_resp,
	    ionic_cq_resp);
IBV_DRV_CMD(test_qp_cmd, ibv_create_qp_ex, ionic_qp_req,
	    ib_uverbs_ex_create_qp_resp, ionic_qp_resp);

static void check_wire(void)
{
	struct test_ctx_cmd_resp ctx_resp;
	unsigned char raw[48];
	uint64_t off;

	/* request/response sizes the kernel sees
	 * (docs/libibverbs-provider-abi.md §2.15) */
	CHECK(sizeof(struct test_ctx_cmd) == 24);
	CHECK(sizeof(struct test_ctx_cmd_resp) == 48);
	CHECK(sizeof(struct test_cq_cmd) == 80);
	CHECK(sizeof(struct test_cq_cmd_resp) == 24);
	CHECK(sizeof(struct test_qp_cmd) == 128);
	CHECK(sizeof(struct test_qp_cmd_resp) == 64);

	/* a kernel-written GET_CONTEXT response, byte by byte */
	memset(raw, 0, sizeof(raw));
	raw[8 + 4] = 12; /* page_shift */
	off = 0x1234;
	memcpy(raw + 8 + 8, &off, 8); /* dbell_offset */
	raw[8 + 16] = 2; /* version (LE16) */
	raw[8 + 18] = 18; /* qp_opcodes */
	raw[8 + 26] = 2; /* udma_count */
	raw[8 + 28] = IONIC_EXPDB_SQ; /* expdb_qtypes */
	off = 4096;
	memcpy(raw + 8 + 32, &off, 8); /* phc_offset */
	memcpy(&ctx_resp, raw, sizeof(raw));
	CHECK(ctx_resp.drv_payload.page_shift == 12);
	CHECK(ctx_resp.drv_payload.dbell_offset == 0x1234);
	CHECK(ctx_resp.drv_payload.version == 2);
	CHECK(ctx_resp.drv_payload.qp_opcodes == 18);
	CHECK(ctx_resp.drv_payload.udma_count == 2);
	CHECK(ctx_resp.drv_payload.expdb_qtypes == IONIC_EXPDB_SQ);
	CHECK(ctx_resp.drv_payload.phc_offset == 4096);
}

int main(void)
{
	check_private_abi();
	check_wire();
	return check_finish();
}
