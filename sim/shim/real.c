// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The libc definitions behind our interposers.  RTLD_NEXT from the
 * preload finds the next definition in lookup order (normally libc).
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim.h"

ISHIM_RUNTIME_SAFE void *ishim_real(const char *name)
{
	void *fn = dlsym(RTLD_NEXT, name);

	if (!fn) {
		static const char msg[] =
			"ionic-sim: cannot resolve libc symbol ";

		syscall(SYS_write, 2, msg, sizeof(msg) - 1);
		syscall(SYS_write, 2, name, strlen(name));
		syscall(SYS_write, 2, "\n", 1);
		abort();
	}
	return fn;
}
