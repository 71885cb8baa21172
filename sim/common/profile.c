// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim firmware profile: defaults, the "key=value,..." codec shared by
 * the launcher and every emulated process, and the node identity scheme.
 *
 * Default values are what the reference (docs/kernel-contract.md,
 * docs/device-contract.md) states for a current Pollara-class NIC; where it
 * says "not determinable" the choice is ours and is documented next to the
 * value.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nics.h"
#include "profile.h"

void isim_profile_defaults(struct isim_profile *p)
{
	memset(p, 0, sizeof(*p));
	/* RDMA version 2: v2 opcode bits, v2 atomic layout
	 * (docs/device-contract.md §3.5). */
	p->version = 2;
	/* 11 = BIND_MW + 1: the provider refuses fewer on version 1, and the
	 * count of SQ opcodes a full-function firmware offers. */
	p->qp_opcodes = 11;
	/* The kernel refuses verbs whose admin opcode is >= this; 19 covers
	 * every admin command the driver sends (needs >= 17). */
	p->admin_opcodes = 19;
	/* Not determinable: any distinct values below IONIC_QTYPE_MAX (16).
	 * Each is the 8-byte slot of the doorbell page the queue rings. */
	p->admin_qtype = 1;
	p->sq_qtype = 2;
	p->rq_qtype = 3;
	p->cq_qtype = 4;
	/* Not determinable: 2 KiB WQEs; max_sge = min((2^11 - 32)/16, 8) = 8
	 * and up to 2016 inline bytes. */
	p->max_stride = 11;
	p->max_spec = 8; /* IONIC_SPEC_HIGH */
	p->udma_count = 2; /* hard-coded by the kernel */
	p->udma_shift = 4; /* not determinable; the kernel's worked example */
	p->expdb_mask = 0xf; /* 64..512 B express-doorbell windows exist ... */
	p->expdb_qtypes = 0; /* ... but no queue type offers express doorbell */
	p->phc = true;
	p->cmb_pages = 0; /* no controller memory: rings stay in host memory */
	p->qp_count = 2048;
	p->cq_count = 2048;
	p->nmrs = 65536;
	p->nahs = 4096;
	p->npts = 1u << 20;
	p->eq_count = 6; /* num_comp_vectors = 4 */
	p->dbid_count = 64;
	p->vendor_part_id = 0x1002;
	p->hw_rev = 0;
	snprintf(p->fw_ver, sizeof(p->fw_ver), "%s", "1.117.1-a-1");
	/* 1500-byte netdev: active_mtu 1024 (ibv_ud_pingpong then needs
	 * -s 1024, as on real hardware at that MTU). */
	p->netdev_mtu = 1500;
	p->port_up = true;
	p->abi_version = 1; /* IONIC_ABI_VERSION */
	p->netlink = true;
}

enum field_kind { F_U8, F_U16, F_U32, F_BOOL, F_STR };

struct field {
	const char *key;
	enum field_kind kind;
	size_t off;
	uint32_t min, max;
	const char *help;
};

