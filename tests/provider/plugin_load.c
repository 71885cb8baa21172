// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Loads the build-tree plugin exactly as libibverbs does (dlopen with
 * RTLD_NOW, so every import must resolve) and checks that it registers
 * itself.  This program defines verbs_register_driver_<PABI> and exports
 * it, so the plugin's constructor (after its load guard accepted the real
 * libibverbs) calls us instead of libibverbs and the ops it registers can
 * be inspected.
 *
 * usage: plugin_load <path>/libionic-rdmav<PABI>.so
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ionic.h"
#include "check.h"

static const struct verbs_device_ops *registered;
static int registrations;

__attribute__((visibility("default"))) void
IONIC_IBV_REGISTER_DRIVER(const struct verbs_device_ops *ops)
{
	registered = ops;
	registrations++;
}

static void check_table(const struct verbs_match_ent *t)
{
	bool id = false, pf = false, vf = false, name = false;

	for (; t->kind != VERBS_MATCH_SENTINEL; t++) {
		if (t->kind == VERBS_MATCH_DRIVER_ID && t->u.driver_id == 21)
			id = true;
		if (t->kind == VERBS_MATCH_PCI && t->vendor == 0x1dd8 &&
		    t->device == 0x1002)
			pf = true;
		if (t->kind == VERBS_MATCH_PCI && t->vendor == 0x1dd8 &&
		    t->device == 0x1003)
			vf = true;
		if (t->kind == VERBS_MATCH_MODALIAS &&
		    !strcmp(t->u.modalias, "rdma_device:*Nionic_*"))
			name = true;
	}
	CHECK(id);
	CHECK(pf);
	CHECK(vf);
	CHECK(name);
}

/* match_device's hint for a foreign kernel ABI, captured from stderr */
static void check_match_device(const struct verbs_device_ops *ops)
{
	struct verbs_sysfs_dev sdev;
	char out[1024] = "";
	FILE *tmp = tmpfile();
	int saved;
	size_t n;

	memset(&sdev, 0, sizeof(sdev));
	strcpy(sdev.ibdev_name, "ionic_0");
	sdev.abi_ver = 1;
	CHECK(!ops->match_device(&sdev)); /* no table match */
	sdev.match = &ops->match_table[1];
	CHECK(ops->match_device(&sdev));

	if (!tmp) {
		check_fail(__FILE__, __LINE__,
			   "tmpfile: cannot capture stderr");
		return;
	}
	fflush(stderr);
	saved = dup(2);
	dup2(fileno(tmp), 2);
	sdev.abi_ver = 4;
	CHECK(ops->match_device(&sdev)); /* libibverbs' range check refuses */
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(out, 1, sizeof(out) - 1, tmp);
	out[n] = '\0';
	fclose(tmp);
	CHECK(strstr(out, "ionic_0") && strstr(out, "ABI 4"));
}

int main(int argc, char **argv)
{
	const struct verbs_device_ops *ops;
	struct verbs_sysfs_dev sdev;
	struct verbs_device *vdev;
	void *h;

	if (argc != 2) {
		fprintf(stderr, "usage: %s <plugin.so>\n", argv[0]);
		return 2;
	}

	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "FAIL: dlopen(RTLD_NOW): %s\n", dlerror());
		return 1;
	}

	CHECK(registrations == 1);
	ops = registered;
	if (!ops) {
		fprintf(stderr, "FAIL: the plugin did not register\n");
		return 1;
	}

	CHECK(!strcmp(ops->name, "ionic"));
	CHECK(ops->match_min_abi_version == 1 &&
	      ops->match_max_abi_version == 1);
	CHECK(ops->alloc_context && ops->alloc_device && ops->uninit_device);
	CHECK(ops->match_device && ops->import_context);
	check_table(ops->match_table);
	check_match_device(ops);

	memset(&sdev, 0, sizeof(sdev));
	vdev = ops->alloc_device(&sdev);
	CHECK(vdev != NULL);
	if (vdev) {
		CHECK(vdev->ops == NULL && vdev->device._ops._dummy1 == NULL);
		ops->uninit_device(vdev);
	}

	/* the DV API is exported, nothing else is */
	CHECK(dlsym(h, "ionic_dv_ctx_get_udma_count") != NULL);
	CHECK(dlsym(h, "ionic_dv_pd_set_rqcmb") != NULL);
	CHECK(dlsym(h, "verbs_provider_ionic") == NULL);
	CHECK(dlsym(h, "ionic_alloc_pd") == NULL);
	CHECK(dlsym(h, "ionic_ctx_ops") == NULL);

	if (!check_failures())
		printf("plugin %s loads with RTLD_NOW and registers \"%s\"\n",
		       argv[1], ops->name);
	dlclose(h);
	return check_finish();
}
