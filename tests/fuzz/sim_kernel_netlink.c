// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Fuzz target: the emulated kernel's RDMA netlink parser against a hostile
 * application (docs/testing.md §5, docs/kernel-contract.md §19).
 *
 * The input: one fixture byte pair, then up to FZ_MAX_SENDS datagrams.
 * The fixture says how many restrack records of each kind (PD, CQ, QP,
 * MR, ctx: 0, 1, 3 or 100, two bits each) the node holds while the input
 * runs, so resource dumps have something to list and split.  A datagram
 * is what the application hands sendmsg()/sendto() on its NETLINK_RDMA
 * socket: a control byte (bit 0: the socket set NETLINK_CAP_ACK; bit 1:
 * the first message's nlmsg_len is made the datagram's length), a port
 * id, a length (up to FZ_MAX_LEN) and that many bytes, copied into a heap
 * block of exactly that size and fed to ik_nl_rdma_input(), as the
 * platform's sendmsg does.
 *
 * The oracle, for every datagram:
 *  - every reply is one well framed message: nlmsg_len is its length, at
 *    most IK_NL_MSG_MAX, it carries the request's seq and the socket's
 *    port id, and its attributes (nests included) lie inside it;
 *  - each message of the datagram (split as the netlink core does) is
 *    answered as the core answers: a dump by NLM_F_MULTI data and one
 *    NLMSG_DONE whose errno is 0 or negative, or by one NLMSG_ERROR; a
 *    request by at most one data message and an NLMSG_ERROR carrying a
 *    negative errno or, if it asked for one, the ACK, with the request
 *    echoed (its payload too for an error without NETLINK_CAP_ACK);
 *  - a resource dump lists exactly the fixture's records of its kind;
 *  - the datagram's replies are those of its messages sent one by one:
 *    nothing of one message reaches the next.
 * After the input the fixture is gone: the node tracks nothing, and the
 * replies to a fixed probe are those of the first run.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <stdint.h>

#include "fuzz.h"
#include "kernel/ik.h"
#include "kernel/netlink/nlmsg.h"
#include "kernel/restrack.h"

#define FZ_MAX_SENDS 8
#define FZ_MAX_LEN 5000
#define FZ_NTYPES (IK_RES_NTYPES - 1)

/* Replies of one run, back to back. */
struct fz_replies {
	uint8_t *buf;
	size_t len, cap;
	unsigned int n;
	uint32_t portid;
};

static int fz_collect(void *ctx, const void *msg, size_t len)
{
	struct fz_replies *q = ctx;
	struct nlmsghdr h;

	FUZZ_CHECK(len >= NLMSG_HDRLEN && len <= IK_NL_MSG_MAX,
		   "a reply of %zu bytes", len);
	memcpy(&h, msg, sizeof(h));
	FUZZ_CHECK(h.nlmsg_len == len, "nlmsg_len %u of a %zu-byte reply",
		   h.nlmsg_len, len);
	FUZZ_CHECK(h.nlmsg_pid == q->portid, "reply to port %u, not %u",
		   h.nlmsg_pid, q->portid);
	if (q->len + len > q->cap) {
		size_t cap = (q->cap ? q->cap * 2 : 65536) + len;
		uint8_t *p = realloc(q->buf, cap);

		FUZZ_CHECK(p, "realloc %zu", cap);
		q->buf = p;
		q->cap = cap;
	}
	memcpy(q->buf + q->len, msg, len);
	q->len += len;
	q->n++;
	return 0;
}

static bool same_replies(const struct fz_replies *a, const struct fz_replies *b)
{
	return a->n == b->n && a->len == b->len &&
	       (!a->len || !memcmp(a->buf, b->buf, a->len));
}

static void fz_send(const struct ik_nl_sock *s, const void *buf, size_t len,
		    struct fz_replies *q)
{
	q->len = 0;
	q->n = 0;
	q->portid = s->portid;
	ik_nl_rdma_input(s, buf, len, fz_collect, q);
}

/* ---- what a reply may hold ---------------------------------------------- */

static bool is_nest(uint16_t type)
{
	switch (type) {
	case RDMA_NLDEV_ATTR_RES_SUMMARY:
	case RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY:
	case RDMA_NLDEV_ATTR_RES_QP:
	case RDMA_NLDEV_ATTR_RES_QP_ENTRY:
	case RDMA_NLDEV_ATTR_RES_CM_ID:
	case RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY:
	case RDMA_NLDEV_ATTR_RES_CQ:
	case RDMA_NLDEV_ATTR_RES_CQ_ENTRY:
	case RDMA_NLDEV_ATTR_RES_MR:
	case RDMA_NLDEV_ATTR_RES_MR_ENTRY:
	case RDMA_NLDEV_ATTR_RES_PD:
	case RDMA_NLDEV_ATTR_RES_PD_ENTRY:
	case RDMA_NLDEV_ATTR_RES_CTX:
	case RDMA_NLDEV_ATTR_RES_CTX_ENTRY:
	case RDMA_NLDEV_ATTR_RES_SRQ:
	case RDMA_NLDEV_ATTR_RES_SRQ_ENTRY:
		return true;
	}
	return false;
}

