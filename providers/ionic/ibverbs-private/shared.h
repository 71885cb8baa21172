/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The part of the libibverbs private provider ABI that is the same in every
 * supported rdma-core release (v39 to v60): device matching and
 * registration structs, object wrappers, the context ops table (76 entries,
 * 79 in family G), context helpers and logging; commands.h adds the
 * command wrappers and the ibv_cmd_* prototypes that never changed.  The
 * sizes and offsets pinned here are identical in all of them (each family
 * header includes this file, and ./build.sh matrix builds one per family).
 *
 * Included only by a family header (family-<F>.h), which defines first
 * IONIC_IBVERBS_FAMILY (its letter) and IONIC_IBVERBS_PABI (its private ABI
 * number) and afterwards states its fingerprint with IONIC_IBV_FINGERPRINT.
 * What differs between families is chosen below with IONIC_IBV_SINCE();
 * variants.h declares the ibv_cmd_* calls whose prototype changed, behind
 * family-neutral wrappers.
 *
 * Only what libionic needs is declared.  A mistake here fails the build
 * through the static assertions instead of corrupting the library's memory
 * at run time.
 */
#ifndef IONIC_IBVERBS_SHARED_H
#define IONIC_IBVERBS_SHARED_H

#include <assert.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#include "families.h"

#if !defined(IONIC_IBVERBS_PABI) || !defined(IONIC_IBVERBS_FAMILY)
#error "include a family header (family-<F>.h), not shared.h"
#endif

/*
 * What changed at each family boundary (families.h lists the families),
 * as 0/1 for the family being built.  IONIC_IBV_SINCE(F): family F or a
 * later one.
 */
