// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: the rdma_ucm commands on ids that involve no
 * peer (ucma.h) - CREATE_ID, DESTROY_ID, BIND, RESOLVE_ADDR,
 * RESOLVE_ROUTE, QUERY, LISTEN, INIT_QP_ATTR, SET_OPTION, NOTIFY,
 * MIGRATE_ID - with the kernel's state rules and errnos on a RoCEv2
 * device (docs/kernel-contract.md §22.1-§22.3).  Called with ik_cm_lock.
 *
 * The node has one IPv4 address, that of isim0 (::ffff:<it> is GID 1);
 * the other NICs of the fabric are its neighbours on isim0's subnet
 * (ik_cm_neighbour), so resolving an address is arithmetic, not ARP.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/sys.h"
#include "../kpriv.h"
#include "ucma.h"

#define AF_IB_FAMILY 27

/* struct sockaddr_ib (AF_IB 27), by its offsets */
struct cm_sockaddr_ib {
	uint16_t family;
	uint16_t pkey; /* BE */
	uint32_t flowinfo; /* BE */
	uint8_t gid[16];
	uint64_t sid; /* BE */
	uint64_t sid_mask; /* BE */
	uint64_t scope_id;
};
static_assert(sizeof(struct cm_sockaddr_ib) == 48, "sockaddr_ib");
static_assert(offsetof(struct cm_sockaddr_ib, sid) == 24, "sib_sid");

/* rdma_addr_size */
static size_t addr_size(const struct sockaddr_storage *sa)
{
	switch (sa->ss_family) {
	case AF_INET:
		return sizeof(struct sockaddr_in);
	case AF_INET6:
		return sizeof(struct sockaddr_in6);
	case AF_IB_FAMILY:
		return sizeof(struct cm_sockaddr_ib);
	}
	return 0;
}

uint16_t ik_cm_addr_port(const struct sockaddr_storage *sa)
{
	switch (sa->ss_family) {
	case AF_INET:
		return ntohs(((const struct sockaddr_in *)sa)->sin_port);
	case AF_INET6:
		return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
	case AF_IB_FAMILY:
		return (uint16_t)be64toh(
			((const struct cm_sockaddr_ib *)sa)->sid);
	}
	return 0;
}

static void set_port(struct sockaddr_storage *sa, uint16_t port)
{
	if (sa->ss_family == AF_INET)
		((struct sockaddr_in *)sa)->sin_port = htons(port);
	else if (sa->ss_family == AF_INET6)
		((struct sockaddr_in6 *)sa)->sin6_port = htons(port);
}

uint32_t ik_cm_addr_ip4(const struct sockaddr_storage *sa)
{
	const struct sockaddr_in6 *s6 = (const void *)sa;

	if (sa->ss_family == AF_INET)
		return ((const struct sockaddr_in *)sa)->sin_addr.s_addr;
	if (sa->ss_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr))
		return s6->sin6_addr.s6_addr32[3];
	return 0;
}

void ik_cm_set_in(struct sockaddr_storage *sa, uint32_t ip, uint16_t port)
{
	struct sockaddr_in *s = (struct sockaddr_in *)sa;

	memset(sa, 0, sizeof(*sa));
	s->sin_family = AF_INET;
	s->sin_addr.s_addr = ip;
	s->sin_port = htons(port);
}

static bool addr_any(const struct sockaddr_storage *sa)
{
	const struct sockaddr_in6 *s6 = (const void *)sa;
	static const uint8_t zero[16];

	switch (sa->ss_family) {
	case AF_INET:
		return !((const struct sockaddr_in *)sa)->sin_addr.s_addr;
	case AF_INET6:
		return IN6_IS_ADDR_UNSPECIFIED(&s6->sin6_addr);
	case AF_IB_FAMILY:
		return !memcmp(((const struct cm_sockaddr_ib *)sa)->gid, zero,
			       16);
	}
	return true;
}

