#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
"""Wall and CPU time of every test of a ctest preset, one test at a time.

Usage: time-tests.py PRESET OUT.tsv [REGEX]

Runs each test of the preset (or those matching REGEX) alone through
"ctest --preset PRESET -R ^NAME$" without the leftovers check (-FC), and
writes one line per test: name, status, wall seconds, user and system CPU
seconds of the test and all the processes it waited for, and CPU/wall;
the output of a test that fails goes to OUT.tsv.NAME.log.  A
test whose CPU is a small part of its wall time mostly waits (a fixed
sleep, a timeout, a peer): the candidates for running in parallel or for
shorter waits (docs/testing.md, "Where CI's time goes").  Run from the
source tree.  Prints the slowest tests and the totals at the end.
"""
import json
import os
import re
import resource
import subprocess
import sys
import time


def tests_of(preset, regex):
    cmd = ["ctest", "--preset", preset, "--show-only=json-v1"]
    if regex:
        cmd += ["-R", regex]
    info = json.loads(subprocess.run(cmd, check=True, capture_output=True,
                                     text=True).stdout)
    return [t["name"] for t in info["tests"]
            if not any(p["name"] == "FIXTURES_CLEANUP"
                       for p in t.get("properties", []))]


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    preset, out = sys.argv[1], sys.argv[2]
    regex = sys.argv[3] if len(sys.argv) > 3 else None
    rows = []
    with open(out, "w") as f:
        f.write("test\tstatus\twall_s\tuser_s\tsys_s\tcpu_per_wall\n")
        for name in tests_of(preset, regex):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.monotonic()
            r = subprocess.run(["ctest", "--preset", preset, "-FC", ".",
                                "-R", "^%s$" % re.escape(name)],
                               capture_output=True, text=True,
                               stdin=subprocess.DEVNULL)
            wall = time.monotonic() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            user = after.ru_utime - before.ru_utime
            syst = after.ru_stime - before.ru_stime
            if "***Skipped" in r.stdout:
                status = "skipped"
            elif r.returncode == 0:
                status = "passed"
            else:
                status = "failed"
                with open("%s.%s.log" % (out, name), "w") as log:
                    log.write(r.stdout + r.stderr)
            row = (name, status, wall, user, syst,
                   (user + syst) / wall if wall > 0 else 0)
            rows.append(row)
            f.write("%s\t%s\t%.2f\t%.2f\t%.2f\t%.2f\n" % row)
            f.flush()
    rows.sort(key=lambda r: -r[2])
    wall = sum(r[2] for r in rows)
    cpu = sum(r[3] + r[4] for r in rows)
    print("%-44s %-8s %8s %8s %6s" % ("test", "status", "wall_s", "cpu_s",
                                      "cpu/w"))
    for r in rows[:40]:
        print("%-44s %-8s %8.1f %8.1f %6.2f" % (r[0], r[1], r[2],
                                                 r[3] + r[4], r[5]))
    print("%d tests: wall %.0f s, CPU %.0f s (load average at the end: %s)"
          % (len(rows), wall, cpu, " ".join(
              open("/proc/loadavg").read().split()[:3])))


if __name__ == "__main__":
    main()
