#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
# Unmodified ibv_devices under ionic-sim lists ionic_0 with its node GUID.
# Needs only the fake sysfs tree, the stat hook and a provider that claims
# the device (no device model, no open).
# usage: test_ibv_devices.sh <path-to-ionic-sim> [<provider suffix, -rdmav34.so>
#        [<the provider this tree built, .../libionic>]]
# Skips (77) when no provider was built and the launcher's choice does not
# exist; fails when one was built and the launcher chose another path.
set -u
L=$1
# what the launcher chooses by itself (it appends to a value it finds)
unset RDMAV_DRIVERS
sfx=${2:--rdmav34.so}
built=${3:-}
command -v ibv_devices >/dev/null || { echo "ibv_devices not installed"; exit 77; }
dir=$(dirname "$L")
T=$(mktemp -d "${TMPDIR:-/tmp}/isim-devices-test.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM HUP
export TMPDIR=$T
"$L" --fabric dev$$ -- sh -c 'echo "node=$IONIC_SIM_NODE"; echo "drivers=${RDMAV_DRIVERS-}"; ibv_devices' >"$T/out" 2>&1
st=$?
cat "$T/out"
drivers=$(sed -n 's/^drivers=//p' "$T/out")
if [ -n "$built" ] && ! [ "$drivers$sfx" -ef "$built$sfx" ]; then
	echo "FAIL: the launcher chose the provider '$drivers' ($drivers$sfx), this tree built $built$sfx"
	exit 1
fi
if [ -n "$drivers" ] && [ ! -e "$drivers$sfx" ]; then
	echo "SKIP: provider $drivers$sfx not built"
	exit 77
fi
[ $st = 0 ] || { echo "FAIL: status $st"; exit 1; }
node=$(sed -n 's/^node=//p' "$T/out")
guid=$(printf '001dd8fffe00%04x' "$node")
grep -Eq "^[[:space:]]+ionic_0[[:space:]]+$guid\$" "$T/out" || { echo "FAIL: ionic_0 $guid not listed"; exit 1; }
# --provider accepts the plugin file (a symlink), its prefix or its directory
[ -n "$drivers" ] && for form in "$drivers$sfx" "$drivers" "$(dirname "$drivers")"; do
	"$L" --fabric dev$$ --provider "$form" -- sh -c 'echo "drivers=$RDMAV_DRIVERS"; ibv_devices' >"$T/out2" 2>&1
	grep -qx "drivers=$drivers" "$T/out2" && grep -q "ionic_0" "$T/out2" ||
		{ echo "FAIL: --provider $form"; cat "$T/out2"; exit 1; }
done
rm -f "$T/out2"
[ -z "$(ls -A "$T" | grep -v '^out$')" ] || { echo "FAIL: leftovers $(ls -A "$T")"; exit 1; }
echo ok
