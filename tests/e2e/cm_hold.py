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
#        cm_hold.py serve ADDR PORT
#            accept one RC connection (the synchronous API) with receives
#            posted, then hold it
#        cm_hold.py send ADDR PORT
#            connect to "serve" and SEND every 100 ms until a send
#            completes in error: prints "wc status N" and exits 1
import os
import sys
import time

import pyverbs.cm_enums as ce
import pyverbs.enums as e
from pyverbs.cmid import AddrInfo, CMEvent, CMEventChannel, CMID, ConnParam
from pyverbs.qp import QPCap, QPInitAttr


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


def rc_attr(recvs):
    return QPInitAttr(qp_type=e.IBV_QPT_RC,
                      cap=QPCap(max_send_wr=4, max_recv_wr=recvs))


def serve(addr, port):
    lid = CMID(creator=AddrInfo(src=addr, src_service=port,
                                port_space=ce.RDMA_PS_TCP,
                                flags=ce.RAI_PASSIVE),
               qp_init_attr=rc_attr(64))
    lid.listen()
    cid = lid.get_request()
    mr = cid.reg_msgs(64)
    for _ in range(64):
        cid.post_recv(mr)
    cid.accept(ConnParam())
    held()


def send(addr, port):
    cid = CMID(creator=AddrInfo(dst=addr, dst_service=port,
                                port_space=ce.RDMA_PS_TCP),
               qp_init_attr=rc_attr(1))
    cid.connect(ConnParam())
    mr = cid.reg_msgs(64)
    for n in range(600):
        cid.post_send(mr)
        wc = cid.get_send_comp()
        if wc.status != e.IBV_WC_SUCCESS:
            print(f"wc status {wc.status} after {n} good sends", flush=True)
            sys.exit(1)
        time.sleep(0.1)
    print("every send completed", flush=True)
    sys.exit(0)


def main():
    mode, addr, port = sys.argv[1:4]
    if mode == "serve":
        serve(addr, port)
    if mode == "send":
        send(addr, port)
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
