#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# libionic.so.1 must export exactly the six direct-verbs functions at symbol
# version IONIC_1.0 (plus the version node itself) and nothing else.  The
# header declarations, the exports and the man pages must name the same
# functions.  Every undefined strong symbol must carry a version, so that
# RTLD_NOW loading by libibverbs cannot fail on a symbol the installed
# library does not export, and the provider must register itself through
# verbs_register_driver_<ABI>@IBVERBS_PRIVATE_<ABI>.
#
# usage: check-symbols.sh LIBRARY HEADER MANDIR [ABI]
set -u

if [ $# -lt 3 ]; then
	echo "usage: $0 LIBRARY HEADER MANDIR [ABI]" >&2
	exit 2
fi
lib=$1 header=$2 mandir=$3 abi=${4:-34}
fail=0
err() {
	echo "FAIL: $*"
	fail=1
}

# Prefer the SONAME link next to the real file, as applications load it.
[ -e "$(dirname "$lib")/libionic.so.1" ] && lib="$(dirname "$lib")/libionic.so.1"
[ -f "$lib" ] || { echo "FAIL: $lib not found"; exit 1; }

funcs="ionic_dv_ctx_get_udma_count
ionic_dv_ctx_get_udma_mask
ionic_dv_pd_get_udma_mask
ionic_dv_pd_set_udma_mask
ionic_dv_pd_set_sqcmb
ionic_dv_pd_set_rqcmb"

want=$( {
	echo "A IONIC_1.0"
	printf '%s\n' "$funcs" | sed 's/$/@@IONIC_1.0/; s/^/T /'
} | LC_ALL=C sort)
got=$(nm -D --defined-only "$lib" | awk '{ print $(NF-1), $NF }' | LC_ALL=C sort)

if [ "$got" != "$want" ]; then
	err "exported symbols of $(basename "$lib") differ from the DV API:"
	diff -u <(printf '%s\n' "$want") <(printf '%s\n' "$got") | sed -n '3,$p' |
		sed 's/^/    /'
else
	echo "ok: exactly the six ionic_dv_* functions at IONIC_1.0 are exported"
fi

# Imports.
undef=$(nm -D --undefined-only "$lib")
if ! printf '%s\n' "$undef" |
	grep -q " U verbs_register_driver_$abi@IBVERBS_PRIVATE_$abi\$"; then
	err "no reference to verbs_register_driver_$abi@IBVERBS_PRIVATE_$abi"
fi
# In a sanitizer build libc functions bind to the runtime's unversioned
# interceptors, so the check only means something without one.
if readelf -d "$lib" | grep -Eq 'NEEDED.*\[lib(asan|ubsan|tsan|lsan)\.so'; then
	echo "note: sanitizer build; unversioned-import check skipped"
	unversioned=""
else
	unversioned=$(printf '%s\n' "$undef" | awk '$1 == "U" && $2 !~ /@/ { print $2 }')
fi
if [ -n "$unversioned" ]; then
	err "undefined symbols without a version (not provided by any linked library?):"
	printf '%s\n' "$unversioned" | sed 's/^/    /'
fi
bad=$(printf '%s\n' "$undef" | awk '{ print $NF }' |
	grep -E '^(ibv_cmd_alloc_async_fd|__ibv_query_gid_ex|verbs_init_context|ibv_cmd_query_device)(@|$)' || true)
[ -z "$bad" ] || err "references symbols libibverbs 44 does not export: $bad"

# Header declarations.
if [ -f "$header" ]; then
	declared=$(sed 's,/\*.*\*/,,g' "$header" |
		grep -oE '\bionic_dv_[a-z0-9_]+[[:space:]]*\(' |
		sed 's/[[:space:]]*($//' | LC_ALL=C sort -u)
	if [ "$declared" != "$(printf '%s\n' "$funcs" | LC_ALL=C sort)" ]; then
		err "$(basename "$header") declares a different set of functions:"
		diff -u <(printf '%s\n' "$funcs" | LC_ALL=C sort) \
			<(printf '%s\n' "$declared") | sed -n '3,$p' | sed 's/^/    /'
	else
		echo "ok: the header declares the same six functions"
	fi
else
	err "$header not found"
fi

# One man page per exported function, and no page for anything else.
pages=$(find "$mandir" -maxdepth 1 -name 'ionic_dv_*.3' -printf '%f\n' |
	sed 's/\.3$//' | LC_ALL=C sort)
if [ "$pages" != "$(printf '%s\n' "$funcs" | LC_ALL=C sort)" ]; then
	err "man3 pages do not match the exported functions"
	diff -u <(printf '%s\n' "$funcs" | LC_ALL=C sort) <(printf '%s\n' "$pages") |
		sed -n '3,$p' | sed 's/^/    /'
else
	echo "ok: one man page per exported function"
fi

[ $fail -eq 0 ] && echo "symbols: ok" && exit 0
echo "symbols: FAILED"
exit 1
