/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The libibverbs private provider ABI, as libionic sees it.
 *
 * libibverbs loads providers through an interface that is private to
 * rdma-core: its structures and ibv_cmd_* prototypes live in driver.h and
 * kern-abi.h, which distributions do not ship, and they change between
 * rdma-core releases.  libionic therefore declares that interface itself,
 * once per layout family (families.h: a set of releases a single build
 * serves), in the files next to this one:
 *
 *   families.h    release -> family table, and what identifies each family
 *                 in a loaded library
 *   family-<F>.h  one per family: its ABI number, which prototype variants
 *                 and ibv_qp_ex slots it has, its fingerprint asserts
 *   shared.h      everything that is the same in all supported releases
 *   commands.h    of that, the command wrappers and unchanged ibv_cmd_*
 *                 prototypes (included by shared.h)
 *   variants.h    the prototypes that differ, behind family-neutral
 *                 ionic_ibv_cmd_*() wrappers
 *   load_guard.c  refuses to register in a libibverbs of another family
 *
 * cmake/IbverbsPrivate.cmake detects the libibverbs being built against and
 * passes IONIC_IBVERBS_PRIVATE_HEADER (the family header's name) and
 * IONIC_IBVERBS_RDMA_CORE (the release's major version).
 *
 * Every family header provides the same vocabulary: the device, context
 * and object wrapper structs, the registration macro PROVIDER_DRIVER, the
 * context helpers, the logging macros, the command wrapper structs, the
 * ibv_cmd_* calls libionic makes, plus IONIC_IBVERBS_PABI and
 * IONIC_IBVERBS_FAMILY.
 */
#ifndef IONIC_IBVERBS_PRIVATE_H
#define IONIC_IBVERBS_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#if !defined(IONIC_IBVERBS_PRIVATE_HEADER) || !defined(IONIC_IBVERBS_RDMA_CORE)
#error "IONIC_IBVERBS_PRIVATE_HEADER/IONIC_IBVERBS_RDMA_CORE are not set: configure with CMake (cmake/IbverbsPrivate.cmake)"
#endif

/* Helpers the family files and the provider share. */
#ifndef container_of
/* clang-format 14 and 19 disagree here (tests/check-format.sh) */
/* clang-format off */
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
/* clang-format on */
#endif

#define ionic_stringify_inner(x) #x
#define ionic_stringify(x) ionic_stringify_inner(x)

#include "families.h"
#include IONIC_IBVERBS_PRIVATE_HEADER

#if !defined(IONIC_IBVERBS_PABI) || !defined(IONIC_IBVERBS_FAMILY)
#error "the family header must define IONIC_IBVERBS_PABI and IONIC_IBVERBS_FAMILY"
#endif

/* enum ionic_ibv_family value and name of the family being built. */
#define IONIC_IBVERBS_FAMILY_ID \
	ionic_ibv_paste(IONIC_IBV_FAMILY_, IONIC_IBVERBS_FAMILY)
#define IONIC_IBVERBS_FAMILY_NAME ionic_stringify(IONIC_IBVERBS_FAMILY)

/* The provider file name libibverbs looks for: lib<name>-rdmav<pabi>.so */
#define IONIC_IBVERBS_PLUGIN_SUFFIX \
	"-rdmav" ionic_stringify(IONIC_IBVERBS_PABI) ".so"

#endif /* IONIC_IBVERBS_PRIVATE_H */
