#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# Runs after every other test (ctest fixture cleanup): the tests of this
# build tree and the emulator must leave nothing behind - no processes, no
# temporary files, no fabric sockets, no shared memory.
#
# Only this build tree's runs are looked at, so that test runs of other
# trees (or other people) on the same machine neither fail this check nor
# are failed by it.  cmake/IonicTesting.cmake marks every test of the tree:
#   processes    IONIC_TEST_BINDIR=<build tree> in their environment, which
#                everything a test starts inherits (launchers, emulated
#                processes, third-party clients, valgrind);
#   temp files   TMPDIR=<build tree>/test-tmp, which must end up empty;
#   sockets/shm  the fabric of each test is named <prefix>-<test>, with a
#                prefix of the build tree, so its abstract sockets are
#                "@ionic-sim/<prefix>-..." in /proc/net/unix.
#
# usage: leftovers.sh [BINDIR TMPDIR FABRIC_PREFIX]
#        (default: IONIC_TEST_SCOPE_BINDIR, _TMPDIR, _FABRIC from ctest)
set -u
bindir=${1:-${IONIC_TEST_SCOPE_BINDIR:-}}
tmpdir=${2:-${IONIC_TEST_SCOPE_TMPDIR:-}}
prefix=${3:-${IONIC_TEST_SCOPE_FABRIC:-}}
if [ -z "$bindir" ] || [ -z "$tmpdir" ] || [ -z "$prefix" ]; then
	echo "usage: $0 BINDIR TMPDIR FABRIC_PREFIX" >&2
	exit 2
fi
marker="IONIC_TEST_BINDIR=$bindir"

# ppid_of PID: REPLY = the parent of PID (empty if it is gone).
ppid_of() {
	local stat
	REPLY=
	read -r stat <"/proc/$1/stat" 2>/dev/null || return 0
	stat=${stat##*) } # the fields after "pid (comm) "
	read -r _ REPLY _ <<<"$stat"
}

# This script and whatever runs it (ctest, a shell) are not leftovers, even
# if they carry the marker; the commands it runs do not carry it.
unset IONIC_TEST_BINDIR
declare -A mine=()
p=$$
while [ -n "$p" ] && [ "$p" != 0 ]; do
	mine[$p]=1
	ppid_of "$p"
	p=$REPLY
done

# procs = the processes carrying the marker, one "pid comm: cmdline" line
# each.  Bash builtins only, in this shell: no fork per process of the
# machine, and no subshell of this script that could count itself.
scan_processes() {
	local d pid var comm found
	local -a env args
	procs=
	for d in /proc/[0-9]*; do
		pid=${d#/proc/}
		[ -n "${mine[$pid]:-}" ] && continue
		mapfile -d '' -t env 2>/dev/null <"$d/environ" || continue
		found=0
		for var in "${env[@]}"; do
			[ "$var" = "$marker" ] && { found=1; break; }
		done
		[ $found = 1 ] || continue
		read -r comm 2>/dev/null <"$d/comm" || comm='?'
		mapfile -d '' -t args 2>/dev/null <"$d/cmdline"
		var="${args[*]}"
		var=${var//$'\n'/ }
		procs+="$pid $comm: ${var:0:200}"$'\n'
	done
}

scan() {
	scan_processes
	files=$(find "$tmpdir" -mindepth 1 -maxdepth 1 2>/dev/null | sort)
	socks=$(grep -aF "@ionic-sim/$prefix-" /proc/net/unix 2>/dev/null)
	shm=$(find /dev/shm -maxdepth 1 -name "*$prefix*" 2>/dev/null)
	[ -z "$procs$files$socks$shm" ]
}

# A test's last processes may still be exiting: give them a moment.
for _ in 1 2 3 4 5 6; do
	scan && break
	sleep 0.5
done

fail=0
if [ -n "$procs" ]; then
	echo "FAIL: processes of this tree's tests still running:"
	printf '%s' "$procs"
	fail=1
fi
if [ -n "$files" ]; then
	echo "FAIL: files left in the tests' temporary directory $tmpdir:"
	echo "$files"
	fail=1
fi
if [ -n "$socks" ]; then
	echo "FAIL: fabric sockets of this tree's tests still bound:"
	echo "$socks"
	fail=1
fi
if [ -n "$shm" ]; then
	echo "FAIL: shared memory of this tree's tests left in /dev/shm:"
	echo "$shm"
	fail=1
fi
[ "$fail" -eq 0 ] && echo "nothing left behind (processes marked $marker, $tmpdir, fabrics $prefix-*)"
exit "$fail"
