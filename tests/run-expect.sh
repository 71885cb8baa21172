#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# Run a command; pass only if it exits 0 and its output (stdout and
# stderr) contains each expected line, in the given order.
#
# usage: run-expect.sh [-l LINE]... [-x TEXT]... -- COMMAND [ARGS...]
#   -l LINE   a line that must appear (exact, whole line), after the previous
#   -x TEXT   a string that must not appear anywhere
set -u
want=() bad=()
while [ $# -gt 0 ]; do
	case $1 in
	-l) want+=("$2"); shift 2 ;;
	-x) bad+=("$2"); shift 2 ;;
	--) shift; break ;;
	*) echo "usage: $0 [-l LINE]... [-x TEXT]... -- COMMAND..." >&2; exit 2 ;;
	esac
done
[ $# -gt 0 ] || { echo "run-expect.sh: no command" >&2; exit 2; }

out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
"$@" >"$out" 2>&1 </dev/null
rc=$?
cat "$out"
fail=0
if [ $rc -ne 0 ]; then
	echo "run-expect: FAIL: '$1' exited with status $rc"
	fail=1
fi
line=0
for w in "${want[@]}"; do
	n=$(tail -n "+$((line + 1))" "$out" | grep -n -x -F -m1 -- "$w" | cut -d: -f1)
	if [ -z "$n" ]; then
		echo "run-expect: FAIL: missing line (in this order): $w"
		fail=1
		break
	fi
	line=$((line + n))
done
for b in "${bad[@]}"; do
	if grep -q -F -- "$b" "$out"; then
		echo "run-expect: FAIL: output contains: $b"
		fail=1
	fi
done
exit $fail
