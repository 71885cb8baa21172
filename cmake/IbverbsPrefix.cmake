# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# Which libibverbs the project builds against: the system's (pkg-config
# libibverbs, the default) or one under IONIC_IBVERBS_PREFIX, e.g. the
# build/ tree of an rdma-core source build or an installed prefix.  Either
# way the result is the imported target PkgConfig::IBVERBS that every
# directory links (provider, tests, bench) or takes the headers of (sim),
# and the variables pkg_check_modules() sets that cmake/IbverbsPrivate.cmake
# reads: IBVERBS_FOUND, IBVERBS_VERSION, IBVERBS_LIBDIR; and
# IONIC_IBVERBS_INCLUDEDIR, the directory with its infiniband/ and rdma/
# headers (tests/matrix/configure-refusal.sh makes prefixes of them).
#
# Options:
#   IONIC_IBVERBS_PREFIX      a directory with include/infiniband/verbs.h and
#                             lib/ (or lib64/, lib/<multiarch>/)
#                             libibverbs.so.1; empty: the system libibverbs
#   IONIC_IBVERBS_RUN_PREFIX  the libibverbs the tests run with, lib/ and
#                             bin/ (its ibv_devinfo, pingpongs); default
#                             IONIC_IBVERBS_PREFIX.  Must be a release of
#                             the same layout family (families.h): a build
#                             serves all of them, so one build tree tests
#                             several releases (./build.sh matrix)
# Outputs for the tests (cmake/IonicTesting.cmake):
#   IONIC_IBVERBS_TEST_ENV       VAR=value entries
#   IONIC_IBVERBS_TEST_ENV_MODS  ENVIRONMENT_MODIFICATION entries: the run
#                                prefix's lib/ first on LD_LIBRARY_PATH and
#                                its bin/ first on PATH
# Only include/infiniband and include/rdma of the prefix are put on the
# include path (through links in the build tree): a build tree's include/
# also holds rdma-core's own fix-up headers (sys/stat.h, linux/*.h, ...)
# that must not replace the system's.

set(IONIC_IBVERBS_PREFIX "" CACHE PATH
    "libibverbs to build against (headers and libibverbs.so.1); empty: the system's")
set(IONIC_IBVERBS_RUN_PREFIX "" CACHE PATH
    "libibverbs the tests run with (same layout family); empty: IONIC_IBVERBS_PREFIX")
set(IONIC_IBVERBS_TEST_ENV "")
set(IONIC_IBVERBS_TEST_ENV_MODS "")

if(NOT IONIC_IBVERBS_PREFIX)
  if(IONIC_IBVERBS_RUN_PREFIX)
    message(FATAL_ERROR "IONIC_IBVERBS_RUN_PREFIX needs IONIC_IBVERBS_PREFIX")
  endif()
  pkg_check_modules(IBVERBS REQUIRED IMPORTED_TARGET libibverbs)
  set(IONIC_IBVERBS_INCLUDEDIR "${IBVERBS_INCLUDEDIR}")
  return()
endif()

# ionic_ibverbs_libdir(<prefix> <out>): the directory with libibverbs.so.1
function(ionic_ibverbs_libdir prefix out)
  foreach(_d lib lib64 lib/${CMAKE_LIBRARY_ARCHITECTURE})
    if(EXISTS "${prefix}/${_d}/libibverbs.so.1")
      set(${out} "${prefix}/${_d}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  message(FATAL_ERROR
    "${prefix}: no lib/libibverbs.so.1 (nor lib64/, lib/${CMAKE_LIBRARY_ARCHITECTURE}/); "
    "IONIC_IBVERBS_PREFIX and IONIC_IBVERBS_RUN_PREFIX name an rdma-core build "
    "tree or installation prefix")
endfunction()

get_filename_component(_ionic_prefix "${IONIC_IBVERBS_PREFIX}" ABSOLUTE)
if(NOT EXISTS "${_ionic_prefix}/include/infiniband/verbs.h")
  message(FATAL_ERROR
    "IONIC_IBVERBS_PREFIX=${IONIC_IBVERBS_PREFIX}: no include/infiniband/verbs.h")
endif()
ionic_ibverbs_libdir("${_ionic_prefix}" IBVERBS_LIBDIR)
set(IONIC_IBVERBS_INCLUDEDIR "${_ionic_prefix}/include")

# libibverbs.so.1 -> libibverbs.so.1.<abi minor>.<release>.<patch>: the same
# version string pkg-config reports for an installed library.
get_filename_component(_ionic_real "${IBVERBS_LIBDIR}/libibverbs.so.1" REALPATH)
get_filename_component(_ionic_real_name "${_ionic_real}" NAME)
if(NOT _ionic_real_name MATCHES "^libibverbs\\.so\\.(1\\.[0-9]+\\.[0-9]+\\.[0-9]+)$")
  message(FATAL_ERROR
    "${IBVERBS_LIBDIR}/libibverbs.so.1 resolves to ${_ionic_real_name}, not "
    "libibverbs.so.1.<x>.<release>.<patch>: cannot tell its rdma-core release")
endif()
set(IBVERBS_VERSION "${CMAKE_MATCH_1}")
set(IBVERBS_FOUND TRUE)

# (links left alone when they are right: a reconfigure rebuilds nothing)
set(_ionic_inc "${PROJECT_BINARY_DIR}/ibverbs-headers")
file(MAKE_DIRECTORY "${_ionic_inc}")
foreach(_d infiniband rdma)
  set(_have "")
  if(IS_SYMLINK "${_ionic_inc}/${_d}")
    file(READ_SYMLINK "${_ionic_inc}/${_d}" _have)
  endif()
  if(NOT _have STREQUAL "${_ionic_prefix}/include/${_d}")
    file(REMOVE "${_ionic_inc}/${_d}")
    if(EXISTS "${_ionic_prefix}/include/${_d}")
      file(CREATE_LINK "${_ionic_prefix}/include/${_d}" "${_ionic_inc}/${_d}"
           SYMBOLIC)
    endif()
  endif()
endforeach()

add_library(PkgConfig::IBVERBS INTERFACE IMPORTED)
set_target_properties(PkgConfig::IBVERBS PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES "${_ionic_inc}"
  INTERFACE_LINK_LIBRARIES "${IBVERBS_LIBDIR}/libibverbs.so.1")

# What the tests run with.
if(IONIC_IBVERBS_RUN_PREFIX)
  get_filename_component(_ionic_run "${IONIC_IBVERBS_RUN_PREFIX}" ABSOLUTE)
else()
  set(_ionic_run "${_ionic_prefix}")
endif()
ionic_ibverbs_libdir("${_ionic_run}" IONIC_IBVERBS_RUN_LIBDIR)
list(APPEND IONIC_IBVERBS_TEST_ENV "IONIC_IBVERBS_PREFIX=${_ionic_run}")
list(APPEND IONIC_IBVERBS_TEST_ENV_MODS
  "LD_LIBRARY_PATH=path_list_prepend:${IONIC_IBVERBS_RUN_LIBDIR}")
if(IS_DIRECTORY "${_ionic_run}/bin")
  list(APPEND IONIC_IBVERBS_TEST_ENV_MODS "PATH=path_list_prepend:${_ionic_run}/bin")
endif()

message(STATUS "libionic: building against the libibverbs in ${_ionic_prefix} "
  "(${IBVERBS_VERSION}); tests run with ${_ionic_run}")
