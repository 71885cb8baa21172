#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# check-doc-paths.sh: what the documents and the comments point at exists.
# check-doc-refs.sh checks the design-document citations of comments (a
# docs/ file, its section, a defect number); this checks the rest:
#
#   a repository path       "providers/ionic/poll.c", "sim/dev/cqe.c", in a
#                           comment of a C, shell, Python or CMake file or
#                           anywhere in a Markdown file, names a file that
#                           exists: relative to the repository root, or to
#                           the citing file's directory or one above it, or
#                           an installed system file (include/infiniband/
#                           verbs.h of a libibverbs prefix);
#   a Markdown link         [text](path) in a Markdown file: path exists
#                           relative to that file;
#   a section in Markdown   a document name followed by §N: that
#                           document has a heading numbered N;
#   a provider name         `ionic_cq_arm` (a function, type or variable
#                           of the provider, quoted as code in a Markdown
#                           file) is a word of some source, script or
#                           CMake file;
#   the defect table        every ctest name in the "Proved by" column of
#                           docs/upstream-defects.md ("`verbs-wrx` (and
#                           `-cmb`)" names verbs-wrx and verbs-wrx-cmb) is a
#                           registered test, and every `test_*` function it
#                           names is defined in a tests/ file of that row.
#
#   tests/check-doc-paths.sh [--root TREE] [--build DIR | --tests FILE]
#
# The registered test names come from `ctest -N` in the build tree DIR, or
# from FILE (one a line); with neither, the defect table's test names are
# not checked.  Exit status: 0 all resolve, 1 some do not, 2 usage error.
# Needs python3.

set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
tests=
build=
while [ $# -gt 0 ]; do
	case $1 in
	--root)
		[ $# -ge 2 ] || exit 2
		root=$(cd "$2" && pwd) || exit 2
		shift
		;;
	--tests)
		[ $# -ge 2 ] || exit 2
		tests=$2
		shift
		;;
	--build)
		[ $# -ge 2 ] || exit 2
		build=$2
		shift
		;;
	*)
		sed -n '4,34p' "$0" | sed 's/^# \{0,1\}//' >&2
		exit 2
		;;
	esac
	shift
done

if ! command -v python3 >/dev/null 2>&1; then
	echo "check-doc-paths: python3 is required" >&2
	exit 2
fi

exec python3 - "$root" "$tests" "$build" <<'PY'
import os
import re
import subprocess
import sys

root, tests_file, build = sys.argv[1], sys.argv[2], sys.argv[3]
TOP = ("providers|sim|common|include|kernel-headers|tests|bench|cmake|"
       "packaging|debian|redhat|man|docs")
PATH = re.compile(r"(?<![\w./-])((?:%s)/[\w./-]*[\w-]\.(?:c|h|sh|py|cmake|"
                  r"txt|md|map|json|supp|[1-8]))\b" % TOP)
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")
SECREF = re.compile(r"([\w./-]+\.md)\)?`?\s+§\s?(\d+(?:\.\d+)*)")
# The files whose old names CHANGELOG.md keeps on purpose.
SKIP = ("CHANGELOG.md",)
fails = []


def files():
    try:
        top = subprocess.run(["git", "-C", root, "rev-parse",
                              "--show-toplevel"], check=True,
                             capture_output=True).stdout.decode().strip()
        if os.path.realpath(top) != os.path.realpath(root):
            raise OSError("not the top of a git work tree")
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"],
                             check=True, capture_output=True).stdout
        names = [n for n in out.decode().split("\0") if n]
    except (OSError, subprocess.CalledProcessError):
        names = []
        for d, dirs, fs in os.walk(root):
            rel = os.path.relpath(d, root)
            dirs[:] = [x for x in dirs
                       if not (rel == "." and (x.startswith("build") or
                                               x == ".git"))]
            names += [os.path.normpath(os.path.join(rel, f)) for f in fs]
    return sorted(n for n in names if os.path.isfile(os.path.join(root, n)))


def comments(name, text):
    """(offset, text) of the comments of a source file."""
    if name.endswith((".c", ".h")):
        for m in re.finditer(r'"(?:\\.|[^"\\\n])*"|/\*.*?\*/|//[^\n]*',
                             text, re.S):
            if not m.group(0).startswith('"'):
                yield m.start(), m.group(0)
    elif (name.endswith((".sh", ".py", ".cmake")) or
          os.path.basename(name) == "CMakeLists.txt"):
        for m in re.finditer(r"(?:^|(?<=\s))#[^\n]*", text):
            yield m.start(), m.group(0)


def resolves(name, p):
    d = os.path.dirname(name)
    while True:
        if os.path.exists(os.path.join(root, d, p)):
            return True
        if not d:
            break
        d = os.path.dirname(d)
    return os.path.exists("/usr/" + p) or os.path.exists("/" + p)


