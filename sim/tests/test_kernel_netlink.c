// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The kernel model's RDMA netlink parser on buffers, without a socket
 * (ik_nl_rdma_input, docs/kernel-contract.md §19): framing of dumps,
 * requests, ACKs and errors, the attributes libibverbs and iproute2 read,
 * resource dumps split across messages, the port's hardware counters,
 * and arbitrary input.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hwstats.h"
#include "kernel/ik.h"
#include "kernel/netlink/nlmsg.h"
#include "kernel/restrack.h"
#include "check.h"

#define PORTID 4242u
#define MAXR 256

static struct {
	uint8_t buf[IK_NL_MSG_MAX];
	size_t len;
} rep[MAXR];
static unsigned int nrep;

static int collect(void *ctx, const void *msg, size_t len)
{
	(void)ctx;
	if (nrep < MAXR && len <= sizeof(rep[0].buf)) {
		memcpy(rep[nrep].buf, msg, len);
		rep[nrep++].len = len;
	}
	return 0;
}

static struct nlmsghdr *reply(unsigned int i)
{
	return (struct nlmsghdr *)rep[i].buf;
}

/* A request: header and attributes appended with put_*. */
static uint8_t req[512];
static size_t reqlen;

static void start(uint16_t op, uint16_t flags, uint32_t seq)
{
	struct nlmsghdr *h = (struct nlmsghdr *)req;

	memset(req, 0, sizeof(req));
	h->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op);
	h->nlmsg_flags = flags;
	h->nlmsg_seq = seq;
	h->nlmsg_pid = PORTID;
	reqlen = NLMSG_HDRLEN;
	h->nlmsg_len = (uint32_t)reqlen;
}

static void put(uint16_t type, const void *data, uint16_t len)
{
	struct nlattr *a = (struct nlattr *)(req + reqlen);

	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	a->nla_type = type;
	memcpy(a + 1, data, len);
	reqlen += NLA_ALIGN(a->nla_len);
	((struct nlmsghdr *)req)->nlmsg_len = (uint32_t)reqlen;
}

static void put_u32(uint16_t type, uint32_t v)
{
	put(type, &v, sizeof(v));
}

static void send_req(bool cap_ack)
{
	struct ik_nl_sock s = { .portid = PORTID, .cap_ack = cap_ack };

	nrep = 0;
	ik_nl_rdma_input(&s, req, reqlen, collect, NULL);
}

/* Attribute 'type' of reply i, or NULL. */
static const struct nlattr *find(unsigned int i, uint16_t type)
{
	struct ik_nla_view tb[RDMA_NLDEV_ATTR_MAX];

	if (ik_nla_parse(reply(i), 0, tb, RDMA_NLDEV_ATTR_MAX - 1) ||
	    !tb[type].data)
		return NULL;
	return (const struct nlattr *)tb[type].data - 1;
}

static uint64_t val(unsigned int i, uint16_t type, unsigned int size)
{
	const struct nlattr *a = find(i, type);
	uint64_t v = 0;

	if (!a || a->nla_len != NLA_HDRLEN + size)
		return ~0ull;
	memcpy(&v, a + 1, size);
	return v;
}

static const char *str(unsigned int i, uint16_t type)
{
	const struct nlattr *a = find(i, type);

	return a ? (const char *)(a + 1) : "";
}

static int err_of(unsigned int i)
{
	int32_t e;

	memcpy(&e, NLMSG_DATA(reply(i)), sizeof(e));
	return e;
}

