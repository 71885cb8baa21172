# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# ionic_add_test(): the one way to register a test, in any directory.
# Included by the top-level CMakeLists.txt after providers/ionic (which sets
# IONIC_BUILD_PROVIDER_DIR) and before the directories that add tests.
#
# Names are <suite>-<what>, lower case, and the suite gives the labels:
#
#   unit-*       no device, no emulator                  unit
#   sim-*        ionic-sim's own tests (sim/)            sim
#   verbs-*      libibverbs programs under ionic-sim     verbs, sim
#   e2e-*        unmodified clients between processes    e2e, sim
#   memcheck-*   verbs programs under valgrind memcheck  memcheck, sim
#   packaging-*  installation, exports, headers          packaging
#   doc-*        manual pages, the ionicdv(7) example    doc
#   lint-*       formatting, shell scripts               lint
#   cleanup-*    the leftovers check (CLEANUP)           cleanup
#
# so "ctest -L sim" runs everything that involves the emulator.
#
# Every test runs with:
#   RDMAV_DRIVERS      pointing at the provider in this build tree, so the
#                      system libibverbs loads our libionic-rdmav<ABI>.so
#                      and never an installed copy;
#   IONIC_TEST_SRCDIR / IONIC_TEST_BINDIR   source and build roots; the
#                      second also marks every process of this tree's test
#                      runs for the leftovers check (tests/e2e/leftovers.sh);
#   TMPDIR             <build>/test-tmp, so temporary files of this tree's
#                      tests stay apart from everybody else's;
#   IONIC_TEST_FABRIC  the emulated fabric of this test, <prefix>-<name>
#                      with a prefix of this build tree: SIM tests and
#                      "@SIM@" join it, scripts that start launchers
#                      themselves pass it to --fabric;
#   with IONIC_IBVERBS_PREFIX (cmake/IbverbsPrefix.cmake): that libibverbs
#                      first on LD_LIBRARY_PATH, its ibverbs-utils first on
#                      PATH, and IONIC_IBVERBS_PREFIX set;
# and, in a sanitizer build (-DIONIC_SANITIZE=...), ASAN_OPTIONS /
# UBSAN_OPTIONS that make any report fail the test, plus, for SIM tests, the
# ASan runtime preloaded first (programs we do not build load our
# instrumented provider and the LD_PRELOADed emulator); scripts that start
# launchers themselves find that runtime in IONIC_TEST_SAN_RUNTIME.

# The exit status of a skipped test (tests/support/check.h: CHECK_EXIT_SKIP).
set(IONIC_TEST_SKIP_CODE 77)

set(IONIC_TEST_SUITES unit sim verbs e2e memcheck packaging doc lint bench cleanup)
set(IONIC_TEST_LABELS_verbs verbs sim)
set(IONIC_TEST_LABELS_e2e e2e sim)
set(IONIC_TEST_LABELS_memcheck memcheck sim)

# The launcher as built in this tree (sim/CMakeLists.txt).  Whether it
# exists is known only once sim/ has been read: ionic_add_test() checks
# TARGET ionic-sim when it is called.
set(IONIC_SIM_LAUNCHER ${PROJECT_BINARY_DIR}/sim/ionic-sim)

# What tells this build tree's test runs from any other's on the machine.
set(IONIC_TEST_TMPDIR ${PROJECT_BINARY_DIR}/test-tmp)
file(MAKE_DIRECTORY ${IONIC_TEST_TMPDIR})
string(MD5 _ionic_tree_hash "${PROJECT_BINARY_DIR}")
string(SUBSTRING "${_ionic_tree_hash}" 0 8 _ionic_tree_hash)
set(IONIC_TEST_FABRIC_PREFIX "t${_ionic_tree_hash}")

# libibverbs loads "<prefix>-rdmav<ABI>.so" for RDMAV_DRIVERS=<prefix>; the
# provider build mirrors an installation (<build>/lib/libibverbs/).
if(TARGET ionic AND IONIC_BUILD_PROVIDER_DIR)
  set(IONIC_TEST_PROVIDER ${IONIC_BUILD_PROVIDER_DIR}/libionic)
  set(IONIC_TEST_ENV "RDMAV_DRIVERS=${IONIC_TEST_PROVIDER}")