#define ionic_ibv_paste_inner(a, b) a##b
#define ionic_ibv_paste(a, b) ionic_ibv_paste_inner(a, b)
#define IONIC_IBV_SINCE(f)                                        \
	(ionic_ibv_paste(IONIC_IBV_ORD_, IONIC_IBVERBS_FAMILY) >= \
	 IONIC_IBV_ORD_##f)
/* B: ibv_qp_ex gains wr_atomic_write */
#define IONIC_IBV_QPX_HAS_ATOMIC_WRITE IONIC_IBV_SINCE(B)
/* C: ibv_qp_ex gains wr_flush */
#define IONIC_IBV_QPX_HAS_FLUSH IONIC_IBV_SINCE(C)
/* D: ibv_port_attr gains active_speed_ex (fingerprint only) */
/* E: ibv_cmd_reg_dmabuf_mr gains struct ibv_command_buffer *driver */
#define IONIC_IBV_REG_DMABUF_DRIVER IONIC_IBV_SINCE(E)
/* F: ibv_cmd_get_context gains struct ibv_fd_arr *fd_arr */
#define IONIC_IBV_GET_CONTEXT_FD_ARR IONIC_IBV_SINCE(F)
/* G: ibv_cmd_create_cq_ex gains prov_attr; verbs_context_ops gains
 * alloc_dmah, dealloc_dmah and reg_mr_ex */
#define IONIC_IBV_CREATE_CQ_PROV_ATTR IONIC_IBV_SINCE(G)
#define IONIC_IBV_HAS_DMAH_OPS IONIC_IBV_SINCE(G)

#define IONIC_IBV_SIZE(t, n) static_assert(sizeof(t) == (n), #t " size")
#define IONIC_IBV_OFF(t, f, n) \
	static_assert(offsetof(t, f) == (n), #t "." #f " offset")

/* ------------------------------------------------------------------------
 * ccan list nodes embedded in the library's device bookkeeping.
 */
struct list_node {
	struct list_node *next, *prev;
};

struct list_head {
	struct list_node n;
};

/* ------------------------------------------------------------------------
 * Device matching.
 */
enum verbs_match_kind {
	VERBS_MATCH_SENTINEL = 0,
	VERBS_MATCH_PCI = 1,
	VERBS_MATCH_MODALIAS = 2,
	VERBS_MATCH_DRIVER_ID = 3,
};

struct verbs_match_ent {
	void *driver_data;
	union {
		const char *modalias;
		uint64_t driver_id;
	} u;
	uint16_t vendor;
	uint16_t device;
	uint8_t kind;
};

IONIC_IBV_SIZE(struct verbs_match_ent, 24);
IONIC_IBV_OFF(struct verbs_match_ent, u, 8);
IONIC_IBV_OFF(struct verbs_match_ent, vendor, 16);
IONIC_IBV_OFF(struct verbs_match_ent, device, 18);
IONIC_IBV_OFF(struct verbs_match_ent, kind, 20);

/* clang-format 14 and 19 disagree here (tests/check-format.sh) */
/* clang-format off */
/* Matches the kernel driver id (netlink discovery only). */
#define VERBS_DRIVER_ID(id) \
	{ .u.driver_id = (id), .kind = VERBS_MATCH_DRIVER_ID }
/* Matches device/modalias "pci:v<vendor>d<device>sv*" (sysfs discovery). */
#define VERBS_PCI_MATCH(vendor_id, device_id, data) \
	{ .driver_data = (void *)(data),            \
	  .vendor = (vendor_id),                    \
	  .device = (device_id),                    \
	  .kind = VERBS_MATCH_PCI }
/* fnmatch() pattern against the modalias or "rdma_device:N<ibdev name>". */
#define VERBS_MODALIAS_MATCH(pattern, data) \
	{ .driver_data = (void *)(data),    \
	  .u.modalias = (pattern),          \
	  .kind = VERBS_MATCH_MODALIAS }
/* clang-format on */
/* Matches IB device names starting with 'prefix'. */
#define VERBS_NAME_MATCH(prefix, data) \
	VERBS_MODALIAS_MATCH("rdma_device:*N" prefix "*", data)

enum {
	VSYSFS_READ_MODALIAS = 1 << 0,
	VSYSFS_READ_NODE_GUID = 1 << 1,
};

/* One uverbs device found by the library; owned by it. */
struct verbs_sysfs_dev {
	struct list_node entry;
	void *provider_data;
	const struct verbs_match_ent *match;
	unsigned int flags;
	char sysfs_name[IBV_SYSFS_NAME_MAX];
	dev_t sysfs_cdev;
	char ibdev_name[IBV_SYSFS_NAME_MAX];
	char ibdev_path[IBV_SYSFS_PATH_MAX];
	char modalias[512];
	uint64_t node_guid;
	uint32_t driver_id;
	enum ibv_node_type node_type;
	int ibdev_idx;
	uint32_t num_ports;
	uint32_t abi_ver;
	struct timespec time_created;
};

IONIC_IBV_SIZE(struct verbs_sysfs_dev, 992);
IONIC_IBV_OFF(struct verbs_sysfs_dev, provider_data, 16);
IONIC_IBV_OFF(struct verbs_sysfs_dev, match, 24);
IONIC_IBV_OFF(struct verbs_sysfs_dev, flags, 32);
IONIC_IBV_OFF(struct verbs_sysfs_dev, sysfs_name, 36);
IONIC_IBV_OFF(struct verbs_sysfs_dev, sysfs_cdev, 104);
IONIC_IBV_OFF(struct verbs_sysfs_dev, ibdev_name, 112);
IONIC_IBV_OFF(struct verbs_sysfs_dev, ibdev_path, 176);
IONIC_IBV_OFF(struct verbs_sysfs_dev, modalias, 432);
IONIC_IBV_OFF(struct verbs_sysfs_dev, node_guid, 944);
IONIC_IBV_OFF(struct verbs_sysfs_dev, driver_id, 952);
IONIC_IBV_OFF(struct verbs_sysfs_dev, node_type, 956);
IONIC_IBV_OFF(struct verbs_sysfs_dev, ibdev_idx, 960);
IONIC_IBV_OFF(struct verbs_sysfs_dev, num_ports, 964);
IONIC_IBV_OFF(struct verbs_sysfs_dev, abi_ver, 968);
IONIC_IBV_OFF(struct verbs_sysfs_dev, time_created, 976);

struct verbs_device;
struct verbs_context;

struct verbs_device_ops {
	const char *name;
	uint32_t match_min_abi_version;
	uint32_t match_max_abi_version;
	const struct verbs_match_ent *match_table;
	const struct verbs_device_ops **static_providers;
	bool (*match_device)(struct verbs_sysfs_dev *sysfs_dev);
	struct verbs_context *(*alloc_context)(struct ibv_device *device,
					       int cmd_fd, void *private_data);
	struct verbs_context *(*import_context)(struct ibv_device *device,
						int cmd_fd);
	struct verbs_device *(*alloc_device)(struct verbs_sysfs_dev *sysfs_dev);
	void (*uninit_device)(struct verbs_device *device);
};

IONIC_IBV_SIZE(struct verbs_device_ops, 72);
IONIC_IBV_OFF(struct verbs_device_ops, match_min_abi_version, 8);
IONIC_IBV_OFF(struct verbs_device_ops, match_max_abi_version, 12);
IONIC_IBV_OFF(struct verbs_device_ops, match_table, 16);
IONIC_IBV_OFF(struct verbs_device_ops, static_providers, 24);
IONIC_IBV_OFF(struct verbs_device_ops, match_device, 32);
IONIC_IBV_OFF(struct verbs_device_ops, alloc_context, 40);
IONIC_IBV_OFF(struct verbs_device_ops, import_context, 48);
IONIC_IBV_OFF(struct verbs_device_ops, alloc_device, 56);
IONIC_IBV_OFF(struct verbs_device_ops, uninit_device, 64);

/* The provider's device embeds this first; alloc_device returns it zeroed. */
struct verbs_device {
	struct ibv_device device;
	const struct verbs_device_ops *ops;
	atomic_int refcount;
	struct list_node entry;
	struct verbs_sysfs_dev *sysfs;
	uint64_t core_support;
};

IONIC_IBV_SIZE(struct ibv_device, 664);
IONIC_IBV_SIZE(struct verbs_device, 712);
IONIC_IBV_OFF(struct verbs_device, ops, 664);
IONIC_IBV_OFF(struct verbs_device, refcount, 672);
IONIC_IBV_OFF(struct verbs_device, entry, 680);
IONIC_IBV_OFF(struct verbs_device, sysfs, 696);
IONIC_IBV_OFF(struct verbs_device, core_support, 704);

static inline struct verbs_device *
verbs_get_device(const struct ibv_device *dev)
{
	return container_of(dev, struct verbs_device, device);
}

/* ------------------------------------------------------------------------
 * Object wrappers: public object first, library-private fields after.
 */
enum ibv_mr_type {
	IBV_MR_TYPE_MR = 0,
	IBV_MR_TYPE_NULL_MR = 1,
	IBV_MR_TYPE_IMPORTED_MR = 2,
	IBV_MR_TYPE_DMABUF_MR = 3,
};

struct verbs_mr {
	struct ibv_mr ibv_mr;
	enum ibv_mr_type mr_type;
	int access;
};

enum {
	VERBS_XRCD_HANDLE = 1 << 0,
};

struct verbs_xrcd {
	struct ibv_xrcd xrcd;
	uint32_t comp_mask;
	uint32_t handle;
};

struct verbs_srq {
	struct ibv_srq srq;
	enum ibv_srq_type srq_type;
	struct verbs_xrcd *xrcd;
	struct ibv_cq *cq;
	uint32_t srq_num;
};

enum {
	VERBS_QP_XRCD = 1 << 0,
	VERBS_QP_EX = 1 << 1,
};

struct verbs_qp {
	union {
		struct ibv_qp qp;
		struct ibv_qp_ex qp_ex;
	};
	uint32_t comp_mask;
	struct verbs_xrcd *xrcd;
};

struct verbs_cq {
	union {
		struct ibv_cq cq;
		struct ibv_cq_ex cq_ex;
	};
};

IONIC_IBV_SIZE(struct ibv_pd, 16);
IONIC_IBV_SIZE(struct ibv_ah, 24);
IONIC_IBV_SIZE(struct ibv_mr, 48);
IONIC_IBV_SIZE(struct ibv_mw, 32);
IONIC_IBV_SIZE(struct ibv_cq, 128);
IONIC_IBV_SIZE(struct ibv_srq, 128);
IONIC_IBV_SIZE(struct ibv_qp, 160);
IONIC_IBV_SIZE(struct verbs_mr, 56);
IONIC_IBV_OFF(struct verbs_mr, mr_type, 48);
IONIC_IBV_OFF(struct verbs_mr, access, 52);
IONIC_IBV_SIZE(struct ibv_comp_channel, 16);
IONIC_IBV_SIZE(struct verbs_xrcd, 16);
IONIC_IBV_OFF(struct verbs_xrcd, comp_mask, 8);
IONIC_IBV_OFF(struct verbs_xrcd, handle, 12);
IONIC_IBV_SIZE(struct verbs_srq, 160);
IONIC_IBV_OFF(struct verbs_srq, srq_type, 128);
IONIC_IBV_OFF(struct verbs_srq, xrcd, 136);
IONIC_IBV_OFF(struct verbs_srq, cq, 144);
IONIC_IBV_OFF(struct verbs_srq, srq_num, 152);
/*
 * ibv_qp_ex (public verbs.h) gains slots at its end from release to
 * release, which moves verbs_qp's own fields; the library writes them in
 * ibv_cmd_create_qp_ex*() and reads comp_mask in ibv_qp_to_qp_ex().  The
 * family headers pin the absolute numbers.
 */
IONIC_IBV_OFF(struct verbs_qp, comp_mask, sizeof(struct ibv_qp_ex));
IONIC_IBV_OFF(struct verbs_qp, xrcd, sizeof(struct ibv_qp_ex) + 8);
IONIC_IBV_SIZE(struct verbs_qp, sizeof(struct ibv_qp_ex) + 16);
IONIC_IBV_SIZE(struct verbs_cq, 288);

/* ------------------------------------------------------------------------
 * The provider operations, alphabetical, as the library lays them out (it
 * copies them by offset in verbs_set_ops()): 76 entries up to family F;
 * family G inserts alloc_dmah, dealloc_dmah and reg_mr_ex in their
 * alphabetical places, moving every entry after alloc_dm.
 */
struct verbs_context_ops {
	int (*advise_mr)(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
			 uint32_t flags, struct ibv_sge *sg_list,
			 uint32_t num_sges);
	struct ibv_dm *(*alloc_dm)(struct ibv_context *context,
				   struct ibv_alloc_dm_attr *attr);
#if IONIC_IBV_HAS_DMAH_OPS
	struct ibv_dmah *(*alloc_dmah)(struct ibv_context *context,
				       struct ibv_dmah_init_attr *attr);
#endif
	struct ibv_mw *(*alloc_mw)(struct ibv_pd *pd, enum ibv_mw_type type);
	struct ibv_mr *(*alloc_null_mr)(struct ibv_pd *pd);
	struct ibv_pd *(*alloc_parent_domain)(
		struct ibv_context *context,
		struct ibv_parent_domain_init_attr *attr);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
	struct ibv_td *(*alloc_td)(struct ibv_context *context,
				   struct ibv_td_init_attr *init_attr);
	void (*async_event)(struct ibv_context *context,
			    struct ibv_async_event *event);
	int (*attach_counters_point_flow)(struct ibv_counters *counters,
					  struct ibv_counter_attach_attr *attr,
					  struct ibv_flow *flow);
	int (*attach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	int (*bind_mw)(struct ibv_qp *qp, struct ibv_mw *mw,
		       struct ibv_mw_bind *mw_bind);
	int (*close_xrcd)(struct ibv_xrcd *xrcd);
	void (*cq_event)(struct ibv_cq *cq);
	struct ibv_ah *(*create_ah)(struct ibv_pd *pd,
				    struct ibv_ah_attr *attr);
	struct ibv_counters *(*create_counters)(
		struct ibv_context *context,
		struct ibv_counters_init_attr *init_attr);
	struct ibv_cq *(*create_cq)(struct ibv_context *context, int cqe,
				    struct ibv_comp_channel *channel,
				    int comp_vector);
	struct ibv_cq_ex *(*create_cq_ex)(struct ibv_context *context,
					  struct ibv_cq_init_attr_ex *init_attr);
	struct ibv_flow *(*create_flow)(struct ibv_qp *qp,
					struct ibv_flow_attr *flow_attr);
	struct ibv_flow_action *(*create_flow_action_esp)(
		struct ibv_context *context,
		struct ibv_flow_action_esp_attr *attr);
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr);
	struct ibv_qp *(*create_qp_ex)(struct ibv_context *context,
				       struct ibv_qp_init_attr_ex *attr);
	struct ibv_rwq_ind_table *(*create_rwq_ind_table)(
		struct ibv_context *context,
		struct ibv_rwq_ind_table_init_attr *init_attr);
	struct ibv_srq *(*create_srq)(struct ibv_pd *pd,
				      struct ibv_srq_init_attr *attr);
	struct ibv_srq *(*create_srq_ex)(struct ibv_context *context,
					 struct ibv_srq_init_attr_ex *attr);
	struct ibv_wq *(*create_wq)(struct ibv_context *context,
				    struct ibv_wq_init_attr *attr);
#if IONIC_IBV_HAS_DMAH_OPS
	int (*dealloc_dmah)(struct ibv_dmah *dmah);
#endif
	int (*dealloc_mw)(struct ibv_mw *mw);
	int (*dealloc_pd)(struct ibv_pd *pd);
	int (*dealloc_td)(struct ibv_td *td);
	int (*dereg_mr)(struct verbs_mr *vmr);
	int (*destroy_ah)(struct ibv_ah *ah);
	int (*destroy_counters)(struct ibv_counters *counters);
	int (*destroy_cq)(struct ibv_cq *cq);
	int (*destroy_flow)(struct ibv_flow *flow);
	int (*destroy_flow_action)(struct ibv_flow_action *action);
	int (*destroy_qp)(struct ibv_qp *qp);
	int (*destroy_rwq_ind_table)(struct ibv_rwq_ind_table *table);
	int (*destroy_srq)(struct ibv_srq *srq);
	int (*destroy_wq)(struct ibv_wq *wq);
	int (*detach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	void (*free_context)(struct ibv_context *context);
	int (*free_dm)(struct ibv_dm *dm);
	int (*get_srq_num)(struct ibv_srq *srq, uint32_t *srq_num);
	struct ibv_dm *(*import_dm)(struct ibv_context *context,
				    uint32_t dm_handle);
	struct ibv_mr *(*import_mr)(struct ibv_pd *pd, uint32_t mr_handle);
	struct ibv_pd *(*import_pd)(struct ibv_context *context,
				    uint32_t pd_handle);
	int (*modify_cq)(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr);
	int (*modify_flow_action_esp)(struct ibv_flow_action *action,
				      struct ibv_flow_action_esp_attr *attr);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask);
	int (*modify_qp_rate_limit)(struct ibv_qp *qp,
				    struct ibv_qp_rate_limit_attr *attr);
	int (*modify_srq)(struct ibv_srq *srq, struct ibv_srq_attr *attr,
			  int attr_mask);
	int (*modify_wq)(struct ibv_wq *wq, struct ibv_wq_attr *attr);
	struct ibv_qp *(*open_qp)(struct ibv_context *context,
				  struct ibv_qp_open_attr *attr);
	struct ibv_xrcd *(*open_xrcd)(struct ibv_context *context,
				      struct ibv_xrcd_init_attr *attr);
	int (*poll_cq)(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr);
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad_wr);
	int (*post_srq_ops)(struct ibv_srq *srq, struct ibv_ops_wr *op,
			    struct ibv_ops_wr **bad_op);
	int (*post_srq_recv)(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			     struct ibv_recv_wr **bad_wr);
	int (*query_device_ex)(struct ibv_context *context,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr,
			       size_t attr_size);
	int (*query_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	int (*query_port)(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *port_attr);
	int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			int attr_mask, struct ibv_qp_init_attr *init_attr);
	int (*query_qp_data_in_order)(struct ibv_qp *qp, enum ibv_wr_opcode op,
				      uint32_t flags);
	int (*query_rt_values)(struct ibv_context *context,
			       struct ibv_values_ex *values);
	int (*query_srq)(struct ibv_srq *srq, struct ibv_srq_attr *attr);
	int (*read_counters)(struct ibv_counters *counters,
			     uint64_t *counters_value, uint32_t ncounters,
			     uint32_t flags);
	struct ibv_mr *(*reg_dm_mr)(struct ibv_pd *pd, struct ibv_dm *dm,
				    uint64_t dm_offset, size_t length,
				    unsigned int access);
	struct ibv_mr *(*reg_dmabuf_mr)(struct ibv_pd *pd, uint64_t offset,
					size_t length, uint64_t iova, int fd,
					int access);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t hca_va, int access);
#if IONIC_IBV_HAS_DMAH_OPS
	struct ibv_mr *(*reg_mr_ex)(struct ibv_pd *pd,
				    struct ibv_mr_init_attr *mr_init_attr);
#endif
	int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only);
	int (*rereg_mr)(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
			void *addr, size_t length, int access);
	int (*resize_cq)(struct ibv_cq *cq, int cqe);
	int (*set_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	void (*unimport_dm)(struct ibv_dm *dm);
	void (*unimport_mr)(struct ibv_mr *mr);
	void (*unimport_pd)(struct ibv_pd *pd);
};

