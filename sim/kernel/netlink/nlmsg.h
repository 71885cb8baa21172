/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim kernel layer: building and parsing netlink messages, shared
 * by RDMA netlink (netlink.c) and the network interface's rtnetlink
 * answers (rtnl.c).  Layouts are <linux/netlink.h>'s: a 16-byte header,
 * attributes of {u16 len, u16 type} padded to 4 bytes, host order.
 */
#ifndef IK_NLMSG_H
#define IK_NLMSG_H

#include <linux/netlink.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../ik.h"

/* Replies are at most this long: libmnl receives into 4096 bytes. */
#define IK_NL_MSG_MAX 4096

/* One reply message under construction. */
struct ik_nlmsg {
	uint8_t buf[IK_NL_MSG_MAX];
	size_t len;
	bool full; /* an attribute did not fit: the message is unusable */
	size_t nest[4]; /* offsets of the open nests */
	unsigned int depth;
};

void ik_nlmsg_start(struct ik_nlmsg *m, uint16_t type, uint16_t flags,
		    uint32_t seq, uint32_t portid);
/* Append the fixed family header (ifinfomsg, ifaddrmsg) after the
 * netlink header; returns where it went, zeroed, or NULL. */
void *ik_nlmsg_hdr(struct ik_nlmsg *m, size_t size);
void ik_nla_put(struct ik_nlmsg *m, uint16_t type, const void *data,
		size_t len);
void ik_nla_u8(struct ik_nlmsg *m, uint16_t type, uint8_t v);
void ik_nla_u32(struct ik_nlmsg *m, uint16_t type, uint32_t v);
void ik_nla_u64(struct ik_nlmsg *m, uint16_t type, uint64_t v);
void ik_nla_str(struct ik_nlmsg *m, uint16_t type, const char *s);
/* Nests carry no NLA_F_NESTED bit, as the kernel's _noflag nests. */
void ik_nla_nest_start(struct ik_nlmsg *m, uint16_t type);
void ik_nla_nest_end(struct ik_nlmsg *m);
/* Room left for attributes (to split long dumps). */
size_t ik_nlmsg_room(const struct ik_nlmsg *m);
/* Fix the length and hand the message to emit. */
int ik_nlmsg_emit(struct ik_nlmsg *m, ik_nl_emit_fn emit, void *ctx);

/* NLMSG_DONE of a dump, with its errno (0, or negative on failure). */
int ik_nl_done(const struct nlmsghdr *req, uint32_t portid, int err,
	       ik_nl_emit_fn emit, void *ctx);
/* NLMSG_ERROR for 'req': err 0 is an ACK.  Errors carry the request
 * unless cap_ack (netlink_ack()). */
int ik_nl_ack(const struct nlmsghdr *req, uint32_t portid, bool cap_ack,
	      int err, ik_nl_emit_fn emit, void *ctx);

/* Attributes of a request, indexed by type (types above max ignored, as
 * the kernel's lenient parser does). */
struct ik_nla_view {
	const void *data;
	uint16_t len;
};
/* Parse the attributes after 'hdrlen' bytes of family header.  0, or
 * -EINVAL if the payload is too short for that header or an attribute
 * runs past the message. */
int ik_nla_parse(const struct nlmsghdr *nlh, size_t hdrlen,
		 struct ik_nla_view *tb, unsigned int max);
/* Typed views: 0, or -EINVAL when the attribute is too short. */
int ik_nla_get_u32(const struct ik_nla_view *a, uint32_t *v);
/* A NUL-terminated string attribute of at most 'max' bytes. */
int ik_nla_get_str(const struct ik_nla_view *a, const char **s, size_t max);

#endif /* IK_NLMSG_H */
