# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# Detects the installed libibverbs, its rdma-core release and its private
# provider ABI, and picks the matching declarations in
# providers/ionic/ibverbs-private/rdma-core-<release>.h.
#
# A provider is loaded only by the exact libibverbs private ABI it was built
# for (symbol version IBVERBS_PRIVATE_<n>, file name lib<name>-rdmav<n>.so),
# so configuration stops here, with the installed version in the message,
# when no declarations exist for it.
#
# Inputs:  the IBVERBS_* variables of pkg_check_modules(IBVERBS libibverbs).
# Outputs:
#   IONIC_RDMA_CORE_VERSION   rdma-core release of the installed library (44)
#   IONIC_PABI                private provider ABI number (34)
#   IONIC_IBVERBS_PRIVATE_HEADER  file name of the declarations to use
#   IONIC_IBVERBS_LIBRARY     the installed libibverbs shared object
#   IONIC_IBVERBS_LIBDIR      libdir of the installed libibverbs
#   IONIC_PROVIDER_DIR        where that libibverbs looks for providers
#   IONIC_DRIVER_CONF_DIR     where it reads "driver <name>" files
#   IBVERBS_PRIVATE_ABI       the same as IONIC_PABI (name used by packaging)
#   IONIC_SYSTEM_PROVIDER_DIR the provider directory of the installed libibverbs

set(IONIC_IBVERBS_PRIVATE_DIR
    "${CMAKE_CURRENT_LIST_DIR}/../providers/ionic/ibverbs-private")
get_filename_component(IONIC_IBVERBS_PRIVATE_DIR
    "${IONIC_IBVERBS_PRIVATE_DIR}" ABSOLUTE)

if(NOT IBVERBS_FOUND)
  message(FATAL_ERROR "libibverbs not found by pkg-config: install libibverbs-dev")
endif()

# libibverbs' pkg-config version is 1.<abi minor>.<rdma-core release>.<patch>
set(IONIC_IBVERBS_MODVERSION "${IBVERBS_VERSION}")
if(NOT IONIC_IBVERBS_MODVERSION MATCHES "^1\\.[0-9]+\\.([0-9]+)(\\.[0-9]+)?$")
  message(FATAL_ERROR
    "Unrecognised libibverbs version '${IONIC_IBVERBS_MODVERSION}' "
    "(expected 1.<x>.<rdma-core release>.<patch>)")
endif()
set(IONIC_RDMA_CORE_VERSION "${CMAKE_MATCH_1}")

pkg_get_variable(IONIC_IBVERBS_LIBDIR libibverbs libdir)
if(NOT IONIC_IBVERBS_LIBDIR)
  set(IONIC_IBVERBS_LIBDIR "${IBVERBS_LIBDIR}")
endif()

find_library(IONIC_IBVERBS_LIBRARY NAMES ibverbs
  PATHS "${IONIC_IBVERBS_LIBDIR}" NO_DEFAULT_PATH)
if(NOT IONIC_IBVERBS_LIBRARY)
  message(FATAL_ERROR
    "libibverbs ${IONIC_IBVERBS_MODVERSION}: no libibverbs.so in "
    "${IONIC_IBVERBS_LIBDIR}")
endif()
get_filename_component(IONIC_IBVERBS_LIBRARY_REAL
  "${IONIC_IBVERBS_LIBRARY}" REALPATH)

# Which IBVERBS_PRIVATE_<n> does the library really export?
find_program(IONIC_READELF NAMES readelf ${CMAKE_READELF})
if(NOT IONIC_READELF)
  message(FATAL_ERROR "readelf (binutils) is needed to check the libibverbs private ABI")
endif()
execute_process(
  COMMAND "${IONIC_READELF}" --dyn-syms --wide "${IONIC_IBVERBS_LIBRARY_REAL}"
  OUTPUT_VARIABLE _ionic_dynsyms
  RESULT_VARIABLE _ionic_rc)
if(NOT _ionic_rc EQUAL 0)
  message(FATAL_ERROR "readelf failed on ${IONIC_IBVERBS_LIBRARY_REAL}")
endif()
string(REGEX MATCHALL "verbs_register_driver_[0-9]+@+IBVERBS_PRIVATE_[0-9]+"
  _ionic_reg "${_ionic_dynsyms}")
