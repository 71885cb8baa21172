#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# libionic.so.1 must export exactly the direct-verbs functions, each at
# exactly the symbol versions below (docs/gpu-direct-verbs.md §1;
# providers/ionic/libionic.map), the version nodes themselves and nothing
# else.  The header declarations, the exports and the man pages must name
# the same functions, and ionicdv(7) must list each with exactly its
# versions.  Every undefined strong symbol must carry a version,
# so that RTLD_NOW loading by libibverbs cannot fail on a symbol the
# installed library does not export, and the provider must register itself
# through verbs_register_driver_<ABI>@IBVERBS_PRIVATE_<ABI>.
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
# same_set WANT GOT FAILURE OK: two sorted lists must be equal; otherwise
# report FAILURE and the difference.
same_set() {
	if [ "$2" != "$1" ]; then
		err "$3"
		diff -u <(printf '%s\n' "$1") <(printf '%s\n' "$2") | sed -n '3,$p' |
			sed 's/^/    /'
	else
		echo "ok: $4"
	fi
}

# Prefer the SONAME link next to the real file, as applications load it.
[ -e "$(dirname "$lib")/libionic.so.1" ] && lib="$(dirname "$lib")/libionic.so.1"
[ -f "$lib" ] || { echo "FAIL: $lib not found"; exit 1; }

# name, then its versions: "@@V" is the default (plain dlsym, new links),
# "@V" a version older binaries bind with dlvsym or at link time.
#  IONIC_1.0  the original six, and the GPU API as AMD-built callers
#             (RCCL, its network plugin, MRC) bind it;
#  IONIC_1.1  the GPU API of the rdma-core proposal, create_cq_ex, and
#             create_qp_ex with the proposal's attribute layout;
#  IONIC_1.3  create_qp_ex with RCCL's attribute layout.
exports="ionic_dv_ctx_get_udma_count @@IONIC_1.0
ionic_dv_ctx_get_udma_mask @@IONIC_1.0
ionic_dv_pd_get_udma_mask @@IONIC_1.0
ionic_dv_pd_set_udma_mask @@IONIC_1.0
ionic_dv_pd_set_sqcmb @@IONIC_1.0
ionic_dv_pd_set_rqcmb @@IONIC_1.0
ionic_dv_is_ionic_ctx @IONIC_1.0 @@IONIC_1.1
ionic_dv_is_ionic_pd @IONIC_1.0 @@IONIC_1.1
ionic_dv_is_ionic_cq @IONIC_1.0 @@IONIC_1.1
ionic_dv_is_ionic_qp @IONIC_1.0 @@IONIC_1.1
ionic_dv_cq_get_udma_mask @IONIC_1.0 @@IONIC_1.1
ionic_dv_qp_get_udma_idx @IONIC_1.0 @@IONIC_1.1
ionic_dv_pd_set_expdb_mask @IONIC_1.0 @@IONIC_1.1
ionic_dv_qp_set_gda @IONIC_1.0 @@IONIC_1.1
ionic_dv_qp_get_send_dbell_data @IONIC_1.0 @@IONIC_1.1
ionic_dv_qp_get_recv_dbell_data @IONIC_1.0 @@IONIC_1.1
ionic_dv_get_ctx @IONIC_1.0 @@IONIC_1.1
ionic_dv_get_cq @IONIC_1.0 @@IONIC_1.1
ionic_dv_get_qp @IONIC_1.0 @@IONIC_1.1
ionic_dv_create_cq_ex @@IONIC_1.1
ionic_dv_create_qp_ex @IONIC_1.1 @@IONIC_1.3"
nodes=(IONIC_1.0 IONIC_1.1 IONIC_1.3)
funcs=$(printf '%s\n' "$exports" | awk '{ print $1 }')
nfuncs=$(printf '%s\n' "$funcs" | wc -l)

want=$( {
	printf 'A %s\n' "${nodes[@]}"
	printf '%s\n' "$exports" |
		awk '{ for (i = 2; i <= NF; i++) print "T " $1 $i }'
} | LC_ALL=C sort)
got=$(nm -D --defined-only "$lib" | awk '{ print $(NF-1), $NF }' | LC_ALL=C sort)

same_set "$want" "$got" \
	"exported symbols of $(basename "$lib") differ from the DV API:" \
	"exactly the $nfuncs ionic_dv_* functions are exported, at the versions of each node (${nodes[*]})"

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
	same_set "$(printf '%s\n' "$funcs" | LC_ALL=C sort)" "$declared" \
		"$(basename "$header") declares a different set of functions:" \
		"the header declares the same $nfuncs functions"
else
	err "$header not found"
fi

# One man page per exported function, and no page for anything else.
pages=$(find "$mandir" -maxdepth 1 -name 'ionic_dv_*.3' -printf '%f\n' |
	sed 's/\.3$//' | LC_ALL=C sort)
same_set "$(printf '%s\n' "$funcs" | LC_ALL=C sort)" "$pages" \
	"man3 pages do not match the exported functions" \
	"one man page per exported function"

# ionicdv(7) lists every function with exactly its versions, in the same
# notation: each ".TP" entry of "Functions and symbol versions" names a
# page and then the versions, the default one marked "(default)".
listed=$(awk '
	/^\.S[SH] / { inside = ($0 ~ /^\.SS Functions and symbol versions/); next }
	!inside { next }
	/^\.TP/ { tp = 1; next }
	tp == 1 && /^\.BR ionic_dv_/ { name = $2; tp = 2; next }
	tp == 2 {
		n = split($0, w, /[ ,]+/); k = 0
		for (i = 1; i <= n; i++) if (w[i] ~ /^IONIC_/) k++
		for (i = 1; i <= n; i++)
			if (w[i] ~ /^IONIC_/)
				print name, w[i],
					(k == 1 || w[i + 1] == "(default)") ? "@@" : "@"
		tp = 0
	}' "$mandir/ionicdv.7" | LC_ALL=C sort -k1,1 -k2,2 |
	awk '$1 != prev { if (line != "") print line; line = $1; prev = $1 }
		{ line = line " " $3 $2 }
		END { if (line != "") print line }' | LC_ALL=C sort)
same_set "$(printf '%s\n' "$exports" | LC_ALL=C sort)" "$listed" \
	"ionicdv.7 does not list exactly the exported functions and versions" \
	"ionicdv.7 lists the $nfuncs functions with their versions"

[ $fail -eq 0 ] && echo "symbols: ok" && exit 0
echo "symbols: FAILED"
exit 1
