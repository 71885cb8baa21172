#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# The run-time load guard on releases families.h does not list: the
# libionic of this build tree, built for layout family FAMILY, is loaded by
# its own libibverbs copied under made-up file names (the guard reads the
# release from the name), by ibv_devinfo under this tree's ionic-sim:
#
#  1. named as the release after the last listed one: that release lies
#     between no two listed releases of one family, so the provider
#     registers nothing and says so once, on stderr;
#  2. named as an unlisted release between two listed releases of FAMILY
#     (when the family has such a gap): same fingerprint, so the provider
#     registers (ionic_0 is listed), prints nothing on stderr, and says in
#     libibverbs' log that it took the release as family FAMILY.
#
#   usage: guard-unlisted.sh SIM FAMILY LIBIBVERBS
#       LIBIBVERBS: the real file of the libibverbs this tree runs with;
#       ibv_devinfo is taken from PATH
set -u
here=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
# shellcheck source=tests/matrix/lib.sh
. "$here/lib.sh"

[ $# -eq 3 ] || { echo "usage: $0 SIM FAMILY LIBIBVERBS" >&2; exit 2; }
sim=$1 family=$2 lib=$3
minor=$(matrix_lib_minor "$lib") || { echo "$minor"; exit 1; }
devinfo=$(command -v ibv_devinfo) || { echo "skipped: no ibv_devinfo on PATH"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

rows=$(sed -n 's/.*X(\([0-9]*\), \([A-Z]\)).*/\1 \2/p' "$MATRIX_FAMILIES_H" | sort -n)
last=$(echo "$rows" | tail -n 1)
gap=$(echo "$rows" | awk -v f="$family" 'p != "" && $2 == f && pf == f && $1 > p + 1 { print p + 1; exit } { p = $1; pf = $2 }')

fail=0
# run CASE RELEASE: ibv_devinfo with this library named as RELEASE
run() {
	local d=$work/$1
	mkdir -p "$d" || exit 1
	cp "$lib" "$d/libibverbs.so.1.$minor.$2" || exit 1
	ln -s "libibverbs.so.1.$minor.$2" "$d/libibverbs.so.1"
	LD_LIBRARY_PATH=$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
		VERBS_LOG_LEVEL=2 VERBS_LOG_FILE=$d/verbs.log \
		timeout 60 "$sim" --fabric "unlisted-$$" -- "$devinfo" \
		>"$d/out" 2>"$d/err"
	echo "---- $1: ibv_devinfo with libibverbs.so.1.$minor.$2 (family-$family build): exit $?"
	cat "$d/out" "$d/err"
}

above="$((${last% *} + 1)).0"
run above "$above"
d=$work/above
msg='libionic: the ionic provider is not registered'
grep -q hca_id "$d/out" && { echo "FAIL: the provider claimed a device with rdma-core $above"; fail=1; }
n=$(grep -c "$msg" "$d/err")
[ "$n" -eq 1 ] || { echo "FAIL: the guard message was printed $n times, not once"; fail=1; }
grep "$msg" "$d/err" | grep -q "rdma-core $above, which libionic does not list and which lies between no two releases of one layout family" ||
	{ echo "FAIL: the message does not say why rdma-core $above is refused"; fail=1; }

if [ -n "$gap" ]; then
	run between "$gap.0"
	d=$work/between
	grep -q 'hca_id:[[:space:]]*ionic_0' "$d/out" ||
		{ echo "FAIL: the provider did not register with rdma-core $gap.0"; fail=1; }
	grep -q libionic "$d/err" && { echo "FAIL: libionic printed on stderr"; fail=1; }
	grep -q "rdma-core $gap.0, which libionic does not list; accepted as layout family $family: it lies between" "$d/verbs.log" ||
		{ echo "FAIL: libibverbs' log does not say rdma-core $gap.0 was accepted as family $family"; fail=1; }
else
	echo "(family $family has no unlisted release between two of its releases)"
fi
[ $fail -eq 0 ] && echo "ok: the family-$family build refuses rdma-core $above${gap:+ and takes rdma-core $gap.0 as family $family}"
exit $fail
