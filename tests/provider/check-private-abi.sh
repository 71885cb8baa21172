#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# Proves libionic's private-ABI declarations against the installed
# libibverbs, at the binary level:
#  * every symbol libionic imports from libibverbs is bound to a version
#    (no unversioned import that a different libibverbs could satisfy);
#  * each of them is defined by the installed library with exactly that
#    version, so dlopen(RTLD_NOW) cannot fail on a missing symbol;
#  * the private imports all belong to IBVERBS_PRIVATE_<abi> and include
#    verbs_register_driver_<abi> (the registration);
#  * none of the v44 symbols that are declared but not exported is used.
#
# usage: check-private-abi.sh LIBIONIC_SO LIBIBVERBS_SO ABI
set -u

if [ $# -ne 3 ]; then
	echo "usage: $0 LIBIONIC_SO LIBIBVERBS_SO ABI" >&2
	exit 2
fi
lib=$1 ibv=$(readlink -f "$2") abi=$3
fail=0
err() {
	echo "FAIL: $*"
	fail=1
}

[ -f "$lib" ] || { echo "FAIL: $lib missing"; exit 1; }
[ -f "$ibv" ] || { echo "FAIL: $ibv missing"; exit 1; }

# name@VERSION of every symbol the installed libibverbs defines
defined=$(nm -D --defined-only "$ibv" | awk 'NF == 3 { sub("@@", "@", $3); print $3 }' | LC_ALL=C sort -u)
# libionic's imports that carry a libibverbs version
imports=$(nm -D --undefined-only "$lib" | awk '{ print $NF }' | grep '@IBVERBS_' | LC_ALL=C sort -u)

if [ -z "$imports" ]; then
	err "libionic imports nothing from libibverbs"
fi

# Unversioned imports whose name libibverbs defines would bind to whatever
# library happens to provide them.
ibv_names=$(printf '%s\n' "$defined" | sed 's/@.*//' | LC_ALL=C sort -u)
for s in $(nm -D --undefined-only "$lib" | awk '{ print $NF }' | grep -v '@'); do
	if printf '%s\n' "$ibv_names" | grep -qx "$s"; then
		err "unversioned import of libibverbs symbol $s"
	fi
done

n=0
for s in $imports; do
	n=$((n + 1))
	if ! printf '%s\n' "$defined" | grep -qxF "$s"; then
		err "$s is not exported by $ibv"
	fi
	case "$s" in
	*@IBVERBS_PRIVATE_*)
		[ "${s##*@}" = "IBVERBS_PRIVATE_$abi" ] ||
			err "$s: private import from another ABI than $abi"
		;;
	esac
done

printf '%s\n' "$imports" | grep -qx "verbs_register_driver_$abi@IBVERBS_PRIVATE_$abi" ||
	err "verbs_register_driver_$abi@IBVERBS_PRIVATE_$abi is not referenced: the provider would never register"

for bad in ibv_cmd_alloc_async_fd __ibv_query_gid_ex verbs_init_context ibv_cmd_query_device; do
	if nm -D --undefined-only "$lib" | awk '{ print $NF }' | sed 's/@.*//' | grep -qx "$bad"; then
		err "$bad is used but libibverbs $abi does not export it"
	fi
done

if [ $fail = 0 ]; then
	echo "ok: $n libibverbs imports of $(basename "$lib") are exported by $(basename "$ibv") with the same version"
	printf '%s\n' "$imports" | sed 's/^/    /'
fi
exit $fail
