/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim firmware profile: every value the emulated firmware, driver and
 * NIC report, chosen per run.  The launcher parses command-line options into
 * a profile, writes the fake sysfs tree from it and hands it to the
 * emulated processes through the environment as one "key=value,..."
 * string (IONIC_SIM_PROFILE), so every process of a run agrees.
 */
#ifndef ISIM_PROFILE_H
#define ISIM_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ISIM_ENV_PROFILE "IONIC_SIM_PROFILE"
#define ISIM_ENV_NODE "IONIC_SIM_NODE" /* fabric node id of this NIC */
#define ISIM_ENV_FABRIC "IONIC_SIM_FABRIC" /* fabric name (isolation) */
#define ISIM_ENV_TRACE "IONIC_SIM_TRACE" /* trace file path, optional */
#define ISIM_ENV_TRACE_RAW "IONIC_SIM_TRACE_RAW" /* 1: WQE bytes too */
#define ISIM_ENV_RUNDIR "IONIC_SIM_RUNDIR" /* launcher's private directory */
/* IPv4 addresses of the NICs (dotted quads, comma-separated in NIC
 * order, common/nics.h), when the launcher gave them (--addr, the UDP
 * fabric); else each node's 198.18.hi.lo */
#define ISIM_ENV_ADDR "IONIC_SIM_ADDR"
/* fabric transport: "unix" (default) or "udp" */
#define ISIM_ENV_TRANSPORT "IONIC_SIM_TRANSPORT"

struct isim_profile {
	/* GET_CONTEXT (ionic_ctx_resp) */
	uint16_t version; /* firmware RDMA version: 1 or 2 */
	uint8_t qp_opcodes; /* count of supported SQ opcodes */
	uint8_t admin_opcodes;
	uint8_t sq_qtype, rq_qtype, cq_qtype, admin_qtype;
	uint8_t max_stride; /* log2 of the largest WQE */
	uint8_t max_spec;
	uint8_t udma_count; /* 1 or 2 */
	uint8_t udma_shift; /* queue-group shift of qid <-> pipeline */
	uint8_t expdb_mask;
	uint8_t expdb_qtypes;
	bool phc; /* offer the PHC clock page */
	uint32_t cmb_pages; /* controller memory pages; 0 = none */
	/* device limits (firmware identity) */
	uint32_t qp_count; /* QP ids per device (both pipelines) */
	uint32_t cq_count; /* CQ ids per device (both pipelines) */
	uint32_t nmrs; /* MR/MW indexes */
	uint32_t nahs;
	uint32_t npts; /* page translation entries */
	uint32_t eq_count; /* num_comp_vectors = eq_count - 2 */
	uint32_t dbid_count;
	/* identity */
	uint16_t vendor_part_id; /* 0x1002 PF, 0x1003 VF */
	uint32_t hw_rev;
	char fw_ver[32];
	/* port */
	uint32_t netdev_mtu; /* active_mtu derives from it */
	bool port_up;
	/* uverbs driver ABI reported in sysfs (ionic: 1) */
	uint32_t abi_version;
	/* answer RDMA netlink (false: socket(NETLINK_RDMA) fails and
	 * libibverbs discovers the device through sysfs alone) */
	bool netlink;
	/* faults on the NIC's wire (sim/fabric/fault.c): rates in frames
	 * per million, all 0 by default */
	uint32_t loss_ppm, dup_ppm, reorder_ppm, corrupt_ppm;
	uint32_t delay_us;
	uint32_t link_down_after,
		link_down_ms; /* frames sent; 0 ms: for good */
	uint32_t mute_after; /* frames received before it stops answering */
	uint32_t fault_seed; /* 0: the launcher picks one */
	/* firmware failure (docs/device-contract.md §9.1): after this many ms
	 * of the device's life (0 = never), or when the trigger file
	 * <run directory>/ISIM_FATAL_FILE appears (watched if fatal_trigger);
	 * a reset brings the device back for contexts opened afterwards */
	uint32_t fatal_after_ms;
	bool fatal_trigger;
	bool fatal_reset;
	/* fault injection: mmap of a CMB window fails (EAGAIN) */
	bool cmb_map_fail;
};

/* Does the profile ask for any fault? */
bool isim_profile_faults(const struct isim_profile *p);

/* The trigger file, in the launcher's run directory ($IONIC_SIM_RUNDIR):
 * ionic-sim creates it on SIGUSR1. */
#define ISIM_FATAL_FILE "device-fatal"

/* Pollara-class defaults, as far as the reference knows. */
void isim_profile_defaults(struct isim_profile *p);
/* Apply "key=value[,key=value...]"; returns 0 or -EINVAL with the bad key
 * copied into 'bad' (if not NULL). Unknown keys are errors. */
int isim_profile_parse(struct isim_profile *p, const char *spec, char *bad,
		       size_t badlen);
/* Serialise every field as a spec string accepted by isim_profile_parse. */
int isim_profile_format(const struct isim_profile *p, char *buf, size_t len);
/* Defaults + $IONIC_SIM_PROFILE. */
int isim_profile_from_env(struct isim_profile *p);
/* Print the keys, meanings and defaults (for --help). */
void isim_profile_usage(void *stdio_file);

/* ionic_bitid_to_qid (docs/kernel-contract.md §15): the qid of index 'idx'
 * inside UDMA pipeline 'udma''s half of an id space, and back. */
uint32_t isim_profile_qid(const struct isim_profile *p, unsigned int udma,
			  uint32_t idx);
uint32_t isim_profile_qid_index(const struct isim_profile *p, uint32_t qid);

/* Identity of fabric node 'node' (>= 1): MAC 02:1d:d8:00:hi:lo, GID 0 the
 * IPv6 link-local address from its EUI-64, GID 1 its IPv4 address
 * (isim_node_ipv4) IPv4-mapped. */
void isim_node_mac(uint32_t node, uint8_t mac[6]);
void isim_node_gid(uint32_t node, unsigned int index, uint8_t gid[16]);
/* The IPv4 address of node 'node', one of this host's NICs: its entry of
 * $IONIC_SIM_ADDR if set (the one place the address comes from; nics.h),
 * else 198.18.hi.lo (RFC 2544 benchmarking range). */
void isim_node_ipv4(uint32_t node, uint8_t ip[4]);
/* A MAC for a GID that is no node of this host's fabric (a NIC behind a
 * UDP fabric): 02:1d:d8 and the GID's last three bytes. */
void isim_gid_mac(const uint8_t gid[16], uint8_t mac[6]);
/* Inverse: the node a destination GID belongs to, or 0 if none. */
uint32_t isim_gid_to_node(const uint8_t gid[16]);

#endif /* ISIM_PROFILE_H */
