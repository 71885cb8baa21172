# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# Included by tests/CMakeLists.txt.
# ---------------------------------------------------------------------------
# The oracle (issue 20, docs/oracle-comparison.md): upstream rdma-core's own
# ionic provider, libibverbs and pyverbs, built, in ../shared/oracle next to
# the source tree (or $IONIC_ORACLE_DIR).  Only compared with: each test
# skips (77, with a message) without it, and nothing else needs it.
# ---------------------------------------------------------------------------
if(IONIC_HAVE_SIM)
  # upstream's pyverbs suite (389 tests) with upstream's provider on
  # ionic-sim, held to tests/oracle/pyverbs-expected.txt (~10 s)
  ionic_add_test(e2e-oracle-pyverbs
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/oracle/pyverbs.sh ${IONIC_SIM_LAUNCHER}
            ${CMAKE_CURRENT_SOURCE_DIR}/oracle/pyverbs-expected.txt
    TIMEOUT 300
    LABELS pyverbs oracle)
endif()