/* NIC k's address (isimK's), network order. */
static uint32_t own_ip(unsigned int k)
{
	uint32_t ip;

	memcpy(&ip, ik_netdev_get(k)->ipv4, 4);
	return ip;
}

int ik_cm_nic_of_ip(uint32_t ip)
{
	const struct ik_netdev *nd;

	for (unsigned int k = 0; ip && (nd = ik_netdev_get(k)); k++)
		if (!memcmp(nd->ipv4, &ip, 4))
			return (int)k;
	return -1;
}

/* The NIC a route to 'ip' leaves by: the one that has the address, else
 * the first whose subnet holds it (the interfaces' order, as the host's
 * routing table lists them); -1 when none does. */
static int route_nic(uint32_t ip)
{
	int k = ik_cm_nic_of_ip(ip);

	for (unsigned int j = 0; k < 0 && ik_netdev_get(j); j++)
		if (ik_cm_neighbour(j, ip))
			k = (int)j;
	return k;
}

void ik_cm_ip_gid(uint32_t ip, uint8_t gid[16])
{
	memset(gid, 0, 16);
	if (!ip)
		return;
	gid[10] = gid[11] = 0xff;
	memcpy(&gid[12], &ip, 4);
}

uint8_t ik_cm_path_mtu(void)
{
	uint32_t m = ik_netdev_get(0)->mtu;

	m = m > 96 ? m - 96 : 0; /* GRH, UDP, BTH, XRC, AtomicETH, ICRC */
	return m >= 4096 ? IBV_MTU_4096 :
	       m >= 2048 ? IBV_MTU_2048 :
	       m >= 1024 ? IBV_MTU_1024 :
	       m >= 512	 ? IBV_MTU_512 :
	       m >= 256	 ? IBV_MTU_256 :
			   0;
}

uint32_t ik_cm_flow_label(uint16_t sport, uint16_t dport)
{
	return ((uint32_t)sport * 31 + dport) & 0xfffff;
}

/* ---- CREATE_ID, DESTROY_ID ------------------------------------------------ */

int ik_ucma_create_id(struct ik_ucma_cmd *c)
{
	struct rdma_ucm_create_id cmd;
	struct rdma_ucm_create_id_resp resp = { 0 };
	struct ik_cm_id *ctx;
	uint8_t qp_type;

	memcpy(&cmd, c->in, sizeof(cmd));
	if (c->out_len < sizeof(resp))
		return -ENOSPC;
	switch (cmd.ps) {
	case RDMA_PS_TCP:
		qp_type = IBV_QPT_RC;
		break;
	case RDMA_PS_UDP:
	case RDMA_PS_IPOIB:
		qp_type = IBV_QPT_UD;
		break;
	case RDMA_PS_IB:
		qp_type = cmd.qp_type;
		break;
	default:
		return -EINVAL;
	}
	ctx = ik_cm_id_new(c->f, cmd.ps, qp_type, cmd.uid);
	if (!ctx)
		return -ENOMEM;
	resp.id = ctx->handle;
	if (ik_copy_to_user(cmd.response, &resp, sizeof(resp))) {
		ik_cm_id_destroy(ctx);
		return -EFAULT;
	}
	return 0;
}

int ik_ucma_destroy_id(struct ik_ucma_cmd *c)
{
	struct rdma_ucm_destroy_id cmd;
	struct rdma_ucm_destroy_id_resp resp = { 0 };
	struct ik_cm_id *ctx;
	int rc;

	memcpy(&cmd, c->in, sizeof(cmd));
	if (c->out_len < sizeof(resp))
		return -ENOSPC;
	rc = ik_ucma_get_ctx(c->f, cmd.id, false, &ctx);
	if (rc)
		return rc;
	resp.events_reported = ctx->events_reported;
	ik_cm_id_destroy(ctx);
	return ik_copy_to_user(cmd.response, &resp, sizeof(resp));
}

/* ---- addresses ------------------------------------------------------------- */