/* Walk attributes (an independent parser: every one inside its parent);
 * returns how many of type 'count' lie anywhere inside. */
static unsigned int walk_attrs(const uint8_t *p, size_t left, uint16_t count)
{
	unsigned int n = 0;

	while (left) {
		struct nlattr a;
		uint16_t type;

		FUZZ_CHECK(left >= NLA_HDRLEN, "%zu bytes after an attribute",
			   left);
		memcpy(&a, p, sizeof(a));
		FUZZ_CHECK(a.nla_len >= NLA_HDRLEN && a.nla_len <= left,
			   "attribute %u of %u bytes, %zu left", a.nla_type,
			   a.nla_len, left);
		type = a.nla_type & NLA_TYPE_MASK;
		if (type == count)
			n++;
		if (is_nest(type))
			n += walk_attrs(p + NLA_HDRLEN, a.nla_len - NLA_HDRLEN,
					count);
		if ((size_t)NLA_ALIGN(a.nla_len) >= left)
			break;
		p += NLA_ALIGN(a.nla_len);
		left -= NLA_ALIGN(a.nla_len);
	}
	return n;
}

/* The resource dumps: op, restrack kind (0: none exist), entry nest. */
static const struct {
	uint16_t op;
	uint8_t type;
	uint16_t entry;
} res_ops[] = {
	{ RDMA_NLDEV_CMD_RES_QP_GET, IK_RES_QP, RDMA_NLDEV_ATTR_RES_QP_ENTRY },
	{ RDMA_NLDEV_CMD_RES_CQ_GET, IK_RES_CQ, RDMA_NLDEV_ATTR_RES_CQ_ENTRY },
	{ RDMA_NLDEV_CMD_RES_MR_GET, IK_RES_MR, RDMA_NLDEV_ATTR_RES_MR_ENTRY },
	{ RDMA_NLDEV_CMD_RES_PD_GET, IK_RES_PD, RDMA_NLDEV_ATTR_RES_PD_ENTRY },
	{ RDMA_NLDEV_CMD_RES_CTX_GET, IK_RES_CTX,
	  RDMA_NLDEV_ATTR_RES_CTX_ENTRY },
	{ RDMA_NLDEV_CMD_RES_CM_ID_GET, 0, RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY },
	{ RDMA_NLDEV_CMD_RES_SRQ_GET, 0, RDMA_NLDEV_ATTR_RES_SRQ_ENTRY },
};

static unsigned int fixture_count[IK_RES_NTYPES];

