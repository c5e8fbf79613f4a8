#!/usr/bin/env python3
"""Registers per thread that the real ptxas allocates, for every kernel of the repository's PTX.

Writes isa/tests/data/ptxas_registers.csv: one row per (file, .entry, target) with ptxas's
"Used N registers", the stack frame and spill bytes, and the ptxas version. The register estimator
(isa/src/liveness.rs) is measured against it by isa/tests/register_estimate.rs, which needs no ptxas.

Corpus: isa/tests/corpus/ptx/*.ptx, isa/tests/corpus/ptx_nvrtc/*.ptx, workloads/suite/*/kernel.ptx and
sim/tests/ptx/*.ptx. Files built with -G (`*.G.ptx`) are left out: their PTX is unoptimized debug code
(every value kept in its own register and in local memory for the debugger), which nobody simulates for
performance, and ptxas -v on it measures the debug build rather than what the estimator is for.

Targets: a file with `.target sm_75` or `sm_80` is assembled for sm_80 and for sm_90 (CUDA 13's ptxas
accepts PTX of an older target); `sm_90` for sm_90 only; `sm_90a` for sm_90a only (the test counts
sm_90a rows in the sm_90 set). The `target` column is the -arch ptxas was run with.

Each file is assembled as a whole program (`ptxas -arch=sm_XX -v`, what nvcc does without -rdc); a file
with an unresolved `.extern .func` (built with -rdc=true) is assembled with `-c` instead, as nvcc -rdc
would. Only entry functions are recorded: ptxas reports `.func`s as "Function properties for F" without
"Compiling entry function", and in whole-program mode an entry's count already covers its callees.

Usage: python3 tools/ptxas_registers.py [--ptxas PATH] [--jobs N] [--out CSV]
  The estimate is then measured with
  cargo test --release -p warpsim-isa --test register_estimate -- --nocapture
  PTXAS defaults to $PTXAS, else /tmp/cuda13/bin/ptxas (tools/setup_cuda_wheels.sh /tmp/cuda13 installs it).
  A full run is ~220 ptxas invocations, under a minute on two cores.
"""

import argparse
import concurrent.futures
import csv
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GLOBS = [
    ("isa/tests/corpus/ptx", lambda n: n.endswith(".ptx")),
    ("isa/tests/corpus/ptx_nvrtc", lambda n: n.endswith(".ptx")),
    ("sim/tests/ptx", lambda n: n.endswith(".ptx")),
]

COMPILING = re.compile(r"Compiling entry function '([^']+)' for '([^']+)'")
PROPS = re.compile(r"Function properties for (\S+)")
FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
USED = re.compile(r"Used (\d+) registers")
VERSION = re.compile(r"release [\d.]+, V([\d.]+)")


def corpus():
    files = []
    for d, keep in GLOBS:
        full = os.path.join(ROOT, d)
        if os.path.isdir(full):
            files += [os.path.join(d, n) for n in sorted(os.listdir(full)) if keep(n) and not n.endswith(".G.ptx")]
    suite = os.path.join(ROOT, "workloads/suite")
    for w in sorted(os.listdir(suite)):
        if os.path.isfile(os.path.join(suite, w, "kernel.ptx")):
            files.append(f"workloads/suite/{w}/kernel.ptx")
    return files


def targets_of(path):
    with open(os.path.join(ROOT, path)) as f:
        for line in f:
            m = re.match(r"\s*\.target\s+(\w+)", line)
            if m:
                t = m.group(1)
                if t in ("sm_75", "sm_80"):
                    return ["sm_80", "sm_90"]
                return [t]
    raise SystemExit(f"{path}: no .target line")


def parse(out, arch):
    """Per-entry records from ptxas -v output."""
    rows = []
    entry = None  # the entry being compiled
    props = None  # whose "Function properties" the next frame line belongs to
    frame = None
    for line in out.splitlines():
        if m := COMPILING.search(line):
            if m.group(2) != arch:
                raise SystemExit(f"ptxas compiled for {m.group(2)}, asked for {arch}")
            entry, frame = m.group(1), None
        elif m := PROPS.search(line):
            props = m.group(1)
        elif m := FRAME.search(line):
            if entry is not None and props == entry:
                frame = tuple(int(x) for x in m.groups())
        elif m := USED.search(line):
            if entry is None:
                raise SystemExit(f"'Used N registers' outside an entry:\n{out}")
            stack, st, ld = frame or (0, 0, 0)
            rows.append((entry, int(m.group(1)), st, ld, stack))
            entry = None
    return rows


def run(ptxas, path, arch):
    base = [ptxas, f"-arch={arch}", "-v", "-o", os.devnull, os.path.join(ROOT, path)]
    r = subprocess.run(base, capture_output=True, text=True)
    if r.returncode != 0 and "Unresolved extern function" in r.stderr + r.stdout:
        r = subprocess.run(base[:1] + ["-c"] + base[1:], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"ptxas failed on {path} for {arch}:\n{r.stdout}{r.stderr}")
    return path, arch, parse(r.stdout + r.stderr, arch)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ptxas", default=os.environ.get("PTXAS", "/tmp/cuda13/bin/ptxas"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", default=os.path.join(ROOT, "isa/tests/data/ptxas_registers.csv"))
    a = ap.parse_args()
    v = subprocess.run([a.ptxas, "--version"], capture_output=True, text=True).stdout
    version = VERSION.search(v).group(1)
    work = [(p, t) for p in corpus() for t in targets_of(p)]
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        results = list(ex.map(lambda w: run(a.ptxas, *w), work))
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    n = 0
    with open(a.out, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["file", "entry", "target", "registers", "spill_stores_bytes", "spill_loads_bytes", "stack_bytes", "ptxas_version"])
        for path, arch, rows in results:
            for entry, regs, st, ld, stack in rows:
                w.writerow([path, entry, arch, regs, st, ld, stack, version])
                n += 1
    print(f"{n} kernels from {len(work)} (file, target) assemblies -> {os.path.relpath(a.out, ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
