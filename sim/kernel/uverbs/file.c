// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: open uverbs files, their handle tables and the
 * teardown of everything a file still owns when its last fd is closed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/sys.h"
#include "../kpriv.h"

int ik_file_open(unsigned int devidx, struct ik_file **out)
{
	struct ik_file *f;
	int rc;

	struct ik_nic *nic;

	rc = ik_model_init(NULL);
	if (!rc)
		rc = ik_nic_get(devidx, &nic); /* -ENODEV beyond the host's */
	if (rc)
		return rc;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->nic = nic;
	f->async_q.rd = f->async_q.wr = f->async_q.peek = -1;
	pthread_mutex_lock(&f->nic->lock);
	/* a dead firmware's admin queue stays KILLED */
	f->killed = f->nic->dead;
	pthread_mutex_lock(&f->nic->chan_lock);
	f->next = f->nic->files;
	f->nic->files = f;
	pthread_mutex_unlock(&f->nic->chan_lock);
	pthread_mutex_unlock(&f->nic->lock);
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_FD, "uverbs%u open file=%p", devidx,
			   (void *)f);
	*out = f;
	return 0;
}

int ik_handle_add(struct ik_file *f, struct ik_uobj *u, enum ik_uobj_type type)
{
	uint32_t h;

	/* xa_alloc: the lowest free handle, shared by all object types */
	for (h = 0; h < f->nhandles; h++)
		if (!f->handles[h])
			break;
	if (h == f->nhandles) {
		uint32_t n = f->nhandles ? f->nhandles * 2 : 16;
		struct ik_uobj **t = realloc(f->handles, n * sizeof(*t));

		if (!t)
			return -ENOMEM;
		memset(t + f->nhandles, 0, (n - f->nhandles) * sizeof(*t));
		f->handles = t;
		f->nhandles = n;
	}
	u->type = type;
	u->handle = h;
	u->file = f;
	f->handles[h] = u;
	return 0;
}

void ik_handle_del(struct ik_file *f, struct ik_uobj *u)
{
	ik_res_forget(u);
	if (u->handle < f->nhandles && f->handles[u->handle] == u)
		f->handles[u->handle] = NULL;
}

void *ik_handle_get(struct ik_file *f, uint32_t handle, enum ik_uobj_type type)
{
	struct ik_uobj *u;

	if (handle >= f->nhandles)
		return NULL;
	u = f->handles[handle];
	return u && u->type == type ? u : NULL;
}

static struct ik_event_queue *channel_find(struct ik_file *f, int fd,
					   unsigned long ino)
{
	/* the fd number alone could have been closed and reused: match the
	 * socket itself */
	for (unsigned int i = 0; i < f->nchannels; i++)
		if (f->channels[i]->rd == fd && f->channels[i]->ino == ino)
			return f->channels[i];
	for (unsigned int i = 0; i < f->nchannels; i++)
		if (f->channels[i]->ino == ino)
			return f->channels[i];
	return NULL;
}

struct ik_event_queue *ik_file_channel(struct ik_file *f, int fd)
{
	struct ik_event_queue *q;
	struct stat st;
	int rc;

	if (fd < 0)
		return NULL;
	if (ik_caller) {
		/* an importer's number names a descriptor of its own: the
		 * socket behind it, seen through its /proc (the access
		 * process_vm_readv has, uaccess.c) */
		char path[48];

		snprintf(path, sizeof(path), "/proc/%d/fd/%d",
			 (int)ik_caller->pid, fd);
		rc = isim_sys_stat(path, &st);
	} else {
		rc = isim_sys_fstat(fd, &st);
	}
	if (rc < 0 || !S_ISSOCK(st.st_mode))
		return NULL;
	pthread_mutex_lock(&f->nic->chan_lock);
	q = channel_find(f, fd, (unsigned long)st.st_ino);
	pthread_mutex_unlock(&f->nic->chan_lock);
	return q;
}

/* Take channel 'q' out of its file (caller holds chan_lock); its model
 * ends are then closed by the caller, outside chan_lock. */
static void channel_unlink(struct ik_file *f, struct ik_event_queue *q)
{
	for (unsigned int i = 0; i < f->nchannels; i++) {
		if (f->channels[i] != q)
			continue;
		f->channels[i] = f->channels[--f->nchannels];
		__atomic_sub_fetch(&f->nic->nchannels, 1, __ATOMIC_RELAXED);
		return;
	}
}

void ik_channel_get(struct ik_event_queue *q)
{
	__atomic_add_fetch(&q->users, 1, __ATOMIC_RELAXED);
}

void ik_channel_put(struct ik_file *f, struct ik_event_queue *q)
{
	bool gone;

	pthread_mutex_lock(&f->nic->chan_lock);
	gone = !__atomic_sub_fetch(&q->users, 1, __ATOMIC_RELAXED) && q->closed;
	if (gone)
		channel_unlink(f, q);
	pthread_mutex_unlock(&f->nic->chan_lock);
	if (gone) {
		ik_evq_close(q);
		free(q);
	}
}

/* ik_fd_closing() for the channels of one NIC. */
static void nic_fd_closing(struct ik_nic *nic, int fd)
{
	struct ik_event_queue *q = NULL;
	struct stat st;

	if (isim_sys_fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode))
		return;
	pthread_mutex_lock(&nic->chan_lock);
	for (struct ik_file *f = nic->files; f && !q; f = f->next) {
		if (f->dead)
			continue;
		q = channel_find(f, fd, (unsigned long)st.st_ino);
		if (!q || q->rd != fd || q->remote)
			q = NULL;
		else if (__atomic_load_n(&q->users, __ATOMIC_RELAXED))
			q->closed = true, q = NULL; /* the last CQ frees it */
		else
			channel_unlink(f, q);
	}
	pthread_mutex_unlock(&nic->chan_lock);
	if (q) {
		ik_evq_close(q);
		free(q);
	}
}