/*
 * Entry n of the 76-entry table sits at byte 8 * n, plus 8 for each of the
 * three family-G entries that sort before it: pin every one of them.
 */
#define IONIC_IBV_OPS_SHIFT(n) \
	(IONIC_IBV_HAS_DMAH_OPS ? ((n) >= 2) + ((n) >= 25) + ((n) >= 69) : 0)
#define IONIC_IBV_OP(op, n)                         \
	IONIC_IBV_OFF(struct verbs_context_ops, op, \
		      8 * ((n) + IONIC_IBV_OPS_SHIFT(n)))
IONIC_IBV_SIZE(struct verbs_context_ops, 8 * (76 + 3 * IONIC_IBV_HAS_DMAH_OPS));
IONIC_IBV_OP(advise_mr, 0);
IONIC_IBV_OP(alloc_dm, 1);
IONIC_IBV_OP(alloc_mw, 2);
IONIC_IBV_OP(alloc_null_mr, 3);
IONIC_IBV_OP(alloc_parent_domain, 4);
IONIC_IBV_OP(alloc_pd, 5);
IONIC_IBV_OP(alloc_td, 6);
IONIC_IBV_OP(async_event, 7);
IONIC_IBV_OP(attach_counters_point_flow, 8);
IONIC_IBV_OP(attach_mcast, 9);
IONIC_IBV_OP(bind_mw, 10);
IONIC_IBV_OP(close_xrcd, 11);
IONIC_IBV_OP(cq_event, 12);
IONIC_IBV_OP(create_ah, 13);
IONIC_IBV_OP(create_counters, 14);
IONIC_IBV_OP(create_cq, 15);
IONIC_IBV_OP(create_cq_ex, 16);
IONIC_IBV_OP(create_flow, 17);
IONIC_IBV_OP(create_flow_action_esp, 18);
IONIC_IBV_OP(create_qp, 19);
IONIC_IBV_OP(create_qp_ex, 20);
IONIC_IBV_OP(create_rwq_ind_table, 21);
IONIC_IBV_OP(create_srq, 22);
IONIC_IBV_OP(create_srq_ex, 23);
IONIC_IBV_OP(create_wq, 24);
IONIC_IBV_OP(dealloc_mw, 25);
IONIC_IBV_OP(dealloc_pd, 26);
IONIC_IBV_OP(dealloc_td, 27);
IONIC_IBV_OP(dereg_mr, 28);
IONIC_IBV_OP(destroy_ah, 29);
IONIC_IBV_OP(destroy_counters, 30);
IONIC_IBV_OP(destroy_cq, 31);
IONIC_IBV_OP(destroy_flow, 32);
IONIC_IBV_OP(destroy_flow_action, 33);
IONIC_IBV_OP(destroy_qp, 34);
IONIC_IBV_OP(destroy_rwq_ind_table, 35);
IONIC_IBV_OP(destroy_srq, 36);
IONIC_IBV_OP(destroy_wq, 37);
IONIC_IBV_OP(detach_mcast, 38);
IONIC_IBV_OP(free_context, 39);
IONIC_IBV_OP(free_dm, 40);
IONIC_IBV_OP(get_srq_num, 41);
IONIC_IBV_OP(import_dm, 42);
IONIC_IBV_OP(import_mr, 43);
IONIC_IBV_OP(import_pd, 44);
IONIC_IBV_OP(modify_cq, 45);
IONIC_IBV_OP(modify_flow_action_esp, 46);
IONIC_IBV_OP(modify_qp, 47);
IONIC_IBV_OP(modify_qp_rate_limit, 48);
IONIC_IBV_OP(modify_srq, 49);
IONIC_IBV_OP(modify_wq, 50);
IONIC_IBV_OP(open_qp, 51);
IONIC_IBV_OP(open_xrcd, 52);
IONIC_IBV_OP(poll_cq, 53);
IONIC_IBV_OP(post_recv, 54);
IONIC_IBV_OP(post_send, 55);
IONIC_IBV_OP(post_srq_ops, 56);
IONIC_IBV_OP(post_srq_recv, 57);
IONIC_IBV_OP(query_device_ex, 58);
IONIC_IBV_OP(query_ece, 59);
IONIC_IBV_OP(query_port, 60);
IONIC_IBV_OP(query_qp, 61);
IONIC_IBV_OP(query_qp_data_in_order, 62);
IONIC_IBV_OP(query_rt_values, 63);
IONIC_IBV_OP(query_srq, 64);
IONIC_IBV_OP(read_counters, 65);
IONIC_IBV_OP(reg_dm_mr, 66);
IONIC_IBV_OP(reg_dmabuf_mr, 67);
IONIC_IBV_OP(reg_mr, 68);
IONIC_IBV_OP(req_notify_cq, 69);
IONIC_IBV_OP(rereg_mr, 70);
IONIC_IBV_OP(resize_cq, 71);
IONIC_IBV_OP(set_ece, 72);
IONIC_IBV_OP(unimport_dm, 73);
IONIC_IBV_OP(unimport_mr, 74);
IONIC_IBV_OP(unimport_pd, 75);

