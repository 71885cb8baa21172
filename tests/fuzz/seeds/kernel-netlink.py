#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
"""Seed inputs of fuzz-kernel-netlink (tests/fuzz/sim_kernel_netlink.c).

An input is the target's encoding (the comment at its top): a u16
fixture selector (two bits per restrack kind PD, CQ, QP, MR, ctx: 0, 1,
3 or 100 records), then datagrams of a control byte (bit 0 CAP_ACK,
bit 1: the first nlmsg_len becomes the datagram's length), a u32 port id,
a u16 length and the bytes.  The requests are those libibverbs
(device dump, GET_CHARDEV) and iproute2's rdma (dev, link, resource,
sys) send, written from <rdma/rdma_netlink.h>'s numbers, and malformed
ones.

    tests/fuzz/seeds/kernel-netlink.py tests/fuzz/corpus/kernel-netlink

writes the seed-*.bin files (regression inputs, named otherwise, are
left alone).
"""
import os
import struct
import sys

NLDEV = 5
GET, SET, NEWLINK, PORT_GET, SYS_GET = 1, 2, 3, 5, 6
RES_GET, RES_QP, RES_CM_ID, RES_CQ, RES_MR, RES_PD = 9, 10, 11, 12, 13, 14
GET_CHARDEV, STAT_GET, RES_CTX, RES_SRQ = 15, 17, 22, 23
A_DEV_INDEX, A_DEV_NAME, A_PORT_INDEX, A_CHARDEV_TYPE = 1, 2, 3, 69
A_LQPN, A_PDN, A_CQN, A_MRN, A_CTXN = 21, 60, 61, 62, 64
F_REQUEST, F_ACK, F_DUMP = 1, 4, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3


def pad(b):
    return b + b"\0" * (-len(b) % 4)


def attr(t, payload):
    return pad(struct.pack("<HH", 4 + len(payload), t) + payload)


def u32(t, v):
    return attr(t, struct.pack("<I", v))


def string(t, s):
    return attr(t, s.encode() + b"\0")


def msg(op, flags, seq, *attrs, client=NLDEV, portid=0):
    body = b"".join(attrs)
    return pad(struct.pack("<IHHII", 16 + len(body), client << 10 | op,
                           flags, seq, portid) + body)


def fixture(pd=0, cq=0, qp=0, mr=0, ctx=0):
    return struct.pack("<H", pd | cq << 2 | qp << 4 | mr << 6 | ctx << 8)


def dgram(data, ctl=0, portid=4242):
    return struct.pack("<BIH", ctl, portid, len(data)) + data


