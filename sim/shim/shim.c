// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Preload start-up and process-level hooks: model initialisation on the
 * first device open, fork handling, and the SIGSEGV disposition the
 * application sees once the doorbell trap owns the real one.
 *
 * The constructor only registers fork handlers, so ordinary processes of
 * a run (shells, sleep, interpreters) pay nothing for the preload.
 */
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>

#include "../common/trace.h"
#include "shim.h"

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;

/* What the model may ask of the platform: the doorbell trap. */
static const struct ik_platform shim_platform = {
	.dbpage_map = ishim_dbpage_map,
	.window_map = ishim_window_map,
	.dbpage_revoke = ishim_dbpage_revoke,
	.mmio = { .eventfd = ishim_dbtrap_eventfd, .pop = ishim_dbtrap_pop },
	.mmio_set_apply = ishim_dbtrap_set_apply,
};
static bool model_started;
static int model_rc;

int ishim_shim_model_init(void)
{
	int rc;

	pthread_mutex_lock(&init_lock);
	if (!model_started) {
		model_rc = ik_model_init(&shim_platform);
		/* Retrying after a failure would only fail again the same way
		 * (bad profile or environment); remember the answer. */
		model_started = true;
		if (isim_trace_enabled())
			isim_trace(ISIM_TR_FD, "model init rc=%d", model_rc);
	}
	rc = model_rc;
	pthread_mutex_unlock(&init_lock);
	return rc;
}

static void atfork_prepare(void)
{
	pthread_mutex_lock(&init_lock);
	ishim_fd_atfork_prepare();
	ishim_dbtrap_atfork_prepare();
}

static void atfork_parent(void)
{
	ishim_dbtrap_atfork_parent();
	ishim_fd_atfork_parent();
	pthread_mutex_unlock(&init_lock);
}

static void atfork_child(void)
{
	pthread_mutex_init(&init_lock, NULL);
	isim_trace_atfork_child();
	ishim_dbtrap_atfork_child();
	ishim_fd_atfork_child();
	ishim_nl_atfork_child();
	/* The child starts with a fresh device; inherited contexts are dead
	 * (the model's business).  A process that never used the device
	 * has no model to tell. */
	if (model_started && model_rc == 0)
		ik_model_atfork_child();
}

__attribute__((constructor)) static void shim_init(void)
{
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
	ishim_model_start = ishim_shim_model_init;
}

/* ---- SIGSEGV as the application sees it --------------------------------- */

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef sighandler_t (*signal_fn)(int, sighandler_t);

ISHIM_RUNTIME_SAFE int sigaction(int sig, const struct sigaction *act,
				 struct sigaction *old)
{
	if (sig == SIGSEGV && ishim_dbtrap_app_sigaction(act, old))
		return 0;
	return ISHIM_REAL(sigaction, sigaction_fn)(sig, act, old);
}

ISHIM_RUNTIME_SAFE sighandler_t signal(int sig, sighandler_t handler)
{
	struct sigaction sa, old;

	if (sig == SIGSEGV) {
		/* glibc's signal() has BSD semantics: SA_RESTART, no reset */
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = handler;
		sa.sa_flags = SA_RESTART;
		sigemptyset(&sa.sa_mask);
		/* sa_handler and sa_sigaction share storage: an SA_SIGINFO
		 * handler comes back as its address, as from libc. */
		if (ishim_dbtrap_app_sigaction(&sa, &old))
			return old.sa_handler;
	}
	return ISHIM_REAL(signal, signal_fn)(sig, handler);
}
