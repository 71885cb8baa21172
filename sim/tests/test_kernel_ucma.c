// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The kernel model's rdma_ucm parser on buffers (ik_ucma_input,
 * docs/kernel-contract.md §22): the write() checks, the errnos of ids,
 * addresses and states, the events of address and route resolution on a
 * non-blocking, pollable file, INIT_QP_ATTR before a connection, and
 * arbitrary input.  No shim and no peer: one process, its own file.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_cm.h>

#include "check.h"
#include "kernel/ik.h"

static struct ik_ucma_file *file;
static int fd;

/* One command: the header, then 'body' of 'in' bytes. */
static long cmd(uint32_t op, const void *body, uint16_t in, uint16_t out)
{
	uint8_t buf[512];
	struct rdma_ucm_cmd_hdr h = { .cmd = op, .in = in, .out = out };
	ssize_t n;

	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), body, in);
	n = ik_ucma_input(file, buf, sizeof(h) + in);
	return n < 0 ? n : 0;
}

static uint32_t create(uint16_t ps)
{
	struct rdma_ucm_create_id_resp r = { .id = 0xdead };
	struct rdma_ucm_create_id c = { .uid = 0x1234,
					.ps = ps,
					.response = (uintptr_t)&r };

	CHECK_MSG(cmd(RDMA_USER_CM_CMD_CREATE_ID, &c, sizeof(c), sizeof(r)) ==
			  0,
		  "CREATE_ID");
	return r.id;
}

static long bind4(uint32_t id, const char *ip, uint16_t port)
{
	struct rdma_ucm_bind b = { .id = id,
				   .addr_size = sizeof(struct sockaddr_in) };
	struct sockaddr_in *s = (struct sockaddr_in *)&b.addr;

	s->sin_family = AF_INET;
	s->sin_port = htons(port);
	inet_pton(AF_INET, ip, &s->sin_addr);
	return cmd(RDMA_USER_CM_CMD_BIND, &b, sizeof(b), 0);
}

static long get_event(struct rdma_ucm_event_resp *e)
{
	struct rdma_ucm_get_event g = { .response = (uintptr_t)e };

	memset(e, 0, sizeof(*e));
	return cmd(RDMA_USER_CM_CMD_GET_EVENT, &g, sizeof(g), sizeof(*e));
}

static bool readable(void)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

static void test_write_checks(void)
{
	uint8_t b[64] = { 0 };
	struct rdma_ucm_cmd_hdr *h = (void *)b;

	CHECK_MSG(ik_ucma_input(file, b, 7) == -EINVAL, "short header");
	h->cmd = 25;
	CHECK_MSG(ik_ucma_input(file, b, 8) == -EINVAL, "command 25");
	h->cmd = IK_UCMA_CMD_RESOLVE_IB_SERVICE;
	CHECK_MSG(ik_ucma_input(file, b, 8) == -ENOSYS, "RESOLVE_IB_SERVICE");
	h->cmd = RDMA_USER_CM_CMD_DESTROY_ID;
	h->in = 17;
	CHECK_MSG(ik_ucma_input(file, b, 24) == -EINVAL, "in past the buffer");
	h->cmd = RDMA_USER_CM_CMD_GET_OPTION;
	h->in = 0;
	CHECK_MSG(ik_ucma_input(file, b, 8) == -ENOSYS, "GET_OPTION: ENOSYS");
	h->cmd = RDMA_USER_CM_CMD_JOIN_MCAST;
	CHECK_MSG(ik_ucma_input(file, b, 8) == -ENOSYS, "no multicast");
}

