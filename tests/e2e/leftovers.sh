#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# Runs after every other test (ctest fixture cleanup): the tests and the
# emulator must leave nothing behind - no emulator or client processes, no
# run directories or temp files, no fabric sockets, no shared memory.
set -u
fail=0

# By process name: launchers stay alive as long as what they run.
procs=$(ps -eo pid=,comm= |
	grep -E ' (ionic-sim|ibv_(rc|ud)_pingpon.*|ib_(send|write|read|atomic)_(bw|lat)|ionic-bench-.*|verbs-.*)$' ||
	true)
if [ -n "$procs" ]; then
	echo "FAIL: processes left running:"
	echo "$procs"
	fail=1
fi

tmp=${TMPDIR:-/tmp}
dirs=$(find "$tmp" /tmp -maxdepth 1 \( -name 'ionic-sim*' -o -name 'ionic-demo*' \) 2>/dev/null | sort -u)
if [ -n "$dirs" ]; then
	echo "FAIL: files left in the temp directory:"
	echo "$dirs"
	fail=1
fi

# Abstract unix sockets show up in /proc/net/unix as "@name".
socks=$(grep -a '@ionic-sim' /proc/net/unix 2>/dev/null || true)
if [ -n "$socks" ]; then
	echo "FAIL: fabric sockets still bound:"
	echo "$socks"
	fail=1
fi

shm=$(find /dev/shm -maxdepth 1 -iname '*ionic*' 2>/dev/null)
if [ -n "$shm" ]; then
	echo "FAIL: shared memory left in /dev/shm:"
	echo "$shm"
	fail=1
fi

[ "$fail" -eq 0 ] && echo "nothing left behind"
exit "$fail"
