#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
"""Compare two runs of tests/oracle/diff_scenario.c, one per provider:
what the application saw (its stdout: completions, capabilities) and what
reached the device (the traces normalised by diffnorm.py), scenario by
scenario and field by field.  Every difference must be in KNOWN, and every
line of KNOWN must still be a difference (so the list stays true).

usage: diffcmp.py OURS.out UPSTREAM.out OURS.norm UPSTREAM.norm KNOWN
KNOWN: "scenario | what | field | ours | upstream | why" lines, '#' comments;
ours and upstream may both be "*" (any values: for long device lines), and
field too (a difference anywhere in that stream: where it first shows
depends on timing).
"""
import sys


def app(path):
    """scenario -> the lines the program printed for it."""
    res, scen = {}, '(setup)'
    for line in open(path, errors='replace'):
        line = line.rstrip('\n')
        if line.startswith('== '):
            scen = line[3:]
        elif line.startswith(('wc ', 'create ', 'pd ', 'event ')):
            res.setdefault(scen, []).append(line)
    return res


def dev(path):
    """scenario -> stream -> its lines."""
    res = {}
    for line in open(path, errors='replace'):
        scen, stream, text = line.rstrip('\n').split('\t', 2)
        res.setdefault(scen, {}).setdefault(stream, []).append(text)
    return res


def fields(line):
    """'wc side 0 wr_id 1 status ...' -> [(name, value)...]"""
    w = line.split()
    return list(zip(w[1::2], w[2::2])) if w[0] == 'wc' else [('line', line)]


def main():
    ours_app, up_app = app(sys.argv[1]), app(sys.argv[2])
    ours_dev, up_dev = dev(sys.argv[3]), dev(sys.argv[4])
    diffs = []
    for scen in sorted(set(ours_app) | set(up_app)):
        a, b = ours_app.get(scen, []), up_app.get(scen, [])
        if len(a) != len(b):
            diffs.append((scen, 'completions', 'count', str(len(a)),
                          str(len(b))))
            continue
        for k, (x, y) in enumerate(zip(a, b)):
            for (f, v), (g, u) in zip(fields(x), fields(y)):
                if f == g and v != u:
                    diffs.append((scen, 'completion %d' % k, f, v, u))
    for scen in sorted(set(ours_dev) | set(up_dev)):
        a, b = ours_dev.get(scen, {}), up_dev.get(scen, {})
        for stream in sorted(set(a) | set(b)):
            x, y = a.get(stream, []), b.get(stream, [])
            if x != y:
                k = next((i for i, (p, q) in enumerate(zip(x, y)) if p != q),
                         min(len(x), len(y)))
                diffs.append((scen, stream, 'line %d' % k,
                              x[k] if k < len(x) else '-',
                              y[k] if k < len(y) else '-'))
    known = {}
    for line in open(sys.argv[5]):
        if line.strip() and not line.startswith('#'):
            f = [s.strip() for s in line.split('|')]
            known[tuple(f[:5])] = f[5] if len(f) > 5 else ''
    bad = 0
    for d in diffs:
        why = known.pop(d, None)
        if why is None:  # "*" values: any (long device lines)
            why = known.pop(d[:3] + ('*', '*'), None)
        if why is None:  # "*" field too: where in the stream depends on
            # timing (upstream's deferred arm is rung at whichever poll
            # comes next, docs/upstream-defects.md D10)
            why = known.pop(d[:2] + ('*', '*', '*'), None)
        print('%s: %s | %s | %s | ours %s | upstream %s%s' % (
            'known' if why is not None else 'NEW', *d,
            ' (%s)' % why if why else ''))
        bad += why is None
    for d in known:
        print('GONE: %s | %s | %s | ours %s | upstream %s' % d)
        bad += 1
    n = sum(len(v) for v in ours_app.values()) + sum(
        len(s) for v in ours_dev.values() for s in v.values())
    print('oracle diff: %d scenarios, %d lines compared, %d differences, '
          '%d unexplained' % (len(ours_app), n, len(diffs), bad))
    return 1 if bad else 0


sys.exit(main())
