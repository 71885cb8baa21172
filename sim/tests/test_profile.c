// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* Profile codec and node identity. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/profile.h"

static int failures;

#define CHECK(c, msg)                                           \
	do {                                                    \
		if (!(c)) {                                     \
			failures++;                             \
			printf("FAIL %d: %s\n", __LINE__, msg); \
		}                                               \
	} while (0)

int main(void)
{
	struct isim_profile a, b;
	char buf[1024], bad[64];
	uint8_t mac[6], gid[16];

	isim_profile_defaults(&a);
	CHECK(a.version == 2 && a.udma_count == 2 && a.max_spec == 8 &&
		      a.abi_version == 1 && a.eq_count == 6 && a.phc &&
		      a.vendor_part_id == 0x1002 && a.netdev_mtu == 1500,
	      "defaults");
	CHECK(a.sq_qtype != a.rq_qtype && a.rq_qtype != a.cq_qtype &&
		      a.cq_qtype != a.admin_qtype && a.sq_qtype != a.cq_qtype &&
		      a.sq_qtype < 16 && a.rq_qtype < 16 && a.cq_qtype < 16,
	      "qtypes distinct and < 16");

	/* format -> parse round trip after changing every kind of field */
	CHECK(isim_profile_parse(&a,
				 "version=1,qp_opcodes=0x10,phc=off,"
				 "fw_ver=9.9.9-x,npts=4096,udma_count=1,",
				 bad, sizeof(bad)) == 0,
	      "parse");
	CHECK(a.version == 1 && a.qp_opcodes == 16 && !a.phc &&
		      !strcmp(a.fw_ver, "9.9.9-x") && a.npts == 4096 &&
		      a.udma_count == 1,
	      "parsed values");
	CHECK(isim_profile_format(&a, buf, sizeof(buf)) == 0, "format");
	isim_profile_defaults(&b);
	CHECK(isim_profile_parse(&b, buf, NULL, 0) == 0, "reparse");
	CHECK(!memcmp(&a, &b, sizeof(a)), "round trip");

	CHECK(isim_profile_parse(&b, "nosuch=1", bad, sizeof(bad)) < 0 &&
		      !strcmp(bad, "nosuch"),
	      "unknown key");
	CHECK(isim_profile_parse(&b, "version=65536", bad, sizeof(bad)) < 0,
	      "range");
	CHECK(isim_profile_parse(&b, "sq_qtype=16", NULL, 0) < 0,
	      "qtype range");
	CHECK(isim_profile_parse(&b, "phc=maybe", NULL, 0) < 0, "bool");
	CHECK(isim_profile_parse(&b, "qp_count", NULL, 0) < 0, "no value");
	CHECK(isim_profile_parse(&b, "qp_count=-1", NULL, 0) < 0, "negative");

	setenv(ISIM_ENV_PROFILE, "max_stride=8", 1);
	CHECK(isim_profile_from_env(&b) == 0 && b.max_stride == 8 &&
		      b.version == 2,
	      "from env");

	/* identity: node 0x1234 */
	isim_node_mac(0x1234, mac);
	CHECK(!memcmp(mac, "\x02\x1d\xd8\x00\x12\x34", 6), "mac");
	isim_node_gid(0x1234, 0, gid);
	CHECK(!memcmp(gid,
		      "\xfe\x80\0\0\0\0\0\0\x00\x1d\xd8\xff\xfe\x00\x12\x34",
		      16),
	      "gid0 link-local EUI-64");
	CHECK(isim_gid_to_node(gid) == 0x1234, "gid0 inverse");
	isim_node_gid(0x1234, 1, gid);
	CHECK(!memcmp(gid, "\0\0\0\0\0\0\0\0\0\0\xff\xff\xc6\x12\x12\x34", 16),
	      "gid1 v4-mapped 198.18.18.52");
	CHECK(isim_gid_to_node(gid) == 0x1234, "gid1 inverse");
	isim_node_gid(7, 2, gid);
	CHECK(!memcmp(gid, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16),
	      "gid2 empty");
	CHECK(isim_gid_to_node(gid) == 0, "empty gid -> no node");
	gid[10] = gid[11] = 0xff;
	gid[12] = 10;
	CHECK(isim_gid_to_node(gid) == 0, "foreign v4 -> no node");

	isim_profile_usage(stdout);
	printf("%s\n", failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
