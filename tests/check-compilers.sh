#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# The compiler matrix: the project builds warning-free (-Wall -Wextra
# -Werror, preset "default") with every compiler the distributions it
# supports ship, as rdma-core's own CI checks:
#
#   gcc-11     RHEL 9, Ubuntu 22.04
#   gcc-12     Debian 12
#   gcc-14     Debian 13 (not installable on Debian 12: the Debian 13 run,
#              ./build.sh distro trixie, builds the project with it)
#   clang-14, clang-15, clang-16
#
# Each compiler configures a tree of its own, BUILDROOT/<compiler>, and
# compiles every object of the provider, the emulator and the tests (not
# bench/, a gcc-only program); nothing is linked and no test runs.  To keep
# it cheap in CI: no debug information, and clang only parses and checks
# (-fsyntax-only: its warnings all come from the front end), while gcc
# compiles at -O2, where its middle end warns (-Wmaybe-uninitialized,
# -Warray-bounds, -Wstringop-*).  A compiler that is not installed is
# skipped with a message; when none is, the exit status is 77.
#
#   tests/check-compilers.sh BUILDROOT [COMPILER...]
#   tests/check-compilers.sh --syntax-only COMMAND...   (the compiler
#                   launcher of the clang trees: COMMAND -fsyntax-only)
#
# Exit status: 0 every installed compiler builds, 1 one does not (its
# first errors are printed), 77 none is installed, 2 usage error.
set -uo pipefail

if [ "${1:-}" = --syntax-only ]; then
	shift
	exec "$@" -fsyntax-only
fi
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
self=$root/tests/check-compilers.sh
[ $# -ge 1 ] || {
	sed -n '4,/^[^#]/{/^#/p}' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}
out=$1
shift
compilers=("$@")
[ ${#compilers[@]} -gt 0 ] ||
	compilers=(gcc-11 gcc-12 gcc-14 clang-14 clang-15 clang-16)

mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
built=0 failed=() skipped=()
for cc in "${compilers[@]}"; do
	if ! command -v "$cc" >/dev/null; then
		echo "check-compilers: SKIP $cc: not installed" \
			"(Debian 12: ./build.sh compilers installs what the release offers)"
		skipped+=("$cc")
		continue
	fi
	# The C++ compiler of the same family where there is one (the fuzz
	# harnesses are not built here, but the project enables C++).
	cxx=${cc/gcc/g++}
	cxx=${cxx/clang/clang++}
	command -v "$cxx" >/dev/null || cxx=c++
	dir=$out/$cc
	log=$dir.log
	launcher=
	case $cc in clang*) launcher="$self;--syntax-only" ;; esac
	t0=$SECONDS
	if ! cmake --preset default -S "$root" -B "$dir" \
		-DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
		-DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" \
		-DCMAKE_C_COMPILER_LAUNCHER="$launcher" \
		>"$log" 2>&1 </dev/null; then
		echo "check-compilers: FAIL $cc: configure failed (log $log)"
		tail -n 20 "$log"
		failed+=("$cc")
		continue
	fi
	mapfile -t objs < <(ninja -C "$dir" -t targets all |
		sed -n 's/^\(\(providers\|sim\|tests\)\/.*\.o\): .*/\1/p')
	if ! ninja -C "$dir" -k 0 "${objs[@]}" >>"$log" 2>&1 </dev/null; then
		echo "check-compilers: FAIL $cc: warnings or errors (log $log)"
		grep -E -m 20 'error|warning' "$log"
		failed+=("$cc")
		continue
	fi
	echo "check-compilers: ok $cc ($("$cc" -dumpfullversion -dumpversion 2>/dev/null |
		head -1)): ${#objs[@]} objects in $((SECONDS - t0)) s"
	built=$((built + 1))
done

echo "check-compilers: ${built} built, ${#failed[@]} failed, ${#skipped[@]} skipped${skipped[*]:+ (${skipped[*]})}"
[ ${#failed[@]} -eq 0 ] || exit 1
[ $built -gt 0 ] || exit 77
exit 0
