#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# ionic-sim --pcap: the capture of a known scenario (tests/e2e/
# pcap_scenario.c: SEND, RDMA WRITE WITH IMM, RDMA READ, FETCH_AND_ADD, a
# SEND met by RNR NAKs and retransmitted) is decoded by Debian's tshark as
# RoCEv2 with no warning or error, in the expected order of opcodes, PSNs
# and ACK syndromes, and every frame's ICRC is right (tests/e2e/
# roce_icrc.py: Python's zlib CRC-32, independent of the emulator's).
#
# usage: pcap_tshark.sh <ionic-sim> <pcap-scenario>
set -u
# tshark and Python are not ours: no sanitizer runtime preloaded into them
notours() { env -u LD_PRELOAD "$@"; }
sim=$1 scenario=$2
command -v tshark >/dev/null || { echo "SKIP: no tshark (./build.sh deps installs it)"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/pcap-tshark.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
cap=$work/scenario.pcap

if ! "$sim" --fabric "${IONIC_TEST_FABRIC:-pcap-test}" --pcap "$cap" -- "$scenario" >"$work/run.log" 2>&1; then
	cat "$work/run.log"
	echo "FAIL: the scenario failed"
	exit 1
fi
# tshark warns when run as root; its own diagnostics go to stderr
notours tshark -r "$cap" >"$work/summary.txt" 2>/dev/null || { echo "FAIL: tshark cannot read the capture"; exit 1; }
cat "$work/summary.txt"
notours tshark -r "$cap" -q -z expert 2>/dev/null >"$work/expert.txt"
fail=0
if grep -E -q '^(Errors|Warns) \(' "$work/expert.txt"; then
	cat "$work/expert.txt"
	echo "FAIL: tshark reports warnings or errors"
	fail=1
fi
if [ -n "$(notours tshark -r "$cap" -Y '!infiniband || !udp.dstport == 4791' 2>/dev/null)" ]; then
	echo "FAIL: frames tshark does not decode as InfiniBand over UDP port 4791"
	fail=1
fi
notours tshark -r "$cap" -T fields -E separator=, -e infiniband.bth.opcode \
	-e infiniband.bth.psn -e infiniband.aeth.syndrome 2>/dev/null >"$work/fields.csv"

notours python3 "$(dirname "$(readlink -f "$0")")/roce_icrc.py" "$cap" || fail=1
notours python3 - "$work/fields.csv" <<'PY' || fail=1
import sys

fields = sys.argv[1]
bad = []

rows = [l.strip().split(',') for l in open(fields) if l.strip()]
ops = [(int(r[0]), int(r[1]), int(r[2]) if len(r) > 2 and r[2] else None)
       for r in rows]
REQ = {4: 'SEND_ONLY', 11: 'WRITE_ONLY_IMM', 12: 'READ_REQ', 20: 'FETCH_ADD'}
reqs = [(o, p) for o, p, s in ops if o in REQ]
# requests in order, consecutive PSNs; the last SEND sent again (at least
# once more) at the same PSN after the RNR NAKs
if len(reqs) < 6 or [o for o, _ in reqs[:5]] != [4, 11, 12, 20, 4]:
    bad.append('request opcodes %s' % [o for o, _ in reqs])
else:
    p0 = reqs[0][1]
    if [p for _, p in reqs[:5]] != [(p0 + i) & 0xffffff for i in range(5)]:
        bad.append('request PSNs %s' % [p for _, p in reqs])
    if any(o != 4 or p != reqs[4][1] for o, p in reqs[5:]):
        bad.append('retransmissions %s' % reqs[5:])
    # responses: ACK, ACK, READ_RESP_ONLY, ATOMIC_ACK at the requests'
    # PSNs; then RNR NAKs (syndrome 001 + timer 14) for the last SEND and
    # finally its ACK
    resp = [(o, p, s) for o, p, s in ops if o in (16, 17, 18)]
    want = [(17, p0, 0x1f), (17, p0 + 1, 0x1f), (16, p0 + 2, 0x1f),
            (18, p0 + 3, 0x1f)]
    if resp[:4] != want:
        bad.append('responses %s, want %s' % (resp[:4], want))
    naks = resp[4:-1]
    if not naks or any(r != (17, p0 + 4, 0x20 | 14) for r in naks):
        bad.append('RNR NAKs %s' % naks)
    if resp[-1:] != [(17, p0 + 4, 0x1f)]:
        bad.append('last response %s' % resp[-1:])
    if len(naks) != len(reqs) - 5:
        bad.append('%d RNR NAKs for %d retransmissions' % (len(naks), len(reqs) - 5))
    print('requests %s, %d RNR NAK(s)' % ([REQ[o] for o, _ in reqs[:5]], len(naks)))
for b in bad:
    print('FAIL:', b)
sys.exit(1 if bad else 0)
PY
[ $fail -eq 0 ] && echo PASS
exit $fail
