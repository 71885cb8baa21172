/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim kernel layer: the RDMA connection manager - the rdma_ucm
 * character device (/dev/infiniband/rdma_cm), its ids and events, and the
 * IB CM protocol that connects ids of different NICs over the fabric
 * (docs/kernel-contract.md §22).  Private to the files of kernel/cm/.
 *
 * Shape:
 *   ucma_file.c   the open file: write() parser, event queue, GET_EVENT
 *   ucma_cmd.c    the commands on ids: create .. query, INIT_QP_ATTR
 *   proto.c       the connection protocol (REQ/REP/RTU/REJ/DREQ/DREP,
 *                 SIDR): its messages and their resending (proto.h)
 *   cmd.c         the commands that speak it: CONNECT .. DISCONNECT
 *   input.c       what each message does on arrival
 *   agent.c       the process' CM agent thread and its endpoints
 *   wire.c        CM messages as MADs in UD packets on the fabric
 *
 * Locking: one mutex (ik_cm_lock) guards every id, file and endpoint;
 * command threads and the agent thread take it.  GET_EVENT sleeps without
 * it, in recv() on the file's socket.
 */
#ifndef IK_UCMA_H
#define IK_UCMA_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_cm.h>

#include "../../fabric/fabric.h"
#include "wire.h"
#include "../ik.h"

/* enum rdma_cm_state (rdma res show cm_id numbers them so) */
enum ik_cm_state {
	IK_CM_IDLE = 0,
	IK_CM_ADDR_QUERY = 1,
	IK_CM_ADDR_RESOLVED = 2,
	IK_CM_ROUTE_QUERY = 3,
	IK_CM_ROUTE_RESOLVED = 4,
	IK_CM_CONNECT = 5,
	IK_CM_DISCONNECT = 6,
	IK_CM_ADDR_BOUND = 7,
	IK_CM_LISTEN = 8,
};

/* enum rdma_cm_event_type: the event numbers user space reads */
enum {
	RDMA_CM_EVENT_ADDR_RESOLVED = 0,
	RDMA_CM_EVENT_ADDR_ERROR = 1,
	RDMA_CM_EVENT_ROUTE_RESOLVED = 2,
	RDMA_CM_EVENT_ROUTE_ERROR = 3,
	RDMA_CM_EVENT_CONNECT_REQUEST = 4,
	RDMA_CM_EVENT_CONNECT_RESPONSE = 5,
	RDMA_CM_EVENT_CONNECT_ERROR = 6,
	RDMA_CM_EVENT_UNREACHABLE = 7,
	RDMA_CM_EVENT_REJECTED = 8,
	RDMA_CM_EVENT_ESTABLISHED = 9,
	RDMA_CM_EVENT_DISCONNECTED = 10,
	RDMA_CM_EVENT_DEVICE_REMOVAL = 11,
	RDMA_CM_EVENT_TIMEWAIT_EXIT = 15,
};

/* The IB CM's state of an id's connection (cm.c's ib_cm_state, reduced
 * to what RoCE user space can reach). */
enum ik_cm_conn_state {
	IK_CONN_NONE = 0, /* no CM connection was ever started */
	IK_CONN_REQ_SENT,
	IK_CONN_REQ_RCVD, /* passive: CONNECT_REQUEST, not answered */
	IK_CONN_REP_SENT,
	IK_CONN_REP_RCVD, /* active: CONNECT_RESPONSE, RTU not sent */
	IK_CONN_ESTABLISHED,
	IK_CONN_DREQ_SENT,
	IK_CONN_DREQ_RCVD,
	IK_CONN_TIMEWAIT, /* disconnected or rejected: nothing more */
	IK_CONN_SIDR_SENT,
	IK_CONN_SIDR_RCVD,
};

/* A connection's IB CM side, as cm.c's cm_id_private keeps it. */
struct ik_cm_conn {
	enum ik_cm_conn_state st;
	uint32_t local_comm_id, remote_comm_id;
	/* where our messages go: the peer NIC's GID 1 and its agent (or
	 * listen) endpoint */
	uint8_t peer_gid[16];
	uint32_t peer_agent;
	uint32_t remote_qpn, remote_psn, qkey;
	/* ours: RTR max_dest_rd_atomic and RTS max_rd_atomic */
	uint8_t responder_resources, initiator_depth;
	uint8_t retry_count, rnr_retry_count;
	/* the path of the connection (REQ or route) */
	uint8_t mtu, tclass, hop_limit;
	uint32_t flow_label;
};

