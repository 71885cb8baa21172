/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The rdma-core releases libionic supports and the layout family each
 * belongs to: the one table both configuration and the run-time load guard
 * use.  cmake/IbverbsPrivate.cmake reads the X(...) lines of this file with
 * a regular expression, so keep one entry per line in the form shown.
 *
 * A layout family is a set of releases with the same private ABI number,
 * the same layout of everything a provider touches and the same ibv_cmd_*
 * prototypes: one build of libionic is correct for every release of its
 * family and for no other.  Four family boundaries (A|B, B|C, C|D, D|E)
 * fall inside private ABI 34, where libibverbs itself would load a wrong
 * build without complaint.
 *
 * Supporting another release of a known family is one X(release, family)
 * line below, once its layouts have been compared with the family's
 * (tests/matrix/build-libibverbs.sh builds one in seconds) and the matrix
 * (./build.sh matrix) passes for it.  A new family is one more
 * IONIC_IBV_FAMILIES row and IONIC_IBV_ORD_<F>, a family-<F>.h, and what it
 * changed in shared.h / variants.h under IONIC_IBV_SINCE(<F>).
 */
#ifndef IONIC_IBVERBS_FAMILIES_H
#define IONIC_IBVERBS_FAMILIES_H

/*
 * X(release, family).  "release" is the rdma-core major version; a point
 * release (56.1, 44.7, ...) belongs to the family of its series: stable
 * releases change no layout, prototype or ABI number.  Every release from
 * 39 to 60 but 47 and 55 is listed and measured
 * (docs/libibverbs-provider-abi.md); a release that is not listed but lies
 * between two listed releases of one family (47, 55) is taken as that
 * family when its fingerprint is the family's (cmake/IbverbsPrivate.cmake,
 * identify.c).
 */
#define IONIC_IBV_RELEASES(X) \
	X(39, A)              \
	X(40, A)              \
	X(41, A)              \
	X(42, A)              \
	X(43, A)              \
	X(44, B)              \
	X(45, C)              \
	X(46, C)              \
	X(48, C)              \
	X(49, D)              \
	X(50, D)              \
	X(51, D)              \
	X(52, D)              \
	X(53, E)              \
	X(54, E)              \
	X(56, E)              \
	X(57, F)              \
	X(58, F)              \
	X(59, G)              \
	X(60, G)

/*
 * X(family, pabi, qpx, opcode_str, cq_ex2, port_speed): what tells the
 * families apart in a loaded library (ionic_ibv_probe_loaded() measures
 * them, tests/provider/identify_unit.c repeats them):
 *   pabi        private ABI number: verbs_register_driver_<pabi> is
 *               exported with version IBVERBS_PRIVATE_<pabi>
 *   qpx         sizeof(struct ibv_qp_ex) = offset of verbs_qp.comp_mask,
 *               the word ibv_qp_to_qp_ex() reads
 *   opcode_str  ibv_wr_opcode_str is exported (v49 and later)
 *   cq_ex2      ibv_cmd_create_cq_ex2 is exported (v53 and later)
 *   port_speed  ibv_cmd_query_port_speed is exported (v62 and later,
 *               whose layout no family describes)
 */
#define IONIC_IBV_FAMILIES(X)  \
	X(A, 34, 344, 0, 0, 0) \
	X(B, 34, 352, 0, 0, 0) \
	X(C, 34, 360, 0, 0, 0) \
	X(D, 34, 360, 1, 0, 0) \
	X(E, 34, 360, 1, 1, 0) \
	X(F, 57, 360, 1, 1, 0) \
	X(G, 59, 360, 1, 1, 0)

/*
 * Families in release order, as numbers the preprocessor can compare: each
 * family keeps what the one before it changed, so "family F and later" is
 * IONIC_IBV_SINCE(F) (shared.h).
 */
#define IONIC_IBV_ORD_A 1
#define IONIC_IBV_ORD_B 2
#define IONIC_IBV_ORD_C 3
#define IONIC_IBV_ORD_D 4
#define IONIC_IBV_ORD_E 5
#define IONIC_IBV_ORD_F 6
#define IONIC_IBV_ORD_G 7

enum ionic_ibv_family {
	IONIC_IBV_FAMILY_NONE = 0,
#define IONIC_IBV_FAMILY_ENUM(f, pabi, qpx, opcode_str, cq_ex2, port_speed) \
	IONIC_IBV_FAMILY_##f = IONIC_IBV_ORD_##f,
	IONIC_IBV_FAMILIES(IONIC_IBV_FAMILY_ENUM)
#undef IONIC_IBV_FAMILY_ENUM
};

#endif /* IONIC_IBVERBS_FAMILIES_H */