/* The public context structs the library lays out around ours. */
IONIC_IBV_SIZE(struct ibv_context, 328);
IONIC_IBV_OFF(struct ibv_context, device, 0);
IONIC_IBV_OFF(struct ibv_context, ops, 8);
IONIC_IBV_OFF(struct ibv_context, cmd_fd, 264);
IONIC_IBV_OFF(struct ibv_context, async_fd, 268);
IONIC_IBV_OFF(struct ibv_context, num_comp_vectors, 272);
IONIC_IBV_OFF(struct ibv_context, mutex, 280);
IONIC_IBV_OFF(struct ibv_context, abi_compat, 320);
/*
 * verbs_context (public verbs.h) grows at its start: every member keeps its
 * distance to the embedded ibv_context, which sits at byte 320 up to family
 * F and 344 in G (pinned by the family headers).  n is the v39-v58 offset.
 */
#define IONIC_IBV_VCTX(f, n)                                               \
	static_assert(offsetof(struct verbs_context, context) -            \
				      offsetof(struct verbs_context, f) == \
			      320 - (n),                                   \
		      "verbs_context." #f " distance to context")
IONIC_IBV_SIZE(struct verbs_context,
	       offsetof(struct verbs_context, context) + 328);
IONIC_IBV_VCTX(query_port, 0);
IONIC_IBV_VCTX(advise_mr, 8);
IONIC_IBV_VCTX(alloc_null_mr, 16);
IONIC_IBV_VCTX(read_counters, 24);
IONIC_IBV_VCTX(attach_counters_point_flow, 32);
IONIC_IBV_VCTX(create_counters, 40);
IONIC_IBV_VCTX(destroy_counters, 48);
IONIC_IBV_VCTX(reg_dm_mr, 56);
IONIC_IBV_VCTX(alloc_dm, 64);
IONIC_IBV_VCTX(free_dm, 72);
IONIC_IBV_VCTX(modify_flow_action_esp, 80);
IONIC_IBV_VCTX(destroy_flow_action, 88);
IONIC_IBV_VCTX(create_flow_action_esp, 96);
IONIC_IBV_VCTX(modify_qp_rate_limit, 104);
IONIC_IBV_VCTX(alloc_parent_domain, 112);
IONIC_IBV_VCTX(dealloc_td, 120);
IONIC_IBV_VCTX(alloc_td, 128);
IONIC_IBV_VCTX(modify_cq, 136);
IONIC_IBV_VCTX(post_srq_ops, 144);
IONIC_IBV_VCTX(destroy_rwq_ind_table, 152);
IONIC_IBV_VCTX(create_rwq_ind_table, 160);
IONIC_IBV_VCTX(destroy_wq, 168);
IONIC_IBV_VCTX(modify_wq, 176);
IONIC_IBV_VCTX(create_wq, 184);
IONIC_IBV_VCTX(query_rt_values, 192);
IONIC_IBV_VCTX(create_cq_ex, 200);
IONIC_IBV_VCTX(priv, 208);
IONIC_IBV_VCTX(query_device_ex, 216);
IONIC_IBV_VCTX(ibv_destroy_flow, 224);
IONIC_IBV_VCTX(ABI_placeholder2, 232);
IONIC_IBV_VCTX(ibv_create_flow, 240);
IONIC_IBV_VCTX(ABI_placeholder1, 248);
IONIC_IBV_VCTX(open_qp, 256);
IONIC_IBV_VCTX(create_qp_ex, 264);
IONIC_IBV_VCTX(get_srq_num, 272);
IONIC_IBV_VCTX(create_srq_ex, 280);
IONIC_IBV_VCTX(open_xrcd, 288);
IONIC_IBV_VCTX(close_xrcd, 296);
IONIC_IBV_VCTX(_ABI_placeholder3, 304);
IONIC_IBV_VCTX(sz, 312);

/* ------------------------------------------------------------------------
 * Registration, context life cycle, helpers.
 */
/* verbs_register_driver_<PABI>: the library's registration entry point. */
#define IONIC_IBV_REGISTER_DRIVER \
	ionic_ibv_paste(verbs_register_driver_, IONIC_IBVERBS_PABI)
void IONIC_IBV_REGISTER_DRIVER(const struct verbs_device_ops *ops);

/*
 * Registers ops with the libibverbs that loaded us, unless that library is
 * not of the family this build was made for: then it registers nothing and
 * says so once (load_guard.c).
 */
void ionic_ibv_register_guarded(const struct verbs_device_ops *ops);

/*
 * Defines the verbs_provider_<name> alias (used by static builds of
 * rdma-core only) and a constructor registering the ops, through the
 * release check, when libibverbs dlopen()s the plugin.
 */
#define PROVIDER_DRIVER(provider_name, drv_struct)                          \
	extern const struct verbs_device_ops verbs_provider_##provider_name \
		__attribute__((alias(ionic_stringify(drv_struct))));        \
	static __attribute__((                                              \
		constructor)) void provider_name##_register_driver(void)    \
	{                                                                   \
		ionic_ibv_register_guarded(&drv_struct);                    \
	}

/*
 * Allocates alloc_size zeroed bytes, initialises the verbs_context found
 * at byte offset 'context_offset' (passed disguised as a pointer) and
 * installs the library's default ops.  Takes ownership of cmd_fd, also on
 * failure (NULL, errno set).
 */
void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd,
				    size_t alloc_size,
				    struct verbs_context *context_offset,
				    uint32_t driver_id);

