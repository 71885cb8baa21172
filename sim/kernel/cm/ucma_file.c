// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: the rdma_ucm file (ucma.h) - open and release,
 * the write() command parser (ucma_write's checks, in order), the
 * process-wide id table and the event queue with GET_EVENT.
 *
 * The application's descriptor is one end of a stream socket pair; each
 * queued event puts one byte (a token) into the other end, so poll,
 * select and epoll see the file readable exactly while events wait, and a
 * blocking GET_EVENT sleeps in recv() without any lock held.  A token is
 * taken before its event: an event dropped meanwhile (DESTROY_ID) takes
 * its own token if it is still there, and a GET_EVENT that finds no event
 * behind its token just waits for the next one.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/sys.h"
#include "../kpriv.h"
#include "ucma.h"

pthread_mutex_t ik_cm_lock = PTHREAD_MUTEX_INITIALIZER;
struct ik_ucma_file *ik_ucma_files;
struct ik_cm_id **ik_cm_ids;
uint32_t ik_cm_nids;

/* The largest command body (ACCEPT) and then some: shorter bodies are
 * zero-filled up to it, so handlers read fixed structures. */
#define UCMA_BODY_MAX 512

int ik_ucma_open(int flags, struct ik_ucma_file **out)
{
	struct ik_ucma_file *f;
	struct stat st;
	int sv[2];

	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	/* our end never crosses exec; the application's as it asked */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		free(f);
		return -errno;
	}
	if (!(flags & O_CLOEXEC))
		isim_sys_fcntl(sv[0], F_SETFD, 0);
	f->rd = sv[0];
	f->wr = sv[1];
	/* nobody reads it the other way: EOF on a write() would confuse */
	shutdown(f->rd, SHUT_WR);
	if (isim_sys_fstat(f->rd, &st) == 0)
		f->ino = (unsigned long)st.st_ino;
	pthread_mutex_lock(&ik_cm_lock);
	f->next = ik_ucma_files;
	ik_ucma_files = f;
	pthread_mutex_unlock(&ik_cm_lock);
	*out = f;
	return f->rd;
}

void ik_ucma_release(struct ik_ucma_file *f)
{
	pthread_mutex_lock(&ik_cm_lock);
	for (uint32_t h = 0; h < ik_cm_nids; h++)
		if (ik_cm_ids[h] && ik_cm_ids[h]->file == f)
			ik_cm_id_destroy(ik_cm_ids[h]);
	for (struct ik_ucma_file **p = &ik_ucma_files; *p; p = &(*p)->next)
		if (*p == f) {
			*p = f->next;
			break;
		}
	while (f->head) {
		struct ik_ucma_event *e = f->head;

		f->head = e->next;
		free(e);
	}
	f->released = true;
	isim_sys_close(f->wr);
	f->wr = -1;
	if (!f->sleepers)
		free(f);
	pthread_mutex_unlock(&ik_cm_lock);
}

/* A GET_EVENT whose file was closed under it.  The kernel's sleeper keeps
 * the file and sleeps on until the process ends; so does this one (poll
 * is a cancellation point for threads that are cancelled). */
static _Noreturn void sleep_forever(struct ik_ucma_file *f)
{
	if (!--f->sleepers)
		free(f);
	pthread_mutex_unlock(&ik_cm_lock);
	for (;;)
		poll(NULL, 0, -1);
}

void ik_ucma_atfork_child(void)
{
	/* The parent's ids live on in the parent; the child starts without
	 * any (its inherited descriptors answer nothing). */
	pthread_mutex_init(&ik_cm_lock, NULL);
	ik_ucma_files = NULL;
	ik_cm_ids = NULL;
	ik_cm_nids = 0;
	ik_cm_agent_atfork_child();
}

/* ---- the id table ---------------------------------------------------- */

struct ik_cm_id *ik_cm_id_new(struct ik_ucma_file *f, uint16_t ps,
			      uint8_t qp_type, uint64_t uid)
{
	struct ik_cm_id *ctx;
	uint32_t h;

	for (h = 0; h < ik_cm_nids; h++)
		if (!ik_cm_ids[h])
			break;
	if (h == ik_cm_nids) {
		uint32_t n = ik_cm_nids ? ik_cm_nids * 2 : 64;
		struct ik_cm_id **t;

		if (n > 65536)
			return NULL; /* librdmacm's index map holds 65536 */
		t = realloc(ik_cm_ids, n * sizeof(*t));
		if (!t)
			return NULL;
		memset(t + ik_cm_nids, 0, (n - ik_cm_nids) * sizeof(*t));
		ik_cm_ids = t;
		ik_cm_nids = n;
	}
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return NULL;
	ctx->handle = h;
	ctx->uid = uid;
	ctx->file = f;
	ctx->ps = ps;
	ctx->qp_type = qp_type;
	ctx->state = IK_CM_IDLE;
	ctx->seq = (uint32_t)random() & 0xffffff;
	ctx->visible = true;
	ctx->lep.fd = -1;
	for (unsigned int k = 0; k < ISIM_MAX_NICS - 1; k++)
		ctx->lep_more[k].fd = -1;
	ik_cm_ids[h] = ctx;
	return ctx;
}

