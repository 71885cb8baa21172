// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device engine: one thread per device, the emulated NIC's
 * processing pipeline.  It sleeps in epoll on
 *   - the doorbell trap eventfd (records popped in capture order),
 *   - every QP's fabric endpoint (incoming packets; and EPOLLOUT while
 *     its backlog waits for the peer to drain, timer.c),
 *   - its own wake eventfd (stop, new timers from application threads),
 * with the nearest QP deadline (RC ACK timeout, RNR wait) or backlog retry
 * as the epoll timeout.  Each wake-up takes the device lock once, does a
 * bounded amount of work and releases it, so application threads issuing
 * verbs commands are never starved.
 *
 * Stopping: idev_destroy() may be called with the lock held (idev.h),
 * so the thread never blocks on the lock unconditionally: it waits in
 * short timed slices and checks the stop flag in between.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "../common/sys.h"
#include "../common/trace.h"
#include "dev.h"
#include "qp.h"

/* epoll tags: kind in the top bits, QP number below. */
#define EV_DB (1ull << 60)
#define EV_WAKE (2ull << 60)
#define EV_QP (3ull << 60)
#define EV_KIND_MASK (0xfull << 60)

#define ENGINE_MAX_EVENTS 64
#define ENGINE_DB_BATCH 256 /* doorbells per lock hold */
#define ENGINE_LOCK_SLICE_NS 20000000ll
#define ENGINE_POKE_SLACK_NS 1000000ull

struct idev_engine {
	struct idev *dev;
	pthread_t thread;
	bool running;
	int epfd;
	int wakefd;
	int dbfd;
	int stop; /* atomic */
	bool db_more; /* doorbells left over from the last batch */
	/* when the engine wakes by itself (ns, monotonic; 0: never), set
	 * under the lock before it sleeps: idev_engine_poke() compares */
	uint64_t sleep_until;
	struct idev_qp *qps; /* QPs whose endpoints it watches */
};

void idev_engine_wake(struct idev_engine *eng)
{
	uint64_t one = 1;

	if (isim_sys_write(eng->wakefd, &one, sizeof(one)) < 0) {
		/* Counter saturated: the engine is awake anyway. */
	}
}

void idev_engine_poke(struct idev_engine *eng, bool more)
{
	uint64_t next;

	if (more) {
		idev_engine_wake(eng);
		return;
	}
	/* A doorbell that only sent frames set nothing new: the common
	 * case costs no system call and no thread switch.  The engine
	 * rounds its sleep up to a millisecond: a deadline it already
	 * knows is up to that much earlier than its wake-up. */
	next = idev_timers_next(&eng->qps, idev_now_ns());
	if (next && (!eng->sleep_until ||
		     next + ENGINE_POKE_SLACK_NS < eng->sleep_until))
		idev_engine_wake(eng);
}

int idev_engine_add(struct idev_engine *eng, struct idev_qp *d)
{
	struct epoll_event ev = {
		.events = EPOLLIN,
		.data.u64 = EV_QP | d->qpn,
	};

	if (epoll_ctl(eng->epfd, EPOLL_CTL_ADD, d->ep.fd, &ev) < 0)
		return -errno;
	d->eng_pollout = false;
	d->eng_next = eng->qps;
	eng->qps = d;
	return 0;
}

void idev_engine_del(struct idev_engine *eng, struct idev_qp *d)
{
	struct idev_qp **pp;

	epoll_ctl(eng->epfd, EPOLL_CTL_DEL, d->ep.fd, NULL);
	for (pp = &eng->qps; *pp; pp = &(*pp)->eng_next) {
		if (*pp == d) {
			*pp = d->eng_next;
			break;
		}
	}
	d->eng_next = NULL;
}

void idev_engine_pollout(struct idev_engine *eng, struct idev_qp *d, bool on)
{
	struct epoll_event ev = {
		.events = EPOLLIN | (on ? EPOLLOUT : 0),
		.data.u64 = EV_QP | d->qpn,
	};

	if (epoll_ctl(eng->epfd, EPOLL_CTL_MOD, d->ep.fd, &ev) == 0)
		d->eng_pollout = on;
}

/* Take the device lock unless a stop is requested; false means "exit". */
static bool engine_lock(struct idev_engine *eng)
{
	struct timespec ts;
	int rc;

	for (;;) {
		if (__atomic_load_n(&eng->stop, __ATOMIC_ACQUIRE))
			return false;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += ENGINE_LOCK_SLICE_NS;
		if (ts.tv_nsec >= 1000000000l) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000l;
		}
		rc = pthread_mutex_timedlock(eng->dev->cfg.lock, &ts);
		if (rc == 0) {
			if (!__atomic_load_n(&eng->stop, __ATOMIC_ACQUIRE))
				return true;
			pthread_mutex_unlock(eng->dev->cfg.lock);
			return false;
		}
		if (rc != ETIMEDOUT)
			return false;
	}
}

