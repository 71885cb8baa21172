// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The load guard's measurements on the libibverbs this program runs with
 * (the one it was linked against, or the test environment's
 * IONIC_IBVERBS_RUN_PREFIX): the probe finds the library, reads its
 * release from the file name and measures the fingerprint of the family
 * libionic was built for, so the guard would let the provider register.
 * In ./build.sh matrix this runs on every release of every family; built
 * against a release families.h does not list, the library is that one.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "ibverbs-private/ibverbs_private.h"
#include "ibverbs-private/identify.h"

int main(void)
{
	enum ionic_ibv_family family;
	struct ionic_ibv_probe p;
	char msg[1024];
	int lo, hi;
	bool listed;

	if (!ionic_ibv_probe_loaded(&p)) {
		fprintf(stderr, "FAIL: no libibverbs to measure\n");
		return 1;
	}
	printf("%s: rdma-core %s, private ABI %u, verbs_qp.comp_mask at %u, ibv_wr_opcode_str %d, ibv_cmd_create_cq_ex2 %d, ibv_cmd_query_port_speed %d, %u private exports\n",
	       p.path, p.release, p.pabi, p.qpx, p.opcode_str, p.cq_ex2,
	       p.port_speed, p.private_exports);

	CHECK(strstr(p.path, "/libibverbs.so.1."));
	CHECK(p.release_major > 0);
	CHECK(p.pabi == IONIC_IBVERBS_PABI);
	CHECK(p.qpx == sizeof(struct ibv_qp_ex));
	/* what configuration read from the file, the guard from memory */
	CHECK(p.lib_minor == IONIC_IBVERBS_LIB_MINOR);
	CHECK(p.private_exports == IONIC_IBVERBS_PRIVATE_EXPORTS);
	CHECK(ionic_ibv_family_of_probe(&p) == IONIC_IBVERBS_FAMILY_ID);
	/* a listed release of the family, or one between two of them */
	family = ionic_ibv_family_of_release(p.release_major);
	listed = family != IONIC_IBV_FAMILY_NONE;
	if (!listed)
		family = ionic_ibv_family_between(p.release_major, &lo, &hi);
	CHECK(family == IONIC_IBVERBS_FAMILY_ID);
	CHECK(ionic_ibv_judge(&p, IONIC_IBVERBS_FAMILY_ID,
			      IONIC_IBVERBS_RDMA_CORE, IONIC_IBVERBS_LIB_MINOR,
			      IONIC_IBVERBS_PRIVATE_EXPORTS, msg,
			      sizeof(msg)) ==
	      (listed ? IONIC_IBV_MATCH : IONIC_IBV_MATCH_BETWEEN));

	if (check_failures())
		return check_finish();
	printf("family %s, as built: the provider registers\n",
	       IONIC_IBVERBS_FAMILY_NAME);
	return check_finish();
}