int ik_ucma_get_ctx(struct ik_ucma_file *f, uint32_t handle, bool dev,
		    struct ik_cm_id **out)
{
	struct ik_cm_id *ctx = handle < ik_cm_nids ? ik_cm_ids[handle] : NULL;

	if (!ctx || !ctx->visible)
		return -ENOENT;
	if (ctx->file != f)
		return -EINVAL;
	if (dev && !ctx->has_dev)
		return -EINVAL;
	*out = ctx;
	return 0;
}

int ik_ucma_cmd_ctx(const struct ik_ucma_cmd *c, void *cmd, size_t len,
		    size_t id_off, bool dev, struct ik_cm_id **out)
{
	uint32_t id;

	memcpy(cmd, c->in, len);
	memcpy(&id, (const uint8_t *)cmd + id_off, sizeof(id));
	return ik_ucma_get_ctx(c->f, id, dev, out);
}

void ik_cm_id_destroy(struct ik_cm_id *ctx)
{
	ik_ucma_drop_events(ctx);
	ik_cm_conn_destroy(ctx);
	ik_cm_listen_close(ctx);
	/* children whose request was read outlive their listener */
	for (uint32_t h = 0; h < ik_cm_nids; h++)
		if (ik_cm_ids[h] && ik_cm_ids[h]->listener == ctx)
			ik_cm_ids[h]->listener = NULL;
	if (ctx->handle < ik_cm_nids && ik_cm_ids[ctx->handle] == ctx)
		ik_cm_ids[ctx->handle] = NULL;
	free(ctx);
}

/* ---- events ------------------------------------------------------------ */

static void queue(struct ik_ucma_file *f, struct ik_ucma_event *e)
{
	char token = 0;

	if (f->tail)
		f->tail->next = e;
	else
		f->head = e;
	f->tail = e;
	if (isim_sys_send(f->wr, &token, 1, MSG_DONTWAIT | MSG_NOSIGNAL) != 1)
		isim_trace(ISIM_TR_CMD, "rdma_cm: event token lost: %s",
			   strerror(errno));
}

static struct ik_ucma_event *event_new(struct ik_cm_id *ctx, uint32_t event,
				       int32_t status,
				       const struct rdma_ucm_event_resp *param)
{
	struct ik_ucma_event *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	if (param)
		e->resp = *param;
	e->resp.uid = ctx->uid;
	e->resp.id = ctx->handle;
	e->resp.event = event;
	e->resp.status = status;
	e->ctx = ctx;
	return e;
}

void ik_ucma_event(struct ik_cm_id *ctx, uint32_t event, int32_t status,
		   const struct rdma_ucm_event_resp *param)
{
	struct ik_ucma_event *e;

	/* a child's events before ACCEPT gave it a uid are dropped
	 * (ucma_event_handler) */
	if (!ctx->uid)
		return;
	e = event_new(ctx, event, status, param);
	if (e)
		queue(ctx->file, e);
}

void ik_ucma_event_req(struct ik_cm_id *listener, struct ik_cm_id *child,
		       const struct rdma_ucm_event_resp *param)
{
	struct ik_ucma_event *e =
		event_new(listener, RDMA_CM_EVENT_CONNECT_REQUEST, 0, param);

	if (!e) {
		ik_cm_id_destroy(child);
		return;
	}
	e->resp.id = child->handle;
	e->child = child;
	listener->backlog--;
	queue(listener->file, e);
}

/* Take the token of an event that will never be read, if no GET_EVENT
 * took it already. */
static void take_token(struct ik_ucma_file *f)
{
	char token;

	(void)!isim_sys_recv(f->rd, &token, 1, MSG_DONTWAIT);
}

