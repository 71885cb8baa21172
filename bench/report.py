#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
"""The benchmark report of ./build.sh bench (bench/README.md).

Usage: report.py BUILD_DIR [--quick] [--json FILE] [--runs N]
                 [--no-wallclock] [--no-callgrind] [--no-lossless]

 1. Instructions per verb call, counted by callgrind in the provider (its
    whole call, callees included, as its caller pays it): every scenario
    of bench/verbs_bench.c run for N1 and N2 iterations, the difference
    divided by the difference of the call counts, so that set-up and
    teardown cancel out; for the default (thread-safe) objects and for
    objects of a thread domain (lock-free).
 2. The control path: QP create+destroy and MR register+deregister, in
    instructions of libionic and libibverbs (the emulated kernel left out)
    and in system calls (uverbs commands, which ionic-sim answers in
    process, plus the real ones the provider makes).
 3. Host memory per QP and per CQ at the default caps (bench/memory.c).
 4. Wall clock under ionic-sim: perftest between two processes, median of
    several runs, per doorbell configuration (bench/run-wallclock.sh).
 5. The lossless wire: a 1 GiB RDMA WRITE, READ and SEND over one RC pair
    on the packet path, unix and UDP transports, in MB/s with the
    retransmissions and backlog drops counted (bench/run-lossless.sh).
 6. What one trapped doorbell costs: a bare trap, ionic-sim's, and a
    system call for scale (bench/trap_cost.c).
 7. Issue 22's goals: perftest with the packet path and with the direct
    path, their ratio, the goal and whether it is met, with the machine's
    load (bench/run-direct.sh).
 8. The emulated cluster (as root): bring-up and teardown of 4 hosts x 2
    NICs, host memory per emulated NIC, Open MPI latency and bandwidth
    between two hosts (NetPIPE) (bench/run-cluster.sh).

--no-callgrind leaves out parts 1-3 (the instruction counts), for the
wall-clock parts alone.

Prints the tables and writes them as JSON (default
BUILD_DIR/bench/results.json).  --quick runs every part briefly, to check
that it works (the bench-smoke test); its numbers mean little.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# Every callgrind run goes through bench/run-callgrind.sh, the one home
# of the valgrind flags (and why they are what they are).
RUN_CALLGRIND = os.path.join(HERE, "run-callgrind.sh")

EMULATED_KERNEL = ("ik_file_write", "ik_file_ioctl", "ik_file_mmap")


def parse_callgrind(path):
    """Per function: inclusive costs; per (caller, callee): call counts
    and inclusive costs.  Costs are dicts event -> count."""
    names = {"fn": {}, "cfn": {}}
    events = []
    incl = {}
    edges = {}
    fn = None
    pending = None  # (callee, count) of a calls= line

    def add(table, key, costs):
        cur = table.setdefault(key, {})
        for ev, v in costs.items():
            cur[ev] = cur.get(ev, 0) + v

    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("events:"):
                events = line.split()[1:]
                continue
            m = re.match(r"^(fn|cfn)=(?:\((\d+)\))?\s*(.*)$", line)
            if m:
                kind, ident, name = m.groups()
                # cfn and fn share one name space in compressed files
                table = names["fn"]
                if ident is not None:
                    if name:
                        table[ident] = name
                    name = table.get(ident, name)
                if kind == "fn":
                    fn = name
                else:
                    callee = name
                continue
            if line.startswith("calls="):
                pending = (callee, int(line.split("=")[1].split()[0]))
                continue
            if not line or not (line[0].isdigit() or line[0] in "+-*"):
                continue
            parts = line.split()
            costs = {}
            for ev, v in zip(events, parts[2:] if len(parts) > len(events) + 1
                             else parts[1:]):
                costs[ev] = int(v)
            if pending:
                callee, count = pending
                pending = None
                e = edges.setdefault((fn, callee), {"calls": 0, "cost": {}})
                e["calls"] += count
                add(e, "cost", costs)
                add(incl, fn, costs)
            else:
                add(incl, fn, costs)
    return incl, edges


def calls_of(edges, callee):
    return sum(e["calls"] for (_, c), e in edges.items() if c == callee)


class Run:
    """One callgrind run of the benchmark program."""

    def __init__(self, sim, bench, args, work, simopts=()):
        out = os.path.join(work, "cg.%d" % len(os.listdir(work)))
        cmd = [RUN_CALLGRIND, sim, out] + list(simopts) + ["--", bench] + \
            list(args)
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        self.incl, self.edges = parse_callgrind(out)

    def ir(self, fn, ev="Ir"):
        return self.incl.get(fn, {}).get(ev, 0)

    def calls(self, fn):
        return calls_of(self.edges, fn)

    def edge(self, caller, callee, ev="Ir"):
        e = self.edges.get((caller, callee))
        if not e:
            return 0, 0
        return e["calls"], e["cost"].get(ev, 0)


def per_call(r1, r2, fn):
    dc = r2.calls(fn) - r1.calls(fn)
    return (r2.ir(fn) - r1.ir(fn)) / dc if dc > 0 else None


def per_edge(r1, r2, caller, callee):
    c1, i1 = r1.edge(caller, callee)
    c2, i2 = r2.edge(caller, callee)
    return (i2 - i1) / (c2 - c1) if c2 > c1 else None


def verbs_table(sim, bench, work, td, n1, n2):
    """Rows: (scenario, verb, Ir per call, Ir per WR or WC or None)."""
    flag = ["--td"] if td else []
    scenarios = [
        ("SEND 32 B inline", ["pingpong"]),
        ("SEND 32 B SGE", ["pingpong", "--sge"]),
        ("RDMA WRITE 32 B inline", ["pingpong", "--write"]),
        ("RDMA WRITE 4 KiB SGE", ["pingpong", "--write", "--sge",
                                  "--size", "4096"]),
        ("batch of 32 SENDs", ["batch"]),
    ]
    rows = []
    for name, args in scenarios:
        r1 = Run(sim, bench, args + flag + ["-n", str(n1)], work)
        r2 = Run(sim, bench, args + flag + ["-n", str(n2)], work)
        per = 32 if name.startswith("batch") else 1
        for verb, caller in (("ibv_post_send", None),
                             ("ibv_post_recv", None),
                             ("ibv_req_notify_cq", None),
                             ("ibv_poll_cq (send WC)", "bench_poll_send"),
                             ("ibv_poll_cq (recv WC)", "bench_poll_recv")):
            if caller:
                v = per_edge(r1, r2, caller, "ionic_poll_cq")
            else:
                v = per_call(r1, r2, "ionic_" + verb[4:])
            if v is None:
                continue
            rows.append({"scenario": name, "verb": verb,
                         "ir_per_call": round(v, 1),
                         "per": per,
                         "ir_per_item": round(v / per, 1)})
    return rows


def control_table(sim, bench, work, n1, n2):
    rows = []
    for name, mode, fns in (
            ("QP create+destroy", "qp", ("ionic_create_qp",
                                         "ionic_destroy_qp")),
            ("MR reg+dereg", "mr", ("ionic_reg_mr", "ionic_dereg_mr"))):
        r1 = Run(sim, bench, [mode, "-n", str(n1)], work)
        r2 = Run(sim, bench, [mode, "-n", str(n2)], work)
        dn = n2 - n1
        total = sum(r2.ir(f) - r1.ir(f) for f in fns) / dn
        kernel = sum(r2.ir(k) - r1.ir(k) for k in EMULATED_KERNEL) / dn
        cmds = sum(r2.calls(k) - r1.calls(k) for k in EMULATED_KERNEL) / dn
        sys_all = sum(r2.ir(f, "sysCount") - r1.ir(f, "sysCount")
                      for f in fns) / dn
        sys_kernel = sum(r2.ir(k, "sysCount") - r1.ir(k, "sysCount")
                         for k in EMULATED_KERNEL) / dn
        rows.append({"operation": name,
                     "ir_provider_and_libibverbs": round(total - kernel),
                     "ir_emulated_kernel": round(kernel),
                     "uverbs_commands": round(cmds, 1),
                     "other_syscalls": round(sys_all - sys_kernel, 1)})
    return rows


def memory_table(mem):
    out = subprocess.run([mem], check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out)


def run_table(script, args, work, only=None):
    """A table script's JSON rows (None: exit 77, perftest missing);
    only: (variable, value) that limits it to one row."""
    out = os.path.join(work, script + ".json")
    env = dict(os.environ)
    if only:
        env[only[0]] = only[1]
    rc = subprocess.run([os.path.join(HERE, script), args[0], out] +
                        [str(a) for a in args[1:]], env=env)
    if rc.returncode == 77:
        return None
    if rc.returncode:
        raise SystemExit("%s failed" % script)
    with open(out) as f:
        return json.load(f)


def lossless_table(sim, build, work, quick):
    """run-lossless.sh takes its output file third, after the program."""
    out = os.path.join(work, "lossless.json")
    prog = os.path.join(build, "tests", "verbs-lossless-prog")
    rc = subprocess.run([os.path.join(HERE, "run-lossless.sh"), sim, prog,
                         out, "16" if quick else "1024"])
    if rc.returncode == 77:
        return None
    if rc.returncode:
        raise SystemExit("run-lossless.sh failed")
    with open(out) as f:
        return json.load(f)


def wallclock_table(sim, bench, work, runs, iters, quick):
    return run_table("run-wallclock.sh", [sim, runs, iters, bench], work,
                     ("IONIC_BENCH_WALLCLOCK_ONLY", "send_lat_64:trapped")
                     if quick else None)


def trap_table(sim, trap, ops):
    """Nanoseconds per operation: median and smallest of the rounds."""
    rows = []
    for mode, what, prefix in (
            ("syscall", "system call (getppid)", []),
            ("bare", "trapped store, bare handler", []),
            ("sim", "trapped doorbell, ionic-sim (ibv_req_notify_cq)",
             [sim, "--fabric", "bench-trap-%d" % os.getpid(), "--"])):
        out = subprocess.run(prefix + [trap, mode, "-n", str(ops)],
                             check=True, capture_output=True,
                             text=True).stdout
        r = json.loads(out.strip().splitlines()[-1])
        r["what"] = what
        rows.append(r)
    print("| operation | median ns | best ns | operations x rounds |")
    print("|---|---:|---:|---:|")
    for r in rows:
        print("| %s | %.0f | %.0f | %d x %d |" % (
            r["what"], r["median_ns"], r["min_ns"], r["ops"], r["rounds"]))
    return rows


def direct_table(sim, work, runs, iters, quick):
    return run_table("run-direct.sh", [sim, runs, iters], work,
                     ("IONIC_BENCH_DIRECT_ONLY", "send_lat_64")
                     if quick else None)


def machine():
    """What the wall-clock figures were measured on."""
    with open("/proc/loadavg") as f:
        load = f.read().split()[:3]
    return {"cpus": os.cpu_count(), "load_1_5_15": [float(v) for v in load]}


def cluster_table(sim, work, runs, quick):
    """bench/run-cluster.sh: 4 hosts x 2 NICs, NetPIPE up to 64 KiB."""
    return run_table("run-cluster.sh",
                     [sim, runs, 4, 2, 16 if quick else 65536], work)


def fmt(v):
    return "-" if v is None else ("%.1f" % v if isinstance(v, float) else
                                  str(v))


def print_verbs(title, rows):
    print("\n%s\n" % title)
    print("| scenario | verb | instructions per call | per WR/WC |")
    print("|---|---|---:|---:|")
    for r in rows:
        print("| %s | %s | %s | %s |" % (
            r["scenario"], r["verb"], fmt(r["ir_per_call"]),
            fmt(r["ir_per_item"]) if r["per"] > 1 else ""))


def callgrind_tables(result, sim, bench, mem, work, n1, n2, c1, c2):
    """Parts 1-3: instructions per verb, control path, host memory."""
    result["verbs_default"] = verbs_table(sim, bench, work, False, n1, n2)
    print_verbs("Instructions per verb, default (thread-safe) objects",
                result["verbs_default"])
    result["verbs_thread_domain"] = verbs_table(sim, bench, work, True,
                                                n1, n2)
    print_verbs("Instructions per verb, objects of a thread domain",
                result["verbs_thread_domain"])

    result["control"] = control_table(sim, bench, work, c1, c2)
    print("\nControl path, per operation\n")
    print("| operation | instructions (libionic + libibverbs) | "
          "uverbs commands | other system calls |")
    print("|---|---:|---:|---:|")
    for r in result["control"]:
        print("| %s | %d | %s | %s |" % (
            r["operation"], r["ir_provider_and_libibverbs"],
            fmt(r["uverbs_commands"]), fmt(r["other_syscalls"])))

    m = result["memory"] = memory_table(mem)
    print("\nHost memory at the default caps\n")
    print("| object | heap bytes | ring bytes |")
    print("|---|---:|---:|")
    print("| CQ, %d entries, %d pipelines | %d | %d |" % (
        m["cq"]["cqe"], m["cq"]["pipelines"], m["cq"]["heap"],
        m["cq"]["rings"]))
    print("| RC QP, %d+%d WRs, 1 SGE | %d | %d |" % (
        m["qp"]["send_wr"], m["qp"]["recv_wr"], m["qp"]["heap"],
        m["qp"]["rings"]))
    print("| QP table leaf (once per 4096 QP numbers) | %d | 0 |" %
          m["qp_table_leaf"])


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        raise SystemExit(__doc__)
    build = os.path.abspath(args.pop(0))
    quick = "--quick" in args
    wall = "--no-wallclock" not in args
    lossless = "--no-lossless" not in args
    callgrind = "--no-callgrind" not in args
    runs = 1 if quick else 5
    out = os.path.join(build, "bench", "results.json")
    for i, a in enumerate(args):
        if a == "--json":
            out = args[i + 1]
        elif a == "--runs":
            runs = int(args[i + 1])
    sim = os.path.join(build, "sim", "ionic-sim")
    bench = os.path.join(build, "bench", "ionic-bench")
    mem = os.path.join(build, "bench", "ionic-bench-memory")
    trap = os.path.join(build, "bench", "ionic-bench-trap")
    if callgrind and not shutil.which("valgrind"):
        print("report.py: valgrind is not installed")
        sys.exit(77)

    n1, n2 = (3, 8) if quick else (200, 1200)
    c1, c2 = (2, 4) if quick else (20, 70)
    result = {"machine_at_start": machine()}
    with tempfile.TemporaryDirectory(prefix="ionic-bench-") as work:
        if callgrind:
            callgrind_tables(result, sim, bench, mem, work, n1, n2, c1, c2)

        if wall:
            print("\nWall clock under ionic-sim (perftest, median of %d)\n"
                  % runs)
            result["wallclock"] = wallclock_table(
                sim, bench, work, runs, 200 if quick else 2000, quick)

        if lossless:
            print("\nThe lossless wire: one RC pair, MTU 1024, no fault "
                  "configured\n")
            result["lossless"] = lossless_table(sim, build, work, quick)

        if os.path.exists(trap):
            print("\nOne trapped doorbell (issue 22; bench/trap_cost.c)\n")
            result["trap"] = trap_table(sim, trap, 1000 if quick else 20000)

        if wall:
            print("\nIssue 22's goals: packet path and direct path "
                  "(perftest, median of %d; load: 1-minute load average "
                  "before -> after)\n" % runs)
            result["direct"] = direct_table(
                sim, work, runs, 200 if quick else 2000, quick)

        print("\nThe emulated cluster (ionic-sim cluster; median of %d)\n"
              % runs)
        result["cluster"] = cluster_table(sim, work, runs, quick)
    result["machine_at_end"] = machine()

    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        json.dump(result, f, indent=1)
    print("\nreport.py: written to %s" % out)


if __name__ == "__main__":
    main()