#define verbs_init_and_alloc_context(ibdev, cmd_fd, drv_ctx_ptr, ctx_memb, \
				     driver_id)                            \
	((__typeof__(drv_ctx_ptr))_verbs_init_and_alloc_context(           \
		(ibdev), (cmd_fd), sizeof(*(drv_ctx_ptr)),                 \
		(struct verbs_context *)(uintptr_t)offsetof(               \
			__typeof__(*(drv_ctx_ptr)), ctx_memb),             \
		(driver_id)))

/* Frees library state and closes cmd_fd/async_fd; not the provider struct. */
void verbs_uninit_context(struct verbs_context *context);
/* Copies every non-NULL op into the library's dispatch tables. */
void verbs_set_ops(struct verbs_context *vctx,
		   const struct verbs_context_ops *ops);
/* Only for CQs created outside ibv_create_cq()/ibv_create_cq_ex(). */
void verbs_init_cq(struct ibv_cq *cq, struct ibv_context *context,
		   struct ibv_comp_channel *channel, void *cq_context);

int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);

const char *ibv_get_sysfs_path(void);
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf,
			size_t size);
/* Reads <ibdev_path>/<fnfmt...>; returns the length read or -1. */
int ibv_read_ibdev_sysfs_file(char *buf, size_t size,
			      struct verbs_sysfs_dev *sysfs_dev,
			      const char *fnfmt, ...)
	__attribute__((format(printf, 4, 5)));

