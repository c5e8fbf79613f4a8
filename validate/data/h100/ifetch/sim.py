#!/usr/bin/env python3
"""The model's rows of ifetch.csv: runs ifetch.cu's kernels (from their PTX: `nvcc -arch=sm_90 -ptx
-o ifetch.ptx ifetch.cu`, without -lineinfo, whose debug strings the per-kernel files would lack) in warpsim, on a one-SM GPU (`--set sm.count=1`: every figure is per SM), with
--dump, and reduces the per-warp records as the device program does. reps is the device run's
scaled by SCALE (the IPC of a loop run 2^18 / N times is that of one run fewer times).
Usage: python3 sim.py WARPSIM PTX ARCH OUTCSV SCALE [extra warpsim args...]"""
import os, shutil, struct, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor

warpsim, ptx, arch, out, scale = sys.argv[1:6]
scale = float(scale)
extra = sys.argv[6:]
tmp = tempfile.mkdtemp(prefix="ifetch-")
# One PTX file per kernel: the module as a whole declares more registers than one kernel may.
text = open(ptx).read()
chunks = text.split(".visible .entry ")
for c in chunks[1:]:
    with open(os.path.join(tmp, c[:c.index("(")] + ".ptx"), "w") as f:
        f.write(chunks[0] + ".visible .entry " + c)
ws = (1, 2, 4, 8, 16)
configs = [(n, 0, w) for n in (64, 1024) for w in ws]
for n in (64, 128, 256, 384, 512, 768, 1024, 1536, 2048, 4096, 8192):
    configs += [(n, 1, w) for w in ws] + [(n, 2, w) for w in ws if w >= 2] + [(n, 4, w) for w in ws if w >= 4]

def run(c):
    n, k, w = c
    reps = max(2, int(262144.0 * scale / n))
    entry = f"_Z5chainILi{n}EEvPfPxiff" if k == 0 else f"_Z6ifetchILi{n}ELi{k}EEvPfPxif"
    scalars = '[[arg]]\nscalar = { dtype = "f32", value = 0.999, name = "a" }\n' + ('[[arg]]\nscalar = { dtype = "f32", value = 0.001, name = "b" }\n' if k == 0 else "")
    name = f"n{n}k{k}w{w}"
    ctas, threads = (w // 8, 1024) if w > 8 else (1, 128 * w)
    m = os.path.join(tmp, name + ".toml")
    with open(m, "w") as f:
        f.write(f'''name = "{name}"
ptx = "{entry}.ptx"
entry = "{entry}"
grid = [{ctas}, 1, 1]
block = [{threads}, 1, 1]
[[buffer]]
name = "out"
dtype = "f32"
len = {128 * w}
output = true
[[buffer]]
name = "rec"
dtype = "s64"
len = {4 * w * 3}
output = true
[[arg]]
buffer = "out"
[[arg]]
buffer = "rec"
[[arg]]
scalar = {{ dtype = "s32", value = {reps}, name = "reps" }}
{scalars}''')
    d = os.path.join(tmp, name)
    r = subprocess.run([warpsim, "run", m, "--arch", arch, "--set", "sm.count=1", "--set", "sm.gpcs=1", "--dump", d] + extra, capture_output=True, text=True)
    if r.returncode != 0:
        return f"# {name}: {r.stderr.strip()[:300]}"
    vals = struct.unpack(f"<{4 * w * 3}q", open(os.path.join(d, "rec.bin"), "rb").read())
    shutil.rmtree(d)
    lo = min(vals[3 * i + 1] for i in range(4 * w))
    hi = max(vals[3 * i + 2] for i in range(4 * w))
    ipc = 4 * w * n * reps / 4.0 / (hi - lo)
    return f"{n},{k},{w},{reps},1,{ipc:.4f},{ipc:.4f},{ipc:.4f},{hi - lo}"

with ThreadPoolExecutor(max_workers=os.cpu_count()) as ex:
    rows = list(ex.map(run, configs))
with open(out, "w") as f:
    f.write("n,k,warps_per_smsp,reps,sms,ipc_per_smsp_median,ipc_per_smsp_min,ipc_per_smsp_max,cycles_median\n")
    f.write("\n".join(rows) + "\n")
shutil.rmtree(tmp)
