/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Identifying a loaded libibverbs: which rdma-core release its file name
 * says it is, which layout family its exports and behaviour say it is, and
 * whether a libionic built for a given family may register with it.
 *
 * identify.c is pure logic over what load_guard.c measured (struct
 * ionic_ibv_probe), so it is unit-tested (tests/provider/identify_unit.c)
 * without any library; it depends on families.h only.
 */
#ifndef IONIC_IBVERBS_IDENTIFY_H
#define IONIC_IBVERBS_IDENTIFY_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "families.h"

/* What load_guard.c found out about the libibverbs that loaded libionic. */
struct ionic_ibv_probe {
	/* the library file (its real path, symlinks resolved), or "" */
	char path[PATH_MAX];
	/* from the file name libibverbs.so.1.<minor>.<release>.<patch>:
	 * "<release>.<patch>" and the major number, or "" and -1 */
	char release[32];
	int release_major;
	/* the <minor> of that name (14 or 15), or 0 */
	unsigned int lib_minor;
	/* how many symbols it exports with version IBVERBS_PRIVATE_<pabi>,
	 * or 0 if that could not be counted */
	unsigned int private_exports;
	/* verbs_register_driver_<n>@IBVERBS_PRIVATE_<n> exported: n, or 0 */
	unsigned int pabi;
	/* offset of verbs_qp.comp_mask as ibv_qp_to_qp_ex() reads it, or 0 */
	unsigned int qpx;
	bool opcode_str; /* ibv_wr_opcode_str exported */
	bool cq_ex2; /* ibv_cmd_create_cq_ex2 exported */
	bool port_speed; /* ibv_cmd_query_port_speed exported */
};

enum ionic_ibv_verdict {
	/* release and fingerprint are those of the built family */
	IONIC_IBV_MATCH,
	/* the release is not in the table but lies between two listed
	 * releases of the built family, and the fingerprint is the family's:
	 * register, and log why */
	IONIC_IBV_MATCH_BETWEEN,
	/* the fingerprint matches, but the file name tells no release:
	 * register, and log a warning */
	IONIC_IBV_MATCH_UNLISTED,
	/* another family, no family at all, or a release outside every
	 * family's interval: register nothing */
	IONIC_IBV_MISMATCH,
};

/* Family of an rdma-core major release, IONIC_IBV_FAMILY_NONE if unlisted. */
enum ionic_ibv_family ionic_ibv_family_of_release(int major);

/*
 * The family of an unlisted release that lies between two listed releases
 * of one family (its nearest listed neighbours below and above, stored in
 * *lo and *hi, are of the same family), IONIC_IBV_FAMILY_NONE if it does
 * not (or if it is listed).  A family is a run of consecutive releases, so
 * such a release is almost surely of its neighbours' layout; the caller
 * still compares its fingerprint with the family's.
 */
enum ionic_ibv_family ionic_ibv_family_between(int major, int *lo, int *hi);

/* The family whose fingerprint the probe shows, or IONIC_IBV_FAMILY_NONE. */
enum ionic_ibv_family
ionic_ibv_family_of_probe(const struct ionic_ibv_probe *probe);

/* "A".."G", or "none". */
const char *ionic_ibv_family_name(enum ionic_ibv_family family);

/*
 * Fills probe->release and probe->release_major from a library file name
 * (a path is fine): libibverbs.so.1.14.44.0 gives "44.0" and 44.  Returns
 * false, leaving "" and -1, for any other name.
 */
bool ionic_ibv_release_from_name(const char *file,
				 struct ionic_ibv_probe *probe);

/*
 * May a libionic built for 'built' (from release 'built_release') register
 * with the probed library?  'built_minor' and 'built_exports' are the
 * library file-name minor and private export count of the family's
 * releases (family-<F>.h), which an unlisted release must also have to be
 * taken as the family.  Writes the message to print, one line without a
 * trailing newline, into msg (always terminated; empty for
 * IONIC_IBV_MATCH).
 */
enum ionic_ibv_verdict ionic_ibv_judge(const struct ionic_ibv_probe *probe,
				       enum ionic_ibv_family built,
				       int built_release,
				       unsigned int built_minor,
				       unsigned int built_exports, char *msg,
				       size_t len);

/*
 * Measures the libibverbs libionic's own imports bind to (load_guard.c;
 * the only part that touches a library).  False if there is none to
 * measure (no dladdr() information).
 */
bool ionic_ibv_probe_loaded(struct ionic_ibv_probe *probe);

#endif /* IONIC_IBVERBS_IDENTIFY_H */
