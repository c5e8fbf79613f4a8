"""The simulator's side of atom_chain.cu: writes a warpsim manifest per configuration into DIR
(default /tmp/atomchain; the kernel's PTX from NVCC or nvcc on PATH), each launching twice as
the device does (a warm-up, then the recorded launch), runs `warpsim run --dump` on each (WARPSIM
or target/release/warpsim; SASS mode needs ptxas: WARPSIM_CUDA), and prints the device CSV's
columns from the dumped clock64 spans (cycles_est: the simulator's cycles for both launches / 2).
Usage: python3 model.py [DIR] [OP,NLINES,W[,TWINS] ...] [-- warpsim run options]
"""
import json, os, struct, subprocess, sys
from pathlib import Path

ITERS = 64
NSM = 132
here = Path(__file__).resolve().parent
args = sys.argv[1:]
extra = args[args.index("--") + 1:] if "--" in args else []
args = args[: args.index("--")] if "--" in args else args
out = Path(args[0] if args else "/tmp/atomchain")
out.mkdir(parents=True, exist_ok=True)
cfgs = [tuple(map(int, (a + ",0").split(",")[:4])) for a in args[1:]] or [
    (op, nl, w, 0) for op in (0, 1, 2) for nl in (1, 4, 16, 64, 256, 1024, 4096, 65536) for w in (1, 2, 4, 8, 16, 32, 64)]
nvcc = os.environ.get("NVCC", "nvcc")
subprocess.run([nvcc, "-arch=sm_90", "-ptx", "-lineinfo", "-o", str(out / "kernel.ptx"), str(here / "atom_chain.cu")], check=True)
warpsim = os.environ.get("WARPSIM", str(here.parents[3] / "target/release/warpsim"))
print("op,nlines,warps_per_sm,ctas,cycles_est,rt_mean,rt_p50,rt_p90,rt_max,sms_distinct,twins")
for op, nl, w, tw in cfgs:
    ctas, threads = (NSM, 32 * w) if w <= 32 else (2 * NSM, 1024)
    warps = ctas * threads // 32
    name = f"atom_chain_{op}_{nl}_{w}" + (f"_t{tw}" if tw else "")
    (out / f"{name}.toml").write_text(f'''name = "{name}"
ptx = "kernel.ptx"
entry = "atom_chain"

[[buffer]]
name = "words"
dtype = "u32"
len = {65536 * 32}

[[buffer]]
name = "flag"
dtype = "u32"
len = 2

[[buffer]]
name = "out"
dtype = "s64"
len = {warps * 2}
output = true

[[launch]]
grid = [{ctas}, 1, 1]
block = [{threads}, 1, 1]
repeat = 2
[[launch.arg]]
buffer = "words"
[[launch.arg]]
buffer = "flag"
[[launch.arg]]
scalar = {{ dtype = "s32", value = {nl}, name = "nlines" }}
[[launch.arg]]
scalar = {{ dtype = "s32", value = {op}, name = "op" }}
[[launch.arg]]
scalar = {{ dtype = "s32", value = {tw}, name = "twins" }}
[[launch.arg]]
buffer = "out"
''')
    r = subprocess.run([warpsim, "run", str(out / f"{name}.toml"), "--json", "--dump", str(out / name)] + extra,
                       capture_output=True, text=True)
    if r.returncode != 0:
        print(f"# {name}: {r.stderr.strip()}", file=sys.stderr)
        continue
    cycles = json.loads(r.stdout)["cycles"]
    o = struct.unpack(f"<{warps * 2}q", (out / name / "out.bin").read_bytes()[: warps * 16])
    for half in range(2 if op == 2 else 1):  # op 2: the atomic warps (row op 2), then the load warps (op 3)
        ks = range(half, warps, 2 if op == 2 else 1)
        rt = sorted(o[2 * k] // ITERS for k in ks)
        mean = sum(o[2 * k] for k in ks) / ITERS / len(ks)
        q = lambda f: rt[min(len(rt) - 1, int(f * len(rt)))]
        sms = len({o[2 * k + 1] for k in ks})
        print(f"{op + half},{nl},{w},{ctas},{cycles / 2:.0f},{mean:.1f},{q(.5)},{q(.9)},{rt[-1]},{sms},{tw}", flush=True)
