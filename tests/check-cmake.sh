#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# The build's own rules (docs/testing.md §3), over every CMakeLists.txt and
# *.cmake of the tree:
#   - sources are listed, never globbed: no file(GLOB) or file(GLOB_RECURSE)
#     (a new file is added on purpose, and a stray one is not built);
#   - NDEBUG is left to the build type: no -DNDEBUG / -UNDEBUG or other
#     mention of it outside comments;
#   - tests are registered through ionic_add_test() alone
#     (cmake/IonicTesting.cmake): no add_test() anywhere else.
# Before the tree, the same checks run on a file that breaks each rule and
# must find every break, so the test cannot pass by matching nothing.
#
# usage: check-cmake.sh SRCDIR
set -u
src=${1:?usage: $0 SRCDIR}
cd "$src" || exit 1

# check FILE...: print one "FAIL: file:line: why" per break; status 1 if any.
check() {
	local f n line code own fail=0
	for f in "$@"; do
		n=0 own=0
		[ "$f" = cmake/IonicTesting.cmake ] && own=1
		while IFS= read -r line || [ -n "$line" ]; do
			n=$((n + 1))
			code=${line%%#*} # CMake comments run from # to the line's end
			if [[ $code =~ [Ff][Ii][Ll][Ee][[:space:]]*\([[:space:]]*GLOB ]]; then
				echo "FAIL: $f:$n: file(GLOB): list the files"
				fail=1
			fi
			if [[ $code == *NDEBUG* ]]; then
				echo "FAIL: $f:$n: NDEBUG is the build type's to set"
				fail=1
			fi
			if [[ $code =~ (^|[^_[:alnum:]])add_test[[:space:]]*\( ]] &&
				[ "$own" -eq 0 ]; then
				echo "FAIL: $f:$n: add_test(): register with ionic_add_test()"
				fail=1
			fi
		done <"$f"
	done
	return "$fail"
}

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/CMakeLists.txt" <<'EOF'
file(GLOB_RECURSE SRC *.c) # a glob
add_compile_options(-UNDEBUG)
add_test(NAME x COMMAND true)
# comments may say file(GLOB), NDEBUG and add_test( freely
EOF
found=$(check "$tmp/CMakeLists.txt" | grep -c '^FAIL')
if [ "$found" -ne 3 ]; then
	echo "FAIL: the self-check found $found of the 3 breaks of its own file"
	exit 1
fi

if [ -d .git ] || [ -f .git ]; then
	mapfile -t files < <(git ls-files -- 'CMakeLists.txt' '*/CMakeLists.txt' '*.cmake')
else
	mapfile -t files < <(find . \( -path './build*' -o -path ./.git \) -prune -o \
		-type f \( -name CMakeLists.txt -o -name '*.cmake' \) -print |
		sed 's|^\./||' | LC_ALL=C sort)
fi
if [ ${#files[@]} -eq 0 ]; then
	echo "FAIL: no CMake files found in $src"
	exit 1
fi
if check "${files[@]}"; then
	echo "ok: ${#files[@]} CMake files list their sources, leave NDEBUG alone and register tests with ionic_add_test()"
	exit 0
fi
exit 1
