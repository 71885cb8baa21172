#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# The goals of issue 22 (bench/README.md, "The direct path"): unmodified
# perftest between two processes under ionic-sim, each row run with the
# packet path (IONIC_SIM_DIRECT=0) and with the direct path
# (IONIC_SIM_DIRECT=1), the ratio direct/packet, the goal and whether the
# direct path meets it.  Every figure is the median of RUNS runs; the
# machine's 1-minute load average is taken before and after each row, since
# two busy-polling processes on a shared machine measure the machine too.
#
# Usage: run-direct.sh <ionic-sim> <out.json> [runs] [iterations]
# Prints one table row per test and writes them to out.json as a JSON
# array.  Exit status 77 when perftest is missing.
# IONIC_BENCH_DIRECT_ONLY=TEST runs that one row only.
set -u
sim=$(readlink -f "$1")
out=$2
runs=${3:-5}
iters=${4:-2000}
# shellcheck source=bench/perftest-lib.sh
. "$(dirname "$(readlink -f "$0")")/perftest-lib.sh"

# Tests: name, perftest program, its arguments, kind (lat or bw), and the
# goal of issue 22 item 5 where it sets one (lat: typical and p99 at most,
# in us; bw: MB/s at least).
tests=(
	"send_lat_64|ib_send_lat|-s 64|lat|12 100"
	"write_lat_64|ib_write_lat|-s 64|lat|12 100"
	"write_bw_65536|ib_write_bw|-s 65536|bw|2000"
	"read_bw_65536|ib_read_bw|-s 65536|bw|"
	"send_bw_4096|ib_send_bw|-s 4096|bw|1000"
)

# mode_figures KIND MODE -> "FIRST SECOND RUNS": medians of RUNS runs
mode_figures() {
	local kind=$1 mode=$2 line f1 f2
	: >"$work/a"
	: >"$work/b"
	for _ in $(seq "$runs"); do
		line=$(IONIC_SIM_DIRECT=$mode pt_run_once "$prog" "$args" "")
		[ -n "$line" ] || continue
		read -r f1 f2 <<<"$(pt_fields "$kind" "$line")"
		echo "$f1" >>"$work/a"
		echo "$f2" >>"$work/b"
	done
	echo "$(pt_median <"$work/a") $(pt_median <"$work/b") $(wc -l <"$work/a")"
}

ratio() { # A B -> A/B with two decimals, or -
	if [ -z "$1" ] || [ -z "$2" ] || [ "$1" = - ] || [ "$2" = - ]; then
		echo -
	else
		awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'
	fi
}

printf '%-14s %-22s %-22s %-6s %-16s %-4s %s\n' test "packet" "direct" \
	ratio goal met "load"
echo "[" >"$out"
first=1
for t in "${tests[@]}"; do
	IFS='|' read -r tname prog args kind goal <<<"$t"
	if [ -n "${IONIC_BENCH_DIRECT_ONLY:-}" ] &&
		[ "$IONIC_BENCH_DIRECT_ONLY" != "$tname" ]; then
		continue
	fi
	load0=$(pt_load)
	read -r p1 p2 pn <<<"$(mode_figures "$kind" 0)"
	read -r d1 d2 dn <<<"$(mode_figures "$kind" 1)"
	load1=$(pt_load)
	met=$(pt_goal_met "$kind" "$goal" "${d1:-}" "${d2:-}")
	# the ratio of the first figures (median latency, bandwidth)
	r=$(ratio "${d1:-}" "${p1:-}")
	if [ "$kind" = lat ]; then
		n1=typical_us n2=p99_us
		gtext=${goal:+"<=${goal% *}/${goal#* }us"}
		ptext="${p1:--}/${p2:--} us" dtext="${d1:--}/${d2:--} us"
		gfields="\"goal_typical_us\": ${goal% *}, \"goal_p99_us\": ${goal#* }"
	else
		n1=bw_mbs n2=mpps
		gtext=${goal:+">=${goal}MB/s"}
		ptext="${p1:--} MB/s" dtext="${d1:--} MB/s"
		gfields="\"goal_bw_mbs\": $goal"
	fi
	fields="\"packet_$n1\": ${p1:-null}, \"packet_$n2\": ${p2:-null}, \"direct_$n1\": ${d1:-null}, \"direct_$n2\": ${d2:-null}"
	[ -z "$goal" ] || fields="$fields, $gfields"
	[ -z "$goal" ] || fields="$fields, \"goal_met\": $([ "$met" = yes ] && echo true || echo false)"
	printf '%-14s %-22s %-22s %-6s %-16s %-4s %s\n' "$tname" "$ptext" \
		"$dtext" "$r" "${gtext:--}" "$met" "$load0 -> $load1"
	[ $first -eq 1 ] || echo "," >>"$out"
	first=0
	printf '  {"test": "%s", "kind": "%s", "runs_packet": %s, "runs_direct": %s, %s, "ratio_direct_packet": %s, "load_before": %s, "load_after": %s}' \
		"$tname" "$kind" "${pn:-0}" "${dn:-0}" "$fields" \
		"$([ "$r" = - ] && echo null || echo "$r")" "$load0" "$load1" >>"$out"
done
printf '\n]\n' >>"$out"
