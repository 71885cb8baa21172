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
# With --between, the rule for a release families.h does not list instead:
#
#  4. one that lies between two listed releases of one family, with the
#     family's fingerprint, is accepted as that family, in one line;
#  5. the same with one private export more than the family's, or without
#     one of the family's boundary exports, is refused as in case 1;
#  6. one above every listed release, with the last family's fingerprint,
#     is refused as in case 1.
#
# Its libraries are made up whole: a shared object exporting, in version
# IBVERBS_PRIVATE_<n>, the registration symbol, the boundary exports and
# enough other symbols to make the family's count (families.h,
# family-<F>.h), so the release and family of the case are chosen from the
# table, whatever this build's are.
#
#   usage: configure-refusal.sh [--between] SOURCE_DIR INCLUDE_DIR
#       LIBIBVERBS FAMILY
#       INCLUDE_DIR: the directory with infiniband/verbs.h and rdma/;
#       LIBIBVERBS: the real file of the libibverbs this tree is built
#       against; FAMILY: its layout family
set -u
here=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
# shellcheck source=tests/matrix/lib.sh
. "$here/lib.sh"
between=0
if [ "${1:-}" = --between ]; then
	between=1
	shift
fi
if [ $# -ne 4 ]; then
	echo "usage: $0 [--between] SOURCE_DIR INCLUDE_DIR LIBIBVERBS FAMILY" >&2
	exit 2
fi
src=$1 inc=$2 lib=$3 family=$4
real=$(basename "$lib")
minor=$(matrix_lib_minor "$lib") || { echo "$minor"; exit 1; }
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
# (expect_ok: succeeds, and says it)
expect() {
	local name=$1 re=$2 rc
	shift 2
	cmake -S "$src" -B "$work/build-$name" -G Ninja "$@" >"$work/$name.log" 2>&1
	rc=$?
	# CMake wraps its messages: compare them as one line
	tr -s '\n ' '  ' <"$work/$name.log" >"$work/$name.flat"
	if [ "${want_ok:-0}" = 1 ]; then
		if [ $rc -ne 0 ] || ! grep -Eq "$re" "$work/$name.flat"; then
			echo "FAIL ($name): configuration did not succeed with /$re/ (exit $rc):"
			cat "$work/$name.log"
			fail=1
		else
			echo "ok ($name): $(grep -Eo "$re" "$work/$name.flat" | head -n 1)"
		fi
	elif [ $rc -eq 0 ]; then
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

expect_ok() {
	want_ok=1 expect "$@"
}
# unlisted_re MINOR RELEASE: the message of case 1 (a regular expression)
unlisted_re() {
	local r=${2//./\\.}
	echo "is version 1\\.$1\\.$r, rdma-core $r, which libionic has no provider-ABI declarations for\\. Supported rdma-core releases \\(layout family\\): 39 \\(A\\), 40 \\(A\\)"
}

tbl=$(dirname "$MATRIX_FAMILIES_H")
# made_up NAME FAMILY RELEASE DELTA [flip]: a prefix with the headers and a
# made-up library named as RELEASE that exports what FAMILY's libraries
# export, DELTA symbols more; "flip": ibv_wr_opcode_str exported where the
# family has it not, and not where it has
made_up() {
	local p=$work/$1 f=$2 rel=$3 delta=$4 flip=${5:-} row pabi flags n fminor
	local syms=() s i=0
	row=$(sed -n "s/.*X($f, \([0-9]*\), [0-9]*, \([01]\), \([01]\), \([01]\)).*/\1 \2\3\4/p" "$tbl/families.h")
	pabi=${row% *} flags=${row#* }
	if [ "$flip" = flip ]; then
		flags=$((1 - ${flags:0:1}))${flags:1}
	fi
	n=$(sed -n 's/^#define IONIC_IBVERBS_PRIVATE_EXPORTS \([0-9]*\)$/\1/p' "$tbl/family-$f.h")
	fminor=$(sed -n 's/^#define IONIC_IBVERBS_LIB_MINOR \([0-9]*\)$/\1/p' "$tbl/family-$f.h")
	syms+=("verbs_register_driver_$pabi")
	for s in ibv_wr_opcode_str ibv_cmd_create_cq_ex2 ibv_cmd_query_port_speed; do
		[ "${flags:$i:1}" = 1 ] && syms+=("$s")
		i=$((i + 1))
	done
	while [ ${#syms[@]} -lt $((n + delta)) ]; do
		syms+=("ionic_made_up_${#syms[@]}")
	done
	mkdir -p "$p/include" "$p/lib" || exit 1
	ln -s "$inc/infiniband" "$p/include/infiniband"
	[ -d "$inc/rdma" ] && ln -s "$inc/rdma" "$p/include/rdma"
	printf 'void %s(void) {}\n' "${syms[@]}" >"$p/lib.c"
	{
		echo "IBVERBS_PRIVATE_$pabi { global:"
		printf '%s;\n' "${syms[@]}"
		echo "local: *; };"
	} >"$p/lib.map"
	"${CC:-cc}" -shared -fPIC -o "$p/lib/libibverbs.so.1.$fminor.$rel" \
		-Wl,--version-script="$p/lib.map" "$p/lib.c" || exit 1
	ln -s "libibverbs.so.1.$fminor.$rel" "$p/lib/libibverbs.so.1"
	echo "$p $fminor"
}

if [ $between = 1 ]; then
	# the first unlisted release between two listed ones of a family, and
	# the last listed release and its family
	rows=$(sed -n 's/.*X(\([0-9]*\), \([A-Z]\)).*/\1 \2/p' "$tbl/families.h" | sort -n)
	gap=$(echo "$rows" | awk 'p != "" && $2 == pf && $1 > p + 1 { print p + 1, $2, p, $1; exit } { p = $1; pf = $2 }')
	last=$(echo "$rows" | tail -n 1)
	if [ -z "$gap" ]; then
		echo "FAIL: families.h has no unlisted release between two of one family"
		exit 1
	fi
	read -r rel f lo hi <<<"$gap"
	echo "rdma-core $rel: not listed, between $lo and $hi of family $f"

	read -r p m <<<"$(made_up between "$f" "$rel.0" 0)"
	expect_ok between-accepted \
		"rdma-core $rel\\.0 is not in families\\.h; accepted as layout family $f: it lies between rdma-core $lo and $hi of that family and has the family's fingerprint \\(private ABI [0-9]+, libibverbs\\.so\\.1\\.$m, [^)]*\\)" \
		-DIONIC_IBVERBS_PREFIX="$p"

	read -r p m <<<"$(made_up between-count "$f" "$rel.0" 1)"
	expect between-export-count \
		"$(unlisted_re "$m" "$rel.0").* \\(It lies between rdma-core $lo and $hi of layout family $f, but its fingerprint is not the family's: it has [^;]*, [0-9]+ private exports; family $f has" \
		-DIONIC_IBVERBS_PREFIX="$p"

	read -r p m <<<"$(made_up between-exports "$f" "$rel.0" 0 flip)"
	expect between-boundary-export \
		"$(unlisted_re "$m" "$rel.0").* \\(It lies between rdma-core $lo and $hi of layout family $f, but its fingerprint is not the family's" \
		-DIONIC_IBVERBS_PREFIX="$p"

	read -r lrel lf <<<"$last"
	read -r p m <<<"$(made_up above "$lf" "$((lrel + 1)).0" 0)"
	expect above-every-release "$(unlisted_re "$m" "$((lrel + 1)).0")" \
		-DIONIC_IBVERBS_PREFIX="$p"
	exit $fail
fi

p=$(prefix unknown "libibverbs.so.1.$minor.62.0")
expect unlisted-release "$(unlisted_re "$minor" 62.0)" \
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
