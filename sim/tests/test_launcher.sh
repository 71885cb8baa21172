#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
# ionic-sim launcher: exit status propagation, environment, fake sysfs,
# node ids, signal forwarding, and that nothing is left behind (run
# directory, node socket, /dev/shm) whatever way the command ends.
# usage: test_launcher.sh <path-to-ionic-sim>
set -u
L=$1
T=$(mktemp -d "${TMPDIR:-/tmp}/isim-launcher-test.XXXXXX") || exit 1
OUT=$(mktemp -d "${TMPDIR:-/tmp}/isim-launcher-out.XXXXXX") || exit 1
cleanup() { rm -rf "$T" "$OUT"; }
trap cleanup EXIT
trap 'exit 1' INT TERM HUP	# dash runs the EXIT trap only on exit
export TMPDIR=$T
F=lt$$
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

no_leftovers() {
	what=$1
	if [ -n "$(ls -A "$T")" ]; then fail "$what: left in TMPDIR: $(ls -A "$T")"; fi
	if grep -q "@ionic-sim/$F/" /proc/net/unix; then fail "$what: node socket still bound"; fi
	if ls /dev/shm 2>/dev/null | grep -q "$F"; then fail "$what: /dev/shm leftover"; fi
}

status_is() { # want, what, cmd...
	want=$1; what=$2; shift 2
	"$@"
	got=$?
	if [ "$got" = "$want" ]; then ok "$what -> $got"; else fail "$what: status $got, want $want"; fi
	no_leftovers "$what"
}

status_is 0 "true" "$L" --fabric "$F" -- true
status_is 1 "false" "$L" --fabric "$F" -- false
status_is 42 "exit 42" "$L" --fabric "$F" -- sh -c 'exit 42'
status_is 137 "killed by SIGKILL" "$L" --fabric "$F" -- sh -c 'kill -KILL $$'
# In sanitizer builds the preload brings the ASan runtime (preloaded or
# as its dependency), which handles SIGSEGV itself and must stay first in
# LD_PRELOAD: skip the cases that depend on either.
asan=0
case "${LD_PRELOAD-}" in *libasan*) asan=1 ;; esac
ldd "$(dirname "$L")/libionic-sim.so" 2>/dev/null | grep -q libasan && asan=1
[ $asan = 1 ] || status_is 139 "killed by SIGSEGV" "$L" --fabric "$F" -- sh -c 'kill -SEGV $$'
status_is 127 "command not found" "$L" --fabric "$F" -- /nonexistent/cmd
status_is 2 "no command" "$L" --fabric "$F"
status_is 2 "bad profile key" "$L" --fabric "$F" --profile nosuch=1 -- true
status_is 2 "bad profile value" "$L" --fabric "$F" --sq-qtype 16 -- true
status_is 2 "bad fabric" "$L" --fabric "a/b" -- true
"$L" --help >"$OUT/help" 2>&1; [ $? = 0 ] && grep -q max_stride "$OUT/help" && ok "--help" || fail "--help"

# Inside the run: environment, sysfs tree, node socket held.
"$L" --fabric "$F" --fw-ver 7.7.7-t --udma-shift 5 --no-phc -- sh -c '
	echo "node=$IONIC_SIM_NODE"
	echo "fabric=$IONIC_SIM_FABRIC"
	echo "rundir=$IONIC_SIM_RUNDIR"
	echo "sysfs=$SYSFS_PATH"
	echo "profile=$IONIC_SIM_PROFILE"
	echo "preload=$LD_PRELOAD"
	echo "trace=${IONIC_SIM_TRACE-unset}"
	test -d "$IONIC_SIM_RUNDIR" && echo rundir-exists
	grep -q "@ionic-sim/$IONIC_SIM_FABRIC/node/$IONIC_SIM_NODE\$" /proc/net/unix && echo node-bound
	S=$SYSFS_PATH/class
	cat $S/infiniband_verbs/abi_version $S/infiniband_verbs/uverbs0/ibdev \
	    $S/infiniband_verbs/uverbs0/dev $S/infiniband_verbs/uverbs0/abi_version
	D=$S/infiniband/ionic_0
	cat $D/node_type $D/node_guid $D/fw_ver $D/node_desc $D/device/modalias
	cat $D/ports/1/gids/0 $D/ports/1/gids/1 $D/ports/1/gids/2 $D/ports/1/gids/255
	cat $D/ports/1/gid_attrs/types/0 $D/ports/1/gid_attrs/types/1 $D/ports/1/gid_attrs/types/255
	cat $D/ports/1/pkeys/0
	ls $D/ports/1/gids | wc -l
	ls $D/ports/1/gid_attrs/types | wc -l
	echo ndevs=$(cat $D/ports/1/gid_attrs/ndevs/0 $D/ports/1/gid_attrs/ndevs/1)
	test -e $D/ports/1/gid_attrs/ndevs/2 && echo has-ndev-2
	echo net=$(ls /sys/class/infiniband/ionic_0/device/net)
	test -e /dev/infiniband/uverbs0 && echo devnode-visible
