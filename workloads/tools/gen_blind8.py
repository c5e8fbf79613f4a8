#!/usr/bin/env python3
"""Write the two structure files of blind8 (no init kind draws skewed row lengths):

    suite/blind8/graph_row_ptr.bin: the row_ptr (s32, NODES + 1) of the CSR graph that
        `sssp_push_200k` and `pagerank_push_200k` walk: 200000 nodes whose out-degrees follow a
        power law, max(1, floor(3000 / (k+1)^(1/2))) for rank k (longest 3000, median 9; 2577556 edges), assigned
        to nodes in a random order (Fisher-Yates over SplitMix64 from seed 1301, exactly as
        gen_skew_row_ptr.py does). The edge targets are an ordinary `randint` buffer.
    suite/blind8/jds_ptr.bin: the jagged-diagonal offsets (s32, NDIAG + 1) of `spmv_jds_150k`:
        150000 rows, already sorted by length (the JDS order), row k of the sorted order holding
        11 + floor(2400 / (k+1)^(1/2)) entries (2411 down to 17; 3430920 non-zeros); diagonal d holds one entry of
        every sorted row longer than d, so jds_ptr[d + 1] - jds_ptr[d] is the number of such rows.
        The row permutation is an ordinary `chase` buffer (a random permutation), the column
        indices and values `randint` buffers.

Integer arithmetic only, so the bytes do not depend on the platform.
Usage: python3 workloads/tools/gen_blind8.py [SUITE_DIR]   (default workloads/suite/blind8)
"""
import struct
import sys

from gen_skew_row_ptr import length, row_ptr

GRAPH = (200000, 3000, (1, 2), 1301)
JDS_ROWS, JDS_BASE, JDS_SCALE = 150000, 11, 2400


def jds_ptr():
    lens = [JDS_BASE + length(k, JDS_SCALE, (1, 2)) for k in range(JDS_ROWS)]
    assert all(a >= b for a, b in zip(lens, lens[1:])), "JDS rows must be sorted longest first"
    ptr, row = [0], len(lens)
    for d in range(lens[0]):
        while row > 0 and lens[row - 1] <= d:
            row -= 1
        ptr.append(ptr[-1] + row)
    return ptr, lens


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "workloads/suite/blind8"
    nodes, scale, exp, seed = GRAPH
    ptr, degs = row_ptr(nodes, scale, exp, seed)
    with open(f"{out}/graph_row_ptr.bin", "wb") as f:
        f.write(struct.pack(f"<{len(ptr)}i", *ptr))
    s = sorted(degs)
    print(f"graph_row_ptr.bin: {nodes} nodes, {ptr[-1]} edges, longest {s[-1]}, median {s[len(s) // 2]}")
    jp, lens = jds_ptr()
    with open(f"{out}/jds_ptr.bin", "wb") as f:
        f.write(struct.pack(f"<{len(jp)}i", *jp))
    print(f"jds_ptr.bin: {JDS_ROWS} rows, {len(jp) - 1} diagonals, {jp[-1]} non-zeros, "
          f"longest {lens[0]}, median {lens[len(lens) // 2]}, shortest {lens[-1]}")
