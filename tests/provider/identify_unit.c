// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The load guard's identification logic (ibverbs-private/identify.c)
 * without any libibverbs: file names, the release -> family table, and
 * the verdict for every pair of built family and loaded library.  The
 * fingerprints are written out here, as measured on each release, rather
 * than taken from families.h, so a wrong number in the table fails.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "ibverbs-private/identify.h"

/* One measured library per release: its file and its fingerprint. */
static const struct {
	const char *file;
	enum ionic_ibv_family family;
	unsigned int pabi, qpx;
	bool opcode_str, cq_ex2;
	unsigned int exports;
} releases[] = {
	{ "libibverbs.so.1.14.39.0", IONIC_IBV_FAMILY_A, 34, 344, 0, 0, 71 },
	{ "libibverbs.so.1.14.44.0", IONIC_IBV_FAMILY_B, 34, 352, 0, 0, 71 },
	{ "libibverbs.so.1.14.46.0", IONIC_IBV_FAMILY_C, 34, 360, 0, 0, 71 },
	{ "libibverbs.so.1.14.48.0", IONIC_IBV_FAMILY_C, 34, 360, 0, 0, 71 },
	{ "libibverbs.so.1.14.50.0", IONIC_IBV_FAMILY_D, 34, 360, 1, 0, 72 },
	{ "libibverbs.so.1.14.51.0", IONIC_IBV_FAMILY_D, 34, 360, 1, 0, 72 },
	{ "libibverbs.so.1.14.54.0", IONIC_IBV_FAMILY_E, 34, 360, 1, 1, 73 },
	{ "libibverbs.so.1.14.56.1", IONIC_IBV_FAMILY_E, 34, 360, 1, 1, 73 },
	{ "libibverbs.so.1.14.57.0", IONIC_IBV_FAMILY_F, 57, 360, 1, 1, 73 },
	{ "libibverbs.so.1.14.58.0", IONIC_IBV_FAMILY_F, 57, 360, 1, 1, 73 },
	{ "libibverbs.so.1.15.59.0", IONIC_IBV_FAMILY_G, 59, 360, 1, 1, 76 },
	{ "libibverbs.so.1.15.60.0", IONIC_IBV_FAMILY_G, 59, 360, 1, 1, 76 },
	/* ... and the releases measured later (issue 21) */
	{ "libibverbs.so.1.14.40.0", IONIC_IBV_FAMILY_A, 34, 344, 0, 0, 71 },
	{ "libibverbs.so.1.14.41.0", IONIC_IBV_FAMILY_A, 34, 344, 0, 0, 71 },
	{ "libibverbs.so.1.14.42.0", IONIC_IBV_FAMILY_A, 34, 344, 0, 0, 71 },
	{ "libibverbs.so.1.14.43.0", IONIC_IBV_FAMILY_A, 34, 344, 0, 0, 71 },
	{ "libibverbs.so.1.14.45.0", IONIC_IBV_FAMILY_C, 34, 360, 0, 0, 71 },
	{ "libibverbs.so.1.14.49.0", IONIC_IBV_FAMILY_D, 34, 360, 1, 0, 72 },
	{ "libibverbs.so.1.14.52.0", IONIC_IBV_FAMILY_D, 34, 360, 1, 0, 72 },
	{ "libibverbs.so.1.14.53.0", IONIC_IBV_FAMILY_E, 34, 360, 1, 1, 73 },
};

#define NREL (sizeof(releases) / sizeof(releases[0]))

static struct ionic_ibv_probe probe_of(size_t i)
{
	struct ionic_ibv_probe p;

	memset(&p, 0, sizeof(p));
	snprintf(p.path, sizeof(p.path), "/usr/lib/x86_64-linux-gnu/%s",
		 releases[i].file);
	CHECK(ionic_ibv_release_from_name(p.path, &p));
	p.pabi = releases[i].pabi;
	p.qpx = releases[i].qpx;
	p.opcode_str = releases[i].opcode_str;
	p.cq_ex2 = releases[i].cq_ex2;
	p.private_exports = releases[i].exports;
	return p;
}