static void test_ids_and_bind(void)
{
	struct rdma_ucm_create_id c = { .ps = 0x999 };
	struct rdma_ucm_destroy_id_resp dr;
	struct rdma_ucm_destroy_id d = { .response = (uintptr_t)&dr };
	struct rdma_ucm_query_addr_resp qa;
	struct rdma_ucm_query q = { .response = (uintptr_t)&qa };
	uint32_t a, b2;

	CHECK_MSG(cmd(RDMA_USER_CM_CMD_CREATE_ID, &c, sizeof(c), 4) == -EINVAL,
		  "bad port space");
	c.ps = RDMA_PS_TCP;
	CHECK_MSG(cmd(RDMA_USER_CM_CMD_CREATE_ID, &c, sizeof(c), 3) == -ENOSPC,
		  "short response");
	c.response = 8; /* not mapped */
	CHECK_MSG(cmd(RDMA_USER_CM_CMD_CREATE_ID, &c, sizeof(c), 4) == -EFAULT,
		  "bad response address");
	d.id = 4000;
	CHECK_MSG(cmd(RDMA_USER_CM_CMD_DESTROY_ID, &d, sizeof(d), 4) == -ENOENT,
		  "unknown id");

	a = create(RDMA_PS_TCP);
	b2 = create(RDMA_PS_TCP);
	CHECK_MSG(bind4(a, "127.0.0.1", 0) == -ENODEV, "loopback: ENODEV");
	CHECK_MSG(bind4(a, "10.1.2.3", 0) == -EADDRNOTAVAIL, "not ours");
	CHECK_MSG(bind4(a, "198.18.0.1", 7000) == 0, "bind isim0's address");
	CHECK_MSG(bind4(a, "198.18.0.1", 7001) == -EINVAL, "bind twice");
	CHECK_MSG(bind4(b2, "198.18.0.1", 7000) == -EADDRINUSE, "same port");
	CHECK_MSG(bind4(b2, "0.0.0.0", 7000) == -EADDRNOTAVAIL, "wildcard");
	q.id = a;
	q.option = RDMA_USER_CM_QUERY_ADDR;
	CHECK_MSG(
		cmd(RDMA_USER_CM_CMD_QUERY, &q, sizeof(q), sizeof(qa)) == 0 &&
			qa.node_guid && qa.port_num == 1 && qa.src_size == 16 &&
			ntohs(((struct sockaddr_in *)&qa.src_addr)->sin_port) ==
				7000,
		"QUERY ADDR: the device and the port");
	q.option = 7;
	CHECK_MSG(cmd(RDMA_USER_CM_CMD_QUERY, &q, sizeof(q), sizeof(qa)) ==
			  -ENOSYS,
		  "unknown QUERY option");
	d.id = a;
	CHECK_MSG(cmd(RDMA_USER_CM_CMD_DESTROY_ID, &d, sizeof(d), 4) == 0 &&
			  dr.events_reported == 0,
		  "DESTROY_ID");
	CHECK_MSG(bind4(b2, "0.0.0.0", 7000) == 0, "the port is free again");
	d.id = b2;
	CHECK_MSG(cmd(RDMA_USER_CM_CMD_DESTROY_ID, &d, sizeof(d), 4) == 0,
		  "DESTROY_ID");
}

