#!/usr/bin/env python3
"""The model's rows of a lines probe (l1lines, l2lines): runs the probe's kernel (from its PTX) in
warpsim for every configuration its device program runs, with --dump, and reduces the per-warp
records (SM id, clock at the start and end of the timed pass) the way the device program does.
Usage: python3 linesim.py PROBE WARPSIM PTX ARCH OUTCSV [--where EXPR] [extra warpsim args...]
--where keeps the configurations for which the Python expression EXPR (over mode, dep, n, s, w)
is true, e.g. --where "w in (8, 32) and dep == 0"."""
import os, shutil, struct, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor


def l1lines():
    """(configurations, table words, record slots) of l1lines.cu: 1-32 warps per SM."""
    configs = []
    for dep in (0, 1):
        for mode in range(4):
            for w in (1, 4, 8, 16, 32):
                for n in (1, 2, 4, 8, 16, 32):
                    if not (dep and mode == 2):
                        configs.append(dict(mode=mode, dep=dep, n=n, w=w, iters=2048 // n if mode == 3 else 256))
    table = lambda c: 132 * 2097152 if c["mode"] == 3 else 132 * 32 * 1024
    return configs, table, 32, ["n", "iters", "mode", "dep"]


def l2lines():
    """l2lines.cu: 1-16 warps per SM, s sectors per line on the independent rows."""
    configs = []
    for dep in (0, 1):
        for mode in (0, 1):
            for w in (1, 4, 8, 16):
                for n in (1, 2, 4, 8, 16, 32):
                    for s in (1, 2, 4):
                        if n * s <= 32 and not (dep and s > 1):
                            configs.append(dict(mode=mode, dep=dep, n=n, s=s, w=w, iters=256))
    return configs, lambda c: 132 * 16 * 4096, 16, ["n", "s", "iters", "mode", "dep"]


PROBES = {"l1lines": l1lines, "l2lines": l2lines}

probe, warpsim, ptx, arch, out = sys.argv[1:6]
extra = sys.argv[6:]
where = "True"
if extra[:1] == ["--where"]:
    where, extra = extra[1], extra[2:]
configs, table_words, max_warps, scalars = PROBES[probe]()
configs = [c for c in configs if eval(where, {}, dict(c))]
tmp = tempfile.mkdtemp(prefix=probe + "-")
os.symlink(os.path.abspath(ptx), os.path.join(tmp, probe + ".ptx"))


def run(c):
    w, n, dep, iters = c["w"], c["n"], c["dep"], c["iters"]
    name = "".join(f"{k[0]}{c[k]}" for k in ("mode", "dep", "n", "s", "w") if k in c)
    m = os.path.join(tmp, name + ".toml")
    args = "".join(f'[[arg]]\nscalar = {{ dtype = "s32", value = {c[k]}, name = "{k}" }}\n' for k in scalars)
    with open(m, "w") as f:
        f.write(f'''name = "{name}"
ptx = "{probe}.ptx"
entry = "{probe}"
grid = [132, 1, 1]
block = [{w * 32}, 1, 1]
[[buffer]]
name = "table"
dtype = "u32"
len = {table_words(c)}
init = "zeros"
[[buffer]]
name = "sink"
dtype = "u32"
len = {132 * max_warps * 32}
output = true
[[buffer]]
name = "rec"
dtype = "s64"
len = {132 * max_warps * 3}
output = true
[[arg]]
buffer = "table"
[[arg]]
buffer = "sink"
[[arg]]
buffer = "rec"
{args}''')
    d = os.path.join(tmp, name)
    r = subprocess.run([warpsim, "run", m, "--arch", arch, "--dump", d] + extra, capture_output=True, text=True)
    if r.returncode != 0:
        return f"# {name}: {r.stderr.strip()[:300]}"
    rec = open(os.path.join(d, "rec.bin"), "rb").read()
    shutil.rmtree(d)  # --dump writes every buffer: l1lines' mode 3 table is 1 GiB
    vals = struct.unpack(f"<{len(rec) // 8}q", rec)
    lo, hi, cnt = {}, {}, {}
    for k in range(132 * w):
        sm, t0, t1 = vals[3 * k:3 * k + 3]
        lo[sm] = min(lo.get(sm, t0), t0)
        hi[sm] = max(hi.get(sm, t1), t1)
        cnt[sm] = cnt.get(sm, 0) + 1
    rates, cyc = [], []
    for sm in cnt:
        loads = cnt[sm] * iters * (1 if dep else 4)
        rates.append(loads * n / (hi[sm] - lo[sm]))
        cyc.append((hi[sm] - lo[sm]) / (loads / cnt[sm]))
    rates.sort(); cyc.sort()
    keys = ",".join(str(c[k]) for k in ("mode", "dep", "n", "s", "w", "iters") if k in c)
    return f"{keys},{len(rates)},{rates[len(rates)//2]:.4f},{rates[0]:.4f},{rates[-1]:.4f},{cyc[len(cyc)//2]:.1f}"


with ThreadPoolExecutor(max_workers=os.cpu_count()) as ex:
    rows = list(ex.map(run, configs))
shutil.rmtree(tmp)
head = ",".join({"s": "sectors_per_line", "w": "warps_per_sm"}.get(k, k) for k in ("mode", "dep", "n", "s", "w", "iters") if k in configs[0])
with open(out, "w") as f:
    f.write(head + ",sms,lines_per_cycle_median,lines_per_cycle_min,lines_per_cycle_max,cycles_per_load_median\n")
    f.write("\n".join(rows) + "\n")
