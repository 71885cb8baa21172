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
 *    registration symbol and three family-boundary symbols, and how many
 *    symbols it exports with the private version (its dynamic symbol and
 *    version tables, as the loader mapped them);
 *  - the verbs_qp layout it uses: ibv_qp_to_qp_ex() is handed a zeroed
 *    buffer with VERBS_QP_EX set at one candidate comp_mask offset at a
 *    time; it returns the buffer only for the offset it really reads.
 * Limits: a library that is renamed and patched to change layouts without
 * changing any of these is not detected; a release families.h does not
 * list is accepted only when it lies between two listed releases of the
 * built family and its fingerprint is the family's, file-name minor and
 * export count included (logged, as is a library whose file name tells no
 * release).
 * Libraries of another private ABI number never get this far: libibverbs
 * looks for another file name, and dlopen() fails on the missing
 * IBVERBS_PRIVATE_<n> symbol version.
 */
/* dladdr(), dlvsym(), dl_iterate_phdr() */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <limits.h>
#include <link.h>
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

/*
 * ... and the release being built against must be one of the family's, or
 * lie between two of them (configuration accepted it as the family's).
 */
#define IONIC_IBV_FAMILY_AT_OR_BELOW(major, f) \
	((major) <= IONIC_IBVERBS_RDMA_CORE && \
	 IONIC_IBV_FAMILY_##f == IONIC_IBVERBS_FAMILY_ID) ||
#define IONIC_IBV_FAMILY_AT_OR_ABOVE(major, f) \
	((major) >= IONIC_IBVERBS_RDMA_CORE && \
	 IONIC_IBV_FAMILY_##f == IONIC_IBVERBS_FAMILY_ID) ||
static_assert((IONIC_IBV_RELEASES(IONIC_IBV_FAMILY_AT_OR_BELOW) 0) &&
		      (IONIC_IBV_RELEASES(IONIC_IBV_FAMILY_AT_OR_ABOVE) 0),
	      "IONIC_IBVERBS_RDMA_CORE is not within this family's releases");
#undef IONIC_IBV_FAMILY_AT_OR_BELOW
#undef IONIC_IBV_FAMILY_AT_OR_ABOVE

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

/*
 * Counting the private exports: the object that contains 'addr' is found
 * among the loaded ones, and its dynamic section gives the symbol table,
 * the symbol versions and the version definitions.
 */
struct ionic_ibv_export_count {
	const void *addr; /* an address inside the library */
	const char *node; /* "IBVERBS_PRIVATE_<n>" */
	unsigned int count;
};

/* A dynamic-section address: absolute, or relative where not relocated. */
static const void *ionic_ibv_dyn_ptr(const struct dl_phdr_info *info,
				     ElfW(Addr) ptr)
{
	return (const void *)(ptr < info->dlpi_addr ? info->dlpi_addr + ptr :
						      ptr);
}

/* Number of dynamic symbols, from the GNU hash table: last chain's end. */
static size_t ionic_ibv_gnu_hash_nsyms(const uint32_t *h)
{
	uint32_t nbuckets = h[0], symoffset = h[1], bloom = h[2];
	const uint32_t *buckets =
		h + 4 + bloom * (sizeof(ElfW(Addr)) / sizeof(uint32_t));
	const uint32_t *chain = buckets + nbuckets;
	uint32_t i, last = 0;

	for (i = 0; i < nbuckets; i++)
		if (buckets[i] > last)
			last = buckets[i];
	if (last < symoffset)
		return symoffset;
	while (!(chain[last - symoffset] & 1))
		last++;
	return (size_t)last + 1;
}

static bool ionic_ibv_has_addr(const struct dl_phdr_info *info,
			       const void *addr)
{
	ElfW(Addr) a = (ElfW(Addr))addr;
	int i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		ElfW(Addr) start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && a >= start &&
		    a < start + ph->p_memsz)
			return true;
	}
	return false;
}

static int ionic_ibv_count_exports(struct dl_phdr_info *info, size_t size,
				   void *data)
{
	struct ionic_ibv_export_count *c = data;
	const ElfW(Dyn) *dyn = NULL;
	const ElfW(Sym) *syms = NULL;
	const ElfW(Versym) *versym = NULL;
	const ElfW(Verdef) *vd = NULL;
	const uint32_t *gnu_hash = NULL, *hash = NULL;
	const char *strtab = NULL;
	ElfW(Half) ndx = 0;
	size_t i, nsyms;

	(void)size;
	if (!ionic_ibv_has_addr(info, c->addr))
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dyn = (const void *)(info->dlpi_addr +
					     info->dlpi_phdr[i].p_vaddr);
	for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
		const void *p = ionic_ibv_dyn_ptr(info, dyn->d_un.d_ptr);

		if (dyn->d_tag == DT_SYMTAB)
			syms = p;
		else if (dyn->d_tag == DT_STRTAB)
			strtab = p;
		else if (dyn->d_tag == DT_VERSYM)
			versym = p;
		else if (dyn->d_tag == DT_VERDEF)
			vd = p;
		else if (dyn->d_tag == DT_GNU_HASH)
			gnu_hash = p;
		else if (dyn->d_tag == DT_HASH)
			hash = p;
	}
	if (!syms || !strtab || !versym || !vd || (!gnu_hash && !hash))
		return 1;

	/* the index of the private version node */
	for (;;) {
		const ElfW(Verdaux) *aux =
			(const void *)((const char *)vd + vd->vd_aux);

		if (!strcmp(strtab + aux->vda_name, c->node))
			ndx = vd->vd_ndx;
		if (ndx || !vd->vd_next)
			break;
		vd = (const void *)((const char *)vd + vd->vd_next);
	}
	if (!ndx)
		return 1;

	nsyms = hash ? hash[1] : ionic_ibv_gnu_hash_nsyms(gnu_hash);
	for (i = 1; i < nsyms; i++)
		if ((versym[i] & 0x7fff) == ndx &&
		    syms[i].st_shndx != SHN_UNDEF &&
		    syms[i].st_shndx != SHN_ABS)
			c->count++;
	return 1;
}

/* How many symbols the object at 'addr' exports with IBVERBS_PRIVATE_<pabi>. */
static unsigned int ionic_ibv_private_exports(const void *addr,
					      unsigned int pabi)
{
	char node[32];
	struct ionic_ibv_export_count c = { .addr = addr, .node = node };

	snprintf(node, sizeof(node), "IBVERBS_PRIVATE_%u", pabi);
	dl_iterate_phdr(ionic_ibv_count_exports, &c);
	return c.count;
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
		probe->private_exports =
			ionic_ibv_private_exports(addr, probe->pabi);
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
				  IONIC_IBVERBS_RDMA_CORE,
				  IONIC_IBVERBS_LIB_MINOR,
				  IONIC_IBVERBS_PRIVATE_EXPORTS, msg,
				  sizeof(msg));
	switch (verdict) {
	case IONIC_IBV_MATCH:
		break;
	case IONIC_IBV_MATCH_BETWEEN:
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