else()
  set(IONIC_TEST_ENV "")
endif()
list(APPEND IONIC_TEST_ENV
  "IONIC_TEST_SRCDIR=${PROJECT_SOURCE_DIR}"
  "IONIC_TEST_BINDIR=${PROJECT_BINARY_DIR}"
  "TMPDIR=${IONIC_TEST_TMPDIR}"
  ${IONIC_IBVERBS_TEST_ENV})

set(IONIC_SAN_PRELOAD "")
if(IONIC_SANITIZE MATCHES "address")
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so
                  OUTPUT_VARIABLE IONIC_SAN_PRELOAD
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
endif()

# ionic_add_test(<suite>-<what>
#     [SOURCES <src>...]       build executable <name> from these sources;
#                              it is the command unless COMMAND is given
#     [LIBS <lib>...]          extra link libraries (libibverbs and Threads
#                              are always linked; add "ionic" for the DV API,
#                              ionic_test_check / ionic_test_fixture for
#                              tests/support)
#     [COMMAND <cmd> <arg>...] command to run ($<TARGET_FILE:...> allowed);
#                              "@EXE@" in it stands for the built executable,
#                              "@SIM@" for the launcher joined to the test's
#                              fabric (the test is disabled without it)
#     [ARGS <arg>...]          arguments appended to the command
#     [SIM]                    run as: ionic-sim --fabric <fabric>
#                              [SIM_ARGS...] -- <command>
#     [SIM_ARGS <arg>...]      launcher options (see ionic-sim --help)
#     [ENV <VAR=value>...]     extra environment
#     [TIMEOUT <seconds>]      default 60
#     [LABELS <label>...]      labels besides the suite's
#     [PASS_REGEX <regex>]     pass only if the output matches (and the
#                              exit status is then ignored, as in ctest)
#     [RUN_SERIAL]             never run in parallel with other tests
#     [WILL_FAIL]
#     [CLEANUP])               run after all the others (the fixture
#                              cleanup of ionic_leftovers), serially
# A test that exits with 77 is reported as skipped.  A SIM test is added but
# disabled (visible as "Not Run (Disabled)") when the launcher target does
# not exist.  Sanitizer builds: compiled tests run with LeakSanitizer on,
# others (third-party programs, scripts) with it off.
set(IONIC_TEST_FLAGS SIM RUN_SERIAL WILL_FAIL CLEANUP)
set(IONIC_TEST_ONE TIMEOUT PASS_REGEX)
set(IONIC_TEST_MULTI SOURCES LIBS COMMAND ARGS SIM_ARGS ENV LABELS)
function(ionic_add_test name)
  cmake_parse_arguments(PARSE_ARGV 1 T "${IONIC_TEST_FLAGS}"
    "${IONIC_TEST_ONE}" "${IONIC_TEST_MULTI}")
  if(T_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "ionic_add_test(${name}): unknown arguments ${T_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT T_SOURCES AND NOT T_COMMAND)
    message(FATAL_ERROR "ionic_add_test(${name}): needs SOURCES or COMMAND")
  endif()
  string(REPLACE ";" "|" suites "${IONIC_TEST_SUITES}")
  if(NOT name MATCHES "^(${suites})-[a-z0-9]+(-[a-z0-9]+)*$")
    message(FATAL_ERROR "ionic_add_test(${name}): a test name is "
            "<suite>-<what> in lower case with dashes, the suite one of: "
            "${IONIC_TEST_SUITES} (cmake/IonicTesting.cmake)")
  endif()
  set(suite ${CMAKE_MATCH_1})
  # what ionic_add_packet_variants() registers again
  set_property(GLOBAL PROPERTY IONIC_TEST_ARGS_${name} "${ARGN}")
  if(DEFINED IONIC_TEST_LABELS_${suite})
    set(labels ${IONIC_TEST_LABELS_${suite}})
  else()
    set(labels ${suite})
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 60)
  endif()

  set(fabric ${IONIC_TEST_FABRIC_PREFIX}-${name})
  string(LENGTH "${fabric}" len)
  if(len GREATER 48)
    # ionic-sim takes 64 characters; scripts append "-<pid>-<n>".
    message(FATAL_ERROR "ionic_add_test(${name}): name too long for a fabric name")
  endif()

  set(exe "")
  if(T_SOURCES)
    add_executable(${name} ${T_SOURCES})
    target_link_libraries(${name} PRIVATE PkgConfig::IBVERBS Threads::Threads
                          ${T_LIBS})
    target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/include
                               ${CMAKE_CURRENT_SOURCE_DIR})
    # the rdma-core major release whose verbs.h the test compiles against
    # (cmake/IbverbsPrivate.cmake), for API that only newer releases have
    target_compile_definitions(${name} PRIVATE
                               IONIC_IBVERBS_RDMA_CORE=${IONIC_RDMA_CORE_MAJOR})
    set(exe $<TARGET_FILE:${name}>)
  endif()

  set(needs_sim ${T_SIM})
  if(T_COMMAND)
    list(TRANSFORM T_COMMAND REPLACE "@EXE@" "${exe}")
    if("@SIM@" IN_LIST T_COMMAND)
      set(needs_sim TRUE)
      list(TRANSFORM T_COMMAND REPLACE "^@SIM@$"
           "${IONIC_SIM_LAUNCHER};--fabric;${fabric}")
    endif()
    set(cmd ${T_COMMAND})
  else()
    set(cmd ${exe})
  endif()
  list(APPEND cmd ${T_ARGS})
  if(T_SIM)
    set(cmd ${IONIC_SIM_LAUNCHER} --fabric ${fabric} ${T_SIM_ARGS} -- ${cmd})
  endif()
  if(needs_sim)
    list(APPEND labels sim)
  endif()
  list(APPEND labels ${T_LABELS})
  list(REMOVE_DUPLICATES labels)

  add_test(NAME ${name} COMMAND ${cmd})

  if(T_CLEANUP)
    # The leftovers check looks for this tree's marks; it must not carry
    # them itself (its own helper processes would count).
    set(env "IONIC_TEST_SCOPE_BINDIR=${PROJECT_BINARY_DIR}"
            "IONIC_TEST_SCOPE_TMPDIR=${IONIC_TEST_TMPDIR}"
            "IONIC_TEST_SCOPE_FABRIC=${IONIC_TEST_FABRIC_PREFIX}")
  else()
    set(env ${IONIC_TEST_ENV} "IONIC_TEST_FABRIC=${fabric}")
  endif()
  if(IONIC_SANITIZE)
    if(T_SOURCES AND NOT T_SIM)
      set(leaks 1)
    else()
      set(leaks 0)
    endif()
    list(APPEND env
      "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=${leaks}:abort_on_error=0:halt_on_error=1:exitcode=86"
      "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
    # Under the emulator the client is usually not instrumented, so the
    # runtime must come first; the launcher keeps LD_PRELOAD entries it
    # finds ahead of its own preload library.
    if(IONIC_SAN_PRELOAD AND T_SIM)
      list(APPEND env "LD_PRELOAD=${IONIC_SAN_PRELOAD}")
    endif()
    if(IONIC_SAN_PRELOAD)
      list(APPEND env "IONIC_TEST_SAN_RUNTIME=${IONIC_SAN_PRELOAD}")
    endif()
  endif()
  list(APPEND env ${T_ENV})

  if(IONIC_IBVERBS_TEST_ENV_MODS)
    set_tests_properties(${name} PROPERTIES
      ENVIRONMENT_MODIFICATION "${IONIC_IBVERBS_TEST_ENV_MODS}")
  endif()
  set_tests_properties(${name} PROPERTIES
    ENVIRONMENT "${env}"
    TIMEOUT ${T_TIMEOUT}
    SKIP_RETURN_CODE ${IONIC_TEST_SKIP_CODE}
    LABELS "${labels}")
  if(T_CLEANUP)
    set_tests_properties(${name} PROPERTIES
      FIXTURES_CLEANUP ionic_leftovers RUN_SERIAL TRUE)
  else()
    # the leftovers check runs after all of them (fixture cleanup)
    set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED ionic_leftovers)
  endif()
  if(T_RUN_SERIAL)
    set_tests_properties(${name} PROPERTIES RUN_SERIAL TRUE)
  endif()
  if(T_WILL_FAIL)
    set_tests_properties(${name} PROPERTIES WILL_FAIL TRUE)
  endif()
  if(T_PASS_REGEX)
    set_tests_properties(${name} PROPERTIES
      PASS_REGULAR_EXPRESSION "${T_PASS_REGEX}")
  endif()
  if(needs_sim AND NOT TARGET ionic-sim)
    set_tests_properties(${name} PROPERTIES DISABLED TRUE)
  endif()
  # A package build runs the tests without these labels only (the -LE of
  # packaging/run-unit-tests.sh): the others' programs are not built.
  if(IONIC_PACKAGE_BUILD AND T_SOURCES AND
     labels MATCHES "(^|;)(sim|e2e|memcheck|lint|cleanup|package-build)(;|$)")
    set_target_properties(${name} PROPERTIES EXCLUDE_FROM_ALL TRUE)
  endif()
