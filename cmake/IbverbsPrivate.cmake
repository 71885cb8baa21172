# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# Detects the rdma-core release and private provider ABI of the libibverbs
# the project builds against (cmake/IbverbsPrefix.cmake: the system's or
# IONIC_IBVERBS_PREFIX), looks its layout family up in the table of
# providers/ionic/ibverbs-private/families.h and picks that family's
# declarations, family-<F>.h.
#
# A libionic build is correct for the releases of one family only, so
# configuration stops here, naming the release, when the table does not
# list it, when the library's exports are not those of the family the
# table gives (the columns of IONIC_IBV_FAMILIES, and the file-name minor
# of family-<F>.h; another count of private exports only warns), or when
# the libibverbs the tests are to run with (IONIC_IBVERBS_RUN_PREFIX) is of
# another family.
# One exception: a release the table does not list but that lies between
# two listed releases of one family (its nearest listed neighbours below
# and above are of that family) is taken as that family when its whole
# fingerprint is the family's, the count of private exports included; one
# line says so.  Otherwise it is refused as any unlisted release.
# tests/matrix/configure-refusal.sh checks each of these cases.
#
# Inputs:  IBVERBS_FOUND, IBVERBS_VERSION, IBVERBS_LIBDIR,
#          IONIC_IBVERBS_RUN_LIBDIR (cmake/IbverbsPrefix.cmake).
# Outputs:
#   IONIC_RDMA_CORE_VERSION   rdma-core release of the library (44.0)
#   IONIC_RDMA_CORE_MAJOR     its major number (44)
#   IONIC_IBVERBS_FAMILY      its layout family (B)
#   IONIC_PABI                private provider ABI number (34)
#   IONIC_IBVERBS_PRIVATE_HEADER  file name of the declarations (family-B.h)
#   IONIC_IBVERBS_LIBRARY     the libibverbs shared object
#   IONIC_IBVERBS_LIBDIR      its directory
#   IONIC_PROVIDER_DIR        where that libibverbs looks for providers
#   IONIC_DRIVER_CONF_DIR     where it reads "driver <name>" files
#   IBVERBS_PRIVATE_ABI       the same as IONIC_PABI (name used by packaging)
#   IONIC_SYSTEM_PROVIDER_DIR the provider directory of that libibverbs

set(IONIC_IBVERBS_PRIVATE_DIR
    "${CMAKE_CURRENT_LIST_DIR}/../providers/ionic/ibverbs-private")
get_filename_component(IONIC_IBVERBS_PRIVATE_DIR
    "${IONIC_IBVERBS_PRIVATE_DIR}" ABSOLUTE)
set(_ionic_families_h "${IONIC_IBVERBS_PRIVATE_DIR}/families.h")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             "${_ionic_families_h}")

if(NOT IBVERBS_FOUND)
  message(FATAL_ERROR "libibverbs not found by pkg-config: install libibverbs-dev")
endif()

# libibverbs' version is 1.<abi minor>.<rdma-core release>.<patch>
set(IONIC_IBVERBS_MODVERSION "${IBVERBS_VERSION}")
if(NOT IONIC_IBVERBS_MODVERSION MATCHES "^1\\.([0-9]+)\\.(([0-9]+)(\\.[0-9]+)?)$")
  message(FATAL_ERROR
    "Unrecognised libibverbs version '${IONIC_IBVERBS_MODVERSION}' "
    "(expected 1.<x>.<rdma-core release>.<patch>)")
endif()
set(_ionic_lib_minor "${CMAKE_MATCH_1}")
set(IONIC_RDMA_CORE_VERSION "${CMAKE_MATCH_2}")
set(IONIC_RDMA_CORE_MAJOR "${CMAKE_MATCH_3}")

if(IONIC_IBVERBS_PREFIX)
  set(IONIC_IBVERBS_LIBDIR "${IBVERBS_LIBDIR}")
else()
  pkg_get_variable(IONIC_IBVERBS_LIBDIR libibverbs libdir)
  if(NOT IONIC_IBVERBS_LIBDIR)
    set(IONIC_IBVERBS_LIBDIR "${IBVERBS_LIBDIR}")
  endif()
endif()

# (not find_library(): a cached result would outlive a change of prefix)
unset(IONIC_IBVERBS_LIBRARY CACHE)
if(EXISTS "${IONIC_IBVERBS_LIBDIR}/libibverbs.so")
  set(IONIC_IBVERBS_LIBRARY "${IONIC_IBVERBS_LIBDIR}/libibverbs.so")
elseif(EXISTS "${IONIC_IBVERBS_LIBDIR}/libibverbs.so.1")
  set(IONIC_IBVERBS_LIBRARY "${IONIC_IBVERBS_LIBDIR}/libibverbs.so.1")
