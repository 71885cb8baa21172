# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# Included by tests/CMakeLists.txt (include(), so paths stay relative to
# tests/ and the registration order is unchanged).
# ===========================================================================
# Verbs through ionic-sim (H7): the real provider through libibverbs,
# success and errno paths of every verb, both UDMA pipeline counts, both
# firmware versions, multi-threaded post/poll.  Sources in tests/verbs/.
# ===========================================================================
if(TARGET ionic)
  set(_h7 ${CMAKE_CURRENT_SOURCE_DIR}/verbs)

  # (1) context: open/close, query_device_ex/port/gid, with and without PHC
  ionic_add_test(verbs-context SOURCES ${_h7}/context.c
    LIBS ionic_test_fixture SIM ARGS --phc 1)
  ionic_add_test(verbs-context-nophc COMMAND $<TARGET_FILE:verbs-context>
    SIM SIM_ARGS --no-phc ARGS --phc 0)
  # fw_ver really comes from sysfs, whatever the firmware says
  ionic_add_test(verbs-context-fwver COMMAND $<TARGET_FILE:verbs-context>
    SIM SIM_ARGS --profile fw_ver=9.8.7-h7 ARGS --phc 1)
  ionic_add_test(verbs-context-portdown COMMAND $<TARGET_FILE:verbs-context>
    SIM SIM_ARGS --port-down ARGS --port-down)
  # the sysfs-only discovery path (no RDMA netlink), as on older kernels
  ionic_add_test(verbs-context-sysfs COMMAND $<TARGET_FILE:verbs-context>
    SIM SIM_ARGS --no-netlink ARGS --phc 1)
  # ibv_import_device/_pd/_mr on a dup of the command fd
  ionic_add_test(verbs-import SOURCES ${_h7}/import.c
    LIBS ionic_test_fixture SIM)
  # the same by a second process the command fd was passed to
  ionic_add_test(verbs-import-xproc SOURCES ${_h7}/import_xproc.c
    LIBS ionic_test_fixture SIM)
  # its SQs in controller memory (shared with the importer as the CMB
  # memfd); with express doorbells offered, the importer's SQ gets none
  # (its window stores are not forwarded, docs/kernel-contract.md §21.1)
  ionic_add_test(verbs-import-xproc-cmb COMMAND $<TARGET_FILE:verbs-import-xproc>
    SIM SIM_ARGS --cmb-pages 64)
  ionic_add_test(verbs-import-xproc-expdb
    COMMAND $<TARGET_FILE:verbs-import-xproc>
    SIM SIM_ARGS --cmb-pages 64 --expdb-qtypes 1)
  # context creation under firmware values the provider must refuse
  # (EINVAL, docs/device-contract.md §16.1) or tolerate (max_spec > 16: spec
  # off)
  foreach(_bad
      "version0;version=0;--open-fails;22"
      "version3;version=3;--open-fails;22"
      "v1-qp-opcodes10;version=1,qp_opcodes=10;--open-fails;22"
      "udma-count0;udma_count=0;--open-fails;22"
      "udma-count3;udma_count=3;--open-fails;22"
      "max-spec17;max_spec=17;--open-ok"
      "v1-qp-opcodes11;version=1,qp_opcodes=11;--open-ok")
    list(GET _bad 0 _n)
    list(GET _bad 1 _prof)
    list(SUBLIST _bad 2 -1 _args)
    ionic_add_test(verbs-context-fw-${_n} COMMAND $<TARGET_FILE:verbs-context>
      SIM SIM_ARGS --profile ${_prof} ARGS ${_args})
  endforeach()

  # (6) data path, under both pipeline counts and both firmware versions
  ionic_add_test(verbs-datapath
    SOURCES ${_h7}/datapath_main.c ${_h7}/datapath_send.c
            ${_h7}/datapath_post_errors.c ${_h7}/datapath_flush.c
            ${_h7}/datapath_transport.c
    LIBS ionic_test_fixture ionic_test_expdb_all SIM TIMEOUT 120)
  foreach(_v "udma1;--udma-count;1" "fw1;--fw-version;1"
             "udma1-fw1;--udma-count;1;--fw-version;1")
    list(GET _v 0 _n)
    list(SUBLIST _v 1 -1 _sa)
    ionic_add_test(verbs-datapath-${_n}
      COMMAND $<TARGET_FILE:verbs-datapath>
      SIM SIM_ARGS ${_sa} TIMEOUT 120)
  endforeach()

  # fork() with live QPs: the child holds no fabric name of the parent's
  ionic_add_test(verbs-fork SOURCES ${_h7}/fork.c
    LIBS ionic_test_fixture SIM)

  # registered memory moved to shared memory for the direct path: no store
  # lost, fork copies, shared by regions, left alone when not plain memory
  ionic_add_test(verbs-mr-share SOURCES ${_h7}/mr_share.c
    LIBS ionic_test_fixture SIM)

  # asynchronous events on the context's async fd
  ionic_add_test(verbs-async SOURCES ${_h7}/async.c
    LIBS ionic_test_fixture SIM)

  # two processes, the scenarios e2e-direct-compare-* run both ways
  add_executable(verbs-direct-compare ${_h7}/direct_compare.c
                 ${_h7}/direct_refuse.c)
  target_link_libraries(verbs-direct-compare PRIVATE ionic_test_fixture)

  # the direct path's peer misbehaving: killed mid-transfer, scribbling
  # over the segment it shares (sim/README.md "Direct path")
  ionic_add_test(verbs-direct-peer-kill SOURCES ${_h7}/direct_abuse.c
    LIBS ionic_test_fixture SIM SIM_ARGS --direct on ARGS --kill
    TIMEOUT 120)
  ionic_add_test(verbs-direct-peer-scribble
    COMMAND $<TARGET_FILE:verbs-direct-peer-kill>
    SIM SIM_ARGS --direct on ARGS --scribble TIMEOUT 120)

  # a peer process killed mid-connection: retry exceeded, no hang
  ionic_add_test(verbs-peer-exit SOURCES ${_h7}/peer_exit.c
    LIBS ionic_test_fixture SIM)

  # faults on demand (sim/fabric/fault.c): the link pulled for good,
  # pulled and given back, a NIC that stops answering
  ionic_add_test(verbs-link-down SOURCES ${_h7}/link_down.c
    LIBS ionic_test_fixture SIM SIM_ARGS --link-down-after 9 ARGS --down)
  ionic_add_test(verbs-link-down-up COMMAND $<TARGET_FILE:verbs-link-down>
    SIM SIM_ARGS --link-down-after 9 --link-down-ms 300
    ARGS --down-up 300)
  ionic_add_test(verbs-link-mute COMMAND $<TARGET_FILE:verbs-link-down>
    SIM SIM_ARGS --mute-after 8 ARGS --mute)
  # every frame 20 ms late, the fault given by a --profile entry
  ionic_add_test(verbs-link-delay COMMAND $<TARGET_FILE:verbs-link-down>
    SIM SIM_ARGS --profile delay_us=20000 ARGS --delay 20000)
  # the same faults on the UDP fabric (RoCEv2 datagrams to 127.18.0.x)
  ionic_add_test(verbs-link-down-udp COMMAND $<TARGET_FILE:verbs-link-down>
    SIM SIM_ARGS --transport udp --link-down-after 9 ARGS --down)
  ionic_add_test(verbs-link-down-up-udp COMMAND $<TARGET_FILE:verbs-link-down>
    SIM SIM_ARGS --transport udp --link-down-after 9 --link-down-ms 300
    ARGS --down-up 300)
  ionic_add_test(verbs-link-mute-udp COMMAND $<TARGET_FILE:verbs-link-down>
    SIM SIM_ARGS --transport udp --mute-after 8 ARGS --mute)
  ionic_add_test(verbs-link-delay-udp COMMAND $<TARGET_FILE:verbs-link-down>
    SIM SIM_ARGS --transport udp --delay-us 20000 ARGS --delay 20000)
  # 100k messages through 2% loss, 1% duplication, 1% reordering and
  # 0.5% corruption: every byte and every completion exactly once
  ionic_add_test(verbs-stress-faults COMMAND $<TARGET_FILE:verbs-stress>
    SIM SIM_ARGS --loss-ppm 20000 --dup-ppm 10000 --reorder-ppm 10000
                 --corrupt-ppm 5000
    ARGS 4 2 25000 TIMEOUT 400)
  # a lossless wire with no fault configured (issue 22 item 3): a 64 MiB
  # RDMA WRITE, READ and SEND over one RC pair at MTU 1024, data intact,
  # no retransmission and no drop in the device's counters (the run's
  # trace, kept to the counter lines); the rates are printed, not
  # asserted (the load of a shared machine moves them more than a READ
  # recovering by timeouts would: lossless.c); the same over the UDP
  # fabric (datagrams to this NIC's own 127.18.0.x)
  add_executable(verbs-lossless-prog ${_h7}/lossless.c)
  target_link_libraries(verbs-lossless-prog PRIVATE ionic_test_fixture
                        PkgConfig::IBVERBS Threads::Threads)
  target_include_directories(verbs-lossless-prog PRIVATE
                             ${PROJECT_SOURCE_DIR}/include
                             ${CMAKE_CURRENT_SOURCE_DIR})
  ionic_add_test(verbs-lossless
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/run-traced.sh @SIM@
            -- $<TARGET_FILE:verbs-lossless-prog>
    ENV IONIC_SIM_TRACE_ONLY=QP TIMEOUT 120)
  ionic_add_test(verbs-lossless-udp
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/run-traced.sh @SIM@ --transport udp
            -- $<TARGET_FILE:verbs-lossless-prog>
    ENV IONIC_SIM_TRACE_ONLY=QP TIMEOUT 120)
  if(IONIC_SAN_PRELOAD)
    set_property(TEST verbs-lossless verbs-lossless-udp APPEND PROPERTY
                 ENVIRONMENT "LD_PRELOAD=${IONIC_SAN_PRELOAD}")
  endif()
  # the device fails under a running program (trigger file, on its own
  # after a time, or a reset after which new contexts work)
  ionic_add_test(verbs-fatal SOURCES ${_h7}/fatal.c
    LIBS ionic_test_fixture SIM SIM_ARGS --fatal-trigger)
  ionic_add_test(verbs-fatal-reset COMMAND $<TARGET_FILE:verbs-fatal>
    SIM SIM_ARGS --fatal-trigger --fatal-reset ARGS --reset)
  ionic_add_test(verbs-fatal-after COMMAND $<TARGET_FILE:verbs-fatal>
    SIM SIM_ARGS --fatal-after 300 ARGS --after)

  # (7) multi-threaded post/poll with exact completion accounting
  ionic_add_test(verbs-stress SOURCES ${_h7}/stress.c
    LIBS ionic_test_fixture ionic_test_expdb_all SIM ARGS 4 2 20000 TIMEOUT 150)
  ionic_add_test(verbs-stress-udma1 COMMAND $<TARGET_FILE:verbs-stress>
    SIM SIM_ARGS --udma-count 1 ARGS 8 4 5000 TIMEOUT 150)
  # only every 5th send signalled: coalesced completions under load
  ionic_add_test(verbs-stress-unsignaled COMMAND $<TARGET_FILE:verbs-stress>
    SIM ARGS 4 2 20000 5 TIMEOUT 150)
  ionic_add_test(verbs-stress-fw1-unsignaled COMMAND $<TARGET_FILE:verbs-stress>
    SIM SIM_ARGS --fw-version 1 ARGS 6 1 6000 3 TIMEOUT 150)

  # soak: mixed traffic (every opcode, several QPs and threads, resets,
  # create/destroy churn) with exact accounting and flat fd, mapping and
  # memory counts; a minute here, ./build.sh soak [MINUTES] for long
  ionic_add_test(verbs-soak
    SOURCES ${_h7}/soak_main.c ${_h7}/soak_traffic.c ${_h7}/soak_churn.c
    LIBS ionic_test_fixture SIM ARGS --seconds 60 TIMEOUT 600)

  # (4) CQs: create errno paths, extended CQ, completion channel events
  ionic_add_test(verbs-cq SOURCES ${_h7}/cq.c
    LIBS ionic_test_fixture SIM ARGS --phc 1)
  ionic_add_test(verbs-cq-nophc-udma1 COMMAND $<TARGET_FILE:verbs-cq>
    SIM SIM_ARGS --no-phc --udma-count 1 ARGS --phc 0)

  # (5) QPs: caps, unsupported types/attributes, state machine, query
  ionic_add_test(verbs-qp SOURCES ${_h7}/qp.c
    LIBS ionic_test_fixture SIM)
  ionic_add_test(verbs-qp-udma1-fw1 COMMAND $<TARGET_FILE:verbs-qp>
    SIM SIM_ARGS --udma-count 1 --fw-version 1)

  # several NICs per host (--nics): listing, RC and UD between two NICs
  # in one process (one doorbell trap, two devices), distinct QPNs of two
  # processes on one NIC; with 8 NICs and CMB express doorbells too
  ionic_add_test(verbs-nics SOURCES ${_h7}/nics.c
    LIBS ionic_test_fixture SIM SIM_ARGS --nics 2 ARGS 2)
  ionic_add_test(verbs-nics8-expdb COMMAND $<TARGET_FILE:verbs-nics>
    SIM SIM_ARGS --nics 8 --cmb-pages 64 --expdb-qtypes 1 ARGS 8)

  # the ports' hardware counters (sysfs hw_counters/): both NICs move by
  # exactly the frames of SENDs, WRITEs, READs, an atomic and a UD SEND
  # of known sizes, on the direct path and on the packet path alike
  ionic_add_test(verbs-hw-counters SOURCES ${_h7}/hw_counters.c
    LIBS ionic_test_fixture SIM SIM_ARGS --nics 2 --direct on)
  ionic_add_test(verbs-hw-counters-packets
    COMMAND $<TARGET_FILE:verbs-hw-counters>
    SIM SIM_ARGS --nics 2 --direct off)

  # what a new user gets wrong: one table of bad arguments and wrong-state
  # calls with their documented errno, under a watchdog; CQ overrun, the
  # read-queue depths of query_qp, zero SGEs (issue 13)
  ionic_add_test(verbs-misuse
    SOURCES ${_h7}/misuse_main.c ${_h7}/misuse_table.c
            ${_h7}/misuse_qp_calls.c ${_h7}/misuse_obj_calls.c
            ${_h7}/misuse_overrun.c
    LIBS ionic_test_fixture SIM TIMEOUT 240)
  ionic_add_test(verbs-misuse-udma1-fw1 COMMAND $<TARGET_FILE:verbs-misuse>
    SIM SIM_ARGS --udma-count 1 --fw-version 1 TIMEOUT 240)

  # (2) the DV API on real ionic objects
  ionic_add_test(verbs-dv SOURCES ${_h7}/dv.c
    LIBS ionic_test_fixture ionic SIM ARGS --udma 2)
  ionic_add_test(verbs-dv-udma1 COMMAND $<TARGET_FILE:verbs-dv>
    SIM SIM_ARGS --udma-count 1 ARGS --udma 1)
  ionic_add_test(verbs-dv-expdb COMMAND $<TARGET_FILE:verbs-dv>
    SIM SIM_ARGS --profile expdb_qtypes=3,udma_shift=6
    ARGS --udma 2 --expdb 3 --udma-shift 6)
  ionic_add_test(verbs-dv-expdb-sq COMMAND $<TARGET_FILE:verbs-dv>
    SIM SIM_ARGS --profile expdb_qtypes=1 ARGS --udma 2 --expdb 1)

  # The extended DV API (issue 11) through ionic-sim.  dv_link.c: a QP
  # set up the way the GPU stacks do it, connected to a verbs peer.
  add_library(ionic_dv_link STATIC ${_h7}/dv_link.c)
  target_link_libraries(ionic_dv_link PUBLIC ionic_test_fixture ionic)
  target_include_directories(ionic_dv_link PUBLIC
    ${PROJECT_SOURCE_DIR}/include)
  # a device-side poster per pipeline, driven by the descriptors only
  ionic_add_test(verbs-dv-gpu SOURCES ${_h7}/dv_gpu.c ${_h7}/dv_poster.c
    LIBS ionic_dv_link SIM TIMEOUT 120)
  ionic_add_test(verbs-dv-gpu-udma1 COMMAND $<TARGET_FILE:verbs-dv-gpu>
    SIM SIM_ARGS --udma-count 1 TIMEOUT 120)
  ionic_add_test(verbs-dv-gpu-fw1 COMMAND $<TARGET_FILE:verbs-dv-gpu>
    SIM SIM_ARGS --fw-version 1 ARGS --fw 1 TIMEOUT 120)
  ionic_add_test(verbs-dv-gpu-cmb COMMAND $<TARGET_FILE:verbs-dv-gpu>
    SIM SIM_ARGS --cmb-pages 64 ARGS --cmb TIMEOUT 120)

  # ionic_dv_create_cq_ex / _qp_ex and sq_sig_all with vendor bits
  ionic_add_test(verbs-dv-create SOURCES ${_h7}/dv_create.c
    LIBS ionic_dv_link SIM)
  ionic_add_test(verbs-dv-create-udma1 COMMAND $<TARGET_FILE:verbs-dv-create>
    SIM SIM_ARGS --udma-count 1)
  # dlopen("libionic.so") and dlvsym of every symbol at every version
  # node, the way RCCL, MRC and MORI bind them; not linked with libionic
  ionic_add_test(verbs-dv-symbols SOURCES ${_h7}/dv_symbols.c
    ${_h7}/dv_poster.c
    LIBS ionic_test_fixture ${CMAKE_DL_LIBS} SIM
    ENV "LD_LIBRARY_PATH=${IONIC_BUILD_PROVIDER_DIR}/.."
    LABELS packaging)
  # the same from a staged install of the provider and dev components
  ionic_add_test(packaging-dv-installed
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check-dv-installed.sh
            ${PROJECT_BINARY_DIR} "${CMAKE_INSTALL_FULL_LIBDIR}"
            "${IONIC_PROVIDER_DIR}" ${IBVERBS_PRIVATE_ABI}
            $<TARGET_FILE:verbs-dv-symbols> @SIM@
    ENV "CMAKE=${CMAKE_COMMAND}")
  if(IONIC_SAN_PRELOAD)
    set_property(TEST packaging-dv-installed APPEND PROPERTY ENVIRONMENT
                 "LD_PRELOAD=${IONIC_SAN_PRELOAD}")
  endif()
  # both rewrite the build tree's install manifests
  set_tests_properties(packaging-dv-installed packaging-install-layout
                       PROPERTIES RESOURCE_LOCK ionic_install_manifests)
  # the device-side posters under valgrind memcheck (~4 s)
  if(NOT IONIC_SANITIZE)
    ionic_add_test(memcheck-verbs-dv-gpu
      COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/memcheck.sh
              ${IONIC_SIM_LAUNCHER} ${CMAKE_CURRENT_SOURCE_DIR}/memcheck.supp
              -- $<TARGET_FILE:verbs-dv-gpu>
      TIMEOUT 120)
  endif()
  # GDA host flow: posts without doorbells (checked in the run's trace,
  # a private temporary file), then the application's doorbell
  # (built apart: the command is a script, so it runs as a SIM test does,
  # without LeakSanitizer in the shell)
  add_executable(verbs-dv-gda-prog ${_h7}/dv_gda.c)
  target_link_libraries(verbs-dv-gda-prog PRIVATE ionic_dv_link)
  ionic_add_test(verbs-dv-gda
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/run-traced.sh @SIM@
            -- $<TARGET_FILE:verbs-dv-gda-prog>)
  # the same with the send queue in controller memory
  ionic_add_test(verbs-dv-gda-cmb
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/run-traced.sh @SIM@ --cmb-pages 64
            -- $<TARGET_FILE:verbs-dv-gda-prog> --cmb)
  if(IONIC_SAN_PRELOAD)
    set_property(TEST verbs-dv-gda verbs-dv-gda-cmb APPEND PROPERTY
                 ENVIRONMENT "LD_PRELOAD=${IONIC_SAN_PRELOAD}")
  endif()

  # send queues in controller memory: placement, traffic, DV preferences
  ionic_add_test(verbs-cmb SOURCES ${_h7}/cmb.c
    LIBS ionic_test_fixture ionic SIM SIM_ARGS --cmb-pages 64
    ARGS --cmb)
  ionic_add_test(verbs-cmb-fw1-expdb COMMAND $<TARGET_FILE:verbs-cmb>
    SIM SIM_ARGS --cmb-pages 64 --fw-version 1 --profile expdb_qtypes=3
    ARGS --cmb --expdb)
  # the same with firmware version 2, whose 64-byte WQEs take the trailer:
  # an SQ sized for it that the kernel leaves in host memory gets its
  # bytes back (found by e2e-oracle-diff, docs/oracle-comparison.md)
  ionic_add_test(verbs-cmb-expdb COMMAND $<TARGET_FILE:verbs-cmb>
    SIM SIM_ARGS --cmb-pages 64 --profile expdb_qtypes=3 ARGS --cmb --expdb)
  ionic_add_test(verbs-cmb-none COMMAND $<TARGET_FILE:verbs-cmb>
    SIM ARGS --no-cmb)
  # the CMB window cannot be mapped: creation fails, nothing leaks
  # (docs/upstream-defects.md D23); few QP ids and pages show any leak
  ionic_add_test(verbs-cmb-map-fails SOURCES ${_h7}/cmb_map_fail.c
    LIBS ionic_test_fixture ionic SIM
    SIM_ARGS --profile cmb_pages=4,qp_count=8,cmb_map_fail=1)
  # suites written for host rings, with every SQ in CMB (default PD
  # preferences): ibv_wr_*, RDMA/atomics/MW, multi-threaded posting
  ionic_add_test(verbs-wrx-cmb COMMAND $<TARGET_FILE:verbs-wrx>
    SIM SIM_ARGS --cmb-pages 64)
  ionic_add_test(verbs-rdma-cmb COMMAND $<TARGET_FILE:verbs-rdma>
    SIM SIM_ARGS --cmb-pages 64 TIMEOUT 120)
  ionic_add_test(verbs-stress-cmb COMMAND $<TARGET_FILE:verbs-stress>
    SIM SIM_ARGS --cmb-pages 64 ARGS 4 2 5000 TIMEOUT 150)
  # the same suites over the UDP fabric: RoCEv2 in UDP datagrams to this
  # NIC's own loopback address (127.18.0.1)
  ionic_add_test(verbs-datapath-udp COMMAND $<TARGET_FILE:verbs-datapath>
    SIM SIM_ARGS --transport udp TIMEOUT 150)
  ionic_add_test(verbs-rdma-udp COMMAND $<TARGET_FILE:verbs-rdma>
    SIM SIM_ARGS --transport udp TIMEOUT 150)
  ionic_add_test(verbs-wrx-udp COMMAND $<TARGET_FILE:verbs-wrx>
    SIM SIM_ARGS --transport udp)
  # (a loaded machine runs them slowly but correctly: 100 s and 200 s
  # measured at nice 19 beside two CPU hogs at nice 5 on two cores)
  ionic_add_test(verbs-stress-udp COMMAND $<TARGET_FILE:verbs-stress>
    SIM SIM_ARGS --transport udp ARGS 4 2 5000 TIMEOUT 300)
  ionic_add_test(verbs-stress-faults-udp COMMAND $<TARGET_FILE:verbs-stress>
    SIM SIM_ARGS --transport udp --loss-ppm 20000 --dup-ppm 10000
                 --reorder-ppm 10000
    ARGS 4 2 5000 TIMEOUT 400)
  # the other suites that move data between QPs, on the UDP fabric too
  foreach(_t peer-exit fork async dv-gpu import-xproc)
    ionic_add_test(verbs-${_t}-udp COMMAND $<TARGET_FILE:verbs-${_t}>
      SIM SIM_ARGS --transport udp TIMEOUT 120)
  endforeach()
  ionic_add_test(verbs-cmb-udp COMMAND $<TARGET_FILE:verbs-cmb>
    SIM SIM_ARGS --transport udp --cmb-pages 64 ARGS --cmb)
  ionic_add_test(verbs-dv-gpu-expdb-udp COMMAND $<TARGET_FILE:verbs-dv-gpu>
    SIM SIM_ARGS --transport udp --cmb-pages 64 --expdb-qtypes 1 ARGS --cmb
    TIMEOUT 120)
  # the same suites with every SQ behind an express doorbell: the device
  # offers them for SQs of every WQE size, and every PD allows them all
  # (tests/support/verbs_expdb_all.c fails a run in which none was used)
  set(_expdb --cmb-pages 64 --expdb-qtypes 1)
  ionic_add_test(verbs-wrx-expdb COMMAND $<TARGET_FILE:verbs-wrx>
    SIM SIM_ARGS ${_expdb} ENV IONIC_TEST_EXPDB_MASK=15)
  ionic_add_test(verbs-wrx-expdb-fw1 COMMAND $<TARGET_FILE:verbs-wrx>
    SIM SIM_ARGS ${_expdb} --fw-version 1 --udma-count 1
    ENV IONIC_TEST_EXPDB_MASK=15)
  ionic_add_test(verbs-rdma-expdb COMMAND $<TARGET_FILE:verbs-rdma>
    SIM SIM_ARGS ${_expdb} ENV IONIC_TEST_EXPDB_MASK=15 TIMEOUT 150)
  # firmware v1: atomics must not overwrite the trailer
  # (docs/upstream-defects.md D7)
  ionic_add_test(verbs-rdma-expdb-fw1 COMMAND $<TARGET_FILE:verbs-rdma>
    SIM SIM_ARGS ${_expdb} --fw-version 1 ENV IONIC_TEST_EXPDB_MASK=15
    TIMEOUT 150)
  ionic_add_test(verbs-datapath-expdb COMMAND $<TARGET_FILE:verbs-datapath>
    SIM SIM_ARGS ${_expdb} ENV IONIC_TEST_EXPDB_MASK=15 TIMEOUT 150)
  ionic_add_test(verbs-stress-expdb COMMAND $<TARGET_FILE:verbs-stress>
    SIM SIM_ARGS ${_expdb} ENV IONIC_TEST_EXPDB_MASK=15
    ARGS 4 2 5000 TIMEOUT 150)
  # the DV tests with express doorbells: the GPU-style posters on an
  # express SQ, and the DV preferences on a device that has them
  ionic_add_test(verbs-dv-gpu-expdb COMMAND $<TARGET_FILE:verbs-dv-gpu>
    SIM SIM_ARGS ${_expdb} ARGS --cmb TIMEOUT 120)

  # (3) PD, MR, MW, AH, thread and parent domains
  ionic_add_test(verbs-pdmr SOURCES ${_h7}/pdmr.c
    LIBS ionic_test_fixture SIM)
  ionic_add_test(verbs-pdmr-udma1-fw1 COMMAND $<TARGET_FILE:verbs-pdmr>
    SIM SIM_ARGS --udma-count 1 --fw-version 1)

  # extended send API (ibv_wr_*), RC and UD
  ionic_add_test(verbs-wrx SOURCES ${_h7}/wrx.c
    LIBS ionic_test_fixture ionic_test_expdb_all SIM)
  ionic_add_test(verbs-wrx-udma1-fw1 COMMAND $<TARGET_FILE:verbs-wrx>
    SIM SIM_ARGS --udma-count 1 --fw-version 1)

  # RDMA WRITE/READ, atomics, memory windows (post_send and ibv_wr_*),
  # remote access errors; both firmware versions (atomic body v1/v2)
  ionic_add_test(verbs-rdma
    SOURCES ${_h7}/rdma_main.c ${_h7}/rdma_ops.c ${_h7}/rdma_errors.c
            ${_h7}/rdma_mw.c ${_h7}/rdma_wrx.c
    LIBS ionic_test_fixture ionic_test_expdb_all SIM TIMEOUT 120)
  ionic_add_test(verbs-rdma-fw1 COMMAND $<TARGET_FILE:verbs-rdma>
    SIM SIM_ARGS --fw-version 1 TIMEOUT 120)
  ionic_add_test(verbs-rdma-udma1-fw2 COMMAND $<TARGET_FILE:verbs-rdma>
    SIM SIM_ARGS --udma-count 1 --fw-version 2 TIMEOUT 120)

  # The suite again on ionic-sim's packet path (IONIC_SIM_DIRECT=0: every
  # work request crosses the emulated wire; label packet-path, normal
  # build only, docs/testing.md §3.2): every test above that moves data
  # between QPs and does not choose its path itself.  Not here: the
  # context tests (no work request), the -udp reruns and the fault tests
  # (packets already), the direct path's own tests (--direct on), and of
  # the stress runs all but the plain and the unsignalled one (coalesced
  # completions): the others vary the provider's rings, which the two
  # paths treat alike, and cost about 45 s (verbs-stress-udp and
  # verbs-stress-faults stress the packet path as well).
  ionic_add_packet_variants(
    verbs-import verbs-import-xproc verbs-import-xproc-cmb
    verbs-import-xproc-expdb
    verbs-datapath verbs-datapath-udma1 verbs-datapath-fw1
    verbs-datapath-udma1-fw1 verbs-datapath-expdb
    verbs-fork verbs-mr-share verbs-async verbs-peer-exit verbs-lossless
    verbs-fatal verbs-fatal-reset verbs-fatal-after
    verbs-stress verbs-stress-unsignaled
    verbs-cq verbs-cq-nophc-udma1 verbs-qp verbs-qp-udma1-fw1
    verbs-nics verbs-nics8-expdb verbs-misuse verbs-misuse-udma1-fw1
    verbs-dv verbs-dv-udma1 verbs-dv-expdb verbs-dv-expdb-sq
    verbs-dv-gpu verbs-dv-gpu-udma1 verbs-dv-gpu-fw1 verbs-dv-gpu-cmb
    verbs-dv-gpu-expdb verbs-dv-create verbs-dv-create-udma1
    verbs-dv-symbols verbs-dv-gda verbs-dv-gda-cmb
    verbs-cmb verbs-cmb-fw1-expdb verbs-cmb-expdb verbs-cmb-none
    verbs-cmb-map-fails
    verbs-pdmr verbs-pdmr-udma1-fw1
    verbs-wrx verbs-wrx-udma1-fw1 verbs-wrx-cmb verbs-wrx-expdb
    verbs-wrx-expdb-fw1
    verbs-rdma verbs-rdma-fw1 verbs-rdma-udma1-fw2 verbs-rdma-cmb
    verbs-rdma-expdb verbs-rdma-expdb-fw1)
  # the soak's mixed traffic, resets and churn for a third of its minute
  if(NOT IONIC_SANITIZE)
    ionic_add_test(verbs-soak-packet COMMAND $<TARGET_FILE:verbs-soak>
      SIM ARGS --seconds 20 ENV IONIC_SIM_DIRECT=0 LABELS packet-path
      TIMEOUT 300)
  endif()
endif()
