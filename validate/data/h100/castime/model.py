"""The model's side of cas_time.cu: writes a manifest per configuration into DIR (default
/tmp/castime; the kernel's PTX from `nvcc -arch=sm_90 -ptx -lineinfo`, NVCC or nvcc on PATH),
runs `warpsim run --dump` on each (WARPSIM, default `warpsim`; SASS mode through ptxas where the
toolchain is found) and prints the same summary row as the device's castime.csv, from the
records the run dumps. `python3 model.py DIR` then `python3 model.py --summary FILE.bin WARPS` reads
one device record file.
"""
import os, struct, subprocess, sys
from pathlib import Path

MAXREC = 2048
CONFIGS = [("w1", 1, 32, 32, 1), ("c1", 1, 256, 256, 1), ("s8", 8, 32, 256, 1), ("s64", 64, 32, 2048, 1),
           ("c1_64", 1, 256, 256, 64), ("s8_64", 8, 256, 2048, 64), ("w1_32", 1, 32, 32, 32)]


def summary(data, warps):
    recs = struct.unpack(f"<{warps * MAXREC * 5}q", data[: warps * MAXREC * 40])
    rt, gap = [], []
    att = lanes = succ = 0
    for w in range(warps):
        prev = None
        for k in range(MAXREC):
            o = recs[(w * MAXREC + k) * 5:(w * MAXREC + k) * 5 + 5]
            if o[1] == 0:
                break
            att += 1; lanes += o[3]; succ += o[2]
            rt.append(o[1] - o[0])
            if prev is not None:
                gap.append(o[0] - prev)
            prev = o[0]
    q = lambda v, f: sorted(v)[min(len(v) - 1, int(f * len(v)))] if v else 0
    return f"attempts {att} lane_attempts {lanes} successes {succ} rt p10/p50/p90/max {q(rt, .1)}/{q(rt, .5)}/{q(rt, .9)}/{max(rt) if rt else 0} gap_p50 {q(gap, .5)} succ/attempt {succ / att if att else 0:.4f}"


def main():
    if sys.argv[1:2] == ["--summary"]:
        print(summary(Path(sys.argv[2]).read_bytes(), int(sys.argv[3])))
        return
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/castime")
    out.mkdir(parents=True, exist_ok=True)
    here = Path(__file__).resolve().parent
    subprocess.run([os.environ.get("NVCC", "nvcc"), "-arch=sm_90", "-ptx", "-lineinfo", "-o", str(out / "kernel.ptx"), str(here / "cas_time.cu")], check=True)
    for name, grid, block, n, nbins in CONFIGS:
        warps = grid * block // 32
        m = out / f"castime_{name}.toml"
        m.write_text(f'''name = "castime_{name}"
description = "cas_time.cu: f32 atomicCAS loops, {n} updates into {nbins} words from {grid} x {block} threads, each CAS timed"
ptx = "kernel.ptx"
entry = "cas_time"
grid = [{grid}, 1, 1]
block = [{block}, 1, 1]

[[buffer]]
name = "in"
dtype = "f32"
len = 2048
init = {{ randint = [1, 8], seed = 1 }}

[[buffer]]
name = "counters"
dtype = "f32"
len = 64

[[buffer]]
name = "rec"
dtype = "s64"
len = {warps * MAXREC * 5}
output = true

[[buffer]]
name = "sms"
dtype = "s64"
len = {warps}
output = true

[[arg]]
buffer = "in"

[[arg]]
buffer = "counters"

[[arg]]
scalar = {{ dtype = "s32", value = {n}, name = "n" }}

[[arg]]
scalar = {{ dtype = "s32", value = {nbins}, name = "nbins" }}

[[arg]]
buffer = "rec"

[[arg]]
buffer = "sms"
''')
        d = out / f"castime_{name}"
        r = subprocess.run([os.environ.get("WARPSIM", "warpsim"), "run", str(m), "--dump", str(d)], capture_output=True, text=True)
        cyc = next((l.split(":")[1].split("cycles")[0].strip() for l in r.stdout.splitlines() if " cycles = " in l), "?")
        print(f"{name}: cycles {cyc} " + summary((d / "rec.bin").read_bytes(), warps))


if __name__ == "__main__":
    main()
