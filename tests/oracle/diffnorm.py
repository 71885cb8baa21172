#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
"""Normalise an ionic-sim trace of tests/oracle/diff_scenario.c (run with
IONIC_SIM_TRACE_RAW=1) for comparison with another provider's run: one
"<scenario>\t<kind>\t<text>" line per device-visible event, in order.

Kept: the uverbs commands and their attributes (CMD), every doorbell as the
device decoded it (DB), every WQE byte for byte (WQE), the CQEs the device
wrote (CQE).  Masked, because they must differ between two runs or two
libraries: addresses (SGE and remote addresses, MR iova), the bytes of
local and remote keys, UD destination QP numbers, process ids and times.
A mask is "xx" per byte.  docs/oracle-comparison.md lists the fields.

usage: diffnorm.py TRACE > NORMALISED
"""
import re
import sys

# the opcodes by firmware RDMA version (docs/device-contract.md §3.5): a
# scenario whose name starts with "fw1 " ran with version 1
OPS = {
    2: dict(rdma={0x21, 0x61, 0x02, 0x03, 0x04, 0x05}, atomic={0x04, 0x05},
            ud_send={0x20, 0x60}, key={0xA0, 0x07, 0x08}, nobody={0x07, 0x08},
            bind=0x08),
    1: dict(rdma={4, 5, 3, 6, 7}, atomic={6, 7}, ud_send={0, 2},
            key={1, 9, 10}, nobody={9, 10}, bind=10),
}
FLAG_INL, FLAG_SPEC32, FLAG_SPEC16 = 0x0004, 0x1000, 0x2000


def mask(b, start, length):
    for i in range(start, min(start + length, len(b))):
        b[i] = None


def wqe(kind, qtype, fw, raw):
    """Mask the fields of one WQE that must differ (device-contract §3)."""
    b = list(raw)
    op, nsge = b[8], b[9]
    flags = b[10] << 8 | b[11]
    o = OPS[fw] if kind == 'sq' else dict(
        rdma=(), atomic=(), ud_send=(), key=(), nobody=(), bind=None)
    if op in o['rdma']:
        mask(b, 16, 12)  # remote address, rkey
    if op in o['atomic'] and fw == 1:
        mask(b, 48, 8)  # the local SGE's va
        mask(b, 60, 4)  # and lkey (docs/device-contract.md §3.3 (c))
        nsge = 0
    elif op in o['atomic']:
        mask(b, 44, 12)  # result buffer lkey and address
        nsge = 0
    if op in o['ud_send'] and qtype == 'ud':
        mask(b, 20, 4)  # destination QP number
    if op in o['key']:
        mask(b, 12, 4)  # a key in imm_data_key
    if op in o['nobody']:
        nsge = 0  # no SGL: LOCAL_INV has no body, BIND_MW its own
    if op == o['bind']:
        mask(b, 9, 1)  # the new key byte
        mask(b, 16, 8)  # the window's address
        mask(b, 32, 4)  # the region's lkey
    if not flags & FLAG_INL:
        base = 64 if flags & (FLAG_SPEC32 | FLAG_SPEC16) and nsge > 2 else 32
        for k in range(nsge):
            mask(b, base + 16 * k, 8)  # va
            mask(b, base + 16 * k + 12, 4)  # lkey
    # trailing zero bytes are not compared (strides may differ)
    while b and b[-1] == 0:
        b.pop()
    return ' '.join('xx' if x is None else '%02x' % x for x in b)


def cqe(hexwords):
    """Mask the completion timestamp (device-contract §5.2, §5.3): bits
    16-63 of the first word of a RECV CQE, of the third of a SEND CQE."""
    b = list(bytes.fromhex(''.join(hexwords)))
    if len(b) == 32:
        mask(b, 2 if (b[31] >> 5) == 1 else 18, 6)
    return ' '.join('xx' if x is None else '%02x' % x for x in b)


def main():
    scen, qtype, fw = '(setup)', 'rc', 2
    out = []
    for line in open(sys.argv[1], errors='replace'):
        f = line.split()
        if len(f) < 4:
            continue
        cat, rest = f[3], f[4:]
        text = ' '.join(rest)
        if cat == 'MARK':
            scen = text
            fw = 1 if scen.startswith('fw1 ') else 2
            qtype = 'ud' if re.match(r'(fw1 )?(wr )?ud', scen) else 'rc'
        elif cat == 'WQERAW':
            # "<sq|rq> qp N slot S stride T <hex...>"
            raw = bytes.fromhex(''.join(rest[7:]).replace('...', ''))
            out.append((scen, 'WQE %s qp %s' % (rest[0], rest[2]),
                        'slot %s stride %s: %s' % (
                            rest[4], rest[6], wqe(rest[0], qtype, fw, raw))))
        elif cat == 'DB' and not rest[0].startswith('page='):
            # without the device's own index at the time ("(cons N)"),
            # which depends on how far it got: timing
            out.append((scen, 'DB', re.sub(r' \((cons|prod) \d+\)$', '',
                                           text)))
        elif cat == 'CMD':
            text = re.sub(r'iova=0x[0-9a-f]+', 'iova=xx', text)
            out.append((scen, 'CMD', text))
        elif cat == 'CQE' and rest[0] == 'write':
            t = cqe(rest[1:])
            out.append((scen, 'CQE ' + ('recv' if t.endswith('21') else
                                        'send'), t))
    # The device runs beside the application: how its work interleaves
    # with the doorbells is timing.  Each stream keeps its own order (the
    # doorbells, each queue's WQEs, the receive and the send CQEs, the
    # commands), the streams of a scenario are listed one after another.
    order = {}
    for i, (s, k, t) in enumerate(out):
        order.setdefault((s, k), i)
    for s, k, t in sorted(out, key=lambda e: order[(e[0], e[1])]):
        print('%s\t%s\t%s' % (s, k, t))


main()
