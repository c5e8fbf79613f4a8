"""Writes warpsim manifests for atom_series.cu's configurations into DIR (default /tmp/series):
membench's atom_bins_4096 / red_4096 with nbins and the grid changed, the membench kernel's PTX
and committed SASS beside them. Then, from DIR:
  for f in *.toml; do echo "${f%.toml} $(warpsim run --arch hopper-h100 $f | grep -oE '^hopper-h100: [0-9]+' | cut -d' ' -f2)"; done
"""
import re, shutil, sys
from pathlib import Path

root = Path(__file__).resolve().parents[4]
mb = root / "workloads/suite/membench"
out = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/series")
out.mkdir(parents=True, exist_ok=True)
for f in ("kernel.ptx", "kernel.sm_90.sass"):
    shutil.copy(mb / f, out / f)
for kind, src in (("atom", "atom_bins_4096.toml"), ("red", "red_4096.toml")):
    base = (mb / src).read_text()
    for g in (1024, 132):
        for nb in (32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 131072, 1048576):
            s = base.replace('value = 4096, name = "nbins"', f'value = {nb}, name = "nbins"')
            s = re.sub(r'name = "[a-z_0-9]+"\n', f'name = "{kind}_{nb}_g{g}"\n', s, count=1)
            s = s.replace("grid = [1024, 1, 1]", f"grid = [{g}, 1, 1]")
            s = re.sub(r'(name = "counters"\ndtype = "u32"\nlen = )\d+', lambda m: m.group(1) + str(max(nb, 32)), s)
            s = re.sub(r"regs_per_thread = \d+\n", "", s)
            (out / f"{kind}_{nb}_g{g}.toml").write_text(s)
