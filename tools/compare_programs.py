#!/usr/bin/env python3
"""Per-launch comparison of a `warpsim exec --report` JSON with an ncu CSV of the same program on
hardware (tools/h200_programs.sh): launches are paired in order, each checked to be the same
kernel (ncu's function name against the report's demangled one reduced to the function's own
name, as isa::names::base_name does); prints simulated and measured cycles and their ratio per
launch, and the totals.

    python3 tools/compare_programs.py report.json ncu-reduce.csv
"""
import csv
import json
import sys


def base_name(name):
    """`void expand<int>(int const*, ...)` -> `expand` (template arguments, return type, scope
    and parameters dropped)."""
    head, depth = [], 0
    for c in name.strip():
        if c == "<":
            depth += 1
        elif c == ">":
            depth = max(0, depth - 1)
        elif c == "(" and depth == 0:
            break
        elif depth == 0:
            head.append(c)
    words = "".join(head).split()
    return words[-1].split("::")[-1] if words else ""


def ncu_launches(path):
    """{id: (kernel, {metric: value})} from ncu's --csv details page (banner lines skipped)."""
    with open(path, newline="") as f:
        lines = [l for l in f if l.startswith('"')]
    out = {}
    for row in csv.DictReader(lines):
        k = int(row["ID"])
        name, metrics = out.setdefault(k, (row["Kernel Name"], {}))
        try:
            metrics[row["Metric Name"]] = float(row["Metric Value"].replace(",", ""))
        except ValueError:
            pass
    return [out[k] for k in sorted(out)]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sim = json.load(open(sys.argv[1]))["launches"]
    hw = ncu_launches(sys.argv[2])
    if len(sim) != len(hw):
        print(f"warning: {len(sim)} simulated launches, {len(hw)} measured; pairing the first {min(len(sim), len(hw))}")
    tot_s = tot_h = 0.0
    print(f"{'#':>3} {'kernel':<24} {'sim cycles':>11} {'hw cycles':>11} {'sim/hw':>7}")
    for i, (s, (name, m)) in enumerate(zip(sim, hw)):
        if base_name(s["kernel"]) != base_name(name):
            sys.exit(f"launch {i}: the report has {s['kernel']}, ncu {name}: not the same program run")
        h = m.get("gpc__cycles_elapsed.max", float("nan"))
        tot_s += s["cycles"]
        tot_h += h
        print(f"{i:>3} {base_name(name):<24} {s['cycles']:>11} {h:>11.0f} {s['cycles'] / h:>7.3f}")
    print(f"total{'':<22} {tot_s:>11.0f} {tot_h:>11.0f} {tot_s / tot_h:>7.3f}")


if __name__ == "__main__":
    main()