/* clang-format 14 and 19 disagree here (tests/check-format.sh) */
/* clang-format off */
#define FLD(k, kind, lo, hi, h) \
	{ #k, kind, offsetof(struct isim_profile, k), lo, hi, h }
/* clang-format on */

static const struct field fields[] = {
	FLD(version, F_U16, 0, 0xffff, "firmware RDMA version (opcode table)"),
	FLD(qp_opcodes, F_U8, 0, 255, "count of supported SQ opcodes"),
	FLD(admin_opcodes, F_U8, 0, 255, "count of admin opcodes"),
	FLD(sq_qtype, F_U8, 0, 15, "doorbell slot (qtype) of SQs"),
	FLD(rq_qtype, F_U8, 0, 15, "doorbell slot (qtype) of RQs"),
	FLD(cq_qtype, F_U8, 0, 15, "doorbell slot (qtype) of CQs"),
	FLD(admin_qtype, F_U8, 0, 15,
	    "doorbell slot (qtype) of the admin queue"),
	FLD(max_stride, F_U8, 6, 16, "log2 of the largest WQE"),
	FLD(max_spec, F_U8, 0, 255, "speculative SGE limit"),
	FLD(udma_count, F_U8, 0, 255, "UDMA pipelines"),
	FLD(udma_shift, F_U8, 0, 23, "queue-group shift (qid bit = pipeline)"),
	FLD(expdb_mask, F_U8, 0, 15, "express-doorbell windows (bit 0 = 64 B)"),
	FLD(expdb_qtypes, F_U8, 0, 3, "express doorbell: 1 SQ, 2 RQ"),
	FLD(phc, F_BOOL, 0, 1, "offer the PHC clock page"),
	FLD(cmb_pages, F_U32, 0, 1u << 20,
	    "controller memory pages (0 = no CMB)"),
	FLD(qp_count, F_U32, 4, 1u << 24, "QP ids (both pipelines)"),
	FLD(cq_count, F_U32, 2, 1u << 24, "CQ ids (both pipelines)"),
	FLD(nmrs, F_U32, 2, 1u << 24, "MR/MW indexes"),
	FLD(nahs, F_U32, 1, 1u << 24, "address handles"),
	FLD(npts, F_U32, 1, UINT32_MAX, "page translation entries"),
	FLD(eq_count, F_U32, 4, 32, "event queues (comp vectors + 2)"),
	FLD(dbid_count, F_U32, 2, 1u << 16,
	    "doorbell pages (user contexts + 1)"),
	FLD(vendor_part_id, F_U16, 0, 0xffff,
	    "PCI device id (0x1002 PF, 0x1003 VF)"),
	FLD(hw_rev, F_U32, 0, UINT32_MAX, "ASIC revision"),
	FLD(fw_ver, F_STR, 0, 0, "firmware version string (sysfs fw_ver)"),
	FLD(netdev_mtu, F_U32, 68, 9216,
	    "netdev MTU (active_mtu derives from it)"),
	FLD(port_up, F_BOOL, 0, 1, "port ACTIVE (1) or DOWN (0)"),
	FLD(abi_version, F_U32, 0, 1000, "uverbs driver ABI in sysfs"),
	FLD(netlink, F_BOOL, 0, 1,
	    "answer RDMA netlink (0: sysfs-only device discovery)"),
	FLD(loss_ppm, F_U32, 0, 1000000,
	    "fault: frames lost, per million (20000 = 2%)"),
	FLD(dup_ppm, F_U32, 0, 1000000,
	    "fault: frames duplicated, per million"),
	FLD(reorder_ppm, F_U32, 0, 1000000,
	    "fault: frames held back 0.2-2 ms (reordered), per million"),
	FLD(corrupt_ppm, F_U32, 0, 1000000,
	    "fault: frames with a flipped bit (dropped by the ICRC), per million"),
	FLD(delay_us, F_U32, 0, 10000000, "fault: every frame delayed (us)"),
	FLD(link_down_after, F_U32, 0, UINT32_MAX,
	    "fault: the link goes down after this many frames sent (0 never)"),
	FLD(link_down_ms, F_U32, 0, UINT32_MAX,
	    "fault: ... for this long, then up again (0: for good)"),
	FLD(mute_after, F_U32, 0, UINT32_MAX,
	    "fault: the NIC stops answering after this many frames received"),
	FLD(fault_seed, F_U32, 0, UINT32_MAX,
	    "fault decisions' seed (0: the launcher picks and prints one)"),
	FLD(fatal_after_ms, F_U32, 0, UINT32_MAX,
	    "device fails N ms after its start (0: never)"),
	FLD(fatal_trigger, F_BOOL, 0, 1,
	    "device fails when the trigger file appears"),
	FLD(fatal_reset, F_BOOL, 0, 1,
	    "a failure is a reset (new contexts work)"),
	FLD(cmb_map_fail, F_BOOL, 0, 1, "mmap of a CMB window fails (EAGAIN)"),
};

#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

static const struct field *find_field(const char *key, size_t klen)
{
	for (size_t i = 0; i < NFIELDS; i++)
		if (strlen(fields[i].key) == klen &&
		    !strncmp(fields[i].key, key, klen))
			return &fields[i];
	return NULL;
}

static int parse_bool(const char *v, bool *out)
{
	if (!strcmp(v, "1") || !strcmp(v, "on") || !strcmp(v, "yes") ||
	    !strcmp(v, "true")) {
		*out = true;
		return 0;
	}
	if (!strcmp(v, "0") || !strcmp(v, "off") || !strcmp(v, "no") ||
	    !strcmp(v, "false")) {
		*out = false;
		return 0;
	}
	return -EINVAL;
}

/* A numeric field's value; a boolean is 0 or 1. */
static uint32_t field_number(const struct field *f, const char *base)
{
	switch (f->kind) {
	case F_U8:
		return *(const uint8_t *)base;
	case F_U16:
		return *(const uint16_t *)base;
	case F_BOOL:
		return *(const bool *)base;
	default:
		return *(const uint32_t *)base;
	}
}

static int set_field(struct isim_profile *p, const struct field *f,
		     const char *v)
{
	char *base = (char *)p + f->off;
	unsigned long long n;
	char *end;
	bool b;

	if (f->kind == F_STR) {
		if (strlen(v) >= sizeof(p->fw_ver))
			return -EINVAL;
		snprintf(base, sizeof(p->fw_ver), "%s", v);
		return 0;
	}
	if (f->kind == F_BOOL) {
		if (parse_bool(v, &b))
			return -EINVAL;
		*(bool *)base = b;
		return 0;
	}
	if (!*v || *v == '-')
		return -EINVAL;
	errno = 0;
	n = strtoull(v, &end, 0); /* decimal or 0x hex */
	if (errno || *end || n < f->min || n > f->max)
		return -EINVAL;
	switch (f->kind) {
	case F_U8:
		*(uint8_t *)base = n;
		break;
	case F_U16:
		*(uint16_t *)base = n;
		break;
	default:
		*(uint32_t *)base = n;
		break;
	}
	return 0;
}

static void copy_bad(char *bad, size_t badlen, const char *s, size_t n)
{
	if (!bad || !badlen)
		return;
	if (n >= badlen)
		n = badlen - 1;
	memcpy(bad, s, n);
	bad[n] = 0;
}

int isim_profile_parse(struct isim_profile *p, const char *spec, char *bad,
		       size_t badlen)
{
	const char *s = spec;

	while (s && *s) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);
		const char *eq = memchr(s, '=', len);
		const struct field *f;
		char val[64];
		size_t vlen;

		if (len == 0) { /* tolerate ",," and a trailing comma */
			s = comma ? comma + 1 : NULL;
			continue;
		}
		f = eq ? find_field(s, eq - s) : NULL;
		vlen = eq ? len - (eq - s) - 1 : 0;
		if (!f || vlen >= sizeof(val)) {
			copy_bad(bad, badlen, s, eq ? (size_t)(eq - s) : len);
			return -EINVAL;
		}
		memcpy(val, eq + 1, vlen);
		val[vlen] = 0;
		if (set_field(p, f, val)) {
			copy_bad(bad, badlen, s, len);
			return -EINVAL;
		}
		s = comma ? comma + 1 : NULL;
	}
	return 0;
}

