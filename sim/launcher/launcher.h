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

#include "../common/nics.h"
#include "../common/profile.h"

struct ifab_relay;

/* Hold "\0ionic-sim/<fabric>/node/<n>" for the lowest free n >= 1.
 * Returns the node id and the socket in *fd (kept open, close-on-exec:
 * the kernel releases the name however the launcher ends). 0 on failure. */
uint32_t ilaunch_node_claim(const char *fabric, int *fd);

/* mkdtemp "<tmp>/ionic-sim.<pid>.XXXXXX"; removes directories left by
 * launchers that no longer exist first. 0 or -errno. */
int ilaunch_rundir_create(char *path, size_t len);
/* rm -rf, without following symlinks. */
int ilaunch_rundir_remove(const char *path);

/* The NICs of the run (nics.c): node k is NIC k's. */
struct ilaunch_nics {
	unsigned int n; /* --nics, 1..ISIM_MAX_NICS */
	unsigned int claimed; /* node ids held so far */
	uint32_t node[ISIM_MAX_NICS];
	int node_fd[ISIM_MAX_NICS];
	char addr[ISIM_MAX_NICS][16]; /* IPv4, with --transport udp */
	struct ifab_relay *relay[ISIM_MAX_NICS];
};

/* --nics VALUE: 1..ISIM_MAX_NICS, else a message and -EINVAL. */
int ilaunch_nics_count(const char *val, unsigned int *n);
/* --addr VALUE for ns->n NICs: one address (NIC k gets A + k) or one per
 * NIC, comma-separated.  0, or a message and -EINVAL. */
int ilaunch_nics_addrs(struct ilaunch_nics *ns, const char *spec);
/* Claim ns->n node ids and name them in the environment. 0 or -errno
 * (with a message); ilaunch_nics_release() frees what was claimed. */
int ilaunch_nics_claim(struct ilaunch_nics *ns, const char *fabric);
/* The transport's environment; with UDP a relay per NIC, on the
 * addresses ilaunch_nics_addrs() gave ('given') or the first free ones. */
int ilaunch_nics_transport(struct ilaunch_nics *ns, bool udp, bool given);
/* The relays share what the wire holds in the run directory. */
int ilaunch_nics_share(struct ilaunch_nics *ns, const char *rundir);
/* Stop the relays (reporting what they saw if 'status' is not 0) and
 * let go of the node ids. */
void ilaunch_nics_release(struct ilaunch_nics *ns, int status);

/* Write <root>/class/... for devices ionic_0.. / uverbs0.. / isim0.., NIC k
 * of node nodes[k]. */
int ilaunch_sysfs_write(const char *root, const struct isim_profile *p,
			const uint32_t *nodes, unsigned int n);

/* The RDMAV_DRIVERS prefix of a provider given as its file
 * (...-rdmav<N>.so of any N), its prefix or its directory. 0 or -errno. */
int ilaunch_provider_prefix(const char *path, char *out, size_t len);
/* Whether "<prefix>-rdmav<N>.so" exists for some N. */
bool ilaunch_provider_exists(const char *prefix);

/* `ionic-sim cluster ARGS...` (argv[0] "cluster"): runs the cluster
 * script (cluster.c); returns only on failure, 125. */
int ilaunch_cluster(int argc, char **argv);

#endif /* ILAUNCH_LAUNCHER_H */
