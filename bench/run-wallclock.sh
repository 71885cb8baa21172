#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# Wall-clock figures under ionic-sim: unmodified perftest between two
# processes, each with its own emulated NIC on a private fabric, for each
# doorbell configuration the emulator offers.  Every figure is the median
# of RUNS runs (perftest's own per-run figure: t_typical and the 99th
# percentile for latency, the average bandwidth and message rate for
# bandwidth).  These measure the emulator at least as much as the
# provider: see bench/README.md.
#
# Usage: run-wallclock.sh <ionic-sim> <out.json> [runs] [iterations] [probe]
# 'probe' is the benchmark program (ionic-bench): its probe-expdb run
# says whether the emulator really grants express doorbells.
# Prints one table row per test and configuration and writes them to
# out.json as a JSON array.  Exit status 77 when perftest is missing.
# IONIC_BENCH_WALLCLOCK_ONLY=TEST:CONFIG runs that one row only.
set -u
sim=$(readlink -f "$1")
out=$2
runs=${3:-5}
iters=${4:-2000}
probe=${5:-}
# shellcheck source=bench/perftest-lib.sh
. "$(dirname "$(readlink -f "$0")")/perftest-lib.sh"

# Doorbell configurations: name, then ionic-sim options.  "express" needs
# an emulator that grants express doorbells to SQs in controller memory;
# one that does not (the SQ then only moves to CMB) is reported as such.
configs=(
	"trapped|"
	"cmb-trapped|--cmb-pages 256"
	"express|--cmb-pages 256 --expdb-qtypes 1"
)

# Tests: name, perftest program, its arguments, kind (lat or bw), and
# the goal of issue 14 item 3 where it sets one (lat: typical and p99 at
# most, in us; bw: MB/s at least).
tests=(
	"send_lat_64|ib_send_lat|-s 64|lat|15 100"
	"write_lat_64|ib_write_lat|-s 64|lat|15 100"
	"read_lat_64|ib_read_lat|-s 64|lat|"
	"send_bw_64|ib_send_bw|-s 64|bw|"
	"send_bw_4096|ib_send_bw|-s 4096|bw|1000"
	"write_bw_65536|ib_write_bw|-s 65536|bw|2000"
)

printf '%-14s %-12s %10s %10s %10s %10s %-12s %s\n' test doorbells "typ[us]" \
	"p99[us]" "BW[MB/s]" "Mpps" goal met
echo "[" >"$out"
first=1
for c in "${configs[@]}"; do
	cname=${c%%|*} copts=${c#*|}
	note=
	# shellcheck disable=SC2086 # word splitting of the option list
	if [ "$cname" = express ] && [ -n "$probe" ] &&
		! "$sim" --fabric "${IONIC_TEST_FABRIC:-bench}-$$-probe" $copts \
			-- "$probe" probe-expdb >/dev/null 2>&1; then
		note="ionic-sim grants no express doorbells: the SQs are in CMB with trapped doorbells"
	fi
	for t in "${tests[@]}"; do
		IFS='|' read -r tname prog args kind goal <<<"$t"
		if [ -n "${IONIC_BENCH_WALLCLOCK_ONLY:-}" ] &&
			[ "$IONIC_BENCH_WALLCLOCK_ONLY" != "$tname:$cname" ]; then
			continue
		fi
		: >"$work/a"
		: >"$work/b"
		for _ in $(seq "$runs"); do
			line=$(pt_run_once "$prog" "$args" "$copts")
			[ -n "$line" ] || continue
			read -r f1 f2 <<<"$(pt_fields "$kind" "$line")"
			echo "$f1" >>"$work/a"
			echo "$f2" >>"$work/b"
		done
		m1=$(pt_median <"$work/a")
		m2=$(pt_median <"$work/b")
		n=$(wc -l <"$work/a")
		met=$(pt_goal_met "$kind" "$goal" "$m1" "$m2")
		if [ "$kind" = lat ]; then
			gtext=${goal:+"<=${goal% *}/${goal#* }us"}
			printf '%-14s %-12s %10s %10s %10s %10s %-12s %s\n' \
				"$tname" "$cname" "${m1:--}" "${m2:--}" - - \
				"${gtext:--}" "$met"
			fields="\"typical_us\": ${m1:-null}, \"p99_us\": ${m2:-null}"
			[ -z "$goal" ] || fields="$fields, \"goal_typical_us\": ${goal% *}, \"goal_p99_us\": ${goal#* }"
		else
			gtext=${goal:+">=${goal}MB/s"}
			printf '%-14s %-12s %10s %10s %10s %10s %-12s %s\n' \
				"$tname" "$cname" - - "${m1:--}" "${m2:--}" \
				"${gtext:--}" "$met"
			fields="\"bw_mbs\": ${m1:-null}, \"mpps\": ${m2:-null}"
			[ -z "$goal" ] || fields="$fields, \"goal_bw_mbs\": $goal"
		fi
		[ -z "$goal" ] || fields="$fields, \"goal_met\": $([ "$met" = yes ] && echo true || echo false)"
		[ $first -eq 1 ] || echo "," >>"$out"
		first=0
		printf '  {"test": "%s", "doorbells": "%s", "runs": %s, %s, "note": "%s"}' \
			"$tname" "$cname" "$n" "$fields" "$note" >>"$out"
	done
	[ -z "$note" ] || echo "  ($cname: $note)"
done
printf '\n]\n' >>"$out"
