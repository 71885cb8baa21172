/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim kernel objects: what the emulated ionic_rdma driver keeps per
 * NIC, per open uverbs file (ucontext) and per verbs object.  Nothing of
 * the device's state is here: the device (sim/dev, idev.h) keeps its own
 * QP, CQ, key and AH tables, programmed through admin commands, and
 * reports back through the events it raises (uverbs/event.c).
 *
 * Locking: one mutex per NIC (nic->lock) serialises the control path
 * (uverbs commands from application threads) and the device engine thread
 * (handed to the device as its lock).  Everything below is protected by it
 * unless a comment says otherwise.
 */
#ifndef IK_OBJECTS_H
#define IK_OBJECTS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include <rdma/ionic-abi.h>

#include "../common/nics.h"
#include "../common/profile.h"
#include "../dev/idev.h"
#include "ik.h"

/* Lowest-free id allocator over [base, base + count). */
struct ik_ida {
	uint32_t base, count;
	uint64_t *bits;
};

/* Kind of a uverbs object handle. */
enum ik_uobj_type {
	IK_UOBJ_PD = 1,
	IK_UOBJ_MR,
	IK_UOBJ_MW,
	IK_UOBJ_CQ,
	IK_UOBJ_QP,
	IK_UOBJ_AH,
};

struct ik_uobj {
	enum ik_uobj_type type;
	uint32_t handle; /* uverbs handle returned to libibverbs */
	struct ik_file *file; /* owning ucontext */
	uint64_t user_handle; /* CQ/QP: libibverbs' object pointer */
	int32_t res_slot1; /* restrack record + 1 (0: none), res_objects.c */
};

/* A completion channel or async event queue: a SOCK_SEQPACKET pair whose
 * read end belongs to the application; the model writes one record per
 * event with MSG_NOSIGNAL | MSG_DONTWAIT. */
struct ik_event_queue {
	int rd; /* given to the application; the model never closes it */
	int wr; /* model's end, closed at file release */
	/* The model's own duplicate of the read end.  The kernel counts an
	 * event as reported only when userspace reads it and drops unread
	 * events of a destroyed object; draining through this fd lets the
	 * model do the same (see ik_evq_drop_unread). */
	int peek;
	unsigned long ino; /* inode of the read end: identifies the channel */
	/* a channel of an importer (uverbs/xproc.h): rd is its number
	 * there, the application's close() here never names it */
	bool remote;
	/* completion channels: CQs using it (atomic), and whether the
	 * application closed its fd while they did (freed with the last) */
	unsigned int users;
	bool closed;
};

struct ik_pd {
	struct ik_uobj uobj;
	uint32_t pdid;
	uint32_t usecnt; /* MRs, MWs, AHs, QPs using it: busy */
};

/* Memory regions and memory windows share the key space:
 * key = (index << 8) | key8, lkey == rkey.  A window's binding and key
 * byte are the device's (BIND_MW WQEs change them). */
struct ik_mr {
	struct ik_uobj uobj;
	struct ik_pd *pd;
	uint32_t index;
	uint32_t key; /* as allocated */
	bool is_mw;
	uint8_t mw_type; /* 1 or 2, MWs only */
	uint32_t access; /* IBV_ACCESS_* */
	uint64_t iova;
	uint64_t length;
	bool dev_live; /* admin CREATE_MR done */
	/* its whole pages in shared memory (mrshare.c): a reference on the
	 * share, what the device publishes to its direct-path peers */
	struct idev_mr_share share;
};

struct ik_av {
	uint8_t dgid[16];
	uint32_t flow_label;
	uint8_t sgid_index;
	uint8_t hop_limit;
	uint8_t traffic_class;
	uint8_t sl;
	uint8_t static_rate;
	uint8_t port_num;
	bool is_global;
};

struct ik_ah {
	struct ik_uobj uobj;
	struct ik_pd *pd;
	uint32_t ahid;
	struct ik_av av;
	bool dev_live; /* admin CREATE_AH done */
};