/* Apply up to a batch of captured doorbells; returns how many. */
static int engine_doorbells(struct idev_engine *eng)
{
	return idev_doorbells_pop(eng->dev, ENGINE_DB_BATCH, &eng->db_more);
}

static void *engine_main(void *arg)
{
	struct idev_engine *eng = arg;
	struct epoll_event evs[ENGINE_MAX_EVENTS];
	uint64_t cnt;
	int timeout = 0, n, i; /* 0: compute the first timeout at once */

	for (;;) {
		n = epoll_wait(eng->epfd, evs, ENGINE_MAX_EVENTS, timeout);
		if (n < 0)
			n = 0; /* EINTR: just look at the timers */
		if (!engine_lock(eng))
			break;
		idev_enter(eng->dev);
		for (i = 0; i < n; i++) {
			switch (evs[i].data.u64 & EV_KIND_MASK) {
			case EV_WAKE:
				if (isim_sys_read(eng->wakefd, &cnt,
						  sizeof(cnt)) < 0) {
					/* nonblocking: already drained */
				}
				break;
			case EV_DB:
				/* Drain the signal first: a record pushed after
				 * the pops below re-arms it. */
				if (isim_sys_read(eng->dbfd, &cnt,
						  sizeof(cnt)) < 0) {
					/* spurious wake-up */
				}
				engine_doorbells(eng);
				break;
			case EV_QP:
				if (evs[i].events & (EPOLLIN | EPOLLERR))
					idev_rx_batch(
						eng->dev,
						(uint32_t)evs[i].data.u64);
				break;
			}
		}
		if (eng->db_more)
			engine_doorbells(eng);
		timeout = idev_timers_run(eng->dev, &eng->qps, eng->db_more);
		eng->sleep_until =
			timeout < 0 ?
				0 :
				idev_now_ns() + (uint64_t)timeout * 1000000ull;
		idev_leave(eng->dev);
		pthread_mutex_unlock(eng->dev->cfg.lock);
	}
	return NULL;
}

static int engine_watch(struct idev_engine *eng, int fd, uint64_t tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = tag };

	return epoll_ctl(eng->epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

int idev_engine_start(struct idev *dev)
{
	struct idev_engine *eng;
	sigset_t all, old;
	int rc;

	eng = calloc(1, sizeof(*eng));
	if (!eng)
		return -ENOMEM;
	eng->dev = dev;
	eng->epfd = epoll_create1(EPOLL_CLOEXEC);
	eng->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	eng->dbfd = dev->cfg.mmio.eventfd ? dev->cfg.mmio.eventfd() : -1;
	if (eng->epfd < 0 || eng->wakefd < 0) {
		rc = -errno;
		goto err;
	}
	rc = engine_watch(eng, eng->wakefd, EV_WAKE);
	if (!rc && eng->dbfd >= 0)
		rc = engine_watch(eng, eng->dbfd, EV_DB);
	for (struct idev_qp *d = dev->qp_list; !rc && d; d = d->next)
		rc = idev_engine_add(eng, d);
	if (rc)
		goto err;

	/* The engine must not take the application's signals (SIGINT,
	 * SIGALRM, ...): it runs with all of them blocked. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = -pthread_create(&eng->thread, NULL, engine_main, eng);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc)
		goto err;
	eng->running = true;
	dev->engine = eng;
	return 0;
err:
	if (eng->epfd >= 0)
		isim_sys_close(eng->epfd);
	if (eng->wakefd >= 0)
		isim_sys_close(eng->wakefd);
	free(eng);
	return rc;
}

void idev_engine_stop(struct idev *dev)
{
	struct idev_engine *eng = dev->engine;

	if (!eng)
		return;
	__atomic_store_n(&eng->stop, 1, __ATOMIC_RELEASE);
	idev_engine_wake(eng);
	if (eng->running)
		pthread_join(eng->thread, NULL);
	while (eng->qps)
		idev_engine_del(eng, eng->qps);
	isim_sys_close(eng->epfd);
	isim_sys_close(eng->wakefd);
	dev->engine = NULL;
	free(eng);
}

void idev_engine_atfork_child(struct idev_engine *eng)
{
	/* The QPs' endpoints are closed by idev_atfork_child. */
	isim_sys_close(eng->epfd);
	isim_sys_close(eng->wakefd);
	eng->epfd = eng->wakefd = -1;
}
