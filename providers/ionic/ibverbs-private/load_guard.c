// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The run-time load guard: before libionic registers with libibverbs, it
 * measures the libibverbs that actually loaded it and registers only if
 * that library is of the layout family this build was compiled for.
 *
 * Four family boundaries fall inside private ABI 34 (families.h), so
 * libibverbs loads a libionic built for another family without complaint;
 * it would then read and write the wrong words of libionic's QPs.  The
 * guard turns that into "the provider is not registered" plus one message,
 * on stderr and through libibverbs' log (VERBS_LOG_LEVEL/VERBS_LOG_FILE),
 * saying what was found, what was expected and what to do.
 *
 * What is measured (identify.c judges it):
 *  - which object libionic's libibverbs calls bind to: dladdr() of one of
 *    them, so an interposed registration function (tests/provider/
 *    plugin_load.c) does not hide the real library;
 *  - its real file name, which carries the release;
 *  - its exports, looked up in that object only: the versioned
 *    registration symbol and three family-boundary symbols;
 *  - the verbs_qp layout it uses: ibv_qp_to_qp_ex() is handed a zeroed
 *    buffer with VERBS_QP_EX set at one candidate comp_mask offset at a
 *    time; it returns the buffer only for the offset it really reads.
 * Limits: a library that is renamed and patched to change layouts without
 * changing any of these is not detected; releases outside families.h are
 * accepted when their fingerprint is the built family's (with a warning).
 * Libraries of another private ABI number never get this far: libibverbs
 * looks for another file name, and dlopen() fails on the missing
 * IBVERBS_PRIVATE_<n> symbol version.
 */
/* dladdr(), dlvsym() */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibverbs_private.h"
#include "identify.h"

