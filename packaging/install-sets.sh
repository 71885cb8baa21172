# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
# shellcheck shell=bash
#
# The files each install component ships: the one definition that
# tests/check-install-layout.sh (cmake --install), the .deb check and the
# .rpm check (packaging/check-packages.sh) compare against.  Sourced.
#
# ionic_install_sets_init LIBDIR INCDIR BINDIR MANDIR PROVDIR CONFDIR
#                         SIMLIBDIR ABI LIBFILE
#   the installation directories; PROVDIR: where libionic-rdmav<ABI>.so
#   goes (libibverbs' provider directory), CONFDIR: where ionic.driver goes
#   (/etc/libibverbs.d), SIMLIBDIR: where libionic-sim.so goes; ABI: the
#   private provider ABI number (34); LIBFILE: the versioned library file,
#   libionic.so.1.<version>.
# ionic_install_set COMPONENT      (provider, dev or sim)
#   prints the component's files and symbolic links, one absolute path a
#   line.
# ionic_compare_set WHAT GOT WANT
#   compares two such lists (any order): prints "ok: WHAT (N files)", or
#   "FAIL: WHAT" and the difference and returns 1.

# Manual pages, relative to the man directory, by component.
ionic_man_pages_dev="man7/ionicdv.7
man3/ionic_dv_ctx_get_udma_count.3
man3/ionic_dv_ctx_get_udma_mask.3
man3/ionic_dv_pd_get_udma_mask.3
man3/ionic_dv_pd_set_udma_mask.3
man3/ionic_dv_pd_set_sqcmb.3
man3/ionic_dv_pd_set_rqcmb.3
man3/ionic_dv_is_ionic_ctx.3
man3/ionic_dv_is_ionic_pd.3
man3/ionic_dv_is_ionic_cq.3
man3/ionic_dv_is_ionic_qp.3
man3/ionic_dv_cq_get_udma_mask.3
man3/ionic_dv_qp_get_udma_idx.3
man3/ionic_dv_pd_set_expdb_mask.3
man3/ionic_dv_qp_set_gda.3
man3/ionic_dv_qp_get_send_dbell_data.3
man3/ionic_dv_qp_get_recv_dbell_data.3
man3/ionic_dv_get_ctx.3
man3/ionic_dv_get_cq.3
man3/ionic_dv_get_qp.3
man3/ionic_dv_create_cq_ex.3
man3/ionic_dv_create_qp_ex.3"
ionic_man_pages_sim="man1/ionic-sim.1"

ionic_install_sets_init() {
	if [ $# -ne 9 ]; then
		echo "ionic_install_sets_init: 9 arguments expected, got $#" >&2
		return 2
	fi
	ISET_LIBDIR=$1 ISET_INCDIR=$2 ISET_BINDIR=$3 ISET_MANDIR=$4
	ISET_PROVDIR=$5 ISET_CONFDIR=$6 ISET_SIMLIBDIR=$7 ISET_ABI=$8
	ISET_LIBFILE=$9
}

ionic_install_set() {
	case $1 in
	provider)
		printf '%s\n' "$ISET_LIBDIR/$ISET_LIBFILE" \
			"$ISET_LIBDIR/libionic.so.1" \
			"$ISET_PROVDIR/libionic-rdmav$ISET_ABI.so" \
			"$ISET_CONFDIR/ionic.driver"
		;;
	dev)
		printf '%s\n' "$ISET_LIBDIR/libionic.so" \
			"$ISET_LIBDIR/pkgconfig/libionic.pc" \
			"$ISET_INCDIR/infiniband/ionic_dv.h"
		printf '%s\n' "$ionic_man_pages_dev" | sed "s|^|$ISET_MANDIR/|"
		;;
	sim)
		printf '%s\n' "$ISET_BINDIR/ionic-sim" \
			"$ISET_SIMLIBDIR/libionic-sim.so" \
			"$ISET_SIMLIBDIR/ionic-sim-cluster"
		printf '%s\n' "$ionic_man_pages_sim" | sed "s|^|$ISET_MANDIR/|"
		;;
	*)
		echo "ionic_install_set: unknown component '$1'" >&2
		return 2
		;;
	esac
}

ionic_compare_set() {
	local got want
	got=$(printf '%s\n' "$2" | grep . | LC_ALL=C sort)
	want=$(printf '%s\n' "$3" | grep . | LC_ALL=C sort)
	if [ "$got" != "$want" ]; then
		echo "FAIL: $1"
		diff -u <(printf '%s\n' "$want") <(printf '%s\n' "$got") |
			sed -n '3,$p' | sed 's/^/    /'
		return 1
	fi
	echo "ok: $1 ($(printf '%s\n' "$got" | grep -c .) files)"
}
