/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * libionic private definitions: the provider's device, context, protection
 * domain, thread domain and address handle, the conversions from the
 * public verbs objects, and the prototypes of every file.
 *
 * Conventions (as documented for every verb):
 *  - verbs returning int return 0 or a POSITIVE errno;
 *  - verbs returning a pointer return NULL and set errno (positive);
 *  - poll_cq returns the number of completions and has no error case: a
 *    CQE that breaks the device contract is skipped (poll.c).
 */
#ifndef IONIC_H
#define IONIC_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include <rdma/ionic-abi.h>

#include "ibverbs-private/ibverbs_private.h"
#include "../../common/ionic_hw.h"

#define IONIC_PROVIDER_NAME "ionic"
#define IONIC_MIN_FW_VERSION 1
#define IONIC_MAX_FW_VERSION 2
#define IONIC_PHC_PAGE_SIZE 4096

#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

struct ionic_device {
	struct verbs_device vdev;
};

struct ionic_qp;
struct ionic_qp_table; /* qpn -> qp, see table.h */

struct ionic_ctx {
	struct verbs_context vctx;

	/* negotiated with the kernel at GET_CONTEXT */
	uint32_t page_shift;
	uint16_t version; /* firmware RDMA version, 1 or 2 */
	uint8_t sq_qtype, rq_qtype, cq_qtype;
	uint8_t max_stride;
	uint8_t spec; /* speculative SGE limit, 0 = disabled */
	uint8_t udma_count;
	uint8_t udma_mask; /* (1 << udma_count) - 1 */
	uint8_t expdb_mask;
	bool sq_expdb, rq_expdb;

	/* doorbell page: mapping and the register base inside it */
	void *dbpage_map;
	size_t dbpage_len;
	volatile uint64_t *dbpage;

	/* PHC clock page (struct ib_uverbs_clock_info), NULL if not offered */
	const void *phc;

	pthread_mutex_t mutex; /* QP table insert/delete */
	struct ionic_qp_table *qp_table;

	/* IBV_EVENT_DEVICE_FATAL was seen (async.c): nothing will ever
	 * complete on the device again */
	bool fatal;
};

struct ionic_td {
	struct ibv_td ibtd;
	unsigned int refcnt; /* 1 + parent domains using it */
};

struct ionic_pd {
	struct ibv_pd ibpd;
	struct ionic_pd *root; /* the kernel PD (itself for a root PD) */
	struct ionic_td *td; /* parent domain with a thread domain */
	unsigned int refcnt; /* root PD: 1 + parent domains using it */
	uint8_t udma_mask;
	uint8_t sq_cmb, rq_cmb; /* IONIC_CMB_* preferences */
	uint8_t expdb_mask; /* IONIC_EXPDB_* sizes allowed express doorbells */
	/* parent domain allocators */
	void *(*alloc)(struct ibv_pd *pd, void *pd_context, size_t size,
		       size_t alignment, uint64_t resource_type);
	void (*free)(struct ibv_pd *pd, void *pd_context, void *ptr,
		     uint64_t resource_type);
	void *pd_context;
};

struct ionic_ah {
	struct ibv_ah ibah;
	uint32_t ahid;
};

static inline struct ionic_ctx *to_ionic_ctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct ionic_ctx, vctx.context);
}

static inline struct ionic_pd *to_ionic_pd(struct ibv_pd *ibpd)
{
	return container_of(ibpd, struct ionic_pd, ibpd);
}

static inline struct ionic_td *to_ionic_td(struct ibv_td *ibtd)
{
	return container_of(ibtd, struct ionic_td, ibtd);
}

static inline struct ionic_ah *to_ionic_ah(struct ibv_ah *ibah)
{
	return container_of(ibah, struct ionic_ah, ibah);
}

/* Reference counts of PDs, parent domains and thread domains. */
static inline void ionic_ref_get(unsigned int *refcnt)
{
	__atomic_add_fetch(refcnt, 1, __ATOMIC_RELAXED);
}

static inline void ionic_ref_put(unsigned int *refcnt)
{
	__atomic_sub_fetch(refcnt, 1, __ATOMIC_RELEASE);
}