static void test_resolve(void)
{
	struct rdma_ucm_resolve_addr ra = { .dst_size = 16,
					    .timeout_ms = 2000 };
	struct sockaddr_in *dst = (struct sockaddr_in *)&ra.dst_addr;
	struct rdma_ucm_resolve_route rr = { 0 };
	struct rdma_ucm_init_qp_attr ia;
	struct ib_uverbs_qp_attr qa;
	struct rdma_ucm_connect cn = { 0 };
	struct rdma_ucm_disconnect dc;
	struct rdma_ucm_event_resp ev;
	struct rdma_ucm_destroy_id_resp dr;
	struct rdma_ucm_destroy_id d = { .response = (uintptr_t)&dr };
	uint32_t id = create(RDMA_PS_TCP);

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	CHECK_MSG(get_event(&ev) == -EAGAIN && !readable(),
		  "no event: EAGAIN, not readable");
	rr.id = id;
	CHECK_MSG(cmd(RDMA_USER_CM_CMD_RESOLVE_ROUTE, &rr, sizeof(rr), 0) ==
			  -EINVAL,
		  "route before address: no device");
	ra.id = id;
	dst->sin_family = AF_INET;
	dst->sin_port = htons(7174);
	inet_pton(AF_INET, "198.18.0.2", &dst->sin_addr);
	ra.reserved = 1;
	CHECK_MSG(cmd(RDMA_USER_CM_CMD_RESOLVE_ADDR, &ra, sizeof(ra), 0) ==
			  -EINVAL,
		  "reserved field");
	ra.reserved = 0;
	CHECK_MSG(cmd(RDMA_USER_CM_CMD_RESOLVE_ADDR, &ra, sizeof(ra), 0) == 0,
		  "RESOLVE_ADDR");
	CHECK_MSG(readable(), "an event: readable");
	CHECK_MSG(get_event(&ev) == 0 && ev.event == 0 && ev.status == 0 &&
			  ev.uid == 0x1234 && ev.id == id,
		  "ADDR_RESOLVED, uid and id");
	CHECK_MSG(!readable(), "event taken");
	CHECK_MSG(cmd(RDMA_USER_CM_CMD_RESOLVE_ROUTE, &rr, sizeof(rr), 0) ==
				  0 &&
			  get_event(&ev) == 0 && ev.event == 2,
		  "ROUTE_RESOLVED");
	ia = (struct rdma_ucm_init_qp_attr){ .response = (uintptr_t)&qa,
					     .id = id,
					     .qp_state = 1 /* INIT */ };
	CHECK_MSG(cmd(RDMA_USER_CM_CMD_INIT_QP_ATTR, &ia, sizeof(ia),
		      sizeof(qa)) == 0 &&
			  qa.qp_attr_mask == 0x39 && qa.qp_access_flags == 0 &&
			  qa.port_num == 1,
		  "INIT_QP_ATTR INIT before CONNECT: 0x39 %#x",
		  qa.qp_attr_mask);
	ia.qp_state = 7;
	CHECK_MSG(cmd(RDMA_USER_CM_CMD_INIT_QP_ATTR, &ia, sizeof(ia),
		      sizeof(qa)) == -EINVAL,
		  "qp_state 7");
	ia.qp_state = 2 /* RTR */;
	CHECK_MSG(cmd(RDMA_USER_CM_CMD_INIT_QP_ATTR, &ia, sizeof(ia), 100) ==
			  -ENOSPC,
		  "short response");
	cn.id = id;
	CHECK_MSG(cmd(RDMA_USER_CM_CMD_CONNECT, &cn, sizeof(cn), 0) == -EINVAL,
		  "CONNECT without valid parameters");
	cn.conn_param.valid = 1;
	cn.conn_param.private_data_len = 57;
	CHECK_MSG(cmd(RDMA_USER_CM_CMD_CONNECT, &cn, sizeof(cn), 0) == -EINVAL,
		  "REQ private data over 56");
	dc.id = id;
	CHECK_MSG(cmd(RDMA_USER_CM_CMD_DISCONNECT, &dc, sizeof(dc), 0) ==
			  -EINVAL,
		  "DISCONNECT without a connection");
	d.id = id;
	CHECK_MSG(cmd(RDMA_USER_CM_CMD_DESTROY_ID, &d, sizeof(d), 4) == 0 &&
			  dr.events_reported == 2,
		  "events_reported %u", dr.events_reported);

	/* 127.0.0.1 resolves through lo: ADDR_ERROR -ENODEV */
	id = create(RDMA_PS_TCP);
	ra.id = id;
	inet_pton(AF_INET, "127.0.0.1", &dst->sin_addr);
	CHECK_MSG(cmd(RDMA_USER_CM_CMD_RESOLVE_ADDR, &ra, sizeof(ra), 0) == 0 &&
			  get_event(&ev) == 0 && ev.event == 1 &&
			  (int32_t)ev.status == -ENODEV,
		  "ADDR_ERROR -ENODEV");
	d.id = id;
	CHECK_MSG(cmd(RDMA_USER_CM_CMD_DESTROY_ID, &d, sizeof(d), 4) == 0,
		  "DESTROY_ID");
}

