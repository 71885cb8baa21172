// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: the uverbs write() command channel, decoded the
 * way Linux ib_uverbs_write() does (uverbs_main.c: header checks in
 * verify_hdr, udata placement in ib_uverbs_init_udata_buf_or_null).
 *
 * Legacy command:   hdr | core req (first u64 = response ptr) | driver req
 *                   response: core resp | driver resp
 * Extended command: hdr | ex_hdr (response, provider words) | core | driver
 *                   response: core resp (out_words*8) | driver resp
 *
 * Only the commands ionic offers are in the table; any other command the
 * kernel knows is disabled for ionic (no op) and, like an unknown one,
 * fails with EOPNOTSUPP (docs/kernel-contract.md §4.2).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kpriv.h"

#define EXF IB_USER_VERBS_CMD_FLAG_EXTENDED

struct ik_cmd_desc {
	uint32_t cmd; /* EXF set for extended commands */
	const char *name;
	uint16_t req_size; /* minimum core request the kernel accepts */
	uint16_t resp_size; /* minimum core response (0: none) */
	uint16_t resp_full; /* size of the core response we produce */
	int (*fn)(struct ik_cmd *c);
};

/* clang-format 14 and 19 disagree here (tests/check-format.sh) */
/* clang-format off */
#define LEG(c, n, req, resp, fn) \
	{ IB_USER_VERBS_CMD_##c, n, req, resp, resp, fn }
#define EXC(c, n, req, resp, full, fn) \
	{ EXF | IB_USER_VERBS_EX_CMD_##c, n, req, resp, full, fn }
/* clang-format on */

static const struct ik_cmd_desc cmd_table[] = {
	LEG(GET_CONTEXT, "GET_CONTEXT", 8, 8, ik_cmd_get_context),
	LEG(QUERY_DEVICE, "QUERY_DEVICE", 8, 176, ik_cmd_query_device),
	LEG(QUERY_PORT, "QUERY_PORT", 16, 40, ik_cmd_query_port),
	LEG(ALLOC_PD, "ALLOC_PD", 8, 4, ik_cmd_alloc_pd),
	LEG(DEALLOC_PD, "DEALLOC_PD", 4, 0, ik_cmd_dealloc_pd),
	LEG(CREATE_AH, "CREATE_AH", 56, 4, ik_cmd_create_ah),
	LEG(DESTROY_AH, "DESTROY_AH", 4, 0, ik_cmd_destroy_ah),
	LEG(REG_MR, "REG_MR", 40, 12, ik_cmd_reg_mr),
	LEG(DEREG_MR, "DEREG_MR", 4, 0, ik_cmd_dereg_mr),
	LEG(ALLOC_MW, "ALLOC_MW", 16, 8, ik_cmd_alloc_mw),
	LEG(DEALLOC_MW, "DEALLOC_MW", 4, 0, ik_cmd_dealloc_mw),
	LEG(CREATE_COMP_CHANNEL, "CREATE_COMP_CHANNEL", 8, 4,
	    ik_cmd_create_comp_channel),
	LEG(CREATE_CQ, "CREATE_CQ", 32, 8, ik_cmd_create_cq),
	LEG(DESTROY_CQ, "DESTROY_CQ", 16, 8, ik_cmd_destroy_cq),
	LEG(CREATE_QP, "CREATE_QP", 56, 32, ik_cmd_create_qp),
	LEG(QUERY_QP, "QUERY_QP", 16, 128, ik_cmd_query_qp),
	LEG(MODIFY_QP, "MODIFY_QP", 112, 0, ik_cmd_modify_qp),
	LEG(DESTROY_QP, "DESTROY_QP", 16, 4, ik_cmd_destroy_qp),
	/* extended: minimum sizes are offsetofend(.., last required field) */
	EXC(QUERY_DEVICE, "EX_QUERY_DEVICE", 8, 184, 304,
	    ik_cmd_ex_query_device),
	EXC(CREATE_CQ, "EX_CREATE_CQ", 28, 16, 16, ik_cmd_ex_create_cq),
	EXC(CREATE_QP, "EX_CREATE_QP", 52, 40, 40, ik_cmd_ex_create_qp),
	EXC(MODIFY_QP, "EX_MODIFY_QP", 112, 8, 8, ik_cmd_ex_modify_qp),
};

static const struct ik_cmd_desc *cmd_find(uint32_t cmd)
{
	for (size_t i = 0; i < sizeof(cmd_table) / sizeof(cmd_table[0]); i++)
		if (cmd_table[i].cmd == cmd)
			return &cmd_table[i];
	return NULL;
}

int ik_udata_in(const struct ik_cmd *c, void *dst, size_t size)
{
	if (c->uin_len < size)
		return -EINVAL;
	for (size_t i = size; i < c->uin_len; i++)
		if (c->uin[i])
			return -EOPNOTSUPP;
	memcpy(dst, c->uin, size);
	return 0;
}

int ik_udata_empty(const struct ik_cmd *c)
{
	for (size_t i = 0; i < c->uin_len; i++)
		if (c->uin[i])
			return -EOPNOTSUPP;
	return 0;
}

void ik_udata_out(struct ik_cmd *c, const void *src, size_t size)
{
	size_t n = size < c->uout_len ? size : c->uout_len;

	memcpy(c->uout, src, n);
	if (n > c->uout_written)
		c->uout_written = n;
}

static void trace_cmd(const struct ik_cmd_desc *d, uint32_t command,
		      const struct ib_uverbs_cmd_hdr *h, size_t len,
		      const struct ik_cmd *c, ssize_t rc)
{
	char name[32];

	if (!isim_trace_enabled())
		return;
	if (!d)
		snprintf(name, sizeof(name), "cmd_0x%x", command);
	isim_trace(ISIM_TR_CMD,
		   "write %s len=%zu in_words=%u out_words=%u%s%s -> %zd%s%s",
		   d ? d->name : name, len, h->in_words, h->out_words,
		   c && c->uin_len ? " udata_in=" : "",
		   c && c->uin_len ? "yes" : "", rc, c && c->note[0] ? " " : "",
		   c ? c->note : "");
	/* a refused command: show what it asked for */
	if (rc < 0 && c && c->req)
		isim_trace_hex(ISIM_TR_CMD, "  core req", c->req,
			       c->req_len < 128 ? c->req_len : 128);
	if (rc < 0 && c && c->uin_len)
		isim_trace_hex(ISIM_TR_CMD, "  driver req", c->uin,
			       c->uin_len < 64 ? c->uin_len : 64);
}

static ssize_t dispatch(struct ik_file *f, const struct ik_cmd_desc *d,
			struct ik_cmd *c, uint64_t resp_ptr, size_t core_out,
			uint64_t uout_ptr)
{
	size_t scratch = core_out > d->resp_full ? core_out : d->resp_full;
	uint8_t *resp = NULL, *uout = NULL;
	struct ik_nic *nic = f->nic;
	int rc;

	if ((core_out || c->uout_len) && !resp_ptr)
		return -EFAULT;
	/* a response the caller cannot receive fails the command before it
	 * runs: nothing is created that the caller would never learn of
	 * (the kernel unwinds it instead; the caller sees the same) */
	rc = ik_user_writable(resp_ptr, core_out);
	if (!rc)
		rc = ik_user_writable(uout_ptr, c->uout_len);
	if (rc)
		return rc;
	resp = calloc(1, scratch + 8);
	uout = calloc(1, c->uout_len + 8);
	if (!resp || !uout) {
		free(resp);
		free(uout);
		return -ENOMEM;
	}
	c->resp = resp;
	c->resp_len = core_out;
	c->uout = uout;

	ik_nic_lock(nic);
	if (f->dead)
		rc = -EIO;
	else if (!f->has_ucontext && d->cmd != IB_USER_VERBS_CMD_GET_CONTEXT)
		rc = -EINVAL; /* ib_uverbs_get_ucontext: no context yet */
	else
		rc = d->fn(c);
	if (!rc) {
		ik_res_cmd_done(c, d->cmd);
		/* the core part whole, zero-filled past what the command
		 * defines (uverbs_response); of the driver part only what the
		 * driver copied out (ib_copy_to_udata): the rest of the
		 * caller's buffer stays as it was, so a provider reading a
		 * field the driver never wrote reads its own bytes, and
		 * memcheck sees it if they were uninitialised.  A response
		 * buffer the caller cannot write is EFAULT, as from the
		 * kernel; an object the command created stays with the file
		 * until it is released. */
		if (core_out)
			rc = ik_copy_to_user(resp_ptr, resp, core_out);
		if (!rc && c->uout_written)
			rc = ik_copy_to_user(uout_ptr, uout, c->uout_written);
	}
	ik_nic_unlock(nic);
	free(resp);
	free(uout);
	return rc;
}

/* The longest command a header can describe (extended: both word counts
 * at their maximum). */
#define IK_CMD_MAX_LEN                      \
	(sizeof(struct ib_uverbs_cmd_hdr) + \
	 sizeof(struct ib_uverbs_ex_cmd_hdr) + 2 * 0xffffull * 8)

static ssize_t file_write(struct ik_file *f, const uint8_t *b, size_t len);

/*
 * write() on the uverbs fd: the command is copied from the application
 * once, as the kernel does, so a bad buffer is EFAULT and a thread
 * changing the buffer meanwhile cannot make a checked field change under
 * the parser (no double fetch).
 */
ssize_t ik_file_write(struct ik_file *f, const void *buf, size_t len)
{
	uint8_t *kbuf;
	ssize_t rc;

	if (f->imp)
		return ik_import_write(f->imp, buf, len);
	if (len > IK_CMD_MAX_LEN)
		return -EINVAL;
	kbuf = malloc(len ? len : 1);
	if (!kbuf)
		return -ENOMEM;
	rc = ik_copy_from_user(kbuf, (uintptr_t)buf, len);
	if (!rc)
		rc = file_write(f, kbuf, len);
	free(kbuf);
	return rc;
}

static ssize_t file_write(struct ik_file *f, const uint8_t *b, size_t len)
{
	const struct ik_cmd_desc *d;
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_ex_cmd_hdr ex;
	struct ik_cmd c;
	uint64_t resp_ptr = 0, uout_ptr = 0;
	size_t core_out = 0;
	ssize_t rc;

	memset(&c, 0, sizeof(c));
	memset(&hdr, 0, sizeof(hdr));
	if (f->dead) {
		rc = -EIO;
		goto out_nodesc;
	}
	if (len < sizeof(hdr)) {
		rc = -EINVAL;
		goto out_nodesc;
	}
	memcpy(&hdr, b, sizeof(hdr));
	if (hdr.command & ~(uint32_t)(EXF | IB_USER_VERBS_CMD_COMMAND_MASK)) {
		rc = -EINVAL;
		goto out_nodesc;
	}
	d = cmd_find(hdr.command);
	if (!d) {
		rc = -EOPNOTSUPP;
		goto out_nodesc;
	}
	c.f = f;
	c.nic = f->nic;
	c.ex = !!(hdr.command & EXF);

	if (c.ex) {
		size_t count;

		if (len < sizeof(hdr) + sizeof(ex)) {
			rc = -EINVAL;
			goto out;
		}
		memcpy(&ex, b + sizeof(hdr), sizeof(ex));
		count = len - sizeof(hdr) - sizeof(ex);
		if (((size_t)hdr.in_words + ex.provider_in_words) * 8 !=
		    count) {
			rc = -EINVAL;
			goto out;
		}
		if ((size_t)hdr.in_words * 8 < d->req_size) {
			rc = -ENOSPC;
			goto out;
		}
		if (ex.cmd_hdr_reserved) {
			rc = -EINVAL;
			goto out;
		}
		if (ex.response) {
			if (!hdr.out_words && !ex.provider_out_words) {
				rc = -EINVAL;
				goto out;
			}
			if ((size_t)hdr.out_words * 8 < d->resp_size) {
				rc = -ENOSPC;
				goto out;
			}
		} else if (hdr.out_words || ex.provider_out_words) {
			rc = -EINVAL;
			goto out;
		}
		c.req = b + sizeof(hdr) + sizeof(ex);
		c.req_len = (size_t)hdr.in_words * 8;
		c.uin = (const uint8_t *)c.req + c.req_len;
		c.uin_len = (size_t)ex.provider_in_words * 8;
		resp_ptr = ex.response;
		core_out = (size_t)hdr.out_words * 8;
		uout_ptr = resp_ptr + core_out;
		c.uout_len = (size_t)ex.provider_out_words * 8;
	} else {
		if ((size_t)hdr.in_words * 4 != len) {
			rc = -EINVAL;
			goto out;
		}
		if (len < d->req_size + sizeof(hdr)) {
			rc = -ENOSPC;
			goto out;
		}
		if ((size_t)hdr.out_words * 4 < d->resp_size) {
			rc = -ENOSPC;
			goto out;
		}
		c.req = b + sizeof(hdr);
		c.req_len = d->req_size;
		c.uin = (const uint8_t *)c.req + d->req_size;
		c.uin_len = len - sizeof(hdr) - d->req_size;
		if (d->resp_size) {
			/* has_resp: the core request starts with 'response' */
			memcpy(&resp_ptr, c.req, sizeof(resp_ptr));
			core_out = d->resp_size;
			uout_ptr = resp_ptr + core_out;
			c.uout_len = (size_t)hdr.out_words * 4 - d->resp_size;
		}
	}
	rc = dispatch(f, d, &c, resp_ptr, core_out, uout_ptr);
out:
	trace_cmd(d, hdr.command, &hdr, len, &c, rc);
	return rc ? rc : (ssize_t)len;
out_nodesc:
	trace_cmd(NULL, hdr.command, &hdr, len, NULL, rc);
	return rc;
}

/* Copy a core request into a zeroed struct: extended requests may be
 * shorter than the current struct (the kernel zero-extends them). */
void ik_core_req_copy(const struct ik_cmd *c, void *dst, size_t size)
{
	memset(dst, 0, size);
	memcpy(dst, c->req, c->req_len < size ? c->req_len : size);
}
