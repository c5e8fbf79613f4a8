#!/usr/bin/env python3
"""Write the row lengths (s32, little-endian, ROWS elements) of an ELLPACK-R matrix with a few
long rows, for blind5's `spmv_ellr_long` (no init kind draws a length array with outliers).

    blind5 -> suite/blind5/ell_row_len.bin: 32768 rows; 256 of them (chosen at random) are as
              long as the ELL width, 128; every other row has 4 + (next() % 17) entries (4 to 20).

Rows are drawn in order from SplitMix64 (seed 919): each row's short length first, then a
Fisher-Yates shuffle (for i = ROWS-1 down to 1: j = next() % (i + 1), swap) of the row numbers
picks the first LONG rows of the permutation as the long ones. Integer arithmetic only, so the
bytes do not depend on the platform.
Usage: python3 workloads/tools/gen_ell_row_len.py [OUT]
"""
import struct
import sys

from gen_skew_row_ptr import splitmix64  # the same SplitMix64 stream as the skewed CSR rows

ROWS, WIDTH, LONG, SEED = 32768, 128, 256, 919
OUT = "workloads/suite/blind5/ell_row_len.bin"


def row_len():
    rng = splitmix64(SEED)
    lengths = [4 + next(rng) % 17 for _ in range(ROWS)]
    order = list(range(ROWS))
    for i in range(ROWS - 1, 0, -1):
        j = next(rng) % (i + 1)
        order[i], order[j] = order[j], order[i]
    for r in order[:LONG]:
        lengths[r] = WIDTH
    return lengths


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else OUT
    lengths = row_len()
    with open(out, "wb") as f:
        f.write(struct.pack(f"<{ROWS}i", *lengths))
    warps_long = sum(1 for w in range(ROWS // 32) if max(lengths[32 * w:32 * w + 32]) == WIDTH)
    print(f"{out}: {ROWS} rows, {sum(lengths)} non-zeros, {LONG} rows of {WIDTH}, "
          f"{warps_long} of {ROWS // 32} warps hold a long row")