else()
  message(FATAL_ERROR
    "libibverbs ${IONIC_IBVERBS_MODVERSION}: no libibverbs.so in "
    "${IONIC_IBVERBS_LIBDIR}")
endif()
get_filename_component(IONIC_IBVERBS_LIBRARY_REAL
  "${IONIC_IBVERBS_LIBRARY}" REALPATH)

# ---------------------------------------------------------------------------
# The table: X(release, family) and X(family, pabi, qpx, opcode_str, cq_ex2,
# port_speed) lines of families.h.
file(READ "${_ionic_families_h}" _ionic_tbl)
string(REGEX MATCHALL "X\\([0-9]+, [A-Z]\\)" _ionic_rel_rows "${_ionic_tbl}")
string(REGEX MATCHALL "X\\([A-Z], [0-9]+, [0-9]+, [01], [01], [01]\\)"
  _ionic_fam_rows "${_ionic_tbl}")
if(NOT _ionic_rel_rows OR NOT _ionic_fam_rows)
  message(FATAL_ERROR "${_ionic_families_h}: no release or family table found")
endif()

# ionic_ibv_family_of(<major> <out>): the family of a release, or ""
function(ionic_ibv_family_of major out)
  set(_f "")
  foreach(_row IN LISTS _ionic_rel_rows)
    string(REGEX MATCH "X\\(([0-9]+), ([A-Z])\\)" _unused "${_row}")
    if(CMAKE_MATCH_1 STREQUAL major)
      set(_f "${CMAKE_MATCH_2}")
    endif()
  endforeach()
  set(${out} "${_f}" PARENT_SCOPE)
endfunction()

# ionic_ibv_family_between(<major> <out> <lo> <hi>): for a release the
# table does not list, the family of its nearest listed neighbours below
# (<lo>) and above (<hi>) when both are of one family, else ""
function(ionic_ibv_family_between major out lo_out hi_out)
  set(_lo -1)
  set(_hi -1)
  set(_below "")
  set(_above "")
  foreach(_row IN LISTS _ionic_rel_rows)
    string(REGEX MATCH "X\\(([0-9]+), ([A-Z])\\)" _unused "${_row}")
    if(CMAKE_MATCH_1 EQUAL major)
      set(${out} "" PARENT_SCOPE)
      return()
    elseif(CMAKE_MATCH_1 LESS major AND CMAKE_MATCH_1 GREATER _lo)
      set(_lo "${CMAKE_MATCH_1}")
      set(_below "${CMAKE_MATCH_2}")
    elseif(CMAKE_MATCH_1 GREATER major AND (_hi LESS 0 OR CMAKE_MATCH_1 LESS _hi))
      set(_hi "${CMAKE_MATCH_1}")
      set(_above "${CMAKE_MATCH_2}")
    endif()
  endforeach()
  if(_below STREQUAL "" OR NOT _below STREQUAL _above)
    set(_below "")
  endif()
  set(${out} "${_below}" PARENT_SCOPE)
  set(${lo_out} "${_lo}" PARENT_SCOPE)
  set(${hi_out} "${_hi}" PARENT_SCOPE)
endfunction()

set(_ionic_known "")
foreach(_row IN LISTS _ionic_rel_rows)
  string(REGEX MATCH "X\\(([0-9]+), ([A-Z])\\)" _unused "${_row}")
  list(APPEND _ionic_known "${CMAKE_MATCH_1} (${CMAKE_MATCH_2})")
endforeach()
string(REPLACE ";" ", " _ionic_known "${_ionic_known}")
string(CONCAT _ionic_unlisted_msg
    "The libibverbs to build against (${IONIC_IBVERBS_LIBRARY_REAL}) is "
    "version ${IONIC_IBVERBS_MODVERSION}, rdma-core ${IONIC_RDMA_CORE_VERSION}, "
    "which libionic has no provider-ABI declarations for.  Supported "
    "rdma-core releases (layout family): ${_ionic_known}.  Supporting "
    "${IONIC_RDMA_CORE_MAJOR} means comparing its layouts with a family's "
    "and adding it to providers/ionic/ibverbs-private/families.h; use "
    "-DIONIC_IBVERBS_PREFIX=<dir> to build against another libibverbs.")
ionic_ibv_family_of("${IONIC_RDMA_CORE_MAJOR}" IONIC_IBVERBS_FAMILY)
# an unlisted release between two of one family: that family, on probation
set(_ionic_between "")
if(NOT IONIC_IBVERBS_FAMILY)
  ionic_ibv_family_between("${IONIC_RDMA_CORE_MAJOR}" IONIC_IBVERBS_FAMILY
    _ionic_between_lo _ionic_between_hi)
  if(IONIC_IBVERBS_FAMILY)
    set(_ionic_between "${_ionic_between_lo} and ${_ionic_between_hi}")
  endif()