/*
 * The application closes a completion channel's fd
 * (ibv_destroy_comp_channel): the kernel releases the event file once no
 * CQ holds it, and so the model's ends of the socket pair go too.
 * Without this every channel a context ever made would keep two fds
 * until the context is closed.  Only chan_lock is taken: the model's own
 * close() calls come here with its lock held.
 */
void ik_fd_closing(int fd)
{
	ik_import_fd_closing(fd);
	for (unsigned int k = 0; k < ISIM_MAX_NICS && fd >= 0; k++) {
		struct ik_nic *nic =
			__atomic_load_n(&ik_nics[k], __ATOMIC_ACQUIRE);

		if (nic && __atomic_load_n(&nic->nchannels, __ATOMIC_RELAXED))
			nic_fd_closing(nic, fd);
	}
}

void ik_file_channel_closed(struct ik_file *f, int num)
{
	struct ik_event_queue *q = NULL;

	pthread_mutex_lock(&f->nic->chan_lock);
	for (unsigned int i = 0; i < f->nchannels && !q; i++) {
		q = f->channels[i];
		if (!q->remote || q->rd != num || q->closed)
			q = NULL;
	}
	if (q && __atomic_load_n(&q->users, __ATOMIC_RELAXED))
		q->closed = true, q = NULL; /* the last CQ frees it */
	else if (q)
		channel_unlink(f, q);
	pthread_mutex_unlock(&f->nic->chan_lock);
	if (q) {
		ik_evq_close(q);
		free(q);
	}
}

/* Destroy every object of 'type' the file still owns. */
static void release_type(struct ik_file *f, enum ik_uobj_type type)
{
	for (uint32_t h = 0; h < f->nhandles; h++) {
		struct ik_uobj *u = f->handles[h];

		if (!u || u->type != type)
			continue;
		switch (type) {
		case IK_UOBJ_QP:
			ik_qp_free(f, (struct ik_qp *)u);
			break;
		case IK_UOBJ_AH:
			ik_ah_free(f, (struct ik_ah *)u);
			break;
		case IK_UOBJ_MW:
		case IK_UOBJ_MR:
			ik_mr_free(f, (struct ik_mr *)u);
			break;
		case IK_UOBJ_CQ:
			ik_cq_free(f, (struct ik_cq *)u);
			break;
		case IK_UOBJ_PD:
			ik_pd_free(f, (struct ik_pd *)u);
			break;
		}
	}
}

static void close_queues(struct ik_file *f)
{
	struct ik_event_queue **ch;
	unsigned int n;

	ik_evq_close(&f->async_q);
	/* a file inherited across fork() belongs to the parent's NIC, whose
	 * locks a thread the fork did not copy may hold: no locking there */
	if (!f->dead)
		pthread_mutex_lock(&f->nic->chan_lock);
	ch = f->channels;
	n = f->nchannels;
	f->channels = NULL;
	f->nchannels = 0;
	__atomic_sub_fetch(&f->nic->nchannels, n, __ATOMIC_RELAXED);
	if (!f->dead)
		pthread_mutex_unlock(&f->nic->chan_lock);
	for (unsigned int i = 0; i < n; i++) {
		ik_evq_close(ch[i]);
		free(ch[i]);
	}
	free(ch);
}

/*
 * Last close.  Stores to the context's doorbell page (still mapped, or
 * already captured) must not reach queues of a later context that gets
 * the same dbid: the page is revoked and every store captured so far is
 * applied before the objects go.
 */
void ik_file_release(struct ik_file *f)
{
	struct ik_nic *nic = f->nic;

	if (isim_trace_enabled())
		isim_trace(ISIM_TR_FD, "release file=%p%s", (void *)f,
			   f->dead ? " (inherited, dead)" : "");
	if (f->imp) {
		/* the exporter's kernel releases its reference when it
		 * sees the socket close */
		ik_import_release(f->imp);
		free(f);
		return;
	}
	if (f->dead) {
		/* parent's objects: only this process' copies of the model's
		 * fds are ours to close */
		close_queues(f);
		return;
	}
	pthread_mutex_lock(&nic->lock);
	if (f->has_ucontext) {
		ik_plat->dbpage_revoke(ik_nic_tag(nic, f->dbid));
		idev_sync_doorbells(nic->dev);
	}
	/* QPs before the CQs, AHs and PDs they use; MWs and MRs before PDs */
	release_type(f, IK_UOBJ_QP);
	release_type(f, IK_UOBJ_AH);
	release_type(f, IK_UOBJ_MW);
	release_type(f, IK_UOBJ_MR);
	release_type(f, IK_UOBJ_CQ);
	release_type(f, IK_UOBJ_PD);
	close_queues(f);
	ik_mmap_clear(f);
	ik_res_file_release(f);
	if (f->has_ucontext)
		ik_ida_free(&nic->dbid_ida, f->dbid);
	f->has_ucontext = false;
	f->dead = true;
	pthread_mutex_lock(&nic->chan_lock);
	for (struct ik_file **pp = &nic->files; *pp; pp = &(*pp)->next) {
		if (*pp == f) {
			*pp = f->next;
			break;
		}
	}
	pthread_mutex_unlock(&nic->chan_lock);
	free(f->handles);
	pthread_mutex_unlock(&nic->lock);
	free(f);
}
