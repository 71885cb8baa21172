// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: netlink message construction and attribute
 * parsing (nlmsg.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nlmsg.h"

#define NL_ALIGN(n) (((n) + 3u) & ~(size_t)3u)

void ik_nlmsg_start(struct ik_nlmsg *m, uint16_t type, uint16_t flags,
		    uint32_t seq, uint32_t portid)
{
	struct nlmsghdr h = {
		.nlmsg_len = sizeof(h),
		.nlmsg_type = type,
		.nlmsg_flags = flags,
		.nlmsg_seq = seq,
		.nlmsg_pid = portid,
	};

	memcpy(m->buf, &h, sizeof(h));
	m->len = sizeof(h);
	m->full = false;
	m->depth = 0;
}

static void *room_for(struct ik_nlmsg *m, size_t n)
{
	void *p;

	if (m->full || NL_ALIGN(n) > sizeof(m->buf) - m->len) {
		m->full = true;
		return NULL;
	}
	p = m->buf + m->len;
	memset(p, 0, NL_ALIGN(n));
	m->len += NL_ALIGN(n);
	return p;
}

void *ik_nlmsg_hdr(struct ik_nlmsg *m, size_t size)
{
	return room_for(m, size);
}

void ik_nla_put(struct ik_nlmsg *m, uint16_t type, const void *data, size_t len)
{
	struct nlattr a = { .nla_len = (uint16_t)(NLA_HDRLEN + len),
			    .nla_type = type };
	uint8_t *p;

	if (len > 0xffff - NLA_HDRLEN) {
		m->full = true;
		return;
	}
	p = room_for(m, NLA_HDRLEN + len);
	if (!p)
		return;
	memcpy(p, &a, sizeof(a));
	if (len)
		memcpy(p + NLA_HDRLEN, data, len);
}

void ik_nla_u8(struct ik_nlmsg *m, uint16_t type, uint8_t v)
{
	ik_nla_put(m, type, &v, sizeof(v));
}

void ik_nla_u32(struct ik_nlmsg *m, uint16_t type, uint32_t v)
{
	ik_nla_put(m, type, &v, sizeof(v));
}

/* nla_put_u64_64bit: x86-64 needs no PAD attribute in front */
void ik_nla_u64(struct ik_nlmsg *m, uint16_t type, uint64_t v)
{
	ik_nla_put(m, type, &v, sizeof(v));
}

void ik_nla_str(struct ik_nlmsg *m, uint16_t type, const char *s)
{
	ik_nla_put(m, type, s, strlen(s) + 1);
}

void ik_nla_nest_start(struct ik_nlmsg *m, uint16_t type)
{
	size_t at = m->len;

	if (m->depth >= sizeof(m->nest) / sizeof(m->nest[0])) {
		m->full = true;
		return;
	}
	ik_nla_put(m, type, NULL, 0);
	m->nest[m->depth++] = at;
}

void ik_nla_nest_end(struct ik_nlmsg *m)
{
	struct nlattr a;
	size_t at;

	if (!m->depth)
		return;
	at = m->nest[--m->depth];
	if (m->full)
		return;
	memcpy(&a, m->buf + at, sizeof(a));
	a.nla_len = (uint16_t)(m->len - at);
	memcpy(m->buf + at, &a, sizeof(a));
}

size_t ik_nlmsg_room(const struct ik_nlmsg *m)
{
	return m->full ? 0 : sizeof(m->buf) - m->len;
}

int ik_nlmsg_emit(struct ik_nlmsg *m, ik_nl_emit_fn emit, void *ctx)
{
	uint32_t len = (uint32_t)m->len;

	if (m->full)
		return -EMSGSIZE;
	memcpy(m->buf, &len, sizeof(len)); /* nlmsg_len */
	return emit(ctx, m->buf, m->len);
}

int ik_nl_done(const struct nlmsghdr *req, uint32_t portid, int err,
	       ik_nl_emit_fn emit, void *ctx)
{
	struct {
		struct nlmsghdr h;
		int32_t err;
	} d = {
		.h = { .nlmsg_len = sizeof(d),
		       .nlmsg_type = NLMSG_DONE,
		       .nlmsg_flags = NLM_F_MULTI,
		       .nlmsg_seq = req->nlmsg_seq,
		       .nlmsg_pid = portid },
		.err = err,
	};

	return emit(ctx, &d, sizeof(d));
}

int ik_nl_ack(const struct nlmsghdr *req, uint32_t portid, bool cap_ack,
	      int err, ik_nl_emit_fn emit, void *ctx)
{
	struct ik_nlmsg *m;
	size_t copy = sizeof(*req);
	int32_t e = err;
	uint8_t *p;
	int rc;

	m = malloc(sizeof(*m));
	if (!m)
		return -ENOMEM;
	/* the request's payload follows the header copy only for errors on
	 * sockets that did not ask for NETLINK_CAP_ACK (netlink_ack) */
	if (err && !cap_ack && req->nlmsg_len >= sizeof(*req))
		copy = req->nlmsg_len;
	if (copy > IK_NL_MSG_MAX - NLMSG_HDRLEN - sizeof(e))
		copy = sizeof(*req);
	ik_nlmsg_start(m, NLMSG_ERROR, copy == sizeof(*req) ? NLM_F_CAPPED : 0,
		       req->nlmsg_seq, portid);
	p = room_for(m, sizeof(e) + copy);
	if (p) {
		memcpy(p, &e, sizeof(e));
		memcpy(p + sizeof(e), req, copy);
	}
	rc = ik_nlmsg_emit(m, emit, ctx);
	free(m);
	return rc;
}

int ik_nla_parse(const struct nlmsghdr *nlh, size_t hdrlen,
		 struct ik_nla_view *tb, unsigned int max)
{
	const uint8_t *p = (const uint8_t *)nlh + NLMSG_HDRLEN;
	size_t left;

	memset(tb, 0, (max + 1) * sizeof(*tb));
	if (nlh->nlmsg_len < NLMSG_HDRLEN + hdrlen)
		return -EINVAL;
	p += NL_ALIGN(hdrlen);
	left = nlh->nlmsg_len > NLMSG_HDRLEN + NL_ALIGN(hdrlen) ?
		       nlh->nlmsg_len - NLMSG_HDRLEN - NL_ALIGN(hdrlen) :
		       0;
	while (left >= NLA_HDRLEN) {
		struct nlattr a;
		uint16_t type;

		memcpy(&a, p, sizeof(a));
		if (a.nla_len < NLA_HDRLEN || a.nla_len > left)
			return -EINVAL;
		type = a.nla_type & NLA_TYPE_MASK;
		if (type && type <= max) {
			tb[type].data = p + NLA_HDRLEN;
			tb[type].len = (uint16_t)(a.nla_len - NLA_HDRLEN);
		}
		if (NL_ALIGN(a.nla_len) >= left)
			break;
		left -= NL_ALIGN(a.nla_len);
		p += NL_ALIGN(a.nla_len);
	}
	return 0;
}

int ik_nla_get_u32(const struct ik_nla_view *a, uint32_t *v)
{
	if (a->len < sizeof(*v))
		return -EINVAL;
	memcpy(v, a->data, sizeof(*v));
	return 0;
}

int ik_nla_get_str(const struct ik_nla_view *a, const char **s, size_t max)
{
	if (!a->len || a->len > max || ((const char *)a->data)[a->len - 1])
		return -EINVAL;
	*s = a->data;
	return 0;
}

int ik_nl_error(const struct ik_nl_sock *s, const void *req, int err,
		ik_nl_emit_fn emit, void *ctx)
{
	return ik_nl_ack(req, s->portid, s->cap_ack, err, emit, ctx);
}