endif()
if(NOT IONIC_IBVERBS_FAMILY)
  message(FATAL_ERROR "${_ionic_unlisted_msg}")
endif()

foreach(_row IN LISTS _ionic_fam_rows)
  string(REGEX MATCH "X\\(([A-Z]), ([0-9]+), ([0-9]+), ([01]), ([01]), ([01])\\)"
    _unused "${_row}")
  if(CMAKE_MATCH_1 STREQUAL IONIC_IBVERBS_FAMILY)
    set(_ionic_fam_pabi "${CMAKE_MATCH_2}")
    set(_ionic_fam_syms "${CMAKE_MATCH_4}${CMAKE_MATCH_5}${CMAKE_MATCH_6}")
  endif()
endforeach()
if(NOT DEFINED _ionic_fam_pabi)
  message(FATAL_ERROR "${_ionic_families_h}: family ${IONIC_IBVERBS_FAMILY} has no row")
endif()
set(IONIC_IBVERBS_PRIVATE_HEADER "family-${IONIC_IBVERBS_FAMILY}.h")
set(_ionic_hdr "${IONIC_IBVERBS_PRIVATE_DIR}/${IONIC_IBVERBS_PRIVATE_HEADER}")
if(NOT EXISTS "${_ionic_hdr}")
  message(FATAL_ERROR "${_ionic_hdr} is missing")
endif()
# the rest of the family's fingerprint that only the library file shows
file(READ "${_ionic_hdr}" _ionic_hdr_text)
foreach(_what PRIVATE_EXPORTS LIB_MINOR)
  if(NOT _ionic_hdr_text MATCHES "#define IONIC_IBVERBS_${_what} ([0-9]+)")
    message(FATAL_ERROR "${_ionic_hdr}: no #define IONIC_IBVERBS_${_what}")
  endif()
  set(_ionic_fam_${_what} "${CMAKE_MATCH_1}")
endforeach()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_ionic_hdr}")

# A different libibverbs to run the tests with must be of the same family:
# the load guard would refuse this build there, and every test would fail.
if(IONIC_IBVERBS_RUN_LIBDIR)
  get_filename_component(_ionic_run_real
    "${IONIC_IBVERBS_RUN_LIBDIR}/libibverbs.so.1" REALPATH)
  get_filename_component(_ionic_run_name "${_ionic_run_real}" NAME)
  set(_ionic_run_family "")
  if(_ionic_run_name MATCHES "^libibverbs\\.so\\.1\\.[0-9]+\\.(([0-9]+)\\.[0-9]+)$")
    set(_ionic_run_release "${CMAKE_MATCH_1}")
    set(_ionic_run_major "${CMAKE_MATCH_2}")
    ionic_ibv_family_of("${_ionic_run_major}" _ionic_run_family)
    if(NOT _ionic_run_family)
      ionic_ibv_family_between("${_ionic_run_major}" _ionic_run_family
        _ionic_unused_lo _ionic_unused_hi)
    endif()
  else()
    set(_ionic_run_release "unknown")
  endif()
  if(NOT _ionic_run_family STREQUAL IONIC_IBVERBS_FAMILY)
    if(NOT _ionic_run_family)
      set(_ionic_run_family "none known")
    endif()
    message(FATAL_ERROR
      "IONIC_IBVERBS_RUN_PREFIX=${IONIC_IBVERBS_RUN_PREFIX}: its libibverbs "
      "(${_ionic_run_real}) is rdma-core ${_ionic_run_release}, layout family "
      "${_ionic_run_family}, but this build is for rdma-core "
      "${IONIC_RDMA_CORE_VERSION}, layout family ${IONIC_IBVERBS_FAMILY}: the "
      "load guard would refuse it there and every test would fail.  Name a "
      "release of family ${IONIC_IBVERBS_FAMILY}, or configure another build "
      "tree with IONIC_IBVERBS_PREFIX set to that release.")
  endif()
endif()

# ---------------------------------------------------------------------------
# Does the library export what its family's libraries export?
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

set(_ionic_lib_syms "")
foreach(_sym ibv_wr_opcode_str ibv_cmd_create_cq_ex2 ibv_cmd_query_port_speed)
  if(_ionic_dynsyms MATCHES " ${_sym}@+IBVERBS_PRIVATE_${IONIC_PABI}")
    string(APPEND _ionic_lib_syms 1)
  else()
    string(APPEND _ionic_lib_syms 0)
  endif()