/* This build's own row of families.h must describe what it compiled. */
#define IONIC_IBV_CHECK_ROW(f, pabi, qpx, opcode_str, cq_ex2, port_speed) \
	static_assert(IONIC_IBV_FAMILY_##f != IONIC_IBVERBS_FAMILY_ID ||  \
			      ((pabi) == IONIC_IBVERBS_PABI &&            \
			       (qpx) == sizeof(struct ibv_qp_ex)),        \
		      "families.h row " #f " disagrees with family-" #f ".h");
IONIC_IBV_FAMILIES(IONIC_IBV_CHECK_ROW)
#undef IONIC_IBV_CHECK_ROW

/* ... and the release being built against must be one of the family's. */
#define IONIC_IBV_RELEASE_IS(major, f) \
	((major) == IONIC_IBVERBS_RDMA_CORE ? IONIC_IBV_FAMILY_##f : 0) +
static_assert((IONIC_IBV_RELEASES(IONIC_IBV_RELEASE_IS) 0) ==
		      IONIC_IBVERBS_FAMILY_ID,
	      "IONIC_IBVERBS_RDMA_CORE is not a release of this family");
#undef IONIC_IBV_RELEASE_IS

/* Candidate comp_mask offsets: every qpx value of families.h. */
static const unsigned int ionic_ibv_qpx_candidates[] = {
#define IONIC_IBV_QPX(f, pabi, qpx, opcode_str, cq_ex2, port_speed) qpx,
	IONIC_IBV_FAMILIES(IONIC_IBV_QPX)
#undef IONIC_IBV_QPX
};

/* Private ABI numbers to try: every pabi value of families.h. */
static const unsigned int ionic_ibv_pabi_candidates[] = {
#define IONIC_IBV_PABI(f, pabi, qpx, opcode_str, cq_ex2, port_speed) pabi,
	IONIC_IBV_FAMILIES(IONIC_IBV_PABI)
#undef IONIC_IBV_PABI
};

static void *ionic_ibv_private_sym(void *lib, unsigned int pabi,
				   const char *name)
{
	char node[32];

	snprintf(node, sizeof(node), "IBVERBS_PRIVATE_%u", pabi);
	return dlvsym(lib, name, node);
}

/* The comp_mask offset ibv_qp_to_qp_ex() of 'lib' reads, or 0. */
static unsigned int ionic_ibv_probe_qpx(void *lib)
{
	struct ibv_qp_ex *(*to_qpx)(struct ibv_qp *);
	/* larger than any verbs_qp, aligned like one */
	static union {
		struct verbs_qp vqp;
		unsigned char bytes[1024];
	} buf;
	size_t i;

	*(void **)&to_qpx = dlvsym(lib, "ibv_qp_to_qp_ex", "IBVERBS_1.6");
	if (!to_qpx)
		return 0;

	for (i = 0; i < sizeof(ionic_ibv_qpx_candidates) /
				sizeof(ionic_ibv_qpx_candidates[0]);
	     i++) {
		unsigned int off = ionic_ibv_qpx_candidates[i];
		uint32_t mask = VERBS_QP_EX;

		if (off + sizeof(mask) > sizeof(buf))
			continue;
		memset(&buf, 0, sizeof(buf));
		memcpy(buf.bytes + off, &mask, sizeof(mask));
		if ((void *)to_qpx(&buf.vqp.qp) == (void *)&buf)
			return off;
	}
	return 0;
}

bool ionic_ibv_probe_loaded(struct ionic_ibv_probe *probe)
{
	/* any private import will do: verbs_set_ops is in every release */
	void (*import)(struct verbs_context *,
		       const struct verbs_context_ops *) = verbs_set_ops;
	char real[PATH_MAX];
	Dl_info info;
	void *addr, *lib;
	size_t i;

	memset(probe, 0, sizeof(*probe));
	probe->release_major = -1;

	memcpy(&addr, &import, sizeof(addr));
	if (!dladdr(addr, &info) || !info.dli_fname)
		return false;
	lib = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
	if (!lib)
		return false;

	if (realpath(info.dli_fname, real))
		snprintf(probe->path, sizeof(probe->path), "%s", real);
	else
		snprintf(probe->path, sizeof(probe->path), "%s",
			 info.dli_fname);
	ionic_ibv_release_from_name(probe->path, probe);

	for (i = 0; i < sizeof(ionic_ibv_pabi_candidates) /
				sizeof(ionic_ibv_pabi_candidates[0]);
	     i++) {
		unsigned int pabi = ionic_ibv_pabi_candidates[i];
		char reg[48];

		snprintf(reg, sizeof(reg), "verbs_register_driver_%u", pabi);
		if (ionic_ibv_private_sym(lib, pabi, reg)) {
			probe->pabi = pabi;
			break;
		}
	}
	if (probe->pabi) {
		probe->opcode_str = ionic_ibv_private_sym(lib, probe->pabi,
							  "ibv_wr_opcode_str");
		probe->cq_ex2 = ionic_ibv_private_sym(lib, probe->pabi,
						      "ibv_cmd_create_cq_ex2");
		probe->port_speed = ionic_ibv_private_sym(
			lib, probe->pabi, "ibv_cmd_query_port_speed");
	}
	probe->qpx = ionic_ibv_probe_qpx(lib);

	dlclose(lib);
	return true;
}

void ionic_ibv_register_guarded(const struct verbs_device_ops *ops)
{
	struct ionic_ibv_probe probe;
	enum ionic_ibv_verdict verdict;
	char msg[1024];

	if (!ionic_ibv_probe_loaded(&probe)) {
		/*
		 * Nothing to measure (no dladdr information): libionic was
		 * linked statically into something.  Trust the build.
		 */
		IONIC_IBV_REGISTER_DRIVER(ops);
		return;
	}

	verdict = ionic_ibv_judge(&probe, IONIC_IBVERBS_FAMILY_ID,
				  IONIC_IBVERBS_RDMA_CORE, msg, sizeof(msg));
	switch (verdict) {
	case IONIC_IBV_MATCH:
		break;
	case IONIC_IBV_MATCH_UNLISTED:
		__verbs_log(NULL, VERBS_LOG_WARN, "%s\n", msg);
		break;
	case IONIC_IBV_MISMATCH:
		/* a constructor runs once per process: this prints once */
		fprintf(stderr, "%s\n", msg);
		__verbs_log(NULL, VERBS_LOG_ERR, "%s\n", msg);
		return;
	}
	IONIC_IBV_REGISTER_DRIVER(ops);
}
