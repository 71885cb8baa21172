/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim kernel layer, private interfaces between its files: the id
 * allocators, the per-file handle table, event queues and the command
 * context every uverbs handler receives.
 */
#ifndef IK_KPRIV_H
#define IK_KPRIV_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <rdma/ib_user_verbs.h>

#include "objects.h"
#include "uverbs/xproc.h"
#include "../common/trace.h"

#define IK_PAGE_SHIFT 12
#define IK_PAGE_SIZE (1ul << IK_PAGE_SHIFT)

/* ionic_ibdev.h / ionic_queue.h constants (docs/kernel-contract.md §2, §8.2) */
#define IK_MAX_PD 1024
#define IK_MAX_DEPTH 0xffff
#define IK_MAX_CQE (0xffff - 100)
#define IK_MAX_RD_ATOM 16
#define IK_MAX_SGE_CAP 8
#define IK_VENDOR_ID 0x1dd8
#define IK_NETDEV_MAX_MTU 9194 /* ionic netdev max_mtu */
#define IK_GID_TBL_LEN 256
#define IK_NUM_GIDS 2 /* populated entries: link-local, v4 */
/* device_cap_flags (docs/kernel-contract.md §2) */
#define IK_DEV_CAPS                                              \
	(IBV_DEVICE_MEM_WINDOW | IBV_DEVICE_MEM_MGT_EXTENSIONS | \
	 IBV_DEVICE_MEM_WINDOW_TYPE_2B)

/* Ours: NIC k's network interface isimK (docs/kernel-contract.md §20) */
#define IK_NETDEV_NAME "isim%u"
#define IK_NETDEV_IFINDEX 0x1dd80 /* + k; far above what a netns hands out */
#define IK_NETDEV_IPV4_PREFIX 15 /* 198.18.0.0/15, RFC 2544 */
/* RDMA netlink identity (docs/kernel-contract.md §19): NIC k is device
 * index k, ionic_k, driver id ionic */
#define IK_DEV_NAME "ionic_%u"
#define IK_RDMA_DRIVER_IONIC 21

/* Admin opcodes (docs/kernel-contract.md §16): a verb needing opcode N fails
 * with EBADRQC when the firmware reports admin_opcodes <= N. */
enum {
	IK_ADMIN_CREATE_CQ = 1,
	IK_ADMIN_CREATE_QP = 2,
	IK_ADMIN_CREATE_MR = 3,
	IK_ADMIN_DESTROY_MR = 6,
	IK_ADMIN_DESTROY_CQ = 8,
	IK_ADMIN_MODIFY_QP = 9,
	IK_ADMIN_QUERY_QP = 10,
	IK_ADMIN_DESTROY_QP = 11,
	IK_ADMIN_CREATE_AH = 13,
	IK_ADMIN_DESTROY_AH = 16,
};

/* May 'f' send admin command 'op'?  Once the admin queue is KILLED
 * (the firmware failed, docs/kernel-contract.md §13) creates, modifies and
 * queries fail with ENODEV, while destroys succeed: the device has lost
 * the objects already, the kernel only frees its own state. */
static inline int ik_admin_ok(const struct ik_file *f, unsigned int op)
{
	if (f->nic->prof.admin_opcodes <= op)
		return -EBADRQC;
	if (f->killed && op != IK_ADMIN_DESTROY_MR &&
	    op != IK_ADMIN_DESTROY_CQ && op != IK_ADMIN_DESTROY_QP &&
	    op != IK_ADMIN_DESTROY_AH)
		return -ENODEV;
	return 0;
}

/* ---- nic.c --------------------------------------------------------------- */

/* NIC k, created on first use (its device started).  0, -ENODEV when
 * the host has no NIC k, or what creating it failed with. */
int ik_nic_get(unsigned int k, struct ik_nic **out);

/*
 * Doorbell page tags name the NIC in bits 56..58 (bus.c): every NIC
 * hands out the same dbids and expdb window tags, and the platform's one
 * FIFO carries the stores of all of them.  The device sees its own tags
 * without these bits.
 */
#define IK_TAG_NIC_SHIFT 56
#define IK_TAG_NIC_MASK (7ull << IK_TAG_NIC_SHIFT)
static inline uint64_t ik_nic_tag(const struct ik_nic *nic, uint64_t tag)
{
	return tag | (uint64_t)nic->index << IK_TAG_NIC_SHIFT;
}

/* ---- bus.c --------------------------------------------------------------- */

/* The port NIC 'nic' reads its doorbell stores from: the platform's
 * when the host has one NIC, else its share of them (bus.c). */
int ik_bus_port(const struct ik_nic *nic, struct isim_mmio_port *port);
void ik_bus_atfork_child(void);

