#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# check_layers.sh fails on what it is there to catch.  On copies of the
# real tree and libraries, with these violations planted (one run of the
# check must report each; sim-layering runs it on the real ones):
#   - an upward include (a header of the bottom layer including one of
#     the top layer's),
#   - a call of a name the top layer (the shim) interposes, from each layer
#     below it (an object calling close() added to that layer's library),
#   - an upward symbol reference (an object of the second layer calling a
#     function the top layer defines),
#   - a global symbol without its layer's prefix.
#
# usage: check_layers_selftest.sh CHECK CC AR SIMDIR NM LIBC name:prefix=LIB...
#        (the arguments of check_layers.sh after CHECK, CC and AR)
set -u
usage="usage: $0 CHECK CC AR SIMDIR NM LIBC name:prefix=LIB..."
check=${1:?$usage}
cc=${2:?$usage}
ar=${3:?$usage}
simdir=${4:?$usage}
nm=${5:?$usage}
libc=${6:?$usage}
shift 6
[ $# -ge 2 ] || { echo "$usage"; exit 2; }
layers=("$@")
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
fail=0

name_of() { local l=${1%%=*}; echo "${l%%:*}"; }
prefix_of() { local l=${1%%=*}; echo "${l#*:}"; }
lib_of() { echo "${1#*=}"; }
top=$(name_of "${layers[0]}")
bottom=$(name_of "${layers[${#layers[@]} - 1]}")

# plant K TAG: add an object, compiled from the C source on stdin, to the
# copy of layer K's library
plant() {
	"$cc" -c -x c -o "$work/$2.o" - && "$ar" rcs "${libs[$1]}" "$work/$2.o"
}

libs=() args=() expected=()
for i in "${!layers[@]}"; do
	libs+=("$work/lib$i.a")
	cp "$(lib_of "${layers[$i]}")" "${libs[$i]}" || exit 1
	args+=("${layers[$i]%%=*}=${libs[$i]}")
done

# ---- an upward include ---------------------------------------------------
mkdir "$work/tree"
for l in "${layers[@]}"; do
	cp -r "$simdir/$(name_of "$l")" "$work/tree/" || exit 1
done
hdr=$(cd "$work/tree/$top" && find . -name '*.h' | sort | head -n1)
hdr=${hdr#./}
printf '#include "../%s/%s"\n' "$top" "$hdr" >"$work/tree/$bottom/planted.h"
expected+=("$bottom/planted.h ($bottom) includes $top/$hdr")

# ---- a call of an interposed name, from every layer below the top -------
for ((k = 1; k < ${#layers[@]}; k++)); do
	n=$(name_of "${layers[$k]}")
	p=$(prefix_of "${layers[$k]}")
	printf 'int close(int fd);\nint %splanted_close(int fd) { return close(fd); }\n' \
		"$p" | plant "$k" "close$k" || exit 1
	expected+=("$n calls close, which $top interposes")
done

# ---- an upward symbol reference ------------------------------------------
sym=$("$nm" --defined-only --extern-only "${libs[0]}" |
	awk -v p="$(prefix_of "${layers[0]}")" \
		'$2 == "T" && index($3, p) == 1 { print $3; exit }')
[ -n "$sym" ] || { echo "FAIL: no function of $top to reference"; exit 1; }
n=$(name_of "${layers[1]}")
p=$(prefix_of "${layers[1]}")
printf 'void %s(void);\nvoid %splanted_up(void) { %s(); }\n' "$sym" "$p" "$sym" |
	plant 1 up || exit 1
expected+=("$n references $sym, defined by $top")

# ---- a symbol without its layer's prefix ---------------------------------
printf 'int planted_unprefixed(void) { return 0; }\n' | plant 1 prefix || exit 1
expected+=("$n defines planted_unprefixed without its prefix $p")

# ---- one run of the check: it fails, naming each ------------------------
if out=$("$check" "$work/tree" "$nm" "$libc" "${args[@]}" 2>&1); then
	echo "FAIL: the check passed the planted violations"
	fail=1
fi
for e in "${expected[@]}"; do
	if grep -qF -- "FAIL: $e" <<<"$out"; then
		echo "ok: caught: $e"
	else
		echo "FAIL: not caught: $e"
		fail=1
	fi
done
[ "$fail" = 0 ] || echo "$out"
exit "$fail"