/*
 * The guard's verdict for a build of 'built' from release 'rel', with the
 * file-name minor and export count of that family's measured releases.
 */
static enum ionic_ibv_verdict judge(const struct ionic_ibv_probe *p,
				    enum ionic_ibv_family built, int rel,
				    char *msg, size_t len)
{
	size_t i;

	for (i = 0; i < NREL; i++)
		if (releases[i].family == built)
			return ionic_ibv_judge(
				p, built, rel,
				strstr(releases[i].file, ".so.1.15.") ? 15 : 14,
				releases[i].exports, msg, len);
	return ionic_ibv_judge(p, built, rel, 14, 71, msg, len);
}

/* Library p renamed 'file' is refused by a build of 'built', saying 'why'. */
static void check_refused(struct ionic_ibv_probe *p, const char *file,
			  enum ionic_ibv_family built, int rel, const char *why)
{
	char msg[1024];

	CHECK(ionic_ibv_release_from_name(file, p));
	CHECK(judge(p, built, rel, msg, sizeof(msg)) == IONIC_IBV_MISMATCH);
	CHECK(strstr(msg, "not registered") && strstr(msg, why));
}

static void check_names(void)
{
	static const char *const bad[] = {
		"libibverbs.so.1",
		"libibverbs.so.1.14.44",
		"libibverbs.so.1.14.44.0x",
		"libibverbs.so.1.14..0",
		"libfoo.so.1.14.44.0",
		"libibverbs.so.2.14.44.0",
		"",
	};
	struct ionic_ibv_probe p;
	size_t i;

	CHECK(ionic_ibv_release_from_name("libibverbs.so.1.14.44.0", &p));
	CHECK(!strcmp(p.release, "44.0") && p.release_major == 44);
	CHECK(ionic_ibv_release_from_name(
		"/opt/rc/build/lib/libibverbs.so.1.14.56.1", &p));
	CHECK(!strcmp(p.release, "56.1") && p.release_major == 56);
	CHECK(ionic_ibv_release_from_name("libibverbs.so.1.15.60.0", &p));
	CHECK(!strcmp(p.release, "60.0") && p.release_major == 60);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(!ionic_ibv_release_from_name(bad[i], &p));
		CHECK(p.release[0] == '\0' && p.release_major == -1);
	}
}

/* Unlisted releases between two listed ones of a family, and others. */
static void check_between(void)
{
	int lo, hi;

	CHECK(ionic_ibv_family_between(47, &lo, &hi) == IONIC_IBV_FAMILY_C);
	CHECK(lo == 46 && hi == 48);
	CHECK(ionic_ibv_family_between(55, &lo, &hi) == IONIC_IBV_FAMILY_E);
	CHECK(lo == 54 && hi == 56);
	/* listed: not "between" */
	CHECK(ionic_ibv_family_between(46, &lo, &hi) == IONIC_IBV_FAMILY_NONE);
	/* outside every family: below the first, above the last */
	CHECK(ionic_ibv_family_between(38, &lo, &hi) == IONIC_IBV_FAMILY_NONE);
	CHECK(ionic_ibv_family_between(61, &lo, &hi) == IONIC_IBV_FAMILY_NONE);
	CHECK(ionic_ibv_family_between(-1, &lo, &hi) == IONIC_IBV_FAMILY_NONE);
}