/* Is (ps, port) free for ctx binding 'sa' (cma_check_port)? */
static int port_check(struct ik_cm_id *ctx, const struct sockaddr_storage *sa,
		      uint16_t port)
{
	for (uint32_t h = 0; h < ik_cm_nids; h++) {
		struct ik_cm_id *o = ik_cm_ids[h];

		if (!o || o == ctx || o->ps != ctx->ps || o->passive ||
		    o->state == IK_CM_IDLE || ik_cm_addr_port(&o->src) != port)
			continue;
		if (ctx->reuseaddr && o->reuseaddr && o->state != IK_CM_LISTEN)
			continue;
		if (addr_any(sa) || addr_any(&o->src))
			return -EADDRNOTAVAIL;
		return -EADDRINUSE;
	}
	return 0;
}

static int bind_port(struct ik_cm_id *ctx, struct sockaddr_storage *sa)
{
	uint16_t port = ik_cm_addr_port(sa);

	if (sa->ss_family == AF_IB_FAMILY)
		return 0; /* the service id is the port */
	if (port) {
		if (port < 1024 && geteuid() != 0)
			return -EACCES;
		return port_check(ctx, sa, port);
	}
	/* net.ipv4.ip_local_port_range, from a random start */
	for (unsigned int i = 0, n = 60999 - 32768 + 1; i < n; i++) {
		port = (uint16_t)(32768 + ((unsigned int)random() + i) % n);
		if (!port_check(ctx, sa, port)) {
			set_port(sa, port);
			return 0;
		}
	}
	return -EADDRNOTAVAIL;
}

/* rdma_bind_addr on an IDLE id: the device by the address, the port. */
static int bind_addr(struct ik_cm_id *ctx, const struct sockaddr_storage *in)
{
	struct sockaddr_storage sa = *in;
	bool dev = false;
	int nic = 0, rc;

	switch (sa.ss_family) {
	case AF_INET:
	case AF_INET6: {
		uint32_t ip = ik_cm_addr_ip4(&sa);
		const uint8_t *b = (const uint8_t *)&ip;

		if (addr_any(&sa))
			break;
		nic = ik_cm_nic_of_ip(ip);
		if (nic >= 0) {
			dev = true;
			break;
		}
		/* 127/8 and ::1 are lo's: no RoCE GID */
		if ((ip && b[0] == 127) ||
		    (sa.ss_family == AF_INET6 &&
		     IN6_IS_ADDR_LOOPBACK(
			     &((struct sockaddr_in6 *)&sa)->sin6_addr)))
			return -ENODEV;
		return -EADDRNOTAVAIL;
	}
	case AF_IB_FAMILY: {
		uint8_t gid[16];

		if (addr_any(&sa))
			break;
		for (nic = 0; ik_netdev_get((unsigned int)nic); nic++) {
			ik_cm_ip_gid(own_ip((unsigned int)nic), gid);
			if (!memcmp(((struct cm_sockaddr_ib *)&sa)->gid, gid,
				    16))
				break;
		}
		if (!ik_netdev_get((unsigned int)nic))
			return -EADDRNOTAVAIL;
		dev = true;
		break;
	}
	default:
		return -EAFNOSUPPORT;
	}
	rc = bind_port(ctx, &sa);
	if (rc)
		return rc;
	ctx->src = sa;
	ctx->has_dev = dev;
	ctx->dev = dev ? (unsigned int)nic : 0;
	memset(&ctx->dst, 0, sizeof(ctx->dst));
	ctx->dst.ss_family = sa.ss_family;
	ctx->state = IK_CM_ADDR_BOUND;
	return 0;
}

int ik_ucma_bind(struct ik_ucma_cmd *c)
{
	struct rdma_ucm_bind cmd;
	struct ik_cm_id *ctx;
	int rc;

	memcpy(&cmd, c->in, sizeof(cmd));
	if (cmd.reserved || !cmd.addr_size ||
	    cmd.addr_size != addr_size((struct sockaddr_storage *)&cmd.addr))
		return -EINVAL;
	rc = ik_ucma_get_ctx(c->f, cmd.id, false, &ctx);
	if (rc)
		return rc;
	if (ctx->state != IK_CM_IDLE)
		return -EINVAL;
	return bind_addr(ctx, (struct sockaddr_storage *)&cmd.addr);
}