endfunction()

# ionic_add_packet_variants(<name>...): each test again as <name>-packet,
# the same command with IONIC_SIM_DIRECT=0 in its environment, so that
# every launcher it starts runs ionic-sim's packet path (every work
# request crosses the emulated wire, sim/README.md "Direct path"), with
# the label packet-path besides its own.  The suites run the direct path
# by default; these prove the packet path still passes them.  Registered
# in the normal build only (docs/testing.md §3.2 says why).  A test that
# picks its path itself (--direct, --transport, a fault key, --pcap)
# gains nothing and is refused.
function(ionic_add_packet_variants)
  if(IONIC_SANITIZE)
    return()
  endif()
  foreach(name IN LISTS ARGN)
    get_property(known GLOBAL PROPERTY IONIC_TEST_ARGS_${name} SET)
    if(NOT known)
      message(FATAL_ERROR "ionic_add_packet_variants(${name}): no such test "
              "(register it with ionic_add_test() first)")
    endif()
    get_property(args GLOBAL PROPERTY IONIC_TEST_ARGS_${name})
    cmake_parse_arguments(V "${IONIC_TEST_FLAGS}" "${IONIC_TEST_ONE}"
      "${IONIC_TEST_MULTI}" ${args})
    if("${V_COMMAND};${V_ARGS};${V_SIM_ARGS};${V_ENV}" MATCHES
       "--direct|--transport|--pcap|_ppm|delay|link.down|mute|IONIC_E2E_SIM_ARGS")
      message(FATAL_ERROR "ionic_add_packet_variants(${name}): the test "
              "chooses its path itself")
    endif()
    if(V_SOURCES)
      if(V_COMMAND)
        list(TRANSFORM V_COMMAND REPLACE "@EXE@" "$<TARGET_FILE:${name}>")
      else()
        set(V_COMMAND $<TARGET_FILE:${name}>)
      endif()
    endif()
    set(opts "")
    foreach(flag SIM RUN_SERIAL WILL_FAIL)
      if(V_${flag})
        list(APPEND opts ${flag})
      endif()
    endforeach()
    if(V_TIMEOUT)
      list(APPEND opts TIMEOUT ${V_TIMEOUT})
    endif()
    if(V_PASS_REGEX)
      list(APPEND opts PASS_REGEX ${V_PASS_REGEX})
    endif()
    ionic_add_test(${name}-packet COMMAND ${V_COMMAND} ARGS ${V_ARGS}
      SIM_ARGS ${V_SIM_ARGS} ENV ${V_ENV} IONIC_SIM_DIRECT=0
      LABELS ${V_LABELS} packet-path ${opts})
  endforeach()
endfunction()