/* User memory the device uses (a queue's ring), as the device reaches
 * it (uaccess.c): the caller's own pages, or for an importer (uverbs/xproc.h)
 * this process's shared mapping of them. */
struct ik_pin {
	uint8_t *addr;
	size_t maplen; /* our mapping's length; 0: the caller's memory */
	/* the caller's memory moved to a memfd direct-path peers may map
	 * (ringshare.c); len 0: not moved */
	struct idev_ring_share share;
};

/* One hardware CQ of a virtual CQ (one per UDMA pipeline in its mask). */
struct ik_hwcq {
	bool present; /* admin CREATE_CQ done */
	struct ik_pin ring;
	uint8_t udma;
	uint32_t cqid;
	uint32_t eqid;
};

struct ik_cq {
	struct ik_uobj uobj;
	struct ik_event_queue *channel; /* NULL without completion channel */
	uint32_t cqe;
	uint32_t comp_vector;
	uint8_t udma_mask;
	struct ik_hwcq hw[2];
	uint32_t comp_events_reported;
	uint32_t async_events_reported;
	uint32_t usecnt; /* QPs completing into it: busy */
};

/* SQ or RQ as described by the provider's qdesc. */
struct ik_wq {
	struct ionic_qdesc desc;
	uint8_t *ring; /* user memory (or CMB window for a CMB SQ) */
	struct ik_pin pin; /* the user memory */
	uint8_t spec; /* speculative SGE setting sent at create */
	uint8_t cmb; /* final IONIC_CMB_* flags */
	uint32_t max_wr, max_sge, max_inline; /* caps returned at create */
};

struct ik_qp {
	struct ik_uobj uobj;
	struct ik_pd *pd;
	struct ik_cq *send_cq, *recv_cq;
	uint32_t qpn;
	uint8_t udma;
	enum ibv_qp_type type; /* the state is the device's (QUERY_QP) */
	bool sq_sig_all;
	struct ik_wq sq, rq;
	/* attributes from modify_qp, reported by query_qp */
	uint32_t qkey;
	uint32_t dest_qpn;
	uint32_t sq_psn, rq_psn;
	enum ibv_mtu path_mtu;
	uint32_t access_flags; /* qp_access_flags */
	uint16_t pkey_index;
	uint8_t port_num;
	uint8_t retry_cnt, rnr_retry, min_rnr_timer, timeout;
	uint8_t max_rd_atomic, max_dest_rd_atomic;
	uint8_t en_sqd_async_notify;
	uint32_t rate_limit;
	struct ik_av av; /* RC: the path, after modify with IBV_QP_AV */
	bool has_ah; /* RC: owns ahid (header template slot) */
	bool av_valid; /* an AV was programmed */
	uint32_t ahid;
	/* firmware encodings kept as the device stores them; query_qp
	 * reports 2^depth - 1 (docs/kernel-contract.md §9.4/§9.5) */
	uint8_t rrq_depth, rsq_depth;
	uint32_t events_reported;
	bool dev_live; /* admin CREATE_QP done, DESTROY_QP not yet */
	/* SQ in controller memory: pages [cmb_pgid, cmb_pgid + 2^order) */
	bool sq_in_cmb;
	uint32_t sq_cmb_pgid;
	uint8_t sq_cmb_order;
	struct ik_mmap_entry *sq_cmb_entry;
};

/* The mmap table of a ucontext: offsets are handed out first-fit in pages. */
enum ik_mmap_kind {
	IK_MMAP_DBELL = 1,
	IK_MMAP_PHC,
	IK_MMAP_CMB,
};

struct ik_mmap_entry {
	enum ik_mmap_kind kind;
	uint64_t pgoff;
	uint64_t npages;
	struct ik_qp *qp; /* CMB: owning QP */
	bool sq; /* CMB: SQ (true) or RQ window */
	struct ik_mmap_entry *next;
};

