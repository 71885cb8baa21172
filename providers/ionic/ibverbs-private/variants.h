/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The three ibv_cmd_* calls libionic makes whose prototype changed between
 * releases, declared the way the family being built has them, and the
 * wrappers the rest of the provider calls instead:
 * they take the parameters every release has and pass NULL for the added
 * ones, which each release documents as "same behaviour as before".
 *
 * shared.h chooses for the family being built (0 or 1 each):
 *   IONIC_IBV_GET_CONTEXT_FD_ARR   ibv_cmd_get_context takes a
 *                                  struct ibv_fd_arr * before resp (F, G)
 *   IONIC_IBV_CREATE_CQ_PROV_ATTR  ibv_cmd_create_cq_ex takes a
 *                                  struct verbs_create_cq_prov_attr * as
 *                                  third parameter (G)
 *   IONIC_IBV_REG_DMABUF_DRIVER    ibv_cmd_reg_dmabuf_mr takes a
 *                                  struct ibv_command_buffer * last (E, F,
 *                                  G; v53, first of E, does not, and
 *                                  ignores the NULL passed there)
 * and which optional ibv_qp_ex slots the release's public verbs.h has (the
 * struct only ever grows at its end), which IONIC_IBV_QPX_SET_*() fill
 * where they exist:
 *   IONIC_IBV_QPX_HAS_ATOMIC_WRITE  wr_atomic_write (B and later)
 *   IONIC_IBV_QPX_HAS_FLUSH         wr_flush (C and later)
 *
 * Calling a release's function with another release's parameter list is
 * what a wrong-family build would do; the load guard (load_guard.c) keeps
 * such a build from registering at all.
 *
 * Included only by shared.h.
 */
#ifndef IONIC_IBVERBS_VARIANTS_H
#define IONIC_IBVERBS_VARIANTS_H

#if !defined(IONIC_IBV_GET_CONTEXT_FD_ARR) ||       \
	!defined(IONIC_IBV_CREATE_CQ_PROV_ATTR) ||  \
	!defined(IONIC_IBV_REG_DMABUF_DRIVER) ||    \
	!defined(IONIC_IBV_QPX_HAS_ATOMIC_WRITE) || \
	!defined(IONIC_IBV_QPX_HAS_FLUSH)
#error "shared.h must choose every variant"
#endif

/* Opaque here: libionic only ever passes NULL for them. */
struct ibv_command_buffer;
struct verbs_create_cq_prov_attr;

/* ---- GET_CONTEXT ------------------------------------------------------ */
#if IONIC_IBV_GET_CONTEXT_FD_ARR
/*
 * v57: with fd_arr non-NULL the library also sends the GET_CONTEXT
 * FD_ARR attribute; with NULL the wire traffic is that of v56.
 */
int ibv_cmd_get_context(struct verbs_context *context,
			struct ibv_get_context *cmd, size_t cmd_size,
			struct ibv_fd_arr *fd_arr,
			struct ib_uverbs_get_context_resp *resp,
			size_t resp_size);
#else
int ibv_cmd_get_context(struct verbs_context *context,
			struct ibv_get_context *cmd, size_t cmd_size,
			struct ib_uverbs_get_context_resp *resp,
			size_t resp_size);
#endif

static inline int
ionic_ibv_cmd_get_context(struct verbs_context *context,
			  struct ibv_get_context *cmd, size_t cmd_size,
			  struct ib_uverbs_get_context_resp *resp,
			  size_t resp_size)
{
#if IONIC_IBV_GET_CONTEXT_FD_ARR
	return ibv_cmd_get_context(context, cmd, cmd_size, NULL, resp,
				   resp_size);
#else
	return ibv_cmd_get_context(context, cmd, cmd_size, resp, resp_size);
#endif
}

/* ---- CQ_CREATE (extended) --------------------------------------------- */
#if IONIC_IBV_CREATE_CQ_PROV_ATTR
/*
 * v59: prov_attr describes a provider-allocated CQ buffer (with the
 * CREATE_CQ_CMD_FLAGS_WITH_MEM_* flags); NULL and none of those flags
 * behave as before.
 */
int ibv_cmd_create_cq_ex(struct ibv_context *context,
			 const struct ibv_cq_init_attr_ex *cq_attr,
			 struct verbs_create_cq_prov_attr *prov_attr,
			 struct verbs_cq *cq, struct ibv_create_cq_ex *cmd,
			 size_t cmd_size,
			 struct ib_uverbs_ex_create_cq_resp *resp,
			 size_t resp_size, uint32_t cmd_flags);
#else
int ibv_cmd_create_cq_ex(struct ibv_context *context,
			 const struct ibv_cq_init_attr_ex *cq_attr,
			 struct verbs_cq *cq, struct ibv_create_cq_ex *cmd,
			 size_t cmd_size,
			 struct ib_uverbs_ex_create_cq_resp *resp,
			 size_t resp_size, uint32_t cmd_flags);
#endif

static inline int ionic_ibv_cmd_create_cq_ex(
	struct ibv_context *context, const struct ibv_cq_init_attr_ex *cq_attr,
	struct verbs_cq *cq, struct ibv_create_cq_ex *cmd, size_t cmd_size,
	struct ib_uverbs_ex_create_cq_resp *resp, size_t resp_size,
	uint32_t cmd_flags)
{
#if IONIC_IBV_CREATE_CQ_PROV_ATTR
	return ibv_cmd_create_cq_ex(context, cq_attr, NULL, cq, cmd, cmd_size,
				    resp, resp_size, cmd_flags);
#else
	return ibv_cmd_create_cq_ex(context, cq_attr, cq, cmd, cmd_size, resp,
				    resp_size, cmd_flags);
#endif
}

/* ---- MR_REG_DMABUF ---------------------------------------------------- */
#if IONIC_IBV_REG_DMABUF_DRIVER
/* v54: 'driver' links provider attributes into the ioctl; NULL: none. */
int ibv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
			  uint64_t iova, int fd, int access,
			  struct verbs_mr *vmr,
			  struct ibv_command_buffer *driver);
#else
int ibv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
			  uint64_t iova, int fd, int access,
			  struct verbs_mr *vmr);
#endif

static inline int ionic_ibv_cmd_reg_dmabuf_mr(struct ibv_pd *pd,
					      uint64_t offset, size_t length,
					      uint64_t iova, int fd, int access,
					      struct verbs_mr *vmr)
{
#if IONIC_IBV_REG_DMABUF_DRIVER
	return ibv_cmd_reg_dmabuf_mr(pd, offset, length, iova, fd, access, vmr,
				     NULL);
#else
	return ibv_cmd_reg_dmabuf_mr(pd, offset, length, iova, fd, access, vmr);
#endif
}

/* ---- ibv_qp_ex slots --------------------------------------------------- */
/*
 * fn is evaluated (so it counts as used) in every family, but stored only
 * where the slot exists.
 */
#if IONIC_IBV_QPX_HAS_ATOMIC_WRITE
#define IONIC_IBV_QPX_SET_ATOMIC_WRITE(qpx, fn) ((qpx)->wr_atomic_write = (fn))
#else
#define IONIC_IBV_QPX_SET_ATOMIC_WRITE(qpx, fn) ((void)(qpx), (void)(fn))
#endif
#if IONIC_IBV_QPX_HAS_FLUSH
#define IONIC_IBV_QPX_SET_FLUSH(qpx, fn) ((qpx)->wr_flush = (fn))
#else
#define IONIC_IBV_QPX_SET_FLUSH(qpx, fn) ((void)(qpx), (void)(fn))
#endif

#endif /* IONIC_IBVERBS_VARIANTS_H */
