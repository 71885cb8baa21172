#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
"""The wall time of CI's stages and of the phases inside them, as a table.

Usage: phases.py PHASE_LOG

PHASE_LOG has one line per finished phase, "NAME<TAB>seconds<TAB>exit
status": "stage NAME" for a stage of .ci/run, "STAGE/PHASE" for a phase
inside one (build.sh's timed, tests/matrix/matrix.sh,
tests/distro/chroot-test.sh; a phase of the chroot's own build.sh test is
"STAGE/inside/PHASE").  Each stage is printed with its phases below it, in
the order they ended, then the total.
"""
import sys


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    stages, inner = [], {}
    try:
        with open(sys.argv[1]) as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) != 3:
                    continue
                name, secs, rc = parts[0], int(parts[1]), parts[2]
                if name.startswith("stage "):
                    stages.append((name[6:], secs, rc))
                else:
                    st, _, phase = name.partition("/")
                    inner.setdefault(st, []).append((phase, secs, rc))
    except OSError:
        return
    if not stages and not inner:
        return
    print("\nWall time of each phase (seconds):\n")
    print("| stage | phase | seconds | exit |")
    print("|---|---|---:|---:|")
    total = 0
    for name, secs, rc in stages:
        total += secs
        print("| %s | | %d | %s |" % (name, secs, rc))
        for phase, psecs, prc in inner.pop(name, []):
            print("| | %s | %d | %s |" % (phase, psecs, prc))
    for name, phases in inner.items():  # a stage that did not finish
        for phase, psecs, prc in phases:
            print("| %s | %s | %d | %s |" % (name, phase, psecs, prc))
    print("| total | | %d | |" % total)


if __name__ == "__main__":
    main()