void ik_ucma_drop_events(struct ik_cm_id *ctx)
{
	struct ik_ucma_file *f = ctx->file;
	bool again = true;

	while (again) {
		struct ik_ucma_event **p, *e = NULL;

		again = false;
		for (p = &f->head; *p; p = &(*p)->next)
			if ((*p)->ctx == ctx || (*p)->child == ctx) {
				e = *p;
				break;
			}
		if (!e)
			break;
		*p = e->next;
		if (f->tail == e) {
			f->tail = NULL;
			for (struct ik_ucma_event *t = f->head; t; t = t->next)
				f->tail = t;
		}
		take_token(f);
		if (e->child && e->child != ctx) {
			/* the listener goes: its unread requests with it */
			e->child->listener = NULL;
			ik_cm_id_destroy(e->child);
		} else if (e->child) {
			e->ctx->backlog++;
		}
		free(e);
		again = true;
	}
}

static int get_event(struct ik_ucma_cmd *c)
{
	struct rdma_ucm_get_event cmd;
	struct ik_ucma_file *f = c->f;
	struct ik_ucma_event *e;
	char token;
	int rc;

	memcpy(&cmd, c->in, sizeof(cmd));
	if (c->out_len < offsetof(struct rdma_ucm_event_resp, reserved))
		return -ENOSPC;
	pthread_mutex_lock(&ik_cm_lock);
	f->sleepers++;
	for (;;) {
		int rd = f->rd, fl = isim_sys_fcntl(rd, F_GETFL, 0), err;
		ssize_t n;

		pthread_mutex_unlock(&ik_cm_lock);
		n = isim_sys_recv(rd, &token, 1,
				  fl >= 0 && (fl & O_NONBLOCK) ? MSG_DONTWAIT :
								 0);
		err = errno;
		pthread_mutex_lock(&ik_cm_lock);
		if (f->released)
			sleep_forever(f);
		if (n < 0) {
			f->sleepers--;
			pthread_mutex_unlock(&ik_cm_lock);
			return err == EWOULDBLOCK ? -EAGAIN : -err;
		}
		e = n ? f->head : NULL;
		if (e)
			break;
	}
	f->sleepers--;
	rc = ik_copy_to_user(cmd.response, &e->resp,
			     c->out_len < sizeof(e->resp) ? c->out_len :
							    sizeof(e->resp));
	if (rc) {
		/* the event stays first in line, with its token */
		(void)!isim_sys_send(f->wr, &token, 1,
				     MSG_DONTWAIT | MSG_NOSIGNAL);
		pthread_mutex_unlock(&ik_cm_lock);
		return rc;
	}
	f->head = e->next;
	if (!f->head)
		f->tail = NULL;
	e->ctx->events_reported++;
	if (e->child) {
		e->child->visible = true;
		e->ctx->backlog++;
	}
	pthread_mutex_unlock(&ik_cm_lock);
	free(e);
	return 0;
}

/* WRITE_CM_EVENT (Linux 6.17 on): an event the application queues on an id
 * of its own file for itself, carrying an 8-byte argument; librdmacm's
 * rdma_resolve_addrinfo reports its result so (an INTERNAL event whose
 * argument is the userspace event).  Only USER and INTERNAL may be
 * written; the id must be visible, no device needed. */
struct ik_ucma_write_event {
	uint32_t id, reserved, event, status;
	uint64_t arg; /* the first 8 bytes of a conn/ud param union */
};

static int write_cm_event(struct ik_ucma_cmd *c)
{
	struct ik_ucma_write_event cmd;
	struct rdma_ucm_event_resp param = { 0 };
	struct ik_cm_id *ctx;
	struct ik_ucma_event *e;
	int rc;

	memcpy(&cmd, c->in, sizeof(cmd));
	if (cmd.event != IK_CM_EVENT_USER && cmd.event != IK_CM_EVENT_INTERNAL)
		return -EINVAL;
	rc = IK_UCMA_CMD_CTX(c, cmd, false, &ctx);
	if (rc)
		return rc;
	memcpy(&param.param, &cmd.arg, sizeof(cmd.arg));
	/* queued even for a child without a uid, as the kernel does */
	e = event_new(ctx, cmd.event, (int32_t)cmd.status, &param);
	if (!e)
		return -ENOMEM;
	queue(ctx->file, e);
	return 0;
}

/* ---- the command parser --------------------------------------------------- */

typedef int (*ucma_handler)(struct ik_ucma_cmd *c);

/* ucma_cmd_table: GET_OPTION and the multicast commands are empty
 * (ionic has no multicast groups: docs/kernel-contract.md §22). */