DEV = u32(A_DEV_INDEX, 0)
SEEDS = {
    # ibv_get_device_list: the device dump, then GET_CHARDEV uverbs
    "ibverbs-discovery": fixture() +
    dgram(msg(GET, F_REQUEST | F_DUMP, 1)) +
    dgram(msg(GET_CHARDEV, F_REQUEST | F_ACK, 2, DEV,
              string(A_CHARDEV_TYPE, "uverbs"))),
    # librdmacm: the global rdma_cm character device
    "chardev-rdma-cm": fixture() +
    dgram(msg(GET_CHARDEV, F_REQUEST, 3, string(A_CHARDEV_TYPE, "rdma_cm"))) +
    dgram(msg(GET_CHARDEV, F_REQUEST, 4, DEV,
              string(A_CHARDEV_TYPE, "rdma_cm"))) +
    dgram(msg(GET_CHARDEV, F_REQUEST, 5, DEV,
              string(A_CHARDEV_TYPE, "umad"))),
    # rdma dev show ionic_0; rdma link; rdma link show ionic_0/1
    "dev-link": fixture() +
    dgram(msg(GET, F_REQUEST | F_ACK, 6, DEV)) +
    dgram(msg(PORT_GET, F_REQUEST | F_DUMP, 7, DEV)) +
    dgram(msg(PORT_GET, F_REQUEST | F_ACK, 8, DEV, u32(A_PORT_INDEX, 1))) +
    dgram(msg(PORT_GET, F_REQUEST, 9, DEV, u32(A_PORT_INDEX, 2))),
    # rdma system show
    "sys": fixture() + dgram(msg(SYS_GET, F_REQUEST | F_ACK, 10)),
    # rdma resource: the summary, then every table (one or three each)
    "resources": fixture(1, 2, 2, 1, 1) +
    dgram(msg(RES_GET, F_REQUEST | F_DUMP, 11)) +
    dgram(msg(RES_GET, F_REQUEST, 12, DEV)) +
    dgram(b"".join(msg(op, F_REQUEST | F_DUMP, 13 + op, DEV)
                   for op in (RES_QP, RES_CQ, RES_MR, RES_PD, RES_CTX,
                              RES_CM_ID, RES_SRQ))),
    # 100 MRs and QPs: dumps over several messages; doits by id
    "resources-split": fixture(0, 0, 3, 3, 0) +
    dgram(msg(RES_MR, F_REQUEST | F_DUMP, 30, DEV)) +
    dgram(msg(RES_QP, F_REQUEST | F_DUMP, 31, DEV)) +
    dgram(msg(RES_QP, F_REQUEST | F_ACK, 32, DEV, u32(A_LQPN, 150))) +
    dgram(msg(RES_MR, F_REQUEST, 33, DEV, u32(A_MRN, 0xffffffff))) +
    dgram(msg(RES_PD, F_REQUEST, 34, DEV, u32(A_PDN, 1))),
    # a batch of requests in one datagram, as rdma -batch sends
    "batch": fixture(1, 1, 1, 1, 1) +
    dgram(msg(GET, F_REQUEST | F_DUMP, 40) +
          msg(SYS_GET, F_REQUEST | F_ACK, 41) +
          msg(RES_CQ, F_REQUEST, 42, DEV, u32(A_CQN, 1)) +
          msg(RES_CTX, F_REQUEST | F_DUMP, 43, DEV), ctl=1),
    # admin and counter ops: refused
    "refused": fixture() +
    dgram(msg(SET, F_REQUEST | F_ACK, 50, DEV, string(A_DEV_NAME, "x"))) +
    dgram(msg(NEWLINK, F_REQUEST, 51)) +
    dgram(msg(STAT_GET, F_REQUEST | F_DUMP, 52, DEV)),
    # malformed: short, overlong and undersized lengths, an attribute
    # past the end, a string without its NUL, no such client or op, a
    # dump of an op without one, no request flag, a control message
    "malformed": fixture(1) +
    dgram(b"\x10\0\0\0\x01\x14") +
    dgram(msg(GET, F_REQUEST | F_DUMP, 60)[:16], ctl=2) +
    dgram(struct.pack("<IHHII", 200, NLDEV << 10 | GET, F_REQUEST, 61, 0)) +
    dgram(struct.pack("<IHHII", 8, NLDEV << 10 | GET, F_REQUEST, 62, 0) +
          b"\0" * 8) +
    dgram(msg(GET, F_REQUEST, 63, struct.pack("<HHI", 40, A_DEV_INDEX, 0))) +
    dgram(msg(GET_CHARDEV, F_REQUEST, 64, attr(A_CHARDEV_TYPE, b"uverbs"))) +
    dgram(msg(GET, F_REQUEST | F_ACK, 65, client=7)) +
    dgram(msg(31, F_REQUEST, 66)) +
    dgram(msg(SYS_GET, F_REQUEST | F_DUMP, 67)) +
    dgram(msg(GET, F_ACK, 68)) +
    dgram(struct.pack("<IHHII", 16, NLMSG_DONE, F_REQUEST | F_ACK, 69, 0)) +
    dgram(msg(GET, F_REQUEST, 70, u32(A_DEV_INDEX, 3)), ctl=1),
    # an error for a request too long to echo whole
    "long-request": fixture() +
    dgram(msg(GET, F_REQUEST, 80, DEV, attr(200, b"\xaa" * 4200))),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "corpus",
        "kernel-netlink")
    os.makedirs(out, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(out, "seed-%s.bin" % name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
