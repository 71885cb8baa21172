// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: resource tracking across the processes of a
 * node (restrack.h).  Layout of $IONIC_SIM_RUNDIR/restrack/:
 *
 *   ids    one page: the next id of each type, shared by the node, so ids
 *          are unique as the kernel's (cyclic per device, from 0)
 *   <pid>  one process' records: a 64-byte header, then the slots
 *
 * Without a run directory (the preload used on its own) the table lives
 * in anonymous memory and only the process itself is visible.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../common/profile.h"
#include "../common/sys.h"
#include "restrack.h"

#define RES_MAGIC 0x52455331u /* "RES1" */
#define RES_HDR 64
#define RES_FIRST_SLOTS 63 /* header + 63 slots = one page */

struct res_hdr {
	uint32_t magic;
	uint32_t nslots;
};

static pthread_mutex_t res_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *table; /* header + slots, shared with readers */
static uint32_t nslots;
static int table_fd = -1;
static uint32_t *next_id; /* [IK_RES_NTYPES], node-wide when shared */
static uint32_t local_ids[IK_RES_NTYPES];
static bool tried;
static char dir[512];

static void *map(size_t len, int prot, int fd)
{
	void *p = isim_sys_mmap(
		NULL, len, prot,
		fd < 0 ? MAP_PRIVATE | MAP_ANONYMOUS : MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void unmap(void *p, size_t len)
{
	isim_sys_munmap(p, len);
}

static struct ik_res_rec *slot_at(uint8_t *base, uint32_t i)
{
	return (struct ik_res_rec *)(base + RES_HDR) + i;
}

static const char *res_dir(void)
{
	const char *run = getenv(ISIM_ENV_RUNDIR);

	if (!run || !*run)
		return NULL;
	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "%s/restrack", run);
		if (mkdir(dir, 0755) && errno != EEXIST) {
			dir[0] = 0;
			return NULL;
		}
	}
	return dir;
}

static void ids_open(const char *d)
{
	char path[600];
	int fd;

	snprintf(path, sizeof(path), "%s/ids", d);
	fd = isim_sys_open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	/* racing creators all truncate to the same size: contents stay */
	if (ftruncate(fd, 4096) == 0)
		next_id = map(4096, PROT_READ | PROT_WRITE, fd);
	isim_sys_close(fd);
}

static int table_grow(void)
{
	uint32_t n = nslots ? nslots * 2 + 1 : RES_FIRST_SLOTS;
	size_t len = RES_HDR + (size_t)n * sizeof(struct ik_res_rec);
	uint8_t *p;

	if (table_fd >= 0 && ftruncate(table_fd, (off_t)len))
		return -errno;
	p = map(len, PROT_READ | PROT_WRITE, table_fd);
	if (!p)
		return -ENOMEM;
	if (table) {
		/* the file already holds the old slots; anonymous memory
		 * must be copied */
		if (table_fd < 0)
			memcpy(p, table,
			       RES_HDR + (size_t)nslots *
						 sizeof(struct ik_res_rec));
		unmap(table,
		      RES_HDR + (size_t)nslots * sizeof(struct ik_res_rec));
	}
	table = p;
	nslots = n;
	((struct res_hdr *)table)->magic = RES_MAGIC;
	__atomic_store_n(&((struct res_hdr *)table)->nslots, n,
			 __ATOMIC_RELEASE);
	return 0;
}

