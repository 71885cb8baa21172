#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# What the wall-clock benchmarks share (sourced by bench/run-wallclock.sh
# and bench/run-direct.sh): one unmodified perftest run between two
# processes under ionic-sim, medians, goals, and the machine's load.
# The caller sets sim (the launcher) and iters (perftest -n); sourcing
# this makes work (a scratch directory), removed with any server left
# behind when the script exits.
# shellcheck disable=SC2154 # sim and iters are the caller's

command -v ib_send_lat >/dev/null || { echo "perftest is not installed"; exit 77; }

pt_free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

pt_listening() {
	ss -ltnH "sport = :$1" 2>/dev/null | grep -q .
}

server=
work=$(mktemp -d)
pt_cleanup() {
	if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then
		kill "$server" 2>/dev/null
		wait "$server" 2>/dev/null
	fi
	rm -rf "$work"
}
trap pt_cleanup EXIT

# pt_run_once PROG ARGS SIMOPTS -> the client's result line on stdout.
# The environment (IONIC_SIM_DIRECT, say) reaches both sides.
pt_run_once() {
	local prog=$1 args=$2 simopts=$3 port fabric
	port=$(pt_free_port)
	fabric="${IONIC_TEST_FABRIC:-bench}-$$-$RANDOM"
	# shellcheck disable=SC2086 # word splitting of the option lists
	timeout 120 "$sim" --fabric "$fabric" $simopts -- "$prog" -d ionic_0 \
		-i 1 -x 1 -F -n "$iters" -p "$port" $args \
		>"$work/server.out" 2>&1 </dev/null &
	server=$!
	for _ in $(seq 200); do
		pt_listening "$port" && break
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

# pt_fields KIND LINE -> the two figures of a result line: latency (lat)
# typical and p99 in us; bandwidth (bw) average MB/s and Mpps
pt_fields() {
	if [ "$1" = lat ]; then
		# bytes iters min max typical avg stdev p99 p99.9
		echo "$2" | awk '{ print $5, $8 }'
	else
		# bytes iters peak avg msgrate
		echo "$2" | awk '{ print $4, $5 }'
	fi
}

pt_median() { # numbers on stdin -> median (empty if none)
	sort -g | awk '{ v[NR] = $1 }
		END { if (NR % 2) printf "%s", v[(NR + 1) / 2]
		      else if (NR) printf "%s", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# pt_goal_met KIND "GOAL" FIRST SECOND -> yes, no, or - (no goal or figure)
pt_goal_met() {
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

# pt_load -> the 1-minute load average
pt_load() {
	cut -d' ' -f1 /proc/loadavg
}
