// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Device and port queries.  The kernel answers both; the provider adds what
 * only userspace knows: the firmware version string (kernel fw_ver is 0,
 * the string is in sysfs) and the completion clock derived from the PHC
 * page.
 */
#include <errno.h>
#include <string.h>

#include <time.h>

#include "ionic.h"
#include "phc.h"

/* Does the caller's attribute buffer reach to the end of 'field'? */
#define IONIC_ATTR_HAS(size, field)                             \
	((size) >= offsetof(struct ibv_device_attr_ex, field) + \
			   sizeof(((struct ibv_device_attr_ex *)0)->field))

static void ionic_fill_fw_ver(struct ibv_context *ibctx,
			      struct ibv_device_attr_ex *attr)
{
	struct verbs_device *vdev = verbs_get_device(ibctx->device);
	char *fw = attr->orig_attr.fw_ver;
	size_t len;
	int rc;

	memset(fw, 0, sizeof(attr->orig_attr.fw_ver));
	if (!vdev->sysfs)
		return;

	rc = ibv_read_ibdev_sysfs_file(fw, sizeof(attr->orig_attr.fw_ver),
				       vdev->sysfs, "fw_ver");
	if (rc <= 0) {
		fw[0] = '\0';
		return;
	}

	fw[sizeof(attr->orig_attr.fw_ver) - 1] = '\0';
	len = strlen(fw);
	while (len && (fw[len - 1] == '\n' || fw[len - 1] == ' '))
		fw[--len] = '\0';
}

int ionic_query_device_ex(struct ibv_context *ibctx,
			  const struct ibv_query_device_ex_input *input,
			  struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ionic_ctx *ctx = to_ionic_ctx(ibctx);
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	struct ionic_phc_snapshot snap;
	int rc;

	if (attr_size < sizeof(attr->orig_attr))
		return EINVAL;

	rc = ibv_cmd_query_device_any(ibctx, input, attr, attr_size, &resp,
				      &resp_size);
	if (rc)
		return rc;

	ionic_fill_fw_ver(ibctx, attr);

	/* the clock is optional: without a readable page, report none */
	if (!ctx->phc || ionic_phc_snapshot(ctx->phc, &snap))
		return 0;

	if (IONIC_ATTR_HAS(attr_size, completion_timestamp_mask))
		attr->completion_timestamp_mask = snap.mask;
	if (IONIC_ATTR_HAS(attr_size, hca_core_clock))
		attr->hca_core_clock = ionic_phc_khz(&snap);

	return 0;
}

/*
 * ibv_query_rt_values_ex: the device's free-running counter now, in the
 * units of completion timestamps (tv_sec 0, tv_nsec = counter), as other
 * providers report it.  The PHC page holds a (clock time, counter) pair
 * the kernel refreshes; the counter now is extrapolated from it with the
 * clock read through the vDSO: no system call, no kernel command
 * (docs/device-contract.md §14).
 */
int ionic_query_rt_values(struct ibv_context *ibctx, struct ibv_values_ex *v)
{
	struct ionic_ctx *ctx = to_ionic_ctx(ibctx);
	struct ionic_phc_snapshot snap;
	struct timespec now;
	uint32_t asked = v->comp_mask;

	v->comp_mask = 0;
	if (asked & ~(uint32_t)IBV_VALUES_MASK_RAW_CLOCK)
		return EINVAL;
	if (!(asked & IBV_VALUES_MASK_RAW_CLOCK))
		return 0;
	if (!ctx->phc)
		return EOPNOTSUPP; /* no clock page: no raw clock */
	if (ionic_phc_snapshot(ctx->phc, &snap))
		return EBUSY;
	clock_gettime(CLOCK_REALTIME, &now);
	v->raw_clock.tv_sec = 0;
	v->raw_clock.tv_nsec = (long)ionic_phc_ns_to_cycles(
		&snap,
		(uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec);
	v->comp_mask = IBV_VALUES_MASK_RAW_CLOCK;
	return 0;
}

int ionic_query_port(struct ibv_context *ibctx, uint8_t port,
		     struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd;

	memset(&cmd, 0, sizeof(cmd));
	return ibv_cmd_query_port(ibctx, port, attr, &cmd, sizeof(cmd));
}
