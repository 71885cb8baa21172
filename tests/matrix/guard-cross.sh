#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# The run-time load guard, for real: the libionic of this build tree,
# built for layout family FAMILY, is loaded by the libibverbs of a release
# of another family (its own ibv_devinfo, under this tree's ionic-sim).
#
#   guard-cross.sh SIM FAMILY TREE RELEASE
#       TREE: an rdma-core build tree (tests/matrix/build-libibverbs.sh) of
#       RELEASE
#   guard-cross.sh --pick SIM FAMILY TARBALL_DIR CACHE_DIR
#       picks a release of another family from TARBALL_DIR (one with the
#       same private ABI number if there is one), builds it into CACHE_DIR
#       and checks as above; exits 77 (skipped) without tarballs.
#       $IONIC_RDMA_CORE_TARBALLS, if set, replaces TARBALL_DIR, and
#       $IONIC_RDMA_CORE_CACHE CACHE_DIR (.ci/run: one cache for every
#       build tree and the matrix)
#
# Same private ABI number: passes when the provider registers nothing (no
# device), the guard's message is printed exactly once on stderr and once
# in libibverbs' log, naming both families and both releases and saying
# what to do.  Another
# number: libibverbs looks for another file name (lib<name>-rdmav<n>.so),
# so it must find no device and print no guard message.
set -u
here=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
# shellcheck source=tests/matrix/lib.sh
. "$here/lib.sh"

if [ "${1:-}" = --pick ]; then
	[ $# -eq 5 ] || { echo "usage: $0 --pick SIM FAMILY TARBALL_DIR CACHE_DIR" >&2; exit 2; }
	sim=$2 family=$3 tdir=${IONIC_RDMA_CORE_TARBALLS:-$4}
	cache=${IONIC_RDMA_CORE_CACHE:-$5}
	mapfile -t tarballs < <(matrix_tarballs "$tdir" 2>/dev/null)
	if [ ${#tarballs[@]} -eq 0 ]; then
		echo "skipped: no rdma-core-*.tar.xz in $tdir (set IONIC_RDMA_CORE_TARBALLS to a folder of rdma-core release tarballs)"
		exit 77
	fi
	pick="" any=""
	for t in "${tarballs[@]}"; do
		r=$(matrix_release "$t") f=$(matrix_family "$r")
		if [ -z "$f" ] || [ "$f" = "$family" ]; then
			continue
		fi
		[ -n "$any" ] || any=$t
		if [ "$(matrix_pabi "$f")" = "$(matrix_pabi "$family")" ]; then
			pick=$t
			break
		fi
	done
	pick=${pick:-$any}
	[ -n "$pick" ] || { echo "skipped: no release of a family other than $family in $tdir"; exit 77; }
	tree=$("$here/build-libibverbs.sh" "$pick" "$cache" | tail -n 1) || exit 1
	exec "$0" "$sim" "$family" "$tree" "$(matrix_release "$pick")"
fi

[ $# -eq 4 ] || { echo "usage: $0 SIM FAMILY TREE RELEASE" >&2; exit 2; }
sim=$1 family=$2 tree=$3 release=$4
loaded=$(matrix_family "$release")
[ -n "$loaded" ] || { echo "FAIL: rdma-core $release is not in families.h"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

LD_LIBRARY_PATH=$tree/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
	VERBS_LOG_LEVEL=1 VERBS_LOG_FILE=$work/verbs.log \
	timeout 60 "$sim" --fabric "guard-$$" -- "$tree/bin/ibv_devinfo" \
	>"$work/out" 2>"$work/err"
rc=$?
echo "---- ibv_devinfo of rdma-core $release (family $loaded), libionic built for family $family: exit $rc"
cat "$work/out" "$work/err"

fail=0
grep -q hca_id "$work/out" && { echo "FAIL: the provider claimed a device"; fail=1; }
[ $rc -ne 0 ] || { echo "FAIL: ibv_devinfo succeeded"; fail=1; }
msg='libionic: the ionic provider is not registered'
n=$(grep -c "$msg" "$work/err")
if [ "$(matrix_pabi "$family")" = "$(matrix_pabi "$loaded")" ]; then
	[ "$n" -eq 1 ] || { echo "FAIL: the guard message was printed $n times, not once"; fail=1; }
	grep "$msg" "$work/err" | grep -q "layout family $family: " ||
		{ echo "FAIL: the message does not name the built family $family"; fail=1; }
	grep "$msg" "$work/err" | grep -q "rdma-core $release, layout family $loaded" ||
		{ echo "FAIL: the message does not name rdma-core $release, family $loaded"; fail=1; }
	grep "$msg" "$work/err" | grep -q "Install the libionic built for this rdma-core, or rebuild libionic against this libibverbs" ||
		{ echo "FAIL: the message does not say what to do"; fail=1; }
	n=$(grep -c "$msg" "$work/verbs.log" 2>/dev/null)
	[ "${n:-0}" -eq 1 ] ||
		{ echo "FAIL: the message is in libibverbs' log (VERBS_LOG_FILE) ${n:-0} times, not once"; fail=1; }
else
	[ "$n" -eq 0 ] || { echo "FAIL: guard message for a library of another ABI number"; fail=1; }
	echo "(private ABI $(matrix_pabi "$family") vs $(matrix_pabi "$loaded"): libibverbs does not even open this build)"
fi
[ $fail -eq 0 ] && echo "ok: the family-$family build refuses rdma-core $release (family $loaded)"
exit $fail