int ik_ucma_resolve_addr(struct ik_ucma_cmd *c)
{
	struct rdma_ucm_resolve_addr cmd;
	struct sockaddr_storage *src, *dst;
	struct ik_cm_id *ctx;
	uint32_t ip;
	int nic, rc, err = 0;

	memcpy(&cmd, c->in, sizeof(cmd));
	src = (struct sockaddr_storage *)&cmd.src_addr;
	dst = (struct sockaddr_storage *)&cmd.dst_addr;
	if (cmd.reserved || (cmd.src_size && cmd.src_size != addr_size(src)) ||
	    !cmd.dst_size || cmd.dst_size != addr_size(dst))
		return -EINVAL;
	rc = ik_ucma_get_ctx(c->f, cmd.id, false, &ctx);
	if (rc)
		return rc;
	if (ctx->state == IK_CM_IDLE) {
		struct sockaddr_storage any = { .ss_family = dst->ss_family };

		rc = bind_addr(ctx, cmd.src_size ? src : &any);
		if (rc)
			return rc;
	}
	if (ctx->src.ss_family != dst->ss_family ||
	    ctx->state != IK_CM_ADDR_BOUND)
		return -EINVAL;
	if (dst->ss_family == AF_IB_FAMILY)
		return -EINVAL; /* AF_IB destinations need an SA */
	ip = ik_cm_addr_ip4(dst);
	if (!addr_any(dst) && !ip)
		return -ENETUNREACH; /* no IPv6 route on isim0 */
	ctx->dst = *dst;
	/* a bound id leaves by its NIC, else by the route's */
	nic = ctx->has_dev ? (int)ctx->dev : ip ? route_nic(ip) : 0;
	if (ip && ((const uint8_t *)&ip)[0] == 127) {
		err = -ENODEV; /* through lo: no RoCE device */
	} else if (ip &&
		   (nic < 0 || (ik_cm_nic_of_ip(ip) < 0 &&
				!ik_cm_neighbour((unsigned int)nic, ip)))) {
		err = -ETIMEDOUT; /* nobody answers ARP */
	}
	if (err) {
		ik_ucma_event(ctx, RDMA_CM_EVENT_ADDR_ERROR, err, NULL);
		return 0;
	}
	/* the route's source: isim0's address, the bound port */
	if (addr_any(&ctx->src)) {
		uint16_t port = ik_cm_addr_port(&ctx->src);

		if (ctx->src.ss_family == AF_INET) {
			ik_cm_set_in(&ctx->src, own_ip((unsigned int)nic),
				     port);
		} else {
			struct sockaddr_in6 *s6 = (void *)&ctx->src;

			s6->sin6_addr.s6_addr32[2] = htonl(0xffff);
			s6->sin6_addr.s6_addr32[3] = own_ip((unsigned int)nic);
		}
	}
	if (addr_any(dst)) {
		/* cma_bind_loopback: the destination is ourselves */
		if (dst->ss_family == AF_INET)
			ik_cm_set_in(&ctx->dst, own_ip((unsigned int)nic),
				     ik_cm_addr_port(dst));
	}
	ctx->has_dev = true;
	ctx->dev = (unsigned int)nic;
	ctx->state = IK_CM_ADDR_RESOLVED;
	ik_ucma_event(ctx, RDMA_CM_EVENT_ADDR_RESOLVED, 0, NULL);
	return 0;
}

