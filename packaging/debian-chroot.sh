#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# A cached Debian chroot per suite (bookworm, trixie, ...) to build and
# install packages in without touching this machine's /usr: other people's
# test runs on the same machine must never see a provider we installed.
#
#   debian-chroot.sh ensure SUITE [PACKAGE...]
#       make sure $IONIC_CHROOT_CACHE/chroot-SUITE exists, works, and has
#       PACKAGEs installed: reused when it does, repaired (missing packages
#       installed) or rebuilt from scratch (debootstrap --variant=minbase)
#       when it does not.  Needs the Debian mirror only to create or repair.
#   debian-chroot.sh run SUITE SCRATCH [--bind DIR:PATH]... -- COMMAND...
#       run COMMAND as root inside a throw-away copy of the chroot: an
#       overlay whose changes go to SCRATCH (removed by the caller), in
#       mount, PID and network namespaces of its own.  /proc, /dev, /tmp
#       and /dev/shm are private mounts, the network is only a loopback
#       interface, so abstract sockets and TCP ports cannot meet anybody
#       else's; every process still running when COMMAND ends is killed,
#       and every mount disappears with the namespace.  --bind makes host
#       directory DIR visible at PATH.
#   debian-chroot.sh setup SUITE [--bind DIR:PATH]... -- COMMAND...
#       run COMMAND as root in the cached chroot itself (changes stay),
#       with the host's network, while no run uses it: to install what a
#       command inside decides (a source tree's "build.sh deps").  A
#       COMMAND that fails leaves the chroot as it is; an interrupted
#       package installation makes the next "ensure" rebuild it.
#   debian-chroot.sh path SUITE
#       print the chroot's directory.
#
# Exit status 77 (the test suite's "skipped") when this cannot work here:
# not root, no debootstrap/unshare, or no mirror to create the chroot from.
#
# Environment: IONIC_CHROOT_CACHE (default /var/cache/libionic),
# IONIC_DEBIAN_MIRROR (default: the host's Debian mirror, else
# http://deb.debian.org/debian).
set -euo pipefail

cache=${IONIC_CHROOT_CACHE:-/var/cache/libionic}
# Bumped when what "ensure" sets up changes, so old chroots are rebuilt.
format=1

skip() {
	echo "debian-chroot: SKIP: $*" >&2
	exit 77
}
die() {
	echo "debian-chroot: $*" >&2
	exit 1
}
say() { echo "debian-chroot: $*" >&2; }

usage() {
	sed -n '7,29p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

valid_suite() {
	[[ $1 =~ ^[a-z][a-z0-9-]*$ ]] || die "not a suite name: '$1'"
}

need_tools() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (debootstrap, namespaces, mounts)"
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null || skip "$t is not installed (./build.sh deps)"
	done
}

mirror() {
	if [ -n "${IONIC_DEBIAN_MIRROR:-}" ]; then
		echo "$IONIC_DEBIAN_MIRROR"
		return
	fi
	local m
	m=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
		sed -n 's|^URIs:[[:space:]]*\([^[:space:]]*/debian\)/\{0,1\}[[:space:]]*$|\1|p' | head -1)
	[ -n "$m" ] || m=$(sed -n 's|^deb[[:space:]]\{1,\}\(http[^[:space:]]*/debian\)/\{0,1\}[[:space:]].*|\1|p' \
		/etc/apt/sources.list 2>/dev/null | head -1)
	echo "${m:-http://deb.debian.org/debian}"
}

reachable() { # MIRROR SUITE
	wget -q -T 20 -t 2 -O /dev/null "$1/dists/$2/Release" 2>/dev/null
}

# A chroot is in use by nobody when nothing is mounted below it (mounts
# are only ever made in private namespaces, but be sure before rm -rf).
unmounted() {
	! awk -v d="$1" '$5 == d || index($5, d "/") == 1 { found = 1 } END { exit !found }' \
		/proc/self/mountinfo
}

remove_tree() {
	unmounted "$1" || die "something is mounted below $1; not removing it"
	rm -rf --one-file-system "$1"
}

healthy() { # DIR SUITE
	[ -f "$1/etc/libionic-chroot" ] &&
		[ "$(cat "$1/etc/libionic-chroot")" = "suite=$2 format=$format" ] &&
		chroot "$1" /bin/true 2>/dev/null &&
		[ -z "$(chroot "$1" dpkg --audit 2>&1)" ]
}

