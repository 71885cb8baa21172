/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim kernel layer, private interfaces between its files: the id
 * allocators, the per-file handle table, event queues and the command
 * context every uverbs handler receives.
 */
#ifndef ISIM_KPRIV_H
#define ISIM_KPRIV_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <rdma/ib_user_verbs.h>

#include "objects.h"
#include "../common/trace.h"

#define ISIM_PAGE_SHIFT 12
#define ISIM_PAGE_SIZE (1ul << ISIM_PAGE_SHIFT)

/* ionic_ibdev.h / ionic_queue.h constants (ionic-kernel.md 2, 8.2) */
#define ISIM_MAX_PD 1024
#define ISIM_MAX_DEPTH 0xffff
#define ISIM_MAX_CQE (0xffff - 100)
#define ISIM_MAX_RD_ATOM 16
#define ISIM_MAX_SGE_CAP 8
#define ISIM_VENDOR_ID 0x1dd8
#define ISIM_NETDEV_MAX_MTU 9194 /* ionic netdev max_mtu */
#define ISIM_GID_TBL_LEN 256
#define ISIM_NUM_GIDS 2 /* populated entries: link-local, v4 */

/* Admin opcodes (ionic-kernel.md 16): a verb needing opcode N fails with
 * EBADRQC when the firmware reports admin_opcodes <= N. */
enum {
	ISIM_ADMIN_CREATE_CQ = 1,
	ISIM_ADMIN_CREATE_QP = 2,
	ISIM_ADMIN_CREATE_MR = 3,
	ISIM_ADMIN_DESTROY_MR = 6,
	ISIM_ADMIN_DESTROY_CQ = 8,
	ISIM_ADMIN_MODIFY_QP = 9,
	ISIM_ADMIN_QUERY_QP = 10,
	ISIM_ADMIN_DESTROY_QP = 11,
	ISIM_ADMIN_CREATE_AH = 13,
	ISIM_ADMIN_DESTROY_AH = 16,
};

static inline int isim_admin_ok(struct isim_nic *nic, unsigned int op)
{
	return nic->prof.admin_opcodes > op ? 0 : -EBADRQC;
}

/* ---- nic.c ----------------------------------------------------------- */

int isim_ida_init(struct isim_ida *ida, uint32_t base, uint32_t count);
void isim_ida_destroy(struct isim_ida *ida);
/* Lowest free id, or -ENOMEM. */
int64_t isim_ida_alloc(struct isim_ida *ida);
void isim_ida_free(struct isim_ida *ida, uint32_t id);
/* Mark an id used (reserved ids such as the GSI QP bit ids). */
void isim_ida_reserve(struct isim_ida *ida, uint32_t id);

/* ionic_bitid_to_qid for an index inside a UDMA half (ionic-kernel 15). */
uint32_t isim_udma_qid(const struct isim_nic *nic, unsigned int udma,
		       uint32_t idx);
/* Inverse of isim_udma_qid: the index inside the UDMA half. */
uint32_t isim_udma_idx(const struct isim_nic *nic, uint32_t qid);
/* Mask of the UDMA pipelines that exist (0b11 with two). */
static inline uint8_t isim_udma_all(const struct isim_nic *nic)
{
	return nic->prof.udma_count >= 2 ? 3 : 1;
}

/* Create the NIC's device (event.c: its events come back there). */
int isim_nic_dev_create(struct isim_nic *nic);

/* Refresh the PHC page snapshot under its seqlock. */
void isim_phc_update(struct isim_nic *nic);

/* Is [addr, addr+len) mapped in this process (what pinning would need)? */
bool isim_user_mapped(uint64_t addr, uint64_t len);

/* ---- event.c --------------------------------------------------------- */

/* A new SOCK_SEQPACKET queue; the application gets q->rd. */
int isim_evq_create(struct isim_event_queue *q);
void isim_evq_close(struct isim_event_queue *q);
/* Destroying an object: remove its unread records ('recsz' bytes whose
 * element/cq_handle is 'handle') and take them off '*reported', which
 * then counts the events userspace really read. */
void isim_evq_drop_unread(struct isim_event_queue *q, size_t recsz,
			  uint64_t handle, uint32_t *reported);

/* ---- file.c ---------------------------------------------------------- */

/* Insert an object into the file's handle table (lowest free handle). */
int isim_handle_add(struct isim_file *f, struct isim_uobj *u,
		    enum isim_uobj_type type);
void isim_handle_del(struct isim_file *f, struct isim_uobj *u);
/* Object of 'type' with 'handle', or NULL. */
void *isim_handle_get(struct isim_file *f, uint32_t handle,
		      enum isim_uobj_type type);
/* Completion channel with read end 'fd' created on this file, or NULL. */
struct isim_event_queue *isim_file_channel(struct isim_file *f, int fd);

/* ---- command context (uverbs.c) -------------------------------------- */

