#!/usr/bin/env python3
"""Write suite/membench/skew_row_ptr.bin: the row_ptr (s32, little-endian, ROWS + 1 elements) of a
CSR matrix with power-law row lengths, for the `spmv_skew` workload (the `csr` init generator draws
rows uniformly, so it cannot make skew).

Row lengths by rank k = 0 .. ROWS-1: max(1, floor(SCALE / (k + 1) ** 0.6)) (4096 for the longest
row, median 12), computed in integers (the largest L with L**5 * (k + 1)**3 <= SCALE**5), assigned to
rows in a random order: a Fisher-Yates shuffle (for i = ROWS-1 down to 1: j = next() % (i + 1),
swap) driven by SplitMix64 from SEED. Integer arithmetic only, so the bytes do not depend on the
platform.
Usage: python3 workloads/tools/gen_skew_row_ptr.py [OUT]
"""
import struct
import sys

ROWS, SCALE, SEED = 32768, 4096, 2024
MASK = (1 << 64) - 1


def splitmix64(state):
    while True:
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        yield z ^ (z >> 31)


def length(k):
    """max(1, floor(SCALE / (k + 1) ** (3/5))), exactly."""
    bound = SCALE**5 // (k + 1) ** 3  # L**5 <= SCALE**5 / (k+1)**3  <=>  L**5 <= bound
    lo, hi = 0, SCALE
    while lo < hi:  # largest L in [0, SCALE] with L**5 <= bound
        mid = (lo + hi + 1) // 2
        if mid**5 <= bound:
            lo = mid
        else:
            hi = mid - 1
    return max(1, lo)


def row_ptr():
    lengths = [length(k) for k in range(ROWS)]
    rng = splitmix64(SEED)
    for i in range(ROWS - 1, 0, -1):
        j = next(rng) % (i + 1)
        lengths[i], lengths[j] = lengths[j], lengths[i]
    ptr = [0]
    for n in lengths:
        ptr.append(ptr[-1] + n)
    return ptr


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "workloads/suite/membench/skew_row_ptr.bin"
    ptr = row_ptr()
    with open(out, "wb") as f:
        f.write(struct.pack(f"<{len(ptr)}i", *ptr))
    print(f"{out}: {ROWS} rows, {ptr[-1]} non-zeros, longest row {max(b - a for a, b in zip(ptr, ptr[1:]))}")
