#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# Which skips CI accepts (docs/testing.md §4.6).  Every skip of a ctest
# test, and every .ci/run stage that ends in 77, is looked up in
# tests/skips.allow: outside CI a skip stays a skip, with its message;
# with CI=true in the environment one the list does not allow for this
# environment is a failure.  Each skip (and each "ci-note:" line a test
# printed, e.g. a rerun) is appended to $IONIC_SKIP_LOG when set, which
# .ci/run prints as a table at its end.
#
#   skips.py ctest JUNIT WHERE      the skipped and disabled tests of a
#                                   ctest run (--output-junit JUNIT)
#   skips.py stage NAME WHERE MSG   a whole stage skipped (exit 77)
#   skips.py table LOG              the table of a run's skips and notes
#   skips.py lint BUILD_DIR         tests/skips.allow itself: known tags
#                                   and stages (a typo would make a line
#                                   allow nothing), the names that match
#                                   no test registered in BUILD_DIR (said),
#                                   and the
#                                   verdicts on an allowed and a not
#                                   allowed skip, in and out of CI
#
# WHERE: comma-separated tags of the environment (build.sh: the release,
# e.g. debian-12, and the build, default, san or tsan; more from
# $IONIC_SKIP_WHERE, e.g. chroot).  Exit status 1 when CI=true and a skip
# is not allowed here, else 0.
import fnmatch
import os
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ALLOW = os.path.join(HERE, "skips.allow")


def allow_list():
    """[(pattern, [{tags}...], reason)] from tests/skips.allow: the skip
    is allowed where every tag of one of the sets holds"""
    out = []
    with open(ALLOW) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 2)
            if len(parts) < 3:
                sys.exit("%s:%d: wants NAME WHERE REASON" % (ALLOW, n))
            out.append((parts[0], [set(w.split("+")) for w in
                                   parts[1].split(",")], parts[2]))
    return out


def where_tags(where):
    tags = {t for t in where.split(",") if t}
    tags |= {t for t in os.environ.get("IONIC_SKIP_WHERE", "").split(",")
             if t}
    return tags


def allowed(name, tags, rules):
    for pat, where, reason in rules:
        if fnmatch.fnmatchcase(name, pat) and \
                any(w == {"*"} or w <= tags for w in where):
            return reason
    return None


def message(text):
    """the line of a skipped test's output that says why"""
    lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
    for ln in lines:
        if "skip" in ln.lower():
            return ln
    return lines[-1] if lines else "(no message)"


def record(rows):
    log = os.environ.get("IONIC_SKIP_LOG")
    if not log:
        return
    with open(log, "a") as f:
        for r in rows:
            f.write("\t".join(c.replace("\t", " ").replace("\n", " ")
                              for c in r) + "\n")


def judge(items, where):
    """items: [(name, message)]; prints and records each, returns the
    exit status"""
    rules, tags = allow_list(), where_tags(where)
    ci = os.environ.get("CI") == "true"
    label = ",".join(sorted(tags))
    rows, bad = [], 0
    for name, msg in items:
        reason = allowed(name, tags, rules)
        if reason is None:
            bad += 1
            verdict = "NOT ALLOWED"
            print("skips: %s skipped (%s) and tests/skips.allow does not "
                  "allow it in %s%s" % (name, msg, label,
                                        ": a failure under CI" if ci else ""))
        else:
            verdict = "allowed: " + reason
            print("skips: %s skipped (%s): allowed in %s" % (name, msg, label))
        rows.append((label, name, "skip", msg, verdict))
    record(rows)
    return 1 if ci and bad else 0


def cmd_ctest(junit, where):
    items, notes = [], []
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = case.get("name")
        out = case.findtext("system-out") or ""
        if case.get("status") in ("notrun", "disabled") or \
                case.find("skipped") is not None:
            items.append((name, message(out) if case.get("status") !=
                          "disabled" else "disabled"))
        for ln in out.splitlines():
            if ln.startswith("ci-note: "):
                notes.append((name, ln[len("ci-note: "):]))
    label = ",".join(sorted(where_tags(where)))
    record((label, n, "note", text, "") for n, text in notes)
    return judge(items, where)


