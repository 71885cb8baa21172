// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Which descriptors are the emulated /dev/infiniband/uverbsN.  One open
 * of the device is one struct ik_file shared by all its dups; the file is
 * released on the last close, as the kernel releases a struct file.
 *
 * Lookups happen on every write/ioctl/mmap/close of every process, so they
 * are one atomic load from a flat array; ishim_fds_tracked lets processes
 * that never opened the device skip even that.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/trace.h"
#include "shim.h"

#define MAX_FDS 65536

struct fdobj {
	struct ik_file *f;
	int refs; /* descriptors referring to this open file */
};

static struct fdobj *_Atomic fdtab[MAX_FDS];
int ishim_fds_tracked;
/* The process the table belongs to.  A vfork() child (posix_spawn,
 * Python's subprocess) runs in its parent's memory with a copy of its
 * descriptors and without fork handlers: what it closes or dup2s must
 * not touch the parent's files. */
static pid_t owner;

bool ishim_fd_foreign_process(void)
{
	pid_t o = __atomic_load_n(&owner, __ATOMIC_RELAXED);

	return o && getpid() != o;
}
static pthread_mutex_t fd_lock = PTHREAD_MUTEX_INITIALIZER;

int ishim_dev_path_index(const char *path)
{
	static const char prefix[] = "/dev/infiniband/uverbs";
	const char *num;

	if (!path || strncmp(path, prefix, sizeof(prefix) - 1))
		return -1;
	num = path + sizeof(prefix) - 1;
	/* uverbsK of the host's NIC k: one digit (ISIM_MAX_NICS), no "01" */
	if (num[0] < '0' || num[0] > '9' || num[1] ||
	    (unsigned int)(num[0] - '0') >= ik_host_get()->nnics)
		return -1;
	return num[0] - '0';
}

ISHIM_RUNTIME_SAFE struct ik_file *ishim_fd_file(int fd)
{
	struct fdobj *o;

	if (!__atomic_load_n(&ishim_fds_tracked, __ATOMIC_RELAXED) || fd < 0 ||
	    fd >= MAX_FDS)
		return NULL;
	o = atomic_load_explicit(&fdtab[fd], memory_order_acquire);
	return o ? o->f : NULL;
}

/* Caller holds fd_lock.  Returns the object to release, if any. */
static struct fdobj *drop_locked(int fd)
{
	struct fdobj *o = atomic_load(&fdtab[fd]);

	if (!o)
		return NULL;
	atomic_store(&fdtab[fd], NULL);
	__atomic_sub_fetch(&ishim_fds_tracked, 1, __ATOMIC_RELAXED);
	return --o->refs ? NULL : o;
}

/* Release outside fd_lock: the model may close its own fds meanwhile,
 * which comes back through our close() interposer. */
static void release(struct fdobj *o)
{
	if (!o)
		return;
	ik_file_release(o->f);
	free(o);
}

static void set_locked(int fd, struct fdobj *o)
{
	o->refs++;
	atomic_store_explicit(&fdtab[fd], o, memory_order_release);
	__atomic_add_fetch(&ishim_fds_tracked, 1, __ATOMIC_RELAXED);
}

int ishim_fd_track_new(int fd, struct ik_file *f)
{
	struct fdobj *o, *old;

	if (fd < 0 || fd >= MAX_FDS)
		return -EMFILE;
	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	o->f = f;
	pthread_mutex_lock(&fd_lock);
	if (!owner)
		__atomic_store_n(&owner, getpid(), __ATOMIC_RELAXED);
	old = drop_locked(fd); /* stale entry: fd closed behind our back */
	set_locked(fd, o);
	pthread_mutex_unlock(&fd_lock);
	release(old);
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_FD, "open uverbs fd=%d file=%p", fd, f);
	return 0;
}

void ishim_fd_track_dup(int oldfd, int newfd)
{
	struct fdobj *o, *old = NULL;

	if (oldfd < 0 || oldfd >= MAX_FDS || newfd < 0 || oldfd == newfd ||
	    !__atomic_load_n(&ishim_fds_tracked, __ATOMIC_RELAXED) ||
	    ishim_fd_foreign_process())
		return;
	pthread_mutex_lock(&fd_lock);
	if (newfd < MAX_FDS)
		old = drop_locked(newfd); /* dup2 over a tracked fd */
	o = atomic_load(&fdtab[oldfd]);
	if (o && newfd < MAX_FDS)
		set_locked(newfd, o);
	pthread_mutex_unlock(&fd_lock);
	release(old);
	if (o && isim_trace_enabled())
		isim_trace(ISIM_TR_FD, "dup uverbs fd=%d -> %d file=%p", oldfd,
			   newfd, o->f);
}

void ishim_fd_untrack(int fd)
{
	struct fdobj *o;

	if (!__atomic_load_n(&ishim_fds_tracked, __ATOMIC_RELAXED) || fd < 0 ||
	    fd >= MAX_FDS || !atomic_load(&fdtab[fd]) ||
	    ishim_fd_foreign_process())
		return;
	pthread_mutex_lock(&fd_lock);
	o = drop_locked(fd);
	pthread_mutex_unlock(&fd_lock);
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_FD, "close uverbs fd=%d%s", fd,
			   o ? " (last: release)" : "");
	release(o);
}

void ishim_fd_atfork_prepare(void)
{
	pthread_mutex_lock(&fd_lock);
}

void ishim_fd_atfork_parent(void)
{
	pthread_mutex_unlock(&fd_lock);
}

void ishim_fd_atfork_child(void)
{
	/* The table itself is inherited with the descriptors, so it is
	 * already consistent; only the lock needs a fresh state. */
	pthread_mutex_init(&fd_lock, NULL);
	if (owner)
		owner = getpid();
}