int isim_profile_format(const struct isim_profile *p, char *buf, size_t len)
{
	size_t used = 0;

	if (len)
		buf[0] = 0;
	for (size_t i = 0; i < NFIELDS; i++) {
		const struct field *f = &fields[i];
		const char *base = (const char *)p + f->off;
		int n;

		if (f->kind == F_STR)
			n = snprintf(buf + used, len - used, "%s%s=%s",
				     i ? "," : "", f->key, base);
		else
			n = snprintf(buf + used, len - used, "%s%s=%" PRIu32,
				     i ? "," : "", f->key,
				     field_number(f, base));
		if (n < 0 || (size_t)n >= len - used)
			return -ENOSPC;
		used += n;
	}
	return 0;
}

int isim_profile_from_env(struct isim_profile *p)
{
	const char *spec = getenv(ISIM_ENV_PROFILE);

	isim_profile_defaults(p);
	return spec ? isim_profile_parse(p, spec, NULL, 0) : 0;
}

void isim_profile_usage(void *stdio_file)
{
	FILE *out = stdio_file;
	struct isim_profile d;
	char all[1024];

	isim_profile_defaults(&d);
	for (size_t i = 0; i < NFIELDS; i++) {
		const struct field *f = &fields[i];
		char one[64];
		const char *v;
		char *hit;

		/* Reuse the formatter so help and defaults never disagree. */
		isim_profile_format(&d, all, sizeof(all));
		snprintf(one, sizeof(one), "%s=", f->key);
		hit = strstr(all, one);
		while (hit && hit != all && hit[-1] != ',')
			hit = strstr(hit + 1, one);
		v = hit ? hit + strlen(one) : "?";
		fprintf(out, "  %-15s %-42s default %.*s\n", f->key, f->help,
			(int)strcspn(v, ","), v);
	}
}