int ik_ucma_resolve_route(struct ik_ucma_cmd *c)
{
	struct rdma_ucm_resolve_route cmd;
	struct ik_cm_id *ctx;
	int rc;

	rc = IK_UCMA_CMD_CTX(c, cmd, true, &ctx);
	if (rc)
		return rc;
	if (ctx->state != IK_CM_ADDR_RESOLVED)
		return -EINVAL;
	if (!ik_cm_path_mtu())
		return -EINVAL;
	ctx->conn.mtu = ik_cm_path_mtu();
	ctx->conn.hop_limit = 64;
	ctx->conn.tclass = ctx->tos;
	ctx->conn.flow_label = ik_cm_flow_label(ik_cm_addr_port(&ctx->src),
						ik_cm_addr_port(&ctx->dst));
	ctx->route = true;
	ctx->state = IK_CM_ROUTE_RESOLVED;
	ik_ucma_event(ctx, RDMA_CM_EVENT_ROUTE_RESOLVED, 0, NULL);
	return 0;
}

/* ---- QUERY ------------------------------------------------------------------ */

static void query_addr(struct ik_cm_id *ctx, struct rdma_ucm_query_addr_resp *r)
{
	memset(r, 0, sizeof(*r));
	if (ctx->has_dev) {
		uint8_t gid[16];

		/* the node GUID: the EUI-64 of GID 0, big-endian bytes */
		isim_node_gid(ik_host_get()->node[ctx->dev], 0, gid);
		memcpy(&r->node_guid, &gid[8], 8);
		r->port_num = 1;
		r->ibdev_index = ctx->dev;
	} else {
		r->ibdev_index = UINT32_MAX;
	}
	r->src_size = (uint16_t)addr_size(&ctx->src);
	r->dst_size = (uint16_t)addr_size(&ctx->dst);
	memcpy(&r->src_addr, &ctx->src, sizeof(r->src_addr));
	memcpy(&r->dst_addr, &ctx->dst, sizeof(r->dst_addr));
}

static void gid_addr(struct ik_cm_id *ctx, const struct sockaddr_storage *sa,
		     struct cm_sockaddr_ib *ib)
{
	memset(ib, 0, sizeof(*ib));
	ib->family = AF_IB_FAMILY;
	if (sa->ss_family == AF_IB_FAMILY) {
		memcpy(ib, sa, sizeof(*ib));
		return;
	}
	if (ctx->has_dev)
		ik_cm_ip_gid(ik_cm_addr_ip4(sa), ib->gid);
	ib->sid = htobe64(((uint64_t)ctx->ps << 16) | ik_cm_addr_port(sa));
	ib->sid_mask = htobe64(UINT64_MAX);
}

/* One ibv_path_record (IBTA PathRecord, big-endian) of the id's path. */
static void path_record(struct ik_cm_id *ctx, uint8_t rec[64])
{
	uint32_t fl_hop =
		htobe32(ctx->conn.flow_label << 8 | ctx->conn.hop_limit);
	uint16_t pkey = htobe16(0xffff);
	uint64_t sid =
		htobe64(((uint64_t)ctx->ps << 16) | ik_cm_addr_port(&ctx->dst));

	memset(rec, 0, 64);
	memcpy(rec, &sid, 8);
	ik_cm_ip_gid(ik_cm_addr_ip4(&ctx->dst), rec + 8);
	ik_cm_ip_gid(ik_cm_addr_ip4(&ctx->src), rec + 24);
	memcpy(rec + 44, &fl_hop, 4);
	rec[48] = ctx->conn.tclass;
	rec[49] = 0x80; /* reversible */
	memcpy(rec + 50, &pkey, 2);
	rec[54] = (uint8_t)(2 << 6 | ctx->conn.mtu);
	rec[55] = 2 << 6; /* rate: the netdev reports no speed */
	rec[56] = (uint8_t)(2 << 6 | (ctx->ack_timeout_set && ctx->ack_timeout ?
					      ctx->ack_timeout - 1 :
					      16));
}

