// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Which rdma-core release and layout family a loaded libibverbs is, and
 * whether a libionic build may register with it (identify.h).
 *
 * Two independent witnesses:
 *  - the file name: rdma-core names the library libibverbs.so.1.<abi
 *    minor>.<release>.<patch> in every release, and distributions keep it;
 *    it names the release, which families.h maps to a family;
 *  - the fingerprint: the private ABI number of the registration symbol,
 *    the verbs_qp layout the library itself uses and three exports that
 *    appeared at family boundaries.  Within private ABI 34 this is what
 *    separates A, B, C, D and E, and it is what decides memory safety.
 * A build registers only if the fingerprint is its family's and the name
 * says a release of that family: a listed one, or an unlisted one that lies
 * between two listed releases of the family (the same rule as
 * cmake/IbverbsPrivate.cmake).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "identify.h"

struct ionic_ibv_family_row {
	enum ionic_ibv_family family;
	const char *name;
	unsigned int pabi;
	unsigned int qpx;
	bool opcode_str;
	bool cq_ex2;
	bool port_speed;
};

static const struct ionic_ibv_family_row ionic_ibv_family_rows[] = {
#define IONIC_IBV_FAMILY_ROW(f, pabi, qpx, opcode_str, cq_ex2, port_speed) \
	{ IONIC_IBV_FAMILY_##f, #f, pabi, qpx, opcode_str, cq_ex2, port_speed },
	IONIC_IBV_FAMILIES(IONIC_IBV_FAMILY_ROW)
#undef IONIC_IBV_FAMILY_ROW
};

static const struct {
	int major;
	enum ionic_ibv_family family;
} ionic_ibv_release_rows[] = {
#define IONIC_IBV_RELEASE_ROW(major, f) { major, IONIC_IBV_FAMILY_##f },
	IONIC_IBV_RELEASES(IONIC_IBV_RELEASE_ROW)
#undef IONIC_IBV_RELEASE_ROW
};

#define IONIC_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

enum ionic_ibv_family ionic_ibv_family_of_release(int major)
{
	size_t i;

	for (i = 0; i < IONIC_ARRAY_LEN(ionic_ibv_release_rows); i++)
		if (ionic_ibv_release_rows[i].major == major)
			return ionic_ibv_release_rows[i].family;
	return IONIC_IBV_FAMILY_NONE;
}

enum ionic_ibv_family ionic_ibv_family_between(int major, int *lo, int *hi)
{
	enum ionic_ibv_family below = IONIC_IBV_FAMILY_NONE;
	enum ionic_ibv_family above = IONIC_IBV_FAMILY_NONE;
	size_t i;

	*lo = -1;
	*hi = -1;
	if (ionic_ibv_family_of_release(major) != IONIC_IBV_FAMILY_NONE)
		return IONIC_IBV_FAMILY_NONE;
	for (i = 0; i < IONIC_ARRAY_LEN(ionic_ibv_release_rows); i++) {
		int r = ionic_ibv_release_rows[i].major;

		if (r < major && r > *lo) {
			*lo = r;
			below = ionic_ibv_release_rows[i].family;
		} else if (r > major && (*hi < 0 || r < *hi)) {
			*hi = r;
			above = ionic_ibv_release_rows[i].family;
		}
	}
	if (below == IONIC_IBV_FAMILY_NONE || below != above)
		return IONIC_IBV_FAMILY_NONE;
	return below;
}

enum ionic_ibv_family
ionic_ibv_family_of_probe(const struct ionic_ibv_probe *probe)
{
	size_t i;

	for (i = 0; i < IONIC_ARRAY_LEN(ionic_ibv_family_rows); i++) {
		const struct ionic_ibv_family_row *r =
			&ionic_ibv_family_rows[i];

		if (r->pabi == probe->pabi && r->qpx == probe->qpx &&
		    r->opcode_str == probe->opcode_str &&
		    r->cq_ex2 == probe->cq_ex2 &&
		    r->port_speed == probe->port_speed)
			return r->family;
	}
	return IONIC_IBV_FAMILY_NONE;
}

const char *ionic_ibv_family_name(enum ionic_ibv_family family)
{
	size_t i;

	for (i = 0; i < IONIC_ARRAY_LEN(ionic_ibv_family_rows); i++)
		if (ionic_ibv_family_rows[i].family == family)
			return ionic_ibv_family_rows[i].name;
	return "none";
}

/* "46, 48": the listed releases of a family. */
static void ionic_ibv_family_releases(enum ionic_ibv_family family, char *out,
				      size_t len)
{
	size_t i, used = 0;

	out[0] = '\0';
	for (i = 0; i < IONIC_ARRAY_LEN(ionic_ibv_release_rows); i++) {
		int n;

		if (ionic_ibv_release_rows[i].family != family)
			continue;
		n = snprintf(out + used, len - used, "%s%d", used ? ", " : "",
			     ionic_ibv_release_rows[i].major);
		if (n < 0 || (size_t)n >= len - used)
			return;
		used += (size_t)n;
	}
}

/* Parses one decimal number at *s, advancing *s; -1 if there is none. */
static long ionic_ibv_number(const char **s)
{
	char *end;
	long v;

	if (**s < '0' || **s > '9')
		return -1;
	v = strtol(*s, &end, 10);
	*s = end;
	return v;
}

bool ionic_ibv_release_from_name(const char *file,
				 struct ionic_ibv_probe *probe)
{
	static const char stem[] = "libibverbs.so.1.";
	const char *base = strrchr(file, '/');
	const char *s, *rel;
	long minor, major, patch;

	probe->release[0] = '\0';
	probe->release_major = -1;
	probe->lib_minor = 0;

	base = base ? base + 1 : file;
	if (strncmp(base, stem, sizeof(stem) - 1))
		return false;
	s = base + sizeof(stem) - 1;
	minor = ionic_ibv_number(&s);
	if (minor < 0 || *s++ != '.')
		return false;
	rel = s;
	major = ionic_ibv_number(&s);
	if (major < 0 || major > 9999 || *s++ != '.')
		return false;
	patch = ionic_ibv_number(&s);
	if (patch < 0 || patch > 9999 || *s)
		return false;

	snprintf(probe->release, sizeof(probe->release), "%.*s", (int)(s - rel),
		 rel);
	probe->release_major = (int)major;
	probe->lib_minor = minor > 9999 ? 0 : (unsigned int)minor;
	return true;
}

enum ionic_ibv_verdict ionic_ibv_judge(const struct ionic_ibv_probe *probe,
				       enum ionic_ibv_family built,
				       int built_release,
				       unsigned int built_minor,
				       unsigned int built_exports, char *msg,
				       size_t len)
{
	enum ionic_ibv_family by_print = ionic_ibv_family_of_probe(probe);
	enum ionic_ibv_family by_name =
		ionic_ibv_family_of_release(probe->release_major);
	const char *path = probe->path[0] ? probe->path : "libibverbs";
	char built_rels[96], found[96];
	int lo = -1, hi = -1;

	msg[0] = '\0';
	ionic_ibv_family_releases(built, built_rels, sizeof(built_rels));
	if (probe->release[0] && by_name == IONIC_IBV_FAMILY_NONE)
		by_name = ionic_ibv_family_between(probe->release_major, &lo,
						   &hi);

	if (probe->release[0])
		snprintf(found, sizeof(found), "rdma-core %s", probe->release);
	else
		snprintf(found, sizeof(found), "of unknown rdma-core release");

	if (by_print == built && by_name == built) {
		if (lo < 0)
			return IONIC_IBV_MATCH;
		if (probe->lib_minor != built_minor ||
		    probe->private_exports != built_exports) {
			snprintf(
				msg, len,
				"libionic: the ionic provider is not registered: %s is rdma-core %s, which libionic does not list; it lies between rdma-core %d and %d of layout family %s, which this libionic was built for (rdma-core %d), but it is libibverbs.so.1.%u with %u private exports where the family's releases are libibverbs.so.1.%u with %u.  Rebuild libionic against this libibverbs's development files",
				path, probe->release, lo, hi,
				ionic_ibv_family_name(built), built_release,
				probe->lib_minor, probe->private_exports,
				built_minor, built_exports);
			return IONIC_IBV_MISMATCH;
		}
		snprintf(
			msg, len,
			"libionic: %s is rdma-core %s, which libionic does not list; accepted as layout family %s: it lies between rdma-core %d and %d of that family and its private ABI fingerprint is the family's",
			path, probe->release, ionic_ibv_family_name(built), lo,
			hi);
		return IONIC_IBV_MATCH_BETWEEN;
	}
	if (by_print == built && !probe->release[0]) {
		snprintf(
			msg, len,
			"libionic: warning: %s is %s; its private ABI fingerprint is that of family %s (rdma-core %s), which this libionic was built for (rdma-core %d), so the ionic provider is registered",
			path, found, ionic_ibv_family_name(built), built_rels,
			built_release);
		return IONIC_IBV_MATCH_UNLISTED;
	}

	if (probe->release[0] && by_name == IONIC_IBV_FAMILY_NONE) {
		snprintf(
			msg, len,
			"libionic: the ionic provider is not registered: this libionic was built for rdma-core %d (libibverbs layout family %s: rdma-core %s) but was loaded by %s, %s, which libionic does not list and which lies between no two releases of one layout family, so its private provider ABI is not known to be this build's.  Install the libionic built for this rdma-core, or rebuild libionic against this libibverbs's development files (cmake option IONIC_IBVERBS_PREFIX for a libibverbs outside the system)",
			built_release, ionic_ibv_family_name(built), built_rels,
			path, found);
		return IONIC_IBV_MISMATCH;
	}

	if (by_print == by_name || by_name == IONIC_IBV_FAMILY_NONE) {
		char what[160];

		if (by_print == IONIC_IBV_FAMILY_NONE)
			snprintf(
				what, sizeof(what),
				"whose private ABI matches no layout family libionic knows (ABI %u, verbs_qp.comp_mask at %u)",
				probe->pabi, probe->qpx);
		else
			snprintf(what, sizeof(what), "layout family %s",
				 ionic_ibv_family_name(by_print));
		snprintf(
			msg, len,
			"libionic: the ionic provider is not registered: this libionic was built for rdma-core %d (libibverbs layout family %s: rdma-core %s) but was loaded by %s, %s, %s.  Its private provider ABI is different: the provider would corrupt memory.  Install the libionic built for this rdma-core, or rebuild libionic against this libibverbs's development files (cmake option IONIC_IBVERBS_PREFIX for a libibverbs outside the system)",
			built_release, ionic_ibv_family_name(built), built_rels,
			path, found, what);
		return IONIC_IBV_MISMATCH;
	}

	/* name and fingerprint disagree: trust neither */
	snprintf(
		msg, len,
		"libionic: the ionic provider is not registered: %s is named as rdma-core %s (layout family %s%s) but its private ABI fingerprint is that of family %s; this libionic was built for rdma-core %d (family %s).  Reinstall libibverbs, or rebuild libionic against the libibverbs that is installed",
		path, probe->release, ionic_ibv_family_name(by_name),
		lo < 0 ? "" : ", by its neighbours",
		ionic_ibv_family_name(by_print), built_release,
		ionic_ibv_family_name(built));
	return IONIC_IBV_MISMATCH;
}
