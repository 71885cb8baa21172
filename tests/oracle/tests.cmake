# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# Included by tests/CMakeLists.txt.
# ---------------------------------------------------------------------------
# The oracle (issue 20, docs/oracle-comparison.md): upstream rdma-core's own
# ionic provider, libibverbs and pyverbs, built, in ../shared/oracle next to
# the source tree (or $IONIC_ORACLE_DIR).  Only compared with: each test
# skips (77, with a message) without it, and nothing else needs it.  Not in
# sanitizer builds: they compare two providers' behaviour, which the
# default build shows as well, for a fraction of the CI time.
# ---------------------------------------------------------------------------
if(IONIC_HAVE_SIM AND NOT IONIC_SANITIZE)
  # upstream's pyverbs suite (389 tests) with upstream's provider on
  # ionic-sim, held to tests/oracle/pyverbs-expected.txt (~10 s)
  ionic_add_test(e2e-oracle-pyverbs
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/oracle/pyverbs.sh ${IONIC_SIM_LAUNCHER}
            ${CMAKE_CURRENT_SOURCE_DIR}/oracle/pyverbs-expected.txt
    TIMEOUT 300
    LABELS pyverbs oracle)
  # our verbs programs that need no extension of ours, with upstream's
  # provider and libibverbs, held to tests/oracle/verbs-expected.txt (~8 s)
  if(TARGET verbs-fork)
    ionic_add_test(e2e-oracle-verbs
      COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/oracle/verbs.sh ${IONIC_SIM_LAUNCHER}
              $<TARGET_FILE_DIR:verbs-fork>
              ${CMAKE_CURRENT_SOURCE_DIR}/oracle/verbs-expected.txt
      TIMEOUT 120
      LABELS oracle)
  endif()
  # the differential scenarios: one program (plain libibverbs) under both
  # providers, what reaches the device compared field by field
  add_executable(oracle-diff-scenario oracle/diff_scenario.c
    oracle/diff_more.c)
  target_link_libraries(oracle-diff-scenario PRIVATE ionic_test_fixture ionic)
  target_include_directories(oracle-diff-scenario PRIVATE
    ${PROJECT_SOURCE_DIR}/include)
  ionic_add_test(e2e-oracle-diff
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/oracle/diff.sh ${IONIC_SIM_LAUNCHER}
            $<TARGET_FILE:oracle-diff-scenario>
            ${CMAKE_CURRENT_SOURCE_DIR}/oracle/diff-known.txt
    TIMEOUT 120
    LABELS oracle)
endif()
