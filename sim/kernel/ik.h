/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim kernel model: its interface to the layer above it, the shim
 * (sim/shim: libc interposition, fake character device, doorbell trap).
 * The shim calls the functions below; the kernel model reaches the shim
 * only through the struct ik_platform it is handed.
 *
 * The platform knows nothing about RDMA; the model never touches libc
 * interposition.  Everything crossing the line is declared here.
 *
 * Error convention: functions returning int return 0 or a NEGATIVE errno,
 * as a kernel would; the shim turns that into -1/errno for the caller.
 */
#ifndef IK_H
#define IK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../common/mmio.h"
#include "../common/nics.h"
#include "../common/profile.h"

/* ---- provided by the platform (sim/shim) --------------------------------- */

/*
 * Doorbell pages.  dbpage_map() returns 'len' bytes of memory whose stores
 * are trapped: every store is captured exactly, in program order across
 * all threads, as a struct isim_mmio_store naming the page by the 'tag'
 * it was mapped with, and pushed to one process-wide FIFO that mmio.pop
 * drains; mmio.eventfd is readable whenever stores are pending.
 * dbpage_revoke(): from now on stores to the pages mapped with 'tag' are
 * dropped (the context behind them is gone; its tag may be reused).
 * window_map() is dbpage_map() over existing memory: 'len' bytes of 'fd'
 * from 'off', readable as that memory, whose stores are trapped and
 * captured the same way instead of being applied (the device applies
 * them: an express-doorbell window of controller memory).
 *
 * The model calls the platform only through this table, handed to it at
 * initialisation: it references no symbol of the platform.
 */
struct ik_platform {
	void *(*dbpage_map)(uint64_t tag, void *addr, size_t len, int *err);
	void *(*window_map)(uint64_t tag, void *addr, size_t len, int fd,
			    off_t off, int *err);
	void (*dbpage_revoke)(uint64_t tag);
	struct isim_mmio_port mmio;
	/* The model's consumer for the thread that stored: once a store is
	 * captured, the platform calls apply() (when one was set; NULL
	 * unsets it) in the storing thread, which holds no lock of the
	 * model.  apply() returns false when it applied nothing (the model
	 * is busy): the platform then signals mmio.eventfd as before. */
	void (*mmio_set_apply)(bool (*apply)(void));
};

/* ---- implemented by the model (sim/kernel) ------------------------------- */

/* The character device the platform's device fds really are (it backs
 * them with /dev/null): fstat() reports it, netlink and sysfs name it. */
#define IK_CDEV_MAJOR 1
#define IK_CDEV_MINOR 3

/* One open of /dev/infiniband/uverbs0, shared by all dups of that fd. */
struct ik_file;

/* First use in a process: remember the platform and check the profile
 * in the environment (see sim/common/profile.h).  The NICs come later,
 * each on the first open of its device. */
int ik_model_init(const struct ik_platform *plat);

/* open("/dev/infiniband/uverbsN"): NIC N of the host (common/nics.h)
 * must exist, else -ENODEV; its device starts on its first open.  A
 * process whose model was never initialised has none (-ENODEV). */
int ik_file_open(unsigned int devidx, struct ik_file **out);
/* Last close of the fd and all its dups. Tears down the ucontext. */
void ik_file_release(struct ik_file *f);
/* A uverbs write() command. Returns len on success or a negative errno. */
ssize_t ik_file_write(struct ik_file *f, const void *buf, size_t len);
/* ioctl(fd, req, arg) on the uverbs fd. 0 or negative errno. */
int ik_file_ioctl(struct ik_file *f, unsigned long req, void *arg);
/* mmap(fd, off) on the uverbs fd. Returns the mapping or NULL with *err set
 * to a negative errno. 'addr' is the caller's hint (MAP_FIXED honoured). */
void *ik_file_mmap(struct ik_file *f, void *addr, size_t len, int prot,
		   int flags, off_t off, int *err);

/*
 * A device fd in SCM_RIGHTS (docs/kernel-contract.md §21.1).  Sending:
 * ik_file_export() returns the descriptor to pass instead, a socket to a
 * thread of this process's kernel that serves the receiver's commands on
 * 'f'; 'hold' is a tracked dup of the device fd the server closes when
 * the receiver lets go (on failure the caller still owns it).  The
 * caller closes the returned descriptor once sent.  Receiving:
 * ik_import_probe() tells whether a received descriptor is such a
 * socket; ik_import_open() makes it an open file of ours (taking the
 * socket, closed on failure too) whose commands go to the exporter.
 */
int ik_file_export(struct ik_file *f, int hold);
bool ik_import_probe(int fd);
int ik_import_open(int sock, struct ik_file **out);

/* Any close(fd) of the process, before the real close: a completion
 * channel's fd going away releases the model's ends of it. */
void ik_fd_closing(int fd);

/* Called in the child after fork(): the child starts with a fresh device;
 * contexts inherited from the parent are dead (their commands fail). */
void ik_model_atfork_child(void);

/* A SIGSEGV at 'addr' (SEGV_ACCERR) that is a store into registered
 * memory being moved to shared memory (kernel/mrshare.c): true once the
 * store can run again (return from the handler); async-signal-safe. */
bool ik_mr_share_fault(uintptr_t addr);

/* ---- the host around the NIC: network interface, netlink ----------------- */

/* A NIC's network interface as the Ethernet driver registers it
 * (docs/kernel-contract.md §20): NIC k's is isimK.  Addresses are
 * network order. */
