#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
# The differential suite: one scenario program (plain libibverbs plus the
# IONIC_1.0 calls both libraries have), run under ionic-sim with libionic
# and with upstream's provider (the oracle, ../shared/oracle); what the
# application sees and what reaches the device (commands, doorbells, WQE
# bytes, CQEs) compared field by field, differences held to KNOWN
# (tests/oracle/diff-known.txt, docs/oracle-comparison.md).
# usage: diff.sh <ionic-sim> <diff-scenario> <known>     exit 77 without the oracle
set -u
sim=$(readlink -f "$1")
prog=$(readlink -f "$2")
known=$(readlink -f "$3")
here=$(dirname "$0")
work=$(mktemp -d "${TMPDIR:-/tmp}/oracle-diff.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM HUP
# shellcheck source=tests/oracle/lib.sh
. "$here/lib.sh"
oracle_setup "$work"

fabric=${IONIC_TEST_FABRIC:-default}
# run NAME [LAUNCHER OPTION...]: both parts of the program, the second alone
# with the SQ in controller memory behind express doorbells
run() {
	name=$1
	shift
	IONIC_SIM_TRACE_RAW=1 "$sim" --fabric "$fabric" --trace "$work/$name.trace" \
		"$@" -- env ${OLD_LD+LD_LIBRARY_PATH="$OLD_LD"} "$prog" >"$work/$name.out" 2>&1
	st=$?
	IONIC_SIM_TRACE_RAW=1 "$sim" --fabric "$fabric" --trace "$work/$name.trace" \
		--cmb-pages 64 --expdb-qtypes 1 "$@" -- \
		env ${OLD_LD+LD_LIBRARY_PATH="$OLD_LD"} "$prog" cmb >>"$work/$name.out" 2>&1 || st=$?
	return $st
}
if ! run ours; then
	cat "$work/ours.out"
	echo "FAIL: the scenarios fail with libionic"
	exit 1
fi
# upstream's run fails checks where its defects show (diff-known.txt)
OLD_LD=$OLIB run up --provider "$OLIB/libibverbs/libionic"
python3 "$here/diffnorm.py" "$work/ours.trace" >"$work/ours.norm" &&
	python3 "$here/diffnorm.py" "$work/up.trace" >"$work/up.norm" || exit 1
python3 "$here/diffcmp.py" "$work/ours.out" "$work/up.out" \
	"$work/ours.norm" "$work/up.norm" "$known"
