/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The libibverbs private provider ABI, as libionic sees it.
 *
 * libibverbs loads providers through an interface that is private to
 * rdma-core: its structures and ibv_cmd_* prototypes live in driver.h and
 * kern-abi.h, which distributions do not ship, and they change between
 * rdma-core releases (the exported symbols are versioned
 * IBVERBS_PRIVATE_<n>).  libionic therefore declares that interface itself,
 * once per supported rdma-core release, in rdma-core-<version>.h next to
 * this file.
 *
 * cmake/IbverbsPrivate.cmake detects the installed libibverbs and passes the
 * matching file name in IONIC_IBVERBS_PRIVATE_HEADER; supporting another
 * release means adding exactly one rdma-core-<version>.h.
 *
 * Every version file must provide the same vocabulary: the device, context
 * and object wrapper structs, the registration macro PROVIDER_DRIVER, the
 * context helpers, the logging macros, the command wrapper structs and the
 * ibv_cmd_* prototypes libionic calls, plus IONIC_IBVERBS_PABI (the private
 * ABI number it describes) and IONIC_IBVERBS_RDMA_CORE (the release).
 */
#ifndef IONIC_IBVERBS_PRIVATE_H
#define IONIC_IBVERBS_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#ifndef IONIC_IBVERBS_PRIVATE_HEADER
#error "IONIC_IBVERBS_PRIVATE_HEADER is not set: configure with CMake (cmake/IbverbsPrivate.cmake)"
#endif

/* Helpers the version files and the provider share. */
#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr)-offsetof(type, member)))
#endif

#define ionic_stringify_inner(x) #x
#define ionic_stringify(x) ionic_stringify_inner(x)

#include IONIC_IBVERBS_PRIVATE_HEADER

#if !defined(IONIC_IBVERBS_PABI) || !defined(IONIC_IBVERBS_RDMA_CORE)
#error "the private ABI header must define IONIC_IBVERBS_PABI and IONIC_IBVERBS_RDMA_CORE"
#endif

/* The provider file name libibverbs looks for: lib<name>-rdmav<pabi>.so */
#define IONIC_IBVERBS_PLUGIN_SUFFIX \
	"-rdmav" ionic_stringify(IONIC_IBVERBS_PABI) ".so"

#endif /* IONIC_IBVERBS_PRIVATE_H */
