#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
# Upstream rdma-core's own pyverbs suite with upstream's ionic provider
# (the oracle, ../shared/oracle) on ionic-sim, held to EXPECTED
# (tests/oracle/pyverbs-expected.txt: which tests pass, which fail for an
# upstream reason, which may pass or skip; all others skip).
# usage: pyverbs.sh <ionic-sim> <expected>      exit 77 without the oracle
set -u
sim=$(readlink -f "$1")
expected=$(readlink -f "$2")
# shellcheck source=tests/oracle/lib.sh
. "$(dirname "$0")/lib.sh"
oracle_begin pyverbs

"$sim" --fabric "${IONIC_TEST_FABRIC:-default}" --provider "$OLIB/libibverbs/libionic" -- \
	env LD_LIBRARY_PATH="$OLIB" PYTHONPATH="$work/oracle/python" PYTHONDONTWRITEBYTECODE=1 \
	/usr/bin/python3 "$(dirname "$0")/run_pyverbs.py" "$work/results" "$ORACLE/tests" \
	--dev ionic_0 --port 1 --gid 1 >"$work/log" 2>&1
st=$?
tail -n 3 "$work/log"
if [ ! -s "$work/results" ]; then
	cat "$work/log"
	echo "FAIL: the suite ended ($st) without results"
	exit 1
fi
# expected: "kind id [Un]" lines; results: "outcome id" lines
awk '
	FNR == NR { if ($1 !~ /^#/ && NF) { want[$2] = $1; why[$2] = $3 }; next }
	{
		got[$2] = $1; n[$1]++
		w = ($2 in want) ? want[$2] : "skip"
		ok = (w == "pass" && $1 == "pass") ||
		     (w == "skip" && $1 == "skip") ||
		     (w == "random" && ($1 == "pass" || $1 == "skip")) ||
		     (w == "upstream" && ($1 == "fail" || $1 == "error"))
		if (!ok) {
			printf "FAIL: %s: %s, expected %s%s\n", $2, $1, w,
			       w == "upstream" ? " (" why[$2] ")" : ""
			bad++
		}
	}
	END {
		for (t in want)
			if (!(t in got)) { printf "FAIL: %s: not run\n", t; bad++ }
		printf "oracle pyverbs: %d passed, %d skipped, %d failed, %d errors; %d unexpected\n",
		       n["pass"], n["skip"], n["fail"], n["error"], bad
		exit bad > 0
	}' "$expected" "$work/results" || {
	grep -n -A 30 '^\(ERROR\|FAIL\):' "$work/log" | head -n 200
	exit 1
}
