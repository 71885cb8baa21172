#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# ionic-sim layering (sim/README.md "Layers"): shim -> kernel -> dev ->
# fabric, with common below them all.  Fails when a layer
#   - includes a header of a layer above it (the #include lines of every
#     source and header in its directory, resolved as the compiler would
#     resolve a quoted include), or
#   - references a symbol that a layer above it defines (the undefined
#     symbols of its static library against the global symbols of the
#     libraries above), or
#   - calls a name the C library exports that a layer above defines: the
#     shim's interposers (open, write, close, send, recv, ...).  Inside
#     libionic-sim.so such a call lands on the interposer, not on libc;
#     the layers below the shim reach the system through
#     sim/common/sys.h instead, or
#   - defines a global symbol without its layer's prefix (the shim's
#     interposers, which stand in for libc, aside).
#
# tests/check_layers_selftest.sh plants each kind of violation and checks
# that this check fails on it.
#
# usage: check_layers.sh SIMDIR NM LIBC name:prefix=LIBRARY...   (top layer
#        first; each name is also the layer's directory under SIMDIR)
set -u
usage="usage: $0 SIMDIR NM LIBC name:prefix=LIB..."
simdir=$(realpath "${1:?$usage}")
nm=${2:?$usage}
libc=${3:?$usage}
shift 3
[ $# -ge 2 ] || { echo "$usage"; exit 2; }

names=() prefixes=() libs=()
for arg in "$@"; do
	layer=${arg%%=*}
	names+=("${layer%%:*}")
	prefixes+=("${layer#*:}")
	libs+=("${arg#*=}")
done
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
fail=0

# The layer a path inside SIMDIR belongs to, as an index (top = 0), or
# nothing for files outside every layer (the repository's common/,
# kernel-headers/, system headers).
layer_of() {
	local rel=${1#"$simdir"/} i
	for i in "${!names[@]}"; do
		case $rel in "${names[$i]}"/*) echo "$i"; return ;; esac
	done
}

# ---- includes ----------------------------------------------------------------
for i in "${!names[@]}"; do
	[ -d "$simdir/${names[$i]}" ] || { echo "FAIL: no directory $simdir/${names[$i]}"; fail=1; }
done
# "file<TAB>header" for every quoted include of every layer's files (its
# subsystem folders too: kernel/cm/, kernel/uverbs/, ...)
for n in "${names[@]}"; do
	find "$simdir/$n" -name '*.[ch]' -type f -print0 |
		xargs -0 -r grep -H -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"'
done | sed -E 's/^([^:]*):[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]*)".*/\1\t\2/' \
	>"$work/includes"
# resolved as the compiler does: next to the including file, else from
# SIMDIR (the -I of every layer)
cut -f1 "$work/includes" | xargs -r -n1 dirname >"$work/dirs"
cut -f2 "$work/includes" >"$work/hdrs"
paste -d/ "$work/dirs" "$work/hdrs" | xargs -r realpath -m >"$work/near"
sed "s|^|$simdir/|" "$work/hdrs" | xargs -r realpath -m >"$work/far"
while IFS=$'\t' read -r f _ <&3 && read -r near <&4 && read -r far <&5; do
	path=$near
	[ -e "$path" ] || path=$far
	i=$(layer_of "$f")
	j=$(layer_of "$path")
	if [ -n "$i" ] && [ -n "$j" ] && [ "$j" -lt "$i" ]; then
		echo "FAIL: ${f#"$simdir"/} (${names[$i]}) includes" \
		     "${path#"$simdir"/} (${names[$j]}, a layer above)"
		fail=1
	fi
done 3<"$work/includes" 4<"$work/near" 5<"$work/far"

# ---- symbols -----------------------------------------------------------------
for i in "${!libs[@]}"; do
	lib=${libs[$i]}
	[ -f "$lib" ] || { echo "FAIL: no library $lib"; fail=1; continue; }
	# (without what a sanitizer adds: __odr_asan.<name> markers)
	"$nm" --defined-only --extern-only "$lib" 2>/dev/null |
		awk 'NF >= 3 && $3 !~ /^__odr_asan/ { print $3 }' |
		sort -u >"$work/def.$i"
	"$nm" --undefined-only "$lib" 2>/dev/null |
		awk '{ print $NF }' | sort -u >"$work/undef.$i"
	if [ ! -s "$work/def.$i" ]; then
		echo "FAIL: $lib defines no symbols (not a library?)"
		fail=1
	fi
done
"$nm" -D --defined-only "$libc" 2>/dev/null | awk 'NF >= 3 { sub(/@.*/, "", $3); print $3 }' |
	sort -u >"$work/libc"
[ -s "$work/libc" ] || { echo "FAIL: no symbols in $libc"; fail=1; }
for i in "${!libs[@]}"; do
	comm -23 "$work/def.$i" "$work/libc" >"$work/own.$i"
	while IFS= read -r sym; do
		echo "FAIL: ${names[$i]} defines $sym without its prefix ${prefixes[$i]}"
		fail=1
	done < <(grep -v "^${prefixes[$i]}" "$work/own.$i")
done
for i in "${!libs[@]}"; do
	for ((j = 0; j < i; j++)); do
		while IFS= read -r sym; do
			echo "FAIL: ${names[$i]} references $sym, defined by" \
			     "${names[$j]} (a layer above)"
			fail=1
		done < <(comm -12 "$work/undef.$i" "$work/own.$j")
		# libc's names that the layer above defines: its interposers
		comm -12 "$work/def.$j" "$work/libc" >"$work/interposed.$j"
		while IFS= read -r sym; do
			echo "FAIL: ${names[$i]} calls $sym, which ${names[$j]}" \
			     "interposes (a layer above): call it through" \
			     "sim/common/sys.h"
			fail=1
		done < <(comm -12 "$work/undef.$i" "$work/interposed.$j")
	done
done

if [ "$fail" = 0 ]; then
	echo "ok: ${#names[@]} layers (${names[*]}): no include or symbol of a layer above, no call of an interposed name"
fi
exit "$fail"
