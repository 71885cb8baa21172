// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: a responder's rings in shared memory, as a
 * direct-path executor maps them (direct_priv.h).  The responder's
 * kernel moved its RQ and CQ rings to memfds (sim/kernel/ringshare.c)
 * and its port's records name them: descriptor, inode, size.  We open
 * the descriptor through /proc/<pid>/fd (allowed exactly when
 * process_vm_* on the pid is), check that it is that file (the inode),
 * sealed against shrinking (no page of our mapping can go away: no
 * SIGBUS in the executor, whatever the owner does) and of that size,
 * and map it.  The mapping outlives the ring: a destroyed ring's memory
 * stays valid here until the record names another file or the QP lets
 * go; the executor checks every offset against the mapping's size, as
 * the record that gives it may be anything a peer scribbled.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "../common/sys.h"
#include "../common/trace.h"
#include "direct_priv.h"
#include "qp.h"

#define DRING_MAX_LEN (1ull << 30)

static void dring_unmap(struct idev_dring *r)
{
	if (r->map)
		isim_sys_munmap(r->map, r->len);
	memset(r, 0, sizeof(*r));
}

void idev_dring_drop(struct idev_qp *d)
{
	dring_unmap(&d->dring_rq);
	dring_unmap(&d->dring_cq);
}

/* Map it; NULL with 'why' set when it is not what the record says. */
static uint8_t *dshare_map(pid_t pid, int32_t fd, uint64_t ino, uint64_t len,
			   const char **why)
{
	char path[64];
	struct stat st;
	uint8_t *m;
	int f, seals;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, (int)fd);
	*why = "open /proc/PID/fd";
	f = isim_sys_open(path, O_RDWR | O_CLOEXEC, 0);
	if (f < 0)
		return NULL;
	seals = isim_sys_fcntl(f, F_GET_SEALS, 0);
	*why = "not the file the record names";
	if (isim_sys_fstat(f, &st) || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_ino != ino || (uint64_t)st.st_size != len ||
	    seals < 0 || !(seals & F_SEAL_SHRINK)) {
		isim_sys_close(f);
		return NULL;
	}
	m = isim_sys_mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
	isim_sys_close(f);
	*why = "mmap";
	return m == MAP_FAILED ? NULL : m;
}

uint8_t *idev_dring_get(struct idev_qp *d, struct idev_dring *r, pid_t pid,
			int32_t fd, uint64_t ino, uint64_t len,
			const char *what)
{
	const char *why = "";

	if (!len || fd < 0 || len > DRING_MAX_LEN || len % 4096)
		return NULL;
	if (r->fd == fd && r->ino == ino && r->len == len &&
	    (r->map || r->failed))
		return r->map;
	dring_unmap(r);
	r->fd = fd;
	r->ino = ino;
	r->len = len;
	r->map = dshare_map(pid, fd, ino, len, &why);
	r->failed = !r->map;
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_DIRECT,
			   "qp %u: the peer's %s ring (pid %d fd %d): %s%s",
			   d->qpn, what, (int)pid, (int)fd,
			   r->map ? "mapped" : "process_vm_*: ",
			   r->map ? "" : why);
	return r->map;
}

void idev_dmr_drop(struct idev_dpeer *p)
{
	for (unsigned int i = 0; i < IDEV_DMRS; i++)
		if (p->mrs[i].map)
			isim_sys_munmap(p->mrs[i].map, p->mrs[i].len);
	memset(p->mrs, 0, sizeof(p->mrs));
	p->mrs_next = 0;
}

uint8_t *idev_dmr_get(struct idev_qp *d, struct idev_dpeer *p,
		      const struct idev_mr_share *s)
{
	struct idev_dmr *m;
	const char *why = "";

	if (!s->len || s->fd < 0 || s->len > DRING_MAX_LEN || s->len % 4096 ||
	    s->addr % 4096 || s->addr + s->len < s->addr)
		return NULL;
	for (unsigned int i = 0; i < IDEV_DMRS; i++) {
		m = &p->mrs[i];
		if (m->fd == s->fd && m->ino == s->ino && m->len == s->len &&
		    (m->map || m->failed))
			return m->map;
	}
	/* a few regions per peer, the oldest mapping makes room */
	m = &p->mrs[p->mrs_next++ % IDEV_DMRS];
	if (m->map)
		isim_sys_munmap(m->map, m->len);
	m->fd = s->fd;
	m->ino = s->ino;
	m->len = s->len;
	m->map = dshare_map(p->pid, s->fd, s->ino, s->len, &why);
	m->failed = !m->map;
	if (isim_trace_enabled())
		isim_trace(
			ISIM_TR_DIRECT,
			"qp %u: the peer's MR memory %#llx (pid %d fd %d): %s%s",
			d->qpn, (unsigned long long)s->addr, (int)p->pid,
			(int)s->fd, m->map ? "mapped" : "process_vm_*: ",
			m->map ? "" : why);
	return m->map;
}
