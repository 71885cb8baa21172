#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# Every C/C++ file of the tree is formatted as .clang-format says, with
# clang-format 14 (Debian 12's) or 19 (Debian 13's): the two format this
# tree identically, so the check runs on both distributions CI uses.
# Where they disagree (their casts, braced initialisers in macros) the
# lines are fenced with "/* clang-format off */ ... on", as byte tables
# that keep their own layout are.  Another version formats differently:
# the test is skipped (77, which CI does not allow: tests/skips.allow).
# Fix with:
#   clang-format -i FILE...
# and, for Debian 13's version, in the trixie chroot (docs/testing.md §4.7).
#
# The files are those git tracks (in a git checkout), else every *.c, *.h,
# *.cc, *.cpp and *.hpp outside build trees.  No clang-format at all is a
# failure: ./build.sh deps installs it.
#
# usage: check-format.sh SRCDIR
set -u
src=${1:?usage: $0 SRCDIR}
cd "$src" || exit 1

cf=
for c in clang-format-14 clang-format-19 clang-format; do
	command -v "$c" >/dev/null && { cf=$c; break; }
done
if [ -z "$cf" ]; then
	echo "FAIL: clang-format is not installed (./build.sh deps installs it)"
	exit 1
fi
version=$("$cf" --version)
if ! [[ $version =~ version\ (14|19)\. ]]; then
	echo "SKIP: the tree is formatted alike by clang-format 14 and 19; found: $version"
	exit 77
fi

if [ -d .git ] || [ -f .git ]; then
	mapfile -t files < <(git ls-files -- '*.c' '*.h' '*.cc' '*.cpp' '*.hpp')
else
	mapfile -t files < <(find . \( -path './build*' -o -path ./.git \) -prune -o \
		-type f \( -name '*.[ch]' -o -name '*.cc' -o -name '*.cpp' -o -name '*.hpp' \) \
		-print | sed 's|^\./||' | LC_ALL=C sort)
fi
if [ ${#files[@]} -eq 0 ]; then
	echo "FAIL: no C/C++ files found in $src"
	exit 1
fi

# --dry-run --Werror reports every place that would change, as file:line.
out=$("$cf" --style=file --dry-run --Werror "${files[@]}" 2>&1)
rc=$?
if [ $rc -ne 0 ]; then
	printf '%s\n' "$out" | head -n 200
	bad=$(printf '%s\n' "$out" | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error:.*/\1/p' |
		LC_ALL=C sort -u)
	echo "FAIL: $(printf '%s\n' "$bad" | grep -c .) of ${#files[@]} files differ from $cf's output:"
	printf '    %s\n' "$bad"
	echo "(fix: $cf -i FILE...)"
	exit 1
fi
echo "ok: ${#files[@]} files formatted ($cf, $(sed -n 's/.*version \([0-9.]*\).*/\1/p' <<<"$version"))"
