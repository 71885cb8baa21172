#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# The release tarball libionic-<version>.tar.gz, what rpmbuild and
# dpkg-buildpackage start from: every file of the git work tree that is
# not ignored (tracked or new, as it is on disk now), under the directory
# libionic-<version>/, with sorted names, owner 0, and the time of the last
# commit, so the same tree gives the same bytes.  A tree unpacked from such
# a tarball (no git) gives the same tarball again.
#
# usage: mkdist.sh OUTDIR      prints the tarball's path
set -euo pipefail
out=${1:?usage: $0 OUTDIR}
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

version=$(sed -n 's/^project(libionic VERSION \([0-9.]*\).*/\1/p' \
	"$src/CMakeLists.txt")
[ -n "$version" ] || { echo "$0: no project version in CMakeLists.txt" >&2; exit 1; }
name=libionic-$version
mkdir -p "$out"
out=$(cd "$out" && pwd)
list=$(mktemp "$out/.dist-files.XXXXXX")
trap 'rm -f "$list"' EXIT
# OUTDIR inside the tree (and not ignored) holds this list and earlier
# tarballs: none of that is source.
case $out/ in
"$src"/*) skip=${out#"$src"/}/ ;;
*) skip=// ;;
esac
top=$(git -C "$src" rev-parse --show-toplevel 2>/dev/null) || top=
if [ -n "$top" ] && [ "$top" -ef "$src" ]; then
	# Deleted but not yet committed files are listed by --cached: skip them.
	git -C "$src" ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do
			[ -e "$src/$f" ] || [ -L "$src/$f" ] || continue
			case $f in "$skip"*) continue ;; esac
			printf '%s\0' "$f"
		done | LC_ALL=C sort -zu >"$list"
	stamp=$(git -C "$src" log -1 --format=%ct 2>/dev/null || date +%s)
elif [ -f "$src/.gitignore" ]; then
	# A tree unpacked from a release tarball (the package builds, the
	# Debian 13 run): every file but what .gitignore names, whose lines
	# are all anchored paths (/build/, /debian/*.substvars); the time is
	# the tarball's, which every file kept.
	prune=(-path ./.git -o -path "./${skip%/}")
	while IFS= read -r pat; do
		case $pat in
		/*) prune+=(-o -path ".${pat%/}") ;;
		'' | '#'*) ;;
		*) echo "$0: $src/.gitignore: only anchored paths are understood: '$pat'" >&2 && exit 1 ;;
		esac
	done <"$src/.gitignore"
	(cd "$src" && find . \( "${prune[@]}" \) -prune -o \( -type f -o -type l \) -printf '%P\0') |
		LC_ALL=C sort -zu >"$list"
	stamp=$(stat -c %Y "$src/CMakeLists.txt")
else
	echo "$0: $src is neither a git work tree nor an unpacked release tarball" >&2
	exit 1
fi

tar -C "$src" --no-recursion --transform "s|^|$name/|" --sort=name \
	--mtime="@$stamp" --owner=0 --group=0 --numeric-owner --format=gnu \
	--null --files-from="$list" -cf - |
	gzip -9n >"$out/$name.tar.gz"
echo "$out/$name.tar.gz"
