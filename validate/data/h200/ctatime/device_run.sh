#!/bin/bash
# One device call (from the repository root): ctatime's per-warp records of the two kernels.
# INPUTS: the directory holding row_ptr.bin, col_idx.bin, level.bin (README). Result: $OUT/ctatime.csv.gz
set -u
INPUTS=${INPUTS:-.ctin}
nvcc -arch=sm_90 -O3 -lineinfo -o /tmp/ctatime validate/data/h200/ctatime/ctatime.cu || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader > $OUT/ctatime-gpu.txt 2>&1
/tmp/ctatime "$INPUTS" 2> $OUT/ctatime.err | gzip > $OUT/ctatime.csv.gz
