#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# The part of the test suite a package build runs (debian/rules,
# redhat/libionic.spec %check): every test that needs neither ionic-sim nor
# a device nor this machine's state.  Left out by label: the emulator's own
# tests and everything run under it (sim*), the end-to-end clients (e2e),
# valgrind (memcheck) and the package builds themselves (package-build);
# -FC leaves out the machine-wide "leftovers" check.  A tree configured
# with IONIC_PACKAGE_BUILD=ON (debian/rules, the spec) builds the programs
# of these tests only: cmake/IonicTesting.cmake names the same labels.
#
# usage: run-unit-tests.sh BUILD_DIR [PARALLEL_JOBS]
set -eu
build=${1:?usage: $0 BUILD_DIR [PARALLEL_JOBS]}
jobs=${2:-1}
[ -n "$jobs" ] || jobs=1
cd "$build"
exec ctest --output-on-failure --no-tests=error -j "$jobs" \
	-LE 'sim|e2e|memcheck|lint|cleanup|package-build' -FC ionic_leftovers \
	-E '^unit-leftovers-check$'