int ik_ucma_query(struct ik_ucma_cmd *c)
{
	struct rdma_ucm_query cmd;
	struct ik_cm_id *ctx;
	int rc;

	rc = IK_UCMA_CMD_CTX(c, cmd, false, &ctx);
	if (rc)
		return rc;
	switch (cmd.option) {
	case RDMA_USER_CM_QUERY_ADDR: {
		struct rdma_ucm_query_addr_resp r;

		if (c->out_len < sizeof(r))
			return -ENOSPC;
		query_addr(ctx, &r);
		return ik_copy_to_user(cmd.response, &r, sizeof(r));
	}
	case RDMA_USER_CM_QUERY_GID: {
		struct rdma_ucm_query_addr_resp r;

		if (c->out_len < sizeof(r))
			return -ENOSPC;
		query_addr(ctx, &r);
		r.src_size = r.dst_size = sizeof(struct cm_sockaddr_ib);
		gid_addr(ctx, &ctx->src, (void *)&r.src_addr);
		gid_addr(ctx, &ctx->dst, (void *)&r.dst_addr);
		return ik_copy_to_user(cmd.response, &r, sizeof(r));
	}
	case RDMA_USER_CM_QUERY_PATH: {
		/* the header and its one path_data[] entry, as bytes: a
		 * struct ending in a flexible array cannot be a member
		 * (clang's -Wgnu-variable-sized-type-not-at-end) */
		enum {
			at = offsetof(struct rdma_ucm_query_path_resp,
				      path_data),
		};
		struct rdma_ucm_query_path_resp hdr = { 0 };
		struct ib_path_rec_data path = { 0 };
		uint8_t r[at + sizeof(path)];
		size_t n = sizeof(hdr);

		if (c->out_len < sizeof(hdr))
			return -ENOSPC;
		memset(r, 0, sizeof(r));
		if (ctx->route && c->out_len >= sizeof(r)) {
			hdr.num_paths = 1;
			path.flags = IB_PATH_GMP | IB_PATH_PRIMARY |
				     IB_PATH_BIDIRECTIONAL;
			path_record(ctx, (uint8_t *)path.path_rec);
			memcpy(r + at, &path, sizeof(path));
			n = sizeof(r);
		}
		memcpy(r, &hdr, sizeof(hdr));
		return ik_copy_to_user(cmd.response, r, n);
	}
	}
	return -ENOSYS;
}

/* ---- LISTEN ---------------------------------------------------------------- */

int ik_ucma_listen(struct ik_ucma_cmd *c)
{
	struct rdma_ucm_listen cmd;
	struct ik_cm_id *ctx;
	int rc, backlog;

	rc = IK_UCMA_CMD_CTX(c, cmd, false, &ctx);
	if (rc)
		return rc;
	backlog = cmd.backlog <= 0 || cmd.backlog > IK_CM_MAX_BACKLOG ?
			  IK_CM_MAX_BACKLOG :
			  (int)cmd.backlog;
	if (ctx->state == IK_CM_IDLE) {
		struct sockaddr_storage any = { .ss_family = AF_INET };

		rc = bind_addr(ctx, &any);
		if (rc)
			return rc;
	}
	if (ctx->state != IK_CM_ADDR_BOUND)
		return -EINVAL;
	if (ctx->reuseaddr) {
		ctx->reuseaddr = false; /* listeners never share */
		rc = port_check(ctx, &ctx->src, ik_cm_addr_port(&ctx->src));
		ctx->reuseaddr = true;
		if (rc)
			return rc;
	}
	rc = ik_cm_listen_open(ctx);
	if (rc)
		return rc;
	ctx->backlog = backlog;
	ctx->state = IK_CM_LISTEN;
	return 0;
}

/* ---- INIT_QP_ATTR ------------------------------------------------------------ */

static void ah_attr(struct ik_cm_id *ctx, struct ib_uverbs_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ik_cm_ip_gid(ik_cm_addr_ip4(&ctx->dst), ah->grh.dgid);
	ah->grh.flow_label = ctx->conn.flow_label;
	ah->grh.sgid_index = 1; /* ::ffff:<isim0>, RoCEv2 */
	ah->grh.hop_limit = ctx->conn.hop_limit ? ctx->conn.hop_limit : 64;
	ah->grh.traffic_class = ctx->conn.tclass;
	ah->is_global = 1;
	ah->port_num = 1;
}