list(LENGTH _ionic_reg _ionic_nreg)
if(NOT _ionic_nreg EQUAL 1)
  message(FATAL_ERROR
    "libibverbs ${IONIC_IBVERBS_MODVERSION} (${IONIC_IBVERBS_LIBRARY_REAL}) "
    "exports ${_ionic_nreg} verbs_register_driver_<n>@IBVERBS_PRIVATE_<n> "
    "symbols, expected exactly one; cannot tell its private provider ABI")
endif()
string(REGEX MATCH "IBVERBS_PRIVATE_([0-9]+)" _ionic_unused "${_ionic_reg}")
set(IONIC_PABI "${CMAKE_MATCH_1}")

# Declarations for this release?
set(IONIC_IBVERBS_PRIVATE_HEADER "rdma-core-${IONIC_RDMA_CORE_VERSION}.h")
set(_ionic_hdr "${IONIC_IBVERBS_PRIVATE_DIR}/${IONIC_IBVERBS_PRIVATE_HEADER}")
if(NOT EXISTS "${_ionic_hdr}")
  file(GLOB _ionic_known RELATIVE "${IONIC_IBVERBS_PRIVATE_DIR}"
    "${IONIC_IBVERBS_PRIVATE_DIR}/rdma-core-*.h")
  string(REPLACE ";" ", " _ionic_known "${_ionic_known}")
  message(FATAL_ERROR
    "The installed libibverbs is version ${IONIC_IBVERBS_MODVERSION} "
    "(rdma-core ${IONIC_RDMA_CORE_VERSION}, private provider ABI "
    "IBVERBS_PRIVATE_${IONIC_PABI}) but libionic only has provider-ABI "
    "declarations for: ${_ionic_known}.  Supporting it needs "
    "providers/ionic/ibverbs-private/${IONIC_IBVERBS_PRIVATE_HEADER}, written "
    "from that release's libibverbs/driver.h and kern-abi.h.")
endif()

# The declarations state which private ABI they describe; it must be the
# one the library exports, or the provider would not load (or worse).
file(STRINGS "${_ionic_hdr}" _ionic_pabi_line
  REGEX "^#define IONIC_IBVERBS_PABI [0-9]+")
string(REGEX MATCH "[0-9]+$" _ionic_hdr_pabi "${_ionic_pabi_line}")
if(NOT _ionic_hdr_pabi STREQUAL IONIC_PABI)
  message(FATAL_ERROR
    "${IONIC_IBVERBS_PRIVATE_HEADER} describes IBVERBS_PRIVATE_${_ionic_hdr_pabi} "
    "but the installed libibverbs ${IONIC_IBVERBS_MODVERSION} exports "
    "IBVERBS_PRIVATE_${IONIC_PABI}")
endif()

# Where the installed libibverbs looks for providers and driver files.  Both
# are compiled into it: <libdir>/libibverbs and /etc/libibverbs.d.  The
# top-level CMakeLists.txt may already have made them (overridable) cache
# entries; those win.
set(IONIC_SYSTEM_PROVIDER_DIR "${IONIC_IBVERBS_LIBDIR}/libibverbs")
if(NOT DEFINED IONIC_PROVIDER_DIR)
  set(IONIC_PROVIDER_DIR "${IONIC_SYSTEM_PROVIDER_DIR}" CACHE PATH
    "Directory the installed libibverbs loads providers from")
endif()
if(NOT DEFINED IONIC_DRIVER_CONF_DIR)
  set(IONIC_DRIVER_CONF_DIR "/etc/libibverbs.d" CACHE PATH
    "Directory the installed libibverbs reads driver files from")
endif()
# Name used by the packaging and test code for the same number.
set(IBVERBS_PRIVATE_ABI "${IONIC_PABI}")

message(STATUS
  "libibverbs ${IONIC_IBVERBS_MODVERSION}: rdma-core ${IONIC_RDMA_CORE_VERSION}, "
  "IBVERBS_PRIVATE_${IONIC_PABI}, using ibverbs-private/${IONIC_IBVERBS_PRIVATE_HEADER}; "
  "providers in ${IONIC_PROVIDER_DIR}, driver files in ${IONIC_DRIVER_CONF_DIR}")
