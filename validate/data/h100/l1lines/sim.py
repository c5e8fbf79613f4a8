#!/usr/bin/env python3
"""The model's rows of l1lines.csv: runs l1lines.cu's kernel (from its PTX) in warpsim for every
configuration the device program runs, with --dump, and reduces the per-warp records the same way.
Usage: python3 sim.py WARPSIM PTX ARCH OUTCSV [extra warpsim args...]"""
import os, shutil, struct, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor

warpsim, ptx, arch, out = sys.argv[1:5]
extra = sys.argv[5:]
tmp = tempfile.mkdtemp(prefix="l1lines-")
os.symlink(os.path.abspath(ptx), os.path.join(tmp, "l1lines.ptx"))
configs = []
for dep in (0, 1):
    for mode in range(4):
        for w in (1, 4, 8, 16, 32):
            for n in (1, 2, 4, 8, 16, 32):
                if dep and mode == 2:
                    continue
                configs.append((mode, dep, n, w, 2048 // n if mode == 3 else 256))

def run(c):
    mode, dep, n, w, iters = c
    name = f"m{mode}d{dep}n{n}w{w}"
    words = 132 * 2097152 if mode == 3 else 132 * 32 * 1024
    m = os.path.join(tmp, name + ".toml")
    with open(m, "w") as f:
        f.write(f'''name = "{name}"
ptx = "l1lines.ptx"
entry = "l1lines"
grid = [132, 1, 1]
block = [{w * 32}, 1, 1]
[[buffer]]
name = "table"
dtype = "u32"
len = {words}
init = "zeros"
[[buffer]]
name = "sink"
dtype = "u32"
len = {132 * 32 * 32}
output = true
[[buffer]]
name = "rec"
dtype = "s64"
len = {132 * 32 * 3}
output = true
[[arg]]
buffer = "table"
[[arg]]
buffer = "sink"
[[arg]]
buffer = "rec"
[[arg]]
scalar = {{ dtype = "s32", value = {n}, name = "n" }}
[[arg]]
scalar = {{ dtype = "s32", value = {iters}, name = "iters" }}
[[arg]]
scalar = {{ dtype = "s32", value = {mode}, name = "mode" }}
[[arg]]
scalar = {{ dtype = "s32", value = {dep}, name = "dep" }}
''')
    d = os.path.join(tmp, name)
    r = subprocess.run([warpsim, "run", m, "--arch", arch, "--dump", d] + extra, capture_output=True, text=True)
    if r.returncode != 0:
        return f"# {name}: {r.stderr.strip()[:300]}"
    rec = open(os.path.join(d, "rec.bin"), "rb").read()
    shutil.rmtree(d)  # --dump writes every buffer: mode 3's table is 1 GiB
    vals = struct.unpack(f"<{len(rec) // 8}q", rec)
    lo, hi, cnt = {}, {}, {}
    for k in range(132 * w):
        s, t0, t1 = vals[3 * k:3 * k + 3]
        lo[s] = min(lo.get(s, t0), t0)
        hi[s] = max(hi.get(s, t1), t1)
        cnt[s] = cnt.get(s, 0) + 1
    rates, cyc = [], []
    for s in cnt:
        loads = cnt[s] * iters * (1 if dep else 4)
        rates.append(loads * n / (hi[s] - lo[s]))
        cyc.append((hi[s] - lo[s]) / (loads / cnt[s]))
    rates.sort(); cyc.sort()
    return f"{mode},{dep},{n},{w},{iters},{len(rates)},{rates[len(rates)//2]:.4f},{rates[0]:.4f},{rates[-1]:.4f},{cyc[len(cyc)//2]:.1f}"

with ThreadPoolExecutor(max_workers=os.cpu_count()) as ex:
    rows = list(ex.map(run, configs))
shutil.rmtree(tmp)
with open(out, "w") as f:
    f.write("mode,dep,n,warps_per_sm,iters,sms,lines_per_cycle_median,lines_per_cycle_min,lines_per_cycle_max,cycles_per_load_median\n")
    f.write("\n".join(rows) + "\n")
