/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim launcher internals: the run directory, the fabric node id and
 * the fake sysfs tree of one emulated NIC.
 */
#ifndef ILAUNCH_LAUNCHER_H
#define ILAUNCH_LAUNCHER_H

#include <stddef.h>
#include <stdint.h>

#include "../common/profile.h"

/* Hold "\0ionic-sim/<fabric>/node/<n>" for the lowest free n >= 1.
 * Returns the node id and the socket in *fd (kept open, close-on-exec:
 * the kernel releases the name however the launcher ends). 0 on failure. */
uint32_t ilaunch_node_claim(const char *fabric, int *fd);

/* mkdtemp "<tmp>/ionic-sim.<pid>.XXXXXX"; removes directories left by
 * launchers that no longer exist first. 0 or -errno. */
int ilaunch_rundir_create(char *path, size_t len);
/* rm -rf, without following symlinks. */
int ilaunch_rundir_remove(const char *path);

/* Write <root>/class/... for device ionic_0 / uverbs0 of node 'node'. */
int ilaunch_sysfs_write(const char *root, const struct isim_profile *p,
			uint32_t node);

#endif /* ILAUNCH_LAUNCHER_H */