/* An open uverbs file and, after GET_CONTEXT, its ucontext. */
struct ik_file {
	struct ik_nic *nic;
	bool has_ucontext;
	bool dead; /* inherited across fork(): every command fails */
	/* the firmware failed while it was open, or before (admin queue
	 * KILLED, docs/kernel-contract.md §13): creates and modifies fail with
	 * ENODEV, destroys succeed */
	bool killed;
	uint32_t dbid;
	struct ik_event_queue async_q;
	struct ik_event_queue **channels; /* completion channels */
	unsigned int nchannels;
	struct ik_uobj **handles; /* handle -> object, NULL when free */
	uint32_t nhandles;
	struct ik_mmap_entry *mmaps;
	int32_t res_slot1; /* the context's restrack record + 1 */
	uint32_t port_events_reported; /* PORT_ERR / PORT_ACTIVE records */
	struct ik_file *next; /* nic->files */
	/* another process's file passed to us: every command goes there
	 * (uverbs/import.c); nic is NULL */
	struct ik_import *imp;
};

struct ik_nic {
	pthread_mutex_t lock;
	struct isim_profile prof;
	unsigned int index; /* NIC k of the host: ionic_k, uverbsK */
	uint32_t node; /* fabric node id */
	uint8_t gid[2][16]; /* [0] link-local (MAC EUI-64), [1] IPv4 */
	struct ik_ida pd_ida, mr_ida, ah_ida, dbid_ida;
	struct ik_ida qp_ida[2], cq_ida[2]; /* bit ids per UDMA half */
	uint8_t next_key8; /* device-wide MR/MW key counter */
	uint8_t next_qp_udma; /* alternates on every QP create */
	/* the driver's own tables, to route device events to objects */
	struct ik_qp **qps; /* indexed by qpn, size qpn_limit */
	uint32_t qpn_limit;
	struct ik_cq **cqs; /* indexed by cqid, size cqid_limit */
	uint32_t cqid_limit;
	struct ik_file *files;
	struct idev *dev; /* the NIC */
	bool dead; /* the firmware failed and did not come back */
	/* The files list and each file's channel array change under lock
	 * AND chan_lock (taken second); ik_fd_closing(), which a close()
	 * inside the model may call with lock held, takes only chan_lock. */
	pthread_mutex_t chan_lock;
	unsigned int nchannels; /* completion channels of all files */
	char *fatal_file; /* the device's trigger file, or NULL */
	uint8_t *phc_page; /* model's writable view of the PHC page */
	int phc_memfd;
	int phc_ro_fd; /* O_RDONLY view: user maps can't gain write */
	/* controller memory (profile cmb_pages > 0): a memfd the model maps
	 * for the device and users map per QP window */
	uint8_t *cmb_base;
	int cmb_memfd;
	uint64_t *cmb_bits; /* one bit per CMB page, set = in use */
	bool link_down; /* the device's Ethernet link (fault injection) */
};

/* The NICs of this process, NULL until their device is first opened
 * (ik_nic_get). */
extern struct ik_nic *ik_nics[ISIM_MAX_NICS];
/* The platform the model was initialised with (doorbell pages). */
extern const struct ik_platform *ik_plat;

/* The kernel's QP with number 'qpn', or NULL (caller holds nic->lock). */
struct ik_qp *ik_qp_lookup(struct ik_nic *nic, uint32_t qpn);
/* The CQ id of the hardware CQ a QP completes into: cq->hw[qp->udma]. */
static inline uint32_t ik_qp_cqid(const struct ik_qp *qp, bool send)
{
	return (send ? qp->send_cq : qp->recv_cq)->hw[qp->udma].cqid;
}

/* Post an async event record for an object (or a port). Counts it. */
void ik_post_async_qp(struct ik_qp *qp, enum ibv_event_type ev);
void ik_post_async_cq(struct ik_cq *cq, enum ibv_event_type ev);
/* Post a completion-channel record for a CQ (after an arm fired). */
void ik_post_comp_event(struct ik_cq *cq);

#endif /* IK_OBJECTS_H */