struct ik_ucma_file;

/* One rdma_cm id (the kernel's ucma_context + rdma_id_private). */
struct ik_cm_id {
	uint32_t handle;
	uint64_t uid;
	struct ik_ucma_file *file;
	uint16_t ps; /* enum rdma_ucm_port_space */
	uint8_t qp_type; /* IBV_QPT_RC / IBV_QPT_UD */
	enum ik_cm_state state;
	uint32_t seq; /* starting PSN (24 bits) */
	bool visible; /* commands may name it (child: its request read) */
	bool has_dev; /* bound to port 1 of ionic_<dev> */
	unsigned int dev; /* the NIC (common/nics.h), with has_dev */
	bool route; /* RESOLVE_ROUTE done (or the REQ's path) */
	bool passive; /* made by a request: holds no port */
	struct sockaddr_storage src, dst;
	/* options */
	uint8_t tos, ack_timeout;
	bool reuseaddr, ack_timeout_set;
	/* listener */
	struct ik_cm_id *listener; /* child: who it came to */
	int backlog; /* credits left */
	struct ifab_ep lep; /* the listen endpoint: where REQs arrive */
	/* a listener bound to no address also listens on NICs 1.. */
	struct ifab_ep lep_more[ISIM_MAX_NICS - 1];
	uint32_t events_reported;
	struct ik_cm_conn conn;
	/* the REQ, SIDR REQ, REP or DREQ awaiting its answer: resent at
	 * rtx_due until the answer comes or rtx_left lost sends run out */
	struct ik_cm_msg req;
	uint64_t rtx_due; /* CLOCK_MONOTONIC ns, 0: none */
	unsigned int rtx_left;
	bool rtx_arrived; /* it reached its endpoint at least once */
	/* the peer answered since the last send (an MRA): on a transport
	 * that cannot tell a missing endpoint, the only sign it arrived */
	bool rtx_heard;
};

/* A queued event. */
struct ik_ucma_event {
	struct ik_ucma_event *next;
	struct ik_cm_id *ctx; /* counts events_reported */
	struct ik_cm_id *child; /* CONNECT_REQUEST: the new id */
	struct rdma_ucm_event_resp resp;
};

/* One open of /dev/infiniband/rdma_cm. */
struct ik_ucma_file {
	int rd; /* the application's descriptor (a stream socket) */
	int wr; /* ours: one byte per queued event */
	unsigned long ino; /* inode of rd: MIGRATE_ID finds files by it */
	struct ik_ucma_event *head, *tail;
	struct ik_ucma_file *next;
	/* GET_EVENTs asleep on it: the last of them frees a released file */
	unsigned int sleepers;
	bool released;
};

extern pthread_mutex_t ik_cm_lock;
extern struct ik_ucma_file *ik_ucma_files;
/* The id table: handles are indexes, shared by every file. */
extern struct ik_cm_id **ik_cm_ids;
extern uint32_t ik_cm_nids;

/* ---- ucma_file.c ---------------------------------------------------- */

/* Queue an event for 'ctx' on its file ('param' may be NULL).  Dropped
 * for a child nobody accepted yet, as the kernel drops them. */
void ik_ucma_event(struct ik_cm_id *ctx, uint32_t event, int32_t status,
		   const struct rdma_ucm_event_resp *param);
/* CONNECT_REQUEST of 'child' on its listener's file. */
void ik_ucma_event_req(struct ik_cm_id *listener, struct ik_cm_id *child,
		       const struct rdma_ucm_event_resp *param);
/* Drop the queued events of ctx; for a listener also destroy the
 * children of its unread requests. */
void ik_ucma_drop_events(struct ik_cm_id *ctx);

/* ---- ucma_cmd.c ---------------------------------------------------- */

struct ik_ucma_cmd {
	struct ik_ucma_file *f;
	const void *in; /* the body (after the header), in_len bytes */
	uint32_t in_len, out_len;
};