/* ------------------------------------------------------------------------
 * Logging.  Output needs VERBS_LOG_LEVEL and VERBS_LOG_FILE at run time.
 */
enum {
	VERBS_LOG_LEVEL_NONE,
	VERBS_LOG_ERR,
	VERBS_LOG_WARN,
	VERBS_LOG_INFO,
	VERBS_LOG_DEBUG,
};

void __verbs_log(struct verbs_context *ctx, uint32_t level, const char *fmt,
		 ...) __attribute__((format(printf, 3, 4)));

#define verbs_log(ctx, level, format, ...)                           \
	__verbs_log((ctx), (level), "%s: %s:%d: " format,            \
		    (ctx)->context.device->name, __func__, __LINE__, \
		    ##__VA_ARGS__)
#define verbs_err(ctx, format, ...) \
	verbs_log(ctx, VERBS_LOG_ERR, format, ##__VA_ARGS__)
#define verbs_warn(ctx, format, ...) \
	verbs_log(ctx, VERBS_LOG_WARN, format, ##__VA_ARGS__)
#define verbs_info(ctx, format, ...) \
	verbs_log(ctx, VERBS_LOG_INFO, format, ##__VA_ARGS__)
#define verbs_debug(ctx, format, ...) \
	verbs_log(ctx, VERBS_LOG_DEBUG, format, ##__VA_ARGS__)

/*
 * Data-path logging costs a call per message, so it exists only in
 * VERBS_DEBUG builds; otherwise the arguments are still type-checked (and
 * count as used) but no code is generated.
 */
#ifdef VERBS_DEBUG
#define verbs_log_datapath(ctx, level, format, ...) \
	verbs_log(ctx, level, format, ##__VA_ARGS__)
#else
#define verbs_log_datapath(ctx, level, format, ...)                   \
	do {                                                          \
		if (0)                                                \
			verbs_log(ctx, level, format, ##__VA_ARGS__); \
	} while (0)
#endif
#define verbs_err_datapath(ctx, format, ...) \
	verbs_log_datapath(ctx, VERBS_LOG_ERR, format, ##__VA_ARGS__)
#define verbs_warn_datapath(ctx, format, ...) \
	verbs_log_datapath(ctx, VERBS_LOG_WARN, format, ##__VA_ARGS__)
#define verbs_debug_datapath(ctx, format, ...) \
	verbs_log_datapath(ctx, VERBS_LOG_DEBUG, format, ##__VA_ARGS__)

/* The uverbs command wrappers and the unchanged ibv_cmd_* calls. */
#include "commands.h"

/*
 * A family's fingerprint, as measured on its releases: sizeof(ibv_qp_ex),
 * which places verbs_qp's own fields; sizeof(ibv_port_attr); the size of
 * verbs_context and the offset of its ibv_context; sizeof(verbs_context_ops).
 */
#define IONIC_IBV_FINGERPRINT(qpx, port_attr, vctx, vctx_context, ops) \
	IONIC_IBV_SIZE(struct ibv_qp_ex, qpx);                         \
	IONIC_IBV_SIZE(struct verbs_qp, (qpx) + 16);                   \
	IONIC_IBV_OFF(struct verbs_qp, comp_mask, qpx);                \
	IONIC_IBV_OFF(struct verbs_qp, xrcd, (qpx) + 8);               \
	IONIC_IBV_SIZE(struct ibv_port_attr, port_attr);               \
	IONIC_IBV_SIZE(struct verbs_context, vctx);                    \
	IONIC_IBV_OFF(struct verbs_context, context, vctx_context);    \
	IONIC_IBV_SIZE(struct verbs_context_ops, ops)

/* The calls whose prototype differs, and the ibv_qp_ex slots that do. */
#include "variants.h"

#endif /* IONIC_IBVERBS_SHARED_H */
