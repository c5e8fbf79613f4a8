#!/usr/bin/env python3
"""The model's rows of stload.csv: runs stload.cu's kernel (from its PTX) in warpsim for every
configuration the device program runs, with --dump, and reduces the per-warp records the same way.
Level 2's rings are 512 lines 128 B apart per warp, walked once in 512 steps (the device's are 8192
lines 512 B apart, 4 MiB, 2048 steps: too much memory to simulate 2112 of); the order is random
either way and every line is fresh.
Usage: python3 sim.py WARPSIM PTX ARCH OUTCSV [extra warpsim args...]"""
import os, random, shutil, struct, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor

warpsim, ptx, arch, out = sys.argv[1:5]
extra = sys.argv[5:]
tmp = tempfile.mkdtemp(prefix="stload-")
os.symlink(os.path.abspath(ptx), os.path.join(tmp, "stload.ptx"))
SMS, MAXW = 132, 16
rng = random.Random(7)

def ring(lines, spacing):
    """One warp's ring: `lines` lines `spacing` words apart in random order (line 0 first)."""
    order = list(range(lines))
    rest = order[1:]
    rng.shuffle(rest)
    order = [0] + rest
    words = [0] * (lines * spacing)
    for i, l in enumerate(order):
        words[l * spacing] = order[(i + 1) % lines] * spacing
    return struct.pack(f"<{len(words)}I", *words)

rings = {}
for level, (lines, spacing) in {0: (64, 32), 1: (64, 32), 2: (512, 32)}.items():
    one = ring(lines, spacing)
    path = os.path.join(tmp, f"ring{level}.bin")
    with open(path, "wb") as f:
        f.write(one * (SMS * MAXW))
    rings[level] = (path, lines * spacing)

configs = [(level, mode, w) for level in range(3) for mode in range(5) for w in (1, 8, 16)]

def run(c):
    level, mode, w = c
    steps = 512 if level == 2 else 1024
    path, rw = rings[level]
    name = f"l{level}m{mode}w{w}"
    m = os.path.join(tmp, name + ".toml")
    with open(m, "w") as f:
        f.write(f'''name = "{name}"
ptx = "stload.ptx"
entry = "_Z6stloadPKjPjPxiiim"
grid = [{SMS}, 1, 1]
block = [{w * 32}, 1, 1]
[[buffer]]
name = "ring"
dtype = "u32"
len = {SMS * MAXW * rw}
init = {{ file = "{os.path.basename(path)}" }}
[[buffer]]
name = "out"
dtype = "u32"
len = {SMS * MAXW * 4096 * 32}
[[buffer]]
name = "rec"
dtype = "s64"
len = {SMS * MAXW * 2}
output = true
[[arg]]
buffer = "ring"
[[arg]]
buffer = "out"
[[arg]]
buffer = "rec"
[[arg]]
scalar = {{ dtype = "s32", value = {level}, name = "level" }}
[[arg]]
scalar = {{ dtype = "s32", value = {mode}, name = "mode" }}
[[arg]]
scalar = {{ dtype = "s32", value = {steps}, name = "steps" }}
[[arg]]
scalar = {{ dtype = "u64", value = {rw}, name = "ring_words" }}
''')
    d = os.path.join(tmp, name)
    r = subprocess.run([warpsim, "run", m, "--arch", arch, "--dump", d] + extra, capture_output=True, text=True)
    if r.returncode != 0:
        return f"# {name}: {r.stderr.strip()[:300]}"
    rec = open(os.path.join(d, "rec.bin"), "rb").read()
    shutil.rmtree(d)
    vals = struct.unpack(f"<{len(rec) // 8}q", rec)
    c = sorted(vals[2 * k] / steps for k in range(SMS * w))
    return f"{level},{mode},{w},{steps},{c[len(c) // 2]:.1f},{c[-1]:.1f}"

with ThreadPoolExecutor(max_workers=os.cpu_count()) as ex:
    rows = list(ex.map(run, configs))
shutil.rmtree(tmp)
with open(out, "w") as f:
    f.write("level,mode,warps_per_sm,steps,cycles_per_step_median,cycles_per_step_max\n")
    f.write("\n".join(rows) + "\n")