def headings(doc):
    nums = set()
    fence = False
    with open(os.path.join(root, doc)) as f:
        for line in f:
            if line.lstrip().startswith(("```", "~~~")):
                fence = not fence
            m = not fence and re.match(r"#{1,6}\s+§?(\d+(?:\.\d+)*)\.?\s",
                                       line)
            if m:
                nums.add(m.group(1))
    return nums


def line_of(text, off):
    return text.count("\n", 0, off) + 1


def check_paths(name, text, chunks):
    for off, chunk in chunks:
        for m in PATH.finditer(chunk):
            if not resolves(name, m.group(1)):
                fails.append("%s:%d: no such file: %s" % (
                    name, line_of(text, off + m.start()), m.group(1)))


def source_words(names):
    words = set()
    for n in names:
        if n.endswith((".c", ".h", ".map", ".cmake", ".sh", ".py",
                       "CMakeLists.txt")):
            with open(os.path.join(root, n), errors="replace") as f:
                words.update(re.findall(r"\w+", f.read()))
    return words


def check_markdown(name, text, words):
    d = os.path.dirname(name)
    for m in re.finditer(r"`([^`\n]+)`", text):
        for w in re.findall(r"(?<![\w*])(ionic_[a-z0-9_]+)\b(?!\*)",
                            m.group(1)):
            if w not in words:
                fails.append("%s:%d: no such name in the sources: %s" % (
                    name, line_of(text, m.start()), w))
    for m in LINK.finditer(text):
        t = m.group(1)
        if re.match(r"[a-z]+:", t):
            continue
        if not os.path.exists(os.path.join(root, d, t)):
            fails.append("%s:%d: broken link: %s" % (
                name, line_of(text, m.start()), t))
    for m in SECREF.finditer(text):
        doc, num = m.group(1), m.group(2)
        target = None
        for cand in (os.path.join(d, doc), doc, os.path.join("docs", doc)):
            cand = os.path.normpath(cand)
            if os.path.isfile(os.path.join(root, cand)):
                target = cand
                break
        if target is None:
            continue  # a missing document is reported as a path or link
        if num not in headings(target):
            fails.append("%s:%d: %s has no heading numbered %s" % (
                name, line_of(text, m.start()), target, num))


def check_defect_table(tests):
    doc = "docs/upstream-defects.md"
    with open(os.path.join(root, doc)) as f:
        rows = [(i + 1, line) for i, line in enumerate(f)
                if line.startswith("| D")]
    test_re = re.compile(r"`((?:unit|verbs|sim|e2e|memcheck|lint|packaging|"
                         r"doc)-[a-z0-9-]+|-[a-z0-9][a-z0-9-]*)`")
    for n, line in rows:
        cells = line.split("|")
        if len(cells) < 6:
            fails.append("%s:%d: not a row of four cells" % (doc, n))
            continue
        proof = cells[4]
        if tests is not None:
            base = None
            for m in test_re.finditer(proof):
                t = m.group(1)
                if t.startswith("-"):
                    if base is None:
                        continue
                    t = base + t
                else:
                    base = t
                if t not in tests:
                    fails.append("%s:%d: %s: no test %s is registered" % (
                        doc, n, cells[1].strip(), t))
        srcs = [p for p in re.findall(r"tests/[\w/.-]+\.c", proof)
                if os.path.isfile(os.path.join(root, p))]
        text = "".join(open(os.path.join(root, p)).read() for p in srcs)
        for fn in re.findall(r"`(test_\w+)`", proof):
            if not re.search(r"\b%s\s*\(" % fn, text):
                fails.append("%s:%d: %s: %s is in none of %s" % (
                    doc, n, cells[1].strip(), fn,
                    ", ".join(srcs) or "(no tests/ file named)"))


tests = None
if tests_file:
    with open(tests_file) as f:
        tests = set(line.strip() for line in f if line.strip())
elif build:
    out = subprocess.run(["ctest", "-N"], cwd=build, check=True,
                         capture_output=True, text=True).stdout
    tests = set(re.findall(r"^\s*Test\s+#\d+: (\S+)$", out, re.M))
    if not tests:
        sys.exit("check-doc-paths: ctest -N in %s lists no test" % build)

names = files()
words = source_words(names)
for name in names:
    if os.path.basename(name) in SKIP or name.startswith("tests/fuzz/corpus"):
        continue
    if name.endswith(".md"):
        with open(os.path.join(root, name), errors="replace") as f:
            text = f.read()
        check_paths(name, text, [(0, text)])
        check_markdown(name, text, words)
        continue
    chunks = None
    try:
        with open(os.path.join(root, name)) as f:
            text = f.read()
        chunks = list(comments(name, text))
    except UnicodeDecodeError:
        continue
    check_paths(name, text, chunks)

if os.path.isfile(os.path.join(root, "docs/upstream-defects.md")):
    check_defect_table(tests)

for f in fails:
    print(f)
print("check-doc-paths: %d unresolved" % len(fails))
sys.exit(1 if fails else 0)
PY