int ik_ucma_create_id(struct ik_ucma_cmd *c);
int ik_ucma_destroy_id(struct ik_ucma_cmd *c);
int ik_ucma_bind(struct ik_ucma_cmd *c);
int ik_ucma_resolve_addr(struct ik_ucma_cmd *c);
int ik_ucma_resolve_route(struct ik_ucma_cmd *c);
int ik_ucma_query(struct ik_ucma_cmd *c);
int ik_ucma_listen(struct ik_ucma_cmd *c);
int ik_ucma_init_qp_attr(struct ik_ucma_cmd *c);
int ik_ucma_set_option(struct ik_ucma_cmd *c);
int ik_ucma_notify(struct ik_ucma_cmd *c);
int ik_ucma_migrate_id(struct ik_ucma_cmd *c);
/* cmd.c */
int ik_ucma_connect(struct ik_ucma_cmd *c);
int ik_ucma_accept(struct ik_ucma_cmd *c);
int ik_ucma_reject(struct ik_ucma_cmd *c);
int ik_ucma_disconnect(struct ik_ucma_cmd *c);

/* ucma_get_ctx: the id 'handle' of file f: -ENOENT unknown (or not yet
 * visible), -EINVAL another file's.  'dev': it must have a device. */
int ik_ucma_get_ctx(struct ik_ucma_file *f, uint32_t handle, bool dev,
		    struct ik_cm_id **out);
/* Most commands on an id open so: the body copied into 'cmd' (the parser
 * zero-fills c->in past in_len) and the id its 'id' field names looked
 * up (ik_ucma_get_ctx).  Nothing else is touched, so a command that checks
 * its arguments before the id (as the kernel does) may look at 'cmd'
 * first and the result after. */
int ik_ucma_cmd_ctx(const struct ik_ucma_cmd *c, void *cmd, size_t len,
		    size_t id_off, bool dev, struct ik_cm_id **out);
#define IK_UCMA_CMD_CTX(c, cmd, dev, out)         \
	ik_ucma_cmd_ctx((c), &(cmd), sizeof(cmd), \
			offsetof(__typeof__(cmd), id), (dev), (out))
/* A new id on file f (lowest free handle), or NULL. */
struct ik_cm_id *ik_cm_id_new(struct ik_ucma_file *f, uint16_t ps,
			      uint8_t qp_type, uint64_t uid);
/* Tear an id down: the CM action of its state, events, endpoint. */
void ik_cm_id_destroy(struct ik_cm_id *ctx);

/* Addresses (host-order ports). */
uint16_t ik_cm_addr_port(const struct sockaddr_storage *sa);
/* The IPv4 address of an AF_INET (or v4-mapped AF_INET6) address in
 * network order, 0 for a wildcard. */
uint32_t ik_cm_addr_ip4(const struct sockaddr_storage *sa);
void ik_cm_set_in(struct sockaddr_storage *sa, uint32_t ip, uint16_t port);
/* The IPv4-mapped GID of ip (network order): the GID 1 of the NIC with
 * that address; all zero for 0. */
void ik_cm_ip_gid(uint32_t ip, uint8_t gid[16]);
/* iboe_get_mtu of the netdev MTU (enum ibv_mtu), 0 if too small. */
uint8_t ik_cm_path_mtu(void);
/* The NIC whose address is 'ip' (network order), or -1. */
int ik_cm_nic_of_ip(uint32_t ip);
/* The default flow label of an IPv4 path. */
uint32_t ik_cm_flow_label(uint16_t sport, uint16_t dport);

/* ---- proto.c, agent.c ---------------------------------------------- */

/* The CM action of destroying an id in its connection state. */
void ik_cm_conn_destroy(struct ik_cm_id *ctx);
/* Open / close an id's listen endpoint (the agent watches it). */
int ik_cm_listen_open(struct ik_cm_id *ctx);
void ik_cm_listen_close(struct ik_cm_id *ctx);
/* Node-unique-enough values: comm ids. */
uint32_t ik_cm_new_comm_id(void);
/* Open the agent endpoint and start the agent thread, once. */
int ik_cm_agent_start(void);
/* fork() child: no agent thread, no endpoints of its own. */
void ik_cm_agent_atfork_child(void);
/* Is the IPv4 address ip (network order, not the interface's own) a
 * neighbour on NIC nic's link (isim<nic>) - another NIC of the fabric -
 * so that RESOLVE_ADDR finds it?  The IPv4-mapped form of it is then
 * that NIC's GID 1. */
bool ik_cm_neighbour(unsigned int nic, uint32_t ip);

#define IK_CM_UDP_QKEY 0x01234567u
#define IK_CM_MAX_BACKLOG 1024
#define IK_CM_RDEV_MAJOR 10 /* a misc device */
#define IK_CM_RDEV_MINOR 58

#endif /* IK_UCMA_H */
