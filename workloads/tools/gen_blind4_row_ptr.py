#!/usr/bin/env python3
"""Write suite/blind4/skew_rows.bin: the row_ptr (s32, little-endian, ROWS + 1 elements) of a CSR
matrix with power-law row lengths, for the blind4 `spmv_thread_skew` workload (the `csr` init
draws rows uniformly, so it cannot make skew).

Row lengths by rank k = 0 .. ROWS-1: max(1, floor(SCALE / sqrt(k + 1))) (2048 for the longest row),
computed in integers (isqrt(SCALE**2 // (k + 1)) is the largest L with L**2 * (k + 1) <= SCALE**2),
assigned to rows in a random order: a Fisher-Yates shuffle (for i = ROWS-1 down to 1:
j = next() % (i + 1), swap) driven by SplitMix64 from SEED. Integer arithmetic only, so the bytes do
not depend on the platform.
Usage: python3 workloads/tools/gen_blind4_row_ptr.py [OUT]
"""
import math
import struct
import sys

ROWS, SCALE, SEED = 65536, 2048, 4804
MASK = (1 << 64) - 1


def splitmix64(state):
    while True:
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        yield z ^ (z >> 31)


def row_ptr():
    lengths = [max(1, math.isqrt(SCALE * SCALE // (k + 1))) for k in range(ROWS)]
    rng = splitmix64(SEED)
    for i in range(ROWS - 1, 0, -1):
        j = next(rng) % (i + 1)
        lengths[i], lengths[j] = lengths[j], lengths[i]
    ptr = [0]
    for n in lengths:
        ptr.append(ptr[-1] + n)
    return ptr, lengths


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "workloads/suite/blind4/skew_rows.bin"
    ptr, lengths = row_ptr()
    with open(out, "wb") as f:
        f.write(struct.pack(f"<{len(ptr)}i", *ptr))
    s = sorted(lengths)
    print(f"{out}: {ROWS} rows, {ptr[-1]} non-zeros, longest row {s[-1]}, median {s[len(s) // 2]}, "
          f"rows of 32 or more {sum(1 for n in lengths if n >= 32)}")