int ik_ida_init(struct ik_ida *ida, uint32_t base, uint32_t count);
void ik_ida_destroy(struct ik_ida *ida);
/* Lowest free id, or -ENOMEM. */
int64_t ik_ida_alloc(struct ik_ida *ida);
void ik_ida_free(struct ik_ida *ida, uint32_t id);
/* Mark an id used (reserved ids such as the GSI QP bit ids). */
void ik_ida_reserve(struct ik_ida *ida, uint32_t id);

/* ionic_bitid_to_qid for an index inside a UDMA half (ionic-kernel 15). */
uint32_t ik_udma_qid(const struct ik_nic *nic, unsigned int udma, uint32_t idx);
/* Inverse of ik_udma_qid: the index inside the UDMA half. */
uint32_t ik_udma_idx(const struct ik_nic *nic, uint32_t qid);
/* Mask of the UDMA pipelines that exist (0b11 with two). */
static inline uint8_t ik_udma_all(const struct ik_nic *nic)
{
	return nic->prof.udma_count >= 2 ? 3 : 1;
}

/* Create the NIC's device (uverbs/event.c: its events come back there). */
int ik_nic_dev_create(struct ik_nic *nic);

/* Refresh the PHC page snapshot under its seqlock. */
void ik_phc_update(struct ik_nic *nic);

/* Is [addr, addr+len) mapped in this process (what pinning would need)? */
bool ik_user_mapped(uint64_t addr, uint64_t len);
/* Pin the caller's [uaddr, uaddr + len) for the device (a ring already
 * checked by ik_qdesc_check): p->addr is where the device reaches it.
 * For an importer (uverbs/xproc.h) its pages become shared memory mapped here
 * too; ik_unpin() (a no-op on a zeroed pin) lets go of that mapping. */
int ik_pin_user(uint64_t uaddr, uint64_t len, struct ik_pin *p);
void ik_unpin(struct ik_pin *p);
/* A ring just pinned for the device ('what' names it in the trace):
 * when the NIC keeps a direct-path port and the ring is whole pages of
 * an anonymous private mapping with nothing unusual about it, move it
 * to shared memory its peers map (ringshare.c; p->share), else leave
 * it (they reach it with process_vm_*).  ik_unpin lets go of it. */
void ik_ring_share(struct ik_nic *nic, struct ik_pin *p, uint64_t len,
		   const char *what);
/* fork() child: shared rings become private copies again, as the
 * anonymous memory they were (or gone, if it was MADV_DONTFORK). */
void ik_ring_share_atfork_child(void);
void ik_ring_unshare(struct ik_pin *p);
/* Copy [p, p + len) of our memory into memfd 'fd' from offset 0 with
 * the kernel's checks (pwrite: an unreadable range is -EFAULT, never a
 * fault here); 0 or -errno. */
int ik_memfd_fill(int fd, const uint8_t *p, uint64_t len);
/* The mapping of this process holding address a, as /proc/self/smaps
 * describes it (ringshare.c): 0, or -errno (-ENOENT: nothing there). */
struct ik_vma {
	uint64_t start, end, off, ino;
	dev_t dev;
	char perms[5];
	bool named; /* a path or [name] follows the inode */
	bool heap; /* [heap] */
	bool has_flags; /* VmFlags were read: plain, dontfork are valid */
	bool plain; /* no VmFlags but the ordinary ones */
	bool dontfork;
};
int ik_vma_at(uint64_t a, struct ik_vma *v);
/* Move [p, p + len) (whole pages of one anonymous private mapping) to a
 * new sealed memfd 'name' mapped MAP_SHARED at the same address, with
 * MADV_DONTFORK again when 'dontfork'; 'fence': other threads may store
 * there meanwhile (the range is read-only during the copy, their stores
 * fault and retry, ik_mr_share_fault).  The memfd, or -errno (the
 * memory as it was). */
int ik_memfd_move(uint8_t *p, uint64_t len, bool dontfork, const char *name,
		  bool fence);
/* Copy len bytes of our own memory through the kernel, unseen by the
 * sanitizers (ringshare.c says why); true if all were copied. */
bool ik_copy_own(void *to, const void *from, uint64_t len);
/* mremap 'from' over [to, to + len) (MREMAP_FIXED); true if it moved. */
bool ik_remap_over(void *from, uint8_t *to, uint64_t len);
/* mrshare.c: REG_MR's whole pages moved to shared memory its NIC's
 * direct-path peers map (or the share they are in already, one more
 * reference); *out zeroed when not (peers use process_vm_*).  And the
 * reference given back (DEREG_MR; the memory stays where it is). */
struct ik_mr;
void ik_mr_share(struct ik_nic *nic, struct ik_mr *mr, uint64_t start,
		 uint64_t len);
void ik_mr_unshare(struct ik_mr *mr);
/* fork() child: the registered memory moved to memfds becomes private
 * copies again (DONTFORK ranges are not in the child at all). */
