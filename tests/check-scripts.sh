#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# Every shell script parses; the build, packaging and test-infrastructure
# scripts (build.sh, .ci/run, tests/*.sh, packaging/*.sh) pass shellcheck at
# warning level (skipped when shellcheck is not installed); build.sh answers
# help and rejects an unknown subcommand.
#
# usage: check-scripts.sh SRCDIR
set -u
src=${1:?usage: $0 SRCDIR}
fail=0
mapfile -t scripts < <(cd "$src" && {
	echo build.sh
	echo .ci/run
	find tests sim packaging -name '*.sh' -type f 2>/dev/null
} | LC_ALL=C sort -u)

for s in "${scripts[@]}"; do
	if ! out=$(bash -n "$src/$s" 2>&1); then
		echo "FAIL: $s does not parse: $out"
		fail=1
	fi
done
[ -x "$src/build.sh" ] || { echo "FAIL: build.sh is not executable"; fail=1; }
[ -x "$src/.ci/run" ] || { echo "FAIL: .ci/run is not executable"; fail=1; }

if command -v shellcheck >/dev/null; then
	mapfile -t own < <(cd "$src" && {
		echo build.sh
		echo .ci/run
		ls tests/*.sh packaging/*.sh
	})
	if ! out=$(cd "$src" && shellcheck -S warning "${own[@]}" 2>&1); then
		echo "FAIL: shellcheck:"
		printf '%s\n' "$out" | sed 's/^/    /'
		fail=1
	else
		echo "ok: shellcheck (${#own[@]} scripts)"
	fi
else
	echo "note: shellcheck not installed; lint skipped"
fi

if ! "$src/build.sh" help >/dev/null 2>&1; then
	echo "FAIL: build.sh help exits non-zero"
	fail=1
fi
"$src/build.sh" no-such-command >/dev/null 2>&1
rc=$?
if [ $rc -ne 2 ]; then
	echo "FAIL: build.sh with an unknown subcommand exits $rc, expected 2"
	fail=1
fi

[ $fail -eq 0 ] && echo "scripts: ok" && exit 0
exit 1
