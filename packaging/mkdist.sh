#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# The release tarball libionic-<version>.tar.gz, what rpmbuild and
# dpkg-buildpackage start from, made by git archive: every file of the git
# work tree that git does not ignore (tracked or new, as it is on disk now),
# under the directory libionic-<version>/, owner 0 and the time of the last
# commit, so the same tree gives the same bytes.  The tarball lists its
# files in libionic-<version>/.dist-files, so that a tree unpacked from it,
# without git (the package builds in a chroot), makes a tarball of the same
# files again.
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
tmp=$(mktemp -d "$out/.dist.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

top=$(git -C "$src" rev-parse --show-toplevel 2>/dev/null) || top=
if [ -n "$top" ] && [ "$top" -ef "$src" ]; then
	# The work tree as it is on disk, staged in a scratch index, and a
	# commit of it dated like the last one (git archive takes the files'
	# time from it).  New objects go to a scratch directory, so the
	# repository is left as it was.
	stamp=$(git -C "$src" log -1 --format=%ct 2>/dev/null || date +%s)
	objects=$(cd "$src" && cd "$(git rev-parse --git-common-dir)/objects" && pwd)
	export GIT_INDEX_FILE=$tmp/index GIT_OBJECT_DIRECTORY=$tmp/objects
	export GIT_ALTERNATE_OBJECT_DIRECTORIES=$objects
	export GIT_AUTHOR_NAME=libionic GIT_AUTHOR_EMAIL=dist@libionic.invalid
	export GIT_COMMITTER_NAME=libionic GIT_COMMITTER_EMAIL=dist@libionic.invalid
	export GIT_AUTHOR_DATE="@$stamp +0000" GIT_COMMITTER_DATE="@$stamp +0000"
	mkdir "$tmp/objects" "$tmp/list"
	# OUTDIR inside the tree and not ignored holds earlier tarballs and
	# this scratch space: not source (git refuses to name an ignored one).
	skip=()
	case $out/ in
	"$src"/*)
		git -C "$src" check-ignore -q "${out#"$src"/}" ||
			skip=(":(exclude)${out#"$src"/}")
		;;
	esac
	git -C "$src" add -A -- . "${skip[@]}"
	tree=$(git -C "$src" write-tree)
	commit=$(git -C "$src" commit-tree "$tree" -m "$name")
	{
		git -C "$src" ls-tree -r --name-only "$tree"
		echo .dist-files
	} >"$tmp/list/.dist-files"
	git -C "$src" -c tar.umask=0022 archive --format=tar --prefix="$name/" \
		--add-file="$tmp/list/.dist-files" "$commit" |
		gzip -9n >"$out/$name.tar.gz"
elif [ -f "$src/.dist-files" ]; then
	# A tree unpacked from a release tarball: the files it came with, at
	# the tarball's time, which every file kept.
	tar -C "$src" --no-recursion --verbatim-files-from \
		--transform "s|^|$name/|" --sort=name \
		--mtime="@$(stat -c %Y "$src/.dist-files")" --owner=0 --group=0 \
		--numeric-owner --format=gnu --files-from="$src/.dist-files" -cf - |
		gzip -9n >"$out/$name.tar.gz"
else
	echo "$0: $src is neither a git work tree nor an unpacked release tarball" >&2
	exit 1
fi
echo "$out/$name.tar.gz"