static void test_get(void)
{
	start(RDMA_NLDEV_CMD_GET, NLM_F_REQUEST | NLM_F_DUMP, 7);
	send_req(false);
	CHECK_MSG(nrep == 2, "GET dump: data + DONE (%u)", nrep);
	CHECK_MSG(reply(0)->nlmsg_type == 0x1401 &&
			  reply(0)->nlmsg_flags == NLM_F_MULTI &&
			  reply(0)->nlmsg_seq == 7 &&
			  reply(0)->nlmsg_pid == PORTID,
		  "GET dump header");
	CHECK_MSG(val(0, RDMA_NLDEV_ATTR_DEV_INDEX, 4) == 0, "DEV_INDEX");
	CHECK_MSG(!strcmp(str(0, RDMA_NLDEV_ATTR_DEV_NAME), "ionic_0"), "name");
	CHECK_MSG(val(0, RDMA_NLDEV_ATTR_PORT_INDEX, 4) == 1, "port count");
	CHECK_MSG(val(0, RDMA_NLDEV_ATTR_DEV_NODE_TYPE, 1) == 1, "CA");
	CHECK_MSG(val(0, RDMA_NLDEV_ATTR_NODE_GUID, 8) == 0x001dd8fffe000001ull,
		  "node GUID of node 1");
	CHECK_MSG(!strcmp(str(0, RDMA_NLDEV_ATTR_DEV_PROTOCOL), "roce"),
		  "roce");
	CHECK_MSG(reply(1)->nlmsg_type == NLMSG_DONE &&
			  reply(1)->nlmsg_len == 20 &&
			  reply(1)->nlmsg_flags == NLM_F_MULTI &&
			  err_of(1) == 0,
		  "DONE");

	start(RDMA_NLDEV_CMD_GET, NLM_F_REQUEST | NLM_F_ACK, 8);
	put_u32(RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	send_req(true);
	CHECK_MSG(nrep == 2 && reply(0)->nlmsg_flags == 0 &&
			  reply(1)->nlmsg_type == NLMSG_ERROR &&
			  err_of(1) == 0 && reply(1)->nlmsg_len == 36,
		  "GET request: data, then the ACK it asked for");

	start(RDMA_NLDEV_CMD_GET, NLM_F_REQUEST, 9);
	put_u32(RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	send_req(false);
	CHECK_MSG(nrep == 1, "no ACK unless asked");

	start(RDMA_NLDEV_CMD_GET, NLM_F_REQUEST, 10);
	put_u32(RDMA_NLDEV_ATTR_DEV_INDEX, 5);
	send_req(false);
	CHECK_MSG(nrep == 1 && reply(0)->nlmsg_type == NLMSG_ERROR &&
			  err_of(0) == -EINVAL &&
			  reply(0)->nlmsg_len == 20 + reqlen &&
			  !(reply(0)->nlmsg_flags & NLM_F_CAPPED),
		  "unknown device: EINVAL with the request");
	send_req(true);
	CHECK_MSG(nrep == 1 && reply(0)->nlmsg_len == 36 &&
			  (reply(0)->nlmsg_flags & NLM_F_CAPPED),
		  "NETLINK_CAP_ACK: the header only");
}

static void test_chardev_sys_port(void)
{
	start(RDMA_NLDEV_CMD_GET_CHARDEV, NLM_F_REQUEST, 1);
	put_u32(RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	put(RDMA_NLDEV_ATTR_CHARDEV_TYPE, "uverbs", 7);
	send_req(false);
	CHECK_MSG(nrep == 1 && reply(0)->nlmsg_type == 0x140f, "GET_CHARDEV");
	CHECK_MSG(val(0, RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID, 4) == 21,
		  "driver 21");
	CHECK_MSG(val(0, RDMA_NLDEV_ATTR_CHARDEV, 8) == 0x103, "1:3 encoded");
	CHECK_MSG(val(0, RDMA_NLDEV_ATTR_CHARDEV_ABI, 8) == 1, "ABI 1");
	CHECK_MSG(!strcmp(str(0, RDMA_NLDEV_ATTR_CHARDEV_NAME), "uverbs0"),
		  "uverbs0");

	start(RDMA_NLDEV_CMD_GET_CHARDEV, NLM_F_REQUEST, 2);
	put(RDMA_NLDEV_ATTR_CHARDEV_TYPE, "rdma_cm", 8);
	send_req(false);
	CHECK_MSG(nrep == 1 && reply(0)->nlmsg_type == 0x140f,
		  "rdma_cm client");
	CHECK_MSG(val(0, RDMA_NLDEV_ATTR_CHARDEV, 8) == 0xa3a,
		  "rdma_cm: 10:58 encoded");
	CHECK_MSG(val(0, RDMA_NLDEV_ATTR_CHARDEV_ABI, 8) == 4, "rdma_cm ABI 4");
	CHECK_MSG(!strcmp(str(0, RDMA_NLDEV_ATTR_CHARDEV_NAME), "rdma_cm"),
		  "rdma_cm name");

	start(RDMA_NLDEV_CMD_GET_CHARDEV, NLM_F_REQUEST, 2);
	put_u32(RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	put(RDMA_NLDEV_ATTR_CHARDEV_TYPE, "rdma_cm", 8);
	send_req(false);
	CHECK_MSG(nrep == 1 && err_of(0) == -EOPNOTSUPP,
		  "rdma_cm is not per device");

	start(RDMA_NLDEV_CMD_GET_CHARDEV, NLM_F_REQUEST, 2);
	put(RDMA_NLDEV_ATTR_CHARDEV_TYPE, "umad", 5);
	send_req(false);
	CHECK_MSG(nrep == 1 && err_of(0) == -EOPNOTSUPP, "no umad client");

	start(RDMA_NLDEV_CMD_GET_CHARDEV, NLM_F_REQUEST, 3);
	put(RDMA_NLDEV_ATTR_CHARDEV_TYPE, "uverbs", 7);
	send_req(false);
	CHECK_MSG(nrep == 1 && err_of(0) == -EINVAL, "uverbs needs a device");

	start(RDMA_NLDEV_CMD_SYS_GET, NLM_F_REQUEST, 4);
	send_req(false);
	CHECK_MSG(nrep == 1 &&
			  val(0, RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK, 1) == 1 &&
			  val(0, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, 1) == 1,
		  "SYS_GET");
	start(RDMA_NLDEV_CMD_SYS_GET, NLM_F_REQUEST | NLM_F_DUMP, 5);
	send_req(false);
	CHECK_MSG(nrep == 1 && reply(0)->nlmsg_type == NLMSG_ERROR &&
			  err_of(0) == -EINVAL,
		  "no dumpit: an error, not DONE");

	start(RDMA_NLDEV_CMD_PORT_GET, NLM_F_REQUEST | NLM_F_ACK, 6);
	put_u32(RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	put_u32(RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	send_req(false);
	CHECK_MSG(nrep == 2 && reply(0)->nlmsg_type == 0x1401 &&
			  val(0, RDMA_NLDEV_ATTR_PORT_STATE, 1) == 4 &&
			  !strcmp(str(0, RDMA_NLDEV_ATTR_NDEV_NAME), "isim0"),
		  "PORT_GET: type GET, ACTIVE, the netdev");
	start(RDMA_NLDEV_CMD_PORT_GET, NLM_F_REQUEST | NLM_F_DUMP, 7);
	send_req(false);
	CHECK_MSG(nrep == 1 && reply(0)->nlmsg_type == NLMSG_DONE &&
			  err_of(0) == -EINVAL,
		  "a dump that fails: DONE carries the errno");

	start(0x3ff, NLM_F_REQUEST, 8);
	send_req(false);
	CHECK_MSG(nrep == 1 && err_of(0) == -EINVAL, "unknown op");
	start(RDMA_NLDEV_CMD_GET, NLM_F_REQUEST, 9);
	((struct nlmsghdr *)req)->nlmsg_type = RDMA_NL_GET_TYPE(4, 1);
	send_req(false);
	CHECK_MSG(nrep == 1 && err_of(0) == -EINVAL, "unknown client");
	start(RDMA_NLDEV_CMD_GET, NLM_F_DUMP, 10);
	send_req(false);
	CHECK_MSG(nrep == 0, "not a request: not dispatched");
}

static void test_batch(void)
{
	uint8_t two[64];

	start(RDMA_NLDEV_CMD_SYS_GET, NLM_F_REQUEST, 1);
	memcpy(two, req, reqlen);
	memcpy(two + reqlen, req, reqlen);
	((struct nlmsghdr *)(two + reqlen))->nlmsg_seq = 2;
	memcpy(req, two, 2 * reqlen);
	reqlen = 2 * reqlen + 3; /* a torn tail is ignored */
	send_req(false);
	CHECK_MSG(nrep == 2 && reply(1)->nlmsg_seq == 2,
		  "two messages in a datagram");
}

static unsigned int dump_entries(uint16_t op, uint16_t entry_type)
{
	unsigned int entries = 0;

	start(op, NLM_F_REQUEST | NLM_F_DUMP, 77);
	put_u32(RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	send_req(false);
	for (unsigned int i = 0; i + 1 < nrep; i++) {
		const uint8_t *p = rep[i].buf + NLMSG_HDRLEN;
		const uint8_t *end = rep[i].buf + reply(i)->nlmsg_len;

		CHECK_MSG(reply(i)->nlmsg_len <= 4096,
			  "dump message fits libmnl");
		/* skip DEV_INDEX, DEV_NAME, walk the table nest */
		while (p < end) {
			const struct nlattr *a = (const struct nlattr *)p;

			if ((a->nla_type & NLA_TYPE_MASK) != entry_type - 1) {
				p += NLA_ALIGN(a->nla_len);
				continue;
			}
			for (const uint8_t *q = p + NLA_HDRLEN;
			     q < p + a->nla_len;) {
				const struct nlattr *e =
					(const struct nlattr *)q;

				entries += e->nla_type == entry_type;
				q += NLA_ALIGN(e->nla_len);
			}
			p += NLA_ALIGN(a->nla_len);
		}
	}
	CHECK_MSG(nrep && reply(nrep - 1)->nlmsg_type == NLMSG_DONE,
		  "dump ends with DONE");
	return entries;
}

static void test_resources(void)
{
	struct ik_res_rec r;
	int32_t slots[300];
	unsigned int n;

	memset(&r, 0, sizeof(r));
	r.type = IK_RES_MR;
	for (unsigned int i = 0; i < 300; i++)
		slots[i] = ik_res_add(&r);
	r.type = IK_RES_PD;
	ik_res_add(&r);
	start(RDMA_NLDEV_CMD_RES_GET, NLM_F_REQUEST, 1);
	put_u32(RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	send_req(false);
	CHECK_MSG(nrep == 1, "RES_GET");
	n = dump_entries(RDMA_NLDEV_CMD_RES_MR_GET,
			 RDMA_NLDEV_ATTR_RES_MR_ENTRY);
	CHECK_MSG(n == 300 && nrep > 2, "300 MRs over %u messages: %u", nrep,
		  n);
	for (unsigned int i = 0; i < 300; i++)
		ik_res_del(slots[i]);
	n = dump_entries(RDMA_NLDEV_CMD_RES_MR_GET,
			 RDMA_NLDEV_ATTR_RES_MR_ENTRY);
	CHECK_MSG(n == 0 && nrep == 2, "an empty table: one message and DONE");
	/* the freed slots are no CM_IDs or SRQs (fuzz-kernel-netlink) */
	CHECK_MSG(dump_entries(RDMA_NLDEV_CMD_RES_CM_ID_GET,
			       RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY) == 0 &&
			  dump_entries(RDMA_NLDEV_CMD_RES_SRQ_GET,
				       RDMA_NLDEV_ATTR_RES_SRQ_ENTRY) == 0,
		  "free slots listed as CM_IDs or SRQs");
	CHECK_MSG(dump_entries(RDMA_NLDEV_CMD_RES_PD_GET,
			       RDMA_NLDEV_ATTR_RES_PD_ENTRY) == 1,
		  "one PD");
	start(RDMA_NLDEV_CMD_RES_MR_GET, NLM_F_REQUEST, 2);
	put_u32(RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	put_u32(RDMA_NLDEV_ATTR_RES_MRN, 12345);
	send_req(false);
	CHECK_MSG(nrep == 1 && err_of(0) == -ENOENT, "no such MR: ENOENT");
}

/* Anything at all: no crash, every reply well formed. */
static void test_garbage(void)
{
	struct ik_nl_sock s = { .portid = 1 };
	uint8_t buf[600];

	srand(1);
	for (int it = 0; it < 20000; it++) {
		size_t len = (size_t)rand() % sizeof(buf);

		for (size_t i = 0; i < len; i++)
			buf[i] = (uint8_t)rand();
		if (len >= 16 && (it & 1)) {
			/* mostly plausible headers, to get past framing */
			struct nlmsghdr *h = (struct nlmsghdr *)buf;

			h->nlmsg_len = (uint32_t)(16 + rand() % (len - 15));
			h->nlmsg_type = RDMA_NL_GET_TYPE(5, rand() % 32);
			h->nlmsg_flags |= NLM_F_REQUEST;
		}
		nrep = 0;
		ik_nl_rdma_input(&s, buf, len, collect, NULL);
		for (unsigned int i = 0; i < nrep; i++)
			CHECK_MSG(reply(i)->nlmsg_len == rep[i].len &&
					  rep[i].len >= 16,
				  "reply %u of garbage malformed", i);
	}
}

/* The port's hardware counters (STAT_GET): each entry of the nest is
 * {name, value}, the values the host's counter page holds. */
static void test_stats(void)
{
	struct isim_hwstats_page *pg = isim_hwstats(NULL);
	const struct nlattr *nest, *e, *a;
	unsigned int n = 0, good = 0;

	REQUIRE(pg);
	isim_hwstat_frame(pg->v[0], ISIM_HWS_TX_PKTS, 3, 300);
	isim_hwstat_frame(pg->v[0], ISIM_HWS_RX_PKTS, 5, 500);
	start(RDMA_NLDEV_CMD_STAT_GET, NLM_F_REQUEST | NLM_F_ACK, 20);
	put_u32(RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	put_u32(RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	send_req(false);
	REQUIRE_EQ(nrep, 2u);
	CHECK_EQ(reply(0)->nlmsg_type, 0x1411);
	CHECK(!strcmp(str(0, RDMA_NLDEV_ATTR_DEV_NAME), "ionic_0"));
	CHECK_EQ(val(0, RDMA_NLDEV_ATTR_PORT_INDEX, 4), 1u);
	nest = find(0, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
	REQUIRE(nest);
	for (e = nest + 1;
	     (const uint8_t *)e < (const uint8_t *)nest + nest->nla_len;
	     e = (const void *)((const uint8_t *)e + NLA_ALIGN(e->nla_len))) {
		const char *name = NULL;
		uint64_t v = ~0ull;

		CHECK_EQ(e->nla_type, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
		for (a = e + 1;
		     (const uint8_t *)a < (const uint8_t *)e + e->nla_len;
		     a = (const void *)((const uint8_t *)a +
					NLA_ALIGN(a->nla_len))) {
			if (a->nla_type ==
			    RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME)
				name = (const char *)(a + 1);
			if (a->nla_type ==
				    RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE &&
			    a->nla_len == NLA_HDRLEN + 8)
				memcpy(&v, a + 1, 8);
		}
		n++;
		good += name &&
			((!strcmp(name, "tx_rdma_ucast_pkts") && v == 3) ||
			 (!strcmp(name, "tx_rdma_ucast_bytes") && v == 300) ||
			 (!strcmp(name, "rx_rdma_ucast_pkts") && v == 5) ||
			 (!strcmp(name, "rx_rdma_ucast_bytes") && v == 500));
	}
	CHECK_EQ(n, 4u);
	CHECK_EQ(good, 4u);

	start(RDMA_NLDEV_CMD_STAT_GET, NLM_F_REQUEST, 21);
	put_u32(RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	put_u32(RDMA_NLDEV_ATTR_PORT_INDEX, 2);
	send_req(false);
	CHECK_MSG(nrep == 1 && err_of(0) == -EINVAL, "STAT_GET: no port 2");
	start(RDMA_NLDEV_CMD_STAT_GET, NLM_F_REQUEST, 22);
	put_u32(RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	put_u32(RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	put_u32(RDMA_NLDEV_ATTR_STAT_RES, RDMA_NLDEV_ATTR_RES_QP);
	send_req(false);
	CHECK_MSG(nrep == 1 && err_of(0) == -EOPNOTSUPP,
		  "STAT_GET of QP counters: not emulated");
	start(RDMA_NLDEV_CMD_STAT_GET, NLM_F_REQUEST | NLM_F_DUMP, 23);
	send_req(false);
	CHECK_MSG(nrep == 1 && reply(0)->nlmsg_type == NLMSG_DONE &&
			  err_of(0) == -EINVAL,
		  "STAT_GET dump without STAT_RES: EINVAL");
}

int main(void)
{
	unsetenv("IONIC_SIM_RUNDIR"); /* only this process' records */
	test_get();
	test_chardev_sys_port();
	test_batch();
	test_resources();
	test_garbage();
	test_stats();
	return check_finish();
}
