#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
"""Check the ICRC of every RoCEv2 frame of a pcap file.

usage: roce_icrc.py FILE.pcap

The ICRC is computed here with Python's zlib CRC-32, independently of the
emulator: over 8 bytes of ones, the IP, UDP and BTH headers with their
variant fields masked (IPv4 TOS, TTL and checksum; IPv6 traffic class,
flow label and hop limit; UDP checksum; the BTH byte of FECN/BECN), and
the rest of the packet; it is the last 4 bytes, little-endian.  Frames
that are not UDP to port 4791 are skipped.  Prints the count checked;
exits 1 if any ICRC is wrong or no frame was checked.
"""
import struct
import sys
import zlib


def frames(path):
    data = open(path, 'rb').read()
    magic, = struct.unpack_from('<I', data, 0)
    if magic not in (0xa1b2c3d4, 0xa1b23c4d):
        sys.exit('%s: not a little-endian pcap file' % path)
    off = 24
    while off + 16 <= len(data):
        _, _, caplen, _ = struct.unpack_from('<IIII', data, off)
        yield bytearray(data[off + 16:off + 16 + caplen])
        off += 16 + caplen


def main():
    bad = checked = 0
    for n, f in enumerate(frames(sys.argv[1]), 1):
        l3 = 18 if f[12:14] == b'\x81\x00' else 14
        etype = f[l3 - 2:l3]
        if etype == b'\x08\x00':
            iph = (f[l3] & 0x0f) * 4
            proto = f[l3 + 9]
            end = l3 + struct.unpack_from('>H', f, l3 + 2)[0]
        elif etype == b'\x86\xdd':
            iph = 40
            proto = f[l3 + 6]
            end = l3 + 40 + struct.unpack_from('>H', f, l3 + 4)[0]
        else:
            continue
        udp = l3 + iph
        if proto != 17 or struct.unpack_from('>H', f, udp + 2)[0] != 4791:
            continue
        m = bytearray(f[l3:udp + 8 + 12])
        if iph == 20:
            m[1] = m[8] = m[10] = m[11] = 0xff
        else:
            m[0] |= 0x0f
            m[1] = m[2] = m[3] = m[7] = 0xff
        m[iph + 6] = m[iph + 7] = 0xff
        m[iph + 8 + 4] = 0xff
        want = zlib.crc32(b'\xff' * 8 + bytes(m) + bytes(f[udp + 20:end - 4]))
        got, = struct.unpack_from('<I', f, end - 4)
        checked += 1
        if want != got:
            bad += 1
            print('frame %d: ICRC 0x%08x, want 0x%08x' % (n, got, want))
    print('%d RoCEv2 frames, %d bad ICRCs' % (checked, bad))
    sys.exit(1 if bad or not checked else 0)


main()