/* Arbitrary commands never crash the model; the file stays usable. */
/* WRITE_CM_EVENT: what librdmacm's rdma_resolve_addrinfo writes, read
 * back by GET_EVENT with its argument; other events refused. */
static void test_write_event(void)
{
	struct {
		uint32_t id, reserved, event, status;
		uint64_t arg;
		uint8_t rest[312];
	} w = { .event = IK_CM_EVENT_INTERNAL, .status = 5, .arg = 16 };
	struct rdma_ucm_destroy_id_resp dr;
	struct rdma_ucm_destroy_id d = { .response = (uintptr_t)&dr };
	struct rdma_ucm_event_resp ev;
	uint64_t arg = 0;

	w.id = create(RDMA_PS_TCP);
	CHECK_MSG(!readable(), "no event yet");
	CHECK_MSG(cmd(IK_UCMA_CMD_WRITE_CM_EVENT, &w, sizeof(w), 0) == 0,
		  "WRITE_CM_EVENT INTERNAL");
	CHECK_MSG(readable(), "readable after the write");
	CHECK_MSG(get_event(&ev) == 0 && ev.event == IK_CM_EVENT_INTERNAL &&
			  ev.status == 5 && ev.id == w.id && ev.uid == 0x1234,
		  "read back: event %u status %d", ev.event, ev.status);
	memcpy(&arg, &ev.param, sizeof(arg));
	CHECK_MSG(arg == 16, "argument %llu", (unsigned long long)arg);
	w.event = 9; /* ESTABLISHED */
	CHECK_MSG(cmd(IK_UCMA_CMD_WRITE_CM_EVENT, &w, sizeof(w), 0) == -EINVAL,
		  "a kernel event cannot be written");
	w.event = IK_CM_EVENT_USER;
	w.id += 100;
	CHECK_MSG(cmd(IK_UCMA_CMD_WRITE_CM_EVENT, &w, sizeof(w), 0) == -ENOENT,
		  "unknown id");
	CHECK_MSG(!readable(), "nothing queued by the refused writes");
	d.id = w.id - 100;
	CHECK_MSG(cmd(RDMA_USER_CM_CMD_DESTROY_ID, &d, sizeof(d), 4) == 0 &&
			  dr.events_reported == 1,
		  "DESTROY_ID counts the written event");
}

static void test_garbage(void)
{
	uint8_t b[400];
	struct rdma_ucm_event_resp ev;

	srandom(7);
	for (int i = 0; i < 20000; i++) {
		size_t len = (size_t)random() % sizeof(b);

		for (size_t k = 0; k < len; k++)
			b[k] = (uint8_t)random();
		if (len >= 8) {
			struct rdma_ucm_cmd_hdr *h = (void *)b;

			h->cmd %= 25;
			h->in = (uint16_t)(len - 8);
			/* LISTEN and CONNECT would reach out to the fabric */
			if (h->cmd == RDMA_USER_CM_CMD_LISTEN ||
			    h->cmd == RDMA_USER_CM_CMD_CONNECT)
				h->cmd = RDMA_USER_CM_CMD_QUERY;
		}
		(void)ik_ucma_input(file, b, len);
	}
	while (get_event(&ev) == 0)
		;
	CHECK_MSG(create(RDMA_PS_UDP) < 65536, "still usable");
}

int main(void)
{
	fd = ik_ucma_open(O_CLOEXEC, &file);
	if (fd < 0)
		check_fatal(__FILE__, __LINE__, "open: %s", strerror(-fd));
	test_write_checks();
	test_ids_and_bind();
	test_resolve();
	test_write_event();
	test_garbage();
	ik_ucma_release(file);
	close(fd);
	return check_finish();
}