/* The answer to one message 'req', header 'rh', sent alone. */
static void check_answer(const uint8_t *req, const struct nlmsghdr *rh,
			 bool cap_ack, const struct fz_replies *q)
{
	bool is_req = (rh->nlmsg_flags & NLM_F_REQUEST) &&
		      rh->nlmsg_type >= NLMSG_MIN_TYPE;
	bool dump = is_req && (rh->nlmsg_flags & NLM_F_DUMP);
	bool acked = rh->nlmsg_flags & NLM_F_ACK;
	uint16_t op = RDMA_NL_GET_OP(rh->nlmsg_type);
	unsigned int data = 0, entries = 0, i = 0;
	uint16_t last_type = 0;
	int res = -1;
	size_t off;

	for (size_t k = 0; k < sizeof(res_ops) / sizeof(res_ops[0]); k++)
		if (RDMA_NL_GET_CLIENT(rh->nlmsg_type) == RDMA_NL_NLDEV &&
		    res_ops[k].op == op)
			res = (int)k;
	for (off = 0; off < q->len; i++) {
		struct nlmsghdr h;
		const uint8_t *m = q->buf + off;
		bool last = i + 1 == q->n;
		int32_t err;

		memcpy(&h, m, sizeof(h));
		off += h.nlmsg_len;
		last_type = h.nlmsg_type;
		FUZZ_CHECK(h.nlmsg_seq == rh->nlmsg_seq,
			   "reply seq %u to request seq %u", h.nlmsg_seq,
			   rh->nlmsg_seq);
		if (h.nlmsg_type == NLMSG_DONE) {
			FUZZ_CHECK(dump && last && h.nlmsg_len == 20,
				   "NLMSG_DONE (%u bytes) for a request of "
				   "flags 0x%x, reply %u of %u",
				   h.nlmsg_len, rh->nlmsg_flags, i, q->n);
			memcpy(&err, m + NLMSG_HDRLEN, sizeof(err));
			FUZZ_CHECK(err <= 0 && err > -4096, "DONE errno %d",
				   err);
			if (res >= 0 && !err)
				FUZZ_CHECK(
					entries ==
						fixture_count[res_ops[res].type],
					"dump of op %u listed %u of %u", op,
					entries,
					fixture_count[res_ops[res].type]);
			continue;
		}
		if (h.nlmsg_type == NLMSG_ERROR) {
			size_t copy = NLMSG_HDRLEN;

			FUZZ_CHECK(last && h.nlmsg_len >= 36,
				   "NLMSG_ERROR of %u bytes, reply %u of %u",
				   h.nlmsg_len, i, q->n);
			memcpy(&err, m + NLMSG_HDRLEN, sizeof(err));
			FUZZ_CHECK(err <= 0 && err > -4096, "errno %d", err);
			FUZZ_CHECK(err || (acked && !dump),
				   "an ACK nobody asked for (flags 0x%x)",
				   rh->nlmsg_flags);
			FUZZ_CHECK(!err || !data, "data, then errno %d", err);
			FUZZ_CHECK(!dump || !data,
				   "a dump's data ends in NLMSG_ERROR");
			if (err && !cap_ack &&
			    rh->nlmsg_len <= IK_NL_MSG_MAX - 20)
				copy = rh->nlmsg_len;
			FUZZ_CHECK(h.nlmsg_len >= 20 + copy &&
					   !memcmp(m + 20, req, copy),
				   "the request is not echoed (%zu bytes)",
				   copy);
			FUZZ_CHECK(!!(h.nlmsg_flags & NLM_F_CAPPED) ==
					   (copy == NLMSG_HDRLEN),
				   "NLM_F_CAPPED is 0x%x, echoed %zu",
				   h.nlmsg_flags, copy);
			continue;
		}
		/* data: of the nldev client, for the op asked (a port's
		 * doit answers as GET, as the kernel's) */
		FUZZ_CHECK(is_req && (dump ? !last : !data),
			   "data reply %u of %u (flags 0x%x, type 0x%x)", i,
			   q->n, rh->nlmsg_flags, rh->nlmsg_type);
		FUZZ_CHECK(!!(h.nlmsg_flags & NLM_F_MULTI) == dump,
			   "data flags 0x%x in a %s", h.nlmsg_flags,
			   dump ? "dump" : "request");
		FUZZ_CHECK(
			h.nlmsg_type == RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op) ||
				(!dump && op == RDMA_NLDEV_CMD_PORT_GET &&
				 h.nlmsg_type ==
					 RDMA_NL_GET_TYPE(RDMA_NL_NLDEV,
							  RDMA_NLDEV_CMD_GET)),
			"reply type 0x%x to request type 0x%x", h.nlmsg_type,
			rh->nlmsg_type);
		entries += walk_attrs(m + NLMSG_HDRLEN,
				      h.nlmsg_len - NLMSG_HDRLEN,
				      res >= 0 ? res_ops[res].entry : 0);
		data++;
	}
	if (!dump && res >= 0 && data)
		FUZZ_CHECK(entries == 1, "a doit of op %u found %u entries", op,
			   entries);
	if (dump)
		FUZZ_CHECK(q->n, "a dump without an answer");
	if (acked && !dump)
		FUZZ_CHECK(q->n && last_type == NLMSG_ERROR,
			   "NLM_F_ACK without an NLMSG_ERROR");
	if (!is_req)
		FUZZ_CHECK(q->n == (acked ? 1u : 0u),
			   "%u replies to a message that is no request", q->n);
}

/* ---- the fixture -------------------------------------------------------- */

static int32_t fixture_slots[FZ_NTYPES * 100];
static unsigned int fixture_n;

static void fixture_add(uint16_t sel)
{
	static const unsigned int counts[4] = { 0, 1, 3, 100 };
	static const uint8_t qp_types[3] = { 2, 3, 4 }; /* RC, UC, UD */

	fixture_n = 0;
	for (uint8_t t = 1; t < IK_RES_NTYPES; t++) {
		unsigned int c = counts[(sel >> (2 * (t - 1))) & 3];

		fixture_count[t] = 0;
		for (unsigned int i = 0; i < c; i++) {
			struct ik_res_rec r;
			int32_t slot;

			memset(&r, 0, sizeof(r));
			r.type = t;
			r.id = 100 + i; /* a QP keeps its QPN */
			r.qp_type = qp_types[i % 3];
			r.qp_state = (uint8_t)(i % 7);
			r.port = (uint8_t)(i & 1);
			r.cqe = i;
			r.usecnt = i;
			r.mrlen = (uint64_t)i << 20;
			slot = ik_res_add(&r);
			FUZZ_CHECK(slot >= 0, "restrack full");
			fixture_slots[fixture_n++] = slot;
			fixture_count[t]++;
		}
	}
}