/* Drop the last reference, or fail (false) if others remain. */
static inline bool ionic_ref_put_last(unsigned int *refcnt)
{
	unsigned int one = 1;

	return __atomic_compare_exchange_n(refcnt, &one, 0, false,
					   __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

/* The kernel PD behind a PD or parent domain. */
static inline struct ibv_pd *ionic_root_ibpd(struct ibv_pd *ibpd)
{
	return &to_ionic_pd(ibpd)->root->ibpd;
}

/* Objects created through a parent domain with a thread domain lock not
 * on the data path (lock.h). */
static inline bool ionic_pd_lockfree(struct ibv_pd *ibpd)
{
	return ibpd && to_ionic_pd(ibpd)->td;
}

/* True if this context was created by libionic (DV ownership test). */
bool ionic_is_ionic_ctx(struct ibv_context *ibctx);

/* context.c */
/*
 * enum rdma_driver_id value of the ionic kernel driver.  Newer kernel
 * headers define it (after RDMA_DRIVER_MANA = 20); Debian 12's do not.
 */
#ifndef RDMA_DRIVER_IONIC
#define RDMA_DRIVER_IONIC 21
#endif

extern const struct verbs_context_ops ionic_ctx_ops;
int ionic_ctx_setup(struct ionic_ctx *ctx, int cmd_fd,
		    const struct ionic_ctx_resp *resp);

/* import.c: sharing a context, PDs and MRs with another ibv_context */
struct verbs_context *ionic_import_context(struct ibv_device *ibdev,
					   int cmd_fd);
struct ibv_pd *ionic_import_pd(struct ibv_context *ibctx, uint32_t handle);
void ionic_unimport_pd(struct ibv_pd *ibpd);
struct ibv_mr *ionic_import_mr(struct ibv_pd *ibpd, uint32_t handle);
void ionic_unimport_mr(struct ibv_mr *ibmr);

/* async.c: what the provider does with an asynchronous event libibverbs
 * hands the application (ibv_get_async_event) */
void ionic_async_event(struct ibv_context *ibctx, struct ibv_async_event *ev);
/* IBV_EVENT_DEVICE_FATAL was seen on this context */
static inline bool ionic_ctx_fatal(struct ionic_ctx *ctx)
{
	return __atomic_load_n(&ctx->fatal, __ATOMIC_ACQUIRE);
}

/* query.c */
int ionic_query_rt_values(struct ibv_context *ibctx, struct ibv_values_ex *v);
int ionic_query_device_ex(struct ibv_context *ibctx,
			  const struct ibv_query_device_ex_input *input,
			  struct ibv_device_attr_ex *attr, size_t attr_size);
int ionic_query_port(struct ibv_context *ibctx, uint8_t port,
		     struct ibv_port_attr *attr);

/* pd.c */
struct ibv_pd *ionic_alloc_pd(struct ibv_context *ibctx);
/* A root PD as the kernel created it: the context's defaults (unit tests). */
void ionic_pd_init_root(struct ionic_pd *pd, const struct ionic_ctx *ctx);
int ionic_dealloc_pd(struct ibv_pd *ibpd);
struct ibv_td *ionic_alloc_td(struct ibv_context *ibctx,
			      struct ibv_td_init_attr *attr);
int ionic_dealloc_td(struct ibv_td *ibtd);
struct ibv_pd *
ionic_alloc_parent_domain(struct ibv_context *ibctx,
			  struct ibv_parent_domain_init_attr *attr);

/* mr.c */
struct ibv_mr *ionic_reg_mr(struct ibv_pd *ibpd, void *addr, size_t len,
			    uint64_t hca_va, int access);
struct ibv_mr *ionic_reg_dmabuf_mr(struct ibv_pd *ibpd, uint64_t offset,
				   size_t len, uint64_t iova, int fd,
				   int access);
int ionic_dereg_mr(struct verbs_mr *vmr);
struct ibv_mw *ionic_alloc_mw(struct ibv_pd *ibpd, enum ibv_mw_type type);
int ionic_dealloc_mw(struct ibv_mw *ibmw);

/* ah.c */
struct ibv_ah *ionic_create_ah(struct ibv_pd *ibpd, struct ibv_ah_attr *attr);
int ionic_destroy_ah(struct ibv_ah *ibah);

/* cq.c, poll.c, qp.c, post.c: see cq.h and qp.h */

#endif /* IONIC_H */
