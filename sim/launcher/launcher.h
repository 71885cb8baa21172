/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim launcher internals: the run directory, the fabric node id and
 * the fake sysfs tree of one emulated NIC.
 */
#ifndef ILAUNCH_LAUNCHER_H
#define ILAUNCH_LAUNCHER_H

#include <stdbool.h>
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

/* The RDMAV_DRIVERS prefix of a provider given as its file
 * (...-rdmav<N>.so of any N), its prefix or its directory. 0 or -errno. */
int ilaunch_provider_prefix(const char *path, char *out, size_t len);
/* Whether "<prefix>-rdmav<N>.so" exists for some N. */
bool ilaunch_provider_exists(const char *prefix);

/* `ionic-sim cluster ARGS...` (argv[0] "cluster"): runs the cluster
 * script (cluster.c); returns only on failure, 125. */
int ilaunch_cluster(int argc, char **argv);

#endif /* ILAUNCH_LAUNCHER_H */
