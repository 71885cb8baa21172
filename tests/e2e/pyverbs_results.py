#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# The verdict on a pyverbs run (tests/e2e/pyverbs.sh): reads unittest's
# verbose log, prints the counts and the skip reasons, and holds the run
# to the suite version's pass list (tests/e2e/pyverbs/pass-v<N>.txt,
# docs/testing.md §1.8): every listed test that this run asked for must
# pass; a listed test that skipped, failed or did not run fails the run,
# so a regression that turns passes into skips cannot stay green.  A test
# that passed but is not listed is reported on a "ci-note:" line (kept in
# ctest's log, and in the table at the end of .ci/run) so the list can grow.
#
# usage: pyverbs_results.py LOG VERSION PASSLIST|- [--passed-out FILE]
#                           REQUESTED...
#   REQUESTED: the names given to run_tests.py (modules, classes, tests)
#   PASSLIST "-": no list for this version (counts only, no check)
# Exit status 0 when nothing failed, something passed and the pass list
# holds; 1 otherwise.
import re
import sys

RESULT = re.compile(r"^(ok|skipped '(.*)'|FAIL|ERROR|expected failure|"
                    r"unexpected success)$")
HEADER = re.compile(r"^(test\w*) \(([\w.]+)\)(?: \.\.\. (.*))?$")


def parse(path):
    """{test id: (outcome, skip reason)} from unittest's -v output; a
    result may follow its header on a later line (output of a forked
    side in between)."""
    results, pending = {}, None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = HEADER.match(line)
            if m:
                name, where, rest = m.groups()
                # Python 3.11 prints the full id, older ones the class
                pending = where if where.endswith("." + name) else \
                    "%s.%s" % (where, name)
                # run_tests.py imports the modules as package "tests"
                if pending.startswith("tests."):
                    pending = pending[len("tests."):]
                line = rest if rest is not None else ""
                if rest is None:
                    continue
            if pending is None:
                continue
            # the result is the tail after the last " ... " or a line alone
            tail = line.rsplit(" ... ", 1)[-1].strip()
            r = RESULT.match(tail)
            if r:
                outcome = r.group(1).split(" ")[0]
                results[pending] = (outcome, r.group(2) or "")
                pending = None
    return results


def main(argv):
    passed_out = None
    if "--passed-out" in argv:
        i = argv.index("--passed-out")
        passed_out = argv[i + 1]
        del argv[i:i + 2]
    log, version, listfile = argv[1:4]
    requested = argv[4:]
    res = parse(log)
    ok = sorted(t for t, (o, _) in res.items() if o == "ok")
    bad = sorted(t for t, (o, _) in res.items()
                 if o in ("FAIL", "ERROR", "unexpected"))
    skipped = [(t, why) for t, (o, why) in res.items() if o == "skipped"]
    print("pyverbs: %d passed, %d failed, %d skipped" %
          (len(ok), len(bad), len(skipped)))
    reasons = {}
    for _, why in skipped:
        reasons[why] = reasons.get(why, 0) + 1
    for why, n in sorted(reasons.items(), key=lambda x: (-x[1], x[0])):
        print("pyverbs skip: %d x %s" % (n, why))
    for t in bad:
        print("pyverbs FAIL: %s" % t)
    if passed_out:
        with open(passed_out, "w") as f:
            f.write("".join(t + "\n" for t in ok))
    fail = bool(bad) or not ok
    if listfile == "-":
        return 1 if fail else 0

    def asked(t):
        return not requested or any(t == r or t.startswith(r + ".")
                                    for r in requested)
    with open(listfile) as f:
        listed = [ln.strip() for ln in f
                  if ln.strip() and not ln.startswith("#")]
    want = [t for t in listed if asked(t)]
    missing = 0
    for t in want:
        o, why = res.get(t, ("did not run", ""))
        if o != "ok":
            print("FAIL: %s is on the pass list of v%s and %s%s" %
                  (t, version, o, " (%s)" % why if why else ""))
            missing += 1
    extra = [t for t in ok if t not in set(listed)]
    for t in extra:
        print("ci-note: pyverbs v%s: %s passes but is not on %s "
              "(add it)" % (version, t, listfile[listfile.rfind("tests/"):]))
    print("pyverbs: pass list v%s: %d of %d listed tests asked for, %d "
          "passed, %d did not; %d passing tests not listed" %
          (version, len(want), len(listed), len(want) - missing, missing,
           len(extra)))
    return 1 if fail or missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