def cmd_table(log):
    if not os.path.exists(log):
        rows = []
    else:
        with open(log) as f:
            rows = [ln.rstrip("\n").split("\t") for ln in f if ln.strip()]
    skips = [r for r in rows if len(r) == 5 and r[2] == "skip"]
    notes = [r for r in rows if len(r) == 5 and r[2] == "note"]
    print("==> skips: %d, %d of them not allowed (tests/skips.allow)" %
          (len(skips), sum(r[4] == "NOT ALLOWED" for r in skips)))
    fmt = "  %-22s %-32s %s"
    if skips:
        print(fmt % ("WHERE", "TEST", "VERDICT / MESSAGE"))
    for r in skips:
        print(fmt % (r[0], r[1], r[4]))
        print(fmt % ("", "", "  " + r[3]))
    print("==> notes (ci-note lines of passing and failing tests): %d" %
          len(notes))
    for r in notes:
        print(fmt % (r[0], r[1], r[3]))
    return 0


TAGS = {"*", "debian-12", "debian-13", "default", "san", "tsan", "chroot",
        "matrix"}
STAGES = {"stage:test", "stage:compilers", "stage:matrix", "stage:distro-trixie"}


def registered(build):
    """the test names of a build tree, from its CTestTestfile.cmake files
    (not "ctest -N", which rewrites the LastTest.log of a suite run that
    this test is part of)"""
    import re
    names, dirs = [], [build]
    while dirs:
        d = dirs.pop()
        with open(os.path.join(d, "CTestTestfile.cmake")) as f:
            text = f.read()
        names += re.findall(r"^add_test\(\[=\[(.*?)\]=\]", text, re.M)
        dirs += [os.path.join(d, s) for s in
                 re.findall(r'^subdirs\("(.*?)"\)', text, re.M)]
    return names


def cmd_lint(build):
    tests = registered(build)
    bad = []
    rules = allow_list()
    for pat, where, _ in rules:
        for w in where:
            if not w <= TAGS:
                bad.append("%s: unknown tag(s) %s" % (pat, sorted(w - TAGS)))
        if pat.startswith("stage:"):
            if pat not in STAGES:
                bad.append("%s: no such stage of .ci/run" % pat)
        elif not any(fnmatch.fnmatchcase(t, pat) for t in tests):
            # not an error: a test may be registered only where it can run
            print("note: tests/skips.allow: %s matches no test of %s" %
                  (pat, build))
    # the verdicts, on the first rule that names a test: allowed where its
    # first tag set holds, not allowed (a failure only under CI) elsewhere
    os.environ.pop("IONIC_SKIP_LOG", None)
    os.environ.pop("IONIC_SKIP_WHERE", None)
    pat, where, _ = next(r for r in rules if not r[0].startswith("stage:"))
    name = next(t for t in tests if fnmatch.fnmatchcase(t, pat))
    yes = ",".join(sorted(where[0] - {"*"}))
    for ci, tags, want in (("true", yes, 0), ("true", "nowhere", 1),
                           ("", "nowhere", 0)):
        os.environ["CI"] = ci
        got = judge([(name, "SKIP: lint")], tags)
        if got != want:
            bad.append("%s skipped in %s with CI=%s: exit %d, expected %d" %
                       (name, tags, ci or "(unset)", got, want))
    for b in bad:
        print("FAIL: tests/skips.allow: " + b)
    if not bad:
        print("ok: tests/skips.allow: %d entries, %d tests" %
              (len(rules), len(tests)))
    return 1 if bad else 0


def main(argv):
    if len(argv) == 4 and argv[1] == "ctest":
        return cmd_ctest(argv[2], argv[3])
    if len(argv) == 5 and argv[1] == "stage":
        return judge([("stage:" + argv[2], argv[4])], argv[3])
    if len(argv) == 3 and argv[1] == "table":
        return cmd_table(argv[2])
    if len(argv) == 3 and argv[1] == "lint":
        return cmd_lint(argv[2])
    sys.stderr.write("usage: skips.py ctest JUNIT WHERE | stage NAME WHERE "
                     "MESSAGE | table LOG | lint BUILD_DIR\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