static const ucma_handler handlers[] = {
	[RDMA_USER_CM_CMD_CREATE_ID] = ik_ucma_create_id,
	[RDMA_USER_CM_CMD_DESTROY_ID] = ik_ucma_destroy_id,
	[RDMA_USER_CM_CMD_RESOLVE_ROUTE] = ik_ucma_resolve_route,
	[RDMA_USER_CM_CMD_CONNECT] = ik_ucma_connect,
	[RDMA_USER_CM_CMD_LISTEN] = ik_ucma_listen,
	[RDMA_USER_CM_CMD_ACCEPT] = ik_ucma_accept,
	[RDMA_USER_CM_CMD_REJECT] = ik_ucma_reject,
	[RDMA_USER_CM_CMD_DISCONNECT] = ik_ucma_disconnect,
	[RDMA_USER_CM_CMD_INIT_QP_ATTR] = ik_ucma_init_qp_attr,
	[RDMA_USER_CM_CMD_GET_EVENT] = get_event,
	[RDMA_USER_CM_CMD_SET_OPTION] = ik_ucma_set_option,
	[RDMA_USER_CM_CMD_NOTIFY] = ik_ucma_notify,
	[RDMA_USER_CM_CMD_MIGRATE_ID] = ik_ucma_migrate_id,
	[RDMA_USER_CM_CMD_QUERY] = ik_ucma_query,
	[RDMA_USER_CM_CMD_BIND] = ik_ucma_bind,
	[RDMA_USER_CM_CMD_RESOLVE_ADDR] = ik_ucma_resolve_addr,
	[IK_UCMA_CMD_WRITE_CM_EVENT] = write_cm_event,
};

static const char *const cmd_names[] = {
	"CREATE_ID",	  "DESTROY_ID",	  "BIND_IP",	"RESOLVE_IP",
	"RESOLVE_ROUTE",  "QUERY_ROUTE",  "CONNECT",	"LISTEN",
	"ACCEPT",	  "REJECT",	  "DISCONNECT", "INIT_QP_ATTR",
	"GET_EVENT",	  "GET_OPTION",	  "SET_OPTION", "NOTIFY",
	"JOIN_IP_MCAST",  "LEAVE_MCAST",  "MIGRATE_ID", "QUERY",
	"BIND",		  "RESOLVE_ADDR", "JOIN_MCAST", "RESOLVE_IB_SERVICE",
	"WRITE_CM_EVENT",
};

ssize_t ik_ucma_input(struct ik_ucma_file *f, const void *buf, size_t len)
{
	struct rdma_ucm_cmd_hdr hdr;
	uint8_t body[UCMA_BODY_MAX] = { 0 };
	struct ik_ucma_cmd c = { .f = f, .in = body };
	int rc;

	if (len < sizeof(hdr))
		return -EINVAL;
	memcpy(&hdr, buf, sizeof(hdr));
	if (hdr.cmd >= sizeof(cmd_names) / sizeof(cmd_names[0]))
		return -EINVAL;
	if (hdr.in + sizeof(hdr) > len)
		return -EINVAL;
	if (hdr.cmd >= sizeof(handlers) / sizeof(handlers[0]) ||
	    !handlers[hdr.cmd])
		return -ENOSYS;
	memcpy(body, (const uint8_t *)buf + sizeof(hdr),
	       hdr.in < sizeof(body) ? hdr.in : sizeof(body));
	c.in_len = hdr.in;
	c.out_len = hdr.out;
	if (hdr.cmd == RDMA_USER_CM_CMD_GET_EVENT) {
		rc = get_event(&c);
	} else {
		pthread_mutex_lock(&ik_cm_lock);
		rc = handlers[hdr.cmd](&c);
		pthread_mutex_unlock(&ik_cm_lock);
	}
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_CMD, "rdma_cm %s in=%u out=%u -> %d",
			   cmd_names[hdr.cmd], hdr.in, hdr.out, rc);
	return rc < 0 ? rc : (ssize_t)len;
}

ssize_t ik_ucma_write(struct ik_ucma_file *f, const void *buf, size_t len)
{
	uint8_t kbuf[sizeof(struct rdma_ucm_cmd_hdr) + UCMA_BODY_MAX];
	size_t n = len < sizeof(kbuf) ? len : sizeof(kbuf);
	int rc = ik_copy_from_user(kbuf, (uint64_t)(uintptr_t)buf, n);
	ssize_t r;

	if (rc)
		return rc;
	r = ik_ucma_input(f, kbuf, n);
	return r == (ssize_t)n ? (ssize_t)len : r;
}
