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
work=$(mktemp -d)
server=

cleanup() {
	if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then
		kill "$server" 2>/dev/null
		wait "$server" 2>/dev/null
	fi
	rm -rf "$work"
}
trap cleanup EXIT

command -v ib_send_lat >/dev/null || { echo "perftest is not installed"; exit 77; }

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

listening() {
	ss -ltnH "sport = :$1" 2>/dev/null | grep -q .
}

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

# goal_met KIND "GOAL" FIRST SECOND -> yes, no, or - (no goal or figure)
goal_met() {
	local kind=$1 goal=$2 a=$3 b=$4
	if [ -z "$goal" ] || [ -z "$a" ]; then
		echo -
		return
	fi
	if [ "$kind" = lat ]; then
		[ -n "$b" ] || { echo -; return; }
		awk -v a="$a" -v b="$b" -v g="$goal" 'BEGIN { split(g, l, " ")
			print (a <= l[1] && b <= l[2]) ? "yes" : "no" }'
	else
		awk -v a="$a" -v g="$goal" 'BEGIN { print (a >= g) ? "yes" : "no" }'
	fi
}

# run_once PROG ARGS SIMOPTS -> the client's result line on stdout
run_once() {
	local prog=$1 args=$2 simopts=$3 port fabric
	port=$(free_port)
	fabric="${IONIC_TEST_FABRIC:-bench}-$$-$RANDOM"
	# shellcheck disable=SC2086 # word splitting of the option lists
	timeout 120 "$sim" --fabric "$fabric" $simopts -- "$prog" -d ionic_0 \
		-i 1 -x 1 -F -n "$iters" -p "$port" $args \
		>"$work/server.out" 2>&1 </dev/null &
	server=$!
	for _ in $(seq 200); do
		listening "$port" && break
		kill -0 "$server" 2>/dev/null || break
		sleep 0.05
	done
	# shellcheck disable=SC2086
	timeout 120 "$sim" --fabric "$fabric" $simopts -- "$prog" -d ionic_0 \
		-i 1 -x 1 -F -n "$iters" -p "$port" $args 127.0.0.1 \
		>"$work/client.out" 2>&1 </dev/null
	wait "$server" 2>/dev/null
	server=
	awk '/#bytes/ { hdr = 1; next }
	     hdr && /^[ \t]*[0-9]+[ \t]+[0-9]+[ \t]+[0-9.]+/ { print; exit }' \
		"$work/client.out"
}

median() { # numbers on stdin -> median (empty if none)
	sort -g | awk '{ v[NR] = $1 }
		END { if (NR % 2) printf "%s", v[(NR + 1) / 2]
		      else if (NR) printf "%s", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

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
			line=$(run_once "$prog" "$args" "$copts")
			[ -n "$line" ] || continue
			if [ "$kind" = lat ]; then
				# bytes iters min max typical avg stdev p99 p99.9
				echo "$line" | awk '{ print $5 }' >>"$work/a"
				echo "$line" | awk '{ print $8 }' >>"$work/b"
			else
				# bytes iters peak avg msgrate
				echo "$line" | awk '{ print $4 }' >>"$work/a"
				echo "$line" | awk '{ print $5 }' >>"$work/b"
			fi
		done
		m1=$(median <"$work/a")
		m2=$(median <"$work/b")
		n=$(wc -l <"$work/a")
		met=$(goal_met "$kind" "$goal" "$m1" "$m2")
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
