"""Writes warpsim manifests for atom_time.cu's configurations into DIR (default /tmp/atomtime),
with the kernel's PTX (nvcc -arch=sm_90 -ptx -lineinfo, needs NVCC or nvcc on PATH). Then:
  for f in DIR/*.toml; do warpsim run $f --dump ${f%.toml}; done
leaves each run's records in ${f%.toml}/rec.bin and sms.bin, laid out as the device's
atom_time_<nbins>_g<grid>.bin (records, then SM ids); summary.py compares the two.
"""
import os, subprocess, sys
from pathlib import Path

here = Path(__file__).resolve().parent
out = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/atomtime")
out.mkdir(parents=True, exist_ok=True)
nvcc = os.environ.get("NVCC", "nvcc")
subprocess.run([nvcc, "-arch=sm_90", "-ptx", "-lineinfo", "-o", str(out / "kernel.ptx"), str(here / "atom_time.cu")], check=True)
ITERS = 32
for g in (1024, 132):
    warps = g * 256 // 32
    for nb in (32, 1024, 4096, 32768, 131072, 1048576):
        (out / f"atom_time_{nb}_g{g}.toml").write_text(f'''name = "atom_time_{nb}_g{g}"
description = "atom_time.cu: atom_bins over {nb} bins on {g} CTAs with clock64 around each load and atomic"
ptx = "kernel.ptx"
entry = "atom_time"
grid = [{g}, 1, 1]
block = [256, 1, 1]

[[buffer]]
name = "in"
dtype = "u32"
len = 1048576
init = {{ randint = [1, 8], seed = 944 }}

[[buffer]]
name = "counters"
dtype = "u32"
len = {max(nb, 32)}

[[buffer]]
name = "flag"
dtype = "u32"
len = 2

[[buffer]]
name = "rec"
dtype = "s64"
len = {warps * ITERS * 4}
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
buffer = "flag"

[[arg]]
scalar = {{ dtype = "s32", value = 1048576, name = "n" }}

[[arg]]
scalar = {{ dtype = "s32", value = {nb}, name = "nbins" }}

[[arg]]
buffer = "rec"

[[arg]]
buffer = "sms"
''')
