#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# Every shell script of the tree (*.sh, and files whose first line runs
# sh or bash) parses and passes shellcheck at its default severity, style
# included; build.sh answers help, rejects an unknown subcommand and skips
# the release matrix of a missing folder.
# Without shellcheck the test fails, it does not skip: ./build.sh deps
# installs it.  A finding that is wrong for one line is silenced on that
# line with "# shellcheck disable=SCnnnn" and a reason.
#
# The scripts are those git tracks (in a git checkout), else every such
# file outside build trees.
#
# usage: check-scripts.sh SRCDIR
set -u
src=${1:?usage: $0 SRCDIR}
cd "$src" || exit 1
fail=0

# Scripts of other owners that still have findings: checked for errors
# only until they are cleaned up (then the line goes).
declare -A errors_only=(
	[sim/tests/test_ibv_devices.sh]=1
	[sim/tests/test_launcher.sh]=1
)

if [ -d .git ] || [ -f .git ]; then
	mapfile -t candidates < <(git ls-files)
else
	mapfile -t candidates < <(find . \( -path './build*' -o -path ./.git \) -prune -o \
		-type f -print | sed 's|^\./||')
fi
scripts=()
for f in "${candidates[@]}"; do
	[ -f "$f" ] || continue
	case $f in
	*.sh) scripts+=("$f") ;;
	*)
		read -r first <"$f" 2>/dev/null || continue
		[[ $first =~ ^#!.*[/\ ](ba|da)?sh([[:space:]]|$) ]] && scripts+=("$f")
		;;
	esac
done
mapfile -t scripts < <(printf '%s\n' "${scripts[@]}" | LC_ALL=C sort -u)
if [ ${#scripts[@]} -eq 0 ]; then
	echo "FAIL: no shell scripts found in $src"
	exit 1
fi

for s in "${scripts[@]}"; do
	if ! out=$(bash -n "$s" 2>&1); then
		echo "FAIL: $s does not parse: $out"
		fail=1
	fi
done
[ -x build.sh ] || { echo "FAIL: build.sh is not executable"; fail=1; }
[ -x .ci/run ] || { echo "FAIL: .ci/run is not executable"; fail=1; }

if ! command -v shellcheck >/dev/null; then
	echo "FAIL: shellcheck is not installed (./build.sh deps installs it)"
	exit 1
fi
full=() relaxed=()
for s in "${scripts[@]}"; do
	if [ -n "${errors_only[$s]:-}" ]; then relaxed+=("$s"); else full+=("$s"); fi
done
if ! out=$(shellcheck -x "${full[@]}" 2>&1); then
	echo "FAIL: shellcheck:"
	printf '%s\n' "$out" | sed 's/^/    /'
	fail=1
fi
if [ ${#relaxed[@]} -gt 0 ] && ! out=$(shellcheck -x -S error "${relaxed[@]}" 2>&1); then
	echo "FAIL: shellcheck (errors only):"
	printf '%s\n' "$out" | sed 's/^/    /'
	fail=1
fi
[ $fail -eq 0 ] && echo "ok: shellcheck, ${#full[@]} scripts (${#relaxed[@]} more for errors only: ${relaxed[*]})"

if ! ./build.sh help >/dev/null 2>&1; then
	echo "FAIL: build.sh help exits non-zero"
	fail=1
fi
./build.sh no-such-command >/dev/null 2>&1
rc=$?
if [ $rc -ne 2 ]; then
	echo "FAIL: build.sh with an unknown subcommand exits $rc, expected 2"
	fail=1
fi
# CI runs the release matrix on a folder that may not be there: a skip
# (77) with a message, before anything is installed or built
out=$(./build.sh matrix "$src/no-such-folder-of-tarballs" 2>&1)
rc=$?
if [ $rc -ne 77 ] || ! grep -q "skipping the rdma-core release matrix" <<<"$out"; then
	echo "FAIL: build.sh matrix of a missing folder exits $rc, expected 77 with a skip message: $out"
	fail=1
fi

[ $fail -eq 0 ] && echo "scripts: ok" && exit 0
exit 1