static void check_tables(void)
{
	size_t i;

	for (i = 0; i < NREL; i++) {
		struct ionic_ibv_probe p = probe_of(i);

		CHECK(ionic_ibv_family_of_release(p.release_major) ==
		      releases[i].family);
		CHECK(ionic_ibv_family_of_probe(&p) == releases[i].family);
	}
	/* not measured, so not listed */
	CHECK(ionic_ibv_family_of_release(47) == IONIC_IBV_FAMILY_NONE);
	CHECK(ionic_ibv_family_of_release(55) == IONIC_IBV_FAMILY_NONE);
	CHECK(ionic_ibv_family_of_release(61) == IONIC_IBV_FAMILY_NONE);
	CHECK(ionic_ibv_family_of_release(-1) == IONIC_IBV_FAMILY_NONE);
	check_between();
	CHECK(!strcmp(ionic_ibv_family_name(IONIC_IBV_FAMILY_C), "C"));
	CHECK(!strcmp(ionic_ibv_family_name(IONIC_IBV_FAMILY_NONE), "none"));
}

/* Every build on every release: registers exactly on its own family. */
static void check_matrix(void)
{
	char msg[1024];
	size_t b, l;

	for (b = 0; b < NREL; b++) {
		for (l = 0; l < NREL; l++) {
			struct ionic_ibv_probe p = probe_of(l);
			int built = releases[b].family;
			enum ionic_ibv_verdict v;

			v = judge(&p, built, 0, msg, sizeof(msg));
			if (releases[l].family == releases[b].family) {
				CHECK(v == IONIC_IBV_MATCH);
				CHECK(msg[0] == '\0');
			} else {
				CHECK(v == IONIC_IBV_MISMATCH);
				CHECK(strstr(msg, "not registered"));
				CHECK(strstr(msg, p.release));
			}
		}
	}
}