void ik_mr_share_atfork_child(void);
/* What an importer's memory still cannot be given to this process's
 * device for: MRs of its own buffers, EOPNOTSUPP (REG_MR of arbitrary
 * memory other threads may write during the move to shared memory,
 * docs/kernel-contract.md §21.1). */
#define IK_PIN_REMOTE_ERR (-EOPNOTSUPP)
/* copy_from_user / copy_to_user (uaccess.c): 0 or -EFAULT, never a fault
 * in the emulator for a bad application pointer. */
int ik_copy_from_user(void *dst, uint64_t uaddr, size_t len);
int ik_copy_to_user(uint64_t uaddr, const void *src, size_t len);
/* Can the caller's [uaddr, uaddr+len) be written (its bytes are read and
 * written back unchanged)?  0, -EFAULT or -ENOMEM. */
int ik_user_writable(uint64_t uaddr, size_t len);

/* ---- uverbs/event.c ------------------------------------------------------ */

/* A new SOCK_SEQPACKET queue; the application gets q->rd. */
int ik_evq_create(struct ik_event_queue *q);
void ik_evq_close(struct ik_event_queue *q);
/* Destroying an object: remove its unread records ('recsz' bytes whose
 * element/cq_handle is 'handle') and take them off '*reported', which
 * then counts the events userspace really read. */
void ik_evq_drop_unread(struct ik_event_queue *q, size_t recsz, uint64_t handle,
			uint32_t *reported);

/* ---- uverbs/file.c ------------------------------------------------------- */

/* Insert an object into the file's handle table (lowest free handle). */
int ik_handle_add(struct ik_file *f, struct ik_uobj *u, enum ik_uobj_type type);
void ik_handle_del(struct ik_file *f, struct ik_uobj *u);
/* Object of 'type' with 'handle', or NULL. */
void *ik_handle_get(struct ik_file *f, uint32_t handle, enum ik_uobj_type type);
/* Completion channel with read end 'fd' created on this file, or NULL. */
struct ik_event_queue *ik_file_channel(struct ik_file *f, int fd);
/* A CQ starts / stops using a completion channel; the last one frees a
 * channel the application has closed already (ik_fd_closing). */
void ik_channel_get(struct ik_event_queue *q);
void ik_channel_put(struct ik_file *f, struct ik_event_queue *q);
/* The importer closed its channel with number 'num' (uverbs/xproc.h): released
 * as ik_fd_closing releases a local one. */
void ik_file_channel_closed(struct ik_file *f, int num);

/* ---- resource tracking (res_objects.c, restrack.h) ----------------------- */

struct ik_cmd;
/* A command succeeded: record what it created or changed. */
void ik_res_cmd_done(struct ik_cmd *c, uint32_t cmd);
/* An object leaves its file's handle table. */
void ik_res_forget(struct ik_uobj *u);
void ik_res_file_release(struct ik_file *f);

/* ---- command context (uverbs/uverbs.c) ----------------------------------- */

struct ik_cmd {
	struct ik_file *f;
	struct ik_nic *nic;
	bool ex;
	const void *req; /* core request (header excluded) */
	size_t req_len; /* bytes of core request available */
	const uint8_t *uin; /* driver request (udata in) */
	size_t uin_len;
	void *resp; /* core response scratch, zeroed */
	size_t resp_len; /* bytes the caller's core response holds */
	void *uout; /* driver response scratch, zeroed */
	size_t uout_len; /* bytes the caller's driver response holds */
	size_t uout_written; /* bytes ik_udata_out() filled: all the
				   * caller gets (ib_copy_to_udata) */
	char note[160]; /* decoded result for the trace line */
};

/* ib_copy_validate_udata_in: at least 'size' bytes, extra bytes zero. */
int ik_udata_in(const struct ik_cmd *c, void *dst, size_t size);
/* ib_no_udata_io / ib_is_udata_in_empty: no non-zero input bytes. */
int ik_udata_empty(const struct ik_cmd *c);
/* Copy a driver response (truncated to the caller's length).  Only these
 * bytes reach the caller; the rest of its buffer is left alone, as with
 * the kernel's ib_copy_to_udata(). */
void ik_udata_out(struct ik_cmd *c, const void *src, size_t size);

/* response_length of an extended command whose core response has 'full'
 * bytes: what of it the caller's buffer holds. */
static inline uint32_t ik_ex_resp_len(const struct ik_cmd *c, size_t full)
{
	return c->resp_len < full ? (uint32_t)c->resp_len : (uint32_t)full;
}

/* Core request into a zeroed struct (short extended requests). */
void ik_core_req_copy(const struct ik_cmd *c, void *dst, size_t size);

#define KNOTE(c, ...) snprintf((c)->note, sizeof((c)->note), __VA_ARGS__)

