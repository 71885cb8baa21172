/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * What goes over the uverbs command fd, as every supported rdma-core
 * release (v39 to v60) declares it: the command wrapper structs of
 * kern-abi.h, the IBV_DRV_CMD pairing of a core command with the driver's
 * data, and the ibv_cmd_* prototypes that never changed.  Like the rest of
 * shared.h, identical in every layout family; the calls whose prototype
 * changed are in variants.h.
 *
 * Included only by shared.h, after the object and context structs these
 * prototypes take.
 */
#ifndef IONIC_IBVERBS_COMMANDS_H
#define IONIC_IBVERBS_COMMANDS_H

#ifndef IONIC_IBVERBS_SHARED_H
#error "include a family header (family-<F>.h), not commands.h"
#endif

/* ------------------------------------------------------------------------
 * Command wrappers (kern-abi.h): the uverbs header followed by the kernel
 * ABI core request.  A provider appends its driver data right after them
 * (see IBV_DRV_CMD); the library rebuilds headers in this space, so the
 * wrapper must match the ibv_cmd_* function it is passed to.
 */
struct ionic_ibv_ex_cmd_hdr {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_ex_cmd_hdr ex_hdr;
};
IONIC_IBV_SIZE(struct ionic_ibv_ex_cmd_hdr, 24);

#define IONIC_IBV_CMD(name, kabi, size)       \
	struct name {                         \
		struct ib_uverbs_cmd_hdr hdr; \
		struct kabi core_payload;     \
	};                                    \
	IONIC_IBV_SIZE(struct name, size);    \
	IONIC_IBV_SIZE(struct name,           \
		       sizeof(struct ib_uverbs_cmd_hdr) + sizeof(struct kabi))

#define IONIC_IBV_CMD_EX(name, kabi, size)                                \
	struct name {                                                     \
		struct ionic_ibv_ex_cmd_hdr hdr;                          \
		struct kabi core_payload;                                 \
	};                                                                \
	IONIC_IBV_SIZE(struct name, size);                                \
	IONIC_IBV_SIZE(struct name, sizeof(struct ionic_ibv_ex_cmd_hdr) + \
					    sizeof(struct kabi))

IONIC_IBV_CMD(ibv_get_context, ib_uverbs_get_context, 16);
IONIC_IBV_CMD(ibv_query_device, ib_uverbs_query_device, 16);
IONIC_IBV_CMD(ibv_query_port, ib_uverbs_query_port, 24);
IONIC_IBV_CMD(ibv_alloc_pd, ib_uverbs_alloc_pd, 16);
IONIC_IBV_CMD(ibv_dealloc_pd, ib_uverbs_dealloc_pd, 12);
IONIC_IBV_CMD(ibv_create_ah, ib_uverbs_create_ah, 64);
IONIC_IBV_CMD(ibv_destroy_ah, ib_uverbs_destroy_ah, 12);
IONIC_IBV_CMD(ibv_reg_mr, ib_uverbs_reg_mr, 48);
IONIC_IBV_CMD(ibv_rereg_mr, ib_uverbs_rereg_mr, 56);
IONIC_IBV_CMD(ibv_dereg_mr, ib_uverbs_dereg_mr, 12);
IONIC_IBV_CMD(ibv_alloc_mw, ib_uverbs_alloc_mw, 24);
IONIC_IBV_CMD(ibv_dealloc_mw, ib_uverbs_dealloc_mw, 12);
IONIC_IBV_CMD(ibv_create_cq, ib_uverbs_create_cq, 40);
IONIC_IBV_CMD(ibv_resize_cq, ib_uverbs_resize_cq, 24);
IONIC_IBV_CMD(ibv_destroy_cq, ib_uverbs_destroy_cq, 24);
IONIC_IBV_CMD(ibv_req_notify_cq, ib_uverbs_req_notify_cq, 16);
IONIC_IBV_CMD(ibv_create_qp, ib_uverbs_create_qp, 64);
IONIC_IBV_CMD(ibv_query_qp, ib_uverbs_query_qp, 24);
IONIC_IBV_CMD(ibv_modify_qp, ib_uverbs_modify_qp, 120);
IONIC_IBV_CMD(ibv_destroy_qp, ib_uverbs_destroy_qp, 24);
IONIC_IBV_CMD_EX(ibv_query_device_ex, ib_uverbs_ex_query_device, 32);
IONIC_IBV_CMD_EX(ibv_create_cq_ex, ib_uverbs_ex_create_cq, 56);
IONIC_IBV_CMD_EX(ibv_create_qp_ex, ib_uverbs_ex_create_qp, 88);
IONIC_IBV_CMD_EX(ibv_modify_qp_ex, ib_uverbs_ex_modify_qp, 144);

/* Core response sizes the kernel and library agree on (x86_64). */
IONIC_IBV_SIZE(struct ib_uverbs_get_context_resp, 8);
IONIC_IBV_SIZE(struct ib_uverbs_query_port_resp, 40);
IONIC_IBV_SIZE(struct ib_uverbs_alloc_pd_resp, 4);
IONIC_IBV_SIZE(struct ib_uverbs_create_ah_resp, 4);
IONIC_IBV_SIZE(struct ib_uverbs_reg_mr_resp, 12);
IONIC_IBV_SIZE(struct ib_uverbs_alloc_mw_resp, 8);
IONIC_IBV_SIZE(struct ib_uverbs_create_cq_resp, 8);
IONIC_IBV_SIZE(struct ib_uverbs_ex_create_cq_resp, 16);
IONIC_IBV_SIZE(struct ib_uverbs_create_qp_resp, 32);
IONIC_IBV_SIZE(struct ib_uverbs_ex_create_qp_resp, 40);
IONIC_IBV_SIZE(struct ib_uverbs_query_qp_resp, 128);
IONIC_IBV_SIZE(struct ib_uverbs_ex_query_device_resp, 304);

