# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# Included by tests/CMakeLists.txt (include(), so paths stay relative to
# tests/ and the registration order is unchanged).
# ---------------------------------------------------------------------------
# End to end (lead): unmodified ibverbs-utils pingpongs and perftest between
# two processes, each with its own emulated NIC, and rdma-core's pyverbs suite.  The scripts
# start their own launchers (one per process), so they are not SIM tests.
# ---------------------------------------------------------------------------
if(IONIC_HAVE_SIM)
  foreach(_pp
      "rc-poll;rc;-g;1;-n;1000;-c"
      "rc-events;rc;-g;1;-n;1000;-c;-e"
      "ud-poll;ud;-g;1;-n;1000;-s;1024;-c"
      "ud-events;ud;-g;1;-n;1000;-s;1024;-c;-e")
    list(GET _pp 0 _name)
    list(SUBLIST _pp 1 -1 _args)
    ionic_add_test(e2e-pingpong-${_name}
      COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e/pingpong.sh ${IONIC_SIM_LAUNCHER}
      ARGS ${_args}
      TIMEOUT 150)
  endforeach()
  # the same over the UDP fabric (--transport udp): two launchers on this
  # host, 127.18.0.1 and 127.18.0.2, RoCEv2 in UDP datagrams
  foreach(_pp
      "rc-poll-udp;rc;-g;1;-n;1000;-c"
      "rc-events-udp;rc;-g;1;-n;1000;-c;-e"
      "ud-poll-udp;ud;-g;1;-n;1000;-s;1024;-c"
      "ud-events-udp;ud;-g;1;-n;1000;-s;1024;-c;-e")
    list(GET _pp 0 _name)
    list(SUBLIST _pp 1 -1 _args)
    ionic_add_test(e2e-pingpong-${_name}
      COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e/pingpong.sh ${IONIC_SIM_LAUNCHER}
      ARGS ${_args} ENV "IONIC_E2E_SIM_ARGS=--transport udp"
      TIMEOUT 150)
  endforeach()
  # several NICs per emulated host (--nics): what the tools list, traffic
  # between the NICs of one launcher (unix and UDP fabrics) and between
  # launchers, rdma_cm to a second NIC, pyverbs, 8 NICs up and down, bad
  # counts refused, the hardware counters of the ports
  foreach(_case list rc ud udp cross cm pyverbs eight refuse counters)
    ionic_add_test(e2e-nics-${_case}
      COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e/nics.sh ${IONIC_SIM_LAUNCHER}
      ARGS ${_case} TIMEOUT 150)
  endforeach()
  # two NICs in two network namespaces joined by a veth pair (made and
  # removed by the script): RoCEv2 on a real link, captured and checked;
  # rdma_cm clients (rping, ucmatose, udaddy, perftest -R; a REQ nobody
  # answers) connect by the server's isim0 address, the CM's MADs crossing
  # the veth (skip, 77, without rdmacm-utils or perftest)
  foreach(_ns "rc;rc;-n;500;-c" "ud;ud;-n;500;-s;1024;-c" "write-bw;write-bw"
      "rdmacm-rping;rping" "rdmacm-ucmatose;ucmatose" "rdmacm-udaddy;udaddy"
      "rdmacm-send-bw;send-bw-cm" "rdmacm-no-listener;no-listener")
    list(GET _ns 0 _name)
    list(SUBLIST _ns 1 -1 _args)
    ionic_add_test(e2e-udp-netns-${_name}
      COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e/udp_netns.sh ${IONIC_SIM_LAUNCHER}
      ARGS ${_args} TIMEOUT 150)
  endforeach()
  # perftest (unmodified) between two emulated NICs: short runs.  perftest
  # 4.5-0.17 does not know ionic, so it falls back to ibv_post_send.
  find_program(IONIC_IB_WRITE_BW ib_write_bw)
  if(IONIC_IB_WRITE_BW)
    foreach(_pt
        "write-bw;ib_write_bw"
        "read-bw;ib_read_bw"
        "atomic-bw;ib_atomic_bw"
        "atomic-fa-bw;ib_atomic_bw;-A;FETCH_AND_ADD"
        "send-bw;ib_send_bw"
        "write-lat;ib_write_lat"
        "rdmacm-send-bw;ib_send_bw;-R"
        "rdmacm-write-bw;ib_write_bw;-R"
        "rdmacm-read-lat;ib_read_lat;-R")
      list(GET _pt 0 _name)
      list(SUBLIST _pt 1 -1 _args)
      ionic_add_test(e2e-perftest-${_name}
        COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e/perftest.sh ${IONIC_SIM_LAUNCHER}
        ARGS ${_args}
        TIMEOUT 60)
      # rdma_cm over the UDP fabric needs isim0's address, the NIC's UDP
      # address, outside lo's 127/8, where the defaults of these two
      # launchers on one host are: e2e-udp-netns-rdmacm-* run it in two
      # namespaces (docs/kernel-contract.md §22.5)
      if(NOT _name MATCHES "^rdmacm-")
        ionic_add_test(e2e-perftest-${_name}-udp
          COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e/perftest.sh ${IONIC_SIM_LAUNCHER}
          ARGS ${_args} ENV "IONIC_E2E_SIM_ARGS=--transport udp"
          TIMEOUT 60)
      endif()
    endforeach()
  endif()
  # rdma_cm (rdmacm-utils, unmodified) between two emulated NICs: RC with
  # rping and ucmatose, UD with udaddy, the sync API, no listener.
  find_program(IONIC_RPING rping)
  if(IONIC_RPING)
    foreach(_cm rping ucmatose udaddy rdma-sync no-listener)
      ionic_add_test(e2e-rdmacm-${_cm}
        COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e/rdmacm.sh ${IONIC_SIM_LAUNCHER}
        ARGS ${_cm}
        TIMEOUT 90)
    endforeach()
    # libfabric's fi_pingpong over the verbs provider (msg: RC; rdm:
    # verbs;ofi_rxm), in a network namespace the script makes and removes.
    # On a loaded machine about one rdm run in five loses its last
    # completions in libfabric 1.17's teardown race after all its transfers
    # (tests/e2e/fabric_pingpong.sh says how): the script runs again, up to
    # three times, on that signature only.
    find_program(IONIC_FI_PINGPONG fi_pingpong)
    if(IONIC_FI_PINGPONG)
      foreach(_mode msg rdm)
        ionic_add_test(e2e-fabric-pingpong-${_mode}
          COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e/fabric_pingpong.sh ${IONIC_SIM_LAUNCHER}
          ARGS ${_mode}
          TIMEOUT 400)
      endforeach()
    endif()
    # a peer SIGKILLed mid-handshake: the survivor's UNREACHABLE -110;
    # once connected (rc-send): the survivor's RETRY_EXC_ERR
    foreach(_step req rep sidr rc-send)
      ionic_add_test(e2e-rdmacm-peer-death-${_step}
        COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e/cm_peer_death.sh ${IONIC_SIM_LAUNCHER}
        ARGS ${_step}
        TIMEOUT 90)
    endforeach()
  endif()
  ionic_add_test(e2e-pyverbs
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e/pyverbs.sh ${IONIC_SIM_LAUNCHER}
    TIMEOUT 900
    LABELS pyverbs)
  # the pingpongs, perftest and pyverbs's selection on ionic-sim's packet
  # path too (IONIC_SIM_DIRECT=0, label packet-path, the normal build
  # only: docs/testing.md §3.2)
  ionic_add_packet_variants(e2e-pingpong-rc-poll e2e-pingpong-rc-events
    e2e-pingpong-ud-poll e2e-pingpong-ud-events e2e-pyverbs)
  if(IONIC_IB_WRITE_BW)
    ionic_add_packet_variants(e2e-perftest-write-bw e2e-perftest-read-bw
      e2e-perftest-atomic-bw e2e-perftest-atomic-fa-bw e2e-perftest-send-bw
      e2e-perftest-write-lat e2e-perftest-rdmacm-send-bw
      e2e-perftest-rdmacm-write-bw e2e-perftest-rdmacm-read-lat)
  endif()
  # the whole installed suite (v44: 273 tests, v56.1: 321), each test
  # passing or skipping: what does not apply to ionic must skip cleanly
  ionic_add_test(e2e-pyverbs-all
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e/pyverbs.sh ${IONIC_SIM_LAUNCHER}
            --all
    TIMEOUT 900
    LABELS pyverbs)
  # UCX and Open MPI unmodified (skip, 77, without ucx-utils/openmpi-bin)
  ionic_add_test(e2e-ucx
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e/ucx.sh ${IONIC_SIM_LAUNCHER}
    TIMEOUT 240)
  ionic_add_test(e2e-mpi
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e/mpi.sh ${IONIC_SIM_LAUNCHER}
    TIMEOUT 240)
  # an emulated cluster (`ionic-sim cluster`): hosts of 2 NICs each in
  # namespaces of their own joined by a bridge, the NICs on the UDP wire;
  # bring-up and teardown leaving nothing behind, then unmodified jobs
  # across hosts: rping -V and ib_send_bw -R, Open MPI over UCX on 4 hosts
  # (a collective job each rank verifies, NetPIPE's integrity check),
  # ucx_perftest over both NICs, fi_pingpong (skip, 77, without a tool or
  # root)
  foreach(_cl lifecycle rdmacm mpi ucx fabric)
    ionic_add_test(e2e-cluster-${_cl}
      COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e/cluster.sh ${IONIC_SIM_LAUNCHER}
      ARGS ${_cl} ENV CLUSTER_NICS=2 TIMEOUT 180)
  endforeach()
  # iproute2's rdma and ip under ionic-sim: the device, port, network
  # interface and the objects the test holds; the port down; no netlink.
  ionic_add_test(e2e-rdma-tool SOURCES e2e/rdma_tool.c
    LIBS ionic_test_fixture SIM TIMEOUT 120)
  ionic_add_test(e2e-rdma-tool-portdown COMMAND $<TARGET_FILE:e2e-rdma-tool>
    SIM SIM_ARGS --port-down ARGS --port-down TIMEOUT 120)
  ionic_add_test(e2e-rdma-tool-sysfs COMMAND $<TARGET_FILE:e2e-rdma-tool>
    SIM SIM_ARGS --no-netlink ARGS --no-netlink TIMEOUT 120)
  ionic_add_test(e2e-pyverbs-udp
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e/pyverbs.sh ${IONIC_SIM_LAUNCHER}
    ENV "IONIC_E2E_SIM_ARGS=--transport udp"
    TIMEOUT 900
    LABELS pyverbs)
  # test_rdmacm's 7 connection tests over the UDP fabric: the NIC takes
  # 198.18.0.1 on the loopback of a namespace of the test's own (isim0's
  # address outside lo's 127/8, which rdma_cm needs)
  ionic_add_test(e2e-pyverbs-rdmacm-udp
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e/lo_netns.sh 198.18.0.1
            ${CMAKE_CURRENT_SOURCE_DIR}/e2e/pyverbs.sh ${IONIC_SIM_LAUNCHER}
    ARGS test_rdmacm.CMTestCase.test_rdmacm_async_read
         test_rdmacm.CMTestCase.test_rdmacm_async_reject_traffic
         test_rdmacm.CMTestCase.test_rdmacm_async_traffic
         test_rdmacm.CMTestCase.test_rdmacm_async_traffic_external_qp
         test_rdmacm.CMTestCase.test_rdmacm_async_udp_traffic
         test_rdmacm.CMTestCase.test_rdmacm_async_write
         test_rdmacm.CMTestCase.test_rdmacm_sync_traffic
    ENV "IONIC_E2E_SIM_ARGS=--transport udp --addr 198.18.0.1"
    TIMEOUT 300
    LABELS pyverbs)
  # The decoded ionic-sim trace of a fixed scenario (SEND, inline SEND,
  # WRITE_IMM, WRITE, READ, FETCH_ADD, CMP_SWAP), normalised, equals the
  # checked-in golden file; a diff is printed otherwise.  Regenerate with
  # TRACE_GOLDEN_UPDATE=1 tests/e2e/trace_golden.sh <sim> <scenario> <golden>.
  add_executable(e2e-trace-scenario e2e/trace_scenario.c)
  target_link_libraries(e2e-trace-scenario PRIVATE ionic_test_fixture)
  # ionic-sim --pcap: tshark decodes the capture of a known scenario as
  # RoCEv2 (opcodes, PSNs, ACK syndromes, ICRCs)
  add_executable(e2e-pcap-scenario e2e/pcap_scenario.c)
  target_link_libraries(e2e-pcap-scenario PRIVATE ionic_test_fixture)
  ionic_add_test(e2e-pcap-tshark
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e/pcap_tshark.sh
            ${IONIC_SIM_LAUNCHER} $<TARGET_FILE:e2e-pcap-scenario>
    TIMEOUT 120)
  # the direct path answers as the packet path does: the same RC
  # scenarios between two processes (or threads of one: same, nics),
  # both ways, completions compared;
  # each switch that forces packets named in the trace; and the peers
  # the kernel keeps us out of (not dumpable, process_vm_* refused as
  # Yama's ptrace_scope does, the machine's own Yama policy if any):
  # packets, and the reason in the trace; valgrind likewise (not in a
  # sanitizer build, as the memcheck tests); rings the kernel leaves in
  # the application's memory (userring)
  set(_modes on env udp pcap fault same nics userring table nondump
    pvm-eperm yama)
  if(NOT IONIC_SANITIZE)
    list(APPEND _modes valgrind)
  endif()
  foreach(_m IN LISTS _modes)
    ionic_add_test(e2e-direct-compare-${_m}
      COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e/direct_compare.sh
              ${IONIC_SIM_LAUNCHER} $<TARGET_FILE:verbs-direct-compare> ${_m}
      TIMEOUT 240)
  endforeach()
  ionic_add_test(e2e-trace-golden
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e/trace_golden.sh
            ${IONIC_SIM_LAUNCHER} $<TARGET_FILE:e2e-trace-scenario>
            ${CMAKE_CURRENT_SOURCE_DIR}/golden/trace-rc-ops.txt
    TIMEOUT 120)
endif()
