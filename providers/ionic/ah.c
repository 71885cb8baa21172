// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Address handles.  The kernel builds the packet headers and returns an
 * AH id, which UD send WQEs carry; the provider only keeps that id.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ionic.h"

/* CREATE_AH has no driver request; the response carries ionic_ah_resp. */
struct ionic_create_ah_resp {
	struct ib_uverbs_create_ah_resp ibv_resp;
	struct ionic_ah_resp drv_payload;
};
static_assert(offsetof(struct ionic_create_ah_resp, drv_payload) ==
		      sizeof(struct ib_uverbs_create_ah_resp),
	      "CREATE_AH driver response follows the core response");
static_assert(sizeof(struct ionic_create_ah_resp) == 12,
	      "CREATE_AH response with driver data");

struct ibv_ah *ionic_create_ah(struct ibv_pd *ibpd, struct ibv_ah_attr *attr)
{
	struct ionic_create_ah_resp resp;
	struct ionic_ah *ah;
	int rc;

	ah = calloc(1, sizeof(*ah));
	if (!ah) {
		errno = ENOMEM;
		return NULL;
	}

	memset(&resp, 0, sizeof(resp));
	rc = ibv_cmd_create_ah(ionic_root_ibpd(ibpd), &ah->ibah, attr,
			       &resp.ibv_resp, sizeof(resp));
	if (rc) {
		free(ah);
		errno = rc;
		return NULL;
	}

	ah->ahid = resp.drv_payload.ahid;
	return &ah->ibah;
}

int ionic_destroy_ah(struct ibv_ah *ibah)
{
	int rc;

	rc = ibv_cmd_destroy_ah(ibah);
	if (rc)
		return rc;

	free(to_ionic_ah(ibah));
	return 0;
}