/*
 * A command with provider data: 'name' is the core wrapper followed by
 * drv_req, 'name'_resp the core response followed by drv_resp, both
 * without a gap (the kernel reads the driver part right after the core
 * part).
 */
#define IBV_DRV_CMD(name, core_cmd, drv_req, core_resp, drv_resp)      \
	struct name {                                                  \
		struct core_cmd ibv_cmd;                               \
		struct drv_req drv_payload;                            \
	};                                                             \
	struct name##_resp {                                           \
		struct core_resp ibv_resp;                             \
		struct drv_resp drv_payload;                           \
	};                                                             \
	static_assert(offsetof(struct name, drv_payload) ==            \
				      sizeof(struct core_cmd) &&       \
			      sizeof(struct name) ==                   \
				      sizeof(struct core_cmd) +        \
					      sizeof(struct drv_req),  \
		      #name ": gap around the driver request");        \
	static_assert(offsetof(struct name##_resp, drv_payload) ==     \
				      sizeof(struct core_resp) &&      \
			      sizeof(struct name##_resp) ==            \
				      sizeof(struct core_resp) +       \
					      sizeof(struct drv_resp), \
		      #name ": gap around the driver response")

/* ------------------------------------------------------------------------
 * The ibv_cmd_* calls whose prototype is the same in every release
 * (exported with version IBVERBS_PRIVATE_<PABI>).  All return 0 or a
 * positive errno.  The family headers declare the others.
 */
enum {
	/* create_cq_ex: let a timestamp request fall back to legacy CREATE_CQ */
	CREATE_CQ_CMD_FLAGS_TS_IGNORED_EX = 1 << 0,
};

int ibv_cmd_query_device_any(struct ibv_context *context,
			     const struct ibv_query_device_ex_input *input,
			     struct ibv_device_attr_ex *attr, size_t attr_size,
			     struct ib_uverbs_ex_query_device_resp *resp,
			     size_t *resp_size);
int ibv_cmd_query_port(struct ibv_context *context, uint8_t port_num,
		       struct ibv_port_attr *port_attr,
		       struct ibv_query_port *cmd, size_t cmd_size);
int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
		     struct ibv_alloc_pd *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size);
int ibv_cmd_dealloc_pd(struct ibv_pd *pd);
int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		   uint64_t hca_va, int access, struct verbs_mr *vmr,
		   struct ibv_reg_mr *cmd, size_t cmd_size,
		   struct ib_uverbs_reg_mr_resp *resp, size_t resp_size);
int ibv_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags, void *addr,
		     size_t length, uint64_t hca_va, int access,
		     struct ibv_pd *pd, struct ibv_rereg_mr *cmd, size_t cmd_sz,
		     struct ib_uverbs_rereg_mr_resp *resp, size_t resp_sz);
int ibv_cmd_dereg_mr(struct verbs_mr *vmr);
int ibv_cmd_query_mr(struct ibv_pd *pd, struct verbs_mr *vmr,
		     uint32_t mr_handle);
int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		     struct ibv_mw *mw, struct ibv_alloc_mw *cmd,
		     size_t cmd_size, struct ib_uverbs_alloc_mw_resp *resp,
		     size_t resp_size);
int ibv_cmd_dealloc_mw(struct ibv_mw *mw);
int ibv_cmd_create_cq(struct ibv_context *context, int cqe,
		      struct ibv_comp_channel *channel, int comp_vector,
		      struct ibv_cq *cq, struct ibv_create_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_create_cq_resp *resp,
		      size_t resp_size);
int ibv_cmd_destroy_cq(struct ibv_cq *cq);
int ibv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only);
int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe, struct ibv_resize_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_resize_cq_resp *resp,
		      size_t resp_size);
int ibv_cmd_create_qp(struct ibv_pd *pd, struct ibv_qp *qp,
		      struct ibv_qp_init_attr *attr, struct ibv_create_qp *cmd,
		      size_t cmd_size, struct ib_uverbs_create_qp_resp *resp,
		      size_t resp_size);
int ibv_cmd_create_qp_ex(struct ibv_context *context, struct verbs_qp *qp,
			 struct ibv_qp_init_attr_ex *attr_ex,
			 struct ibv_create_qp *cmd, size_t cmd_size,
			 struct ib_uverbs_create_qp_resp *resp,
			 size_t resp_size);
int ibv_cmd_create_qp_ex2(struct ibv_context *context, struct verbs_qp *qp,
			  struct ibv_qp_init_attr_ex *qp_attr,
			  struct ibv_create_qp_ex *cmd, size_t cmd_size,
			  struct ib_uverbs_ex_create_qp_resp *resp,
			  size_t resp_size);
int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask, struct ibv_modify_qp *cmd,
		      size_t cmd_size);
int ibv_cmd_modify_qp_ex(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask, struct ibv_modify_qp_ex *cmd,
			 size_t cmd_size,
			 struct ib_uverbs_ex_modify_qp_resp *resp,
			 size_t resp_size);
int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *qp_attr,
		     int attr_mask, struct ibv_qp_init_attr *qp_init_attr,
		     struct ibv_query_qp *cmd, size_t cmd_size);
int ibv_cmd_destroy_qp(struct ibv_qp *qp);
int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		      struct ibv_ah_attr *attr,
		      struct ib_uverbs_create_ah_resp *resp, size_t resp_size);
int ibv_cmd_destroy_ah(struct ibv_ah *ah);

#endif /* IONIC_IBVERBS_COMMANDS_H */
