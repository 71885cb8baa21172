#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
"""Seed inputs of fuzz-provider-cq (tests/fuzz/provider_cq.c).

Each seed is a small program in the target's encoding (see the
comments at fz_setup() and fz_op() there): a configuration, then
operations.  The hostile-device CQEs of the seeds are the golden CQEs
of tests/golden/cqe_golden_bytes.h, read from that header, so the
fuzzer starts from the bytes a real device writes.

    tests/fuzz/seeds/provider-cq.py tests/fuzz/corpus/provider-cq

writes the seed-*.bin files (regression inputs, named otherwise, are
left alone).
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "..", "..", "golden", "cqe_golden_bytes.h")

# operation kinds (the low nibble of an operation byte)
POST_SEND, POST_RECV, DEV_COMPLETE, MODIFY, DESTROY_CREATE, ARM, RAW, POLL = (
    0, 2, 3, 5, 6, 7, 8, 11)
# qid modes of a raw CQE
QID_QP0, QID_CLEANED, QID_ANY = 0, 4, 5
# CQE types
RECV, SEND_MSN, SEND_NPG = 1, 2, 3


def golden_cqes():
    text = open(GOLDEN).read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    out = {}
    for name, body in re.findall(
            r"static const uint8_t (gc_\w+)\[GC_SIZE\]\s*=\s*\{(.*?)\};",
            text, flags=re.S):
        out[name] = bytes(int(x, 16) for x in re.findall(r"0x[0-9a-fA-F]+",
                                                          body))
        assert len(out[name]) == 32, name
    return out


def config(udma2=False, fw2=True, ts=False, ex=False, vcqs=(1,), qps=()):
    """qps: (ud, udma, send_vcq, recv_vcq, max_sge, depth) each."""
    c = (udma2 << 0) | (fw2 << 1) | (ts << 2) | (ex << 3)
    c |= (len(vcqs) == 2) << 4 | (len(qps) - 1) << 6
    out = bytes([c])
    for cqe in vcqs:  # 1..300 entries: 1 + b0 % 200 + (b1 & 1) * 100
        out += bytes([cqe - 101, 1] if cqe > 200 else [cqe - 1, 0])
    for ud, udma, svcq, rvcq, sge, depth in qps:
        q = ud | udma << 1 | svcq << 2 | rvcq << 3 | (sge - 1) << 4
        out += bytes([q, depth - 1])
    return out


def op(kind, sel=0):
    return bytes([sel << 4 | kind])


def post_send(qp, kinds, signaled=0xff, length=0):
    out = op(POST_SEND, qp) + bytes([len(kinds) - 1, signaled])
    return out + bytes(k | length << 4 for k in kinds)


def post_recv(qp, n):
    return op(POST_RECV, qp) + bytes([n - 1])


def complete(qp, k, recv=False, status=0, recv_op=0):
    a = (k - 1) | recv << 3 | (status != 0) << 4 | recv_op << 5
    return op(DEV_COMPLETE, qp) + bytes([a]) + (bytes([status])
                                                 if status else b"")


def raw(cqe, vcq=0, pipe=0, stale=False, qid_mode=QID_QP0, qid=None,
        repeat=1):
    """A golden CQE as the hostile device's bytes: type and error bit
    from its own qid_type_flags word."""
    qtf = int.from_bytes(cqe[28:32], "big")
    b = (qtf >> 5 & 7) | (qtf >> 1 & 1) << 3
    a = vcq | pipe << 1 | stale << 2 | qid_mode << 3
    extra = b""
    if repeat > 1:
        b |= 7 << 5
        extra = bytes([repeat - 1])
    out = op(RAW) + bytes([a, b]) + extra
    if qid_mode >= QID_ANY:
        out += (qid or 0).to_bytes(4, "little")
    return out + cqe


def modify(qp, reset=False):
    return op(MODIFY, qp) + bytes([reset])


def poll(vcq=0, want=16):
    return op(POLL, vcq) + bytes([want])  # 0..16


def seeds(g):
    rc = (0, 0, 0, 0, 2, 16)
    ud = (1, 0, 0, 0, 2, 16)
    yield "rc-send-msn", (config(qps=[rc]) + post_send(0, [0, 0, 2], 0b101)
                          + complete(0, 3) + poll())
    yield "rc-all-ops", (config(qps=[rc]) +
                         post_send(0, [0, 1, 2, 3, 4, 5, 6, 7], 0xff, 1) +
                         post_send(0, [8]) + complete(0, 8) +
                         complete(0, 1) + poll(want=4) + poll())
    yield "rc-error-flush", (config(qps=[rc]) + post_send(0, [0] * 4) +
                             post_recv(0, 3) +
                             complete(0, 2, status=10) + poll() +
                             complete(0, 1, recv=True) + poll())
    # UD: receives in slots 0..3, sends in slots 0..5; then the golden
    # RECV (slot 2) and NPG (slot 5), flush indicators, errors
    yield "ud-golden", (config(fw2=False, qps=[ud]) + post_recv(0, 4) +
                        post_send(0, [0, 1, 0, 1, 0, 0]) +
                        raw(g["gc_recv"]) + raw(g["gc_npg"]) + poll() +
                        raw(g["gc_recv_err"]) + poll() +
                        raw(g["gc_sq_flush"]) + raw(g["gc_rq_flush"]) +
                        poll())
    yield "rc-golden-msn", (config(qps=[rc]) + post_send(0, [0] * 5) +
                            raw(g["gc_msn"]) + poll() +
                            raw(g["gc_msn_err"]) + poll())
    # two pipelines, two vCQs, extended polling with timestamps
    yield "two-pipes-ex", (config(udma2=True, ts=True, ex=True,
                                  vcqs=(64, 300),
                                  qps=[(0, 0, 0, 1, 1, 8),
                                       (0, 1, 1, 0, 1, 8),
                                       (1, 1, 0, 0, 4, 32)]) +
                           post_send(0, [0, 2, 4]) + post_recv(1, 2) +
                           post_send(2, [0, 1]) + complete(0, 3) +
                           complete(1, 2, recv=True, recv_op=2) +
                           complete(2, 2) + poll(0) + poll(1))
    # modify to ERR before the poll that reaps an error CQE
    yield "err-then-modify", (config(qps=[rc, rc]) + post_send(0, [0] * 2) +
                              post_send(1, [0] * 3) +
                              complete(0, 1, status=10) + modify(0) +
                              modify(1) + poll())
    # RESET with CQEs pending, then destroy and re-create
    yield "reset-destroy", (config(qps=[rc, ud]) + post_send(0, [0] * 3) +
                            complete(0, 3) + modify(0, reset=True) +
                            poll() + post_send(0, [2]) + complete(0, 1) +
                            op(DESTROY_CREATE, 1) + b"\x00" +
                            raw(g["gc_npg"], qid_mode=QID_QP0) +
                            op(DESTROY_CREATE, 1) + b"\x80" + poll() +
                            op(ARM) + poll())
    # stale colours, cleaned and unknown queue ids, an overrun
    yield "hostile-ring", (config(vcqs=(1,), qps=[ud]) + post_recv(0, 8) +
                           raw(g["gc_recv"], stale=True) +
                           raw(g["gc_recv"], qid_mode=QID_CLEANED) +
                           raw(g["gc_msn"], qid_mode=QID_ANY, qid=0x999) +
                           raw(g["gc_npg"], repeat=200) + poll() + poll())


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        HERE, "..", "corpus", "provider-cq")
    os.makedirs(out, exist_ok=True)
    for name, data in seeds(golden_cqes()):
        with open(os.path.join(out, "seed-" + name + ".bin"), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