struct ik_netdev {
	char name[16]; /* IFNAMSIZ */
	int ifindex;
	uint8_t mac[6];
	uint32_t mtu, max_mtu;
	uint32_t flags; /* IFF_*: carrier (RUNNING, LOWER_UP) = port up */
	uint8_t ipv4[4], ipv4_brd[4];
	uint8_t ipv4_prefix;
	uint8_t ipv6_ll[16]; /* fe80::<EUI-64>, GID 0 */
	uint8_t ipv6_prefix;
};

/* What every process of a run agrees on, from the environment alone:
 * available without opening the device (ip, rdma, getifaddrs). */
struct ik_host {
	struct isim_profile prof;
	unsigned int nnics; /* NICs of the host, 1..ISIM_MAX_NICS */
	uint32_t node[ISIM_MAX_NICS]; /* NIC k's fabric node */
	struct ik_netdev netdev[ISIM_MAX_NICS];
};
const struct ik_host *ik_host_get(void);
/* NIC k's interface, or NULL when the host has no NIC k. */
const struct ik_netdev *ik_netdev_get(unsigned int k);

/* The port's hardware counters (sysfs ports/1/hw_counters/, netlink
 * STAT_GET; kernel/hw_stats.c): how many, counter i's name (NULL past
 * the last) and NIC k's value of it (0, or -ENOENT for no such NIC or
 * counter). */
unsigned int ik_hw_stats_count(void);
const char *ik_hw_stat_name(unsigned int i);
int ik_hw_stat_get(unsigned int k, unsigned int i, uint64_t *val);

/* Does this run answer RDMA netlink (profile key "netlink")?  If not, the
 * platform refuses socket(AF_NETLINK, *, NETLINK_RDMA). */
bool ik_nl_rdma_enabled(void);

/* One reply message of the emulated kernel, for the platform to queue on
 * the socket it answers (one datagram each).  0 or a negative errno. */
typedef int (*ik_nl_emit_fn)(void *ctx, const void *msg, size_t len);

/* A netlink socket as the kernel knows it. */
struct ik_nl_sock {
	uint32_t portid; /* bound port: replies carry it as nlmsg_pid */
	bool cap_ack; /* NETLINK_CAP_ACK: errors without the request */
};

/* One datagram sent to the kernel on a NETLINK_RDMA socket: every
 * message in it is handled as the RDMA netlink core does (nldev
 * requests; data, NLMSG_DONE, ACK and error replies through emit).
 * Any buffer is accepted: this is the parser's entry point, callable
 * without a socket (fuzzing). */
void ik_nl_rdma_input(const struct ik_nl_sock *s, const void *buf, size_t len,
		      ik_nl_emit_fn emit, void *ctx);

/* The NLMSG_ERROR the kernel sends for request 'req' failing with 'err'
 * (negative errno; 0 is an ACK). */
int ik_nl_error(const struct ik_nl_sock *s, const void *req, int err,
		ik_nl_emit_fn emit, void *ctx);

/* NETLINK_ROUTE: the platform proxies the host kernel's rtnetlink and
 * asks the model about each request message (netlink/rtnl.c). */
enum ik_rtnl_route {
	IK_RTNL_HOST, /* the host kernel answers alone */
	IK_RTNL_OURS, /* about our interface: ik_rtnl_answer() alone */
	IK_RTNL_BOTH, /* a full dump: the host's part, then ours */
};
enum ik_rtnl_route ik_rtnl_classify(const void *msg, size_t len);
/* Our interface's answer to one request message; with 'complete' also
 * what ends the answer (NLMSG_DONE, the ACK or the error), without it
 * only the data messages of a dump whose end the host sends. */
void ik_rtnl_answer(const struct ik_nl_sock *s, const void *msg, size_t len,
		    bool complete, ik_nl_emit_fn emit, void *ctx);

/* ---- the RDMA connection manager: /dev/infiniband/rdma_cm ---------------- */

/* One open of the rdma_ucm device (sim/kernel/cm/ucma.h). */
struct ik_ucma_file;

/* The misc character device the node reports (netlink GET_CHARDEV,
 * fstat of its descriptors). */
#define IK_UCMA_CDEV_MAJOR 10
#define IK_UCMA_CDEV_MINOR 58

/* open("/dev/infiniband/rdma_cm", flags): the descriptor the application
 * gets (a socket, readable while events wait) or a negative errno. */
int ik_ucma_open(int flags, struct ik_ucma_file **out);
/* Last close of that descriptor: destroys the file's ids.  The caller
 * closes the descriptor itself. */
void ik_ucma_release(struct ik_ucma_file *f);
/* write() of one command: len, or a negative errno.  The buffer is the
 * caller's (copied in as the kernel copies it). */
ssize_t ik_ucma_write(struct ik_ucma_file *f, const void *buf, size_t len);
/* The command parser over a buffer already copied in (fuzzing). */
ssize_t ik_ucma_input(struct ik_ucma_file *f, const void *buf, size_t len);
/* Newer than the system's rdma_user_cm.h (Linux 6.17): the commands after
 * JOIN_MCAST, and the events an application may write itself. */
#define IK_UCMA_CMD_RESOLVE_IB_SERVICE 23 /* not emulated: ENOSYS */
#define IK_UCMA_CMD_WRITE_CM_EVENT 24
#define IK_CM_EVENT_USER 18
#define IK_CM_EVENT_INTERNAL 19
/* In a fork() child: the parent's ids are not the child's. */
void ik_ucma_atfork_child(void);

#endif /* IK_H */