endforeach()
set(_ionic_lib_fp "private ABI ${IONIC_PABI}, libibverbs.so.1.${_ionic_lib_minor}, ibv_wr_opcode_str/ibv_cmd_create_cq_ex2/ibv_cmd_query_port_speed ${_ionic_lib_syms}")
set(_ionic_fam_fp "private ABI ${_ionic_fam_pabi}, libibverbs.so.1.${_ionic_fam_LIB_MINOR}, ibv_wr_opcode_str/ibv_cmd_create_cq_ex2/ibv_cmd_query_port_speed ${_ionic_fam_syms}")
# ... and how many private symbols it exports (readelf --wide prints
# "name@@NODE" or "name@NODE", maybe with " (n)")
string(REGEX MATCHALL "[A-Za-z0-9_]+@@?IBVERBS_PRIVATE_${IONIC_PABI}[^0-9]"
  _ionic_priv "${_ionic_dynsyms}\n")
list(LENGTH _ionic_priv _ionic_npriv)

# An unlisted release is taken as its neighbours' family only if all of its
# fingerprint is the family's, the count of private exports included.
if(_ionic_between)
  if(NOT _ionic_lib_fp STREQUAL _ionic_fam_fp OR
     NOT _ionic_npriv EQUAL _ionic_fam_PRIVATE_EXPORTS)
    message(FATAL_ERROR "${_ionic_unlisted_msg}" "  (It lies between rdma-core "
      "${_ionic_between} of layout family ${IONIC_IBVERBS_FAMILY}, but its "
      "fingerprint is not the family's: it has ${_ionic_lib_fp}, "
      "${_ionic_npriv} private exports; family ${IONIC_IBVERBS_FAMILY} has "
      "${_ionic_fam_fp}, ${_ionic_fam_PRIVATE_EXPORTS} private exports.)")
  endif()
  message(STATUS
    "rdma-core ${IONIC_RDMA_CORE_VERSION} is not in families.h; accepted as "
    "layout family ${IONIC_IBVERBS_FAMILY}: it lies between rdma-core "
    "${_ionic_between} of that family and has the family's fingerprint "
    "(${_ionic_fam_fp}, ${_ionic_npriv} private exports)")
endif()

if(NOT _ionic_lib_fp STREQUAL _ionic_fam_fp)
  message(FATAL_ERROR
    "libibverbs ${IONIC_IBVERBS_MODVERSION} (${IONIC_IBVERBS_LIBRARY_REAL}) "
    "says rdma-core ${IONIC_RDMA_CORE_VERSION}, layout family "
    "${IONIC_IBVERBS_FAMILY}, but its exports are not that family's: it has "
    "${_ionic_lib_fp}; family ${IONIC_IBVERBS_FAMILY} has ${_ionic_fam_fp} "
    "(ibverbs-private/${IONIC_IBVERBS_PRIVATE_HEADER}, families.h).  It is not "
    "the release its file name says; libionic cannot be built for it.")
endif()

# For a listed release, another count of private exports is only a
# warning: the checks above
# already tell the families apart, and a distribution's point release may
# carry a backport the .0 release did not (none measured so far); but it
# means this library's private ABI was never compared with the family's.
if(NOT _ionic_npriv EQUAL _ionic_fam_PRIVATE_EXPORTS)
  message(WARNING
    "libibverbs ${IONIC_IBVERBS_MODVERSION} (${IONIC_IBVERBS_LIBRARY_REAL}) "
    "exports ${_ionic_npriv} symbols of IBVERBS_PRIVATE_${IONIC_PABI}; the "
    "releases of family ${IONIC_IBVERBS_FAMILY} export "
    "${_ionic_fam_PRIVATE_EXPORTS} (ibverbs-private/"
    "${IONIC_IBVERBS_PRIVATE_HEADER}).  Its private ABI differs from the "
    "family's in what no check here covers: compare its driver.h with the "
    "family's and run ./build.sh matrix with its tarball before trusting "
    "this build.")
endif()

# Where that libibverbs looks for providers and driver files.  Both are
# compiled into it: <libdir>/libibverbs and /etc/libibverbs.d for a
# distribution's.  The top-level CMakeLists.txt may already have made them
# (overridable) cache entries; those win.
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
  "layout family ${IONIC_IBVERBS_FAMILY}, IBVERBS_PRIVATE_${IONIC_PABI}, using "
  "ibverbs-private/${IONIC_IBVERBS_PRIVATE_HEADER}; providers in "
  "${IONIC_PROVIDER_DIR}, driver files in ${IONIC_DRIVER_CONF_DIR}")
