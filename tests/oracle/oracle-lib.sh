#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
# usage: oracle-lib.sh ORACLE_ROOT OUTDIR
# Makes OUTDIR/lib (the oracle's libraries by their sonames, its provider in
# OUTDIR/lib/libibverbs/) and OUTDIR/python/pyverbs, all symbolic links to
# the oracle's files (upstream rdma-core, docs/oracle-comparison.md).
# A copy of the oracle may hold its links as small files naming their
# target (a copy that did not keep links): the dynamic loader and python
# cannot use those, so a name of a sibling is followed here, and a pure
# python module whose absolute target (the build's source tree) is gone is
# taken from the newest rdma-core release in ../shared/rdma-core*/ (the
# same modules).  Exit 77 with a message if one is missing.
set -eu
O=$1
OUT=$2
rm -rf "$OUT"
mkdir -p "$OUT/lib/libibverbs" "$OUT/python/pyverbs" "$OUT/src"
# the pure python modules of pyverbs, from the newest release tarball
tarball=$(find "$O"/../../rdma-core*/ -maxdepth 1 -name 'rdma-core-*.tar.*' 2>/dev/null |
	sed 's,.*/rdma-core-\([0-9.]*\)\.tar.*,\1 &,' | sort -V | tail -n 1 |
	cut -d' ' -f2)
if [ -n "$tarball" ]; then
	tar -C "$OUT/src" --strip-components=1 -xf "$tarball" \
		--wildcards '*/pyverbs/*.py' 2>/dev/null || true
fi
SYSPV=$OUT/src/pyverbs
link_all() { # srcdir dstdir
	for f in "$1"/*; do
		b=$(basename "$f")
		if [ -d "$f" ]; then
			ln -sfn "$(readlink -f "$f")" "$2/$b"
			continue
		fi
		t=$f
		if [ ! -L "$f" ] && [ "$(wc -c <"$f")" -lt 256 ] &&
			head -c 1 "$f" | grep -q '[/.a-z]' &&
			! grep -q '[=( ]' "$f"; then
			name=$(cat "$f")
			case $name in
			/*) t=$name ;;
			*) t=$1/$name ;;
			esac
			if [ ! -f "$t" ] && [ -f "$SYSPV/$b" ]; then t=$SYSPV/$b; fi
			if [ ! -f "$t" ]; then
				echo "SKIP: the oracle's $f names $name, which is absent"
				exit 77
			fi
		fi
		ln -sfn "$(readlink -f "$t")" "$2/$b"
	done
}
link_all "$O/lib" "$OUT/lib"
link_all "$O/lib/libibverbs" "$OUT/lib/libibverbs"
link_all "$O/python/pyverbs" "$OUT/python/pyverbs"
