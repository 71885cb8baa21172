#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# The package test's half that runs inside the throw-away chroot
# (packaging/test-debs.sh starts it through debian-chroot.sh run, as PID 1
# of its namespaces, as root, without network): build the .debs from the
# release tarball with ./build.sh packages (which checks them and runs the
# release's own lintian), install them with apt, use the installed
# provider through the installed ionic-sim (ibv_devinfo, an ibv_rc_pingpong
# pair, a program built with libionic-dev, dlopen("libionic.so")), purge
# them and check that no file of theirs is left and nothing else changed.
#
# usage: deb-e2e-inner.sh IODIR TARBALL-NAME DEB_BUILD_OPTIONS
#   IODIR has the tarball and this script's directory; the built packages
#   are copied to IODIR/debs.
set -u
io=$1 tarball=$2 build_options=$3
fail=0
err() {
	echo "FAIL: $*"
	fail=1
}
step() { printf '\n--- %s (t=%ss)\n' "$*" "$SECONDS"; }

# Every path of the root file system except package-manager state, logs,
# caches and the test's own directories (other mounts are not descended).
snapshot() {
	find / -xdev \( -path /var/lib/dpkg -o -path /var/lib/apt -o \
		-path /var/cache -o -path /var/log -o -path /root -o -path "$io" \) \
		-prune -o -print | LC_ALL=C sort
}

# listening PORT: some socket of this network namespace listens on PORT
# (ss is not in the chroot; /proc/net/tcp* has "sl local:port rem st ...").
listening() {
	cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
		awk -v p="$(printf '%04X' "$1")" \
			'{ sub(/.*:/, "", $2) } $2 == p && $4 == "0A" { f = 1 } END { exit !f }'
}

step "./build.sh packages --deb (DEB_BUILD_OPTIONS='$build_options')"
# What a user runs: the package build's tools are all installed here, so it
# needs no network; --deb because the .rpms have a test of their own
# (packaging-rpm) even where this chroot has rpmbuild.  It builds with
# dpkg-buildpackage -us -uc -b, checks the
# contents and dependencies (packaging/check-packages.sh) and runs lintian,
# the release's own (packaging/lintian-check.sh), into the folder of this
# release.
mkdir /tmp/src
tar -C /tmp/src -xzf "$io/$tarball" || { err "cannot unpack $tarball"; exit 1; }
srcdir=$(echo /tmp/src/libionic-*)
release=$(. /etc/os-release && echo "$ID-$VERSION_ID")
pkgdir=$srcdir/packages/$release
echo "lintian $(dpkg-query -W -f='${Version}' lintian)"
if ! (cd "$srcdir" && DEB_BUILD_OPTIONS=$build_options ./build.sh packages --deb); then
	err "./build.sh packages failed"
	exit 1
fi
mkdir -p "$io/debs"
cp "$pkgdir"/*.deb "$pkgdir"/*.changes "$pkgdir"/*.buildinfo "$io/debs/" ||
	err "no packages in $pkgdir"
abi=$(readelf --dyn-syms --wide /usr/lib/*/libibverbs.so.1 |
	grep -o 'verbs_register_driver_[0-9]*' | head -1 | sed 's/.*_//')

# After the build (which, where rpmbuild is installed, also creates rpm's
# database): what the packages' installation and purge must restore.
step "file system snapshot before the installation"
snapshot >/tmp/before.txt

step "apt-get install ./*.deb"
debs=()
for p in libionic1 libionic-dev ionic-sim; do
	debs+=("$(echo "$pkgdir/${p}"_*.deb)")
done
if ! apt-get install -y -q "${debs[@]}" >/tmp/apt.log 2>&1; then
	cat /tmp/apt.log
	err "apt-get install failed"
	exit 1
fi
for p in libionic1 libionic-dev ionic-sim; do
	[ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$p")" = "ii " ] ||
		err "$p is not installed"
done