static int table_init(void)
{
	const char *d;
	char path[600];

	if (table)
		return 0;
	if (tried)
		return -ENOMEM;
	tried = true;
	d = res_dir();
	if (d) {
		ids_open(d);
		snprintf(path, sizeof(path), "%s/%d", d, (int)getpid());
		table_fd = isim_sys_open(
			path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	}
	if (!next_id)
		next_id = local_ids;
	return table_grow();
}

static void rec_write(struct ik_res_rec *dst, const struct ik_res_rec *src)
{
	uint32_t seq = __atomic_load_n(&dst->seq, __ATOMIC_RELAXED);

	__atomic_store_n(&dst->seq, seq | 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy((uint8_t *)dst + sizeof(dst->seq),
	       (const uint8_t *)src + sizeof(src->seq),
	       sizeof(*dst) - sizeof(dst->seq));
	__atomic_store_n(&dst->seq, (seq | 1) + 1, __ATOMIC_RELEASE);
}

int32_t ik_res_add(const struct ik_res_rec *r)
{
	struct ik_res_rec rec = *r;
	int32_t slot = -1;
	uint32_t i;

	if (!r->type || r->type >= IK_RES_NTYPES)
		return -1;
	pthread_mutex_lock(&res_lock);
	if (table_init())
		goto out;
	for (i = 0; i < nslots; i++)
		if (!slot_at(table, i)->type)
			break;
	if (i == nslots && table_grow())
		goto out;
	if (r->type != IK_RES_QP)
		rec.id = __atomic_fetch_add(&next_id[r->type], 1,
					    __ATOMIC_RELAXED);
	rec.pid = (uint32_t)getpid();
	rec_write(slot_at(table, i), &rec);
	slot = (int32_t)i;
out:
	pthread_mutex_unlock(&res_lock);
	return slot;
}

void ik_res_update(int32_t slot, const struct ik_res_rec *r)
{
	struct ik_res_rec rec = *r;
	struct ik_res_rec *s;

	if (slot < 0)
		return;
	pthread_mutex_lock(&res_lock);
	if (table && (uint32_t)slot < nslots) {
		s = slot_at(table, (uint32_t)slot);
		rec.type = s->type;
		rec.dev = s->dev;
		rec.id = s->id;
		rec.pid = s->pid;
		rec_write(s, &rec);
	}
	pthread_mutex_unlock(&res_lock);
}

void ik_res_del(int32_t slot)
{
	struct ik_res_rec zero;

	if (slot < 0)
		return;
	memset(&zero, 0, sizeof(zero));
	pthread_mutex_lock(&res_lock);
	if (table && (uint32_t)slot < nslots)
		rec_write(slot_at(table, (uint32_t)slot), &zero);
	pthread_mutex_unlock(&res_lock);
}

uint32_t ik_res_id(int32_t slot)
{
	uint32_t id = 0;

	if (slot < 0)
		return 0;
	pthread_mutex_lock(&res_lock);
	if (table && (uint32_t)slot < nslots)
		id = slot_at(table, (uint32_t)slot)->id;
	pthread_mutex_unlock(&res_lock);
	return id;
}

uint8_t ik_res_qp_state(int32_t slot)
{
	uint8_t state = 0;

	if (slot < 0)
		return 0;
	pthread_mutex_lock(&res_lock);
	if (table && (uint32_t)slot < nslots)
		state = slot_at(table, (uint32_t)slot)->qp_state;
	pthread_mutex_unlock(&res_lock);
	return state;
}

/* Copy a record another thread or process may be rewriting. */
static bool rec_read(const struct ik_res_rec *src, struct ik_res_rec *out)
{
	for (int tries = 0; tries < 1000; tries++) {
		uint32_t s1 = __atomic_load_n(&src->seq, __ATOMIC_ACQUIRE);

		if (s1 & 1)
			continue;
		memcpy(out, src, sizeof(*out));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&src->seq, __ATOMIC_RELAXED) == s1)
			return true;
	}
	return false;
}

static uint64_t walk_table(const uint8_t *base, uint32_t n, uint8_t type,
			   ik_res_visit_fn fn, void *ctx, bool *stop)
{
	uint64_t count = 0;

	for (uint32_t i = 0; i < n && !*stop; i++) {
		struct ik_res_rec r;

		if (!rec_read(slot_at((uint8_t *)base, i), &r) ||
		    r.type != type)
			continue;
		count++;
		if (fn && fn(ctx, &r))
			*stop = true;
	}
	return count;
}

static uint64_t walk_file(const char *d, const char *name, uint8_t type,
			  ik_res_visit_fn fn, void *ctx, bool *stop)
{
	char path[600];
	struct stat st;
	uint64_t count = 0;
	uint32_t n;
	uint8_t *p;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", d, name);
	fd = isim_sys_open(path, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	if (isim_sys_fstat(fd, &st) == 0 && (size_t)st.st_size >= RES_HDR) {
		p = map((size_t)st.st_size, PROT_READ, fd);
		if (p) {
			const struct res_hdr *h = (const struct res_hdr *)p;

			n = __atomic_load_n(&h->nslots, __ATOMIC_ACQUIRE);
			if (h->magic == RES_MAGIC &&
			    RES_HDR + (size_t)n * sizeof(struct ik_res_rec) <=
				    (size_t)st.st_size)
				count = walk_table(p, n, type, fn, ctx, stop);
			unmap(p, (size_t)st.st_size);
		}
	}
	isim_sys_close(fd);
	return count;
}

uint64_t ik_res_walk(uint8_t type, ik_res_visit_fn fn, void *ctx)
{
	const char *d = res_dir();
	uint64_t count = 0;
	bool stop = false;
	struct dirent *de;
	DIR *dp;

	/* 0 marks a free slot: it is no kind of object (nldev's CM_ID and
	 * SRQ tables, which have none, must not list the free slots) */
	if (!type || type >= IK_RES_NTYPES)
		return 0;
	pthread_mutex_lock(&res_lock);
	if (table)
		count += walk_table(table, nslots, type, fn, ctx, &stop);
	pthread_mutex_unlock(&res_lock);
	if (!d || stop)
		return count;
	dp = isim_sys_opendir(d);
	if (!dp)
		return count;
	while (!stop && (de = readdir(dp))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0 || pid == (long)getpid())
			continue;
		/* a process that died keeps its file: its objects died
		 * with it, as the kernel's cleanup would have them */
		if (kill((pid_t)pid, 0) && errno == ESRCH)
			continue;
		count += walk_file(d, de->d_name, type, fn, ctx, &stop);
	}
	closedir(dp);
	return count;
}

void ik_res_atfork_child(void)
{
	pthread_mutex_init(&res_lock, NULL);
	/* the inherited mapping is the parent's file: leave it alone */
	table = NULL;
	nslots = 0;
	if (table_fd >= 0)
		isim_sys_close(table_fd);
	table_fd = -1;
	tried = false;
	if (next_id == local_ids)
		next_id = NULL;
}
