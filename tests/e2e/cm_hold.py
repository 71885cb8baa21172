#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# One side of an rdma_cm handshake that stops half-way and waits to be
# killed (cm_peer_death.sh): it prints "held <pid>" once it holds what it
# should hold, then sleeps.
# Usage: cm_hold.py listen ADDR PORT tcp|udp
#            listen, read the CONNECT_REQUEST, never accept it
#        cm_hold.py connect ADDR PORT
#            connect an id without a QP and read the CONNECT_RESPONSE:
#            librdmacm then leaves the RTU to the application, which
#            never sends it
import os
import sys
import time

import pyverbs.cm_enums as ce
from pyverbs.cmid import AddrInfo, CMEvent, CMEventChannel, CMID, ConnParam


def expect(channel, want):
    ev = CMEvent(channel)
    if ev.event_type != want:
        print(f"unexpected event {ev.event_str()}", flush=True)
        sys.exit(1)
    return ev


def held():
    print(f"held {os.getpid()}", flush=True)
    time.sleep(60)
    print("not killed", flush=True)
    sys.exit(1)


def main():
    mode, addr, port = sys.argv[1:4]
    ch = CMEventChannel()
    if mode == "listen":
        ps = ce.RDMA_PS_UDP if sys.argv[4] == "udp" else ce.RDMA_PS_TCP
        cmid = CMID(creator=ch, port_space=ps)
        cmid.bind_addr(AddrInfo(src=addr, src_service=port, port_space=ps,
                                flags=ce.RAI_PASSIVE))
        cmid.listen()
        expect(ch, ce.RDMA_CM_EVENT_CONNECT_REQUEST)
        held()
    cmid = CMID(creator=ch, port_space=ce.RDMA_PS_TCP)
    cmid.resolve_addr(AddrInfo(dst=addr, dst_service=port,
                               port_space=ce.RDMA_PS_TCP))
    expect(ch, ce.RDMA_CM_EVENT_ADDR_RESOLVED).ack_cm_event()
    cmid.resolve_route()
    expect(ch, ce.RDMA_CM_EVENT_ROUTE_RESOLVED).ack_cm_event()
    cmid.connect(ConnParam())
    expect(ch, ce.RDMA_CM_EVENT_CONNECT_RESPONSE)
    held()


main()