static void fixture_del(void)
{
	while (fixture_n)
		ik_res_del(fixture_slots[--fixture_n]);
	memset(fixture_count, 0, sizeof(fixture_count));
	for (uint8_t t = 0; t <= IK_RES_NTYPES; t++)
		FUZZ_CHECK(!ik_res_walk(t, NULL, NULL),
			   "restrack holds records of kind %u afterwards", t);
}

/* ---- one datagram ------------------------------------------------------- */

static struct fz_replies whole, alone, concat;

static void fz_datagram(struct fuzz_in *in)
{
	uint8_t ctl = fuzz_u8(in);
	struct ik_nl_sock s = { .portid = fuzz_u32(in), .cap_ack = ctl & 1 };
	size_t len = fuzz_u16(in) % (FZ_MAX_LEN + 1);
	uint8_t *buf = malloc(len ? len : 1);
	size_t off = 0;

	FUZZ_CHECK(buf, "malloc %zu", len);
	fuzz_bytes(in, buf, len);
	if ((ctl & 2) && len >= NLMSG_HDRLEN) {
		uint32_t l = (uint32_t)len;

		memcpy(buf, &l, sizeof(l));
	}
	fz_send(&s, buf, len, &whole);

	/* the same messages one by one, split as netlink_rcv_skb does */
	concat.len = 0;
	concat.n = 0;
	while (len - off >= NLMSG_HDRLEN) {
		struct nlmsghdr h;
		uint8_t *one;

		memcpy(&h, buf + off, sizeof(h));
		if (h.nlmsg_len < NLMSG_HDRLEN || h.nlmsg_len > len - off)
			break;
		one = malloc(h.nlmsg_len);
		FUZZ_CHECK(one, "malloc %u", h.nlmsg_len);
		memcpy(one, buf + off, h.nlmsg_len);
		fz_send(&s, one, h.nlmsg_len, &alone);
		check_answer(one, &h, s.cap_ack, &alone);
		free(one);
		if (alone.len) {
			concat.portid = s.portid;
			for (size_t o = 0; o < alone.len;) {
				uint32_t l;

				memcpy(&l, alone.buf + o, sizeof(l));
				fz_collect(&concat, alone.buf + o, l);
				o += l;
			}
		}
		if (NLMSG_ALIGN(h.nlmsg_len) >= len - off)
			break;
		off += NLMSG_ALIGN(h.nlmsg_len);
	}
	FUZZ_CHECK(same_replies(&whole, &concat),
		   "the datagram's %u replies (%zu bytes) are not its "
		   "messages' %u (%zu bytes)",
		   whole.n, whole.len, concat.n, concat.len);
	free(buf);
}

/* ---- the probe: a dump of devices, the resource summary, PDs ----------- */

static void probe(struct fz_replies *q)
{
	struct {
		struct nlmsghdr h;
		struct nlattr a;
		uint32_t idx;
	} m[3];
	const uint16_t ops[3] = { RDMA_NLDEV_CMD_GET, RDMA_NLDEV_CMD_RES_GET,
				  RDMA_NLDEV_CMD_RES_PD_GET };
	struct ik_nl_sock s = { .portid = 99 };

	memset(m, 0, sizeof(m));
	for (int i = 0; i < 3; i++) {
		m[i].h.nlmsg_len = sizeof(m[i]);
		m[i].h.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, ops[i]);
		m[i].h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK |
				     (i == 1 ? 0 : NLM_F_DUMP);
		m[i].h.nlmsg_seq = (uint32_t)i + 1;
		m[i].a.nla_len = NLA_HDRLEN + 4;
		m[i].a.nla_type = RDMA_NLDEV_ATTR_DEV_INDEX;
	}
	fz_send(&s, m, sizeof(m), q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fz_replies first;
	struct fuzz_in in = { .p = data, .n = size };

	if (!first.n) {
		unsetenv("IONIC_SIM_RUNDIR"); /* this process' records only */
		probe(&first);
		FUZZ_CHECK(first.n >= 4, "the probe got %u replies", first.n);
	}
	fixture_add(fuzz_u16(&in));
	for (unsigned int i = 0; i < FZ_MAX_SENDS && fuzz_more(&in); i++)
		fz_datagram(&in);
	fixture_del();

	probe(&whole);
	FUZZ_CHECK(same_replies(&whole, &first),
		   "the probe's answer changed (%u replies, %u at first)",
		   whole.n, first.n);
	return 0;
}
