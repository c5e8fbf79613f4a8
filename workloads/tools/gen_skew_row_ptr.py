#!/usr/bin/env python3
"""Write the row_ptr (s32, little-endian, ROWS + 1 elements) of a CSR matrix with power-law row
lengths, for the skewed SpMV workloads (the `csr` init generator draws rows uniformly, so it cannot
make skew). Two matrices are committed:

    membench  -> suite/membench/skew_row_ptr.bin: 32768 rows, length max(1, floor(4096 / (k+1)^(3/5)))
                 (longest 4096, median 12), seed 2024, for `spmv_skew`;
    blind4    -> suite/blind4/skew_rows.bin: 65536 rows, length max(1, floor(2048 / (k+1)^(1/2)))
                 (longest 2048, median 11), seed 4804, for `spmv_thread_skew`.

Row lengths by rank k = 0 .. ROWS-1 are computed in integers (the largest L with
L**Q * (k + 1)**P <= SCALE**Q for the exponent P/Q), then assigned to rows in a random order: a
Fisher-Yates shuffle (for i = ROWS-1 down to 1: j = next() % (i + 1), swap) driven by SplitMix64
from SEED. Integer arithmetic only, so the bytes do not depend on the platform.
Usage: python3 workloads/tools/gen_skew_row_ptr.py membench|blind4 [OUT]
"""
import struct
import sys

# name: (rows, scale, exponent p/q, seed, default output)
MATRICES = {
    "membench": (32768, 4096, (3, 5), 2024, "workloads/suite/membench/skew_row_ptr.bin"),
    "blind4": (65536, 2048, (1, 2), 4804, "workloads/suite/blind4/skew_rows.bin"),
}
MASK = (1 << 64) - 1


def splitmix64(state):
    while True:
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        yield z ^ (z >> 31)


def length(k, scale, exp):
    """max(1, floor(scale / (k + 1) ** (p/q))), exactly."""
    p, q = exp
    bound = scale**q // (k + 1) ** p  # L**q <= scale**q / (k+1)**p  <=>  L**q <= bound
    lo, hi = 0, scale
    while lo < hi:  # largest L in [0, scale] with L**q <= bound
        mid = (lo + hi + 1) // 2
        if mid**q <= bound:
            lo = mid
        else:
            hi = mid - 1
    return max(1, lo)


def row_ptr(rows, scale, exp, seed):
    lengths = [length(k, scale, exp) for k in range(rows)]
    rng = splitmix64(seed)
    for i in range(rows - 1, 0, -1):
        j = next(rng) % (i + 1)
        lengths[i], lengths[j] = lengths[j], lengths[i]
    ptr = [0]
    for n in lengths:
        ptr.append(ptr[-1] + n)
    return ptr, lengths


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in MATRICES:
        sys.exit(__doc__)
    rows, scale, exp, seed, default = MATRICES[sys.argv[1]]
    out = sys.argv[2] if len(sys.argv) > 2 else default
    ptr, lengths = row_ptr(rows, scale, exp, seed)
    with open(out, "wb") as f:
        f.write(struct.pack(f"<{len(ptr)}i", *ptr))
    s = sorted(lengths)
    print(f"{out}: {rows} rows, {ptr[-1]} non-zeros, longest row {s[-1]}, median {s[len(s) // 2]}, "
          f"rows of 32 or more {sum(1 for n in lengths if n >= 32)}")