/* cm_ack_timeout(ca_ack_delay 0, packet life time 16) = 17 */
#define CM_RTS_TIMEOUT 17

int ik_ucma_init_qp_attr(struct ik_ucma_cmd *c)
{
	struct rdma_ucm_init_qp_attr cmd;
	struct ib_uverbs_qp_attr r;
	struct ik_cm_id *ctx;
	struct ik_cm_conn *cn;
	int rc;

	memcpy(&cmd, c->in, sizeof(cmd));
	if (c->out_len < sizeof(r))
		return -ENOSPC;
	if (cmd.qp_state > IBV_QPS_ERR)
		return -EINVAL;
	rc = ik_ucma_get_ctx(c->f, cmd.id, true, &ctx);
	if (rc)
		return rc;
	cn = &ctx->conn;
	memset(&r, 0, sizeof(r));
	r.qp_state = cmd.qp_state;
	r.port_num = 1;
	if (ctx->qp_type == IBV_QPT_UD) {
		r.qp_attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				 IBV_QP_PORT | IBV_QP_QKEY;
		r.qkey = IK_CM_UDP_QKEY;
	} else if (cn->st == IK_CONN_NONE || cmd.qp_state == IBV_QPS_INIT) {
		r.qp_attr_mask = IBV_QP_STATE | IBV_QP_ACCESS_FLAGS |
				 IBV_QP_PKEY_INDEX | IBV_QP_PORT;
		if (cn->st != IK_CONN_NONE)
			r.qp_access_flags =
				IBV_ACCESS_REMOTE_WRITE |
				(cn->responder_resources ?
					 IBV_ACCESS_REMOTE_READ |
						 IBV_ACCESS_REMOTE_ATOMIC :
					 0);
		r.rq_psn = ctx->seq;
	} else if (cmd.qp_state == IBV_QPS_RTR && cn->st != IK_CONN_REQ_SENT &&
		   cn->st != IK_CONN_TIMEWAIT) {
		r.qp_attr_mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				 IBV_QP_RQ_PSN | IBV_QP_MIN_RNR_TIMER |
				 IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_DEST_QPN;
		ah_attr(ctx, &r.ah_attr);
		r.path_mtu = cn->mtu;
		r.rq_psn = ctx->seq;
		r.dest_qp_num = cn->remote_qpn;
		r.max_dest_rd_atomic = cn->responder_resources;
	} else if (cmd.qp_state == IBV_QPS_RTS &&
		   (cn->st == IK_CONN_REP_SENT || cn->st == IK_CONN_REP_RCVD ||
		    cn->st == IK_CONN_ESTABLISHED ||
		    cn->st == IK_CONN_REQ_RCVD)) {
		r.qp_attr_mask = IBV_QP_STATE | IBV_QP_TIMEOUT |
				 IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				 IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_SQ_PSN;
		r.sq_psn = cn->remote_psn;
		r.timeout = ctx->ack_timeout_set ? ctx->ack_timeout :
						   CM_RTS_TIMEOUT;
		r.retry_cnt = cn->retry_count;
		r.rnr_retry = cn->rnr_retry_count;
		r.max_rd_atomic = cn->initiator_depth;
	} else {
		return -EINVAL;
	}
	return ik_copy_to_user(cmd.response, &r, sizeof(r));
}

/* ---- SET_OPTION, NOTIFY, MIGRATE_ID ------------------------------------------- */