/* ---- handlers ------------------------------------------------------------ */

int ik_cmd_get_context(struct ik_cmd *c);
/* The driver's GET_CONTEXT answer for a file that has its ucontext. */
void ik_ctx_resp_fill(const struct ik_file *f, struct ionic_ctx_resp *dr);
int ik_cmd_query_device(struct ik_cmd *c);
int ik_cmd_ex_query_device(struct ik_cmd *c);
int ik_cmd_query_port(struct ik_cmd *c);
int ik_cmd_create_comp_channel(struct ik_cmd *c);

int ik_cmd_alloc_pd(struct ik_cmd *c);
int ik_cmd_dealloc_pd(struct ik_cmd *c);
int ik_cmd_reg_mr(struct ik_cmd *c);
int ik_cmd_dereg_mr(struct ik_cmd *c);
int ik_cmd_alloc_mw(struct ik_cmd *c);
int ik_cmd_dealloc_mw(struct ik_cmd *c);
int ik_cmd_create_ah(struct ik_cmd *c);
int ik_cmd_destroy_ah(struct ik_cmd *c);

int ik_cmd_create_cq(struct ik_cmd *c);
int ik_cmd_ex_create_cq(struct ik_cmd *c);
int ik_cmd_destroy_cq(struct ik_cmd *c);

int ik_cmd_create_qp(struct ik_cmd *c);
int ik_cmd_ex_create_qp(struct ik_cmd *c);
int ik_cmd_query_qp(struct ik_cmd *c);
int ik_cmd_destroy_qp(struct ik_cmd *c);
int ik_cmd_modify_qp(struct ik_cmd *c);
int ik_cmd_ex_modify_qp(struct ik_cmd *c);

/* ionic qdesc validation (uverbs/cmd_cq.c): 0, -EINVAL or -EFAULT. */
int ik_qdesc_check(const struct ionic_qdesc *q);

/* Teardown used by destroy commands and file release (lock held). */
void ik_pd_free(struct ik_file *f, struct ik_pd *pd);
void ik_mr_free(struct ik_file *f, struct ik_mr *mr);
void ik_ah_free(struct ik_file *f, struct ik_ah *ah);
void ik_cq_free(struct ik_file *f, struct ik_cq *cq);
void ik_qp_free(struct ik_file *f, struct ik_qp *qp);

/* Validate an address vector as the IB core does for RoCE (GRH, port,
 * populated sgid) and convert it. */
int ik_av_from_uverbs(struct ik_nic *nic, struct ik_av *av,
		      const uint8_t dgid[16], uint32_t flow_label,
		      uint8_t sgid_index, uint8_t hop_limit, uint8_t tclass,
		      uint8_t sl, uint8_t static_rate, uint8_t is_global,
		      uint8_t port_num);

/* The device's form of an address vector (admin CREATE_AH, MODIFY_QP). */
void ik_av_to_dev(const struct ik_av *av, struct idev_av *d);

/* controller memory (uverbs/cmb.c) */
int ik_cmb_init(struct ik_nic *nic);
int ik_cmb_sq_setup(struct ik_file *f, struct ik_qp *qp, uint8_t req,
		    uint8_t *resp, uint64_t *offset);
void ik_cmb_sq_release(struct ik_file *f, struct ik_qp *qp);
int64_t ik_cmb_window(const struct ik_mmap_entry *e, uint64_t *tag);
/* Does the device serve express doorbells for SQ WQEs of this size? */
bool ik_cmb_expdb_ok(const struct ik_nic *nic, unsigned int stride_log2);
/* The device's tag of an express-doorbell SQ's window. */
uint64_t ik_cmb_expdb_tag(const struct ik_qp *qp);

/* mmap table (uverbs/mmap.c) */
int ik_mmap_insert(struct ik_file *f, enum ik_mmap_kind kind, uint64_t npages,
		   uint64_t *pgoff);
void ik_mmap_clear(struct ik_file *f);

/* The NIC lock, as the device wants it held (idev_enter/leave: the
 * state it shares with peers on the direct path). */
static inline void ik_nic_lock(struct ik_nic *nic)
{
	pthread_mutex_lock(&nic->lock);
	if (nic->dev)
		idev_enter(nic->dev);
}

static inline void ik_nic_unlock(struct ik_nic *nic)
{
	if (nic->dev)
		idev_leave(nic->dev);
	pthread_mutex_unlock(&nic->lock);
}

/* ---- direct.c ---- */
/* The direct-path switch (IONIC_SIM_DIRECT): true unless "0" or "off". */
bool ik_direct_enabled(void);
/* The NIC exists: hand the platform the storing thread's doorbell
 * consumer (or take it back when the switch is off). */
void ik_direct_start(void);

#endif /* IK_KPRIV_H */
