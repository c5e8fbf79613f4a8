"""Per-iteration load and atomic latencies from atom_time records (the device's
atom_time_<nbins>_g<grid>.bin, or a warpsim --dump directory's rec.bin): for each iteration,
the median / p90 / max of t1 - t0 (load) and t2 - t1 (atomic).
Usage: python3 summary.py FILE.bin|DIR [grid]
"""
import struct, sys
from pathlib import Path

ITERS = 32
p = Path(sys.argv[1])
grid = int(sys.argv[2]) if len(sys.argv) > 2 else int(p.stem.rsplit("_g", 1)[1])
warps = grid * 256 // 32
data = (p / "rec.bin").read_bytes() if p.is_dir() else p.read_bytes()
rec = struct.unpack(f"<{warps * ITERS * 4}q", data[: warps * ITERS * 32])
def q(v, f):
    v = sorted(v)
    return v[min(len(v) - 1, int(f * len(v)))] if v else 0
for it in range(ITERS):
    rows = [rec[(w * ITERS + it) * 4:(w * ITERS + it) * 4 + 4] for w in range(warps)]
    rows = [r for r in rows if r[2] != 0]
    if not rows:
        break
    ld = [r[1] - r[0] for r in rows]
    at = [r[2] - r[1] for r in rows]
    print(f"iter {it:2d} warps {len(rows):5d}  load p50 {q(ld, .5):6d} p90 {q(ld, .9):6d} max {max(ld):6d}"
          f"  atomic p50 {q(at, .5):6d} p90 {q(at, .9):6d} max {max(at):6d}")
