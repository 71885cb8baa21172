/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim kernel layer tests: the emulated driver driven through its C
 * API (ik_file_write/ioctl/mmap) with hand-built uverbs command
 * buffers, on top of the real device model and fabric; the platform's
 * doorbell pages are plain memory here (kernel_fixture.c).  The device
 * layer's tests have a fixture of their own (dev_fixture.h), one layer
 * down: they must not link this kernel model.
 */
#ifndef IK_TESTS_KERNEL_FIXTURE_H
#define IK_TESTS_KERNEL_FIXTURE_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/ib_user_verbs.h>

#include "check.h"
#include "kernel/kpriv.h"

/* Checks: tests/support/check.h.  CHECK_MSG for a condition with a message
 * of its own, CHECK_RET for what the kernel model returns (a count or a
 * negative errno). */
/* The file under test and the buffer every response lands in. */
extern struct ik_file *F;
extern uint8_t respbuf[4096];

/* Open F on a profile with controller memory and a fabric of this
 * process' own, with a ucontext unless 'bare'. */
void kx_open(bool bare);
/* Release F: the exit status (check_finish). */
int kx_finish(void);
/* The tag of the last doorbell page the kernel revoked. */
extern uint64_t kx_revoked;
/* What the device holds (locked). */
struct idev_stats kx_dev_stats(void);

/* Legacy command: hdr | core | drv.  When out > 0 the core request's first
 * u64 is set to respbuf; 'out' is core + driver response bytes. */
ssize_t leg(struct ik_file *f, uint32_t cmd, void *core, size_t core_len,
	    const void *drv, size_t drv_len, size_t out);
/* The bytes leg() writes, built in 'buf' (1024 bytes): their length. */
size_t leg_build(uint8_t *buf, uint32_t cmd, void *core, size_t core_len,
		 const void *drv, size_t drv_len, size_t out);
/* Extended command: hdr | ex_hdr | core | drv (core/drv multiples of 8) */
ssize_t exc(struct ik_file *f, uint32_t cmd, const void *core, size_t core_len,
	    const void *drv, size_t drv_len, size_t core_out, size_t drv_out);
void *ring(size_t size);
struct ionic_qdesc qdesc(unsigned int depth_log2, unsigned int stride_log2);

int get_context(struct ik_file *f, struct ionic_ctx_resp *dr, int *async_fd);
uint32_t alloc_pd(void);
/* CREATE_COMP_CHANNEL: the channel's read end. */
int create_channel(void);
ssize_t create_cq(uint32_t cqe, uint32_t vector, int channel,
		  struct ionic_cq_req *req, uint32_t *handle,
		  struct ionic_cq_resp *dr);
struct ionic_cq_req cq_req(void);
struct ionic_qp_req qp_req(void);
ssize_t create_qp(uint8_t type, uint32_t pd, uint32_t cq, uint32_t sge,
		  const struct ionic_qp_req *req,
		  struct ib_uverbs_create_qp_resp *r, struct ionic_qp_resp *dr);
ssize_t destroy_qp(uint32_t qp_handle);
ssize_t modify(uint32_t qp, uint32_t mask,
	       void (*fill)(struct ib_uverbs_modify_qp *m),
	       enum ibv_qp_state state);
void fill_init(struct ib_uverbs_modify_qp *m);
void fill_rtr(struct ib_uverbs_modify_qp *m);
void fill_rtr_noglobal(struct ib_uverbs_modify_qp *m);
void fill_rts(struct ib_uverbs_modify_qp *m);
void fill_ud_init(struct ib_uverbs_modify_qp *m);
/* An async event and a completion event as the device's would post. */
void post_async(struct ik_qp *qp);
void post_comp(struct ik_cq *cq);

#define RC_INIT \
	(IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)
#define RC_RTR                                                          \
	(IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | \
	 IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)
#define RC_RTS                                                              \
	(IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | \
	 IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC)

#endif /* IK_TESTS_KERNEL_FIXTURE_H */