/* ---- node identity ------------------------------------------------------ */

/*
 * Queue groups of 2^udma_shift ids alternate between the pipelines, so the
 * qid's bit 'shift' is the UDMA, the low bits the index inside the group
 * and the group number moves up by one bit.
 */
bool isim_profile_faults(const struct isim_profile *p)
{
	return p->loss_ppm || p->dup_ppm || p->reorder_ppm || p->corrupt_ppm ||
	       p->delay_us || p->link_down_after || p->mute_after;
}

uint32_t isim_profile_qid(const struct isim_profile *p, unsigned int udma,
			  uint32_t idx)
{
	unsigned int s = p->udma_shift;
	uint32_t low = idx & ((1u << s) - 1);

	return ((idx >> s) << (s + 1)) | ((uint32_t)udma << s) | low;
}

uint32_t isim_profile_qid_index(const struct isim_profile *p, uint32_t qid)
{
	unsigned int s = p->udma_shift;

	return ((qid >> (s + 1)) << s) | (qid & ((1u << s) - 1));
}

void isim_node_mac(uint32_t node, uint8_t mac[6])
{
	/* Locally administered (0x02) with the AMD Pensando OUI bytes. */
	mac[0] = 0x02;
	mac[1] = 0x1d;
	mac[2] = 0xd8;
	mac[3] = 0x00;
	mac[4] = (node >> 8) & 0xff;
	mac[5] = node & 0xff;
}

void isim_node_gid(uint32_t node, unsigned int index, uint8_t gid[16])
{
	uint8_t mac[6];

	memset(gid, 0, 16);
	isim_node_mac(node, mac);
	if (index == 0) {
		/* fe80::/64 + modified EUI-64: flip the U/L bit, insert ff:fe */
		gid[0] = 0xfe;
		gid[1] = 0x80;
		gid[8] = mac[0] ^ 0x02;
		gid[9] = mac[1];
		gid[10] = mac[2];
		gid[11] = 0xff;
		gid[12] = 0xfe;
		gid[13] = mac[3];
		gid[14] = mac[4];
		gid[15] = mac[5];
	} else if (index == 1) {
		gid[10] = 0xff;
		gid[11] = 0xff;
		isim_node_ipv4(node, gid + 12);
	}
}

void isim_node_ipv4(uint32_t node, uint8_t ip[4])
{
	int k = isim_nic_of_node(node);

	/* a node that is none of ours: the first address, as with one NIC */
	if (isim_nic_addr(k < 0 ? 0 : (unsigned int)k, ip))
		return;
	ip[0] = 198;
	ip[1] = 18;
	ip[2] = (node >> 8) & 0xff;
	ip[3] = node & 0xff;
}

void isim_gid_mac(const uint8_t gid[16], uint8_t mac[6])
{
	mac[0] = 0x02;
	mac[1] = 0x1d;
	mac[2] = 0xd8;
	memcpy(mac + 3, gid + 13, 3);
}

uint32_t isim_gid_to_node(const uint8_t gid[16])
{
	/* byte 8 is mac[0] ^ 0x02 = 0x00 */
	static const uint8_t ll[11] = { 0xfe, 0x80, 0,	  0,	0,   0,
					0,    0,    0x00, 0x1d, 0xd8 };
	static const uint8_t v4[13] = { 0, 0, 0, 0,    0,    0,	 0,
					0, 0, 0, 0xff, 0xff, 198 };
	uint32_t node = 0;

	if (!memcmp(gid, ll, sizeof(ll)) && gid[11] == 0xff &&
	    gid[12] == 0xfe && gid[13] == 0)
		node = (gid[14] << 8) | gid[15];
	else if (!memcmp(gid, v4, sizeof(v4)) && gid[13] == 18)
		node = (gid[14] << 8) | gid[15];
	return node;
}
