// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* Profile codec and node identity. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/profile.h"
#include "check.h"

int main(void)
{
	struct isim_profile a, b;
	char buf[1024], bad[64];
	uint8_t mac[6], gid[16];

	isim_profile_defaults(&a);
	CHECK_MSG(a.version == 2 && a.udma_count == 2 && a.max_spec == 8 &&
			  a.abi_version == 1 && a.eq_count == 6 && a.phc &&
			  a.vendor_part_id == 0x1002 && a.netdev_mtu == 1500,
		  "defaults");
	CHECK_MSG(a.sq_qtype != a.rq_qtype && a.rq_qtype != a.cq_qtype &&
			  a.cq_qtype != a.admin_qtype &&
			  a.sq_qtype != a.cq_qtype && a.sq_qtype < 16 &&
			  a.rq_qtype < 16 && a.cq_qtype < 16,
		  "qtypes distinct and < 16");

	/* format -> parse round trip after changing every kind of field */
	CHECK_MSG(isim_profile_parse(&a,
				     "version=1,qp_opcodes=0x10,phc=off,"
				     "fw_ver=9.9.9-x,npts=4096,udma_count=1,",
				     bad, sizeof(bad)) == 0,
		  "parse");
	CHECK_MSG(a.version == 1 && a.qp_opcodes == 16 && !a.phc &&
			  !strcmp(a.fw_ver, "9.9.9-x") && a.npts == 4096 &&
			  a.udma_count == 1,
		  "parsed values");
	CHECK_MSG(isim_profile_format(&a, buf, sizeof(buf)) == 0, "format");
	isim_profile_defaults(&b);
	CHECK_MSG(isim_profile_parse(&b, buf, NULL, 0) == 0, "reparse");
	CHECK_MSG(!memcmp(&a, &b, sizeof(a)), "round trip");

	CHECK_MSG(isim_profile_parse(&b, "nosuch=1", bad, sizeof(bad)) < 0 &&
			  !strcmp(bad, "nosuch"),
		  "unknown key");
	CHECK_MSG(isim_profile_parse(&b, "version=65536", bad, sizeof(bad)) < 0,
		  "range");
	CHECK_MSG(isim_profile_parse(&b, "sq_qtype=16", NULL, 0) < 0,
		  "qtype range");
	CHECK_MSG(isim_profile_parse(&b, "phc=maybe", NULL, 0) < 0, "bool");
	CHECK_MSG(isim_profile_parse(&b, "qp_count", NULL, 0) < 0, "no value");
	CHECK_MSG(isim_profile_parse(&b, "qp_count=-1", NULL, 0) < 0,
		  "negative");

	setenv(ISIM_ENV_PROFILE, "max_stride=8", 1);
	CHECK_MSG(isim_profile_from_env(&b) == 0 && b.max_stride == 8 &&
			  b.version == 2,
		  "from env");

	/* identity: node 0x1234 */
	isim_node_mac(0x1234, mac);
	CHECK_MSG(!memcmp(mac, "\x02\x1d\xd8\x00\x12\x34", 6), "mac");
	isim_node_gid(0x1234, 0, gid);
	CHECK_MSG(
		!memcmp(gid,
			"\xfe\x80\0\0\0\0\0\0\x00\x1d\xd8\xff\xfe\x00\x12\x34",
			16),
		"gid0 link-local EUI-64");
	CHECK_MSG(isim_gid_to_node(gid) == 0x1234, "gid0 inverse");
	isim_node_gid(0x1234, 1, gid);
	CHECK_MSG(!memcmp(gid, "\0\0\0\0\0\0\0\0\0\0\xff\xff\xc6\x12\x12\x34",
			  16),
		  "gid1 v4-mapped 198.18.18.52");
	CHECK_MSG(isim_gid_to_node(gid) == 0x1234, "gid1 inverse");
	isim_node_gid(7, 2, gid);
	CHECK_MSG(!memcmp(gid, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16),
		  "gid2 empty");
	CHECK_MSG(isim_gid_to_node(gid) == 0, "empty gid -> no node");
	gid[10] = gid[11] = 0xff;
	gid[12] = 10;
	CHECK_MSG(isim_gid_to_node(gid) == 0, "foreign v4 -> no node");

	isim_profile_usage(stdout);
	return check_finish();
}