' >"$OUT/inside" 2>&1
st=$?
[ $st = 0 ] || fail "inside run: status $st"
node=$(sed -n 's/^node=//p' "$OUT/inside")
hex=$(printf '%04x' "$node")
hi=${hex%??}; lo=${hex#??}
expect() { grep -qx -- "$1" "$OUT/inside" && ok "inside: $1" || fail "inside: missing '$1'"; }
expect "fabric=$F"
expect rundir-exists
expect node-bound
expect "trace=unset"
expect 6
expect ionic_0
expect 1:3
expect 1
expect "1: CA"
expect "001d:d8ff:fe00:$hex"
expect 7.7.7-t
expect "AMD Pensando RoCE HCA"
expect "pci:v00001DD8d00001002sv00001DD8sd00001002bc02sc00i00"
expect "fe80:0000:0000:0000:001d:d8ff:fe00:$hex"
expect "0000:0000:0000:0000:0000:ffff:c612:$hex"
expect "0000:0000:0000:0000:0000:0000:0000:0000"
expect "RoCE v2"
expect "IB/RoCE v1"
expect 0xffff
expect 256
expect devnode-visible
# the populated GIDs name the network interface, the empty ones nothing;
# /sys itself shows it too (the preload's redirection)
grep -qx 'ndevs=isim0 isim0' "$OUT/inside" && ok "ndevs" || fail "ndevs"
grep -q has-ndev-2 "$OUT/inside" && fail "ndevs of an empty GID must not exist"
grep -qx 'net=isim0' "$OUT/inside" && ok "device/net in /sys" || fail "device/net in /sys"
grep -q '^profile=.*udma_shift=5' "$OUT/inside" && grep -q '^profile=.*phc=0' "$OUT/inside" &&
	grep -q '^profile=.*fw_ver=7.7.7-t' "$OUT/inside" && ok "profile env" || fail "profile env"
grep -q '^preload=/.*libionic-sim.so$' "$OUT/inside" && ok "LD_PRELOAD" || fail "LD_PRELOAD"
rundir=$(sed -n 's/^rundir=//p' "$OUT/inside")
[ -n "$rundir" ] && [ ! -e "$rundir" ] && ok "rundir removed" || fail "rundir $rundir not removed"
no_leftovers "inside run"

# Existing LD_PRELOAD is kept (first), ours appended.
if [ $asan = 0 ]; then
	LD_PRELOAD=/lib/x86_64-linux-gnu/libc.so.6 "$L" --fabric "$F" -- sh -c 'echo "$LD_PRELOAD"' >"$OUT/pl"
	grep -q '^/lib/x86_64-linux-gnu/libc.so.6:/.*libionic-sim.so$' "$OUT/pl" && ok "LD_PRELOAD appended" ||
		fail "LD_PRELOAD appended: $(cat "$OUT/pl")"
fi

# Two concurrent runs on one fabric get distinct node ids; another fabric
# starts from 1 again.
"$L" --fabric "$F" -- sh -c "echo \$IONIC_SIM_NODE > $OUT/n1; sleep 2" &
p1=$!
sleep 0.5
"$L" --fabric "$F" -- sh -c "echo \$IONIC_SIM_NODE" >"$OUT/n2"
"$L" --fabric "${F}x" -- sh -c "echo \$IONIC_SIM_NODE" >"$OUT/n3"
wait $p1
n1=$(cat "$OUT/n1"); n2=$(cat "$OUT/n2"); n3=$(cat "$OUT/n3")
[ "$n1" = 1 ] && [ "$n2" = 2 ] && [ "$n3" = 1 ] && ok "node ids $n1 $n2 $n3" ||
	fail "node ids: $n1 $n2 $n3 (want 1 2 1)"
no_leftovers "concurrent runs"

# SIGTERM / SIGINT to the launcher are forwarded; cleanup still happens.
for sig in TERM INT; do
	"$L" --fabric "$F" -- sleep 30 &
	lp=$!
	sleep 0.5
	kill -$sig $lp
	wait $lp
	st=$?
	case $sig in TERM) want=143 ;; INT) want=130 ;; esac
	[ $st = $want ] && ok "SIG$sig forwarded -> $st" || fail "SIG$sig: status $st, want $want"
	no_leftovers "SIG$sig"
done

# Trace file: created, appended by the launcher itself.
"$L" --fabric "$F" --trace "$OUT/trace" -- sh -c 'test -n "$IONIC_SIM_TRACE" && echo "$IONIC_SIM_TRACE"' >"$OUT/tr"
grep -q "^$OUT/trace\$" "$OUT/tr" && grep -q ' RUN start node=' "$OUT/trace" &&
	grep -q ' RUN exit status=0' "$OUT/trace" && ok "trace" || fail "trace: $(cat "$OUT/trace")"
no_leftovers "trace"

# --provider names a provider built for any libibverbs: its file (whatever
# -rdmav<N>.so), its prefix or its directory; only a missing one warns.
mkdir -p "$OUT/prov"
: >"$OUT/prov/libionic-rdmav65.so"
for p in "$OUT/prov/libionic-rdmav65.so" "$OUT/prov/libionic" "$OUT/prov"; do
	"$L" --fabric "$F" --provider "$p" -- sh -c 'echo "${RDMAV_DRIVERS%%:*}"' >"$OUT/pv" 2>"$OUT/pv.err"
	if [ "$(cat "$OUT/pv")" = "$OUT/prov/libionic" ] && [ ! -s "$OUT/pv.err" ]; then
		ok "--provider $p"
	else
		fail "--provider $p: $(cat "$OUT/pv" "$OUT/pv.err")"
	fi
done
"$L" --fabric "$F" --provider "$OUT/none/libionic" -- true 2>"$OUT/pv.err"
grep -q "warning: no provider" "$OUT/pv.err" && ok "--provider missing: warns" ||
	fail "--provider missing: $(cat "$OUT/pv.err")"
no_leftovers "provider"

# A run directory of a launcher that died with SIGKILL is swept.
mkdir -p "$T/ionic-sim.999999999.abcdef/sys"
"$L" --fabric "$F" -- true
[ ! -e "$T/ionic-sim.999999999.abcdef" ] && ok "stale run dir swept" || fail "stale run dir kept"
no_leftovers "sweep"

[ $fails = 0 ] && echo "all ok" || echo "$fails failures"
[ $fails = 0 ]
