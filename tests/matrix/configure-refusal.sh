#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# Configuration refuses a libibverbs it has no correct declarations for
# (cmake/IbverbsPrivate.cmake), with a message naming what it found:
#
#  1. a release the table of families.h does not list (62.0);
#  2. a library whose file name claims a release of another family than
#     its exports are (this build's libibverbs, renamed);
#  3. IONIC_IBVERBS_RUN_PREFIX naming a release of another family, while
#     IONIC_IBVERBS_PREFIX is fine (which case 3 also proves: the refusal
#     comes after the prefix has been accepted).
#
# The libraries are copies of the real libibverbs of this build under made-up
# file names (the release is read from the name), in prefixes that also link
# its headers, so each case differs from a good configuration in exactly the
# one thing it tests.
#
#   usage: configure-refusal.sh SOURCE_DIR INCLUDE_DIR LIBIBVERBS FAMILY
#       INCLUDE_DIR: the directory with infiniband/verbs.h and rdma/;
#       LIBIBVERBS: the real file of the libibverbs this tree is built
#       against; FAMILY: its layout family
set -u
if [ $# -ne 4 ]; then
	echo "usage: $0 SOURCE_DIR INCLUDE_DIR LIBIBVERBS FAMILY" >&2
	exit 2
fi
src=$1 inc=$2 lib=$3 family=$4
real=$(basename "$lib")
case $real in
libibverbs.so.1.*.*.*) ;;
*)
	echo "FAIL: $lib is not libibverbs.so.1.<x>.<release>.<patch>"
	exit 1
	;;
esac
minor=${real#libibverbs.so.1.}
minor=${minor%%.*}
# a release of a family whose exports differ from this family's
case $family in
A | B | C) other=56.1 other_family=E ;;
*) other=44.0 other_family=B ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# prefix NAME LIBFILE: a prefix with the headers and a copy of the library
# named LIBFILE (libibverbs.so.1 pointing at it)
prefix() {
	local p=$work/$1
	mkdir -p "$p/include" "$p/lib" || exit 1
	ln -s "$inc/infiniband" "$p/include/infiniband"
	[ -d "$inc/rdma" ] && ln -s "$inc/rdma" "$p/include/rdma"
	cp "$lib" "$p/lib/$2" || exit 1
	ln -s "$2" "$p/lib/libibverbs.so.1"
	echo "$p"
}

fail=0
# expect CASE MESSAGE-REGEX CMAKE-ARGS...: configuration fails with it
expect() {
	local name=$1 re=$2 rc
	shift 2
	cmake -S "$src" -B "$work/build-$name" -G Ninja "$@" >"$work/$name.log" 2>&1
	rc=$?
	# CMake wraps its messages: compare them as one line
	tr -s '\n ' '  ' <"$work/$name.log" >"$work/$name.flat"
	if [ $rc -eq 0 ]; then
		echo "FAIL ($name): configuration succeeded:"
		tail -n 5 "$work/$name.log"
		fail=1
	elif ! grep -Eq "$re" "$work/$name.flat"; then
		echo "FAIL ($name): configuration failed, but without /$re/:"
		cat "$work/$name.log"
		fail=1
	else
		echo "ok ($name): refused: $(grep -Eo "$re" "$work/$name.flat" | head -n 1)"
	fi
	rm -rf "$work/build-$name"
}

p=$(prefix unknown "libibverbs.so.1.$minor.62.0")
expect unlisted-release \
	"is version 1\\.$minor\\.62\\.0, rdma-core 62\\.0, which libionic has no provider-ABI declarations for\\. Supported rdma-core releases \\(layout family\\): 39 \\(A\\), 44 \\(B\\)" \
	-DIONIC_IBVERBS_PREFIX="$p"

p=$(prefix misnamed "libibverbs.so.1.$minor.$other")
expect misnamed-library \
	"says rdma-core $other, layout family $other_family, but its exports are not that family's: it has private ABI [0-9]+, libibverbs\\.so\\.1\\.[0-9]+, " \
	-DIONIC_IBVERBS_PREFIX="$p"

good=$(prefix good "$real")
run=$(prefix run-other "libibverbs.so.1.$minor.$other")
expect run-prefix-family \
	"IONIC_IBVERBS_RUN_PREFIX=$run: its libibverbs \\($run/lib/libibverbs\\.so\\.1\\.$minor\\.$other\\) is rdma-core $other, layout family $other_family, but this build is for rdma-core [0-9.]+, layout family $family" \
	-DIONIC_IBVERBS_PREFIX="$good" -DIONIC_IBVERBS_RUN_PREFIX="$run"

exit $fail