int ik_ucma_set_option(struct ik_ucma_cmd *c)
{
	struct rdma_ucm_set_option cmd;
	struct ik_cm_id *ctx;
	uint8_t val[8] = { 0 };
	int rc, v;

	rc = IK_UCMA_CMD_CTX(c, cmd, false, &ctx);
	if (rc)
		return rc;
	if (cmd.level != RDMA_OPTION_ID)
		return -ENOSYS; /* IB PATH comes from ibacm, which is absent */
	if (cmd.optname > RDMA_OPTION_ID_ACK_TIMEOUT)
		return -ENOSYS;
	if (cmd.optlen !=
	    (cmd.optname == RDMA_OPTION_ID_TOS ||
			     cmd.optname == RDMA_OPTION_ID_ACK_TIMEOUT ?
		     1u :
		     4u))
		return -EINVAL;
	if (ik_copy_from_user(val, cmd.optval, cmd.optlen))
		return -EFAULT;
	memcpy(&v, val, sizeof(v));
	switch (cmd.optname) {
	case RDMA_OPTION_ID_TOS:
		ctx->tos = val[0];
		return 0;
	case RDMA_OPTION_ID_REUSEADDR:
		if ((v && ctx->state == IK_CM_LISTEN) ||
		    (!v && ctx->state != IK_CM_IDLE))
			return -EINVAL;
		ctx->reuseaddr = v != 0;
		return 0;
	case RDMA_OPTION_ID_AFONLY:
		if (ctx->state != IK_CM_IDLE && ctx->state != IK_CM_ADDR_BOUND)
			return -EINVAL;
		return 0;
	default: /* ACK_TIMEOUT */
		if (ctx->qp_type != IBV_QPT_RC)
			return -EINVAL;
		ctx->ack_timeout = val[0] > 31 ? 31 : val[0];
		ctx->ack_timeout_set = true;
		return 0;
	}
}

int ik_ucma_notify(struct ik_ucma_cmd *c)
{
	struct rdma_ucm_notify cmd;
	struct ik_cm_id *ctx;
	int rc;

	rc = IK_UCMA_CMD_CTX(c, cmd, true, &ctx);
	if (rc)
		return rc;
	/* COMM_EST on the passive side stands in for a lost RTU */
	if (cmd.event == IBV_EVENT_COMM_EST &&
	    ctx->conn.st == IK_CONN_REP_SENT) {
		ctx->conn.st = IK_CONN_ESTABLISHED;
		ik_ucma_event(ctx, RDMA_CM_EVENT_ESTABLISHED, 0, NULL);
	}
	return 0;
}

int ik_ucma_migrate_id(struct ik_ucma_cmd *c)
{
	struct rdma_ucm_migrate_id cmd;
	struct rdma_ucm_migrate_resp resp = { 0 };
	struct ik_ucma_file *old = NULL;
	struct ik_cm_id *ctx;
	struct stat st;
	int rc;

	memcpy(&cmd, c->in, sizeof(cmd));
	if (isim_sys_fstat((int)cmd.fd, &st) < 0)
		return -ENOENT;
	for (struct ik_ucma_file *f = ik_ucma_files; f; f = f->next)
		if (f->rd == (int)cmd.fd && f->ino == (unsigned long)st.st_ino)
			old = f;
	if (!old)
		return -EINVAL;
	rc = ik_ucma_get_ctx(old, cmd.id, false, &ctx);
	if (rc)
		return rc;
	if (old != c->f) {
		/* its queued events follow it, tokens and all */
		struct ik_ucma_event **p = &old->head, *moved = NULL, **mt;
		char token = 0;

		mt = &moved;
		while (*p) {
			struct ik_ucma_event *e = *p;

			if (e->ctx != ctx) {
				p = &e->next;
				continue;
			}
			*p = e->next;
			e->next = NULL;
			*mt = e;
			mt = &e->next;
			(void)!isim_sys_recv(old->rd, &token, 1, MSG_DONTWAIT);
		}
		old->tail = NULL;
		for (struct ik_ucma_event *t = old->head; t; t = t->next)
			old->tail = t;
		ctx->file = c->f;
		while (moved) {
			struct ik_ucma_event *e = moved;

			moved = e->next;
			e->next = NULL;
			if (c->f->tail)
				c->f->tail->next = e;
			else
				c->f->head = e;
			c->f->tail = e;
			(void)!isim_sys_send(c->f->wr, &token, 1,
					     MSG_DONTWAIT | MSG_NOSIGNAL);
		}
	}
	resp.events_reported = ctx->events_reported;
	return ik_copy_to_user(cmd.response, &resp, sizeof(resp));
}
