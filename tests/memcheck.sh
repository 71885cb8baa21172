#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# Run one program under valgrind memcheck through ionic-sim: the program,
# libibverbs, our provider and the emulator (LD_PRELOADed into the same
# process) are all checked.  Fails on any memcheck error (exit 99) or on
# the program's own failure; skipped (77) without valgrind.
#
# usage: memcheck.sh IONIC_SIM SUPPRESSIONS [SIM_ARGS...] -- PROGRAM [ARGS...]
#
# Options that matter here:
#   --vex-iropt-register-updates=allregs-at-mem-access
#       needed by the doorbell trap (sim/shim/dbtrap.c): it decodes the
#       faulting store from the registers in the signal context, which
#       memcheck keeps exact at every memory access only with this option.
#   --fair-sched=yes
#       valgrind runs one thread at a time; without a fair lock a program
#       that busy-polls its CQ can starve the emulator's engine thread for
#       seconds (pyverbs and perftest then time out under memcheck).
#   --track-origins=yes   so a report says where the bad bytes came from.
#   --leak-check=no       leaks are LeakSanitizer's job (sanitizer build).
# The emulator itself checks the uverbs write()/ioctl() buffers it takes
# from the kernel's place (sim/shim/vgcheck.h), so uninitialised request
# bytes are reported like "Syscall param write(buf)" would be.
set -u
sim=${1:?usage: $0 IONIC_SIM SUPPRESSIONS [SIM_ARGS...] -- PROGRAM [ARGS...]}
supp=${2:?usage: $0 IONIC_SIM SUPPRESSIONS [SIM_ARGS...] -- PROGRAM [ARGS...]}
shift 2
sim_args=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	sim_args+=("$1")
	shift
done
[ $# -gt 1 ] || { echo "usage: $0 IONIC_SIM SUPPRESSIONS [SIM_ARGS...] -- PROGRAM [ARGS...]" >&2; exit 2; }
shift

if ! command -v valgrind >/dev/null; then
	echo "valgrind not installed: skipped"
	exit 77
fi

valgrind_args=(
	-q
	--tool=memcheck
	--error-exitcode=99
	--fair-sched=yes
	--vex-iropt-register-updates=allregs-at-mem-access
	--track-origins=yes
	--leak-check=no
	--num-callers=30
	--suppressions="$supp"
)

# The test's own fabric under ctest (cmake/IonicTesting.cmake).
"$sim" --fabric "${IONIC_TEST_FABRIC:-default}" "${sim_args[@]}" -- valgrind "${valgrind_args[@]}" "$@"
rc=$?
case $rc in
0) echo "memcheck: no errors" ;;
99) echo "FAIL: memcheck reported errors (above)" ;;
*) echo "FAIL: exit status $rc" ;;
esac
exit $rc