# in_chroot DIR NET [--bind=DIR:PATH]... -- COMMAND...: COMMAND in DIR
# itself (no overlay) with private /proc, /dev and /tmp; NET=1 keeps the
# host's network (to install packages).
in_chroot() {
	local dir=$1 net=$2
	shift 2
	local ns=(--mount --pid --fork --kill-child --propagation private)
	[ "$net" = 1 ] || ns+=(--net)
	unshare "${ns[@]}" -- "${BASH_SOURCE[0]}" __inner "$dir" "" "$net" "$@"
}

missing_packages() { # DIR PACKAGE...
	local dir=$1 p
	shift
	for p in "$@"; do
		# shellcheck disable=SC2016 # a dpkg-query format, not a shell expansion
		[ "$(chroot "$dir" dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null)" = "ii " ] ||
			echo "$p"
	done
}

cmd_ensure() {
	[ $# -ge 1 ] || usage
	local suite=$1
	shift
	valid_suite "$suite"
	need_tools debootstrap unshare chroot flock wget
	local dir=$cache/chroot-$suite m t0 missing
	m=$(mirror)
	mkdir -p "$cache"
	exec 9>"$cache/chroot-$suite.lock"
	flock -w 3600 -x 9 || die "timed out waiting for $cache/chroot-$suite.lock"

	if [ -d "$dir" ] && ! healthy "$dir" "$suite"; then
		say "$dir is broken or from an older format; rebuilding it"
		remove_tree "$dir"
	fi
	if [ ! -d "$dir" ]; then
		reachable "$m" "$suite" ||
			skip "cannot reach $m/dists/$suite (no network?); no chroot to test in"
		local new="$dir.new"
		[ -e "$new" ] && remove_tree "$new"
		say "creating $dir from $m (debootstrap --variant=minbase $suite)"
		t0=$SECONDS
		if ! debootstrap --variant=minbase --components=main "$suite" "$new" "$m" \
			>"$cache/chroot-$suite.log" 2>&1; then
			tail -20 "$cache/chroot-$suite.log" >&2
			remove_tree "$new"
			die "debootstrap failed (log: $cache/chroot-$suite.log)"
		fi
		# No daemons from package scripts, no recommended extras.
		printf '#!/bin/sh\nexit 101\n' >"$new/usr/sbin/policy-rc.d"
		chmod 755 "$new/usr/sbin/policy-rc.d"
		printf 'APT::Install-Recommends "false";\n' >"$new/etc/apt/apt.conf.d/90libionic"
		echo "suite=$suite format=$format" >"$new/etc/libionic-chroot"
		mv "$new" "$dir"
		say "created $dir in $((SECONDS - t0)) s"
	fi

	mapfile -t missing < <(missing_packages "$dir" "$@")
	if [ ${#missing[@]} -gt 0 ]; then
		reachable "$m" "$suite" ||
			skip "cannot reach $m to install ${missing[*]} into $dir"
		say "installing into $dir: ${missing[*]}"
		t0=$SECONDS
		in_chroot "$dir" 1 -- sh -c 'apt-get update -q && apt-get install -y -q "$@" && apt-get clean' \
			apt "${missing[@]}" >>"$cache/chroot-$suite.log" 2>&1 || {
			tail -20 "$cache/chroot-$suite.log" >&2
			die "installing ${missing[*]} failed (log: $cache/chroot-$suite.log)"
		}
		mapfile -t missing < <(missing_packages "$dir" "$@")
		[ ${#missing[@]} -eq 0 ] || die "still not installed in $dir: ${missing[*]}"
		say "installed in $((SECONDS - t0)) s"
	fi
	say "$dir ready ($(du -sh --one-file-system "$dir" | cut -f1))"
	echo "$dir"
}

# parse_binds ARG...: the "[--bind DIR:PATH]... -- COMMAND..." of run and
# setup into binds (as __inner's --bind=DIR:PATH) and command.
parse_binds() {
	binds=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		case $1 in
		--bind)
			[ $# -ge 2 ] || usage
			[[ $2 == /*:/* ]] || die "--bind wants /DIR:/PATH, not '$2'"
			binds+=("--bind=$2")
			shift 2
			;;
		*) usage ;;
		esac
	done
	[ "${1:-}" = -- ] || usage
	shift
	[ $# -ge 1 ] || usage
	command=("$@")
}

# use_chroot SUITE -s|-x: lock the cached chroot of SUITE (shared or
# exclusive, on fd 9 until exit) and set dir to it; it must be healthy.
use_chroot() {
	valid_suite "$1"
	need_tools unshare chroot flock
	dir=$cache/chroot-$1
	exec 9>"$cache/chroot-$1.lock"
	flock -w 3600 "$2" 9 || die "timed out waiting for $cache/chroot-$1.lock"
	healthy "$dir" "$1" || die "$dir is missing or broken: run '$0 ensure $1' first"
}

cmd_run() {
	[ $# -ge 3 ] || usage
	local suite=$1 scratch=$2 binds command dir
	shift 2
	# Shared: runs may overlap each other, never a rebuild of their lower layer.
	use_chroot "$suite" -s
	parse_binds "$@"
	mkdir -p "$scratch/upper" "$scratch/work" "$scratch/root"
	scratch=$(cd "$scratch" && pwd)
	# --kill-child: if this process dies, so does the namespace's init and
	# with it everything still running inside.
	unshare --mount --pid --fork --kill-child --net --propagation private -- \
		"${BASH_SOURCE[0]}" __inner "$dir" "$scratch" 0 "${binds[@]}" -- "${command[@]}"
}

cmd_setup() {
	[ $# -ge 2 ] || usage
	local suite=$1 binds command dir
	shift
	use_chroot "$suite" -x
	parse_binds "$@"
	in_chroot "$dir" 1 "${binds[@]}" -- "${command[@]}"
}

# __inner BASE SCRATCH NET [--bind=DIR:PATH]... -- COMMAND...: runs in the
# new namespaces; SCRATCH empty means BASE itself, not an overlay of it.
cmd_inner() {
	local base=$1 scratch=$2 net=$3 root b
	shift 3
	if [ -n "$scratch" ]; then
		root=$scratch/root
		mount -t overlay overlay \
			-o "lowerdir=$base,upperdir=$scratch/upper,workdir=$scratch/work" "$root"
	else
		root=$base
	fi
	mount -t proc proc "$root/proc"
	# A sysfs of the namespace's own network (programs such as UCX 1.18
	# scan /sys/class/net and fail without it, as no real system is)
	mount -t sysfs -o ro,nosuid,nodev,noexec sysfs "$root/sys"
	mount -t tmpfs -o mode=0755,nosuid,size=16m devtmp "$root/dev"
	mknod -m 666 "$root/dev/null" c 1 3
	mknod -m 666 "$root/dev/zero" c 1 5
	mknod -m 666 "$root/dev/full" c 1 7
	mknod -m 666 "$root/dev/random" c 1 8
	mknod -m 666 "$root/dev/urandom" c 1 9
	mknod -m 666 "$root/dev/tty" c 5 0
	ln -s /proc/self/fd "$root/dev/fd"
	ln -s /proc/self/fd/0 "$root/dev/stdin"
	ln -s /proc/self/fd/1 "$root/dev/stdout"
	ln -s /proc/self/fd/2 "$root/dev/stderr"
	mkdir "$root/dev/shm" "$root/dev/pts"
	mount -t tmpfs -o mode=1777,nosuid,nodev shm "$root/dev/shm"
	if mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$root/dev/pts" 2>/dev/null; then
		ln -s pts/ptmx "$root/dev/ptmx"
	fi
	mount -t tmpfs -o mode=1777,nosuid,nodev tmp "$root/tmp"
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		b=${1#--bind=}
		mkdir -p "$root${b#*:}"
		mount --bind "${b%%:*}" "$root${b#*:}"
		shift
	done
	shift
	if [ "$net" = 1 ]; then
		cp -L /etc/resolv.conf "$root/etc/resolv.conf"
	else
		ip link set lo up
	fi
	exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive "$@"
}

case ${1:-} in
ensure)
	shift
	cmd_ensure "$@"
	;;
run)
	shift
	cmd_run "$@"
	;;
setup)
	shift
	cmd_setup "$@"
	;;
path)
	[ $# -eq 2 ] || usage
	valid_suite "$2"
	echo "$cache/chroot-$2"
	;;
__inner)
	shift
	cmd_inner "$@"
	;;
*) usage ;;
esac
