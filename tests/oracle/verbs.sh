#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
# Our verbs programs that need no extension of ours, with upstream's ionic
# provider and libibverbs (the oracle, ../shared/oracle) on ionic-sim, each
# held to EXPECTED (tests/oracle/verbs-expected.txt): its exit status and the
# exact set of its failed checks, each an upstream defect or limit of
# docs/upstream-defects.md.  A check that starts passing, or a new failure,
# fails the test.
# usage: verbs.sh <ionic-sim> <test-bin-dir> <expected>   exit 77 without the oracle
set -u
sim=$(readlink -f "$1")
bin=$(readlink -f "$2")
expected=$(readlink -f "$3")
# shellcheck source=tests/oracle/lib.sh
. "$(dirname "$0")/lib.sh"
oracle_begin verbs

# "run PROGRAM | EXIT | SIM OPTIONS | ARGS | why" lines: run each one
bad=0
grep '^run ' "$expected" | while IFS='|' read -r prog want sopts args _; do
	prog=$(echo "${prog#run }" | tr -d ' ')
	want=$(echo "$want" | tr -d ' ')
	# shellcheck disable=SC2086 # the options and arguments are word lists
	timeout 60 "$sim" --fabric "${IONIC_TEST_FABRIC:-default}" $sopts \
		--provider "$OLIB/libibverbs/libionic" -- \
		env LD_LIBRARY_PATH="$OLIB" "$bin/$prog" $args >"$work/$prog.log" 2>&1
	st=$?
	# a failed check: "<file>:<line>: [<section>] <what>", by its text
	sed -n 's/^[^ ]*:[0-9]*: \(\[.*\)$/\1/p' "$work/$prog.log" | sort >"$work/$prog.got"
	sed -n "s/^check $prog | \\(.*\\) | .*\$/\\1/p" "$expected" | sort >"$work/$prog.want"
	new=$(comm -23 "$work/$prog.got" "$work/$prog.want")
	gone=$(comm -13 "$work/$prog.got" "$work/$prog.want")
	if [ "$st" != "$want" ] || [ -n "$new" ] || [ -n "$gone" ]; then
		echo "FAIL: $prog: exit $st (expected $want)"
		[ -z "$new" ] || echo "$new" | sed 's/^/  new failure: /'
		[ -z "$gone" ] || echo "$gone" | sed 's/^/  no longer fails: /'
		tail -n 20 "$work/$prog.log"
		echo x >>"$work/bad"
	else
		echo "ok: $prog: exit $st, $(wc -l <"$work/$prog.got") expected failed check(s)"
	fi
done
[ -f "$work/bad" ] && bad=$(wc -l <"$work/bad")
echo "oracle verbs: $(grep -c '^run ' "$expected") programs, $bad unexpected"
[ "$bad" = 0 ]
