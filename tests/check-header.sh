#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# <infiniband/ionic_dv.h> must compile on its own as C (gnu11, c99, gnu99,
# c11) and as C++ (c++11, c++17), warning-free, and declare the documented
# prototypes with C linkage (dv_header_use.c).
#
# usage: check-header.sh CC CXX INCLUDEDIR USE_C [LIBIONIC]
set -u
if [ $# -lt 4 ]; then
	echo "usage: $0 CC CXX INCLUDEDIR USE_C [LIBIONIC]" >&2
	exit 2
fi
cc=$1 cxx=$2 inc=$3 use=$4 lib=${5:-}
fail=0
hdr="$inc/infiniband/ionic_dv.h"
[ -f "$hdr" ] || { echo "FAIL: $hdr does not exist"; exit 1; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
printf '#include <infiniband/ionic_dv.h>\n' >"$tmp/only.c"

warn="-Wall -Wextra -Werror -Wstrict-prototypes -Wmissing-prototypes -Wshadow -Wundef"
warnxx="-Wall -Wextra -Werror -Wshadow -Wundef"

try() { # label command...
	local label=$1 out
	shift
	if out=$("$@" 2>&1); then
		echo "ok: $label"
	else
		echo "FAIL: $label"
		printf '%s\n' "$out" | sed 's/^/    /'
		fail=1
	fi
}

for std in gnu11 c99 gnu99 c11; do
	# shellcheck disable=SC2086
	try "C $std: header alone" $cc -std=$std $warn -fsyntax-only -I"$inc" -x c "$tmp/only.c"
	# shellcheck disable=SC2086
	try "C $std: prototypes" $cc -std=$std $warn -Wno-missing-prototypes -fsyntax-only -I"$inc" -x c "$use"
done
for std in c++11 c++17; do
	# shellcheck disable=SC2086
	try "C++ $std: header alone" $cxx -std=$std $warnxx -fsyntax-only -I"$inc" -x c++ "$tmp/only.c"
	# shellcheck disable=SC2086
	try "C++ $std: prototypes" $cxx -std=$std $warnxx -fsyntax-only -I"$inc" -x c++ "$use"
done

if [ -n "$lib" ] && [ -f "$lib" ]; then
	# shellcheck disable=SC2086
	try "C++ program links against libionic (C linkage)" \
		$cxx -std=c++17 $warnxx -I"$inc" -x c++ "$use" -x none "$lib" -libverbs -o "$tmp/use-cxx"
	# shellcheck disable=SC2086
	try "C program links against libionic" \
		$cc -std=gnu11 $warn -Wno-missing-prototypes -I"$inc" -x c "$use" -x none "$lib" -libverbs -o "$tmp/use-c"
else
	echo "note: libionic not built; link checks skipped"
fi

[ $fail -eq 0 ] && echo "header: ok" && exit 0
echo "header: FAILED"
exit 1
