#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# Figures of the emulated cluster (`ionic-sim cluster`, sim/README.md):
#   - the time to bring HOSTS hosts of NICS NICs up and to take them down
#     (median of RUNS, each `up` until every host's launcher runs, each
#     `down` until every process of the cluster is gone);
#   - the host memory the cluster holds per emulated NIC at rest: the PSS
#     and RSS of every process of the cluster (each host's launcher with
#     its UDP relays, the host's init, the switch), and the host's run
#     directory (its fake sysfs tree, in the host's tmpfs);
#   - Open MPI latency and bandwidth between two hosts: NetPIPE
#     (NPopenmpi, UCX's ud_verbs over the NICs, one rank on h1 and one on
#     h2, sizes up to MAXBYTES): the one-way time of the smallest message
#     and the best throughput of any size.
# A benchmark, not a test: under a loaded machine the figures move a lot.
#
# Usage: run-cluster.sh <ionic-sim> <out.json> [runs] [hosts] [nics]
#                       [maxbytes]
# Writes one JSON object to out.json and prints it as a table.  Exit
# status 77 without root or without the tools (iproute2, util-linux,
# openmpi-bin, netpipe-openmpi).
set -u
sim=$(readlink -f "$1")
out=$2
runs=${3:-5}
hosts=${4:-4}
nics=${5:-2}
maxbytes=${6:-65536}
name=bench$$
up=no
root=${TMPDIR:-/var/tmp}
case $root in /tmp | /tmp/*) root=/var/tmp ;; esac
work=$(mktemp -d "$root/cluster-bench.XXXXXX") || exit 1
cleanup() {
	[ "$up" = yes ] && "$sim" cluster down "$name"
	rm -rf "$work"
}
trap cleanup EXIT
[ "$(id -u)" -eq 0 ] || { echo "run-cluster.sh: needs root"; exit 77; }
for c in ip unshare nsenter mpirun NPopenmpi; do
	command -v "$c" >/dev/null || { echo "run-cluster.sh: $c is not installed"; exit 77; }
done
# a launcher without --nics (before it had them) runs one NIC per host
if [ "$nics" -gt 1 ] && ! "$sim" --help | grep -q -- '--nics N'; then
	echo "run-cluster.sh: this ionic-sim has no --nics: 1 NIC per host"
	nics=1
fi

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
now() { echo "$EPOCHREALTIME"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f\n", b - a }'; }

: >"$work/up" && : >"$work/down"
for ((r = 0; r < runs; r++)); do
	t0=$(now)
	"$sim" cluster up "$name" --hosts "$hosts" --nics "$nics" || exit 1
	t1=$(now)
	up=yes
	"$sim" cluster down "$name" || exit 1
	t2=$(now)
	up=no
	elapsed "$t0" "$t1" >>"$work/up"
	elapsed "$t1" "$t2" >>"$work/down"
done
up_s=$(median <"$work/up")
down_s=$(median <"$work/down")

"$sim" cluster up "$name" --hosts "$hosts" --nics "$nics" || exit 1
up=yes
# every process of the cluster: the switch, and each host's init with its
# launcher (the init's parent)
pss=0 rss=0
for d in /proc/[0-9]*; do
	IFS= read -r -d '' a 2>/dev/null <"$d/cmdline" || continue
	case $a in
	"ionic-sim-switch:$name" | "ionic-sim-host:$name:"*) ;;
	*) continue ;;
	esac
	p=${d#/proc/}
	pp=$(awk '{ print $4 }' "$d/stat")
	for q in $p $(case $a in ionic-sim-host:*) echo "$pp" ;; esac); do
		read -r qp qr < <(awk '/^Pss:/ { p = $2 } /^Rss:/ { r = $2 } END { print p, r }' \
			"/proc/$q/smaps_rollup")
		pss=$((pss + qp)) rss=$((rss + qr))
	done
done
# shellcheck disable=SC2016 # expanded on the host
rundir_kib=$("$sim" cluster exec "$name" h1 sh -c 'du -sk "$IONIC_SIM_RUNDIR" | cut -f1')

cd "$work" || exit 1
"$sim" cluster exec "$name" h1 mpirun --allow-run-as-root --host h1,h2 -np 2 \
	--mca pml ucx --mca btl self -x UCX_TLS=ud_verbs \
	NPopenmpi -u "$maxbytes" -o "$work/np.out" >"$work/np.log" 2>&1 ||
	{ cat "$work/np.log"; echo "run-cluster.sh: NetPIPE failed"; exit 1; }
# np.out: bytes, Mbps, seconds per one-way transfer
read -r lat_us bw_mbps bw_bytes < <(awk '
	NR == 1 || $3 < t { t = $3 }
	$2 > bw { bw = $2; at = $1 }
	END { printf "%.1f %.1f %d\n", t * 1e6, bw, at }' "$work/np.out")
"$sim" cluster down "$name"
up=no

n=$((hosts * nics))
cat >"$out" <<EOF
{"hosts": $hosts, "nics_per_host": $nics, "runs": $runs,
 "up_s": $up_s, "down_s": $down_s,
 "pss_kib": $pss, "rss_kib": $rss,
 "pss_kib_per_nic": $((pss / n)), "rss_kib_per_nic": $((rss / n)),
 "rundir_kib_per_host": ${rundir_kib:-0},
 "netpipe": {"pair": "h1-h2", "max_bytes": $maxbytes,
  "latency_us": $lat_us, "bandwidth_mbps": $bw_mbps,
  "bandwidth_at_bytes": $bw_bytes}}
EOF
printf '| figure | value |\n|---|---:|\n'
printf '| bring-up, %d hosts x %d NICs (median of %d) | %s s |\n' "$hosts" "$nics" "$runs" "$up_s"
printf '| teardown (median of %d) | %s s |\n' "$runs" "$down_s"
printf '| host memory per NIC at rest: PSS / RSS of the cluster'"'"'s processes | %d / %d KiB |\n' \
	$((pss / n)) $((rss / n))
printf '| run directory (fake sysfs) per host, in its tmpfs | %d KiB |\n' "${rundir_kib:-0}"
printf '| MPI latency h1-h2 (NetPIPE, smallest message, one way) | %s us |\n' "$lat_us"
printf '| MPI bandwidth h1-h2 (NetPIPE, best of sizes up to %d B) | %s Mbit/s at %d B |\n' \
	"$maxbytes" "$bw_mbps" "$bw_bytes"