step "ionic-sim --installed-provider -- ibv_devinfo"
# LD_DEBUG shows which provider file libibverbs really loaded.
out=$(LD_DEBUG=files LD_DEBUG_OUTPUT=/tmp/ld ionic-sim --installed-provider -- ibv_devinfo 2>&1)
rc=$?
printf '%s\n' "$out"
[ $rc -eq 0 ] || err "ibv_devinfo exited $rc"
printf '%s\n' "$out" | grep -Eq '^hca_id:[[:space:]]+ionic_0$' || err "ibv_devinfo shows no ionic_0"
printf '%s\n' "$out" | grep -Eq 'state:[[:space:]]+PORT_ACTIVE' || err "port is not PORT_ACTIVE"
provider=$(ls /usr/lib/*/libibverbs/libionic-rdmav"$abi".so)
if cat /tmp/ld.* 2>/dev/null | grep -q "file=$provider .*dynamically loaded"; then
	echo "ok: libibverbs loaded the installed $provider"
else
	err "libibverbs did not load the installed $provider"
fi
rm -f /tmp/ld.*
# An installed launcher uses the installed provider by default too.
ionic-sim -- ibv_devices | grep -q ionic_0 || err "ionic-sim -- ibv_devices shows no ionic_0"

step "ibv_rc_pingpong pair through the installed provider"
port=18515
ionic-sim --installed-provider -- ibv_rc_pingpong -g 1 -n 500 -c -p $port \
	>/tmp/server.log 2>&1 &
server=$!
for _ in $(seq 1 200); do
	listening $port && break
	kill -0 $server 2>/dev/null || break
	sleep 0.1
done
if listening $port; then
	timeout 120 ionic-sim --installed-provider -- ibv_rc_pingpong -g 1 -n 500 -c \
		-p $port 127.0.0.1 >/tmp/client.log 2>&1
	crc=$?
	timeout 30 tail --pid=$server -f /dev/null
	wait $server
	src=$?
	cat /tmp/server.log /tmp/client.log
	if [ $crc -ne 0 ] || [ $src -ne 0 ]; then
	err "pingpong: client exited $crc, server $src"
fi
	grep -q 'bytes in .* seconds' /tmp/client.log || err "pingpong client reports no transfer"
	! grep -q 'invalid data' /tmp/server.log /tmp/client.log || err "pingpong: data corrupted"
else
	cat /tmp/server.log
	err "the pingpong server never listened on port $port"
	kill $server 2>/dev/null
fi

step "a direct-verbs program built against libionic-dev"
cat >/tmp/dv.c <<'EOF'
#include <stdio.h>
#include <infiniband/ionic_dv.h>

int main(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = list && list[0] ? ibv_open_device(list[0]) : NULL;

	if (!ctx)
		return 1;
	printf("udma_count %u\n", ionic_dv_ctx_get_udma_count(ctx));
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return 0;
}
EOF
# shellcheck disable=SC2046
if gcc -Wall -Werror -o /tmp/dv /tmp/dv.c $(pkg-config --cflags --libs libionic); then
	out=$(ionic-sim --installed-provider --udma-count 1 -- /tmp/dv 2>&1)
	[ "$out" = "udma_count 1" ] || err "DV program printed '$out', expected 'udma_count 1'"
	[ "$out" = "udma_count 1" ] && echo "ok: $out"
else
	err "a DV program does not build with pkg-config libionic"
fi

step "dlopen(\"libionic.so\") of the installed libionic-dev"
# How MORI and rocSHMEM find the direct verbs: by the development link's
# name, at run time; it must be the very library libibverbs loaded.
cat >/tmp/dl.c <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

int main(int argc, char **argv)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = list && list[0] ? ibv_open_device(list[0]) : NULL;
	void *lib = dlopen("libionic.so", RTLD_NOW);
	char path[PATH_MAX], provider[PATH_MAX];
	unsigned int (*count)(struct ibv_context *);
	Dl_info info;

	if (argc != 2 || !ctx || !lib) {
		fprintf(stderr, "no device or no libionic.so: %s\n", dlerror());
		return 1;
	}
	*(void **)&count = dlsym(lib, "ionic_dv_ctx_get_udma_count");
	if (!count || !dladdr(*(void **)&count, &info) ||
	    !realpath(info.dli_fname, path) || !realpath(argv[1], provider)) {
		fprintf(stderr, "ionic_dv_ctx_get_udma_count not found\n");
		return 1;
	}
	printf("udma_count %u, %s\n", count(ctx),
	       strcmp(path, provider) ? "another library than the provider" :
					"the provider's library");
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	dlclose(lib);
	return 0;
}
EOF
if gcc -Wall -Werror -o /tmp/dl /tmp/dl.c -libverbs; then
	out=$(ionic-sim --installed-provider --udma-count 1 -- /tmp/dl "$provider" 2>&1)
	want="udma_count 1, the provider's library"
	[ "$out" = "$want" ] || err "dlopen program printed '$out', expected '$want'"
	[ "$out" = "$want" ] && echo "ok: $out"
else
	err "the dlopen program does not build"
fi

step "apt-get purge"
contents=$(for d in "${debs[@]}"; do dpkg-deb --fsys-tarfile "$d" | tar -tf -; done |
	sed 's|^\./|/|; s|/$||' | LC_ALL=C sort -u)
apt-get purge -y -q libionic1 libionic-dev ionic-sim >/tmp/purge.log 2>&1 ||
	{ cat /tmp/purge.log; err "apt-get purge failed"; }
for p in libionic1 libionic-dev ionic-sim; do
	st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null)
	case $st in '' | 'un ' | 'pn ') ;; *) err "$p is still known to dpkg as '$st'" ;; esac
done
left=0
while read -r f; do
	[ -n "$f" ] || continue
	[ -e "$f" ] || [ -L "$f" ] || continue
	# Directories the base system owns stay; files and our own dirs must go.
	if [ -d "$f" ] && [ ! -L "$f" ] && grep -qxF "$f" /tmp/before.txt; then
		continue
	fi
	err "left after purge: $f"
	left=$((left + 1))
done <<<"$contents"
[ $left -eq 0 ] && echo "ok: none of the $(grep -c . <<<"$contents") paths of the packages is left"
snapshot >/tmp/after.txt
if ! diff -u /tmp/before.txt /tmp/after.txt >/tmp/snapshot.diff; then
	sed -n '3,40p' /tmp/snapshot.diff
	err "the file system differs from before the installation"
else
	echo "ok: the file system lists the same $(grep -c . /tmp/after.txt) paths as before"
fi

step "no process or run directory left"
for c in /proc/[0-9]*/comm; do
	[ "$(cat "$c" 2>/dev/null)" = ionic-sim ] && err "ionic-sim still running: ${c%/comm}"
done
ls -d /tmp/ionic-sim.* 2>/dev/null && err "ionic-sim run directories left in /tmp"

echo
[ $fail -eq 0 ] && echo "deb end-to-end: ok (${SECONDS}s)" && exit 0
echo "deb end-to-end: FAILED"
exit 1