struct isim_cmd {
	struct isim_file *f;
	struct isim_nic *nic;
	bool ex;
	const void *req; /* core request (header excluded) */
	size_t req_len; /* bytes of core request available */
	const uint8_t *uin; /* driver request (udata in) */
	size_t uin_len;
	void *resp; /* core response scratch, zeroed */
	size_t resp_len; /* bytes the caller's core response holds */
	void *uout; /* driver response scratch, zeroed */
	size_t uout_len; /* bytes the caller's driver response holds */
	size_t uout_written; /* bytes isim_udata_out() filled: all the
				   * caller gets (ib_copy_to_udata) */
	char note[160]; /* decoded result for the trace line */
};

/* ib_copy_validate_udata_in: at least 'size' bytes, extra bytes zero. */
int isim_udata_in(const struct isim_cmd *c, void *dst, size_t size);
/* ib_no_udata_io / ib_is_udata_in_empty: no non-zero input bytes. */
int isim_udata_empty(const struct isim_cmd *c);
/* Copy a driver response (truncated to the caller's length).  Only these
 * bytes reach the caller; the rest of its buffer is left alone, as with
 * the kernel's ib_copy_to_udata(). */
void isim_udata_out(struct isim_cmd *c, const void *src, size_t size);

/* response_length of an extended command whose core response has 'full'
 * bytes: what of it the caller's buffer holds. */
static inline uint32_t isim_ex_resp_len(const struct isim_cmd *c, size_t full)
{
	return c->resp_len < full ? (uint32_t)c->resp_len : (uint32_t)full;
}

/* Core request into a zeroed struct (short extended requests). */
void isim_req_copy(const struct isim_cmd *c, void *dst, size_t size);

#define KNOTE(c, ...) snprintf((c)->note, sizeof((c)->note), __VA_ARGS__)

/* ---- handlers -------------------------------------------------------- */

int isim_cmd_get_context(struct isim_cmd *c);
int isim_cmd_query_device(struct isim_cmd *c);
int isim_cmd_ex_query_device(struct isim_cmd *c);
int isim_cmd_query_port(struct isim_cmd *c);
int isim_cmd_create_comp_channel(struct isim_cmd *c);

int isim_cmd_alloc_pd(struct isim_cmd *c);
int isim_cmd_dealloc_pd(struct isim_cmd *c);
int isim_cmd_reg_mr(struct isim_cmd *c);
int isim_cmd_dereg_mr(struct isim_cmd *c);
int isim_cmd_alloc_mw(struct isim_cmd *c);
int isim_cmd_dealloc_mw(struct isim_cmd *c);
int isim_cmd_create_ah(struct isim_cmd *c);
int isim_cmd_destroy_ah(struct isim_cmd *c);

int isim_cmd_create_cq(struct isim_cmd *c);
int isim_cmd_ex_create_cq(struct isim_cmd *c);
int isim_cmd_destroy_cq(struct isim_cmd *c);

int isim_cmd_create_qp(struct isim_cmd *c);
int isim_cmd_ex_create_qp(struct isim_cmd *c);
int isim_cmd_query_qp(struct isim_cmd *c);
int isim_cmd_destroy_qp(struct isim_cmd *c);
int isim_cmd_modify_qp(struct isim_cmd *c);
int isim_cmd_ex_modify_qp(struct isim_cmd *c);

/* ionic qdesc validation (cmd_cq.c): 0, -EINVAL or -EFAULT. */
int isim_qdesc_check(const struct ionic_qdesc *q);

/* Teardown used by destroy commands and file release (lock held). */
void isim_pd_free(struct isim_file *f, struct isim_pd *pd);
void isim_mr_free(struct isim_file *f, struct isim_mr *mr);
void isim_ah_free(struct isim_file *f, struct isim_ah *ah);
void isim_cq_free(struct isim_file *f, struct isim_cq *cq);
void isim_qp_free(struct isim_file *f, struct isim_qp *qp);

/* Validate an address vector as the IB core does for RoCE (GRH, port,
 * populated sgid) and convert it. */
int isim_av_from_uverbs(struct isim_nic *nic, struct isim_av *av,
			const uint8_t dgid[16], uint32_t flow_label,
			uint8_t sgid_index, uint8_t hop_limit, uint8_t tclass,
			uint8_t sl, uint8_t static_rate, uint8_t is_global,
			uint8_t port_num);

/* The device's form of an address vector (admin CREATE_AH, MODIFY_QP). */
void isim_av_to_dev(const struct isim_av *av, struct idev_av *d);

/* controller memory (cmb.c) */
int isim_cmb_init(struct isim_nic *nic);
int isim_cmb_sq_setup(struct isim_file *f, struct isim_qp *qp, uint8_t req,
		      uint8_t *resp, uint64_t *offset);
void isim_cmb_sq_release(struct isim_file *f, struct isim_qp *qp);
int64_t isim_cmb_window(const struct isim_mmap_entry *e);

/* mmap table (mmap.c) */
int isim_mmap_insert(struct isim_file *f, enum isim_mmap_kind kind,
		     uint64_t npages, uint64_t *pgoff);
void isim_mmap_clear(struct isim_file *f);

#endif /* ISIM_KPRIV_H */