static void check_messages(void)
{
	struct ionic_ibv_probe p;
	char msg[1024];

	/* a v44 build loaded by v39: what was found, expected, what to do */
	p = probe_of(0);
	CHECK(judge(&p, IONIC_IBV_FAMILY_B, 44, msg, sizeof(msg)) ==
	      IONIC_IBV_MISMATCH);
	CHECK(strstr(msg,
		     "built for rdma-core 44 (libibverbs layout family B"));
	CHECK(strstr(msg, "libibverbs.so.1.14.39.0, rdma-core 39.0"));
	CHECK(strstr(msg, "layout family A"));
	CHECK(strstr(msg, "rebuild libionic against this libibverbs"));

	/* family C built for 46, run on 48: same family */
	p = probe_of(3);
	CHECK(judge(&p, IONIC_IBV_FAMILY_C, 46, msg, sizeof(msg)) ==
	      IONIC_IBV_MATCH);

	/* an unlisted release between two of the built family, with the
	 * family's fingerprint: registered, and the log says why */
	p = probe_of(2);
	CHECK(ionic_ibv_release_from_name("libibverbs.so.1.14.47.0", &p));
	CHECK(judge(&p, IONIC_IBV_FAMILY_C, 46, msg, sizeof(msg)) ==
	      IONIC_IBV_MATCH_BETWEEN);
	CHECK(strstr(msg, "rdma-core 47.0, which libionic does not list"));
	CHECK(strstr(msg, "accepted as layout family C"));
	CHECK(strstr(msg, "between rdma-core 46 and 48"));

	/* ... but with one private export more, or the file-name minor of
	 * another family: refused, saying what differs */
	p.private_exports++;
	CHECK(judge(&p, IONIC_IBV_FAMILY_C, 46, msg, sizeof(msg)) ==
	      IONIC_IBV_MISMATCH);
	CHECK(strstr(msg, "not registered"));
	CHECK(strstr(msg, "libibverbs.so.1.14 with 72 private exports where "
			  "the family's releases are libibverbs.so.1.14 with "
			  "71"));
	p.private_exports--;
	check_refused(&p, "libibverbs.so.1.15.47.0", IONIC_IBV_FAMILY_C, 46,
		      "libibverbs.so.1.15 with 71 private exports");
	CHECK(ionic_ibv_release_from_name("libibverbs.so.1.14.47.0", &p));

	/* ... loaded by a build of another family: refused as family C */
	CHECK(judge(&p, IONIC_IBV_FAMILY_B, 44, msg, sizeof(msg)) ==
	      IONIC_IBV_MISMATCH);
	CHECK(strstr(msg, "rdma-core 47.0, layout family C"));

	/* ... with a fingerprint that is not its neighbours': refused */
	p = probe_of(1);
	check_refused(&p, "libibverbs.so.1.14.47.0", IONIC_IBV_FAMILY_C, 46,
		      "named as rdma-core 47.0 (layout family C, by its "
		      "neighbours) but its private ABI fingerprint is that of "
		      "family B");
	CHECK(judge(&p, IONIC_IBV_FAMILY_B, 44, msg, sizeof(msg)) ==
	      IONIC_IBV_MISMATCH);

	/* an unlisted release outside every family's releases: refused, even
	 * with the built family's fingerprint (v61 measures as G) */
	p = probe_of(11);
	check_refused(&p, "libibverbs.so.1.15.61.0", IONIC_IBV_FAMILY_G, 60,
		      "rdma-core 61.0, which libionic does not list and which "
		      "lies between no two releases of one layout family");
	p = probe_of(0);
	CHECK(ionic_ibv_release_from_name("libibverbs.so.1.14.38.0", &p));
	CHECK(judge(&p, IONIC_IBV_FAMILY_A, 39, msg, sizeof(msg)) ==
	      IONIC_IBV_MISMATCH);

	/* no release in the file name: the fingerprint decides */
	p = probe_of(1);
	CHECK(!ionic_ibv_release_from_name("libibverbs.so.1", &p));
	CHECK(judge(&p, IONIC_IBV_FAMILY_B, 44, msg, sizeof(msg)) ==
	      IONIC_IBV_MATCH_UNLISTED);
	CHECK(strstr(msg, "of unknown rdma-core release"));
	CHECK(judge(&p, IONIC_IBV_FAMILY_C, 46, msg, sizeof(msg)) ==
	      IONIC_IBV_MISMATCH);

	/* the name says 44, the layout says 39: neither is trusted */
	p = probe_of(0);
	CHECK(ionic_ibv_release_from_name("libibverbs.so.1.14.44.0", &p));
	CHECK(judge(&p, IONIC_IBV_FAMILY_B, 44, msg, sizeof(msg)) ==
	      IONIC_IBV_MISMATCH);
	CHECK(strstr(msg, "named as rdma-core 44.0 (layout family B)"));
	CHECK(judge(&p, IONIC_IBV_FAMILY_A, 39, msg, sizeof(msg)) ==
	      IONIC_IBV_MISMATCH);

	/* v62 keeps ABI 59 but changes layouts: a G build refuses it */
	p = probe_of(11);
	CHECK(ionic_ibv_release_from_name("libibverbs.so.1.16.62.0", &p));
	p.port_speed = true;
	CHECK(judge(&p, IONIC_IBV_FAMILY_G, 60, msg, sizeof(msg)) ==
	      IONIC_IBV_MISMATCH);
	CHECK(strstr(msg, "not registered"));
	/* ... as does any build of a library that matches no family */
	CHECK(!ionic_ibv_release_from_name("libibverbs.so.1", &p));
	CHECK(judge(&p, IONIC_IBV_FAMILY_G, 60, msg, sizeof(msg)) ==
	      IONIC_IBV_MISMATCH);
	CHECK(strstr(msg, "matches no layout family"));

	/* nothing measurable (ibv_qp_to_qp_ex missing): refused */
	p = probe_of(1);
	p.qpx = 0;
	CHECK(judge(&p, IONIC_IBV_FAMILY_B, 44, msg, sizeof(msg)) ==
	      IONIC_IBV_MISMATCH);

	/* a short buffer still gets a terminated message */
	p = probe_of(0);
	CHECK(judge(&p, IONIC_IBV_FAMILY_B, 44, msg, 16) == IONIC_IBV_MISMATCH);
	CHECK(strlen(msg) == 15);
}

int main(void)
{
	check_names();
	check_tables();
	check_matrix();
	check_messages();
	if (check_failures())
		return check_finish();
	printf("identification checks passed\n");
	return check_finish();
}
