#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# The release tarball libionic-<version>.tar.gz, what rpmbuild and
# dpkg-buildpackage start from: every file of the git work tree that is
# not ignored (tracked or new, as it is on disk now), under the directory
# libionic-<version>/, with sorted names, owner 0, and the time of the last
# commit, so the same tree gives the same bytes.
#
# usage: mkdist.sh OUTDIR      prints the tarball's path
set -euo pipefail
out=${1:?usage: $0 OUTDIR}
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

version=$(sed -n 's/^project(libionic VERSION \([0-9.]*\).*/\1/p' \
	"$src/CMakeLists.txt")
[ -n "$version" ] || { echo "$0: no project version in CMakeLists.txt" >&2; exit 1; }
if ! git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	echo "$0: $src is not a git work tree (or git is missing); a tarball is made from one" >&2
	exit 1
fi

name=libionic-$version
mkdir -p "$out"
out=$(cd "$out" && pwd)
list=$(mktemp "$out/.dist-files.XXXXXX")
trap 'rm -f "$list"' EXIT
# Deleted but not yet committed files are listed by --cached: skip them.
git -C "$src" ls-files -z --cached --others --exclude-standard |
	while IFS= read -r -d '' f; do
		[ -e "$src/$f" ] || [ -L "$src/$f" ] || continue
		printf '%s\0' "$f"
	done | LC_ALL=C sort -zu >"$list"

stamp=$(git -C "$src" log -1 --format=%ct 2>/dev/null || date +%s)
tar -C "$src" --no-recursion --transform "s|^|$name/|" --sort=name \
	--mtime="@$stamp" --owner=0 --group=0 --numeric-owner --format=gnu \
	--null --files-from="$list" -cf - |
	gzip -9n >"$out/$name.tar.gz"
echo "$out/$name.tar.gz"
