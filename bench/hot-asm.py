#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
"""Per-instruction execution counts of one function, from a callgrind run.

Usage: hot-asm.py CALLGRIND_OUT SHARED_OBJECT FUNCTION [CALLS]

The callgrind run needs --dump-instr=yes.  Prints the function's
disassembly (objdump -d) with how often each instruction ran, divided by
CALLS if given (the number of calls of FUNCTION in that run), so that the
hot path and its cost per call can be read instruction by instruction.
Self cost only: callees are not included.  A tool for tuning the data
path (bench/README.md), not part of the benchmark report.
"""
import re
import subprocess
import sys


def parse_callgrind(path, obj_suffix, func):
    """Instruction address -> Ir, for 'func' in an object ending in obj_suffix."""
    names = {"fn": {}, "ob": {}, "fl": {}}
    counts = {}
    cur_fn = cur_ob = None
    last_addr = 0
    skip_next = False
    want = False
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r"^(c?)(fn|ob|fl|fi|fe)=(\((\d+)\))?\s*(.*)$", line)
            if m:
                called, kind, _, ident, name = m.groups()
                if kind in ("fi", "fe"):
                    continue
                table = names[kind]
                if ident is not None:
                    if name:
                        table[ident] = name
                    name = table.get(ident, name)
                if called:
                    continue
                if kind == "fn":
                    cur_fn = name
                elif kind == "ob":
                    cur_ob = name
                want = (cur_fn == func and cur_ob is not None and
                        cur_ob.endswith(obj_suffix))
                continue
            if line.startswith("calls="):
                skip_next = True
                continue
            if not line or not (line[0].isdigit() or line[0] in "+-*0x"):
                continue
            parts = line.split()
            a = parts[0]
            if a.startswith("0x"):
                addr = int(a, 16)
            elif a.startswith("+"):
                addr = last_addr + int(a[1:], 16 if a[1:2] == "x" else 10)
            elif a.startswith("-"):
                addr = last_addr - int(a[1:], 16 if a[1:2] == "x" else 10)
            elif a == "*":
                addr = last_addr
            else:
                continue
            last_addr = addr
            if skip_next:
                skip_next = False
                continue
            if want and len(parts) >= 3:
                counts[addr] = counts.get(addr, 0) + int(parts[2])
    return counts


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    out, so, func = sys.argv[1:4]
    calls = float(sys.argv[4]) if len(sys.argv) > 4 else 1.0
    counts = parse_callgrind(out, so.split("/")[-1], func)
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", so],
                         capture_output=True, text=True, check=True).stdout
    inside = False
    total = 0
    for line in dis.splitlines():
        if re.match(r"^[0-9a-f]+ <%s>:$" % re.escape(func), line):
            inside = True
            print(line)
            continue
        if inside and not line.strip():
            break
        if inside:
            m = re.match(r"^\s*([0-9a-f]+):\s*(.*)$", line)
            if not m:
                continue
            n = counts.get(int(m.group(1), 16), 0)
            total += n
            print("%8s  %s" % ("%.2f" % (n / calls) if n else "", line))
    print("total per call: %.1f" % (total / calls))


if __name__ == "__main__":
    main()
